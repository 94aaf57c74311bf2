// A server written with the official TypeScript SDK, listed through an SDK client over the
// SDK's in-memory transport, turned into an MCP Description and validated: what the SDK
// serves is a valid description, and a broken copy gives the specific rule.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { Engine, validate, validateAsync } from 'mcpdesc';

function buildServer() {
  const server = new McpServer(
    { name: 'sdk-weather', title: 'SDK Weather', version: '2.3.1' },
    { instructions: 'Forecasts and conditions for cities.' },
  );
  server.registerTool(
    'get_forecast',
    {
      title: 'Get Forecast',
      description: 'Daily forecast for a city',
      inputSchema: {
        city: z.string().describe('The city'),
        days: z.number().int().min(1).max(10).default(3),
        units: z.enum(['metric', 'imperial']).optional(),
      },
      outputSchema: {
        city: z.string(),
        days: z.array(z.object({ date: z.string(), high: z.number(), low: z.number() })),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ city, days }) => {
      const structuredContent = {
        city,
        days: Array.from({ length: days }, (_, i) => ({ date: `day-${i + 1}`, high: 20 + i, low: 10 + i })),
      };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  server.registerTool(
    'set_alert',
    {
      title: 'Set Alert',
      description: 'Alert when a temperature threshold is crossed',
      inputSchema: {
        city: z.string(),
        threshold: z.number(),
        direction: z.enum(['above', 'below']),
        tags: z.array(z.string()).max(5).optional(),
      },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    async ({ city }) => ({ content: [{ type: 'text', text: `alert set for ${city}` }] }),
  );
  server.registerTool(
    'ping',
    { description: 'Checks that the server answers' },
    async () => ({ content: [{ type: 'text', text: 'pong' }] }),
  );
  server.registerResource(
    'stations',
    'weather://stations',
    { title: 'Weather stations', description: 'Every station the server reads', mimeType: 'application/json' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: '[]' }] }),
  );
  server.registerPrompt(
    'plan_trip',
    {
      title: 'Plan a trip',
      description: 'Suggest what to pack for a destination',
      argsSchema: { destination: z.string().describe('Where to'), month: z.string().optional() },
    },
    ({ destination }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `What should I pack for ${destination}?` } }],
    }),
  );
  return server;
}

/** Only the members an MCP Description has, without the SDK's undefined ones. */
function pick(object, keys) {
  const out = {};
  for (const key of keys) if (object[key] !== undefined) out[key] = object[key];
  return out;
}

/** The description of what the client sees of the server. */
async function describeServer(client) {
  const info = client.getServerVersion();
  const { tools } = await client.listTools();
  const { resources } = await client.listResources();
  const { prompts } = await client.listPrompts();
  return {
    mcpdesc: '0.8.0',
    info: pick(info, ['name', 'title', 'version']),
    protocolVersions: [LATEST_PROTOCOL_VERSION],
    capabilities: [client.getServerCapabilities()],
    tools: tools.map((t) =>
      pick(t, ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'execution']),
    ),
    resources: resources.map((r) => pick(r, ['uri', 'name', 'title', 'description', 'mimeType'])),
    prompts: prompts.map((p) => pick(p, ['name', 'title', 'description', 'arguments'])),
  };
}

describe('a server written with the MCP TypeScript SDK', () => {
  let client;
  let server;
  let description;

  before(async () => {
    server = buildServer();
    client = new Client({ name: 'mcpdesc-test-client', version: '1.0.0' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    description = await describeServer(client);
  });

  after(async () => {
    await client?.close();
    await server?.close();
  });

  test('is listed through the SDK client as registered', async () => {
    assert.deepEqual(
      description.tools.map((t) => t.name),
      ['get_forecast', 'set_alert', 'ping'],
    );
    const forecast = description.tools[0];
    assert.equal(forecast.inputSchema.type, 'object');
    assert.deepEqual(forecast.inputSchema.required, ['city']);
    assert.equal(forecast.outputSchema.type, 'object');
    assert.equal(forecast.annotations.readOnlyHint, true);
    assert.ok(description.capabilities[0].tools, JSON.stringify(description.capabilities));
    assert.ok(description.capabilities[0].resources);
    assert.ok(description.capabilities[0].prompts);
    assert.equal(description.info.name, 'sdk-weather');
    assert.equal(description.resources[0].uri, 'weather://stations');
    assert.equal(description.prompts[0].arguments[0].name, 'destination');
    // The server really serves what it lists.
    const result = await client.callTool({ name: 'get_forecast', arguments: { city: 'Lisbon', days: 2 } });
    assert.equal(result.structuredContent.days.length, 2);
  });

  test('is a valid MCP Description', async () => {
    const report = validate(description);
    assert.equal(report.valid, true, JSON.stringify(report.diagnostics, null, 2));
    assert.deepEqual(report.errors, []);
    assert.equal(report.release, '0.8.0');
    assert.deepEqual(await validateAsync(description), report);
    // As JSON text too, with positions for anything it would report.
    const text = validate(JSON.stringify(description, null, 2), { path: 'sdk-weather.json' });
    assert.equal(text.valid, true, JSON.stringify(text.diagnostics, null, 2));
  });

  test('an input schema whose root is not an object breaks the description', () => {
    const broken = structuredClone(description);
    broken.tools[1].inputSchema = { type: 'array', items: { type: 'string' } };
    const report = validate(broken);
    assert.equal(report.valid, false);
    const found = report.errors.filter((d) => d.rule === 'mcpdesc.tool.input-schema-object-root');
    assert.equal(found.length, 1, JSON.stringify(report.diagnostics, null, 2));
    assert.match(found[0].pointer, /^\/tools\/1\/inputSchema/);
    assert.deepEqual(found[0].versions, [LATEST_PROTOCOL_VERSION]);
  });

  test('an output schema whose root is not an object breaks the description', () => {
    const broken = structuredClone(description);
    broken.tools[0].outputSchema = { type: 'string' };
    const report = new Engine({ protocolVersions: LATEST_PROTOCOL_VERSION }).validate(broken);
    assert.ok(
      report.errors.some((d) => d.rule === 'mcp.tool.output-schema-object-root' && d.pointer.startsWith('/tools/0/outputSchema')),
      JSON.stringify(report.diagnostics, null, 2),
    );
  });

  test('a tool listed twice for one protocol version breaks the description', () => {
    const broken = structuredClone(description);
    broken.tools.push(structuredClone(broken.tools[2]));
    const report = validate(broken);
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.errors.map((d) => [d.rule, d.pointer, d.versions]),
      [['mcpdesc.tool.scope-disjoint', '/tools/3', [LATEST_PROTOCOL_VERSION]]],
    );
  });
});

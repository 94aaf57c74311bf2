// Runs one session of the official TypeScript SDK client against a stdio server and writes
// every JSON-RPC message the client sent and received to a JSON file.
//
// Usage: node session.mjs --out FILE [--protocol-version V] -- COMMAND [ARG...]
//
// COMMAND is what the client launches as its server: the server itself, or
// `mcpdesc tap ... -- SERVER...` in front of it. Comparing the files of the two runs shows
// whether the proxy changed anything the client saw.
//
// The session uses only requests whose answers do not depend on timing: no logging level,
// no subscriptions, no tools that return random or time-stamped content, and no client
// capabilities (so the server sends no requests of its own, such as roots/list, on a timer).

import { parseArgs } from "node:util";
import { writeFileSync } from "node:fs";

// The SDK is the one xtask/live-servers/install.sh installs at its pinned version; a bare
// specifier would not find it from here. Its package maps `./*` to `./dist/esm/*`.
const sdk = new URL("../live-servers/node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url);
const { Client } = await import(new URL("client/index.js", sdk));
const { StdioClientTransport } = await import(new URL("client/stdio.js", sdk));
const { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } = await import(new URL("types.js", sdk));

const { values: opt, positionals: command } = parseArgs({
  options: {
    out: { type: "string" },
    "protocol-version": { type: "string" },
  },
  allowPositionals: true,
});
if (!opt.out || command.length === 0) {
  console.error("usage: node session.mjs --out FILE [--protocol-version V] -- COMMAND [ARG...]");
  process.exit(2);
}
const version = opt["protocol-version"] ?? LATEST_PROTOCOL_VERSION;
if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
  throw new Error(`${version} is not in the SDK's SUPPORTED_PROTOCOL_VERSIONS`);
}

// Fixed arguments for the tools of the servers the tests use (server-everything and
// xtask/live-servers/python-server.py). A listed tool the table does not name is not called:
// its answer could depend on time or chance.
const TOOL_ARGS = {
  echo: { message: "Hello through the tap" },
  "get-sum": { a: 19, b: 23 },
  "get-structured-content": { location: "Chicago" },
  "get-resource-links": { count: 2 },
  add: { a: 19, b: 23 },
  greet: { name: "Ada", language: "pt" },
};
const PROMPT_ARGS = {
  "simple-prompt": {},
  "args-prompt": { city: "Portland", state: "Oregon" },
  code_review: { code: "print('hi')", language: "python" },
};
// server-everything's dynamic resources carry the time they were read.
const readable = (uri) => !uri.startsWith("demo://resource/dynamic/");
const RESOURCES_READ = 2;

const log = (...a) => console.error("[tap-session ts]", ...a);

const sent = [];
const received = [];

const transport = new StdioClientTransport({
  command: command[0],
  args: command.slice(1),
  stderr: "inherit",
});
// Protocol.connect chains a handler already set here, so this one sees every message the
// transport delivers, before the SDK acts on it.
transport.onmessage = (message) => received.push(message);
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  // The SDK always offers its latest revision and has no option for another: rewrite only
  // the offered version; the server's answer and the SDK's acceptance check are their own.
  if (message.method === "initialize" && version !== LATEST_PROTOCOL_VERSION) {
    message = { ...message, params: { ...message.params, protocolVersion: version } };
  }
  sent.push(message);
  return send(message, options);
};

const client = new Client({ name: "mcpdesc-tap-session", version: "1.0.0" }, { capabilities: {} });

async function main() {
  await client.connect(transport);
  log(`connected to ${JSON.stringify(client.getServerVersion())}`);

  const tools = (await client.listTools()).tools;
  for (const tool of tools) {
    const args = TOOL_ARGS[tool.name];
    if (args === undefined) continue;
    const result = await client.callTool({ name: tool.name, arguments: args });
    log(`tools/call ${tool.name}: ${result.isError ? "isError" : "ok"}`);
  }

  const prompts = (await client.listPrompts()).prompts;
  for (const prompt of prompts) {
    const args = PROMPT_ARGS[prompt.name];
    if (args === undefined) continue;
    await client.getPrompt({ name: prompt.name, arguments: args });
    log(`prompts/get ${prompt.name}: ok`);
  }

  const resources = (await client.listResources()).resources;
  for (const resource of resources.filter((r) => readable(r.uri)).slice(0, RESOURCES_READ)) {
    await client.readResource({ uri: resource.uri });
    log(`resources/read ${resource.uri}: ok`);
  }

  await client.close();
  const negotiated = received.find((m) => m.result?.protocolVersion)?.result.protocolVersion ?? null;
  writeFileSync(opt.out, JSON.stringify({ protocolVersion: negotiated, sent, received }, null, 2) + "\n");
  log(`${sent.length} sent, ${received.length} received`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

// Drives @modelcontextprotocol/server-everything over stdio with the official
// TypeScript SDK client, through tap.py, so the capture holds real traffic
// between two official implementations.
//
// Usage: node ts-client.mjs --version <protocol-version> --capture <file>
//                           --python <python3> --tap <tap.py> --server <server-everything index.js>
//
// The SDK's Client always offers its LATEST_PROTOCOL_VERSION and has no option
// to offer another one. To record an older revision we rewrite only the
// `protocolVersion` of the outgoing `initialize` request in the transport's
// `send`; everything after that (the server's choice, the client's acceptance
// check, the capabilities each side uses) is the SDK's own negotiation.
//
// Everything the server offers is exercised, but only with features that exist
// in the negotiated revision: the client declares elicitation from 2025-06-18,
// URL-mode elicitation and tasks from 2025-11-25, and skips the tools and
// request fields that depend on them. Whatever the server sends back is its own
// behaviour and is recorded as is.

import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

const { values: opt } = parseArgs({
  options: {
    version: { type: "string" },
    capture: { type: "string" },
    python: { type: "string" },
    tap: { type: "string" },
    server: { type: "string" },
  },
});
for (const k of ["version", "capture", "python", "tap", "server"]) {
  if (!opt[k]) throw new Error(`missing --${k}`);
}
const VERSION = opt.version;
if (!SUPPORTED_PROTOCOL_VERSIONS.includes(VERSION)) {
  throw new Error(`${VERSION} is not in the SDK's SUPPORTED_PROTOCOL_VERSIONS`);
}

// Date-shaped revisions compare correctly as strings.
const atLeast = (v) => VERSION >= v;
const HAS_ELICITATION = atLeast("2025-06-18");
const HAS_COMPLETION_CONTEXT = atLeast("2025-06-18");
const HAS_URL_ELICITATION = atLeast("2025-11-25");
const HAS_TASKS = atLeast("2025-11-25");
const HAS_ARRAY_ELICITATION = atLeast("2025-11-25");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error("[ts-client]", ...a);

// Fixed roots so the capture is deterministic and names no real paths.
const ROOTS = [
  { uri: "file:///workspace/project", name: "project" },
  { uri: "file:///workspace/shared-docs", name: "shared docs" },
];

// ---------------------------------------------------------------------------
// Canned answers for server-initiated requests.

function cannedSamplingResult(params) {
  const first = params.messages?.[0]?.content;
  const asked = first && !Array.isArray(first) && first.type === "text" ? first.text : "(non-text prompt)";
  return {
    model: "canned-test-model",
    role: "assistant",
    stopReason: "endTurn",
    content: { type: "text", text: `Canned completion for: ${asked}` },
  };
}

// Builds a value for one elicitation property from its schema. Deterministic.
function elicitValue(schema) {
  if (schema.type === "number" || schema.type === "integer") {
    // The published schema.json of every revision types ElicitResult content
    // values as string | integer | boolean (schema.ts says `number`), so a
    // fractional answer such as a 3.14 default would be invalid against it.
    // An integral value satisfies both.
    const n = Math.trunc(schema.default ?? schema.minimum ?? 1);
    return schema.minimum !== undefined && n < schema.minimum ? Math.ceil(schema.minimum) : n;
  }
  if (schema.default !== undefined) return schema.default;
  if (schema.type === "array") {
    const items = schema.items ?? {};
    const first = items.enum?.[0] ?? items.anyOf?.[0]?.const ?? items.oneOf?.[0]?.const;
    return first === undefined ? [] : [first];
  }
  if (schema.enum) return schema.enum[0];
  if (schema.oneOf) return schema.oneOf[0].const;
  if (schema.type === "boolean") return true;
  switch (schema.format) {
    case "email":
      return "ada@example.com";
    case "uri":
      return "https://example.com/ada";
    case "date":
      return "1990-12-10";
    case "date-time":
      return "1990-12-10T09:00:00Z";
  }
  let s = "Ada Lovelace";
  if (schema.minLength && s.length < schema.minLength) s = s.padEnd(schema.minLength, ".");
  if (schema.maxLength && s.length > schema.maxLength) s = s.slice(0, schema.maxLength);
  return s;
}

function cannedElicitResult(params) {
  if (params.mode === "url") return { action: "accept" };
  const content = {};
  for (const [key, prop] of Object.entries(params.requestedSchema?.properties ?? {})) {
    // Array-valued answers only exist from 2025-11-25; before that the result
    // content may hold primitives only, so optional array fields are left out.
    if (prop.type === "array" && !HAS_ARRAY_ELICITATION) continue;
    content[key] = elicitValue(prop);
  }
  return { action: "accept", content };
}

// A task-augmented server request (2025-11-25) asks the client to run the work
// as a task: answer with CreateTaskResult at once and finish it shortly after,
// so the server's tasks/get polling and tasks/result fetch are recorded.
async function maybeAsTask(request, extra, produce) {
  if (!request.params.task || !extra.taskStore) return produce();
  const task = await extra.taskStore.createTask({ ttl: request.params.task.ttl ?? 60000, pollInterval: 500 });
  setTimeout(() => {
    extra.taskStore.storeTaskResult(task.taskId, "completed", produce()).catch((e) => log("task store:", e));
  }, 300);
  return { task };
}

// ---------------------------------------------------------------------------
// Arguments for every tool. Fixed values keep the recording deterministic;
// the schema-driven fallback covers tools added to the server later.

const TOOL_ARGS = {
  echo: { message: "Hello from the capture recorder" },
  "get-annotated-message": { messageType: "success", includeImage: true },
  "get-env": {},
  "get-resource-links": { count: 2 },
  "get-resource-reference": { resourceType: "Text", resourceId: 1 },
  "get-structured-content": { location: "Chicago" },
  "get-sum": { a: 19, b: 23 },
  "get-tiny-image": {},
  // A data: URI keeps the tool off the network (its default argument is an https URL).
  "gzip-file-as-resource": {
    name: "greeting.txt.gz",
    data: "data:text/plain;base64," + Buffer.from("Hello, gzip!\n").toString("base64"),
    outputType: "resource",
  },
  // Small duration so the run stays short; progress notifications are requested below.
  "trigger-long-running-operation": { duration: 1, steps: 3 },
  "get-roots-list": {},
  "trigger-elicitation-request": {},
  "trigger-sampling-request": { prompt: "Write a haiku about pipes.", maxTokens: 50 },
  "trigger-url-elicitation": {
    url: "https://example.com/authorize",
    message: "Please open the link to complete this action.",
    elicitationId: "elicitation-request-path",
  },
  "trigger-sampling-request-async": { prompt: "Summarise the MCP tasks feature.", maxTokens: 40 },
  "trigger-elicitation-request-async": {},
  "simulate-research-query": { topic: "python packaging", ambiguous: true },
};

function argsFromSchema(inputSchema) {
  const out = {};
  for (const key of inputSchema?.required ?? []) {
    const p = inputSchema.properties?.[key] ?? {};
    out[key] = p.default ?? p.enum?.[0] ?? (p.type === "number" || p.type === "integer" ? 1 : p.type === "boolean" ? false : "test");
  }
  return out;
}

// Tools driven separately (toggles, task-based tools) or that need features the
// negotiated revision lacks.
const SEPARATELY = new Set(["toggle-simulated-logging", "toggle-subscriber-updates", "simulate-research-query"]);

// ---------------------------------------------------------------------------

async function main() {
  const capabilities = { sampling: {}, roots: { listChanged: true } };
  if (HAS_ELICITATION) capabilities.elicitation = HAS_URL_ELICITATION ? { form: {}, url: {} } : {};
  if (HAS_TASKS) {
    capabilities.tasks = {
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
    };
  }

  const taskStore = HAS_TASKS ? new InMemoryTaskStore() : undefined;
  const client = new Client(
    { name: "mcp-capture-recorder", version: "1.0.0" },
    { capabilities, ...(taskStore ? { taskStore } : {}) },
  );

  client.setRequestHandler(CreateMessageRequestSchema, (req, extra) =>
    maybeAsTask(req, extra, () => cannedSamplingResult(req.params)),
  );
  if (HAS_ELICITATION) {
    client.setRequestHandler(ElicitRequestSchema, (req, extra) =>
      maybeAsTask(req, extra, () => cannedElicitResult(req.params)),
    );
  }
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));

  // The server's get-env tool returns its whole environment, so it must run
  // with a fixed one. StdioClientTransport always adds HOME, PATH, SHELL, ...
  // of the recording machine to `env`; `env -i` starts the tap (and so the
  // server) from an empty environment instead, which is why every command
  // here is an absolute path. GZIP_ALLOWED_DOMAINS keeps gzip-file-as-resource
  // from fetching anything but data: URIs.
  const transport = new StdioClientTransport({
    command: "/usr/bin/env",
    args: [
      "-i",
      "LANG=C.UTF-8",
      "GZIP_ALLOWED_DOMAINS=localhost.invalid",
      opt.python,
      opt.tap,
      opt.capture,
      "--",
      process.execPath,
      opt.server,
      "stdio",
    ],
    stderr: "inherit",
  });

  if (VERSION !== LATEST_PROTOCOL_VERSION) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (message.method === "initialize") {
        message = { ...message, params: { ...message.params, protocolVersion: VERSION } };
      }
      return send(message, options);
    };
  }

  await client.connect(transport);
  log(`connected to ${JSON.stringify(client.getServerVersion())}`);

  // server-everything asks for roots 350 ms after `initialized`; let that finish.
  await sleep(600);

  await client.ping();
  await client.setLoggingLevel("debug");

  // ---- tools
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);

  for (const tool of tools) {
    if (SEPARATELY.has(tool.name)) continue;
    const args = TOOL_ARGS[tool.name] ?? argsFromSchema(tool.inputSchema);
    const options = {};
    if (tool.name === "trigger-long-running-operation") {
      options.onprogress = (p) => log("progress", JSON.stringify(p));
    }
    try {
      const result = await client.callTool({ name: tool.name, arguments: args }, CallToolResultSchema, options);
      log(`tools/call ${tool.name}: ${result.isError ? "isError" : "ok"}`);
    } catch (e) {
      log(`tools/call ${tool.name} failed: ${e.message}`);
    }
  }

  // URL elicitation's error path: -32042 first, then the retry of the same
  // call proceeds via an elicitation/create request.
  if (tools.some((t) => t.name === "trigger-url-elicitation")) {
    const args = {
      url: "https://example.com/authorize-error-path",
      elicitationId: "elicitation-error-path",
      errorPath: true,
    };
    for (const attempt of ["first call", "retry"]) {
      try {
        await client.callTool({ name: "trigger-url-elicitation", arguments: args });
        log(`trigger-url-elicitation error path ${attempt}: ok`);
      } catch (e) {
        log(`trigger-url-elicitation error path ${attempt}: ${e.code} ${e.message}`);
      }
    }
  }

  // A protocol-level error: calling a tool that does not exist.
  try {
    await client.callTool({ name: "no-such-tool", arguments: {} });
  } catch (e) {
    log(`tools/call no-such-tool: ${e.code}`);
  }

  // Task-based tool (2025-11-25): tools/call with `task`, then tasks/get
  // polling and tasks/result. `ambiguous` makes the server elicit mid-task.
  if (HAS_TASKS && tools.some((t) => t.name === "simulate-research-query")) {
    const stream = client.experimental.tasks.callToolStream(
      { name: "simulate-research-query", arguments: TOOL_ARGS["simulate-research-query"] },
      CallToolResultSchema,
    );
    for await (const m of stream) log(`simulate-research-query: ${m.type}`);
    await client.experimental.tasks.listTasks();
  }

  // ---- prompts
  const prompts = (await client.listPrompts()).prompts;
  const PROMPT_ARGS = {
    "args-prompt": { city: "Portland", state: "Oregon" },
    "completable-prompt": { department: "Engineering", name: "Alice" },
    "resource-prompt": { resourceType: "Text", resourceId: "2" },
  };
  for (const p of prompts) {
    const args = PROMPT_ARGS[p.name] ?? Object.fromEntries((p.arguments ?? []).filter((a) => a.required).map((a) => [a.name, "test"]));
    try {
      await client.getPrompt({ name: p.name, arguments: args });
    } catch (e) {
      log(`prompts/get ${p.name} failed: ${e.message}`);
    }
  }

  // ---- completion (server declares `completions`)
  if (client.getServerCapabilities()?.completions) {
    const complete = async (params) => {
      try {
        await client.complete(params);
      } catch (e) {
        log(`completion/complete failed: ${e.message}`);
      }
    };
    await complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "S" } });
    if (HAS_COMPLETION_CONTEXT) {
      await complete({
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Sales" } },
      });
    }
    // 2024-11-05 and 2025-03-26 call this reference `ref/resource`; the SDK
    // accepts the same type string in every revision.
    await complete({
      ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
      argument: { name: "resourceId", value: "1" },
    });
  }

  // ---- resources
  const resources = (await client.listResources()).resources;
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  log(`${resources.length} resources, ${templates.length} templates`);
  for (const uri of [
    "demo://resource/static/document/instructions.md",
    "demo://resource/dynamic/text/1",
    "demo://resource/dynamic/blob/2",
    "demo://resource/session/greeting.txt.gz", // registered by gzip-file-as-resource above
  ]) {
    try {
      await client.readResource({ uri });
    } catch (e) {
      log(`resources/read ${uri} failed: ${e.message}`);
    }
  }
  try {
    await client.readResource({ uri: "demo://resource/does-not-exist" });
  } catch (e) {
    log(`resources/read of a missing resource: ${e.code}`);
  }

  // ---- subscriptions and simulated logging. Both tick every 5 s; run them
  // together so the wait is paid once.
  const watched = "demo://resource/dynamic/text/1";
  await client.subscribeResource({ uri: watched });
  await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
  await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
  await sleep(5600);
  await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
  await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
  await client.unsubscribeResource({ uri: watched });

  // ---- roots changed: the server re-requests roots/list.
  await client.sendRootsListChanged();
  await sleep(500);

  await client.ping();
  await client.close();
  // The task store holds TTL timers (minutes long) that would keep Node alive.
  taskStore?.cleanup();
  log("closed");
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

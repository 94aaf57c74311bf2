// What the package tests share: where the workspace is, the documents they validate, and a
// reader for the fixture sidecars (`*.expected.yaml`).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The workspace holding the rules and the fixtures. The tests run from a temporary npm
 * project that the test script points here with MCPDESC_WORKSPACE; run from the source tree,
 * the workspace is three directories up.
 */
export const workspace = (() => {
  const named = process.env.MCPDESC_WORKSPACE;
  const candidate = named ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  if (!existsSync(path.join(candidate, 'spec-fixtures'))) {
    throw new Error(
      `no workspace at ${candidate} (set MCPDESC_WORKSPACE to the checkout of mcpdesc)`,
    );
  }
  return candidate;
})();

export const at = (...parts) => path.join(workspace, ...parts);

/** A tool with a member the closed Tool object does not define, `bogus` on line 5, column 5. */
export const BAD_TOOL =
  'mcpdesc: 0.8.0\n' +
  'info: {name: demo, version: 1.0.0}\n' +
  'tools:\n' +
  '  - name: demo_tool\n' +
  '    bogus: 1\n' +
  '    inputSchema: {type: object}\n' +
  "protocolVersions: ['2025-11-25']\n";

export const VALID = {
  mcpdesc: '0.8.0',
  info: { name: 'demo', version: '1.0.0' },
  protocolVersions: ['2025-11-25'],
};

/** A capture of one initialize handshake in MCP 2025-06-18, as newline-delimited JSON. */
export const CAPTURE_MESSAGES = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    },
  },
  {
    jsonrpc: '2.0',
    id: 1,
    result: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: 's', version: '1' },
    },
  },
];
export const CAPTURE = CAPTURE_MESSAGES.map((m) => JSON.stringify(m)).join('\n') + '\n';

/** A description with `count` tools, each with its own input schema. */
export function manyTools(count) {
  const tools = [];
  for (let i = 0; i < count; i++) {
    tools.push({
      name: `tool_${i}`,
      title: `Tool ${i}`,
      description: `Does thing number ${i}`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: `The query of tool ${i}` },
          limit: { type: 'integer', minimum: 1, maximum: 100 + i },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: i % 2 === 0 },
    });
  }
  return { ...VALID, capabilities: [{ tools: { listChanged: false } }], tools };
}

// --- sidecars ----------------------------------------------------------------------------------

/**
 * Reads a sidecar: a YAML list with one flow mapping a line (`- {rule: ..., pointer: ...,
 * severity: ..., versions: [...]}`, or `- {load-error: CODE}`), or `[]`. Scalars are plain
 * or JSON-quoted, as the sidecar writer emits them.
 */
export function readSidecar(file) {
  const entries = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line === '' || line.startsWith('#') || line === '[]') return;
    if (!line.startsWith('- {') || !line.endsWith('}')) {
      throw new Error(`${file}:${index + 1}: not a sidecar entry: ${line}`);
    }
    const parser = new FlowParser(line.slice(2), `${file}:${index + 1}`);
    entries.push(parser.mapping());
    parser.end();
  });
  return entries;
}

class FlowParser {
  constructor(text, where) {
    this.text = text;
    this.where = where;
    this.pos = 0;
  }

  fail(what) {
    throw new Error(`${this.where}: ${what} at column ${this.pos + 3}: ${this.text}`);
  }

  skip() {
    while (this.text[this.pos] === ' ') this.pos++;
  }

  expect(ch) {
    this.skip();
    if (this.text[this.pos] !== ch) this.fail(`expected ${ch}`);
    this.pos++;
  }

  end() {
    this.skip();
    if (this.pos !== this.text.length) this.fail('trailing text');
  }

  mapping() {
    this.expect('{');
    const out = {};
    this.skip();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      const key = this.scalar();
      this.expect(':');
      this.skip();
      out[key] = this.text[this.pos] === '[' ? this.sequence() : this.scalar();
      this.skip();
      const next = this.text[this.pos++];
      if (next === '}') return out;
      if (next !== ',') this.fail('expected , or }');
    }
  }

  sequence() {
    this.expect('[');
    const out = [];
    this.skip();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.scalar());
      this.skip();
      const next = this.text[this.pos++];
      if (next === ']') return out;
      if (next !== ',') this.fail('expected , or ]');
    }
  }

  scalar() {
    this.skip();
    if (this.text[this.pos] === '"') {
      let end = this.pos + 1;
      while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
      if (end >= this.text.length) this.fail('unterminated string');
      const value = JSON.parse(this.text.slice(this.pos, end + 1));
      this.pos = end + 1;
      return value;
    }
    const start = this.pos;
    // In a flow collection a plain scalar ends at `,`, `}`, `]` and at `: `; the writer
    // quotes every scalar that holds one of them.
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos];
      if (ch === ',' || ch === '}' || ch === ']') break;
      if (ch === ':' && (this.text[this.pos + 1] === ' ' || this.text[this.pos + 1] === undefined)) break;
      this.pos++;
    }
    const value = this.text.slice(start, this.pos).trim();
    if (value === '') this.fail('expected a scalar');
    return value;
  }
}

/** A report's findings as sidecar entries, in one canonical order. */
export function asSidecar(report) {
  const entries = report.diagnostics.map((d) => ({
    rule: d.rule,
    pointer: d.pointer,
    severity: d.severity,
    versions: [...d.versions],
  }));
  entries.sort(compareEntries);
  if (report.loadError !== null) entries.unshift({ 'load-error': report.loadError.code });
  return entries;
}

/** Sidecar entries in the canonical order of `asSidecar`. */
export function canonical(entries) {
  const head = entries.filter((e) => 'load-error' in e);
  const rest = entries.filter((e) => !('load-error' in e)).sort(compareEntries);
  return [...head, ...rest];
}

function compareEntries(a, b) {
  const ka = JSON.stringify([a.rule, a.pointer, a.severity, a.versions]);
  const kb = JSON.stringify([b.rule, b.pointer, b.severity, b.versions]);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

// Every kind of source `validate` accepts, how the format is chosen, and the exact fields of
// a report.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { Engine, Report, validate, validateFile } from 'mcpdesc';

import { BAD_TOOL, CAPTURE, CAPTURE_MESSAGES, VALID, at } from './support.mjs';

const scratch = mkdtempSync(path.join(tmpdir(), 'mcpdesc-sources-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function write(name, content) {
  const file = path.join(scratch, name);
  writeFileSync(file, content);
  return file;
}

function closedTool(report) {
  const found = report.diagnostics.filter((d) => d.rule === 'mcpdesc.tool.closed');
  assert.equal(found.length, 1, `one mcpdesc.tool.closed finding: ${JSON.stringify(report.diagnostics)}`);
  return found[0];
}

describe('a known-bad document', () => {
  test('gives the exact finding of the closed Tool object', () => {
    const report = validate(BAD_TOOL);
    assert.ok(report instanceof Report);
    assert.equal(report.valid, false);
    assert.equal(report.kind, 'description');
    assert.equal(report.release, '0.8.0');
    assert.equal(report.path, null);
    assert.equal(report.loadError, null);
    assert.deepEqual(report.diagnostics, [
      {
        rule: 'mcpdesc.tool.closed',
        severity: 'error',
        message: 'tool member `bogus` is not defined; remove it or rename it to an `x-` extension',
        pointer: '/tools/0/bogus',
        line: 5,
        column: 5,
        versions: ['2025-11-25'],
        docUrl: null,
      },
    ]);
    assert.deepEqual(report.errors, report.diagnostics);
    assert.deepEqual(report.warnings, []);
  });

  test('a report and its findings are frozen and serialize to JSON', () => {
    const report = validate(BAD_TOOL);
    assert.ok(Object.isFrozen(report));
    assert.ok(Object.isFrozen(report.diagnostics));
    assert.ok(Object.isFrozen(report.diagnostics[0]));
    assert.ok(Object.isFrozen(report.diagnostics[0].versions));
    assert.throws(() => {
      'use strict';
      report.diagnostics[0].rule = 'x';
    }, TypeError);
    const json = JSON.parse(JSON.stringify(report));
    assert.deepEqual(Object.keys(json), ['valid', 'path', 'kind', 'release', 'diagnostics', 'loadError']);
    assert.equal(json.diagnostics[0].pointer, '/tools/0/bogus');
  });

  test('a valid document has no findings', () => {
    const report = validate(JSON.stringify(VALID));
    assert.equal(report.valid, true, JSON.stringify(report.diagnostics));
    assert.deepEqual(report.diagnostics, []);
    assert.equal(report.loadError, null);
  });

  test('warnings keep a document valid', () => {
    const report = validateFile(at('spec-fixtures/expected-warning/info-version-not-semver.json'));
    assert.equal(report.valid, true);
    assert.ok(report.warnings.length > 0);
    assert.deepEqual(report.errors, []);
    for (const w of report.warnings) assert.equal(w.severity, 'warning');
  });
});

describe('sources', () => {
  const expected = closedTool(validate(BAD_TOOL));

  test('JSON text', () => {
    const text = JSON.stringify(
      { ...VALID, tools: [{ name: 'demo_tool', bogus: 1, inputSchema: { type: 'object' } }] },
      null,
      2,
    );
    const d = closedTool(validate(text));
    assert.equal(d.pointer, '/tools/0/bogus');
    // The line and column of the member in the indented text.
    const lines = text.split('\n');
    assert.equal(lines[d.line - 1].trim(), '"bogus": 1,');
    assert.equal(d.column, lines[d.line - 1].indexOf('"bogus"') + 1);
  });

  test('YAML text', () => {
    assert.deepEqual(closedTool(validate(BAD_TOOL)), expected);
  });

  test('a Buffer', () => {
    assert.deepEqual(closedTool(validate(Buffer.from(BAD_TOOL))), expected);
  });

  test('a Uint8Array, a view into a larger buffer, an ArrayBuffer', () => {
    const bytes = new TextEncoder().encode(BAD_TOOL);
    assert.deepEqual(closedTool(validate(bytes)), expected);
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    assert.deepEqual(closedTool(validate(padded.subarray(4, 4 + bytes.length))), expected);
    assert.deepEqual(closedTool(validate(new DataView(padded.buffer, 4, bytes.length))), expected);
    assert.deepEqual(closedTool(validate(bytes.buffer.slice(0))), expected);
  });

  test('text and bytes with a byte-order mark', () => {
    assert.deepEqual(closedTool(validate('\ufeff' + BAD_TOOL)), expected);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BAD_TOOL)]);
    assert.deepEqual(closedTool(validate(bom)), expected);
    const json = validate(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(VALID))]));
    assert.equal(json.valid, true, JSON.stringify(json.diagnostics));
  });

  test('text beyond ASCII reads as its UTF-8 bytes do, positions included', () => {
    // Two-byte and astral characters before the finding, on its line and after it.
    const text =
      'mcpdesc: 0.8.0\n' +
      'info: {name: "d\u00e9mo \u20ac \u65e5\u672c", version: 1.0.0, description: "\u{1F600} \u00ff"}\n' +
      'tools:\n' +
      '  - name: demo_tool\n' +
      '    description: "\u20ac\u20ac \u{1F680}"\n' +
      '    bogus: 1\n' +
      '    inputSchema: {type: object}\n' +
      "protocolVersions: ['2025-11-25']\n";
    const report = validate(text);
    const d = closedTool(report);
    assert.deepEqual([d.line, d.column], [6, 5]);
    assert.deepEqual(report, validate(Buffer.from(text, 'utf8')));
    assert.deepEqual(report.diagnostics, validateFile(write('beyond-ascii.yaml', text)).diagnostics);
  });

  test('an unpaired surrogate in text reads as U+FFFD, as in its UTF-8 encoding', () => {
    const text = BAD_TOOL.replace('name: demo_tool', 'name: demo_tool\n    title: "a\ud800b\udc00"');
    const report = validate(text);
    assert.equal(closedTool(report).line, 6);
    assert.deepEqual(report, validate(Buffer.from(text, 'utf8')));
    assert.ok(Buffer.from(text, 'utf8').includes(Buffer.from([0xef, 0xbf, 0xbd])));
  });

  test('long text mostly outside ASCII, then short text, give the reports of their bytes', () => {
    // 1.5 million euro signs: 4.5 MB of UTF-8, past the room tried first and the buffer kept
    // between calls.
    const long = BAD_TOOL.replace('name: demo_tool', `name: demo_tool\n    title: "${'\u20ac'.repeat(1_500_000)}"`);
    const longReport = validate(long);
    assert.equal(closedTool(longReport).line, 6);
    assert.deepEqual(longReport, validate(Buffer.from(long, 'utf8')));
    // A little past the room for ASCII text, within the kept buffer.
    const some = BAD_TOOL.replace('name: demo_tool', `name: demo_tool\n    title: "${'x'.repeat(60_000)}\u20ac\u20ac"`);
    assert.deepEqual(validate(some), validate(Buffer.from(some, 'utf8')));
    assert.deepEqual(closedTool(validate(BAD_TOOL)), expected);
    assert.equal(validate(JSON.stringify(VALID)).valid, true);
  });

  test('a file: URL is read by the engine', () => {
    const file = write('bad-tool.yaml', BAD_TOOL);
    const report = validate(pathToFileURL(file));
    assert.equal(report.path, file);
    assert.deepEqual(closedTool(report), expected);
  });

  test('validateFile reads JSON, YAML and captures by their extension', () => {
    const yaml = validateFile(at('docs/examples/weather-server.yaml'));
    assert.equal(yaml.valid, true, JSON.stringify(yaml.diagnostics));
    assert.equal(yaml.path, at('docs/examples/weather-server.yaml'));
    assert.equal(yaml.kind, 'description');

    const json = validateFile(write('bad.json', JSON.stringify({ ...VALID, tools: [{ name: 'x', bogus: 1 }] })));
    assert.equal(closedTool(json).line, 1);

    const capture = validateFile(write('session.ndjson', CAPTURE));
    assert.equal(capture.kind, 'traffic');
    assert.equal(capture.valid, true, JSON.stringify(capture.diagnostics));

    const url = validateFile(pathToFileURL(at('docs/examples/weather-server.yaml')));
    assert.deepEqual(url, yaml);
  });

  test('a file and its text give the same findings', () => {
    const file = at('spec-fixtures/expected-invalid/capability-overlap.json');
    const fromFile = validateFile(file);
    const fromText = validate(readFileSync(file, 'utf8'), { path: file });
    assert.deepEqual(fromText, fromFile);
    assert.ok(fromFile.diagnostics.some((d) => d.line !== null));
  });

  test('a decoded object has pointers but no lines', () => {
    const report = validate({
      ...VALID,
      tools: [{ name: 'demo_tool', bogus: 1, inputSchema: { type: 'object' } }],
    });
    const d = closedTool(report);
    assert.equal(d.pointer, '/tools/0/bogus');
    assert.equal(d.line, null);
    assert.equal(d.column, null);
    for (const finding of report.diagnostics) {
      assert.equal(finding.line, null);
      assert.equal(finding.column, null);
    }
  });

  test('members that are undefined are left out, as JSON.stringify does', () => {
    const report = validate({ ...VALID, title: undefined, info: { ...VALID.info, title: undefined } });
    assert.equal(report.valid, true, JSON.stringify(report.diagnostics));
  });

  test('an array of messages is a capture with format "capture"', () => {
    const report = validate(CAPTURE_MESSAGES, { format: 'capture' });
    assert.equal(report.kind, 'traffic');
    assert.equal(report.valid, true, JSON.stringify(report.diagnostics));
    // Without the format, an array is a description, whose root must be an object.
    const description = validate(CAPTURE_MESSAGES);
    assert.equal(description.kind, 'description');
    assert.equal(description.valid, false);
  });

  test('a decoded capture named like one is a capture too', () => {
    const report = validate(CAPTURE_MESSAGES, { path: 'session.ndjson' });
    assert.equal(report.kind, 'traffic');
    assert.equal(report.path, 'session.ndjson');
  });

  test('a decoded capture reports its findings without lines', () => {
    const broken = [CAPTURE_MESSAGES[0], { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18' } }];
    const report = validate(broken, { format: 'capture' });
    assert.equal(report.valid, false);
    assert.ok(report.diagnostics.length > 0);
    for (const d of report.diagnostics) {
      assert.equal(d.line, null, JSON.stringify(d));
      assert.match(d.pointer, /^\/messages\//);
    }
    // The same capture as text has positions.
    const text = broken.map((m) => JSON.stringify(m)).join('\n');
    const positioned = validate(text, { format: 'capture' });
    assert.deepEqual(
      positioned.diagnostics.map((d) => d.rule),
      report.diagnostics.map((d) => d.rule),
    );
    assert.ok(positioned.diagnostics.every((d) => d.line !== null));
  });

  test('a capture as text', () => {
    const report = validate(CAPTURE, { format: 'capture' });
    assert.equal(report.kind, 'traffic');
    assert.equal(report.valid, true, JSON.stringify(report.diagnostics));
  });
});

describe('format and path', () => {
  test('YAML is recognised by its content, JSON by its first character', () => {
    assert.equal(validate(BAD_TOOL).loadError, null);
    assert.equal(validate(`  \n${JSON.stringify(VALID)}`).valid, true);
  });

  test('a name with .json reads YAML text as JSON: a syntax error at a position', () => {
    const report = validate(BAD_TOOL, { path: 'server.json' });
    assert.equal(report.valid, false);
    assert.equal(report.path, 'server.json');
    assert.equal(report.loadError.code, 'json-syntax');
    assert.equal(report.loadError.line, 1);
    assert.equal(typeof report.loadError.column, 'number');
    assert.equal(typeof report.loadError.message, 'string');
    assert.ok(Object.isFrozen(report.loadError));
  });

  test('an explicit format wins over the name', () => {
    const report = validate(BAD_TOOL, { path: 'server.json', format: 'yaml' });
    assert.equal(report.loadError, null);
    assert.equal(report.path, 'server.json');
    assert.equal(closedTool(report).line, 5);
  });

  test('format "json" on YAML text is a load failure, not an exception', () => {
    const report = validate(BAD_TOOL, { format: 'json' });
    assert.equal(report.valid, false);
    assert.equal(report.loadError.code, 'json-syntax');
    assert.ok(report.diagnostics.length > 0, 'the failure is among the diagnostics');
  });

  test('a YAML syntax error has its position', () => {
    const report = validate('mcpdesc: 0.8.0\ninfo: {name: demo\n');
    assert.equal(report.loadError.code, 'yaml-syntax');
    assert.ok(report.loadError.line >= 2, JSON.stringify(report.loadError));
  });

  test('a name without a known extension leaves the format to the content', () => {
    assert.equal(validate(BAD_TOOL, { path: 'server.txt' }).loadError, null);
    const file = write('description', BAD_TOOL);
    const report = validateFile(file);
    assert.equal(report.loadError, null);
    assert.equal(report.path, file);
  });

  test('a .yml name and the yml alias read YAML', () => {
    assert.equal(validate(BAD_TOOL, { path: 'x.yml' }).loadError, null);
    assert.equal(validate(BAD_TOOL, { format: 'yml' }).loadError, null);
  });

  test('the path option renames a file, and its format follows the new name', () => {
    const file = write('capture.txt', CAPTURE);
    const report = validateFile(file, { path: 'renamed.ndjson' });
    assert.equal(report.path, 'renamed.ndjson');
    assert.equal(report.kind, 'traffic');
    const asFormat = validateFile(file, { format: 'capture' });
    assert.equal(asFormat.path, file);
    assert.equal(asFormat.kind, 'traffic');
  });

  test('an Engine validates with per-call options only', () => {
    const engine = new Engine();
    assert.equal(engine.validate(BAD_TOOL, { path: 'a.yaml' }).path, 'a.yaml');
    assert.throws(() => engine.validate(BAD_TOOL, { strict: true }), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_TYPE',
      message: /strict is an engine option/,
    });
  });

  test('sources and options of other types are TypeErrors', () => {
    for (const bad of [42, true, null, undefined, Symbol('x'), () => {}, 10n]) {
      assert.throws(() => validate(bad), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }, String(bad));
    }
    assert.throws(() => validate(new URL('https://example.com/x.json')), {
      name: 'TypeError',
      message: /file: URL/,
    });
    assert.throws(() => validate(BAD_TOOL, { format: 3 }), { name: 'TypeError' });
    assert.throws(() => validate(BAD_TOOL, { protocolVersion: '2025-11-25' }), {
      name: 'TypeError',
      message: /unknown option "protocolVersion"/,
    });
    assert.throws(() => validate(BAD_TOOL, { select: [1] }), { name: 'TypeError' });
    assert.throws(() => validate(BAD_TOOL, { strict: 'yes' }), { name: 'TypeError' });
    assert.throws(() => validate(BAD_TOOL, 'strict'), { name: 'TypeError' });
    assert.throws(() => validateFile(42), { name: 'TypeError' });
  });
});

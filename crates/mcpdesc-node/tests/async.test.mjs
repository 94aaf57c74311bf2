// Validation off the main thread: the same reports as the synchronous functions, an event
// loop that keeps running meanwhile, one engine shared by concurrent validations, and
// rejections with the same error classes.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  ConfigurationError,
  Engine,
  Report,
  RuleLoadError,
  validate,
  validateAsync,
  validateFile,
  validateFileAsync,
} from 'mcpdesc';

import { BAD_TOOL, CAPTURE, CAPTURE_MESSAGES, VALID, at, manyTools } from './support.mjs';

const scratch = mkdtempSync(path.join(tmpdir(), 'mcpdesc-async-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A large description with a few findings spread through it. */
function largeDocument() {
  const doc = manyTools(4000);
  doc.tools[17].bogus = 1;
  doc.tools[2500].inputSchema = { type: 'string' };
  doc.tools[3999].name = 'tool_0';
  return doc;
}

describe('validateAsync', () => {
  test('resolves to the report validate gives, for every source kind', async () => {
    const file = path.join(scratch, 'capture.ndjson');
    writeFileSync(file, CAPTURE);
    const cases = [
      [BAD_TOOL, undefined],
      [Buffer.from(BAD_TOOL), undefined],
      [new TextEncoder().encode(BAD_TOOL), { path: 'x.yaml' }],
      [{ ...VALID, tools: [{ name: 't', bogus: 1 }] }, undefined],
      [CAPTURE_MESSAGES, { format: 'capture' }],
      [CAPTURE, { format: 'capture' }],
      [pathToFileURL(file), undefined],
      [BAD_TOOL, { strict: true, select: 'mcpdesc.tool.*' }],
      [BAD_TOOL, { path: 'server.json' }],
    ];
    for (const [source, options] of cases) {
      const pending = validateAsync(source, options);
      assert.ok(pending instanceof Promise);
      const report = await pending;
      assert.ok(report instanceof Report);
      assert.deepEqual(report, validate(source, options));
    }
    const engine = new Engine();
    assert.deepEqual(await engine.validateAsync(BAD_TOOL), engine.validate(BAD_TOOL));
    assert.deepEqual(
      await validateFileAsync(at('docs/examples/weather-server.yaml')),
      validateFile(at('docs/examples/weather-server.yaml')),
    );
    assert.deepEqual(await engine.validateFileAsync(file), engine.validateFile(file));
  });

  test('the event loop keeps running while a large document validates', async () => {
    const engine = new Engine();
    const doc = largeDocument();
    const text = JSON.stringify(doc);
    // Warm up, and learn how long one validation takes on this machine.
    const started = process.hrtime.bigint();
    const expected = engine.validate(text);
    const syncMs = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(expected.diagnostics.some((d) => d.rule === 'mcpdesc.tool.closed' && d.pointer === '/tools/17/bogus'));

    let ticks = 0;
    let immediateRan = false;
    setImmediate(() => {
      immediateRan = true;
    });
    const timer = setInterval(() => {
      ticks++;
    }, 1);
    let resolved = false;
    const pending = engine.validateAsync(text).then((report) => {
      resolved = true;
      return report;
    });
    // The call returned at once: nothing has run yet, the validation is on the pool.
    assert.equal(resolved, false);
    assert.equal(immediateRan, false);
    const report = await pending;
    clearInterval(timer);
    assert.equal(immediateRan, true, 'setImmediate fired between the call and the resolution');
    assert.ok(ticks >= 2, `the interval ran ${ticks} times during a validation of ${syncMs.toFixed(1)} ms`);
    assert.deepEqual(report, expected);
  });

  test('a timer fires before a validation that outlasts it resolves', async () => {
    const engine = new Engine();
    const text = JSON.stringify(largeDocument());
    const order = [];
    const pending = engine.validateAsync(text).then(() => order.push('validated'));
    await new Promise((resolve) => setTimeout(() => {
      order.push('timer');
      resolve();
    }, 0));
    await pending;
    assert.deepEqual(order, ['timer', 'validated']);
  });

  test('many concurrent validations on one engine give identical results', async () => {
    const engine = new Engine();
    const sources = [
      JSON.stringify(largeDocument()),
      BAD_TOOL,
      JSON.stringify(manyTools(300)),
      Buffer.from(BAD_TOOL),
      { ...VALID, tools: [{ name: 't', bogus: 1 }] },
    ];
    const expected = sources.map((s) => engine.validate(s));
    const runs = [];
    for (let round = 0; round < 8; round++) {
      sources.forEach((source, i) => runs.push(engine.validateAsync(source).then((r) => [i, r])));
    }
    const results = await Promise.all(runs);
    assert.equal(results.length, 40);
    for (const [i, report] of results) assert.deepEqual(report, expected[i]);
  });

  test('concurrent first calls with options not seen before resolve alike', async () => {
    const options = { select: 'mcpdesc.tool.*', docsBaseUrl: 'https://concurrent.example' };
    const reports = await Promise.all(Array.from({ length: 6 }, () => validateAsync(BAD_TOOL, options)));
    for (const r of reports) assert.deepEqual(r, reports[0]);
    assert.equal(reports[0].diagnostics[0].docUrl, 'https://concurrent.example/0.8.0/mcpdesc/mcpdesc.tool.closed.md');
  });

  test('texts given while their engine compiles are each validated as given', async () => {
    // Every call waits for the same new engine; each text must still be its own when the
    // engine is ready.
    const options = { select: 'mcpdesc.*', docsBaseUrl: 'https://texts.example' };
    const texts = [
      BAD_TOOL,
      JSON.stringify(VALID),
      BAD_TOOL.replace('name: demo_tool', `name: demo_tool\n    title: "${'\u20ac'.repeat(40_000)}"`),
      JSON.stringify({ ...VALID, info: { name: 'd\u00e9mo \u{1F600}', version: '1.0.0' } }),
    ];
    const reports = await Promise.all(texts.map((t) => validateAsync(t, options)));
    reports.forEach((r, i) => assert.deepEqual(r, validate(Buffer.from(texts[i], 'utf8'), options)));
    assert.deepEqual(reports.map((r) => r.valid), [false, true, false, true]);
  });

  test('Engine.create compiles off the main thread', async () => {
    const pending = Engine.create({ protocolVersions: '2025-11-25' });
    assert.ok(pending instanceof Promise);
    const engine = await pending;
    assert.ok(engine instanceof Engine);
    assert.deepEqual(engine.validate(BAD_TOOL), new Engine({ protocolVersions: '2025-11-25' }).validate(BAD_TOOL));
    await assert.rejects(Engine.create({ protocolVersions: '1999-01-01' }), ConfigurationError);
  });
});

describe('rejections', () => {
  test('errors reject with the classes the synchronous functions throw', async () => {
    await assert.rejects(validateAsync(BAD_TOOL, { format: 'xml' }), (error) => {
      assert.ok(error instanceof ConfigurationError);
      assert.equal(error.code, 'ERR_MCPDESC_UNKNOWN_FORMAT');
      return true;
    });
    await assert.rejects(new Engine().validateAsync({ a: 1 }, { format: 'xml' }), ConfigurationError);
    await assert.rejects(validateAsync(BAD_TOOL, { protocolVersions: '1999-01-01' }), {
      name: 'ConfigurationError',
      code: 'ERR_MCPDESC_UNKNOWN_PROTOCOL_VERSION',
    });
    await assert.rejects(validateAsync(BAD_TOOL, { specVersion: '7.0.0' }), {
      code: 'ERR_MCPDESC_UNSERVED_SPEC_VERSION',
    });
    await assert.rejects(validateAsync(BAD_TOOL, { rules: path.join(scratch, 'nothing') }), RuleLoadError);
    const missing = path.join(scratch, 'missing.yaml');
    await assert.rejects(validateFileAsync(missing), { code: 'ENOENT', errno: -2, path: missing });
    await assert.rejects(new Engine().validateFileAsync(scratch), { code: 'EISDIR' });
    await assert.rejects(validateAsync(pathToFileURL(missing)), { code: 'ENOENT' });
  });

  test('argument errors reject rather than throw', async () => {
    const cyclic = {};
    cyclic.self = cyclic;
    const engine = new Engine();
    for (const call of [
      () => validateAsync(cyclic),
      () => validateAsync(42),
      () => validateAsync(BAD_TOOL, { unknown: 1 }),
      () => engine.validateAsync(cyclic),
      () => engine.validateAsync(BAD_TOOL, { rules: 'x' }),
      () => validateFileAsync(42),
      () => engine.validateFileAsync(null),
    ]) {
      let pending;
      assert.doesNotThrow(() => {
        pending = call();
      });
      await assert.rejects(pending, TypeError);
    }
  });

  test('a document that cannot be parsed resolves to an invalid report', async () => {
    const report = await validateAsync('{"mcpdesc": ', { format: 'json' });
    assert.equal(report.valid, false);
    assert.equal(report.loadError.code, 'json-syntax');
    assert.equal(report.loadError.line, 1);
  });
});

// The engine options, the engine cache of the module-level functions, and the errors.

import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  ConfigurationError,
  Engine,
  McpdescError,
  RuleLoadError,
  clearEngineCache,
  validate,
  validateFile,
} from 'mcpdesc';

import { BAD_TOOL, VALID, at } from './support.mjs';

const scratch = mkdtempSync(path.join(tmpdir(), 'mcpdesc-options-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const RULES = at('rules');
const FICTIONAL = at('crates/mcpdesc-core/tests/releases/fictional');
const FICTIONAL_RELEASE = '0.9.0-fictional.1';

/** A document with two findings of different rules and severities. */
const TWO_FINDINGS = {
  ...VALID,
  info: { name: 'demo', version: 'v1' },
  tools: [{ name: 'demo_tool', bogus: 1, inputSchema: { type: 'object' } }],
};

function rules(report) {
  return report.diagnostics.map((d) => d.rule).sort();
}

describe('rules directories', () => {
  test('the shipped rules directory gives what the embedded catalogue gives', () => {
    const embedded = validate(BAD_TOOL);
    const fromDir = validate(BAD_TOOL, { rules: RULES });
    assert.deepEqual(fromDir, embedded);
  });

  test('a second release extending 0.8.0 loads beside it', () => {
    const engine = new Engine({ rules: [RULES, FICTIONAL] });
    assert.deepEqual(engine.releases, ['0.8.0', FICTIONAL_RELEASE]);
    const doc = { ...VALID, mcpdesc: FICTIONAL_RELEASE };
    const report = engine.validate(doc);
    assert.equal(report.release, FICTIONAL_RELEASE);
    assert.deepEqual(rules(report), ['mcpdesc.info.description-required']);
    // The catalogue's `docs-url` is a path inside the repository, which is no link.
    assert.equal(report.diagnostics[0].docUrl, null);
    // A 0.8.0 document is still judged by 0.8.0.
    const old = engine.validate(VALID);
    assert.equal(old.release, '0.8.0');
    assert.equal(old.valid, true, JSON.stringify(old.diagnostics));
  });

  test('extendRules adds house rules on top of the judging release', () => {
    const house = path.join(scratch, 'house');
    mkdirSync(house);
    writeFileSync(
      path.join(house, 'acme.yaml'),
      [
        'house-rules:',
        '  name: Acme house rules',
        '  owners: [acme]',
        'rules:',
        '  - id: acme.tool.name-prefix',
        '    given: ["$.tools[*].name"]',
        '    then: [{check: pattern, regex: "^acme_"}]',
        '    message: tool names start with `acme_`',
        '',
      ].join('\n'),
    );
    const doc = {
      ...VALID,
      tools: [{ name: 'get_weather', description: 'd', inputSchema: { type: 'object' } }],
    };
    const report = new Engine({ extendRules: house }).validate(doc);
    assert.equal(report.release, '0.8.0');
    assert.deepEqual(rules(report), ['acme.tool.name-prefix']);
    assert.equal(report.diagnostics[0].severity, 'warning');
    assert.deepEqual(validate(doc, { extendRules: [house] }), report);
    assert.ok(!rules(validate(doc)).includes('acme.tool.name-prefix'));
  });

  test('rules directories may be file: URLs and relative paths', () => {
    const cwd = process.cwd();
    try {
      process.chdir(at('.'));
      const engine = new Engine({ rules: ['rules', pathToFileURL(FICTIONAL)] });
      assert.deepEqual(engine.releases, ['0.8.0', FICTIONAL_RELEASE]);
    } finally {
      process.chdir(cwd);
    }
  });

  test('broken rule files give a RuleLoadError with every file, line and column', () => {
    const dir = path.join(scratch, 'broken-rules');
    mkdirSync(dir);
    copyFileSync(path.join(RULES, 'catalogue.yaml'), path.join(dir, 'catalogue.yaml'));
    writeFileSync(path.join(dir, 'broken.yaml'), 'rules:\n  - id: broken.rule\n    title: [unclosed\n');
    writeFileSync(path.join(dir, 'unknown.yaml'), 'rules:\n  - id: broken.rule\n    title: Broken\n    frobnicate: 3\n');
    let thrown;
    try {
      new Engine({ rules: dir });
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof RuleLoadError, String(thrown));
    assert.ok(thrown instanceof McpdescError);
    assert.ok(thrown instanceof Error);
    assert.equal(thrown.name, 'RuleLoadError');
    assert.equal(thrown.code, 'ERR_MCPDESC_RULES');
    assert.equal(thrown.problems.length, 2, JSON.stringify(thrown.problems));
    const [syntax, unknown] = [...thrown.problems].sort((a, b) => (a.file < b.file ? -1 : 1));
    assert.equal(path.basename(syntax.file), 'broken.yaml');
    assert.equal(syntax.line, 4);
    assert.equal(syntax.column, 1);
    assert.match(syntax.message, /YAML syntax error/);
    assert.equal(path.basename(unknown.file), 'unknown.yaml');
    assert.equal(unknown.line, 4);
    assert.equal(unknown.column, 5);
    assert.match(unknown.message, /unknown field `frobnicate`/);
    for (const p of thrown.problems) {
      assert.ok(thrown.message.includes(`${p.file}:${p.line}:${p.column}: ${p.message}`), thrown.message);
    }
    assert.match(thrown.message, /^2 problem\(s\) in the rule files:/);
    assert.ok(Object.isFrozen(thrown.problems));
    // The module-level functions throw the same, and do not cache a failure.
    assert.throws(() => validate(VALID, { rules: dir }), RuleLoadError);
    assert.throws(() => validate(VALID, { rules: dir }), RuleLoadError);
  });

  test('a rules directory that does not exist is a RuleLoadError naming it', () => {
    const missing = path.join(scratch, 'no-such-rules');
    assert.throws(() => new Engine({ rules: missing }), (error) => {
      assert.ok(error instanceof RuleLoadError);
      assert.ok(error.problems.length >= 1);
      assert.ok(error.message.includes('no-such-rules'), error.message);
      return true;
    });
  });
});

describe('engine options', () => {
  test('protocolVersions narrows the versions findings hold for', () => {
    const doc = { ...VALID, protocolVersions: ['2025-06-18', '2025-11-25'], tools: [{ name: 't', bogus: 1 }] };
    const all = validate(doc);
    const closed = all.diagnostics.find((d) => d.rule === 'mcpdesc.tool.closed');
    assert.deepEqual(closed.versions, ['2025-06-18', '2025-11-25']);
    const one = validate(doc, { protocolVersions: '2025-11-25' });
    assert.deepEqual(one.diagnostics.find((d) => d.rule === 'mcpdesc.tool.closed').versions, ['2025-11-25']);
    const engine = new Engine({ protocolVersions: ['2025-06-18'] });
    assert.deepEqual(engine.validate(doc).diagnostics.find((d) => d.rule === 'mcpdesc.tool.closed').versions, [
      '2025-06-18',
    ]);
  });

  test('an unknown protocol version is a ConfigurationError', () => {
    assert.throws(
      () => new Engine({ protocolVersions: ['2025-11-25', '1999-01-01'] }),
      (error) => {
        assert.ok(error instanceof ConfigurationError);
        assert.ok(error instanceof McpdescError);
        assert.equal(error.name, 'ConfigurationError');
        assert.equal(error.code, 'ERR_MCPDESC_UNKNOWN_PROTOCOL_VERSION');
        assert.equal(error.option, 'protocolVersions');
        assert.equal(error.value, '1999-01-01');
        assert.match(error.supported, /2025-11-25/);
        assert.match(error.message, /unknown protocol version `1999-01-01`/);
        return true;
      },
    );
    assert.throws(() => validate(VALID, { protocolVersions: '1999-01-01' }), ConfigurationError);
  });

  test('specVersion judges every document by the release serving it', () => {
    const engine = new Engine({ rules: [RULES, FICTIONAL], specVersion: FICTIONAL_RELEASE });
    const report = engine.validate(VALID);
    assert.equal(report.release, FICTIONAL_RELEASE);
    assert.deepEqual(rules(report), ['mcpdesc.info.description-required']);
    const pinned = validate(VALID, { rules: [RULES, FICTIONAL], specVersion: '0.8.0' });
    assert.equal(pinned.release, '0.8.0');
    assert.equal(pinned.valid, true);
  });

  test('a specification version no release serves is a ConfigurationError', () => {
    assert.throws(
      () => new Engine({ specVersion: '7.0.0' }),
      (error) => {
        assert.ok(error instanceof ConfigurationError);
        assert.equal(error.code, 'ERR_MCPDESC_UNSERVED_SPEC_VERSION');
        assert.equal(error.option, 'specVersion');
        assert.equal(error.value, '7.0.0');
        assert.equal(error.supported, '0.8.0');
        return true;
      },
    );
  });

  test('an unknown format is a ConfigurationError, at the call', () => {
    assert.throws(
      () => validate(BAD_TOOL, { format: 'xml' }),
      (error) => {
        assert.ok(error instanceof ConfigurationError);
        assert.equal(error.code, 'ERR_MCPDESC_UNKNOWN_FORMAT');
        assert.equal(error.option, 'format');
        assert.equal(error.value, 'xml');
        assert.equal(error.supported, 'json, yaml, capture');
        return true;
      },
    );
    assert.throws(() => validate({ a: 1 }, { format: 'xml' }), ConfigurationError);
    assert.throws(() => validateFile(at('docs/examples/weather-server.yaml'), { format: 'xml' }), ConfigurationError);
  });

  test('select runs only the rules it names, ignore skips them', () => {
    const all = rules(validate(TWO_FINDINGS));
    assert.deepEqual(all, ['mcpdesc.info.version-semver', 'mcpdesc.tool.closed']);
    assert.deepEqual(rules(validate(TWO_FINDINGS, { select: 'mcpdesc.tool.closed' })), ['mcpdesc.tool.closed']);
    assert.deepEqual(rules(validate(TWO_FINDINGS, { select: ['mcpdesc.info.*'] })), ['mcpdesc.info.version-semver']);
    assert.deepEqual(rules(validate(TWO_FINDINGS, { ignore: ['mcpdesc.tool.*'] })), ['mcpdesc.info.version-semver']);
    assert.deepEqual(
      rules(validate(TWO_FINDINGS, { select: 'mcpdesc.*', ignore: ['mcpdesc.info.version-semver'] })),
      ['mcpdesc.tool.closed'],
    );
  });

  test('strict reports warnings as errors', () => {
    const relaxed = validate(TWO_FINDINGS, { select: 'mcpdesc.info.version-semver' });
    assert.equal(relaxed.valid, true);
    assert.equal(relaxed.diagnostics[0].severity, 'warning');
    const strict = validate(TWO_FINDINGS, { select: 'mcpdesc.info.version-semver', strict: true });
    assert.equal(strict.valid, false);
    assert.equal(strict.diagnostics[0].severity, 'error');
    assert.equal(strict.errors.length, 1);
    assert.equal(strict.warnings.length, 0);
  });

  test('docsBaseUrl sets where rule pages live', () => {
    const base = validate(BAD_TOOL, { docsBaseUrl: 'https://mcpdesc.example/rules' });
    assert.equal(base.diagnostics[0].docUrl, 'https://mcpdesc.example/rules/0.8.0/mcpdesc/mcpdesc.tool.closed.md');
    const template = validate(BAD_TOOL, { docsBaseUrl: 'https://x.example/{id}?r={release}&o={owner}' });
    assert.equal(template.diagnostics[0].docUrl, 'https://x.example/mcpdesc.tool.closed?r=0.8.0&o=mcpdesc');
  });

  test('an engine lists its releases and protocol versions', () => {
    const engine = new Engine();
    assert.deepEqual(engine.releases, ['0.8.0']);
    assert.deepEqual(engine.protocolVersions, ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    assert.ok(Object.isFrozen(engine));
  });
});

describe('the engine cache', () => {
  test('engines are reused per options and rebuilt after clearEngineCache', () => {
    const dir = path.join(scratch, 'changing-rules');
    mkdirSync(dir);
    copyFileSync(path.join(RULES, 'catalogue.yaml'), path.join(dir, 'catalogue.yaml'));
    copyFileSync(path.join(RULES, 'tools.yaml'), path.join(dir, 'tools.yaml'));
    // Its rules name surfaces of the map.
    copyFileSync(path.join(RULES, 'surfaces.yaml'), path.join(dir, 'surfaces.yaml'));
    const before = validate(BAD_TOOL, { rules: dir });
    assert.ok(before.diagnostics.some((d) => d.rule === 'mcpdesc.tool.closed'), JSON.stringify(before.diagnostics));
    // The rule files change on disk: the cached engine keeps judging by the old ones...
    writeFileSync(path.join(dir, 'tools.yaml'), 'rules: [\n');
    assert.deepEqual(validate(BAD_TOOL, { rules: dir }), before);
    // ...until the cache is cleared.
    clearEngineCache();
    assert.throws(() => validate(BAD_TOOL, { rules: dir }), RuleLoadError);
  });
});

describe('unreadable files', () => {
  test('a missing file throws an Error with code ENOENT, errno and path', () => {
    const missing = path.join(scratch, 'missing.json');
    assert.throws(
      () => validateFile(missing),
      (error) => {
        assert.ok(!(error instanceof McpdescError));
        assert.equal(error.code, 'ENOENT');
        assert.equal(error.errno, -2);
        assert.equal(error.path, missing);
        assert.match(error.message, /^ENOENT: cannot read /);
        return true;
      },
    );
    assert.throws(() => validate(pathToFileURL(missing)), { code: 'ENOENT' });
  });

  test('a directory throws EISDIR', () => {
    assert.throws(() => validateFile(scratch), { code: 'EISDIR', path: scratch });
  });

  test('an unreadable file throws EACCES', (t) => {
    if (process.getuid?.() === 0) {
      t.skip('root reads every file');
      return;
    }
    const file = path.join(scratch, 'secret.json');
    writeFileSync(file, '{}');
    chmodSync(file, 0o000);
    assert.throws(() => validateFile(file), { code: 'EACCES', path: file });
  });
});

describe('decoded values JSON cannot represent', () => {
  test('a cycle is a TypeError', () => {
    const doc = { ...VALID, tools: [] };
    doc.tools.push({ name: 't', self: doc });
    assert.throws(() => validate(doc), { name: 'TypeError', message: /circular/ });
  });

  test('BigInt, functions, symbols, Map, Set and non-finite numbers are TypeErrors', () => {
    for (const value of [10n, () => 1, Symbol('s'), new Map(), new Set(), NaN, Infinity, -Infinity]) {
      assert.throws(() => validate({ ...VALID, 'x-value': value }), { name: 'TypeError' }, String(value));
      assert.throws(() => validate([value], { format: 'capture' }), { name: 'TypeError' }, String(value));
    }
  });

  test('toJSON is honoured, as JSON.stringify does', () => {
    const version = { toJSON: () => '1.0.0' };
    const report = validate({ ...VALID, info: { name: 'demo', version } });
    assert.equal(report.valid, true, JSON.stringify(report.diagnostics));
  });
});

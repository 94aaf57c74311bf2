// Parity with the committed expectations of the specification fixtures: every fixture under
// spec-fixtures/ that has a sidecar (`<name>.expected.yaml`) gives exactly the recorded
// findings, and lies in the folder its outcome belongs to.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { Engine, validate } from 'mcpdesc';

import { asSidecar, at, canonical, readSidecar } from './support.mjs';

const DOCUMENT = /\.(json|ya?ml|ndjson|jsonl)$/;

function fixtures(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...fixtures(full));
    else if (DOCUMENT.test(entry.name) && !entry.name.endsWith('.expected.yaml')) out.push(full);
  }
  return out;
}

function sidecarOf(fixture) {
  return fixture.replace(/\.(json|ya?ml|ndjson|jsonl)$/, '.expected.yaml');
}

const root = at('spec-fixtures');
const all = fixtures(root).filter((f) => {
  try {
    readFileSync(sidecarOf(f));
    return true;
  } catch {
    return false;
  }
});

test('the corpus is the one committed', () => {
  // A mistyped path or a moved corpus would otherwise pass with nothing checked.
  assert.ok(all.length >= 150, `only ${all.length} fixtures with sidecars under ${root}`);
  const kinds = new Set(all.map((f) => path.relative(root, f).split(path.sep)[0]));
  for (const k of ['expected-valid', 'expected-invalid', 'expected-warning', 'traffic']) {
    assert.ok(kinds.has(k), `no fixtures under ${k}/`);
  }
});

const engine = new Engine();

describe('spec fixtures', () => {
  for (const fixture of all) {
    const name = path.relative(root, fixture);
    test(name, () => {
      const expected = canonical(readSidecar(sidecarOf(fixture)));
      const report = engine.validateFile(fixture);
      assert.deepEqual(asSidecar(report), expected);

      // The nearest convention folder counts.
      const folder = name.split(path.sep).findLast((p) => p.startsWith('expected-'));
      if (folder === 'expected-valid') {
        assert.equal(report.valid, true);
        assert.deepEqual(report.diagnostics, []);
      } else if (folder === 'expected-invalid') {
        assert.equal(report.valid, false);
        assert.ok(report.loadError !== null || report.errors.length > 0);
      } else if (folder === 'expected-warning') {
        assert.equal(report.valid, true);
        assert.equal(report.loadError, null);
        assert.ok(report.warnings.length > 0);
      }
      const traffic = /\.(ndjson|jsonl)$|\.traffic\.json$/.test(fixture);
      assert.equal(report.kind, traffic ? 'traffic' : 'description');
    });
  }
});

describe('spec fixtures as text, bytes and decoded values', () => {
  // The module-level function with each source kind agrees with the file; a decoded value
  // loses only the positions, and only documents that decode at all can be passed so.
  const sample = all.filter((_, i) => i % 4 === 0);
  for (const fixture of sample) {
    const name = path.relative(root, fixture);
    test(name, () => {
      const fromFile = engine.validateFile(fixture);
      const bytes = readFileSync(fixture);
      // A fixture that is not UTF-8 on purpose has no text form: decoding would replace
      // the very bytes it is about.
      const text = bytes.toString('utf8');
      if (Buffer.from(text, 'utf8').equals(bytes)) {
        assert.deepEqual(validate(text, { path: fixture }), fromFile);
      }
      assert.deepEqual(validate(bytes, { path: fixture }), fromFile);
      if (fixture.endsWith('.json') && fromFile.loadError === null) {
        let decoded;
        try {
          decoded = JSON.parse(bytes.toString('utf8'));
        } catch {
          return;
        }
        const fromValue = validate(decoded, { path: fixture });
        const strip = (r) => r.diagnostics.map((d) => ({ ...d, line: null, column: null }));
        // JSON.parse keeps the last of duplicate keys and reads text the engine refuses;
        // the serialization rules judge the text, so they are left out of the comparison.
        const judged = (r) => strip(r).filter((d) => !d.rule.startsWith('mcpdesc.serialization.'));
        assert.deepEqual(
          asSidecar({ diagnostics: judged(fromValue), loadError: null }),
          asSidecar({ diagnostics: judged(fromFile), loadError: null }),
        );
      }
    });
  }
});

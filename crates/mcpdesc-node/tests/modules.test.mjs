// The package as installed: it resolves from the project's node_modules, `import` and
// `require` give the same module, and it loads in a fresh process of either kind.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as namespace from 'mcpdesc';
import mcpdesc, { Engine, RuleLoadError, validate } from 'mcpdesc';

import { BAD_TOOL } from './support.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));

const EXPORTS = [
  'ConfigurationError',
  'Engine',
  'McpdescError',
  'Report',
  'RuleLoadError',
  'clearEngineCache',
  'runCli',
  'validate',
  'validateAsync',
  'validateFile',
  'validateFileAsync',
  'version',
];

test('the package resolves from node_modules, not from a source tree', () => {
  const main = require.resolve('mcpdesc');
  const installed = path.join(path.dirname(here), 'node_modules', 'mcpdesc') + path.sep;
  assert.ok(main.startsWith(installed), `${main} is not under ${installed}`);
  const esm = fileURLToPath(import.meta.resolve('mcpdesc'));
  assert.ok(esm.startsWith(installed), `${esm} is not under ${installed}`);
  assert.equal(path.basename(esm), 'index.mjs');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.name, 'mcpdesc');
  assert.equal(mcpdesc.version, manifest.version);
});

test('ESM named exports, the default export and require() are one module', () => {
  const cjs = require('mcpdesc');
  assert.deepEqual(Object.keys(cjs).sort(), EXPORTS);
  assert.deepEqual(
    Object.keys(namespace).filter((k) => k !== 'default').sort(),
    EXPORTS,
  );
  assert.equal(mcpdesc, cjs);
  assert.equal(Engine, cjs.Engine);
  assert.equal(validate, cjs.validate);
  assert.equal(RuleLoadError, cjs.RuleLoadError);
  for (const name of EXPORTS) assert.equal(namespace[name], cjs[name], name);
  // An engine from one face is an Engine of the other.
  assert.ok(new cjs.Engine() instanceof Engine);
});

test('a CommonJS program and an ES module program validate in their own processes', () => {
  const cjs = execFileSync(
    process.execPath,
    [
      '-e',
      `const { validate } = require('mcpdesc');
       const r = validate(process.argv[1]);
       process.stdout.write(JSON.stringify([r.valid, r.diagnostics.map((d) => [d.rule, d.line])]));`,
      BAD_TOOL,
    ],
    { cwd: path.dirname(here), encoding: 'utf8' },
  );
  assert.deepEqual(JSON.parse(cjs), [false, [['mcpdesc.tool.closed', 5]]]);
  const esm = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { validateAsync } from 'mcpdesc';
       const r = await validateAsync(process.argv[1]);
       process.stdout.write(JSON.stringify([r.valid, r.diagnostics.map((d) => [d.rule, d.line])]));`,
      BAD_TOOL,
    ],
    { cwd: path.dirname(here), encoding: 'utf8' },
  );
  assert.deepEqual(JSON.parse(esm), [false, [['mcpdesc.tool.closed', 5]]]);
});

test('the package ships its addon, its code and its types, and no sources', () => {
  const root = path.dirname(require.resolve('mcpdesc/package.json'));
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(manifest.engines.node, '>=20');
  for (const file of [manifest.main, manifest.types, 'index.mjs', 'index.d.mts', 'README.md']) {
    assert.ok(readFileSync(path.join(root, file)).length > 0, file);
  }
  const shipped = readdirSync(root);
  assert.ok(shipped.some((f) => /^mcpdesc\..+\.node$/.test(f)), shipped.join(', '));
  for (const f of shipped) assert.ok(!['src', 'Cargo.toml', 'tests', 'build.rs'].includes(f), `ships ${f}`);
});

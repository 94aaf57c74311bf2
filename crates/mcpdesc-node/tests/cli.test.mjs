// The `mcpdesc` command the package installs (`bin/mcpdesc.js`): the same command line as the
// standalone binary, run by `npx mcpdesc` from the project that installed the package.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { runCli, version } from 'mcpdesc';

import { BAD_TOOL, VALID, at } from './support.mjs';

const require = createRequire(import.meta.url);
const project = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BAD_TOOL_JSON = JSON.stringify({
  ...VALID,
  tools: [{ name: 'demo_tool', bogus: 1, inputSchema: { type: 'object' } }],
});

/**
 * `npx mcpdesc ARGS` in the project, as a user types it. `npm_config_yes=false` (not `--no`,
 * which would make npx read the command's own `--version`) keeps npx from installing a
 * package of that name from the registry should the installed one lack its command.
 */
function npx(args, input) {
  const done = spawnSync('npx', ['mcpdesc', ...args], {
    cwd: project,
    input,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', npm_config_yes: 'false' },
  });
  assert.equal(done.error, undefined, String(done.error));
  return done;
}

test('the installed package links its bin script as node_modules/.bin/mcpdesc', () => {
  const manifest = require('mcpdesc/package.json');
  assert.deepEqual(manifest.bin, { mcpdesc: 'bin/mcpdesc.js' });
  const linked = realpathSync(path.join(project, 'node_modules', '.bin', 'mcpdesc'));
  const shipped = realpathSync(
    path.join(path.dirname(require.resolve('mcpdesc/package.json')), 'bin', 'mcpdesc.js'),
  );
  assert.equal(linked, shipped);
});

test('npx mcpdesc --version prints the package version', () => {
  const done = npx(['--version']);
  assert.equal(done.status, 0, done.stderr);
  assert.equal(done.stdout, `mcpdesc ${version}\n`);
});

test('a valid document exits 0', () => {
  const done = npx(['validate', at('docs/examples/weather-server.yaml')]);
  assert.equal(done.status, 0, done.stdout + done.stderr);
  assert.match(done.stdout, /0 invalid/);
});

test('an invalid document exits 1 with its finding', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcpdesc-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bad = path.join(dir, 'bad.yaml');
  writeFileSync(bad, BAD_TOOL);
  const done = npx(['validate', bad]);
  assert.equal(done.status, 1, done.stdout + done.stderr);
  assert.ok(done.stdout.includes(`${bad}:5:5: error[mcpdesc.tool.closed]`), done.stdout);
});

test('a usage error exits 2 with the usage message', () => {
  const done = npx(['validate', '--no-such-option', 'x.yaml']);
  assert.equal(done.status, 2, done.stderr);
  assert.match(done.stderr, /unexpected argument '--no-such-option'/);
  assert.match(done.stderr, /Usage: mcpdesc validate/);
});

test('standard input is read for a dash', () => {
  const valid = npx(['validate', '-'], JSON.stringify(VALID));
  assert.equal(valid.status, 0, valid.stdout + valid.stderr);
  const invalid = npx(['validate', '-'], BAD_TOOL_JSON);
  assert.equal(invalid.status, 1, invalid.stdout + invalid.stderr);
  assert.match(invalid.stdout, /error\[mcpdesc\.tool\.closed\]/);
});

test('a reader that stops early ends the output quietly, as with the binary', async () => {
  // Far more output than a pipe holds: the command meets the closed pipe and exits 0.
  const bin = path.join(project, 'node_modules', '.bin', 'mcpdesc');
  const child = spawn(bin, ['rules', 'list', '--format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.once('data', () => child.stdout.destroy());
  const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  assert.deepEqual([code, signal], [0, null], stderr);
  assert.equal(stderr, '');
});

test('the language server answers, and Ctrl-C ends it', { skip: process.platform === 'win32' }, async () => {
  const bin = path.join(project, 'node_modules', '.bin', 'mcpdesc');
  const child = spawn(bin, ['server'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const closed = new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  try {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { processId: null, capabilities: {} },
    });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    let received = Buffer.alloc(0);
    const answer = await new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        received = Buffer.concat([received, chunk]);
        const text = received.toString('utf8');
        const header = /^Content-Length: (\d+)\r\n\r\n/.exec(text);
        if (header && received.length >= header[0].length + Number(header[1])) {
          resolve(JSON.parse(received.subarray(header[0].length).toString('utf8')));
        }
      });
      child.on('error', reject);
    });
    assert.equal(answer.id, 1);
    assert.ok(answer.result.capabilities, JSON.stringify(answer));
    // The server runs in the addon, on Node's main thread: Ctrl-C must still end it.
    child.kill('SIGINT');
    assert.deepEqual(await closed, [null, 'SIGINT']);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('mcpdesc mcp answers a session, and ends with its input', async () => {
  const bin = path.join(project, 'node_modules', '.bin', 'mcpdesc');
  const child = spawn(bin, ['mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const closed = new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  let pending = '';
  const waiting = [];
  child.stdout.on('data', (chunk) => {
    pending += chunk.toString('utf8');
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      waiting.shift()?.(JSON.parse(line));
    }
  });
  const ask = (message) =>
    new Promise((resolve) => {
      waiting.push(resolve);
      child.stdin.write(`${JSON.stringify(message)}\n`);
    });
  try {
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } };
    const init = await ask({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
    assert.equal(init.result.protocolVersion, '2025-06-18', JSON.stringify(init));
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const tools = await ask({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.ok(tools.result.tools.some((t) => t.name === 'validate_description'), JSON.stringify(tools));
    const call = { name: 'validate_description', arguments: { text: BAD_TOOL_JSON } };
    const result = await ask({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: call });
    assert.equal(result.result.structuredContent.valid, false, JSON.stringify(result));
    child.stdin.end();
    assert.deepEqual(await closed, [0, null]);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('runCli returns the status of the command', () => {
  // In a child process: the command writes to the process's own standard output.
  const done = spawnSync(
    process.execPath,
    ['-e', `process.exitCode = require('mcpdesc').runCli(['validate', '--no-such-option', 'x'])`],
    { cwd: project, encoding: 'utf8' },
  );
  assert.equal(done.status, 2, done.stderr);
  assert.match(done.stderr, /unexpected argument/);
  assert.throws(() => runCli('--version'), TypeError);
  assert.throws(() => runCli([1]), TypeError);
});

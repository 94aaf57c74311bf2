// In-process validation time of the Node package: one engine built up front with the
// embedded catalogue, each file's text read before timing, three warm-up calls, then
// `--runs N` timed calls of `Engine#validate` on the text (format JSON given), then as many
// of `Engine#validateAsync`, each awaited before the next. Prints one
// JSON line per file and nothing else on stdout:
//
//   {"file": ..., "bytes": ..., "runs": N, "median_s": ..., "min_s": ...,
//    "async_median_s": ..., "diagnostics": ...}
//
//   node bench-validate.mjs --runs 50 FILE...
//
// Run it where `mcpdesc` resolves to the installed package (xtask/bindings/node/bench.sh).

import { readFileSync, statSync } from 'node:fs';

import { Engine } from 'mcpdesc';

function usage(message) {
  process.stderr.write(`bench-validate: ${message}\nusage: bench-validate.mjs --runs N FILE...\n`);
  process.exit(2);
}

let runs = 50;
const files = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') {
    runs = Number(args[++i]);
    if (!Number.isInteger(runs) || runs < 1) usage(`--runs needs a positive integer, not ${args[i]}`);
  } else if (args[i].startsWith('--runs=')) {
    runs = Number(args[i].slice('--runs='.length));
    if (!Number.isInteger(runs) || runs < 1) usage(`--runs needs a positive integer, not ${args[i]}`);
  } else {
    files.push(args[i]);
  }
}
if (files.length === 0) usage('no document given');

const engine = new Engine();
const options = { format: 'json' };

for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const bytes = statSync(file).size;
  for (let i = 0; i < 3; i++) engine.validate(text, options);
  const times = new Array(runs);
  let diagnostics = 0;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const report = engine.validate(text, options);
    times[i] = Number(process.hrtime.bigint() - start) / 1e9;
    diagnostics = report.diagnostics.length;
  }
  // The same calls through `validateAsync`, one at a time: the cost of the trip to the
  // libuv pool and back.
  for (let i = 0; i < 3; i++) await engine.validateAsync(text, options);
  const asyncTimes = new Array(runs);
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await engine.validateAsync(text, options);
    asyncTimes[i] = Number(process.hrtime.bigint() - start) / 1e9;
  }
  // The layout of the other bindings' benchmark lines, with the async figure added.
  process.stdout.write(
    `{"file": ${JSON.stringify(file)}, "bytes": ${bytes}, "runs": ${runs}, ` +
      `"median_s": ${median(times)}, "min_s": ${Math.min(...times)}, ` +
      `"async_median_s": ${median(asyncTimes)}, "diagnostics": ${diagnostics}}\n`,
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

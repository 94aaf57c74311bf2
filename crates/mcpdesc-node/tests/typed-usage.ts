// How TypeScript code uses the package, checked with `tsc --noEmit --strict` against the
// installed type definitions. Each `@ts-expect-error` line must be an error: the definitions
// are not looser than the API.

import { readFileSync } from 'node:fs';

import mcpdesc, {
  ConfigurationError,
  Engine,
  McpdescError,
  Report,
  RuleLoadError,
  clearEngineCache,
  validate,
  validateAsync,
  validateFile,
  validateFileAsync,
  version,
} from 'mcpdesc';
import type {
  Diagnostic,
  EngineOptions,
  Format,
  Kind,
  LoadFailure,
  Options,
  RuleProblem,
  Severity,
  Source,
  ValidateOptions,
} from 'mcpdesc';

const text: string = readFileSync('server.yaml', 'utf8');
const bytes: Buffer = readFileSync('server.yaml');

const report: Report = validate(text);
const valid: boolean = report.valid;
const where: string | null = report.path;
const kind: Kind = report.kind;
const release: string = report.release;
const failure: LoadFailure | null = report.loadError;
if (failure !== null) {
  const code: string = failure.code;
  const line: number | null = failure.line;
  console.log(code, line, failure.message, failure.column);
}

for (const d of report.diagnostics) {
  const rule: string = d.rule;
  const severity: Severity = d.severity;
  const line: number | null = d.line;
  const column: number | null = d.column;
  const versions: readonly string[] = d.versions;
  const docUrl: string | null = d.docUrl;
  console.log(rule, severity, d.message, d.pointer, line, column, versions, docUrl);
}
const errors: Diagnostic[] = report.errors;
const warnings: Diagnostic[] = report.warnings;
console.log(valid, where, kind, release, errors.length, warnings.length);

// Every kind of source.
const sources: Source[] = [
  text,
  bytes,
  new Uint8Array(bytes),
  bytes.buffer,
  new URL('file:///srv/server.json'),
  { mcpdesc: '0.8.0', info: { name: 'demo', version: '1.0.0' } },
  [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
];
for (const source of sources) validate(source);

const formats: Format[] = ['json', 'yaml', 'capture'];
const perCall: ValidateOptions = { format: formats[0], path: 'server.json' };
const engineOptions: EngineOptions = {
  rules: ['rules', new URL('file:///srv/rules')],
  protocolVersions: ['2025-11-25'],
  specVersion: '0.8.0',
  select: 'mcpdesc.tool.*',
  ignore: ['mcpdesc.info.version-semver'],
  strict: true,
  docsBaseUrl: 'https://mcpdesc.example/rules',
  extendRules: ['house-rules', new URL('file:///srv/house-rules')],
};
const options: Options = { ...engineOptions, ...perCall };
validate(text, options);
validateFile('server.yaml', { format: 'yaml' });
validateFile(new URL('file:///srv/server.yaml'));

const engine = new Engine(engineOptions);
const fromEngine: Report = engine.validate(bytes, perCall);
const releases: string[] = engine.releases;
const protocols: string[] = engine.protocolVersions;
console.log(fromEngine.valid, releases, protocols, version, mcpdesc.version);

async function concurrently(): Promise<Report[]> {
  const shared: Engine = await Engine.create({ strict: false });
  const one: Promise<Report> = shared.validateAsync(text, { format: 'yaml' });
  const two: Promise<Report> = shared.validateFileAsync('server.yaml');
  const three: Promise<Report> = validateAsync({ mcpdesc: '0.8.0' }, { strict: true });
  const four: Promise<Report> = validateFileAsync(new URL('file:///srv/server.yaml'), { rules: 'rules' });
  return Promise.all([one, two, three, four]);
}
void concurrently();

try {
  new Engine({ rules: 'rules' });
} catch (error) {
  if (error instanceof RuleLoadError) {
    const problems: readonly RuleProblem[] = error.problems;
    const code: 'ERR_MCPDESC_RULES' = error.code;
    for (const p of problems) console.log(`${p.file}:${p.line}:${p.column}: ${p.message}`, code);
  } else if (error instanceof ConfigurationError) {
    const option: 'protocolVersions' | 'specVersion' | 'format' = error.option;
    console.log(option, error.value, error.supported, error.code);
  } else if (error instanceof McpdescError) {
    console.log(error.code, error.message);
  }
}
clearEngineCache();

// @ts-expect-error: not a format
validate(text, { format: 'xml' });
// @ts-expect-error: not a source
validate(42);
// @ts-expect-error: engine options do not belong to a call on an engine
engine.validate(text, { strict: true });
// @ts-expect-error: not an option
validate(text, { protocolVersion: '2025-11-25' });
// @ts-expect-error: strict is a boolean
new Engine({ strict: 'yes' });
// @ts-expect-error: a report is read-only
report.valid = true;
// @ts-expect-error: findings are read-only
report.diagnostics[0]!.rule = 'x';
// @ts-expect-error: severities are three
const notSeverity: Severity = 'fatal';
// @ts-expect-error: reports are made by the package
new Report();
// @ts-expect-error: validateAsync gives a promise
const notReport: Report = validateAsync(text);
console.log(notSeverity, notReport);

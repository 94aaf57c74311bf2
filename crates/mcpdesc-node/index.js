'use strict';
// mcpdesc: validate MCP Description documents and captures of MCP JSON-RPC traffic.
//
// The rules are compiled into a native engine (`mcpdesc.<platform>.node`); this module
// turns JavaScript values into its inputs, its answers into reports, and its failures into
// the error classes below.

const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const { fileURLToPath } = require('node:url');

// --- the native engine ---------------------------------------------------------------------

function isMusl() {
  // `ldd` is the C library's own script on most distributions and names musl; reading it is
  // much cheaper than the process report, which is the fallback.
  try {
    return fs.readFileSync('/usr/bin/ldd', 'latin1').includes('musl');
  } catch {
    // No ldd: ask the report whether Node runs on glibc.
  }
  const report = process.report?.getReport?.();
  const header = typeof report === 'string' ? JSON.parse(report).header : report?.header;
  return header !== undefined && !header.glibcVersionRuntime;
}

/** The `platform-arch[-abi]` suffix napi-rs gives the addon built for this process. */
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    if (arch === 'arm') return `linux-arm-${isMusl() ? 'musleabihf' : 'gnueabihf'}`;
    return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function loadNative() {
  const override = process.env.MCPDESC_NATIVE_LIBRARY_PATH;
  const candidates = override
    ? [path.resolve(override)]
    : [path.join(__dirname, `mcpdesc.${platformSuffix()}.node`)];
  if (!override && process.platform === 'darwin') {
    candidates.push(path.join(__dirname, 'mcpdesc.darwin-universal.node'));
  }
  const failures = [];
  for (const candidate of candidates) {
    if (!fs.existsSync(candidate)) {
      failures.push(`${candidate}: not found`);
      continue;
    }
    try {
      return require(candidate);
    } catch (error) {
      failures.push(`${candidate}: ${error.message}`);
    }
  }
  const built = fs
    .readdirSync(__dirname)
    .filter((name) => name.startsWith('mcpdesc.') && name.endsWith('.node'));
  throw new Error(
    `mcpdesc: no native engine for ${process.platform}-${process.arch} could be loaded:\n  ` +
      failures.join('\n  ') +
      `\nthis package holds: ${built.length ? built.join(', ') : 'no native engine'}` +
      '\n(MCPDESC_NATIVE_LIBRARY_PATH names an addon to load instead)',
  );
}

const native = loadNative();

// --- errors ----------------------------------------------------------------------------------

function named(cls) {
  Object.defineProperty(cls.prototype, 'name', {
    value: cls.name,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  return cls;
}

/** The base of the errors this package throws about rules and options. */
class McpdescError extends Error {
  constructor(message, code, options) {
    super(message, options);
    this.code = code;
  }
}
named(McpdescError);

/** The rule files of a `rules` directory have problems; every one is listed. */
class RuleLoadError extends McpdescError {
  constructor(problems, options) {
    const list = Object.freeze(
      Array.from(problems, (p) =>
        Object.freeze({ file: p.file, line: p.line, column: p.column, message: p.message }),
      ),
    );
    const listing = list.map((p) => `\n  ${p.file}:${p.line}:${p.column}: ${p.message}`).join('');
    super(`${list.length} problem(s) in the rule files:${listing}`, 'ERR_MCPDESC_RULES', options);
    this.problems = list;
  }
}
named(RuleLoadError);

const CONFIGURATION = {
  'protocol-version': ['protocolVersions', 'ERR_MCPDESC_UNKNOWN_PROTOCOL_VERSION'],
  'spec-version': ['specVersion', 'ERR_MCPDESC_UNSERVED_SPEC_VERSION'],
  format: ['format', 'ERR_MCPDESC_UNKNOWN_FORMAT'],
};

/**
 * An option names something the catalogue does not have: an unknown protocol version, a
 * specification version no loaded release serves, or an unknown format.
 */
class ConfigurationError extends McpdescError {
  constructor(message, code, option, value, supported, options) {
    super(message, code, options);
    this.option = option;
    this.value = value;
    this.supported = supported;
  }
}
named(ConfigurationError);

function invalidArgument(message) {
  const error = new TypeError(message);
  error.code = 'ERR_INVALID_ARG_TYPE';
  return error;
}

/** An unreadable file, as Node's own file functions report one. */
function fileError(failure) {
  let code = failure.code ?? 'EIO';
  let errno;
  if (typeof failure.errno === 'number') {
    // libuv numbers errors as the negated errno everywhere but Windows, whose OS error
    // numbers are not errno values.
    if (process.platform !== 'win32') {
      errno = -failure.errno;
      try {
        code = util.getSystemErrorName(errno);
      } catch {
        // Not an errno libuv knows: keep the code of the error kind.
      }
    }
  }
  const error = new Error(`${code}: ${failure.message}`);
  error.code = code;
  if (errno !== undefined) error.errno = errno;
  error.path = failure.path;
  return error;
}

function toError(failure) {
  switch (failure.failure) {
    case 'rules':
      return new RuleLoadError(failure.problems ?? []);
    case 'io':
      return fileError(failure);
    default: {
      const [option, code] = CONFIGURATION[failure.failure] ?? [null, 'ERR_MCPDESC'];
      if (option === null) return new McpdescError(failure.message, code);
      return new ConfigurationError(
        failure.message,
        code,
        option,
        failure.requested ?? null,
        failure.supported ?? null,
      );
    }
  }
}

// --- reports ---------------------------------------------------------------------------------

/** What one validation found. Built by this package; frozen. */
class Report {
  constructor(raw) {
    const diagnostics = raw.diagnostics;
    for (let i = 0; i < diagnostics.length; i++) {
      const d = diagnostics[i];
      Object.freeze(d.versions);
      Object.freeze(d);
    }
    this.valid = raw.valid;
    this.path = raw.path;
    this.kind = raw.kind;
    this.release = raw.release;
    this.diagnostics = Object.freeze(diagnostics);
    this.loadError = raw.loadError === null ? null : Object.freeze(raw.loadError);
    Object.freeze(this);
  }

  /** The findings of severity `error`. */
  get errors() {
    return this.diagnostics.filter((d) => d.severity === 'error');
  }

  /** The findings of severity `warning`. */
  get warnings() {
    return this.diagnostics.filter((d) => d.severity === 'warning');
  }
}

function settle(answer) {
  if (answer.failure !== undefined) throw toError(answer);
  return new Report(answer);
}

async function settleAsync(pending) {
  return settle(await pending);
}

// --- arguments -------------------------------------------------------------------------------

function describe(value) {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'Object'}`;
  return `type ${typeof value}`;
}

function optionalString(name, value) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    throw invalidArgument(`options.${name} must be a string, received ${describe(value)}`);
  }
  return value;
}

function strings(name, value) {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) {
    throw invalidArgument(
      `options.${name} must be a string or an array of strings, received ${describe(value)}`,
    );
  }
  for (const item of value) {
    if (typeof item !== 'string') {
      throw invalidArgument(`options.${name} must hold strings, received ${describe(item)}`);
    }
  }
  return value.slice();
}

function filePath(name, value) {
  if (typeof value === 'string') return value;
  if (value instanceof URL) {
    if (value.protocol !== 'file:') {
      throw invalidArgument(`${name} must be a file: URL, received ${value.protocol} URL`);
    }
    return fileURLToPath(value);
  }
  throw invalidArgument(`${name} must be a string or a file: URL, received ${describe(value)}`);
}

function paths(value, name = 'options.rules') {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string' || value instanceof URL) return [filePath(name, value)];
  if (!Array.isArray(value)) {
    throw invalidArgument(`${name} must be a path or an array of paths, received ${describe(value)}`);
  }
  return value.map((p) => filePath(name, p));
}

const ENGINE_OPTIONS = new Set([
  'rules',
  'protocolVersions',
  'specVersion',
  'select',
  'ignore',
  'strict',
  'docsBaseUrl',
  'extendRules',
]);
const CALL_OPTIONS = new Set(['format', 'path']);
const MODULE_OPTIONS = new Set([...ENGINE_OPTIONS, ...CALL_OPTIONS]);

function checkKeys(options, allowed, where) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArgument(`options must be an object, received ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) {
      const hint = ENGINE_OPTIONS.has(key)
        ? `; ${key} is an engine option: pass it to new Engine()`
        : CALL_OPTIONS.has(key)
          ? `; ${key} is an option of each validation: pass it to validate()`
          : '';
      throw invalidArgument(`unknown option ${JSON.stringify(key)} for ${where}${hint}`);
    }
  }
  return options;
}

/** The engine options as the native engine takes them. */
function engineOptions(options) {
  if (options.strict !== undefined && options.strict !== null && typeof options.strict !== 'boolean') {
    throw invalidArgument(`options.strict must be a boolean, received ${describe(options.strict)}`);
  }
  return {
    rules: paths(options.rules),
    specVersion: optionalString('specVersion', options.specVersion) ?? undefined,
    protocolVersions: strings('protocolVersions', options.protocolVersions),
    select: strings('select', options.select),
    ignore: strings('ignore', options.ignore),
    strict: options.strict === true,
    docsBaseUrl: optionalString('docsBaseUrl', options.docsBaseUrl) ?? undefined,
    extendRules: paths(options.extendRules, 'options.extendRules'),
  };
}

/** The per-call options: `[format, name]`. */
function callOptions(options) {
  const format = optionalString('format', options.format);
  let name = null;
  if (options.path !== undefined && options.path !== null) name = filePath('options.path', options.path);
  return [format, name];
}

function unrepresentable(key, what) {
  const where = key === '' ? 'as the document' : `at member ${JSON.stringify(key)}`;
  return invalidArgument(`the document holds ${what} ${where}, which JSON cannot represent`);
}

/** JSON.stringify, refusing what JSON cannot hold instead of dropping or changing it. */
function strictJson(key, value) {
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw unrepresentable(key, String(value));
      return value;
    case 'function':
    case 'symbol':
      throw unrepresentable(key, `a ${typeof value}`);
    case 'object':
      if (value instanceof Map || value instanceof Set) {
        throw unrepresentable(key, `a ${value.constructor.name} (use a plain object or an array)`);
      }
      return value;
    default:
      return value;
  }
}

function serialize(value) {
  // A cycle or a BigInt makes JSON.stringify throw a TypeError itself; object members that
  // are `undefined` are left out, as JSON.stringify does.
  return JSON.stringify(value, strictJson);
}

// A string reaches the engine as UTF-8 bytes written by `TextEncoder#encodeInto` into a
// buffer kept from call to call: several times faster than the engine copying the string out
// of the JavaScript heap itself, which converts a string holding any character past Latin-1
// one UTF-16 unit at a time (5 of the 18 ms of a 1 MB document). Both replace an unpaired
// surrogate with U+FFFD, and bytes are read as text is, byte-order mark included.
const encoder = new TextEncoder();
// The largest buffer kept between calls; a longer string gets one of its own.
const KEPT_BUFFER_BYTES = 4 * 1024 * 1024;
let kept = new Uint8Array(64 * 1024);

function room(bytes) {
  if (kept.length >= bytes) return kept;
  const buffer = new Uint8Array(bytes);
  if (bytes <= KEPT_BUFFER_BYTES) kept = buffer;
  return buffer;
}

/**
 * The UTF-8 encoding of `text`, in a buffer that the next call may overwrite: the native
 * call reads it (or, when asynchronous, copies it) before it returns.
 */
function utf8(text) {
  const units = text.length;
  // Room for text that is mostly ASCII; each UTF-16 unit takes at most 3 bytes.
  let buffer = room(units + (units >> 3) + 16);
  const first = encoder.encodeInto(text, buffer);
  let written = first.written;
  if (first.read < units) {
    const rest = units - first.read;
    const wider = new Uint8Array(written + 3 * rest);
    wider.set(buffer.subarray(0, written));
    // `encodeInto` stops between code points, so the rest starts on one.
    written += encoder.encodeInto(text.slice(first.read), wider.subarray(written)).written;
    if (wider.length <= KEPT_BUFFER_BYTES) kept = wider;
    buffer = wider;
  }
  return buffer.subarray(0, written);
}

/** Which native entry point reads `source`, and the argument it takes. */
function classify(source) {
  if (typeof source === 'string') return ['Text', source];
  if (source instanceof Uint8Array) return ['Bytes', source];
  if (ArrayBuffer.isView(source)) {
    return ['Bytes', new Uint8Array(source.buffer, source.byteOffset, source.byteLength)];
  }
  if (
    source instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer === 'function' && source instanceof SharedArrayBuffer)
  ) {
    return ['Bytes', new Uint8Array(source)];
  }
  if (source instanceof URL) return ['File', filePath('source', source)];
  if (source !== null && typeof source === 'object') return ['Value', serialize(source)];
  throw invalidArgument(
    'source must be a string, a Buffer or Uint8Array, a file: URL, or a decoded document ' +
      `(an object or an array), received ${describe(source)}`,
  );
}

// --- engines ---------------------------------------------------------------------------------

const nativeEngine = Symbol('mcpdesc.native');

function wrap(compiled) {
  if (compiled.failure !== undefined) throw toError(compiled);
  const engine = Object.create(Engine.prototype);
  engine[nativeEngine] = compiled;
  return Object.freeze(engine);
}

/** A validation's native entry point and arguments, checked before anything runs. */
function prepare(source, options, where) {
  const [format, name] = callOptions(checkKeys(options, CALL_OPTIONS, where));
  const [entry, argument] = classify(source);
  return [entry, argument, format, name];
}

function prepareFile(file, options, where) {
  const [format, name] = callOptions(checkKeys(options, CALL_OPTIONS, where));
  return ['File', filePath('path', file), format, name];
}

// A string (text, or the JSON of a decoded value) is encoded only here, right before the
// native call: an asynchronous validation may wait for its engine between `prepare` and the
// call, while other calls reuse the buffer.
function nativeCall([entry, argument]) {
  switch (entry) {
    case 'Text':
      return ['Bytes', utf8(argument)];
    case 'Value':
      return ['Value', utf8(argument)];
    default:
      return [entry, argument];
  }
}

function run(compiled, [entry, argument, format, name]) {
  const [method, bytes] = nativeCall([entry, argument]);
  return settle(compiled[`validate${method}`](bytes, format, name));
}

function runAsync(compiled, [entry, argument, format, name]) {
  const [method, bytes] = nativeCall([entry, argument]);
  return settleAsync(compiled[`validate${method}Async`](bytes, format, name));
}

/**
 * A compiled catalogue of rules and the options it validates with. Build it once and
 * validate any number of documents with it, also from several concurrent asynchronous
 * validations: the engine is immutable.
 */
class Engine {
  constructor(options) {
    const compiled = native.compile(engineOptions(checkKeys(options, ENGINE_OPTIONS, 'new Engine()')));
    if (compiled.failure !== undefined) throw toError(compiled);
    this[nativeEngine] = compiled;
    Object.freeze(this);
  }

  /** Compiles an engine off the main thread. */
  static async create(options) {
    const settings = engineOptions(checkKeys(options, ENGINE_OPTIONS, 'Engine.create()'));
    return wrap(await native.compileAsync(settings));
  }

  validate(source, options) {
    return run(this[nativeEngine], prepare(source, options, 'Engine#validate()'));
  }

  async validateAsync(source, options) {
    return runAsync(this[nativeEngine], prepare(source, options, 'Engine#validateAsync()'));
  }

  validateFile(file, options) {
    return run(this[nativeEngine], prepareFile(file, options, 'Engine#validateFile()'));
  }

  async validateFileAsync(file, options) {
    return runAsync(this[nativeEngine], prepareFile(file, options, 'Engine#validateFileAsync()'));
  }

  /** The catalogue releases this engine serves, oldest first. */
  get releases() {
    return this[nativeEngine].releases;
  }

  /** The protocol versions of the engine's default release, oldest first. */
  get protocolVersions() {
    return this[nativeEngine].protocolVersions;
  }
}

// --- the module-level functions ----------------------------------------------------------------

const CACHE_SIZE = 32;
/** Compiled engines by their options, least recently used first. */
const cache = new Map();
/** Compilations under way off the main thread, by their options. */
const building = new Map();

function split(options, where) {
  const all = checkKeys(options, MODULE_OPTIONS, where);
  const engine = engineOptions(all);
  // Relative rules directories are resolved now: the cached engine was compiled from the
  // directories they named then, whatever the working directory becomes.
  const key = JSON.stringify([
    engine.rules.map((r) => path.resolve(r)),
    engine.specVersion ?? null,
    engine.protocolVersions,
    engine.select,
    engine.ignore,
    engine.strict,
    engine.docsBaseUrl ?? null,
    engine.extendRules.map((r) => path.resolve(r)),
  ]);
  const call = {};
  if (all.format !== undefined) call.format = all.format;
  if (all.path !== undefined) call.path = all.path;
  return { engine, key, call };
}

function cached(key) {
  const engine = cache.get(key);
  if (engine !== undefined) {
    cache.delete(key);
    cache.set(key, engine);
  }
  return engine;
}

function remember(key, engine) {
  cache.set(key, engine);
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value);
  return engine;
}

function engineFor({ engine, key }) {
  return cached(key) ?? remember(key, wrap(native.compile(engine)));
}

function engineForAsync({ engine, key }) {
  const found = cached(key);
  if (found !== undefined) return found;
  let pending = building.get(key);
  if (pending === undefined) {
    // Concurrent first calls with the same options wait for one compilation.
    pending = native
      .compileAsync(engine)
      .then((compiled) => remember(key, wrap(compiled)))
      .finally(() => building.delete(key));
    building.set(key, pending);
  }
  return pending;
}

/**
 * Validates one document or capture with the engine these options name, compiled on first
 * use and kept for the next calls (the 32 most recently used).
 */
function validate(source, options) {
  const parts = split(options, 'validate()');
  return run(engineFor(parts)[nativeEngine], prepare(source, parts.call, 'validate()'));
}

/** `validate` off the main thread: the engine compiles and the document validates on the libuv pool. */
async function validateAsync(source, options) {
  const parts = split(options, 'validateAsync()');
  // The arguments are checked, and a decoded document serialized, before an engine is
  // compiled for them.
  const call = prepare(source, parts.call, 'validateAsync()');
  const engine = await engineForAsync(parts);
  return runAsync(engine[nativeEngine], call);
}

function validateFile(file, options) {
  const parts = split(options, 'validateFile()');
  return run(engineFor(parts)[nativeEngine], prepareFile(file, parts.call, 'validateFile()'));
}

async function validateFileAsync(file, options) {
  const parts = split(options, 'validateFileAsync()');
  const call = prepareFile(file, parts.call, 'validateFileAsync()');
  const engine = await engineForAsync(parts);
  return runAsync(engine[nativeEngine], call);
}

/** Forgets the engines the module-level functions compiled, e.g. after rule files changed. */
function clearEngineCache() {
  cache.clear();
}

/** The version of this package and of its engine. */
const version = native.engineVersion();

/**
 * Runs the `mcpdesc` command line in this process with `argv`, its arguments without the
 * program name, and returns its exit status. It writes to the process's standard output and
 * error and reads its standard input, and blocks until the command ends.
 */
function runCli(argv) {
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) {
    throw new TypeError('runCli(argv): argv must be an array of strings');
  }
  return native.runCli(['mcpdesc', ...argv]);
}

module.exports = {
  validate,
  validateAsync,
  validateFile,
  validateFileAsync,
  clearEngineCache,
  Engine,
  Report,
  McpdescError,
  RuleLoadError,
  ConfigurationError,
  version,
  runCli,
};

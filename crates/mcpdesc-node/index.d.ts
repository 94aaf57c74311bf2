/// <reference types="node" />
// Type definitions for mcpdesc: validate MCP Description documents and captures of MCP
// JSON-RPC traffic.

/** How serious a finding is. */
export type Severity = 'error' | 'warning' | 'info';

/** What a validated document is: an MCP Description, or a capture of MCP traffic. */
export type Kind = 'description' | 'traffic';

/**
 * How a source is read. By default the format follows the name's extension (`.yaml`/`.yml`,
 * `.ndjson`/`.jsonl`/`.traffic.json`), else the content (JSON when it starts with `{` or
 * `[`, YAML otherwise). `yml`, `ndjson`, `jsonl` and `traffic` are accepted too.
 */
export type Format = 'json' | 'yaml' | 'capture' | 'yml' | 'ndjson' | 'jsonl' | 'traffic';

/** An already-decoded document: a description object, or a capture's messages. */
export type DecodedDocument = { readonly [key: string]: unknown } | readonly unknown[];

/**
 * What can be validated:
 * - a `string`: document text;
 * - a `Buffer`, `Uint8Array` (any `ArrayBufferView`), `ArrayBuffer` or `SharedArrayBuffer`:
 *   document bytes
 *   (UTF-8, a byte-order mark allowed);
 * - a `file:` `URL`: a file, read by the engine;
 * - an object or an array: an already-decoded document (serialized with `JSON.stringify`;
 *   a cycle, a `BigInt`, a function, a symbol, a `Map`, a `Set` or a non-finite number
 *   throws a `TypeError`). Its findings carry pointers but no lines.
 */
export type Source = string | ArrayBufferView | ArrayBufferLike | URL | DecodedDocument;

/** A file-system path, or a `file:` URL. */
export type PathLike = string | URL;

/** One finding of one rule at one node of the document. */
export interface Diagnostic {
  /** The rule id, e.g. `mcpdesc.tool.closed`. */
  readonly rule: string;
  readonly severity: Severity;
  /** What is wrong, and usually how to fix it. */
  readonly message: string;
  /** RFC 6901 JSON Pointer of the node (`""` is the document root). */
  readonly pointer: string;
  /** 1-based line of the node, when the source has positions (a decoded document has none). */
  readonly line: number | null;
  /** 1-based column of the node (in characters), likewise. */
  readonly column: number | null;
  /** The protocol versions the finding holds for, oldest first; empty when it holds for every version. */
  readonly versions: readonly string[];
  /** The rule's documentation page, when the catalogue names one or `docsBaseUrl` is set. */
  readonly docUrl: string | null;
}

/** Why a document could not be read at all (a syntax error, a size limit, ...). */
export interface LoadFailure {
  /** Stable code of the failure, e.g. `json-syntax`, `yaml-syntax`, `duplicate-key`, `limit`. */
  readonly code: string;
  readonly message: string;
  /** 1-based line of the failure, when the source has positions. */
  readonly line: number | null;
  /** 1-based column of the failure, likewise. */
  readonly column: number | null;
}

/**
 * What one validation found; frozen. A document that cannot be parsed is not an exception:
 * its report is invalid, with `loadError` set and the failure among `diagnostics`.
 */
export declare class Report {
  private constructor();
  /** No error findings, and the document could be read (warnings are allowed). */
  readonly valid: boolean;
  /** The name the document is known by: the file path, or the `path` option. */
  readonly path: string | null;
  readonly kind: Kind;
  /** The version of the catalogue release that judged the document. */
  readonly release: string;
  /** Every finding, in a stable order: position, pointer, rule, message. */
  readonly diagnostics: readonly Diagnostic[];
  /** Set when the document could not be read at all. */
  readonly loadError: LoadFailure | null;
  /** The findings of severity `error`. */
  get errors(): Diagnostic[];
  /** The findings of severity `warning`. */
  get warnings(): Diagnostic[];
}

/** How an engine is built; the default is the embedded catalogue with every rule. */
export interface EngineOptions {
  /**
   * A rules directory, or several, replacing the embedded catalogue (each holds a
   * `catalogue.yaml`; several load side by side as releases).
   */
  rules?: PathLike | readonly PathLike[] | null | undefined;
  /** Evaluate only for these MCP protocol versions (default: every version the document covers). */
  protocolVersions?: string | readonly string[] | null | undefined;
  /**
   * Judge every document by the release serving this MCP Description version, instead of
   * the one the document's `mcpdesc` member names.
   */
  specVersion?: string | null | undefined;
  /** Rule ids or prefixes (`mcp.elicitation.*`) to run; default: all. */
  select?: string | readonly string[] | null | undefined;
  /** Rule ids or prefixes to skip. */
  ignore?: string | readonly string[] | null | undefined;
  /** Report warnings as errors (the strict profile). */
  strict?: boolean | null | undefined;
  /**
   * Where rule pages live: a template with `{release}`, `{owner}` and `{id}`, or a base URL
   * under which `{release}/{owner}/{id}.md` is appended.
   */
  docsBaseUrl?: string | null | undefined;
  /**
   * A house-rules directory, or several, applied on top of whichever release judges each
   * document (the releases stay those of `rules`).
   */
  extendRules?: PathLike | readonly PathLike[] | null | undefined;
}

/** How one source is read. */
export interface ValidateOptions {
  /** The format to read the source as (default: by the name's extension, else the content). */
  format?: Format | null | undefined;
  /**
   * The name the document is known by: reported as `Report.path`, and its extension picks
   * the format when `format` is not given. For a file it replaces the file's own name.
   */
  path?: PathLike | null | undefined;
}

/** The options of the module-level functions: those of the engine and of the call. */
export interface Options extends EngineOptions, ValidateOptions {}

/**
 * A compiled catalogue of rules and the options it validates with. Build it once and use it
 * for any number of documents, also from several concurrent asynchronous validations.
 *
 * @throws {RuleLoadError} The rule files have problems.
 * @throws {ConfigurationError} An unknown protocol version, or a specification version no
 *   loaded release serves.
 */
export declare class Engine {
  constructor(options?: EngineOptions);
  /** Compiles an engine off the main thread; rejects as the constructor throws. */
  static create(options?: EngineOptions): Promise<Engine>;
  /**
   * Validates one document or capture on the calling thread.
   *
   * @throws {ConfigurationError} `format` is not a known format.
   * @throws {TypeError} `source` or an option is of another type, or a decoded document
   *   holds a value JSON cannot represent.
   * @throws {NodeJS.ErrnoException} A `file:` URL source cannot be read (`code` `ENOENT`, ...).
   */
  validate(source: Source, options?: ValidateOptions): Report;
  /** `validate` on the libuv thread pool; rejects with the errors `validate` throws. */
  validateAsync(source: Source, options?: ValidateOptions): Promise<Report>;
  /** Reads a file and validates it; its format follows `format`, else its name, else its content. */
  validateFile(path: PathLike, options?: ValidateOptions): Report;
  /** `validateFile` on the libuv thread pool, the file read there too. */
  validateFileAsync(path: PathLike, options?: ValidateOptions): Promise<Report>;
  /** The catalogue releases this engine serves, oldest first. */
  readonly releases: string[];
  /** The protocol versions of the engine's default release, oldest first. */
  readonly protocolVersions: string[];
}

/**
 * Validates one document or capture with the engine the options name. Engines are compiled
 * on first use and kept (the 32 most recently used), so repeated calls cost only the
 * validation. See `Engine` for what it throws.
 */
export declare function validate(source: Source, options?: Options): Report;
/** `validate` off the main thread: compilation and validation run on the libuv thread pool. */
export declare function validateAsync(source: Source, options?: Options): Promise<Report>;
export declare function validateFile(path: PathLike, options?: Options): Report;
export declare function validateFileAsync(path: PathLike, options?: Options): Promise<Report>;
/** Forgets the engines the module-level functions compiled, e.g. after rule files changed. */
export declare function clearEngineCache(): void;

/** The version of this package and of its engine. */
export declare const version: string;

/**
 * Runs the `mcpdesc` command line in this process with `argv`, its arguments without the
 * program name (`['validate', 'server.yaml']`), and returns its exit status: 0 valid, 1
 * findings, 2 usage, I/O or rule errors. It writes to the process's standard output and
 * error, reads its standard input, and blocks until the command ends.
 */
export declare function runCli(argv: readonly string[]): number;

/** The code of each error this package throws about rules and options. */
export type ErrorCode =
  | 'ERR_MCPDESC_RULES'
  | 'ERR_MCPDESC_UNKNOWN_PROTOCOL_VERSION'
  | 'ERR_MCPDESC_UNSERVED_SPEC_VERSION'
  | 'ERR_MCPDESC_UNKNOWN_FORMAT';

/** The base of the errors this package throws about rules and options. */
export declare class McpdescError extends Error {
  protected constructor(message: string, code: ErrorCode);
  readonly code: ErrorCode;
}

/** One problem of a rule file, at its 1-based line and column. */
export interface RuleProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** The rule files of a `rules` directory have problems; the message lists each `file:line:column: message`. */
export declare class RuleLoadError extends McpdescError {
  constructor(problems: Iterable<RuleProblem>);
  readonly code: 'ERR_MCPDESC_RULES';
  readonly problems: readonly RuleProblem[];
}

/**
 * An option names something the catalogue does not have: an unknown protocol version, a
 * specification version no loaded release serves, or an unknown format.
 */
export declare class ConfigurationError extends McpdescError {
  private constructor();
  readonly code:
    | 'ERR_MCPDESC_UNKNOWN_PROTOCOL_VERSION'
    | 'ERR_MCPDESC_UNSERVED_SPEC_VERSION'
    | 'ERR_MCPDESC_UNKNOWN_FORMAT';
  /** The option at fault. */
  readonly option: 'protocolVersions' | 'specVersion' | 'format';
  /** The value that names nothing known. */
  readonly value: string | null;
  /** What is known instead, for people: e.g. `2024-11-05, 2025-03-26, ...`. */
  readonly supported: string | null;
}

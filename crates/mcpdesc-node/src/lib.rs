//! The native half of the `mcpdesc` Node package: one compiled engine class over
//! `mcpdesc-embed`. `index.js` wraps it in the public API.
//!
//! Nothing here throws for a problem of the caller's making (bad rule files, an unknown
//! protocol version, an unreadable file): every function answers with either a report or a
//! failure object, and `index.js` throws the matching error class. A napi error carries only a
//! message, and the failure objects keep the fields the error classes expose (the rule
//! problems, the path and errno of a file).

use std::path::PathBuf;
use std::sync::Arc;

use mcpdesc_embed::{Error, Input, InputFormat, Options, Outcome, Validator};
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::{Env, Task};
use napi_derive::napi;

/// The engine options, normalized by `index.js`.
#[napi(object)]
pub struct NativeOptions {
    pub rules: Vec<String>,
    pub spec_version: Option<String>,
    pub protocol_versions: Vec<String>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub strict: bool,
    pub docs_base_url: Option<String>,
    pub extend_rules: Vec<String>,
}

impl From<NativeOptions> for Options {
    fn from(o: NativeOptions) -> Options {
        Options {
            rules: o.rules.into_iter().map(PathBuf::from).collect(),
            extend_rules: o.extend_rules.into_iter().map(PathBuf::from).collect(),
            spec_version: o.spec_version,
            protocol_versions: o.protocol_versions,
            select: o.select,
            ignore: o.ignore,
            strict: o.strict,
            docs_base_url: o.docs_base_url,
            limits: None,
        }
    }
}

/// One finding; `null` rather than absent members, so that every report has one shape.
#[napi(object, use_nullable = true, object_from_js = false)]
pub struct NativeFinding {
    pub rule: String,
    pub severity: &'static str,
    pub message: String,
    pub pointer: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub versions: Vec<String>,
    pub doc_url: Option<String>,
}

#[napi(object, use_nullable = true, object_from_js = false)]
pub struct NativeLoadFailure {
    pub code: &'static str,
    pub message: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

#[napi(object, use_nullable = true, object_from_js = false)]
pub struct NativeReport {
    pub valid: bool,
    pub path: Option<String>,
    pub kind: &'static str,
    pub release: String,
    pub diagnostics: Vec<NativeFinding>,
    pub load_error: Option<NativeLoadFailure>,
}

#[napi(object, object_from_js = false)]
pub struct NativeRuleProblem {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Why nothing was validated. `failure` names the case: `rules`, `spec-version`,
/// `protocol-version`, `format` or `io`; the other members are those of that case.
#[napi(object, object_from_js = false)]
pub struct NativeFailure {
    pub failure: &'static str,
    pub message: String,
    pub problems: Option<Vec<NativeRuleProblem>>,
    /// The option value that names nothing known (a protocol version, a specification
    /// version, a format), and what is known instead.
    pub requested: Option<String>,
    pub supported: Option<String>,
    pub path: Option<String>,
    /// The OS error number of an unreadable file, when the OS gave one.
    pub errno: Option<i32>,
    /// The Node-style code of an unreadable file (`ENOENT`, ...) as far as the error kind
    /// tells; `index.js` prefers the name of `errno` where the OS numbers are libuv's.
    pub code: Option<&'static str>,
}

impl NativeFailure {
    fn of(failure: &'static str, message: String) -> NativeFailure {
        NativeFailure {
            failure,
            message,
            problems: None,
            requested: None,
            supported: None,
            path: None,
            errno: None,
            code: None,
        }
    }
}

impl From<Error> for NativeFailure {
    fn from(e: Error) -> NativeFailure {
        let message = e.to_string();
        match e {
            Error::Rules { problems } => NativeFailure {
                problems: Some(
                    problems
                        .into_iter()
                        .map(|p| NativeRuleProblem {
                            file: p.file,
                            line: p.line,
                            column: p.column,
                            message: p.message,
                        })
                        .collect(),
                ),
                ..NativeFailure::of("rules", message)
            },
            Error::UnservedSpecVersion {
                requested,
                supported,
            } => NativeFailure {
                requested: Some(requested),
                supported: Some(supported),
                ..NativeFailure::of("spec-version", message)
            },
            Error::UnknownProtocolVersion(e) => NativeFailure {
                requested: Some(e.version),
                supported: Some(e.known.join(", ")),
                ..NativeFailure::of("protocol-version", message)
            },
            Error::UnknownFormat(name) => NativeFailure {
                requested: Some(name),
                supported: Some("json, yaml, capture".to_owned()),
                ..NativeFailure::of("format", message)
            },
            Error::Io {
                path, kind, errno, ..
            } => NativeFailure {
                path: Some(path),
                errno,
                code: Some(io_code(kind)),
                ..NativeFailure::of("io", message)
            },
        }
    }
}

/// The errno name Node gives the error kinds a file read can end with.
fn io_code(kind: std::io::ErrorKind) -> &'static str {
    use std::io::ErrorKind as K;
    match kind {
        K::NotFound => "ENOENT",
        K::PermissionDenied => "EACCES",
        K::IsADirectory => "EISDIR",
        K::NotADirectory => "ENOTDIR",
        K::InvalidFilename => "ENAMETOOLONG",
        K::Interrupted => "EINTR",
        K::OutOfMemory => "ENOMEM",
        K::InvalidInput => "EINVAL",
        _ => "EIO",
    }
}

type Answer = Either<NativeReport, NativeFailure>;

fn answer(result: Result<Outcome, Error>) -> Answer {
    match result {
        Ok(outcome) => Either::A(report(outcome)),
        Err(e) => Either::B(e.into()),
    }
}

fn report(outcome: Outcome) -> NativeReport {
    NativeReport {
        valid: outcome.valid,
        path: outcome.path,
        kind: outcome.kind,
        release: outcome.release,
        diagnostics: outcome
            .diagnostics
            .into_iter()
            .map(|d| NativeFinding {
                rule: d.rule,
                severity: d.severity,
                message: d.message,
                pointer: d.pointer,
                line: d.line,
                column: d.column,
                versions: d.versions,
                doc_url: d.doc_url,
            })
            .collect(),
        load_error: outcome.load_error.map(|e| NativeLoadFailure {
            code: e.code,
            message: e.message,
            line: e.line,
            column: e.column,
        }),
    }
}

/// A compiled catalogue with its options; validations share it, on any thread.
#[napi]
pub struct NativeEngine {
    inner: Arc<Validator>,
}

/// Compiles an engine on the calling thread.
#[napi]
pub fn compile(options: NativeOptions) -> Either<NativeEngine, NativeFailure> {
    compiled(Validator::new(&options.into()))
}

/// Compiles an engine on the libuv thread pool: reading and checking every rule file is
/// long enough that the event loop should not wait for it.
#[napi]
pub fn compile_async(options: NativeOptions) -> AsyncTask<Compile> {
    AsyncTask::new(Compile {
        options: options.into(),
    })
}

fn compiled(result: Result<Validator, Error>) -> Either<NativeEngine, NativeFailure> {
    match result {
        Ok(v) => Either::A(NativeEngine { inner: Arc::new(v) }),
        Err(e) => Either::B(e.into()),
    }
}

pub struct Compile {
    options: Options,
}

impl Task for Compile {
    type Output = Result<Validator, Error>;
    type JsValue = Either<NativeEngine, NativeFailure>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(Validator::new(&self.options))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(compiled(output))
    }
}

/// A source as taken from JavaScript: owned, so that an asynchronous validation can run on
/// another thread while the caller's values change.
///
/// Text arrives as bytes: `index.js` encodes a string itself, much faster than a napi string
/// conversion.
enum Owned {
    Bytes(Vec<u8>),
    /// JSON text of a decoded value.
    Value(String),
    File(PathBuf),
}

/// One validation, run on the calling thread or on the libuv pool.
pub struct Validation {
    engine: Arc<Validator>,
    source: Owned,
    format: Option<String>,
    name: Option<String>,
}

impl Validation {
    fn run(&self) -> Answer {
        let format = match parse_format(self.format.as_deref()) {
            Ok(f) => f,
            Err(e) => return Either::B(e.into()),
        };
        let name = self.name.as_deref();
        let input = match &self.source {
            Owned::Bytes(bytes) => Input::bytes(bytes),
            Owned::Value(json) => Input::value_json(json),
            Owned::File(path) => Input::file(path),
        };
        answer(
            self.engine
                .validate(&input.with_format(format).with_name(name)),
        )
    }
}

impl Task for Validation {
    // The report is copied into Rust structs on the pool; only the JavaScript objects are
    // made on the main thread.
    type Output = Answer;
    type JsValue = Answer;

    fn compute(&mut self) -> napi::Result<Answer> {
        Ok(self.run())
    }

    fn resolve(&mut self, _env: Env, output: Answer) -> napi::Result<Answer> {
        Ok(output)
    }
}

fn parse_format(format: Option<&str>) -> Result<Option<InputFormat>, Error> {
    format.map(str::parse::<InputFormat>).transpose()
}

#[napi]
impl NativeEngine {
    /// Validates document bytes, read in place.
    #[napi]
    pub fn validate_bytes(
        &self,
        data: &[u8],
        format: Option<String>,
        name: Option<String>,
    ) -> Answer {
        self.in_place(Input::bytes(data), format, name)
    }

    /// The bytes are copied: the buffer may change while the validation runs.
    #[napi]
    pub fn validate_bytes_async(
        &self,
        data: &[u8],
        format: Option<String>,
        name: Option<String>,
    ) -> AsyncTask<Validation> {
        self.later(Owned::Bytes(data.to_vec()), format, name)
    }

    /// Validates the JSON serialization of a value decoded in JavaScript, as UTF-8 (see
    /// `utf8` in `index.js`): a description, or a capture when `format` (or else the name)
    /// says so.
    #[napi]
    pub fn validate_value(
        &self,
        json: &[u8],
        format: Option<String>,
        name: Option<String>,
    ) -> Answer {
        // The encoder writes only UTF-8; the lossy reading is for a caller of the native
        // module itself and borrows the bytes otherwise.
        self.in_place(
            Input::value_json(&String::from_utf8_lossy(json)),
            format,
            name,
        )
    }

    #[napi]
    pub fn validate_value_async(
        &self,
        json: &[u8],
        format: Option<String>,
        name: Option<String>,
    ) -> AsyncTask<Validation> {
        let json = String::from_utf8_lossy(json).into_owned();
        self.later(Owned::Value(json), format, name)
    }

    /// Reads a file and validates it; its format follows `format`, else the name (the path
    /// unless `name` is given), else the content.
    #[napi]
    pub fn validate_file(
        &self,
        path: String,
        format: Option<String>,
        name: Option<String>,
    ) -> Answer {
        self.now(Owned::File(PathBuf::from(path)), format, name)
    }

    #[napi]
    pub fn validate_file_async(
        &self,
        path: String,
        format: Option<String>,
        name: Option<String>,
    ) -> AsyncTask<Validation> {
        self.later(Owned::File(PathBuf::from(path)), format, name)
    }

    /// The catalogue releases this engine serves, oldest first.
    #[napi(getter)]
    pub fn releases(&self) -> Vec<String> {
        self.inner.releases()
    }

    /// The protocol versions of the engine's default release, oldest first.
    #[napi(getter)]
    pub fn protocol_versions(&self) -> Vec<String> {
        self.inner.protocol_versions()
    }
}

impl NativeEngine {
    fn task(&self, source: Owned, format: Option<String>, name: Option<String>) -> Validation {
        Validation {
            engine: Arc::clone(&self.inner),
            source,
            format,
            name,
        }
    }

    /// Validates an input borrowed from the caller's arguments, on the calling thread.
    fn in_place(&self, input: Input<'_>, format: Option<String>, name: Option<String>) -> Answer {
        let format = match parse_format(format.as_deref()) {
            Ok(f) => f,
            Err(e) => return Either::B(e.into()),
        };
        answer(
            self.inner
                .validate(&input.with_format(format).with_name(name.as_deref())),
        )
    }

    fn now(&self, source: Owned, format: Option<String>, name: Option<String>) -> Answer {
        self.task(source, format, name).run()
    }

    fn later(
        &self,
        source: Owned,
        format: Option<String>,
        name: Option<String>,
    ) -> AsyncTask<Validation> {
        AsyncTask::new(self.task(source, format, name))
    }
}

/// Runs the `mcpdesc` command line with `argv` (the program name first) in this process and
/// returns its exit status. It blocks Node's thread until the command ends: the command owns
/// the process's standard streams as the binary does, so its caller, `bin/mcpdesc.js`, has
/// nothing else to run meanwhile.
#[napi]
pub fn run_cli(argv: Vec<String>) -> u32 {
    u32::from(mcpdesc_cli::main_with_args(argv))
}

/// The version of the engine, the package's version.
#[napi]
pub fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

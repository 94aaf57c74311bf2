//! The native half of the `mcpdesc` Python package: one compiled engine type over
//! `mcpdesc-embed`, returning plain tuples that `mcpdesc/__init__.py` turns into the public
//! dataclasses. Every validation and every catalogue compilation runs detached from the
//! interpreter, so other Python threads keep running meanwhile.
//!
//! It also carries the `mcpdesc` command line (its `main` function), which the package's
//! console script runs in the interpreter's process.

use std::ffi::OsString;
use std::path::PathBuf;

use mcpdesc_embed::{Error, Input, InputFormat, Options, Outcome, Validator as Compiled};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyList, PyString, PyTuple};

create_exception!(
    _mcpdesc,
    EngineError,
    PyException,
    "Raised by the native engine with `(code, message, detail)`; `mcpdesc` turns it into its \
     public exceptions."
);

/// A compiled catalogue with its options, shared freely between threads.
#[pyclass(frozen, module = "mcpdesc._mcpdesc")]
struct Validator {
    inner: Compiled,
}

#[pymethods]
impl Validator {
    #[new]
    #[pyo3(signature = (rules, spec_version, protocol_versions, select, ignore, strict, docs_base_url, extend_rules))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        rules: Vec<PathBuf>,
        spec_version: Option<String>,
        protocol_versions: Vec<String>,
        select: Vec<String>,
        ignore: Vec<String>,
        strict: bool,
        docs_base_url: Option<String>,
        extend_rules: Vec<PathBuf>,
    ) -> PyResult<Validator> {
        let options = Options {
            rules,
            extend_rules,
            spec_version,
            protocol_versions,
            select,
            ignore,
            strict,
            docs_base_url,
            limits: None,
        };
        // Compiling a catalogue reads and checks every rule file: long enough that the
        // other threads of the program should not wait for it.
        let inner = py
            .detach(|| Compiled::new(&options))
            .map_err(|e| engine_error(py, &e))?;
        Ok(Validator { inner })
    }

    /// Validates document text.
    #[pyo3(signature = (text, format, name))]
    fn validate_text(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        format: Option<&str>,
        name: Option<PyBackedStr>,
    ) -> PyResult<Py<PyTuple>> {
        let format = parse_format(py, format)?;
        self.run(py, || {
            Input::text(&text)
                .with_format(format)
                .with_name(name.as_deref())
        })
    }

    /// Validates document bytes.
    #[pyo3(signature = (data, format, name))]
    fn validate_bytes(
        &self,
        py: Python<'_>,
        data: PyBackedBytes,
        format: Option<&str>,
        name: Option<PyBackedStr>,
    ) -> PyResult<Py<PyTuple>> {
        let format = parse_format(py, format)?;
        self.run(py, || {
            Input::bytes(&data)
                .with_format(format)
                .with_name(name.as_deref())
        })
    }

    /// Validates the JSON serialization of a value decoded in Python: a description, or a
    /// capture when `format` (or else the name) says so.
    #[pyo3(signature = (json, format, name))]
    fn validate_value(
        &self,
        py: Python<'_>,
        json: PyBackedStr,
        format: Option<&str>,
        name: Option<PyBackedStr>,
    ) -> PyResult<Py<PyTuple>> {
        let format = parse_format(py, format)?;
        self.run(py, || {
            Input::value_json(&json)
                .with_format(format)
                .with_name(name.as_deref())
        })
    }

    /// Reads a file and validates it; its format follows `format`, else the name (`path`
    /// unless `name` is given), else the content.
    #[pyo3(signature = (path, format, name))]
    fn validate_file(
        &self,
        py: Python<'_>,
        path: PathBuf,
        format: Option<&str>,
        name: Option<PyBackedStr>,
    ) -> PyResult<Py<PyTuple>> {
        let format = parse_format(py, format)?;
        self.run(py, || {
            Input::file(&path)
                .with_format(format)
                .with_name(name.as_deref())
        })
    }

    /// The catalogue releases this engine serves, oldest first.
    #[getter]
    fn releases(&self) -> Vec<String> {
        self.inner.releases()
    }

    /// The protocol versions of the default release, oldest first.
    #[getter]
    fn protocol_versions(&self) -> Vec<String> {
        self.inner.protocol_versions()
    }
}

impl Validator {
    /// Validates the input `make` builds, detached from the interpreter.
    fn run<'a>(
        &self,
        py: Python<'_>,
        make: impl FnOnce() -> Input<'a> + Send,
    ) -> PyResult<Py<PyTuple>> {
        match py.detach(|| self.inner.validate(&make())) {
            Ok(outcome) => outcome_tuple(py, outcome),
            Err(e) => Err(engine_error(py, &e)),
        }
    }
}

fn parse_format(py: Python<'_>, format: Option<&str>) -> PyResult<Option<InputFormat>> {
    format
        .map(str::parse::<InputFormat>)
        .transpose()
        .map_err(|e| engine_error(py, &e))
}

/// `EngineError(code, message, detail)`, the detail being what the Python exception needs:
/// the problems of the rule files, `(option, value, supported)` of a configuration error, or
/// `(path, errno)` of an unreadable file.
fn engine_error(py: Python<'_>, error: &Error) -> PyErr {
    let message = error.to_string();
    let configuration = |option: &str, value: &str, supported: String| {
        (option.to_owned(), value.to_owned(), supported)
            .into_pyobject(py)
            .map(|t| t.into_any().unbind())
    };
    let (code, detail): (&str, PyResult<Py<PyAny>>) = match error {
        Error::Rules { problems } => (
            "rules",
            problems
                .iter()
                .map(|p| (p.file.as_str(), p.line, p.column, p.message.as_str()))
                .collect::<Vec<_>>()
                .into_pyobject(py)
                .map(|l| l.into_any().unbind()),
        ),
        Error::UnservedSpecVersion {
            requested,
            supported,
        } => (
            "spec-version",
            configuration("spec_version", requested, supported.clone()),
        ),
        Error::UnknownProtocolVersion(e) => (
            "protocol-version",
            configuration("protocol_versions", &e.version, e.known.join(", ")),
        ),
        Error::UnknownFormat(name) => (
            "format",
            configuration("format", name, "json, yaml, capture".to_owned()),
        ),
        Error::Io { path, errno, .. } => (
            "io",
            (path.as_str(), *errno)
                .into_pyobject(py)
                .map(|t| t.into_any().unbind()),
        ),
    };
    match detail {
        Ok(detail) => EngineError::new_err((code, message, detail)),
        Err(e) => e,
    }
}

/// `(valid, path, kind, release, diagnostics, load_error)`, each diagnostic
/// `(rule, severity, message, pointer, line, column, versions, doc_url)` and the load error
/// `(code, message, line, column)`.
fn outcome_tuple(py: Python<'_>, outcome: Outcome) -> PyResult<Py<PyTuple>> {
    // Severities are three strings repeated on every finding: one object each.
    let severities = [
        PyString::intern(py, "error"),
        PyString::intern(py, "warning"),
        PyString::intern(py, "info"),
    ];
    let severity = |s: &str| match s {
        "error" => severities[0].clone(),
        "warning" => severities[1].clone(),
        "info" => severities[2].clone(),
        other => PyString::new(py, other),
    };
    let diagnostics = PyList::empty(py);
    for d in outcome.diagnostics {
        let versions = PyTuple::new(py, &d.versions)?;
        let item = (
            d.rule,
            severity(d.severity),
            d.message,
            d.pointer,
            d.line,
            d.column,
            versions,
            d.doc_url,
        )
            .into_pyobject(py)?;
        diagnostics.append(item)?;
    }
    let load_error = outcome
        .load_error
        .map(|e| (e.code, e.message, e.line, e.column));
    let tuple = (
        outcome.valid,
        outcome.path,
        PyString::intern(py, outcome.kind),
        outcome.release,
        diagnostics,
        load_error,
    )
        .into_pyobject(py)?;
    Ok(tuple.unbind())
}

/// Runs the `mcpdesc` command line with `argv` (the program name first) and returns its exit
/// status. The whole run is detached from the interpreter: `mcpdesc server` and `check-server`
/// run for as long as their peer does, and other Python threads keep running meanwhile.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| mcpdesc_cli::main_with_args(argv))
}

#[pymodule]
fn _mcpdesc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Validator>()?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

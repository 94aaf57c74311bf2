//! `validate_description` and `validate_capture`: one document, given as text or as a path
//! relative to the server's working directory, validated as `validate` validates it.

use std::path::Path;

use mcpdesc_core::{Engine, Format};
use mcpdesc_project::config;
use mcpdesc_project::findings::Policy;

use super::results::ValidationResult;
use super::State;
use crate::render::FileResult;

/// Where the document comes from: exactly one of the two.
pub(crate) fn source<'a>(
    text: Option<&'a str>,
    path: Option<&'a str>,
) -> Result<Source<'a>, String> {
    match (text, path) {
        (Some(text), None) => Ok(Source::Text(text)),
        (None, Some(path)) if !path.is_empty() => Ok(Source::Path(path)),
        (None, Some(_)) => Err("`path` is empty; give the path of a file".into()),
        (Some(_), Some(_)) => Err("give either `text` or `path`, not both".into()),
        (None, None) => Err("give the document as `text` or its file as `path`".into()),
    }
}

pub(crate) enum Source<'a> {
    Text(&'a str),
    Path(&'a str),
}

/// What the document is: a description in the given format (`None`: by the path's
/// extension, else by the text's content), or a capture.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Description(Option<Format>),
    Capture,
}

/// Validates one document with `engine`; a path that cannot be read is an error, not a
/// finding.
pub(crate) fn validate(
    state: &State,
    engine: &Engine,
    source: Source<'_>,
    kind: Kind,
) -> Result<ValidationResult, String> {
    let limits = engine.limits();
    let (name, bytes) = match source {
        Source::Text(text) => ("<text>".to_owned(), text.as_bytes().to_vec()),
        Source::Path(path) => {
            let bytes = crate::inputs::read_document(Path::new(path), limits.max_input_bytes)
                .map_err(|e| format!("cannot read {}: {e}", crate::render::safe::escape(path)))?;
            (path.to_owned(), bytes)
        }
    };
    let format = match kind {
        Kind::Capture => Format::Capture,
        Kind::Description(Some(format)) => format,
        Kind::Description(None) => {
            let guessed = Format::from_extension(&name)
                .unwrap_or_else(|| crate::inputs::sniff_format(&bytes));
            // A description is never a capture, whatever its name or first line.
            match guessed {
                Format::Capture => Format::Json,
                other => other,
            }
        }
    };
    let report = engine.validate_bytes(&bytes, format);
    let text = mcpdesc_project::findings::source_text(bytes);
    let mut diagnostics = report.diagnostics;
    // In-document suppressions and the configuration's ignores apply as in `validate`.
    let policy = Policy {
        catalogue: engine.catalogue(),
        selection: &state.selection,
        config: state.config.as_deref(),
        strict: false,
    };
    let abs = config::absolute(Path::new(&name));
    let suppressed = policy.apply(&mut diagnostics, &abs, Some(&text), format, limits);
    Ok(ValidationResult::of(vec![FileResult {
        path: name,
        source: None,
        diagnostics,
        load_error: report.load_error,
        io_error: false,
        suppressed,
        baselined: 0,
        release: Some(report.release),
    }]))
}

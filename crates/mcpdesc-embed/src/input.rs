//! What may be validated, and how its format is chosen.

use std::path::Path;
use std::str::FromStr;

use mcpdesc_core::document::{read_bounded, ValueDocument};
use mcpdesc_core::{Document, Engine, Format, Report};

use crate::error::Error;

/// The format an input is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// JSON text.
    Json,
    /// YAML text, restricted to what maps onto JSON.
    Yaml,
    /// A capture of MCP JSON-RPC traffic (newline-delimited JSON, a JSON array of
    /// messages, or one message).
    Capture,
}

impl FromStr for InputFormat {
    type Err = Error;

    fn from_str(name: &str) -> Result<InputFormat, Error> {
        match name.to_ascii_lowercase().as_str() {
            "json" => Ok(InputFormat::Json),
            "yaml" | "yml" => Ok(InputFormat::Yaml),
            "capture" | "traffic" | "ndjson" | "jsonl" => Ok(InputFormat::Capture),
            _ => Err(Error::UnknownFormat(name.to_owned())),
        }
    }
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Format {
        match f {
            InputFormat::Json => Format::Json,
            InputFormat::Yaml => Format::Yaml,
            InputFormat::Capture => Format::Capture,
        }
    }
}

/// One thing to validate, borrowed from the caller.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    source: Source<'a>,
    format: Option<InputFormat>,
    name: Option<&'a str>,
}

#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
    /// JSON text of an already-decoded value (a Python dict, a JavaScript object): its
    /// positions are those of a serialization the user never saw, so none are reported.
    Value(&'a str),
    File(&'a Path),
}

impl<'a> Input<'a> {
    /// Document text.
    pub fn text(text: &'a str) -> Input<'a> {
        Input::of(Source::Text(text))
    }

    /// Document bytes (UTF-8, a byte-order mark allowed).
    pub fn bytes(bytes: &'a [u8]) -> Input<'a> {
        Input::of(Source::Bytes(bytes))
    }

    /// The JSON serialization of a value decoded by the caller (a Python dict, a JavaScript
    /// object); findings carry pointers but no lines. It is a description unless its format,
    /// or else its name, says capture: then a JSON array of messages, or one message.
    pub fn value_json(json: &'a str) -> Input<'a> {
        Input::of(Source::Value(json))
    }

    /// A file, read when validated; its name is the input's name.
    pub fn file(path: &'a Path) -> Input<'a> {
        Input {
            name: path.to_str(),
            ..Input::of(Source::File(path))
        }
    }

    fn of(source: Source<'a>) -> Input<'a> {
        Input {
            source,
            format: None,
            name: None,
        }
    }

    /// Reads the input as `format` (none: by the name's extension, else by its content).
    pub fn with_format(mut self, format: Option<InputFormat>) -> Input<'a> {
        if format.is_some() {
            self.format = format;
        }
        self
    }

    /// The name the input is known by: its format follows its extension, as for files,
    /// and the outcome carries it.
    pub fn with_name(mut self, name: Option<&'a str>) -> Input<'a> {
        if name.is_some() {
            self.name = name;
        }
        self
    }

    /// The name the input is known by: the one given with [`Input::with_name`], else a
    /// file's path when it is valid UTF-8.
    pub fn name(&self) -> Option<&'a str> {
        self.name
    }

    /// The format chosen for `content`: the explicit one, else the name's extension, else
    /// JSON when the content starts like JSON and YAML otherwise.
    fn format_of(&self, content: &[u8]) -> Format {
        if let Some(f) = self.format {
            return f.into();
        }
        if let Some(format) = self.name.and_then(Format::from_extension) {
            return format;
        }
        let first = content
            .strip_prefix("\u{feff}".as_bytes())
            .unwrap_or(content)
            .iter()
            .find(|b| !b.is_ascii_whitespace());
        match first {
            Some(b'{' | b'[') | None => Format::Json,
            Some(_) => Format::Yaml,
        }
    }

    /// Whether a decoded value is a capture: its format says so, or else its name does.
    fn names_a_capture(&self) -> bool {
        match self.format {
            Some(f) => f == InputFormat::Capture,
            None => self
                .name
                .is_some_and(|n| Format::from_extension(n) == Some(Format::Capture)),
        }
    }

    /// Validates the input; also returns the format it was read as and whether its
    /// positions mean anything to the caller.
    pub(crate) fn validate_with(&self, engine: &Engine) -> Result<(Report, Format, bool), Error> {
        let positioned = !matches!(self.source, Source::Value(_));
        let (report, format) = match self.source {
            Source::Text(text) => {
                let format = self.format_of(text.as_bytes());
                (engine.validate_str(text, format), format)
            }
            Source::Bytes(bytes) => {
                let format = self.format_of(bytes);
                (engine.validate_bytes(bytes, format), format)
            }
            Source::Value(json) if self.names_a_capture() => {
                // Its positions are those of a serialization the caller never saw; the
                // outcome drops them.
                (engine.validate_str(json, Format::Capture), Format::Capture)
            }
            Source::Value(json) => {
                let report = match ValueDocument::parse_str(json, Format::Json, engine.limits()) {
                    // Rebuilt without positions, so that findings are ordered as for any
                    // decoded value rather than by the places of a text the caller never saw.
                    Ok(doc) => engine.validate_document(&Document::from_value(doc.value())),
                    // Limits hold for a decoded value as for text.
                    Err(_) => engine.validate_str(json, Format::Json),
                };
                (report, Format::Json)
            }
            Source::File(path) => {
                let bytes = read_bounded(path, engine.limits().max_input_bytes)
                    .map_err(|e| Error::unreadable(path, &e))?;
                let format = self.format_of(&bytes);
                (engine.validate_bytes(&bytes, format), format)
            }
        };
        Ok((report, format, positioned))
    }
}

//! `base64`: a string is base64 (RFC 4648 §4 alphabet, padded).
//!
//! Design: the standard alphabet with `=` padding; the length is a multiple of four, padding
//! only at the end (at most two characters), and with `canonical` (the default) the unused
//! bits of the last encoded character are zero, so every byte string has exactly one accepted
//! encoding. No whitespace is accepted. Decoding is not needed, only validation; the decoded
//! length is available to other checks through [`decoded_len`].

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{EvalCtx, Finding};

fn default_true() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Options {
    /// Require the unused trailing bits to be zero (default true).
    #[serde(default = "default_true")]
    canonical: bool,
}

#[derive(Debug)]
struct Base64 {
    canonical: bool,
}

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "base64",
    summary: "A string is padded base64 in the standard alphabet (canonical trailing bits \
              unless `canonical: false`); other types are left to `type`.",
    params: &["error"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        let o = options::<Options>(m)?;
        Ok(Box::new(Base64 {
            canonical: o.canonical,
        }))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

fn sextet(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Validates `text`; `Ok` holds the decoded length.
pub(crate) fn validate(text: &str, canonical: bool) -> Result<usize, String> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "length {} is not a multiple of 4 (pad with `=`)",
            bytes.len()
        ));
    }
    let pad = bytes.iter().rev().take_while(|&&b| b == b'=').count();
    if pad > 2 {
        return Err("more than two `=` padding characters".into());
    }
    let body = &bytes[..bytes.len() - pad];
    for (i, &b) in body.iter().enumerate() {
        if sextet(b).is_none() {
            return Err(format!(
                "character `{}` at offset {i} is not in the base64 alphabet",
                b as char
            ));
        }
    }
    if canonical && pad > 0 {
        let last = sextet(body[body.len() - 1]).unwrap_or(0);
        let unused = if pad == 1 { 0b11 } else { 0b1111 };
        if last & unused != 0 {
            return Err("the unused bits before the padding are not zero".into());
        }
    }
    Ok(body.len() * 3 / 4)
}

/// The decoded length of valid base64 `text`.
pub(crate) fn decoded_len(text: &str) -> Option<usize> {
    validate(text, false).ok()
}

impl Check for Base64 {
    fn run(&self, node: Node<'_>, _: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        if let Some(s) = node.value.as_str() {
            if let Err(e) = validate(s, self.canonical) {
                out.push(Finding::new(node.pointer).with("error", e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_rejects() {
        assert_eq!(validate("", true), Ok(0));
        assert_eq!(validate("aGk=", true), Ok(2));
        assert_eq!(validate("aGVsbG8=", true), Ok(5));
        assert_eq!(validate("AAEC", true), Ok(3));
        assert!(validate("aGk", true).is_err());
        assert!(validate("aGl=", true).is_err());
        assert!(validate("aGl=", false).is_ok());
        assert!(validate("a===", true).is_err());
        assert!(validate("not base64!", true).is_err());
        assert!(validate("aG k", true).is_err());
        assert_eq!(decoded_len("aGVsbG8="), Some(5));
    }
}

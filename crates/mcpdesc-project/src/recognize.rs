//! Which JSON and YAML files are MCP Description documents or captures, for the language
//! server (editors attach it to every JSON or YAML file) and the command line's directory
//! walks (a repository is full of `package.json`, `tsconfig.json` and OpenAPI files).
//!
//! The decision is made on the document once it is parsed, so that a file is read and
//! parsed once whether it turns out to be ours or not; only a file that does not parse is
//! looked at as text, to report the syntax errors of a broken description.

use std::path::Path;

use mcpdesc_core::{Document, Engine, Format};

/// Whether a file named `name` is one of ours by its name alone: a capture (`*.ndjson`,
/// `*.jsonl`, `*.traffic.json`) or a description named `*.mcpdesc.json`/`.yaml`/`.yml` or
/// `mcpdesc.json`/`.yaml`/`.yml`, which is judged even before it names its version.
pub fn is_ours_by_name(name: &str) -> bool {
    if Format::from_extension(name) == Some(Format::Capture) {
        return true;
    }
    let file = Path::new(name)
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    ["json", "yaml", "yml"]
        .iter()
        .any(|e| file.ends_with(&format!(".mcpdesc.{e}")) || file == format!("mcpdesc.{e}"))
}

/// Whether a parsed document is one the catalogue judges: a capture, a document named as
/// [`is_ours_by_name`] says, or one that names its specification version where a release of
/// the catalogue looks for it (`spec-version-pointer`, the top-level `mcpdesc` member).
pub fn is_ours(engine: &Engine, doc: &Document<'_>, name: &str) -> bool {
    doc.format() == Format::Capture
        || is_ours_by_name(name)
        || engine.releases().releases().iter().any(|c| {
            c.def
                .spec_version_pointer
                .as_deref()
                .is_some_and(|p| doc.root().pointer(p).is_some())
        })
}

/// For a text that does not parse: whether it looks like one of ours all the same, so that
/// its syntax errors are reported rather than the file passed over. A broken file that never
/// mentions the member naming the specification version is taken for someone else's.
pub fn may_be_ours(engine: &Engine, text: &str, name: &str) -> bool {
    is_ours_by_name(name)
        || engine.releases().releases().iter().any(|c| {
            c.def
                .spec_version_pointer
                .as_deref()
                .and_then(mcpdesc_core::document::pointer::last)
                .is_some_and(|member| text.contains(member.as_ref()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        crate::engine::load_extended(&[], &[], None).expect("the embedded catalogue loads")
    }

    fn parse(text: &str, format: Format) -> Document<'_> {
        Document::parse_str(text, format, &mcpdesc_core::Limits::default()).unwrap()
    }

    #[test]
    fn a_description_is_recognised_by_its_version_member() {
        let e = engine();
        let doc = parse("mcpdesc: 0.8.0\ninfo: {}\n", Format::Yaml);
        assert!(is_ours(&e, &doc, "specs/server.yaml"));
    }

    #[test]
    fn other_json_and_yaml_are_not() {
        let e = engine();
        let pkg = parse(r#"{"name": "x", "version": "1.0.0"}"#, Format::Json);
        assert!(!is_ours(&e, &pkg, "package.json"));
        let openapi = parse("openapi: 3.1.0\ninfo: {title: x}\n", Format::Yaml);
        assert!(!is_ours(&e, &openapi, "openapi.yaml"));
        // Nested `mcpdesc` members are not the top-level one.
        let nested = parse(r#"{"x": {"mcpdesc": "0.8.0"}}"#, Format::Json);
        assert!(!is_ours(&e, &nested, "x.json"));
    }

    #[test]
    fn names_and_captures_are_recognised_without_content() {
        let e = engine();
        let empty = parse("{}", Format::Json);
        assert!(is_ours(&e, &empty, "dir/Server.MCPDESC.json"));
        assert!(is_ours(&e, &empty, "mcpdesc.yml"));
        assert!(!is_ours(&e, &empty, "notmcpdesc.json"));
        assert!(is_ours_by_name("traffic/session.ndjson"));
        assert!(is_ours_by_name("a.traffic.json"));
    }

    #[test]
    fn broken_text_is_ours_when_it_mentions_the_version_member() {
        let e = engine();
        assert!(may_be_ours(&e, "{\"mcpdesc\": \"0.8.0\",", "a.json"));
        assert!(!may_be_ours(&e, "{\"name\": ", "package.json"));
        assert!(may_be_ours(&e, "{", "a.mcpdesc.json"));
    }
}

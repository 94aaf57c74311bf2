//! The flat API as the language packages use it.

use std::path::{Path, PathBuf};

use mcpdesc_embed::{Error, Input, InputFormat, Options, Validator};

const VALID: &str = r#"{"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
  "protocolVersions": ["2025-11-25"]}"#;

/// A tool with a member the closed Tool object does not define, on line 5.
const BAD_TOOL: &str = "mcpdesc: 0.8.0\ninfo: {name: demo, version: 1.0.0}\ntools:\n  - name: demo_tool\n    bogus: 1\n    inputSchema: {type: object}\nprotocolVersions: ['2025-11-25']\n";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator(options: Options) -> Validator {
    Validator::new(&options).expect("validator")
}

#[test]
fn text_is_judged_with_positions() {
    let v = validator(Options::default());
    let ok = v.validate(&Input::text(VALID)).unwrap();
    assert!(ok.valid, "{:?}", ok.diagnostics);
    assert_eq!(ok.release, "0.8.0");
    assert_eq!(ok.kind, "description");

    let bad = v.validate(&Input::text(BAD_TOOL)).unwrap();
    assert!(!bad.valid);
    let d = bad
        .diagnostics
        .iter()
        .find(|d| d.rule == "mcpdesc.tool.closed")
        .unwrap_or_else(|| panic!("no finding of the closed tool: {:?}", bad.diagnostics));
    assert_eq!(d.pointer, "/tools/0/bogus");
    assert_eq!((d.line, d.column), (Some(5), Some(5)));
    assert_eq!(d.severity, "error");
    // The embedded catalogue's `docs-url` is a path inside the repository, which is no link.
    assert_eq!(d.doc_url, None);
}

#[test]
fn a_decoded_value_has_pointers_but_no_lines() {
    let v = validator(Options::default());
    let json = serde_json::to_string(&serde_json::json!({
        "mcpdesc": "0.8.0", "info": {"name": "demo"}, "protocolVersions": ["2025-11-25"]
    }))
    .unwrap();
    let out = v.validate(&Input::value_json(&json)).unwrap();
    assert!(!out.valid);
    assert!(!out.diagnostics.is_empty());
    for d in &out.diagnostics {
        assert_eq!((d.line, d.column), (None, None), "{d:?}");
        assert!(d.pointer.is_empty() || d.pointer.starts_with('/'));
    }
}

#[test]
fn format_follows_the_name_then_the_content() {
    let v = validator(Options::default());
    let yaml = v.validate(&Input::text(BAD_TOOL)).unwrap();
    assert!(
        yaml.load_error.is_none(),
        "YAML is sniffed: {:?}",
        yaml.load_error
    );
    // Named `.json`, YAML text is a syntax error at a position.
    let named = v
        .validate(&Input::text(BAD_TOOL).with_name(Some("server.json")))
        .unwrap();
    let failure = named.load_error.expect("a load failure");
    assert_eq!(failure.line, Some(1));
    assert!(!named.valid);
    assert_eq!(named.path.as_deref(), Some("server.json"));
    // An explicit format wins over the name.
    let explicit = v
        .validate(
            &Input::text(BAD_TOOL)
                .with_name(Some("server.json"))
                .with_format(Some("yaml".parse().unwrap())),
        )
        .unwrap();
    assert!(explicit.load_error.is_none());
    // A name with no extension of a known format leaves the choice to the content.
    for name in ["server", "server.txt", "Dockerfile"] {
        let sniffed = v
            .validate(&Input::text(BAD_TOOL).with_name(Some(name)))
            .unwrap();
        assert!(
            sniffed.load_error.is_none(),
            "{name}: {:?}",
            sniffed.load_error
        );
        assert_eq!(sniffed.path.as_deref(), Some(name));
    }
    assert_eq!(
        "nope".parse::<InputFormat>(),
        Err(Error::UnknownFormat("nope".into()))
    );
}

#[test]
fn files_and_bytes() {
    let v = validator(Options::default());
    let example = workspace().join("docs/examples/weather-server.yaml");
    let out = v.validate(&Input::file(&example)).unwrap();
    assert!(out.valid, "{:?}", out.diagnostics);
    assert!(out.path.unwrap().ends_with("weather-server.yaml"));
    let bytes = std::fs::read(&example).unwrap();
    let from_bytes = v.validate(&Input::bytes(&bytes)).unwrap();
    assert_eq!(
        from_bytes.diagnostics,
        v.validate(&Input::file(&example)).unwrap().diagnostics
    );
    let missing = v.validate(&Input::file(Path::new("/nonexistent/x.json")));
    assert!(
        matches!(
            &missing,
            Err(Error::Io {
                kind: std::io::ErrorKind::NotFound,
                errno: Some(2),
                ..
            })
        ),
        "{missing:?}"
    );
}

#[test]
fn captures_are_traffic() {
    let v = validator(Options::default());
    let capture = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        "\n"
    );
    let out = v
        .validate(&Input::text(capture).with_format(Some(InputFormat::Capture)))
        .unwrap();
    assert_eq!(out.kind, "traffic");
    assert!(out.valid, "{:?}", out.diagnostics);

    // A decoded capture (a JSON array of messages) is a capture by its format or its name,
    // and its findings carry no positions.
    let broken = r#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}},{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}]"#;
    for input in [
        Input::value_json(broken).with_format(Some(InputFormat::Capture)),
        Input::value_json(broken).with_name(Some("session.ndjson")),
        Input::value_json(broken).with_name(Some("SESSION.TRAFFIC.JSON")),
    ] {
        let out = v.validate(&input).unwrap();
        assert_eq!(out.kind, "traffic", "{input:?}");
        assert!(!out.valid);
        assert!(!out.diagnostics.is_empty());
        assert!(out
            .diagnostics
            .iter()
            .all(|d| d.line.is_none() && d.pointer.starts_with("/messages/")));
    }
    // Named like a YAML file, a decoded value is still read as its JSON serialization.
    let described = v
        .validate(
            &Input::value_json(r#"{"mcpdesc":"0.8.0","info":{"name":"d","version":"1.0.0"},"protocolVersions":["2025-11-25"]}"#)
                .with_name(Some("server.yaml")),
        )
        .unwrap();
    assert_eq!(described.kind, "description");
    assert!(described.valid, "{:?}", described.diagnostics);
}

#[test]
fn options_select_versions_rules_and_strictness() {
    let all = validator(Options::default());
    let base = all.validate(&Input::text(BAD_TOOL)).unwrap();
    let first = base.diagnostics[0].rule.clone();
    let ignored = validator(Options {
        ignore: vec![first.clone()],
        ..Options::default()
    })
    .validate(&Input::text(BAD_TOOL))
    .unwrap();
    assert!(ignored.diagnostics.iter().all(|d| d.rule != first));

    assert!(matches!(
        Validator::new(&Options {
            protocol_versions: vec!["1999-01-01".into()],
            ..Options::default()
        }),
        Err(Error::UnknownProtocolVersion(_))
    ));
    let one = validator(Options {
        protocol_versions: vec!["2025-11-25".into()],
        ..Options::default()
    });
    assert!(one.validate(&Input::text(VALID)).unwrap().valid);

    match Validator::new(&Options {
        spec_version: Some("0.1.0".into()),
        ..Options::default()
    }) {
        Err(e @ Error::UnservedSpecVersion { .. }) => assert!(e.to_string().contains("0.8.0")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn strict_promotes_warnings() {
    // A version that is not semver is a warning of 0.8.0.
    let text = VALID.replace("1.0.0", "one");
    let lenient = validator(Options::default())
        .validate(&Input::text(&text))
        .unwrap();
    assert!(lenient.valid && lenient.count("warning") > 0, "{lenient:?}");
    let strict = validator(Options {
        strict: true,
        ..Options::default()
    })
    .validate(&Input::text(&text))
    .unwrap();
    assert!(!strict.valid);
    assert_eq!(strict.count("warning"), 0);
    assert_eq!(
        strict.count("error"),
        lenient.count("warning") + lenient.count("error")
    );
}

#[test]
fn strict_leaves_a_note_on_the_validation_itself_a_warning() {
    // A legacy revision is only partly checked: the rules say so, and the document is not
    // at fault for it, strict or not.
    let text = VALID.replace(r#"["2025-11-25"]"#, r#"["2024-11-05", "2025-11-25"]"#);
    let strict = validator(Options {
        strict: true,
        ..Options::default()
    })
    .validate(&Input::text(&text))
    .unwrap();
    assert!(strict.valid, "{strict:?}");
    assert_eq!(strict.count("error"), 0, "{strict:?}");
    assert_eq!(strict.count("warning"), 1, "{strict:?}");
}

#[test]
fn rule_directories_replace_the_catalogue_and_report_positions() {
    let fictional = workspace().join("crates/mcpdesc-core/tests/releases/fictional");
    let v = validator(Options {
        rules: vec![fictional],
        ..Options::default()
    });
    assert!(v.releases().len() >= 2, "{:?}", v.releases());

    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        workspace().join("rules/catalogue.yaml"),
        dir.path().join("catalogue.yaml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("broken.yaml"),
        "rules:\n  - id: x.y\n    check: {function: no-such-function}\n",
    )
    .unwrap();
    match Validator::new(&Options {
        rules: vec![dir.path().to_path_buf()],
        ..Options::default()
    }) {
        Err(Error::Rules { problems }) => {
            assert!(!problems.is_empty());
            assert!(problems
                .iter()
                .any(|p| p.file.ends_with("broken.yaml") && p.line > 0));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_docs_base_makes_links_absolute() {
    let v = validator(Options {
        docs_base_url: Some("https://example.org/rules/".into()),
        ..Options::default()
    });
    let out = v.validate(&Input::text(BAD_TOOL)).unwrap();
    for d in &out.diagnostics {
        let url = d.doc_url.as_deref().unwrap();
        assert!(url.starts_with("https://example.org/rules/0.8.0/"), "{url}");
        assert!(url.ends_with(&format!("/{}.md", d.rule)), "{url}");
    }
}

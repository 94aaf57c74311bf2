//! Hostile inputs: every case runs the built `mcpdesc` binary under a time bound and an
//! address-space bound, and must end with exit code 1 or 2 (0 where the input is fine) and a
//! clear message: no panic, no abort or signal, no stack overflow, no kill.
//!
//! `docs/robustness.md` lists every case and its outcome.

use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Wall-clock bound of one run.
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// Address-space bound of one run (`ulimit -v`, in KiB): 2 GiB.
const MEMORY_LIMIT_KIB: u64 = 2 * 1024 * 1024;

struct Outcome {
    code: i32,
    out: String,
    elapsed: Duration,
}

/// Runs `mcpdesc args…` under the bounds; fails the test on a timeout, a signal or panic text.
#[track_caller]
fn run(args: &[&str]) -> Outcome {
    run_within(args, TIME_LIMIT)
}

#[track_caller]
fn run_within(args: &[&str], time_limit: Duration) -> Outcome {
    let start = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    let (stdout, stderr) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_mcpdesc"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr).expect("stderr file"))
        .spawn()
        .expect("spawn mcpdesc");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > time_limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcpdesc {args:?} ran longer than {time_limit:?}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    let read = |p: &Path| {
        let bytes = std::fs::read(p).unwrap_or_default();
        String::from_utf8_lossy(&bytes[..bytes.len().min(4 * 1024 * 1024)]).into_owned()
    };
    let out = format!("{}{}", read(&stdout), read(&stderr));
    let Some(code) = status.code() else {
        panic!("mcpdesc {args:?} was ended by a signal ({status:?}):\n{out}");
    };
    for bad in [
        "panicked",
        "stack overflow",
        "memory allocation",
        "RUST_BACKTRACE",
    ] {
        assert!(
            !out.contains(bad),
            "mcpdesc {args:?} printed `{bad}`:\n{out}"
        );
    }
    Outcome {
        code,
        out,
        elapsed: start.elapsed(),
    }
}

/// Validates `file` (plus `flags`) and expects a refusal (exit 1 or 2) whose output
/// contains every one of `expected`.
#[track_caller]
fn refused(file: &Path, flags: &[&str], expected: &[&str]) -> Outcome {
    let path = file.to_str().expect("utf-8 path");
    let mut args = vec!["validate", path];
    args.extend_from_slice(flags);
    let outcome = run(&args);
    assert!(
        outcome.code == 1 || outcome.code == 2,
        "exit code {} for {path}:\n{}",
        outcome.code,
        outcome.out
    );
    for e in expected {
        assert!(
            outcome.out.contains(e),
            "expected `{e}` for {}:\n{}",
            file.display(),
            excerpt(&outcome.out)
        );
    }
    outcome
}

fn excerpt(s: &str) -> &str {
    let mut end = s.len().min(4000);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new() -> Scratch {
        Scratch(tempfile::tempdir().expect("tempdir"))
    }

    fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, contents).expect("write");
        path
    }
}

/// A valid document with `extra` members spliced into the root object.
fn doc_with(extra: &str) -> String {
    format!(
        r#"{{"mcpdesc": "0.8.0", "info": {{"name": "hostile", "version": "1.0.0"}},
            "protocolVersions": ["2025-11-25"]{}{extra}}}"#,
        if extra.is_empty() { "" } else { ", " }
    )
}

// ---------------------------------------------------------------------------------------------
// YAML

#[test]
fn yaml_alias_bomb() {
    let mut y = String::from("a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    let mut prev = 'a';
    for c in 'b'..='j' {
        let _ = writeln!(
            y,
            "{c}: &{c} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]"
        );
        prev = c;
    }
    let s = Scratch::new();
    refused(
        &s.file("bomb.yaml", y),
        &[],
        &["anchors and aliases are not allowed", "1:"],
    );
}

#[test]
fn yaml_merge_key_bomb() {
    let mut y = String::from("base: &b0 {k0: v, k1: v, k2: v, k3: v}\n");
    for i in 1..20 {
        let _ = writeln!(
            y,
            "m{i}: &b{i}\n  <<: [*b{}, *b{}]\n  x{i}: v",
            i - 1,
            i - 1
        );
    }
    let s = Scratch::new();
    refused(
        &s.file("merge.yaml", y),
        &[],
        &["anchors and aliases are not allowed"],
    );
}

#[test]
fn yaml_merge_key_without_aliases_is_a_plain_key() {
    let s = Scratch::new();
    let y = "mcpdesc: 0.8.0\ninfo: {name: x, version: 1.0.0}\nprotocolVersions: [2025-11-25]\n\
             x-merge:\n  <<: {a: 1}\n";
    let out = run(&["validate", s.file("merge.yaml", y).to_str().unwrap()]);
    assert!(out.code <= 1, "{}", out.out);
}

#[test]
fn yaml_deep_flow_sequences() {
    let s = Scratch::new();
    let n = 100_000;
    let y = format!("{}{}", "[".repeat(n), "]".repeat(n));
    refused(&s.file("deep.yaml", y), &[], &["nested", "1:"]);
}

#[test]
fn yaml_deep_flow_mappings() {
    let s = Scratch::new();
    let n = 100_000;
    let y = format!("{}1{}", "{a: ".repeat(n), "}".repeat(n));
    refused(&s.file("deep.yaml", y), &[], &["nested", "1:"]);
}

#[test]
fn yaml_deep_block_sequences() {
    let s = Scratch::new();
    // `- - - … x`: block sequences nested 100,000 deep on one line.
    let y = format!("{}x\n", "- ".repeat(100_000));
    refused(&s.file("deep.yaml", y), &[], &["max-depth", "--max-depth"]);
}

#[test]
fn yaml_deep_block_mappings() {
    let s = Scratch::new();
    // Block mappings need one more column per level, so the file grows with the square of the
    // depth: 5,000 levels is 12.5 MB. The loader stops at `max-depth` either way.
    let mut y = String::with_capacity(13_000_000);
    for i in 0..5_000 {
        y.push_str(&" ".repeat(i));
        y.push_str("a:\n");
    }
    refused(&s.file("deep.yaml", y), &[], &["max-depth", "--max-depth"]);
}

#[test]
fn yaml_custom_tags() {
    let s = Scratch::new();
    for (name, y) in [
        ("local.yaml", "mcpdesc: !evil 0.8.0\n"),
        ("global.yaml", "mcpdesc: !!python/object:os.system 0.8.0\n"),
        (
            "verbatim.yaml",
            "mcpdesc: !<tag:example.com,2000:x> 0.8.0\n",
        ),
    ] {
        refused(&s.file(name, y), &[], &["tag", "is not allowed", "1:10"]);
    }
}

#[test]
fn yaml_duplicate_keys() {
    let s = Scratch::new();
    refused(
        &s.file("dup.yaml", "mcpdesc: 0.8.0\nmcpdesc: 0.9.0\n"),
        &[],
        &["duplicate key `mcpdesc`", "2:1"],
    );
}

#[test]
fn yaml_non_string_keys() {
    let s = Scratch::new();
    for (name, y) in [
        ("int.yaml", "1: a\n"),
        ("null.yaml", "~: a\n"),
        ("seq.yaml", "[a]: b\n"),
        ("map.yaml", "? {a: 1}\n: b\n"),
    ] {
        refused(&s.file(name, y), &[], &["mapping key is not a string"]);
    }
}

#[test]
fn yaml_several_documents() {
    let s = Scratch::new();
    refused(
        &s.file("multi.yaml", "mcpdesc: 0.8.0\n---\nmcpdesc: 0.8.0\n"),
        &[],
        &["more than one document", "2:1"],
    );
}

#[test]
fn utf8_bom_is_skipped() {
    let s = Scratch::new();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(doc_with("").as_bytes());
    let out = run(&["validate", s.file("bom.json", &bytes).to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.out);
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(
        b"mcpdesc: 0.8.0\ninfo: {name: x, version: 1.0.0}\nprotocolVersions: [2025-11-25]\n",
    );
    let out = run(&["validate", s.file("bom.yaml", &bytes).to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.out);
}

#[test]
fn utf16_bom_is_refused() {
    let s = Scratch::new();
    for (name, bom) in [("le.yaml", b"\xFF\xFE"), ("be.json", b"\xFE\xFF")] {
        let mut bytes = bom.to_vec();
        for c in "mcpdesc: 0.8.0\n".encode_utf16() {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
        refused(&s.file(name, &bytes), &[], &["not valid UTF-8", "1:1"]);
    }
}

#[test]
fn invalid_utf8() {
    let s = Scratch::new();
    refused(
        &s.file("bad.yaml", b"mcpdesc: 0.8.0\ninfo: \xC3\x28\n"),
        &[],
        &["not valid UTF-8", "2:7"],
    );
    refused(
        &s.file("bad.json", b"{\"a\": \"\xFF\"}"),
        &[],
        &["not valid UTF-8", "1:8"],
    );
}

#[test]
fn yaml_50_mb_scalar() {
    let s = Scratch::new();
    let mut y = String::with_capacity(50 * 1024 * 1024 + 16);
    y.push_str("mcpdesc: ");
    y.push_str(&"a".repeat(50 * 1024 * 1024));
    y.push('\n');
    refused(
        &s.file("big.yaml", y),
        &[],
        &["max-scalar-bytes", "--max-scalar-bytes", "1:10"],
    );
}

// ---------------------------------------------------------------------------------------------
// JSON

#[test]
fn json_deep_nesting() {
    let s = Scratch::new();
    let n = 100_000;
    refused(
        &s.file("deep.json", format!("{}{}", "[".repeat(n), "]".repeat(n))),
        &[],
        &["max-depth (256)", "--max-depth", "1:257"],
    );
    refused(
        &s.file(
            "deep-obj.json",
            format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n)),
        ),
        &[],
        &["max-depth", "--max-depth"],
    );
}

#[test]
fn json_deep_nesting_at_the_depth_ceiling() {
    // The highest depth the flag accepts, with a document that deep: evaluation recurses over
    // it and must stay within the stack.
    let s = Scratch::new();
    let n = 1_000;
    let deep = format!("{}1{}", "{\"a\":".repeat(n - 1), "}".repeat(n - 1));
    let file = s.file("deep.json", doc_with(&format!("\"x-deep\": {deep}")));
    let out = run(&["validate", file.to_str().unwrap(), "--max-depth", "1000"]);
    assert!(out.code <= 1, "{}", out.out);
    let nots = format!("{}{{}}{}", "{\"not\":".repeat(n - 10), "}".repeat(n - 10));
    let file = s.file(
        "deep-schema.json",
        doc_with(&format!(
            r#""tools": [{{"name": "t", "inputSchema": {{"type": "object", "properties": {{"p": {nots}}}}}}}]"#
        )),
    );
    let out = run(&["validate", file.to_str().unwrap(), "--max-depth", "1000"]);
    assert!(out.code <= 1, "{}", out.out);
    let out = run(&["validate", file.to_str().unwrap(), "--max-depth", "1001"]);
    assert_eq!(out.code, 2, "{}", out.out);
}

#[test]
fn json_100_mb_document_is_refused_by_size() {
    let s = Scratch::new();
    let path = s.file("huge.json", "[");
    // A sparse 100 MB file: refused by `max-input-bytes` after reading at most the limit.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_len(100 * 1024 * 1024))
        .expect("grow file");
    refused(&path, &[], &["max-input-bytes", "--max-input-bytes"]);
    let out = refused(
        &path,
        &["--max-input-bytes", "1024"],
        &["max-input-bytes (1024)"],
    );
    assert!(out.elapsed < Duration::from_secs(10));
}

#[test]
fn json_non_finite_literals() {
    let s = Scratch::new();
    for (i, lit) in ["NaN", "Infinity", "-Infinity"].iter().enumerate() {
        refused(
            &s.file(&format!("nf{i}.json"), format!("{{\"a\": {lit}}}")),
            &[],
            &["is not finite", lit, "1:7"],
        );
    }
    refused(
        &s.file("overflow.json", "{\"a\": 1e999}"),
        &[],
        &["is not finite"],
    );
}

#[test]
fn json_duplicate_keys() {
    let s = Scratch::new();
    refused(
        &s.file(
            "dup.json",
            "{\"mcpdesc\": \"0.8.0\",\n \"mcpdesc\": \"0.8.0\"}",
        ),
        &[],
        &["duplicate key `mcpdesc`", "2:2"],
    );
}

#[test]
fn json_lone_surrogates() {
    let s = Scratch::new();
    for (i, text) in [r#""\ud800""#, r#""\udc00""#, r#""\ud800\u0041""#]
        .iter()
        .enumerate()
    {
        refused(
            &s.file(&format!("s{i}.json"), format!("{{\"a\": {text}}}")),
            &[],
            &["unpaired surrogate"],
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Content

const EVIL_PATTERN: &str = "^(a+)+$";

fn evil_instance() -> String {
    format!("{}!", "a".repeat(100_000))
}

#[test]
fn catastrophic_pattern_in_tool_input_schema() {
    let s = Scratch::new();
    let doc = doc_with(&format!(
        r#""tools": [{{
            "name": "evil",
            "inputSchema": {{"type": "object",
                             "properties": {{"q": {{"type": "string", "pattern": "{EVIL_PATTERN}"}}}},
                             "patternProperties": {{"^(a|aa)+$": {{"type": "string"}}}}}},
            "examples": {{"slow": {{"input": {{"q": "{}"}}}}}}
        }}]"#,
        evil_instance()
    ));
    let out = refused(&s.file("evil.json", doc), &[], &["does not match"]);
    assert!(out.elapsed < Duration::from_secs(20));
}

#[test]
fn catastrophic_pattern_in_elicitation_requested_schema() {
    let s = Scratch::new();
    let schema = format!(
        r#"{{"type": "object", "properties": {{"answer": {{"type": "string", "pattern": "{EVIL_PATTERN}"}}}}}}"#
    );
    let doc = doc_with(&format!(
        r#""tools": [{{
            "name": "ask",
            "inputSchema": {{"type": "object"}},
            "elicitations": [{{"name": "q", "mode": "form", "message": "?", "requestedSchema": {schema}}}],
            "interactionExamples": {{"slow": {{
                "input": {{}},
                "steps": [{{"type": "elicitation", "declaration": "q",
                            "request": {{"mode": "form", "message": "?", "requestedSchema": {schema}}},
                            "response": {{"action": "accept", "content": {{"answer": "{}"}}}}}}],
                "result": {{"content": [{{"type": "text", "text": "ok"}}]}}
            }}}}
        }}]"#,
        evil_instance()
    ));
    let out = refused(&s.file("evil.json", doc), &[], &["does not match"]);
    assert!(out.elapsed < Duration::from_secs(20));
}

/// Listens on a free local port and counts connections until dropped.
struct Trap {
    port: u16,
    hits: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Trap {
    fn new() -> Trap {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, st) = (hits.clone(), stop.clone());
        let thread = thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok(_) => {
                        h.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Trap {
            port,
            hits,
            stop,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> usize {
        thread::sleep(Duration::from_millis(50));
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.hits.load(Ordering::SeqCst)
    }
}

#[test]
fn no_network_for_ref_and_schema() {
    let trap = Trap::new();
    let url = format!("http://127.0.0.1:{}/", trap.port);
    let s = Scratch::new();
    let doc = doc_with(&format!(
        r#""tools": [
            {{"name": "by-ref",
              "inputSchema": {{"type": "object", "properties": {{"q": {{"$ref": "{url}q.json"}}}}}},
              "examples": {{"e": {{"input": {{"q": 1}}}}}}}},
            {{"name": "by-schema",
              "inputSchema": {{"$schema": "{url}meta", "type": "object"}},
              "examples": {{"e": {{"input": {{"q": 1}}}}}}}},
            {{"name": "by-id",
              "inputSchema": {{"$id": "{url}base/", "type": "object",
                               "properties": {{"q": {{"$ref": "other.json"}}}}}},
              "examples": {{"e": {{"input": {{"q": 1}}}}}}}},
            {{"name": "dynamic",
              "inputSchema": {{"type": "object", "properties": {{"q": {{"$dynamicRef": "{url}d#x"}}}}}},
              "examples": {{"e": {{"input": {{"q": 1}}}}}}}},
            {{"name": "ask",
              "inputSchema": {{"type": "object"}},
              "elicitations": [{{"name": "q", "mode": "form", "message": "?",
                                 "requestedSchema": {{"type": "object", "properties": {{"a": {{"$ref": "{url}e.json"}}}}}}}}]}}
        ]"#
    ));
    let file = s.file("net.json", doc);
    let out = run(&["validate", file.to_str().unwrap()]);
    assert!(out.code <= 2, "{}", out.out);
    assert_eq!(
        trap.finish(),
        0,
        "a connection reached the listener:\n{}",
        out.out
    );
}

#[test]
fn component_reference_cycles() {
    let s = Scratch::new();
    let doc = doc_with(
        r##""components": {"schemas": {
            "A": {"$componentRef": "#/components/schemas/B"},
            "B": {"$componentRef": "#/components/schemas/A"},
            "Self": {"$componentRef": "#/components/schemas/Self"}}},
          "tools": [{"name": "t", "inputSchema": {"$componentRef": "#/components/schemas/A"}}]"##,
    );
    refused(&s.file("cycle.json", doc), &[], &["cycle"]);
}

#[test]
fn component_reference_long_chains() {
    let s = Scratch::new();
    let n = 10_000;
    let mut schemas = String::new();
    for i in 0..n {
        let _ = write!(
            schemas,
            r##""S{i}": {{"$componentRef": "#/components/schemas/S{}"}}, "##,
            i + 1
        );
    }
    let _ = write!(schemas, r#""S{n}": {{"type": "object"}}"#);
    let doc = doc_with(&format!(
        r##""components": {{"schemas": {{{schemas}}}}},
            "tools": [{{"name": "t", "inputSchema": {{"$componentRef": "#/components/schemas/S0"}}}}]"##
    ));
    let file = s.file("chain.json", doc);
    refused(
        &file,
        &[],
        &["max-reference-chain (64)", "--max-reference-chain"],
    );
    refused(
        &file,
        &["--max-reference-chain", "8"],
        &["max-reference-chain (8)"],
    );
}

#[test]
fn hundred_thousand_tools() {
    let s = Scratch::new();
    let mut tools = String::with_capacity(8_000_000);
    for i in 0..100_000 {
        if i > 0 {
            tools.push(',');
        }
        let _ = write!(
            tools,
            r#"{{"name": "tool_{i}", "description": "Tool {i}", "inputSchema": {{"type": "object"}}}}"#
        );
    }
    let file = s.file("many.json", doc_with(&format!(r#""tools": [{tools}]"#)));
    // About 15 s in a debug build on a busy two-core machine: the one case with a longer
    // bound, so that a loaded CI machine does not fail it spuriously.
    let out = run_within(&["validate", file.to_str().unwrap()], 2 * TIME_LIMIT);
    assert!(out.code <= 1, "{}", excerpt(&out.out));
}

// ---------------------------------------------------------------------------------------------
// Evaluation limits

#[test]
fn schema_count_and_size_limits() {
    let s = Scratch::new();
    let doc = doc_with(
        r#""tools": [
            {"name": "a", "inputSchema": {"type": "object", "title": "A"}},
            {"name": "b", "inputSchema": {"type": "object", "title": "B"}},
            {"name": "c", "inputSchema": {"type": "object", "title": "C"}}]"#,
    );
    let file = s.file("schemas.json", doc);
    let out = run(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.out);
    refused(
        &file,
        &["--max-schemas", "1"],
        &[
            "max-schemas (1)",
            "--max-schemas",
            "mcpdesc.serialization.input-limits",
        ],
    );
    refused(
        &file,
        &["--max-schema-bytes", "10"],
        &["max-schema-bytes (10)", "--max-schema-bytes"],
    );
}

#[test]
fn document_limit_flags() {
    let s = Scratch::new();
    let file = s.file("doc.json", doc_with(r#""x-list": [1, 2, 3, 4, 5]"#));
    assert_eq!(run(&["validate", file.to_str().unwrap()]).code, 0);
    for (flag, value, expected) in [
        ("--max-input-bytes", "10", "max-input-bytes (10)"),
        ("--max-depth", "1", "max-depth (1)"),
        ("--max-nodes", "5", "max-nodes (5)"),
        ("--max-scalar-bytes", "3", "max-scalar-bytes (3)"),
        ("--max-collection-len", "4", "max-collection-len (4)"),
    ] {
        refused(&file, &[flag, value], &[expected, flag]);
    }
}

// ---------------------------------------------------------------------------------------------
// Rule files

/// A rules directory holding the embedded catalogue file plus `files`.
fn rules_dir(s: &Scratch, files: &[(&str, &[u8])]) -> PathBuf {
    let root = s.0.path().join("rules");
    let catalogue = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/catalogue.yaml"),
    )
    .expect("catalogue");
    s.file("rules/catalogue.yaml", catalogue);
    for (name, contents) in files {
        s.file(&format!("rules/{name}"), contents);
    }
    root
}

/// `mcpdesc rules list --rules DIR` must exit 2 naming `file:line:column` for each problem.
#[track_caller]
fn bad_rules(files: &[(&str, &[u8])], expected: &[&str]) {
    let s = Scratch::new();
    let dir = rules_dir(&s, files);
    let out = run(&["rules", "list", "--rules", dir.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", excerpt(&out.out));
    for e in expected {
        assert!(
            out.out.contains(e),
            "expected `{e}`:\n{}",
            excerpt(&out.out)
        );
    }
}

const RULE: &str = "rules:\n  - id: mcpdesc.hostile.rule\n    title: A rule\n";

#[test]
fn rule_file_truncated() {
    let full = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/info.yaml"))
        .expect("info.yaml");
    for cut in [7, full.len() / 3, full.len() / 2] {
        let cut = &full[..cut];
        bad_rules(&[("info.yaml", cut)], &["info.yaml:"]);
    }
    bad_rules(
        &[("x.yaml", b"rules:\n  - id: \"unterminated\n")],
        &["x.yaml:2:"],
    );
    bad_rules(&[("x.yaml", b"rules: [{id: a, title: [\n")], &["x.yaml:"]);
}

#[test]
fn rule_file_wrong_types() {
    for (text, at) in [
        ("rules: 5\n", "x.yaml:1:8"),
        ("rules: {a: 1}\n", "x.yaml:1:8"),
        ("rules:\n  - 5\n", "x.yaml:2:5"),
        ("rules:\n  - id: [1]\n", "x.yaml:2:"),
        ("rules:\n  - id: a.b\n    given: 5\n", "x.yaml:"),
        ("rules:\n  - id: a.b\n    then: {check: 5}\n", "x.yaml:"),
        ("rules:\n  - id: a.b\n    level: 3.5\n", "x.yaml:"),
        ("- 1\n- 2\n", "x.yaml:1:1"),
        ("\"just a string\"\n", "x.yaml:1:1"),
        ("~\n", "x.yaml:1:1"),
    ] {
        bad_rules(&[("x.yaml", text.as_bytes())], &[at]);
    }
    let rule =
        format!("{RULE}    then:\n      - check: json-schema\n        schema: {{type: 5}}\n");
    bad_rules(&[("x.yaml", rule.as_bytes())], &["x.yaml:"]);
    let rule = format!("{RULE}    then:\n      - check: pattern\n        pattern: \"(\"\n");
    bad_rules(&[("x.yaml", rule.as_bytes())], &["x.yaml:"]);
}

#[test]
fn rule_file_binary_garbage() {
    let mut garbage = Vec::new();
    let mut x: u32 = 0x1234_5678;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage.push((x & 0xFF) as u8);
    }
    bad_rules(&[("garbage.yaml", &garbage)], &["garbage.yaml:"]);
    bad_rules(&[("nul.yaml", b"rules:\0\0\0\n")], &["nul.yaml:1:"]);
    bad_rules(
        &[("bad-utf8.yaml", b"rules:\n  - id: \xFF\xFE\n")],
        &["bad-utf8.yaml:2:9"],
    );
    bad_rules(&[("schemas/bad.json", b"{\"type\": \xFF}")], &[]);
}

#[test]
fn rule_file_huge_and_deep() {
    let deep = format!("rules: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    bad_rules(&[("deep.yaml", deep.as_bytes())], &["deep.yaml:1:"]);
    let mut big = String::from("rules:\n");
    for i in 0..200_000 {
        let _ = writeln!(big, "  - id: mcpdesc.hostile.r{i}\n    title: [");
    }
    bad_rules(&[("big.yaml", big.as_bytes())], &["big.yaml:"]);
    let bomb = "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n";
    bad_rules(
        &[("bomb.yaml", bomb.as_bytes())],
        &["bomb.yaml:1:4", "aliases"],
    );
    // A file of `max-input-bytes` + 1: refused without being held whole.
    let huge = vec![b'#'; 64 * 1024 * 1024 + 1];
    bad_rules(&[("huge.yaml", &huge)], &["huge.yaml:", "max-input-bytes"]);
}

#[test]
fn rules_directory_with_a_symlink_loop() {
    let s = Scratch::new();
    let dir = rules_dir(&s, &[]);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&dir, dir.join("loop")).expect("symlink");
    let out = run(&["rules", "list", "--rules", dir.to_str().unwrap()]);
    assert!(out.code == 0 || out.code == 2, "{}", excerpt(&out.out));
}

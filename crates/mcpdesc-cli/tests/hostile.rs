//! Hostile inputs: every case runs the built `mcpdesc` binary under a time bound and an
//! address-space bound, and must end with exit code 1 or 2 (0 where the input is fine) and a
//! clear message: no panic, no abort or signal, no stack overflow, no kill.
//!
//! `docs/robustness.md` lists every case and its outcome.

use std::fmt::Write as _;
use std::io::Read as _;
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
    /// Standard output and standard error.
    out: String,
    /// Standard output alone, as written.
    stdout: Vec<u8>,
    /// Standard error alone, as written.
    stderr: Vec<u8>,
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
    let raw = |p: &Path| {
        let mut raw = Vec::new();
        if let Ok(f) = std::fs::File::open(p) {
            let _ = f.take(64 * 1024 * 1024).read_to_end(&mut raw);
        }
        raw
    };
    let (stdout, stderr) = (raw(&stdout), raw(&stderr));
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
        stdout,
        stderr,
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
    // Far past the limit of 64 hops; longer chains only cost time.
    let n = 2_000;
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

#[cfg(unix)]
#[test]
fn rules_directory_with_a_symlink_out_of_it() {
    // A link to `/` would walk the whole file system, `/proc` included; one to a file outside
    // would read it. Neither is followed, and loading says so.
    let s = Scratch::new();
    let dir = rules_dir(&s, &[]);
    std::os::unix::fs::symlink("/", dir.join("root")).expect("symlink");
    let outside = s.0.path().join("outside.yaml");
    std::fs::write(&outside, "rules: []\n").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("outside.yaml")).expect("symlink");
    // A link that stays inside is followed.
    std::fs::create_dir(dir.join("inner")).unwrap();
    std::os::unix::fs::symlink(dir.join("inner"), dir.join("alias")).expect("symlink");
    let started = std::time::Instant::now();
    let out = run(&["rules", "list", "--rules", dir.to_str().unwrap()]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(out.code, 2, "{}", excerpt(&out.out));
    for needle in [
        "root: a symbolic link that leads out of the rules directory",
        "outside.yaml: a symbolic link",
    ] {
        assert!(
            out.out.contains(needle),
            "no {needle:?} in {}",
            excerpt(&out.out)
        );
    }
    assert!(!out.out.contains("alias"), "{}", excerpt(&out.out));
}

// ---------------------------------------------------------------------------------------------
// Output: document and rule text that would act on the reader's terminal

/// An OSC 8 hyperlink, colour, BEL, a C1 CSI, bidirectional overrides, embeddings, isolates and
/// marks, line and paragraph separators, CR, LF, NEL, DEL and tab, next to characters that the
/// formats encode (`<&"'>`, `%`, `:`, `,`).
const HOSTILE: &str = "\u{1b}]8;;http://evil\u{7}link\u{1b}]8;;\u{7} \u{1b}[31mred\u{1b}[0m \
    \u{7}bel \u{9b}31m \u{202e}rtl\u{202c} \u{202a}ltr\u{202c} \u{2066}iso\u{2069} \u{200f}\u{61c} \
    \u{2028}ls\u{2029}ps \rcr\nnl \u{85}\u{7f} \ttab <&\"'> %25 a:b,c";

const FORMATS: [&str; 5] = ["text", "json", "sarif", "github", "junit"];

/// Characters that must not reach standard output raw: C0 controls but newline (and tab in the
/// text format, whose excerpts keep a document's indentation), DEL, C1 controls,
/// bidirectional controls and the Unicode line and paragraph separators.
fn forbidden(c: char, format: &str) -> bool {
    match c {
        '\n' => false,
        '\t' => format != "text",
        '\0'..='\x1f'
        | '\x7f'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// How the text, GitHub and JUnit formats show `s`: every forbidden character as `\u{…}`.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c == '\n' || forbidden(c, "") {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The JSON Pointer of the member reached through `keys`.
fn pointer(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("/{}", k.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// A YAML double-quoted scalar spelling `s` with escapes only.
fn yaml_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c == ' ' || c.is_ascii_graphic() => out.push(c),
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

#[track_caller]
fn assert_safe(stdout: Vec<u8>, format: &str, what: &str) -> String {
    let stdout = String::from_utf8(stdout)
        .unwrap_or_else(|e| panic!("{what}: standard output is not UTF-8: {e}"));
    if let Some((i, c)) = stdout.char_indices().find(|&(_, c)| forbidden(c, format)) {
        panic!("{what}: raw {c:?} at byte {i}:\n{}", excerpt(&stdout));
    }
    stdout
}

/// What the findings of a hostile input carry, decoded, in every format.
struct Echo<'a> {
    /// Each is part of the message of some finding.
    messages: &'a [&'a str],
    /// Each is the pointer of some finding.
    pointers: &'a [String],
}

/// Validates `file` in every format and checks that no forbidden character reaches standard
/// output, that each format is still well formed, and that the findings still carry the
/// document's text: exactly in JSON and SARIF, in its visible form in the others.
#[track_caller]
fn safe_in_every_format(file: &Path, flags: &[&str], echo: &Echo) {
    let path = file.to_str().expect("utf-8 path");
    for format in FORMATS {
        let mut args = vec!["validate", path, "--format", format];
        args.extend_from_slice(flags);
        let out = run(&args);
        let what = format!("--format {format}");
        assert!(
            out.code <= 1,
            "{what}: exit code {}:\n{}",
            out.code,
            out.out
        );
        let stdout = assert_safe(out.stdout, format, &what);
        let (messages, pointers) = match format {
            "json" | "sarif" => decoded_json(&stdout, format, path),
            "github" => {
                let decoded = workflow_commands(&stdout);
                (decoded.clone(), decoded)
            }
            "junit" => {
                let decoded = well_formed_xml(&stdout);
                (decoded.clone(), decoded)
            }
            _ => (stdout.clone(), stdout.clone()),
        };
        let exact = matches!(format, "json" | "sarif");
        let shown = |s: &str| if exact { s.to_owned() } else { visible(s) };
        assert!(messages.contains(&shown(path)), "{what}: path missing");
        for m in echo.messages {
            assert!(
                messages.contains(&shown(m)),
                "{what}: no message contains {m:?}:\n{}",
                excerpt(&stdout)
            );
        }
        // The text format shows a finding's pointer only when it has no line.
        for p in echo.pointers.iter().filter(|_| format != "text") {
            assert!(
                pointers.contains(&shown(p)),
                "{what}: no pointer {p:?}:\n{}",
                excerpt(&stdout)
            );
        }
    }
    // The colours are the only escape sequences of a coloured report.
    let mut args = vec!["validate", path, "--color", "always"];
    args.extend_from_slice(flags);
    let out = run(&args);
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let mut plain = String::new();
    let mut rest = stdout.as_str();
    while let Some(i) = rest.find("\u{1b}[") {
        plain.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let end = tail
            .find(|c: char| !c.is_ascii_digit() && c != ';')
            .filter(|&e| tail[e..].starts_with('m'))
            .unwrap_or_else(|| panic!("an escape sequence that is not a colour: {tail:.20?}"));
        rest = &tail[end + 1..];
    }
    plain.push_str(rest);
    assert!(plain.len() < stdout.len(), "no colour with --color always");
    assert_safe(plain.into_bytes(), "text", "--color always");
}

/// The messages (and the path) and the pointers of a JSON or SARIF report, decoded, one per
/// line.
fn decoded_json(stdout: &str, format: &str, path: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("--format {format} is not JSON: {e}\n{}", excerpt(stdout)));
    let (mut messages, mut pointers) = (String::new(), String::new());
    let add = |to: &mut String, s: &serde_json::Value| {
        to.push_str(s.as_str().expect("a string"));
        to.push('\n');
    };
    if format == "json" {
        for f in v["files"].as_array().expect("files") {
            add(&mut messages, &f["path"]);
            for d in f["diagnostics"].as_array().expect("diagnostics") {
                add(&mut messages, &d["message"]);
                add(&mut pointers, &d["pointer"]);
            }
        }
    } else {
        // SARIF names artifacts by URI; the path itself is in no field.
        messages.push_str(path);
        for r in v["runs"][0]["results"].as_array().expect("results") {
            add(&mut messages, &r["message"]["text"]);
            add(
                &mut pointers,
                &r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            );
            add(&mut pointers, &r["properties"]["pointer"]);
        }
    }
    (messages, pointers)
}

/// Decodes the `%XX` escapes of a workflow command.
fn percent_decoded(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let c = match rest.get(i + 1..i + 3) {
            Some("25") => '%',
            Some("0D") => '\r',
            Some("0A") => '\n',
            Some("3A") => ':',
            Some("2C") => ',',
            other => panic!("unknown escape %{other:?} in {s:?}"),
        };
        out.push(c);
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    out
}

/// Checks that every line but the summary is one workflow command with well-formed
/// properties, and returns their decoded properties and messages, one per line.
fn workflow_commands(stdout: &str) -> String {
    let mut lines: Vec<&str> = stdout.lines().collect();
    let summary = lines.pop().expect("a summary line");
    assert!(summary.starts_with("Checked "), "{summary:?}");
    let mut decoded = String::new();
    for line in lines {
        let rest = ["::error ", "::warning ", "::notice "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .unwrap_or_else(|| panic!("not a workflow command: {line:?}"));
        let (props, data) = rest
            .split_once("::")
            .unwrap_or_else(|| panic!("no message: {line:?}"));
        for prop in props.split(',') {
            let (key, value) = prop
                .split_once('=')
                .unwrap_or_else(|| panic!("not a property: {prop:?} in {line:?}"));
            assert!(
                ["file", "line", "col", "title"].contains(&key) && !value.contains(':'),
                "bad property {prop:?} in {line:?}"
            );
            decoded.push_str(&percent_decoded(value));
            decoded.push('\n');
        }
        let data = percent_decoded(data);
        // The message, then the rule's page: the only line break is ours.
        assert!(
            data.lines().count() <= 2 && !data.contains('\r'),
            "{data:?}"
        );
        decoded.push_str(&data);
        decoded.push('\n');
    }
    decoded
}

/// Whether XML 1.0 allows `c` in a document, raw or as a character reference.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Appends `text` (character data or an attribute value) with its references resolved.
fn xml_decoded(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(i) = rest.find(['&', '<']) {
        assert_eq!(&rest[i..=i], "&", "raw `<` in {text:?}");
        out.push_str(&rest[..i]);
        let end = i + rest[i..]
            .find(';')
            .unwrap_or_else(|| panic!("unterminated reference in {text:?}"));
        let name = &rest[i + 1..end];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => name
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| name.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32)
                .filter(|&c| xml_char(c))
                .unwrap_or_else(|| panic!("bad reference &{name}; in {text:?}")),
        };
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
}

/// Checks that `s` is a well-formed XML 1.0 document, as far as a JUnit report goes (a
/// declaration, elements, attributes, character data, references), and returns its character
/// data and attribute values, decoded.
fn well_formed_xml(s: &str) -> String {
    if let Some(c) = s.chars().find(|&c| !xml_char(c)) {
        panic!("{c:?} is not allowed in XML 1.0:\n{}", excerpt(s));
    }
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
    };
    let mut rest = s
        .strip_prefix("<?xml ")
        .and_then(|r| r.split_once("?>"))
        .map(|(_, r)| r)
        .expect("an XML declaration");
    let (mut open, mut roots, mut decoded) = (Vec::new(), 0, String::new());
    loop {
        let lt = rest.find('<');
        let text = &rest[..lt.unwrap_or(rest.len())];
        assert!(
            !open.is_empty() || text.trim().is_empty(),
            "text outside the root element: {text:?}"
        );
        xml_decoded(text, &mut decoded);
        let Some(lt) = lt else { break };
        rest = &rest[lt + 1..];
        if let Some(r) = rest.strip_prefix('/') {
            let (name, r) = r.split_once('>').expect("a closed end tag");
            assert_eq!(open.pop(), Some(name.trim_end()), "mismatched end tag");
            rest = r;
            continue;
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .expect("a tag name");
        let name = &rest[..end];
        assert!(name_ok(name), "bad element name {name:?}");
        roots += usize::from(open.is_empty());
        rest = &rest[end..];
        let mut attributes = Vec::new();
        loop {
            rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix("/>") {
                rest = r;
                break;
            }
            if let Some(r) = rest.strip_prefix('>') {
                open.push(name);
                rest = r;
                break;
            }
            let (attribute, r) = rest.split_once('=').expect("an attribute");
            assert!(name_ok(attribute), "bad attribute name {attribute:?}");
            assert!(!attributes.contains(&attribute), "duplicate {attribute}");
            attributes.push(attribute);
            let quote = r
                .chars()
                .next()
                .filter(|&q| q == '"' || q == '\'')
                .expect("a quoted value");
            let (value, r) = r[1..].split_once(quote).expect("a closed value");
            xml_decoded(value, &mut decoded);
            decoded.push('\n');
            rest = r;
        }
    }
    assert!(open.is_empty(), "unclosed elements {open:?}");
    assert_eq!(roots, 1, "not one root element");
    decoded
}

#[test]
fn terminal_controls_in_a_json_document() {
    let s = Scratch::new();
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "hostile", "version": format!("1.0.0 {HOSTILE}"), HOSTILE: 1},
        "protocolVersions": ["2025-11-25"],
        HOSTILE: 2,
    });
    // serde_json spells C0 controls as `\u001b` and writes C1 and bidirectional controls and
    // U+2028/U+2029 raw, so the excerpts quote raw characters too.
    let text = serde_json::to_string_pretty(&doc).expect("JSON");
    assert!(text.contains('\u{202e}') && text.contains("\\u001b"));
    safe_in_every_format(
        &s.file("controls.json", text),
        &[],
        &Echo {
            messages: &[HOSTILE],
            pointers: &[pointer(&["info", HOSTILE]), pointer(&[HOSTILE])],
        },
    );
}

#[test]
fn terminal_controls_in_a_yaml_document() {
    let s = Scratch::new();
    let q = yaml_quoted(HOSTILE);
    // Plain scalars may hold raw controls too; the loader takes them as they are.
    let raw = "raw\u{1b}[31m\u{9b}\u{202e}\u{2066}\u{7f}key";
    let y = format!(
        "mcpdesc: 0.8.0\ninfo:\n  name: hostile\n  version: {q}\n  {q}: 1\n\
         protocolVersions: [2025-11-25]\n{q}: 2\n{raw}: 3\n"
    );
    safe_in_every_format(
        &s.file("controls.yaml", y),
        &[],
        &Echo {
            messages: &[HOSTILE, raw],
            pointers: &[
                pointer(&["info", HOSTILE]),
                pointer(&[HOSTILE]),
                pointer(&[raw]),
            ],
        },
    );
}

#[test]
fn terminal_controls_in_a_document_that_does_not_load() {
    // Raw controls are not allowed in JSON strings: the load error quotes the line.
    let s = Scratch::new();
    let file = s.file(
        "raw.json",
        b"{\"mcpdesc\": \"0.8.0\", \"k\x1b]8;;http://evil\x07\r\xc2\x9b\xe2\x80\xae\": 1}\n",
    );
    let out = run(&["validate", file.to_str().unwrap()]);
    let stdout = assert_safe(out.stdout, "text", "load error");
    assert!(stdout.contains("\"k\\u{1b}]8;;http://evil\\u{7}\\u{d}\\u{9b}\\u{202e}\": 1}"));
    safe_in_every_format(
        &file,
        &[],
        &Echo {
            messages: &[],
            pointers: &[],
        },
    );
    // A megabyte of raw ESC on one line: the excerpt is cut around the column, not printed
    // six times over.
    let mut long = b"{\"mcpdesc\": \"0.8.0\", \"k\": \"".to_vec();
    long.extend(std::iter::repeat_n(0x1b, 1 << 20));
    long.extend_from_slice(b"\"}\n");
    let file = s.file("long.json", long);
    let out = run(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", excerpt(&out.out));
    let stdout = assert_safe(out.stdout, "text", "a long line");
    assert!(stdout.len() < 10_000, "{} bytes", stdout.len());
    assert!(stdout.contains("\"k\": \"\\u{1b}\\u{1b}"), "{stdout}");
}

#[test]
fn terminal_controls_in_a_file_name() {
    let s = Scratch::new();
    let file = s.file(
        "evil\u{1b}]0;title\u{7}\u{202e}\u{9b}\r\n.json",
        doc_with(r#""x": 1"#),
    );
    safe_in_every_format(
        &file,
        &[],
        &Echo {
            messages: &[],
            pointers: &["/x".to_owned()],
        },
    );
}

const HOSTILE_RULE: &str = r#"rules:
  - id: mcpdesc.info.description-present
    title: "Describe \e]8;;http://evil\alink\e]8;;\a the \e[31mserver\u202e"
    description: "Teams \x9b31m ask\u2028that\r every server\nsays what it does."
    requirement: "`info` has a `description`.\e[2J"
    owner: mcpdesc
    surface: {text: "Info \u202eObject"}
    path: info.description
    kind: structural
    level: should
    status: internal
    enforcement: internal
    applicability:
      2024-11-05: applies
      2025-03-26: applies
      2025-06-18: applies
      2025-11-25: applies
      2026-07-28: applies
    required-by:
      spec: MCP Description 0.8.0
      sections: ["5.1"]
    based-on:
      tier: 2
      label: "Local \e[31mpolicy"
      detail: "Organisation\e[0m policy."
    help: "Add a description.\e]0;pwned\a\nSecond\u2029line."
    notes: ["note \u2066x\u2069"]
    examples:
      valid: []
      invalid: []
    given: ["$.info"]
    then:
      - check: required
        fields: [description]
    message: "`info` has no `{field}`\e[31m; say what\n the server does\u202e"
"#;

#[test]
fn terminal_controls_in_a_rule_file() {
    let s = Scratch::new();
    let dir = rules_dir(&s, &[("hostile.yaml", HOSTILE_RULE.as_bytes())]);
    let dir = dir.to_str().unwrap();
    let id = "mcpdesc.info.description-present";
    for args in [
        vec!["rules", "list", "--rules", dir],
        vec!["rules", "list", "--rules", dir, "--format", "json"],
        vec!["rules", "show", id, "--rules", dir],
    ] {
        let out = run(&args);
        assert_eq!(out.code, 0, "{}", out.out);
        let stdout = assert_safe(out.stdout, "rules", &args.join(" "));
        if args.contains(&"json") {
            let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
            let title = "Describe \u{1b}]8;;http://evil\u{7}link\u{1b}]8;;\u{7} the \u{1b}[31mserver\u{202e}";
            assert_eq!(v["rules"][0]["title"], title);
        } else {
            assert!(
                stdout.contains("the \\u{1b}[31mserver\\u{202e}"),
                "{stdout}"
            );
        }
    }
    let doc = s.file("doc.json", doc_with(""));
    safe_in_every_format(
        &doc,
        &["--rules", dir],
        &Echo {
            messages: &["`\u{1b}[31m; say what\n the server does\u{202e}"],
            pointers: &["/info".to_owned()],
        },
    );
}

/// A file name with OSC 0 (window title), BEL, RLO, a C1 CSI, DEL and LRI, and no whitespace, so
/// that every report shows it the same way.
const EVIL_NAME: &str = "evil\u{1b}]0;title\u{7}\u{202e}\u{9b}\u{7f}\u{2066}";

/// A valid document but for an unknown member of `info` and one of the root, both named
/// [`HOSTILE`]: two findings whose messages and pointers quote the name.
fn hostile_document() -> String {
    let doc = serde_json::json!({
        "mcpdesc": "0.8.0",
        "info": {"name": "hostile", "version": "1.0.0", HOSTILE: 1},
        "protocolVersions": ["2025-11-25"],
        HOSTILE: 2,
    });
    serde_json::to_string_pretty(&doc).expect("JSON")
}

/// How a Markdown table cell of `mcpdesc diff` shows `s`: on one line, runs of whitespace (but
/// NEL and the line and paragraph separators) as one space, pipes escaped, then as
/// [`visible`].
fn cell_visible(s: &str) -> String {
    let space = |c: char| c.is_whitespace() && !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}');
    let line = s
        .split(space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    visible(&line.replace('|', "\\|"))
}

/// Every key and string of `v`, decoded, one per line.
fn json_strings(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        serde_json::Value::Array(items) => items.iter().for_each(|x| json_strings(x, out)),
        serde_json::Value::Object(members) => {
            for (k, x) in members {
                out.push_str(k);
                out.push('\n');
                json_strings(x, out);
            }
        }
        _ => {}
    }
}

/// Parses `stdout` as JSON and checks that its strings hold each of `exact`.
#[track_caller]
fn json_holds(stdout: &str, what: &str, exact: &[&str]) {
    let v: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("{what} is not JSON: {e}\n{}", excerpt(stdout)));
    let mut strings = String::new();
    json_strings(&v, &mut strings);
    for e in exact {
        assert!(strings.contains(e), "{what}: no string holds {e:?}");
    }
}

#[test]
fn terminal_controls_in_a_diff_report() {
    let s = Scratch::new();
    // No rule before, the embedded ones after: both findings of the document appear.
    let base = rules_dir(&s, &[]);
    let base = base.to_str().unwrap();
    s.file(&format!("corpus/{EVIL_NAME}.json"), hostile_document());
    let corpus = s.0.path().join("corpus");
    let corpus = corpus.to_str().unwrap();
    let document = format!("{corpus}/{EVIL_NAME}.json");
    let (root, info) = (pointer(&[HOSTILE]), pointer(&["info", HOSTILE]));

    let out = run(&["diff", "--base-rules", base, corpus]);
    assert_eq!(out.code, 0, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "markdown", "diff: standard error");
    let md = assert_safe(out.stdout, "markdown", "diff");
    for shown in [&document, HOSTILE, &root, &info].map(cell_visible) {
        assert!(md.contains(&shown), "diff: no {shown:?}:\n{md}");
    }

    let out = run(&["diff", "--base-rules", base, corpus, "--format", "json"]);
    assert_eq!(out.code, 0, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "json", "diff --format json: standard error");
    let stdout = assert_safe(out.stdout, "json", "diff --format json");
    json_holds(
        &stdout,
        "diff --format json",
        &[&document, HOSTILE, &root, &info],
    );
}

#[test]
fn terminal_controls_in_a_test_report() {
    let s = Scratch::new();
    // A fixture of `expected-valid` with two findings and a sidecar expecting none: the report
    // shows the failed verdict, the sidecar diff and every finding.
    s.file(
        &format!("fixtures/expected-valid/{EVIL_NAME}.json"),
        hostile_document(),
    );
    let sidecar = s.file(
        &format!("fixtures/expected-valid/{EVIL_NAME}.expected.yaml"),
        "[]\n",
    );
    let sidecar = sidecar.to_str().unwrap();
    let corpus = s.0.path().join("fixtures");
    let corpus = corpus.to_str().unwrap();
    let document = format!("{corpus}/expected-valid/{EVIL_NAME}.json");
    let (root, info) = (pointer(&[HOSTILE]), pointer(&["info", HOSTILE]));

    let out = run(&["test", corpus]);
    assert_eq!(out.code, 1, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "test", "test: standard error");
    let text = assert_safe(out.stdout, "test", "test");
    // Sidecar lines spell pointers as JSON strings; what JSON leaves raw is escaped.
    let sidecar_line = |p: &str| visible(&serde_json::to_string(p).unwrap());
    for shown in [
        format!("FAIL {}", visible(&document)),
        format!("--- {} (expected)", visible(sidecar)),
        sidecar_line(&root),
        sidecar_line(&info),
        visible(&root),
        visible(&info),
        visible(HOSTILE),
    ] {
        assert!(text.contains(&shown), "test: no {shown:?}:\n{text}");
    }

    let out = run(&["test", corpus, "--format", "json"]);
    assert_eq!(out.code, 1, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "json", "test --format json: standard error");
    let stdout = assert_safe(out.stdout, "json", "test --format json");
    json_holds(
        &stdout,
        "test --format json",
        &[&document, sidecar, &root, &info],
    );

    let out = run(&["test", corpus, "--format", "junit"]);
    assert_eq!(out.code, 1, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "junit", "test --format junit: standard error");
    let xml = assert_safe(out.stdout, "junit", "test --format junit");
    let decoded = well_formed_xml(&xml);
    for shown in [visible(&document), visible(HOSTILE), sidecar_line(&root)] {
        assert!(decoded.contains(&shown), "junit: no {shown:?}:\n{xml}");
    }

    // An unknown rule is named in a warning.
    let rule = format!("mcpdesc.{EVIL_NAME}");
    let out = run(&["test", corpus, "--rule", &rule]);
    assert_safe(out.stdout, "test", "test --rule");
    let stderr = assert_safe(out.stderr, "test", "test --rule: standard error");
    assert!(
        stderr.contains(&format!("no rule `{}`", visible(&rule))),
        "{stderr}"
    );

    // The folder verdict still fails, but the sidecar is rewritten and named.
    let out = run(&["test", corpus, "--bless"]);
    assert_eq!(out.code, 1, "{}", excerpt(&out.out));
    let text = assert_safe(out.stdout, "test", "test --bless");
    let blessed = format!("blessed {} (updated)", visible(sidecar));
    assert!(text.contains(&blessed), "{text}");
}

#[test]
fn terminal_controls_in_a_path_argument() {
    let s = Scratch::new();
    let doc = s.file("doc.json", doc_with(""));
    let doc = doc.to_str().unwrap();
    let missing = s.0.path().join(EVIL_NAME);
    let missing = missing.to_str().unwrap();
    let glob = format!("{missing}/*.json");
    let empty = s.0.path().join(format!("empty{EVIL_NAME}"));
    std::fs::create_dir(&empty).expect("mkdir");
    let empty = empty.to_str().unwrap();
    for args in [
        vec!["test", missing],
        vec!["diff", "--base-rules", missing, doc],
        vec!["docs", "--rules", missing, "--check"],
        vec!["rules", "list", "--rules", missing],
        vec!["rules", "show", EVIL_NAME],
        vec!["validate", "--rules", missing, doc],
        vec!["validate", "--config", missing, doc],
        vec!["validate", "--baseline", missing, doc],
        vec!["validate", &glob],
        vec!["validate", empty],
    ] {
        let what = args.join(" ");
        let out = run(&args);
        assert_eq!(out.code, 2, "{what}: {}", excerpt(&out.out));
        assert_safe(out.stdout, "stderr", &what);
        let stderr = assert_safe(out.stderr, "stderr", &format!("{what}: standard error"));
        assert!(
            stderr.starts_with("error: ") && stderr.contains(&visible(EVIL_NAME)),
            "{what}: {stderr}"
        );
    }
}

#[test]
fn terminal_controls_in_a_written_baseline() {
    let s = Scratch::new();
    s.file(&format!("corpus/{EVIL_NAME}.json"), hostile_document());
    let corpus = s.0.path().join("corpus");
    let corpus = corpus.to_str().unwrap();
    let baseline = s.0.path().join(format!("baseline{EVIL_NAME}.json"));
    let baseline = baseline.to_str().unwrap();
    let missing = s.0.path().join(format!("missing{EVIL_NAME}.json"));
    let missing = missing.to_str().unwrap();
    let out = run(&[
        "validate",
        corpus,
        missing,
        "--baseline",
        baseline,
        "--write-baseline",
    ]);
    // The missing input fails the run; the findings of the other are recorded.
    assert_eq!(out.code, 2, "{}", excerpt(&out.out));
    assert_safe(out.stdout, "stderr", "--write-baseline");
    let stderr = assert_safe(out.stderr, "stderr", "--write-baseline: standard error");
    for shown in [
        format!("recorded 2 findings in {}", visible(baseline)),
        format!(
            "{}: error: cannot read {}",
            visible(missing),
            visible(missing)
        ),
    ] {
        assert!(stderr.contains(&shown), "no {shown:?}:\n{stderr}");
    }
    // The file decodes to the exact text, and shows none of it raw.
    let file = assert_safe(
        std::fs::read(baseline).expect("baseline"),
        "json",
        "the baseline",
    );
    json_holds(
        &file,
        "the baseline",
        &[
            &format!("corpus/{EVIL_NAME}.json"),
            &pointer(&[HOSTILE]),
            &pointer(&["info", HOSTILE]),
            HOSTILE,
        ],
    );
    // Read back, it still matches the findings it recorded.
    let out = run(&["validate", corpus, "--baseline", baseline]);
    assert_eq!(out.code, 0, "{}", excerpt(&out.out));
    assert!(out.out.contains("2 in the baseline"), "{}", out.out);
}

/// The files below `dir`, recursively.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_below(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn terminal_controls_in_rule_pages() {
    let s = Scratch::new();
    let dir = rules_dir(&s, &[("hostile.yaml", HOSTILE_RULE.as_bytes())]);
    let dir = dir.to_str().unwrap();
    let pages = s.0.path().join(format!("pages{EVIL_NAME}"));
    let out = run(&["docs", "--rules", dir, "--out", pages.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "stderr", "docs: standard error");
    let text = assert_safe(out.stdout, "stderr", "docs");
    let shown = visible(pages.to_str().unwrap());
    assert!(text.contains(&format!("wrote {shown}/")), "{text}");

    // A committed page that differs on its first line: the diff quotes the page's front
    // matter, which holds the rule's title.
    let page = files_below(&pages)
        .into_iter()
        .find(|p| p.ends_with("mcpdesc.info.description-present.md"))
        .expect("the rule's page");
    let committed = std::fs::read_to_string(&page).expect("page");
    std::fs::write(&page, format!("x{committed}")).expect("write");
    let out = run(&[
        "docs",
        "--rules",
        dir,
        "--out",
        pages.to_str().unwrap(),
        "--check",
    ]);
    assert_eq!(out.code, 1, "{}", excerpt(&out.out));
    assert_safe(out.stderr, "stderr", "docs --check: standard error");
    let text = assert_safe(out.stdout, "text", "docs --check");
    assert!(text.contains(&format!("stale: {shown}/")), "{text}");
    assert!(text.contains("the \\u001b[31mserver\\u{202e}"), "{text}");
}

/// A server listing 100,000 tools of which the description declares five: each other one is
/// reported once. Lining the server's entries up by key was quadratic (200,000 tools: 66 s).
#[cfg(feature = "live")]
#[test]
fn a_server_listing_a_hundred_thousand_undescribed_tools() {
    let s = Scratch::new();
    let tools: Vec<String> = (0..5)
        .map(|i| format!(r#"{{"name": "tool-{i}", "inputSchema": {{"type": "object"}}}}"#))
        .collect();
    let desc = s.file(
        "desc.json",
        format!(
            r#"{{"mcpdesc": "0.8.0", "info": {{"name": "fake", "version": "0.0.1"}},
               "protocolVersions": ["2025-06-18"],
               "capabilities": [{{"tools": {{}}, "resources": {{}}, "prompts": {{}}}}],
               "tools": [{}],
               "resources": [{}],
               "prompts": [{{"name": "p"}}]}}"#,
            tools.join(", "),
            (0..3)
                .map(|i| format!(r#"{{"uri": "file:///r{i}.txt", "name": "r{i}"}}"#))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fake-mcp-server.py");
    let out = run_within(
        &[
            "check-server",
            "--format",
            "json",
            desc.to_str().unwrap(),
            "--",
            "python3",
            script.to_str().unwrap(),
            "tidy+tools=100000",
        ],
        Duration::from_secs(120),
    );
    assert_eq!(out.code, 0, "{}", out.out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let found = report["files"][0]["diagnostics"].as_array().unwrap();
    let undescribed = found
        .iter()
        .filter(|d| d["rule"] == "mcpdesc-live.entry-undescribed")
        .count();
    assert_eq!(undescribed, 99_995, "{}", out.out);
    assert_eq!(found.len(), undescribed, "{}", out.out);
}

/// A minified description of 30,000 tools (one line of 1.3 MB) with a finding on every tool.
fn thirty_thousand_tools_on_one_line(s: &Scratch) -> PathBuf {
    let tools: Vec<String> = (0..30_000)
        .map(|i| format!(r#"{{"name":"t{i}","inputSchema":{{"type":"object"}}}}"#))
        .collect();
    s.file(
        "minified.json",
        format!(
            r#"{{"mcpdesc":"0.8.0","info":{{"name":"x","version":"1.0.0"}},"protocolVersions":["2025-06-18"],"tools":[{}]}}"#,
            tools.join(",")
        ),
    )
}

/// A house rule whose filter counts over the whole tool list for every tool it tests: the
/// inner query is evaluated once, not once per tool (before: 30,000 tools took minutes).
/// The 30,000 findings on the document's one line are then printed with excerpts, each cut
/// from the line at its column (before: every excerpt scanned the whole 1.3 MB line).
#[test]
fn a_filter_over_thirty_thousand_tools_and_their_findings_on_one_line() {
    let s = Scratch::new();
    let doc = thirty_thousand_tools_on_one_line(&s);
    s.file(
        "house/catalogue.yaml",
        "catalogue:\n  release: 0.8.1-house.1\n  extends: 0.8.0\n  summary: One house rule.\n  \
         spec-versions: [\">=0.8.1-house.1, <0.9.0\"]\n",
    );
    s.file(
        "house/rules.yaml",
        r#"rules:
  - id: mcpdesc.tool.house-name-number
    title: A house rule over every tool
    description: Counts over the whole tool list for each tool.
    requirement: "`name` is a number."
    owner: mcpdesc
    surface: {text: Tool}
    path: name
    kind: structural
    level: must
    status: internal
    enforcement: internal
    applicability: applies
    required-by: {spec: MCP Description 0.8.1-house.1, sections: ["9"]}
    based-on: {tier: 2, label: house, detail: house}
    reference-codes: []
    examples: {valid: [], invalid: []}
    given: ["$.tools[?count($.tools[?@.name == 'none']) == 0 && @.name != value($.info.name)]"]
    then:
      - check: type
        at: "@.name"
        is: number
        message: "`name` is {actual}"
    message: "bad"
"#,
    );
    let rules = s.0.path().join("house");
    let validate = |format: &str| {
        let out = run_within(
            &[
                "validate",
                "--rules",
                rules.to_str().unwrap(),
                "--spec-version",
                "0.8.1-house.1",
                "--format",
                format,
                doc.to_str().unwrap(),
            ],
            Duration::from_secs(60),
        );
        assert_eq!(out.code, 1, "{}", out.out);
        out
    };
    let out = validate("json");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let house = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "mcpdesc.tool.house-name-number")
        .count();
    assert_eq!(house, 30_000);

    let out = validate("text");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("30000 errors"),
        "{}",
        &text[text.len() - 300..]
    );
    // The last finding's excerpt: cut around its column, the caret under the key of the
    // last tool's `name`.
    let last = text.rfind("`name` is string").expect("the last finding");
    let excerpt: Vec<&str> = text[last..].lines().take(4).collect();
    let shown = excerpt[2];
    let caret = excerpt[3];
    // The line's start is cut off; its end is within the window.
    assert!(
        shown.starts_with("1 | …") && shown.ends_with("}}]}"),
        "{shown}"
    );
    // In characters: the cut's `…` is one character wide, as the space under it.
    let at = caret.chars().position(|c| c == '^').expect("caret");
    let under: String = shown.chars().skip(at).take(15).collect();
    assert_eq!(under, "\"name\":\"t29999\"", "{shown}\n{caret}");
    assert_eq!(
        caret.chars().skip(at).collect::<String>().trim_end(),
        "^^^^^^"
    );
}

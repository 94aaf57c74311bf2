//! `mcpdesc server` driven by a scripted LSP client over stdio: initialize, open, change,
//! hover, code actions, definition, references, rule reloads and shutdown.

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use support::lsp::{apply_edits, file_uri, fixture_copy, Client};

const ELICITATION_RULE: &str = "mcp.elicitation.protocol-version";

fn rules_of(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn find<'a>(diags: &'a [Value], rule: &str) -> &'a Value {
    diags
        .iter()
        .find(|d| d["code"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {diags:#?}"))
}

/// A server in a new directory with a copy of fixture `rel` open in it.
fn open_fixture(rel: &str, language: &str) -> (tempfile::TempDir, Client, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_copy(dir.path(), rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = file_uri(&path);
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.open(&uri, language, &text);
    (dir, client, uri, text)
}

fn position(line: u64, character: u64) -> Value {
    json!({"line": line, "character": character})
}

fn hover_text(client: &mut Client, uri: &str, line: u64, character: u64) -> String {
    let r = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(line, character)}),
    );
    r["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn actions_for(client: &mut Client, uri: &str, diag: &Value) -> Vec<Value> {
    let r = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diag["range"],
               "context": {"diagnostics": [diag]}}),
    );
    r.as_array().cloned().unwrap_or_default()
}

fn edit_of(action: &Value, uri: &str) -> Vec<Value> {
    action["edit"]["changes"][uri].as_array().cloned().unwrap()
}

#[test]
fn initialize_announces_what_the_server_does() {
    let dir = tempfile::tempdir().unwrap();
    let (client, init) = Client::start(dir.path(), &[], json!({}));
    let caps = &init["capabilities"];
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert_eq!(caps["referencesProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert_eq!(init["serverInfo"]["name"], "mcpdesc");
    client.shutdown();
}

#[test]
fn findings_hovers_and_fixes_in_a_json_description() {
    let (_dir, mut client, uri, text) = open_fixture(
        "expected-invalid/elicitation-before-2025-06-18.json",
        "json",
    );
    let diags = client.diagnostics(&uri, 1);
    assert_eq!(
        rules_of(&diags),
        ["mcpdesc.conformance.legacy-incomplete", ELICITATION_RULE]
    );
    let d = find(&diags, ELICITATION_RULE).clone();
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "mcpdesc");
    assert_eq!(d["range"]["start"], position(12, 8));
    assert!(
        d["message"].as_str().unwrap().ends_with("(MCP 2025-03-26)"),
        "{d}"
    );
    assert_eq!(d["data"]["pointer"], "/tools/0/elicitations/0");
    // The link is to the rendered page of the rule that fired, in the cache directory.
    let href = d["codeDescription"]["href"].as_str().unwrap();
    assert!(
        href.starts_with("file://") && href.ends_with("/mcp/mcp.elicitation.protocol-version.md"),
        "{href}"
    );
    let page = url_path(href);
    wait_until(|| page.is_file(), "the rule page is written");
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .contains(ELICITATION_RULE));

    // Hover on the flagged node: the rule, its requirement and why.
    let h = hover_text(&mut client, &uri, 12, 9);
    assert!(h.contains(ELICITATION_RULE), "{h}");
    assert!(
        h.contains("Requirement: Elicitation is used only from MCP 2025-06-18"),
        "{h}"
    );
    assert!(h.contains("Why: "), "{h}");
    // Hover on `protocolVersions`: the scope it gives.
    let h = hover_text(&mut client, &uri, 6, 4);
    assert!(
        h.contains("**Document scope**: 2025-03-26, 2025-06-18"),
        "{h}"
    );
    assert!(
        h.contains("`/tools/0/elicitations/0`: 2025-03-26, 2025-06-18"),
        "{h}"
    );

    // The rule's fix narrows the elicitation to the versions that have it.
    let actions = actions_for(&mut client, &uri, &d);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Limit `/tools/0/elicitations/0` to MCP 2025-06-18 (protocolVersions)",
            "Suppress mcp.elicitation.protocol-version here (x-mcpdesc-suppress)",
        ]
    );
    assert_eq!(actions[0]["isPreferred"], true);
    let fixed = apply_edits(&text, &edit_of(&actions[0], &uri));
    assert!(
        fixed.contains("\"protocolVersions\": [\"2025-06-18\"],"),
        "{fixed}"
    );
    client.change_all(&uri, 2, &fixed);
    let diags = client.diagnostics(&uri, 2);
    assert_eq!(rules_of(&diags), ["mcpdesc.conformance.legacy-incomplete"]);
    // Hover on the new list: the declaration's own scope.
    let line = fixed
        .lines()
        .position(|l| l.contains("\"protocolVersions\": [\"2025-06-18\"]"))
        .unwrap() as u64;
    let h = hover_text(&mut client, &uri, line, 12);
    assert!(
        h.contains("**Effective scope of `/tools/0/elicitations/0`**: 2025-06-18"),
        "{h}"
    );

    // Suppressing instead: the finding goes, and the new entry is not reported as unused.
    client.change_all(&uri, 3, &text);
    let diags = client.diagnostics(&uri, 3);
    let d = find(&diags, ELICITATION_RULE).clone();
    let actions = actions_for(&mut client, &uri, &d);
    let suppressed = apply_edits(&text, &edit_of(&actions[1], &uri));
    client.change_all(&uri, 4, &suppressed);
    let diags = client.diagnostics(&uri, 4);
    assert_eq!(
        rules_of(&diags),
        ["mcpdesc.conformance.legacy-incomplete"],
        "{suppressed}"
    );
    let v: Value = serde_json::from_str(&suppressed).expect("still JSON");
    assert_eq!(v["x-mcpdesc-suppress"][0]["rule"], ELICITATION_RULE);
    assert_eq!(
        v["x-mcpdesc-suppress"][0]["pointer"],
        "/tools/0/elicitations/0"
    );
    client.shutdown();
}

fn url_path(href: &str) -> std::path::PathBuf {
    url::Url::parse(href).unwrap().to_file_path().unwrap()
}

fn wait_until(mut f: impl FnMut() -> bool, what: &str) {
    let deadline = std::time::Instant::now() + support::lsp::TIMEOUT;
    while !f() {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

const YAML_DOC: &str = "\
mcpdesc: 0.8.0
info:
  name: survey
  version: 1.0.0
protocolVersions:
  - 2025-03-26
  - 2025-06-18
tools:
  - name: ask
    inputSchema:
      type: object
    elicitations:
      - name: rating
        mode: form
        message: How was it?
        requestedSchema:
          type: object
          properties:
            stars:
              type: integer
";

#[test]
fn yaml_fixes_keep_the_block_style() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("survey.yaml");
    std::fs::write(&path, YAML_DOC).unwrap();
    let uri = file_uri(&path);
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.open(&uri, "yaml", YAML_DOC);
    let diags = client.diagnostics(&uri, 1);
    let d = find(&diags, ELICITATION_RULE).clone();
    assert_eq!(d["range"]["start"], position(12, 8));
    let actions = actions_for(&mut client, &uri, &d);
    assert_eq!(actions.len(), 2, "{actions:#?}");

    let fixed = apply_edits(YAML_DOC, &edit_of(&actions[0], &uri));
    assert!(
        fixed.contains(
            "    elicitations:\n      - protocolVersions: [\"2025-06-18\"]\n        name: rating\n"
        ),
        "{fixed}"
    );
    client.change_all(&uri, 2, &fixed);
    assert!(!rules_of(&client.diagnostics(&uri, 2)).contains(&ELICITATION_RULE.to_owned()));

    let suppressed = apply_edits(YAML_DOC, &edit_of(&actions[1], &uri));
    assert!(
        suppressed.starts_with(
            "x-mcpdesc-suppress:\n  - rule: \"mcp.elicitation.protocol-version\"\n    pointer: \"/tools/0/elicitations/0\"\n"
        ),
        "{suppressed}"
    );
    client.change_all(&uri, 3, &suppressed);
    assert_eq!(
        rules_of(&client.diagnostics(&uri, 3)),
        ["mcpdesc.conformance.legacy-incomplete"]
    );

    // Narrowing a document whose scope is its root list: the list itself is rewritten.
    let root_level = YAML_DOC.replace("    elicitations:", "    x-note: 1\n    elicitations:");
    let d = {
        client.change_all(&uri, 4, &root_level);
        let diags = client.diagnostics(&uri, 4);
        find(&diags, ELICITATION_RULE).clone()
    };
    let actions = actions_for(&mut client, &uri, &d);
    assert!(actions[0]["title"]
        .as_str()
        .unwrap()
        .starts_with("Limit `/tools/0/elicitations/0`"));
    client.shutdown();
}

#[test]
fn component_references_lead_to_their_targets_and_back() {
    let (_dir, mut client, uri, text) =
        open_fixture("expected-valid/component-references.json", "json");
    client.diagnostics(&uri, 1);
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u64;
    let col_of = |needle: &str, inner: &str| {
        let l = text.lines().find(|l| l.contains(needle)).unwrap();
        l.find(inner).unwrap() as u64
    };
    // From the tool's reference to `Alias`, and from `Alias`'s reference to `Query`.
    let tool = line_of("\"name\": \"search\"");
    let at = col_of("\"name\": \"search\"", "#/components/schemas/Alias") + 2;
    let r = client.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": position(tool, at)}),
    );
    assert_eq!(
        r["range"]["start"],
        position(line_of("\"Alias\":"), 6),
        "{r}"
    );
    let alias = line_of("\"Alias\":");
    let at = col_of("\"Alias\":", "#/components/schemas/Query");
    let r = client.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": position(alias, at)}),
    );
    assert_eq!(
        r["range"]["start"],
        position(line_of("\"Query\":"), 6),
        "{r}"
    );
    // References of `Query`, asked on its key: the declaration and the one use.
    let r = client.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": position(line_of("\"Query\":"), 8),
               "context": {"includeDeclaration": true}}),
    );
    let starts: Vec<&Value> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["range"]["start"])
        .collect();
    assert_eq!(starts.len(), 2, "{r}");
    assert_eq!(starts[0], &position(line_of("\"Query\":"), 6));
    assert_eq!(starts[1]["line"], alias);
    // From a use: every use of the same target.
    let r = client.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": position(tool, col_of("\"name\": \"search\"", "$componentRef")),
               "context": {"includeDeclaration": false}}),
    );
    assert_eq!(r.as_array().unwrap().len(), 1, "{r}");
    client.shutdown();
}

#[test]
fn incremental_edits_and_bursts_publish_the_newest_text() {
    let (_dir, mut client, uri, text) =
        open_fixture("expected-valid/component-references.json", "json");
    assert!(client.diagnostics(&uri, 1).is_empty());
    // An incremental edit: the tool's name becomes empty.
    let line = text.lines().position(|l| l.contains("\"search\"")).unwrap() as u64;
    let col = text
        .lines()
        .nth(line as usize)
        .unwrap()
        .find("search")
        .unwrap() as u64;
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": position(line, col), "end": position(line, col + 6)}, "text": ""}
        ]}),
    );
    let diags = client.diagnostics(&uri, 2);
    assert_eq!(rules_of(&diags), ["mcpdesc.tool.field-shapes"]);
    // A burst of twenty edits: the last version is published, and far from every one.
    for v in 3..23 {
        let name = if v == 22 { "search" } else { "" };
        let edited = text.replace("\"search\"", &format!("\"{name}\""));
        client.change_all(&uri, v, &edited);
    }
    assert!(client.diagnostics(&uri, 22).is_empty());
    let published = client
        .seen
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .count();
    assert!(
        published < 10,
        "{published} publications for a burst of 20 edits"
    );
    client.shutdown();
}

#[test]
fn other_json_files_and_unsafe_text() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    // A file that is not a description gets no findings.
    let pkg = file_uri(&dir.path().join("package.json"));
    client.open(&pkg, "json", "{\"name\": \"x\", \"version\": \"1\"}");
    assert!(client.diagnostics(&pkg, 1).is_empty());
    // Control characters of the document never reach the editor raw.
    let doc = file_uri(&dir.path().join("evil.json"));
    let text = "{\"mcpdesc\": \"0.8.0\", \"info\": {\"name\": \"n\", \"version\": \"1.0.0\"}, \
                \"protocolVersions\": [\"2025-06-18\"], \"\\u001b]8;;http://x\\u0007k\\u202e\": 1}";
    client.open(&doc, "json", text);
    let diags = client.diagnostics(&doc, 1);
    assert!(!diags.is_empty());
    for d in &diags {
        let m = d["message"].as_str().unwrap();
        assert!(
            !m.chars()
                .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
            "{m:?}"
        );
    }
    client.shutdown();
}

#[test]
fn traffic_captures_are_checked() {
    let (_dir, mut client, uri, _text) = open_fixture(
        "traffic/expected-invalid/elicitation-before-2025-06-18.ndjson",
        "plaintext",
    );
    let diags = client.diagnostics(&uri, 1);
    assert!(
        rules_of(&diags).contains(&ELICITATION_RULE.to_owned()),
        "{diags:#?}"
    );
    client.shutdown();
}

#[test]
fn configuration_is_discovered_as_for_validate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpdesc.toml"),
        "[validate]\nignore = [\"mcp.elicitation.*\"]\n",
    )
    .unwrap();
    let sub = dir.path().join("servers");
    std::fs::create_dir(&sub).unwrap();
    let path = fixture_copy(&sub, "expected-invalid/elicitation-before-2025-06-18.json");
    let uri = file_uri(&path);
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.open(&uri, "json", &std::fs::read_to_string(&path).unwrap());
    let diags = client.diagnostics(&uri, 1);
    assert!(!rules_of(&diags).contains(&ELICITATION_RULE.to_owned()));
    // Editing the configuration takes effect without a restart.
    std::fs::write(
        dir.path().join("mcpdesc.toml"),
        "[validate]\nstrict = true\n",
    )
    .unwrap();
    let diags = wait_for_rules(&mut client, &uri, |rules| {
        rules.contains(&ELICITATION_RULE.to_owned())
    });
    // Strict: every finding is an error but the informational note that the legacy
    // revision this document covers is only partly checked, which stays a warning.
    let legacy = "mcpdesc.conformance.legacy-incomplete";
    assert!(
        diags
            .iter()
            .all(|d| d["severity"] == if d["code"] == legacy { 2 } else { 1 }),
        "{diags:#?}"
    );
    assert!(diags.iter().any(|d| d["code"] == legacy), "{diags:#?}");
    client.shutdown();
}

/// Waits for diagnostics of `uri` that satisfy `ok` (published after a reload).
fn wait_for_rules(client: &mut Client, uri: &str, ok: impl Fn(&[String]) -> bool) -> Vec<Value> {
    let m = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && ok(&rules_of(m["params"]["diagnostics"].as_array().unwrap()))
    });
    m["params"]["diagnostics"].as_array().cloned().unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn a_rule_edit_takes_effect_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    copy_tree(&support::workspace().join("rules"), &rules);
    let rule_file = rules.join("elicitation.yaml");
    let original = std::fs::read_to_string(&rule_file).unwrap();
    let doc = fixture_copy(
        dir.path(),
        "expected-invalid/elicitation-before-2025-06-18.json",
    );
    let uri = file_uri(&doc);
    let rules_arg = rules.to_string_lossy().into_owned();
    let (mut client, _) = Client::start(dir.path(), &["--rules", &rules_arg], json!({}));
    client.open(&uri, "json", &std::fs::read_to_string(&doc).unwrap());
    let diags = client.diagnostics(&uri, 1);
    assert!(find(&diags, ELICITATION_RULE)["message"]
        .as_str()
        .unwrap()
        .starts_with("elicitation does not exist in MCP 2025-03-26"));

    // The message is reworded in the rule file: the open document shows the new one.
    let reworded = original.replacen(
        "elicitation does not exist in MCP {versions}",
        "no elicitation in MCP {versions}",
        1,
    );
    assert_ne!(reworded, original);
    std::fs::write(&rule_file, &reworded).unwrap();
    let diags = wait_for_rules(&mut client, &uri, |_| true);
    let diags = if find(&diags, ELICITATION_RULE)["message"]
        .as_str()
        .unwrap()
        .starts_with("no elicitation")
    {
        diags
    } else {
        client.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m.to_string().contains("no elicitation in MCP")
        })["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap()
    };
    assert!(find(&diags, ELICITATION_RULE)["message"]
        .as_str()
        .unwrap()
        .starts_with("no elicitation in MCP 2025-03-26"));

    // A broken rule file: the error is shown, on the rule file at its position too.
    let broken = reworded.replacen("check: version-range", "check: no-such-check", 1);
    std::fs::write(&rule_file, &broken).unwrap();
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    assert!(
        shown["params"]["message"]
            .as_str()
            .unwrap()
            .contains("no-such-check"),
        "{shown}"
    );
    let rule_uri = file_uri(&rule_file);
    let on_rule = client.any_diagnostics(&rule_uri);
    assert_eq!(on_rule.len(), 1, "{on_rule:#?}");
    let line = broken
        .lines()
        .position(|l| l.contains("check: no-such-check"))
        .unwrap() as u64;
    assert_eq!(on_rule[0]["range"]["start"]["line"], line, "{on_rule:#?}");

    // Repaired: findings come back and the rule file's diagnostics are cleared.
    std::fs::write(&rule_file, &original).unwrap();
    wait_for_rules(&mut client, &uri, |rules| {
        rules.contains(&ELICITATION_RULE.to_owned())
    });
    let cleared = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == rule_uri
            && m["params"]["diagnostics"] == json!([])
    });
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
    client.shutdown();
}

#[test]
fn requests_are_answered_while_a_large_document_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let small = fixture_copy(
        dir.path(),
        "expected-invalid/elicitation-before-2025-06-18.json",
    );
    let small_uri = file_uri(&small);
    let (mut client, _) = Client::start(dir.path(), &[], json!({}));
    client.open(
        &small_uri,
        "json",
        &std::fs::read_to_string(&small).unwrap(),
    );
    client.diagnostics(&small_uri, 1);

    // A description of some thousands of tools takes the worker a while.
    let tools: Vec<Value> = (0..4000)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": "Looks things up.",
                   "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}},
                                   "required": ["q"]}})
        })
        .collect();
    let large = json!({"mcpdesc": "0.8.0", "info": {"name": "big", "version": "1.0.0"},
                       "protocolVersions": ["2025-06-18"], "tools": tools});
    let large_uri = file_uri(&dir.path().join("large.json"));
    client.open(
        &large_uri,
        "json",
        &serde_json::to_string_pretty(&large).unwrap(),
    );
    let hover = client.request_raw(
        "textDocument/hover",
        json!({"textDocument": {"uri": small_uri}, "position": position(12, 9)}),
    );
    assert!(hover["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .contains(ELICITATION_RULE));
    let large_published_first = client.seen.iter().any(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == large_uri
    });
    assert!(
        !large_published_first,
        "the hover was answered only after the large document was checked"
    );
    client.diagnostics(&large_uri, 1);
    client.shutdown();
}

//! Helpers for the unit tests of check modules: compile one check object and run it on one
//! node of a small document with the MCP Description scope model.

use std::collections::HashMap;

use serde_json::Value;

use super::{lookup, CompileCx, Node};
use crate::document::Document;
use crate::eval::context::{DocCache, EvalCtx, Finding};
use crate::eval::scope::{ScopeConfig, ScopeMap};
use crate::path::JsonPath;
use crate::versions::VersionList;

pub(crate) fn versions() -> VersionList {
    VersionList::new(
        [
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    )
    .expect("version list")
}

/// Compiles `check` (a check object with `check: <name>`) and runs it on the node at `at`.
pub(crate) fn run_on(check: &Value, doc: &Value, at: &str) -> Vec<Finding> {
    run_for(check, doc, at, None)
}

/// As [`run_on`], evaluating protocol version `version`.
pub(crate) fn run_for(check: &Value, doc: &Value, at: &str, version: Option<&str>) -> Vec<Finding> {
    let versions = versions();
    let map = check.as_object().expect("check object");
    let name = map["check"].as_str().expect("check name");
    let spec = lookup(name).expect("registered check");
    let files = HashMap::new();
    let compiled = (spec.compile)(
        map,
        &CompileCx {
            versions: &versions,
            files: &files,
            regexes: &crate::checks::Regexes::default(),
            parsed: &crate::checks::ParsedFiles::default(),
            custom: &crate::checks::CheckRegistry::new(),
            owners: &[],
        },
    )
    .unwrap_or_else(|e| panic!("{}: {}", e.pointer, e.message));
    let config = ScopeConfig {
        root: JsonPath::compile("$.protocolVersions").unwrap(),
        member: "protocolVersions".into(),
        declarations: ["$.tools[*]", "$.resources[*]", "$.prompts[*]"]
            .iter()
            .map(|p| JsonPath::compile(p).unwrap())
            .collect(),
    };
    let document = Document::from_value(doc);
    let scopes = ScopeMap::compute(document.root(), &config, &versions);
    let cache = DocCache::default();
    let release = crate::rules::Release {
        version: semver::Version::new(1, 0, 0),
        serves: vec![crate::rules::SpecVersionReq::parse("1.0.0").unwrap()],
        extends: None,
        summary: None,
        lineage: Vec::new(),
        set_serves: Vec::new(),
    };
    let cx = EvalCtx {
        doc: &document,
        root: document.root(),
        versions: &versions,
        release: &release,
        release_fixed: false,
        version: version.and_then(|v| versions.parse(v)),
        scopes: &scopes,
        cache: &cache,
        limits: &crate::document::Limits::default(),
    };
    let value = document.root().pointer(at).expect("node exists");
    let mut out = Vec::new();
    compiled.run(Node { pointer: at, value }, &cx, &mut out);
    out
}

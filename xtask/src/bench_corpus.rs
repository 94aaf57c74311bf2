//! Benchmark corpus: realistic, valid MCP Description documents at three sizes, generated
//! deterministically from a seed, written as JSON and YAML.
//!
//! Every document declares the protocol versions 2025-11-25 and 2026-07-28. One in six of each
//! kind of primitive is scoped to 2025-11-25 and one in six, with the same names, to
//! 2026-07-28 (disjoint variants); those carry named examples, interaction examples and
//! completion examples, whose results differ by version. The other two thirds apply to both
//! versions and carry declarations only. Every Tool has its own input and output schema.
//!
//! This file depends on `serde_json` and the standard library only, so the benchmarks of the
//! core crate can include it as a module.

// `is_multiple_of` needs Rust 1.87; the workspace supports 1.85.
#![allow(clippy::manual_is_multiple_of)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// The seed of the committed corpus.
pub(crate) const SEED: u64 = 0x6d63_7064_6573_6331;

/// The three corpus sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    Small,
    Medium,
    Large,
}

impl Size {
    pub(crate) const ALL: [Size; 3] = [Size::Small, Size::Medium, Size::Large];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
        }
    }

    /// How many primitives of each kind a document of this size holds.
    pub(crate) fn counts(self) -> Counts {
        match self {
            Size::Small => Counts {
                tools: 8,
                resources: 8,
                resource_templates: 6,
                prompts: 6,
            },
            Size::Medium => Counts {
                tools: 200,
                resources: 250,
                resource_templates: 200,
                prompts: 150,
            },
            Size::Large => Counts {
                tools: 2000,
                resources: 2500,
                resource_templates: 2000,
                prompts: 1500,
            },
        }
    }
}

/// Number of entries in each primitive collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub tools: usize,
    pub resources: usize,
    pub resource_templates: usize,
    pub prompts: usize,
}

/// The document of `size` for `seed`.
pub(crate) fn generate(size: Size, seed: u64) -> Value {
    generate_counts(size.counts(), seed)
}

/// A document with `counts` primitives for `seed`.
pub(crate) fn generate_counts(counts: Counts, seed: u64) -> Value {
    Gen::new(seed).document(counts)
}

/// Pretty JSON (two-space indentation) with a final newline.
pub(crate) fn to_json(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).expect("a Value always serializes");
    text.push('\n');
    text
}

/// Block-style YAML in the restricted profile: every string (keys included) double-quoted,
/// numbers, booleans and null plain, empty collections in flow style, no anchors or tags.
pub(crate) fn to_yaml(doc: &Value) -> String {
    let mut out = String::new();
    match doc {
        Value::Object(m) if !m.is_empty() => yaml_map(m, 0, &mut out),
        Value::Array(a) if !a.is_empty() => yaml_seq(a, 0, &mut out),
        other => {
            yaml_scalar(other, &mut out);
            out.push('\n');
        }
    }
    out
}

/// Writes `{small,medium,large}.{json,yaml}` into `dir` and returns the written paths.
pub(crate) fn write_corpus(dir: &Path, seed: u64) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for size in Size::ALL {
        let doc = generate(size, seed);
        for (ext, text) in [("json", to_json(&doc)), ("yaml", to_yaml(&doc))] {
            let path = dir.join(format!("{}.{ext}", size.name()));
            std::fs::write(&path, text)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Whether `dir` holds every corpus file.
pub(crate) fn corpus_present(dir: &Path) -> bool {
    Size::ALL.iter().all(|s| {
        ["json", "yaml"]
            .iter()
            .all(|ext| dir.join(format!("{}.{ext}", s.name())).is_file())
    })
}

// ---------------------------------------------------------------------------------------------
// YAML emitter

fn indent(n: usize, out: &mut String) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

fn yaml_map(m: &Map<String, Value>, level: usize, out: &mut String) {
    let mut first = true;
    for (k, v) in m {
        // The first member of a sequence item continues the `- ` line.
        if !first {
            indent(level, out);
        }
        first = false;
        yaml_string(k, out);
        out.push(':');
        yaml_value(v, level + 2, out);
    }
}

fn yaml_seq(a: &[Value], level: usize, out: &mut String) {
    let mut first = true;
    for v in a {
        if !first {
            indent(level, out);
        }
        first = false;
        out.push_str("- ");
        match v {
            Value::Object(m) if !m.is_empty() => yaml_map(m, level + 2, out),
            Value::Array(a) if !a.is_empty() => yaml_seq(a, level + 2, out),
            other => {
                yaml_scalar(other, out);
                out.push('\n');
            }
        }
    }
}

/// A member value after `key:`; nested blocks start on the next line at `level`.
fn yaml_value(v: &Value, level: usize, out: &mut String) {
    if is_block(v) {
        out.push('\n');
        indent(level, out);
        match v {
            Value::Object(m) => yaml_map(m, level, out),
            Value::Array(a) => yaml_seq(a, level, out),
            _ => unreachable!(),
        }
    } else {
        out.push(' ');
        yaml_scalar(v, out);
        out.push('\n');
    }
}

fn yaml_scalar(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => yaml_string(s, out),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

/// A YAML double-quoted scalar. Every character YAML does not print (C0 and C1 controls,
/// DEL, surrogates cannot occur in a `str`, BOM) is escaped.
fn yaml_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || c == '\u{feff}'
                || c == '\u{fffe}'
                || c == '\u{ffff}' =>
            {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------------------------
// Generator

const V2025: &str = "2025-11-25";
const V2026: &str = "2026-07-28";

/// The version scope of one primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Both versions (no `protocolVersions` of its own): declarations only.
    Both,
    Only2025,
    Only2026,
}

impl Scope {
    /// Four in six unscoped, then a 2025-11-25 variant and a 2026-07-28 variant of one name.
    fn of(i: usize) -> Scope {
        match i % 6 {
            0..=3 => Scope::Both,
            4 => Scope::Only2025,
            _ => Scope::Only2026,
        }
    }

    /// The index that names the primitive: both variants of a pair share it.
    fn name_index(i: usize) -> usize {
        if i % 6 == 5 {
            i - 1
        } else {
            i
        }
    }

    fn list(self) -> Option<Value> {
        match self {
            Scope::Both => None,
            Scope::Only2025 => Some(json!([V2025])),
            Scope::Only2026 => Some(json!([V2026])),
        }
    }

    fn with_examples(self) -> bool {
        self != Scope::Both
    }

    fn is_2026(self) -> bool {
        self == Scope::Only2026
    }
}

/// SplitMix64: small, fast and good enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const VERBS: &[&str] = &[
    "analyze",
    "archive",
    "build",
    "check",
    "classify",
    "compare",
    "convert",
    "create",
    "deploy",
    "describe",
    "estimate",
    "export",
    "fetch",
    "find",
    "forecast",
    "import",
    "index",
    "inspect",
    "list",
    "merge",
    "monitor",
    "plan",
    "publish",
    "rank",
    "reconcile",
    "render",
    "resolve",
    "review",
    "schedule",
    "search",
    "summarize",
    "sync",
    "tag",
    "translate",
    "update",
    "verify",
];

const NOUNS: &[&str] = &[
    "account",
    "alert",
    "artifact",
    "asset",
    "booking",
    "branch",
    "budget",
    "build",
    "campaign",
    "contract",
    "customer",
    "dashboard",
    "dataset",
    "deployment",
    "document",
    "experiment",
    "forecast",
    "incident",
    "invoice",
    "issue",
    "ledger",
    "listing",
    "metric",
    "milestone",
    "order",
    "pipeline",
    "playlist",
    "policy",
    "portfolio",
    "project",
    "release",
    "report",
    "repository",
    "route",
    "schedule",
    "shipment",
    "snapshot",
    "survey",
    "ticket",
    "workflow",
];

const AREAS: &[&str] = &[
    "billing",
    "catalog",
    "crm",
    "docs",
    "finance",
    "fleet",
    "hr",
    "inventory",
    "logistics",
    "marketing",
    "ops",
    "support",
];

const WORDS: &[&str] = &[
    "current",
    "detailed",
    "filtered",
    "historical",
    "latest",
    "monthly",
    "normalized",
    "pending",
    "quarterly",
    "recent",
    "regional",
    "scheduled",
    "shared",
    "summarized",
    "validated",
    "weekly",
    "records",
    "entries",
    "values",
    "changes",
    "results",
    "owners",
    "limits",
    "totals",
    "trends",
    "statuses",
    "identifiers",
    "timestamps",
    "categories",
    "annotations",
    "the",
    "with",
    "for",
    "across",
    "including",
    "and",
    "by",
    "from",
];

const FIELD_NAMES: &[&str] = &[
    "query",
    "limit",
    "offset",
    "owner",
    "status",
    "region",
    "currency",
    "start_date",
    "end_date",
    "include_archived",
    "priority",
    "label",
    "threshold",
    "format",
    "locale",
    "team",
    "category",
    "cursor",
    "sort_by",
    "dry_run",
    "reason",
    "amount",
    "page_size",
    "timezone",
    "channel",
    "notes",
    "source",
    "target",
    "version",
    "tags",
];

const OUTPUT_NAMES: &[&str] = &[
    "id",
    "count",
    "total",
    "status",
    "summary",
    "score",
    "items",
    "updated_at",
    "warnings",
    "next_cursor",
    "owner",
    "url",
    "duration_ms",
    "confidence",
    "changes",
    "state",
];

const TAGS: &[(&str, &str)] = &[
    ("analytics", "Reporting, metrics and forecasts"),
    ("automation", "Scheduled and triggered workflows"),
    ("billing", "Invoices, payments and budgets"),
    ("collaboration", "Comments, reviews and sharing"),
    ("data", "Datasets, exports and imports"),
    ("devops", "Builds, releases and deployments"),
    ("reference", "Reference material and catalogues"),
    ("support", "Tickets, incidents and customers"),
];

/// The kinds of input and output properties the generator uses, with a valid value each.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Text,
    Choice,
    Integer,
    Number,
    Flag,
    List,
    Object,
    DateTime,
}

const KINDS: &[Kind] = &[
    Kind::Text,
    Kind::Choice,
    Kind::Integer,
    Kind::Number,
    Kind::Flag,
    Kind::List,
    Kind::Object,
    Kind::DateTime,
    Kind::Text,
    Kind::Integer,
];

struct Gen {
    rng: Rng,
}

/// One generated property: its schema and a value valid against it.
struct Prop {
    name: String,
    schema: Value,
    value: Value,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen { rng: Rng(seed) }
    }

    fn sentence(&mut self, lead: &str, words: usize) -> String {
        let mut s = lead.to_string();
        for _ in 0..words {
            s.push(' ');
            s.push_str(self.rng.pick(WORDS));
        }
        s.push('.');
        s
    }

    fn title(name: &str) -> String {
        name.split(['_', '-'])
            .filter(|w| !w.is_empty())
            .map(|w| {
                let mut c = w.chars();
                match c.next() {
                    Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                    None => String::new(),
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn tags(&mut self) -> Value {
        let a = self.rng.below(TAGS.len());
        let mut tags = vec![json!(TAGS[a].0)];
        if self.rng.chance(40) {
            let b = (a + 1 + self.rng.below(TAGS.len() - 1)) % TAGS.len();
            tags.push(json!(TAGS[b].0));
        }
        Value::Array(tags)
    }

    fn timestamp(&mut self) -> String {
        format!(
            "2026-{:02}-{:02}T{:02}:{:02}:00Z",
            self.rng.range(1, 12),
            self.rng.range(1, 28),
            self.rng.range(0, 23),
            self.rng.range(0, 59)
        )
    }

    fn word(&mut self) -> String {
        format!("{}-{}", self.rng.pick(NOUNS), self.rng.range(1, 9999))
    }

    fn prop(&mut self, name: &str, owner: &str) -> Prop {
        let kind = self.rng.pick(KINDS);
        let description = format!("{} of {owner}", name.replace('_', " "));
        let (schema, value) = match kind {
            Kind::Text => {
                let max = self.rng.range(32, 512);
                (
                    json!({"type": "string", "description": description, "minLength": 1, "maxLength": max}),
                    json!(self.word()),
                )
            }
            Kind::Choice => {
                let options: Vec<String> = (0..self.rng.range(2, 5))
                    .map(|i| format!("{}_{i}", self.rng.pick(WORDS)))
                    .collect();
                let v = options[self.rng.below(options.len())].clone();
                (
                    json!({"type": "string", "description": description, "enum": options}),
                    json!(v),
                )
            }
            Kind::Integer => {
                let lo = self.rng.range(0, 10);
                let hi = lo + self.rng.range(10, 1000);
                (
                    json!({"type": "integer", "description": description, "minimum": lo, "maximum": hi}),
                    json!(self.rng.range(lo, hi)),
                )
            }
            Kind::Number => (
                json!({"type": "number", "description": description, "minimum": 0}),
                json!(self.rng.range(0, 100_000) as f64 / 100.0 + 0.25),
            ),
            Kind::Flag => (
                json!({"type": "boolean", "description": description}),
                json!(self.rng.chance(50)),
            ),
            Kind::List => {
                let items: Vec<Value> = (0..self.rng.range(1, 3))
                    .map(|_| json!(self.word()))
                    .collect();
                (
                    json!({"type": "array", "description": description, "items": {"type": "string"}, "maxItems": 20}),
                    Value::Array(items),
                )
            }
            Kind::Object => {
                let id = self.word();
                let weight = self.rng.range(1, 50);
                (
                    json!({
                        "type": "object",
                        "description": description,
                        "properties": {
                            "id": {"type": "string"},
                            "weight": {"type": "integer", "minimum": 1}
                        },
                        "required": ["id"],
                        "additionalProperties": false
                    }),
                    json!({"id": id, "weight": weight}),
                )
            }
            Kind::DateTime => {
                let ts = self.timestamp();
                (
                    json!({"type": "string", "description": description, "format": "date-time"}),
                    json!(ts),
                )
            }
        };
        Prop {
            name: name.to_string(),
            schema,
            value,
        }
    }

    fn props(&mut self, names: &[&str], count: usize, owner: &str) -> Vec<Prop> {
        let start = self.rng.below(names.len());
        (0..count)
            .map(|k| {
                let name = names[(start + k * 7) % names.len()];
                self.prop(name, owner)
            })
            .collect()
    }

    /// An object schema over `props`, `required` naming the first `required` of them.
    fn object_schema(props: &[Prop], required: usize, description: &str, closed: bool) -> Value {
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("description".into(), json!(description));
        schema.insert(
            "properties".into(),
            Value::Object(
                props
                    .iter()
                    .map(|p| (p.name.clone(), p.schema.clone()))
                    .collect(),
            ),
        );
        if required > 0 {
            schema.insert(
                "required".into(),
                Value::Array(props[..required].iter().map(|p| json!(p.name)).collect()),
            );
        }
        if closed {
            schema.insert("additionalProperties".into(), json!(false));
        }
        Value::Object(schema)
    }

    /// An instance of `props`: every required one, and the others by chance.
    fn instance(&mut self, props: &[Prop], required: usize) -> Value {
        Value::Object(
            props
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < required || self.rng.chance(50))
                .map(|(_, p)| (p.name.clone(), p.value.clone()))
                .collect(),
        )
    }

    fn document(&mut self, counts: Counts) -> Value {
        let server = format!("{}-hub", self.rng.pick(AREAS));
        let mut doc = Map::new();
        doc.insert(
            "$schema".into(),
            json!("https://mcpdesc.org/schema/mcp-description/0.8.0.json"),
        );
        doc.insert("mcpdesc".into(), json!("0.8.0"));
        doc.insert(
            "info".into(),
            json!({
                "name": server,
                "title": Gen::title(&server),
                "version": "3.4.1",
                "description": self.sentence("Operations hub exposing", 14),
                "id": format!("urn:mcp:{server}"),
                "icons": [
                    {"src": format!("https://{server}.example.com/icons/icon-48.png"), "mimeType": "image/png", "sizes": ["48x48"]},
                    {"src": format!("https://{server}.example.com/icons/icon.svg"), "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "light"}
                ],
                "websiteUrl": format!("https://{server}.example.com"),
                "contact": {
                    "name": "Platform Team",
                    "url": format!("https://{server}.example.com/about"),
                    "email": format!("support@{server}.example.com")
                },
                "license": {"name": "Apache-2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"}
            }),
        );
        doc.insert("protocolVersions".into(), json!([V2025, V2026]));
        doc.insert(
            "instructions".into(),
            json!(self.sentence("Prefer read-only tools before changing", 10)),
        );
        doc.insert(
            "transports".into(),
            json!([
                {"type": "streamable-http", "url": format!("https://{server}.example.com/mcp")},
                {
                    "type": "stdio",
                    "command": server,
                    "args": ["serve", "--config", "/etc/hub/config.toml"],
                    "env": {"HUB_LOG_LEVEL": "info", "HUB_DATA_DIR": "/var/lib/hub"}
                }
            ]),
        );
        doc.insert(
            "securitySchemes".into(),
            json!({
                "oauth": {
                    "type": "oauth2",
                    "description": "OAuth2 for the hosted endpoint",
                    "flows": {
                        "authorizationCode": {
                            "authorizationUrl": format!("https://auth.{server}.example.com/authorize"),
                            "tokenUrl": format!("https://auth.{server}.example.com/token"),
                            "refreshUrl": format!("https://auth.{server}.example.com/refresh"),
                            "scopes": {
                                "hub:read": "Read records",
                                "hub:write": "Change records",
                                "hub:admin": "Administer the hub"
                            }
                        }
                    }
                },
                "apiKey": {"type": "apiKey", "name": "X-Hub-Key", "in": "header"}
            }),
        );
        doc.insert("security".into(), json!([{"oauth": ["hub:read"]}]));
        doc.insert(
            "capabilities".into(),
            json!([{
                "tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": false},
                "completions": {}
            }]),
        );
        let tools: Vec<Value> = (0..counts.tools).map(|i| self.tool(i)).collect();
        let resources: Vec<Value> = (0..counts.resources).map(|i| self.resource(i)).collect();
        let templates: Vec<Value> = (0..counts.resource_templates)
            .map(|i| self.template(i))
            .collect();
        let prompts: Vec<Value> = (0..counts.prompts).map(|i| self.prompt(i)).collect();
        for (key, items) in [
            ("tools", tools),
            ("resources", resources),
            ("resourceTemplates", templates),
            ("prompts", prompts),
        ] {
            if !items.is_empty() {
                doc.insert(key.into(), Value::Array(items));
            }
        }
        doc.insert(
            "tags".into(),
            Value::Array(
                TAGS.iter()
                    .map(|(name, description)| json!({"name": name, "description": description}))
                    .collect(),
            ),
        );
        Value::Object(doc)
    }

    fn tool_name(i: usize) -> String {
        let n = Scope::name_index(i);
        format!(
            "{}_{}_{n}",
            VERBS[n % VERBS.len()],
            NOUNS[(n / VERBS.len()) % NOUNS.len()]
        )
    }

    /// A form elicitation's flat requested schema and an accepted answer.
    fn form(&mut self) -> (Value, Value) {
        let reason_max = self.rng.range(80, 400);
        let level = ["low", "normal", "high"];
        let answer_level = self.rng.pick(&level);
        let schema = json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "title": "Confirm", "default": false},
                "reason": {"type": "string", "title": "Reason", "minLength": 1, "maxLength": reason_max},
                "urgency": {"type": "string", "title": "Urgency", "enum": level}
            },
            "required": ["confirm"]
        });
        let answer = json!({"confirm": true, "reason": self.sentence("Approved", 3), "urgency": answer_level});
        (schema, answer)
    }

    fn tool(&mut self, i: usize) -> Value {
        let scope = Scope::of(i);
        let name = Gen::tool_name(i);
        let noun = name.split('_').nth(1).unwrap_or("record").to_string();
        let mut tool = Map::new();
        tool.insert("name".into(), json!(name));
        if let Some(list) = scope.list() {
            tool.insert("protocolVersions".into(), list);
        }
        tool.insert("title".into(), json!(Gen::title(&name)));
        tool.insert(
            "description".into(),
            json!(self.sentence(&format!("{} {noun}", Gen::title(&name)), 8)),
        );

        let n_in = 2 + self.rng.below(2);
        let required = 1 + self.rng.below(n_in.min(3));
        let input = self.props(FIELD_NAMES, n_in, &name);
        let mut input_schema = Gen::object_schema(
            &input,
            required,
            &format!("Arguments of {name} ({})", i),
            true,
        );
        if scope.is_2026() && self.rng.chance(50) {
            // A header mirror on a top-level primitive property (2026-07-28 only).
            if let Some(p) = input.iter().find(|p| {
                matches!(
                    p.schema.get("type").and_then(Value::as_str),
                    Some("string" | "integer" | "boolean")
                )
            }) {
                let header = format!("Hub-{}", Gen::title(&p.name).replace(' ', "-"));
                input_schema["properties"][&p.name]["x-mcp-header"] = json!(header);
            }
        }
        tool.insert("inputSchema".into(), input_schema);

        let n_out = 2 + self.rng.below(2);
        let mut output = self.props(OUTPUT_NAMES, n_out, &name);
        for p in &mut output {
            if let Some(schema) = p.schema.as_object_mut() {
                schema.shift_remove("description");
            }
        }
        let out_required = 1 + self.rng.below(n_out);
        tool.insert(
            "outputSchema".into(),
            Gen::object_schema(
                &output,
                out_required,
                &format!("Result of {name} ({})", i),
                false,
            ),
        );

        // Half the scoped pairs have an interaction example; those, and one unscoped tool in
        // four, declare a form elicitation. The 2026 variants add a URL flow.
        let interactive = scope.with_examples() && (i / 6) % 2 == 0;
        let has_form = interactive || i % 8 == 0;
        let mut elicitations = Vec::new();
        let mut form = None;
        if has_form {
            let (schema, answer) = self.form();
            elicitations.push(json!({
                "name": "confirm_change",
                "mode": "form",
                "when": self.sentence("The request changes", 4),
                "message": format!("Proceed with {}?", name.replace('_', " ")),
                "requestedSchema": schema,
                "onDecline": "Return without changing anything.",
                "onCancel": "Return without changing anything."
            }));
            form = Some((elicitations[0].clone(), answer));
        }
        let url = format!("https://hub.example.com/connect/{name}");
        if scope.is_2026() && interactive {
            elicitations.push(json!({
                "name": "authorize_account",
                "mode": "url",
                "message": "Connect the upstream account.",
                "url": url
            }));
        }
        if !elicitations.is_empty() {
            tool.insert("elicitations".into(), Value::Array(elicitations.clone()));
        }

        if scope.with_examples() {
            let mut examples = Map::new();
            for k in 0..1 + usize::from(self.rng.chance(20)) {
                let args = self.instance(&input, required);
                let structured = self.instance(&output, out_required);
                let mut result = Map::new();
                if scope.is_2026() {
                    result.insert("resultType".into(), json!("complete"));
                }
                result.insert(
                    "content".into(),
                    json!([{"type": "text", "text": self.sentence(&format!("{} finished", Gen::title(&name)), 8)}]),
                );
                result.insert("structuredContent".into(), structured);
                result.insert("isError".into(), json!(false));
                examples.insert(
                    format!("typical-{}", k + 1),
                    json!({"input": args, "result": result}),
                );
            }
            if self.rng.chance(25) {
                let args = self.instance(&input, required);
                let mut result = Map::new();
                if scope.is_2026() {
                    result.insert("resultType".into(), json!("complete"));
                }
                result.insert(
                    "content".into(),
                    json!([{"type": "text", "text": format!("The {noun} was not found.")}]),
                );
                result.insert("isError".into(), json!(true));
                examples.insert("not-found".into(), json!({"input": args, "result": result}));
            }
            tool.insert("examples".into(), Value::Object(examples));
        }
        if interactive {
            let mut steps = Vec::new();
            if scope == Scope::Only2025 {
                steps.push(json!({
                    "type": "roots",
                    "request": {},
                    "response": {"roots": [{"uri": format!("file:///workspace/{noun}"), "name": "Workspace"}]}
                }));
                steps.push(json!({
                    "type": "sampling",
                    "request": {
                        "messages": [{"role": "user", "content": {"type": "text", "text": self.sentence("Summarize", 6)}}],
                        "tools": [{
                            "name": "lookup_reference",
                            "description": "Look up reference material.",
                            "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
                        }],
                        "toolChoice": {"mode": "auto"},
                        "maxTokens": 200
                    },
                    "response": {
                        "role": "assistant",
                        "content": {"type": "text", "text": self.sentence("The change is", 6)},
                        "model": "example-model-1",
                        "stopReason": "endTurn"
                    }
                }));
            }
            if let Some((decl, answer)) = &form {
                steps.push(json!({
                    "type": "elicitation",
                    "declaration": "confirm_change",
                    "request": {
                        "mode": "form",
                        "message": decl["message"],
                        "requestedSchema": decl["requestedSchema"]
                    },
                    "response": {"action": "accept", "content": answer}
                }));
            }
            if scope.is_2026() {
                steps.push(json!({
                    "type": "elicitation",
                    "declaration": "authorize_account",
                    "request": {"mode": "url", "message": "Connect the upstream account.", "url": url},
                    "response": {"action": "accept"}
                }));
            }
            let args = self.instance(&input, required);
            let structured = self.instance(&output, out_required);
            let mut result = Map::new();
            if scope.is_2026() {
                result.insert("resultType".into(), json!("complete"));
            }
            result.insert(
                "content".into(),
                json!([{"type": "text", "text": self.sentence("Completed after confirmation", 6)}]),
            );
            result.insert("structuredContent".into(), structured);
            tool.insert(
                "interactionExamples".into(),
                json!({"confirmed-change": {"input": args, "steps": steps, "result": result}}),
            );
        }

        let read_only = i % 2 == 0;
        tool.insert(
            "annotations".into(),
            json!({
                "readOnlyHint": read_only,
                "destructiveHint": false,
                "idempotentHint": read_only,
                "openWorldHint": self.rng.chance(30)
            }),
        );
        if !read_only && self.rng.chance(50) {
            tool.insert("security".into(), json!([{"oauth": ["hub:write"]}]));
        } else if self.rng.chance(10) {
            tool.insert("security".into(), json!([{"apiKey": []}]));
        }
        tool.insert("tags".into(), self.tags());
        Value::Object(tool)
    }

    fn resource(&mut self, i: usize) -> Value {
        let scope = Scope::of(i);
        let n = Scope::name_index(i);
        let area = AREAS[n % AREAS.len()];
        let noun = NOUNS[(n / AREAS.len()) % NOUNS.len()];
        let binary = n % 10 == 6;
        let (uri, mime) = if binary {
            (
                format!("asset://{area}/{noun}-{n}.bin"),
                "application/octet-stream",
            )
        } else if n % 2 == 0 {
            (format!("{area}://{noun}/{n}/summary"), "application/json")
        } else {
            (format!("docs://{area}/{noun}-{n}.md"), "text/markdown")
        };
        let name = format!("{area}_{noun}_{n}");
        let mut r = Map::new();
        r.insert("uri".into(), json!(uri));
        r.insert("name".into(), json!(name));
        if let Some(list) = scope.list() {
            r.insert("protocolVersions".into(), list);
        }
        r.insert("title".into(), json!(Gen::title(&name)));
        r.insert(
            "description".into(),
            json!(self.sentence(&format!("The {noun} of {area}"), 7)),
        );
        r.insert("mimeType".into(), json!(mime));
        let priority = self.rng.range(1, 10) as f64 / 10.0;
        let last_modified = self.timestamp();
        r.insert(
            "annotations".into(),
            json!({"audience": ["user", "assistant"], "priority": priority, "lastModified": last_modified}),
        );
        if scope.with_examples() {
            let mut content = Map::new();
            content.insert("uri".into(), json!(uri));
            content.insert("mimeType".into(), json!(mime));
            let size = if binary {
                let bytes: Vec<u8> = (0..self.rng.range(3, 48))
                    .map(|_| self.rng.next() as u8)
                    .collect();
                content.insert("blob".into(), json!(base64(&bytes)));
                bytes.len()
            } else {
                let text = if mime == "application/json" {
                    json!({"id": n, "status": "active", "owner": self.word(), "total": self.rng.range(1, 5000)})
                        .to_string()
                } else {
                    format!(
                        "# {}\n\n{}\n",
                        Gen::title(&name),
                        self.sentence("Notes on", 16)
                    )
                };
                let len = text.len();
                content.insert("text".into(), json!(text));
                len
            };
            r.insert("size".into(), json!(size));
            let mut result = Map::new();
            if scope.is_2026() {
                result.insert("resultType".into(), json!("complete"));
                result.insert("ttlMs".into(), json!(60_000 * self.rng.range(1, 60)));
                result.insert(
                    "cacheScope".into(),
                    json!(if self.rng.chance(50) {
                        "public"
                    } else {
                        "private"
                    }),
                );
            }
            result.insert("contents".into(), json!([content]));
            r.insert("examples".into(), json!({"current": {"result": result}}));
        }
        r.insert("tags".into(), self.tags());
        Value::Object(r)
    }

    fn template(&mut self, i: usize) -> Value {
        let scope = Scope::of(i);
        let n = Scope::name_index(i);
        let area = AREAS[(n + 5) % AREAS.len()];
        let noun = NOUNS[(n / AREAS.len() + 3) % NOUNS.len()];
        let (outer, inner) = [
            ("project", "item"),
            ("owner", "repository"),
            ("team", "member"),
            ("region", "site"),
        ][n % 4];
        let uri_template = format!("{area}://{outer}s/{{{outer}}}/{noun}-{n}/{{{inner}}}");
        let name = format!("{area}_{noun}_detail_{n}");
        let mut t = Map::new();
        t.insert("uriTemplate".into(), json!(uri_template));
        t.insert("name".into(), json!(name));
        if let Some(list) = scope.list() {
            t.insert("protocolVersions".into(), list);
        }
        t.insert("title".into(), json!(Gen::title(&name)));
        t.insert(
            "description".into(),
            json!(self.sentence(&format!("One {noun} of a {outer}"), 7)),
        );
        t.insert("mimeType".into(), json!("application/json"));
        t.insert(
            "annotations".into(),
            json!({"audience": ["assistant"], "priority": self.rng.range(1, 10) as f64 / 10.0}),
        );
        if scope.with_examples() {
            let outer_value = format!("{outer}-{}", self.rng.range(1, 999));
            let inner_value = format!("{inner}-{}", self.rng.range(1, 9999));
            let uri = format!("{area}://{outer}s/{outer_value}/{noun}-{n}/{inner_value}");
            let text =
                json!({"id": inner_value, "parent": outer_value, "state": "open"}).to_string();
            let mut result = Map::new();
            let mut completion_result = Map::new();
            if scope.is_2026() {
                result.insert("resultType".into(), json!("complete"));
                result.insert("ttlMs".into(), json!(300_000));
                result.insert("cacheScope".into(), json!("public"));
                completion_result.insert("resultType".into(), json!("complete"));
            }
            result.insert(
                "contents".into(),
                json!([{"uri": uri, "mimeType": "application/json", "text": text}]),
            );
            t.insert(
                "examples".into(),
                json!({"sample": {"uri": uri, "result": result}}),
            );
            let values: Vec<Value> = (0..self.rng.range(1, 5))
                .map(|k| json!(format!("{inner}-{}{k}", self.rng.range(1, 99))))
                .collect();
            let total = values.len();
            completion_result.insert(
                "completion".into(),
                json!({"values": values, "total": total, "hasMore": false}),
            );
            t.insert(
                "completionExamples".into(),
                json!({
                    "by-prefix": {
                        "argument": {"name": inner, "value": format!("{inner}-")},
                        "context": {"arguments": {outer: outer_value}},
                        "result": completion_result
                    }
                }),
            );
        }
        t.insert("tags".into(), self.tags());
        Value::Object(t)
    }

    fn prompt(&mut self, i: usize) -> Value {
        let scope = Scope::of(i);
        let n = Scope::name_index(i);
        let verb = VERBS[(n + 11) % VERBS.len()];
        let noun = NOUNS[(n / VERBS.len() + 7) % NOUNS.len()];
        let name = format!("{verb}_{noun}_brief_{n}");
        let mut p = Map::new();
        p.insert("name".into(), json!(name));
        if let Some(list) = scope.list() {
            p.insert("protocolVersions".into(), list);
        }
        p.insert("title".into(), json!(Gen::title(&name)));
        p.insert(
            "description".into(),
            json!(self.sentence(&format!("Write a brief to {verb} a {noun}"), 7)),
        );
        let arg_names = ["subject", "audience", "tone", "length", "language"];
        let n_args = 2 + self.rng.below(2);
        let args: Vec<Value> = arg_names[..n_args]
            .iter()
            .enumerate()
            .map(|(k, a)| {
                if k == 0 {
                    json!({"name": a, "description": format!("The {a} of the brief"), "required": true})
                } else {
                    json!({"name": a, "description": format!("The {a} of the brief")})
                }
            })
            .collect();
        p.insert("arguments".into(), Value::Array(args));
        if scope.with_examples() {
            let subject = self.word();
            let mut result = Map::new();
            let mut completion_result = Map::new();
            if scope.is_2026() {
                result.insert("resultType".into(), json!("complete"));
                completion_result.insert("resultType".into(), json!("complete"));
            }
            result.insert("description".into(), json!(format!("Brief on {subject}")));
            result.insert(
                "messages".into(),
                json!([
                    {"role": "user", "content": {"type": "text", "text": format!("Write a brief to {verb} {subject} for engineering.")}},
                    {"role": "assistant", "content": {"type": "text", "text": self.sentence("Here is the brief:", 10)}}
                ]),
            );
            p.insert(
                "examples".into(),
                json!({"engineering": {"arguments": {"subject": subject, "audience": "engineering"}, "result": result}}),
            );
            completion_result.insert(
                "completion".into(),
                json!({"values": ["engineering", "executives", "everyone"], "total": 3, "hasMore": false}),
            );
            p.insert(
                "completionExamples".into(),
                json!({
                    "audience-prefix": {
                        "argument": {"name": "audience", "value": "e"},
                        "context": {"arguments": {"subject": subject}},
                        "result": completion_result
                    }
                }),
            );
        }
        p.insert("tags".into(), self.tags());
        Value::Object(p)
    }
}

/// Canonical, padded base64.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

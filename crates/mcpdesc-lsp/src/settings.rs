//! The language server's settings: its command line, the editor's initialization options,
//! and, per document, the nearest `mcpdesc.toml` (as for `validate`; the command line and
//! the editor win over the file).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcpdesc_core::Limits;
use serde::Deserialize;

use mcpdesc_project::config::{Config, InputKind};

/// What holds for every document of a session.
pub(crate) struct StartupOptions {
    pub rules: Vec<PathBuf>,
    pub extend_rules: Vec<PathBuf>,
    pub spec_version: Option<String>,
    /// `--config FILE`: one configuration for every document.
    pub config: Option<Arc<Config>>,
    pub no_config: bool,
    /// The workspace root, where documents without a file look for `mcpdesc.toml`.
    pub root: Option<PathBuf>,
    pub limits: Limits,
    /// How long edits must pause before a document is checked again.
    pub debounce: Duration,
    pub editor: EditorOptions,
}

/// `initializationOptions` an editor may send; every key is optional.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct EditorOptions {
    /// Rules directories, as `--rules`.
    pub rules: Vec<PathBuf>,
    /// House-rule directories, as `--extend-rules`.
    pub extend_rules: Vec<PathBuf>,
    pub spec_version: Option<String>,
    pub strict: Option<bool>,
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub protocol_versions: Option<Vec<String>>,
    pub docs_base_url: Option<String>,
    pub debounce_ms: Option<u64>,
}

impl EditorOptions {
    /// The options an editor sent, read member by member: a member of the wrong type, or one
    /// that is not an option, is left out and named in the problems returned, and the others
    /// still hold.
    pub(crate) fn read(options: Option<&serde_json::Value>) -> (EditorOptions, Vec<String>) {
        use serde_json::{Map, Value};
        let map = match options {
            None | Some(Value::Null) => return (EditorOptions::default(), Vec::new()),
            Some(Value::Object(map)) => map,
            Some(other) => {
                return (
                    EditorOptions::default(),
                    vec![format!("`initializationOptions` is an object, not {other}")],
                )
            }
        };
        let mut good = Map::new();
        let mut problems = Vec::new();
        for (name, value) in map {
            let one = Map::from_iter([(name.clone(), value.clone())]);
            match serde_json::from_value::<EditorOptions>(Value::Object(one)) {
                Ok(_) => {
                    good.insert(name.clone(), value.clone());
                }
                Err(e) => problems.push(format!("`{name}`: {e}")),
            }
        }
        let options = serde_json::from_value(Value::Object(good)).unwrap_or_default();
        (options, problems)
    }
}

/// The settings one document is checked with; documents with equal settings share an engine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Settings {
    pub rules: Vec<PathBuf>,
    pub extend_rules: Vec<PathBuf>,
    pub spec_version: Option<String>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub versions: Vec<String>,
    pub strict: bool,
    pub kind: InputKind,
    pub docs_base_url: Option<String>,
}

impl Settings {
    /// The command line first, then the editor's options, then the configuration file.
    pub(crate) fn merge(startup: &StartupOptions, config: Option<&Config>) -> Settings {
        let e = &startup.editor;
        let d = config.map(|c| c.defaults.clone()).unwrap_or_default();
        let rules = if !startup.rules.is_empty() {
            startup.rules.clone()
        } else if !e.rules.is_empty() {
            e.rules.clone()
        } else {
            d.rules.into_iter().collect()
        };
        let extend_rules = if !startup.extend_rules.is_empty() {
            startup.extend_rules.clone()
        } else if !e.extend_rules.is_empty() {
            e.extend_rules.clone()
        } else {
            d.extend_rules.clone().unwrap_or_default()
        };
        let mut ignore = d.ignore.unwrap_or_default();
        ignore.extend(e.ignore.iter().flatten().cloned());
        Settings {
            rules,
            extend_rules,
            spec_version: startup
                .spec_version
                .clone()
                .or_else(|| e.spec_version.clone())
                .or(d.spec_version),
            select: e.select.clone().or(d.select).unwrap_or_default(),
            ignore,
            versions: e
                .protocol_versions
                .clone()
                .or(d.protocol_versions)
                .unwrap_or_default(),
            strict: e.strict.or(d.strict).unwrap_or(false),
            kind: d.kind.unwrap_or(InputKind::Auto),
            docs_base_url: e.docs_base_url.clone().or(d.docs_base_url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::EditorOptions;
    use serde_json::json;

    #[test]
    fn one_bad_option_leaves_the_others() {
        let (o, problems) = EditorOptions::read(Some(&json!({
            "strict": "yes",
            "select": ["mcpdesc.tool"],
            "debounceMs": 50,
            "selekt": ["x"],
        })));
        assert_eq!(o.strict, None);
        assert_eq!(o.select, Some(vec!["mcpdesc.tool".to_owned()]));
        assert_eq!(o.debounce_ms, Some(50));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("`selekt`: unknown field")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("`strict`: invalid type")),
            "{problems:?}"
        );
        let (_, problems) = EditorOptions::read(Some(&json!([1])));
        assert_eq!(problems.len(), 1);
        assert_eq!(EditorOptions::read(None).1.len(), 0);
    }
}

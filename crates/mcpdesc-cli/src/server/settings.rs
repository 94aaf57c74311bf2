//! The language server's settings: its command line, the editor's initialization options,
//! and, per document, the nearest `mcpdesc.toml` (as for `validate`; the command line and
//! the editor win over the file).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcpdesc_core::Limits;
use serde::Deserialize;

use crate::config::Config;
use crate::validate_cmd::InputKind;

/// What holds for every document of a session.
pub struct StartupOptions {
    pub rules: Vec<PathBuf>,
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
#[serde(default, rename_all = "camelCase")]
pub struct EditorOptions {
    /// Rules directories, as `--rules`.
    pub rules: Vec<PathBuf>,
    pub spec_version: Option<String>,
    pub strict: Option<bool>,
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub protocol_versions: Option<Vec<String>>,
    pub docs_base_url: Option<String>,
    pub debounce_ms: Option<u64>,
}

/// The settings one document is checked with; documents with equal settings share an engine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Settings {
    pub rules: Vec<PathBuf>,
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
    pub fn merge(startup: &StartupOptions, config: Option<&Config>) -> Settings {
        let e = &startup.editor;
        let d = config.map(|c| c.defaults.clone()).unwrap_or_default();
        let rules = if !startup.rules.is_empty() {
            startup.rules.clone()
        } else if !e.rules.is_empty() {
            e.rules.clone()
        } else {
            d.rules.into_iter().collect()
        };
        let mut ignore = d.ignore.unwrap_or_default();
        ignore.extend(e.ignore.iter().flatten().cloned());
        Settings {
            rules,
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

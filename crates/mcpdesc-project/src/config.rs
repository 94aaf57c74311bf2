//! `mcpdesc.toml`: defaults for the flags of `validate` and per-path rule ignores.
//!
//! ```toml
//! [validate]
//! strict = true
//! fail-on = "warning"
//! ignore = ["mcpdesc.tools.description-present"]
//!
//! [[ignore]]
//! paths = ["servers/legacy/**"]
//! rules = ["mcp.elicitation.*"]
//! reason = "legacy servers predate elicitation"
//! ```
//!
//! `include`, `exclude` and `extend-exclude` under `[validate]` choose the files a directory
//! walk considers, as gitignore-style patterns relative to the file.
//!
//! The file is found by walking up from each input's directory; `--config FILE` names one for
//! every input. Paths in the file are relative to the directory that holds it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use mcpdesc_core::{Format, Severity};
use serde::{Deserialize, Serialize};

use crate::suppress::rule_matches;

/// The configuration file's name.
pub const FILE_NAME: &str = "mcpdesc.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    validate: Defaults,
    #[serde(default)]
    ignore: Vec<PathIgnore>,
}

/// Defaults for the flags of `mcpdesc validate`; a flag given on the command line wins.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Defaults {
    /// Output format, as `--format`.
    pub format: Option<OutputFormat>,
    /// When to colour the text output, as `--color`.
    pub color: Option<ColorWhen>,
    /// Whether to use the strict profile (warnings reported as errors), as `--strict`.
    pub strict: Option<bool>,
    /// The lowest severity that fails the run, as `--fail-on`.
    pub fail_on: Option<FailOn>,
    /// Rules to run, ids or prefixes (`mcp.elicitation.*`), as `--select`.
    pub select: Option<Vec<String>>,
    /// Rules to skip, ids or prefixes, for every document; `--ignore` adds to them.
    pub ignore: Option<Vec<String>>,
    /// The only MCP protocol versions to check for, as `--protocol-version`.
    pub protocol_versions: Option<Vec<String>>,
    /// Where the rule pages linked from findings live, as `--docs-base-url`.
    pub docs_base_url: Option<String>,
    /// `description`, `traffic` or `auto`, as `--kind`.
    pub kind: Option<InputKind>,
    /// Rules directory, relative to the configuration file.
    pub rules: Option<PathBuf>,
    /// House-rules directories applied on top of the releases, relative to the
    /// configuration file, as `--extend-rules`.
    pub extend_rules: Option<Vec<PathBuf>>,
    /// Specification version whose release judges every document, as `--spec-version`.
    pub spec_version: Option<String>,
    /// Baseline file, relative to the configuration file.
    pub baseline: Option<PathBuf>,
    /// Whether a directory or glob that yields no document may pass, as `--allow-empty-input`.
    pub allow_empty_input: Option<bool>,
    /// Gitignore-style patterns of the files a directory walk considers, relative to the
    /// configuration file, as `--include` [default: every `*.json`, `*.yaml`, `*.yml`,
    /// `*.ndjson`, `*.jsonl`].
    pub include: Option<Vec<String>>,
    /// Gitignore-style patterns of the files and directories a walk leaves out, relative to
    /// the configuration file; replaces the default list, as `--exclude`.
    pub exclude: Option<Vec<String>>,
    /// Patterns left out in addition to `exclude` (or the default list), as
    /// `--extend-exclude`.
    pub extend_exclude: Option<Vec<String>>,
    /// Whether `exclude` and the recognition of descriptions apply to files named on the
    /// command line too, as `--force-exclude`.
    pub force_exclude: Option<bool>,
}

/// The output formats of `mcpdesc validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    /// Diagnostics with source excerpts, grouped by file, and a summary line.
    Text,
    /// One line per finding (`path:line:col: severity rule-id message`), and a summary line.
    Concise,
    /// The documented machine contract (`{"files": [...]}`).
    Json,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…::…`).
    Github,
    /// JUnit XML, one test suite per document.
    Junit,
}

/// What `--kind` says the inputs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// By file extension.
    Auto,
    /// MCP Description documents (JSON or YAML).
    Description,
    /// Captures of MCP JSON-RPC traffic.
    Traffic,
}

impl InputKind {
    /// The format an input of this kind named `name` is read as.
    pub fn format(self, name: &str) -> Format {
        match (self, Format::from_path(name)) {
            (InputKind::Traffic, _) => Format::Capture,
            (InputKind::Description, Format::Capture) => Format::Json,
            (_, format) => format,
        }
    }
}

/// When to colour the text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always, even when the output is not a terminal.
    Always,
    /// Never: plain text.
    Never,
}

/// The lowest severity that makes `validate` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Only errors fail the run (the default).
    Error,
    /// Warnings and errors fail the run.
    Warning,
    /// Any finding fails the run.
    Info,
}

impl FailOn {
    /// The severity this choice names: findings at or above it fail the run.
    pub fn severity(self) -> Severity {
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathIgnore {
    paths: Vec<String>,
    rules: Vec<String>,
    #[allow(dead_code)]
    #[serde(default)]
    reason: Option<String>,
}

/// Why a configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The configuration file.
        path: PathBuf,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, or not the configuration's shape.
    #[error("invalid {}", path.display())]
    Invalid {
        /// The configuration file.
        path: PathBuf,
        /// Where and how the text is wrong.
        #[source]
        source: toml::de::Error,
    },
    /// A path pattern of an `[[ignore]]` block is not a valid glob.
    #[error("{}: bad path pattern `{pattern}`", path.display())]
    BadPattern {
        /// The configuration file.
        path: PathBuf,
        /// The pattern as written.
        pattern: String,
        /// Why the pattern is invalid.
        #[source]
        source: globset::Error,
    },
    /// The patterns of an `[[ignore]]` block, each valid, could not be combined into one set.
    #[error(transparent)]
    Patterns(#[from] globset::Error),
}

/// A loaded configuration file.
#[derive(Debug)]
pub struct Config {
    /// The directory holding the file; relative paths in it resolve here.
    pub dir: PathBuf,
    /// Defaults for the flags of `validate`, its relative paths resolved against [`Config::dir`].
    pub defaults: Defaults,
    ignores: Vec<(GlobSet, Vec<String>)>,
}

impl Config {
    /// Reads and checks the configuration file at `path`, compiling its path patterns.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file: ConfigFile = toml::from_str(&text).map_err(|source| ConfigError::Invalid {
            path: path.to_owned(),
            source,
        })?;
        let dir = absolute(path.parent().unwrap_or(Path::new(".")));
        let mut ignores = Vec::new();
        for ig in file.ignore {
            let mut set = GlobSetBuilder::new();
            for p in &ig.paths {
                let glob = GlobBuilder::new(p.trim_start_matches("./"))
                    .literal_separator(true)
                    .build()
                    .map_err(|source| ConfigError::BadPattern {
                        path: path.to_owned(),
                        pattern: p.clone(),
                        source,
                    })?;
                set.add(glob);
            }
            ignores.push((set.build()?, ig.rules));
        }
        let mut defaults = file.validate;
        defaults.rules = defaults.rules.map(|r| dir.join(r));
        defaults.extend_rules = defaults
            .extend_rules
            .map(|dirs| dirs.into_iter().map(|d| dir.join(d)).collect());
        defaults.baseline = defaults.baseline.map(|b| dir.join(b));
        Ok(Config {
            dir,
            defaults,
            ignores,
        })
    }

    /// Whether an `[[ignore]]` block covers rule `rule` in the document at `file` (absolute).
    pub fn ignores(&self, file: &Path, rule: &str) -> bool {
        if self.ignores.is_empty() {
            return false;
        }
        let rel = file.strip_prefix(&self.dir).unwrap_or(file);
        let rel = rel.to_string_lossy().replace('\\', "/");
        self.ignores
            .iter()
            .any(|(set, rules)| set.is_match(&rel) && rules.iter().any(|p| rule_matches(p, rule)))
    }
}

/// `path` made absolute and, where it exists, free of symbolic links and `..`.
pub fn absolute(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_owned())
}

/// Finds and caches the nearest `mcpdesc.toml` at or above each directory.
#[derive(Default)]
pub struct Discovery {
    cache: HashMap<PathBuf, Option<Arc<Config>>>,
}

impl Discovery {
    /// The configuration for documents in `dir` (absolute).
    pub fn for_dir(&mut self, dir: &Path) -> Result<Option<Arc<Config>>, ConfigError> {
        if let Some(found) = self.cache.get(dir) {
            return Ok(found.clone());
        }
        let candidate = dir.join(FILE_NAME);
        let found = if candidate.is_file() {
            Some(Arc::new(Config::load(&candidate)?))
        } else {
            match dir.parent() {
                Some(parent) => self.for_dir(parent)?,
                None => None,
            }
        };
        self.cache.insert(dir.to_owned(), found.clone());
        Ok(found)
    }
}

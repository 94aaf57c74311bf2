//! Baselines: today's findings recorded in a file, so that later runs report only new ones.
//!
//! A finding is matched by document path (relative to the baseline file), rule id, JSON
//! Pointer and message; never by line, so edits elsewhere in a document do not disturb it.
//! Equal findings are counted, so a second identical finding at the same node is new.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use mcpdesc_core::Diagnostic;
use serde::{Deserialize, Serialize};

const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    /// Format version of the file.
    version: u32,
    findings: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    rule: String,
    pointer: String,
    message: String,
    #[serde(default = "one", skip_serializing_if = "is_one")]
    count: usize,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

type Key = (String, String, String);

/// A loaded baseline.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    dir: PathBuf,
    by_path: HashMap<String, HashMap<Key, usize>>,
}

impl Baseline {
    /// An empty baseline for the file at `path` (used when writing one).
    pub(crate) fn empty(path: &Path) -> Baseline {
        Baseline {
            dir: base_dir(path),
            by_path: HashMap::new(),
        }
    }

    pub(crate) fn load(path: &Path) -> Result<Baseline> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read baseline {}", path.display()))?;
        let file: BaselineFile = serde_json::from_str(&text)
            .with_context(|| format!("invalid baseline {}", path.display()))?;
        if file.version != FORMAT_VERSION {
            bail!(
                "baseline {} has format version {}; this mcpdesc reads version {FORMAT_VERSION}",
                path.display(),
                file.version
            );
        }
        let mut by_path: HashMap<String, HashMap<Key, usize>> = HashMap::new();
        for e in file.findings {
            *by_path
                .entry(e.path)
                .or_default()
                .entry((e.rule, e.pointer, e.message))
                .or_default() += e.count;
        }
        Ok(Baseline {
            dir: base_dir(path),
            by_path,
        })
    }

    /// The key under which a document is recorded: its path relative to the baseline's
    /// directory, `/`-separated.
    pub(crate) fn key(&self, file: &Path) -> String {
        let rel = file.strip_prefix(&self.dir).unwrap_or(file);
        rel.to_string_lossy().replace('\\', "/")
    }

    /// Removes the findings the baseline records for document `key`; returns how many went.
    pub(crate) fn filter(&self, key: &str, diagnostics: &mut Vec<Diagnostic>) -> usize {
        let Some(known) = self.by_path.get(key) else {
            return 0;
        };
        let mut left = known.clone();
        let before = diagnostics.len();
        diagnostics.retain(|d| {
            let k = (d.rule.clone(), d.pointer.clone(), d.message.clone());
            match left.get_mut(&k) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            }
        });
        before - diagnostics.len()
    }
}

fn base_dir(path: &Path) -> PathBuf {
    mcpdesc_project::config::absolute(
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    )
}

/// Writes `findings` (document key, diagnostics) as a baseline at `path`, sorted.
pub(crate) fn write(path: &Path, findings: &[(String, Vec<Diagnostic>)]) -> Result<usize> {
    let mut counts: BTreeMap<(String, String, String, String), usize> = BTreeMap::new();
    for (key, diags) in findings {
        for d in diags {
            *counts
                .entry((
                    key.clone(),
                    d.rule.clone(),
                    d.pointer.clone(),
                    d.message.clone(),
                ))
                .or_default() += 1;
        }
    }
    let total = counts.values().sum();
    let file = BaselineFile {
        version: FORMAT_VERSION,
        findings: counts
            .into_iter()
            .map(|((path, rule, pointer, message), count)| Entry {
                path,
                rule,
                pointer,
                message,
                count,
            })
            .collect(),
    };
    // Messages and pointers quote the documents: the file decodes to their exact text, but
    // shows no raw control character to whoever looks at it.
    let text = crate::render::safe::to_json_pretty(&file)? + "\n";
    std::fs::write(path, text)
        .with_context(|| format!("cannot write baseline {}", path.display()))?;
    Ok(total)
}

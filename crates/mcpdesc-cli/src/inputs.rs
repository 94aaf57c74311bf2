//! Turning command-line arguments into the documents to validate: files, directories (walked
//! with `.gitignore` honoured), glob patterns and `-` for standard input.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use globset::GlobBuilder;

/// Where a document comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Stdin,
    /// An argument that names nothing readable; the message says why.
    Missing(String),
}

/// One document to validate.
#[derive(Debug, Clone)]
pub struct Input {
    /// The path shown in reports.
    pub display: String,
    pub source: Source,
}

/// Whether a walked file is a document: `*.json`, `*.yaml`, `*.yml`, or a capture
/// (`*.ndjson`, `*.jsonl`), not an `*.expected.yaml` sidecar.
pub fn is_document(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    !name.ends_with(".expected.yaml")
        && !name.ends_with(".expected.yml")
        && [".json", ".yaml", ".yml", ".ndjson", ".jsonl"]
            .iter()
            .any(|e| name.ends_with(e))
}

fn has_glob_meta(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

fn display(path: &Path) -> String {
    let s = path.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// Every document under `dir`, skipping what `.gitignore`/`.ignore` files and hidden names
/// exclude.
fn walk(dir: &Path) -> Vec<PathBuf> {
    ignore::WalkBuilder::new(dir)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()) && is_document(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// Expands the arguments into documents, each listed once: arguments in the order given, the
/// documents of a directory or glob sorted by path. Directories and globs leave out the files
/// of `exclude` (absolute paths, such as the baseline file).
pub fn expand(
    args: &[PathBuf],
    stdin_filename: Option<&str>,
    exclude: &[PathBuf],
) -> Result<Vec<Input>> {
    let keep = |p: &PathBuf| exclude.is_empty() || !exclude.contains(&crate::config::absolute(p));
    let mut out = Vec::new();
    let mut stdin = false;
    for arg in args {
        let text = arg.to_string_lossy();
        if text == "-" {
            if stdin {
                bail!("`-` (standard input) given more than once");
            }
            stdin = true;
            out.push(Input {
                display: stdin_filename.unwrap_or("<stdin>").to_owned(),
                source: Source::Stdin,
            });
        } else if arg.is_dir() {
            out.extend(walk(arg).into_iter().filter(keep).map(|p| Input {
                display: display(&p),
                source: Source::File(p),
            }));
        } else if arg.exists() {
            out.push(Input {
                display: display(arg),
                source: Source::File(arg.clone()),
            });
        } else if has_glob_meta(&text) {
            let found = glob(&text)?;
            if found.is_empty() {
                out.push(Input {
                    display: text.into_owned(),
                    source: Source::Missing("no document matches this pattern".into()),
                });
            }
            out.extend(found.into_iter().filter(keep).map(|p| Input {
                display: display(&p),
                source: Source::File(p),
            }));
        } else {
            out.push(Input {
                display: display(arg),
                source: Source::Missing(format!(
                    "cannot read {}: {}",
                    arg.display(),
                    std::fs::metadata(arg)
                        .err()
                        .map_or_else(|| "not a file".to_owned(), |e| e.to_string())
                )),
            });
        }
    }
    if stdin_filename.is_some() && !stdin {
        bail!("--stdin-filename needs `-` among the inputs");
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|i| seen.insert(i.display.clone()));
    Ok(out)
}

/// The documents a glob pattern matches, walking from its longest literal directory prefix.
fn glob(pattern: &str) -> Result<Vec<PathBuf>> {
    let normalized = pattern.strip_prefix("./").unwrap_or(pattern);
    let matcher = GlobBuilder::new(normalized)
        .literal_separator(true)
        .build()?
        .compile_matcher();
    let mut base = if normalized.starts_with('/') {
        PathBuf::from("/")
    } else {
        PathBuf::new()
    };
    for part in normalized.split('/').filter(|p| !p.is_empty()) {
        if has_glob_meta(part) {
            break;
        }
        base.push(part);
    }
    let root = if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    };
    Ok(walk(&root)
        .into_iter()
        .filter(|p| matcher.is_match(display(p)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::is_document;
    use std::path::Path;

    #[test]
    fn documents_by_extension_without_sidecars() {
        assert!(is_document(Path::new("a/b.json")));
        assert!(is_document(Path::new("a/b.YML")));
        assert!(!is_document(Path::new("a/b.expected.yaml")));
        assert!(!is_document(Path::new("a/b.toml")));
    }
}

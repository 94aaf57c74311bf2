//! Paths: absolute paths without requiring the file to exist, and relative links
//! between two places on disk.

use std::path::{Component, Path, PathBuf};

/// `path` made absolute, with `.` and `..` resolved and symbolic links of its existing
/// ancestors followed, so two spellings of one place compare equal.
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let lexical = normalize(&joined);
    // Canonicalize the deepest ancestor that exists, keep the rest as written.
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return lexical,
        }
    }
    let mut out = existing.canonicalize().unwrap_or(existing);
    for name in rest.iter().rev() {
        out.push(name);
    }
    out
}

/// Resolves `.` and `..` without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The `/`-separated relative path from directory `from` to `to`, both resolved with
/// [`absolute`]; `None` when they share no root.
pub fn relative(from: &Path, to: &Path) -> Option<String> {
    let from = absolute(from);
    let to = absolute(to);
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    if f.first() != t.first() {
        return None;
    }
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), f.len() - common).collect();
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// Whether `inner` is `outer` or lies below it (both resolved with [`absolute`]).
pub fn contains(outer: &Path, inner: &Path) -> bool {
    absolute(inner).starts_with(absolute(outer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        std::fs::create_dir_all(base.join("docs/rules/mcp")).unwrap();
        std::fs::create_dir_all(base.join("rules")).unwrap();
        assert_eq!(
            relative(&base.join("docs/rules/mcp"), &base.join("rules/a.yaml")).as_deref(),
            Some("../../../rules/a.yaml")
        );
        assert_eq!(
            relative(
                &base.join("docs/not-yet/x"),
                &base.join("rules/../spec/f.json")
            )
            .as_deref(),
            Some("../../../spec/f.json")
        );
        assert!(contains(&base.join("rules/.."), &base.join("docs/rules")));
        assert!(!contains(&base.join("rules"), &base.join("docs/rules")));
    }
}

//! GitHub Actions workflow commands: one annotation per finding.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcpdesc_project::config::absolute;

use mcpdesc_core::Severity;

use super::safe::escape;
use super::{text::summary, versions_suffix, FileResult, RenderContext};

/// Encodes the message part of a workflow command. Its pieces were escaped with
/// [`escape`] before, so a line break left here is one of ours (the runner decodes `%0A` into
/// a line of the annotation), never one from a document.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes and encodes a property value of a workflow command (a path, a rule id).
fn property(s: &str) -> String {
    data(&escape(s)).replace(':', "%3A").replace(',', "%2C")
}

/// The directory annotation paths are relative to: the checkout of the workflow
/// (`GITHUB_WORKSPACE`), else the repository holding the current directory. GitHub matches
/// `file=` against paths in the repository, so `../specs/a.yaml` or an absolute path would
/// annotate nothing.
fn repository_root() -> Option<PathBuf> {
    if let Some(workspace) = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty()) {
        return Some(absolute(Path::new(&workspace)));
    }
    let cwd = absolute(Path::new("."));
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// `path` relative to `root` with `/` separators, or as given when it lies outside.
fn in_repository(path: &str, root: Option<&Path>) -> String {
    let Some(root) = root else {
        return path.to_owned();
    };
    match absolute(Path::new(path)).strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        _ => path.to_owned(),
    }
}

/// `,line=…,col=…` as far as the position is known: a column without its line means
/// nothing, and `line=0` points at no line at all.
fn position(line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => String::new(),
        (line, 0) => format!(",line={line}"),
        (line, column) => format!(",line={line},col={column}"),
    }
}

/// `::error file=…,line=…,col=…,title=…::message`, then the summary as a plain log line.
pub(crate) fn github(results: &[FileResult], ctx: &RenderContext<'_>) -> String {
    github_in(results, ctx, repository_root().as_deref())
}

fn github_in(results: &[FileResult], ctx: &RenderContext<'_>, root: Option<&Path>) -> String {
    let mut out = String::new();
    for r in results {
        let file = in_repository(&r.path, root);
        if let Some(e) = r.unclaimed_load_error() {
            let mut props = format!("file={}", property(&file));
            props.push_str(&position(e.line, e.column));
            let _ = write!(props, ",title={}", property(e.code));
            let _ = writeln!(out, "::error {props}::{}", data(&escape(&e.message)));
        }
        for d in &r.diagnostics {
            let command = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut props = format!("file={}", property(&file));
            props.push_str(&position(d.line, d.column));
            let _ = write!(props, ",title={}", property(&d.rule));
            let mut message = format!("{}{}", escape(&d.message), versions_suffix(d));
            if !d.pointer.is_empty() {
                let _ = write!(message, " at {}", escape(&d.pointer));
            }
            if let Some(url) = ctx.doc_url(r, &d.rule) {
                let _ = write!(message, "\n{}", escape(&url));
            }
            let _ = writeln!(out, "::{command} {props}::{}", data(&message));
        }
    }
    let _ = writeln!(out, "{}", summary(results, ctx));
    out
}

#[cfg(test)]
mod tests {
    use super::{in_repository, position};
    use std::path::Path;

    #[test]
    fn paths_are_relative_to_the_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("specs")).unwrap();
        let file = root.join("specs/a.yaml");
        std::fs::write(&file, "").unwrap();
        let abs = file.to_string_lossy().into_owned();
        assert_eq!(in_repository(&abs, Some(&root)), "specs/a.yaml");
        let dotted = root
            .join("specs/../specs/a.yaml")
            .to_string_lossy()
            .into_owned();
        assert_eq!(in_repository(&dotted, Some(&root)), "specs/a.yaml");
        assert_eq!(in_repository(&abs, None), abs);
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere
            .path()
            .join("b.json")
            .to_string_lossy()
            .into_owned();
        assert_eq!(in_repository(&outside, Some(&root)), outside);
    }

    #[test]
    fn unknown_positions_are_left_out() {
        assert_eq!(position(0, 0), "");
        assert_eq!(position(0, 4), "");
        assert_eq!(position(3, 0), ",line=3");
        assert_eq!(position(3, 7), ",line=3,col=7");
    }

    #[test]
    fn without_a_root_paths_stay_as_given() {
        assert_eq!(in_repository("<stdin>", None), "<stdin>");
        assert!(!Path::new("<stdin>").exists());
    }
}

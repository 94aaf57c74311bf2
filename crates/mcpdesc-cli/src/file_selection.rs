//! Which files a run considers: `include`, `exclude` and `extend-exclude` as gitignore-style
//! patterns (from `mcpdesc.toml` or the flags), the default exclude list, and whether they
//! apply to files named on the command line too (`--force-exclude`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use mcpdesc_project::config::Config;

/// The file-selection flags of `validate`; each can also be set under `[validate]` in
/// `mcpdesc.toml`, where patterns are relative to the file (on the command line, to the
/// current directory).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct FileSelectionArgs {
    /// Leave out files and directories matching these gitignore-style patterns when walking
    /// directories and globs; replaces `exclude` of the configuration file and the default
    /// list (`.git`, `node_modules`, `target`, `.venv`, `dist`, `build`, …). Repeatable or
    /// comma-separated.
    #[arg(
        long,
        value_name = "PATTERN",
        value_delimiter = ',',
        help_heading = "File selection"
    )]
    pub exclude: Vec<String>,
    /// Like `--exclude`, but adds to the excluded patterns instead of replacing them.
    #[arg(
        long,
        value_name = "PATTERN",
        value_delimiter = ',',
        help_heading = "File selection"
    )]
    pub extend_exclude: Vec<String>,
    /// Consider only files matching these gitignore-style patterns when walking directories
    /// and globs [default: *.json, *.yaml, *.yml, *.ndjson, *.jsonl]. Of these, only MCP
    /// Description documents and captures are checked.
    #[arg(
        long,
        value_name = "PATTERN",
        value_delimiter = ',',
        help_heading = "File selection"
    )]
    pub include: Vec<String>,
    /// Apply the excludes and the recognition of descriptions to files named on the command
    /// line (and to `--stdin-filename`) too, as hooks that pass every changed file need.
    #[arg(
        long,
        overrides_with = "no_force_exclude",
        help_heading = "File selection"
    )]
    pub force_exclude: bool,
    /// Check files named on the command line whatever the excludes say (the default).
    #[arg(
        long,
        overrides_with = "force_exclude",
        help_heading = "File selection"
    )]
    pub no_force_exclude: bool,
    /// List the files that would be checked on standard output, and those passed over with
    /// the reason on standard error, then exit without checking.
    #[arg(long, help_heading = "File selection")]
    pub show_files: bool,
}

/// What a walk leaves out unless `exclude` says otherwise: version control, dependency,
/// virtual environment, cache and build output directories, which are large and hold other
/// people's JSON.
pub(crate) const DEFAULT_EXCLUDE: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "_build",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "target",
    "venv",
];

/// The files a walk considers before their content is looked at.
pub(crate) const DEFAULT_INCLUDE: &[&str] = &["*.json", "*.yaml", "*.yml", "*.ndjson", "*.jsonl"];

/// Patterns of one origin, matched relative to the directory they are relative to.
#[derive(Debug)]
struct Patterns {
    root: PathBuf,
    set: Gitignore,
}

impl Patterns {
    fn new(root: &Path, patterns: &[String], origin: &str) -> Result<Patterns> {
        Patterns::build(GitignoreBuilder::new(root), root, patterns, origin)
    }

    /// Include patterns ignore case, as the extensions of documents always did (`a.YAML`).
    fn include(root: &Path, patterns: &[String], origin: &str) -> Result<Patterns> {
        let mut builder = GitignoreBuilder::new(root);
        builder.case_insensitive(true)?;
        Patterns::build(builder, root, patterns, origin)
    }

    fn build(
        mut builder: GitignoreBuilder,
        root: &Path,
        patterns: &[String],
        origin: &str,
    ) -> Result<Patterns> {
        for p in patterns {
            builder
                .add_line(None, p)
                .with_context(|| format!("bad pattern `{p}` in {origin}"))?;
        }
        let set = builder
            .build()
            .with_context(|| format!("bad patterns in {origin}"))?;
        Ok(Patterns {
            root: root.to_owned(),
            set,
        })
    }

    /// Whether `abs` matches, or with `ancestors` one of its directories below the root, the
    /// deepest decision winning as in a `.gitignore` (a `!pattern` lets a path back in).
    /// Outside the root only the base name is matched: the directories above a project are
    /// nobody's business (`/home/me/build/project` is not a `build` output).
    fn matches(&self, abs: &Path, is_dir: bool, ancestors: bool) -> bool {
        let rel = match abs.strip_prefix(&self.root) {
            Ok(rel) => rel.to_owned(),
            Err(_) => match abs.file_name() {
                Some(name) => PathBuf::from(name),
                None => return false,
            },
        };
        for (i, ancestor) in rel.ancestors().enumerate() {
            if ancestor.as_os_str().is_empty() || (i > 0 && !ancestors) {
                break;
            }
            let m = self.set.matched(ancestor, is_dir || i > 0);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
        false
    }
}

/// The file selection of one run.
#[derive(Debug)]
pub(crate) struct FileFilter {
    exclude: Vec<Patterns>,
    include: Patterns,
    /// Whether excludes and recognition apply to named files too.
    pub force: bool,
}

impl FileFilter {
    /// The selection of `args` on top of `config` (the configuration of the current
    /// directory, or `--config`), command-line patterns relative to `cwd`.
    pub(crate) fn new(
        args: &FileSelectionArgs,
        config: Option<&Config>,
        cwd: &Path,
    ) -> Result<FileFilter> {
        let from_file = |name: &str| {
            config.map_or_else(
                || format!("the default {name}"),
                |c| format!("`{name}` of {}", c.dir.join("mcpdesc.toml").display()),
            )
        };
        let defaults = config.map(|c| (&c.defaults, c.dir.as_path()));
        let mut exclude = Vec::new();
        if !args.exclude.is_empty() {
            exclude.push(Patterns::new(cwd, &args.exclude, "--exclude")?);
        } else if let Some((list, dir)) =
            defaults.and_then(|(d, dir)| d.exclude.as_ref().map(|l| (l, dir)))
        {
            exclude.push(Patterns::new(dir, list, &from_file("exclude"))?);
        } else {
            let list: Vec<String> = DEFAULT_EXCLUDE.iter().map(|s| (*s).to_owned()).collect();
            exclude.push(Patterns::new(cwd, &list, "the default exclude list")?);
        }
        if let Some((list, dir)) =
            defaults.and_then(|(d, dir)| d.extend_exclude.as_ref().map(|l| (l, dir)))
        {
            exclude.push(Patterns::new(dir, list, &from_file("extend-exclude"))?);
        }
        if !args.extend_exclude.is_empty() {
            exclude.push(Patterns::new(
                cwd,
                &args.extend_exclude,
                "--extend-exclude",
            )?);
        }
        let include = if !args.include.is_empty() {
            Patterns::include(cwd, &args.include, "--include")?
        } else if let Some((list, dir)) =
            defaults.and_then(|(d, dir)| d.include.as_ref().map(|l| (l, dir)))
        {
            Patterns::include(dir, list, &from_file("include"))?
        } else {
            let list: Vec<String> = DEFAULT_INCLUDE.iter().map(|s| (*s).to_owned()).collect();
            Patterns::include(cwd, &list, "the default include list")?
        };
        let force = if args.force_exclude {
            true
        } else if args.no_force_exclude {
            false
        } else {
            config
                .and_then(|c| c.defaults.force_exclude)
                .unwrap_or(false)
        };
        Ok(FileFilter {
            exclude,
            include,
            force,
        })
    }

    /// Whether the file or directory at `path`, or a directory above it, is excluded: for
    /// paths named on the command line.
    pub(crate) fn excluded(&self, path: &Path, is_dir: bool) -> bool {
        let abs = absolute(path);
        self.exclude.iter().any(|p| p.matches(&abs, is_dir, true))
    }

    /// Whether an entry of a walk is excluded; the directories above it were asked on the way
    /// down.
    pub(crate) fn excluded_entry(&self, path: &Path, is_dir: bool) -> bool {
        let abs = absolute(path);
        self.exclude.iter().any(|p| p.matches(&abs, is_dir, false))
    }

    /// Whether a walk considers the file at `path`: included, and not a sidecar of the test
    /// fixtures (`*.expected.yaml`).
    pub(crate) fn included(&self, path: &Path) -> bool {
        let name = path.to_string_lossy().to_ascii_lowercase();
        !name.ends_with(".expected.yaml")
            && !name.ends_with(".expected.yml")
            && self.include.matches(&absolute(path), false, true)
    }
}

/// `path` made absolute without touching the file system (walks see thousands of paths).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(args: FileSelectionArgs) -> (tempfile::TempDir, FileFilter) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let f = FileFilter::new(&args, None, &root).unwrap();
        (dir, f)
    }

    #[test]
    fn the_default_list_excludes_dependency_and_build_directories_at_any_depth() {
        let (dir, f) = filter(FileSelectionArgs::default());
        let root = dir.path().canonicalize().unwrap();
        assert!(f.excluded(&root.join("node_modules"), true));
        assert!(f.excluded(&root.join("web/node_modules/x/package.json"), false));
        assert!(f.excluded(&root.join("target/debug/a.json"), false));
        assert!(!f.excluded(&root.join("specs/a.json"), false));
    }

    #[test]
    fn flags_replace_or_extend_the_default_list() {
        let (dir, f) = filter(FileSelectionArgs {
            exclude: vec!["/specs/legacy".into()],
            ..Default::default()
        });
        let root = dir.path().canonicalize().unwrap();
        assert!(f.excluded(&root.join("specs/legacy/a.json"), false));
        assert!(!f.excluded(&root.join("other/specs/legacy/a.json"), false));
        assert!(!f.excluded(&root.join("node_modules/a.json"), false));

        let (dir, f) = filter(FileSelectionArgs {
            extend_exclude: vec!["*.draft.yaml".into(), "!keep.draft.yaml".into()],
            ..Default::default()
        });
        let root = dir.path().canonicalize().unwrap();
        assert!(f.excluded(&root.join("a/b.draft.yaml"), false));
        assert!(!f.excluded(&root.join("a/keep.draft.yaml"), false));
        assert!(f.excluded(&root.join("node_modules/a.json"), false));
    }

    #[test]
    fn include_replaces_the_files_considered_without_sidecars() {
        let (dir, f) = filter(FileSelectionArgs::default());
        let root = dir.path().canonicalize().unwrap();
        assert!(f.included(&root.join("a/server.json")));
        assert!(f.included(&root.join("a/t.JSONL")));
        assert!(!f.included(&root.join("a/b.expected.yaml")));
        assert!(!f.included(&root.join("a/server.toml")));

        let (dir, f) = filter(FileSelectionArgs {
            include: vec!["/specs/**/*.yaml".into(), "*.mcp".into()],
            ..Default::default()
        });
        let root = dir.path().canonicalize().unwrap();
        assert!(f.included(&root.join("a/server.mcp")));
        assert!(f.included(&root.join("specs/x/server.yaml")));
        assert!(!f.included(&root.join("other/server.yaml")));
        assert!(!f.included(&root.join("a/server.json")));
    }

    #[test]
    fn a_bad_pattern_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = FileFilter::new(
            &FileSelectionArgs {
                exclude: vec!["{a,b".into()],
                ..Default::default()
            },
            None,
            dir.path(),
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("{a,b"), "{err:#}");
    }
}

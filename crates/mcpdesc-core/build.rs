//! Embeds the workspace's `rules/` directory, so the default catalogue needs no files at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            let rel = path
                .strip_prefix(root)
                .expect("below root")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((rel, path));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let rules = manifest.join("../../rules");
    println!("cargo:rerun-if-changed={}", rules.display());
    let mut files = Vec::new();
    collect(&rules, &rules, &mut files);
    files.sort();
    let mut src = String::new();
    let canonical = rules.canonicalize().unwrap_or(rules.clone());
    writeln!(
        src,
        "/// Where the embedded rules came from (for locating example fixtures)."
    )
    .ok();
    writeln!(
        src,
        "pub(crate) const RULES_DIR: &str = {:?};",
        canonical.display().to_string()
    )
    .ok();
    writeln!(
        src,
        "/// (relative path, contents) of every embedded rule-directory file."
    )
    .ok();
    writeln!(src, "pub(crate) static FILES: &[(&str, &str)] = &[").ok();
    for (rel, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            src,
            "    ({rel:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .ok();
    }
    writeln!(src, "];").ok();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("embedded_rules.rs"), src).expect("write embedded rules");
}

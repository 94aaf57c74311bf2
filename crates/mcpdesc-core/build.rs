//! Embeds the workspace's `rules/` directory, so the default catalogue needs no files at run time.
//!
//! Each rule file is also parsed here and embedded as a document snapshot, so loading the
//! default catalogue decodes JSON instead of parsing YAML. A file that does not parse gets no
//! snapshot; loading then parses its text and reports the problem with its position.

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
            Some("yaml" | "yml" | "json" | "j2" | "jinja")
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

/// The snapshot of a rule file that parses (rule files are YAML; other files have none).
fn snapshot(rel: &str, path: &Path) -> Option<Vec<u8>> {
    use mcpdesc_document::{Format, Limits, ValueDocument};
    if !(rel.ends_with(".yaml") || rel.ends_with(".yml")) {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let doc = ValueDocument::parse_str(&text, Format::Yaml, &Limits::default()).ok()?;
    Some(doc.to_snapshot())
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
        "pub const RULES_DIR: &str = {:?};",
        canonical.display().to_string()
    )
    .ok();
    writeln!(
        src,
        "/// (relative path, contents, document snapshot) of every embedded rule-directory file."
    )
    .ok();
    writeln!(
        src,
        "pub(crate) static FILES: &[(&str, &str, Option<&[u8]>)] = &["
    )
    .ok();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let snapshots = out.join("rule-snapshots");
    std::fs::create_dir_all(&snapshots).expect("create the snapshot directory");
    for (i, (rel, path)) in files.iter().enumerate() {
        println!("cargo:rerun-if-changed={}", path.display());
        let snapshot = snapshot(rel, path).map(|bytes| {
            let file = snapshots.join(format!("{i}.bin"));
            std::fs::write(&file, bytes).expect("write a rule snapshot");
            format!("Some(include_bytes!({:?}))", file.display().to_string())
        });
        writeln!(
            src,
            "    ({rel:?}, include_str!({:?}), {}),",
            path.display().to_string(),
            snapshot.as_deref().unwrap_or("None")
        )
        .ok();
    }
    writeln!(src, "];").ok();
    std::fs::write(out.join("embedded_rules.rs"), src).expect("write embedded rules");
}

//! `cargo xtask public-api [--check]`: the reviewed snapshot of every library crate's public API.
//!
//! Each publishable library crate of the workspace has its public API, as its default features
//! build it, listed in `docs/api/<crate>.txt`, one item a line, by the `public-api` crate from
//! rustdoc's JSON output. `--check` fails with a diff when a crate's API differs from its
//! snapshot, so that every change of the API is a deliberate change of that file too.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::workspace;

/// The workspace's library crates that would go to a registry: a `lib` target (the language
/// packages' `cdylib`s carry no Rust API) and publishing not turned off.
fn library_crates(root: &Path) -> Result<Vec<String>> {
    let out = Command::new(cargo())
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let meta: Value = serde_json::from_slice(&out.stdout).context("reading cargo metadata")?;
    let mut names = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let unpublished = package["publish"]
            .as_array()
            .is_some_and(|registries| registries.is_empty());
        let has_lib = package["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "lib"))
            });
        if has_lib && !unpublished {
            if let Some(name) = package["name"].as_str() {
                names.push(name.to_owned());
            }
        }
    }
    names.sort();
    Ok(names)
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Builds `krate`'s rustdoc JSON and returns its path.
///
/// rustdoc's JSON output is an unstable option; `RUSTC_BOOTSTRAP` lets the stable toolchain
/// write it, in a target directory of its own so the ordinary builds keep their artifacts.
fn rustdoc_json(root: &Path, krate: &str) -> Result<PathBuf> {
    let target = root.join("target/public-api");
    let status = Command::new(cargo())
        .args(["rustdoc", "--quiet", "--lib", "-p", krate, "--target-dir"])
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("RUSTDOCFLAGS")
        .current_dir(root)
        .status()
        .with_context(|| format!("running cargo rustdoc for {krate}"))?;
    if !status.success() {
        bail!("cargo rustdoc failed for {krate}");
    }
    Ok(target
        .join("doc")
        .join(format!("{}.json", krate.replace('-', "_"))))
}

/// The public API of `krate`, one item a line, without the impls every type gets for free
/// (blanket and auto-trait impls) that would bury the items a change touches.
fn listing(root: &Path, krate: &str) -> Result<String> {
    let json = rustdoc_json(root, krate)?;
    let api = public_api::Builder::from_rustdoc_json(&json)
        .omit_blanket_impls(true)
        .omit_auto_trait_impls(true)
        .omit_auto_derived_impls(true)
        .build()
        .with_context(|| format!("reading the public API of {krate} from {}", json.display()))?;
    let mut text = String::new();
    for item in api.items() {
        text.push_str(&item.to_string());
        text.push('\n');
    }
    Ok(text)
}

pub(crate) fn public_api_cmd(args: &[String]) -> Result<()> {
    let check = args.iter().any(|a| a == "--check");
    let root = workspace();
    let dir = root.join("docs/api");
    std::fs::create_dir_all(&dir)?;
    let crates = library_crates(&root)?;
    let mut stale = Vec::new();
    for krate in &crates {
        let text = listing(&root, krate)?;
        let file = dir.join(format!("{krate}.txt"));
        let committed = std::fs::read_to_string(&file).unwrap_or_default();
        let items = text.lines().count();
        if committed == text {
            println!("{krate}: {items} items, unchanged");
            continue;
        }
        if check {
            println!("{krate}: the public API differs from docs/api/{krate}.txt:");
            for change in similar::TextDiff::from_lines(&committed, &text)
                .iter_all_changes()
                .filter(|c| c.tag() != similar::ChangeTag::Equal)
            {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    _ => '+',
                };
                print!("{sign}{change}");
            }
            stale.push(krate.clone());
        } else {
            std::fs::write(&file, &text).with_context(|| format!("writing {}", file.display()))?;
            println!("{krate}: {items} items, written to docs/api/{krate}.txt");
        }
    }
    // A snapshot whose crate is gone is stale too.
    for entry in std::fs::read_dir(&dir)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(krate) = name.strip_suffix(".txt") {
            if !crates.iter().any(|c| c == krate) {
                if check {
                    println!("docs/api/{name}: no library crate {krate} in the workspace");
                    stale.push(krate.to_owned());
                } else {
                    std::fs::remove_file(entry.path())?;
                }
            }
        }
    }
    if !stale.is_empty() {
        bail!(
            "the public API of {} changed; review it and run `cargo xtask public-api` to record it",
            stale.join(", ")
        );
    }
    Ok(())
}

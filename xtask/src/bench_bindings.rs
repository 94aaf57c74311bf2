//! `cargo xtask bench-bindings`: in-process validation time of the Python and Node packages
//! against the Rust library, on the shared `small.json` and `medium.json`.
//!
//! The Rust figures are two: the library's `Engine::validate_str`, and the flat API the
//! packages call (`mcpdesc-embed`, which also copies the report into an owned outcome).
//! Each language runs the same protocol (one engine built up front, the text read before
//! timing, three warm-up calls, `runs` timed calls, one JSON line per file). They run in
//! alternating rounds so that a slow period of the machine falls on all of them; each figure
//! is the median of the rounds' medians.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::bench_report::{cargo, shared_bench_file, target_dir};

/// Rounds of the three languages; each round times `RUNS` calls per file.
const ROUNDS: usize = 9;
const RUNS: usize = 40;
/// The binding overhead the packages must stay under, on `medium.json`.
pub(crate) const OVERHEAD_TARGET: f64 = 0.10;

/// One file's figures.
#[derive(Debug, Clone)]
pub(crate) struct FileFigures {
    pub name: String,
    pub bytes: u64,
    pub rust_s: f64,
    /// The flat API the packages wrap (`mcpdesc-embed`), owned outcome included.
    pub embed_s: f64,
    pub python_s: f64,
    pub node_s: f64,
    pub node_async_s: Option<f64>,
}

impl FileFigures {
    pub(crate) fn python_overhead(&self) -> f64 {
        self.python_s / self.rust_s - 1.0
    }

    pub(crate) fn node_overhead(&self) -> f64 {
        self.node_s / self.rust_s - 1.0
    }
}

/// `cargo xtask bench-bindings`.
pub(crate) fn bench_bindings_cmd(_args: &[String]) -> Result<()> {
    let figures = measure()?;
    let mut page = String::new();
    render(&mut page, &figures)?;
    print!("{page}");
    Ok(())
}

/// Builds the Rust baseline and both packages, then measures them.
pub(crate) fn measure() -> Result<Vec<FileFigures>> {
    let ws = crate::workspace();
    let files: Vec<PathBuf> = ["small", "medium"]
        .iter()
        .map(|n| shared_bench_file(n))
        .collect::<Result<_>>()?;
    eprintln!("== building the Rust baseline (release)");
    let status = cargo()
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "mcpdesc-embed",
            "--example",
            "bench_validate",
        ])
        .status()?;
    if !status.success() {
        bail!("building the benchmark example failed");
    }
    let rust_bin = target_dir().join("release/examples/bench_validate");
    eprintln!("== building the Python wheel and the Node package (release)");
    for script in [
        "xtask/bindings/python/build.sh",
        "xtask/bindings/node/build.sh",
    ] {
        let status = Command::new("bash")
            .arg(ws.join(script))
            .current_dir(&ws)
            .stdout(Stdio::null())
            .status()
            .with_context(|| format!("running {script}"))?;
        if !status.success() {
            bail!("{script} failed: {status}");
        }
    }

    let runs = RUNS.to_string();
    let mut rounds: Vec<[Vec<Value>; 4]> = Vec::new();
    for round in 1..=ROUNDS {
        eprintln!("== round {round} of {ROUNDS}");
        let mut rust = Command::new(&rust_bin);
        rust.args(["--runs", &runs]).args(&files);
        let mut embed = Command::new(&rust_bin);
        embed.args(["--api", "embed", "--runs", &runs]).args(&files);
        let mut python = Command::new("bash");
        python
            .arg(ws.join("xtask/bindings/python/bench.sh"))
            .args(["--runs", &runs])
            .args(&files);
        let mut node = Command::new("bash");
        node.arg(ws.join("xtask/bindings/node/bench.sh"))
            .args(["--runs", &runs])
            .args(&files);
        rounds.push([
            lines(&mut rust)?,
            lines(&mut embed)?,
            lines(&mut python)?,
            lines(&mut node)?,
        ]);
    }

    let mut out = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let of = |lang: usize, key: &str| -> Result<Vec<f64>> {
            rounds
                .iter()
                .map(|r| {
                    r[lang]
                        .get(i)
                        .and_then(|v| v.get(key))
                        .and_then(Value::as_f64)
                        .with_context(|| {
                            format!("no `{key}` for {} in {:?}", file.display(), r[lang])
                        })
                })
                .collect()
        };
        let node_async = of(3, "async_median_s").ok().map(median);
        out.push(FileFigures {
            name: file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            bytes: std::fs::metadata(file)?.len(),
            rust_s: median(of(0, "median_s")?),
            embed_s: median(of(1, "median_s")?),
            python_s: median(of(2, "median_s")?),
            node_s: median(of(3, "median_s")?),
            node_async_s: node_async,
        });
    }
    Ok(out)
}

/// The JSON lines a benchmark command prints, one per file.
fn lines(cmd: &mut Command) -> Result<Vec<Value>> {
    let out = cmd
        .current_dir(crate::workspace())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", out.status);
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).with_context(|| format!("reading {l:?} of {cmd:?}")))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn ms(s: f64) -> String {
    format!("{:.2} ms", s * 1e3)
}

fn percent(x: f64) -> String {
    format!("{:+.1} %", x * 100.0)
}

/// The page section of the figures.
pub(crate) fn render(w: &mut String, figures: &[FileFigures]) -> Result<()> {
    writeln!(
        w,
        "In-process validation of the text of each shared document with one engine built up front \
         (`cargo xtask bench-bindings`): the Rust library (`Engine::validate_str`, \
         `crates/mcpdesc-embed/examples/bench_validate.rs`), the flat API the packages wrap \
         (`mcpdesc_embed::Validator::validate`, same example, `--api embed`), the Python package \
         (`Engine.validate(str)`, `crates/mcpdesc-python/bench/bench_validate.py`) and the Node \
         package (`Engine.validate(string)`, and `await Engine.validateAsync(string)` one call at a \
         time, `crates/mcpdesc-node/bench/bench-validate.mjs`), each \
         from its release build, {ROUNDS} alternating rounds of {RUNS} timed calls after 3 warm-up \
         calls; each figure is the median of the rounds' medians. Overhead is the package's time \
         over the library's, target under {:.0} % on `medium.json`.\n",
        OVERHEAD_TARGET * 100.0
    )?;
    writeln!(
        w,
        "| document | bytes | Rust library | Rust flat API | Python | overhead | Node (sync) | overhead | Node (async) |"
    )?;
    writeln!(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    for f in figures {
        writeln!(
            w,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
            f.name,
            f.bytes,
            ms(f.rust_s),
            ms(f.embed_s),
            ms(f.python_s),
            percent(f.python_overhead()),
            ms(f.node_s),
            percent(f.node_overhead()),
            f.node_async_s.map_or_else(|| "–".to_owned(), ms)
        )?;
    }
    if let Some(m) = figures.iter().find(|f| f.name == "medium.json") {
        let ok = m.python_overhead() < OVERHEAD_TARGET && m.node_overhead() < OVERHEAD_TARGET;
        writeln!(
            w,
            "\nTarget (overhead under {:.0} % on `medium.json`): {}.",
            OVERHEAD_TARGET * 100.0,
            if ok { "met" } else { "**missed**" }
        )?;
    }
    Ok(())
}

//! `cargo xtask bench-corpus` and `cargo xtask bench-report`: the benchmark corpus, the
//! criterion run, whole-process measurements and `docs/performance.md`.

// `is_multiple_of` needs Rust 1.87; the workspace supports 1.85.
#![allow(clippy::manual_is_multiple_of)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::bench_corpus::{self, Size};

pub(crate) const NOTES_START: &str = "<!-- analysis: kept by bench-report -->";
const NOTES_END: &str = "<!-- end of analysis -->";

pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => crate::workspace().join("target"),
    }
}

pub(crate) fn default_corpus_dir() -> PathBuf {
    target_dir().join("bench-corpus")
}

/// The value of `--name VALUE` in `args`.
fn option(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// `cargo xtask bench-corpus [--out DIR] [--seed N]`.
pub(crate) fn bench_corpus_cmd(args: &[String]) -> Result<()> {
    let dir = option(args, "--out").map_or_else(default_corpus_dir, PathBuf::from);
    let seed = match option(args, "--seed") {
        Some(s) => s.parse().context("--seed takes an unsigned integer")?,
        None => bench_corpus::SEED,
    };
    for path in bench_corpus::write_corpus(&dir, seed)
        .with_context(|| format!("writing the corpus to {}", dir.display()))?
    {
        let len = std::fs::metadata(&path)?.len();
        println!("{:>12} bytes  {}", thousands(len), path.display());
    }
    Ok(())
}

/// `xtask bench-measure FILE`: validates one file with the embedded catalogue in this process
/// and prints one JSON line with timings, diagnostic counts and peak resident memory
/// (`VmHWM` of `/proc/self/status`). Run from a release build by `bench-report`.
pub(crate) fn bench_measure_cmd(args: &[String]) -> Result<()> {
    let Some(file) = args.first() else {
        bail!("usage: xtask bench-measure FILE");
    };
    let start = Instant::now();
    let engine = mcpdesc_core::Engine::embedded().context("compiling the embedded catalogue")?;
    let catalogue = start.elapsed();
    // As the tool does before reading a document's buffer.
    crate::allocator::prepare_for_document(std::fs::metadata(file).map_or(0, |m| m.len()));
    let baseline = vm_hwm_kb();
    let resident_before = vm_kb("VmRSS:");
    // The library's own use: a buffer the caller has read, then validated in place.
    let bytes = std::fs::read(file).with_context(|| format!("reading {file}"))?;
    let read = vm_hwm_kb();
    let format = mcpdesc_core::Format::from_path(file);
    let start = Instant::now();
    let report = engine.validate_bytes(&bytes, format);
    let validate = start.elapsed();
    let count = |min: mcpdesc_core::Severity| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == min)
            .count()
    };
    // The document model's size, read again once the peak above is recorded.
    let (nodes, tree_bytes) = match mcpdesc_core::Document::parse(&bytes, format, engine.limits()) {
        Ok(doc) => (doc.len(), doc.tree().heap_bytes()),
        Err(_) => (0, 0),
    };
    let line = json!({
        "file": file,
        "bytes": std::fs::metadata(file)?.len(),
        "catalogue_ms": ms(catalogue),
        "validate_ms": ms(validate),
        "errors": count(mcpdesc_core::Severity::Error),
        "warnings": count(mcpdesc_core::Severity::Warning),
        "diagnostics": report.diagnostics.len(),
        "first": report.diagnostics.iter().take(5).map(|d| format!("{} {} {}", d.rule, d.pointer, d.message)).collect::<Vec<_>>(),
        "load_error": report.load_error.as_ref().map(|e| e.message.clone()),
        "vm_hwm_before_kb": baseline,
        "vm_hwm_read_kb": read,
        "vm_hwm_kb": vm_hwm_kb(),
        "vm_rss_before_kb": resident_before,
        "nodes": nodes,
        "tree_heap_bytes": tree_bytes,
    });
    println!("{line}");
    Ok(())
}

fn vm_hwm_kb() -> Option<u64> {
    vm_kb("VmHWM:")
}

fn vm_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn run(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed: {status}");
    }
    Ok(())
}

fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The shared benchmark documents, compressed.
fn shared_bench_dir() -> PathBuf {
    crate::workspace().join("../shared/bench")
}

/// The shared benchmark document `name` (`small`, `medium`, `large`), decompressed to
/// `target/shared-bench/NAME.json`.
pub(crate) fn shared_bench_file(name: &str) -> Result<PathBuf> {
    let gz = shared_bench_dir().join(format!("{name}.json.gz"));
    let out = target_dir().join("shared-bench");
    std::fs::create_dir_all(&out)?;
    let file = out.join(format!("{name}.json"));
    let bytes = Command::new("gzip")
        .arg("-dc")
        .arg(&gz)
        .output()
        .with_context(|| format!("decompressing {}", gz.display()))?;
    if !bytes.status.success() {
        bail!("gzip -dc {} failed", gz.display());
    }
    std::fs::write(&file, &bytes.stdout)?;
    Ok(file)
}

pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Load averages from `/proc/loadavg`.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

struct Machine {
    cpu: String,
    cores: usize,
    memory: String,
    kernel: String,
    rustc: String,
}

fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|v| v.trim_start_matches([' ', '\t', ':']).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or_else(
            || "unknown".into(),
            |kb| format!("{:.1} GiB", kb as f64 / 1024.0 / 1024.0),
        );
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| format!("Linux {}", s.trim()))
        .unwrap_or_else(|_| "unknown".into());
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    Machine {
        cpu,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        memory,
        kernel,
        rustc,
    }
}

/// Criterion results under `target/criterion`: full id → median time in nanoseconds.
fn criterion_results(dir: &Path) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "new") {
                    let read = |name: &str| -> Option<Value> {
                        serde_json::from_str(&std::fs::read_to_string(p.join(name)).ok()?).ok()
                    };
                    if let (Some(bench), Some(est)) =
                        (read("benchmark.json"), read("estimates.json"))
                    {
                        if let (Some(id), Some(median)) = (
                            bench["full_id"].as_str(),
                            est["median"]["point_estimate"].as_f64(),
                        ) {
                            out.insert(id.to_string(), median);
                        }
                    }
                } else {
                    stack.push(p);
                }
            }
        }
    }
    out
}

fn fmt_time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Wall times in ms of `runs` executions of `cmd` (output discarded), after two warm-ups.
fn wall_times(bin: &Path, args: &[&Path], runs: usize) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs + 2 {
        let start = Instant::now();
        let status = Command::new(bin)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("running {}", bin.display()))?;
        let t = ms(start.elapsed());
        if status.code().is_none_or(|c| c > 1) {
            bail!("{} {:?} failed: {status}", bin.display(), args);
        }
        if i >= 2 {
            times.push(t);
        }
    }
    Ok(times)
}

/// Peak RSS in kB of `bin args` per `/usr/bin/time -v`, when that tool exists.
fn time_v_peak(bin: &Path, args: &[&Path]) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out = Command::new(time)
        .arg("-v")
        .arg(bin)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
}

fn measure(helper: &Path, file: &Path) -> Result<Value> {
    let text = output(Command::new(helper).arg("bench-measure").arg(file))?;
    serde_json::from_str(text.trim()).with_context(|| format!("reading the output {text:?}"))
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**missed**"
    }
}

/// `cargo xtask bench-report [--skip-criterion]`: the whole measurement, written to
/// `docs/performance.md`.
pub(crate) fn bench_report_cmd(args: &[String]) -> Result<()> {
    let skip_criterion = args.iter().any(|a| a == "--skip-criterion");
    let ws = crate::workspace();
    let target = target_dir();
    let load_before = load_average();
    let started = Instant::now();

    eprintln!("== corpus");
    let corpus = default_corpus_dir();
    bench_corpus::write_corpus(&corpus, bench_corpus::SEED)?;

    eprintln!("== release build");
    run(cargo().current_dir(&ws).args([
        "build",
        "--release",
        "-q",
        "-p",
        "mcpdesc-cli",
        "-p",
        "xtask",
    ]))?;
    let mcpdesc = target.join("release/mcpdesc");
    let helper = target.join("release/xtask");

    eprintln!("== corpus validity and peak memory");
    let mut measured = BTreeMap::new();
    for size in Size::ALL {
        for ext in ["json", "yaml"] {
            let file = corpus.join(format!("{}.{ext}", size.name()));
            let m = measure(&helper, &file)?;
            eprintln!(
                "   {}.{ext}: {} errors, {} warnings, {:.1} ms, VmHWM {} kB",
                size.name(),
                m["errors"],
                m["warnings"],
                m["validate_ms"].as_f64().unwrap_or(f64::NAN),
                m["vm_hwm_kb"]
            );
            measured.insert(format!("{}.{ext}", size.name()), m);
        }
    }
    let large = corpus.join("large.json");
    let time_v = time_v_peak(&mcpdesc, &[Path::new("validate"), &large]);
    let time_v_yaml = time_v_peak(
        &mcpdesc,
        &[Path::new("validate"), &corpus.join("large.yaml")],
    );

    eprintln!("== whole-process runs");
    let small = corpus.join("small.json");
    let validate = Path::new("validate");
    let small_times = wall_times(&mcpdesc, &[validate, &small], 100)?;
    let version_times = wall_times(&mcpdesc, &[Path::new("--version")], 50)?;

    eprintln!("== traffic capture");
    let traffic_text = crate::bench_traffic::capture(&ws).context("reading the real captures")?;
    let traffic_file = corpus.join("traffic.ndjson");
    std::fs::write(&traffic_file, &traffic_text)?;
    let traffic_messages = traffic_text.lines().count();
    let traffic_bytes = traffic_text.len();
    let traffic_process = median(wall_times(&mcpdesc, &[validate, &traffic_file], 10)?);

    eprintln!("== editor latency");
    let editor_doc = corpus.join("medium.json");
    let editor = crate::bench_editor::measure(&mcpdesc, &editor_doc, 30, 10)
        .context("measuring the language server")?;

    eprintln!("== tap");
    let tap = crate::bench_tap::measure(&mcpdesc, &traffic_file).context("measuring the tap")?;

    eprintln!("== reference documents");
    let mut reference = Vec::new();
    if shared_bench_dir().is_dir() {
        for size in Size::ALL {
            if !shared_bench_dir()
                .join(format!("{}.json.gz", size.name()))
                .is_file()
            {
                continue;
            }
            let file = shared_bench_file(size.name())?;
            let m = measure(&helper, &file)?;
            let runs = if size == Size::Large { 5 } else { 20 };
            let times = wall_times(&mcpdesc, &[validate, &file], runs)?;
            reference.push((size, m, median(times)));
        }
    }

    eprintln!("== language packages");
    let bindings =
        crate::bench_bindings::measure().context("measuring the Python and Node packages")?;

    let criterion_dir = target.join("criterion");
    if !skip_criterion {
        eprintln!("== criterion (MCPDESC_BENCH_QUICK=1)");
        for group in [
            "parse",
            "validate",
            "validate-one-thread",
            "evaluate",
            "catalogue",
            "releases",
            "batch",
            "traffic",
        ] {
            let _ = std::fs::remove_dir_all(criterion_dir.join(group));
        }
        run(cargo()
            .current_dir(&ws)
            .env("MCPDESC_BENCH_QUICK", "1")
            .env("MCPDESC_BENCH_CORPUS", &corpus)
            .args([
                "bench",
                "-q",
                "-p",
                "mcpdesc-core",
                "--bench",
                "validate",
                "--",
                "--noplot",
            ]))?;
    }
    let results = criterion_results(&criterion_dir);
    let load_after = load_average();
    let m = machine();

    let get = |id: &str| results.get(id).copied();
    let bytes_of = |name: &str| measured[name]["bytes"].as_u64().unwrap_or(0);
    let mut doc = String::new();
    let w = &mut doc;
    writeln!(w, "# Performance")?;
    writeln!(w)?;
    writeln!(
        w,
        "Generated by `cargo xtask bench-report`; the figures are from one run. Rerun it after \
         engine or catalogue changes and commit the result."
    )?;
    writeln!(w)?;
    writeln!(w, "## Machine")?;
    writeln!(w)?;
    writeln!(w, "| | |")?;
    writeln!(w, "|---|---|")?;
    writeln!(w, "| CPU | {} |", m.cpu)?;
    writeln!(w, "| cores | {} |", m.cores)?;
    writeln!(w, "| memory | {} |", m.memory)?;
    writeln!(w, "| kernel | {} |", m.kernel)?;
    writeln!(w, "| compiler | {} |", m.rustc)?;
    writeln!(
        w,
        "| load average (1, 5, 15 min) | {load_before} before, {load_after} after |"
    )?;
    writeln!(
        w,
        "| catalogue | {} rules (embedded) |",
        mcpdesc_core::Engine::embedded()
            .map(|e| e.catalogue().rules.len().to_string())
            .unwrap_or_else(|_| "?".into())
    )?;
    writeln!(w)?;
    writeln!(w, "## Reproduce")?;
    writeln!(w)?;
    writeln!(w, "```sh")?;
    writeln!(w, "cargo xtask bench-corpus            # target/bench-corpus/{{small,medium,large}}.{{json,yaml}}")?;
    writeln!(
        w,
        "cargo bench -p mcpdesc-core --bench validate          # full criterion run"
    )?;
    writeln!(
        w,
        "MCPDESC_BENCH_QUICK=1 cargo bench -p mcpdesc-core --bench validate -- --noplot"
    )?;
    writeln!(
        w,
        "cargo xtask bench-bindings          # the Python and Node packages against the library"
    )?;
    writeln!(
        w,
        "cargo xtask bench-tap --write       # mcpdesc tap's latency and throughput, its section only"
    )?;
    writeln!(
        w,
        "cargo xtask bench-report            # everything below, rewrites this page"
    )?;
    writeln!(w, "```")?;
    writeln!(w)?;
    writeln!(w, "## Corpus")?;
    writeln!(w)?;
    writeln!(
        w,
        "Generated with seed `{:#x}` (`xtask/src/bench_corpus.rs`). Diagnostics are those of the \
         embedded catalogue; peak memory is `VmHWM` of a release process that compiles the \
         catalogue, reads the file and validates it.",
        bench_corpus::SEED
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "| document | tools | resources | templates | prompts | bytes | errors | warnings | validate (one run) | peak RSS |"
    )?;
    writeln!(w, "|---|---|---|---|---|---|---|---|---|---|")?;
    for size in Size::ALL {
        let c = size.counts();
        for ext in ["json", "yaml"] {
            let name = format!("{}.{ext}", size.name());
            let r = &measured[&name];
            writeln!(
                w,
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {:.1} ms | {:.1} MB |",
                c.tools,
                c.resources,
                c.resource_templates,
                c.prompts,
                thousands(bytes_of(&name)),
                r["errors"],
                r["warnings"],
                r["validate_ms"].as_f64().unwrap_or(f64::NAN),
                r["vm_hwm_kb"].as_f64().unwrap_or(f64::NAN) / 1024.0
            )?;
        }
    }
    writeln!(w)?;

    writeln!(w, "## Criterion (median per iteration)")?;
    writeln!(w)?;
    writeln!(
        w,
        "`MCPDESC_BENCH_QUICK=1`: 10 samples, 0.5 s warm-up, 2 s measurement per benchmark."
    )?;
    writeln!(w)?;
    writeln!(w, "| benchmark | small | medium | large | large MB/s |")?;
    writeln!(w, "|---|---|---|---|---|")?;
    for group in ["parse", "validate", "validate-one-thread", "evaluate"] {
        for ext in ["json", "yaml"] {
            let cell = |size: Size| {
                get(&format!("{group}/{ext}/{}", size.name())).map_or("—".into(), fmt_time)
            };
            if get(&format!("{group}/{ext}/large")).is_none() {
                continue;
            }
            let rate = get(&format!("{group}/{ext}/large")).map_or("—".into(), |ns| {
                format!(
                    "{:.1}",
                    bytes_of(&format!("large.{ext}")) as f64 / (ns / 1e9) / 1e6
                )
            });
            writeln!(
                w,
                "| {group} {ext} | {} | {} | {} | {rate} |",
                cell(Size::Small),
                cell(Size::Medium),
                cell(Size::Large)
            )?;
        }
    }
    writeln!(w)?;
    writeln!(w, "| benchmark | median | throughput |")?;
    writeln!(w, "|---|---|---|")?;
    if let Some(ns) = get("catalogue/embedded") {
        writeln!(
            w,
            "| catalogue load + compile (embedded) | {} | |",
            fmt_time(ns)
        )?;
    }
    if let Some(ns) = get("catalogue/two-releases") {
        writeln!(
            w,
            "| catalogue load + compile, two releases (embedded 0.8.0 + the test release extending it, read from disk) | {} | |",
            fmt_time(ns)
        )?;
    }
    for (id, label) in [
        (
            "releases/validate-small/one",
            "validate small.json, one release loaded",
        ),
        (
            "releases/validate-small/two",
            "validate small.json, two releases loaded (with the release lookup)",
        ),
        ("releases/lookup", "release lookup alone"),
    ] {
        if let Some(ns) = get(id) {
            writeln!(w, "| {label} | {} | |", fmt_time(ns))?;
        }
    }
    let batch: Vec<(&String, &f64)> = results
        .iter()
        .filter(|(k, _)| k.starts_with("batch/small/"))
        .collect();
    for (id, ns) in &batch {
        writeln!(
            w,
            "| {id} (1,000 documents) | {} | {:.0} documents/s |",
            fmt_time(**ns),
            1000.0 / (**ns / 1e9)
        )?;
    }
    writeln!(w)?;

    writeln!(w, "## Whole process")?;
    writeln!(w)?;
    let small_median = median(small_times.clone());
    writeln!(
        w,
        "`target/release/mcpdesc validate target/bench-corpus/small.json`, {} runs: median \
         {small_median:.2} ms (min {:.2}, max {:.2}). For scale, `mcpdesc --version`: median {:.2} ms.",
        small_times.len(),
        small_times.iter().copied().fold(f64::INFINITY, f64::min),
        small_times.iter().copied().fold(0.0, f64::max),
        median(version_times)
    )?;
    writeln!(w)?;
    let large_hwm = measured["large.json"]["vm_hwm_kb"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let large_base = measured["large.json"]["vm_hwm_before_kb"]
        .as_f64()
        .unwrap_or(f64::NAN);
    writeln!(
        w,
        "Peak memory validating `large.json` ({} bytes): {:.1} MB `VmHWM` (the process held {:.1} MB \
         before reading the file){}.",
        thousands(bytes_of("large.json")),
        large_hwm / 1024.0,
        large_base / 1024.0,
        time_v.map_or(String::new(), |kb| format!(
            "; `/usr/bin/time -v mcpdesc validate large.json`: {:.1} MB maximum RSS",
            kb as f64 / 1024.0
        ))
    )?;
    writeln!(w)?;

    writeln!(w, "## Targets")?;
    writeln!(w)?;
    writeln!(w, "| ratio | target | measured | |")?;
    writeln!(w, "|---|---|---|---|")?;
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let show = |r: Option<f64>| r.map_or("—".into(), |r| format!("{r:.2}×"));
    for (ext, name) in [("json", "JSON"), ("yaml", "YAML")] {
        let r = ratio(
            get(&format!("validate/{ext}/large")),
            get(&format!("parse/{ext}/large")),
        );
        writeln!(
            w,
            "| full validation ÷ parse, large {name} | ≤ 2× | {} | {} |",
            show(r),
            verdict(r.is_some_and(|r| r <= 2.0))
        )?;
        let r = ratio(
            get(&format!("validate-one-thread/{ext}/large")),
            get(&format!("parse/{ext}/large")),
        );
        writeln!(
            w,
            "| full validation on one thread ÷ parse, large {name} | ≤ 2× | {} | {} |",
            show(r),
            verdict(r.is_some_and(|r| r <= 2.0))
        )?;
        let r = ratio(
            get(&format!("validate/{ext}/large")),
            get(&format!("validate/{ext}/medium")),
        );
        let size_ratio =
            bytes_of(&format!("large.{ext}")) as f64 / bytes_of(&format!("medium.{ext}")) as f64;
        writeln!(
            w,
            "| validation large ÷ medium ({name}; {size_ratio:.1}× the bytes) | ≤ 11× | {} | {} |",
            show(r),
            verdict(r.is_some_and(|r| r <= 11.0))
        )?;
    }
    let cat = get("catalogue/embedded");
    writeln!(
        w,
        "| catalogue load + compile | < 10 ms | {} | {} |",
        cat.map_or("—".into(), fmt_time),
        verdict(cat.is_some_and(|ns| ns < 10e6))
    )?;
    let two = get("catalogue/two-releases");
    writeln!(
        w,
        "| catalogue load + compile, two releases | < 10 ms | {} | {} |",
        two.map_or("—".into(), fmt_time),
        verdict(two.is_some_and(|ns| ns < 10e6))
    )?;
    let r = ratio(
        get("releases/validate-small/two"),
        get("releases/validate-small/one"),
    );
    let lookup = get("releases/lookup").zip(get("releases/validate-small/one"));
    writeln!(
        w,
        "| validate small.json with two releases ÷ with one (release lookup) | no measurable cost | {} (lookup alone: {}) | {} |",
        show(r),
        lookup.map_or("—".into(), |(l, v)| format!("{}, {:.3}% of the validation", fmt_time(l), 100.0 * l / v)),
        verdict(lookup.is_some_and(|(l, v)| l / v < 0.001))
    )?;
    writeln!(
        w,
        "| whole-process `validate small.json` | < 20 ms | {small_median:.2} ms | {} |",
        verdict(small_median < 20.0)
    )?;
    let one = get("batch/small/1-thread");
    let all = batch
        .iter()
        .find(|(k, _)| k.ends_with("-threads"))
        .map(|(_, v)| **v);
    let r = ratio(one, all);
    // The same threads only hashing the documents, measured beside the batch: what the cores
    // give work that shares nothing.
    let ceiling = ratio(
        get("batch/ceiling/1-thread"),
        get(&format!("batch/ceiling/{}-threads", m.cores)),
    );
    writeln!(
        w,
        "| batch throughput, {} threads ÷ 1 thread | ≥ 1.8× | {} (the machine's ceiling: {}, the same threads hashing the documents) | {} |",
        m.cores,
        show(r),
        show(ceiling),
        verdict(r.is_some_and(|r| r >= 1.8))
    )?;
    for (ext, name, peak_kb) in [("json", "JSON", time_v), ("yaml", "YAML", time_v_yaml)] {
        let bytes = bytes_of(&format!("large.{ext}")) as f64;
        let r = peak_kb.map(|kb| kb as f64 * 1024.0 / bytes);
        writeln!(
            w,
            "| peak memory ÷ file size, `mcpdesc validate large.{ext}` (maximum RSS) | ≤ 5× | {} | {} |",
            show(r),
            verdict(r.is_some_and(|r| r <= 5.0))
        )?;
        let m = &measured[&format!("large.{ext}")];
        let added = m["vm_hwm_kb"].as_f64().unwrap_or(f64::NAN)
            - m["vm_hwm_before_kb"].as_f64().unwrap_or(f64::NAN);
        let r = added * 1024.0 / bytes;
        writeln!(
            w,
            "| library: peak added by reading large {name} into a buffer and validating it ÷ file size | ≤ 3× | {r:.2}× | {} |",
            verdict(r <= 3.0)
        )?;
    }
    let r = ratio(get("traffic/validate"), get("traffic/serde_json"));
    writeln!(
        w,
        "| traffic validation (one thread) ÷ `serde_json` parse, {} messages | ≤ 3× | {} | {} |",
        thousands(traffic_messages as u64),
        show(r),
        verdict(r.is_some_and(|r| r <= 3.0))
    )?;
    let (iso_median, iso_p90, iso_max) = crate::bench_editor::summary(&editor.isolated);
    writeln!(
        w,
        "| language server, change → diagnostics, medium.json (median of {}) | < 50 ms | {iso_median:.1} ms | {} |",
        editor.isolated.len(),
        verdict(iso_median < 50.0)
    )?;
    let tap_p99 = tap.added_ms(0.99);
    writeln!(
        w,
        "| `mcpdesc tap`: latency added per message, traffic capture replayed in lockstep (p99) | < {} ms | {tap_p99:.3} ms | {} |",
        crate::bench_tap::P99_TARGET_MS,
        verdict(tap_p99 < crate::bench_tap::P99_TARGET_MS)
    )?;
    writeln!(w)?;

    writeln!(w, "## Editor")?;
    writeln!(w)?;
    writeln!(
        w,
        "`mcpdesc server` (release build) driven over stdio by `xtask/src/bench_editor.rs` \
         (`cargo xtask bench-editor [FILE]`), as an editor would: `{}` ({} bytes, {} findings) \
         opened, then incremental edits of one character of a string. Each time runs from \
         writing the `didChange` notification to reading the `publishDiagnostics` of that \
         version, parse, validation, policy and the JSON of both messages included.",
        editor_doc
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        thousands(editor.bytes as u64),
        editor.diagnostics
    )?;
    writeln!(w)?;
    writeln!(w, "| measure | median | 90th percentile | max |")?;
    writeln!(w, "|---|---|---|---|")?;
    writeln!(w, "| open → diagnostics | {:.1} ms | | |", editor.open_ms)?;
    writeln!(
        w,
        "| edit after a pause (checked at once), {} edits | {iso_median:.1} ms | {iso_p90:.1} ms | {iso_max:.1} ms |",
        editor.isolated.len()
    )?;
    let (b_median, b_p90, b_max) = crate::bench_editor::summary(&editor.burst_end);
    writeln!(
        w,
        "| last edit of a burst of 8 keystrokes 30 ms apart, {} bursts | {b_median:.1} ms | {b_p90:.1} ms | {b_max:.1} ms |",
        editor.burst_end.len()
    )?;
    writeln!(w)?;
    writeln!(
        w,
        "A burst waits for its pause at most as long as the document's last check took \
         (`docs/decisions.md`, the language server), so its last edit costs about two checks."
    )?;
    writeln!(w)?;

    writeln!(w, "## Language packages")?;
    writeln!(w)?;
    crate::bench_bindings::render(w, &bindings)?;
    writeln!(w)?;

    writeln!(w, "## Traffic")?;
    writeln!(w)?;
    writeln!(
        w,
        "The real captures of `spec-fixtures/traffic/real/` repeated with fresh JSON-RPC ids (`xtask/src/bench_traffic.rs`; `cargo xtask bench-traffic` writes it): {} messages, {} bytes. `traffic/serde_json` parses each line with `serde_json` alone; `traffic/validate` reads the capture with positions, annotates it and runs every rule, on a one-thread pool. Whole process: `mcpdesc validate` on all cores.",
        thousands(traffic_messages as u64),
        thousands(traffic_bytes as u64)
    )?;
    writeln!(w)?;
    writeln!(w, "| measure | median | messages per second |")?;
    writeln!(w, "|---|---|---|")?;
    for (id, label) in [
        ("traffic/serde_json", "`serde_json` parse only"),
        ("traffic/parse", "read the capture with positions"),
        ("traffic/validate", "validate, one thread"),
    ] {
        if let Some(ns) = get(id) {
            writeln!(
                w,
                "| {label} | {} | {} |",
                fmt_time(ns),
                thousands((traffic_messages as f64 / (ns / 1e9)) as u64)
            )?;
        }
    }
    writeln!(
        w,
        "| whole process, `mcpdesc validate traffic.ndjson` | {traffic_process:.1} ms | {} |",
        thousands((traffic_messages as f64 / (traffic_process / 1e3)) as u64)
    )?;
    writeln!(w)?;
    crate::bench_tap::render(w, &tap)?;
    writeln!(w)?;

    if !reference.is_empty() {
        writeln!(w, "## Reference documents")?;
        writeln!(w)?;
        writeln!(
            w,
            "The shared `bench/*.json.gz` documents (decompressed to `target/shared-bench/`), \
             validated by the release binary with the embedded catalogue."
        )?;
        writeln!(w)?;
        writeln!(
            w,
            "| document | bytes | errors | warnings | in-process validate | whole process (median) | peak RSS |"
        )?;
        writeln!(w, "|---|---|---|---|---|---|---|")?;
        for (size, r, wall) in &reference {
            writeln!(
                w,
                "| {}.json | {} | {} | {} | {:.1} ms | {wall:.1} ms | {:.1} MB |",
                size.name(),
                thousands(r["bytes"].as_u64().unwrap_or(0)),
                r["errors"],
                r["warnings"],
                r["validate_ms"].as_f64().unwrap_or(f64::NAN),
                r["vm_hwm_kb"].as_f64().unwrap_or(f64::NAN) / 1024.0
            )?;
        }
        writeln!(w)?;
    }

    // Hand-written analysis between the markers survives regeneration.
    let path = ws.join("docs/performance.md");
    let previous = std::fs::read_to_string(&path).unwrap_or_default();
    let kept = previous
        .split_once(NOTES_START)
        .and_then(|(_, rest)| rest.split_once(NOTES_END))
        .map_or("\n", |(notes, _)| notes);
    writeln!(w, "{NOTES_START}{kept}{NOTES_END}")?;
    writeln!(w)?;
    writeln!(
        w,
        "_Report took {:.0} s. Load average before and after: {load_before} / {load_after} on {} \
         cores; with other processes on the machine, criterion figures vary by 10–30 % between \
         runs._",
        started.elapsed().as_secs_f64(),
        m.cores
    )?;

    std::fs::write(&path, doc).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    // The corpus must stay valid as the catalogue grows: a generated document with errors
    // is a generator bug or a rule bug, to be looked at before the figures mean anything.
    let invalid: Vec<String> = measured
        .iter()
        .filter(|(_, m)| m["errors"].as_u64() != Some(0) || !m["load_error"].is_null())
        .map(|(name, m)| format!("{name}: {} error(s), e.g. {}", m["errors"], m["first"]))
        .collect();
    if !invalid.is_empty() {
        bail!(
            "the benchmark corpus has errors under the embedded catalogue:\n{}",
            invalid.join("\n")
        );
    }
    Ok(())
}

//! Throughput of the engine on the benchmark corpus (`cargo xtask bench-corpus`).
//!
//! Groups: `parse` (bytes to a positioned [`Document`]), `validate` (parse and evaluate),
//! `evaluate` (an already parsed document), `catalogue` (compiling the embedded catalogue,
//! alone and with the test release that extends it), `releases` (validating a small document
//! with one release loaded and with two, which adds the release lookup) and `batch` (1,000 distinct small documents on one thread and on every core, sharing one
//! [`Engine`], beside the same threads only hashing the documents: the machine's ceiling).
//!
//! The corpus is read from `$MCPDESC_BENCH_CORPUS`, else `<workspace>/target/bench-corpus`,
//! and generated there when missing. `MCPDESC_BENCH_QUICK=1` uses ten samples and short
//! measurement windows (as `cargo xtask bench-report` does).

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use mcpdesc_core::{Document, Engine, Format, Limits};

// The allocator the command-line tool ships with, used as the tool uses it: the allocator keeps
// its defaults until the first document of at least 1 MiB is read, and returns freed memory at
// once from then on. So the groups of small documents run before the corpus is read.
#[path = "../../mcpdesc-cli/src/allocator.rs"]
mod allocator;

#[allow(dead_code)]
#[path = "../../../xtask/src/bench_corpus.rs"]
mod bench_corpus;

use bench_corpus::Size;

#[allow(dead_code)]
#[path = "../../../xtask/src/bench_traffic.rs"]
mod bench_traffic;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("MCPDESC_BENCH_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-corpus"),
    }
}

fn quick() -> bool {
    std::env::var("MCPDESC_BENCH_QUICK").is_ok_and(|v| v != "0" && !v.is_empty())
}

/// One corpus file (the corpus is generated first when missing), read as the tool reads it.
fn read_corpus_file(size: Size, format: Format) -> Vec<u8> {
    let dir = corpus_dir();
    if !bench_corpus::corpus_present(&dir) {
        eprintln!("generating the benchmark corpus in {}", dir.display());
        bench_corpus::write_corpus(&dir, bench_corpus::SEED).expect("write the corpus");
    }
    let path = dir.join(format!("{}.{}", size.name(), ext(format)));
    allocator::prepare_for_document(std::fs::metadata(&path).map_or(0, |m| m.len()));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The corpus files, as (size, format, bytes).
fn corpus() -> Vec<(Size, Format, Vec<u8>)> {
    let mut out = Vec::new();
    for size in Size::ALL {
        for format in [Format::Json, Format::Yaml] {
            out.push((size, format, read_corpus_file(size, format)));
        }
    }
    out
}

fn ext(format: Format) -> &'static str {
    match format {
        Format::Json => "json",
        Format::Yaml => "yaml",
        Format::Capture => "capture",
    }
}

fn configure(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    if quick() {
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
    } else {
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(5));
    }
}

fn engine() -> Engine {
    Engine::embedded().expect("the embedded catalogue compiles")
}

fn documents(c: &mut Criterion) {
    let engine = engine();
    let limits = Limits::default();
    let corpus = corpus();
    for (size, format, bytes) in &corpus {
        let report = engine.validate_bytes(bytes, *format);
        if !report.is_valid() {
            eprintln!(
                "warning: {}.{} is not valid under the embedded catalogue ({} diagnostics)",
                size.name(),
                ext(*format),
                report.diagnostics.len()
            );
        }
    }

    let mut group = c.benchmark_group("parse");
    configure(&mut group);
    for (size, format, bytes) in &corpus {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(ext(*format), size.name()),
            bytes,
            |b, bytes| b.iter(|| Document::parse(black_box(bytes), *format, &limits).unwrap()),
        );
    }
    group.finish();

    let mut group = c.benchmark_group("validate");
    configure(&mut group);
    for (size, format, bytes) in &corpus {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(ext(*format), size.name()),
            bytes,
            |b, bytes| b.iter(|| engine.validate_bytes(black_box(bytes), *format)),
        );
    }
    group.finish();

    // The same on one thread: what a document costs without the other cores.
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool");
    let mut group = c.benchmark_group("validate-one-thread");
    configure(&mut group);
    for (size, format, bytes) in corpus.iter().filter(|(s, _, _)| *s == Size::Large) {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(ext(*format), size.name()),
            bytes,
            |b, bytes| b.iter(|| one.install(|| engine.validate_bytes(black_box(bytes), *format))),
        );
    }
    group.finish();

    let mut group = c.benchmark_group("evaluate");
    configure(&mut group);
    for (size, format, bytes) in corpus.iter().filter(|(_, f, _)| *f == Format::Json) {
        let doc = Document::parse(bytes, *format, &limits).unwrap();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("json", size.name()), &doc, |b, doc| {
            b.iter(|| engine.validate_document(black_box(doc)))
        });
    }
    group.finish();
}

/// The test release that extends the embedded 0.8.0 (never embedded itself).
fn extension_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/releases/fictional")
}

fn two_releases() -> Engine {
    let engine = Engine::from_dirs(&[extension_dir()]).expect("the test release compiles");
    assert_eq!(engine.releases().releases().len(), 2);
    engine
}

/// The test release that adds a protocol revision to the embedded 0.8.0: every rule is
/// rebased onto the longer version list, and those reading it compiled again.
fn next_revision() -> Engine {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/releases/next-revision");
    let engine = Engine::from_dirs(&[dir]).expect("the test release compiles");
    assert_eq!(engine.releases().releases().len(), 2);
    engine
}

fn catalogue(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalogue");
    configure(&mut group);
    group.bench_function("embedded", |b| b.iter(engine));
    // The embedded 0.8.0 from its snapshots plus the extension's files read and compiled.
    group.bench_function("two-releases", |b| b.iter(two_releases));
    group.bench_function("new-revision", |b| b.iter(next_revision));
    group.finish();
}

/// The same small 0.8.0 document judged with one release loaded and with two: the second
/// figure adds reading the declared version and choosing the release.
fn releases(c: &mut Criterion) {
    let small = read_corpus_file(Size::Small, Format::Json);
    let mut group = c.benchmark_group("releases");
    configure(&mut group);
    group.throughput(Throughput::Bytes(small.len() as u64));
    for (name, engine) in [("one", engine()), ("two", two_releases())] {
        assert!(engine.validate_bytes(&small, Format::Json).is_valid());
        group.bench_function(BenchmarkId::new("validate-small", name), |b| {
            b.iter(|| engine.validate_bytes(black_box(&small), Format::Json))
        });
    }
    let two = two_releases();
    let doc = Document::parse(&small, Format::Json, &Limits::default()).expect("parses");
    group.bench_function("lookup", |b| {
        b.iter(|| {
            two.catalogue_for(black_box(doc.root()))
                .release
                .version
                .major
        })
    });
    group.finish();
}

const BATCH: usize = 1000;

fn batch(c: &mut Criterion) {
    let engine = engine();
    let docs: Vec<String> = (0..BATCH as u64)
        .map(|i| {
            bench_corpus::to_json(&bench_corpus::generate(
                Size::Small,
                bench_corpus::SEED.wrapping_add(i),
            ))
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("batch");
    configure(&mut group);
    group.throughput(Throughput::Elements(BATCH as u64));
    for threads in [1, cores] {
        let id = if threads == 1 {
            "1-thread".to_string()
        } else {
            format!("{threads}-threads")
        };
        group.bench_function(BenchmarkId::new("small", &id), |b| {
            b.iter(|| {
                run_all(&docs, threads, |d| {
                    engine.validate_str(d, Format::Json).diagnostics.len()
                })
            })
        });
        // What the machine's cores give work that shares nothing: the same threads hashing
        // the same documents. Virtual cores that share a physical one fall well short of
        // scaling by their number even here, and batch validation cannot do better.
        group.bench_function(BenchmarkId::new("ceiling", &id), |b| {
            b.iter(|| run_all(&docs, threads, |d| hash_rounds(d.as_bytes())))
        });
    }
    group.finish();
}

/// FNV-1a over `bytes`, four rounds: work that reads its input and writes nothing shared.
fn hash_rounds(bytes: &[u8]) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..4 {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    black_box(h) as usize & 1
}

/// Runs `per_doc` on every document on `threads` threads pulling from a shared index; returns
/// the sum of its results.
fn run_all(docs: &[String], threads: usize, per_doc: impl Fn(&str) -> usize + Sync) -> usize {
    if threads == 1 {
        return docs.iter().map(|d| per_doc(d)).sum();
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut found = 0;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(doc) = docs.get(i) else {
                            return found;
                        };
                        found += per_doc(doc);
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    })
}

/// A capture of at least 10,000 messages (the real captures repeated with fresh ids):
/// `traffic/serde_json` parses each line with `serde_json` alone, `traffic/parse` reads the
/// capture with positions, `traffic/validate` reads, annotates and validates it on one thread.
fn traffic(c: &mut Criterion) {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = bench_traffic::capture(&workspace).expect("the real captures");
    let messages = text.lines().count() as u64;
    assert!(
        messages >= bench_traffic::MESSAGES as u64,
        "only {messages} messages"
    );
    let engine = engine();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool");
    let mut group = c.benchmark_group("traffic");
    configure(&mut group);
    group.throughput(Throughput::Elements(messages));
    group.bench_function("serde_json", |b| {
        b.iter(|| {
            text.lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(black_box(l)).is_ok() as usize)
                .sum::<usize>()
        })
    });
    let limits = Limits::default();
    group.bench_function("parse", |b| {
        b.iter(|| {
            Document::parse(black_box(text.as_bytes()), Format::Capture, &limits)
                .map(|d| d.len())
                .unwrap_or(0)
        })
    });
    group.bench_function("validate", |b| {
        b.iter(|| {
            one.install(|| {
                engine
                    .validate_bytes(black_box(text.as_bytes()), Format::Capture)
                    .diagnostics
                    .len()
            })
        })
    });
    group.finish();
}

/// Runs every group, in the order the allocator note above asks for, with the settings
/// of the command line (`cargo bench -- <filter>`, `--save-baseline`, ...).
// Written out rather than made by `criterion_group!`, whose function cannot carry a doc comment.
pub fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    catalogue(&mut criterion);
    releases(&mut criterion);
    batch(&mut criterion);
    documents(&mut criterion);
    traffic(&mut criterion);
}

criterion_main!(benches);

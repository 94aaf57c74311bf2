//! In-process validation time of the Rust library, the baseline of the Python and Node
//! packages' benchmarks: one engine built up front, each file's text read before timing,
//! three warm-up calls, then `--runs N` timed calls. Prints one JSON line per file, in the
//! format the packages' benchmark scripts print.
//!
//! `cargo run --release -p mcpdesc-embed --example bench_validate -- --runs 50 FILE...`
//!
//! `--api library` times `mcpdesc_core::Engine::validate_str` (the default); `--api embed`
//! times the flat API the packages wrap, owned outcome included.

use std::time::Instant;

use mcpdesc_core::{Engine, Format};
use mcpdesc_embed::{Input, InputFormat, Options, Validator};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut runs = 50usize;
    let mut api = String::from("library");
    let mut files = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).expect("--runs N"),
            "--api" => api = args.next().expect("--api library|embed"),
            _ => files.push(a),
        }
    }
    // Only the engine being timed is built, so that both modes start from the same heap.
    let (engine, validator) = match api.as_str() {
        "library" => (
            Some(Engine::embedded().expect("the embedded catalogue compiles")),
            None,
        ),
        "embed" => (
            None,
            Some(Validator::new(&Options::default()).expect("the embedded catalogue compiles")),
        ),
        other => panic!("unknown --api {other}"),
    };
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable benchmark document");
        let call = || match (&engine, &validator) {
            (Some(engine), _) => engine.validate_str(&text, Format::Json).diagnostics.len(),
            (_, Some(validator)) => {
                let input = Input::text(&text).with_format(Some(InputFormat::Json));
                validator
                    .validate(&input)
                    .expect("text input")
                    .diagnostics
                    .len()
            }
            (None, None) => unreachable!("one engine is built"),
        };
        for _ in 0..3 {
            call();
        }
        let mut times = Vec::with_capacity(runs);
        let mut diagnostics = 0;
        for _ in 0..runs {
            let start = Instant::now();
            diagnostics = call();
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let median = if runs % 2 == 1 {
            times[runs / 2]
        } else {
            (times[runs / 2 - 1] + times[runs / 2]) / 2.0
        };
        println!(
            "{{\"file\": {}, \"bytes\": {}, \"runs\": {runs}, \"median_s\": {median}, \"min_s\": {}, \"diagnostics\": {diagnostics}}}",
            serde_json::to_string(&file).expect("a string"),
            text.len(),
            times[0]
        );
    }
}

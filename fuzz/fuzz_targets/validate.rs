//! End-to-end validation with the embedded catalogue: any bytes, as a JSON or YAML description
//! or as a traffic capture (the first byte decides), give a report, never a panic, and the
//! same report twice.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcpdesc_core::{Engine, Format, Limits};

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        Engine::embedded()
            .expect("the embedded catalogue compiles")
            .with_limits({
                let mut limits = Limits::default();
                limits.max_depth = 64;
                limits.max_nodes = 100_000;
                limits
            })
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let format = match mode % 3 {
        0 => Format::Json,
        1 => Format::Yaml,
        _ => Format::Capture,
    };
    let report = engine().validate_bytes(rest, format);
    if report.load_error.is_none() && report.diagnostics.len() < 50 {
        assert_eq!(
            report,
            engine().validate_bytes(rest, format),
            "deterministic"
        );
    }
});

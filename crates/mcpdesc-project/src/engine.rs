//! The engine of a run's rules: the embedded releases or those of `--rules` directories, with
//! the house rules of `--extend-rules` directories on top, optionally fixed to the release of
//! one specification version.

use std::path::PathBuf;

use mcpdesc_core::internal::rules::releases::UnservedVersion;
use mcpdesc_core::{Engine, RuleLoadError};

/// Why the engine of a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The rule files have problems, each with its file and position.
    // Kept as its type, so that callers can read each problem's position.
    #[error(transparent)]
    Load(#[from] RuleLoadError),
    /// No loaded release serves the specification version asked for.
    #[error(transparent)]
    Version(#[from] UnservedVersion),
}

/// The engine of the releases in `dirs` (the embedded ones when empty), judging every
/// document by the release of `spec_version` when given.
pub fn load(dirs: &[PathBuf], spec_version: Option<&str>) -> Result<Engine, EngineError> {
    load_extended(dirs, &[], spec_version)
}

/// As [`load`], with the house rules of the directories in `extend` on top of every release.
pub fn load_extended(
    dirs: &[PathBuf],
    extend: &[PathBuf],
    spec_version: Option<&str>,
) -> Result<Engine, EngineError> {
    let mut builder = Engine::builder();
    for dir in dirs {
        builder = builder.rules_dir(dir);
    }
    for dir in extend {
        builder = builder.house_rules(dir);
    }
    Ok(builder.build()?.with_spec_version(spec_version)?)
}

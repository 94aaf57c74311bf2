//! What the `mcpdesc` command line and its language server share about a project: the
//! `mcpdesc.toml` configuration and its discovery, which files are ours, in-document suppressions, the policy every
//! finding goes through before anyone sees it, loading the engine a run's rules ask for, and
//! the escaping of untrusted text.
//!
//! Both front ends go through here, so that an editor shows exactly what CI reports.

pub mod config;
pub mod engine;
pub mod error_text;
pub mod findings;
pub mod live_rules;
pub mod recognize;
pub mod safe;
pub mod suppress;

//! The tools spec authors use besides the engine itself: fixture corpora and their
//! expected-diagnostics sidecars ([`corpus`]), the rule pages generated from the rule files
//! ([`corpus::pages`]), requirement coverage ([`coverage`]) and the impact of a rule change
//! on a corpus ([`corpus::impact`]).
//!
//! Everything here returns plain data; the command line renders it.

pub mod corpus;
pub mod coverage;

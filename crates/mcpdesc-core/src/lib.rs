//! Data-driven rule engine for MCP Description documents.

pub mod document;
pub mod path;

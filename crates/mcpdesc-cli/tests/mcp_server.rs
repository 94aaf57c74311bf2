//! `mcpdesc mcp`.

//! The default catalogue, compiled into the library from the workspace's `rules/`.

include!(concat!(env!("OUT_DIR"), "/embedded_rules.rs"));

/// Bounds applied while reading an untrusted document.
///
/// Every bound is checked while parsing, before any value is built past it, so a hostile
/// input costs at most the limit and never the whole input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of input.
    pub max_input_bytes: u64,
    /// Nesting depth of arrays and objects (the root container is depth 1).
    pub max_depth: u32,
    /// Number of nodes (scalars, arrays, objects) in the whole document.
    pub max_nodes: u64,
    /// Bytes in one string scalar or key.
    pub max_scalar_bytes: u64,
    /// Entries in one array or object.
    pub max_collection_len: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_input_bytes: 64 * 1024 * 1024,
            max_depth: 256,
            max_nodes: 10_000_000,
            max_scalar_bytes: 8 * 1024 * 1024,
            max_collection_len: 1_000_000,
        }
    }
}

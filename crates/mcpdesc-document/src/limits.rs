/// Bounds applied to an untrusted document: while reading it, and while evaluating it.
///
/// Every reading bound is checked while parsing, before any value is built past it, so a
/// hostile input costs at most the limit and never the whole input. The evaluation bounds
/// (schemas compiled from the document, reference chains) are read by checks through the
/// evaluation context; exceeding one is reported as an error naming the limit.
///
/// Each field's name, with `_` written `-`, is also the name of the command-line flag that
/// sets it (`max_depth` is `--max-depth`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Distinct JSON Schemas compiled from one document (embedded tool and elicitation
    /// schemas); schemas past the limit are not compiled and the document is not valid.
    pub max_schemas: u64,
    /// Bytes of one schema compiled from the document (its compact JSON text).
    pub max_schema_bytes: u64,
    /// Hops followed along one chain of in-document references.
    pub max_reference_chain: u64,
}

impl Limits {
    /// The highest `max_depth` accepted: evaluation recurses over nested values, and this
    /// bound keeps that recursion far from the end of the stack.
    pub const DEPTH_CEILING: u32 = 1_000;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_input_bytes: 64 * 1024 * 1024,
            max_depth: 256,
            max_nodes: 10_000_000,
            max_scalar_bytes: 8 * 1024 * 1024,
            max_collection_len: 1_000_000,
            max_schemas: 10_000,
            max_schema_bytes: 1024 * 1024,
            max_reference_chain: 64,
        }
    }
}

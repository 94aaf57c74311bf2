//! The limit flags of every subcommand that reads documents: one per field of
//! [`mcpdesc_core::Limits`], with the library's defaults.

use mcpdesc_core::Limits;

/// Limits on untrusted documents; a document past one is refused with an error naming the
/// flag that raises it.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Limits on untrusted documents")]
pub(crate) struct LimitArgs {
    /// Largest document read, in bytes; a larger file is refused without reading it whole.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_input_bytes)]
    pub max_input_bytes: u64,
    /// Deepest nesting of arrays and objects (at most 1000).
    #[arg(
        long,
        value_name = "N",
        default_value_t = Limits::default().max_depth,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(Limits::DEPTH_CEILING))
    )]
    pub max_depth: u32,
    /// Most nodes (scalars, arrays, objects) in one document.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_nodes)]
    pub max_nodes: u64,
    /// Longest string scalar or key, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_scalar_bytes)]
    pub max_scalar_bytes: u64,
    /// Most entries in one array or object.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_collection_len)]
    pub max_collection_len: u64,
    /// Most distinct JSON Schemas compiled from one document.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_schemas)]
    pub max_schemas: u64,
    /// Largest JSON Schema compiled from a document, in bytes of compact JSON.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_schema_bytes)]
    pub max_schema_bytes: u64,
    /// Most hops followed along one chain of in-document references.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_reference_chain)]
    pub max_reference_chain: u64,
}

impl LimitArgs {
    pub(crate) fn limits(&self) -> Limits {
        {
            let mut limits = Limits::default();
            limits.max_input_bytes = self.max_input_bytes;
            limits.max_depth = self.max_depth;
            limits.max_nodes = self.max_nodes;
            limits.max_scalar_bytes = self.max_scalar_bytes;
            limits.max_collection_len = self.max_collection_len;
            limits.max_schemas = self.max_schemas;
            limits.max_schema_bytes = self.max_schema_bytes;
            limits.max_reference_chain = self.max_reference_chain;
            limits
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        limits: super::LimitArgs,
    }

    #[test]
    fn defaults_are_the_library_defaults() {
        let probe = Probe::parse_from(["probe"]);
        assert_eq!(probe.limits.limits(), mcpdesc_core::Limits::default());
    }

    #[test]
    fn depth_is_capped() {
        assert!(Probe::try_parse_from(["probe", "--max-depth", "1001"]).is_err());
        assert!(Probe::try_parse_from(["probe", "--max-depth", "1000"]).is_ok());
    }
}

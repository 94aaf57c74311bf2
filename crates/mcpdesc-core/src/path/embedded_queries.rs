//! The queries of the embedded rule files, parsed by the build script with `jsonpath-rust`
//! and stored in the form of `encoded_query`: the default catalogue loads without parsing any.

use jsonpath_rust::parser::model::JpQuery;

include!(concat!(env!("OUT_DIR"), "/embedded_queries.rs"));

/// The syntax tree `jsonpath-rust` builds for `text`, when `text` is a query of the embedded
/// rule files that parses.
pub(super) fn parsed(text: &str) -> Option<JpQuery> {
    let i = QUERIES.binary_search_by(|(t, _)| (*t).cmp(text)).ok()?;
    super::encoded_query::decode(QUERIES[i].1)
}

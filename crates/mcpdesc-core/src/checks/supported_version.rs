//! `supported-spec-version`: the document names a specification version the catalogue implements.

use serde::Deserialize;
use serde_json::Map;

use super::{options, Check, CheckSpec, CompileCx, Node, OptionError};
use crate::eval::context::{excerpt, EvalCtx, Finding};

#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct Options {}

#[derive(Debug)]
struct SupportedSpecVersion;

pub(super) const SPEC: CheckSpec = CheckSpec {
    name: "supported-spec-version",
    summary: "A string value is a semantic version that the judging release's \
              `spec-versions` include (or, when the caller fixed the release, that any loaded \
              release serves). `{supported}` lists every version the loaded releases \
              serve; `{release}` is the judging release.",
    params: &["supported", "release"],
    compile: |m: &Map<_, _>, _: &CompileCx<'_>| -> Result<Box<dyn Check>, OptionError> {
        options::<Options>(m)?;
        Ok(Box::new(SupportedSpecVersion))
    },
    #[cfg(feature = "schema")]
    schema: super::schema_of::<Options>,
};

impl Check for SupportedSpecVersion {
    fn run(&self, node: Node<'_>, cx: &EvalCtx<'_>, out: &mut Vec<Finding>) {
        let Some(text) = node.value.as_str() else {
            return;
        };
        let ok = semver::Version::parse(text).is_ok_and(|v| {
            cx.release.serves(&v)
                || (cx.release_fixed && cx.release.set_serves.iter().any(|r| r.matches(&v)))
        });
        if !ok {
            let listed = match cx.release.set_serves.as_slice() {
                [] => cx.release.serves.as_slice(),
                all => all,
            };
            let supported = crate::rules::releases::describe(listed);
            out.push(
                Finding::new(node.pointer)
                    .with("supported", supported)
                    .with("release", cx.release.version.to_string())
                    .with("value", excerpt(node.value)),
            );
        }
    }
}

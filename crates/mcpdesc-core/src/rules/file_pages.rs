//! The `pages` member of a `catalogue` block: how `mcpdesc docs` lays out the rule pages of a
//! release (see "Rule pages" in `docs/rule-format.md`).

use serde::{Deserialize, Serialize};

/// How the rule pages of a release look and where they go. Every member is optional; without
/// the block, pages look as `mcpdesc docs` has always written them. A release that extends
/// another inherits the base's `pages` unless it gives its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PagesDef {
    /// The page template (MiniJinja), relative to the release's directory, e.g.
    /// `pages/rule.md.j2`. Default: the built-in layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// The URL of each rule's page, a pattern with `{release}`, `{owner}`, `{id}` and
    /// `{name}` (the id without its owner prefix), each optionally transformed:
    /// `{name|dots-to-hyphens}`. Default: the catalogue's `docs-url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Where each rule's page is written, relative to the output directory; a pattern like
    /// `url`. Default: `{release}/{owner}/{id}.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Links to the published sources (example fixtures, rule files) instead of relative
    /// links into a checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_links: Option<SourceLinksDef>,
    /// The page's front-matter fields, in order: name → MiniJinja template of the value,
    /// rendered with the page's context. Default: `title`, `description` and, when the page
    /// has a URL, `source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front_matter: Option<FrontMatter>,
    /// Sections the built-in layout leaves out (a template sees them as `show.<section>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omit: Vec<PageSection>,
}

/// Where a page's source links lead. Patterns may use `{release}`, `{tag}`, `{owner}`,
/// `{id}`, `{name}` and, where they apply, `{fixture}` (the example's fixture path), `{file}`
/// (the rule file, relative to the directory of the release that wrote it) and `{line}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SourceLinksDef {
    /// The published name of the release's sources, e.g. `v{release}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The link of an example's fixture, e.g.
    /// `https://github.com/o/r/blob/{tag}/fixtures/{fixture}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture: Option<String>,
    /// The link of the rule file that defines the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_file: Option<String>,
    /// The link of the release's sources as a whole, at `tag`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
}

/// A section of the built-in rule page that can be left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PageSection {
    /// The title heading and the line that marks the page as generated.
    Heading,
    /// The `Release` line of the details.
    Release,
    /// The `Severity` line of the details.
    Severity,
    /// The `Reference validator codes` line of the details.
    ReferenceCodes,
    /// The `Fix offered by editors` line of the details.
    Fix,
    /// The `Release history` section.
    ReleaseHistory,
}

impl PageSection {
    /// Every section, in the order the page shows them.
    pub const ALL: [PageSection; 6] = [
        PageSection::Heading,
        PageSection::Release,
        PageSection::Severity,
        PageSection::ReferenceCodes,
        PageSection::Fix,
        PageSection::ReleaseHistory,
    ];

    /// The name a template sees, under `show`.
    pub fn key(self) -> &'static str {
        match self {
            PageSection::Heading => "heading",
            PageSection::Release => "release",
            PageSection::Severity => "severity",
            PageSection::ReferenceCodes => "reference_codes",
            PageSection::Fix => "fix",
            PageSection::ReleaseHistory => "release_history",
        }
    }
}

/// Front-matter fields in the order written: YAML mappings keep their order, and so does the
/// page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter(pub Vec<(String, String)>);

impl<'de> Deserialize<'de> for FrontMatter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = FrontMatter;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping of front-matter names to value templates")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<FrontMatter, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    out.push((k, v));
                }
                Ok(FrontMatter(out))
            }
        }
        d.deserialize_map(Fields)
    }
}

impl Serialize for FrontMatter {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for FrontMatter {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FrontMatter".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <std::collections::BTreeMap<String, String>>::json_schema(generator)
    }
}

/// Reports the problems of the `pages` block of `file`'s catalogue at their members: patterns
/// with unknown placeholders, a template that is missing or does not parse. `files` are the
/// release's other files, by path relative to its directory.
pub(super) fn check(
    def: &PagesDef,
    files: &std::collections::HashMap<String, super::Text>,
    file: &super::load::ParsedFile,
    problems: &mut super::load::Problems,
) {
    for (at, message) in crate::page_layout::check_pages(def, files) {
        problems.push_value(file, &format!("/catalogue/pages{at}"), message);
    }
}

//! The rule pages as resources: `mcpdesc://rules/{id}`, Markdown as `mcpdesc docs` writes
//! it, for every rule of the catalogue that judges documents.

use std::collections::BTreeMap;
use std::path::Path;

use mcpdesc_authoring::corpus::pages;
use mcpdesc_core::Engine;

pub(crate) const RULE_URI_PREFIX: &str = "mcpdesc://rules/";
pub(crate) const RULE_URI_TEMPLATE: &str = "mcpdesc://rules/{id}";
pub(crate) const MARKDOWN: &str = "text/markdown";

/// The page of each rule, by id.
pub(crate) struct Pages {
    pub by_id: BTreeMap<String, String>,
}

impl Pages {
    /// Renders every page once. Links in the pages are relative to `docs/rules`, where
    /// `mcpdesc docs` writes them by default.
    pub(crate) fn render(engine: &Engine) -> Pages {
        let generated = pages::generate(engine.releases(), Path::new("docs/rules"));
        let mut files: BTreeMap<String, String> = generated
            .files
            .into_iter()
            .map(|f| (f.path, f.contents))
            .collect();
        let cat = engine.catalogue();
        let mut by_id = BTreeMap::new();
        for rule in &cat.rules {
            if let Some(page) = files.remove(&pages::page_path(cat, rule)) {
                by_id.insert(rule.id().to_owned(), page);
            }
        }
        Pages { by_id }
    }

    /// The page of the resource `uri`, or why there is none.
    pub(crate) fn read(&self, uri: &str) -> Result<&str, String> {
        let id = uri.strip_prefix(RULE_URI_PREFIX).ok_or_else(|| {
            format!(
                "unknown resource `{}`; rule pages are {RULE_URI_TEMPLATE}",
                crate::render::safe::escape(uri)
            )
        })?;
        self.by_id.get(id).map(String::as_str).ok_or_else(|| {
            format!(
                "no rule `{}`; the `list_rules` tool lists every rule",
                crate::render::safe::escape(id)
            )
        })
    }
}

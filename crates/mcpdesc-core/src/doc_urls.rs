//! Where each rule's documentation page lives: the `docs-url` template of a catalogue, or a
//! base URL or template the embedder gives for every catalogue.

use crate::page_layout;
use crate::rules::Catalogue;

/// The directory of a release's pages below the output directory (its version).
pub fn release_dir(cat: &Catalogue) -> String {
    cat.release.version.to_string()
}

/// A rule's id without its owner prefix (`tool.interaction.x` of `mcpdesc.tool.interaction.x`).
pub fn rule_name<'a>(owner: &str, id: &'a str) -> &'a str {
    id.strip_prefix(owner)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(id)
}

/// The values of the placeholders of a page pattern.
pub fn page_var(release: &str, owner: &str, id: &str, name: &str) -> Option<String> {
    match name {
        "release" => Some(release.to_owned()),
        "owner" => Some(owner.to_owned()),
        "id" => Some(id.to_owned()),
        "name" => Some(rule_name(owner, id).to_owned()),
        _ => None,
    }
}

/// A rule's documentation link from a `docs-url` template: `{release}`, `{owner}`, `{id}`
/// and `{name}` are replaced by the release's version, the rule's owner, its id and its id
/// without the owner prefix, each optionally transformed (`{name|dots-to-hyphens}`). Other
/// braces are kept as written.
pub fn expand_docs_url(template: &str, release: &str, owner: &str, id: &str) -> String {
    page_layout::expand(
        template,
        &|n| page_var(release, owner, id, n),
        page_layout::PAGE_PLACEHOLDERS,
        true,
    )
    .unwrap_or_else(|_| template.to_owned())
}

/// Where each rule's documentation page lives: a template in which `{release}`, `{owner}`
/// and `{id}` are replaced by the version of the release that judged the document, the
/// rule's owner and its id.
#[derive(Debug, Clone, Default)]
pub struct DocUrls {
    /// The template given instead of each catalogue's `docs-url`.
    template: Option<String>,
}

impl DocUrls {
    /// Each catalogue's `docs-url` template, or `base` for every catalogue: a template when it
    /// contains `{id}`, else a base URL under which `{release}/{owner}/{id}.md` is appended
    /// (the layout `mcpdesc docs` writes).
    pub fn new(base: Option<&str>) -> DocUrls {
        let template = base.map(|b| {
            if b.contains("{id}") {
                b.to_owned()
            } else {
                format!(
                    "{}/{{release}}/{{owner}}/{{id}}.md",
                    b.trim_end_matches('/')
                )
            }
        });
        DocUrls { template }
    }

    /// The template given instead of each catalogue's `docs-url`, if any.
    pub fn template(&self) -> Option<&str> {
        self.template.as_deref()
    }

    /// The page of rule `id` in release `cat`, when the release has the rule, a template is
    /// set and it expands to an absolute URI. A relative template (a path inside the
    /// repository the rules live in) is no link for a reader elsewhere, so it gives `None`.
    pub fn url(&self, cat: &Catalogue, id: &str) -> Option<String> {
        let rule = cat.rule(id)?;
        // A declared owner's own pages: house rules link there, the release's rules stay put.
        let template = (cat.owner_pages.get(rule.def.owner.as_str()))
            .or(self.template.as_ref())
            .or(cat.def.docs_url.as_ref())?;
        let url = expand_docs_url(template, &release_dir(cat), rule.def.owner.as_str(), id);
        is_absolute_uri(&url).then_some(url)
    }
}

/// Whether a link is an absolute URI (it starts with a scheme such as `https:`).
pub fn is_absolute_uri(link: &str) -> bool {
    link.split_once(':').is_some_and(|(scheme, _)| {
        // A single letter is a Windows drive, not a scheme.
        scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

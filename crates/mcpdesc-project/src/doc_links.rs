//! Links from a finding to its rule's page, as the text output and the editor show them.

pub use mcpdesc_core::corpus::pages::DocUrls;

/// Whether a link is an absolute URI (it starts with a scheme such as `https:`); the default
/// links are paths in the repository, relative to its root.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_links_have_a_scheme() {
        assert!(is_absolute_uri("https://example.org/rules/x.md"));
        assert!(is_absolute_uri("urn:example:rule"));
        assert!(!is_absolute_uri("docs/rules/0.8.0/mcp/x.md"));
        assert!(!is_absolute_uri("C:/rules/x.md"));
        assert!(!is_absolute_uri("./a:b.md"));
    }
}

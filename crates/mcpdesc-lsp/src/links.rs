//! The rule page each diagnostic links to (`codeDescription`). An editor can only follow an
//! absolute URI, and the catalogue's default links are paths in this repository, so unless
//! an absolute template is configured the server renders the pages of the rules it loaded
//! into the user's cache directory and links there: the page always describes the rule
//! that fired, also while a spec author edits a rules directory.

use std::path::{Path, PathBuf};
use std::str::FromStr as _;

use lsp_types::Uri;
use mcpdesc_authoring::corpus::pages;
use mcpdesc_core::{Catalogue, Engine};

use mcpdesc_core::internal::is_absolute_uri;
use mcpdesc_core::DocUrls;

#[derive(Debug, Default)]
pub(crate) struct RuleLinks {
    /// An absolute template (`{release}`, `{owner}`, `{id}`) configured or in the catalogue.
    urls: Option<DocUrls>,
    /// Where the pages were rendered, when no absolute template is known.
    pages: Option<PathBuf>,
}

impl RuleLinks {
    /// Links for the rules of `engine`; renders the pages in the background when needed.
    pub(crate) fn for_engine(engine: &Engine, rules: &[PathBuf], base: Option<&str>) -> RuleLinks {
        let urls = DocUrls::new(base);
        let cat = engine.catalogue();
        let absolute = cat
            .rules
            .first()
            .and_then(|r| urls.url(cat, r.id()))
            .is_some_and(|u| is_absolute_uri(&u));
        if absolute {
            return RuleLinks {
                urls: Some(urls),
                pages: None,
            };
        }
        let Some(dir) = pages_dir(rules) else {
            return RuleLinks::default();
        };
        let generated = pages::generate(engine.releases(), &dir);
        let target = dir.clone();
        // Writing some hundred small files is not worth delaying the first diagnostics for.
        std::thread::spawn(move || {
            let _ = std::fs::create_dir_all(&target);
            let _ = pages::write(&generated, &target);
        });
        RuleLinks {
            urls: None,
            pages: Some(dir),
        }
    }

    /// The page of rule `id` as `cat` (the release that judged the document) defines it.
    pub(crate) fn link(&self, cat: &Catalogue, id: &str) -> Option<Uri> {
        let rule = cat.rule(id)?;
        let text = match (&self.urls, &self.pages) {
            (Some(urls), _) => urls.url(cat, id)?,
            (None, Some(dir)) => url::Url::from_file_path(dir.join(pages::page_path(cat, rule)))
                .ok()?
                .to_string(),
            (None, None) => return None,
        };
        Uri::from_str(&text).ok()
    }
}

/// `<cache>/mcpdesc/rule-pages/<key>`, one directory per binary version and set of rule
/// directories.
fn pages_dir(rules: &[PathBuf]) -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
    let key = if rules.is_empty() {
        "embedded".to_owned()
    } else {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        rules.hash(&mut h);
        format!("rules-{:016x}", h.finish())
    };
    Some(
        cache
            .join("mcpdesc")
            .join("rule-pages")
            .join(env!("CARGO_PKG_VERSION"))
            .join(key),
    )
}

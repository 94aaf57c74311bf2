//! RFC 6901 JSON Pointer helpers.

use std::borrow::Cow;

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Unescapes one reference token.
pub fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// The unescaped reference tokens of `pointer` (`""` has none).
pub fn tokens(pointer: &str) -> impl Iterator<Item = Cow<'_, str>> {
    pointer
        .strip_prefix('/')
        .into_iter()
        .flat_map(|rest| rest.split('/'))
        .map(unescape)
}

/// Appends one token to `pointer`.
pub fn push(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    out.push('/');
    out.push_str(&escape(token));
    out
}

/// The pointer of the parent, or `None` for the root.
pub fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|i| &pointer[..i])
}

/// The last token of `pointer`, unescaped, or `None` for the root.
pub fn last(pointer: &str) -> Option<Cow<'_, str>> {
    pointer.rfind('/').map(|i| unescape(&pointer[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_escaped_tokens() {
        let p = push(&push("", "a/b"), "c~d");
        assert_eq!(p, "/a~1b/c~0d");
        let toks: Vec<_> = tokens(&p).collect();
        assert_eq!(toks, vec!["a/b", "c~d"]);
        assert_eq!(parent(&p), Some("/a~1b"));
        assert_eq!(last(&p).as_deref(), Some("c~d"));
        assert_eq!(parent(""), None);
        assert_eq!(tokens("").count(), 0);
    }
}

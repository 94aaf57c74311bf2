//! RFC 6901 JSON Pointer helpers.

use std::borrow::Cow;

use serde_json::{Map, Value};

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

/// Room for the tokens a walk appends below a base pointer (see [`buffer`]).
const BUFFER_ROOM: usize = 64;

/// A buffer holding the pointer `base`, with room for the tokens a walk appends below it. A
/// copy of exactly the base's length is reallocated, and copied, on its first token; pointers
/// are built below a node for most checks of most nodes.
pub fn buffer(base: &str) -> String {
    let mut buf = String::with_capacity(base.len() + BUFFER_ROOM);
    buf.push_str(base);
    buf
}

/// Appends one token to the pointer in `buf`, escaping it.
pub fn push_token(buf: &mut String, token: &str) {
    // At most one reallocation for the separator and the token together.
    buf.reserve(token.len() + 1);
    buf.push('/');
    if token.bytes().any(|b| b == b'~' || b == b'/') {
        for c in token.chars() {
            match c {
                '~' => buf.push_str("~0"),
                '/' => buf.push_str("~1"),
                c => buf.push(c),
            }
        }
    } else {
        buf.push_str(token);
    }
}

/// Appends an array index token to the pointer in `buf`.
pub fn push_index(buf: &mut String, index: usize) {
    // Decimal digits without going through `fmt`, which costs more than the rest of a step.
    let mut digits = [0u8; 20];
    let mut n = index;
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.push('/');
    for &d in &digits[start..] {
        buf.push(char::from(d));
    }
}

/// The member `key` of `map`. Small objects (most of a document) are scanned, which is
/// cheaper than hashing the key.
#[inline]
pub fn member<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= 16 {
        // Length and first byte rule out most keys before a full comparison.
        let first = key.as_bytes().first();
        map.iter()
            .find(|(k, _)| k.len() == key.len() && k.as_bytes().first() == first && *k == key)
            .map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// The node at `pointer` in `root`: the same answer as [`Value::pointer`], without allocating
/// for tokens that need no unescaping.
pub fn resolve<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let rest = pointer.strip_prefix('/')?;
    let mut node = root;
    for raw in rest.split('/') {
        let token = unescape(raw);
        node = match node {
            Value::Object(map) => member(map, &token)?,
            Value::Array(items) => items.get(array_index(&token)?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// An array index token as RFC 6901 spells it (no sign, no leading zero).
pub(crate) fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// The pointer of the parent, or `None` for the root.
pub fn parent(pointer: &str) -> Option<&str> {
    // A byte search: `rfind` with a `char` goes through `memrchr`, whose set-up costs more
    // than the last token of a pointer takes to scan, and scopes look up every ancestor.
    let i = pointer.bytes().rposition(|b| b == b'/')?;
    pointer.get(..i)
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
        let mut buf = String::new();
        push_token(&mut buf, "a/b");
        push_index(&mut buf, 12);
        push_token(&mut buf, "c~d");
        push_index(&mut buf, 0);
        push_index(&mut buf, usize::MAX);
        assert_eq!(buf, format!("/a~1b/12/c~0d/0/{}", usize::MAX));
    }

    #[test]
    fn resolve_agrees_with_serde_json() {
        let doc = serde_json::json!({
            "a/b": {"c~d": [0, 1, {"": 2}]},
            "big": (0..40).map(|i| (format!("k{i}"), Value::from(i))).collect::<Map<_, _>>(),
            "0": "zero"
        });
        for p in [
            "",
            "/",
            "/a~1b",
            "/a~1b/c~0d",
            "/a~1b/c~0d/2",
            "/a~1b/c~0d/2/",
            "/a~1b/c~0d/02",
            "/a~1b/c~0d/+1",
            "/a~1b/c~0d/-1",
            "/a~1b/c~0d/3",
            "/big/k39",
            "/big/k40",
            "/0",
            "/0/0",
            "a",
            "/a~1b/c~0d/1/x",
            "/a~2b",
        ] {
            assert_eq!(resolve(&doc, p), doc.pointer(p), "{p}");
        }
    }
}

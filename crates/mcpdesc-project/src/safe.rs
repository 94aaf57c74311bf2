//! Text from documents, file names and rule files is untrusted: printed as it is, an ESC or
//! a C1 CSI starts a terminal escape sequence (colours, hyperlinks, window titles, on some
//! terminals replies typed back into the shell), a carriage return or line separator
//! overwrites or fakes a line, and a bidirectional control reorders what the reader sees
//! (Trojan Source).
//!
//! Every such character is shown as `\u{…}` with its code point in lowercase hex, no leading
//! zeros: ESC is `\u{1b}`, RIGHT-TO-LEFT OVERRIDE `\u{202e}`. The braces keep the notation
//! apart from the `\u001b` a JSON document itself spells, so an excerpt of such a document
//! stays readable: `\u001b` is what the file says, `\u{1b}` a raw character in it. A literal
//! `\u{1b}` already in the text is left as it is: it cannot act on a terminal, and escaping
//! every backslash would garble regular expressions and Windows paths in every message. The
//! machine formats (JSON, SARIF) carry the exact text for whoever needs to tell them apart.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// C0 controls, DEL, C1 controls, the bidirectional controls (embeddings, overrides,
/// isolates, marks) and the Unicode line and paragraph separators.
pub fn is_unsafe(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Appends the visible form of `c`, `\u{1b}` for ESC.
pub fn push_escaped(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// `s` for one line of output: every unsafe character, newline and tab included, in its
/// visible form. Borrows `s` when there is nothing to escape, the usual case.
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_except(s, |_| false)
}

/// `s` for output where line breaks and indentation are part of the text (a rule's help, a
/// description): like [`escape`], but newline and tab stay.
pub fn escape_multiline(s: &str) -> Cow<'_, str> {
    escape_except(s, |c| c == '\n' || c == '\t')
}

fn escape_except(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let hit = |c: char| is_unsafe(c) && !keep(c);
    let Some(first) = s.find(hit) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if hit(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Pretty JSON exactly as `serde_json::to_string_pretty` writes it, except that the unsafe
/// characters serde_json leaves raw (DEL, C1, bidirectional controls, U+2028/U+2029) are
/// written as `\uXXXX` escapes: a consumer decodes the very same strings, and the bytes are
/// harmless on a terminal.
pub fn to_json_pretty<T: ?Sized + Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut buf = Vec::with_capacity(256);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, SafeFormatter::default());
    value.serialize(&mut ser)?;
    String::from_utf8(buf)
        .map_err(|e| serde_json::Error::io(io::Error::new(io::ErrorKind::InvalidData, e)))
}

/// The pretty formatter with the escaping of [`to_json_pretty`].
#[derive(Default)]
struct SafeFormatter(PrettyFormatter<'static>);

impl Formatter for SafeFormatter {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        // C0 controls never reach here (serde_json escapes them itself); every other unsafe
        // character is in the Basic Multilingual Plane, so four hex digits always suffice.
        while let Some(i) = rest.find(is_unsafe) {
            w.write_all(&rest.as_bytes()[..i])?;
            let c = rest[i..].chars().next().unwrap_or_default();
            write!(w, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn clean_text_is_borrowed() {
        for s in [
            "",
            "plain",
            "`info` has no member `x`",
            "tab\u{a0}é🦀",
            "C:\\x\\u{1b}",
        ] {
            assert!(matches!(escape(s), Cow::Borrowed(_)), "{s:?}");
        }
        assert!(matches!(escape_multiline("a\n\tb"), Cow::Borrowed(_)));
    }

    #[test]
    fn controls_become_visible() {
        assert_eq!(
            escape("\u{1b}]8;;http://evil\u{7}link\u{1b}]8;;\u{7}"),
            "\\u{1b}]8;;http://evil\\u{7}link\\u{1b}]8;;\\u{7}"
        );
        assert_eq!(escape("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert_eq!(escape("\0\t\n\r\u{7f}"), "\\u{0}\\u{9}\\u{a}\\u{d}\\u{7f}");
        assert_eq!(
            escape("\u{80}\u{85}\u{9b}\u{9f}\u{a0}"),
            "\\u{80}\\u{85}\\u{9b}\\u{9f}\u{a0}"
        );
        assert_eq!(
            escape("\u{61c}\u{200e}\u{200f}\u{202a}\u{202e}\u{2066}\u{2069}"),
            "\\u{61c}\\u{200e}\\u{200f}\\u{202a}\\u{202e}\\u{2066}\\u{2069}"
        );
        assert_eq!(escape("\u{2028}\u{2029}"), "\\u{2028}\\u{2029}");
        // Neighbours of the ranges are ordinary text.
        assert_eq!(
            escape("\u{200d}\u{2027}\u{202f}\u{2065}\u{206a}"),
            "\u{200d}\u{2027}\u{202f}\u{2065}\u{206a}"
        );
    }

    #[test]
    fn multiline_keeps_newline_and_tab_only() {
        assert_eq!(escape_multiline("a\n\tb\r\u{1b}"), "a\n\tb\\u{d}\\u{1b}");
    }

    #[test]
    fn json_escapes_what_serde_json_leaves_raw() {
        let v = serde_json::json!({"k\u{202e}": ["\u{1b}\u{7f}\u{9b}\u{2028}", 1]});
        let s = to_json_pretty(&v).unwrap();
        assert_eq!(
            s,
            "{\n  \"k\\u202e\": [\n    \"\\u001b\\u007f\\u009b\\u2028\",\n    1\n  ]\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn json_is_otherwise_what_serde_json_writes() {
        let v = serde_json::json!({"a": [], "b": {}, "c": [{"d": null, "e": "x\"\\/é"}], "f": 1.5});
        assert_eq!(
            to_json_pretty(&v).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }

    /// Characters from the edges of the unsafe ranges, mixed with ordinary text.
    fn tricky() -> impl Strategy<Value = String> {
        let c = prop::sample::select(vec![
            'a', ' ', '\\', '{', '}', 'u', 'é', '\u{a0}', '🦀', '\0', '\t', '\n', '\r', '\u{1b}',
            '\u{1f}', '\u{7f}', '\u{80}', '\u{9b}', '\u{9f}', '\u{61b}', '\u{61c}', '\u{200d}',
            '\u{200e}', '\u{200f}', '\u{2028}', '\u{2029}', '\u{202a}', '\u{202e}', '\u{202f}',
            '\u{2066}', '\u{2069}', '\u{206a}',
        ]);
        prop::collection::vec(prop_oneof![c, any::<char>()], 0..40)
            .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #[test]
        fn escaped_text_has_no_unsafe_character(s in tricky()) {
            let e = escape(&s);
            prop_assert!(!e.chars().any(is_unsafe), "{:?}", e);
            let m = escape_multiline(&s);
            prop_assert!(!m.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'), "{:?}", m);
            // Escaping is idempotent, so text escaped twice on its way out reads the same.
            let twice = escape(&e);
            prop_assert_eq!(twice.as_ref(), e.as_ref());
            prop_assert_eq!(matches!(e, Cow::Borrowed(_)), !s.chars().any(is_unsafe));
        }

        #[test]
        fn escaping_can_be_undone(s in tricky()) {
            // Unambiguous for text without a literal `\u{`: each escape maps back to one
            // character.
            prop_assume!(!s.contains("\\u{"));
            let e = escape(&s);
            let mut back = String::new();
            let mut rest = e.as_ref();
            while let Some(i) = rest.find("\\u{") {
                back.push_str(&rest[..i]);
                let end = rest[i..].find('}').unwrap() + i;
                let code = u32::from_str_radix(&rest[i + 3..end], 16).unwrap();
                back.push(char::from_u32(code).unwrap());
                rest = &rest[end + 1..];
            }
            back.push_str(rest);
            prop_assert_eq!(back, s);
        }

        #[test]
        fn json_round_trips_and_stays_safe(s in tricky()) {
            let v = serde_json::json!({s.clone(): [s.clone()]});
            let out = to_json_pretty(&v).unwrap();
            prop_assert!(!out.chars().any(|c| is_unsafe(c) && c != '\n'), "{:?}", out);
            let back: serde_json::Value = serde_json::from_str(&out).unwrap();
            prop_assert_eq!(back, v);
        }
    }
}

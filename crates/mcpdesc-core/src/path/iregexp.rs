//! I-Regexp (RFC 9485), the regular expressions of `match()` and `search()`, translated to the
//! syntax of the `regex` crate, whose matching takes linear time.
//!
//! The translation checks the pattern against RFC 9485's grammar on the way: anything outside
//! it (back-references, lazy quantifiers, escapes like `\d`, …) makes the pattern invalid,
//! which the functions treat as a non-match. `.` becomes "anything but `\n` and `\r`", as
//! RFC 9485 defines it, and characters with a meaning in the `regex` crate but not in I-Regexp
//! (`#`, `&`, `~`, …) are escaped.
//!
//! An unescaped `^` or `$` outside a class asserts the start or the end of the text, as in the
//! mappings to ECMAScript and PCRE of RFC 9485 (section 5) and as the RFC 9535 compliance
//! suite expects (`match(@, '^ab.*')` matches `"abc"`), although the grammar reads them as
//! ordinary characters.

use regex::Regex;

/// `pattern` compiled for a match of the whole text (`whole`) or of any part of it; `None`
/// when it is not a valid I-Regexp, or too big for the `regex` crate's limits.
pub(crate) fn compile(pattern: &str, whole: bool) -> Option<Regex> {
    let body = translate(pattern)?;
    let source = if whole {
        format!(r"\A(?:{body})\z")
    } else {
        body
    };
    Regex::new(&source).ok()
}

/// Groups nested deeper than this are refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

/// The `regex` crate's form of `pattern`, or `None` when it is not a valid I-Regexp.
pub(crate) fn translate(pattern: &str) -> Option<String> {
    let mut t = Translator {
        chars: pattern.chars().collect(),
        at: 0,
        out: String::with_capacity(pattern.len() + 8),
        depth: 0,
    };
    t.regexp()?;
    (t.at == t.chars.len()).then_some(t.out)
}

struct Translator {
    chars: Vec<char>,
    at: usize,
    out: String,
    depth: usize,
}

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek2(&self) -> Option<char> {
        self.chars.get(self.at + 1).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.at += 1;
        }
        found
    }

    /// `i-regexp = branch *( "|" branch )`
    fn regexp(&mut self) -> Option<()> {
        self.branch()?;
        while self.eat('|') {
            self.out.push('|');
            self.branch()?;
        }
        Some(())
    }

    /// `branch = *piece`
    fn branch(&mut self) -> Option<()> {
        while self.peek().is_some_and(|c| c != '|' && c != ')') {
            self.atom()?;
            self.quantifier()?;
        }
        Some(())
    }

    /// `atom = NormalChar / charClass / ( "(" i-regexp ")" )`
    fn atom(&mut self) -> Option<()> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            '(' => {
                if self.depth == MAX_DEPTH {
                    return None;
                }
                self.depth += 1;
                self.out.push_str("(?:");
                self.regexp()?;
                if !self.eat(')') {
                    return None;
                }
                self.out.push(')');
                self.depth -= 1;
            }
            '.' => self.out.push_str(r"[^\n\r]"),
            // Without the multi-line flag: the start and end of the whole text.
            '^' | '$' => self.out.push(c),
            '[' => self.class()?,
            '\\' => self.escape(true)?,
            c if is_normal_char(c) => push_literal(&mut self.out, c),
            _ => return None,
        }
        Some(())
    }

    /// `quantifier = ( "*" / "+" / "?" ) / range-quantifier`, optional.
    fn quantifier(&mut self) -> Option<()> {
        match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.at += 1;
                self.out.push(c);
            }
            Some('{') => {
                self.at += 1;
                let min = self.number()?;
                self.out.push('{');
                self.out.push_str(&min.to_string());
                if self.eat(',') {
                    self.out.push(',');
                    if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        let max = self.number()?;
                        if max < min {
                            return None;
                        }
                        self.out.push_str(&max.to_string());
                    }
                }
                if !self.eat('}') {
                    return None;
                }
                self.out.push('}');
            }
            _ => {}
        }
        Some(())
    }

    /// `QuantExact = 1*%x30-39`
    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        if self.at == start {
            return None;
        }
        self.chars[start..self.at]
            .iter()
            .collect::<String>()
            .parse()
            .ok()
    }

    /// After a `\`: `SingleCharEsc`, or (with `categories`) `catEsc` / `complEsc`.
    fn escape(&mut self, categories: bool) -> Option<()> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            'n' => self.out.push_str(r"\n"),
            'r' => self.out.push_str(r"\r"),
            't' => self.out.push_str(r"\t"),
            '(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | '{' | '|' | '}' => {
                self.out.push('\\');
                self.out.push(c);
            }
            'p' | 'P' if categories => {
                if !self.eat('{') {
                    return None;
                }
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                if !is_category(&name) || !self.eat('}') {
                    return None;
                }
                self.out.push('\\');
                self.out.push(c);
                self.out.push('{');
                self.out.push_str(&name);
                self.out.push('}');
            }
            _ => return None,
        }
        Some(())
    }

    /// After a `[`: `[ "^" ] ( "-" / CCE1 ) *CCE1 [ "-" ] "]"`.
    fn class(&mut self) -> Option<()> {
        self.out.push('[');
        if self.eat('^') {
            self.out.push('^');
        }
        if self.eat('-') {
            self.out.push_str(r"\-");
        } else {
            self.class_item()?;
        }
        loop {
            match self.peek()? {
                ']' => break,
                '-' if self.peek2() == Some(']') => {
                    self.at += 1;
                    self.out.push_str(r"\-");
                }
                _ => self.class_item()?,
            }
        }
        self.at += 1;
        self.out.push(']');
        Some(())
    }

    /// `CCE1 = ( CCchar [ "-" CCchar ] ) / charClassEsc`
    fn class_item(&mut self) -> Option<()> {
        if self.peek() == Some('\\') && matches!(self.peek2(), Some('p' | 'P')) {
            self.at += 1;
            return self.escape(true);
        }
        self.class_char()?;
        if self.peek() == Some('-') && self.peek2() != Some(']') {
            self.at += 1;
            self.out.push('-');
            self.class_char()?;
        }
        Some(())
    }

    /// `CCchar`: any character but `-`, `[`, `\` and `]`, or a `SingleCharEsc`.
    fn class_char(&mut self) -> Option<()> {
        match self.peek()? {
            '\\' => {
                self.at += 1;
                self.escape(false)
            }
            '-' | '[' | ']' => None,
            c => {
                self.at += 1;
                push_literal(&mut self.out, c);
                Some(())
            }
        }
    }
}

/// `NormalChar`: any character but `.\?*+{}()|[]`.
fn is_normal_char(c: char) -> bool {
    !matches!(
        c,
        '.' | '\\' | '?' | '*' | '+' | '{' | '}' | '(' | ')' | '|' | '[' | ']'
    )
}

/// `c` as a literal of the `regex` crate, in or out of a class.
fn push_literal(out: &mut String, c: char) {
    // The `regex` crate's meta characters (`regex_syntax::is_meta_character`).
    if matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    ) {
        out.push('\\');
    }
    out.push(c);
}

/// `IsCategory`: a Unicode general category or group of them.
fn is_category(name: &str) -> bool {
    matches!(
        name,
        "L" | "Lu"
            | "Ll"
            | "Lt"
            | "Lm"
            | "Lo"
            | "M"
            | "Mn"
            | "Mc"
            | "Me"
            | "N"
            | "Nd"
            | "Nl"
            | "No"
            | "P"
            | "Pc"
            | "Pd"
            | "Ps"
            | "Pe"
            | "Pi"
            | "Pf"
            | "Po"
            | "Z"
            | "Zs"
            | "Zl"
            | "Zp"
            | "S"
            | "Sm"
            | "Sc"
            | "Sk"
            | "So"
            | "C"
            | "Cc"
            | "Cf"
            | "Co"
            | "Cn"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        compile(pattern, true)
            .unwrap_or_else(|| panic!("{pattern:?} is valid"))
            .is_match(text)
    }

    #[test]
    fn valid_patterns() {
        for (pattern, yes, no) in [
            ("", "", "a"),
            ("a|", "", "b"),
            ("a|b", "b", "ab"),
            ("a.c", "a\u{2028}c", "a\nc"),
            ("a.c", "aéc", "a\rc"),
            ("[.]", ".", "a"),
            ("[-a]+", "-a-", "b"),
            ("[a-]", "-", "b"),
            ("[^-]", "a", "-"),
            ("[^a-c]", "d", "b"),
            ("[a-c\\-x]+", "a-x", "d"),
            ("[\\p{Nd}a-c]+", "1a٣", "d"),
            ("\\p{L}+", "Éa", "1"),
            ("\\P{L}", "1", "a"),
            ("\\p{Lu}\\p{Ll}", "Ab", "aB"),
            ("\\p{Cn}", "\u{0378}", "a"),
            ("a{2}", "aa", "aaa"),
            ("a{2,}", "aaaa", "a"),
            ("a{0,2}", "", "aaa"),
            ("(ab)+c?", "ababc", "abcab"),
            (
                "\\.\\*\\?\\+\\(\\)\\[\\]\\{\\}\\|\\\\\\^\\-",
                ".*?+()[]{}|\\^-",
                "a",
            ),
            ("\\n\\r\\t", "\n\r\t", "nrt"),
            ("x#&~ y", "x#&~ y", "x"),
            ("[#&~^]+", "#&~^", "a"),
            ("[a&&b]+", "a&b", "c"),
            ("[a\\-\\-b]+", "-a-", "c"),
            ("^ab$", "ab", "xab"),
            ("é", "é", "e"),
        ] {
            assert!(matches(pattern, yes), "{pattern:?} matches {yes:?}");
            assert!(!matches(pattern, no), "{pattern:?} does not match {no:?}");
        }
        for category in [
            "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P",
            "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Z", "Zs", "Zl", "Zp", "S", "Sm", "Sc", "Sk",
            "So", "C", "Cc", "Cf", "Co", "Cn",
        ] {
            for form in [r"\p{X}", r"\P{X}", r"[\p{X}a]"] {
                let pattern = form.replace('X', category);
                assert!(compile(&pattern, true).is_some(), "{pattern:?}");
            }
        }
    }

    #[test]
    fn search_is_not_anchored() {
        let re = compile("b.", false).unwrap();
        assert!(re.is_match("abc"));
        assert!(!re.is_match("ab\n"));
    }

    #[test]
    fn invalid_patterns() {
        for pattern in [
            "(a",
            "a)",
            ")",
            "a{2,1}",
            "a{",
            "a{1",
            "a{,2}",
            "{1}",
            "*a",
            "a**",
            "a+?",
            "(?:a)",
            "(?i)a",
            "\\d",
            "\\w",
            "\\s",
            "\\b",
            "\\1",
            "\\",
            "\\p{IsBasicLatin}",
            "\\p{Lx}",
            "\\p{L",
            "\\pL",
            "[]",
            "[^]",
            "[a",
            "[--a]",
            "[a-b-c]",
            "[\\p{L}-z]",
            "[a-\\p{L}]",
            "[[a]]",
            "[a--b]",
            "[a]]",
            "]",
            "}",
            "a{99999999999}",
            "[\\d]",
            "[z-a]",
        ] {
            assert!(compile(pattern, true).is_none(), "{pattern:?} is invalid");
        }
    }
}

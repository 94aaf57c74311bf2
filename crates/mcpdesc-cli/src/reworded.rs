//! Findings whose message alone changed between two catalogues. A release that adds a protocol
//! version rewords every message that lists versions; shown as appeared/vanished pairs, those
//! rewordings would bury the findings that really change.

use std::collections::BTreeMap;

use mcpdesc_authoring::corpus::impact::{DocDiagnostic, RuleImpact};

/// One rule's impact, with the rewordings taken out of it.
#[derive(Debug, Default)]
pub(crate) struct Split<'a> {
    pub appeared: Vec<&'a DocDiagnostic>,
    pub vanished: Vec<&'a DocDiagnostic>,
    /// Distinct changes of wording, in order of first occurrence.
    pub rewordings: Vec<Rewording<'a>>,
}

impl Split<'_> {
    /// How many findings were reworded.
    pub(crate) fn reworded(&self) -> usize {
        self.rewordings.iter().map(|r| r.findings.len()).sum()
    }
}

/// One change of wording (the words that differ, before and after) and where it happened.
#[derive(Debug)]
pub(crate) struct Rewording<'a> {
    pub old: String,
    pub new: String,
    /// (appeared, vanished) of each finding reworded this way.
    pub findings: Vec<(&'a DocDiagnostic, &'a DocDiagnostic)>,
}

impl Rewording<'_> {
    pub(crate) fn documents(&self) -> usize {
        let mut docs: Vec<&str> = self
            .findings
            .iter()
            .map(|(a, _)| a.document.as_str())
            .collect();
        docs.sort_unstable();
        docs.dedup();
        docs.len()
    }
}

/// Pairs each appeared finding with a vanished one of the same document, pointer, severity and
/// versions, whose message differs.
pub(crate) fn split<'a>(ri: &'a RuleImpact) -> Split<'a> {
    type Place<'a> = (&'a str, &'a str, &'a str, &'a [String]);
    let place = |d: &'a DocDiagnostic| -> Place<'a> {
        (
            &d.document,
            &d.diagnostic.pointer,
            d.diagnostic.severity.as_str(),
            &d.diagnostic.versions,
        )
    };
    let mut open: BTreeMap<Place<'_>, Vec<usize>> = BTreeMap::new();
    for (i, v) in ri.vanished.iter().enumerate().rev() {
        open.entry(place(v)).or_default().push(i);
    }
    let mut paired = vec![false; ri.vanished.len()];
    let mut out = Split::default();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for a in &ri.appeared {
        let Some(i) = open.get_mut(&place(a)).and_then(Vec::pop) else {
            out.appeared.push(a);
            continue;
        };
        paired[i] = true;
        let v = &ri.vanished[i];
        let (old, new) = differing_words(&v.diagnostic.message, &a.diagnostic.message);
        let at = *index.entry((old.clone(), new.clone())).or_insert_with(|| {
            out.rewordings.push(Rewording {
                old,
                new,
                findings: Vec::new(),
            });
            out.rewordings.len() - 1
        });
        out.rewordings[at].findings.push((a, v));
    }
    out.vanished = ri
        .vanished
        .iter()
        .zip(&paired)
        .filter(|(_, p)| !**p)
        .map(|(v, _)| v)
        .collect();
    out
}

/// The part of each text that differs from the other, widened to whole words: `("to
/// 2026-07-28", "to 2026-07-28 to 2026-12-15")` gives `("2026-07-28", "2026-07-28 to
/// 2026-12-15")`.
pub(crate) fn differing_words(old: &str, new: &str) -> (String, String) {
    if old == new {
        return (String::new(), String::new());
    }
    let (o, n): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let mut start = o.iter().zip(&n).take_while(|(a, b)| a == b).count();
    let room = o.len().min(n.len()) - start;
    let mut tail = o
        .iter()
        .rev()
        .zip(n.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while start > 0 && !o[start - 1].is_whitespace() {
        start -= 1;
    }
    while tail > 0 && !o[o.len() - tail].is_whitespace() {
        tail -= 1;
    }
    let cut = |t: &[char]| t[start..t.len() - tail].iter().collect::<String>();
    (cut(&o), cut(&n))
}

#[cfg(test)]
mod tests {
    use super::differing_words;

    #[test]
    fn widens_to_whole_words() {
        assert_eq!(
            differing_words(
                "narrow the scope to 2026-07-28",
                "narrow the scope to 2026-07-28 to 2026-12-15"
            ),
            ("2026-07-28".into(), "2026-07-28 to 2026-12-15".into())
        );
        assert_eq!(
            differing_words("(a, b); its c", "(a, b, d); its c"),
            ("b);".into(), "b, d);".into())
        );
        assert_eq!(
            differing_words("the 0.8.0 catalogue", "the 0.8.1 catalogue"),
            ("0.8.0".into(), "0.8.1".into())
        );
        assert_eq!(
            differing_words("same", "same"),
            (String::new(), String::new())
        );
        assert_eq!(
            differing_words("", "new words"),
            ("".into(), "new words".into())
        );
        assert_eq!(
            differing_words("é x", "è x"),
            ("é".into(), "è".into()),
            "characters, not bytes"
        );
    }
}

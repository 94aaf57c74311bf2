//! "Did you mean": the valid name closest to a misspelt one, for load errors.
//!
//! Every load error about a name that is not one of a known set (a check function, a check
//! option, a surface, a protocol version, a rule of the base release, a member of a rule
//! file) asks [`closest`] for the name the maintainer probably meant. When there is one the
//! message names it; when there is none it lists the valid names, as before.

use std::borrow::Cow;

/// The candidate `wrong` most probably stands for, if one is close enough.
///
/// Close enough is, in this order of preference:
///
/// * the same name but for case, `-`, `_` and spaces (`schemaFile`, `schema_file` for
///   `schema-file`);
/// * a name that one is a prefix of the other, when the shorter has at least 4 characters and
///   is at least half as long (`protocolVersion` for `protocolVersions`, `requir` for
///   `required`);
/// * a name within a Damerau–Levenshtein distance (letters inserted, deleted, replaced or two
///   neighbours swapped) of about a third of its length: 1 for names of up to 5 characters,
///   2 up to 8, 3 beyond (`requird`, `feilds`, `2025-06-81`). Names shorter than 3 characters
///   are too short to guess from.
///
/// Among several candidates at the same distance, the one with the higher Jaro–Winkler
/// similarity (which favours a common beginning) wins; an exact tie suggests nothing.
pub(crate) fn closest<'a, I>(wrong: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wrong_key = key(wrong);
    let wrong_lower = wrong.to_lowercase();
    let mut best: Option<(usize, f64, &'a str)> = None;
    let mut tied = false;
    for c in candidates {
        if c == wrong {
            return Some(c);
        }
        let c_key = key(c);
        if !wrong_key.is_empty() && c_key == wrong_key {
            return Some(c);
        }
        let c_lower = c.to_lowercase();
        let (short, long) = if c_lower.len() < wrong_lower.len() {
            (&c_lower, &wrong_lower)
        } else {
            (&wrong_lower, &c_lower)
        };
        let short_len = short.chars().count();
        let long_len = long.chars().count();
        let prefix =
            short_len >= 4 && short_len * 2 >= long_len && long.starts_with(short.as_str());
        let distance = strsim::damerau_levenshtein(&wrong_lower, &c_lower);
        let len = wrong_lower.chars().count().max(c_lower.chars().count());
        let allowed = match len {
            0..=2 => 0,
            3..=5 => 1,
            6..=8 => 2,
            _ => 3,
        };
        if !prefix && distance > allowed {
            continue;
        }
        // A prefix counts as one edit: it beats a farther name, not a nearer one.
        let distance = if prefix { distance.min(1) } else { distance };
        let similarity = strsim::jaro_winkler(&wrong_lower, &c_lower);
        match best {
            Some((d, s, _)) if (d, -s) < (distance, -similarity) => {}
            Some((d, s, _)) if d == distance && s == similarity => tied = true,
            _ => {
                best = Some((distance, similarity, c));
                tied = false;
            }
        }
    }
    if tied {
        return None;
    }
    best.map(|(_, _, c)| c)
}

/// `did you mean `x`?` when a candidate is close to `wrong`, else `otherwise()` (which
/// usually lists the valid names).
pub(crate) fn hint<'a, I>(wrong: &str, candidates: I, otherwise: impl FnOnce() -> String) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    match closest(wrong, candidates) {
        Some(c) => format!("did you mean `{c}`?"),
        None => otherwise(),
    }
}

/// The names joined for a message, the list cut after `max` names (`a, b, c and 12 more`).
pub(crate) fn list<'a>(names: impl IntoIterator<Item = &'a str>, max: usize) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    if names.len() <= max {
        return names.join(", ");
    }
    format!("{} and {} more", names[..max].join(", "), names.len() - max)
}

/// The message of an unknown protocol version: the closest version of the catalogue, or
/// every version.
pub(crate) fn unknown_version(name: &str, versions: &crate::versions::VersionList) -> String {
    let known = || versions.iter().map(|(_, n)| n);
    format!(
        "unknown protocol version `{name}`; {}",
        hint(name, known(), || format!(
            "the catalogue has {}",
            known().collect::<Vec<_>>().join(", ")
        ))
    )
}

/// serde's message of an unknown member or variant (`unknown field `feilds`, expected
/// `fields``) with the closest valid name instead of the list, when one is close; other
/// messages unchanged.
pub(crate) fn serde_message(message: &str) -> Cow<'_, str> {
    for what in ["field", "variant"] {
        let Some(rest) = message.strip_prefix(&format!("unknown {what} `")) else {
            continue;
        };
        let Some((wrong, expected)) = rest.split_once('`') else {
            continue;
        };
        // `, expected `a``, `, expected `a` or `b``, `, expected one of `a`, `b`, ...`.
        let Some(expected) = expected.strip_prefix(", expected ") else {
            continue;
        };
        let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        if let Some(c) = closest(wrong, candidates) {
            return Cow::Owned(format!("unknown {what} `{wrong}`; did you mean `{c}`?"));
        }
    }
    Cow::Borrowed(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECKS: &[&str] = &[
        "required",
        "forbidden",
        "type",
        "enum",
        "pattern",
        "non-empty",
        "unique",
        "reference",
        "matches-entry",
        "version-range",
        "json-schema",
        "closed",
        "known-names",
        "flag",
    ];

    #[test]
    fn typing_mistakes_find_the_name() {
        for (wrong, meant) in [
            ("requird", "required"),
            ("reqiured", "required"),
            ("Required", "required"),
            ("non_empty", "non-empty"),
            ("nonEmpty", "non-empty"),
            ("version_range", "version-range"),
            ("versionrange", "version-range"),
            ("json-shema", "json-schema"),
            ("refrence", "reference"),
            ("uniqe", "unique"),
            ("patern", "pattern"),
            ("matches-entries", "matches-entry"),
            ("requir", "required"),
        ] {
            assert_eq!(
                closest(wrong, CHECKS.iter().copied()),
                Some(meant),
                "{wrong}"
            );
        }
    }

    #[test]
    fn prefixes_and_plurals() {
        let members = ["protocolVersions", "capabilities", "serverInfo"];
        assert_eq!(
            closest("protocolVersion", members),
            Some("protocolVersions")
        );
        assert_eq!(closest("capability", members), Some("capabilities"));
        assert_eq!(closest("serverInformation", members), Some("serverInfo"));
        // Too short a prefix to tell.
        assert_eq!(closest("cap", members), None);
    }

    #[test]
    fn versions() {
        let versions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
        assert_eq!(closest("2025-06-81", versions), Some("2025-06-18"));
        assert_eq!(closest("2025-6-18", versions), Some("2025-06-18"));
        assert_eq!(closest("2025-11-52", versions), Some("2025-11-25"));
        // The nearer of two.
        assert_eq!(
            closest("2025-03-18", ["2025-03-26", "2025-06-18"]),
            Some("2025-06-18")
        );
        assert_eq!(closest("2025-xx-yy", versions), None);
        assert_eq!(closest("v9", ["v1", "v2"]), None);
    }

    #[test]
    fn unrelated_names_get_no_guess() {
        for wrong in [
            "no-such-check",
            "colour",
            "x",
            "",
            "regex-match",
            "schema-walker-x",
        ] {
            assert_eq!(closest(wrong, CHECKS.iter().copied()), None, "{wrong}");
        }
    }

    #[test]
    fn ties_suggest_nothing() {
        assert_eq!(closest("abcd", ["abce", "abcf"]), None);
        assert_eq!(closest("abcd", ["abcd", "abce"]), Some("abcd"));
    }

    #[test]
    fn serde_messages() {
        assert_eq!(
            serde_message("unknown field `feilds`, expected `fields`"),
            "unknown field `feilds`; did you mean `fields`?"
        );
        assert_eq!(
            serde_message("unknown field `titel`, expected one of `id`, `title`, `description`"),
            "unknown field `titel`; did you mean `title`?"
        );
        assert_eq!(
            serde_message("unknown variant `structual`, expected `structural` or `serialization`"),
            "unknown variant `structual`; did you mean `structural`?"
        );
        let far = "unknown field `colour`, expected one of `id`, `title`";
        assert_eq!(serde_message(far), far);
        assert_eq!(
            serde_message("invalid type: integer"),
            "invalid type: integer"
        );
    }

    #[test]
    fn long_lists_are_cut() {
        assert_eq!(list(["a", "b"], 3), "a, b");
        assert_eq!(list(["a", "b", "c", "d", "e"], 3), "a, b, c and 2 more");
    }
}

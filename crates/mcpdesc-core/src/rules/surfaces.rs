//! The surface map: for each MCP surface, the JSONPath of every place it occurs in each
//! document kind. A rule with a `subject` is expanded here into the paths it reads.

use std::collections::BTreeMap;

use super::file::{SurfaceDef, WireSelector};
use super::load::{ParsedFile, Problems};
use crate::document::pointer;
use crate::path::JsonPath;
use crate::DocumentKind;

/// The occurrences of one surface, as JSONPath texts per document kind.
#[derive(Debug, Clone, Default)]
pub struct Surface {
    /// The surface's `summary`: what object kind it is, for rule pages and listings.
    pub summary: String,
    /// (document kind, JSONPath of the occurrence).
    pub occurrences: Vec<(DocumentKind, String)>,
    /// Where the surface is defined, for messages.
    pub file: String,
}

/// Every surface of the catalogue by name.
#[derive(Debug, Clone, Default)]
pub struct SurfaceMap(pub BTreeMap<String, Surface>);

/// A JSONPath string literal.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The JSONPath segments that a relative path (`@`, `@…`, or a member name) adds to a path.
pub fn suffix(rel: &str) -> Result<String, String> {
    if rel == "@" {
        return Ok(String::new());
    }
    if let Some(rest) = rel.strip_prefix('@') {
        return Ok(rest.to_owned());
    }
    if rel.starts_with(['$', '^']) || rel.is_empty() {
        return Err(format!(
            "`{rel}` must stay inside the surface: `@`, a path starting with `@`, or a member name"
        ));
    }
    Ok(format!("[{}]", quote(rel)))
}

/// The problem of a rule whose `surface` names no surface of `map`: the surface probably
/// meant, else the surfaces there are; a rule without `subject` may also mean free text.
pub(super) fn unknown_surface(name: &str, subject: bool, map: &SurfaceMap) -> String {
    let names = || map.0.keys().map(String::as_str);
    let meant = super::suggest::closest(name, names());
    if map.0.is_empty() {
        return format!(
            "there is no surface `{name}`: these rules define no surfaces (a `surfaces` block, \
             as the shipped `surfaces.yaml` has); define it, or declare free text as `{{text: ...}}`"
        );
    }
    match (subject, meant) {
        (true, Some(c)) => format!(
            "a rule with a `subject` targets its surface, and there is no surface `{name}`; did you mean `{c}`?"
        ),
        (true, None) => format!(
            "a rule with a `subject` targets its surface, and there is no surface `{name}`; the surface map has {}",
            names().collect::<Vec<_>>().join(", ")
        ),
        (false, Some(c)) => format!(
            "there is no surface `{name}`; did you mean `{c}`? (free text that names no surface is written `{{text: ...}}`)"
        ),
        (false, None) => format!(
            "there is no surface `{name}`: name a surface of the map ({}), or declare free text as `{{text: ...}}`",
            super::suggest::list(names(), 6)
        ),
    }
}

/// The JSONPath over the traffic model that a wire selector names.
pub fn selector_path(sel: &WireSelector) -> Result<String, String> {
    let mut tests = vec![format!("@.kind == {}", quote(sel.kind.as_str()))];
    if let Some(methods) = &sel.method {
        let items = methods.items();
        if items.is_empty() {
            return Err("`method` lists no method".to_owned());
        }
        let any: Vec<String> = items
            .iter()
            .map(|m| format!("@.method == {}", quote(m)))
            .collect();
        tests.push(if any.len() == 1 {
            any[0].clone()
        } else {
            format!("({})", any.join(" || "))
        });
    }
    if let Some(dir) = sel.dir {
        tests.push(format!("@.dir == {}", quote(dir.as_str())));
    }
    let at = suffix(sel.at.as_deref().unwrap_or("@"))?;
    // Every selector starts at the array of entries of the traffic model.
    Ok(format!(
        "$.{}[?{}].msg{at}",
        crate::document::MESSAGES,
        tests.join(" && ")
    ))
}

/// Collects and checks the surfaces of every file, adding them to those of `base` (the
/// surfaces of the release extended); a name defined twice is a problem.
pub(super) fn collect(
    files: &[ParsedFile],
    base: SurfaceMap,
    problems: &mut Problems,
) -> SurfaceMap {
    let mut map = base;
    for f in files {
        if f.value("/surfaces").is_none() {
            continue;
        }
        let Some(defs) = f.deserialize::<BTreeMap<String, SurfaceDef>>("/surfaces", problems)
        else {
            continue;
        };
        for (name, def) in defs {
            let at = format!("/surfaces/{}", pointer::escape(&name));
            if let Some(first) = map.0.get(&name) {
                problems.push(
                    f,
                    &at,
                    format!("surface `{name}` is defined twice; first in {}", first.file),
                );
                continue;
            }
            let mut surface = Surface {
                summary: def.summary.clone(),
                occurrences: Vec::new(),
                file: f.path.clone(),
            };
            for (i, text) in def.description.iter().enumerate() {
                match JsonPath::compile(text) {
                    Ok(_) => surface
                        .occurrences
                        .push((DocumentKind::Description, text.clone())),
                    Err(e) => {
                        problems.push_value(f, &format!("{at}/description/{i}"), e.to_string())
                    }
                }
            }
            for (i, sel) in def.traffic.iter().enumerate() {
                let text = selector_path(sel)
                    .and_then(|p| JsonPath::compile(&p).map(|_| p).map_err(|e| e.to_string()));
                match text {
                    Ok(p) => surface.occurrences.push((DocumentKind::Traffic, p)),
                    Err(e) => problems.push_value(f, &format!("{at}/traffic/{i}"), e),
                }
            }
            map.0.insert(name, surface);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::file::{Direction, MessageKind, OneOrMany};

    #[test]
    fn selectors_become_filters_over_the_messages() {
        let sel = WireSelector {
            kind: MessageKind::Result,
            method: Some(OneOrMany::Many(vec!["a/b".into(), "c'd".into()])),
            dir: Some(Direction::ServerToClient),
            at: Some("@.result.items[*]".into()),
        };
        let p = selector_path(&sel).unwrap();
        assert_eq!(
            p,
            "$.messages[?@.kind == 'result' && (@.method == 'a/b' || @.method == 'c\\'d') && @.dir == 's2c'].msg.result.items[*]"
        );
        JsonPath::compile(&p).unwrap();
    }

    #[test]
    fn subjects_stay_inside_the_surface() {
        assert_eq!(suffix("@").unwrap(), "");
        assert_eq!(suffix("@.mode").unwrap(), ".mode");
        assert_eq!(suffix("mode").unwrap(), "['mode']");
        assert!(suffix("^.x").is_err());
        assert!(suffix("$.x").is_err());
    }
}

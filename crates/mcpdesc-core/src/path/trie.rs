//! Many queries over a document tree in one traversal: queries are stored by their steps in
//! a trie, so the leading steps they have in common are walked once for all of them, and each
//! node is visited once for every query reading it while it is in cache.
//!
//! Several filters over the same array, each requiring some member of the element to equal
//! one of a few strings (`[?@.kind == 'a' && ...]`, `[?@.kind == 'b']`), are answered from one
//! index of the elements by that member's value, built the first time one of them meets the
//! array: each filter is then tested only on the elements the index names, in array order.
//! A capture's selectors are dozens of such filters over thousands of entries.

use std::collections::HashMap;

use crate::document::{ArrayRef, ValueRef};

use super::filter::Scope;
use super::select::{apply, Trail};
use super::steps::{Literal, Logical, Op, Operand, Query, Selector, Step};

/// Arrays shorter than this are filtered element by element: an index would cost more.
const INDEXED_LEN: usize = 32;

#[derive(Debug)]
pub(crate) struct StepTrie<'p> {
    /// Node 0 is the root: the queries' common start, the document root.
    nodes: Vec<TrieNode<'p>>,
}

#[derive(Debug, Default)]
struct TrieNode<'p> {
    /// The queries whose steps end here, by index.
    ends: Vec<usize>,
    children: Vec<(&'p Step, usize)>,
    /// Per child, the equality tests its filter implies; empty when fewer than two children
    /// have any, so that no index would be shared.
    keys: Vec<Vec<KeyTest<'p>>>,
    /// Per child, whether its filter is those tests and nothing else: the elements that pass
    /// them all are then the filter's, without evaluating it.
    exact: Vec<bool>,
    /// The distinct member queries of those tests; `KeyTest::query` indexes this.
    queries: Vec<&'p Query>,
}

/// A filter holds for an element only if `queries[query]` selects, on that element, a string
/// among `values`.
#[derive(Debug)]
struct KeyTest<'p> {
    query: usize,
    values: Vec<&'p str>,
}

/// The elements of one array by the string each has at one member query. Keyed by
/// `foldhash`, seeded at random like the standard library's hasher and several times faster
/// on the short strings these are (see `eval::scope`).
type Index<'d> = HashMap<&'d str, Vec<u32>, crate::FastHash>;

impl<'p> StepTrie<'p> {
    pub(crate) fn new() -> StepTrie<'p> {
        StepTrie {
            nodes: vec![TrieNode::default()],
        }
    }

    /// Adds query `index`, made of `steps`.
    pub(crate) fn insert(&mut self, index: usize, steps: &'p [Step]) {
        let mut at = 0;
        for step in steps {
            let found = self.nodes[at].children.iter().find(|(s, _)| *s == step);
            at = match found {
                Some(&(_, child)) => child,
                None => {
                    self.nodes.push(TrieNode::default());
                    let child = self.nodes.len() - 1;
                    self.nodes[at].children.push((step, child));
                    child
                }
            };
        }
        self.nodes[at].ends.push(index);
    }

    /// Finds, once every query is in, the filters that can share an index (until then, every
    /// filter tests every element).
    pub(crate) fn plan_indexes(&mut self) {
        for node in &mut self.nodes {
            node.plan_keys();
        }
    }

    /// Calls `f` with the query's index, the pointer and the node, for every node each query
    /// selects in `root`. Each query's nodes come in its own (RFC 9535) order; the queries'
    /// nodes are interleaved.
    pub(crate) fn for_each<'d>(
        &self,
        root: ValueRef<'d>,
        f: &mut dyn FnMut(usize, &str, ValueRef<'d>),
    ) {
        let mut at = String::new();
        self.visit(0, root, &Scope::new(root), &mut at, f);
    }

    fn visit<'d>(
        &self,
        t: usize,
        node: ValueRef<'d>,
        scope: &Scope<'d>,
        at: &mut String,
        f: &mut dyn FnMut(usize, &str, ValueRef<'d>),
    ) {
        let trie = &self.nodes[t];
        for &i in &trie.ends {
            f(i, at, node);
        }
        let items = node.as_array().filter(|a| a.len() >= INDEXED_LEN);
        let mut indexes: Vec<Option<Index<'d>>> = Vec::new();
        for (c, &(step, child)) in trie.children.iter().enumerate() {
            let keys = trie.keys.get(c).map_or(&[][..], Vec::as_slice);
            if let (Some(items), Step::Child(Selector::Filter(filter)), false) =
                (items, step, keys.is_empty())
            {
                if indexes.is_empty() {
                    indexes.resize_with(trie.queries.len(), || None);
                }
                let exact = trie.exact.get(c).copied().unwrap_or(false);
                let candidates = trie.candidates(keys, exact, items, scope, &mut indexes);
                let mark = at.mark();
                for i in candidates {
                    let Some(element) = items.get(i as usize) else {
                        continue;
                    };
                    if exact || filter.holds(element, scope) {
                        at.push_index(i as usize);
                        self.visit(child, element, scope, at, f);
                        at.reset(mark);
                    }
                }
                continue;
            }
            apply(step, node, scope, at, &mut |at, value| {
                self.visit(child, value, scope, at, f);
                false
            });
        }
    }
}

impl<'p> TrieNode<'p> {
    /// Finds the equality tests of the children's filters, keeping them only when at least
    /// two children have some.
    fn plan_keys(&mut self) {
        let mut queries: Vec<&'p Query> = Vec::new();
        let keys: Vec<Vec<KeyTest<'p>>> = self
            .children
            .iter()
            .map(|(step, _)| match step {
                Step::Child(Selector::Filter(filter)) => key_tests(filter)
                    .into_iter()
                    .map(|(query, values)| {
                        let slot = match queries.iter().position(|q| *q == query) {
                            Some(slot) => slot,
                            None => {
                                queries.push(query);
                                queries.len() - 1
                            }
                        };
                        KeyTest {
                            query: slot,
                            values,
                        }
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        if keys.iter().filter(|k| !k.is_empty()).count() >= 2 {
            self.exact = self
                .children
                .iter()
                .map(|(step, _)| match step {
                    Step::Child(Selector::Filter(filter)) => only_key_tests(filter),
                    _ => false,
                })
                .collect();
            self.keys = keys;
            self.queries = queries;
        }
    }

    /// The positions of the elements of `items` a filter with `keys` may hold for, ascending:
    /// those of its most selective test, or, when the filter is `exact`ly its tests, those
    /// passing every test.
    fn candidates<'d>(
        &self,
        keys: &[KeyTest<'p>],
        exact: bool,
        items: ArrayRef<'d>,
        scope: &Scope<'d>,
        indexes: &mut [Option<Index<'d>>],
    ) -> Vec<u32> {
        let mut best: Option<Vec<u32>> = None;
        for key in keys {
            let index = indexes[key.query].get_or_insert_with(|| {
                let query = self.queries[key.query];
                let mut index: Index<'d> = HashMap::default();
                for (i, element) in items.iter().enumerate() {
                    if let Some(s) = query.first(element, scope).and_then(ValueRef::as_str) {
                        index.entry(s).or_default().push(i as u32);
                    }
                }
                index
            });
            let mut found: Vec<u32> = key
                .values
                .iter()
                .filter_map(|v| index.get(v))
                .flatten()
                .copied()
                .collect();
            if key.values.len() > 1 {
                found.sort_unstable();
                found.dedup();
            }
            best = match best {
                Some(b) if exact => Some(intersection(&b, &found)),
                Some(b) if b.len() <= found.len() => Some(b),
                _ => Some(found),
            };
        }
        best.unwrap_or_default()
    }
}

/// Tests `filter` implies: each is a relative query of member names that must select, on
/// the element, a string among the values. A conjunction implies the tests of each of its
/// terms; a disjunction one test, when every term tests the same query.
fn key_tests(filter: &Logical) -> Vec<(&Query, Vec<&str>)> {
    match filter {
        Logical::And(items) => items.iter().flat_map(key_tests).collect(),
        Logical::Or(items) => {
            let mut query: Option<&Query> = None;
            let mut values = Vec::new();
            for item in items {
                match equality(item) {
                    Some((q, v)) if query.is_none_or(|seen| seen == q) => {
                        query = Some(q);
                        values.push(v);
                    }
                    _ => return Vec::new(),
                }
            }
            query.map(|q| vec![(q, values)]).unwrap_or_default()
        }
        other => equality(other)
            .map(|(q, v)| vec![(q, vec![v])])
            .unwrap_or_default(),
    }
}

/// Whether `filter` holds exactly when every test [`key_tests`] finds in it passes.
fn only_key_tests(filter: &Logical) -> bool {
    match filter {
        Logical::And(items) => items.iter().all(only_key_tests),
        Logical::Or(_) => !key_tests(filter).is_empty(),
        other => equality(other).is_some(),
    }
}

/// The positions in both ascending lists.
fn intersection(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut out) = (0, 0, Vec::with_capacity(a.len().min(b.len())));
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// `@.a.b == 'text'` (either way round), for a query of member names only.
fn equality(filter: &Logical) -> Option<(&Query, &str)> {
    let Logical::Compare(Op::Eq, left, right) = filter else {
        return None;
    };
    let (query, text) = match (left, right) {
        (Operand::Node(q), Operand::Literal(Literal::Str(s)))
        | (Operand::Literal(Literal::Str(s)), Operand::Node(q)) => (q, s),
        _ => return None,
    };
    let names_only = !query.absolute
        && query
            .steps
            .iter()
            .all(|step| matches!(step, Step::Child(Selector::Name(_))));
    names_only.then_some((query, &**text))
}

#[cfg(test)]
mod tests {
    use super::super::JsonPath;
    use super::*;

    /// The trie of `paths`, query `i` being `paths[i]`, ready to evaluate.
    fn trie_of(paths: &[JsonPath]) -> StepTrie<'_> {
        let mut trie = StepTrie::new();
        for (i, path) in paths.iter().enumerate() {
            trie.insert(i, &path.steps);
        }
        trie.plan_indexes();
        trie
    }

    #[test]
    fn shares_common_leading_steps() {
        let paths: Vec<JsonPath> = [
            "$.tools[*].name",
            "$['tools'][*]['inputSchema']",
            "$.tools[*]",
            "$.tools[?@.name == 'a'].name",
            "$.tools[?@.name == 'a']",
            "$.tools[?@.name == 'b']",
            "$..[?match(@, 'a.')]",
            "$..[?match(@, 'a.')].x",
        ]
        .iter()
        .map(|t| JsonPath::compile(t).unwrap())
        .collect();
        let trie = trie_of(&paths);
        // The root; `tools`, `[*]` and its `name` and `inputSchema`; the two filters and the
        // first's `name`; the descendant filter and its `x`.
        assert_eq!(trie.nodes.len(), 10);
        assert_eq!(trie.nodes[0].children.len(), 2);
    }

    /// Filters sharing an index select what each selects alone, in the same order.
    #[test]
    fn indexed_filters_select_as_each_query_alone() {
        let colours = ["red", "green", "blue", "grey"];
        let ops = ["a/list", "a/call", "b/get", "c/start"];
        let entries: Vec<serde_json::Value> = (0..200)
            .map(|i| match i % 13 {
                // Values an equality on a string never matches, and a missing member.
                0 => serde_json::json!({"colour": 1, "op": "a/list", "n": i}),
                1 => serde_json::json!({"op": "a/list", "n": i}),
                2 => serde_json::json!({"colour": ["red"], "op": "a/call", "n": i}),
                3 => serde_json::json!({"colour": "red", "op": {"x": "a/call"}, "n": i}),
                _ => serde_json::json!({
                    "colour": colours[i % 4], "op": ops[(i / 4) % 4], "n": i,
                    "body": {"id": i, "out": {"items": [{"name": format!("t{i}")}]}}
                }),
            })
            .collect();
        let doc = crate::document::Tree::from_value(&serde_json::json!({
            "entries": entries, "few": [{"colour": "red"}, {"colour": "green"}]
        }));
        let texts = [
            "$.entries[?@.colour == 'red']",
            "$.entries[?@.colour == 'red' && @.op == 'a/call'].body",
            "$.entries[?@.colour == 'green' && (@.op == 'a/list' || @.op == 'b/get')].body.out.items[*].name",
            "$.entries[?'blue' == @.colour].n",
            "$.entries[?@.op == 'c/start' && @.n > 100]",
            "$.entries[?@.colour != 'red']",
            "$.entries[?@.colour == 1]",
            "$.entries[?@.colour == 'green' || @.op == 'a/list']",
            "$.entries[?@.nothing == 'x']",
            "$.entries[*].colour",
            "$.few[?@.colour == 'red']",
            "$.few[?@.colour == 'green']",
        ];
        let paths: Vec<JsonPath> = texts
            .iter()
            .map(|t| JsonPath::compile(t).unwrap())
            .collect();
        let trie = trie_of(&paths);
        let filters = &trie.nodes[trie.nodes[0].children[0].1];
        assert_eq!(filters.keys.iter().filter(|k| !k.is_empty()).count(), 6);
        let mut together: Vec<Vec<String>> = vec![Vec::new(); paths.len()];
        trie.for_each(doc.root(), &mut |i, pointer, _| {
            together[i].push(pointer.to_owned())
        });
        for (i, path) in paths.iter().enumerate() {
            let alone: Vec<String> = path
                .select(doc.root())
                .into_iter()
                .map(|s| s.pointer)
                .collect();
            assert_eq!(together[i], alone, "{}", texts[i]);
            assert!(
                !alone.is_empty() || texts[i].contains("nothing"),
                "{}",
                texts[i]
            );
        }
    }
}

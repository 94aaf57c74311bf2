//! Many queries over a document tree in one traversal: queries are stored by their steps in
//! a trie, so the leading steps they have in common are walked once for all of them, and each
//! node is visited once for every query reading it while it is in cache.

use crate::document::ValueRef;

use super::select::apply;
use super::steps::Step;

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
}

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

    /// Calls `f` with the query's index, the pointer and the node, for every node each query
    /// selects in `root`. Each query's nodes come in its own (RFC 9535) order; the queries'
    /// nodes are interleaved.
    pub(crate) fn for_each<'d>(
        &self,
        root: ValueRef<'d>,
        f: &mut dyn FnMut(usize, &str, ValueRef<'d>),
    ) {
        let mut at = String::new();
        self.visit(0, root, root, &mut at, f);
    }

    fn visit<'d>(
        &self,
        t: usize,
        node: ValueRef<'d>,
        root: ValueRef<'d>,
        at: &mut String,
        f: &mut dyn FnMut(usize, &str, ValueRef<'d>),
    ) {
        let trie = &self.nodes[t];
        for &i in &trie.ends {
            f(i, at, node);
        }
        for &(step, child) in &trie.children {
            apply(step, node, root, at, &mut |at, value| {
                self.visit(child, value, root, at, f);
                false
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::JsonPath;
    use super::*;

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
        let mut trie = StepTrie::new();
        for (i, path) in paths.iter().enumerate() {
            trie.insert(i, &path.steps);
        }
        // The root; `tools`, `[*]` and its `name` and `inputSchema`; the two filters and the
        // first's `name`; the descendant filter and its `x`.
        assert_eq!(trie.nodes.len(), 10);
        assert_eq!(trie.nodes[0].children.len(), 2);
    }
}

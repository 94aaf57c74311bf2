//! A compact binary form of `jsonpath-rust`'s syntax tree ([`JpQuery`]).
//!
//! The build script parses the queries of the embedded rule files with `jsonpath-rust` and
//! stores them in this form (it includes this file with `#[path]`, so the module depends on
//! nothing but that crate), which lets loading the default catalogue skip the `pest` parser.
//! Decoding gives back the tree the parser built, node for node.
//!
//! Each node is a tag byte followed by its fields: lengths and counts as LEB128, integers as
//! zigzag LEB128, floats as their 8 bits in little endian, strings as a length and UTF-8.

use jsonpath_rust::parser::model::{
    Comparable, Comparison, Filter, FilterAtom, FnArg, JpQuery, Literal, Segment, Selector,
    SingularQuery, SingularQuerySegment, Test, TestFunction,
};

/// Deeper trees are not decoded; `jsonpath-rust` refuses to nest deeper than 128 anyway.
const MAX_DEPTH: usize = 512;

/// The encoded form of `query`.
pub(crate) fn encode(query: &JpQuery) -> Vec<u8> {
    let mut out = Vec::new();
    segments(&mut out, &query.segments);
    out
}

/// The query `bytes` encode, or `None` when they are not an encoding [`encode`] wrote.
pub(crate) fn decode(bytes: &[u8]) -> Option<JpQuery> {
    let mut reader = Reader {
        bytes,
        at: 0,
        depth: 0,
    };
    let segments = reader.segments()?;
    (reader.at == bytes.len()).then(|| JpQuery::new(segments))
}

fn uint(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn int(out: &mut Vec<u8>, n: i64) {
    uint(out, ((n << 1) ^ (n >> 63)) as u64);
}

fn string(out: &mut Vec<u8>, s: &str) {
    uint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn segments(out: &mut Vec<u8>, list: &[Segment]) {
    uint(out, list.len() as u64);
    list.iter().for_each(|s| segment(out, s));
}

fn segment(out: &mut Vec<u8>, s: &Segment) {
    match s {
        Segment::Descendant(inner) => {
            out.push(0);
            segment(out, inner);
        }
        Segment::Selector(sel) => {
            out.push(1);
            selector(out, sel);
        }
        Segment::Selectors(list) => {
            out.push(2);
            uint(out, list.len() as u64);
            list.iter().for_each(|sel| selector(out, sel));
        }
    }
}

fn optional_int(out: &mut Vec<u8>, n: Option<i64>) {
    match n {
        None => out.push(0),
        Some(n) => {
            out.push(1);
            int(out, n);
        }
    }
}

fn selector(out: &mut Vec<u8>, sel: &Selector) {
    match sel {
        Selector::Name(name) => {
            out.push(0);
            string(out, name);
        }
        Selector::Wildcard => out.push(1),
        Selector::Index(i) => {
            out.push(2);
            int(out, *i);
        }
        Selector::Slice(start, end, step) => {
            out.push(3);
            optional_int(out, *start);
            optional_int(out, *end);
            optional_int(out, *step);
        }
        Selector::Filter(f) => {
            out.push(4);
            filter(out, f);
        }
    }
}

fn filter(out: &mut Vec<u8>, f: &Filter) {
    match f {
        Filter::Or(list) | Filter::And(list) => {
            out.push(if matches!(f, Filter::Or(_)) { 0 } else { 1 });
            uint(out, list.len() as u64);
            list.iter().for_each(|f| filter(out, f));
        }
        Filter::Atom(FilterAtom::Filter { expr, not }) => {
            out.push(2);
            out.push(u8::from(*not));
            filter(out, expr);
        }
        Filter::Atom(FilterAtom::Test { expr, not }) => {
            out.push(3);
            out.push(u8::from(*not));
            test(out, expr);
        }
        Filter::Atom(FilterAtom::Comparison(cmp)) => {
            let (op, (left, right)) = match cmp.as_ref() {
                Comparison::Eq(..) => (0, cmp.vals()),
                Comparison::Ne(..) => (1, cmp.vals()),
                Comparison::Gt(..) => (2, cmp.vals()),
                Comparison::Gte(..) => (3, cmp.vals()),
                Comparison::Lt(..) => (4, cmp.vals()),
                Comparison::Lte(..) => (5, cmp.vals()),
            };
            out.push(4);
            out.push(op);
            comparable(out, left);
            comparable(out, right);
        }
    }
}

fn test(out: &mut Vec<u8>, t: &Test) {
    match t {
        Test::RelQuery(list) => {
            out.push(0);
            segments(out, list);
        }
        Test::AbsQuery(query) => {
            out.push(1);
            segments(out, &query.segments);
        }
        Test::Function(f) => {
            out.push(2);
            function(out, f);
        }
    }
}

fn function(out: &mut Vec<u8>, f: &TestFunction) {
    match f {
        TestFunction::Custom(name, args) => {
            out.push(0);
            string(out, name);
            uint(out, args.len() as u64);
            args.iter().for_each(|a| fn_arg(out, a));
        }
        TestFunction::Length(a) => {
            out.push(1);
            fn_arg(out, a);
        }
        TestFunction::Value(a) => {
            out.push(2);
            fn_arg(out, a);
        }
        TestFunction::Count(a) => {
            out.push(3);
            fn_arg(out, a);
        }
        TestFunction::Search(a, b) => {
            out.push(4);
            fn_arg(out, a);
            fn_arg(out, b);
        }
        TestFunction::Match(a, b) => {
            out.push(5);
            fn_arg(out, a);
            fn_arg(out, b);
        }
    }
}

fn fn_arg(out: &mut Vec<u8>, a: &FnArg) {
    match a {
        FnArg::Literal(lit) => {
            out.push(0);
            literal(out, lit);
        }
        FnArg::Test(t) => {
            out.push(1);
            test(out, t);
        }
        FnArg::Filter(f) => {
            out.push(2);
            filter(out, f);
        }
    }
}

fn comparable(out: &mut Vec<u8>, c: &Comparable) {
    match c {
        Comparable::Literal(lit) => {
            out.push(0);
            literal(out, lit);
        }
        Comparable::Function(f) => {
            out.push(1);
            function(out, f);
        }
        Comparable::SingularQuery(q) => {
            let (tag, list) = match q {
                SingularQuery::Current(list) => (2, list),
                SingularQuery::Root(list) => (3, list),
            };
            out.push(tag);
            uint(out, list.len() as u64);
            for s in list {
                match s {
                    SingularQuerySegment::Name(name) => {
                        out.push(0);
                        string(out, name);
                    }
                    SingularQuerySegment::Index(i) => {
                        out.push(1);
                        int(out, *i);
                    }
                }
            }
        }
    }
}

fn literal(out: &mut Vec<u8>, lit: &Literal) {
    match lit {
        Literal::Int(i) => {
            out.push(0);
            int(out, *i);
        }
        Literal::Float(f) => {
            out.push(1);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Literal::String(s) => {
            out.push(2);
            string(out, s);
        }
        Literal::Bool(b) => out.push(if *b { 4 } else { 3 }),
        Literal::Null => out.push(5),
    }
}

struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn uint(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn int(&mut self) -> Option<i64> {
        let n = self.uint()?;
        Some((n >> 1) as i64 ^ -((n & 1) as i64))
    }

    /// A count of items that each take at least one byte, so bounded by what is left.
    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.uint()?).ok()?;
        (n <= self.bytes.len() - self.at).then_some(n)
    }

    fn string(&mut self) -> Option<String> {
        let len = self.count()?;
        let bytes = self.bytes.get(self.at..self.at + len)?;
        self.at += len;
        String::from_utf8(bytes.to_vec()).ok()
    }

    fn list<T>(&mut self, item: impl Fn(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = self.count()?;
        (0..n).map(|_| item(self)).collect()
    }

    /// Reads one nested node, refusing to nest beyond [`MAX_DEPTH`].
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth == MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let node = read(self);
        self.depth -= 1;
        node
    }

    fn segments(&mut self) -> Option<Vec<Segment>> {
        self.list(Self::segment)
    }

    fn segment(&mut self) -> Option<Segment> {
        self.nested(|r| {
            Some(match r.byte()? {
                0 => Segment::Descendant(Box::new(r.segment()?)),
                1 => Segment::Selector(r.selector()?),
                2 => Segment::Selectors(r.list(Self::selector)?),
                _ => return None,
            })
        })
    }

    fn optional_int(&mut self) -> Option<Option<i64>> {
        match self.byte()? {
            0 => Some(None),
            1 => Some(Some(self.int()?)),
            _ => None,
        }
    }

    fn selector(&mut self) -> Option<Selector> {
        Some(match self.byte()? {
            0 => Selector::Name(self.string()?),
            1 => Selector::Wildcard,
            2 => Selector::Index(self.int()?),
            3 => Selector::Slice(
                self.optional_int()?,
                self.optional_int()?,
                self.optional_int()?,
            ),
            4 => Selector::Filter(self.filter()?),
            _ => return None,
        })
    }

    fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn filter(&mut self) -> Option<Filter> {
        self.nested(|r| {
            Some(match r.byte()? {
                0 => Filter::Or(r.list(Self::filter)?),
                1 => Filter::And(r.list(Self::filter)?),
                2 => {
                    let not = r.bool()?;
                    Filter::Atom(FilterAtom::filter(r.filter()?, not))
                }
                3 => {
                    let not = r.bool()?;
                    Filter::Atom(FilterAtom::test(r.test()?, not))
                }
                4 => {
                    let op = r.byte()?;
                    let left = r.comparable()?;
                    let right = r.comparable()?;
                    let cmp = match op {
                        0 => Comparison::Eq(left, right),
                        1 => Comparison::Ne(left, right),
                        2 => Comparison::Gt(left, right),
                        3 => Comparison::Gte(left, right),
                        4 => Comparison::Lt(left, right),
                        5 => Comparison::Lte(left, right),
                        _ => return None,
                    };
                    Filter::Atom(FilterAtom::cmp(Box::new(cmp)))
                }
                _ => return None,
            })
        })
    }

    fn test(&mut self) -> Option<Test> {
        self.nested(|r| {
            Some(match r.byte()? {
                0 => Test::RelQuery(r.segments()?),
                1 => Test::AbsQuery(JpQuery::new(r.segments()?)),
                2 => Test::Function(Box::new(r.function()?)),
                _ => return None,
            })
        })
    }

    fn function(&mut self) -> Option<TestFunction> {
        self.nested(|r| {
            Some(match r.byte()? {
                0 => TestFunction::Custom(r.string()?, r.list(Self::fn_arg)?),
                1 => TestFunction::Length(Box::new(r.fn_arg()?)),
                2 => TestFunction::Value(r.fn_arg()?),
                3 => TestFunction::Count(r.fn_arg()?),
                4 => TestFunction::Search(r.fn_arg()?, r.fn_arg()?),
                5 => TestFunction::Match(r.fn_arg()?, r.fn_arg()?),
                _ => return None,
            })
        })
    }

    fn fn_arg(&mut self) -> Option<FnArg> {
        Some(match self.byte()? {
            0 => FnArg::Literal(self.literal()?),
            1 => FnArg::Test(Box::new(self.test()?)),
            2 => FnArg::Filter(self.filter()?),
            _ => return None,
        })
    }

    fn comparable(&mut self) -> Option<Comparable> {
        Some(match self.byte()? {
            0 => Comparable::Literal(self.literal()?),
            1 => Comparable::Function(self.function()?),
            tag @ (2 | 3) => {
                let list = self.list(|r| {
                    Some(match r.byte()? {
                        0 => SingularQuerySegment::Name(r.string()?),
                        1 => SingularQuerySegment::Index(r.int()?),
                        _ => return None,
                    })
                })?;
                Comparable::SingularQuery(if tag == 2 {
                    SingularQuery::Current(list)
                } else {
                    SingularQuery::Root(list)
                })
            }
            _ => return None,
        })
    }

    fn literal(&mut self) -> Option<Literal> {
        Some(match self.byte()? {
            0 => Literal::Int(self.int()?),
            1 => {
                let bits = self.bytes.get(self.at..self.at + 8)?;
                self.at += 8;
                Literal::Float(f64::from_bits(u64::from_le_bytes(bits.try_into().ok()?)))
            }
            2 => Literal::String(self.string()?),
            3 => Literal::Bool(false),
            4 => Literal::Bool(true),
            5 => Literal::Null,
            _ => return None,
        })
    }
}

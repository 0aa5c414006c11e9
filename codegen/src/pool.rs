//! The expression arena: one hash-consed, topologically ordered pool of nodes.
//!
//! Every expression is an [`ExprId`] into a [`Pool`]. Interning guarantees that structurally
//! equal nodes share one id, and every child id is smaller than its parent's id, so iterating
//! ids in increasing order visits children before parents (the order eval, CSE and emission
//! rely on). Nodes are only created through the canonicalising constructors of
//! `construct.rs`; [`Pool::intern`] is the raw path and its precondition is that the node is
//! already canonical.

use crate::number::Number;
use rustc_hash::{FxHashMap, FxHasher};
use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};

/// Index of an expression in its [`Pool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a symbol in its [`Pool`]'s symbol table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymId(pub u32);

/// What a symbol stands for in a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// Time `t`.
    Time,
    /// Generalized coordinate `q[i]`.
    Coordinate(usize),
    /// Velocity `v[i] = q̇[i]`.
    Velocity(usize),
    /// Runtime parameter number `i` (a field of the model struct).
    Parameter(usize),
    /// Multiplier `lambda[i]`, an input of tangent kernels (never in a model's own expressions).
    Multiplier(usize),
    /// Entry `w[i]` of an arbitrary input vector of tangent kernels, as in ∂(M w)/∂q.
    Auxiliary(usize),
    /// A symbol with no model meaning (tests, scratch work).
    Free,
}

/// A named symbol.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Symbol {
    /// The name as the user wrote it.
    pub name: String,
    /// Its meaning.
    pub kind: SymbolKind,
}

/// Unary functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Tangent.
    Tan,
    /// Exponential.
    Exp,
    /// Natural logarithm.
    Ln,
    /// Absolute value.
    Abs,
    /// Inverse sine, on [−1, 1].
    Asin,
    /// Inverse cosine, on [−1, 1].
    Acos,
    /// Inverse tangent.
    Atan,
    /// Hyperbolic sine.
    Sinh,
    /// Hyperbolic cosine.
    Cosh,
    /// Hyperbolic tangent.
    Tanh,
}

impl Func {
    /// Every function with its one name: the s-expression head, the front end's method and
    /// function name, and the `f64` method the emitter calls. The one table of function names.
    pub const ALL: [(Func, &'static str); 12] = [
        (Func::Sin, "sin"),
        (Func::Cos, "cos"),
        (Func::Tan, "tan"),
        (Func::Exp, "exp"),
        (Func::Ln, "ln"),
        (Func::Abs, "abs"),
        (Func::Asin, "asin"),
        (Func::Acos, "acos"),
        (Func::Atan, "atan"),
        (Func::Sinh, "sinh"),
        (Func::Cosh, "cosh"),
        (Func::Tanh, "tanh"),
    ];

    /// The function's name (see [`Func::ALL`]).
    pub fn name(self) -> &'static str {
        Func::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, name)| *name)
            .expect("every function is in Func::ALL")
    }

    /// The function with this name, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }
}

/// Comparison operators of [`Node::Cmp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// One node of the graph. Children are ids of earlier nodes.
///
/// A square root is `Pow(x, 1/2)` (canonical form; the emitter prints `.sqrt()`), a division
/// `a * b^-1` and a subtraction `a + (-1)·b`, so that like terms and powers collect.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A numeric constant.
    Num(Number),
    /// A symbol.
    Sym(SymId),
    /// Sum of two or more terms, flattened, like terms collected, sorted by id.
    Add(Box<[ExprId]>),
    /// Product of two or more factors, flattened, powers collected, sorted by id; at most one
    /// factor is a number (the coefficient, never 1).
    Mul(Box<[ExprId]>),
    /// `base ^ exponent`.
    Pow(ExprId, ExprId),
    /// A unary function application.
    Func(Func, ExprId),
    /// `atan2(y, x)`, the angle of the point (x, y).
    Atan2(ExprId, ExprId),
    /// The smaller of two values.
    Min(ExprId, ExprId),
    /// The larger of two values.
    Max(ExprId, ExprId),
    /// 1 when the comparison holds, 0 otherwise.
    Cmp(CmpOp, ExprId, ExprId),
    /// `if cond != 0 { then } else { otherwise }`: (cond, then, otherwise).
    Select(ExprId, ExprId, ExprId),
}

/// The arena. See the module documentation for its invariants.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    nodes: Vec<Node>,
    memo: Memo,
    symbols: Vec<Symbol>,
    symbol_by_name: FxHashMap<String, SymId>,
    pub(crate) diff_memo: FxHashMap<(ExprId, crate::diff::Wrt), ExprId>,
    pub(crate) directions: Vec<FxHashMap<SymId, ExprId>>,
    pub(crate) direction_masks: Vec<Vec<u64>>,
    /// Per node, the set of symbols it mentions as a bitset over symbol ids (filled lazily by
    /// [`Pool::symbol_set`]). A node can only mention symbols declared before it, so a set
    /// computed once stays right forever; bits past its end are zero.
    symbol_sets: Vec<Box<[u64]>>,
    /// Per product, its split into coefficient and rest once computed (`construct.rs`).
    pub(crate) split_memo: Vec<Option<crate::construct::Split>>,
    /// `−a` by `a`, once computed ([`Pool::neg`]).
    pub(crate) neg_memo: FxHashMap<ExprId, ExprId>,
}

impl Pool {
    /// An empty pool.
    pub fn new() -> Pool {
        Pool::default()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the pool has no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node behind an id.
    pub fn node(&self, id: ExprId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Intern a node that is already canonical; returns the existing id when present.
    pub fn intern(&mut self, node: Node) -> ExprId {
        let hash = node_hash(&node);
        match self.memo.find(&self.nodes, hash, |known| *known == node) {
            Some(id) => id,
            None => self.push_node(hash, node),
        }
    }

    /// [`Pool::intern`] for the sum or product with these operands (already canonical), looked
    /// up without building the node: a hit allocates nothing.
    pub(crate) fn intern_nary(&mut self, kind: Nary, operands: &[ExprId]) -> ExprId {
        let hash = nary_hash(kind, operands);
        match self
            .memo
            .find(&self.nodes, hash, |known| is_nary(known, kind, operands))
        {
            Some(id) => id,
            None => self.push_node(hash, kind.node(operands.into())),
        }
    }

    fn push_node(&mut self, hash: u64, node: Node) -> ExprId {
        debug_assert!(children(&node).iter().all(|c| c.index() < self.nodes.len()));
        let id = ExprId(u32::try_from(self.nodes.len()).expect("expression pool overflow"));
        self.nodes.push(node);
        self.memo.insert(hash, id);
        id
    }

    /// Declare (or look up) a symbol. Redeclaring a name returns the existing symbol, whose kind
    /// is kept.
    pub fn symbol(&mut self, name: &str, kind: SymbolKind) -> ExprId {
        let sym = match self.symbol_by_name.get(name) {
            Some(&s) => s,
            None => {
                let s = SymId(self.symbols.len() as u32);
                self.symbols.push(Symbol {
                    name: name.to_string(),
                    kind,
                });
                self.symbol_by_name.insert(name.to_string(), s);
                s
            }
        };
        self.intern(Node::Sym(sym))
    }

    /// The symbol with this name, if declared.
    pub fn lookup_symbol(&self, name: &str) -> Option<SymId> {
        self.symbol_by_name.get(name).copied()
    }

    /// Symbol information.
    pub fn symbol_info(&self, sym: SymId) -> &Symbol {
        &self.symbols[sym.0 as usize]
    }

    /// All symbols, in declaration order.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The symbol behind an expression that is a bare symbol.
    pub fn as_symbol(&self, id: ExprId) -> Option<SymId> {
        match self.node(id) {
            Node::Sym(s) => Some(*s),
            _ => None,
        }
    }

    /// The constant behind an expression that is a number.
    pub fn as_number(&self, id: ExprId) -> Option<Number> {
        match self.node(id) {
            Node::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// Every node id reachable from `roots`, in increasing (topological) order.
    pub fn reachable(&self, roots: &[ExprId]) -> Vec<ExprId> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<ExprId> = roots.to_vec();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id.index()], true) {
                continue;
            }
            stack.extend(children(self.node(id)));
        }
        (0..self.nodes.len() as u32)
            .map(ExprId)
            .filter(|id| seen[id.index()])
            .collect()
    }

    /// Whether any symbol satisfying `pred` occurs in `root`.
    pub fn mentions(&self, root: ExprId, pred: impl Fn(&Symbol) -> bool) -> bool {
        self.reachable(&[root])
            .into_iter()
            .any(|id| match self.node(id) {
                Node::Sym(s) => pred(self.symbol_info(*s)),
                _ => false,
            })
    }

    /// Whether any symbol satisfying `pred` occurs in any of `roots`.
    pub fn mentions_any(&self, roots: &[ExprId], pred: impl Fn(&Symbol) -> bool) -> bool {
        self.reachable(roots)
            .into_iter()
            .any(|id| match self.node(id) {
                Node::Sym(s) => pred(self.symbol_info(*s)),
                _ => false,
            })
    }

    /// Whether `e` mentions the symbol `s`, through the cached symbol sets.
    pub fn depends_on(&mut self, e: ExprId, s: SymId) -> bool {
        self.fill_symbol_sets();
        let (set, bit) = (&self.symbol_sets[e.index()], s.0 as usize);
        set.get(bit / 64).is_some_and(|w| w >> (bit % 64) & 1 == 1)
    }

    /// Whether `e` mentions any symbol of `mask` (a bitset over symbol ids).
    pub fn depends_on_any(&mut self, e: ExprId, mask: &[u64]) -> bool {
        self.fill_symbol_sets();
        self.symbol_sets[e.index()]
            .iter()
            .zip(mask)
            .any(|(a, b)| a & b != 0)
    }

    /// A bitset over symbol ids with the given symbols set.
    pub fn symbol_mask(&self, syms: impl IntoIterator<Item = SymId>) -> Vec<u64> {
        let mut mask = vec![0u64; self.symbols.len().div_ceil(64)];
        for s in syms {
            mask[s.0 as usize / 64] |= 1 << (s.0 % 64);
        }
        mask
    }

    fn fill_symbol_sets(&mut self) {
        let words = self.symbols.len().div_ceil(64);
        for i in self.symbol_sets.len()..self.nodes.len() {
            let mut set = vec![0u64; words];
            match &self.nodes[i] {
                Node::Sym(s) => set[s.0 as usize / 64] |= 1 << (s.0 % 64),
                node => {
                    for c in children(node) {
                        for (w, x) in set.iter_mut().zip(self.symbol_sets[c.index()].iter()) {
                            *w |= x;
                        }
                    }
                }
            }
            self.symbol_sets.push(set.into());
        }
    }

    /// The pool invariants: children precede parents and every node is interned once.
    pub fn check_invariants(&self) -> bool {
        self.nodes.iter().enumerate().all(|(i, node)| {
            children(node).iter().all(|c| c.index() < i)
                && self
                    .memo
                    .find(&self.nodes, node_hash(node), |known| known == node)
                    == Some(ExprId(i as u32))
        })
    }
}

/// The two n-ary node kinds, for [`Pool::intern_nary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Nary {
    /// [`Node::Add`].
    Add,
    /// [`Node::Mul`].
    Mul,
}

impl Nary {
    /// The node of this kind with these operands.
    pub(crate) fn node(self, operands: Box<[ExprId]>) -> Node {
        match self {
            Nary::Add => Node::Add(operands),
            Nary::Mul => Node::Mul(operands),
        }
    }
}

/// The hash-consing table: node ids by the hash of their node, so that a sum or product can be
/// looked up from a borrowed operand slice. Nodes are compared in full on lookup; two different
/// nodes with one 64-bit hash (in practice never) both stay findable through `later`.
#[derive(Clone, Debug, Default)]
struct Memo {
    first: FxHashMap<u64, ExprId>,
    later: FxHashMap<u64, Vec<ExprId>>,
}

impl Memo {
    /// The id of the node with this hash that satisfies `is`, if any.
    fn find(&self, nodes: &[Node], hash: u64, is: impl Fn(&Node) -> bool) -> Option<ExprId> {
        let first = *self.first.get(&hash)?;
        if is(&nodes[first.index()]) {
            return Some(first);
        }
        let later = self.later.get(&hash)?;
        later.iter().copied().find(|id| is(&nodes[id.index()]))
    }

    fn insert(&mut self, hash: u64, id: ExprId) {
        match self.first.entry(hash) {
            Entry::Vacant(slot) => {
                slot.insert(id);
            }
            Entry::Occupied(_) => self.later.entry(hash).or_default().push(id),
        }
    }
}

/// The memo hash of a sum or product from its operands.
fn nary_hash(kind: Nary, operands: &[ExprId]) -> u64 {
    let mut hasher = FxHasher::default();
    (kind == Nary::Add).hash(&mut hasher);
    operands.hash(&mut hasher);
    hasher.finish()
}

/// The memo hash of a node (for a sum or product, the same as [`nary_hash`]).
fn node_hash(node: &Node) -> u64 {
    match node {
        Node::Add(xs) => nary_hash(Nary::Add, xs),
        Node::Mul(xs) => nary_hash(Nary::Mul, xs),
        Node::Num(_)
        | Node::Sym(_)
        | Node::Pow(..)
        | Node::Func(..)
        | Node::Atan2(..)
        | Node::Min(..)
        | Node::Max(..)
        | Node::Cmp(..)
        | Node::Select(..) => {
            let mut hasher = FxHasher::default();
            node.hash(&mut hasher);
            hasher.finish()
        }
    }
}

/// Whether `node` is the sum (product) with exactly these operands.
fn is_nary(node: &Node, kind: Nary, operands: &[ExprId]) -> bool {
    match (node, kind) {
        (Node::Add(xs), Nary::Add) | (Node::Mul(xs), Nary::Mul) => **xs == *operands,
        _ => false,
    }
}

/// The children of a node, in order.
pub fn children(node: &Node) -> Vec<ExprId> {
    match node {
        Node::Num(_) | Node::Sym(_) => Vec::new(),
        Node::Add(xs) | Node::Mul(xs) => xs.to_vec(),
        Node::Pow(a, b)
        | Node::Atan2(a, b)
        | Node::Min(a, b)
        | Node::Max(a, b)
        | Node::Cmp(_, a, b) => {
            vec![*a, *b]
        }
        Node::Func(_, a) => vec![*a],
        Node::Select(c, a, b) => vec![*c, *a, *b],
    }
}

//! Common-subexpression elimination over all outputs of a kernel at once.
//!
//! Hash-consing already shares every repeated subtree, so CSE here is scheduling: a node used
//! more than once (counting every output that refers to it) becomes a temporary, bound once in
//! topological order; a node used once is inlined into its user. On top of that, one rewrite
//! that the arena's flattened sums and products hide: when the operands of a sum (product) are a
//! strict superset of another sum's (product's) operands that is computed anyway, the larger one
//! is computed from the smaller (`a+b+c+d = (a+b+c) + d`). Chains of nested sums — the angle sums
//! θ1+…+θk of a serial chain and the columns of its Jacobian — then cost one addition each.
//!
//! Operation count (the figure compared with SymPy's and SymEngine's `cse`): a sum or product of
//! k operands counts k−1, every power, function, comparison, selection, min, max or atan2 counts
//! 1, symbols and numbers 0; each temporary is counted once.

use crate::pool::{ExprId, Node, Pool, children};
use rustc_hash::FxHashMap;

/// Sums and products computed from a smaller one: node → (subset node, remaining operands).
pub type Splits = FxHashMap<ExprId, (ExprId, Vec<ExprId>)>;

/// The sub-sum rewrites over every node of the pool (see [`Schedule::with_pool_subsums`]).
pub fn pool_splits(pool: &Pool) -> Splits {
    let everything: Vec<ExprId> = (0..pool.len() as u32).map(ExprId).collect();
    find_splits(pool, &everything)
}

/// The evaluation plan of one kernel.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// The outputs, in the order given.
    pub roots: Vec<ExprId>,
    /// Nodes bound to temporaries, in evaluation order (operands first).
    pub temps: Vec<ExprId>,
    /// Sums and products computed from a smaller one: node → (subset node, remaining operands).
    pub splits: Splits,
}

impl Schedule {
    /// Plan the evaluation of `roots`; sub-sums (sub-products) are looked for among the nodes
    /// the roots reach.
    pub fn new(pool: &Pool, roots: &[ExprId]) -> Schedule {
        let reachable = pool.reachable(roots);
        Schedule::with_splits(pool, roots, &find_splits(pool, &reachable))
    }

    /// [`Schedule::new`], with sub-sums looked for among every node of the pool: a sum built as
    /// a node and then flattened into its users (the composite inertias of
    /// [`crate::bodies`], w = I s folded into each M_ij = s_i · w) is computed once again and
    /// shared, instead of being re-added inside every user. For several kernels of one model,
    /// compute [`pool_splits`] once and use [`Schedule::with_splits`].
    pub fn with_pool_subsums(pool: &Pool, roots: &[ExprId]) -> Schedule {
        Schedule::with_splits(pool, roots, &pool_splits(pool))
    }

    /// Plan the evaluation of `roots` with the given sub-sum rewrites (a superset is fine: only
    /// the ones the plan uses are kept).
    pub fn with_splits(pool: &Pool, roots: &[ExprId], splits: &Splits) -> Schedule {
        let order = postorder(pool, splits, roots);
        let mut uses: FxHashMap<ExprId, u32> = FxHashMap::default();
        for &r in roots {
            *uses.entry(r).or_default() += 1;
        }
        for &id in &order {
            for c in operands(pool, splits, id) {
                *uses.entry(c).or_default() += 1;
            }
        }
        let used_splits = order
            .iter()
            .filter_map(|id| splits.get(id).map(|split| (*id, split.clone())))
            .collect();
        let temps = order
            .into_iter()
            .filter(|&id| !is_leaf(pool, id) && uses[&id] >= 2)
            .collect();
        Schedule {
            roots: roots.to_vec(),
            temps,
            splits: used_splits,
        }
    }

    /// The operands a node is computed from under this schedule.
    pub fn operands(&self, pool: &Pool, id: ExprId) -> Vec<ExprId> {
        operands(pool, &self.splits, id)
    }

    /// Operation count of the whole plan (see the module documentation).
    pub fn op_count(&self, pool: &Pool) -> usize {
        let is_temp: rustc_hash::FxHashSet<ExprId> = self.temps.iter().copied().collect();
        let mut total = 0;
        let mut stack: Vec<ExprId> = self.temps.clone();
        stack.extend(self.roots.iter().filter(|r| !is_temp.contains(r)));
        while let Some(id) = stack.pop() {
            let ops = self.operands(pool, id);
            total += node_cost(pool.node(id), ops.len());
            stack.extend(ops.into_iter().filter(|c| !is_temp.contains(c)));
        }
        total
    }
}

/// Every node needed by `roots` under `splits`, each once, operands before users. (A split
/// points from a sum to a strict sub-sum, which may have a larger id, so id order is not enough.)
fn postorder(pool: &Pool, splits: &Splits, roots: &[ExprId]) -> Vec<ExprId> {
    let mut done = rustc_hash::FxHashSet::default();
    let mut order = Vec::new();
    let mut stack: Vec<(ExprId, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
    while let Some((id, expanded)) = stack.pop() {
        if expanded {
            if done.insert(id) {
                order.push(id);
            }
            continue;
        }
        if done.contains(&id) {
            continue;
        }
        stack.push((id, true));
        for c in operands(pool, splits, id).into_iter().rev() {
            if !done.contains(&c) {
                stack.push((c, false));
            }
        }
    }
    order
}

fn node_cost(node: &Node, operands: usize) -> usize {
    match node {
        Node::Num(_) | Node::Sym(_) => 0,
        Node::Add(_) | Node::Mul(_) => operands.saturating_sub(1),
        Node::Pow(..)
        | Node::Func(..)
        | Node::Atan2(..)
        | Node::Min(..)
        | Node::Max(..)
        | Node::Cmp(..)
        | Node::Select(..) => 1,
    }
}

fn is_leaf(pool: &Pool, id: ExprId) -> bool {
    matches!(pool.node(id), Node::Num(_) | Node::Sym(_))
}

fn operands(pool: &Pool, splits: &Splits, id: ExprId) -> Vec<ExprId> {
    match splits.get(&id) {
        Some((sub, rest)) => std::iter::once(*sub).chain(rest.iter().copied()).collect(),
        None => children(pool.node(id)),
    }
}

/// For every reachable sum (product), the largest reachable sum (product) whose operands are a
/// strict subset of its own, found through an index on each candidate's rarest operand.
fn find_splits(pool: &Pool, reachable: &[ExprId]) -> Splits {
    let mut splits = FxHashMap::default();
    for want_add in [true, false] {
        let mut nary: Vec<Candidate> = reachable
            .iter()
            .filter_map(|&id| match pool.node(id) {
                Node::Add(xs) if want_add => Some(Candidate::new(id, xs)),
                Node::Mul(xs) if !want_add => Some(Candidate::new(id, xs)),
                _ => None,
            })
            .collect();
        nary.sort_by_key(|c| (c.operands.len(), c.id));
        let uses = operand_uses(&nary);
        let mut by_rarest: ByOperand = FxHashMap::default();
        for whole in &nary {
            if let Some(sub) = largest_subset(&by_rarest, whole) {
                let mut in_sub = sub.operands.iter().peekable();
                let rest = whole
                    .operands
                    .iter()
                    .copied()
                    .filter(|x| {
                        while in_sub.next_if(|s| *s < x).is_some() {}
                        in_sub.next_if_eq(&x).is_none()
                    })
                    .collect();
                splits.insert(whole.id, (sub.id, rest));
            }
            let rarest = whole
                .operands
                .iter()
                .min_by_key(|x| uses[x])
                .expect("two or more operands");
            by_rarest.entry(*rarest).or_default().push(*whole);
        }
    }
    splits
}

/// A sum (product) with its operands and their signature: one of 64 bits set per operand, so
/// that a set whose signature has a bit the other's lacks is not its subset (a test in O(1)
/// before the exact one).
#[derive(Clone, Copy)]
struct Candidate<'a> {
    id: ExprId,
    operands: &'a [ExprId],
    signature: u64,
}

impl<'a> Candidate<'a> {
    fn new(id: ExprId, operands: &'a [ExprId]) -> Candidate<'a> {
        let bit = |x: &ExprId| 1u64 << (u64::from(x.0).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
        Candidate {
            id,
            operands,
            signature: operands.iter().map(bit).fold(0, |acc, b| acc | b),
        }
    }

    /// The order in which the largest subset is chosen.
    fn rank(&self) -> (usize, ExprId) {
        (self.operands.len(), self.id)
    }

    /// Whether this candidate's operands are a strict subset of `whole`'s.
    fn is_strict_subset_of(&self, whole: &Candidate<'_>) -> bool {
        self.signature & !whole.signature == 0
            && self.operands.len() < whole.operands.len()
            && is_sorted_subset(self.operands, whole.operands)
    }
}

/// How many of the sums (products) have each operand.
fn operand_uses(nary: &[Candidate]) -> FxHashMap<ExprId, u32> {
    let mut uses: FxHashMap<ExprId, u32> = FxHashMap::default();
    for x in nary.iter().flat_map(|c| c.operands.iter()) {
        *uses.entry(*x).or_default() += 1;
    }
    uses
}

/// Candidates indexed by one of their operands (a subset of a sum has all its operands in the
/// sum, so looking under each operand of the sum finds every one), each list in increasing
/// (length, id) order.
type ByOperand<'a> = FxHashMap<ExprId, Vec<Candidate<'a>>>;

/// The candidate with the largest (length, id) whose operands are a strict subset of `whole`'s.
/// Each list is walked from its largest candidate down and left at the first subset (or at the
/// first candidate no larger than the best so far): smaller ones cannot win.
fn largest_subset<'a>(index: &ByOperand<'a>, whole: &Candidate<'_>) -> Option<Candidate<'a>> {
    let mut best: Option<Candidate<'a>> = None;
    for list in whole.operands.iter().filter_map(|c| index.get(c)) {
        for sub in list.iter().rev() {
            if best.is_some_and(|b| sub.rank() <= b.rank()) {
                break;
            }
            if sub.is_strict_subset_of(whole) {
                best = Some(*sub);
                break;
            }
        }
    }
    best
}

/// Whether sorted `a` is a subset of sorted `b`: each element found by binary search in the rest
/// of `b`, O(|a| log |b|), for small sub-sums of long sums; by one merge, O(|a| + |b|), when the
/// two have comparable lengths.
fn is_sorted_subset(a: &[ExprId], b: &[ExprId]) -> bool {
    if a.len() > b.len() || a.last() > b.last() {
        return false;
    }
    if a.len() * 16 >= b.len() {
        let mut rest = b.iter();
        return a.iter().all(|x| rest.find(|y| *y >= x) == Some(x));
    }
    let mut rest = b;
    for x in a {
        match rest.binary_search(x) {
            Ok(at) => rest = &rest[at + 1..],
            Err(_) => return false,
        }
    }
    true
}

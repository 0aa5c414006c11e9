//! Substitution: rebuild an expression with some symbols replaced, through the canonicalising
//! constructors (so `x·y` with y ↦ 0 folds to 0). Used to bake parameters into constants and to
//! split a nonholonomic row A·v + b into its parts (b = row at v = 0).

use crate::pool::{ExprId, Node, Pool, SymId};
use rustc_hash::FxHashMap;

impl Pool {
    /// `e` with every symbol in `map` replaced by its image.
    pub fn substitute(&mut self, e: ExprId, map: &FxHashMap<SymId, ExprId>) -> ExprId {
        let mut memo: FxHashMap<ExprId, ExprId> = FxHashMap::default();
        for id in self.reachable(&[e]) {
            let image = self.rebuild(id, map, &memo);
            memo.insert(id, image);
        }
        memo[&e]
    }

    /// Several expressions with one map (shares the rebuilt subexpressions).
    pub fn substitute_many(
        &mut self,
        es: &[ExprId],
        map: &FxHashMap<SymId, ExprId>,
    ) -> Vec<ExprId> {
        let mut memo: FxHashMap<ExprId, ExprId> = FxHashMap::default();
        for id in self.reachable(es) {
            let image = self.rebuild(id, map, &memo);
            memo.insert(id, image);
        }
        es.iter().map(|e| memo[e]).collect()
    }

    /// One node rebuilt from its children's images (children precede parents in `reachable`).
    fn rebuild(
        &mut self,
        id: ExprId,
        map: &FxHashMap<SymId, ExprId>,
        memo: &FxHashMap<ExprId, ExprId>,
    ) -> ExprId {
        let m = |x: &ExprId| memo[x];
        match self.node(id).clone() {
            Node::Num(_) => id,
            Node::Sym(s) => map.get(&s).copied().unwrap_or(id),
            Node::Add(xs) => {
                let xs: Vec<ExprId> = xs.iter().map(m).collect();
                self.add(&xs)
            }
            Node::Mul(xs) => {
                let xs: Vec<ExprId> = xs.iter().map(m).collect();
                self.mul(&xs)
            }
            Node::Pow(b, e) => self.pow(m(&b), m(&e)),
            Node::Func(f, a) => self.func(f, m(&a)),
            Node::Atan2(y, x) => self.atan2(m(&y), m(&x)),
            Node::Min(a, b) => self.min(m(&a), m(&b)),
            Node::Max(a, b) => self.max(m(&a), m(&b)),
            Node::Cmp(op, a, b) => self.cmp(op, m(&a), m(&b)),
            Node::Select(c, a, b) => self.select(m(&c), m(&a), m(&b)),
        }
    }
}

//! Symbolic differentiation, memoised per (node, variable).
//!
//! Two kinds of derivative share one exhaustive pass:
//! - the partial derivative with respect to a symbol, [`Pool::diff`];
//! - the directional (forward-mode) derivative along a *direction*, a map from symbols to
//!   expressions registered with [`Pool::direction`]: `D e = Σ_s (∂e/∂s) · dir(s)`. With
//!   `q_i ↦ v_i, t ↦ 1` this is the total time derivative along q̇ = v (velocities held fixed),
//!   computed in one pass linear in the size of the graph instead of n partial derivatives.
//!
//! Both are memoised in the pool, so repeated requests (every column of a Jacobian, γ after Φ̇)
//! reuse shared subresults.

use crate::number::Number;
use crate::pool::{CmpOp, ExprId, Func, Node, Pool, SymId};
use rustc_hash::FxHashMap;

/// What a derivative is taken with respect to (the memo key's second half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrt {
    /// Partial derivative with respect to one symbol.
    Symbol(SymId),
    /// Directional derivative along a registered direction.
    Direction(u32),
}

/// A registered direction (see [`Pool::direction`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Direction(u32);

impl Pool {
    /// `∂e/∂x` for the symbol expression `x`. Panics if `x` is not a symbol.
    pub fn diff(&mut self, e: ExprId, x: ExprId) -> ExprId {
        let sym = self
            .as_symbol(x)
            .expect("diff: the variable must be a symbol");
        self.derive(e, Wrt::Symbol(sym))
    }

    /// Register a direction: each `(symbol, rate)` pair says `d symbol = rate`; symbols not
    /// listed have rate zero.
    pub fn direction(&mut self, rates: &[(ExprId, ExprId)]) -> Direction {
        let map: FxHashMap<SymId, ExprId> = rates
            .iter()
            .map(|&(s, r)| {
                (
                    self.as_symbol(s).expect("direction: keys must be symbols"),
                    r,
                )
            })
            .collect();
        let mask = self.symbol_mask(map.keys().copied());
        self.directions.push(map);
        self.direction_masks.push(mask);
        Direction(self.directions.len() as u32 - 1)
    }

    /// The total time derivative along a motion with velocities `v`: the direction q ↦ v,
    /// t ↦ 1 (v itself held fixed), as used for Ṫ-terms, body velocities and bias accelerations.
    pub fn total_direction(&mut self, time: ExprId, q: &[ExprId], v: &[ExprId]) -> Direction {
        let one = self.one();
        let mut rates: Vec<(ExprId, ExprId)> = q.iter().copied().zip(v.iter().copied()).collect();
        rates.push((time, one));
        self.direction(&rates)
    }

    /// The directional derivative of `e` along `dir`.
    pub fn directional(&mut self, e: ExprId, dir: Direction) -> ExprId {
        self.derive(e, Wrt::Direction(dir.0))
    }

    /// The Jacobian `∂f_i/∂x_j`, row-major.
    pub fn jacobian(&mut self, f: &[ExprId], xs: &[ExprId]) -> Vec<ExprId> {
        let mut out = Vec::with_capacity(f.len() * xs.len());
        for &fi in f {
            for &x in xs {
                out.push(self.diff(fi, x));
            }
        }
        out
    }

    fn derive(&mut self, e: ExprId, wrt: Wrt) -> ExprId {
        let relevant = match wrt {
            Wrt::Symbol(s) => self.depends_on(e, s),
            Wrt::Direction(d) => {
                let mask = std::mem::take(&mut self.direction_masks[d as usize]);
                let hit = self.depends_on_any(e, &mask);
                self.direction_masks[d as usize] = mask;
                hit
            }
        };
        if !relevant {
            return self.zero();
        }
        if let Some(&d) = self.diff_memo.get(&(e, wrt)) {
            return d;
        }
        let d = self.derive_node(e, wrt);
        self.diff_memo.insert((e, wrt), d);
        d
    }

    fn derive_node(&mut self, e: ExprId, wrt: Wrt) -> ExprId {
        match self.node(e).clone() {
            Node::Num(_) => self.zero(),
            Node::Sym(s) => self.seed(s, wrt),
            Node::Add(terms) => {
                let ds: Vec<ExprId> = terms.iter().map(|&t| self.derive(t, wrt)).collect();
                self.add(&ds)
            }
            Node::Mul(factors) => self.derive_product(&factors, wrt),
            Node::Pow(b, x) => self.derive_pow(e, b, x, wrt),
            Node::Func(f, a) => {
                let da = self.derive(a, wrt);
                if self.is_zero(da) {
                    return da;
                }
                let outer = self.func_derivative(f, e, a);
                self.mul2(outer, da)
            }
            Node::Atan2(y, x) => {
                let (dy, dx) = (self.derive(y, wrt), self.derive(x, wrt));
                if self.is_zero(dy) && self.is_zero(dx) {
                    return dy;
                }
                // d atan2(y, x) = (x dy − y dx) / (x² + y²)
                let (x_dy, y_dx) = (self.mul2(x, dy), self.mul2(y, dx));
                let num = self.sub(x_dy, y_dx);
                let (x2, y2) = (self.powi(x, 2), self.powi(y, 2));
                let den = self.add2(x2, y2);
                self.div(num, den)
            }
            Node::Min(a, b) => self.derive_branch(CmpOp::Le, a, b, wrt),
            Node::Max(a, b) => self.derive_branch(CmpOp::Ge, a, b, wrt),
            Node::Cmp(..) => self.zero(),
            Node::Select(c, a, b) => {
                let (da, db) = (self.derive(a, wrt), self.derive(b, wrt));
                self.select(c, da, db)
            }
        }
    }

    fn seed(&mut self, s: SymId, wrt: Wrt) -> ExprId {
        match wrt {
            Wrt::Symbol(x) if x == s => self.one(),
            Wrt::Symbol(_) => self.zero(),
            Wrt::Direction(d) => match self.directions[d as usize].get(&s) {
                Some(&rate) => rate,
                None => self.zero(),
            },
        }
    }

    /// Product rule: Σ_i (d f_i) Π_{j≠i} f_j, skipping factors whose derivative vanishes.
    fn derive_product(&mut self, factors: &[ExprId], wrt: Wrt) -> ExprId {
        let mut terms = Vec::new();
        for (i, &fi) in factors.iter().enumerate() {
            let dfi = self.derive(fi, wrt);
            if self.is_zero(dfi) {
                continue;
            }
            let mut rest: Vec<ExprId> = factors
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &f)| f)
                .collect();
            rest.push(dfi);
            terms.push(self.mul(&rest));
        }
        self.add(&terms)
    }

    fn derive_pow(&mut self, e: ExprId, b: ExprId, x: ExprId, wrt: Wrt) -> ExprId {
        let (db, dx) = (self.derive(b, wrt), self.derive(x, wrt));
        let mut terms = Vec::new();
        if !self.is_zero(db) {
            // x · b^(x−1) · db
            let m1 = self.num(Number::MINUS_ONE);
            let xm1 = self.add2(x, m1);
            let p = self.pow(b, xm1);
            terms.push(self.mul(&[x, p, db]));
        }
        if !self.is_zero(dx) {
            // b^x · ln(b) · dx
            let lnb = self.func(Func::Ln, b);
            terms.push(self.mul(&[e, lnb, dx]));
        }
        self.add(&terms)
    }

    /// d f(a)/da as an expression, given `e = f(a)`.
    pub(crate) fn func_derivative(&mut self, f: Func, e: ExprId, a: ExprId) -> ExprId {
        match f {
            Func::Sin => self.func(Func::Cos, a),
            Func::Cos => {
                let s = self.func(Func::Sin, a);
                self.neg(s)
            }
            Func::Tan => {
                let one = self.one();
                let e2 = self.powi(e, 2);
                self.add2(one, e2)
            }
            Func::Exp => e,
            Func::Ln => self.powi(a, -1),
            Func::Abs => {
                let zero = self.zero();
                let nonneg = self.cmp(CmpOp::Ge, a, zero);
                let (one, m1) = (self.one(), self.int(-1));
                self.select(nonneg, one, m1)
            }
            Func::Asin => self.inverse_sqrt_one_minus_square(a),
            Func::Acos => {
                let d = self.inverse_sqrt_one_minus_square(a);
                self.neg(d)
            }
            Func::Atan => {
                let (one, a2) = (self.one(), self.powi(a, 2));
                let den = self.add2(one, a2);
                self.powi(den, -1)
            }
            Func::Sinh => self.func(Func::Cosh, a),
            Func::Cosh => self.func(Func::Sinh, a),
            Func::Tanh => {
                let (one, e2) = (self.one(), self.powi(e, 2));
                self.sub(one, e2)
            }
        }
    }

    /// `(1 − a²)^(−1/2)`, the derivative of asin (and of −acos).
    fn inverse_sqrt_one_minus_square(&mut self, a: ExprId) -> ExprId {
        let (one, a2) = (self.one(), self.powi(a, 2));
        let base = self.sub(one, a2);
        let exp = self.num(Number::HALF.negated());
        self.pow(base, exp)
    }

    /// min/max: the derivative of the branch that is selected (`a` when `a op b`).
    fn derive_branch(&mut self, op: CmpOp, a: ExprId, b: ExprId, wrt: Wrt) -> ExprId {
        let (da, db) = (self.derive(a, wrt), self.derive(b, wrt));
        let c = self.cmp(op, a, b);
        self.select(c, da, db)
    }

    /// Whether `e` is the number 0 (a structural zero).
    pub fn is_zero(&self, e: ExprId) -> bool {
        self.as_number(e) == Some(Number::ZERO)
    }
}

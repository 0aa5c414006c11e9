//! Canonicalising constructors: the only way nodes enter a [`Pool`].
//!
//! Rules applied on construction (SymPy/SymEngine-style automatic simplification):
//! - constants fold, exactly while rational;
//! - sums and products flatten and sort their operands by id;
//! - like terms collect (`2x + 3x → 5x`), like factors collect (`x·x → x²`, `x·x⁻¹ → 1`);
//! - identities with 0 and 1 vanish; a number times a sum distributes (`2(x+y) → 2x+2y`);
//! - `(x^a)^n → x^(a·n)` and `(x·y)^n → xⁿ·yⁿ` for integer `n` only (always valid);
//! - functions of exact special values fold (`sin 0`, `cos 0`, `exp 0`, `ln 1`, `asin 0`,
//!   `acos 1`, `cosh 0`, …), functions of floats fold to floats (unless the value is not finite:
//!   `asin 2.0` stays); odd functions pull out a sign (`sin(−x) → −sin x`, likewise tan, asin,
//!   atan, sinh, tanh) and even ones drop it (`cos(−x) → cos x`, abs, cosh);
//! - comparisons, selections, min and max of constants fold; `select(c, a, a) → a`.
//!
//! A fold whose result would not be finite (`0⁻¹`, `ln 0`) is not performed: the node stays.

use crate::number::Number;
use crate::pool::{CmpOp, ExprId, Func, Nary, Node, Pool};
use rustc_hash::FxHashMap;

impl Pool {
    /// A numeric constant. Panics on a non-finite value; use [`Pool::try_float`] for user input.
    pub fn num(&mut self, n: Number) -> ExprId {
        self.intern(Node::Num(n))
    }

    /// An integer constant.
    pub fn int(&mut self, i: i64) -> ExprId {
        self.num(Number::int(i))
    }

    /// The rational `p/q` (q ≠ 0).
    pub fn rational(&mut self, p: i64, q: i64) -> ExprId {
        let n = Number::rational(p, q).expect("rational with zero denominator");
        self.num(n)
    }

    /// A float constant; `None` when it is not finite.
    pub fn try_float(&mut self, x: f64) -> Option<ExprId> {
        Number::from_f64(x).map(|n| self.num(n))
    }

    /// `0`.
    pub fn zero(&mut self) -> ExprId {
        self.num(Number::ZERO)
    }

    /// `1`.
    pub fn one(&mut self) -> ExprId {
        self.num(Number::ONE)
    }

    /// `a + b`.
    pub fn add2(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.add(&[a, b])
    }

    /// `a − b`.
    pub fn sub(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let nb = self.neg(b);
        self.add(&[a, nb])
    }

    /// `−a`.
    pub fn neg(&mut self, a: ExprId) -> ExprId {
        // Memoised: the constructors are functions of their operands, so a repeated call would
        // find the same nodes (the first one interned them) and return the same id.
        if let Some(&negated) = self.neg_memo.get(&a) {
            return negated;
        }
        let m1 = self.num(Number::MINUS_ONE);
        let negated = self.mul(&[m1, a]);
        self.neg_memo.insert(a, negated);
        negated
    }

    /// `a · b`.
    pub fn mul2(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.mul(&[a, b])
    }

    /// `a / b`.
    pub fn div(&mut self, a: ExprId, b: ExprId) -> ExprId {
        let m1 = self.num(Number::MINUS_ONE);
        let inv = self.pow(b, m1);
        self.mul(&[a, inv])
    }

    /// `a^i` for an integer exponent.
    pub fn powi(&mut self, a: ExprId, i: i64) -> ExprId {
        let e = self.int(i);
        self.pow(a, e)
    }

    /// `√a`, canonically `a^(1/2)`.
    pub fn sqrt(&mut self, a: ExprId) -> ExprId {
        let half = self.num(Number::HALF);
        self.pow(a, half)
    }

    /// The canonical sum of `terms`.
    pub fn add(&mut self, terms: &[ExprId]) -> ExprId {
        let mut constant = Number::ZERO;
        // (rest, coefficient, the term itself while it is alone in its slot and rebuilds)
        let mut coeffs: Vec<(ExprId, Number, Option<ExprId>)> = Vec::with_capacity(terms.len());
        let mut flat = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.node(t) {
                Node::Add(xs) => flat.extend(xs.iter().copied()),
                _ => flat.push(t),
            }
        }
        let mut slot = Slots::with_capacity(flat.len());
        for t in flat {
            if let Some(n) = self.as_number(t) {
                match constant.checked_add(n) {
                    Some(sum) => constant = sum,
                    None => coeffs.push((t, Number::ONE, None)),
                }
                continue;
            }
            let Split {
                coeff,
                rest,
                rebuilds,
            } = self.split(t);
            match slot.get(rest) {
                Some(i) => match coeffs[i].1.checked_add(coeff) {
                    Some(sum) => (coeffs[i].1, coeffs[i].2) = (sum, None),
                    None => coeffs.push((t, Number::ONE, None)),
                },
                None => {
                    slot.insert(rest, coeffs.len());
                    coeffs.push((rest, coeff, rebuilds.then_some(t)));
                }
            }
        }
        let mut out: Vec<ExprId> = Vec::with_capacity(coeffs.len() + 1);
        for (rest, coeff, term) in coeffs {
            if !coeff.is_zero() {
                // A term alone in its slot is what `scale` would rebuild: `term` itself.
                out.push(match term {
                    Some(term) => term,
                    None => self.scale(coeff, rest),
                });
            }
        }
        if !constant.is_zero() {
            out.push(self.num(constant));
        }
        self.finish_nary(out, Number::ZERO, Nary::Add)
    }

    /// The canonical product of `factors`.
    pub fn mul(&mut self, factors: &[ExprId]) -> ExprId {
        let mut coeff = Number::ONE;
        // Room for the factors of a few nested products (each is flattened into the bases).
        let mut bases = Groups::with_capacity(4 * factors.len());
        let one = self.one();
        let mut stack: Vec<ExprId> = Vec::with_capacity(4 * factors.len());
        stack.extend(factors.iter().rev());
        while let Some(f) = stack.pop() {
            match self.node(f) {
                Node::Mul(xs) => stack.extend(xs.iter().rev().copied()),
                Node::Num(n) => match coeff.checked_mul(*n) {
                    Some(p) => coeff = p,
                    None => bases.push(f, one),
                },
                Node::Pow(b, e) => bases.push(*b, *e),
                _ => bases.push(f, one),
            }
        }
        if coeff.is_zero() {
            return self.zero();
        }
        let mut out: Vec<ExprId> = Vec::with_capacity(bases.len() + 1);
        let mut expanded = false;
        for group in 0..bases.len() {
            let (base, exp) = match bases.exponents(group) {
                (base, Ok(exp)) => (base, exp),
                (base, Err(exps)) => (base, self.add(&exps)),
            };
            let p = self.pow(base, exp);
            match self.node(p) {
                Node::Num(n) => match coeff.checked_mul(*n) {
                    Some(c) => coeff = c,
                    None => out.push(p),
                },
                Node::Mul(xs) => {
                    expanded = true;
                    out.extend(xs.iter().copied());
                }
                _ => out.push(p),
            }
        }
        if expanded {
            // `(x·y)^n` expanded into factors that may collect with others: once more. The
            // expanded factors are powers of non-products, so this recursion does not expand.
            let c = self.num(coeff);
            out.push(c);
            return self.mul(&out);
        }
        if coeff.is_zero() {
            return self.zero();
        }
        if out.len() == 1
            && !coeff.is_one()
            && let Node::Add(terms) = self.node(out[0]).clone()
        {
            let scaled: Vec<ExprId> = terms.iter().map(|&t| self.scale(coeff, t)).collect();
            return self.add(&scaled);
        }
        if !coeff.is_one() {
            out.push(self.num(coeff));
        }
        self.finish_nary(out, Number::ONE, Nary::Mul)
    }

    /// `base ^ exp`, canonical.
    pub fn pow(&mut self, base: ExprId, exp: ExprId) -> ExprId {
        let (bn, en) = (self.as_number(base), self.as_number(exp));
        if en == Some(Number::ZERO) || bn == Some(Number::ONE) {
            return self.one();
        }
        if en == Some(Number::ONE) {
            return base;
        }
        if let (Some(b), Some(e)) = (bn, en) {
            if b.is_zero() && e.is_negative() {
                return self.intern(Node::Pow(base, exp));
            }
            if let Some(r) = b.pow(e) {
                return self.num(r);
            }
        }
        if bn == Some(Number::ZERO) && en.is_some_and(|e| !e.is_negative()) {
            return self.zero();
        }
        if let Some(i) = en.and_then(Number::as_integer) {
            match self.node(base).clone() {
                Node::Pow(b, e) => {
                    let ie = self.int(i);
                    let ne = self.mul2(e, ie);
                    return self.pow(b, ne);
                }
                Node::Mul(xs) => {
                    let powered: Vec<ExprId> = xs.iter().map(|&x| self.powi(x, i)).collect();
                    return self.mul(&powered);
                }
                _ => {}
            }
        }
        self.intern(Node::Pow(base, exp))
    }

    /// A unary function application, canonical.
    pub fn func(&mut self, f: Func, a: ExprId) -> ExprId {
        if let Some(n) = self.as_number(a)
            && let Some(folded) = fold_func(f, n)
        {
            return self.num(folded);
        }
        let (coeff, rest) = self.split_coefficient(a);
        if coeff.is_negative() {
            let pos = self.scale(coeff.negated(), rest);
            match f {
                Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh => {
                    let inner = self.func(f, pos);
                    return self.neg(inner);
                }
                Func::Cos | Func::Abs | Func::Cosh => return self.func(f, pos),
                Func::Exp | Func::Ln | Func::Acos => {}
            }
        }
        self.intern(Node::Func(f, a))
    }

    /// `atan2(y, x)`.
    pub fn atan2(&mut self, y: ExprId, x: ExprId) -> ExprId {
        if let (Some(a), Some(b)) = (self.as_number(y), self.as_number(x))
            && let Some(n) = Number::from_f64(a.to_f64().atan2(b.to_f64()))
        {
            return self.num(n);
        }
        self.intern(Node::Atan2(y, x))
    }

    /// `min(a, b)`.
    pub fn min(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.min_max(a, b, true)
    }

    /// `max(a, b)`.
    pub fn max(&mut self, a: ExprId, b: ExprId) -> ExprId {
        self.min_max(a, b, false)
    }

    fn min_max(&mut self, a: ExprId, b: ExprId, is_min: bool) -> ExprId {
        if a == b {
            return a;
        }
        if let (Some(x), Some(y)) = (self.as_number(a), self.as_number(b)) {
            let smaller = if x <= y { a } else { b };
            let larger = if x <= y { b } else { a };
            return if is_min { smaller } else { larger };
        }
        let (lo, hi) = (a.min(b), a.max(b));
        self.intern(if is_min {
            Node::Min(lo, hi)
        } else {
            Node::Max(lo, hi)
        })
    }

    /// 1 when `a op b` holds, 0 otherwise.
    pub fn cmp(&mut self, op: CmpOp, a: ExprId, b: ExprId) -> ExprId {
        if let (Some(x), Some(y)) = (self.as_number(a), self.as_number(b)) {
            let (x, y) = (x.to_f64(), y.to_f64());
            let holds = match op {
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
            };
            return self.int(i64::from(holds));
        }
        self.intern(Node::Cmp(op, a, b))
    }

    /// `if cond != 0 { then } else { otherwise }`.
    pub fn select(&mut self, cond: ExprId, then: ExprId, otherwise: ExprId) -> ExprId {
        if then == otherwise {
            return then;
        }
        if let Some(c) = self.as_number(cond) {
            return if c.is_zero() { otherwise } else { then };
        }
        self.intern(Node::Select(cond, then, otherwise))
    }

    /// Split a term into its numeric coefficient and the rest (`3xy → (3, xy)`).
    pub fn split_coefficient(&mut self, t: ExprId) -> (Number, ExprId) {
        let split = self.split(t);
        (split.coeff, split.rest)
    }

    /// [`Pool::split_coefficient`] with whether `scale` rebuilds `t` itself from the parts,
    /// memoised per product (a product's split never changes once its rest is interned).
    fn split(&mut self, t: ExprId) -> Split {
        let Node::Mul(xs) = self.node(t) else {
            return Split::whole(t);
        };
        if let Some(Some(known)) = self.split_memo.get(t.index()) {
            return *known;
        }
        let Some(pos) = xs
            .iter()
            .position(|&x| matches!(self.node(x), Node::Num(_)))
        else {
            return Split::whole(t);
        };
        let coeff = self.as_number(xs[pos]).expect("checked above");
        // `scale(coeff, rest)` sorts the coefficient back into the rest's factors: that is `t`
        // when the coefficient is the only number and the rest's factors are t's other ones.
        let numbers = xs.iter().filter(|&&x| self.as_number(x).is_some()).count();
        let other_is_product = xs.len() == 2 && matches!(self.node(xs[1 - pos]), Node::Mul(_));
        let rebuilds = !coeff.is_one() && numbers == 1 && !other_is_product;
        let rest = match xs.len() {
            2 => xs[1 - pos],
            _ => {
                let mut rest: Vec<ExprId> = Vec::with_capacity(xs.len() - 1);
                rest.extend_from_slice(&xs[..pos]);
                rest.extend_from_slice(&xs[pos + 1..]);
                self.intern_nary(Nary::Mul, &rest)
            }
        };
        let split = Split {
            coeff,
            rest,
            rebuilds,
        };
        if self.split_memo.len() <= t.index() {
            self.split_memo.resize(self.len(), None);
        }
        self.split_memo[t.index()] = Some(split);
        split
    }

    /// `coeff · rest` where `rest` is already free of a numeric coefficient.
    fn scale(&mut self, coeff: Number, rest: ExprId) -> ExprId {
        if coeff.is_one() {
            return rest;
        }
        let c = self.num(coeff);
        let mut xs: Vec<ExprId> = match self.node(rest) {
            Node::Mul(xs) => xs.to_vec(),
            _ => vec![rest],
        };
        if let Some(i) = xs
            .iter()
            .position(|&x| matches!(self.node(x), Node::Num(_)))
        {
            // `rest` carried an unfoldable numeric factor: let `mul` sort it out.
            xs[i] = self.mul2(xs[i], c);
            return self.mul(&xs);
        }
        xs.push(c);
        xs.sort_unstable();
        self.intern_nary(Nary::Mul, &xs)
    }

    fn finish_nary(&mut self, mut xs: Vec<ExprId>, identity: Number, kind: Nary) -> ExprId {
        match xs.len() {
            0 => self.num(identity),
            1 => xs[0],
            _ => {
                xs.sort_unstable();
                self.intern_nary(kind, &xs)
            }
        }
    }
}

/// A term split into its numeric coefficient and the rest (see [`Pool::split_coefficient`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    coeff: Number,
    rest: ExprId,
    /// Whether `scale(coeff, rest)` is the term itself (so a sum can keep the term).
    rebuilds: bool,
}

impl Split {
    /// A term without a numeric coefficient: 1 · t.
    fn whole(t: ExprId) -> Split {
        Split {
            coeff: Number::ONE,
            rest: t,
            rebuilds: true,
        }
    }
}

/// The factors of a product grouped by base, in order of first appearance: each base with its
/// first exponent, the later exponents of repeated bases (rare) kept aside in order.
struct Groups {
    first: Vec<(ExprId, ExprId)>,
    later: Vec<(usize, ExprId)>,
    slots: Slots,
}

impl Groups {
    /// Room for about `factors` bases.
    fn with_capacity(factors: usize) -> Groups {
        Groups {
            first: Vec::with_capacity(factors),
            later: Vec::new(),
            slots: Slots::with_capacity(factors),
        }
    }

    fn len(&self) -> usize {
        self.first.len()
    }

    /// Record `base^exp`.
    fn push(&mut self, base: ExprId, exp: ExprId) {
        match self.slots.get(base) {
            Some(group) => self.later.push((group, exp)),
            None => {
                self.slots.insert(base, self.first.len());
                self.first.push((base, exp));
            }
        }
    }

    /// A group's base and its one exponent, or all its exponents in order.
    fn exponents(&self, group: usize) -> (ExprId, Result<ExprId, Vec<ExprId>>) {
        let (base, exp) = self.first[group];
        let mut later = self.later.iter().filter(|(g, _)| *g == group).peekable();
        if later.peek().is_none() {
            return (base, Ok(exp));
        }
        (
            base,
            Err(std::iter::once(exp).chain(later.map(|(_, e)| *e)).collect()),
        )
    }
}

/// A map from ids to indices: a linear scan while small (most sums and products have a few
/// operands), a hash map beyond.
struct Slots {
    small: Vec<(ExprId, usize)>,
    large: FxHashMap<ExprId, usize>,
}

impl Slots {
    const SMALL: usize = 16;

    /// Room for about `keys` keys, in the form that suits that many.
    fn with_capacity(keys: usize) -> Slots {
        match keys <= Self::SMALL {
            true => Slots {
                small: Vec::with_capacity(keys),
                large: FxHashMap::default(),
            },
            false => Slots {
                small: Vec::new(),
                large: FxHashMap::with_capacity_and_hasher(keys, Default::default()),
            },
        }
    }

    fn get(&self, key: ExprId) -> Option<usize> {
        match self.large.capacity() == 0 {
            true => self.small.iter().find(|(k, _)| *k == key).map(|(_, i)| *i),
            false => self.large.get(&key).copied(),
        }
    }

    /// Register `key` (not present yet).
    fn insert(&mut self, key: ExprId, index: usize) {
        if self.large.capacity() == 0 && self.small.len() < Self::SMALL {
            self.small.push((key, index));
            return;
        }
        self.large.extend(self.small.drain(..));
        self.large.insert(key, index);
    }
}

fn fold_func(f: Func, n: Number) -> Option<Number> {
    let exact = match (f, n) {
        (
            Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh,
            Number::ZERO,
        ) => Some(Number::ZERO),
        (Func::Cos | Func::Exp | Func::Cosh, Number::ZERO) => Some(Number::ONE),
        (Func::Ln | Func::Acos, Number::ONE) => Some(Number::ZERO),
        (Func::Abs, _) => Some(if n.is_negative() { n.negated() } else { n }),
        _ => None,
    };
    if exact.is_some() {
        return exact;
    }
    let Number::Float(_) = n else { return None };
    Number::from_f64(crate::eval::eval_func(f, n.to_f64()))
}

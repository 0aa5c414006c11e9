//! The f64 reference interpreter: evaluates expressions of a [`Pool`] at a point.
//!
//! It is the oracle the generated Rust is compared with, so it is deliberately simple: every
//! node reachable from the requested roots is evaluated once, in increasing id order (children
//! first), with the plain `f64` operations the emitter also uses.

use crate::pool::{CmpOp, ExprId, Func, Node, Pool, SymId};

/// Values of symbols, indexed by [`SymId`]; missing symbols evaluate to NaN.
#[derive(Clone, Debug, Default)]
pub struct Env {
    values: Vec<f64>,
}

impl Env {
    /// An environment where every symbol is unset (NaN).
    pub fn new() -> Env {
        Env::default()
    }

    /// Set a symbol (given as its expression) to a value.
    pub fn set(&mut self, pool: &Pool, sym: ExprId, value: f64) -> &mut Env {
        let s = pool.as_symbol(sym).expect("Env::set: not a symbol");
        self.set_sym(s, value)
    }

    /// Set a symbol to a value.
    pub fn set_sym(&mut self, sym: SymId, value: f64) -> &mut Env {
        let i = sym.0 as usize;
        if self.values.len() <= i {
            self.values.resize(i + 1, f64::NAN);
        }
        self.values[i] = value;
        self
    }

    /// The value of a symbol.
    pub fn get(&self, sym: SymId) -> f64 {
        self.values.get(sym.0 as usize).copied().unwrap_or(f64::NAN)
    }
}

impl Pool {
    /// Evaluate several expressions at once.
    pub fn eval_many(&self, roots: &[ExprId], env: &Env) -> Vec<f64> {
        let mut values = vec![f64::NAN; self.len()];
        for id in self.reachable(roots) {
            values[id.index()] = self.eval_node(self.node(id), &values, env);
        }
        roots.iter().map(|r| values[r.index()]).collect()
    }

    /// Evaluate one expression.
    pub fn eval(&self, root: ExprId, env: &Env) -> f64 {
        self.eval_many(&[root], env)[0]
    }

    fn eval_node(&self, node: &Node, values: &[f64], env: &Env) -> f64 {
        let v = |id: &ExprId| values[id.index()];
        match node {
            Node::Num(n) => n.to_f64(),
            Node::Sym(s) => env.get(*s),
            Node::Add(xs) => xs.iter().map(v).sum(),
            Node::Mul(xs) => xs.iter().map(v).product(),
            Node::Pow(b, e) => eval_pow(self, *e, v(b), v(e)),
            Node::Func(f, a) => eval_func(*f, v(a)),
            Node::Atan2(y, x) => v(y).atan2(v(x)),
            Node::Min(a, b) => v(a).min(v(b)),
            Node::Max(a, b) => v(a).max(v(b)),
            Node::Cmp(op, a, b) => f64::from(u8::from(compare(*op, v(a), v(b)))),
            Node::Select(c, a, b) => {
                if v(c) != 0.0 {
                    v(a)
                } else {
                    v(b)
                }
            }
        }
    }
}

/// `base^exp` the way the emitter computes it: `powi` for integer exponents, `sqrt` for ±1/2.
pub(crate) fn eval_pow(pool: &Pool, exp_id: ExprId, base: f64, exp: f64) -> f64 {
    match pool.as_number(exp_id) {
        Some(n) if n.as_integer().is_some_and(|i| i32::try_from(i).is_ok()) => {
            base.powi(exp as i32)
        }
        Some(n) if n == crate::number::Number::HALF => base.sqrt(),
        Some(n) if n == crate::number::Number::HALF.negated() => 1.0 / base.sqrt(),
        _ => base.powf(exp),
    }
}

/// Unary functions, shared with constant folding semantics.
pub(crate) fn eval_func(f: Func, x: f64) -> f64 {
    match f {
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.tan(),
        Func::Exp => x.exp(),
        Func::Ln => x.ln(),
        Func::Abs => x.abs(),
        Func::Asin => x.asin(),
        Func::Acos => x.acos(),
        Func::Atan => x.atan(),
        Func::Sinh => x.sinh(),
        Func::Cosh => x.cosh(),
        Func::Tanh => x.tanh(),
    }
}

/// Comparison semantics shared by eval and constant folding.
pub(crate) fn compare(op: CmpOp, a: f64, b: f64) -> bool {
    match op {
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

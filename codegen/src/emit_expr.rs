//! The Rust syntax tree of one scheduled expression, precedence-aware (parentheses only where Rust
//! needs them), matching the interpreter's arithmetic: `powi` for integer powers, `sqrt` for
//! ±1/2, `powf` otherwise; floats printed so they round-trip exactly.

use crate::cse::Schedule;
use crate::emit_ast::{binary, if_else, indexed, lit, method, negated, paren, path};
use crate::number::Number;
use crate::pool::{CmpOp, ExprId, Node, Pool, SymbolKind};
use proc_macro2::Literal;
use rustc_hash::FxHashMap;
use syn::Expr;

/// Binding strength of an emitted piece, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Prec {
    Sum,
    Product,
    Unary,
    Atom,
}

/// Emits expressions of one kernel: temporaries by name, parameters through `self`.
pub(crate) struct ExprEmitter<'a> {
    pub pool: &'a Pool,
    pub schedule: &'a Schedule,
    /// How each temporary is referred to: a local (`x3`) or a slot of the scratch array (`z[3]`).
    pub temp_names: FxHashMap<ExprId, Expr>,
    /// How each parameter is read: `self.m`, or `self.m[3]` for a member of an array parameter.
    pub param_fields: &'a [Expr],
}

impl ExprEmitter<'_> {
    /// The expression as an operand of at least `min` binding strength.
    pub fn at(&self, id: ExprId, min: Prec) -> Expr {
        let (expr, prec) = self.expr(id);
        if prec < min { paren(expr) } else { expr }
    }

    /// The expression as a method receiver (`x.sin()`): atoms only, literals typed.
    fn receiver(&self, id: ExprId) -> Expr {
        if let Some(n) = self.pool.as_number(id)
            && !self.temp_names.contains_key(&id)
        {
            let lit = lit(float_literal(n.to_f64().abs(), true));
            return if n.is_negative() {
                paren(negated(lit))
            } else {
                lit
            };
        }
        self.at(id, Prec::Atom)
    }

    /// The expression at its own precedence; temporaries are referred to by name.
    pub fn expr(&self, id: ExprId) -> (Expr, Prec) {
        if let Some(name) = self.temp_names.get(&id) {
            return (name.clone(), Prec::Atom);
        }
        self.node(id)
    }

    /// The expression's definition, even when it is a temporary (used to bind it).
    pub fn node(&self, id: ExprId) -> (Expr, Prec) {
        match self.pool.node(id) {
            Node::Num(n) => number(*n),
            Node::Sym(s) => (self.symbol(self.pool.symbol_info(*s).kind, *s), Prec::Atom),
            Node::Add(_) => self.sum(&self.schedule.operands(self.pool, id)),
            Node::Mul(_) => self.product(&self.schedule.operands(self.pool, id)),
            Node::Pow(b, e) => self.power(*b, *e),
            Node::Func(f, a) => {
                let recv = self.receiver(*a);
                let name = crate::display::func_name(*f);
                (method(recv, name, Vec::new()), Prec::Atom)
            }
            Node::Atan2(y, x) => self.method2(*y, "atan2", *x),
            Node::Min(a, b) => self.method2(*a, "min", *b),
            Node::Max(a, b) => self.method2(*a, "max", *b),
            Node::Cmp(..) => {
                let cond = self.condition(id);
                let (one, zero) = (number(Number::ONE).0, number(Number::ZERO).0);
                (if_else(cond, one, zero), Prec::Unary)
            }
            Node::Select(c, a, b) => {
                let cond = self.condition(*c);
                let (a, b) = (self.at(*a, Prec::Sum), self.at(*b, Prec::Sum));
                (if_else(cond, a, b), Prec::Unary)
            }
        }
    }

    fn symbol(&self, kind: SymbolKind, sym: crate::pool::SymId) -> Expr {
        match kind {
            SymbolKind::Time => path("t"),
            SymbolKind::Coordinate(i) => indexed("q", i),
            SymbolKind::Velocity(i) => indexed("v", i),
            SymbolKind::Parameter(i) => self.param_fields[i].clone(),
            SymbolKind::Multiplier(i) => indexed("lambda", i),
            SymbolKind::Auxiliary(i) => indexed("w", i),
            SymbolKind::Free => {
                unreachable!(
                    "validated models have no free symbol ({})",
                    self.pool.symbol_info(sym).name
                )
            }
        }
    }

    fn method2(&self, a: ExprId, name: &str, b: ExprId) -> (Expr, Prec) {
        let recv = self.receiver(a);
        let arg = self.at(b, Prec::Sum);
        (method(recv, name, vec![arg]), Prec::Atom)
    }

    /// A boolean condition: comparisons directly, anything else as `!= 0.0`.
    fn condition(&self, c: ExprId) -> Expr {
        match self.pool.node(c) {
            Node::Cmp(op, a, b) if !self.temp_names.contains_key(&c) => {
                let (a, b) = (self.at(*a, Prec::Sum), self.at(*b, Prec::Sum));
                let op = match op {
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                binary(a, op, b)
            }
            _ => {
                let x = self.at(c, Prec::Sum);
                binary(x, "!=", number(Number::ZERO).0)
            }
        }
    }

    /// `a + b − c …`: terms with a negative coefficient are subtracted.
    fn sum(&self, terms: &[ExprId]) -> (Expr, Prec) {
        let mut out: Option<Expr> = None;
        for &term in terms {
            let (negative, magnitude) = self.signed(term);
            out = Some(match (out, negative) {
                (None, false) => magnitude,
                (None, true) => negated(magnitude),
                (Some(acc), false) => binary(acc, "+", magnitude),
                (Some(acc), true) => binary(acc, "-", magnitude),
            });
        }
        (out.expect("a sum has terms"), Prec::Sum)
    }

    /// A term split into its sign and its magnitude at product precedence.
    fn signed(&self, term: ExprId) -> (bool, Expr) {
        if !self.temp_names.contains_key(&term) && !self.schedule.splits.contains_key(&term) {
            match self.pool.node(term) {
                Node::Num(n) if n.is_negative() => return (true, number(n.negated()).0),
                Node::Mul(xs) => {
                    if let Some(c) = xs.iter().find_map(|&x| self.pool.as_number(x))
                        && c.is_negative()
                    {
                        let (expr, _) = self.product_with(xs, c.negated());
                        return (true, expr);
                    }
                }
                _ => {}
            }
        }
        (false, self.at(term, Prec::Product))
    }

    fn product(&self, factors: &[ExprId]) -> (Expr, Prec) {
        let coeff = factors.iter().find_map(|&x| {
            self.pool
                .as_number(x)
                .filter(|_| !self.temp_names.contains_key(&x))
        });
        match coeff {
            Some(c) if c.is_negative() => {
                // `-a * b` is weaker than a product operand (`x / -a * b` would misparse).
                let (expr, _) = self.product_with(factors, c.negated());
                (negated(expr), Prec::Sum)
            }
            Some(c) => self.product_with(factors, c),
            None => self.product_with(factors, Number::ONE),
        }
    }

    /// `coeff · Π numerators / Π denominators`, where factors with a negative integer exponent
    /// (or −1/2) go to the denominator. The numeric factor of `factors`, if any, is replaced
    /// by `coeff`.
    fn product_with(&self, factors: &[ExprId], coeff: Number) -> (Expr, Prec) {
        let mut numer: Vec<Expr> = Vec::new();
        let mut denom: Vec<Expr> = Vec::new();
        if !coeff.is_one() {
            numer.push(number(coeff).0);
        }
        for &f in factors {
            if self.pool.as_number(f).is_some() && !self.temp_names.contains_key(&f) {
                continue;
            }
            match self.denominator(f) {
                Some(d) => denom.push(d),
                None => numer.push(self.at(f, Prec::Unary)),
            }
        }
        let chain = |xs: Vec<Expr>| xs.into_iter().reduce(|acc, x| binary(acc, "*", x));
        let out = chain(numer).unwrap_or_else(|| number(Number::ONE).0);
        let out = match denom.len() {
            0 => out,
            1 => binary(out, "/", denom.pop().expect("one denominator")),
            _ => binary(out, "/", paren(chain(denom).expect("denominators"))),
        };
        (out, Prec::Product)
    }

    /// For `x^-k` (integer k ≥ 1) or `x^-1/2` not bound to a temporary: the denominator
    /// `x^k` / `√x` at atom precedence. `None` for other factors.
    fn denominator(&self, f: ExprId) -> Option<Expr> {
        if self.temp_names.contains_key(&f) {
            return None;
        }
        let Node::Pow(b, e) = self.pool.node(f) else {
            return None;
        };
        let e = self.pool.as_number(*e)?;
        if e == Number::HALF.negated() {
            return Some(method(self.receiver(*b), "sqrt", Vec::new()));
        }
        match e.as_integer()? {
            -1 => Some(self.at(*b, Prec::Unary)),
            k if k < -1 => {
                let k = lit(Literal::i32_unsuffixed(i32::try_from(-k).ok()?));
                Some(method(self.receiver(*b), "powi", vec![k]))
            }
            _ => None,
        }
    }

    fn power(&self, b: ExprId, e: ExprId) -> (Expr, Prec) {
        let recv = self.receiver(b);
        let exp = self.pool.as_number(e);
        if exp == Some(Number::HALF) {
            return (method(recv, "sqrt", Vec::new()), Prec::Atom);
        }
        if exp == Some(Number::HALF.negated()) {
            let one = number(Number::ONE).0;
            return (
                binary(one, "/", method(recv, "sqrt", Vec::new())),
                Prec::Product,
            );
        }
        if let Some(k) = exp
            .and_then(Number::as_integer)
            .and_then(|k| i32::try_from(k).ok())
        {
            let k = lit(Literal::i32_unsuffixed(k));
            return (method(recv, "powi", vec![k]), Prec::Atom);
        }
        let arg = self.at(e, Prec::Sum);
        (method(recv, "powf", vec![arg]), Prec::Atom)
    }
}

/// A numeric constant: rationals as `p / q` of exact float literals, floats round-tripping.
fn number(n: Number) -> (Expr, Prec) {
    let negative = n.is_negative();
    let magnitude = if negative { n.negated() } else { n };
    let expr = match magnitude {
        Number::Rational(p, 1) => lit(float_literal(p as f64, false)),
        Number::Rational(p, q) => {
            let (p, q) = (
                lit(float_literal(p as f64, false)),
                lit(float_literal(q as f64, false)),
            );
            // `-1.0 / 3.0` is `(-1.0) / 3.0`: the same correctly rounded value as `-(1.0 / 3.0)`.
            let quotient = binary(p, "/", q);
            return if negative {
                (negated(quotient), Prec::Product)
            } else {
                (quotient, Prec::Product)
            };
        }
        Number::Float(_) => lit(float_literal(magnitude.to_f64(), false)),
    };
    if negative {
        (negated(expr), Prec::Unary)
    } else {
        (expr, Prec::Atom)
    }
}

/// A non-negative finite float literal whose text parses back to exactly `x` (Rust's `{:?}` is
/// the shortest round-tripping form); `typed` adds the `_f64` suffix needed for method calls.
pub(crate) fn float_literal(x: f64, typed: bool) -> Literal {
    let mut text = format!("{x:?}");
    if !text.contains(['.', 'e']) {
        text.push_str(".0");
    }
    if typed {
        text.push_str("_f64");
    }
    text.parse().expect("a float literal")
}

//! Rust tokens for one scheduled expression, precedence-aware (parentheses only where Rust
//! needs them), matching the interpreter's arithmetic: `powi` for integer powers, `sqrt` for
//! ±1/2, `powf` otherwise; floats printed so they round-trip exactly.

use crate::cse::Schedule;
use crate::number::Number;
use crate::pool::{CmpOp, ExprId, Node, Pool, SymbolKind};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap;

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
    pub temp_names: FxHashMap<ExprId, TokenStream>,
    pub param_fields: &'a [TokenStream],
}

impl ExprEmitter<'_> {
    /// The expression as an operand of at least `min` binding strength.
    pub fn at(&self, id: ExprId, min: Prec) -> TokenStream {
        let (tokens, prec) = self.expr(id);
        if prec < min {
            quote!((#tokens))
        } else {
            tokens
        }
    }

    /// The expression as a method receiver (`x.sin()`): atoms only, literals typed.
    fn receiver(&self, id: ExprId) -> TokenStream {
        if let Some(n) = self.pool.as_number(id)
            && !self.temp_names.contains_key(&id)
        {
            let lit = float_literal(n.to_f64().abs(), true);
            return if n.is_negative() {
                quote!((-#lit))
            } else {
                lit
            };
        }
        self.at(id, Prec::Atom)
    }

    /// The expression at its own precedence; temporaries are referred to by name.
    pub fn expr(&self, id: ExprId) -> (TokenStream, Prec) {
        if let Some(name) = self.temp_names.get(&id) {
            return (name.clone(), Prec::Atom);
        }
        self.node(id)
    }

    /// The expression's definition, even when it is a temporary (used to bind it).
    pub fn node(&self, id: ExprId) -> (TokenStream, Prec) {
        match self.pool.node(id) {
            Node::Num(n) => number(*n),
            Node::Sym(s) => (self.symbol(self.pool.symbol_info(*s).kind, *s), Prec::Atom),
            Node::Add(_) => self.sum(&self.schedule.operands(self.pool, id)),
            Node::Mul(_) => self.product(&self.schedule.operands(self.pool, id)),
            Node::Pow(b, e) => self.power(*b, *e),
            Node::Func(f, a) => {
                let recv = self.receiver(*a);
                let method = format_ident!("{}", crate::display::func_name(*f));
                (quote!(#recv.#method()), Prec::Atom)
            }
            Node::Atan2(y, x) => self.method2(*y, "atan2", *x),
            Node::Min(a, b) => self.method2(*a, "min", *b),
            Node::Max(a, b) => self.method2(*a, "max", *b),
            Node::Cmp(..) => {
                let cond = self.condition(id);
                (quote!(if #cond { 1.0 } else { 0.0 }), Prec::Unary)
            }
            Node::Select(c, a, b) => {
                let cond = self.condition(*c);
                let (a, b) = (self.at(*a, Prec::Sum), self.at(*b, Prec::Sum));
                (quote!(if #cond { #a } else { #b }), Prec::Unary)
            }
        }
    }

    fn symbol(&self, kind: SymbolKind, sym: crate::pool::SymId) -> TokenStream {
        match kind {
            SymbolKind::Time => quote!(t),
            SymbolKind::Coordinate(i) => {
                let i = crate::emit::ulit(i);
                quote!(q[#i])
            }
            SymbolKind::Velocity(i) => {
                let i = crate::emit::ulit(i);
                quote!(v[#i])
            }
            SymbolKind::Parameter(i) => {
                let field = &self.param_fields[i];
                quote!(self.#field)
            }
            SymbolKind::Multiplier(i) => {
                let i = crate::emit::ulit(i);
                quote!(lambda[#i])
            }
            SymbolKind::Auxiliary(i) => {
                let i = crate::emit::ulit(i);
                quote!(w[#i])
            }
            SymbolKind::Free => {
                unreachable!(
                    "validated models have no free symbol ({})",
                    self.pool.symbol_info(sym).name
                )
            }
        }
    }

    fn method2(&self, a: ExprId, method: &str, b: ExprId) -> (TokenStream, Prec) {
        let recv = self.receiver(a);
        let arg = self.at(b, Prec::Sum);
        let method = format_ident!("{method}");
        (quote!(#recv.#method(#arg)), Prec::Atom)
    }

    /// A boolean condition: comparisons directly, anything else as `!= 0.0`.
    fn condition(&self, c: ExprId) -> TokenStream {
        match self.pool.node(c) {
            Node::Cmp(op, a, b) if !self.temp_names.contains_key(&c) => {
                let (a, b) = (self.at(*a, Prec::Sum), self.at(*b, Prec::Sum));
                match op {
                    CmpOp::Lt => quote!(#a < #b),
                    CmpOp::Le => quote!(#a <= #b),
                    CmpOp::Gt => quote!(#a > #b),
                    CmpOp::Ge => quote!(#a >= #b),
                }
            }
            _ => {
                let x = self.at(c, Prec::Sum);
                quote!(#x != 0.0)
            }
        }
    }

    /// `a + b − c …`: terms with a negative coefficient are subtracted.
    fn sum(&self, terms: &[ExprId]) -> (TokenStream, Prec) {
        let mut out = TokenStream::new();
        for (i, &term) in terms.iter().enumerate() {
            let (negative, magnitude) = self.signed(term);
            match (i, negative) {
                (0, false) => out.extend(magnitude),
                (0, true) => out.extend(quote!(-#magnitude)),
                (_, false) => out.extend(quote!(+ #magnitude)),
                (_, true) => out.extend(quote!(- #magnitude)),
            }
        }
        (out, Prec::Sum)
    }

    /// A term split into its sign and its magnitude at product precedence.
    fn signed(&self, term: ExprId) -> (bool, TokenStream) {
        if !self.temp_names.contains_key(&term) && !self.schedule.splits.contains_key(&term) {
            match self.pool.node(term) {
                Node::Num(n) if n.is_negative() => return (true, number(n.negated()).0),
                Node::Mul(xs) => {
                    if let Some(c) = xs.iter().find_map(|&x| self.pool.as_number(x))
                        && c.is_negative()
                    {
                        let (tokens, _) = self.product_with(xs, c.negated());
                        return (true, tokens);
                    }
                }
                _ => {}
            }
        }
        (false, self.at(term, Prec::Product))
    }

    fn product(&self, factors: &[ExprId]) -> (TokenStream, Prec) {
        let coeff = factors.iter().find_map(|&x| {
            self.pool
                .as_number(x)
                .filter(|_| !self.temp_names.contains_key(&x))
        });
        match coeff {
            Some(c) if c.is_negative() => {
                // `-a * b` is weaker than a product operand (`x / -a * b` would misparse).
                let (tokens, _) = self.product_with(factors, c.negated());
                (quote!(-#tokens), Prec::Sum)
            }
            Some(c) => self.product_with(factors, c),
            None => self.product_with(factors, Number::ONE),
        }
    }

    /// `coeff · Π numerators / Π denominators`, where factors with a negative integer exponent
    /// (or −1/2) go to the denominator. The numeric factor of `factors`, if any, is replaced
    /// by `coeff`.
    fn product_with(&self, factors: &[ExprId], coeff: Number) -> (TokenStream, Prec) {
        let mut numer: Vec<TokenStream> = Vec::new();
        let mut denom: Vec<TokenStream> = Vec::new();
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
        let mut out = match numer.split_first() {
            Some((first, rest)) => quote!(#first #(* #rest)*),
            None => quote!(1.0),
        };
        match denom.len() {
            0 => {}
            1 => {
                let d = &denom[0];
                out = quote!(#out / #d);
            }
            _ => {
                let (first, rest) = (&denom[0], &denom[1..]);
                out = quote!(#out / (#first #(* #rest)*));
            }
        }
        (out, Prec::Product)
    }

    /// For `x^-k` (integer k ≥ 1) or `x^-1/2` not bound to a temporary: the denominator
    /// `x^k` / `√x` at atom precedence. `None` for other factors.
    fn denominator(&self, f: ExprId) -> Option<TokenStream> {
        if self.temp_names.contains_key(&f) {
            return None;
        }
        let Node::Pow(b, e) = self.pool.node(f) else {
            return None;
        };
        let e = self.pool.as_number(*e)?;
        if e == Number::HALF.negated() {
            let recv = self.receiver(*b);
            return Some(quote!(#recv.sqrt()));
        }
        match e.as_integer()? {
            -1 => Some(self.at(*b, Prec::Unary)),
            k if k < -1 => {
                let k = Literal::i32_unsuffixed(i32::try_from(-k).ok()?);
                let recv = self.receiver(*b);
                Some(quote!(#recv.powi(#k)))
            }
            _ => None,
        }
    }

    fn power(&self, b: ExprId, e: ExprId) -> (TokenStream, Prec) {
        let recv = self.receiver(b);
        let exp = self.pool.as_number(e);
        if exp == Some(Number::HALF) {
            return (quote!(#recv.sqrt()), Prec::Atom);
        }
        if exp == Some(Number::HALF.negated()) {
            return (quote!(1.0 / #recv.sqrt()), Prec::Product);
        }
        if let Some(k) = exp
            .and_then(Number::as_integer)
            .and_then(|k| i32::try_from(k).ok())
        {
            let k = Literal::i32_unsuffixed(k);
            return (quote!(#recv.powi(#k)), Prec::Atom);
        }
        let arg = self.at(e, Prec::Sum);
        (quote!(#recv.powf(#arg)), Prec::Atom)
    }
}

/// A numeric constant: rationals as `p / q` of exact float literals, floats round-tripping.
fn number(n: Number) -> (TokenStream, Prec) {
    let negative = n.is_negative();
    let magnitude = if negative { n.negated() } else { n };
    let tokens = match magnitude {
        Number::Rational(p, 1) => float_literal(p as f64, false),
        Number::Rational(p, q) => {
            let (p, q) = (
                float_literal(p as f64, false),
                float_literal(q as f64, false),
            );
            // `-1.0 / 3.0` is `(-1.0) / 3.0`: the same correctly rounded value as `-(1.0 / 3.0)`.
            return if negative {
                (quote!(-#p / #q), Prec::Product)
            } else {
                (quote!(#p / #q), Prec::Product)
            };
        }
        Number::Float(_) => float_literal(magnitude.to_f64(), false),
    };
    if negative {
        (quote!(-#tokens), Prec::Unary)
    } else {
        (tokens, Prec::Atom)
    }
}

/// A non-negative finite float literal whose text parses back to exactly `x` (Rust's `{:?}` is
/// the shortest round-tripping form); `typed` adds the `_f64` suffix needed for method calls.
pub(crate) fn float_literal(x: f64, typed: bool) -> TokenStream {
    let mut text = format!("{x:?}");
    if !text.contains(['.', 'e']) {
        text.push_str(".0");
    }
    if typed {
        text.push_str("_f64");
    }
    let lit: Literal = text.parse().expect("a float literal");
    quote!(#lit)
}

//! Printing expressions in the Rust-like syntax users write models in, for messages:
//! `12.0 * m * x_dot.powi(2)` rather than the s-expression `(* 12 m (^ x_dot 2))`.
//!
//! The printer undoes the canonical spellings (`a·b⁻¹` prints `a / b`, `a + (−1)·b` prints
//! `a - b`, `x^(1/2)` prints `x.sqrt()`) and parenthesises by precedence only where Rust
//! needs it. Symbols print by name; integers as `2.0`, dyadic rationals as their exact decimal,
//! other rationals as a quotient (`x / 3.0`), floats round-tripping. [`sexpr_to_rust`] converts
//! a message's s-expression text (what [`crate::ModelError`] carries) the same way.

use crate::number::Number;
use crate::pool::{ExprId, Node, Pool, SymbolKind};

/// Binding strength, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Compare,
    Sum,
    Product,
    Unary,
    Atom,
}

impl Pool {
    /// `id` printed in the model's Rust-like syntax.
    pub fn to_rust(&self, id: ExprId) -> String {
        self.rust(id).0
    }

    fn rust(&self, id: ExprId) -> (String, Prec) {
        match self.node(id) {
            Node::Num(n) => number(*n),
            Node::Sym(s) => (self.symbol_info(*s).name.clone(), Prec::Atom),
            Node::Add(xs) => (self.sum(xs), Prec::Sum),
            Node::Mul(xs) => self.product(xs),
            Node::Pow(b, e) => self.power(*b, *e),
            Node::Func(f, a) => (format!("{}.{}()", self.receiver(*a), f.name()), Prec::Atom),
            Node::Atan2(y, x) => self.method2(*y, "atan2", *x),
            Node::Min(a, b) => self.method2(*a, "min", *b),
            Node::Max(a, b) => self.method2(*a, "max", *b),
            Node::Cmp(op, a, b) => {
                let (a, b) = (self.at(*a, Prec::Sum), self.at(*b, Prec::Sum));
                (
                    format!("{a} {} {b}", crate::display::cmp_name(*op)),
                    Prec::Compare,
                )
            }
            Node::Select(c, a, b) => {
                let (c, a, b) = (
                    self.at(*c, Prec::Compare),
                    self.to_rust(*a),
                    self.to_rust(*b),
                );
                (format!("if {c} {{ {a} }} else {{ {b} }}"), Prec::Atom)
            }
        }
    }

    fn at(&self, id: ExprId, min: Prec) -> String {
        match self.rust(id) {
            (s, p) if p < min => format!("({s})"),
            (s, _) => s,
        }
    }

    /// A method receiver: atoms only, a negative number parenthesised.
    fn receiver(&self, id: ExprId) -> String {
        match self.as_number(id) {
            Some(n) if n.is_negative() => format!("({})", number(n).0),
            Some(_) | None => self.at(id, Prec::Atom),
        }
    }

    fn method2(&self, a: ExprId, method: &str, b: ExprId) -> (String, Prec) {
        let (recv, arg) = (self.receiver(a), self.to_rust(b));
        (format!("{recv}.{method}({arg})"), Prec::Atom)
    }

    fn sum(&self, terms: &[ExprId]) -> String {
        let mut out = String::new();
        for (i, &t) in terms.iter().enumerate() {
            let (negative, magnitude) = match self.negated(t) {
                Some(m) => (true, m),
                None => (false, self.at(t, Prec::Sum)),
            };
            out += match (i, negative) {
                (0, false) => "",
                (0, true) => "-",
                (_, false) => " + ",
                (_, true) => " - ",
            };
            out += &magnitude;
        }
        out
    }

    /// For a term with a negative coefficient, its magnitude at product precedence.
    fn negated(&self, t: ExprId) -> Option<String> {
        match self.node(t) {
            Node::Num(n) if n.is_negative() => Some(number(n.negated()).0),
            Node::Mul(xs) => {
                let c = xs.iter().find_map(|&x| self.as_number(x))?;
                c.is_negative()
                    .then(|| self.product_with(xs, c.negated()).0)
            }
            Node::Num(_)
            | Node::Sym(_)
            | Node::Add(_)
            | Node::Pow(..)
            | Node::Func(..)
            | Node::Atan2(..)
            | Node::Min(..)
            | Node::Max(..)
            | Node::Cmp(..)
            | Node::Select(..) => None,
        }
    }

    fn product(&self, xs: &[ExprId]) -> (String, Prec) {
        match xs.iter().find_map(|&x| self.as_number(x)) {
            Some(c) if c.is_negative() => {
                let (s, _) = self.product_with(xs, c.negated());
                (format!("-{s}"), Prec::Sum)
            }
            Some(c) => self.product_with(xs, c),
            None => self.product_with(xs, Number::ONE),
        }
    }

    /// `coeff · Π numerators / Π denominators`; the numeric factor of `xs` is replaced by
    /// `coeff` (non-negative), whose denominator joins the others when it is not dyadic.
    fn product_with(&self, xs: &[ExprId], coeff: Number) -> (String, Prec) {
        let (mut numer, mut denom) = (Vec::new(), Vec::new());
        match coeff {
            Number::Rational(p, q) if q != 1 && !is_dyadic(q) => {
                if p != 1 {
                    numer.push(number(Number::int(p)).0);
                }
                denom.push(number(Number::int(q)).0);
            }
            c if c.is_one() => {}
            c => numer.push(number(c).0),
        }
        for &x in xs.iter().filter(|&&x| self.as_number(x).is_none()) {
            match self.denominator(x) {
                Some(d) => denom.push(d),
                None => numer.push(self.at(x, Prec::Unary)),
            }
        }
        let mut out = if numer.is_empty() {
            "1.0".to_string()
        } else {
            numer.join(" * ")
        };
        match denom.len() {
            0 => {}
            1 => out = format!("{out} / {}", denom[0]),
            _ => out = format!("{out} / ({})", denom.join(" * ")),
        }
        (out, Prec::Product)
    }

    /// `x^-k` (integer k ≥ 1) or `x^(-1/2)` as the denominator `x.powi(k)`, `x`, `x.sqrt()`.
    fn denominator(&self, f: ExprId) -> Option<String> {
        let Node::Pow(b, e) = self.node(f) else {
            return None;
        };
        let e = self.as_number(*e)?;
        if e == Number::HALF.negated() {
            return Some(format!("{}.sqrt()", self.receiver(*b)));
        }
        match e.as_integer()? {
            -1 => Some(self.at(*b, Prec::Unary)),
            k if k < -1 => Some(format!("{}.powi({})", self.receiver(*b), -k)),
            _ => None,
        }
    }

    fn power(&self, b: ExprId, e: ExprId) -> (String, Prec) {
        let recv = self.receiver(b);
        match self.as_number(e) {
            Some(Number::HALF) => (format!("{recv}.sqrt()"), Prec::Atom),
            Some(n) if n == Number::HALF.negated() => {
                (format!("1.0 / {recv}.sqrt()"), Prec::Product)
            }
            Some(n) if n.as_integer().is_some() => {
                let k = n.as_integer().expect("checked");
                (format!("{recv}.powi({k})"), Prec::Atom)
            }
            Some(_) | None => (format!("{recv}.powf({})", self.to_rust(e)), Prec::Atom),
        }
    }
}

/// A constant: integers as `2.0`, dyadic rationals and floats as exact decimals, other
/// rationals as `p.0 / q.0`.
fn number(n: Number) -> (String, Prec) {
    let text = match n {
        Number::Rational(p, q) if q != 1 && !is_dyadic(q) => {
            return (
                format!("{} / {}", float(p as f64), float(q as f64)),
                Prec::Product,
            );
        }
        Number::Rational(..) | Number::Float(_) => float(n.to_f64()),
    };
    let prec = if n.is_negative() {
        Prec::Unary
    } else {
        Prec::Atom
    };
    (text, prec)
}

/// Whether `1/q` is exact in binary (then `p/q` prints exactly as a decimal).
fn is_dyadic(q: i64) -> bool {
    q > 0 && q & (q - 1) == 0
}

/// The shortest round-tripping decimal of `x`, with a `.0` when it would read as an integer.
fn float(x: f64) -> String {
    let text = format!("{x:?}");
    if text.contains(['.', 'e']) {
        text
    } else {
        text + ".0"
    }
}

/// An s-expression of a message converted to Rust syntax, or `None` when it does not parse.
/// Its names are declared in order of first appearance, which keeps the operand order of a
/// canonical print (operands are sorted by id, and ids follow declaration order).
pub fn sexpr_to_rust(text: &str) -> Option<String> {
    let mut pool = Pool::new();
    let spaced = text.replace('(', " ( ").replace(')', " ) ");
    let mut after_open = false;
    for token in spaced.split_whitespace() {
        let is_name = token.starts_with(|c: char| c.is_alphabetic() || c == '_');
        if is_name && !after_open {
            pool.symbol(token, SymbolKind::Free);
        }
        after_open = token == "(";
    }
    let id = pool.parse(text).ok()?;
    Some(pool.to_rust(id))
}

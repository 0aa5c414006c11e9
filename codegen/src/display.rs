//! Printing expressions as s-expressions: `(+ x (* 2 (sin y)))`.
//!
//! The printed form is what error messages quote and what [`crate::parse`] reads back, so test
//! fixtures and diagnostics use one notation. Children print in canonical (id) order.

use crate::pool::{CmpOp, ExprId, Func, Node, Pool};
use std::fmt::{self, Write};

/// A displayable view of one expression.
pub struct Show<'a> {
    pool: &'a Pool,
    id: ExprId,
}

impl Pool {
    /// A value that prints `id` as an s-expression.
    pub fn show(&self, id: ExprId) -> Show<'_> {
        Show { pool: self, id }
    }

    /// `id` printed as an s-expression.
    pub fn to_sexpr(&self, id: ExprId) -> String {
        self.show(id).to_string()
    }
}

impl fmt::Display for Show<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(self.pool, self.id, f)
    }
}

/// The name of a function: its s-expression head and its `f64` method in emitted Rust.
pub fn func_name(f: Func) -> &'static str {
    f.name()
}

/// The s-expression head of a comparison.
pub fn cmp_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

fn write_expr(pool: &Pool, id: ExprId, f: &mut impl Write) -> fmt::Result {
    let list = |f: &mut dyn Write, head: &str, xs: &[ExprId]| -> fmt::Result {
        write!(f, "({head}")?;
        for &x in xs {
            f.write_char(' ')?;
            write_expr_dyn(pool, x, f)?;
        }
        f.write_char(')')
    };
    match pool.node(id) {
        Node::Num(n) => write!(f, "{n}"),
        Node::Sym(s) => f.write_str(&pool.symbol_info(*s).name),
        Node::Add(xs) => list(f, "+", xs),
        Node::Mul(xs) => {
            // The numeric coefficient prints first, whatever its id.
            let mut xs = xs.to_vec();
            xs.sort_by_key(|&x| pool.as_number(x).is_none());
            list(f, "*", &xs)
        }
        Node::Pow(b, e) => list(f, "^", &[*b, *e]),
        Node::Func(func, a) => list(f, func_name(*func), &[*a]),
        Node::Atan2(y, x) => list(f, "atan2", &[*y, *x]),
        Node::Min(a, b) => list(f, "min", &[*a, *b]),
        Node::Max(a, b) => list(f, "max", &[*a, *b]),
        Node::Cmp(op, a, b) => list(f, cmp_name(*op), &[*a, *b]),
        Node::Select(c, a, b) => list(f, "if", &[*c, *a, *b]),
    }
}

fn write_expr_dyn(pool: &Pool, id: ExprId, f: &mut dyn Write) -> fmt::Result {
    struct Adapter<'a>(&'a mut dyn Write);
    impl Write for Adapter<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0.write_str(s)
        }
    }
    write_expr(pool, id, &mut Adapter(f))
}

//! syn syntax trees built directly for the statements of kernel bodies, exactly as syn would
//! parse the equivalent tokens (left-associative operator chains, a leading `-` on the leftmost
//! operand of a product). The bulk of an emitted file is these statements; building them as
//! trees spares formatting a parse of the whole file's tokens (`tests/emit_ast.rs` checks that
//! re-parsing the emitted tokens gives the same trees).

use proc_macro2::{Ident, Literal, Span};
use syn::punctuated::Punctuated;
use syn::token::{Brace, Bracket, Paren};
use syn::{
    BinOp, Block, Expr, ExprAssign, ExprBinary, ExprBlock, ExprField, ExprIf, ExprIndex, ExprLit,
    ExprMethodCall, ExprParen, ExprPath, ExprTuple, ExprUnary, Lit, Local, LocalInit, Member, Pat,
    PatIdent, Stmt, UnOp,
};

fn span() -> Span {
    Span::call_site()
}

/// A literal token as an expression (`syn::Lit::new` reads it as the parser would).
pub(crate) fn lit(literal: Literal) -> Expr {
    Expr::Lit(ExprLit {
        attrs: Vec::new(),
        lit: Lit::new(literal),
    })
}

/// An unsuffixed integer literal (`3`).
pub(crate) fn int(i: usize) -> Expr {
    lit(Literal::usize_unsuffixed(i))
}

/// A one-segment path (`x3`, `q`, `self`).
pub(crate) fn path(name: &str) -> Expr {
    Expr::Path(ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: Ident::new(name, span()).into(),
    })
}

/// `base[index]`.
pub(crate) fn index(base: Expr, index: Expr) -> Expr {
    Expr::Index(ExprIndex {
        attrs: Vec::new(),
        expr: Box::new(base),
        bracket_token: Bracket::default(),
        index: Box::new(index),
    })
}

/// `base[i]` with an integer literal index.
pub(crate) fn indexed(base: &str, i: usize) -> Expr {
    index(path(base), int(i))
}

/// `base[(r, c)]`: an entry of a matrix view.
pub(crate) fn entry(base: &str, r: usize, c: usize) -> Expr {
    let mut elems = Punctuated::new();
    elems.push(int(r));
    elems.push(int(c));
    let pair = Expr::Tuple(ExprTuple {
        attrs: Vec::new(),
        paren_token: Paren::default(),
        elems,
    });
    index(path(base), pair)
}

/// `base.member`.
pub(crate) fn field(base: Expr, member: Ident) -> Expr {
    Expr::Field(ExprField {
        attrs: Vec::new(),
        base: Box::new(base),
        dot_token: Default::default(),
        member: Member::Named(member),
    })
}

/// `receiver.method(args…)`.
pub(crate) fn method(receiver: Expr, method: &str, args: Vec<Expr>) -> Expr {
    Expr::MethodCall(ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(receiver),
        dot_token: Default::default(),
        method: Ident::new(method, span()),
        turbofish: None,
        paren_token: Paren::default(),
        args: args.into_iter().collect(),
    })
}

/// `(e)`.
pub(crate) fn paren(e: Expr) -> Expr {
    Expr::Paren(ExprParen {
        attrs: Vec::new(),
        paren_token: Paren::default(),
        expr: Box::new(e),
    })
}

/// `left op right`, with `op` one of `+ - * / < <= > >= !=`.
pub(crate) fn binary(left: Expr, op: &str, right: Expr) -> Expr {
    let op = match op {
        "+" => BinOp::Add(Default::default()),
        "-" => BinOp::Sub(Default::default()),
        "*" => BinOp::Mul(Default::default()),
        "/" => BinOp::Div(Default::default()),
        "<" => BinOp::Lt(Default::default()),
        "<=" => BinOp::Le(Default::default()),
        ">" => BinOp::Gt(Default::default()),
        ">=" => BinOp::Ge(Default::default()),
        "!=" => BinOp::Ne(Default::default()),
        other => unreachable!("the emitter writes no operator `{other}`"),
    };
    Expr::Binary(ExprBinary {
        attrs: Vec::new(),
        left: Box::new(left),
        op,
        right: Box::new(right),
    })
}

/// `-e` as the parser reads the tokens `-` followed by those of `e`: unary minus binds tighter
/// than `*` and `/`, so it lands on the leftmost operand of a product or quotient.
pub(crate) fn negated(e: Expr) -> Expr {
    match e {
        Expr::Binary(mut b) if matches!(b.op, BinOp::Mul(_) | BinOp::Div(_)) => {
            let left = std::mem::replace(&mut *b.left, Expr::Verbatim(Default::default()));
            *b.left = negated(left);
            Expr::Binary(b)
        }
        other => Expr::Unary(ExprUnary {
            attrs: Vec::new(),
            op: UnOp::Neg(Default::default()),
            expr: Box::new(other),
        }),
    }
}

/// `if cond { then } else { otherwise }`.
pub(crate) fn if_else(cond: Expr, then: Expr, otherwise: Expr) -> Expr {
    let block = |e: Expr| Block {
        brace_token: Brace::default(),
        stmts: vec![Stmt::Expr(e, None)],
    };
    let otherwise = Expr::Block(ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block(otherwise),
    });
    Expr::If(ExprIf {
        attrs: Vec::new(),
        if_token: Default::default(),
        cond: Box::new(cond),
        then_branch: block(then),
        else_branch: Some((Default::default(), Box::new(otherwise))),
    })
}

/// `let name = value;`.
pub(crate) fn let_stmt(name: &str, value: Expr) -> Stmt {
    Stmt::Local(Local {
        attrs: Vec::new(),
        let_token: Default::default(),
        pat: Pat::Ident(PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident: Ident::new(name, span()),
            subpat: None,
        }),
        init: Some(LocalInit {
            eq_token: Default::default(),
            expr: Box::new(value),
            diverge: None,
        }),
        semi_token: Default::default(),
    })
}

/// `place = value;`.
pub(crate) fn assign_stmt(place: Expr, value: Expr) -> Stmt {
    let assign = Expr::Assign(ExprAssign {
        attrs: Vec::new(),
        left: Box::new(place),
        eq_token: Default::default(),
        right: Box::new(value),
    });
    Stmt::Expr(assign, Some(Default::default()))
}

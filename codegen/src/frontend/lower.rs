//! Lowering Rust expressions (syn) to pool expressions through the canonical constructors.
//!
//! Supported, as Rust users write math: literals; names (coordinates, velocities `<q>_dot`,
//! struct fields, `let` bindings, baked `const`s, `t`, `PI`, `TAU`, `E` unless the model
//! declares that name); `+ - * /`, unary `-`, parentheses; comparisons `< <= > >=` (1 or 0);
//! `if c { a } else { b }` (`else if` chains); methods `x.sin() cos tan exp ln abs asin acos
//! atan sinh cosh tanh sqrt recip` (the unary ones from the one name table, `Func::ALL`),
//! `x.powi(k)` (k a constant integer), `x.powf(a)`, `y.atan2(x)`, `x.max(y)`, `x.min(y)`,
//! `x.hypot(y)`, and the same as functions `sin(x)`, `powi(x, k)`, `atan2(y, x)`, … (also
//! `f64::sin(x)`); `sum(for i in a..b { term })`; `body_energy(m, j, [x, y, phi])`, a rigid
//! body's kinetic energy, lowered to a placeholder symbol (`body_energy.rs`). Anything else is an "unsupported construct" error spanned on its tokens; an
//! unknown name or function also says "did you mean" the closest known one (`suggest.rs`).
//!
//! Every lowered name is recorded with the span it was written at (`Lowerer::mentions`), so a
//! later model error ("velocity in a holonomic constraint") can point at the offending token;
//! a `let` binding's mentions are re-attributed to the span of each use.

use super::body_energy::EnergyTerm;
use crate::number::Number;
use crate::pool::{CmpOp, ExprId, Func, Pool};
use proc_macro2::Span;
use rustc_hash::FxHashMap;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

/// A `let` binding: its value and the model names it mentions.
#[derive(Clone, Debug)]
struct Binding {
    value: ExprId,
    mentions: Vec<String>,
}

/// Lowers expressions into a pool whose model symbols are already declared.
#[derive(Default)]
pub struct Lowerer {
    lets: FxHashMap<String, Binding>,
    consts: FxHashMap<String, ExprId>,
    /// The index variables of the enclosing `for i in a..b` loops, innermost last.
    indices: Vec<(String, i64)>,
    /// Names of model symbols mentioned since the last [`Lowerer::take_mentions`], with spans.
    mentions: Vec<(String, Span)>,
    /// The `body_energy(…)` terms lowered so far (`body_energy.rs`).
    energies: Vec<EnergyTerm>,
    /// Range members unrolled so far (bounded by [`super::limits::MAX_UNROLLED`]).
    unrolled: u64,
}

type Result<T> = syn::Result<T>;

fn err<T>(span: Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new(span, msg))
}

impl Lowerer {
    /// Model symbols mentioned since the last call, with the span of each mention.
    pub fn take_mentions(&mut self) -> Vec<(String, Span)> {
        std::mem::take(&mut self.mentions)
    }

    /// The `body_energy(…)` terms lowered so far, taken out.
    pub fn take_energies(&mut self) -> Vec<EnergyTerm> {
        std::mem::take(&mut self.energies)
    }

    /// How many `body_energy(…)` terms were lowered (the next one's number).
    pub(super) fn energy_count(&self) -> usize {
        self.energies.len()
    }

    /// Record a `body_energy(…)` term and mention its placeholder `name` at `span` (so a use
    /// outside `kinetic`, through a `let` too, is reported on the call).
    pub(super) fn record_energy(&mut self, term: EnergyTerm, name: String, span: Span) {
        self.energies.push(term);
        self.mentions.push((name, span));
    }

    /// The span of the latest mention of `name` not yet taken.
    pub(super) fn last_mention(&self, name: &str) -> Option<Span> {
        self.mentions
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, span)| *span)
    }

    /// Whether `name` is a `let` or `const` of this model.
    pub fn is_bound(&self, name: &str) -> bool {
        self.lets.contains_key(name) || self.consts.contains_key(name)
    }

    /// Bind `let name = value`.
    pub fn bind_let(&mut self, name: &str, value: ExprId, mentions: Vec<(String, Span)>) {
        let mentions = mentions.into_iter().map(|(n, _)| n).collect();
        self.lets
            .insert(name.to_string(), Binding { value, mentions });
    }

    /// Bind a baked parameter to its constant value.
    pub fn bind_const(&mut self, name: &str, value: ExprId) {
        self.consts.insert(name.to_string(), value);
    }

    /// The index variables bound now (outermost first), as `(name, value)`.
    pub fn indices(&self) -> &[(String, i64)] {
        &self.indices
    }

    /// Lower `expr` with the index variables `bindings` in scope (the iteration of a `for`
    /// item recorded by [`super::family::expand`]).
    pub fn lower_in(
        &mut self,
        pool: &mut Pool,
        bindings: &[(String, i64)],
        expr: &Expr,
    ) -> Result<ExprId> {
        self.scoped(bindings, |lw| lw.lower(pool, expr))
    }

    /// Run `f` with the index variables `bindings` in scope.
    pub fn scoped<T>(
        &mut self,
        bindings: &[(String, i64)],
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let depth = self.indices.len();
        self.indices.extend_from_slice(bindings);
        let out = f(self);
        self.indices.truncate(depth);
        out
    }

    /// Run `f` with the index variable `name` bound to `value`.
    pub fn with_index<T>(
        &mut self,
        name: &str,
        value: i64,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.indices.push((name.to_string(), value));
        let out = f(self);
        self.indices.pop();
        out
    }

    /// A generation-time integer (an index or a range bound): the expression must lower to a
    /// constant integer.
    pub fn integer(&mut self, pool: &mut Pool, expr: &Expr, what: &str) -> Result<i64> {
        let e = self.lower(pool, expr)?;
        self.take_mentions();
        match pool.as_number(e).and_then(Number::as_integer) {
            Some(k) => Ok(k),
            None => err(
                expr.span(),
                format!(
                    "{what} must be an integer known at generation time (literals, `const`s and loop indices)"
                ),
            ),
        }
    }

    /// Count `members` more unrolled members (a range, an array parameter) against
    /// [`super::limits::MAX_UNROLLED`]; the error is on `span`.
    pub fn unroll(&mut self, members: u128, span: Span) -> Result<()> {
        super::limits::unroll(&mut self.unrolled, members, span)
    }

    /// The values of a range `a..b` or `a..=b` with generation-time bounds.
    pub fn range(&mut self, pool: &mut Pool, expr: &Expr) -> Result<Vec<i64>> {
        let range = match expr {
            Expr::Range(r) => r,
            Expr::Paren(p) => return self.range(pool, &p.expr),
            Expr::Group(g) => return self.range(pool, &g.expr),
            other => return err(other.span(), "expected a range `a..b` or `a..=b`"),
        };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return err(range.span(), "a range needs both bounds (`0..N`, `1..=N`)");
        };
        let start = self.integer(pool, start, "a range bound")?;
        let end = self.integer(pool, end, "a range bound")?;
        let closed = matches!(range.limits, syn::RangeLimits::Closed(_));
        let members = (i128::from(end) - i128::from(start) + i128::from(closed)).max(0);
        self.unroll(members as u128, range.span())?;
        Ok(match range.limits {
            syn::RangeLimits::HalfOpen(_) => (start..end).collect(),
            syn::RangeLimits::Closed(_) => (start..=end).collect(),
        })
    }

    /// Bind the member `name[index]` of a `let` family.
    pub fn bind_member(
        &mut self,
        name: &str,
        index: i64,
        value: ExprId,
        mentions: Vec<(String, Span)>,
    ) {
        self.bind_let(&format!("{name}[{index}]"), value, mentions);
    }

    /// Lower one expression.
    pub fn lower(&mut self, pool: &mut Pool, expr: &Expr) -> Result<ExprId> {
        match expr {
            Expr::Index(ix) => self.member(pool, ix),
            Expr::Lit(l) => literal(pool, &l.lit),
            Expr::Path(p) => match p.path.get_ident() {
                Some(id) if p.qself.is_none() => {
                    self.name(pool, &syn::ext::IdentExt::unraw(id).to_string(), id.span())
                }
                _ => self.const_path(pool, p),
            },
            Expr::Paren(p) => self.lower(pool, &p.expr),
            Expr::Group(g) => self.lower(pool, &g.expr),
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => self.lower(pool, e),
                other => err(
                    other.span(),
                    "unsupported construct: a block must hold one expression",
                ),
            },
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let a = self.lower(pool, &u.expr)?;
                    Ok(pool.neg(a))
                }
                _ => err(
                    u.op.span(),
                    "unsupported operator in a model expression (supported: unary `-`)",
                ),
            },
            Expr::Binary(b) => self.binary(pool, b),
            Expr::MethodCall(m) => {
                let recv = self.lower(pool, &m.receiver)?;
                let args = m
                    .args
                    .iter()
                    .map(|a| self.lower(pool, a))
                    .collect::<Result<Vec<_>>>()?;
                apply(
                    pool,
                    &m.method.to_string(),
                    recv,
                    &args,
                    m.method.span(),
                    &m.args,
                )
            }
            Expr::Call(c) => self.call(pool, c),
            Expr::If(i) => self.if_expr(pool, i),
            other => err(
                other.span(),
                format!(
                    "unsupported construct in a model expression: {}",
                    describe(other)
                ),
            ),
        }
    }

    /// `theta[i]`: a member of a family of coordinates, velocities, parameters or `let`s.
    fn member(&mut self, pool: &mut Pool, ix: &syn::ExprIndex) -> Result<ExprId> {
        let base = match &*ix.expr {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                syn::ext::IdentExt::unraw(p.path.get_ident().expect("checked")).to_string()
            }
            other => {
                return err(
                    other.span(),
                    "only a named family can be indexed (`theta[i]`, `m[i + 1]`)",
                );
            }
        };
        let index = self.integer(pool, &ix.index, "an index")?;
        let name = format!("{base}[{index}]");
        if self.lets.contains_key(&name) || pool.lookup_symbol(&name).is_some() {
            return self.name(pool, &name, ix.span());
        }
        let members = self.family_indices(pool, &base);
        match (members.first(), members.last()) {
            (Some(lo), Some(hi)) => err(
                ix.index.span(),
                format!("index {index} is out of range: `{base}` has indices {lo}..={hi}"),
            ),
            _ => self.name(pool, &base, ix.expr.span()).and_then(|_| {
                err(
                    ix.expr.span(),
                    format!("`{base}` is not an indexed family; write it without `[…]`"),
                )
            }),
        }
    }

    /// The sorted indices of the family `base` (coordinates, velocities, parameters, `let`s).
    fn family_indices(&self, pool: &Pool, base: &str) -> Vec<usize> {
        let names = pool.symbols().iter().map(|s| s.name.as_str());
        let mut found: Vec<usize> = names
            .chain(self.lets.keys().map(String::as_str))
            .filter_map(crate::model::split_indexed)
            .filter(|(b, _)| *b == base)
            .map(|(_, i)| i)
            .collect();
        found.sort_unstable();
        found
    }

    fn name(&mut self, pool: &mut Pool, name: &str, span: Span) -> Result<ExprId> {
        if let Some(&(_, value)) = self.indices.iter().rev().find(|(n, _)| n == name) {
            return Ok(pool.int(value));
        }
        if let Some(b) = self.lets.get(name) {
            self.mentions
                .extend(b.mentions.iter().map(|n| (n.clone(), span)));
            return Ok(b.value);
        }
        if let Some(&c) = self.consts.get(name) {
            return Ok(c);
        }
        if let Some(s) = pool.lookup_symbol(name) {
            self.mentions.push((name.to_string(), span));
            return Ok(pool.intern(crate::pool::Node::Sym(s)));
        }
        if let Some(value) = named_constant(name) {
            return Ok(pool.try_float(value).expect("finite constant"));
        }
        let mut known: Vec<String> = pool
            .symbols()
            .iter()
            .filter(|s| !super::body_energy::is_placeholder(&s.name))
            .map(|s| s.name.clone())
            .collect();
        known.extend(self.lets.keys().cloned());
        known.extend(self.consts.keys().cloned());
        known.extend(self.indices.iter().map(|(n, _)| n.clone()));
        for k in &mut known {
            if let Some((base, _)) = crate::model::split_indexed(k) {
                *k = format!("{base}[…]");
            }
        }
        known.sort();
        known.dedup();
        known.extend(["PI", "TAU", "E"].map(String::from));
        let hint = super::suggest::did_you_mean(name, known.iter().map(String::as_str));
        err(
            span,
            format!(
                "unknown identifier `{name}`{hint} (known here: {})",
                known.join(", ")
            ),
        )
    }

    /// `std::f64::consts::PI`, `f64::consts::PI`, `consts::PI`.
    fn const_path(&mut self, pool: &mut Pool, p: &syn::ExprPath) -> Result<ExprId> {
        let segments: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let is_consts = segments.len() >= 2 && segments[segments.len() - 2] == "consts";
        match segments
            .last()
            .and_then(|last| named_constant(last))
            .filter(|_| is_consts)
        {
            Some(value) => Ok(pool.try_float(value).expect("finite constant")),
            None => err(
                p.span(),
                "unsupported path in a model expression (use a plain name or `f64::consts::PI`)",
            ),
        }
    }

    fn binary(&mut self, pool: &mut Pool, b: &syn::ExprBinary) -> Result<ExprId> {
        let (l, r) = (self.lower(pool, &b.left)?, self.lower(pool, &b.right)?);
        Ok(match b.op {
            BinOp::Add(_) => pool.add2(l, r),
            BinOp::Sub(_) => pool.sub(l, r),
            BinOp::Mul(_) => pool.mul2(l, r),
            BinOp::Div(_) => pool.div(l, r),
            BinOp::Lt(_) => pool.cmp(CmpOp::Lt, l, r),
            BinOp::Le(_) => pool.cmp(CmpOp::Le, l, r),
            BinOp::Gt(_) => pool.cmp(CmpOp::Gt, l, r),
            BinOp::Ge(_) => pool.cmp(CmpOp::Ge, l, r),
            BinOp::Eq(_) | BinOp::Ne(_) => {
                let (Some(a), Some(c)) = (pool.as_number(l), pool.as_number(r)) else {
                    return err(
                        b.op.span(),
                        "`==` and `!=` compare generation-time values only (indices, `const`s); use `<`, `<=`, `>`, `>=` on model quantities",
                    );
                };
                let equal = a == c;
                pool.int(i64::from(equal == matches!(b.op, BinOp::Eq(_))))
            }
            BinOp::BitXor(op) => {
                return err(
                    op.span,
                    "`^` is exclusive or in Rust, not a power: write `x.powi(2)` (integer exponent) or `x.powf(a)`",
                );
            }
            other => {
                return err(
                    other.span(),
                    "unsupported operator in a model expression (supported: + - * / < <= > >=)",
                );
            }
        })
    }

    fn call(&mut self, pool: &mut Pool, c: &syn::ExprCall) -> Result<ExprId> {
        let name = match &*c.func {
            Expr::Path(p) if p.qself.is_none() => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                match segs.as_slice() {
                    [f] => f.clone(),
                    [ty, f] if ty == "f64" => f.clone(),
                    _ => {
                        return err(
                            c.func.span(),
                            "unsupported function path (use `sin(x)` or `f64::sin(x)`)",
                        );
                    }
                }
            }
            other => return err(other.span(), "unsupported call in a model expression"),
        };
        if name == "sum" {
            return self.sum(pool, c);
        }
        if name == super::body_energy::NAME {
            return super::body_energy::lower_call(self, pool, c);
        }
        let Some((first, rest)) = c
            .args
            .iter()
            .collect::<Vec<_>>()
            .split_first()
            .map(|(f, r)| (*f, r.to_vec()))
        else {
            return err(c.span(), format!("`{name}` needs an argument"));
        };
        let recv = self.lower(pool, first)?;
        let args = rest
            .iter()
            .map(|a| self.lower(pool, a))
            .collect::<Result<Vec<_>>>()?;
        let rest_punct: syn::punctuated::Punctuated<Expr, syn::Token![,]> =
            rest.into_iter().cloned().collect();
        apply(pool, &name, recv, &args, c.func.span(), &rest_punct)
    }

    /// `sum(for i in a..b { term })`: the terms added at generation time (an empty range is 0).
    fn sum(&mut self, pool: &mut Pool, c: &syn::ExprCall) -> Result<ExprId> {
        let args: Vec<&Expr> = c.args.iter().collect();
        let [Expr::ForLoop(l)] = args.as_slice() else {
            return err(
                c.span(),
                "`sum` takes one loop: `sum(for i in 0..N { term })`",
            );
        };
        let (var, range, body) = loop_parts(l)?;
        let mut terms = Vec::new();
        for value in self.range(pool, range)? {
            terms.push(self.with_index(&var, value, |lw| lw.lower(pool, body))?);
        }
        Ok(pool.add(&terms))
    }

    fn if_expr(&mut self, pool: &mut Pool, i: &syn::ExprIf) -> Result<ExprId> {
        let cond = self.lower(pool, &i.cond)?;
        let then_expr = match i.then_branch.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => e,
            _ => {
                return err(
                    i.then_branch.span(),
                    "an `if` branch must hold one expression",
                );
            }
        };
        let Some((_, otherwise)) = &i.else_branch else {
            return err(i.span(), "an `if` needs an `else` branch");
        };
        // A condition known at generation time (on indices: `if i == 0 { … } else { x[i - 1] }`)
        // lowers only the branch taken, so the other may name members that do not exist.
        if let Some(c) = pool.as_number(cond) {
            return match c.is_zero() {
                true => self.lower(pool, otherwise),
                false => self.lower(pool, then_expr),
            };
        }
        let then = self.lower(pool, then_expr)?;
        let otherwise = self.lower(pool, otherwise)?;
        Ok(pool.select(cond, then, otherwise))
    }
}

/// The index variable, range and body expression of `for i in a..b { body }`.
pub fn loop_parts(l: &syn::ExprForLoop) -> Result<(String, &Expr, &Expr)> {
    let var = match &*l.pat {
        syn::Pat::Ident(p)
            if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
        {
            syn::ext::IdentExt::unraw(&p.ident).to_string()
        }
        other => {
            return err(
                other.span(),
                "a loop variable is a plain name (`for i in 0..N`)",
            );
        }
    };
    if let Some(label) = &l.label {
        return err(label.span(), "a model loop takes no label");
    }
    let body = match l.body.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => e,
        _ => {
            return err(
                l.body.span(),
                "a model loop's body holds one expression (or an array `[a, b]` of them)",
            );
        }
    };
    Ok((var, &l.expr, body))
}

/// A method or function applied to its receiver (first argument) and further arguments.
fn apply(
    pool: &mut Pool,
    name: &str,
    recv: ExprId,
    args: &[ExprId],
    span: Span,
    arg_tokens: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
) -> Result<ExprId> {
    let want = |k: usize| -> Result<()> {
        if args.len() == k {
            Ok(())
        } else {
            err(
                span,
                format!(
                    "`{name}` takes {} argument(s) here, found {}",
                    k,
                    args.len()
                ),
            )
        }
    };
    if let Some(f) = Func::from_name(name) {
        want(0)?;
        return Ok(pool.func(f, recv));
    }
    match name {
        "sqrt" => want(0).map(|_| pool.sqrt(recv)),
        "recip" => want(0).map(|_| pool.powi(recv, -1)),
        "powi" => {
            want(1)?;
            match pool.as_number(args[0]).and_then(Number::as_integer) {
                Some(k) => Ok(pool.powi(recv, k)),
                None => err(
                    arg_tokens[0].span(),
                    "the exponent of `powi` must be a constant integer",
                ),
            }
        }
        "powf" => want(1).map(|_| pool.pow(recv, args[0])),
        "atan2" => want(1).map(|_| pool.atan2(recv, args[0])),
        "max" => want(1).map(|_| pool.max(recv, args[0])),
        "min" => want(1).map(|_| pool.min(recv, args[0])),
        "hypot" => {
            want(1)?;
            let (a, b) = (pool.powi(recv, 2), pool.powi(args[0], 2));
            let s = pool.add2(a, b);
            Ok(pool.sqrt(s))
        }
        _ => {
            let names = function_names();
            let hint = match name {
                "log" => "; did you mean `ln` (the natural logarithm)?".to_string(),
                _ => super::suggest::did_you_mean(name, names.iter().map(String::as_str)),
            };
            err(
                span,
                format!(
                    "unsupported function `{name}`{hint} (supported: {})",
                    names.join(" ")
                ),
            )
        }
    }
}

/// Every function the front end accepts, as a method or a function: the unary functions of
/// [`Func::ALL`], then the ones `apply` builds from other nodes.
pub fn function_names() -> Vec<String> {
    let unary = Func::ALL.iter().map(|(_, name)| *name);
    let others = [
        "sqrt", "recip", "powi", "powf", "atan2", "max", "min", "hypot",
    ];
    unary.chain(others).map(str::to_string).collect()
}

fn literal(pool: &mut Pool, lit: &Lit) -> Result<ExprId> {
    let value = match lit {
        Lit::Int(i) => match i.base10_parse::<i64>() {
            Ok(v) => return Ok(pool.int(v)),
            Err(e) => return Err(e),
        },
        Lit::Float(f) => f.base10_parse::<f64>()?,
        other => {
            return err(
                other.span(),
                "unsupported literal in a model expression (numbers only)",
            );
        }
    };
    match pool.try_float(value) {
        Some(e) => Ok(e),
        None => err(lit.span(), "non-finite constant"),
    }
}

fn named_constant(name: &str) -> Option<f64> {
    match name {
        "PI" => Some(std::f64::consts::PI),
        "TAU" => Some(std::f64::consts::TAU),
        "E" => Some(std::f64::consts::E),
        _ => None,
    }
}

fn describe(e: &Expr) -> &'static str {
    match e {
        Expr::Array(_) => "an array",
        Expr::Assign(_) => "an assignment",
        Expr::Block(_) => "a block",
        Expr::Cast(_) => "a cast",
        Expr::Closure(_) => "a closure",
        Expr::Field(_) => "a field access (parameters are plain names)",
        Expr::Index(_) => "indexing",
        Expr::Macro(_) => "a macro call",
        Expr::Match(_) => "a `match`",
        Expr::Reference(_) => "a reference",
        Expr::Tuple(_) => "a tuple",
        Expr::Loop(_) | Expr::ForLoop(_) | Expr::While(_) => "a loop",
        _ => "this kind of expression",
    }
}

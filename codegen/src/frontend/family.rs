//! Indexed families: the `for` items of the model's arrays, expanded at generation time.
//!
//! An array entry (`holonomic`, `nonholonomic`, `force`, the arguments of `diag(…)`) may hold,
//! besides plain rows, loops `for i in a..b { row }` or `for i in a..=b { [row, row, …] }`
//! (nested loops too; a bound may use an outer index), whose bounds are integers known at
//! generation time (literals, `const`s, outer indices). [`expand`] unrolls them into [`Item`]s
//! in source order: each is a row's tokens with the index values it is lowered under, so the
//! row's errors stay on its tokens and can say for which `i` they happen.
//!
//! A constraint row's label written inside a loop names each member: `pin = …` becomes
//! `pin[3]` (one `[k]` per enclosing loop, outermost first); `pin[i + 1] = …` gives the index
//! explicitly.

use super::lower::{Lowerer, loop_parts};
use crate::pool::Pool;
use syn::Expr;
use syn::spanned::Spanned;

/// One unrolled row.
#[derive(Clone, Debug)]
pub struct Item<'a> {
    /// The row's expression (without its label).
    pub expr: &'a Expr,
    /// The row's label, with the indices of its loop iteration appended.
    pub label: Option<String>,
    /// The index variables the row is lowered under, outermost first.
    pub bindings: Vec<(String, i64)>,
}

impl Item<'_> {
    /// `i = 3, j = 1` for a row of a loop; `None` for a plain row.
    pub fn iteration(&self) -> Option<String> {
        let parts: Vec<String> = self
            .bindings
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// Unroll the loops among `items`; `labeled` reads `name = expr` labels (constraint rows).
pub fn expand<'a>(
    lw: &mut Lowerer,
    pool: &mut Pool,
    items: &[&'a Expr],
    labeled: bool,
) -> syn::Result<Vec<Item<'a>>> {
    let mut out = Vec::new();
    for &item in items {
        expand_one(lw, pool, item, labeled, &mut out)?;
    }
    Ok(out)
}

fn expand_one<'a>(
    lw: &mut Lowerer,
    pool: &mut Pool,
    item: &'a Expr,
    labeled: bool,
    out: &mut Vec<Item<'a>>,
) -> syn::Result<()> {
    match item {
        Expr::ForLoop(l) => {
            let (var, range, body) = loop_parts(l)?;
            let rows: Vec<&'a Expr> = match body {
                Expr::Array(a) => a.elems.iter().collect(),
                single => vec![single],
            };
            for value in lw.range(pool, range)? {
                lw.with_index(&var, value, |lw| {
                    rows.iter()
                        .try_for_each(|row| expand_one(lw, pool, row, labeled, out))
                })?;
            }
            Ok(())
        }
        Expr::Group(g) => expand_one(lw, pool, &g.expr, labeled, out),
        row => {
            let (label, expr) = match labeled {
                true => label(lw, pool, row)?,
                false => (None, row),
            };
            out.push(Item {
                expr,
                label,
                bindings: lw.indices().to_vec(),
            });
            Ok(())
        }
    }
}

/// The label of `name = expr` or `name[index] = expr` (a plain name inside loops gets the
/// loops' indices appended), and the row's expression.
fn label<'a>(
    lw: &mut Lowerer,
    pool: &mut Pool,
    row: &'a Expr,
) -> syn::Result<(Option<String>, &'a Expr)> {
    let Expr::Assign(a) = row else {
        return Ok((None, row));
    };
    let plain = |e: &Expr| match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    if let Some(name) = plain(&a.left) {
        let suffix: String = lw.indices().iter().map(|(_, v)| format!("[{v}]")).collect();
        return Ok((Some(name + &suffix), &a.right));
    }
    if let Expr::Index(ix) = &*a.left
        && let Some(name) = plain(&ix.expr)
    {
        let index = lw.integer(pool, &ix.index, "a label's index")?;
        return Ok((Some(format!("{name}[{index}]")), &a.right));
    }
    Err(syn::Error::new(
        a.left.span(),
        "a row's label is a name (`pin = …`) or an indexed name (`pin[i] = …`)",
    ))
}

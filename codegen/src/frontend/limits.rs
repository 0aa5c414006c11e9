//! The front end's size limits: what keeps a mistaken model text (a typo'd bound, runaway
//! nesting) an error on its tokens instead of a stack overflow or an allocation of gigabytes
//! in the user's build (an internal compiler error for the proc-macro). Found by the fuzzing
//! campaign (`tests/fuzz`); each limit is far above what a real model uses.
//!
//! - [`MAX_NESTING`]: delimiter groups `( [ {` nested in the attribute (checked on the tokens,
//!   before syn's recursive expression parser sees them: syn overflows an 8 MiB stack at about
//!   4 000 levels) and expression depth after parsing (method chains `x.sin().sin()…`, unary
//!   chains, in `draw` and `events` too), which the recursive passes (lowering, emission) walk.
//! - [`MAX_UNROLLED`]: members of `for` ranges, `let` families, coordinate families and array
//!   parameters, summed over one model (nested loops multiply): the IFToMM chain in body
//!   coordinates, the largest model here, unrolls a few hundred.
//! - [`MAX_COORDINATES`]: the mass matrix alone has n² entries (the largest catalog model has
//!   243 coordinates); [`MAX_PARAMETERS`]: an array parameter `[f64; 65536]` took minutes (the
//!   largest catalog array has 81 members).
//! - Names that cannot be spelt as identifiers in the generated code (`_`, `self`, …) are
//!   refused where they are declared (`assemble.rs`).

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

/// Deepest nesting of delimiters, and of expressions, the front end accepts.
pub const MAX_NESTING: usize = 256;
/// Most members all ranges of one model may unroll together.
pub const MAX_UNROLLED: u64 = 200_000;
/// Most coordinates a model may have.
pub const MAX_COORDINATES: usize = 2_000;
/// Most runtime parameters (fields, array members counted one by one) a model may have.
pub const MAX_PARAMETERS: u64 = 2_000;

/// Delimiter groups nested at most [`MAX_NESTING`] deep (walked with an explicit stack, so
/// this check cannot overflow either); the error is on the group that goes one level too deep.
pub fn check_nesting(tokens: &TokenStream) -> syn::Result<()> {
    let mut stack = vec![tokens.clone().into_iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(TokenTree::Group(g)) => {
                if stack.len() > MAX_NESTING {
                    return Err(syn::Error::new(g.span(), too_deep("delimiters `( [ {`")));
                }
                stack.push(g.stream().into_iter());
            }
            Some(_) => {}
            None => {
                stack.pop();
            }
        }
    }
    Ok(())
}

fn too_deep(what: &str) -> String {
    format!(
        "{what} nested more than {MAX_NESTING} levels deep (the front end's limit); name the inner parts with `let`"
    )
}

/// An expression at most [`MAX_NESTING`] deep (method and unary chains included).
pub fn check_depth(expr: &mut syn::Expr) -> syn::Result<()> {
    let mut depth = Depth {
        level: 0,
        error: None,
    };
    depth.visit_expr_mut(expr);
    depth.error.map_or(Ok(()), Err)
}

struct Depth {
    level: usize,
    error: Option<syn::Error>,
}

impl VisitMut for Depth {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if self.error.is_some() {
            return;
        }
        if self.level >= MAX_NESTING {
            self.error = Some(syn::Error::new(e.span(), too_deep("expressions")));
            return;
        }
        self.level += 1;
        syn::visit_mut::visit_expr_mut(self, e);
        self.level -= 1;
    }
}

/// The count of a range's members, checked against what may still be unrolled (`used` so far
/// in this model, updated).
pub fn unroll(used: &mut u64, members: u128, span: proc_macro2::Span) -> syn::Result<()> {
    let total = u128::from(*used) + members;
    if total > u128::from(MAX_UNROLLED) {
        let msg = format!(
            "this range has {members} members, and the model would unroll {total} in all: the front end unrolls at most {MAX_UNROLLED} at generation time"
        );
        return Err(syn::Error::new(span, msg));
    }
    *used = total as u64;
    Ok(())
}

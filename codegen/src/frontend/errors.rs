//! Mapping the pipeline's [`ModelError`]s back to source spans.
//!
//! Every lowered row is recorded as a [`Row`]: its label in the model (`holonomic[1]`,
//! `mass[0][1]`, `force[2]`, `kinetic`, …, the same labels `validate.rs` puts in its errors), the
//! span of its tokens and the names it mentions with their spans. An error about a velocity
//! points at the velocity's token; an error about a whole row points at the row; an asymmetric
//! mass matrix points at both entries. Expressions are quoted in the model's Rust-like syntax
//! (`crate::rust_syntax`), not as the pipeline's s-expressions.

/// An error spanning all of `row`'s tokens (the macro's call site when there is no row).
pub fn at(row: Option<&Row>, msg: impl std::fmt::Display) -> syn::Error {
    match row {
        Some(r) => syn::Error::new_spanned(&r.tokens, with_iteration(r, msg)),
        None => syn::Error::new(Span::call_site(), msg),
    }
}

/// An error on the first mention of `name` in `row`, else on the whole row.
pub fn at_mention(row: Option<&Row>, name: &str, msg: impl std::fmt::Display) -> syn::Error {
    match row.and_then(|r| r.mentions.iter().find(|(n, _)| n == name).map(|m| (r, m))) {
        Some((r, (_, span))) => syn::Error::new(*span, with_iteration(r, msg)),
        None => at(row, msg),
    }
}

/// The message, followed by the loop iteration the row was lowered in (`(for i = 3)`).
fn with_iteration(row: &Row, msg: impl std::fmt::Display) -> String {
    match &row.iteration {
        Some(it) => format!("{msg} (for {it})"),
        None => msg.to_string(),
    }
}

use crate::error::ModelError;
use proc_macro2::{Span, TokenStream};

/// One lowered row of the model and where it came from.
#[derive(Clone, Debug)]
pub struct Row {
    /// The label `validate.rs` uses for this row.
    pub label: String,
    /// The row's tokens (an error spans all of them, first to last, also on stable Rust).
    pub tokens: TokenStream,
    /// Model names mentioned in the row (through `let`s too), with the span of each mention.
    pub mentions: Vec<(String, Span)>,
    /// The loop iteration of a row written inside `for` (`i = 3`), `None` for a plain row.
    pub iteration: Option<String>,
}

/// The spanned error for a validation failure; `lagrangian` says M and Q were derived from
/// `kinetic`/`potential` (their errors then point at those entries).
pub fn map_model_error(e: &ModelError, rows: &[Row], lagrangian: bool) -> syn::Error {
    let row = |label: &str| {
        let label = match label {
            l if lagrangian && (l.starts_with("mass") || l.starts_with("force")) => "kinetic",
            l => l,
        };
        rows.iter().find(|r| r.label == label)
    };
    match e {
        ModelError::VelocityDependence {
            location,
            velocity,
            what,
            ..
        } => {
            let hint = if what.contains("holonomic") {
                "; write velocity constraints under `nonholonomic`"
            } else {
                ""
            };
            let msg = format!(
                "the velocity `{velocity}` appears in {what} ({location}), which may depend only on t, q and parameters{hint}"
            );
            at_mention(row(location), velocity, msg)
        }
        ModelError::NotLinearInVelocity {
            location,
            velocity,
            derivative,
            ..
        } => {
            let derivative = rust(derivative);
            let msg = format!(
                "this nonholonomic constraint ({location}) is not linear in the velocities: its coefficient of `{velocity}` is `{derivative}`, which still depends on v"
            );
            at(row(location), msg)
        }
        ModelError::NotSymmetric {
            row: r,
            col: c,
            upper,
            lower,
        } => {
            let (upper, lower) = (rust(upper), rust(lower));
            let msg = format!(
                "the mass matrix is not symmetric: entry [{r}][{c}] is `{upper}` but entry [{c}][{r}] is `{lower}`"
            );
            let mut err = at(row(&format!("mass[{r}][{c}]")), msg);
            err.combine(at(
                row(&format!("mass[{c}][{r}]")),
                format!("entry [{c}][{r}] is here"),
            ));
            err
        }
        ModelError::DivisionByZero { location, .. } => {
            at(row(location), format!("division by zero in {location}"))
        }
        ModelError::UnknownSymbol { location, .. }
        | ModelError::NonFiniteConstant { location, .. } => at(row(location), e),
        other => syn::Error::new(Span::call_site(), other.to_string()),
    }
}

/// An expression of a [`ModelError`] (an s-expression) in the model's Rust-like syntax.
fn rust(sexpr: &str) -> String {
    crate::rust_syntax::sexpr_to_rust(sexpr).unwrap_or_else(|| sexpr.to_string())
}

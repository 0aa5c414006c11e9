//! Mapping the pipeline's [`ModelError`]s back to source spans.
//!
//! Every lowered row is recorded as a [`Row`]: its label in the model (`holonomic[1]`,
//! `mass[0][1]`, `force[2]`, `kinetic`, …, the same labels `validate.rs` puts in its errors), the
//! span of its tokens and the names it mentions with their spans. An error about a velocity
//! points at the velocity's token; an error about a whole row points at the row; an asymmetric
//! mass matrix points at both entries.

use crate::error::ModelError;
use proc_macro2::Span;

/// One lowered row of the model and where it came from.
#[derive(Clone, Debug)]
pub struct Row {
    /// The label `validate.rs` uses for this row.
    pub label: String,
    /// The span of the row's expression.
    pub span: Span,
    /// Model names mentioned in the row (through `let`s too), with the span of each mention.
    pub mentions: Vec<(String, Span)>,
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
    let span_of = |label: &str| row(label).map_or(Span::call_site(), |r| r.span);
    match e {
        ModelError::VelocityDependence {
            location,
            velocity,
            what,
            ..
        } => {
            let span = row(location)
                .map(|r| {
                    r.mentions
                        .iter()
                        .find(|(n, _)| n == velocity)
                        .map_or(r.span, |(_, s)| *s)
                })
                .unwrap_or_else(Span::call_site);
            let hint = if what.contains("holonomic") {
                "; write velocity constraints under `nonholonomic`"
            } else {
                ""
            };
            let msg = format!(
                "the velocity `{velocity}` appears in {what} ({location}), which may depend only on t, q and parameters{hint}"
            );
            syn::Error::new(span, msg)
        }
        ModelError::NotLinearInVelocity {
            location,
            velocity,
            derivative,
            ..
        } => {
            let msg = format!(
                "this nonholonomic constraint ({location}) is not linear in the velocities: its coefficient of `{velocity}` is `{derivative}`, which still depends on v"
            );
            syn::Error::new(span_of(location), msg)
        }
        ModelError::NotSymmetric {
            row: r,
            col: c,
            upper,
            lower,
        } => {
            let msg = format!(
                "the mass matrix is not symmetric: entry [{r}][{c}] is `{upper}` but entry [{c}][{r}] is `{lower}`"
            );
            let mut err = syn::Error::new(span_of(&format!("mass[{r}][{c}]")), msg);
            err.combine(syn::Error::new(
                span_of(&format!("mass[{c}][{r}]")),
                format!("entry [{c}][{r}] is here"),
            ));
            err
        }
        ModelError::DivisionByZero { location, .. } => {
            syn::Error::new(span_of(location), format!("division by zero in {location}"))
        }
        ModelError::UnknownSymbol { location, .. }
        | ModelError::NonFiniteConstant { location, .. } => {
            syn::Error::new(span_of(location), e.to_string())
        }
        other => syn::Error::new(Span::call_site(), other.to_string()),
    }
}

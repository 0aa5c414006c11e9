//! [`DaeError`]: numerical failure as a value.

/// Why a field evaluation or a step failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DaeError {
    /// A matrix the elimination needs (GB, GGᵀ, H₂H₂ᵀ, the Newton matrix) is singular.
    #[error("{what} is singular at t = {t:e} (pivot {pivot:e})")]
    Singular {
        /// Which matrix.
        what: &'static str,
        /// Time.
        t: f64,
        /// The smallest pivot met.
        pivot: f64,
    },
    /// Newton's iteration of the implicit step did not converge.
    #[error(
        "Newton did not converge at t = {t:e} (step {step}): update {update:e} after {iterations} iterations"
    )]
    NewtonFailed {
        /// Time at the end of the step.
        t: f64,
        /// Step index (0 is the first).
        step: usize,
        /// Iterations made.
        iterations: usize,
        /// Last scaled update norm.
        update: f64,
    },
    /// The field or the state became non-finite.
    #[error("non-finite {what} at t = {t:e}")]
    NonFinite {
        /// Which quantity.
        what: &'static str,
        /// Time.
        t: f64,
    },
    /// An option or a problem dimension is not acceptable.
    #[error("invalid {option} = {value}: {reason}")]
    Invalid {
        /// The option.
        option: &'static str,
        /// Its value.
        value: String,
        /// Why.
        reason: &'static str,
    },
}

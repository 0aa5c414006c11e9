//! Semi-explicit DAEs whose multiplier input B is not Gᵀ (\[CHIN\] ch. 2), their stabilized
//! underlying ODEs, and the one-step methods the thesis integrates them with.
//!
//! A mechanical system is the special case B = −M⁻¹Gᵀ and lives in `mbsim-runtime`; here the
//! general form of Chin's §2.3–2.4 (digest §2.2 "Ch. 2 generalisations"):
//!
//! ```text
//! index 2:  x'  = f(t, x)     + B(t, x) y,      0 = g(t, x)
//! index 3:  x'' = f(t, x, x') + B(t, x, x') y,  0 = g(t, x)
//! ```
//!
//! with GB nonsingular (G = g_x). [`SemiExplicit`] states a problem; [`Field`] evaluates the
//! stabilized underlying vector field chosen by [`Index2`] or [`Index3`] (y eliminated, so the
//! result is an ODE in x, or in z = (x, x')); [`backward_euler`] and [`forward_euler`] step it
//! with constant h. [`chin`] holds the thesis' examples (Example 2.3 and its index-3 variant,
//! Example 3.1) as problems of this form.
//!
//! Code map: `problem.rs` the trait, `field.rs` the stabilized fields, `euler.rs` the two
//! methods (Newton with a difference Jacobian for the implicit one), `dense.rs` the small dense
//! solves, `chin.rs` the examples, `error.rs` [`DaeError`].

mod chin_examples;
mod dense;
mod error;
mod euler;
mod field;
mod problem;

/// The thesis' examples as [`SemiExplicit`] problems.
pub mod chin {
    pub use crate::chin_examples::*;
}

pub use error::DaeError;
pub use euler::{EulerOptions, ROUND_OFF_FLOOR, Trajectory, backward_euler, forward_euler};
pub use field::{Field, Index2, Index3, Stabilization};
pub use problem::SemiExplicit;

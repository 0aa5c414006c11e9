//! Constrained multibody models turned into fast, verified Rust simulation code — the one
//! dependency a user needs.
//!
//! Annotate a struct with [`model`] (the symbolic pipeline runs at compile time and implements
//! [`ConstrainedSystem`](runtime::ConstrainedSystem) for it), then integrate it with the
//! methods of [`runtime`]. `use mbsim::prelude::*;` brings the annotation, the kernel contract
//! and the integration entry points into scope.
//!
//! The expansion of [`model`] names every item through this crate's hidden path
//! `::mbsim::__private`, so a user's crate needs no other dependency. A crate that re-exports
//! `mbsim` under another path passes it with `#[model(crate = path::to::mbsim, …)]`.
#![warn(missing_docs)]

/// Semi-explicit DAEs that are not mechanical (x' = f + B y, 0 = g with B ≠ Gᵀ), Chin's
/// continuous stabilizations of ch. 2 and backward/forward Euler on them.
pub use mbsim_dae as dae;
pub use mbsim_macros::model;
pub use mbsim_runtime as runtime;
pub use nalgebra;

pub mod spatial;

/// The annotation, the kernel contract and the integration entry points.
pub mod prelude {
    pub use crate::model;
    pub use mbsim_runtime::{
        Baumgarte, CommonOptions, ConstrainedSystem, Energy, FixedStep, InitOptions, Integrator,
        Problem, Recorder, Rkstab, SampleKind, SimError, Solution, Stabilization, Stats,
        TangentSystem, initialize, integrate,
    };
    pub use mbsim_runtime::{Implicit, NewtonKind, NewtonOptions, Scheme, StepSize};
}

/// The workspace README's Rust examples, compiled and run as doc tests of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// Items the expansion of [`model`] refers to. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use mbsim_runtime::*;
}

//! Runtime for constrained multibody simulation.
//!
//! The crate depends only on nalgebra and thiserror. Generated code (from `codegen`, through the
//! proc-macro or `cargo xtask generate`) implements [`ConstrainedSystem`]; integrators consume it.
//! `runtime` never depends on `codegen`.
#![warn(missing_docs)]

pub mod system;

pub use system::{ConstrainedSystem, Dims, DynamicsOut, MatOut, ParameterError, Sparsity};

//! The symbolic pipeline: from a constrained multibody model to Rust kernels.
//!
//! Data flow: a [`Model`] (symbols and expressions in one [`Pool`]) →
//! [`kernels::derive`] (Φ_q, Φ_t, γ, L, A, b, M, Q) → [`cse`] (one schedule over all outputs of a
//! kernel) → [`emit`] (a syn tree: tokens for the macro, prettyplease text for files). No file
//! IO happens here; the proc-macro and `cargo xtask` are the front ends.
#![warn(missing_docs)]

pub mod bodies;
mod construct;
pub mod cse;
pub mod diagnose;
pub mod diff;
pub mod display;
pub mod emit;
mod emit_ast;
mod emit_expr;
mod emit_kernel;
mod emit_sparse;
pub mod error;
pub mod eval;
/// Models shared by the workspace's tests and benchmarks; not part of the public API (enabled by
/// the `fixtures` feature, which only the workspace's test crates turn on).
#[cfg(feature = "fixtures")]
#[doc(hidden)]
pub mod fixtures;
pub mod frontend;
pub mod kernels;
pub mod lagrange;
pub mod model;
pub mod number;
pub mod parse;
pub mod pool;
pub mod rust_syntax;
pub mod spatial_tree;
pub mod subst;
mod validate;

pub use error::ModelError;
pub use eval::Env;
pub use kernels::{ExprMatrix, Kernels};
pub use model::{Model, ModelBuilder};
pub use number::Number;
pub use pool::{CmpOp, ExprId, Func, Node, Pool, SymId, Symbol, SymbolKind};

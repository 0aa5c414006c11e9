//! Run-time robustness: what the runtime and the command set do when things go wrong.
//!
//! - [`faulty`]: a wrapper model whose chosen kernel returns NaN or ±∞ at a chosen call (the
//!   fault-injection tests in `tests/faults.rs` run it through every method);
//! - [`soak`]: the soak, random sweeps of the catalog's mechanisms with every method, every
//!   failure classified, the process's memory measured at the start and the end (the binary
//!   `mbsim-soak`, `src/main.rs`).

pub mod faulty;
pub mod soak;

pub use faulty::{Fault, Faulty};

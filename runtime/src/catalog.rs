//! Catalog entries: what a front end (the `mbsim` command, a user's own CLI) needs to know to run
//! a model without further code — its name, provenance, default parameters, an initial guess and
//! a default run.
//!
//! An entry sits next to its model (`pub const ENTRY: ModelEntry = …` in the model's file); a
//! crate of models lists its entries in one slice. The initial state is a guess that a front end
//! makes consistent with [`crate::initialize`], so parameter changes keep working.

use crate::system::ConstrainedSystem;

/// Initial guess (q0, v0) for a model with its current parameters.
pub type InitialFn = fn(&dyn ConstrainedSystem) -> (Vec<f64>, Vec<f64>);

/// One runnable model and its defaults.
#[derive(Clone, Copy)]
pub struct ModelEntry {
    /// Command-line name (kebab-case).
    pub name: &'static str,
    /// One-line description.
    pub title: &'static str,
    /// Where the model comes from (source and digest problem).
    pub source: &'static str,
    /// The model with its default (published or chosen) parameters.
    pub build: fn() -> Box<dyn ConstrainedSystem>,
    /// Initial guess.
    pub initial: InitialFn,
    /// Default end time.
    pub t_end: f64,
    /// Default output spacing.
    pub dt_out: f64,
    /// Default relative tolerance.
    pub rtol: f64,
    /// The committed expansion of the model (what `mbsim kernels` prints); empty if none.
    pub kernels: &'static str,
}

impl std::fmt::Debug for ModelEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The entry called `name` in `entries`.
pub fn find<'a>(entries: &'a [ModelEntry], name: &str) -> Option<&'a ModelEntry> {
    entries.iter().find(|m| m.name == name)
}

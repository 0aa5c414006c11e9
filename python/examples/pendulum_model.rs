//! A user's model file for `mbsim.build` (Python) — plain Rust with the façade's annotation.
//! Without its own `ENTRIES`, each model struct becomes an entry named in kebab case
//! (`CartesianPendulum` → `cartesian-pendulum`) whose parameters are its `Default`.
use mbsim::prelude::*;

/// A point mass on a rod of length `len`: one holonomic constraint.
#[model(
    coordinates: [x, y],
    mass: diag(m, m),
    force: [0.0, -m * g],
    holonomic: [rod = x * x + y * y - len * len],
)]
#[derive(Clone, Debug)]
pub struct CartesianPendulum {
    pub m: f64,
    pub g: f64,
    pub len: f64,
}

impl Default for CartesianPendulum {
    fn default() -> Self {
        CartesianPendulum {
            m: 1.0,
            g: 9.81,
            len: 1.0,
        }
    }
}

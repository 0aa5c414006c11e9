//! The Cartesian planar pendulum: a point mass `m` at (x, y) on a massless rod of length `len`
//! pinned at the origin, gravity `g` along −y. Φ = x² + y² − len², M = diag(m, m),
//! Q = (0, −m g). The smallest complete model: one holonomic constraint, a diagonal mass matrix.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Point mass on a rod, in Cartesian coordinates.
#[model(
    coordinates: [x, y],
    holonomic: [rod = x.powi(2) + y.powi(2) - len.powi(2)],
    tangents: true,
    mass: diag(m, m),
    force: [0.0, -m * g],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Pendulum {
    /// Mass of the bob [kg].
    pub m: f64,
    /// Rod length [m].
    pub len: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "pendulum",
    title: "Cartesian planar pendulum, point mass on a rod (n = 2, m = 1)",
    source: "the Cartesian planar pendulum (x, y), x^2 + y^2 = len^2",
    build: || {
        Box::new(Pendulum {
            m: 1.0,
            len: 1.0,
            g: 9.81,
        })
    },
    initial: |s| (vec![s.parameter("len").unwrap_or(0.0), 0.0], vec![0.0; 2]),
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/pendulum.rs"),
};

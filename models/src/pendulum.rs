//! The Cartesian planar pendulum: a point mass `m` at (x, y) on a massless rod of length `len`
//! pinned at the origin, gravity `g` along −y. Φ = x² + y² − len², M = diag(m, m),
//! Q = (0, −m g). The smallest complete model: one holonomic constraint, a diagonal mass matrix.

use macros::model;

/// Point mass on a rod, in Cartesian coordinates.
#[model(
    coordinates: [x, y],
    holonomic: [x.powi(2) + y.powi(2) - len.powi(2)],
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

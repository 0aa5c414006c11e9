//! Haug's pendulum body (digest P16, [`crate::HaugPendulum`]) with a duplicated constraint: the
//! pin is given twice, as the two coordinates of the revolute joint (`pin_x`, `pin_y`) and again
//! as the distance of the centre of mass from the pivot (`rod`, x1² + y1² − l² = 0). On the
//! constraint manifold ∇rod = 2 x1 ∇pin_x + 2 y1 ∇pin_y, so `rod` is redundant: the model has
//! n = 3, m = 3 but rank Φ_q = 2 and one degree of freedom. `mbsim check` reports `rod` as
//! redundant with that combination; the dynamics cannot run (singular KKT matrix at t0).
//! Data as [`crate::HaugPendulum`]: l = 1, m = 1, J' = 1/3, g = 9.81.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Haug's pendulum with its pin given twice.
#[model(
    coordinates: [x1, y1, phi1],
    holonomic: [
        pin_x = x1 - l * phi1.cos(),
        pin_y = y1 - l * phi1.sin(),
        rod = x1.powi(2) + y1.powi(2) - l.powi(2),
    ],
    mass: diag(m, m, j),
    force: [0.0, -m * g, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct RedundantPendulum {
    /// Distance pivot – centre of mass [m] (1).
    pub l: f64,
    /// Mass [kg] (1).
    pub m: f64,
    /// Moment of inertia about the centre of mass [kg m²] (1/3).
    pub j: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl RedundantPendulum {
    /// l = 1, m = 1, J' = 1/3, g = 9.81.
    pub fn chosen() -> Self {
        Self {
            l: 1.0,
            m: 1.0,
            j: 1.0 / 3.0,
            g: 9.81,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "redundant-pendulum",
    title: "Haug's pendulum with its pin duplicated as a distance constraint (rank 2 of 3)",
    source: "[HAUG] Example 7.2.1 (digest P16) + a redundant row, for `mbsim check`",
    build: || Box::new(RedundantPendulum::chosen()),
    initial: crate::HaugPendulum::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/redundant_pendulum.rs"),
};

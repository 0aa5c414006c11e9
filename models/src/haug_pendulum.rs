//! Haug's pendulum body (\[HAUG\] Examples 7.2.1 / 7.3.1, SEEDS-DIGEST P16): a planar body with
//! centre of mass (x1, y1) and angle φ1, pinned so that Φ = (x1 − cos φ1, y1 − sin φ1) (l = 1, as
//! in the example), M = diag(m, m, J'), Q = (0, −m g, 0). Reduction gives the ODE
//! (J' + m) φ̈1 = −m g cos φ1, which `models/tests/suite/models.rs` integrates against this DAE.
//!
//! Initial state (ambiguity 29: the print swaps s and r): φ1(0) = 3π/2, φ̇1(0) = 1 rad/s, hence
//! (x1, y1) = (0, −1) and (ẋ1, ẏ1) = (1, 0). m and J' are not given in the chapter: chosen
//! m = 1 kg, J' = 1/3 kg m² (a uniform bar of length 2 about its centre), g = 9.81 m/s².

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Haug's pendulum, absolute coordinates.
#[model(
    coordinates: [x1, y1, phi1],
    holonomic: [x1 - phi1.cos(), y1 - phi1.sin()],
    mass: diag(m, m, j),
    force: [0.0, -m * g, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct HaugPendulum {
    /// Mass [kg] (chosen 1).
    pub m: f64,
    /// Moment of inertia about the centre of mass J' [kg m²] (chosen 1/3).
    pub j: f64,
    /// Gravitational acceleration [m/s²] (chosen 9.81).
    pub g: f64,
}

impl HaugPendulum {
    /// The chosen data.
    pub fn chosen() -> Self {
        Self {
            m: 1.0,
            j: 1.0 / 3.0,
            g: 9.81,
        }
    }

    /// φ1(0) = 3π/2, φ̇1(0) = 1.
    pub fn initial(_: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let phi = 1.5 * std::f64::consts::PI;
        (
            vec![phi.cos(), phi.sin(), phi],
            vec![-phi.sin(), phi.cos(), 1.0],
        )
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "haug-pendulum",
    title: "Haug's pendulum body (x1, y1, phi1), l = 1 (n = 3, m = 2)",
    source: "[HAUG] Examples 7.2.1 / 7.3.1 (digest P16, ambiguity 29)",
    build: || Box::new(HaugPendulum::chosen()),
    initial: HaugPendulum::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/haug_pendulum.rs"),
};

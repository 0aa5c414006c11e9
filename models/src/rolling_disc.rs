//! The rolling disc of the thesis §4.6 (SEEDS-DIGEST P11): a disc of radius `r`, mass `m` and
//! principal central moments `A`, `C` rolling without slipping on a horizontal plane.
//! q = (x, y, phi, theta, psi): contact point, heading of the ground trace, tilt from the
//! vertical, spin. Rolling (4.29): ẋ + r cos φ ψ̇ = 0, ẏ + r sin φ ψ̇ = 0 (nonholonomic). The
//! kinetic energy is (4.30) plus the translation of the centre as printed in the thesis, the
//! potential V = m g r cos θ; M and Q are derived, nothing by hand.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// The rolling disc, nonholonomic (k = 2).
#[model(
    tangents: true,
    coordinates: [x, y, phi, theta, psi],
    nonholonomic: [
        x_dot + r * phi.cos() * psi_dot,
        y_dot + r * phi.sin() * psi_dot,
    ],
    kinetic: m / 2.0 * (x_dot.powi(2) + y_dot.powi(2) + r.powi(2) * theta_dot.powi(2)
            + r.powi(2) * phi_dot.powi(2) * theta.sin().powi(2))
        - m * r * (theta_dot * theta.cos() * (x_dot * phi.sin() - y_dot * phi.cos())
            + phi_dot * theta.sin() * (x_dot * phi.cos() + y_dot * phi.sin()))
        + A / 2.0 * (theta_dot.powi(2) + phi_dot.powi(2) * theta.cos().powi(2))
        + C / 2.0 * (psi_dot + phi_dot * theta.sin()).powi(2),
    potential: m * g * r * theta.cos(),
)]
#[derive(Clone, Debug, PartialEq)]
#[allow(non_snake_case)] // A and C are the thesis' names for the moments of inertia
pub struct RollingDisc {
    /// Mass [kg].
    pub m: f64,
    /// Radius [m].
    pub r: f64,
    /// Principal central moment of inertia about a diameter [kg m²].
    pub A: f64,
    /// Principal central moment of inertia about the axis [kg m²].
    pub C: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "rolling-disc",
    title: "rolling disc, nonholonomic (n = 5, k = 2)",
    source: "[CHIN] §4.6 (digest P11, ambiguity 24)",
    build: || {
        Box::new(RollingDisc {
            m: 1.0,
            r: 1.0,
            A: 0.25,
            C: 0.5,
            g: 9.81,
        })
    },
    initial: |_| {
        let half_pi = std::f64::consts::FRAC_PI_2;
        (
            vec![0.0, 0.0, half_pi, 0.0, 0.0],
            vec![0.0, 0.1, 0.1, -0.1, -0.1],
        )
    },
    t_end: 2.0,
    dt_out: 0.005,
    rtol: 1e-3,
    kernels: include_str!("generated/rolling_disc.rs"),
};

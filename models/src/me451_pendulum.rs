//! The ME451 simple pendulum with a rotational spring-damper-actuator (RSDA) in its revolute
//! joint (SEEDS-DIGEST P15): a rod of mass `m` = 20 kg and length `len` = 2 m pinned at the
//! origin, a tip force F = `f0` sin(2π t) with f0 = 30 N, RSDA stiffness `k` = 45 N m/rad,
//! free angle φ0 = 3π/2, damping `c` = 10 N m s/rad (printed "N/s"), hanging at rest at t = 0.
//!
//! Choices (ambiguity 36; the source gives no coordinates, inertia, force direction or g):
//! q = (x, y, φ) of the centre of mass, body x-axis from the pivot to the tip, so hanging is
//! φ = 3π/2 and Φ = (x − (L/2) cos φ, y − (L/2) sin φ); L is the full length (centre of mass at
//! L/2); a uniform slender rod, J = m L²/12 about the centre of mass; F acts on the tip along the
//! global x axis (generalized force (F, 0, −(L/2) sin φ · F) at the centre-of-mass coordinates
//! plus the tip lever); RSDA torque −k (φ − φ0) − c φ̇; g = 9.81 m/s² along −y.

// The macro constant-folds `PI` into its f64 literal, which clippy mistakes for a hand-typed
// approximation of π (reported to the macro owner); the value is exactly `f64::consts::PI`.
#![allow(clippy::approx_constant)]

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// ME451 pendulum with an RSDA.
#[model(
    tangents: true,
    coordinates: [x, y, phi],
    let f = f0 * (2.0 * PI * t).sin(),
    holonomic: [x - len / 2.0 * phi.cos(), y - len / 2.0 * phi.sin()],
    mass: diag(m, m, m * len.powi(2) / 12.0),
    force: [
        f,
        -m * g,
        -len / 2.0 * phi.sin() * f - k * (phi - phi0) - c * phi_dot,
    ],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Me451Pendulum {
    /// Mass [kg] (20).
    pub m: f64,
    /// Full rod length [m] (2, ambiguity 36).
    pub len: f64,
    /// Amplitude of the tip force [N] (30).
    pub f0: f64,
    /// RSDA stiffness [N m/rad] (45).
    pub k: f64,
    /// RSDA free angle [rad] (3π/2).
    pub phi0: f64,
    /// RSDA damping [N m s/rad] (10).
    pub c: f64,
    /// Gravitational acceleration [m/s²] (9.81, chosen).
    pub g: f64,
}

impl Me451Pendulum {
    /// The published data with the choices of the module docs.
    pub fn published() -> Self {
        Self {
            m: 20.0,
            len: 2.0,
            f0: 30.0,
            k: 45.0,
            phi0: 1.5 * std::f64::consts::PI,
            c: 10.0,
            g: 9.81,
        }
    }

    /// Hanging at rest: φ = 3π/2, centre of mass at (0, −L/2).
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let len = sys.parameter("len").unwrap_or(2.0);
        (
            vec![0.0, -len / 2.0, 1.5 * std::f64::consts::PI],
            vec![0.0; 3],
        )
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "me451-pendulum",
    title: "ME451 pendulum with a rotational spring-damper-actuator (n = 3, m = 2)",
    source: "[ME451] (digest P15, ambiguity 36)",
    build: || Box::new(Me451Pendulum::published()),
    initial: Me451Pendulum::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/me451_pendulum.rs"),
};

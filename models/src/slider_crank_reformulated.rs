//! The singular slider-crank reformulated (\[CHIN\] §4.5 Remark 4.4, eq. 4.28, Fig. 4.33,
//! SEEDS-DIGEST P10): because crank and rod have equal length, the branch θ2 = π − θ1 is the
//! linear constraint θ1 + θ2 − π = 0 with the constant G = (1, 1): no singularity, and PStab is
//! an exact projection. Same Lagrangian and data as [`crate::SingularSliderCrank`].

// The macro constant-folds `PI` into its f64 literal, which clippy mistakes for a hand-typed
// approximation of π (reported to the macro owner); the value is exactly `f64::consts::PI`.
#![allow(clippy::approx_constant)]

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Slider-crank with the linear constraint (4.28).
#[model(
    coordinates: [theta1, theta2],
    holonomic: [theta1 + theta2 - PI],
    kinetic: l.powi(2) / 2.0 * ((m1 + m2) * theta1_dot.powi(2) + m2 * theta2_dot.powi(2)
        + 2.0 * m2 * (theta2 - theta1).cos() * theta1_dot * theta2_dot),
    potential: (m1 + m2) * g * l * theta1.cos() + m2 * g * l * theta2.cos(),
    draw: {
        points: [
            O = (0.0, 0.0),
            A = (l * theta1.sin(), l * theta1.cos()),
            B = (l * (theta1.sin() + theta2.sin()), l * (theta1.cos() + theta2.cos())),
        ],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SliderCrankReformulated {
    /// Mass at the crank pin [kg] (1).
    pub m1: f64,
    /// Mass of the slider [kg] (1).
    pub m2: f64,
    /// Length of crank and rod [m] (1).
    pub l: f64,
    /// Gravitational acceleration [m/s²] (9.8).
    pub g: f64,
}

impl SliderCrankReformulated {
    /// m1 = m2 = l = 1, g = 9.8.
    pub fn published() -> Self {
        Self {
            m1: 1.0,
            m2: 1.0,
            l: 1.0,
            g: 9.8,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "slider-crank-reformulated",
    title: "singular slider-crank reformulated: theta1 + theta2 = pi (n = 2, m = 1)",
    source: "[CHIN] §4.5 Remark 4.4 eq. (4.28) (digest P10)",
    build: || Box::new(SliderCrankReformulated::published()),
    initial: crate::SingularSliderCrank::initial,
    t_end: 20.0,
    dt_out: 0.02,
    rtol: 1e-10,
    kernels: include_str!("generated/slider_crank_reformulated.rs"),
};

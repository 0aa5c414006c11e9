//! Wu's crank-slider (\[WU\] Table 3, Figs. 5–7, SEEDS-DIGEST P1): a massless planar crank of
//! radius `r` and inertia `j1` (angle θ), a connecting rod with centre of mass (x, y), angle φ,
//! mass `m` and inertia `j2`; the crank pin is `l1` from the rod's centre of mass, the slider end
//! `l − l1` on the other side, held on the line y_B = 0.
//!
//! q = (θ, φ, x, y) (ambiguity 1: the printed dot on θ is an OCR artefact), M = diag(J1, J2, m, m),
//! F = (0, 0, 0, −m g), Φ1 = r cos θ − (x − l1 cos φ), Φ2 = r sin θ − (y − l1 sin φ),
//! Φ3 = (l − l1) sin φ + y. Data: J1 = 0.045, J2 = 33/4800, m = 1, r = 0.3, l = 0.5, l1 = 0.3;
//! g = 9.81 (ambiguity 3, not printed; reproduces the table).
//!
//! Initial state (ambiguity 4): the exact consistent values φ0 = −π/6, θ0 = asin(5/6),
//! x0 = 0.3 √11 / 6 + 0.15 √3, y0 = 0.1, at rest (the printed 4-digit values violate Φ1 by
//! 4.1e-5). Wu's time span is not printed (ambiguity 2); T = 10 s reproduces Table 3.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Wu's crank-slider.
#[model(
    coordinates: [theta, phi, x, y],
    holonomic: [
        r * theta.cos() - (x - l1 * phi.cos()),
        r * theta.sin() - (y - l1 * phi.sin()),
        (l - l1) * phi.sin() + y,
    ],
    mass: diag(j1, j2, m, m),
    force: [0.0, 0.0, 0.0, -m * g],
    draw: {
        points: [
            O = (0.0, 0.0),
            A = (r * theta.cos(), r * theta.sin()),
            G = (x, y),
            B = (x + (l - l1) * phi.cos(), y + (l - l1) * phi.sin()),
        ],
        segments: [(O, A), (A, G), (G, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct CrankSliderWu {
    /// Crank inertia [kg m²] (0.045).
    pub j1: f64,
    /// Rod inertia [kg m²] (33/4800).
    pub j2: f64,
    /// Rod mass [kg] (1).
    pub m: f64,
    /// Crank radius [m] (0.3).
    pub r: f64,
    /// Rod length [m] (0.5).
    pub l: f64,
    /// Distance from the rod's centre of mass to the crank pin [m] (0.3).
    pub l1: f64,
    /// Gravitational acceleration [m/s²] (9.81, ambiguity 3).
    pub g: f64,
}

impl CrankSliderWu {
    /// The published data with g = 9.81.
    pub fn published() -> Self {
        Self {
            j1: 0.045,
            j2: 33.0 / 4800.0,
            m: 1.0,
            r: 0.3,
            l: 0.5,
            l1: 0.3,
            g: 9.81,
        }
    }

    /// The exact consistent start (ambiguity 4), at rest.
    pub fn initial(_: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let x0 = 0.3 * 11f64.sqrt() / 6.0 + 0.15 * 3f64.sqrt();
        let q = vec![(5.0f64 / 6.0).asin(), -std::f64::consts::PI / 6.0, x0, 0.1];
        (q, vec![0.0; 4])
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "crank-slider-wu",
    title: "Wu's crank-slider with a massless crank (n = 4, m = 3)",
    source: "[WU] Table 3 (digest P1, ambiguities 1-5)",
    build: || Box::new(CrankSliderWu::published()),
    initial: CrankSliderWu::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/crank_slider_wu.rs"),
};

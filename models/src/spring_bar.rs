//! A spring-loaded bar for equilibrium analysis (\[HAUG\] §7.5, digest §2.7): a uniform bar of
//! mass `m` and length `l`, pinned at the origin, in Haug's absolute coordinates (centre of mass
//! (x, y), angle φ from the x axis; rows `pin_x`, `pin_y`). Loads: gravity, a zero-free-length
//! spring of stiffness `k` from the tip to the anchor A = (0, a) above the pivot
//! (V = k/2 |r_tip − A|², (7.5.11) with l0 = 0), and a constant horizontal force `f` at the tip
//! (V = −f x_tip, (7.5.7)).
//!
//! Closed form: on Φ = 0, x_tip = l cos φ, y_tip = l sin φ, y = l/2 sin φ, so
//! V(φ) = C sin φ − f l cos φ + const with C = m g l/2 − k a l. V'(φ) = C cos φ + f l sin φ = 0
//! gives the equilibria (cos φ, sin φ) = ±(f l, −C)/√(C² + f² l²), the + sign the minimum
//! (V'' = √(C² + f² l²) > 0, stable) and the − sign the maximum (unstable). With m = 1, l = 1,
//! g = 9.81, k = 2, a = 1, f = 3: C = 2.905, φ* = atan2(−2.905, 3) ≈ −0.7693 rad.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Spring-loaded bar pinned at the origin.
#[model(
    coordinates: [x, y, phi],
    let xt = x + l / 2.0 * phi.cos(),
    let yt = y + l / 2.0 * phi.sin(),
    holonomic: [
        pin_x = x - l / 2.0 * phi.cos(),
        pin_y = y - l / 2.0 * phi.sin(),
    ],
    tangents: true,
    kinetic: m / 2.0 * (x_dot.powi(2) + y_dot.powi(2)) + m * l.powi(2) / 24.0 * phi_dot.powi(2),
    potential: m * g * y + k / 2.0 * (xt.powi(2) + (yt - a).powi(2)) - f * xt,
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SpringBar {
    /// Mass [kg] (1).
    pub m: f64,
    /// Length [m] (1).
    pub l: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
    /// Spring stiffness [N/m] (2).
    pub k: f64,
    /// Height of the spring's anchor above the pivot [m] (1).
    pub a: f64,
    /// Horizontal force at the tip [N] (3).
    pub f: f64,
}

impl SpringBar {
    /// The chosen data.
    pub fn chosen() -> Self {
        Self {
            m: 1.0,
            l: 1.0,
            g: 9.81,
            k: 2.0,
            a: 1.0,
            f: 3.0,
        }
    }

    /// The stable equilibrium angle from the closed form (module docs).
    pub fn stable_angle(&self) -> f64 {
        let c = self.m * self.g * self.l / 2.0 - self.k * self.a * self.l;
        (-c).atan2(self.f * self.l)
    }

    /// The bar horizontal (φ = 0), at rest.
    pub fn initial(s: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let l = s.parameter("l").unwrap_or(1.0);
        (vec![l / 2.0, 0.0, 0.0], vec![0.0; 3])
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "spring-bar",
    title: "spring-loaded bar pinned at the origin, closed-form equilibrium (n = 3, m = 2)",
    source: "[HAUG] §7.5 potential energies (7.5.7), (7.5.11); our example",
    build: || Box::new(SpringBar::chosen()),
    initial: SpringBar::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/spring_bar.rs"),
};

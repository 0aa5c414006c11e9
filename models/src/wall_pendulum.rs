//! The Cartesian pendulum (point mass `m` on a rod `len`, pinned at the origin) swinging
//! against a wall at x = 0: contact `x ≥ 0` with restitution `e`. Released horizontally at
//! (len, 0), it strikes the wall at the bottom after a quarter period K(k)/ω₀ (k = sin(θ₀/2),
//! θ₀ = π/2, ω₀ = √(g/len)); each rebound leaves with e times the impact speed and returns
//! after a half period 2K(k_j)/ω₀ of the new amplitude. The impulse is solved with the rod
//! constraint, which at the bottom is orthogonal to the wall's row.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A pendulum in Cartesian coordinates striking a wall.
#[model(
    coordinates: [x, y],
    holonomic: [rod = x.powi(2) + y.powi(2) - len.powi(2)],
    mass: diag(m, m),
    force: [0.0, -m * g],
    events: [wall = x => impact(e)],
    draw: { points: [pin = (0.0, 0.0), bob = (x, y), wall_top = (0.0, 0.2), wall_bottom = (0.0, -1.2 * len)], segments: [(pin, bob), (wall_top, wall_bottom)] },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct WallPendulum {
    /// Mass of the bob [kg].
    pub m: f64,
    /// Rod length [m].
    pub len: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
    /// Coefficient of restitution.
    pub e: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "wall-pendulum",
    title: "Cartesian pendulum striking a wall at the bottom, restitution e = 0.8 (n = 2, m = 1, events)",
    source: "closed form: impact times from the complete elliptic integral K(sin(theta/2))",
    build: || {
        Box::new(WallPendulum {
            m: 1.0,
            len: 1.0,
            g: 9.81,
            e: 0.8,
        })
    },
    initial: |s| (vec![s.parameter("len").unwrap_or(0.0), 0.0], vec![0.0; 2]),
    t_end: 5.0,
    dt_out: 0.001,
    rtol: 1e-10,
    kernels: include_str!("generated/wall_pendulum.rs"),
};

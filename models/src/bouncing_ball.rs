//! A ball bouncing on the floor: height `y` of its centre, floor contact `y − r ≥ 0` with
//! restitution `e`, gravity `g`. In closed form (dropped from rest at height h₀ + r): the first
//! impact at t₁ = √(2h₀/g) with speed v₁ = g t₁, every later one with speed e times the one
//! before after a flight of 2 e v/g, so the impacts accumulate at t_∞ = t₁ + 2 e v₁/(g(1 − e)),
//! where the ball comes to rest on the floor and stays there.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A point mass above a floor, with impacts.
#[model(
    coordinates: [y],
    mass: diag(m),
    force: [-m * g],
    events: [floor = y - r => impact(e)],
    draw: { points: [ball = (0.0, y), left = (-0.5, 0.0), right = (0.5, 0.0)], segments: [(left, right)] },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct BouncingBall {
    /// Mass [kg].
    pub m: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
    /// Radius [m].
    pub r: f64,
    /// Coefficient of restitution.
    pub e: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "bouncing-ball",
    title: "ball bouncing on a floor, impacts with restitution e = 0.8 until it rests (n = 1, events)",
    source: "closed form: impacts every 2 e v / g, accumulating at t1 + 2 e v1 / (g (1 - e))",
    build: || {
        Box::new(BouncingBall {
            m: 1.0,
            g: 9.81,
            r: 0.1,
            e: 0.8,
        })
    },
    initial: |s| (vec![1.0 + s.parameter("r").unwrap_or(0.0)], vec![0.0]),
    t_end: 5.0,
    dt_out: 0.001,
    rtol: 1e-10,
    kernels: include_str!("generated/bouncing_ball.rs"),
};

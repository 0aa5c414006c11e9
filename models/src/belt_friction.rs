//! A block of mass `m` tied to a wall by a spring `k` and resting on a belt that moves at
//! `v_belt`, with Coulomb friction (static `mu_s`, kinetic `mu_k`, normal force m g): the
//! classic stick–slip oscillator. Sticking, the block rides the belt until the spring force
//! k x reaches μ_s m g; slipping, it oscillates about x_k = μ_k m g / k at ω = √(k/m) until its
//! velocity meets the belt's again. The cycle in closed form: a slip arc
//! x − x_k = (x_s − x_k) cos ωτ + (v_belt/ω) sin ωτ lasting ωτ = 2(π − atan(ω (x_s − x_k)/v_belt)),
//! then a stick at the belt's speed back to x_s (`models/tests/suite/events.rs`).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A spring-tied block on a moving belt with stick–slip friction.
#[model(
    coordinates: [x],
    mass: diag(m),
    force: [-k * x],
    events: [belt = x_dot - v_belt => friction(mu_s, mu_k, m * g)],
    draw: { points: [wall = (-1.0, 0.0), block = (x, 0.0)], segments: [(wall, block)] },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct BeltFriction {
    /// Mass [kg].
    pub m: f64,
    /// Spring stiffness [N/m].
    pub k: f64,
    /// Belt speed [m/s].
    pub v_belt: f64,
    /// Static friction coefficient.
    pub mu_s: f64,
    /// Kinetic friction coefficient.
    pub mu_k: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "belt-friction",
    title: "spring-tied block on a moving belt, Coulomb stick-slip (n = 1, events)",
    source: "closed form: the stick-slip limit cycle of the block on a belt",
    build: || {
        Box::new(BeltFriction {
            m: 1.0,
            k: 10.0,
            v_belt: 0.2,
            mu_s: 0.4,
            mu_k: 0.3,
            g: 9.81,
        })
    },
    initial: |_| (vec![0.0], vec![0.2]),
    t_end: 10.0,
    dt_out: 0.001,
    rtol: 1e-10,
    kernels: include_str!("generated/belt_friction.rs"),
};

//! A block of mass `m` resting on a table, pulled up by a force growing as `rate · t`: it
//! stays in contact (y = 0 kept as a constraint row, the contact force compressive) until
//! t* = m g / rate, where the contact force would become tensile; then it lifts off with
//! y(t) = rate (t − t*)³ / (6 m).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A block on a table lifted by a growing force.
#[model(
    coordinates: [y],
    mass: diag(m),
    force: [-m * g + rate * t],
    events: [table = y => impact(0.0)],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct LiftOff {
    /// Mass [kg].
    pub m: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
    /// Growth of the lifting force [N/s].
    pub rate: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "lift-off",
    title: "block on a table lifted by a growing force: contact until t* = m g / rate (n = 1, events)",
    source: "closed form: lift-off at t* = m g / rate, then y = rate (t - t*)^3 / (6 m)",
    build: || {
        Box::new(LiftOff {
            m: 1.0,
            g: 9.81,
            rate: 9.81,
        })
    },
    initial: |_| (vec![0.0], vec![0.0]),
    t_end: 2.0,
    dt_out: 0.001,
    rtol: 1e-10,
    kernels: include_str!("generated/lift_off.rs"),
};

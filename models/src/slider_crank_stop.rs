//! A slider-crank driven by a constant torque whose slider strikes a stop: crank angle `theta`
//! (inertia `j` about the pin, length `r`), slider position `x` (mass `m`) on a massless rod of
//! length `l`, the closure `x = r cos θ + √(l² − r² sin² θ)` as a holonomic row, and the stop
//! `x ≤ x_stop` as a contact with restitution `e`. The impact is solved with the closure row:
//! the slider rebounds with −e times its approach speed, the crank follows through the
//! constraint, and the kinetic energy ½ (j + m x_θ²) θ̇² drops by exactly e².

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A torque-driven slider-crank with a joint stop on the slider.
#[model(
    coordinates: [theta, x],
    holonomic: [closure = x - r * theta.cos() - (l.powi(2) - (r * theta.sin()).powi(2)).sqrt()],
    mass: diag(j, m),
    force: [torque, 0.0],
    events: [stop = x_stop - x => impact(e)],
    draw: {
        points: [pin = (0.0, 0.0), crank = (r * theta.cos(), r * theta.sin()), slider = (x, 0.0), stop = (x_stop, 0.0)],
        segments: [(pin, crank), (crank, slider)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SliderCrankStop {
    /// Crank inertia about the pin [kg m²].
    pub j: f64,
    /// Crank length [m].
    pub r: f64,
    /// Rod length [m].
    pub l: f64,
    /// Slider mass [kg].
    pub m: f64,
    /// Driving torque [N m].
    pub torque: f64,
    /// Position of the stop [m].
    pub x_stop: f64,
    /// Coefficient of restitution.
    pub e: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "slider-crank-stop",
    title: "torque-driven slider-crank whose slider strikes a stop, restitution e = 0.5 (n = 2, m = 1, events)",
    source: "a joint stop solved with the closure row: rebound -e times the approach, energy ratio e^2",
    build: || {
        Box::new(SliderCrankStop {
            j: 0.01,
            r: 0.1,
            l: 0.3,
            m: 0.5,
            torque: 0.2,
            x_stop: 0.35,
            e: 0.5,
        })
    },
    initial: |s| {
        let (r, l) = (
            s.parameter("r").unwrap_or(0.1),
            s.parameter("l").unwrap_or(0.3),
        );
        let theta: f64 = 1.5;
        let x = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
        (vec![theta, x], vec![0.0, 0.0])
    },
    t_end: 3.0,
    dt_out: 0.001,
    rtol: 1e-10,
    kernels: include_str!("generated/slider_crank_stop.rs"),
};

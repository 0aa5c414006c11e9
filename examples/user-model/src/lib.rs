//! A user's own model, outside the built-in catalog: a double pendulum in Cartesian
//! coordinates (two rods as holonomic constraints, from its Lagrangian, so it also states its
//! energy), with the drawing that `animate` shows. [`ENTRIES`] is what the binary hands to
//! the command set (`src/main.rs`).

use mbsim::prelude::*;
use mbsim::runtime::catalog::ModelEntry;

/// Two point masses on massless rods of lengths `l1` and `l2`, hanging from the origin.
#[model(
    coordinates: [x1, y1, x2, y2],
    const g = 9.81,
    holonomic: [
        rod1 = x1.powi(2) + y1.powi(2) - l1.powi(2),
        rod2 = (x2 - x1).powi(2) + (y2 - y1).powi(2) - l2.powi(2),
    ],
    kinetic: m1 / 2.0 * (x1_dot.powi(2) + y1_dot.powi(2))
        + m2 / 2.0 * (x2_dot.powi(2) + y2_dot.powi(2)),
    potential: g * (m1 * y1 + m2 * y2),
    draw: {
        points: [O = (0.0, 0.0), A = (x1, y1), B = (x2, y2)],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct DoublePendulum {
    /// Mass of the first bob (kg).
    pub m1: f64,
    /// Mass of the second bob (kg).
    pub m2: f64,
    /// Length of the first rod (m).
    pub l1: f64,
    /// Length of the second rod (m).
    pub l2: f64,
}

/// The initial guess: the rods at 1.2 and 0.6 rad from the downward vertical, at rest, for
/// the current rod lengths (the command makes it consistent).
fn initial(sys: &dyn ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
    let l1 = sys.parameter("l1").unwrap_or(1.0);
    let l2 = sys.parameter("l2").unwrap_or(1.0);
    let (a, b) = (1.2_f64, 0.6_f64);
    let (x1, y1) = (l1 * a.sin(), -l1 * a.cos());
    let q = vec![x1, y1, x1 + l2 * b.sin(), y1 - l2 * b.cos()];
    (q, vec![0.0; 4])
}

/// The models of this crate, as the command set sees them.
pub static ENTRIES: [ModelEntry; 1] = [ModelEntry {
    name: "double-pendulum",
    title: "Double pendulum in Cartesian coordinates (two rods)",
    source: "the example user crate",
    build: || {
        Box::new(DoublePendulum {
            m1: 1.0,
            m2: 1.0,
            l1: 1.0,
            l2: 0.7,
        })
    },
    initial,
    t_end: 5.0,
    dt_out: 0.02,
    rtol: 1e-8,
    kernels: "",
}];

//! The damped four-bar chain in body coordinates with tangents (the model of
//! `tangent_nonzeros.rs`, shared with the `tangents` benchmark of this crate, which includes
//! this file by path): six windows, 39 coordinates, 38 joint rows (KKT order 77, above the
//! sparse forms' 40), a damper on every body's angle (∂Q/∂v) and a spring from the first
//! crank's centre to the last coupler's (a coupling of Q outside the structural guess of the
//! tangent pattern).

use mbsim::model;
use mbsim_runtime::{ConstrainedSystem, InitOptions, initialize};

#[model(
    tangents: true,
    const N = 6,
    const B = 13,
    coordinates: [x[0..B], y[0..B], phi[0..B]],
    let ax[b in 0..B] = x[b] - len / 2.0 * phi[b].cos(),
    let ay[b in 0..B] = y[b] - len / 2.0 * phi[b].sin(),
    let bx[b in 0..B] = x[b] + len / 2.0 * phi[b].cos(),
    let by[b in 0..B] = y[b] + len / 2.0 * phi[b].sin(),
    let spring = k * (x[0] - x[B - 1]),
    holonomic: [
        for i in 0..=N { [pivot_x = ax[i] - i * len, pivot_y = ay[i]] },
        for i in 0..N {
            [
                left_x = ax[N + 1 + i] - bx[i],
                left_y = ay[N + 1 + i] - by[i],
                right_x = bx[N + 1 + i] - bx[i + 1],
                right_y = by[N + 1 + i] - by[i + 1],
            ]
        },
    ],
    mass: diag(
        for b in 0..B { m },
        for b in 0..B { m },
        for b in 0..B { m * len.powi(2) / 12.0 },
    ),
    force: [
        -spring,
        for b in 1..B - 1 { 0.0 },
        spring,
        for b in 0..B { -m * g },
        for b in 0..B { -c * phi_dot[b] },
    ],
)]
pub struct DampedChain {
    len: f64,
    m: f64,
    g: f64,
    c: f64,
    k: f64,
}

pub fn chain() -> DampedChain {
    DampedChain {
        len: 1.0,
        m: 1.0,
        g: 9.81,
        c: 0.3,
        k: 2.0,
    }
}

/// Every crank at `angle`, every coupler horizontal: a consistent position of the chain.
pub fn position(angle: f64) -> Vec<f64> {
    let (n, bodies) = (6, 13);
    let mut q = vec![0.0; 3 * bodies];
    for b in 0..bodies {
        let (x, y, phi) = if b <= n {
            let i = b as f64;
            (i + 0.5 * angle.cos(), 0.5 * angle.sin(), angle)
        } else {
            let i = (b - n - 1) as f64;
            (i + 0.5 + angle.cos(), angle.sin(), 0.0)
        };
        (q[b], q[bodies + b], q[2 * bodies + b]) = (x, y, phi);
    }
    q
}

/// The consistent start of the runs: every crank at 1.2 rad, at rest.
pub fn start(sys: &DampedChain) -> (Vec<f64>, Vec<f64>) {
    let q0 = position(1.2);
    let v0 = vec![0.0; q0.len()];
    let start = initialize(sys, 0.0, &q0, &v0, &InitOptions::default()).expect("initialize");
    (start.q, start.v)
}

/// A point off the start for the tangent kernels: positions, velocities, accelerations w and
/// multipliers of unit size.
pub struct TangentPoint {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub w: Vec<f64>,
    pub lambda: Vec<f64>,
}

/// The [`TangentPoint`] of the tangent tests and benchmark.
pub fn tangent_point(sys: &DampedChain) -> TangentPoint {
    let (n, rows) = (sys.dims().n, sys.dims().constraint_rows());
    TangentPoint {
        q: position(0.7).iter().map(|x| x + 0.01).collect(),
        v: (0..n).map(|i| (i as f64 * 0.37).sin()).collect(),
        w: (0..n).map(|i| (i as f64 * 0.91).cos()).collect(),
        lambda: (0..rows).map(|i| 1.0 + (i as f64 * 0.53).sin()).collect(),
    }
}

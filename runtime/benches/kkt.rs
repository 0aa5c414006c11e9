//! The KKT solve, dense against banded, on the N-window four-bar chain in body coordinates
//! (3(2N + 1) coordinates, 6N + 2 joint rows; `tests/suite/common/models/four_bar_bodies.rs`), and a
//! 20 s run of the 40-window chain on the automatically chosen path
//! (`cargo bench -p mbsim-runtime --bench kkt`). Issue 13's goals: the banded solve ≥ 20× faster
//! than the dense one at N = 40, and the 20 s run under 1 s.
//!
//! Times are the median of repeated wall-clock measurements on this machine (the solve) and the
//! best of three runs (the run); the ratio is taken within the same process and run.

#[path = "../tests/suite/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::Sys;
use common::models::FourBarBodies;
use mbsim_runtime::{
    ConstrainedSystem, DynamicsOut, KktSolver, KktWorkspace, Problem, Rkstab, Stabilization,
    accelerations_into, integrate,
};
use nalgebra::DMatrix;

/// Median wall time of `reps` calls of `f`.
fn median(reps: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[reps / 2]
}

/// One KKT solve (kernels included) of the chain with `windows` windows under `solver`.
fn solve_time(windows: usize, solver: KktSolver, reps: usize) -> Duration {
    let sys = Sys(FourBarBodies::unit(windows));
    let d = sys.dims();
    let (q, v) = sys.0.state_at(-1.1, 0.7);
    let mut ws = KktWorkspace::with_solver(d, solver);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.m]);
    let mut solve = || {
        accelerations_into(
            &sys,
            0.0,
            &q,
            &v,
            None,
            &mut ws,
            0.0,
            &mut vdot,
            &mut lambda,
        )
        .expect("regular")
    };
    solve();
    median(reps, solve)
}

/// One evaluation of the fused kernel (M, Q, G, γ into dense storage) alone.
fn kernel_time(windows: usize, reps: usize) -> Duration {
    let sys = Sys(FourBarBodies::unit(windows));
    let d = sys.dims();
    let (q, v) = sys.0.state_at(-1.1, 0.7);
    let mut mass = DMatrix::zeros(d.n, d.n);
    let mut jac = DMatrix::zeros(d.m, d.n);
    let (mut force, mut gamma) = (vec![0.0; d.n], vec![0.0; d.m]);
    median(reps, || {
        let out = DynamicsOut {
            mass: mass.as_view_mut(),
            force: &mut force,
            jacobian: jac.as_view_mut(),
            gamma: &mut gamma,
        };
        sys.dynamics_into(0.0, &q, &v, out);
    })
}

fn main() {
    println!("KKT solve of the four-bar chain in body coordinates: median times of");
    println!("`accelerations_into` (kernels + assembly + factorization + solve) and, after");
    println!("subtracting the kernels' own time (same for both paths), of the linear solve alone");
    println!(
        "{:>8} {:>6} {:>11} {:>11} {:>7} {:>11} {:>11} {:>11} {:>7}",
        "windows",
        "order",
        "dense",
        "banded",
        "ratio",
        "kernels",
        "dense solve",
        "band solve",
        "ratio"
    );
    for windows in [5, 10, 20, 40] {
        let order = 3 * (2 * windows + 1) + 6 * windows + 2;
        let reps = if windows >= 20 { 31 } else { 201 };
        let dense = solve_time(windows, KktSolver::Dense, reps);
        let banded = solve_time(windows, KktSolver::Banded, 10 * reps);
        let kernels = kernel_time(windows, 10 * reps);
        let ratio = dense.as_secs_f64() / banded.as_secs_f64();
        let dense_solve = dense.saturating_sub(kernels);
        let banded_solve = banded.saturating_sub(kernels);
        let solve_ratio = dense_solve.as_secs_f64() / banded_solve.as_secs_f64();
        println!(
            "{windows:>8} {order:>6} {dense:>11.2?} {banded:>11.2?} {ratio:>7.1} {kernels:>11.2?} \
             {dense_solve:>11.2?} {banded_solve:>11.2?} {solve_ratio:>7.1}"
        );
    }
    let sys = Sys(FourBarBodies::unit(40));
    let (q0, v0) = sys.0.state_at(std::f64::consts::FRAC_PI_2, 1.0);
    let times: Vec<f64> = (1..=200).map(|i| 0.1 * f64::from(i)).collect();
    for rtol in [1e-4, 1e-6] {
        let method = Rkstab::new(rtol).with_stabilization(Stabilization::PStab);
        let problem = Problem::new(0.0, 20.0, &q0, &v0).with_times(&times);
        let mut best = Duration::MAX;
        let mut outcome = String::new();
        for _ in 0..3 {
            let start = Instant::now();
            let result = integrate(&sys, &method, &problem);
            best = best.min(start.elapsed());
            outcome = match result {
                Ok((rec, sol)) => format!(
                    "{} steps, NFCN {}, max |Φ| {:.1e}, crank 0 at 20 s: {:.6} rad",
                    sol.stats.nstep,
                    sol.stats.nfcn,
                    sol.stats.max_drift.position,
                    rec.q.last().map_or(f64::NAN, |q| q[2])
                ),
                Err(e) => format!("failed: {e}"),
            };
        }
        println!("20 s run, RKSTAB/PStab rtol {rtol:.0e}, auto layout: {best:.2?} ({outcome})");
    }
}

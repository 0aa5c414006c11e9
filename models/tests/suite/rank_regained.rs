//! A row left out and taken back during a run (issue 22): a mechanism redundant only at some
//! positions, started at one of them. `TripleCrankReduced` (three parallel cranks and a coupler
//! with the redundant `t2_x` deleted: 11 rows, rank 11 on the parallelogram branch) with
//! cranks of length ℓ = 0.5 on pivots d = 1 apart has full rank everywhere except where the
//! cranks lie on the ground line (ψ = π/2 + kπ, every link collinear: the parallelogram's
//! change points, where the DOF jumps and G loses rank: the selection leaves out `t0_x` and
//! `t1_x` there). (ℓ = d, the catalog's data, would also make crank0's tip meet crank1's pivot
//! there, a second degeneracy; ℓ = 0.5 keeps the change point a simple one.)
//!
//! Started at the change point ψ = π/2, turning at ψ̇ = 8 rad/s on the parallelogram branch
//! (the velocity picks the branch; the motion through it is smooth and its multipliers
//! bounded), every method whose first factorization is at the start state meets the singular
//! matrix there, leaves the rows out (`RankLoss` at t = 0) and takes them back once the crank
//! has turned far enough that their relative distance to the kept rows' span passes ε^¼
//! (`RankRegained`, `redundancy::RowSelection::regained`). Measured: RKSTAB (PStab, GCP) and
//! ABM at 6.8e-5 s, RK4 at its first step's second stage (5e-4 s), Radau at 3.2e-3 s (below).
//! The run then passes the change points at 3π/2 and 5π/2 (whether a step point lands close
//! enough to one to make another selection depends on where the steps fall; none did here).
//!
//! The Newmark family (Newmark/HHT/generalized-α) factors its Newton matrices at the iterates
//! of t0 + h, never at the start state: its start accelerations come from the stepper's own
//! KKT solve, which leaves the rows out at t0; the Newton selection continues from that one
//! (`RowSelection::continue_from`), so the leave-out is listed at t = 0 and the first Newton
//! matrix (at h = 1e-3, ψ − π/2 ≈ 8e-3 rad, far past the ε^¼ threshold) takes the rows back.
//!
//! Reference: the exact reduction on the branch, ψ̈ = −κ sin ψ (`TripleCrank::kappa`),
//! integrated by RK4 at h = 1e-4 (error ~1e-13 over 1 s). Bounds as in `redundant.rs`: 1e-5
//! for the adaptive methods at rtol 1e-8 and the fourth-order ones at h = 1e-3 (global errors
//! ≲ 1e-6 over a few hundred steps); 1e-3 for the second-order implicit ones at h = 1e-3,
//! whose error ~ (ωh)² ψ with ω ≤ 9 rad/s (the top speed of this turning crank, from the energy)
//! and ψ ≤ 8 rad is ~6e-4. While the row is out the kept rows allow a second degree of
//! freedom, along which the missing force component is ~λ·δ (δ the angle from the change
//! point): over the ~1.5e-5 s it lasts, a displacement ~λ δ t² ≲ 1e-13, so it moves
//! nothing the bounds could see; the drift of every row (the left-out one included, whose
//! residual stays that small) is bounded by 1e-8, the stabilized methods' bound.

use mbsim_models::{TripleCrank, TripleCrankReduced};
use mbsim_runtime::{
    ConstrainedSystem, InitOptions, Problem, Reselection, ReselectionCause, initialize,
};

use crate::redundant::{compound_pendulum_from, methods};

/// ψ̇ at the start [rad/s]: above √(2κ) ≈ 6.8 rad/s, so the crank goes over the top.
const OMEGA0: f64 = 8.0;

#[test]
fn a_row_left_out_at_a_change_point_is_taken_back() {
    let crank = TripleCrank {
        len: 0.5,
        ..TripleCrank::chosen()
    };
    let reduced = TripleCrankReduced {
        len: crank.len,
        ..TripleCrankReduced::chosen()
    };
    let sys: Box<dyn ConstrainedSystem> = Box::new(reduced);
    let names = sys.constraint_names();
    let psi0 = std::f64::consts::FRAC_PI_2;
    let (q0, v0) = crank.branch_state(psi0, OMEGA0);
    // The reduced model has the triple crank's coordinates: (x, y, φ) of crank0, crank1, crank2, coupler.
    let init = initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default()).expect("start");
    let (t_end, kappa) = (1.0, crank.kappa());
    let times: Vec<f64> = (0..=40).map(|i| t_end * i as f64 / 40.0).collect();
    let exact = compound_pendulum_from(kappa, (psi0, OMEGA0), &times);
    let problem = Problem::new(0.0, t_end, &init.q, &init.v).with_times(&times);
    let picked = [
        "rkstab/pstab",
        "rkstab/gcp",
        "abm",
        "mampc4",
        "rk4",
        "hht",
        "generalized-alpha",
        "radau",
    ];
    let mut failures = Vec::new();
    for (method, make, bound) in methods() {
        if !picked.contains(&method) {
            continue;
        }
        let what = format!("triple-crank-reduced at its change point/{method}");
        let out = match make().run(sys.as_ref(), &problem) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{what}: {e}"));
                continue;
            }
        };
        // crank1's φ (coordinate 5) is ψ − π/2.
        let err = (out.q.iter().zip(&exact))
            .map(|(q, e)| (q[5] + std::f64::consts::FRAC_PI_2 - e).abs())
            .fold(0.0, f64::max);
        let events = &out.stats.redundancy;
        let listed: Vec<String> = events
            .iter()
            .map(|r| {
                let rows: Vec<&str> = r.left_out.iter().map(|&i| names[i].as_str()).collect();
                format!("t={:.3e} {rows:?} ({})", r.t, r.cause)
            })
            .collect();
        eprintln!(
            "{what}: |ψ − ψ_exact| {err:.2e}, drift {:.1e}, redundant drift {:.1e}; selections {listed:?}",
            out.stats.max_drift.max(),
            out.stats.redundant_drift.max()
        );
        // Radau keeps its factorization across steps (it refactors when h or the convergence
        // asks), and the regained test runs only with a new factorization: the rows stay out
        // for its first ~6 steps (measured: left out at 4.9e-4 s, the first step's end, back
        // at 3.2e-3 s), while the kept rows allow the change point's second degree of freedom.
        // Its error is then 8.8e-5 instead of the ~1e-8 of a run from a regular start (the
        // other adaptive methods, whose KKT solve at every stage takes the rows back within
        // 7e-5 s, stay at 3e-8 to 3e-7): bound 2e-4, over twice the measured value.
        let bound = if method == "radau" { 2e-4 } else { bound };
        if err.is_nan() || err > bound {
            failures.push(format!("{what}: error {err:.3e} > {bound:e}"));
        }
        if out.stats.max_drift.position > 1e-8 {
            failures.push(format!("{what}: drift {:e}", out.stats.max_drift.position));
        }
        if let Err(why) = left_out_then_regained(events) {
            failures.push(format!("{what}: {why}: {listed:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether `events` (a run's `Stats::redundancy`) show rows left out at the start and taken
/// back: the first event a `RankLoss` of at least one row at the first step (t ≤ 1e-3 s: Radau
/// labels it with the end of the step whose factorization met the start state), a
/// `RankRegained` with no row left out later, within 1e-2 s (module docs: ~1.5e-5 s for the
/// methods that factor at every stage), and no row left out at the end. A method that redoes
/// its start (ABM after a rejected first step, MAMPC4's Runge–Kutta start with halved steps)
/// meets the start state again and lists a leave-out and a regain per attempt.
fn left_out_then_regained(events: &[Reselection]) -> Result<(), String> {
    let first = events.first().ok_or("no selection")?;
    if !(first.t <= 1e-3 && !first.left_out.is_empty() && first.cause == ReselectionCause::RankLoss)
    {
        return Err("no leave-out at the start".into());
    }
    let back = events.iter().find(|r| r.left_out.is_empty());
    if !back.is_some_and(|r| r.cause == ReselectionCause::RankRegained && r.t < 1e-2) {
        return Err("no regain within 1e-2 s".into());
    }
    match events.last() {
        Some(last) if last.left_out.is_empty() => Ok(()),
        _ => Err("rows still left out at the end".into()),
    }
}

/// Which pairs of the redundancy bench (`tests/benches/redundant.rs`) put the Newmark
/// family's Newton matrix on the banded path, where it is factored over the kept rows alone
/// (`runtime/src/implicit/iteration.rs`): the A02 chain with its extra crank; the triple crank
/// and `bricard-points` (order 48, whose band is too wide for the rule) keep the dense LU.
#[test]
fn the_bench_chain_and_bricard_run_the_banded_newton_matrix() {
    use mbsim_models::{BricardPoints, FourBarChainExtra};
    use mbsim_runtime::{Implicit, KktLayout, Scheme, StepSize};
    let hht = Implicit::new(Scheme::Hht { alpha: -0.1 }, StepSize::Fixed(1e-3));
    let banded = |l: KktLayout| matches!(l, KktLayout::Banded { .. });
    assert!(banded(hht.layout(&FourBarChainExtra::unit())));
    assert!(!banded(hht.layout(&BricardPoints::published())));
    assert!(!banded(hht.layout(&TripleCrank::chosen())));
}

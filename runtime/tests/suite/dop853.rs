//! The stabilized DOP853 beyond the conformance suite (which shows its order 8 under every
//! stabilization): the order of its dense output between step points, its counters, and its
//! adaptive runs on the Andrews squeezer against a tight reference, with fewer right-hand sides
//! than RKSTAB at tight tolerances.

use crate::common;

use common::models::{Andrews, Pendulum};
use common::{Sys, assert_below, assert_within, simulate};
use mbsim_runtime::{Dop853, ErrorEstimate, Recorder, Rkstab, SampleKind, Stabilization, Stats};

/// Amplitude 1 rad, as in the conformance suite.
const THETA0: f64 = 1.0;

/// DOP853 with PStab pinned to `steps` steps per period of the pendulum, sampled at
/// `fractions` of every step (strictly inside: the dense output, not the step points).
fn pendulum_inside_steps(steps: usize, fractions: &[f64]) -> (Recorder, Stats) {
    let p = Pendulum::UNIT;
    let period = p.period(THETA0);
    let h = period / steps as f64;
    let mut m = Dop853::new(0.1);
    m.step_control.h_init = Some(h);
    m.step_control.h_max = h;
    // The interpolant itself, not post-stabilized (`Dop853::default_samples`).
    m.common.samples = SampleKind::Interpolated;
    // Samples at the same times for every step count: fractions of the coarsest step.
    let coarse = period / 10.0;
    let times: Vec<f64> = (0..10)
        .flat_map(|i| fractions.iter().map(move |f| (i as f64 + f) * coarse))
        .collect();
    let (q0, v0) = p.at_rest(THETA0);
    let (rec, stats) = simulate(&Sys(p), &m, 0.0, &q0, &v0, period, &times).expect("run");
    assert_eq!(stats.naccpt, steps, "constant steps");
    (rec, stats)
}

/// The dense output of order 7: between step points, the samples converge at the order of
/// the step points (local interpolation error O(h⁸), global error O(h⁸)). Steps of T/10 and
/// T/20 sampled at 0.3 and 0.7 of each T/10 (inside steps of both runs), against the same
/// samples with steps of T/200 (error ≈ 20⁻⁸ times smaller, below round-off).
#[test]
fn dense_output_converges_at_order_eight() {
    let fractions = [0.3, 0.7];
    let (reference, _) = pendulum_inside_steps(200, &fractions);
    let error = |steps: usize| {
        let (rec, stats) = pendulum_inside_steps(steps, &fractions);
        // Three extra stages per step with samples (every step here), each one KKT solve,
        // beside the samples' own solves.
        assert_eq!(stats.output_solves, 3 * steps + rec.t.len(), "{stats:?}");
        rec.q
            .iter()
            .zip(&reference.q)
            .flat_map(|(q, r)| q.iter().zip(r).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max)
    };
    let (e1, e2) = (error(10), error(20));
    let order = (e1 / e2).log2();
    eprintln!("dop853 dense output: err {e1:.3e} -> {e2:.3e}: order {order:.2}");
    assert_within("dense output order", order, 7.5, 9.0);
    assert_below("dense output error at T/20", e2, 1e-7);
}

/// Andrews on [0, 0.03] at rtol (atol = rtol/10), PStab.
fn andrews<I: mbsim_runtime::Integrator>(method: &I) -> (Recorder, Stats) {
    let v0 = [0.0; 7];
    simulate(&Sys(Andrews), method, 0.0, &Andrews::Q0, &v0, 0.03, &[0.03]).expect("andrews")
}

/// RKSTAB at rtol 1e-13 with the plain DOPRI5 estimate (the benchmark's reference): Andrews'
/// end positions.
fn andrews_reference() -> Vec<f64> {
    let mut reference = Rkstab::new(1e-13);
    reference.error_estimate = ErrorEstimate::Unstabilized;
    andrews(&reference).0.q[0].clone()
}

/// The largest deviation of the run's end positions from `q_ref`.
fn end_error(rec: &Recorder, q_ref: &[f64]) -> f64 {
    (rec.q[0].iter().zip(q_ref))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// NFCN is 11 per attempt that evaluated DOP853's stages (every attempt without passage
/// steps), plus NSTAB (k_13 per projection, a passage attempt's own stabilization, a start
/// projection's right-hand side), 5 per passage attempt and 2 (f(t0) and `HINIT`'s probe).
fn assert_nfcn_count(stats: &Stats, what: &str) {
    let extra = |name: &str| stats.extra.get(name).unwrap_or(0) as usize;
    let passage = extra("passage_attempts");
    let eighth = match passage {
        0 => stats.nstep,
        _ => extra("eighth_order_attempts"),
    };
    assert_eq!(
        stats.nfcn,
        11 * eighth + stats.nstab + 5 * passage + 2,
        "{what}: {stats}"
    );
}

/// Adaptive runs: NFCN = 11 NSTEP + NSTAB + 2 with NACCPT ≤ NSTAB ≤ NSTEP (`dop853.f` with
/// `HINIT`; k_13 and one PStab per attempt the unstabilized estimate accepts, of which those
/// whose correction then fails the tolerance are rejected; with passage steps, which Andrews
/// no longer takes since the rule needs the KKT spread to grow, 11 per attempt that evaluated DOP853's stages and 6 per passage attempt), a tolerance-proportional
/// error against RKSTAB at rtol 1e-13 (plain DOPRI5 estimate, as the benchmark's reference)
/// and fewer right-hand sides than RKSTAB from rtol 1e-8 on.
#[test]
fn adaptive_andrews_is_accurate_and_cheaper_than_rkstab_at_tight_tolerances() {
    let q_ref = andrews_reference();
    for rtol in [1e-6, 1e-8, 1e-10, 1e-12] {
        let (rec, stats) = andrews(&Dop853::new(rtol));
        // Passage steps (DOPRI5 attempts, 6 evaluations each, one stabilization counted in
        // NSTAB) replace the tangential judgment where the estimate stops shrinking.
        assert_nfcn_count(&stats, &format!("rtol {rtol:e}"));
        let projected = stats.naccpt..=stats.nstep;
        assert!(projected.contains(&stats.nstab), "rtol {rtol:e}: {stats}");
        let err = end_error(&rec, &q_ref);
        // The global error of a method keeping each local error below rtol: within 100 rtol
        // (as the ABM check of the models' suite), and above the reference's ~1e-12.
        assert_below(
            &format!("dop853 rtol {rtol:e} error"),
            err,
            100.0 * rtol + 1e-11,
        );
        let (_, rk) = andrews(&Rkstab::new(rtol).with_stabilization(Stabilization::PStab));
        eprintln!(
            "rtol {rtol:e}: dop853 err {err:.2e} nfcn {}, rkstab nfcn {}",
            stats.nfcn, rk.nfcn
        );
        if rtol <= 1e-8 {
            assert!(
                stats.nfcn < rk.nfcn,
                "rtol {rtol:e}: {stats} vs rkstab {rk}"
            );
        }
    }
}

/// S-both and velocity-only complete Andrews at every decade of rtol from 1e-4 to 1e-12 with
/// the accuracy of PStab's check above (100 rtol), and the right-hand sides counted as there
/// (an accepted state PStab projected, `passage_start_projections`, adds one PStab to NSTAB
/// and one right-hand side, as an accepted attempt's k_13 does). S-both
/// underflowed at 1e-5 … 1e-7 (t = 0.0102 … 0.0207) when its one-pass remainder entered the
/// stabilized estimates (`dop853/passage.rs`).
#[test]
fn one_pass_controls_complete_andrews_at_every_tolerance() {
    let q_ref = andrews_reference();
    for stab in [Stabilization::SBoth, Stabilization::VelocityOnly] {
        for rtol in [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12] {
            let (rec, stats) = andrews(&Dop853::new(rtol).with_stabilization(stab));
            // A start projection is one PStab in NSTAB and one right-hand side, as k_13 is.
            assert_nfcn_count(&stats, &format!("{stab:?} rtol {rtol:e}"));
            let err = end_error(&rec, &q_ref);
            eprintln!("{stab:?} rtol {rtol:e}: err {err:.2e} {stats}");
            assert_below(
                &format!("{stab:?} rtol {rtol:e} error"),
                err,
                100.0 * rtol + 1e-11,
            );
        }
    }
}

/// DATOL = atol: accepted steps whose drift is within it are not projected (their test reads G
/// from the k'_13 factors, and its drift is the step point's, not measured again), the others
/// are; the largest step-point drift stays within DATOL, the error within PStab's 100 rtol,
/// and the right-hand sides are those of every projected run (projections are no evaluations).
#[test]
fn datol_skips_projections_and_bounds_the_drift() {
    let q_ref = andrews_reference();
    for rtol in [1e-6, 1e-8, 1e-10] {
        let mut method = Dop853::new(rtol);
        method.common.datol = rtol / 10.0;
        let (rec, stats) = andrews(&method);
        let drift = stats.max_drift;
        assert_below(&format!("rtol {rtol:e} drift"), drift.max(), rtol / 10.0);
        assert!(
            stats.nstab < stats.naccpt,
            "rtol {rtol:e}: some skipped {stats}"
        );
        assert!(stats.nstab > 0, "rtol {rtol:e}: some projected {stats}");
        let err = end_error(&rec, &q_ref);
        assert_below(&format!("rtol {rtol:e} error"), err, 100.0 * rtol + 1e-11);
        eprintln!("rtol {rtol:e}: err {err:.2e} drift {drift:?} {stats}");
    }
}

/// RKSTAB's rule (opt-in): every attempt stabilized before its error, k_13 after an accepted
/// one only, so the same NFCN count with NSTAB = NSTEP; as accurate as the default.
#[test]
fn stabilized_estimate_projects_every_attempt() {
    let mut method = Dop853::new(1e-8);
    method.error_estimate = ErrorEstimate::Stabilized;
    let (rec, stats) = andrews(&method);
    assert_eq!(stats.nfcn, 11 * stats.nstep + stats.naccpt + 2, "{stats}");
    assert_eq!(stats.nstab, stats.nstep, "{stats}");
    assert!(
        stats.nstep > stats.naccpt,
        "Andrews rejects some attempts: {stats}"
    );
    let (plain, _) = andrews(&Dop853::new(1e-8));
    let diff = rec.q[0]
        .iter()
        .zip(&plain.q[0])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    // Both runs keep their local errors below rtol; their global errors (≤ 100 rtol, the
    // adaptive test above) bound their difference.
    assert_below("stabilized vs default estimate", diff, 200.0 * 1e-8);
}

/// The projection DOP853 makes after an accepted attempt reuses the factors of k'_13's KKT
/// solve at z~ (module docs, step 4): it is the same operation as the projection that
/// assembles and factors K itself, so the results agree bit for bit. From a state off
/// Andrews' constraints by ~1e-8 in q.
#[test]
fn projection_with_the_dynamics_factors_equals_the_fresh_one() {
    use mbsim_runtime::{ConstrainedSystem, KktWorkspace, Stabilizer, accelerations_into};
    let sys = Sys(Andrews);
    let d = sys.dims();
    let q: Vec<f64> = (Andrews::Q0.iter().enumerate())
        .map(|(i, x)| x + 1e-8 * ((i % 3) as f64 - 1.0))
        .collect();
    let v = vec![0.1; d.n];
    let mut ws = KktWorkspace::new(d);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
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
    .expect("regular");
    for kind in [
        Stabilization::PStab,
        Stabilization::SBoth,
        Stabilization::VelocityOnly,
    ] {
        let (mut q_fresh, mut v_fresh) = (q.clone(), v.clone());
        let mut fresh = Stabilizer::new(kind, d);
        fresh
            .apply(&sys, 0.0, 1e-3, &mut q_fresh, &mut v_fresh, 0.0)
            .expect("fresh projection");
        let (mut q_reused, mut v_reused) = (q.clone(), v.clone());
        let mut reusing = Stabilizer::new(kind, d);
        assert!(reusing.projects_with_dynamics_matrix(), "{kind:?}");
        reusing
            .apply_factored(&sys, 0.0, 1e-3, &mut q_reused, &mut v_reused, 0.0, &mut ws)
            .expect("projection with the dynamics' factors");
        assert_eq!(q_fresh, q_reused, "{kind:?}: positions");
        assert_eq!(v_fresh, v_reused, "{kind:?}: velocities");
        assert!(v_fresh != v, "{kind:?} corrected the velocities");
    }
}

//! Issue 22, items 2 and 5: RKSTAB with every drift control carries the IFToMM A02 N-four-bar
//! (N = 40) through the twenty singular passages of 20 s against the exact 1-DOF reduction
//! (`passages_stabilizations.rs`), with the singular-passage guard
//! (`runtime/src/stabilize/passage.rs`) where the pure control stops: on the body form none,
//! Baumgarte, velocity-only, S-both and the continuous stabilizations stopped at a passage,
//! on the crank-angle form the continuous GGᵀ and identity ones. The full table (rtol 1e-6,
//! 1e-8, 1e-10, with and without the guard) is
//! `cargo bench -p mbsim-models --bench passages -- stabilizations [guard]`.
//!
//! Bounds on the error against the reduction: the measured value (in each cell's comment)
//! times 10, for round-off that the passages amplify differently on other platforms; a lost
//! passage or a crank folding onto another branch costs ≥ 0.1 rad. Drift: ‖Φ‖∞ at the step
//! points below 1e-7 (the controls that let Φ drift between the guard's projections measured
//! ≤ 5.6e-9 at rtol 1e-8). ~7 s of thread CPU in all.

use crate::passages_matrix::{Form, output_times, reduction};
use crate::passages_stabilizations::{measure_stabilized, stabilizations};
use mbsim_runtime::Stabilization;
use mbsim_testkit::assert_below;

/// Run `stabilization` with the guard on `form` at rtol 1e-8 over 20 s and check the error
/// against `bound` and the drift.
fn cell(stabilization: Stabilization, form: Form, bound: f64) {
    cell_at(stabilization, form, 1e-8, bound);
}

/// [`cell`] at `rtol`.
fn cell_at(stabilization: Stabilization, form: Form, rtol: f64, bound: f64) {
    let t_end = 20.0;
    let reference = reduction(&output_times(t_end));
    let cell = measure_stabilized((stabilization, true), rtol, form, t_end, &reference);
    eprintln!("{cell}");
    let what = format!("{} {rtol:e} on {}", stabilization.name(), form.name());
    let m = cell.outcome.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_below(&format!("{what}: error"), m.error, bound);
    assert_below(&format!("{what}: max |Φ|"), m.drift_position, 1e-7);
}

/// Every drift control on the body form at rtol 1e-8 (bounds in `stabilizations()` order).
#[test]
fn every_drift_control_carries_the_body_chain_with_the_guard() {
    let bounds = [
        2.4e-5, // PStab 2.34e-6
        7.5e-5, // S-full 7.44e-6 (7.66e-6 before its passage attempts were projected by PStab)
        2.1e-5, // S-both 2.04e-6 (without the guard: stopped at t = 5.196 before its passage rules, 2.18e-6 with them)
        9.2e-6, // velocity-only 9.11e-7 (1.244; 7.62e-7 before the guard took the passage rules)
        2.2e-5, // GGᵀ 2.17e-6
        2.6e-4, // Baumgarte 2.56e-5 (1.244)
        7.0e-5, // none 6.95e-6 (1.2457)
        4.8e-4, // GCP 4.79e-5
        7.4e-4, // hybrid 7.35e-5
        1.9e-4, // continuous-GGᵀ 1.82e-5 (7.14)
        1.1e-5, // continuous-identity 1.01e-6 (2.07; 1.99e-7 before the guard took the passage rules)
        1.2e-4, // continuous-two-step 1.16e-5 (4.68)
    ];
    for (stabilization, bound) in stabilizations().into_iter().zip(bounds) {
        cell(stabilization, Form::Bodies, bound);
    }
}

/// The crank-angle form's continuous GGᵀ and identity stabilizations, which stopped at
/// t = 1.7494 and 6.0377 without the guard.
#[test]
fn continuous_stabilizations_carry_the_crank_angle_chain_with_the_guard() {
    let all = stabilizations();
    cell(all[9], Form::Angles, 4.5e-4); // 4.45e-5 (4.26e-5 before the guard took the passage rules)
    cell(all[10], Form::Angles, 3.2e-4); // 3.13e-5 (2.88e-5 before)
}

/// With the guard the drift-only controls take RKSTAB's passage rules
/// (`runtime/src/rkstab_passage.rs`): on the crank-angle form these cells stopped at a
/// singular configuration or underflowed before (velocity-only 1e-10 at t = 4.6528, Baumgarte
/// 1e-10 at 1.2440, none 1e-11 at 1.2440, continuous GGᵀ, identity and two-step at 1e-12 /
/// 1e-12 / 1e-11 at 0.7216). Bounds 10× the measured values (in the comments).
#[test]
fn with_the_guard_the_drift_controls_cross_the_crank_chain_at_tight_tolerance() {
    let all = stabilizations();
    cell_at(all[3], Form::Angles, 1e-10, 4.0e-6); // velocity-only 3.96e-7
    cell_at(all[5], Form::Angles, 1e-10, 4.0e-6); // Baumgarte 3.97e-7
    cell_at(all[6], Form::Angles, 1e-11, 4.0e-7); // none 3.91e-8
    cell_at(all[9], Form::Angles, 1e-12, 1.8e-8); // continuous GGᵀ 1.80e-9
    cell_at(all[10], Form::Angles, 1e-12, 4.2e-8); // continuous identity 4.11e-9
    cell_at(all[11], Form::Angles, 1e-11, 4.0e-7); // continuous two-step 3.93e-8
}

/// The cause the guard removes: without it, no stabilization stops at the body form's second
/// passage (t ≈ 1.2457), named a singular configuration.
#[test]
fn without_the_guard_no_stabilization_stops_at_the_second_passage() {
    let t_end = 20.0;
    let reference = reduction(&output_times(t_end));
    let cell = measure_stabilized(
        (Stabilization::None, false),
        1e-8,
        Form::Bodies,
        t_end,
        &reference,
    );
    eprintln!("{cell}");
    let err = cell.outcome.expect_err("none without the guard stops");
    assert!(err.contains("singular configuration at t = 1.24"), "{err}");
}

/// The projection-complete controls at rtol 1e-10 without the guard, which stopped at a
/// passage before their attempts across it were projected by PStab
/// (`runtime/src/rkstab_passage.rs`): crank form GCP at t = 5.1752, the hybrid at 3.8412;
/// body form S-full at 0.7195, GCP and the hybrid at 0.72158 (S-full on the crank form passed
/// already). And the hybrid on the crank form at 1e-8, which folded onto another branch at
/// t ≈ 13.29. At 1e-11, GCP on the crank form (stopped at 10.55 while its steps crept up on
/// the passage) and the hybrid on the body form (stopped at 4.654), which a creep now hands to
/// PStab too. At 1e-11 / 1e-12 the hybrid on the crank form (stopped at 6.618 / 0.7216) and at
/// 1e-12 GCP and the hybrid on the body form (finished 1.1e-4 / 5.4e-3 off), which a rejection
/// with an estimate above 100 now hands to PStab at once. S-both on the crank form at 1e-12
/// (underflowed at 1.2419) and on the body form at 1e-8 / 1e-10 / 1e-12 (underflowed at 5.175
/// / 0.7207 / 0.6950), GGᵀ on the crank form at 1e-12 (ended 6.8e-4 off), which take the same
/// rules where the KKT pivot spread shows the rank loss, and the stall rule (the body form's
/// S-both at 1e-12). Bounds 10× the measured values (in the comments). ~16 s of thread CPU.
#[test]
fn projection_complete_controls_cross_every_passage_at_tight_tolerance() {
    let t_end = 20.0;
    let reference = reduction(&output_times(t_end));
    let all = stabilizations();
    let (s_full, gcp, hybrid) = (all[1], all[7], all[8]);
    let (s_both, ggt) = (all[2], all[4]);
    let cells = [
        (s_full, 1e-10, Form::Angles, 4.2e-6), // 4.11e-7
        (gcp, 1e-10, Form::Angles, 3.7e-6),    // 3.61e-7
        (hybrid, 1e-10, Form::Angles, 4.0e-6), // 3.97e-7
        (hybrid, 1e-8, Form::Angles, 4.5e-4),  // 4.47e-5
        (s_full, 1e-10, Form::Bodies, 2.8e-7), // 2.72e-8
        (gcp, 1e-10, Form::Bodies, 3.1e-6),    // 3.04e-7
        (hybrid, 1e-10, Form::Bodies, 6.8e-6), // 6.79e-7
        (gcp, 1e-11, Form::Angles, 4.1e-7),    // 4.00e-8
        (hybrid, 1e-11, Form::Bodies, 7.6e-7), // 7.57e-8
        (hybrid, 1e-11, Form::Angles, 6.3e-7), // 6.22e-8
        (hybrid, 1e-12, Form::Angles, 4.0e-8), // 3.97e-9
        (gcp, 1e-12, Form::Bodies, 1.8e-7),    // 1.75e-8
        (hybrid, 1e-12, Form::Bodies, 6.3e-7), // 6.23e-8
        (s_both, 1e-12, Form::Angles, 5.3e-8), // 5.20e-9
        (s_both, 1e-8, Form::Bodies, 2.2e-5),  // 2.18e-6
        (s_both, 1e-10, Form::Bodies, 1.8e-7), // 1.75e-8
        (s_both, 1e-12, Form::Bodies, 6.9e-8), // 6.86e-9
        (ggt, 1e-12, Form::Angles, 4.3e-8),    // 4.28e-9
    ];
    for (stabilization, rtol, form, bound) in cells {
        let cell = measure_stabilized((stabilization, false), rtol, form, t_end, &reference);
        eprintln!("{cell}");
        let what = format!("{} {rtol:e} on {}", stabilization.name(), form.name());
        let m = cell.outcome.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_below(&format!("{what}: error"), m.error, bound);
        assert_below(&format!("{what}: max |Φ|"), m.drift_position, 1e-7);
    }
}

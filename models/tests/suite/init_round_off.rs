//! Consistent initialization asked for a tolerance below round-off (what `mbsim simulate
//! --atol 1e-30` asks for: 0.1 · atol = 1e-31): the Newton iteration stops where Φ has reached
//! its round-off, 16 ε (1 + ‖q‖∞), instead of failing after 50 iterations (Andrews' mechanism
//! did, at ‖Φ‖∞ = 3.5e-18), and a state the constraints do not allow still fails.

use mbsim_models::catalog;
use mbsim_runtime::catalog::{ModelEntry, find};
use mbsim_runtime::{DriftMeter, InitOptions, InitStage, SimError, initialize};

/// The CLI's initialization tolerance at atol 1e-30.
const TINY: f64 = 1e-31;

fn inf_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

fn tiny(locked: Vec<usize>) -> InitOptions {
    InitOptions {
        tol: TINY,
        locked,
        ..InitOptions::default()
    }
}

/// The guess of `entry` with every coordinate and velocity moved by `shift`.
fn guess(entry: &ModelEntry, shift: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut q0, mut v0) = (entry.initial)((entry.build)().as_ref());
    q0.iter_mut().chain(&mut v0).for_each(|x| *x += shift);
    (q0, v0)
}

/// Initialize catalog model `name` from its guess moved by `shift` at tol 1e-31: it succeeds,
/// and the drift measured anew at the result is at round-off, ‖Φ‖∞ ≤ 16 ε (1 + ‖q‖∞) and
/// ‖G v + [Φ_t; b]‖∞ ≤ 64 ε ‖v‖∞. Returns the Newton iterations.
fn at_round_off(name: &str, shift: f64) -> usize {
    let entry = find(catalog(), name).expect("catalog entry");
    let sys = (entry.build)();
    let (q0, v0) = guess(entry, shift);
    let r = initialize(sys.as_ref(), 0.0, &q0, &v0, &tiny(Vec::new()))
        .unwrap_or_else(|e| panic!("{name} moved by {shift:e}: {e}"));
    let drift = DriftMeter::new(sys.dims())
        .measure(sys.as_ref(), 0.0, &r.q, &r.v)
        .expect("finite");
    let pos = 16.0 * f64::EPSILON * (1.0 + inf_norm(&r.q));
    let vel = (64.0 * f64::EPSILON * inf_norm(&r.v)).max(TINY);
    assert!(
        drift.position <= pos && drift.velocity <= vel,
        "{name} moved by {shift:e}: {drift:?}, floors {pos:e}, {vel:e}"
    );
    r.iterations
}

#[test]
fn andrews_from_its_guess() {
    assert_eq!(at_round_off("andrews", 0.0), 0);
}

#[test]
fn andrews_from_a_moved_guess() {
    assert_eq!(at_round_off("andrews", 1e-3), 3);
}

#[test]
fn spatial_slider_crank_from_a_moved_guess() {
    assert_eq!(at_round_off("spatial-slider-crank", 1e-3), 3);
}

/// Every catalog model (36), from its guess moved by 1e-3 (some guesses stay consistent, no
/// iteration): the largest ‖Φ‖∞ against its floor measured was crank-slider-wu's 5.1e-15 of
/// 7.1e-15.
#[test]
fn every_catalog_model_from_a_moved_guess() {
    for entry in catalog() {
        at_round_off(entry.name, 1e-3);
    }
}

/// A guess 1e-10 off the constraints with every coordinate locked: far above round-off, so
/// the tiny tolerance still fails, naming the violated rows.
#[test]
fn an_inconsistent_locked_guess_still_fails() {
    let entry = find(catalog(), "andrews").expect("catalog entry");
    let sys = (entry.build)();
    let (q0, v0) = guess(entry, 1e-10);
    let all = (0..q0.len()).collect();
    let err = initialize(sys.as_ref(), 0.0, &q0, &v0, &tiny(all)).unwrap_err();
    match &err {
        SimError::InitializationFailed {
            stage: InitStage::Positions,
            residual,
            violated,
            ..
        } => assert!(*residual > 1e-12 && !violated.is_empty(), "{err}"),
        _ => panic!("{err}"),
    }
}

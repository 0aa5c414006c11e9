//! Chin's continuous stabilizations as a drift control ([CHIN] (2.58), (2.63)–(2.64);
//! `runtime/src/continuous.rs`): the residual laws they impose, checked on runs started off
//! the manifold (consistency check off) against their closed forms, with a rheonomic
//! constraint and a non-diagonal M (the two-link manipulator of case II, tip on a moving
//! sine path) and with nonholonomic rows (the rolling disc).
//!
//! - GGᵀ, like Baumgarte B(2γ, γ²), makes every holonomic row obey Φ̈ + 2γΦ̇ + γ²Φ = 0, so
//!   Φ(t) = (Φ₀ + (Φ̇₀ + γΦ₀) t) e^{−γt}; the two-step route makes s = G v + Φ_t + γΦ obey
//!   s' = −γ s (its position correction makes Φ̇ differ from G v + Φ_t); both make the
//!   nonholonomic rows obey (A v + b)' = −γ (A v + b).
//! - P₁ = I, P₂⁻¹ = GGᵀ obeys (2.61) Φ̈ + 2γ GGᵀ Φ̇ + γ² (GGᵀ)² Φ = 0: checked on the field
//!   itself (the sample's v̇ is the corrected one) at the off-manifold start.
//! - On the pendulum (M = m I, so M⁻¹Gᵀ ∝ Gᵀ) GGᵀ coincides with Baumgarte B(2γ, γ²).

use crate::common;

use common::models::{Pendulum, RollingDisc, TwoLink};
use common::{Sys, assert_below, simulate};
use mbsim_runtime::{
    Baumgarte, ConsistencyCheck, ConstrainedSystem, Continuous, ContinuousChoice, Implicit,
    Integrator, Radau, Recorder, Rkstab, SimError, Stabilization,
};
use nalgebra::DMatrix;

const GAMMA: f64 = 10.0;

fn continuous(choice: ContinuousChoice) -> Stabilization {
    Stabilization::Continuous(Continuous::new(choice, GAMMA))
}

/// RKSTAB at rtol 1e-11 without the initial consistency check.
fn tight(stab: Stabilization) -> Rkstab {
    let mut m = Rkstab::new(1e-11).with_atol(1e-12).with_stabilization(stab);
    m.common.consistency = ConsistencyCheck::Off;
    m
}

/// Φ and Φ̇ = G v + Φ_t (holonomic rows) at a state.
fn residuals<S: ConstrainedSystem>(sys: &S, t: f64, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let d = sys.dims();
    let (mut phi, mut phi_t) = (vec![0.0; d.m], vec![0.0; d.m]);
    let mut g = DMatrix::zeros(d.m, d.n);
    sys.phi_into(t, q, &mut phi);
    sys.phi_t_into(t, q, &mut phi_t);
    sys.phi_q_into(t, q, g.as_view_mut());
    let rate = (0..d.m)
        .map(|i| phi_t[i] + (0..d.n).map(|j| g[(i, j)] * v[j]).sum::<f64>())
        .collect();
    (phi, rate)
}

/// The two-link manipulator of case II from a consistent state pushed off the manifold.
fn two_link_off_manifold() -> (Sys<TwoLink>, Vec<f64>, Vec<f64>) {
    let (q, _) = TwoLink::initial_state();
    (
        Sys(TwoLink::case_two()),
        vec![q[0] + 2e-3, q[1] - 1e-3],
        vec![0.05, -0.02],
    )
}

fn run_from<S: ConstrainedSystem, I: Integrator>(
    sys: &S,
    m: &I,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
) -> Recorder {
    let times: Vec<f64> = (0..=40).map(|i| t_end * i as f64 / 40.0).collect();
    simulate(sys, m, 0.0, q0, v0, t_end, &times)
        .expect("runs")
        .0
}

/// Φ(t) = (Φ₀ + (Φ̇₀ + γΦ₀) t) e^{−γt} along the run, every holonomic row. The runs' error is
/// ~1e-11 relative to the state (rtol 1e-11); Φ₀ ~ 2e-3, so 1e-9 absolute is loose by 100.
#[test]
fn critically_damped_choices_follow_the_closed_form() {
    let (sys, q0, v0) = two_link_off_manifold();
    let (phi0, rate0) = residuals(&sys, 0.0, &q0, &v0);
    assert!(
        phi0[0].abs() > 1e-4 && rate0[0].abs() > 1e-3,
        "off the manifold: {phi0:?} {rate0:?}"
    );
    let stabilizations = [
        continuous(ContinuousChoice::GGt),
        Stabilization::Baumgarte(Baumgarte::from_chin(2.0 * GAMMA, GAMMA * GAMMA)),
    ];
    for stab in stabilizations {
        let rec = run_from(&sys, &tight(stab), &q0, &v0, 0.5);
        for (i, &t) in rec.t.iter().enumerate() {
            let (phi, _) = residuals(&sys, t, &rec.q[i], &rec.v[i]);
            for row in 0..phi.len() {
                let law = (phi0[row] + (rate0[row] + GAMMA * phi0[row]) * t) * (-GAMMA * t).exp();
                mbsim_testkit::assert_entry(
                    &format!("{} phi at t = {t:.3}", stab.name()),
                    row,
                    phi[row],
                    law,
                    1e-9,
                );
            }
        }
    }
    // The two-step route: s = r + γΦ decays like e^{−γt} (s₀ ~ 0.1; same 1e-9).
    let rec = run_from(
        &sys,
        &tight(continuous(ContinuousChoice::TwoStep)),
        &q0,
        &v0,
        0.5,
    );
    for (i, &t) in rec.t.iter().enumerate() {
        let (phi, rate) = residuals(&sys, t, &rec.q[i], &rec.v[i]);
        for row in 0..phi.len() {
            let s = rate[row] + GAMMA * phi[row];
            let law = (rate0[row] + GAMMA * phi0[row]) * (-GAMMA * t).exp();
            mbsim_testkit::assert_entry(&format!("two-step s at t = {t:.3}"), row, s, law, 1e-9);
        }
    }
}

/// (2.61) on the field at the off-manifold start: G v̇ + (Φ̈ − G v̇) + 2γ GGᵀ Φ̇ + γ²(GGᵀ)² Φ = 0,
/// with Φ̈ − G v̇ = −γ_acc (the acceleration right side). Terms ~ γ² |GGᵀ|² |Φ| ~ 3; the
/// KKT solve's round-off ~1e-14 of that.
#[test]
fn identity_choice_obeys_2_61_on_the_field() {
    let (sys, q0, v0) = two_link_off_manifold();
    let rec = run_from(
        &sys,
        &tight(continuous(ContinuousChoice::Identity)),
        &q0,
        &v0,
        1e-3,
    );
    let (q, v, vdot) = (&rec.q[0], &rec.v[0], &rec.vdot[0]);
    let (phi, rate) = residuals(&sys, 0.0, q, v);
    let mut g = DMatrix::zeros(1, 2);
    sys.phi_q_into(0.0, q, g.as_view_mut());
    let mut gamma_acc = [0.0];
    sys.gamma_into(0.0, q, v, &mut gamma_acc);
    let ggt = g[(0, 0)].powi(2) + g[(0, 1)].powi(2);
    let phi_ddot = g[(0, 0)] * vdot[0] + g[(0, 1)] * vdot[1] - gamma_acc[0];
    let law = phi_ddot + 2.0 * GAMMA * ggt * rate[0] + GAMMA * GAMMA * ggt * ggt * phi[0];
    assert_below("(2.61) residual", law.abs(), 1e-11);
}

/// Nonholonomic rows: (A v + b)(t) = r₀ e^{−γt} for GGᵀ and the two-step route.
#[test]
fn nonholonomic_rows_decay_exponentially() {
    let sys = Sys(RollingDisc::THESIS);
    let (q0, mut v0) = RollingDisc::initial_state();
    v0[0] += 0.05;
    v0[1] -= 0.03;
    let residual = |q: &[f64], v: &[f64]| {
        let (mut a, mut b) = (DMatrix::zeros(2, 5), vec![0.0; 2]);
        sys.nh_matrix_into(0.0, q, a.as_view_mut());
        sys.nh_offset_into(0.0, q, &mut b);
        (0..2)
            .map(|i| b[i] + (0..5).map(|j| a[(i, j)] * v[j]).sum::<f64>())
            .collect::<Vec<f64>>()
    };
    let r0 = residual(&q0, &v0);
    assert!(
        r0.iter().any(|r| r.abs() > 1e-3),
        "off the manifold: {r0:?}"
    );
    for choice in [ContinuousChoice::GGt, ContinuousChoice::TwoStep] {
        let rec = run_from(&sys, &tight(continuous(choice)), &q0, &v0, 0.5);
        for (i, &t) in rec.t.iter().enumerate() {
            let r = residual(&rec.q[i], &rec.v[i]);
            for row in 0..2 {
                let law = r0[row] * (-GAMMA * t).exp();
                mbsim_testkit::assert_entry(
                    &format!("{choice:?} A v + b at t = {t:.3}"),
                    row,
                    r[row],
                    law,
                    1e-9,
                );
            }
        }
    }
}

/// M = m I: Gᵀ(GGᵀ)⁻¹ = M⁻¹Gᵀ(GM⁻¹Gᵀ)⁻¹, so GGᵀ is Baumgarte B(2γ, γ²) up to round-off.
#[test]
fn ggt_equals_baumgarte_when_m_is_a_multiple_of_identity() {
    let p = Pendulum::UNIT;
    let (q0, v0) = p.at_rest(1.0);
    let m = |s| Rkstab::new(1e-8).with_stabilization(s);
    let b = Stabilization::Baumgarte(Baumgarte::from_chin(2.0 * GAMMA, GAMMA * GAMMA));
    let (rc, sc) = simulate(
        &Sys(p),
        &m(continuous(ContinuousChoice::GGt)),
        0.0,
        &q0,
        &v0,
        2.0,
        &[2.0],
    )
    .unwrap();
    let (rb, sb) = simulate(&Sys(p), &m(b), 0.0, &q0, &v0, 2.0, &[2.0]).unwrap();
    assert_eq!(
        (sc.nstep, sc.nrejct),
        (sb.nstep, sb.nrejct),
        "same step sequence"
    );
    mbsim_testkit::assert_close("q(2)", &rc.q[0], &rb.q[0], 1e-12, 0.0);
}

/// The index-3 methods refuse them (they never evaluate the field), and γ must be ≥ 0.
#[test]
fn index_3_methods_and_negative_gains_are_refused() {
    let p = Pendulum::UNIT;
    let (q0, v0) = p.at_rest(1.0);
    let stab = continuous(ContinuousChoice::GGt);
    let invalid = |r: Result<_, SimError>| matches!(r, Err(SimError::InvalidOption { .. }));
    let newmark = Implicit::newmark(0.01).with_stabilization(stab);
    assert!(invalid(simulate(
        &Sys(p),
        &newmark,
        0.0,
        &q0,
        &v0,
        0.1,
        &[]
    )));
    let radau = Radau::fixed(0.01).with_stabilization(stab);
    assert!(invalid(simulate(&Sys(p), &radau, 0.0, &q0, &v0, 0.1, &[])));
    let negative = Stabilization::Continuous(Continuous::new(ContinuousChoice::TwoStep, -1.0));
    assert!(invalid(simulate(
        &Sys(p),
        &Rkstab::new(1e-6).with_stabilization(negative),
        0.0,
        &q0,
        &v0,
        0.1,
        &[]
    )));
}

//! Consistent initialization that respects the physics (issue 24 item 2): velocities corrected
//! in the mass metric (a massless auxiliary coordinate takes the correction, the bodies keep
//! their kinetic energy; the correction is M-orthogonal to the motions the constraints allow),
//! and values the user gave kept where the constraints allow, released with the reason where
//! they do not.

use crate::common;

use common::models::{Andrews, MixedPendulum, Pendulum};
use common::{Sys, assert_close};
use mbsim_runtime::{
    ConstrainedSystem, InitOptions, InitStage, SimError, VelocityMetric, initialize,
};
use nalgebra::{DMatrix, DVector};

fn euclidean() -> InitOptions {
    InitOptions {
        velocity_metric: VelocityMetric::Euclidean,
        ..InitOptions::default()
    }
}

#[test]
fn a_massless_coordinate_takes_the_velocity_correction() {
    // The pendulum in (x, y, θ) with M = diag(m, m, 0): the angle is an auxiliary coordinate
    // without inertia. The point moves at speed ℓω along the circle, and θ̇ is left at 0 (a
    // user who did not think of it): only θ̇ is inconsistent.
    let model = MixedPendulum(Pendulum::UNIT);
    let (theta, omega, len) = (0.7_f64, 2.0, model.0.len);
    let (q0, _) = model.at_rest(theta);
    let v0 = [len * omega * theta.cos(), len * omega * theta.sin(), 0.0];
    let kinetic = |v: &[f64]| 0.5 * model.0.mass * (v[0] * v[0] + v[1] * v[1]);
    let r = initialize(&Sys(model), 0.0, &q0, &v0, &InitOptions::default()).unwrap();
    // The mass metric moves θ̇ alone, to ω, and the point keeps its velocity (to the ulps of
    // one LU solve) and so its kinetic energy.
    assert_close(
        "v (mass metric)",
        &r.v,
        &[v0[0], v0[1], omega],
        1e-15,
        1e-15,
    );
    assert_close(
        "kinetic energy kept",
        &[kinetic(&r.v)],
        &[kinetic(&v0)],
        1e-15,
        0.0,
    );
    // The Euclidean projection onto ker G = span (ℓ cos θ, ℓ sin θ, 1) gives
    // v = (v0·a / a·a) a = ℓ²ω/(ℓ² + 1) a: with ℓ = 1 every velocity halved, the kinetic
    // energy quartered — what the plain projection did before.
    let e = initialize(&Sys(model), 0.0, &q0, &v0, &euclidean()).unwrap();
    let half = omega / 2.0;
    let halved = [len * half * theta.cos(), len * half * theta.sin(), half];
    assert_close("v (Euclidean)", &e.v, &halved, 1e-15, 1e-15);
    assert_close(
        "Euclidean kinetic energy",
        &[kinetic(&e.v)],
        &[kinetic(&v0) / 4.0],
        1e-15,
        0.0,
    );
}

/// ker G of the system at (0, q) as the columns of an orthonormal basis: the right singular
/// vectors of G padded with zero rows to n × n (so the SVD is full) whose singular values are
/// zero (n − m of them at a regular q).
fn null_space(sys: &dyn ConstrainedSystem, q: &[f64]) -> DMatrix<f64> {
    let d = sys.dims();
    let mut g = DMatrix::zeros(d.n, d.n);
    sys.phi_q_into(0.0, q, g.rows_mut(0, d.m));
    let svd = g.svd(false, true);
    let v_t = svd.v_t.expect("Vᵀ");
    let largest = svd.singular_values.max();
    let zero: Vec<usize> = (0..d.n)
        .filter(|&i| svd.singular_values[i] <= 1e-10 * largest)
        .collect();
    assert_eq!(zero.len(), d.n - d.m, "rank of G");
    DMatrix::from_columns(
        &zero
            .iter()
            .map(|&i| v_t.row(i).transpose())
            .collect::<Vec<_>>(),
    )
}

#[test]
fn the_velocity_correction_is_the_smallest_in_kinetic_energy() {
    // Andrews' squeezer (7 angles, a dense M, 6 loop rows): a v0 off the 1-DOF motion.
    let sys = Sys(Andrews);
    let v0: Vec<f64> = (0..7).map(|i| (1.0 + i as f64).sin()).collect();
    let r = initialize(&sys, 0.0, &Andrews::Q0, &v0, &InitOptions::default()).unwrap();
    let e = initialize(&sys, 0.0, &Andrews::Q0, &v0, &euclidean()).unwrap();
    let mut m = DMatrix::zeros(7, 7);
    sys.mass_into(0.0, &r.q, m.as_view_mut());
    let delta = DVector::from_iterator(7, r.v.iter().zip(&v0).map(|(a, b)| a - b));
    // Optimality of min ½ δᵀMδ subject to G(v0 + δ) = 0: M δ ⟂ ker G. Relative to ‖M δ‖
    // (round-off of one solve, amplified by the loop's conditioning ~1e3).
    let z = null_space(&sys, &r.q);
    let m_delta = &m * &delta;
    let along = (z.transpose() * &m_delta).amax();
    assert!(
        along <= 1e-12 * m_delta.amax(),
        "M δ has a component {along:e} along ker G (‖M δ‖ {:e})",
        m_delta.amax()
    );
    // …and so strictly less kinetic energy of the change than the Euclidean correction.
    let de = DVector::from_iterator(7, e.v.iter().zip(&v0).map(|(a, b)| a - b));
    let (cost, cost_e) = (delta.dot(&(&m * &delta)), de.dot(&(&m * &de)));
    assert!(
        cost < cost_e,
        "½δᵀMδ {cost:e} (mass) vs {cost_e:e} (Euclidean)"
    );
    assert!(r.residual.velocity <= 1e-12, "{:?}", r.residual);
}

#[test]
fn given_values_are_kept_where_the_constraints_allow() {
    let sys = Sys(Pendulum::UNIT);
    // y = −0.8 given: x follows from the circle (0.6 from the guess's 0.7), ẋ = 0.3 given:
    // ẏ from x ẋ + y ẏ = 0.
    let opts = InitOptions {
        keep_q: vec![1],
        keep_v: vec![0],
        ..InitOptions::default()
    };
    let r = initialize(&sys, 0.0, &[0.7, -0.8], &[0.3, 1.0], &opts).unwrap();
    assert_eq!((r.q[1], r.v[0]), (-0.8, 0.3), "given values kept exactly");
    assert_close("q", &r.q, &[0.6, -0.8], 1e-12, 0.0);
    assert_close("v", &r.v, &[0.3, 0.225], 1e-12, 0.0);
    assert!(r.released_q.is_empty() && r.released_v.is_empty() && r.release_cause.is_none());
    // Without keeping them, the nearest state moves y (radially) and ẋ.
    let free = initialize(
        &sys,
        0.0,
        &[0.7, -0.8],
        &[0.3, 1.0],
        &InitOptions::default(),
    )
    .unwrap();
    assert!(free.q[1] != -0.8 && free.v[0] != 0.3, "{free:?}");
}

#[test]
fn given_values_the_constraints_forbid_are_released_with_the_reason() {
    let sys = Sys(Pendulum::UNIT);
    // x = 0.6 and y = −0.6 given: not on the unit circle. The first given value is kept, the
    // second released; the cause is the failure with both kept.
    let opts = InitOptions {
        keep_q: vec![0, 1],
        ..InitOptions::default()
    };
    let r = initialize(&sys, 0.0, &[0.6, -0.6], &[0.0, 0.0], &opts).unwrap();
    assert_eq!(r.q[0], 0.6);
    assert_close("q", &r.q, &[0.6, -0.8], 1e-12, 0.0);
    assert_eq!(r.released_q, [1]);
    assert!(
        matches!(
            r.release_cause,
            Some(SimError::InitializationFailed {
                stage: InitStage::Positions,
                ..
            })
        ),
        "{:?}",
        r.release_cause
    );
    // Velocities likewise: at (0.6, −0.8) the given ẋ = ẏ = 1 violate x ẋ + y ẏ = 0; ẋ is
    // kept, ẏ = 0.75.
    let opts = InitOptions {
        keep_v: vec![0, 1],
        ..InitOptions::default()
    };
    let r = initialize(&sys, 0.0, &[0.6, -0.8], &[1.0, 1.0], &opts).unwrap();
    assert_close("v", &r.v, &[1.0, 0.75], 1e-12, 0.0);
    assert_eq!(r.released_v, [1]);
    // A value no state allows (|x| > ℓ) is released and the rest made consistent as without
    // it; the same value locked is an error.
    let opts = InitOptions {
        keep_q: vec![0],
        ..InitOptions::default()
    };
    let r = initialize(&sys, 0.0, &[1.5, -0.5], &[0.0, 0.0], &opts).unwrap();
    let free = initialize(
        &sys,
        0.0,
        &[1.5, -0.5],
        &[0.0, 0.0],
        &InitOptions::default(),
    )
    .unwrap();
    assert_eq!((r.released_q.as_slice(), &r.q), ([0].as_slice(), &free.q));
    let locked = InitOptions {
        locked: vec![0],
        ..InitOptions::default()
    };
    let err = initialize(&sys, 0.0, &[1.5, -0.5], &[0.0, 0.0], &locked).unwrap_err();
    assert!(
        matches!(
            err,
            SimError::InitializationFailed {
                stage: InitStage::Positions,
                ..
            }
        ),
        "{err}"
    );
    // Out-of-range indices are a typed error.
    let bad = InitOptions {
        keep_v: vec![2],
        ..InitOptions::default()
    };
    let err = initialize(&sys, 0.0, &[1.0, 0.0], &[0.0, 0.0], &bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid problem: initialize: keep_v velocity index 2 out of range (n = 2)"
    );
}

//! The hand-written test models checked against central finite differences, and the Andrews
//! KKT solve against the published q0'' and λ0 ([CHIN] P6, digest acceptance check).

use crate::common;

use common::models::{
    Andrews, KnifeEdge, MixedPendulum, Pendulum, RollingDisc, SlavedKnifeEdge, SliderCrank, TwoLink,
};
use common::{Model, Sys, assert_close};
use mbsim_runtime::{ConstrainedSystem, KktWorkspace, accelerations_into};
use nalgebra::DMatrix;

fn main_check<T: Model>(model: T, t: f64, q: &[f64], v: &[f64]) {
    let sys = Sys(model);
    let d = sys.dims();
    let (n, m, r) = (d.n, d.m, d.constraint_rows());
    // Central differences with step δ have truncation error ~δ² |f'''|/6 and rounding error
    // ~ε |f|/δ; δ = 1e-5 balances them near 1e-10 for the O(1..10) derivatives here, so the
    // tolerance 1e-7 (absolute plus relative) has a margin of 1000 on either.
    let delta = 1e-5;
    let tol = 1e-7;
    let mut jac = DMatrix::zeros(m, n);
    sys.phi_q_into(t, q, jac.as_view_mut());
    let mut l = DMatrix::zeros(m, n);
    sys.l_into(t, q, v, l.as_view_mut());
    let mut gamma = vec![0.0; r];
    sys.gamma_into(t, q, v, &mut gamma);
    let mut phi_t = vec![0.0; m];
    sys.phi_t_into(t, q, &mut phi_t);
    let phi_at = |t: f64, q: &[f64]| {
        let mut out = vec![0.0; m];
        sys.phi_into(t, q, &mut out);
        out
    };
    // Φ̇ = Φ_q v + Φ_t along (t + s, q + s v); its derivative in s gives −γ for the holonomic
    // rows (γ = −d²/ds² Φ(t + s, q + s v), the [CHIN] trick); the nonholonomic rows likewise
    // from A v + b along (t + s, q + s v, v + s v̇) with v̇ = 0.
    let rate = |s: f64| -> Vec<f64> {
        let qs: Vec<f64> = q.iter().zip(v).map(|(a, b)| a + s * b).collect();
        let mut jq = DMatrix::zeros(r, n);
        sys.phi_q_into(t + s, &qs, jq.view_mut((0, 0), (m, n)));
        sys.nh_matrix_into(t + s, &qs, jq.view_mut((m, 0), (d.k, n)));
        let mut tt = vec![0.0; m];
        sys.phi_t_into(t + s, &qs, &mut tt);
        let mut b = vec![0.0; d.k];
        sys.nh_offset_into(t + s, &qs, &mut b);
        (0..r)
            .map(|i| {
                (0..n).map(|j| jq[(i, j)] * v[j]).sum::<f64>()
                    + if i < m { tt[i] } else { b[i - m] }
            })
            .collect()
    };
    let (rp, rm) = (rate(delta), rate(-delta));
    let fd_gamma: Vec<f64> = (0..r).map(|i| -(rp[i] - rm[i]) / (2.0 * delta)).collect();
    assert_close(
        &format!("{} gamma", sys.name()),
        &gamma,
        &fd_gamma,
        tol,
        tol,
    );
    for j in 0..n {
        let mut qp = q.to_vec();
        let mut qm = q.to_vec();
        qp[j] += delta;
        qm[j] -= delta;
        let fd: Vec<f64> = phi_at(t, &qp)
            .iter()
            .zip(phi_at(t, &qm))
            .map(|(a, b)| (a - b) / (2.0 * delta))
            .collect();
        let col: Vec<f64> = jac.column(j).iter().copied().collect();
        assert_close(
            &format!("{} phi_q column {j}", sys.name()),
            &col,
            &fd,
            tol,
            tol,
        );
        let gv = |qq: &[f64]| {
            let mut jq = DMatrix::zeros(m, n);
            sys.phi_q_into(t, qq, jq.as_view_mut());
            jq * nalgebra::DVector::from_column_slice(v)
        };
        let fd_l: Vec<f64> = (gv(&qp) - gv(&qm))
            .iter()
            .map(|x| x / (2.0 * delta))
            .collect();
        let lcol: Vec<f64> = l.column(j).iter().copied().collect();
        assert_close(
            &format!("{} L column {j}", sys.name()),
            &lcol,
            &fd_l,
            tol,
            tol,
        );
    }
    let fd_t: Vec<f64> = phi_at(t + delta, q)
        .iter()
        .zip(phi_at(t - delta, q))
        .map(|(a, b)| (a - b) / (2.0 * delta))
        .collect();
    assert_close(&format!("{} phi_t", sys.name()), &phi_t, &fd_t, tol, tol);
    // M symmetric, exactly (the kernels copy the mirrored entries).
    let mut mass = DMatrix::zeros(n, n);
    sys.mass_into(t, q, mass.as_view_mut());
    assert_eq!(mass, mass.transpose(), "{}: M not symmetric", sys.name());
}

#[test]
fn pendulum_kernels_match_finite_differences() {
    main_check(Pendulum::UNIT, 0.0, &[0.6, -0.8], &[1.3, -0.4]);
    main_check(
        MixedPendulum(Pendulum::UNIT),
        0.0,
        &[0.6, -0.8, 0.7],
        &[1.3, -0.4, 0.9],
    );
}

#[test]
fn two_link_kernels_match_finite_differences() {
    main_check(TwoLink::case_one(), 0.0, &[1.1, -2.0], &[0.7, -1.3]);
    main_check(TwoLink::case_two(), 1.3, &[1.1, -2.0], &[0.7, -1.3]);
}

#[test]
fn andrews_kernels_match_finite_differences() {
    let v = [30.0, -20.0, 5.0, -7.0, 9.0, 11.0, -13.0];
    main_check(Andrews, 0.0, &Andrews::Q0, &v);
}

#[test]
fn knife_edge_and_slider_crank_kernels_match_finite_differences() {
    let knife = KnifeEdge {
        mass: 1.0,
        inertia: 0.2,
        slope_force: 2.0,
    };
    main_check(knife, 0.0, &[0.3, -0.2, 0.9], &[0.4, 1.1, -0.7]);
    main_check(
        RollingDisc::THESIS,
        0.0,
        &[0.3, -0.2, 0.9, 0.4, 1.3],
        &[0.4, 1.1, -0.7, 0.5, 0.8],
    );
    let slaved = SlavedKnifeEdge {
        knife,
        slave_mass: 0.5,
    };
    main_check(slaved, 0.0, &[0.3, -0.2, 0.9, 0.35], &[0.4, 1.1, -0.7, 0.3]);
    main_check(
        SliderCrank { linear: false },
        0.0,
        &[0.4, 2.5],
        &[1.2, -0.8],
    );
    main_check(SliderCrank { linear: true }, 0.0, &[0.4, 2.5], &[1.2, -0.8]);
}

#[test]
fn andrews_kkt_solve_reproduces_published_accelerations_and_multipliers() {
    let sys = Sys(Andrews);
    let mut phi = [0.0; 6];
    sys.phi_into(0.0, &Andrews::Q0, &mut phi);
    // q0 is consistent to the 30 printed digits; in f64 the residual is a few ulps of the
    // O(0.07) terms: 16 ε · 0.07 ≈ 2.5e-16.
    assert_close("andrews phi(q0)", &phi, &[0.0; 6], 2.5e-16, 0.0);
    let mut ws = KktWorkspace::new(sys.dims());
    let (mut qdd, mut lambda) = ([0.0; 7], [0.0; 6]);
    accelerations_into(
        &sys,
        0.0,
        &Andrews::Q0,
        &[0.0; 7],
        None,
        &mut ws,
        0.0,
        &mut qdd,
        &mut lambda,
    )
    .unwrap();
    // Acceptance target ~1e-10 relative (issue): the KKT matrix mixes M entries ~1e-6 with G
    // entries ~1e-2, but partial pivoting keeps the solve backward stable and the measured
    // error is 5e-16 (q0'') and 9e-16 (λ0) relative to the largest entry; the published zero
    // entries are checked in absolute terms scaled by that entry.
    let rel = |a: &[f64], b: &[f64], s: f64| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs() / s)
            .fold(0.0, f64::max)
    };
    eprintln!(
        "andrews KKT: max |q0'' error| / 14222 = {:.2e}, max |λ0 error| / 98.57 = {:.2e}",
        rel(&qdd, &Andrews::QDD0, 14222.0),
        rel(&lambda, &Andrews::LAMBDA0, 98.57)
    );
    assert_close("andrews q0''", &qdd, &Andrews::QDD0, 1e-10 * 14222.0, 1e-10);
    assert_close(
        "andrews lambda0",
        &lambda,
        &Andrews::LAMBDA0,
        1e-10 * 98.6,
        1e-10,
    );
}

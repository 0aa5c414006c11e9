//! The Lagrangian models against independent references, through their compiled kernels:
//! - the two-link manipulator's derived M and Q equal the ones printed in the thesis §4.4.3
//!   (SEEDS-DIGEST P7) at random states;
//! - the rolling disc (thesis (4.30)–(4.31), SEEDS-DIGEST P11, nonholonomic) derives with no hand
//!   work: its M and Q equal Lagrange's equations evaluated by central finite differences of a
//!   hand-typed f64 kinetic energy, M is symmetric positive definite, and A, b are (4.29).
//!
//! Tolerances. P7: same formula, different association of the terms, so rounding only:
//! 1e-13 × scale (scale = largest |entry|, ≥ 1; each entry is a sum of ≤ 10 terms ≤ scale).
//! Finite differences with step h = 1e-4 on a T that is quadratic in v: the v–v second
//! differences are exact up to rounding ε·|T|/h² ≈ 2e-8·|T|; the q and q–v differences add a
//! truncation error h²/6·|T'''| ≈ 2e-9·|T|. With |T| ≤ 10 at these states, 1e-6 is safe and
//! still 4 orders below a wrong term.

use mbsim_models::{RollingDisc, TwoLink};
use mbsim_runtime::ConstrainedSystem;
use mbsim_testkit::{Rng, assert_entry};
use nalgebra::DMatrix;

/// `|got − want| ≤ tol`, through the one comparison helper.
fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert_entry(what, "-", got, want, tol);
}

fn mass_and_force<S: ConstrainedSystem>(sys: &S, q: &[f64], v: &[f64]) -> (DMatrix<f64>, Vec<f64>) {
    let n = q.len();
    let mut mass = DMatrix::from_element(n, n, f64::NAN);
    sys.mass_into(0.0, q, mass.as_view_mut());
    let mut force = vec![f64::NAN; n];
    sys.force_into(0.0, q, v, &mut force);
    (mass, force)
}

/// Thesis §4.4.3 (digest P7): M and f as printed, g = 9.81 (baked in the model).
#[test]
fn two_link_matches_the_printed_mass_matrix_and_forces() {
    let g = 9.81;
    let mut rng = Rng::new(7);
    for _ in 0..20 {
        let (m1, m2, l1, l2) = (
            rng.uniform(0.5, 40.0),
            rng.uniform(0.5, 40.0),
            rng.uniform(0.5, 2.0),
            rng.uniform(0.5, 2.0),
        );
        let sys = TwoLink {
            m1,
            m2,
            l1,
            l2,
            b: 0.4679111,
        };
        let q = [rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0)];
        let v = [rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)];
        let (mass, force) = mass_and_force(&sys, &q, &v);
        let (c1, c2, s2, c12) = (q[0].cos(), q[1].cos(), q[1].sin(), (q[0] + q[1]).cos());
        let m11 = m1 * l1 * l1 / 3.0 + m2 * (l1 * l1 + l2 * l2 / 3.0 + l1 * l2 * c2);
        let m12 = m2 * (l2 * l2 / 3.0 + l1 * l2 * c2 / 2.0);
        let m22 = m2 * l2 * l2 / 3.0;
        let h = m2 * l1 * l2 * s2 / 2.0;
        let f1 = -m1 * g * l1 * c1 / 2.0 - m2 * g * (l1 * c1 + l2 * c12 / 2.0)
            + h * (2.0 * v[0] * v[1] + v[1] * v[1]);
        let f2 = -m2 * g * l2 * c12 / 2.0 - h * v[0] * v[0];
        let scale = [m11, m12, m22, f1, f2]
            .iter()
            .fold(1.0_f64, |s, x| s.max(x.abs()));
        let tol = 1e-13 * scale;
        close("M11", mass[(0, 0)], m11, tol);
        close("M12", mass[(0, 1)], m12, tol);
        close("M21", mass[(1, 0)], m12, tol);
        close("M22", mass[(1, 1)], m22, tol);
        close("f1", force[0], f1, tol);
        close("f2", force[1], f2, tol);
    }
}

/// The disc's energies typed by hand from the digest (P11), q = (x, y, φ, θ, ψ).
fn disc_energy(p: &RollingDisc, q: &[f64], v: &[f64]) -> f64 {
    let RollingDisc {
        m,
        r,
        A: a,
        C: c,
        g,
    } = *p;
    let (phi, theta) = (q[2], q[3]);
    let (xd, yd, phid, thetad, psid) = (v[0], v[1], v[2], v[3], v[4]);
    let translation = m / 2.0
        * (xd * xd + yd * yd + r * r * thetad * thetad + r * r * phid * phid * theta.sin().powi(2))
        - m * r
            * (thetad * theta.cos() * (xd * phi.sin() - yd * phi.cos())
                + phid * theta.sin() * (xd * phi.cos() + yd * phi.sin()));
    let rotation = a / 2.0 * (thetad * thetad + phid * phid * theta.cos().powi(2))
        + c / 2.0 * (psid + phid * theta.sin()).powi(2);
    let potential = m * g * r * theta.cos();
    translation + rotation - potential
}

/// Lagrange's equations by central differences of L = T − V (V has no v, T is quadratic in v):
/// M_jk = ∂²L/∂v_j∂v_k, Q_j = ∂L/∂q_j − Σ_k ∂²L/∂v_j∂q_k v_k.
fn finite_difference_eom(p: &RollingDisc, q: &[f64], v: &[f64]) -> (DMatrix<f64>, Vec<f64>) {
    let n = q.len();
    let h = 1e-4;
    let lag = |q: &[f64], v: &[f64]| disc_energy(p, q, v);
    let shift = |x: &[f64], i: usize, d: f64| {
        let mut y = x.to_vec();
        y[i] += d;
        y
    };
    let dl_dv = |q: &[f64], v: &[f64], j: usize| {
        (lag(q, &shift(v, j, h)) - lag(q, &shift(v, j, -h))) / (2.0 * h)
    };
    let mut mass = DMatrix::zeros(n, n);
    for j in 0..n {
        for k in 0..n {
            mass[(j, k)] =
                (dl_dv(q, &shift(v, k, h), j) - dl_dv(q, &shift(v, k, -h), j)) / (2.0 * h);
        }
    }
    let force = (0..n)
        .map(|j| {
            let dl_dq = (lag(&shift(q, j, h), v) - lag(&shift(q, j, -h), v)) / (2.0 * h);
            let coupling: f64 = (0..n)
                .map(|k| {
                    (dl_dv(&shift(q, k, h), v, j) - dl_dv(&shift(q, k, -h), v, j)) / (2.0 * h)
                        * v[k]
                })
                .sum();
            dl_dq - coupling
        })
        .collect();
    (mass, force)
}

#[test]
fn rolling_disc_derives_lagranges_equations() {
    let mut rng = Rng::new(11);
    for _ in 0..10 {
        let (m, r) = (rng.uniform(0.5, 2.0), rng.uniform(0.5, 1.5));
        let sys = RollingDisc {
            m,
            r,
            A: m * r * r / 4.0,
            C: m * r * r / 2.0,
            g: 9.81,
        };
        let q: Vec<f64> = (0..5).map(|_| rng.uniform(-1.2, 1.2)).collect();
        let v: Vec<f64> = (0..5).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let (mass, force) = mass_and_force(&sys, &q, &v);
        let (fd_mass, fd_force) = finite_difference_eom(&sys, &q, &v);
        for j in 0..5 {
            for k in 0..5 {
                close(&format!("M[{j}][{k}]"), mass[(j, k)], fd_mass[(j, k)], 1e-6);
                assert_eq!(mass[(j, k)], mass[(k, j)], "M symmetric");
            }
            close(&format!("Q[{j}]"), force[j], fd_force[j], 1e-6);
        }
        assert!(
            mass.clone().cholesky().is_some(),
            "M positive definite at q = {q:?}"
        );
        // Rolling without slipping (4.29): ẋ + r cos φ ψ̇ = 0, ẏ + r sin φ ψ̇ = 0.
        let mut a = DMatrix::from_element(2, 5, f64::NAN);
        sys.nh_matrix_into(0.0, &q, a.as_view_mut());
        let want = DMatrix::from_row_slice(
            2,
            5,
            &[
                1.0,
                0.0,
                0.0,
                0.0,
                r * q[2].cos(),
                0.0,
                1.0,
                0.0,
                0.0,
                r * q[2].sin(),
            ],
        );
        assert_eq!(a, want);
        let mut b = [f64::NAN; 2];
        sys.nh_offset_into(0.0, &q, &mut b);
        assert_eq!(b, [0.0, 0.0]);
        assert_eq!(sys.dims(), mbsim_runtime::Dims { n: 5, m: 0, k: 2 });
    }
}

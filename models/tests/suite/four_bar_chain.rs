//! The 40-window four-bar chain written with indexed families (`four_bar_chain.rs`, crank
//! angles; `four_bar_chain_bodies.rs`, 81 planar bodies) against its oracles:
//! 1. the crank-angle form's kernels (Φ, Φ_q, γ, L, M, Q) against the hand-written closed forms
//!    of the runtime's tests (`runtime/tests/suite/common/models/four_bar_chain.rs`) at random states;
//! 2. the exact 1-DOF reduction ψ̈ = κ sin ψ (κ derived in `four_bar_chain.rs`): the KKT
//!    accelerations of both forms on the parallelogram branch, and runs of both forms against
//!    the scalar ODE integrated by RK4 at a tiny step.
//!
//! Finite differences and the generated-vs-interpreter harness for every kernel of both models
//! are in `macro_vs_interpreter.rs` (shared with every other model).

use mbsim_models::four_bar_chain::{self, FourBarChain, WINDOWS};
use mbsim_models::four_bar_chain_bodies::{BODIES, FourBarChainBodies};
use mbsim_runtime::{
    ConstrainedSystem, KktWorkspace, Problem, Rkstab, accelerations_into, integrate,
};
use mbsim_testkit::{Rng, assert_entry};
use nalgebra::DMatrix;

/// The runtime's hand-written test models (the crank-angle chain's closed forms).
use crate::runtime_models;

use runtime_models::models::FourBarChain as HandWritten;

/// Every kernel's entry e (generated) against the closed form w: |e − w| ≤ 1e-12 · (1 + |w|).
/// The two evaluate the same functions by different formulas (the generated M_ii, for
/// instance, holds ℓ²(sin² θ + cos² θ) where the closed form has ℓ²); entries are O(10) and
/// each side errs by a few ulps of its largest term, far below 1e-12.
const KERNEL_TOL: f64 = 1e-12;

fn compare(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_entry(what, i, *g, *w, KERNEL_TOL * (1.0 + w.abs()));
    }
}

/// A vector kernel of (q, v) at t = 0, by name in the comparison table.
type VectorKernel = fn(&dyn ConstrainedSystem, &[f64], &[f64], &mut [f64]);
/// A matrix kernel of (q, v) at t = 0.
type MatrixKernel = fn(&dyn ConstrainedSystem, &[f64], &[f64], &mut DMatrix<f64>);

#[test]
fn crank_angle_kernels_match_the_hand_written_chain() {
    let generated = FourBarChain::unit();
    let oracle = runtime_models::Sys(HandWritten::unit(WINDOWS));
    assert_eq!(generated.dims(), oracle.dims());
    let (n, m) = (WINDOWS + 1, WINDOWS);
    let mut rng = Rng::new(40);
    for _ in 0..4 {
        let q = rng.vec(n, -3.0, 3.0);
        let v = rng.vec(n, -2.0, 2.0);
        let vectors: [(&str, usize, VectorKernel); 3] = [
            ("phi", m, |s, q, _, o| s.phi_into(0.0, q, o)),
            ("gamma", m, |s, q, v, o| s.gamma_into(0.0, q, v, o)),
            ("force", n, |s, q, v, o| s.force_into(0.0, q, v, o)),
        ];
        for (what, len, f) in vectors {
            let (mut got, mut want) = (vec![0.0; len], vec![0.0; len]);
            f(&generated, &q, &v, &mut got);
            f(&oracle, &q, &v, &mut want);
            compare(what, &got, &want);
        }
        let matrices: [(&str, usize, MatrixKernel); 3] = [
            ("phi_q", m, |s, q, _, o| {
                s.phi_q_into(0.0, q, o.as_view_mut())
            }),
            ("L", m, |s, q, v, o| s.l_into(0.0, q, v, o.as_view_mut())),
            ("mass", n, |s, q, _, o| s.mass_into(0.0, q, o.as_view_mut())),
        ];
        for (what, rows, f) in matrices {
            let (mut got, mut want) = (DMatrix::zeros(rows, n), DMatrix::zeros(rows, n));
            f(&generated, &q, &v, &mut got);
            f(&oracle, &q, &v, &mut want);
            compare(what, got.as_slice(), want.as_slice());
        }
    }
}

/// κ for the benchmark's data.
fn kappa() -> f64 {
    four_bar_chain::kappa(WINDOWS, 1.0, 9.81)
}

/// The KKT accelerations at a branch state, indices of the crank angles among the coordinates.
fn crank_accelerations(
    sys: &dyn ConstrainedSystem,
    q: &[f64],
    v: &[f64],
    cranks: &[usize],
) -> Vec<f64> {
    let dims = sys.dims();
    let mut ws = KktWorkspace::new(dims);
    let (mut vdot, mut lambda) = (vec![0.0; dims.n], vec![0.0; dims.constraint_rows()]);
    accelerations_into(sys, 0.0, q, v, None, &mut ws, 0.0, &mut vdot, &mut lambda)
        .expect("regular KKT system away from the horizontal positions");
    cranks.iter().map(|&i| vdot[i]).collect()
}

/// On the branch every crank's θ̈ is κ sin ψ (ψ = θ − π/2), at any speed: both forms. The
/// dense KKT solve of a system with condition ~1e3–1e4 (away from the singular θ ∈ {0, π})
/// loses about 4 digits, so 1e-10 relative to κ is the tolerance.
#[test]
fn branch_accelerations_follow_the_one_dof_reduction() {
    let kappa = kappa();
    assert!((kappa - 9.81 * 363.0 / 322.0).abs() < 1e-12, "κ for N = 40");
    let angles = FourBarChain::unit();
    let bodies = FourBarChainBodies::unit();
    let crank_phi: Vec<usize> = (0..=WINDOWS).map(|i| 2 * BODIES + i).collect();
    let all: Vec<usize> = (0..=WINDOWS).collect();
    for (theta, omega) in [
        (1.2, 0.7),
        (2.0, -1.5),
        (std::f64::consts::FRAC_PI_2 + 0.3, 3.0),
    ] {
        let want = kappa * (theta - std::f64::consts::FRAC_PI_2).sin();
        let q = vec![theta; WINDOWS + 1];
        let v = vec![omega; WINDOWS + 1];
        for (i, a) in crank_accelerations(&angles, &q, &v, &all)
            .iter()
            .enumerate()
        {
            assert_entry("crank angles: theta''", i, *a, want, 1e-10 * kappa);
        }
        let (q, v) = bodies.branch_state(theta, omega);
        for (i, a) in crank_accelerations(&bodies, &q, &v, &crank_phi)
            .iter()
            .enumerate()
        {
            assert_entry("bodies: phi''", i, *a, want, 1e-10 * kappa);
        }
    }
}

/// ψ(t) of ψ̈ = κ sin ψ from (ψ0, ω0) by classical RK4 with 10⁵ steps per second: the global
/// error is ~ (κ h²)² t ≈ 1e-16, the round-off of 10⁵ steps ~1e-13.
fn reduced(kappa: f64, psi0: f64, omega0: f64, t: f64) -> f64 {
    let steps = (t * 1e5).ceil() as usize;
    let h = t / steps as f64;
    let f = |y: [f64; 2]| [y[1], kappa * y[0].sin()];
    let mut y = [psi0, omega0];
    for _ in 0..steps {
        let k1 = f(y);
        let k2 = f([y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]]);
        let k3 = f([y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        for c in 0..2 {
            y[c] += h / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
        }
    }
    y[0]
}

/// A run from the benchmark's start (cranks vertical, 1 rad/s) against the reduction, up to
/// ψ ≈ 1 rad (before the singular horizontal position ψ = π/2, where the branches cross).
/// RKSTAB at rtol 1e-10 keeps its global error near 1e-9 over these few dozen steps; 1e-7 is
/// two orders above it and five below a wrong κ (1 % of κ moves ψ(t) by ~1e-3).
fn run_matches_reduction(
    sys: &dyn ConstrainedSystem,
    q0: &[f64],
    v0: &[f64],
    cranks: &[usize],
    t_end: f64,
) {
    let kappa = kappa();
    let problem = Problem::new(0.0, t_end, q0, v0).with_times(&[0.0, t_end / 2.0, t_end]);
    let (rec, _) = integrate(sys, &Rkstab::new(1e-10), &problem).expect("run on the branch");
    for (t, q) in rec.t.iter().zip(&rec.q) {
        let want = reduced(kappa, 0.0, 1.0, *t) + std::f64::consts::FRAC_PI_2;
        for &i in cranks {
            assert_entry(&format!("theta[{i}](t = {t})"), i, q[i], want, 1e-7);
        }
    }
}

#[test]
fn crank_angle_run_follows_the_reduction() {
    let sys = FourBarChain::unit();
    let (q0, v0) = FourBarChain::initial(&sys);
    let cranks: Vec<usize> = (0..=WINDOWS).collect();
    run_matches_reduction(&sys, &q0, &v0, &cranks, 0.6);
}

#[test]
fn body_run_follows_the_reduction() {
    let sys = FourBarChainBodies::unit();
    let (q0, v0) = FourBarChainBodies::initial(&sys);
    let cranks: Vec<usize> = (0..=WINDOWS).map(|i| 2 * BODIES + i).collect();
    run_matches_reduction(&sys, &q0, &v0, &cranks, 0.3);
}

/// The body form's Φ_q against central differences of Φ, and L = ∂(Φ_q v)/∂q against central
/// differences of Φ_q v, at a random state. With h = 1e-6 the truncation error is
/// ~h² |Φ'''| ≈ 1e-12 (entries of Φ are O(10): sin, cos and the positions iℓ) and the
/// round-off ~ε |Φ| / h ≈ 1e-9; 1e-7 is two orders above both.
#[test]
fn body_jacobians_match_finite_differences() {
    let sys = FourBarChainBodies::unit();
    let d = sys.dims();
    let (n, m) = (d.n, d.m);
    let mut rng = Rng::new(81);
    let (mut q, _) = sys.branch_state(1.1, 0.0);
    for x in q.iter_mut() {
        *x += rng.unit() * 0.2 - 0.1;
    }
    let v = rng.vec(n, -1.0, 1.0);
    let (mut jac, mut l) = (DMatrix::zeros(m, n), DMatrix::zeros(m, n));
    sys.phi_q_into(0.0, &q, jac.as_view_mut());
    sys.l_into(0.0, &q, &v, l.as_view_mut());
    let h = 1e-6;
    let phi_q_v = |q: &[f64]| {
        let mut j = DMatrix::zeros(m, n);
        sys.phi_q_into(0.0, q, j.as_view_mut());
        j * nalgebra::DVector::from_column_slice(&v)
    };
    for c in 0..n {
        let (mut qp, mut qm) = (q.clone(), q.clone());
        qp[c] += h;
        qm[c] -= h;
        let (mut fp, mut fm) = (vec![0.0; m], vec![0.0; m]);
        sys.phi_into(0.0, &qp, &mut fp);
        sys.phi_into(0.0, &qm, &mut fm);
        let (gp, gm) = (phi_q_v(&qp), phi_q_v(&qm));
        for r in 0..m {
            let fd = (fp[r] - fm[r]) / (2.0 * h);
            assert_entry(&format!("phi_q col {c}"), r, jac[(r, c)], fd, 1e-7);
            let fd = (gp[r] - gm[r]) / (2.0 * h);
            assert_entry(&format!("L col {c}"), r, l[(r, c)], fd, 1e-7);
        }
    }
}

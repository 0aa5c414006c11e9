//! The banded KKT path (issue 13, item 4) on the 40-window four-bar chain in body coordinates
//! (243 coordinates, 242 joint rows): the hand-written kernels against finite differences, the
//! automatic choice of the layout, banded against dense solves, and a run whose crank angle
//! follows the chain's exact one-degree-of-freedom reduction.

use crate::common;

use common::Sys;
use common::models::{Andrews, FourBarBodies};
use mbsim_runtime::{
    ConstrainedSystem, KktLayout, KktSolver, KktWorkspace, Problem, Rkstab, Stabilization,
    accelerations_into, integrate,
};
use mbsim_testkit::{assert_below, assert_entry};
use nalgebra::DMatrix;

const WINDOWS: usize = 40;

/// A generic state near the parallelogram branch (not on it, so no entry vanishes by symmetry).
fn generic_state(chain: &FourBarBodies) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut v) = chain.state_at(-1.1, 0.7);
    for (i, (qi, vi)) in q.iter_mut().zip(v.iter_mut()).enumerate() {
        *qi += 1e-3 * (i as f64 * 0.37).sin();
        *vi += 1e-2 * (i as f64 * 0.11).cos();
    }
    (q, v)
}

#[test]
fn body_chain_kernels_match_finite_differences() {
    let sys = Sys(FourBarBodies::unit(3));
    let d = sys.dims();
    let (q, v) = generic_state(&sys.0);
    let mut jac = DMatrix::zeros(d.m, d.n);
    sys.phi_q_into(0.0, &q, jac.as_view_mut());
    let mut l = DMatrix::zeros(d.m, d.n);
    sys.l_into(0.0, &q, &v, l.as_view_mut());
    // Central differences, δ = 1e-6: truncation δ²|f'''|/6 ≈ 2e-13 and rounding ε|f|/δ ≈ 1e-9
    // for O(1) values, so 1e-7 leaves a margin of 100.
    let delta = 1e-6;
    let phi = |x: &[f64]| {
        let mut out = vec![0.0; d.m];
        sys.phi_into(0.0, x, &mut out);
        out
    };
    let jv = |x: &[f64]| {
        let mut g = DMatrix::zeros(d.m, d.n);
        sys.phi_q_into(0.0, x, g.as_view_mut());
        (g * nalgebra::DVector::from_column_slice(&v))
            .as_slice()
            .to_vec()
    };
    for j in 0..d.n {
        let (mut xp, mut xm) = (q.clone(), q.clone());
        xp[j] += delta;
        xm[j] -= delta;
        let (pp, pm, jp, jm) = (phi(&xp), phi(&xm), jv(&xp), jv(&xm));
        for i in 0..d.m {
            let at = format!("{i},{j}");
            let fd_jac = (pp[i] - pm[i]) / (2.0 * delta);
            let fd_l = (jp[i] - jm[i]) / (2.0 * delta);
            assert_entry(
                "phi_q",
                &at,
                jac[(i, j)],
                fd_jac,
                1e-7 * (1.0 + fd_jac.abs()),
            );
            assert_entry("L", &at, l[(i, j)], fd_l, 1e-7 * (1.0 + fd_l.abs()));
        }
    }
    let mut gamma = vec![0.0; d.m];
    sys.gamma_into(0.0, &q, &v, &mut gamma);
    let lv = &l * nalgebra::DVector::from_column_slice(&v);
    for i in 0..d.m {
        // γ = −L v for scleronomic constraints; both are sums of a few O(1) products.
        assert_entry("gamma", i, gamma[i], -lv[i], 1e-14 * (1.0 + lv[i].abs()));
    }
    // The stated pattern covers every nonzero of Φ_q (else the banded path would drop it).
    let pattern = sys.phi_q_sparsity();
    for i in 0..d.m {
        for j in 0..d.n {
            if jac[(i, j)] != 0.0 {
                assert!(pattern.nonzeros.contains(&(i, j)), "({i}, {j})");
            }
        }
    }
}

/// The layout a fresh workspace takes on its first solve.
fn layout_of<S: ConstrainedSystem>(sys: &S, solver: KktSolver, q: &[f64], v: &[f64]) -> KktLayout {
    let d = sys.dims();
    let mut ws = KktWorkspace::with_solver(d, solver);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    accelerations_into(sys, 0.0, q, v, None, &mut ws, 0.0, &mut vdot, &mut lambda)
        .expect("regular");
    ws.layout().expect("factored")
}

#[test]
fn auto_picks_the_band_for_the_chain_and_dense_for_andrews() {
    let chain = Sys(FourBarBodies::unit(WINDOWS));
    let (q, v) = generic_state(&chain.0);
    let layout = layout_of(&chain, KktSolver::Auto, &q, &v);
    println!("40-window chain, body coordinates: {layout:?}");
    // RCM on a chain of bodies: every unknown couples only to its neighbouring bodies' rows, so
    // the half-bandwidth stays a small constant whatever N (measured 5; 8 leaves room for a
    // different tie-break in the ordering).
    assert!(
        matches!(layout, KktLayout::Banded { order: 485, bandwidth } if bandwidth <= 8),
        "{layout:?}"
    );
    let dense = layout_of(&chain, KktSolver::Dense, &q, &v);
    assert_eq!(dense, KktLayout::Dense { order: 485 });
    let andrews = Sys(Andrews);
    let (q, v) = (Andrews::Q0.to_vec(), vec![0.0; 7]);
    assert_eq!(
        layout_of(&andrews, KktSolver::Auto, &q, &v),
        KktLayout::Dense { order: 13 }
    );
}

#[test]
fn banded_and_dense_solves_agree() {
    let sys = Sys(FourBarBodies::unit(WINDOWS));
    let d = sys.dims();
    let (q, v) = generic_state(&sys.0);
    let solve = |solver| {
        let mut ws = KktWorkspace::with_solver(d, solver);
        let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.m]);
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
        (vdot, lambda)
    };
    let (vdot_b, lambda_b) = solve(KktSolver::Banded);
    let (vdot_d, lambda_d) = solve(KktSolver::Dense);
    // Two backward-stable factorizations of the same matrix: the solutions differ by about
    // κ·ε relative to their size; the multipliers of this chain reach ~10³ (a 40-rod chain
    // hanging on its pivots), κ(KKT) ≈ 10⁴ here, so 1e-10 of the largest value is a margin
    // of ~100 over κ·ε ≈ 2e-12.
    let scale_v = vdot_d.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    let scale_l = lambda_d.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    for i in 0..d.n {
        assert_entry("vdot", i, vdot_b[i], vdot_d[i], 1e-10 * scale_v);
    }
    for i in 0..d.m {
        assert_entry("lambda", i, lambda_b[i], lambda_d[i], 1e-10 * scale_l);
    }
}

/// κ in θ'' = −κ cos θ: on the parallelogram branch every crank turns by θ and every coupler
/// translates with the crank tips, so T = ½ θ̇² mℓ²((N + 1)/3 + N) and
/// V = mgℓ sin θ ((N + 1)/2 + N) (crank centres at ℓ/2, couplers at ℓ), hence
/// κ = (g/ℓ)((N + 1)/2 + N)/((N + 1)/3 + N).
fn kappa(chain: &FourBarBodies) -> f64 {
    let n = chain.windows as f64;
    chain.g / chain.len * ((n + 1.0) / 2.0 + n) / ((n + 1.0) / 3.0 + n)
}

/// θ(t) of θ'' = −κ cos θ by classical RK4 with 10⁴ steps per second (global error
/// ~h⁴κ² ≈ 1e-14 over the run).
fn reduced_angle(kappa: f64, theta0: f64, times: &[f64]) -> Vec<f64> {
    let h = 1e-4;
    let f = |th: f64, w: f64| (w, -kappa * th.cos());
    let (mut t, mut th, mut w) = (0.0, theta0, 0.0);
    let mut out = Vec::new();
    for &target in times {
        while t < target - 1e-12 {
            let (a1, b1) = f(th, w);
            let (a2, b2) = f(th + h / 2.0 * a1, w + h / 2.0 * b1);
            let (a3, b3) = f(th + h / 2.0 * a2, w + h / 2.0 * b2);
            let (a4, b4) = f(th + h * a3, w + h * b3);
            th += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
            w += h / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4);
            t += h;
        }
        out.push(th);
    }
    out
}

#[test]
fn banded_run_follows_the_exact_reduction() {
    let sys = Sys(FourBarBodies::unit(WINDOWS));
    // Released at rest 0.5 rad from the hanging position: the chain swings between
    // θ = −π/2 ± 0.5 and never reaches the singular horizontal positions.
    let theta0 = -std::f64::consts::FRAC_PI_2 + 0.5;
    let (q0, v0) = sys.0.state_at(theta0, 0.0);
    let times: Vec<f64> = (1..=20).map(|i| 0.1 * f64::from(i)).collect();
    let run = |kkt: KktSolver| {
        let mut method = Rkstab::new(1e-10)
            .with_atol(1e-10)
            .with_stabilization(Stabilization::PStab);
        method.common.kkt = kkt;
        let problem = Problem::new(0.0, 2.0, &q0, &v0).with_times(&times);
        integrate(&sys, &method, &problem).expect("run")
    };
    let (banded, sol_b) = run(KktSolver::Auto);
    let reference = reduced_angle(kappa(&sys.0), theta0, &times);
    for (k, sample_q) in banded.q.iter().enumerate() {
        // Crank 0's angle is coordinate 2. RKSTAB at rtol = atol = 1e-10 keeps the global error
        // of this smooth 2 s swing near 1e-9; 1e-7 is a margin of 100.
        assert_entry("crank 0 vs reduction", k, sample_q[2], reference[k], 1e-7);
        // Every crank turns alike on the branch.
        for i in 1..=WINDOWS {
            assert_entry(
                "crank i vs crank 0",
                i,
                sample_q[6 * i + 2],
                sample_q[2],
                1e-7,
            );
        }
    }
    // PStab every step keeps Φ at the Newton/round-off level of the projection.
    assert_below("max ‖Φ‖", sol_b.stats.max_drift.position, 1e-9);
    println!("banded run: {} steps", sol_b.stats.nstep);
}

/// The chain with a pattern that leaves out the angle columns of Φ_q: a wrong hand-written
/// pattern.
struct Understated(FourBarBodies);

impl common::Model for Understated {
    fn name(&self) -> &'static str {
        "Understated"
    }
    fn dims(&self) -> mbsim_runtime::Dims {
        self.0.dims()
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.0.phi(t, q, out);
    }
    fn phi_q(&self, t: f64, q: &[f64], out: &mut mbsim_runtime::MatOut<'_>) {
        self.0.phi_q(t, q, out);
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.0.gamma(t, q, v, out);
    }
    fn mass(&self, t: f64, q: &[f64], out: &mut mbsim_runtime::MatOut<'_>) {
        self.0.mass(t, q, out);
    }
    fn force(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.0.force(t, q, v, out);
    }
    fn phi_q_pattern(&self) -> Option<Vec<(usize, usize)>> {
        let full = self.0.phi_q_pattern();
        Some(full.into_iter().filter(|&(_, c)| c % 3 != 2).collect())
    }
    fn mass_pattern(&self) -> Option<Vec<(usize, usize)>> {
        Some(self.0.mass_pattern())
    }
}

#[test]
fn a_pattern_missing_nonzeros_falls_back_to_dense() {
    use common::Model;
    let sys = Sys(Understated(FourBarBodies::unit(WINDOWS)));
    let (q, v) = generic_state(&sys.0.0);
    // The understated pattern is narrower still, so the band is chosen first; the check of
    // the first factorization finds Φ_q's angle entries outside it and switches to dense.
    assert_eq!(
        layout_of(&sys, KktSolver::Auto, &q, &v),
        KktLayout::Dense { order: 485 }
    );
    let reference = Sys(FourBarBodies::unit(WINDOWS));
    let d = sys.0.dims();
    let solve = |s: &dyn ConstrainedSystem| {
        let mut ws = KktWorkspace::new(d);
        let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.m]);
        accelerations_into(s, 0.0, &q, &v, None, &mut ws, 0.0, &mut vdot, &mut lambda)
            .expect("regular");
        vdot
    };
    let (got, want) = (solve(&sys), solve(&reference));
    let scale = want.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    for i in 0..d.n {
        // Dense against banded on the same matrix: see `banded_and_dense_solves_agree`.
        assert_entry("vdot", i, got[i], want[i], 1e-10 * scale);
    }
}

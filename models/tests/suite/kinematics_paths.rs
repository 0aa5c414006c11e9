//! Kinematic analysis and inverse dynamics on the banded path (a square Φ_q factored in its
//! band, issue 27) against the dense path (`initialize` and the SVD at every point), on the
//! driven A02 chain in body coordinates (`four-bar-chain-driven`, n = m = 243, sparse forms:
//! the banded path by default) and on the crank-driven four-bar at its change point (n = 3,
//! dense forms: the banded path forced), and against the chain's exact motion.
//!
//! Tolerances. Both paths stop Newton at ‖Φ‖∞ ≤ 1e-12 from the same prediction, so their q
//! differ by at most ‖Φ_q⁻¹‖∞ · 2e-12; with κ₁(Φ_q) ≤ 1.2e4 here (the estimate below,
//! bounded by κ₁) and ‖Φ_q‖₁ ≥ 1, ‖Φ_q⁻¹‖₁ ≤ 1.2e4 and that bound is ~2.4e-8 in the 1-norm —
//! a worst case; the differences seen are round-off (printed). v, a and λ follow from q through
//! solves with the same Φ_q (and the same KKT matrix), so they carry the same relative
//! perturbation times the condition: the comparisons use 1e-8 relative to each vector's size
//! (`compare`), which the worst case allows.

use mbsim_models::{FourBarChainDriven, FourBarChangePoint};
use mbsim_runtime::ConstrainedSystem;
use mbsim_runtime::analysis::{
    self, ConditionMeasure, KinematicOptions, KinematicSolver, Kinematics,
};
use mbsim_testkit::{assert_below, assert_entry, compare};
use nalgebra::DMatrix;

fn run(
    sys: &dyn ConstrainedSystem,
    times: &[f64],
    q0: &[f64],
    solver: KinematicSolver,
) -> Kinematics {
    let opts = KinematicOptions {
        solver,
        ..KinematicOptions::default()
    };
    analysis::kinematics(sys, times, q0, &opts).expect("kinematic analysis")
}

/// κ₁ = ‖Φ_q‖₁ ‖Φ_q⁻¹‖₁ at (t, q), dense (the test's reference for the estimate).
fn kappa1(sys: &dyn ConstrainedSystem, t: f64, q: &[f64]) -> f64 {
    let n = q.len();
    let mut g = DMatrix::zeros(n, n);
    sys.phi_q_into(t, q, g.as_view_mut());
    let inverse = g.clone().try_inverse().expect("regular Φ_q");
    let norm1 = |m: &DMatrix<f64>| {
        (0..n)
            .map(|j| m.column(j).iter().map(|x| x.abs()).sum::<f64>())
            .fold(0.0, f64::max)
    };
    norm1(&g) * norm1(&inverse)
}

/// Both paths' points agree (module docs), their determinants to the same relative 1e-8, and
/// the banded estimate lies in [κ₁/3, κ₁].
fn agree(sys: &dyn ConstrainedSystem, banded: &Kinematics, dense: &Kinematics) {
    assert_eq!(banded.condition_measure, ConditionMeasure::OneNormEstimate);
    assert_eq!(dense.condition_measure, ConditionMeasure::TwoNormSvd);
    let (mut worst, mut ratios) = (0.0_f64, (f64::INFINITY, 0.0_f64));
    for (b, d) in banded.points.iter().zip(&dense.points) {
        let at = |what: &str| format!("{} {what} at t = {}", sys.name(), b.t);
        compare(&at("q"), &b.q, &d.q, 1e-8);
        compare(&at("v"), &b.v, &d.v, 1e-8);
        compare(&at("a"), &b.a, &d.a, 1e-8);
        compare(&at("lambda"), &b.lambda, &d.lambda, 1e-8);
        assert_entry(
            &at("det"),
            0,
            b.determinant,
            d.determinant,
            1e-8 * d.determinant.abs(),
        );
        let kappa = kappa1(sys, b.t, &b.q);
        ratios = (
            ratios.0.min(b.condition / kappa),
            ratios.1.max(b.condition / kappa),
        );
        assert!(
            kappa / 3.0 <= b.condition && b.condition <= kappa * (1.0 + 1e-10),
            "{}: κ̂₁ {} against κ₁ {kappa}",
            at("condition"),
            b.condition
        );
        assert_below(&at("residual"), b.residual, 1e-12);
        let diff =
            b.q.iter()
                .zip(&d.q)
                .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        worst = worst.max(diff);
    }
    assert_eq!(banded.points.len(), dense.points.len());
    assert_eq!(banded.singular_passages(), dense.singular_passages());
    println!(
        "{}: max |q_banded − q_dense| = {worst:.2e}, κ̂₁/κ₁ in [{:.3}, {:.3}]",
        sys.name(),
        ratios.0,
        ratios.1
    );
}

#[test]
fn the_driven_chain_takes_the_banded_path_and_matches_the_dense_one_and_the_exact_motion() {
    let sys = FourBarChainDriven::unit();
    let (q0, _) = FourBarChainDriven::initial(&sys);
    let times: Vec<f64> = (0..=10).map(|i| i as f64 * 0.1).collect();
    let banded = run(&sys, &times, &q0, KinematicSolver::Auto);
    let dense = run(&sys, &times, &q0, KinematicSolver::Dense);
    agree(&sys, &banded, &dense);
    // The exact motion (every crank at θ₀ + ω t): positions and velocities to Newton's
    // tolerance times the condition (≤ 1e-12 · 1.2e4 ≈ 1e-8, module docs).
    for p in &banded.points {
        let (q, v) = sys.exact_state(p.t);
        compare(&format!("exact q at t = {}", p.t), &p.q, &q, 1e-8);
        compare(&format!("exact v at t = {}", p.t), &p.v, &v, 1e-8);
    }
    // Inverse dynamics: the reactions −λ_i ∇Φ_i from the nonzeros equal the dense G's.
    let opts = KinematicOptions::default();
    let inverse = analysis::inverse_dynamics(&sys, &times[..3], &q0, &opts).expect("inverse");
    for (p, reactions) in inverse.kinematics.points.iter().zip(&inverse.reactions) {
        let n = p.q.len();
        let mut g = DMatrix::zeros(n, n);
        sys.phi_q_into(p.t, &p.q, g.as_view_mut());
        for r in reactions {
            let want: Vec<f64> = (0..n).map(|j| -p.lambda[r.row] * g[(r.row, j)]).collect();
            compare(
                &format!("reaction {} at t = {}", r.name, p.t),
                &r.dense(n),
                &want,
                0.0,
            );
        }
    }
}

#[test]
fn the_banded_path_forced_on_the_small_four_bar_finds_the_same_passage_and_singular_point() {
    let sys = FourBarChangePoint::chosen();
    let (q0, _) = FourBarChangePoint::initial(&sys);
    // Across t = π (the change point, det Φ_q = 6 sin(θ2 − θ3) changes sign).
    let times: Vec<f64> = (0..=40).map(|i| i as f64 * 0.1).collect();
    let banded = run(&sys, &times, &q0, KinematicSolver::Banded);
    let dense = run(&sys, &times, &q0, KinematicSolver::Dense);
    agree(&sys, &banded, &dense);
    assert_eq!(banded.singular_passages().len(), 1);
    // Auto keeps the dense path for a model without the sparse forms.
    let auto = run(&sys, &times[..2], &q0, KinematicSolver::Auto);
    assert_eq!(auto.condition_measure, ConditionMeasure::TwoNormSvd);
    // At t = π exactly Φ_q is singular: the banded path hands the point to the dense one,
    // whose error names the configuration and `loop_x`.
    let opts = KinematicOptions {
        solver: KinematicSolver::Banded,
        ..KinematicOptions::default()
    };
    let pi = std::f64::consts::PI;
    let err = analysis::kinematics(&sys, &[pi], &[pi, 0.0, pi], &opts).unwrap_err();
    assert!(err.to_string().contains("loop_x"), "{err}");
}

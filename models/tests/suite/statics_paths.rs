//! `check`, settling and the reduced-Newton equilibrium on the banded path
//! (`runtime/src/analysis/statics_band.rs`, issue 27) against the dense path.
//!
//! - `check`: at every catalog model's (and defective model's) initial guess, the banded path
//!   forced and the dense one name the same redundant rows, the same rank and the same weakest
//!   row; the condition is the same number where both take the SVD of the same G, and within
//!   2e-6 relative where the banded path estimates it by Lanczos (the A02
//!   chain in body coordinates and its driven form under `Auto` do); the relative
//!   distances and the dependency coefficients are least-squares solutions of the same
//!   problem by two factorizations, equal to round-off amplified by the condition of the kept
//!   rows (≤ 1e3 on these models' kept rows, so 1e-10 absolute on distances and 1e-10 relative
//!   to the largest coefficient leave a margin of 10³ over ε·κ).
//! - Reduced Newton (every catalog model with an energy and tangent kernels, the banded path
//!   forced): both stop at a reduced gradient ≤ `tol` = 1e-10 from a minimum whose smallest
//!   reduced-Hessian eigenvalue is μ_min, so each q is within tol/μ_min of it (Newton's error
//!   bound near a nondegenerate minimum) and they differ by at most 2·tol/μ_min (plus the
//!   projections' 1e-13); λ and the eigenvalues (basis-independent) follow to the same
//!   relative order.
//! - Settling: the A02 chain with an extra crank (over-constrained, 1 DOF) and, in release
//!   builds, the body chain from θ = −0.5: both paths integrate the same trajectory (the
//!   rest test is only read between windows), so they stop after the same window at the same
//!   q unless the rest test's reading differs within round-off at a window's end.
//! - The condition of [M Gᵀ; G 0] that names a singular configuration
//!   (`runtime/src/analysis/condition_augmented.rs`): at every catalog model's initial guess,
//!   the Lanczos estimate (forced, and under `Auto` where it applies: the A02 chains in body
//!   coordinates) against the dense SVD, within 2e-6 relative (each σ to a Ritz residual of
//!   1e-6) plus the round-off of the two solves' σ_min, ~ε·κ.

use mbsim_models::{FourBarChainBodies, FourBarChainExtra};
use mbsim_runtime::analysis::{
    self, ConditionMeasure, EquilibriumOptions, KinematicSolver, SettlingOptions,
};
use mbsim_runtime::{ConstrainedSystem, Energy, TangentSystem};
use mbsim_testkit::{assert_entry, compare};

fn check_agrees(name: &str, sys: &dyn ConstrainedSystem, q: &[f64]) {
    let dense = analysis::check_with(sys, 0.0, q, KinematicSolver::Dense).expect("dense check");
    let banded = analysis::check_with(sys, 0.0, q, KinematicSolver::Banded).expect("banded check");
    let (d, b) = (&dense.jacobian, &banded.jacobian);
    assert_eq!(b.rank, d.rank, "{name}: rank");
    assert_eq!(
        b.weakest.map(|w| w.0),
        d.weakest.map(|w| w.0),
        "{name}: weakest row"
    );
    let rows = |r: &analysis::JacobianRank| -> Vec<String> {
        r.redundant.iter().map(|x| x.row.name.clone()).collect()
    };
    assert_eq!(rows(b), rows(d), "{name}: redundant rows");
    if d.redundant.is_empty() {
        assert_eq!(d.condition_measure, ConditionMeasure::TwoNormSvd, "{name}");
        assert_eq!(
            d.kept_condition,
            (d.condition, d.condition_measure),
            "{name}"
        );
    } else {
        // Dependent rows: ∞ on both paths, without an SVD of G.
        for r in [d, b] {
            assert_eq!(
                r.condition_measure,
                ConditionMeasure::RankDeficient,
                "{name}"
            );
            assert_eq!(r.condition, f64::INFINITY, "{name}");
        }
    }
    assert_eq!(d.kept_condition.1, ConditionMeasure::TwoNormSvd, "{name}");
    let (kept_b, kept_d) = (b.kept_condition.0, d.kept_condition.0);
    if b.kept_condition.1 == ConditionMeasure::TwoNormIterative {
        // Lanczos on GGᵀ and (GGᵀ)⁻¹ (`condition_sparse.rs`), of the independent rows: each
        // eigenvalue to a relative Ritz residual of 1e-6, so each σ within 5e-7 and their
        // ratio within 1e-6 of the SVD's; 2e-6 leaves a factor 2 for the round-off of both
        // computations (ε·κ).
        let relative = (kept_b - kept_d).abs() / kept_d;
        assert!(
            relative <= 2e-6,
            "{name}: condition of the independent rows {kept_b} vs SVD {kept_d} ({relative:.2e})"
        );
    } else {
        // The same dense SVD of the same rows.
        assert_eq!(kept_b, kept_d, "{name}: condition of the independent rows");
    }
    if b.condition_measure != ConditionMeasure::RankDeficient {
        assert_eq!(b.condition, kept_b, "{name}");
    }
    if let (Some(wb), Some(wd)) = (b.weakest, d.weakest) {
        assert_entry(&format!("{name} weakest distance"), 0, wb.1, wd.1, 1e-10);
    }
    for (rb, rd) in b.redundant.iter().zip(&d.redundant) {
        let what = format!("{name} row {}", rd.row.name);
        assert_entry(&what, "distance", rb.row.distance, rd.row.distance, 1e-10);
        let big = rd.combination.iter().fold(1.0_f64, |s, c| s.max(c.2.abs()));
        for (cb, cd) in rb.combination.iter().zip(&rd.combination) {
            assert_eq!(cb.0, cd.0, "{what}: combination rows");
            assert_entry(&what, &cd.1, cb.2, cd.2, 1e-10 * big);
        }
        assert_eq!(rb.combination.len(), rd.combination.len(), "{what}: terms");
    }
}

#[test]
fn check_names_the_same_rows_on_both_paths_for_every_model() {
    let entries = mbsim_models::catalog()
        .iter()
        .chain(mbsim_models::defective());
    let mut redundant_models = Vec::new();
    for entry in entries {
        let sys = (entry.build)();
        let (q, _) = (entry.initial)(sys.as_ref());
        check_agrees(entry.name, sys.as_ref(), &q);
        let d = analysis::check(sys.as_ref(), 0.0, &q).expect("check");
        if !d.jacobian.redundant.is_empty() {
            redundant_models.push(entry.name);
        }
    }
    // The chains in body coordinates take the iterative condition under `Auto` (the
    // comparison above is not vacuous): the A02 chain (G 242 × 243) and its driven form
    // (243 × 243).
    for name in ["four-bar-chain-bodies", "four-bar-chain-driven"] {
        let (sys, q) = catalog_model(name);
        let d = analysis::check(sys.as_ref(), 0.0, &q).expect("check");
        assert_eq!(
            d.jacobian.condition_measure,
            ConditionMeasure::TwoNormIterative,
            "{name}"
        );
    }
    // The over-constrained models are among them (the test is not vacuous).
    for name in ["triple-crank", "four-bar-chain-extra", "redundant-pendulum"] {
        assert!(
            redundant_models.contains(&name),
            "{name}: {redundant_models:?}"
        );
    }
    // Their independent rows' condition takes the Lanczos runs on the banded path (no SVD).
    for name in ["triple-crank", "four-bar-chain-extra"] {
        let (sys, q) = catalog_model(name);
        let b = analysis::check_with(sys.as_ref(), 0.0, &q, KinematicSolver::Banded);
        let kept = b.expect("banded check").jacobian.kept_condition;
        assert_eq!(kept.1, ConditionMeasure::TwoNormIterative, "{name}");
    }
}

/// The catalog model `name` and its initial positions.
fn catalog_model(name: &str) -> (Box<dyn ConstrainedSystem>, Vec<f64>) {
    let entry = mbsim_models::catalog()
        .iter()
        .find(|e| e.name == name)
        .expect(name);
    let sys = (entry.build)();
    let (q, _) = (entry.initial)(sys.as_ref());
    (sys, q)
}

fn newton_agrees<S: TangentSystem + Energy>(name: &str, sys: &S, q0: &[f64]) {
    let run = |solver| {
        let opts = EquilibriumOptions {
            solver,
            ..EquilibriumOptions::default()
        };
        let found = analysis::equilibrium(sys, q0, &opts);
        found.unwrap_or_else(|e| panic!("{name} {solver:?}: {e}"))
    };
    let (dense, banded) = (run(KinematicSolver::Dense), run(KinematicSolver::Banded));
    assert_eq!(banded.stability, dense.stability, "{name}: stability");
    let mu_min = dense
        .hessian_eigenvalues
        .iter()
        .fold(f64::INFINITY, |s, x| s.min(x.abs()));
    let scale = dense.q.iter().fold(1.0_f64, |s, x| s.max(x.abs()));
    let bound = (2.0 * 1e-10 / mu_min + 2e-13) / scale;
    compare(&format!("{name} q"), &banded.q, &dense.q, bound);
    compare(
        &format!("{name} λ"),
        &banded.lambda,
        &dense.lambda,
        1e3 * bound,
    );
    let big = dense
        .hessian_eigenvalues
        .iter()
        .fold(1.0_f64, |s, x| s.max(x.abs()));
    compare(
        &format!("{name} eigenvalues"),
        &banded.hessian_eigenvalues,
        &dense.hessian_eigenvalues,
        1e3 * bound * big,
    );
}

#[test]
fn reduced_newton_agrees_on_both_paths() {
    let guess = |name: &str, sys: &dyn ConstrainedSystem| {
        let entry = mbsim_models::catalog()
            .iter()
            .find(|e| e.name == name)
            .expect(name);
        (entry.initial)(sys).0
    };
    let bar = mbsim_models::SpringBar::chosen();
    newton_agrees("spring-bar", &bar, &guess("spring-bar", &bar));
    let crank = mbsim_models::RigidSliderCrankCh5::published();
    newton_agrees(
        "rigid-slider-crank-ch5",
        &crank,
        &guess("rigid-slider-crank-ch5", &crank),
    );
    // (deformable-slider-crank: the dense path does not converge from the catalog's guess.)
}

fn settle_agrees(name: &str, sys: &dyn ConstrainedSystem, q0: &[f64]) {
    let run = |solver| {
        let opts = SettlingOptions {
            damping: 2.0,
            solver,
            ..SettlingOptions::default()
        };
        analysis::settle(sys, q0, &opts).expect("settles")
    };
    let (dense, banded) = (run(KinematicSolver::Dense), run(KinematicSolver::Banded));
    assert_eq!(banded.time, dense.time, "{name}: windows");
    compare(&format!("{name} q"), &banded.q, &dense.q, 0.0);
    // λ by least squares through two factorizations of the same kept rows: round-off times
    // their condition (module docs).
    compare(&format!("{name} λ"), &banded.lambda, &dense.lambda, 1e-10);
}

#[test]
fn settling_agrees_on_both_paths() {
    let extra = FourBarChainExtra::unit();
    let (q0, _) = FourBarChainExtra::initial(&extra);
    settle_agrees("four-bar-chain-extra", &extra, &q0);
    if cfg!(not(debug_assertions)) {
        let bodies = FourBarChainBodies::unit();
        let (q0, _) = bodies.branch_state(-0.5, 0.0);
        settle_agrees("four-bar-chain-bodies", &bodies, &q0);
    }
}

/// The augmented matrix's condition: the Lanczos estimate against the SVD (module docs); the
/// chains in body coordinates take the estimate under `Auto` (not vacuous), the small models
/// keep the SVD's exact value under `Auto`. Prints the cost of both on the A02 chain.
#[test]
fn augmented_condition_estimate_agrees_with_the_svd() {
    use std::time::Instant;
    let mut estimated = Vec::new();
    for entry in mbsim_models::catalog() {
        let sys = (entry.build)();
        let (q, _) = (entry.initial)(sys.as_ref());
        let at = |solver| analysis::augmented_condition(sys.as_ref(), 0.0, &q, solver);
        let started = Instant::now();
        let dense = at(KinematicSolver::Dense).expect("dense");
        let dense_time = started.elapsed();
        let started = Instant::now();
        let auto = at(KinematicSolver::Auto).expect("auto");
        let auto_time = started.elapsed();
        let banded = at(KinematicSolver::Banded).expect("banded");
        assert!(!dense.estimated, "{}", entry.name);
        // ε·κ: the round-off of σ_min in either computation (backward stable: an absolute
        // ε‖K‖ on σ_min), doubled for the two.
        let bound = 2e-6 + 2.0 * f64::EPSILON * dense.value;
        for got in [auto, banded] {
            if got.estimated && dense.value * f64::EPSILON >= 1.0 {
                // K singular to working precision (a redundant model: σ_min = 0 or at round-off
                // in the SVD): the estimate's σ_min carries the same absolute n·ε‖K‖, so it
                // must say so too, κ ≥ 1e-3/ε (n ≤ 1000).
                assert!(
                    got.value >= 1e-3 / f64::EPSILON,
                    "{}: {}",
                    entry.name,
                    got.value
                );
            } else if got.estimated {
                let relative = (got.value - dense.value).abs() / dense.value;
                assert!(
                    relative <= bound,
                    "{}: {} vs SVD {} ({relative:.2e})",
                    entry.name,
                    got.value,
                    dense.value
                );
            } else {
                assert_eq!(got.value, dense.value, "{}", entry.name);
            }
        }
        if auto.estimated {
            estimated.push(entry.name);
            eprintln!(
                "{}: condition {:.6e} (SVD {:.6e}): Lanczos {:.2} ms, dense SVD {:.2} ms",
                entry.name,
                auto.value,
                dense.value,
                auto_time.as_secs_f64() * 1e3,
                dense_time.as_secs_f64() * 1e3
            );
        }
    }
    for name in ["four-bar-chain-bodies", "four-bar-chain-driven"] {
        assert!(estimated.contains(&name), "{name}: {estimated:?}");
    }
}

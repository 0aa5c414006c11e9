//! Issue 27 item 2 for the statics and the diagnostics: `check` and dynamic settling on the
//! A02 chain in body coordinates (`four-bar-chain-bodies`: n = 243, m = 242, 1 DOF) and its
//! driven form (`four-bar-chain-driven`: n = m = 243), thread CPU time per call.
//!
//! Settling starts the chain with every crank at θ = −0.5 (at rest; the horizontal θ = 0 is the chain's singular change point) and lets it swing
//! down under gravity with added damping c = 2 to the stable equilibrium θ = −π/2.
//! "dense" is [`KinematicSolver::Dense`] (the code before the banded path: G dense, the rank
//! test's Gram–Schmidt over dense rows, a null-space basis from GᵀG's eigenvectors), "banded"
//! the default for these models (`runtime/src/analysis/statics_band.rs`).
//! Also the cold paths of issue 27's leftovers: the condition of [M Gᵀ; G 0] that names a
//! singular configuration (dense SVD of order n + r against the Lanczos estimate,
//! `analysis::augmented_condition`), and the minimum-norm multipliers (dense SVD of Gᵀ against
//! `redundancy::minimum_norm_multipliers_sparse`) on the body chain.
//! `cargo bench -p mbsim-models --bench sparse_statics`.

use std::time::Duration;

use mbsim::runtime::ConstrainedSystem;
use mbsim::runtime::analysis::{self, KinematicSolver, SettlingOptions};
use mbsim_models::{FourBarChainBodies, FourBarChainDriven};
use mbsim_testkit::CpuClock;

const PATHS: [(&str, KinematicSolver); 2] = [
    ("dense", KinematicSolver::Dense),
    ("banded", KinematicSolver::Auto),
];

fn check(label: &str, sys: &dyn ConstrainedSystem, q: &[f64]) {
    for (path, solver) in PATHS {
        let mut rank = 0;
        let cpu = CpuClock::new(Duration::from_millis(500))
            .warm_up()
            .mean(|| {
                let d = analysis::check_with(sys, 0.0, q, solver).expect("check");
                rank = d.jacobian.rank;
            });
        println!("check  {label:<22} {path:<6} {cpu:>10.2?} per call (rank {rank})");
    }
}

/// The condition of [M Gᵀ; G 0] on both paths.
fn augmented(label: &str, sys: &dyn ConstrainedSystem, q: &[f64]) {
    for (path, solver) in PATHS {
        let mut value = analysis::AugmentedCondition {
            value: 0.0,
            estimated: false,
        };
        let cpu = CpuClock::new(Duration::from_millis(500))
            .warm_up()
            .mean(|| value = analysis::augmented_condition(sys, 0.0, q, solver).expect("K"));
        println!(
            "cond K {label:<22} {path:<6} {cpu:>10.2?} per call ({:.6e}, estimated {})",
            value.value, value.estimated
        );
    }
}

/// The minimum-norm multipliers of the body chain's G (no row redundant: the sparse path's
/// selection finds none and returns λ) by the dense SVD and on the nonzeros.
fn minimum_norm(sys: &FourBarChainBodies, q: &[f64]) {
    use mbsim::runtime::redundancy::{minimum_norm_multipliers, minimum_norm_multipliers_sparse};
    let d = sys.dims();
    let entries = sys.phi_q_sparsity().nonzeros.to_vec();
    let mut values = vec![0.0; entries.len()];
    sys.jacobian_nonzeros_into(0.0, q, &mut values);
    let mut g = nalgebra::DMatrix::zeros(d.m, d.n);
    for (&(i, j), &x) in entries.iter().zip(&values) {
        g[(i, j)] = x;
    }
    let lambda: Vec<f64> = (0..d.m).map(|i| (1.0 + i as f64).sin()).collect();
    let cpu = CpuClock::new(Duration::from_millis(500))
        .warm_up()
        .mean(|| {
            std::hint::black_box(minimum_norm_multipliers(&g, &lambda));
        });
    println!("min-norm λ four-bar-chain-bodies dense SVD {cpu:>10.2?} per call");
    let cpu = CpuClock::new(Duration::from_millis(500))
        .warm_up()
        .mean(|| {
            let mu = minimum_norm_multipliers_sparse(d.m, d.n, &entries, &values, &lambda);
            std::hint::black_box(mu);
        });
    println!("min-norm λ four-bar-chain-bodies nonzeros  {cpu:>10.2?} per call");
}

fn main() {
    let bodies = FourBarChainBodies::unit();
    let (q, _) = FourBarChainBodies::initial(&bodies);
    check("four-bar-chain-bodies", &bodies, &q);
    augmented("four-bar-chain-bodies", &bodies, &q);
    minimum_norm(&bodies, &q);
    let driven = FourBarChainDriven::unit();
    let (q, _) = FourBarChainDriven::initial(&driven);
    check("four-bar-chain-driven", &driven, &q);
    augmented("four-bar-chain-driven", &driven, &q);
    let (q0, _) = bodies.branch_state(-0.5, 0.0);
    for (path, solver) in PATHS {
        let opts = SettlingOptions {
            damping: 2.0,
            solver,
            ..SettlingOptions::default()
        };
        let mut end = (0.0, 0.0);
        let cpu = CpuClock::new(Duration::from_millis(500))
            .warm_up()
            .mean(|| {
                let s = analysis::settle(&bodies, &q0, &opts).expect("settles");
                end = (s.time, s.q[2 * 81]);
            });
        println!(
            "settle four-bar-chain-bodies from θ = −0.5 {path:<6} {cpu:>10.2?} per call (at rest at \
             t = {} s, crank 0 at {:.12})",
            end.0, end.1
        );
    }
}

//! The cost of an over-constrained model against the same mechanism with its redundant row
//! deleted by hand (`cargo bench -p mbsim-tests --bench redundant`): the coupler on three
//! parallel cranks (`TripleCrank`, 12 rows of rank 11; every method leaves `t2_x` out) against
//! `TripleCrankReduced` (11 rows), 2 s from ψ = 1 rad, final state only, for each method family.
//! Issue 22's goal: at most 1.3× the reduced model's time. What the over-constrained run pays:
//! one singular factorization and the selection at the start, then one extra solve per
//! factorization (the test whether the left-out row became independent again) and the
//! decoupled row's place in the matrix (order n + m instead of n + m − 1).
//!
//! Measured (one run, release, 2 cores shared with other builds; criterion medians):
//!
//! | method | redundant (12 rows) | reduced (11 rows) | ratio |
//! |---|---|---|---|
//! | RKSTAB/PStab rtol 1e-8 | 2.72 ms | 2.15 ms | 1.26 |
//! | ABM rtol 1e-8 | 1.56 ms | 1.43 ms | 1.09 |
//! | RK4 h = 1e-3 | 43.0 ms | 41.8 ms | 1.03 |
//! | HHT h = 1e-3 | 179 ms | 163 ms | 1.10 |
//! | Radau rtol 1e-8 | 18.9 ms | 18.9 ms | 1.00 |

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim_models::{TripleCrank, TripleCrankReduced};
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    Abm, ConstrainedSystem, FixedStep, Implicit, Integrator, Problem, Radau, Rkstab, Scheme,
    Stabilization, StepSize,
};

fn run<I: Integrator>(sys: &dyn ConstrainedSystem, method: &I, q0: &[f64], v0: &[f64]) -> f64 {
    let problem = Problem::new(0.0, 2.0, q0, v0).with_times(&[2.0]);
    let end = method.integrate_into(sys, &problem, &mut ()).expect("runs");
    end.q[5]
}

fn pair<I: Integrator>(c: &mut Criterion, name: &str, method: I) {
    let full = TripleCrank::chosen();
    let reduced = TripleCrankReduced::chosen();
    let (q0, v0) = full.branch_state(1.0, 0.0);
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.bench_function("redundant", |b| b.iter(|| run(&full, &method, &q0, &v0)));
    group.bench_function("reduced", |b| b.iter(|| run(&reduced, &method, &q0, &v0)));
    group.finish();
}

fn benches(c: &mut Criterion) {
    pair(c, "rkstab-pstab", Rkstab::new(1e-8));
    pair(c, "abm", Abm::new(1e-8));
    pair(c, "rk4", FixedStep::new(RK4, 1e-3));
    pair(
        c,
        "hht",
        Implicit::new(Scheme::Hht { alpha: -0.1 }, StepSize::Fixed(1e-3))
            .with_stabilization(Stabilization::VelocityOnly),
    );
    pair(
        c,
        "radau",
        Radau::new(Implicit::adaptive(1e-8)).with_stabilization(Stabilization::VelocityOnly),
    );
}

criterion_group!(redundant, benches);
criterion_main!(redundant);

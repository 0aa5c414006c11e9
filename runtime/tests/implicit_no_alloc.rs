//! The implicit methods allocate only their setup: a run of 50 steps and one of 100 steps make
//! the same number of heap allocations (workspaces, the problem's copies, the solution), for
//! fixed and adaptive steps, exact and finite-difference tangents, full and modified Newton.
//! Counted with `stats_alloc`, so this file is its own test binary.

#[path = "suite/common/mod.rs"]
mod common;
#[path = "suite/implicit_models/mod.rs"]
mod implicit_models;

use std::alloc::System;

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

use common::Sys;
use implicit_models::Me451;
use mbsim_runtime::{Implicit, Integrator, NewtonKind, NewtonOptions, Problem, Scheme};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The fewest allocations over three identical runs: the counter is process-wide, and under a
/// loaded machine the test harness's own thread allocated during one run of the full suite
/// (84 against 88 allocations, not reproducible alone or with `--workspace`); a run of the
/// method itself allocates the same every time, so the minimum is its count.
fn allocations(method: &Implicit, t_end: f64, exact: bool) -> usize {
    (0..3)
        .map(|_| allocations_once(method, t_end, exact))
        .min()
        .unwrap_or(usize::MAX)
}

fn allocations_once(method: &Implicit, t_end: f64, exact: bool) -> usize {
    let sys = Sys(Me451::PUBLISHED);
    let (q0, v0) = Me451::PUBLISHED.initial();
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_uniform_output(0.013);
    let region = Region::new(GLOBAL);
    let result = if exact {
        method.integrate_exact_into(&sys, &problem, &mut ())
    } else {
        method.integrate_into(&sys, &problem, &mut ())
    };
    let count = region.change().allocations;
    result.expect("run");
    count
}

/// One test function: the allocation counter is process-wide.
#[test]
fn implicit_runs_allocate_only_their_setup() {
    let modified = NewtonOptions {
        kind: NewtonKind::Modified,
        max_iterations: 25,
        ..NewtonOptions::default()
    };
    let methods = [
        Implicit::newmark(0.01),
        Implicit::hht(-0.1, 1e-6),
        Implicit::generalized_alpha(0.8, 1e-6).with_newton(modified),
        Implicit::new(Scheme::ME451, Implicit::adaptive(1e-5)),
    ];
    for method in &methods {
        for exact in [true, false] {
            let (short, long) = (
                allocations(method, 0.5, exact),
                allocations(method, 1.0, exact),
            );
            assert_eq!(
                short, long,
                "{method:?} exact={exact}: allocations grow with the run"
            );
        }
    }
}

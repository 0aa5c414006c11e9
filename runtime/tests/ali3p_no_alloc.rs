//! ALI3-P allocates only its setup: a run of 50 steps and one of 100 steps make the same
//! number of heap allocations (workspaces, the minimum-norm start, the problem's copies, the
//! solution), with exact and finite-difference tangents and samples between step points (its
//! own q̈ and λ reported). Counted per thread (`counted`), so this file is its own test binary.

#[path = "suite/common/mod.rs"]
mod common;
#[path = "suite/implicit_models/mod.rs"]
mod implicit_models;

#[path = "counted/mod.rs"]
mod counted;

use common::Sys;
use counted::allocations;
use implicit_models::Me451;
use mbsim_runtime::{Ali3p, Integrator, Problem};

/// Allocations of one run to `t_end` (this thread only: see `counted`).
fn allocations_of_run(t_end: f64, exact: bool) -> usize {
    let sys = Sys(Me451::PUBLISHED);
    let (q0, v0) = Me451::PUBLISHED.initial();
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_uniform_output(0.013);
    let method = Ali3p::new(0.01);
    let (result, count) = allocations(|| {
        if exact {
            method.integrate_exact_into(&sys, &problem, &mut ())
        } else {
            method.integrate_into(&sys, &problem, &mut ())
        }
    });
    result.expect("run");
    count
}

#[test]
fn ali3p_runs_allocate_only_their_setup() {
    for exact in [true, false] {
        let (short, long) = (
            allocations_of_run(0.5, exact),
            allocations_of_run(1.0, exact),
        );
        assert_eq!(short, long, "exact={exact}: allocations grow with the run");
    }
}

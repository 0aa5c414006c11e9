//! The implicit methods allocate only their setup: a run of 50 steps and one of 100 steps make
//! the same number of heap allocations (workspaces, the problem's copies, the solution), for
//! fixed and adaptive steps, exact and finite-difference tangents, full and modified Newton,
//! and Radau IIA (fixed and adaptive).
//! Counted per thread (`counted`), so this file is its own test binary.

#[path = "suite/common/mod.rs"]
mod common;
#[path = "suite/implicit_models/mod.rs"]
mod implicit_models;

#[path = "counted/mod.rs"]
mod counted;

use common::Sys;
use counted::allocations;
use implicit_models::Me451;
use mbsim_runtime::{Implicit, Integrator, NewtonKind, NewtonOptions, Problem, Radau, Scheme};

/// Allocations of one run of `method` to `t_end` (this thread only: see `counted`).
fn allocations_of_run(method: &Method, t_end: f64, exact: bool) -> usize {
    let sys = Sys(Me451::PUBLISHED);
    let (q0, v0) = Me451::PUBLISHED.initial();
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_uniform_output(0.013);
    let (result, count) = allocations(|| match (method, exact) {
        (Method::Implicit(m), true) => m.integrate_exact_into(&sys, &problem, &mut ()),
        (Method::Implicit(m), false) => m.integrate_into(&sys, &problem, &mut ()),
        (Method::Radau(m), true) => m.integrate_exact_into(&sys, &problem, &mut ()),
        (Method::Radau(m), false) => m.integrate_into(&sys, &problem, &mut ()),
    });
    result.expect("run");
    count
}

/// A method under test.
#[derive(Debug)]
enum Method {
    Implicit(Implicit),
    Radau(Radau),
}

/// One test function running its cases in a fixed order (the counter is per thread).
#[test]
fn implicit_runs_allocate_only_their_setup() {
    let modified = NewtonOptions {
        kind: NewtonKind::Modified,
        max_iterations: 25,
        ..NewtonOptions::default()
    };
    let methods = [
        Method::Implicit(Implicit::newmark(0.01)),
        Method::Implicit(Implicit::hht(-0.1, 1e-6)),
        Method::Implicit(Implicit::generalized_alpha(0.8, 1e-6).with_newton(modified)),
        Method::Implicit(Implicit::new(Scheme::ME451, Implicit::adaptive(1e-5))),
        Method::Radau(Radau::fixed(0.01)),
        Method::Radau(Radau::adaptive(1e-8)),
    ];
    for method in &methods {
        for exact in [true, false] {
            let (short, long) = (
                allocations_of_run(method, 0.5, exact),
                allocations_of_run(method, 1.0, exact),
            );
            assert_eq!(
                short, long,
                "{method:?} exact={exact}: allocations grow with the run"
            );
        }
    }
}

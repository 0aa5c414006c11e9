//! The implicit methods allocate only their setup: a run of 50 steps and one of 100 steps make
//! the same number of heap allocations (workspaces, the problem's copies, the solution), for
//! fixed and adaptive steps, exact and finite-difference tangents, full and modified Newton,
//! and Radau IIA (fixed and adaptive); and on the sparse path (banded Newton and stage
//! matrices from nonzeros, compressed tangent differences, a tangent pattern grown once by
//! the first evaluation) on a chain in body coordinates, where RKSTAB's S-full correction
//! takes its sparse path too (the banded [I Hᵀ; H 0], `runtime/src/stabilize/sfull_sparse.rs`)
//! and so does ALI3-P (the banded [W Gᵀ; G −I/s], `runtime/src/ali3p/linear.rs`).
//! Counted per thread (`counted`), so this file is its own test binary.

#[path = "suite/common/mod.rs"]
mod common;
#[path = "suite/implicit_models/mod.rs"]
mod implicit_models;

#[path = "counted/mod.rs"]
mod counted;

use common::Sys;
use common::models::FourBarBodies;
use counted::allocations;
use implicit_models::Me451;
use implicit_models::chain::{Nonzeros, Spring, SprungChain};
use mbsim_runtime::{
    Ali3p, Continuous, ContinuousChoice, Implicit, Integrator, KktLayout, NewtonKind,
    NewtonOptions, Problem, Radau, Rkstab, Scheme, Stabilization, StepRule,
};

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
        Method::Implicit(Implicit::hht(-0.1, 1e-6).with_step_rule(StepRule::Centred)),
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

/// Allocations of one difference-tangent run of `method` on the sparse path (an 8-window chain
/// in body coordinates with a spring outside the structural pattern) to `t_end`.
fn allocations_of_sparse_run<I: Integrator>(method: &I, t_end: f64) -> usize {
    let chain = FourBarBodies::unit(8);
    let (q0, v0) = chain.state_at(std::f64::consts::FRAC_PI_2, 1.0);
    let spring = Some(Spring {
        a: 0,
        b: chain.bodies() - 1,
        k: 1e3,
        rest: -8.0,
    });
    let sys = Nonzeros::new(SprungChain { chain, spring });
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_uniform_output(0.013);
    let (result, count) = allocations(|| method.integrate_into(&sys, &problem, &mut ()));
    result.expect("sparse run");
    count
}

#[test]
fn sparse_implicit_runs_allocate_only_their_setup() {
    let chain = Nonzeros::new(SprungChain {
        chain: FourBarBodies::unit(8),
        spring: None,
    });
    let newmark = Implicit::newmark(1e-3);
    let hht = Implicit::hht(-0.05, 1e-6);
    let (radau, radau_fixed) = (Radau::adaptive(1e-8), Radau::fixed(1e-2));
    let s_full = Rkstab::new(1e-6).with_stabilization(Stabilization::SFull);
    // Chin's two-step route: its sparse path (grouped differences of J₂, the banded
    // [I H₂ᵀ; H₂ 0]) on every field evaluation.
    let route = Continuous::new(ContinuousChoice::TwoStep, 10.0);
    let two_step = Rkstab::new(1e-6).with_stabilization(Stabilization::Continuous(route));
    assert!(matches!(newmark.layout(&chain), KktLayout::Banded { .. }));
    assert!(matches!(radau.layout(&chain), KktLayout::Banded { .. }));
    let ali3p = Ali3p::new(1e-3);
    assert!(matches!(ali3p.layout(&chain), KktLayout::Banded { .. }));
    let counts = [
        (
            allocations_of_sparse_run(&newmark, 0.05),
            allocations_of_sparse_run(&newmark, 0.1),
        ),
        (
            allocations_of_sparse_run(&hht, 0.1),
            allocations_of_sparse_run(&hht, 0.2),
        ),
        (
            allocations_of_sparse_run(&radau, 0.1),
            allocations_of_sparse_run(&radau, 0.2),
        ),
        (
            allocations_of_sparse_run(&radau_fixed, 0.1),
            allocations_of_sparse_run(&radau_fixed, 0.2),
        ),
        (
            allocations_of_sparse_run(&ali3p, 0.05),
            allocations_of_sparse_run(&ali3p, 0.1),
        ),
        (
            allocations_of_sparse_run(&s_full, 0.1),
            allocations_of_sparse_run(&s_full, 0.2),
        ),
        (
            allocations_of_sparse_run(&two_step, 0.1),
            allocations_of_sparse_run(&two_step, 0.2),
        ),
    ];
    for (i, (short, long)) in counts.into_iter().enumerate() {
        assert_eq!(
            short, long,
            "sparse case {i}: allocations grow with the run"
        );
    }
}

//! The generated kernels (compiled into this crate by `build.rs`) against the `codegen`
//! interpreter evaluating the same derived expressions, at random states, through the shared
//! harness `mbsim_tests::support::check_kernels` (its docs derive the tolerance); the fixtures
//! with tangent kernels (all but the 20-link chain, see `build.rs`) through
//! `check_tangent_kernels`, which adds every tangent row.

use mbsim_codegen::fixtures;
use mbsim_runtime::ConstrainedSystem;
use mbsim_tests::generated::{
    Andrews, AndrewsSplit, CartesianPendulum, ClosedChain3, ClosedChain20, NLinkPendulumBodies12,
    NodeZoo, Rheonomic, SkateChain8, SkateChain8Split,
};
use mbsim_tests::support::{check_kernels, check_tangent_kernels};

const SAMPLES: usize = 5;

fn keep(_: &mut [f64]) {}

#[test]
fn cartesian_pendulum() {
    let make = |p: &[f64]| Box::new(CartesianPendulum::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::cartesian_pendulum(), make, 1, SAMPLES, keep);
}

#[test]
fn closed_chain_3() {
    let make = |p: &[f64]| Box::new(ClosedChain3::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::closed_chain(3), make, 2, SAMPLES, keep);
}

#[test]
fn closed_chain_20() {
    let make = |p: &[f64]| Box::new(ClosedChain20::from_parameters(p.try_into().unwrap())) as _;
    check_kernels(fixtures::closed_chain(20), make, 3, SAMPLES, keep);
}

#[test]
fn bodies_pendulum_12_mirrored_mass() {
    // M's upper triangle is computed and each entry copied to its mirror image (emit_kernel.rs
    // `assignments`): the whole matrix must match the interpreter's.
    let make = |p: &[f64]| {
        Box::new(NLinkPendulumBodies12::from_parameters(
            p.try_into().unwrap(),
        )) as _
    };
    check_kernels(fixtures::n_link_pendulum_bodies(12), make, 8, SAMPLES, keep);
}

#[test]
fn andrews() {
    let make = |p: &[f64]| Box::new(Andrews::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::andrews(), make, 4, SAMPLES, keep);
}

#[test]
fn rheonomic() {
    // Parameters (r, omega, Lb, ell): xb = sqrt(Lb² − r² sin²ωt) needs Lb > r.
    let make = |p: &[f64]| Box::new(Rheonomic::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::rheonomic(), make, 5, SAMPLES, |p| {
        p[2] = p[0] + 1.0
    });
}

#[test]
fn node_zoo() {
    // Parameters (k, r, t_step, mass): a step time inside the sampled t ∈ [0, 2].
    let make = |p: &[f64]| Box::new(NodeZoo::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::node_zoo(), make, 6, SAMPLES, |p| p[2] = 1.0);
}

#[test]
fn andrews_split_into_parts() {
    // The same kernels emitted through the large-model path (scratch array, parts of 4 statements).
    let make = |p: &[f64]| Box::new(AndrewsSplit::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::andrews(), make, 7, SAMPLES, keep);
}

#[test]
fn skate_chain_sparse_forms() {
    // The sparse forms with nonholonomic rows (A's nonzeros after Φ_q's), and the dense forms
    // (`mass_into`, `phi_q_into`, `nh_matrix_into`, `dynamics_into`) scattering them.
    let sys = SkateChain8::from_parameters([1.0; 4]);
    assert!(
        sys.has_nonzero_forms() && sys.dims().k == 8,
        "the fixture has what it tests"
    );
    let make = |p: &[f64]| Box::new(SkateChain8::from_parameters(p.try_into().unwrap())) as _;
    check_tangent_kernels(fixtures::skate_chain(8), make, 9, SAMPLES, keep);
}

#[test]
fn skate_chain_split_into_parts() {
    // The same with every kernel split into parts: the dense forms scatter from heap arrays.
    let make = |p: &[f64]| Box::new(SkateChain8Split::from_parameters(p.try_into().unwrap())) as _;
    check_kernels(fixtures::skate_chain(8), make, 10, SAMPLES, keep);
}

//! The hot path allocates nothing: after [`Rkstab::new`], a whole integration (every step, every
//! stabilization, every dense-output sample) runs without a single heap allocation. Checked with
//! a counting global allocator (`counted`: per thread), so this file is its own test binary.

#[path = "suite/common/mod.rs"]
mod common;

#[path = "counted/mod.rs"]
mod counted;

use common::Sys;
use common::models::Andrews;
use counted::allocations;
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Dop853, FixedStep, Integrator,
    PartitionOptions, Problem, Rkstab, SampleContent, SampleKind, Stabilization, Stats, Tolerance,
};

/// One test function running its cases in a fixed order (the counter is per thread).
#[test]
fn integrators_allocate_only_their_setup() {
    rkstab_allocates_only_its_setup();
    fixed_step_allocates_only_its_setup();
    adams_allocate_only_their_setup();
    dop853_allocates_only_its_setup();
}

/// Allocations of a whole run from `Andrews::Q0` to `t_end` with samples every 1e-3: the
/// setup (workspaces, the problem's copies, the solution) and nothing per step or sample.
fn allocations_of_run<I: Integrator>(method: &I, t_end: f64) -> (Stats, usize) {
    let sys = Sys(Andrews);
    let problem = Problem::new(0.0, t_end, &Andrews::Q0, &[0.0; 7]).with_uniform_output(1e-3);
    let (solution, count) = allocations(|| method.integrate_into(&sys, &problem, &mut ()));
    (solution.expect("andrews run").stats, count)
}

fn rkstab_allocates_only_its_setup() {
    for stab in [
        Stabilization::PStab,
        Stabilization::SFull,
        Stabilization::GGt,
        Stabilization::None,
        Stabilization::Partitioned(PartitionOptions::default()),
    ] {
        let mut opts = Rkstab::new(1e-6).with_stabilization(stab);
        opts.atol = Tolerance::PerComponent([vec![1e-7; 7], vec![1e-5; 7]].concat());
        opts.common.datol = 1e-7;
        let (short, short_count) = allocations_of_run(&opts, 0.003);
        let (long, long_count) = allocations_of_run(&opts, 0.03);
        assert!(long.naccpt > 5 * short.naccpt, "{short} vs {long}");
        assert_eq!(
            short_count,
            long_count,
            "{}: allocations grow with the steps ({short} vs {long})",
            stab.name()
        );
    }
}

fn fixed_step_allocates_only_its_setup() {
    let opts = FixedStep::new(RK4, 1e-5);
    let (_, short) = allocations_of_run(&opts, 1e-4);
    let (_, long) = allocations_of_run(&opts, 1e-3);
    assert_eq!(short, long);
}

/// The Adams methods: the history buffers rotate in place (`engine.rs`), the RK start and the
/// variable-order estimates use the engine's scratch, so a longer run allocates no more.
fn adams_allocate_only_their_setup() {
    let (short, short_count) = allocations_of_run(&Abm::new(1e-8), 0.003);
    let (long, long_count) = allocations_of_run(&Abm::new(1e-8), 0.03);
    assert!(long.naccpt > 5 * short.naccpt, "{short} vs {long}");
    assert_eq!(short_count, long_count, "abm: {short} vs {long}");
    let scheme = AdamsScheme::new(AdamsKind::Mampc, 4, AdamsStart::RungeKutta);
    let (_, short) = allocations_of_run(&Adams::new(scheme, 1e-5), 1e-4);
    let (_, long) = allocations_of_run(&Adams::new(scheme, 1e-5), 1e-3);
    assert_eq!(short, long, "mampc4");
}

/// The stabilized DOP853 (its dense output's extra stages included), and samples of either
/// content: interpolated samples with dynamics, projected state-only samples at the grid and
/// at every step point.
fn dop853_allocates_only_its_setup() {
    // The interpolant as it is (not the default, `Dop853::default_samples`) and projected.
    let mut plain = Dop853::new(1e-8);
    plain.common.samples = SampleKind::Interpolated;
    let mut state_only = Dop853::new(1e-8);
    state_only.common.samples = SampleKind::Projected;
    state_only.common.sample_content = SampleContent::State;
    state_only.common.output_steps = true;
    state_only.common.step_content = SampleContent::State;
    for (what, opts) in [("dynamics samples", plain), ("state samples", state_only)] {
        let (short, short_count) = allocations_of_run(&opts, 0.003);
        let (long, long_count) = allocations_of_run(&opts, 0.03);
        assert!(long.naccpt > 5 * short.naccpt, "{short} vs {long}");
        assert_eq!(short_count, long_count, "dop853, {what}: {short} vs {long}");
    }
}

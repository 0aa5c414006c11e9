//! The hot path allocates nothing: after [`Rkstab::new`], a whole integration (every step, every
//! stabilization, every dense-output sample) runs without a single heap allocation. Checked with
//! a counting global allocator (`stats_alloc`), so this file is its own test binary.

mod common;

use std::alloc::System;

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

use common::Sys;
use common::models::Andrews;
use mbsim_runtime::fixed_step::{FixedStepOptions, integrate_fixed_into};
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{Options, Rkstab, Stabilization, Tolerance};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations made while running `f`.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let region = Region::new(GLOBAL);
    let out = f();
    (out, region.change().allocations)
}

/// One test function: the allocation counter is process-wide, so parallel tests would pollute it.
#[test]
fn integrators_allocate_only_their_setup() {
    integration_steps_do_not_allocate();
    fixed_step_allocates_only_its_setup();
}

fn integration_steps_do_not_allocate() {
    let sys = Sys(Andrews);
    let times: Vec<f64> = (0..=30).map(|i| 0.001 * i as f64).collect();
    for stab in [
        Stabilization::PStab,
        Stabilization::SFull,
        Stabilization::GGt,
        Stabilization::None,
    ] {
        // Per-component tolerances exercise that path too: looser on the velocities.
        let mut opts = Options::new(1e-6).with_stabilization(stab);
        opts.atol = Tolerance::PerComponent([vec![1e-7; 7], vec![1e-5; 7]].concat());
        opts.datol = 1e-7;
        let mut rk = Rkstab::new(&sys, opts);
        let (mut q, mut v) = (Andrews::Q0, [0.0; 7]);
        let (stats, count) = allocations(|| {
            rk.integrate_into(0.0, &mut q, &mut v, 0.03, &times, &mut ())
                .unwrap()
        });
        assert!(stats.naccpt > 50, "{stats}");
        assert_eq!(
            count,
            0,
            "{}: allocations during integrate_into ({stats})",
            stab.name()
        );
    }
}

fn fixed_step_allocates_only_its_setup() {
    let sys = Sys(Andrews);
    let opts = FixedStepOptions {
        tableau: RK4,
        h: 1e-5,
        stabilization: Stabilization::PStab,
        output_every: 0,
    };
    let count = |t_end: f64| {
        let (mut q, mut v) = (Andrews::Q0, [0.0; 7]);
        allocations(|| {
            integrate_fixed_into(&sys, &opts, 0.0, t_end, &mut q, &mut v, &mut ()).unwrap()
        })
        .1
    };
    // 10 steps and 100 steps allocate the same (setup only).
    assert_eq!(count(1e-4), count(1e-3));
}

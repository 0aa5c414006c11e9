//! HPIM (the projected formulation, backward and flow derivatives) and NPC allocate nothing
//! per step: a run of 10× the steps makes exactly as many heap allocations as a short one
//! (the setup: T, the Duhamel integrals, workspaces, the solution). Checked with a counting
//! global allocator (`counted`: per thread), so this file is its own test binary. A
//! constraint with a constant E (the tip of a spring chain driven, Φ = x_tip − A sin ωt) never
//! re-projects; the paper's explicit formulation (kept for comparison) is not covered. The same
//! constraint written twice (the copy scaled by 1.5) makes S singular: the runs that leave the
//! copy out (with its degradation test at every solve, its regained test on its cadence)
//! allocate nothing per step either.

#[path = "suite/common/mod.rs"]
mod common;

#[path = "counted/mod.rs"]
mod counted;

use std::sync::Arc;

use common::{Model, Sys};
use counted::allocations;
use mbsim_runtime::{
    Dims, ForceDerivatives, Hpim, Integrator, Load, MatOut, Npc, Problem, Stats, Structural,
    Structure, TimeFunction,
};
use nalgebra::{DMatrix, DVector};

const AMP: f64 = 0.01;
const OMEGA: f64 = 3.0;
const N: usize = 5;

/// Φ = x_tip − A sin ωt, written `.0` times (row i scaled by 1 + i/2).
struct DrivenTip(usize);

impl DrivenTip {
    fn rows(&self, value: f64, out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = (1.0 + 0.5 * i as f64) * value;
        }
    }
}

impl Model for DrivenTip {
    fn name(&self) -> &'static str {
        "driven-tip"
    }
    fn dims(&self) -> Dims {
        Dims {
            n: N,
            m: self.0,
            k: 0,
        }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.rows(q[N - 1] - AMP * (OMEGA * t).sin(), out);
    }
    fn phi_q(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        for i in 0..self.0 {
            out[(i, N - 1)] = 1.0 + 0.5 * i as f64;
        }
    }
    fn phi_t(&self, t: f64, _q: &[f64], out: &mut [f64]) {
        self.rows(-AMP * OMEGA * (OMEGA * t).cos(), out);
    }
    fn gamma(&self, t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        self.rows(-AMP * OMEGA * OMEGA * (OMEGA * t).sin(), out);
    }
    fn mass(&self, _t: f64, _q: &[f64], _out: &mut MatOut<'_>) {}
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
}

/// A damped spring chain under a harmonic and a constant load.
fn structure() -> Structure {
    let mut k = DMatrix::zeros(N, N);
    for i in 0..N {
        k[(i, i)] += 300.0;
        if i > 0 {
            k[(i - 1, i - 1)] += 300.0;
            k[(i - 1, i)] -= 300.0;
            k[(i, i - 1)] -= 300.0;
        }
    }
    let mut st = Structure::undamped(DMatrix::identity(N, N), k.clone());
    st.damping = k * 1e-3;
    st.loads.push(Load {
        shape: DVector::from_fn(N, |i, _| 1.0 + i as f64),
        time: TimeFunction::sine(2.0, 1.5),
    });
    st.loads.push(Load {
        shape: DVector::from_element(N, -0.5),
        time: TimeFunction::constant(1.0),
    });
    st
}

fn allocations_of_run<I: Integrator>(method: &I, rows: usize, t_end: f64) -> (Stats, usize) {
    let sys = Structural::new(structure(), Sys(DrivenTip(rows)));
    let mut v0 = vec![0.0; N];
    v0[N - 1] = AMP * OMEGA;
    let problem = Problem::new(0.0, t_end, &[0.0; N], &v0).with_uniform_output(1e-2);
    let (solution, count) = allocations(|| method.integrate_into(&sys, &problem, &mut ()));
    (solution.expect("run").stats, count)
}

/// A named run of a method to a given end time: (statistics, allocations).
type Run = (String, Box<dyn Fn(usize, f64) -> (Stats, usize)>);

/// One test function running its cases in a fixed order (the counter is per thread).
#[test]
fn hpim_and_npc_allocate_only_their_setup() {
    let st = Arc::new(structure());
    let mut methods: Vec<Run> = Vec::new();
    for derivs in [ForceDerivatives::Backward, ForceDerivatives::Flow] {
        let mut m = Hpim::new(st.clone(), 1e-3);
        m.derivatives = derivs;
        methods.push((
            format!("hpim {derivs:?}"),
            Box::new(move |rows, t| allocations_of_run(&m, rows, t)),
        ));
    }
    let npc = Npc::new(st.clone(), 1e-3);
    methods.push((
        "npc".into(),
        Box::new(move |rows, t| allocations_of_run(&npc, rows, t)),
    ));
    for (name, run) in methods {
        for rows in [1, 2] {
            let (short, short_count) = run(rows, 0.05);
            let (long, long_count) = run(rows, 0.5);
            assert_eq!(long.naccpt, 10 * short.naccpt, "{name}: steps");
            // Written twice, the copy is left out once, at t0.
            assert_eq!(long.redundancy.len(), rows - 1, "{name}: {long:?}");
            println!(
                "{name}, {rows} row(s): {short_count} allocations for 50 steps, {long_count} for 500"
            );
            assert_eq!(
                long_count, short_count,
                "{name}, {rows} row(s): allocations grow with the steps ({short_count} -> {long_count})"
            );
        }
    }
}

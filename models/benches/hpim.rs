//! HPIM against RKSTAB and HHT-α on the 14-bar truss with the prescribed tip motion
//! (\[HPIM\] §5.1 constraint (ii), p = 10000 N, our reading of Fig. 2, `truss14` docs), over
//! [0, 0.2] s: constraint violation and displacement error against CPU, one table.
//!
//! `cargo bench -p mbsim-models --bench hpim` prints the table first: the largest |Φ| over
//! the step points, the largest displacement error of D(0.2) against RKSTAB at rtol 1e-12
//! (atol 1e-14), NFCN and the mean thread CPU time over repeated runs of at least 0.2 s. Criterion
//! then measures wall time of HPIM (τ = 1e-4) and RKSTAB (rtol 1e-8) in the same run. HPIM rows
//! are the projected formulation (default) unless marked explicit (the paper's); NPC is the
//! paper's comparison method.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim_models::truss14::{self, Loading};
use mbsim_runtime::{
    ForceDerivatives, Formulation, Hpim, Implicit, Integrator, Npc, Problem, Rkstab, Scheme,
    Solution, Stabilization, StepSize, Structural,
};
use mbsim_testkit::CpuClock;

const T_END: f64 = 0.2;

enum Method {
    Hpim(Hpim),
    Npc(Npc),
    Rkstab(Rkstab),
    Hht(Implicit),
}

impl Method {
    fn run<C: mbsim_runtime::ConstrainedSystem>(
        &self,
        sys: &Structural<C>,
        p: &Problem,
    ) -> Option<Solution> {
        match self {
            Method::Hpim(m) => m.integrate_into(sys, p, &mut ()).ok(),
            Method::Npc(m) => m.integrate_into(sys, p, &mut ()).ok(),
            Method::Rkstab(m) => m.integrate_into(sys, p, &mut ()).ok(),
            Method::Hht(m) => m.integrate_into(sys, p, &mut ()).ok(),
        }
    }
}

fn methods(st: &Arc<mbsim_runtime::Structure>) -> Vec<(String, Method)> {
    let mut out = Vec::new();
    for tau in [2e-4, 1e-4, 5e-5] {
        for d in [ForceDerivatives::Backward, ForceDerivatives::Flow] {
            let mut m = Hpim::new(st.clone(), tau);
            m.derivatives = d;
            out.push((format!("hpim {d:?} tau={tau:.0e}"), Method::Hpim(m)));
        }
    }
    let mut paper = Hpim::new(st.clone(), 1e-4);
    paper.formulation = Formulation::Explicit;
    out.push(("hpim explicit (paper) tau=1e-4".into(), Method::Hpim(paper)));
    for tau in [1e-4, 2.5e-5] {
        let m = Npc::new(st.clone(), tau);
        out.push((format!("npc tau={tau:.1e}"), Method::Npc(m)));
    }
    for rtol in [1e-6, 1e-8, 1e-10] {
        let m = Rkstab::new(rtol).with_atol(rtol * 1e-3);
        out.push((format!("rkstab/pstab rtol={rtol:.0e}"), Method::Rkstab(m)));
    }
    for h in [1e-4, 2.5e-5] {
        let mut m = Implicit::new(Scheme::Hht { alpha: -0.05 }, StepSize::Fixed(h));
        m.common.stabilization = Stabilization::None;
        out.push((format!("hht a=-0.05 h={h:.1e}"), Method::Hht(m)));
    }
    out
}

/// Mean thread CPU seconds of `f` over at least 0.2 s of repeats.
fn cpu_of(f: impl FnMut()) -> f64 {
    CpuClock::new(Duration::from_millis(200))
        .mean(f)
        .as_secs_f64()
}

fn table() {
    let sys = truss14::prescribed(Loading::Constant);
    let st = Arc::new(sys.structure.clone());
    let (q0, v0) = truss14::prescribed_initial();
    let p = Problem::new(0.0, T_END, &q0, &v0);
    let reference = Rkstab::new(1e-12)
        .with_atol(1e-14)
        .integrate_into(&sys, &p, &mut ())
        .expect("reference run");
    println!("\nHPIM vs RKSTAB vs HHT on the truss, constraint (ii), p = 10000 N, [0, {T_END}] s");
    println!(
        "{:<32} {:>12} {:>12} {:>8} {:>12}",
        "method", "max|Phi|", "D error", "NFCN", "CPU [ms]"
    );
    for (name, m) in methods(&st) {
        let Some(sol) = m.run(&sys, &p) else {
            println!("{name:<32} failed");
            continue;
        };
        let err = sol
            .q
            .iter()
            .zip(&reference.q)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        let cpu = cpu_of(|| {
            m.run(&sys, &p);
        });
        println!(
            "{name:<32} {:>12.2e} {:>12.2e} {:>8} {:>12.3}",
            sol.stats.max_drift.position,
            err,
            sol.stats.nfcn,
            cpu * 1e3
        );
    }
}

fn bench(c: &mut Criterion) {
    table();
    let sys = truss14::prescribed(Loading::Constant);
    let st = Arc::new(sys.structure.clone());
    let (q0, v0) = truss14::prescribed_initial();
    let p = Problem::new(0.0, T_END, &q0, &v0);
    let mut g = c.benchmark_group("truss14");
    g.sample_size(10);
    let hpim = Hpim::new(st, 1e-4);
    g.bench_function("hpim tau=1e-4", |b| {
        b.iter(|| hpim.integrate_into(&sys, &p, &mut ()).ok())
    });
    let rk = Rkstab::new(1e-8).with_atol(1e-11);
    g.bench_function("rkstab rtol=1e-8", |b| {
        b.iter(|| rk.integrate_into(&sys, &p, &mut ()).ok())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

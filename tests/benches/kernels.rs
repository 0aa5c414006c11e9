//! Nanoseconds per call of generated kernels: the fused `dynamics_into` (M, Q, G, γ with shared
//! temporaries) against Φ_q and γ alone, for Andrews' squeezer and the closed 20-link chain
//! (`cargo bench -p tests --bench kernels`). The fused/separate ratio shows what sharing buys:
//! an integrator stage needs all four outputs.

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim_codegen::fixtures::{ANDREWS_PARAMETERS, ANDREWS_Q0};
use mbsim_runtime::{ConstrainedSystem, DynamicsOut};
use mbsim_tests::generated::{Andrews, ClosedChain20};
use nalgebra::DMatrix;
use std::hint::black_box;

fn bench_system<S: ConstrainedSystem>(
    c: &mut Criterion,
    label: &str,
    sys: &S,
    q: &[f64],
    v: &[f64],
) {
    let dims = sys.dims();
    let (n, rows) = (dims.n, dims.constraint_rows());
    let mut mass = DMatrix::zeros(n, n);
    let mut jac = DMatrix::zeros(rows, n);
    let (mut force, mut gamma) = (vec![0.0; n], vec![0.0; rows]);
    let mut group = c.benchmark_group(label);
    group.bench_function("dynamics_into (M, Q, G, γ)", |b| {
        b.iter(|| {
            let out = DynamicsOut {
                mass: mass.as_view_mut(),
                force: &mut force,
                jacobian: jac.as_view_mut(),
                gamma: &mut gamma,
            };
            sys.dynamics_into(black_box(0.1), black_box(q), black_box(v), out)
        })
    });
    group.bench_function("phi_q_into", |b| {
        b.iter(|| sys.phi_q_into(black_box(0.1), black_box(q), jac.rows_mut(0, dims.m)))
    });
    group.bench_function("gamma_into", |b| {
        b.iter(|| sys.gamma_into(black_box(0.1), black_box(q), black_box(v), &mut gamma))
    });
    group.bench_function("mass_into + force_into + phi_q_into + gamma_into", |b| {
        b.iter(|| {
            sys.mass_into(0.1, black_box(q), mass.as_view_mut());
            sys.force_into(0.1, black_box(q), black_box(v), &mut force);
            sys.phi_q_into(0.1, black_box(q), jac.rows_mut(0, dims.m));
            sys.gamma_into(0.1, black_box(q), black_box(v), &mut gamma)
        })
    });
    group.finish();
}

fn kernels(c: &mut Criterion) {
    let andrews = Andrews::from_parameters(ANDREWS_PARAMETERS.map(|(_, value)| value));
    let v = [1.0, -2.0, 0.5, 0.3, -0.1, 0.2, 0.4];
    bench_system(c, "andrews", &andrews, &ANDREWS_Q0, &v);
    let chain =
        ClosedChain20::from_parameters(std::array::from_fn(|i| if i < 20 { 1.0 } else { 5.0 }));
    let q: Vec<f64> = (0..20).map(|i| 0.1 * i as f64).collect();
    let v: Vec<f64> = (0..20).map(|i| 0.05 * i as f64 - 0.3).collect();
    bench_system(c, "closed_chain20", &chain, &q, &v);
}

criterion_group!(benches, kernels);
criterion_main!(benches);

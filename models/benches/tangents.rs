//! What the tangent nonzero form saves (issue 27 item 1), on the damped four-bar chain in body
//! coordinates of the models suite (`tests/suite/damped_chain.rs`, included by path: 39
//! coordinates, 38 joint rows, `tangents: true`). Thread CPU time ([`CpuClock`]):
//!
//! - kernels: the tangent blocks K = ∂(M w + Gᵀλ − Q)/∂q and ∂Q/∂v once as `tangent_nonzeros_into`
//!   (their joint pattern) against the five dense n × n kernels (`mass_w_q`, `phi_q_t_lambda_q`,
//!   `nh_matrix_t_lambda_q`, `force_q`, `force_v`) that the implicit path gathered before;
//! - runs: Newmark and Radau, h = 1e-3 over 0.2 s on the banded path, with the exact tangents
//!   (the nonzero form) against central-difference tangents (the default without tangents).
//!
//! Run with `cargo bench -p mbsim-models --bench tangents`. A table, no criterion.

#[path = "../tests/suite/damped_chain.rs"]
mod damped_chain;

use std::hint::black_box;
use std::time::Duration;

use damped_chain::{chain, start, tangent_point};
use mbsim_runtime::{ConstrainedSystem, Implicit, Problem, Radau, TangentSystem, integrate};
use mbsim_testkit::CpuClock;
use nalgebra::DMatrix;

fn kernels() {
    let sys = chain();
    let s = tangent_point(&sys);
    let n = sys.dims().n;
    let entries = sys.tangent_sparsity().expect("the form").nonzeros.len();
    let mut values = vec![0.0; 2 * entries];
    let clock = CpuClock::new(Duration::from_millis(300))
        .batch(16)
        .warm_up();
    let form = clock.mean(|| {
        sys.tangent_nonzeros_into(0.0, &s.q, &s.v, &s.lambda, &s.w, &mut values);
        black_box(&values);
    });
    let mut blocks: [DMatrix<f64>; 5] = std::array::from_fn(|_| DMatrix::zeros(n, n));
    let dense = clock.mean(|| {
        let [mw, gl, al, fq, fv] = &mut blocks;
        sys.mass_w_q_into(0.0, &s.q, &s.w, mw.as_view_mut());
        sys.phi_q_t_lambda_q_into(0.0, &s.q, &s.lambda, gl.as_view_mut());
        sys.nh_matrix_t_lambda_q_into(0.0, &s.q, &s.lambda, al.as_view_mut());
        sys.force_q_into(0.0, &s.q, &s.v, fq.as_view_mut());
        sys.force_v_into(0.0, &s.q, &s.v, fv.as_view_mut());
        black_box(&blocks);
    });
    println!(
        "tangent blocks of the damped chain (n = {n}, {entries} entries of {}):",
        n * n
    );
    println!("  nonzero form          {:>9.2} µs", micros(form));
    println!(
        "  five dense kernels    {:>9.2} µs   ratio {:.1}",
        micros(dense),
        dense.as_secs_f64() / form.as_secs_f64()
    );
}

fn runs() {
    let sys = chain();
    let (q0, v0) = start(&sys);
    let problem = Problem::new(0.0, 0.2, &q0, &v0);
    let newmark = Implicit::newmark(1e-3);
    let radau = Radau::fixed(1e-3);
    let clock = CpuClock::new(Duration::from_millis(300)).min_calls(2);
    let rows = [
        (
            "newmark",
            clock.mean(|| drop(newmark.integrate_exact(&sys, &problem).expect("run"))),
            clock.mean(|| drop(integrate(&sys, &newmark, &problem).expect("run"))),
        ),
        (
            "radau",
            clock.mean(|| drop(radau.integrate_exact(&sys, &problem).expect("run"))),
            clock.mean(|| drop(integrate(&sys, &radau, &problem).expect("run"))),
        ),
    ];
    println!("\n200 steps of h = 1e-3 (banded path), thread CPU per run:");
    println!(
        "  {:<8} {:>14} {:>18} {:>7}",
        "method", "exact [ms]", "differences [ms]", "ratio"
    );
    for (name, exact, differences) in rows {
        println!(
            "  {name:<8} {:>14.2} {:>18.2} {:>7.1}",
            1e3 * exact.as_secs_f64(),
            1e3 * differences.as_secs_f64(),
            differences.as_secs_f64() / exact.as_secs_f64()
        );
    }
}

fn micros(d: Duration) -> f64 {
    1e6 * d.as_secs_f64()
}

fn main() {
    kernels();
    runs();
}

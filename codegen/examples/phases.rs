//! Time the phases of generation for the closed chain (`LAGRANGE=1`: the n-link pendulum from
//! its Lagrangian, `BODIES=1`: the same pendulum as bodies):
//! `cargo run --release -p mbsim-codegen --example phases -- 60`.
use mbsim_codegen::{cse::Schedule, emit, fixtures, kernels};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for _ in 0..reps {
        let t0 = Instant::now();
        let mut model = if std::env::var("LAGRANGE").is_ok() {
            fixtures::n_link_pendulum(n)
        } else if std::env::var("BODIES").is_ok() {
            fixtures::n_link_pendulum_bodies(n)
        } else {
            fixtures::closed_chain(n)
        };
        let t1 = Instant::now();
        let k = kernels::derive(&mut model);
        let t2 = Instant::now();
        let joint = [
            k.phi.clone(),
            k.phi_q.entries.clone(),
            k.gamma.clone(),
            k.l.entries.clone(),
        ]
        .concat();
        let s = Schedule::new(&model.pool, &joint);
        if std::env::var("BODIES").is_ok() {
            let mut roots = k.mass.entries.clone();
            roots.extend(&k.force);
            let mq = Schedule::with_pool_subsums(&model.pool, &roots);
            let mass_only = Schedule::with_pool_subsums(&model.pool, &k.mass.entries);
            println!(
                "M+Q: {} ops, {} temps; M alone: {} ops",
                mq.op_count(&model.pool),
                mq.temps.len(),
                mass_only.op_count(&model.pool)
            );
        }
        let t3 = Instant::now();
        let tokens = emit::emit_tokens(&model, &k, &emit::EmitOptions::default());
        let t4 = Instant::now();
        let file: syn::File = syn::parse_str(&tokens.to_string()).unwrap();
        let t5 = Instant::now();
        let text = prettyplease::unparse(&file);
        let t6 = Instant::now();
        if let Ok(path) = std::env::var("OUT") {
            std::fs::write(path, &text).expect("write the emitted source");
        }
        println!(
            "n={n} build {:?} derive {:?} cse {:?} ({} temps, {} nodes) tokens {:?} syn {:?} pretty {:?} ({} bytes, {} lines)",
            t1 - t0,
            t2 - t1,
            t3 - t2,
            s.temps.len(),
            model.pool.len(),
            t4 - t3,
            t5 - t4,
            t6 - t5,
            text.len(),
            text.lines().count()
        );
    }
}

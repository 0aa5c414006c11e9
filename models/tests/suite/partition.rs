//! Generalized coordinate partitioning (\[HAUG\] §7.3.2) and the hybrid algorithm (§7.3.5) on
//! the generated kernels of the catalog's mechanisms: the slider-crank with a TSDA (12
//! absolute coordinates, \[CHIN\] P9) and Haug's pendulum body (P16). GCP holds ‖Φ‖ at its
//! Newton tolerance at every step point and agrees with a tight RKSTAB/PStab reference; the
//! hybrid holds the drift at its constraint tolerance. The runtime's own tests
//! (`runtime/tests/partition.rs`) cover the hand-written models, re-partitioning and failures.

use mbsim_models::catalog;
use mbsim_runtime::catalog::find;
use mbsim_runtime::{
    ConstrainedSystem, HybridOptions, InitOptions, PartitionOptions, Problem, Recorder,
    RepartitionReason, Rkstab, Stabilization, Stats, initialize, integrate,
};

/// (model, q0, v0) of a catalog entry, made consistent.
fn setup(name: &str) -> (Box<dyn ConstrainedSystem>, Vec<f64>, Vec<f64>) {
    let entry = find(catalog(), name).expect("catalog entry");
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let init =
        initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default()).expect("consistent start");
    (sys, init.q, init.v)
}

/// RKSTAB at `rtol` with `stab` over [0, t_end], 20 samples.
fn run(name: &str, stab: Stabilization, rtol: f64, t_end: f64) -> (Recorder, Stats) {
    let (sys, q0, v0) = setup(name);
    let times: Vec<f64> = (0..=20).map(|i| t_end * i as f64 / 20.0).collect();
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_times(&times);
    let method = Rkstab::new(rtol).with_stabilization(stab);
    let (rec, end) = integrate(sys.as_ref(), &method, &problem)
        .unwrap_or_else(|e| panic!("{name} with {}: {e}", stab.name()));
    (rec, end.stats)
}

/// Max over samples and coordinates of |q − q_ref| / (1 + |q_ref|).
fn deviation(a: &Recorder, b: &Recorder) -> f64 {
    a.q.iter()
        .zip(&b.q)
        .flat_map(|(x, y)| {
            x.iter()
                .zip(y)
                .map(|(p, r)| (p - r).abs() / (1.0 + r.abs()))
        })
        .fold(0.0, f64::max)
}

#[test]
fn gcp_and_hybrid_on_the_catalog_mechanisms() {
    let gcp = Stabilization::Partitioned(PartitionOptions::default());
    let hybrid = Stabilization::Hybrid(HybridOptions::default());
    // (model, span, rtol of the run): the slider-crank over the catalog's span, Haug's
    // pendulum over two swings.
    for (name, t_end, rtol) in [
        ("slider-crank-tsda", 0.5, 1e-8),
        ("haug-pendulum", 4.0, 1e-8),
    ] {
        let (reference, _) = run(name, Stabilization::PStab, 1e-12, t_end);
        let (pstab, _) = run(name, Stabilization::PStab, rtol, t_end);
        for stab in [gcp, hybrid] {
            let (rec, stats) = run(name, stab, rtol, t_end);
            let (e, e_pstab) = (deviation(&rec, &reference), deviation(&pstab, &reference));
            eprintln!(
                "{name}/{}: {stats}; drift {:?}; deviation {e:.3e} (pstab {e_pstab:.3e}); \
                 partitions {:?}",
                stab.name(),
                stats.max_drift,
                stats.partitions
            );
            // GCP: ‖Φ‖ at the Newton tolerance (1e-12), velocities from an exact linear solve
            // (round-off, ≤ 1e-12 with these speeds). Hybrid: both at most its tolerance 1e-10.
            let bound = match stab {
                Stabilization::Hybrid(h) => h.tolerance,
                _ => 1e-12,
            };
            let what = format!("{name}/{}", stab.name());
            assert!(
                stats.max_drift.max() <= bound,
                "{what}: drift {:?} above {bound:e}",
                stats.max_drift
            );
            // Agreement: tolerance-proportional, ≲ 100 rtol over these spans.
            assert!(e <= 100.0 * rtol, "{what}: deviation {e:e} > 100 rtol");
            assert_eq!(stats.partitions[0].reason, RepartitionReason::Initial);
        }
    }
}

#[test]
fn haug_pendulum_keeps_haugs_partition() {
    // Example 7.2.1: u = (x1, y1) dependent, v = φ1 independent; Φ_u = I everywhere, so the
    // partition is never replaced.
    let (_, stats) = run(
        "haug-pendulum",
        Stabilization::Partitioned(PartitionOptions::default()),
        1e-10,
        10.0,
    );
    assert_eq!(stats.partitions.len(), 1, "{:?}", stats.partitions);
    assert_eq!(stats.partitions[0].new_independent, vec![2]);
    assert_eq!(stats.extra.get("repartitions"), Some(0));
}

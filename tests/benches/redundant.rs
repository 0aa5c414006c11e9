//! The cost of an over-constrained model against the same mechanism with its redundant row
//! deleted by hand (`cargo bench -p mbsim-tests --bench redundant`; issue 22's goal: at most
//! 1.3× the reduced model's CPU time). Four pairs, 2 s from a consistent start, final state
//! only:
//!
//! - `triple-crank` (12 rows of rank 11; every method leaves `t2_x` out) against
//!   `TripleCrankReduced` (11 rows);
//! - `redundant-pendulum` (Haug's pendulum with its pin given twice, `rod` redundant) against
//!   `HaugPendulum` (the same model without `rod`);
//! - `four-bar-chain-extra` (30 rows of rank 29, `extra_tip_y`) against
//!   `FourBarChainExtraReduced`;
//! - `bricard-points` (IFToMM A04 in natural coordinates, 24 rows of rank 23, `square4`)
//!   against `BricardPointsReduced`.
//!
//! For every method it prints, per pair: the error of q(2 s) of the over-constrained run and of
//! the reduced run against the reduced model at RKSTAB rtol 1e-12 (so the two columns show
//! what leaving a row out costs in accuracy: nothing, up to the method's own error), the
//! largest residual of the left-out rows over the run (`Stats::redundant_drift`, position and
//! velocity level), and the thread CPU time of each run (mean over repeats of at least 0.2 s,
//! the smaller of three such rounds) with their ratio. What the over-constrained run pays: one
//! singular factorization and the selection at the start, the kernels' extra row, then the
//! test whether the left-out row became independent again (one solve, at every one of the
//! first eight factorizations after a selection, then at gaps growing to 32:
//! `redundancy::probe_interval`) and the gathers of the kept rows' factorization (its order
//! and band those of the reduced model: `kkt_compact.rs`).

use std::time::Duration;

use mbsim_models::{
    BricardPoints, BricardPointsReduced, FourBarChainExtra, FourBarChainExtraReduced, HaugPendulum,
    RedundantPendulum, TripleCrank, TripleCrankReduced,
};
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Ali3p, ConstrainedSystem, Dop853, FixedStep,
    Implicit, InitOptions, Integrator, PartitionOptions, Problem, Radau, Rkstab, Scheme, Solution,
    Stabilization, StepSize, initialize,
};
use mbsim_testkit::CpuClock;

/// An over-constrained model, its hand-reduced twin (same coordinates) and a consistent start.
struct Pair {
    name: &'static str,
    full: Box<dyn ConstrainedSystem>,
    reduced: Box<dyn ConstrainedSystem>,
    q0: Vec<f64>,
    v0: Vec<f64>,
}

fn pairs() -> Vec<Pair> {
    let consistent = |sys: &dyn ConstrainedSystem, q: Vec<f64>, v: Vec<f64>| {
        let init = initialize(sys, 0.0, &q, &v, &InitOptions::default()).expect("initialize");
        (init.q, init.v)
    };
    let mut out = Vec::new();
    let mut push = |name, full: Box<dyn ConstrainedSystem>, reduced, (q, v)| {
        let (q0, v0) = consistent(full.as_ref(), q, v);
        out.push(Pair {
            name,
            full,
            reduced,
            q0,
            v0,
        });
    };
    let crank = TripleCrank::chosen();
    let start = crank.branch_state(1.0, 0.0);
    push(
        "triple-crank",
        Box::new(crank),
        Box::new(TripleCrankReduced::chosen()),
        start,
    );
    let pendulum = HaugPendulum::chosen();
    let start = HaugPendulum::initial(&pendulum);
    push(
        "redundant-pendulum",
        Box::new(RedundantPendulum::chosen()),
        Box::new(pendulum),
        start,
    );
    let chain = FourBarChainExtra::unit();
    let start = FourBarChainExtra::initial(&chain);
    push(
        "four-bar-chain-extra",
        Box::new(chain),
        Box::new(FourBarChainExtraReduced::unit()),
        start,
    );
    let bricard = BricardPoints::published();
    let start = BricardPoints::initial(&bricard);
    push(
        "bricard-points",
        Box::new(bricard),
        Box::new(BricardPointsReduced::published()),
        start,
    );
    out
}

/// A method behind one object-safe call.
trait Run {
    fn run(&self, sys: &dyn ConstrainedSystem, p: &Problem) -> Result<Solution, String>;
}

impl<I: Integrator> Run for I {
    fn run(&self, sys: &dyn ConstrainedSystem, p: &Problem) -> Result<Solution, String> {
        self.integrate_into(sys, p, &mut ())
            .map_err(|e| e.to_string())
    }
}

/// Builds a method; `true` asks for the drift to be tracked (`CommonOptions::track_drift`).
type Make = Box<dyn Fn(bool) -> Box<dyn Run>>;

/// `make(method)` with `track_drift` set as asked (a macro: every method has a `common` field,
/// no trait gives it mutably).
macro_rules! make {
    ($method:expr) => {
        Box::new(move |track: bool| {
            let mut m = $method;
            m.common.track_drift = track;
            Box::new(m) as Box<dyn Run>
        }) as Make
    };
}

fn methods() -> Vec<(&'static str, Make)> {
    let adams = |kind| Adams::new(AdamsScheme::new(kind, 4, AdamsStart::RungeKutta), 1e-3);
    let implicit = |scheme| {
        Implicit::new(scheme, StepSize::Fixed(1e-3)).with_stabilization(Stabilization::VelocityOnly)
    };
    vec![
        ("rkstab/pstab 1e-8", make!(Rkstab::new(1e-8))),
        (
            "rkstab/gcp 1e-8",
            make!(
                Rkstab::new(1e-8)
                    .with_stabilization(Stabilization::Partitioned(PartitionOptions::default()))
            ),
        ),
        ("dop853/pstab 1e-10", make!(Dop853::new(1e-10))),
        ("abm 1e-8", make!(Abm::new(1e-8))),
        ("mampc4 h 1e-3", make!(adams(AdamsKind::Mampc))),
        ("rk4 h 1e-3", make!(FixedStep::new(RK4, 1e-3))),
        ("hht h 1e-3", make!(implicit(Scheme::Hht { alpha: -0.1 }))),
        (
            "gen-alpha h 1e-3",
            make!(implicit(Scheme::GeneralizedAlpha { rho_inf: 0.8 })),
        ),
        (
            "radau 1e-8",
            make!(
                Radau::new(Implicit::adaptive(1e-8))
                    .with_stabilization(Stabilization::VelocityOnly)
            ),
        ),
        ("ali3p h 1e-3", make!(Ali3p::new(1e-3))),
    ]
}

/// Mean thread CPU time of `f` over repeats of at least 0.2 s, the smallest of three rounds.
/// Thread CPU time of one run: the smallest of three means over ≥ 0.2 s (≥ 2 runs) each.
fn cpu_time(f: impl Fn()) -> Duration {
    CpuClock::new(Duration::from_millis(200))
        .min_calls(2)
        .rounds(3)
        .mean(f)
}

fn max_error(q: &[f64], reference: &[f64]) -> f64 {
    q.iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

fn main() {
    // `cargo bench` passes `--bench`; filters (other arguments) pick pairs and methods whose
    // names contain one of them (`-- four-bar rkstab`: RKSTAB's rows of the chain).
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let picked = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    println!(
        "| model | method | error, redundant | error, reduced | redundant rows' drift (pos, vel) | NFCN | CPU redundant | CPU reduced | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for pair in pairs() {
        if !picked(pair.name) {
            continue;
        }
        let problem = Problem::new(0.0, 2.0, &pair.q0, &pair.v0).with_times(&[2.0]);
        let reference = Rkstab::new(1e-12)
            .integrate_into(pair.reduced.as_ref(), &problem, &mut ())
            .expect("reference run");
        for (label, make) in methods() {
            if !picked(label) {
                continue;
            }
            let tracked = make(true);
            let (full, reduced) = (
                tracked.run(pair.full.as_ref(), &problem),
                tracked.run(pair.reduced.as_ref(), &problem),
            );
            let (full, reduced) = match (full, reduced) {
                (Ok(f), Ok(r)) => (f, r),
                (f, r) => {
                    let why = |x: &Result<Solution, String>| match x {
                        Ok(_) => "runs".to_string(),
                        Err(e) => e.clone(),
                    };
                    println!(
                        "| {} | {label} | fails: {} / {} |",
                        pair.name,
                        why(&f),
                        why(&r)
                    );
                    continue;
                }
            };
            let timed = make(false);
            let cpu = |sys: &dyn ConstrainedSystem| {
                cpu_time(|| {
                    timed.run(sys, &problem).expect("ran before");
                })
            };
            let (cpu_full, cpu_reduced) = (cpu(pair.full.as_ref()), cpu(pair.reduced.as_ref()));
            let drift = full.stats.redundant_drift;
            println!(
                "| {} | {label} | {:.1e} | {:.1e} | {:.1e}, {:.1e} | {}, {} | {:.3} ms | {:.3} ms | {:.2} |",
                pair.name,
                max_error(&full.q, &reference.q),
                max_error(&reduced.q, &reference.q),
                drift.position,
                drift.velocity,
                full.stats.nfcn,
                reduced.stats.nfcn,
                cpu_full.as_secs_f64() * 1e3,
                cpu_reduced.as_secs_f64() * 1e3,
                cpu_full.as_secs_f64() / cpu_reduced.as_secs_f64(),
            );
        }
    }
}

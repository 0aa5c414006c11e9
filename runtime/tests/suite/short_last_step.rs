//! Constant-step methods over a span that is not a whole number of steps (issue 24): the run
//! ends with one shorter step exactly on t_end, the steps before it are bit-for-bit those of a
//! run whose span is a whole number of steps (so every reproduction with a dividing h keeps
//! its numbers), and the result keeps the method's accuracy.

use crate::common;

use common::Sys;
use common::models::Pendulum;
use mbsim_runtime::tableau::HEUN;
use mbsim_runtime::{
    Adams, AdamsKind, AdamsScheme, AdamsStart, FixedStep, Integrator, Problem, Recorder, SimError,
    Stats, integrate,
};

fn run<I: Integrator>(method: &I, t_end: f64, times: &[f64]) -> (Recorder, Stats, f64) {
    let sys = Sys(Pendulum::UNIT);
    let (q, v) = Pendulum::UNIT.at_rest(0.4);
    let problem = Problem::new(0.0, t_end, &q, &v).with_times(times);
    let (rec, solution) = integrate(&sys, method, &problem).expect("the run succeeds");
    (rec, solution.stats, solution.t)
}

fn heun(h: f64) -> FixedStep {
    let mut m = FixedStep::new(HEUN, h);
    m.common.output_steps = true;
    m
}

fn mampc(h: f64) -> Adams {
    let mut m = Adams::new(
        AdamsScheme::new(AdamsKind::Mampc, 4, AdamsStart::RungeKutta),
        h,
    );
    m.common.output_steps = true;
    m
}

/// Heun with h = 0.25 on [0, 1.1]: four steps of 0.25, then one of 0.1 ending on 1.1 exactly;
/// the first four step points equal those of the run on [0, 1] to the bit.
#[test]
fn heun_takes_a_shorter_last_step_and_leaves_the_others_alone() {
    let (whole, whole_stats, _) = run(&heun(0.25), 1.0, &[]);
    let (longer, stats, t_reached) = run(&heun(0.25), 1.1, &[]);
    assert_eq!(whole_stats.nstep, 4);
    assert_eq!(stats.nstep, 5);
    assert_eq!(t_reached, 1.1);
    assert_eq!(*longer.t.last().expect("samples"), 1.1);
    assert!((stats.h_range.0 - 0.1).abs() < 1e-12, "{:?}", stats.h_range);
    assert_eq!(stats.h_range.1, 0.25);
    for (i, t) in whole.t.iter().enumerate() {
        assert_eq!(longer.t[i].to_bits(), t.to_bits(), "step point {i}");
        for (a, b) in longer.q[i].iter().zip(&whole.q[i]) {
            assert_eq!(a.to_bits(), b.to_bits(), "q at step point {i}");
        }
    }
}

/// The shorter last step keeps Heun's accuracy: on [0, 1 + h/2] (a half step at the end) for
/// h = 0.02, 0.01, 0.005, the end point differs from the run's own dense output at that time (a
/// run to 1.2 through it) by a local error — third order (measured ratios 7.8 and 8.0 per
/// halving) and below 1 % of the global error — while the global error against a tight
/// reference stays second order (measured ratios 4.9 and 4.5).
#[test]
fn heun_with_a_shorter_last_step_keeps_its_order() {
    let measure = |h: f64| {
        let t_end = 1.0 + 0.5 * h;
        let reference = run(&heun(1e-5), t_end, &[t_end]).0;
        let exact = reference.q.last().expect("sample")[0];
        let short = run(&heun(h), t_end, &[t_end]).0.q.last().expect("sample")[0];
        let dense = run(&heun(h), 1.2, &[t_end]).0;
        let i = dense.t.iter().position(|&t| t == t_end).expect("sampled");
        ((short - exact).abs(), (short - dense.q[i][0]).abs())
    };
    let runs: Vec<(f64, f64)> = [0.02, 0.01, 0.005].map(measure).to_vec();
    for w in runs.windows(2) {
        let (global, local) = (w[0].0 / w[1].0, w[0].1 / w[1].1);
        assert!(
            (3.0..6.5).contains(&global),
            "global error ratio {global}: {runs:?}"
        );
        assert!(local > 6.0, "last-step difference ratio {local}: {runs:?}");
    }
    for (global, local) in &runs {
        assert!(*local < 0.01 * global, "{local:e} vs {global:e}");
    }
}

/// MAMPC (constant-step Adams) takes the shorter last step at its order with the weights of
/// the actual nodes: h = 0.01 on [0, 1.005] reaches t = 1.005 in 101 steps and agrees with a
/// fine run to the method's accuracy; the steps before it are those of the run on [0, 1].
#[test]
fn adams_takes_a_shorter_last_step() {
    let (rec, stats, t_reached) = run(&mampc(0.01), 1.005, &[1.005]);
    assert_eq!(t_reached, 1.005);
    assert_eq!(stats.nstep, 101);
    let (fine, _, _) = run(&mampc(1e-4), 1.005, &[1.005]);
    let (q, q_fine) = (
        rec.q.last().expect("sample"),
        fine.q.last().expect("sample"),
    );
    let diff = (q[0] - q_fine[0]).abs().max((q[1] - q_fine[1]).abs());
    // Fourth order at h = 0.01 on a unit pendulum: errors ~1e-8; a last step with wrong
    // weights (uniform weights on a 0.005 step) would be off by ~1e-3.
    assert!(diff < 1e-6, "difference to the fine run {diff:e}");
    let (whole, _, _) = run(&mampc(0.01), 1.0, &[]);
    assert!(whole.t.len() >= 100, "{} step points", whole.t.len());
    for t in &whole.t {
        let before = rec_at(&whole, *t);
        assert!(before.is_some());
        assert_eq!(rec_at(&rec, *t), before, "step point t = {t}");
    }
}

fn rec_at(rec: &Recorder, t: f64) -> Option<Vec<u64>> {
    let i = rec.t.iter().position(|&s| s == t)?;
    Some(rec.q[i].iter().map(|x| x.to_bits()).collect())
}

/// A step size larger than the span is one step of the span's size.
#[test]
fn a_step_longer_than_the_span_is_one_step() -> Result<(), SimError> {
    let (_, stats, t_reached) = run(&heun(0.5), 0.2, &[]);
    assert_eq!((stats.nstep, t_reached), (1, 0.2));
    Ok(())
}

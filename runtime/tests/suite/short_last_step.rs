//! Constant-step methods over a span that is not a whole number of steps (issue 24): the run
//! ends with one shorter step exactly on t_end, the steps before it are bit-for-bit those of a
//! run whose span is a whole number of steps (so every reproduction with a dividing h keeps
//! its numbers), and the result keeps the method's accuracy.

use crate::common;

use common::Sys;
use common::models::Pendulum;
use mbsim_runtime::tableau::HEUN;
use mbsim_runtime::{
    Adams, AdamsKind, AdamsScheme, AdamsStart, FixedStep, Integrator, Problem, Recorder,
    SimError, Stats, integrate,
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

/// The shorter last step keeps Heun's second order: on [0, 1.05] with h and h/2 (last steps
/// 0.05 and 0.05 − so neither span is whole), the error at t_end against a tight reference
/// falls by about 4.
#[test]
fn heun_with_a_shorter_last_step_keeps_its_order() {
    let reference = run(&heun(1e-4), 1.05, &[1.05]).0;
    let exact = reference.q.last().expect("sample")[0];
    let error = |h: f64| {
        let rec = run(&heun(h), 1.05, &[1.05]).0;
        (rec.q.last().expect("sample")[0] - exact).abs()
    };
    let (coarse, fine) = (error(0.02), error(0.01));
    let ratio = coarse / fine;
    assert!((3.0..5.5).contains(&ratio), "error ratio {ratio} ({coarse:e}, {fine:e})");
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
    let (q, q_fine) = (rec.q.last().expect("sample"), fine.q.last().expect("sample"));
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

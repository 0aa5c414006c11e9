//! Haug's variable-step, variable-order PECE Adams method ([`Abm`], \[HAUG\] §7.4.4–7.4.5; the
//! details Haug leaves to Shampine–Gordon are filled in as written below).
//!
//! Each step is MAMPC_k (= Haug's PECE of order k: AB_k predictor, order-(k+1) corrector) on
//! the actual, unequal past step points (variable-coefficient Adams, `quadrature.rs`), so no
//! re-gridding of past data is needed after a step change (ambiguity 31).
//!
//! - **Error estimate**: E(j) = ‖C_{j+2} − C_{j+1}‖, the difference between the correctors
//!   through j + 2 and j + 1 nodes (f^p, f_n, f_{n−1}, …): Haug's τ^c = h γ*_{k+1} ∇^{k+1} f^p
//!   (7.4.16) for unequal steps. Hairer's scaled RMS norm over all of (q, v) with
//!   sk = atol + rtol max(|z_n|, |z_{n+1}|) and the layer's error scales (GCP drops the
//!   dependent components). E(j) ∝ h^{j+2}. While the history is too short for E(k), the
//!   estimate is ‖z^c − z^p‖, which over-estimates (it is the predictor's error).
//! - **Step and order** (Haug's heuristics 1–3): the step is accepted when E(k) ≤ 1. For each
//!   candidate order j ∈ {k−1, k, k+1} with an estimate, the step factor is
//!   r_j = clamp(0.9 E(j)^{−1/(j+2)}, 0.2, 2) (growth at most 2: variable-step Adams is stable
//!   for moderate ratios); the order changes only when its factor beats the current one by
//!   [`ORDER_GAIN`] ("only when the gain is significant"). A rejected step shrinks by at least
//!   2 (Haug: "halve h and repeat the predictor") and may lower the order the same way.
//! - **Start**: order 1 with Hairer's `HINIT` step for an order-1 estimate; while the start
//!   phase lasts the order rises by one per accepted step (Haug's ramp) and h follows r_k; the
//!   phase ends at the first rejection, at the maximum order, or when k − 1 would be better.
//!
//! Counters: NFCN = 2 per attempt + 1 (f(t0)) + 1 (the `HINIT` probe, when h0 is not given);
//! `Stats::extra` has `order_min`, `order_max` and `order_changes`.

use crate::error::SimError;
use crate::integrator::controller::{Adaptive, Verdict};
use crate::integrator::driver::{Attempt, Schedule, Stepper, StepperCounters};
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::options::{StepControl, Tolerance};
use crate::output::Observer;
use crate::stabilize::Stabilization;
use crate::system::ConstrainedSystem;

use super::engine::Field;
use super::fixed::AdamsStepper;
use super::{AdamsKind, AdamsScheme, AdamsStart, MAX_ORDER};

/// An order change needs a step factor this much larger than the current order's.
pub const ORDER_GAIN: f64 = 1.2;

/// The variable-step, variable-order PECE Adams method and its options.
#[derive(Clone, Debug, PartialEq)]
pub struct Abm {
    /// Relative tolerance (scalar or one per component of (q, v)).
    pub rtol: Tolerance,
    /// Absolute tolerance.
    pub atol: Tolerance,
    /// The highest predictor order (1..=[`MAX_ORDER`]; the method's order is one more).
    pub max_order: usize,
    /// Largest step magnitude (∞: the span).
    pub h_max: f64,
    /// Initial step; `None` selects it like `HINIT` for order 1.
    pub h_init: Option<f64>,
    /// The options every method shares.
    pub common: CommonOptions,
}

impl Abm {
    /// `rtol` with `atol = rtol / 10`, orders up to 12, PStab on every step.
    pub fn new(rtol: f64) -> Self {
        Self {
            rtol: Tolerance::Scalar(rtol),
            atol: Tolerance::Scalar(rtol / 10.0),
            max_order: MAX_ORDER,
            h_max: f64::INFINITY,
            h_init: None,
            common: CommonOptions::default(),
        }
    }

    /// The same method with another stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self
    }

    fn validate(&self, len: usize) -> Result<(), SimError> {
        self.rtol.validate("rtol", len, 10.0 * f64::EPSILON)?;
        self.atol.validate("atol", len, 0.0)?;
        AdamsScheme::new(AdamsKind::Mampc, self.max_order, AdamsStart::Ramp).validate()?;
        if self.h_max.is_nan() || self.h_max <= 0.0 {
            return Err(crate::integrator::common::invalid(
                "h_max",
                &self.h_max.to_string(),
                "must be > 0 (∞ for no limit)",
            ));
        }
        if let Some(h) = self.h_init {
            crate::integrator::common::positive("h_init", h)?;
        }
        Ok(())
    }
}

impl Integrator for Abm {
    fn name(&self) -> String {
        "abm".to_string()
    }

    fn common(&self) -> &CommonOptions {
        &self.common
    }

    fn integrate_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        let len = 2 * sys.dims().n;
        self.validate(len)?;
        let auto_tol = (0..len)
            .map(|i| self.atol.get(i))
            .fold(f64::INFINITY, f64::min);
        let (mut run, mut stats) = prepare(sys, &self.common, problem, Some(auto_tol), observer)?;
        let scheme = AdamsScheme::new(AdamsKind::Mampc, self.max_order, AdamsStart::Ramp);
        let mut stepper = VariableAdams {
            inner: AdamsStepper::new(sys, &self.common, scheme, problem).with_predicted_factors(),
            rtol: self.rtol.clone(),
            atol: self.atol.clone(),
            max_order: self.max_order,
            h_max: self.h_max.min((problem.t_end - problem.t0).abs()),
            order: 1,
            next_order: 1,
            starting: true,
            orders: (1, 1),
            order_changes: 0,
        };
        stepper.inner.begin(sys, problem.t0)?;
        let span = (problem.t_end - problem.t0).abs();
        let h_max = self.h_max.min(span);
        let h0 = match self.h_init {
            Some(h) => h.min(h_max),
            None if span > 0.0 => stepper.initial_step(sys, problem.t0, run.dir, h_max)?,
            None => 0.0,
        };
        // The controller only shortens the step after failed attempts; the verdicts are ours.
        let control = Adaptive::new(StepControl::default(), 1, h_max);
        run.drive(&mut stepper, Schedule::Adaptive { control, h0 }, &mut stats)?;
        stats.extra.set("order_min", stepper.orders.0 as u64);
        stats.extra.set("order_max", stepper.orders.1 as u64);
        stats
            .extra
            .set("order_changes", stepper.order_changes as u64);
        Ok(run.finish(stepper.inner.solution(problem.t_end, stats)))
    }
}

/// The variable-order controller around the Adams engine.
struct VariableAdams {
    inner: AdamsStepper,
    rtol: Tolerance,
    atol: Tolerance,
    max_order: usize,
    h_max: f64,
    /// The predictor order of the current attempt.
    order: usize,
    /// The order chosen for the step after the current attempt, if it is accepted.
    next_order: usize,
    starting: bool,
    /// Smallest and largest order used.
    orders: (usize, usize),
    order_changes: usize,
}

impl VariableAdams {
    /// `HINIT` for an order-1 method: h from ‖z‖/‖f‖, refined with one Euler probe.
    fn initial_step<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        dir: f64,
        h_max: f64,
    ) -> Result<f64, SimError> {
        let (rtol, atol) = (&self.rtol, &self.atol);
        let (engine, mut field) = self.inner.field(sys);
        let (z, f0) = (engine.z.clone(), engine.newest_slope().to_vec());
        let sk = |c: usize| atol.get(c) + rtol.get(c) * z[c].abs();
        let rms = |x: &dyn Fn(usize) -> f64| {
            ((0..z.len()).map(|c| (x(c) / sk(c)).powi(2)).sum::<f64>() / z.len() as f64).sqrt()
        };
        let (dny, dnf) = (rms(&|c| z[c]), rms(&|c| f0[c]));
        let h = if dnf <= 1e-5 || dny <= 1e-5 {
            1e-6
        } else {
            0.01 * dny / dnf
        }
        .min(h_max);
        let probe: Vec<f64> = (0..z.len()).map(|c| z[c] + dir * h * f0[c]).collect();
        let mut f1 = vec![0.0; z.len()];
        Field::eval(&mut field, t + dir * h, &probe, h, &mut f1)?;
        let der2 = rms(&|c| f1[c] - f0[c]) / h;
        let der12 = der2.max(dnf);
        let h1 = if der12 <= 1e-15 {
            (h * 1e-3).max(1e-6)
        } else {
            (0.01 / der12).sqrt()
        };
        Ok((100.0 * h).min(h1).min(h_max))
    }

    /// The error estimate E(j) for predictor order j, if the history allows it.
    fn estimate<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        h: f64,
        j: usize,
    ) -> Option<f64> {
        let (rtol, atol) = (&self.rtol, &self.atol);
        let (engine, field) = self.inner.field(sys);
        let tol: (&dyn Fn(usize) -> f64, &dyn Fn(usize) -> f64) =
            (&|c| rtol.get(c), &|c| atol.get(c));
        engine.difference_estimate(&field, h, j + 2, tol)
    }

    /// The estimate for the attempted order: the difference if available, else z^c − z^p.
    fn current_estimate<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, h: f64) -> f64 {
        let k = self.order;
        if let Some(e) = self.estimate(sys, h, k) {
            return e;
        }
        let (rtol, atol) = (&self.rtol, &self.atol);
        let (engine, field) = self.inner.field(sys);
        engine.predictor_estimate(&field, (&|c| rtol.get(c), &|c| atol.get(c)))
    }

    /// The verdict on an attempt of magnitude `h` with error `err` at order k, and the order
    /// for the next attempt.
    fn decide<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, h: f64, err: f64) -> Verdict {
        let k = self.order;
        let factor = |e: f64, j: usize| (0.9 * e.powf(-1.0 / (j as f64 + 2.0))).clamp(0.2, 2.0);
        let lower = (k > 1).then(|| self.estimate(sys, h, k - 1)).flatten();
        let r_k = factor(err, k);
        let r_lower = lower.map(|e| factor(e, k - 1));
        if err > 1.0 {
            self.starting = false;
            let (order, r) = match r_lower {
                Some(r) if r > ORDER_GAIN * r_k => (k - 1, r),
                _ => (k, r_k),
            };
            // The retry runs at once, so the order changes now.
            (self.order, self.next_order) = (order, order);
            return Verdict::Reject(h * r.min(0.5));
        }
        let slopes_after = self.inner.engine.hist.len() + 1;
        if self.starting {
            let lower_better = r_lower.is_some_and(|r| r > ORDER_GAIN * r_k);
            if lower_better || k >= self.max_order {
                self.starting = false;
            } else {
                self.next_order = (k + 1).min(slopes_after);
                return Verdict::Accept((h * r_k).min(self.h_max));
            }
        }
        let higher = (k < self.max_order)
            .then(|| self.estimate(sys, h, k + 1))
            .flatten()
            .map(|e| factor(e, k + 1));
        let (mut order, mut r) = (k, r_k);
        if let Some(rl) = r_lower.filter(|&rl| rl > ORDER_GAIN * r) {
            (order, r) = (k - 1, rl);
        }
        if let Some(rh) = higher.filter(|&rh| rh > ORDER_GAIN * r) {
            (order, r) = (k + 1, rh);
        }
        self.next_order = order.min(slopes_after);
        Verdict::Accept((h * r).min(self.h_max))
    }
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for VariableAdams {
    fn state(&self) -> &[f64] {
        self.inner.engine.z.as_slice()
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        let k = self.order;
        let (engine, mut field) = self.inner.field(sys);
        engine.set_time(t);
        let stabilized = engine.attempt(&mut field, h, k, Some(k + 1))?;
        let err = self.current_estimate(sys, h.abs());
        let verdict = self.decide(sys, h.abs(), err);
        Ok(Attempt {
            error: err,
            stabilized,
            verdict: Some(verdict),
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        Stepper::<S>::accept(&mut self.inner, t, h);
        self.orders = (self.orders.0.min(self.order), self.orders.1.max(self.order));
        if self.next_order != self.order {
            self.order_changes += 1;
        }
        self.order = self.next_order;
    }

    fn interpolate(&mut self, sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        self.inner.interpolate(sys, t, out)
    }

    fn stabilizer(&self) -> Option<&crate::stabilize::Stabilizer> {
        Stepper::<S>::stabilizer(&self.inner)
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Stepper::<S>::row_selection(&self.inner)
    }

    fn counters(&self) -> StepperCounters {
        Stepper::<S>::counters(&self.inner)
    }
}

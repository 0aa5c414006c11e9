//! Step-size selection shared by the methods: Hairer's controller for adaptive methods and the
//! uniform schedule of constant-step methods.
//!
//! [`Adaptive`] is the controller of `dopri5.f` for an error estimator of order p (RKSTAB:
//! p = 4): with err the scaled error norm, fac11 = err^(1/(p+1) − 0.75 β),
//! - accept (err ≤ 1): h_new = h / clamp(fac11 / facold^β / safety, 1/max_ratio, 1/min_ratio),
//!   at most h_max, and no growth right after a rejection; facold = max(err, 1e-4);
//! - reject: h_new = h / min(fac11 / safety, 1/min_ratio).
//!
//! It works on step magnitudes; the driver applies the direction of integration.

use crate::error::SimError;
use crate::options::StepControl;

use super::Problem;
use super::common::positive;

/// The verdict on one step attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Keep the step; continue with this magnitude.
    Accept(f64),
    /// Redo the step with this magnitude.
    Reject(f64),
}

/// Hairer's step-size controller with Lund stabilization.
#[derive(Clone, Debug)]
pub(crate) struct Adaptive {
    control: StepControl,
    h_max: f64,
    expo1: f64,
    facold: f64,
    after_reject: bool,
}

impl Adaptive {
    /// For an error estimate of order `p`; `h_max` already limited to the span.
    pub(crate) fn new(control: StepControl, p: usize, h_max: f64) -> Self {
        Self {
            expo1: 1.0 / (p as f64 + 1.0) - 0.75 * control.beta,
            control,
            h_max,
            facold: 1e-4,
            after_reject: false,
        }
    }

    /// Judge an attempt of magnitude `h` with scaled error `err`; an accepted attempt continues
    /// with `proposal` (the method's own next step, magnitude) when there is one, else with
    /// the controller's. Either is limited to h_max and, right after a rejection, to h.
    pub(crate) fn judge(&mut self, err: f64, h: f64, proposal: Option<f64>) -> Verdict {
        let sc = &self.control;
        let fac11 = err.powf(self.expo1);
        if err <= 1.0 {
            let fac = (fac11 / self.facold.powf(sc.beta) / sc.safety)
                .clamp(1.0 / sc.max_ratio, 1.0 / sc.min_ratio);
            let mut h_new = proposal.unwrap_or(h / fac).min(self.h_max);
            self.facold = err.max(1e-4);
            if self.after_reject {
                h_new = h_new.min(h);
            }
            self.after_reject = false;
            Verdict::Accept(h_new)
        } else {
            let fac = (fac11 / sc.safety).min(1.0 / sc.min_ratio);
            self.after_reject = true;
            Verdict::Reject(h / fac)
        }
    }

    /// After an attempt that failed (singular KKT matrix, non-finite kernel): a quarter step.
    pub(crate) fn after_failure(&mut self, h: f64) -> f64 {
        self.after_reject = true;
        0.25 * h
    }
}

/// The constant-step schedule: `steps` steps of size `h` from `t0`, step i starting at exactly
/// t0 + i h (no accumulated sum), then, when the span is not a whole number of steps, one
/// shorter step `last` that ends exactly at t_end (`last` = 0 when there is none: the last of
/// the `steps` steps then ends at t_end up to round-off).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Uniform {
    pub(crate) t0: f64,
    pub(crate) h: f64,
    pub(crate) steps: usize,
    /// The signed size of the final shorter step, or 0.
    pub(crate) last: f64,
}

impl Uniform {
    /// Steps of magnitude `h` (> 0) over `problem`'s span in its direction. A span that is a
    /// whole number of steps (to 1e-9 relative) is exactly that many steps, as before; any
    /// other span ends with one shorter step onto t_end. Every method on this schedule takes
    /// it: the one-step methods like any other step, HPIM/NPC recompute their step operator
    /// for it, and the constant-step Adams methods take it at their current order with the
    /// quadrature weights of the actual (non-uniform) nodes, as the variable-step ABM does.
    pub(crate) fn over(h: f64, problem: &Problem) -> Result<Uniform, SimError> {
        positive("h", h)?;
        let span = (problem.t_end - problem.t0).abs();
        let steps_f = span / h;
        let dir = problem.direction();
        let whole = steps_f.round();
        if (steps_f - whole).abs() <= 1e-9 * steps_f.max(1.0) {
            return Ok(Uniform {
                t0: problem.t0,
                h: dir * h,
                steps: whole as usize,
                last: 0.0,
            });
        }
        let steps = steps_f.floor() as usize;
        // The remainder from the exact start of the final step, so the step ends on t_end.
        let last = problem.t_end - (problem.t0 + steps as f64 * dir * h);
        Ok(Uniform {
            t0: problem.t0,
            h: dir * h,
            steps,
            last,
        })
    }
}

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
use super::common::{invalid, positive};

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

    /// Judge an attempt of magnitude `h` with scaled error `err`.
    pub(crate) fn judge(&mut self, err: f64, h: f64) -> Verdict {
        let sc = &self.control;
        let fac11 = err.powf(self.expo1);
        if err <= 1.0 {
            let fac = (fac11 / self.facold.powf(sc.beta) / sc.safety)
                .clamp(1.0 / sc.max_ratio, 1.0 / sc.min_ratio);
            let mut h_new = (h / fac).min(self.h_max);
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

/// The constant-step schedule: `steps` steps of size `h` from `t0`; step i starts at exactly
/// t0 + i h (no accumulated sum) and the last one ends exactly at t_end.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Uniform {
    pub(crate) t0: f64,
    pub(crate) h: f64,
    pub(crate) steps: usize,
}

impl Uniform {
    /// Steps of magnitude `h` (> 0) over `problem`'s span in its direction; the span must be a
    /// whole number of steps (to 1e-9 relative), else [`SimError::InvalidOption`] for `h`.
    pub(crate) fn over(h: f64, problem: &Problem) -> Result<Uniform, SimError> {
        positive("h", h)?;
        let steps_f = (problem.t_end - problem.t0).abs() / h;
        let steps = steps_f.round() as usize;
        if (steps_f - steps as f64).abs() > 1e-9 * steps_f.max(1.0) {
            let reason = "the span |t_end - t0| must be a whole number of steps";
            return Err(invalid("h", &h.to_string(), reason));
        }
        Ok(Uniform {
            t0: problem.t0,
            h: problem.direction() * h,
            steps,
        })
    }
}

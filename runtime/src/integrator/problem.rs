//! What is integrated: the time span, the initial state and the output grid ([`Problem`]),
//! checked before any kernel is called.
//!
//! The span may run backward (`t_end < t0`): every method then takes negative steps, and the
//! output times must be ordered in the direction of integration.

use crate::error::SimError;
use crate::system::Dims;

/// Where samples are reported, besides the step points ([`super::CommonOptions::output_steps`]).
#[derive(Clone, Debug, PartialEq)]
pub enum OutputGrid {
    /// No samples.
    None,
    /// These times, ordered in the direction of integration and within the span.
    Times(Vec<f64>),
    /// t0, t0 ± dt, t0 ± 2 dt, … up to (not past) t_end, and exactly t_end (`dt > 0`).
    Uniform(f64),
}

/// An initial-value problem for a constrained system.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Initial time.
    pub t0: f64,
    /// Final time (may be smaller than `t0`: backward integration).
    pub t_end: f64,
    /// Initial coordinates, length n.
    pub q0: Vec<f64>,
    /// Initial velocities, length n.
    pub v0: Vec<f64>,
    /// Output samples.
    pub output: OutputGrid,
}

impl Problem {
    /// From t0 to t_end starting at (q0, v0), with no output grid.
    pub fn new(t0: f64, t_end: f64, q0: &[f64], v0: &[f64]) -> Self {
        Self {
            t0,
            t_end,
            q0: q0.to_vec(),
            v0: v0.to_vec(),
            output: OutputGrid::None,
        }
    }

    /// The same problem with samples at `times`.
    pub fn with_times(mut self, times: &[f64]) -> Self {
        self.output = OutputGrid::Times(times.to_vec());
        self
    }

    /// The same problem with samples every `dt` (and at t_end).
    pub fn with_uniform_output(mut self, dt: f64) -> Self {
        self.output = OutputGrid::Uniform(dt);
        self
    }

    /// +1 forward, −1 backward.
    pub fn direction(&self) -> f64 {
        if self.t_end >= self.t0 { 1.0 } else { -1.0 }
    }

    /// The output times, in the direction of integration.
    pub fn output_times(&self) -> Vec<f64> {
        match &self.output {
            OutputGrid::None => Vec::new(),
            OutputGrid::Times(times) => times.clone(),
            OutputGrid::Uniform(dt) => {
                let (span, dir) = ((self.t_end - self.t0).abs(), self.direction());
                // Sized once (the no-allocation tests count reallocations too); the bound
                // only reserves, a grid that validation would refuse gets none.
                let bound = (span / dt).ceil();
                let capacity = if bound.is_finite() && bound < 1e9 {
                    bound as usize + 2
                } else {
                    0
                };
                let mut times = Vec::with_capacity(capacity);
                times.extend(
                    (0..)
                        .map(|i| i as f64 * dt)
                        .take_while(|&s| s < span * (1.0 - 1e-12))
                        .map(|s| self.t0 + dir * s),
                );
                times.push(self.t_end);
                times
            }
        }
    }

    /// Every check that needs no kernel: finite times and state, lengths, the grid.
    pub fn validate(&self, dims: Dims) -> Result<(), SimError> {
        let bad = |what: String| Err(SimError::InvalidProblem { what });
        if !self.t0.is_finite() || !self.t_end.is_finite() {
            return bad(format!(
                "the time span [{}, {}] must be finite",
                self.t0, self.t_end
            ));
        }
        for (name, x) in [("q0", &self.q0), ("v0", &self.v0)] {
            if x.len() != dims.n {
                return bad(format!(
                    "{name} has {} entries, the model n = {}",
                    x.len(),
                    dims.n
                ));
            }
            if let Some(i) = x.iter().position(|v| !v.is_finite()) {
                return bad(format!("{name}[{i}] = {} is not finite", x[i]));
            }
        }
        match &self.output {
            OutputGrid::None => Ok(()),
            OutputGrid::Uniform(dt) if !(dt.is_finite() && *dt > 0.0) => bad(format!(
                "the output spacing dt = {dt} must be finite and > 0"
            )),
            OutputGrid::Uniform(_) => Ok(()),
            OutputGrid::Times(times) => self.validate_times(times),
        }
    }

    fn validate_times(&self, times: &[f64]) -> Result<(), SimError> {
        let dir = self.direction();
        let (lo, hi) = (self.t0.min(self.t_end), self.t0.max(self.t_end));
        if let Some(&t) = times.iter().find(|t| !(lo..=hi).contains(*t)) {
            return Err(SimError::InvalidProblem {
                what: format!(
                    "output time {t} lies outside the span [{}, {}]",
                    self.t0, self.t_end
                ),
            });
        }
        if let Some(w) = times.windows(2).find(|w| dir * (w[1] - w[0]) < 0.0) {
            return Err(SimError::InvalidProblem {
                what: format!(
                    "output times must be ordered in the direction of integration: {} then {}",
                    w[0], w[1]
                ),
            });
        }
        Ok(())
    }
}

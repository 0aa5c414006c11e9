//! The options every method shares ([`CommonOptions`]) and their up-front validation.
//!
//! A method's own options (tolerances and step control for RKSTAB, the tableau and h for the
//! constant-step drivers, …) live next to the method; what is here means the same for all of
//! them: drift control, limits, how samples are produced and how the initial state is checked.

use crate::error::SimError;
use crate::kkt::KktSolver;
use crate::stabilize::Stabilization;

/// How output samples between step points are produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleKind {
    /// The method's continuous extension (DOPRI5's dense output, a cubic Hermite interpolant
    /// for constant-step methods) as it is: cheap, but not on the constraint manifold (the
    /// drift of an interpolated sample is of the order of the local error, e.g. ‖Φ̇‖ ≈ 1e-4 on
    /// Andrews at rtol 1e-6, while the step points hold 1e-11). The default of
    /// [`CommonOptions::default`]; DOP853 starts from `Projected` under the post-step drift
    /// controls instead (`Dop853::default_samples`: its interpolant errs near a rank loss).
    Interpolated,
    /// The interpolated state post-stabilized with PStab before it is reported (one extra
    /// factorization per sample, counted in [`crate::Stats::output_solves`]): samples satisfy
    /// the constraints to the accuracy of the step points. The integration is not affected.
    Projected,
}

/// What a sample carries besides t, q, v and the drift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleContent {
    /// v̇ and λ as well, from a KKT solve at the sample (one factorization each).
    #[default]
    Dynamics,
    /// The state and its drift only: no KKT solve, and [`crate::Sample::vdot`] and
    /// [`crate::Sample::lambda`] are empty. What an observer that records neither needs
    /// (e.g. `mbsim simulate` when no multiplier is written, and at the step points).
    State,
}

/// When the initial state counts as consistent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConsistencyCheck {
    /// The method's own threshold: for an adaptive method the smallest absolute tolerance
    /// (a larger drift would be corrected in the first step by more than the tolerance and
    /// show up as a local error the controller cannot reduce), but not below the round-off of
    /// Φ, 1e3 ε·(1 + ‖q0‖∞); otherwise √ε·(1 + ‖q0‖∞).
    Auto,
    /// ‖Φ(t0, q0)‖∞ and ‖G v0 + [Φ_t; b]‖∞ must not exceed this.
    Tolerance(f64),
    /// Do not check (the caller knows what it does, e.g. a drift study started off the
    /// manifold on purpose).
    Off,
}

/// Options that mean the same for every method.
#[derive(Clone, Debug, PartialEq)]
pub struct CommonOptions {
    /// Drift control.
    pub stabilization: Stabilization,
    /// DATOL: post-stabilize only when max(‖Φ‖∞, ‖Gv + [Φ_t; b]‖∞) of the unstabilized result
    /// exceeds it; 0 stabilizes every step (ambiguity 10).
    pub datol: f64,
    /// Limit on step attempts (accepted, rejected and failed). Default 10⁷: about a minute of
    /// RKSTAB on a small model, far beyond any run of the sources (the longest tested, a 2000 s
    /// pendulum at rtol 1e-9, needs over 10⁵ steps), yet it stops a run that crawls.
    pub max_steps: usize,
    /// Consecutive step attempts that may fail with a singular KKT matrix or a non-finite
    /// kernel value (each retried with h/4) before the failure is returned. Default 10.
    pub max_failed_attempts: usize,
    /// How samples between step points are made.
    pub samples: SampleKind,
    /// What the samples of the output grid carry (default: v̇ and λ too).
    pub sample_content: SampleContent,
    /// Also emit a sample at every accepted step point, in time order with the output grid.
    pub output_steps: bool,
    /// What the step-point samples of `output_steps` carry (default: v̇ and λ too). With
    /// [`SampleContent::State`] and `track_drift` a step-point sample costs nothing: its drift
    /// is the one measured for [`crate::Stats::max_drift`].
    pub step_content: SampleContent,
    /// Measure the drift at every accepted step point ([`crate::Stats::max_drift`]); costs one
    /// evaluation of Φ, G, Φ_t and b per step: +2.3 % instructions on Andrews (RKSTAB, rtol
    /// 1e-6, callgrind; the layer itself without it: −0.2 % against the pre-layer RKSTAB).
    /// Default true.
    pub track_drift: bool,
    /// The consistency check of the initial state.
    pub consistency: ConsistencyCheck,
    /// Interior points of every accepted step at which a model's event functions are
    /// evaluated besides its end ([`crate::events`]); an event whose g changes sign twice
    /// between two such points is missed. Default 4; `usize::MAX` ignores the model's events
    /// (the run passes through them).
    pub event_subsamples: usize,
    /// The factorization of the KKT matrix in the right-hand side and the projections:
    /// [`KktSolver::Auto`] (default) takes the banded path for large chain-like models.
    pub kkt: KktSolver,
}

impl Default for CommonOptions {
    fn default() -> Self {
        Self {
            stabilization: Stabilization::PStab,
            datol: 0.0,
            max_steps: 10_000_000,
            max_failed_attempts: 10,
            samples: SampleKind::Interpolated,
            sample_content: SampleContent::Dynamics,
            output_steps: false,
            step_content: SampleContent::Dynamics,
            track_drift: true,
            consistency: ConsistencyCheck::Auto,
            event_subsamples: 4,
            kkt: KktSolver::Auto,
        }
    }
}

impl CommonOptions {
    /// Reject nonsense before any step is taken.
    pub fn validate(&self) -> Result<(), SimError> {
        nonnegative("datol", self.datol)?;
        if self.max_steps == 0 {
            return Err(invalid("max_steps", "0", "must be at least 1"));
        }
        if let ConsistencyCheck::Tolerance(tol) = self.consistency {
            nonnegative("consistency", tol)?;
        }
        if let Stabilization::Partitioned(p) = &self.stabilization {
            p.validate()?;
        }
        if let Stabilization::Hybrid(h) = &self.stabilization {
            h.validate()?;
        }
        if let Some(c) = self.stabilization.continuous() {
            nonnegative("stabilization: continuous gamma", c.gamma)?;
        }
        if let Some(b) = self.stabilization.baumgarte() {
            nonnegative("stabilization: Baumgarte alpha", b.alpha)?;
            nonnegative("stabilization: Baumgarte beta", b.beta)?;
        }
        Ok(())
    }
}

/// A [`SimError::InvalidOption`].
pub(crate) fn invalid(option: &'static str, value: &str, reason: &'static str) -> SimError {
    SimError::InvalidOption {
        option,
        value: value.to_string(),
        reason,
    }
}

/// `value` must be finite and ≥ 0.
pub(crate) fn nonnegative(option: &'static str, value: f64) -> Result<(), SimError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(
            option,
            &value.to_string(),
            "must be finite and >= 0",
        ))
    }
}

/// `value` must be finite and > 0.
pub(crate) fn positive(option: &'static str, value: f64) -> Result<(), SimError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(invalid(
            option,
            &value.to_string(),
            "must be finite and > 0",
        ))
    }
}

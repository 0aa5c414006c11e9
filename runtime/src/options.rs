//! Options of the adaptive methods: tolerances, the local error estimate, step-size control.
//!
//! The options every method shares are [`crate::CommonOptions`]; a method's value (e.g.
//! [`crate::Rkstab`]) holds both parts. Defaults follow Hairer's `dopri5.f`: safety 0.9, step
//! ratio in [0.2, 10], β = 0.04 (Lund stabilization).

use crate::error::SimError;
use crate::integrator::common::{invalid, positive};

/// A scalar tolerance or one per component of z = (q, v) (length 2n: positions first).
#[derive(Clone, Debug, PartialEq)]
pub enum Tolerance {
    /// The same tolerance for every component.
    Scalar(f64),
    /// One tolerance per component of (q, v).
    PerComponent(Vec<f64>),
}

impl Tolerance {
    /// The tolerance for component `i`.
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Tolerance::Scalar(x) => *x,
            Tolerance::PerComponent(v) => v[i],
        }
    }
}

impl Tolerance {
    /// Each component finite and above `floor` (and the right length).
    pub(crate) fn validate(
        &self,
        name: &'static str,
        len: usize,
        floor: f64,
    ) -> Result<(), SimError> {
        let values: &[f64] = match self {
            Tolerance::Scalar(x) => std::slice::from_ref(x),
            Tolerance::PerComponent(v) if v.len() != len => {
                return Err(invalid(
                    name,
                    &format!("{} entries", v.len()),
                    "a per-component tolerance needs 2n entries (positions, then velocities)",
                ));
            }
            Tolerance::PerComponent(v) => v,
        };
        for &x in values {
            positive(name, x)?;
            if x <= floor {
                return Err(invalid(
                    name,
                    &x.to_string(),
                    "must exceed 10 ε ≈ 2.2e-15 (dopri5.f)",
                ));
            }
        }
        Ok(())
    }
}

/// Which difference estimates the local error (ambiguity 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorEstimate {
    /// The thesis wording (\[CHIN\] §4 and Ch. 6): stabilized 5th-order result minus the
    /// modified 4th-order result (whose 7th stage is evaluated at the stabilized point).
    /// It includes the post-stabilization correction itself. RKSTAB's default;
    /// for DOP853 (opt-in) every attempt is stabilized before its error.
    ///
    /// The correction carries round-off noise from evaluating Φ and G v at the new point, which
    /// does not shrink with h (Andrews at rtol 1e-13: error norms 2…20 for any h below 1e-10;
    /// near singular positions P amplifies it further). Two-pass PStab/GGᵀ measure that noise
    /// (their second pass) and the error weights never go below 16 times it
    /// (`Stabilizer::floored_scale`), so the step size does not collapse there.
    Stabilized,
    /// Plain DOPRI5: h Σ E_j k_j (with the new k_7), i.e. unstabilized 5th minus modified 4th.
    /// DOP853's default: `dop853.f`'s estimate of z~, and for an attempt it accepts the larger
    /// of that and the estimate with the stabilization's correction (`dop853/mod.rs`).
    Unstabilized,
}

/// Step-size control parameters (Hairer's `dopri5.f` names in brackets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepControl {
    /// Safety factor `SAFE`, default 0.9.
    pub safety: f64,
    /// Smallest ratio h_new / h `FAC1`, default 0.2.
    pub min_ratio: f64,
    /// Largest ratio h_new / h `FAC2`, default 10.
    pub max_ratio: f64,
    /// Lund stabilization exponent `BETA`, default 0.04.
    pub beta: f64,
    /// Largest step `HMAX`, default ∞ (then |t_end − t0|).
    pub h_max: f64,
    /// Initial step; `None` selects it like Hairer's `HINIT` (one extra evaluation).
    pub h_init: Option<f64>,
}

impl Default for StepControl {
    fn default() -> Self {
        Self {
            safety: 0.9,
            min_ratio: 0.2,
            max_ratio: 10.0,
            beta: 0.04,
            h_max: f64::INFINITY,
            h_init: None,
        }
    }
}

impl StepControl {
    /// The domains of `dopri5.f` (safety in (1e-4, 1), β ≤ 0.2, ratio limits around 1) and
    /// positive step sizes.
    pub fn validate(&self) -> Result<(), SimError> {
        let check = |name, x: f64, ok: bool, reason| {
            if ok {
                Ok(())
            } else {
                Err(invalid(name, &x.to_string(), reason))
            }
        };
        let (safety, beta, min_ratio) = (self.safety, self.beta, self.min_ratio);
        let safe_ok = safety > 1e-4 && safety < 1.0;
        check(
            "step_control.safety",
            safety,
            safe_ok,
            "must lie in (1e-4, 1)",
        )?;
        let beta_ok = (0.0..=0.2).contains(&beta);
        check("step_control.beta", beta, beta_ok, "must lie in [0, 0.2]")?;
        let min_ok = min_ratio > 0.0 && min_ratio <= 1.0;
        check(
            "step_control.min_ratio",
            min_ratio,
            min_ok,
            "must lie in (0, 1]",
        )?;
        let max = self.max_ratio;
        if !(max >= 1.0 && max.is_finite()) {
            return Err(invalid(
                "step_control.max_ratio",
                &max.to_string(),
                "must be finite and >= 1",
            ));
        }
        let h_max_ok = self.h_max > 0.0; // NaN fails too
        if !h_max_ok {
            return Err(invalid(
                "step_control.h_max",
                &self.h_max.to_string(),
                "must be > 0 (∞ for no limit)",
            ));
        }
        if let Some(h) = self.h_init {
            positive("step_control.h_init", h)?;
        }
        Ok(())
    }
}

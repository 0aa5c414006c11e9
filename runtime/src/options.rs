//! Integrator options: tolerances, stabilization, DATOL, step control, limits.
//!
//! One [`Options`] struct instead of a list of flags, passed explicitly to the integrator.
//! Defaults follow the thesis' runs and Hairer's `dopri5.f`: `atol = rtol / 10`, DATOL = 0
//! (stabilize every step), safety 0.9, step ratio in [0.2, 10], β = 0.04 (Lund stabilization).

use crate::stabilize::Stabilization;

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

    pub(crate) fn check_len(&self, len: usize, what: &str) {
        if let Tolerance::PerComponent(v) = self {
            assert_eq!(
                v.len(),
                len,
                "{what}: a per-component tolerance needs 2n = {len} entries"
            );
        }
    }
}

/// Which difference estimates the local error (ambiguity 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorEstimate {
    /// The thesis wording (\[CHIN\] §4 and Ch. 6): stabilized 5th-order result minus the
    /// modified 4th-order result (whose 7th stage is evaluated at the stabilized point).
    /// It includes the post-stabilization correction itself. The default.
    ///
    /// Limitation: the correction carries round-off noise from evaluating Φ and G v at the new
    /// point, and that noise does not shrink with h. When the tolerances approach it (Andrews
    /// squeezer: rtol = 1e-13, atol = 1e-14, measured error norms 2…20 for any h below 1e-10)
    /// the step size collapses into [`crate::SimError::StepSizeUnderflow`]; use
    /// [`ErrorEstimate::Unstabilized`] there (rtol ≥ 1e-12 is unaffected on that model).
    Stabilized,
    /// Plain DOPRI5: h Σ E_j k_j (with the new k_7), i.e. unstabilized 5th minus modified 4th.
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
    /// Consecutive step attempts that may fail with a singular KKT matrix or a non-finite
    /// kernel value (each retried with h/4) before the failure is returned. Default 10.
    pub max_failed_attempts: usize,
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
            max_failed_attempts: 10,
        }
    }
}

/// Everything the adaptive integrator needs besides the model and the state.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Relative tolerance.
    pub rtol: Tolerance,
    /// Absolute tolerance.
    pub atol: Tolerance,
    /// Drift control.
    pub stabilization: Stabilization,
    /// DATOL: post-stabilize only when max(‖Φ‖∞, ‖Gv + [Φ_t; b]‖∞) of the unstabilized result
    /// exceeds it; 0 stabilizes every step (ambiguity 10).
    pub datol: f64,
    /// Limit on attempted steps `NMAX`, default 100 000.
    pub max_steps: usize,
    /// Which local error estimate drives the step control.
    pub error_estimate: ErrorEstimate,
    /// Step-size control parameters.
    pub step_control: StepControl,
    /// Also emit a sample at every accepted step point (the stabilized state), in time order
    /// with the requested output times. Default false.
    pub output_steps: bool,
}

impl Options {
    /// `rtol` with the thesis' usual `atol = rtol / 10`, PStab on every step.
    pub fn new(rtol: f64) -> Self {
        Self {
            rtol: Tolerance::Scalar(rtol),
            atol: Tolerance::Scalar(rtol / 10.0),
            stabilization: Stabilization::PStab,
            datol: 0.0,
            max_steps: 100_000,
            error_estimate: ErrorEstimate::Stabilized,
            step_control: StepControl::default(),
            output_steps: false,
        }
    }

    /// The same options with another stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.stabilization = stabilization;
        self
    }

    /// The same options with another absolute tolerance.
    pub fn with_atol(mut self, atol: f64) -> Self {
        self.atol = Tolerance::Scalar(atol);
        self
    }

    /// The same options with another DATOL.
    pub fn with_datol(mut self, datol: f64) -> Self {
        self.datol = datol;
        self
    }
}

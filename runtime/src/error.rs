//! Numerical failures of the integrators, as values.
//!
//! Every way a simulation can fail for numerical reasons is a variant of [`SimError`] with
//! structured fields (time, step size, the offending rows or entries), never a free-form string
//! and never a panic. Dimension mismatches are programming errors and still panic (see
//! [`crate::system`]).

/// Which kernel of [`crate::ConstrainedSystem`] produced a non-finite value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `phi_into`: Φ(t, q).
    Phi,
    /// `phi_q_into`: Φ_q(t, q).
    PhiQ,
    /// `phi_t_into`: Φ_t(t, q).
    PhiT,
    /// `nh_matrix_into`: A(t, q).
    NhMatrix,
    /// `nh_offset_into`: b(t, q).
    NhOffset,
    /// `gamma_into`: γ(t, q, v).
    Gamma,
    /// `l_into`: L(t, q, v).
    L,
    /// `mass_into`: M(t, q).
    Mass,
    /// `force_into`: Q(t, q, v).
    Force,
    /// The solution of the KKT system (finite inputs, non-finite accelerations or multipliers).
    KktSolution,
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Kernel::Phi => "phi",
            Kernel::PhiQ => "phi_q",
            Kernel::PhiT => "phi_t",
            Kernel::NhMatrix => "nh_matrix",
            Kernel::NhOffset => "nh_offset",
            Kernel::Gamma => "gamma",
            Kernel::L => "l",
            Kernel::Mass => "mass",
            Kernel::Force => "force",
            Kernel::KktSolution => "kkt solution",
        };
        f.write_str(name)
    }
}

/// A numerical failure of an integrator or of the consistent initialization.
///
/// `t` is always the time at which the failing evaluation was attempted; `h` the step size of
/// the step in progress (`0.0` outside a step, e.g. during initialization).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The augmented matrix [M Gᵀ; G 0] is numerically singular.
    ///
    /// `dependent_rows` lists the constraint rows (indices into G = [Φ_q; A]) that are linearly
    /// dependent on the rows before them (or zero). An empty list means G has full row rank and
    /// M is not positive definite on the null space of G (thesis Lemma 4.1 fails).
    #[error(
        "singular KKT matrix at t = {t:e} (step h = {h:e}); dependent constraint rows: {dependent_rows:?}"
    )]
    SingularKkt {
        /// Time of the failing evaluation.
        t: f64,
        /// Step size of the step in progress.
        h: f64,
        /// Constraint rows dependent on earlier rows (empty: M singular on ker G).
        dependent_rows: Vec<usize>,
    },
    /// The step size became negligible relative to `t` (`0.1 |h| <= |t| ε`) or fell below the
    /// configured minimum.
    #[error("step size underflow at t = {t:e}: h = {h:e}")]
    StepSizeUnderflow {
        /// Time at which the step was attempted.
        t: f64,
        /// The step size that was too small.
        h: f64,
    },
    /// More than `max_steps` steps (accepted, rejected and failed) were attempted.
    #[error(
        "more than {max_steps} step attempts needed; stopped at t = {t:e} (raise `CommonOptions::max_steps`, `--max-steps` on the command line, or loosen the tolerances)"
    )]
    TooManySteps {
        /// Time reached.
        t: f64,
        /// The configured limit.
        max_steps: usize,
    },
    /// A kernel returned NaN or ±∞.
    #[error(
        "kernel `{kernel}` returned a non-finite value in entry {entry} at t = {t:e}, q = {q:?}, v = {v:?}"
    )]
    NonFiniteKernel {
        /// Which kernel.
        kernel: Kernel,
        /// Column-major entry index into the kernel's output.
        entry: usize,
        /// Time of the evaluation.
        t: f64,
        /// Coordinates of the evaluation.
        q: Vec<f64>,
        /// Velocities of the evaluation (empty for kernels that do not take v).
        v: Vec<f64>,
    },
    /// Consistent initialization could not reach ‖Φ‖∞ <= tolerance.
    #[error(
        "consistent initialization failed: residual {residual:e} after {iterations} iterations"
    )]
    InitializationFailed {
        /// ‖Φ(t0, q)‖∞ (or the velocity residual) at the last iterate.
        residual: f64,
        /// Gauss–Newton iterations performed.
        iterations: usize,
    },
    /// An option is out of its domain (checked before any kernel is called).
    #[error("invalid option `{option}` = {value}: {reason}")]
    InvalidOption {
        /// The option's name (field path).
        option: &'static str,
        /// The value given.
        value: String,
        /// What the option requires.
        reason: &'static str,
    },
    /// The problem (time span, initial state, output grid) is malformed.
    #[error("invalid problem: {what}")]
    InvalidProblem {
        /// What is wrong.
        what: String,
    },
    /// The initial state does not satisfy the constraints to the tolerance of the check.
    #[error(
        "inconsistent initial state at t = {t:e}: drift |Φ| = {:e}, |Φ̇| = {:e} exceeds {tolerance:e}; violated position rows (index, residual) {position_rows:?}, velocity rows {velocity_rows:?}. Make the state consistent with `initialize` first (or set `CommonOptions::consistency`)", drift.position, drift.velocity
    )]
    InconsistentInitialState {
        /// The initial time.
        t: f64,
        /// The drift of the initial state.
        drift: crate::stabilize::Drift,
        /// The tolerance of the check.
        tolerance: f64,
        /// Holonomic rows with |Φ_i| above the tolerance, with their residuals.
        position_rows: Vec<(usize, f64)>,
        /// Rows of G v + [Φ_t; b] above the tolerance, with their residuals.
        velocity_rows: Vec<(usize, f64)>,
    },
}

impl SimError {
    /// Whether a step attempt that failed this way may be retried with a smaller step (a
    /// singular KKT matrix or a non-finite kernel value at a stage).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            SimError::SingularKkt { .. } | SimError::NonFiniteKernel { .. }
        )
    }
}

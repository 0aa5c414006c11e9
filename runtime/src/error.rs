//! Numerical failures of the integrators, as values.
//!
//! Every way a simulation can fail for numerical reasons is a variant of [`SimError`] with
//! structured fields (time, step size, the offending rows or entries), never a free-form string
//! and never a panic. Dimension mismatches are programming errors and still panic (see
//! [`crate::system`]).

/// The `Kernel` enum: one variant per row of the kernel table, plus the KKT solution.
macro_rules! kernel_enum {
    ($($group:ident { $($variant:ident $method:ident $name:literal [$($input:ident),*] $kind:ident($($dim:ident),*) $doc:literal;)* })*) => {
        /// Which kernel produced a non-finite value: a row of the kernel table
        /// (`mbsim_kernel_table`), or the KKT solution.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Kernel {
            $($( #[doc = concat!("`", stringify!($method), "`: ", $doc)] $variant, )*)*
            /// The solution of the KKT system (finite inputs, non-finite accelerations or multipliers).
            KktSolution,
        }

        impl From<mbsim_kernel_table::KernelId> for Kernel {
            fn from(id: mbsim_kernel_table::KernelId) -> Kernel {
                match id {
                    $($( mbsim_kernel_table::KernelId::$variant => Kernel::$variant, )*)*
                }
            }
        }

        impl std::fmt::Display for Kernel {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let name = match self {
                    $($( Kernel::$variant => $name, )*)*
                    Kernel::KktSolution => "kkt solution",
                };
                f.write_str(name)
            }
        }
    };
}

mbsim_kernel_table::kernel_table!(kernel_enum);

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
    /// More than `max_steps` steps (accepted and rejected) were attempted.
    #[error("more than {max_steps} steps needed; stopped at t = {t:e}")]
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
}

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
            /// The event functions g(t, q, v) of a model with `events` ([`crate::events::Events`]).
            EventFunctions,
            /// The events' ∂g/∂q (impact and contact rows, friction directions).
            EventJacobian,
            /// The events' offset g_t (ġ = g_q v + g_t).
            EventOffset,
            /// The events' acceleration right sides γ_g.
            EventGamma,
            /// The friction events' normal forces N.
            EventNormal,
            /// The solution of an impact's impulse equations (finite inputs, non-finite Δv).
            ImpulseSolution,
        }

        impl From<mbsim_kernel_table::KernelId> for Kernel {
            fn from(id: mbsim_kernel_table::KernelId) -> Kernel {
                match id {
                    $($( mbsim_kernel_table::KernelId::$variant => Kernel::$variant, )*)*
                }
            }
        }

        impl Kernel {
            /// The output's shape for a row of the kernel table; `None` for the KKT solution
            /// and the events' outputs.
            pub fn shape(self) -> Option<mbsim_kernel_table::Shape> {
                match self {
                    $($( Kernel::$variant => Some(mbsim_kernel_table::KernelId::$variant.spec().shape), )*)*
                    Kernel::KktSolution
                    | Kernel::EventFunctions
                    | Kernel::EventJacobian
                    | Kernel::EventOffset
                    | Kernel::EventGamma
                    | Kernel::EventNormal
                    | Kernel::ImpulseSolution => None,
                }
            }
        }

        impl std::fmt::Display for Kernel {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let name = match self {
                    $($( Kernel::$variant => $name, )*)*
                    Kernel::KktSolution => "kkt solution",
                    Kernel::EventFunctions => "event functions",
                    Kernel::EventJacobian => "event jacobian",
                    Kernel::EventOffset => "event offset",
                    Kernel::EventGamma => "event gamma",
                    Kernel::EventNormal => "event normal forces",
                    Kernel::ImpulseSolution => "impulse solution",
                };
                f.write_str(name)
            }
        }
    };
}

mbsim_kernel_table::kernel_table!(kernel_enum);

/// Which block of the augmented KKT matrix [M Gᵀ; G 0] made it singular (\[CHIN\] Lemma 4.1:
/// it is nonsingular iff G has full row rank and M is positive definite on ker G).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SingularBlock {
    /// The constraint Jacobian G = [Φ_q; A] has (nearly) lost row rank: redundant constraints,
    /// or a singular configuration of the mechanism.
    Jacobian,
    /// G has full row rank, but the mass matrix M is not positive definite on the null space
    /// of G (e.g. a body without mass or inertia in a direction the constraints leave free).
    MassOnKernel {
        /// The coordinates the motion without inertia moves (the eigenvector of M's smallest
        /// eigenvalue on ker G), largest share first; empty where the diagnosis was not made
        /// (ALI3-P's iteration matrix).
        coordinates: Vec<Coordinate>,
    },
}

impl SingularBlock {
    /// The plain-language diagnosis used by [`SimError::SingularKkt`]'s message.
    fn explain(block: &SingularBlock, rows: &[ConstraintRow]) -> String {
        match block {
            SingularBlock::Jacobian => format!(
                "the constraint Jacobian G = [Φ_q; A] has lost rank; dependent constraint \
                 rows: {} (redundant constraints or a singular configuration)",
                ConstraintRow::list(rows)
            ),
            SingularBlock::MassOnKernel { coordinates } if coordinates.is_empty() => {
                "the constraint Jacobian has full rank, but the mass matrix M is not positive \
                 definite on its null space (a motion the constraints allow has no inertia)"
                    .to_string()
            }
            SingularBlock::MassOnKernel { coordinates } => format!(
                "the constraint Jacobian has full rank, but the mass matrix M is not positive \
                 definite on its null space: a motion the constraints allow has no inertia; it \
                 moves {}",
                Coordinate::list(coordinates)
            ),
        }
    }
}

/// Why a Newton iteration of an implicit step was given up ([`SimError::NewtonDiverged`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NewtonDiagnosis {
    /// The corrections grew by more than a factor 2 from one iteration to the next (with a
    /// fresh iteration matrix): the step is too large for the nonlinearity.
    Diverging,
    /// The iteration contracted but did not reach the tolerance within the iteration limit.
    IterationLimit {
        /// The last observed contraction rate ‖Δ_k‖ / ‖Δ_{k−1}‖.
        rate: f64,
    },
    /// The correction was NaN or infinite (a nearly singular iteration matrix).
    NonFinite,
}

impl NewtonDiagnosis {
    /// The plain-language diagnosis used by [`SimError::NewtonDiverged`]'s message.
    fn explain(&self) -> String {
        match self {
            NewtonDiagnosis::Diverging => "the corrections grew: the step is too large for the \
                 nonlinearity (a smaller step, or a better start, is needed)"
                .to_string(),
            NewtonDiagnosis::IterationLimit { rate } => format!(
                "the iteration contracted too slowly (rate {rate:.3}) to reach the tolerance \
                 within the iteration limit (raise it, or use a full Newton / a smaller step)"
            ),
            NewtonDiagnosis::NonFinite => "the correction was not finite (nearly singular \
                 iteration matrix)"
                .to_string(),
        }
    }
}

/// Why an adaptive method's step size underflowed ([`SimError::StepSizeUnderflow`]), read from
/// the first and the last rejected attempt at the time it stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnderflowCause {
    /// Fewer than two attempts at that time were rejected by their error estimate, at
    /// different step sizes: none (the step had been shortened before t was reached, or by a
    /// method's own verdict) or one, and one (h, estimate) shows no trend with h.
    Unknown,
    /// The estimate fell as h shrank, faster than linearly, as a truncation error does: the
    /// solution changes faster near t than any step resolves.
    Unresolved {
        /// The first rejected attempt at t: (h, error estimate).
        first: (f64, f64),
        /// The last one.
        last: (f64, f64),
    },
    /// The estimate fell by less than h did (or grew): it measures noise, not truncation.
    Stagnant {
        /// The first rejected attempt at t: (h, error estimate).
        first: (f64, f64),
        /// The last one.
        last: (f64, f64),
    },
    /// The steps were accepted but too short to finish: at the pace of its last `attempts`
    /// attempts the run would need more than 10⁴ × `max_steps` attempts (`integrator/driver.rs`,
    /// `CrawlWatch`).
    Crawl {
        /// The attempts of the window.
        attempts: u64,
        /// How far t advanced over them.
        advanced: f64,
    },
}

impl UnderflowCause {
    /// From the first and the last rejected attempt at one time, `None` if there was none.
    /// One attempt (`first == last`), or two at the same h, is [`UnderflowCause::Unknown`]:
    /// how an estimate scales with h needs two step sizes.
    pub fn from_rejections(rejections: Option<((f64, f64), (f64, f64))>) -> Self {
        let Some((first, last)) = rejections else {
            return UnderflowCause::Unknown;
        };
        if first.0 == last.0 {
            return UnderflowCause::Unknown;
        }
        // An estimate of order p ≥ 1 falls at least like h² when h shrinks.
        if last.1 > first.1 * (last.0 / first.0).abs() || last.1.is_nan() {
            UnderflowCause::Stagnant { first, last }
        } else {
            UnderflowCause::Unresolved { first, last }
        }
    }

    /// The plain-language diagnosis used by [`SimError::StepSizeUnderflow`]'s message.
    fn explain(&self) -> String {
        match self {
            UnderflowCause::Unknown => " (fewer than two attempts at t were rejected by their \
                 error estimate, too few to tell a truncation error from noise: h was already \
                 near the limit when t was reached)"
                .to_string(),
            UnderflowCause::Unresolved { first, last } => format!(
                " (the error estimate fell with h as a truncation error does, {:.2e} at h = \
                 {:.2e} to {:.2e} at h = {:.2e}: the solution changes faster near t than a \
                 step resolves: a pole, a discontinuity in the forces or a singular \
                 configuration; `mbsim check --at` names rank loss)",
                first.1, first.0, last.1, last.0
            ),
            UnderflowCause::Stagnant { first, last } => format!(
                " (the error estimate did not shrink with h, {:.2e} at h = {:.2e} and still \
                 {:.2e} at h = {:.2e}: it measures noise, not truncation: round-off at the \
                 tolerance asked (loosen rtol/atol), or a drift correction's remainder met \
                 again by every attempt (try PStab))",
                first.1, first.0, last.1, last.0
            ),
            UnderflowCause::Crawl { attempts, advanced } => format!(
                " (the run advanced only {advanced:.2e} over its last {attempts} attempts: \
                 its steps are accepted but crawl toward a point they cannot cross, where the \
                 estimate measures noise proportional to h: a singular configuration \
                 (`mbsim check --at` names rank loss) or a drift correction's remainder)"
            ),
        }
    }
}

/// A numerical failure of an integrator or of the consistent initialization.
///
/// `t` is always the time at which the failing evaluation was attempted; `h` the step size of
/// the step in progress (`0.0` outside a step, e.g. during initialization).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    /// The augmented matrix [W Gᵀ; G 0] (W = M for the dynamics and the M-metric projections,
    /// the identity for GGᵀ and initialization; HHᵀ for S-full) is numerically singular.
    ///
    /// `block` says which part is to blame (see [`crate::lu::diagnose_singular`] for the
    /// rank-revealing test and its tolerance). For [`SingularBlock::Jacobian`],
    /// `dependent_rows` lists the constraint rows (by index into G = [Φ_q; A] and by name) that
    /// are (nearly) linearly dependent on the rows before them, or vanish; for
    /// [`SingularBlock::MassOnKernel`] it is empty.
    #[error(
        "singular KKT matrix at t = {t:e} (step h = {h:e}): {}",
        SingularBlock::explain(block, dependent_rows)
    )]
    SingularKkt {
        /// Time of the failing evaluation.
        t: f64,
        /// Step size of the step in progress.
        h: f64,
        /// Which block of the augmented matrix failed.
        block: SingularBlock,
        /// Constraint rows dependent on earlier rows (empty for [`SingularBlock::MassOnKernel`]).
        dependent_rows: Vec<ConstraintRow>,
    },
    /// The step size became negligible relative to `t` (`0.1 |h| <= |t| ε`) or fell below the
    /// configured minimum.
    #[error("step size underflow at t = {t:e}: h = {h:e}{}", cause.explain())]
    StepSizeUnderflow {
        /// Time at which the step was attempted.
        t: f64,
        /// The step size that was too small.
        h: f64,
        /// What the rejected attempts at t say about the cause.
        cause: UnderflowCause,
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
    /// More events than [`crate::events::EventOptions::max_events`] in one run (impacts that
    /// accumulate without closing the contact, or a chattering switch).
    #[error(
        "more than {events} events; stopped at t = {t:e} (raise `EventOptions::max_events`, or check for chattering: a contact that keeps reopening, a friction contact switching every step)"
    )]
    TooManyEvents {
        /// Time reached.
        t: f64,
        /// Events handled.
        events: usize,
    },
    /// A kernel returned NaN or ±∞.
    #[error(
        "kernel `{kernel}` returned a non-finite value at {at} (entry {entry}) at t = {t:e}, q = {q:?}, v = {v:?}"
    )]
    NonFiniteKernel {
        /// Which kernel.
        kernel: Kernel,
        /// Column-major entry index into the kernel's output.
        entry: usize,
        /// What the entry is, by name: "(`y2`, `phi2`)" for an entry of M or Φ_q (row, column),
        /// "`loop_x`" for a constraint row, "the multiplier of `loop_x`" for the KKT solution.
        at: String,
        /// Time of the evaluation.
        t: f64,
        /// Coordinates of the evaluation.
        q: Vec<f64>,
        /// Velocities of the evaluation (empty for kernels that do not take v).
        v: Vec<f64>,
    },
    /// Consistent initialization could not reach ‖Φ‖∞ ≤ tol (positions) or
    /// ‖G v + [Φ_t; b]‖∞ ≤ tol (velocities).
    #[error(
        "consistent initialization failed ({stage}): residual {residual:e} after {iterations} \
         iterations; rows still violated: {}",
        ViolatedRow::list(violated)
    )]
    InitializationFailed {
        /// Which stage failed.
        stage: InitStage,
        /// ‖Φ(t0, q)‖∞ (or the velocity residual) at the last iterate.
        residual: f64,
        /// Gauss–Newton iterations performed.
        iterations: usize,
        /// Every row whose residual exceeds the tolerance, largest |residual| first: indices
        /// into Φ (stage [`InitStage::Positions`]) or into G v + [Φ_t; b] = [Φ_q v + Φ_t; A v + b]
        /// (stage [`InitStage::Velocities`]).
        violated: Vec<ViolatedRow>,
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
    /// The Newton iteration of an implicit step (Newmark, HHT-α, generalized-α) did not
    /// converge: the corrections grew, or the iteration limit was reached before the
    /// correction and the constraint residual fell below the Newton tolerance.
    #[error(
        "Newton iteration failed at t = {t:e} (step h = {h:e}) after {iterations} iterations: \
         last correction {correction:e}, constraint residual {residual:e}; {}",
        diagnosis.explain()
    )]
    NewtonDiverged {
        /// Time at the end of the step being solved.
        t: f64,
        /// Step size of the step.
        h: f64,
        /// Newton iterations performed.
        iterations: usize,
        /// ‖Φ‖∞ (and ‖A v + b‖∞) at the last iterate.
        residual: f64,
        /// The last scaled correction (≤ 1 means converged to the Newton tolerance).
        correction: f64,
        /// Why the iteration was given up.
        diagnosis: NewtonDiagnosis,
    },
    /// The Newton iteration matrix [M̂ Gᵀ; G 0] of an implicit step is numerically singular
    /// (M̂ = M + βh²c K + γhc C, see `crate::implicit`).
    #[error(
        "singular Newton iteration matrix at t = {t:e} (step h = {h:e}, iteration {iteration}): {}",
        SingularBlock::explain(block, dependent_rows)
    )]
    SingularIterationMatrix {
        /// Time at the end of the step being solved.
        t: f64,
        /// Step size of the step.
        h: f64,
        /// The Newton iteration whose matrix failed (0 = the first).
        iteration: usize,
        /// Which block is to blame (`MassOnKernel`: M̂ is not positive definite on ker G).
        block: SingularBlock,
        /// Constraint rows dependent on earlier rows (empty for `MassOnKernel`).
        dependent_rows: Vec<ConstraintRow>,
    },
    /// The initial state does not satisfy the constraints to the tolerance of the check.
    #[error(
        "inconsistent initial state at t = {t:e}: drift |Φ| = {:e}, |Φ̇| = {:e} exceeds {tolerance:e}; violated position rows: {}; velocity rows: {}. Make the state consistent with `initialize` first (or set `CommonOptions::consistency`)", drift.position, drift.velocity,
        ViolatedRow::list(position_rows), ViolatedRow::list(velocity_rows)
    )]
    InconsistentInitialState {
        /// The initial time.
        t: f64,
        /// The drift of the initial state.
        drift: crate::drift::Drift,
        /// The tolerance of the check.
        tolerance: f64,
        /// Holonomic rows with |Φ_i| above the tolerance, by name, with their residuals
        /// (largest first).
        position_rows: Vec<ViolatedRow>,
        /// Rows of G v + [Φ_t; b] above the tolerance, by name, with their residuals (largest
        /// first).
        velocity_rows: Vec<ViolatedRow>,
    },
    /// A coordinate partition (\[HAUG\] §7.3.2) was asked for where the matrix it partitions
    /// (Φ_q for the positions, G = [Φ_q; A] for the velocities) has lost row rank: a singular
    /// configuration or redundant constraints. The LU with complete pivoting
    /// ([`crate::lu::FullPivLu`]) stopped after `rank` pivots; `dependent` lists the constraint
    /// rows it could not pivot (combinations of the others), each with the largest entry left
    /// in it after the elimination (its distance from the span of the pivot rows).
    #[error(
        "no coordinate partition at t = {t:e} (step h = {h:e}): {matrix} has rank {rank} < \
         {rows} (a singular configuration or redundant constraints); dependent constraint \
         rows: {}",
        ViolatedRow::list(dependent)
    )]
    SingularPartition {
        /// Time of the state being partitioned.
        t: f64,
        /// Step size of the step in progress.
        h: f64,
        /// `"Φ_q"` or `"[Φ_q; A]"`.
        matrix: &'static str,
        /// The numerical rank found.
        rank: usize,
        /// The number of rows (the rank a partition needs).
        rows: usize,
        /// The rows left unpivoted, with their names and remainders.
        dependent: Vec<ViolatedRow>,
    },
    /// Newton's method on Φ(u, v, t) = 0 for the dependent coordinates u of a partitioned
    /// stabilization did not reach its tolerance (also after a re-partition).
    #[error(
        "Newton on Φ(u, v, t) = 0 for the dependent coordinates [{}] failed at t = {t:e} (step \
         h = {h:e}): {reason}; ‖Φ‖∞ = {residual:e} after {iterations} iterations (tolerance \
         {tolerance:e})",
        Coordinate::list(dependent)
    )]
    PartitionNewtonFailed {
        /// Time of the correction.
        t: f64,
        /// Step size of the step in progress.
        h: f64,
        /// Newton iterations performed.
        iterations: usize,
        /// ‖Φ(t, q)‖∞ at the last iterate (NaN if it was not finite).
        residual: f64,
        /// The Newton tolerance.
        tolerance: f64,
        /// Why it stopped: the iteration cap, a growing residual, or a singular Φ_u.
        reason: &'static str,
        /// The dependent coordinates being solved for.
        dependent: Vec<Coordinate>,
    },
    /// The mechanism reached a singular configuration: the constraint Jacobian G = [Φ_q; A]
    /// lost (numerically) its row rank, so accelerations and multipliers are not unique there
    /// (a dead point, a change point, a bifurcation). Named by [`crate::analysis`] when a run
    /// fails near such a point, instead of a bare step-size underflow or singular KKT matrix.
    #[error(
        "singular configuration at t = {t:e} (step h = {h:e}): the constraint Jacobian G = [Φ_q; A] is (nearly) rank deficient, condition of [M Gᵀ; G 0] {condition:e}{}; dependent rows: {}",
        if *condition_estimated { " (Lanczos estimate, rel. tol 1e-6)" } else { "" },
        DependentRow::list(rows)
    )]
    SingularConfiguration {
        /// Time of the failure (G is diagnosed at the last accepted positions).
        t: f64,
        /// Step size of the failing attempt.
        h: f64,
        /// σ_max / σ_min of the augmented matrix [M Gᵀ; G 0] at that state (∞ when σ_min = 0).
        condition: f64,
        /// Whether `condition` is the Lanczos estimate of a large sparse model (relative Ritz
        /// residual 1e-6, plus the ε·κ round-off the SVD carries too;
        /// `analysis::augmented_condition`) rather
        /// than a dense SVD.
        condition_estimated: bool,
        /// The rows of G dependent on the others there, by name, with their distances.
        rows: Vec<DependentRow>,
    },
    /// The model cannot be analysed in the requested mode (kinematic analysis or inverse
    /// dynamics needs a fully driven model, `m = n`, `k = 0`, and G of full rank; equilibrium
    /// analysis needs holonomic constraints only).
    #[error("{mode} needs {needs}; model has n = {n}, m = {m}, k = {k}, rank G = {rank}: {advice}")]
    NotAnalyzable {
        /// The analysis mode.
        mode: &'static str,
        /// What the mode needs.
        needs: &'static str,
        /// Coordinates.
        n: usize,
        /// Holonomic rows.
        m: usize,
        /// Nonholonomic rows.
        k: usize,
        /// Numerical rank of G at the state examined.
        rank: usize,
        /// What to do (add driving constraints, remove redundant rows by name, …).
        advice: String,
    },
    /// Equilibrium analysis did not converge.
    #[error(
        "equilibrium not found ({method}): reduced gradient {residual:e} after {iterations} iterations"
    )]
    EquilibriumFailed {
        /// "reduced Newton" or "dynamic settling".
        method: &'static str,
        /// ‖Zᵀ (−Q)‖∞ (Newton) or ‖v‖∞ (settling) at the last iterate.
        residual: f64,
        /// Iterations (Newton) or settling windows performed.
        iterations: usize,
    },
}

impl SimError {
    /// Whether a step attempt that failed this way may be retried with a smaller step (a
    /// singular KKT matrix or a non-finite kernel value at a stage; a partition or its Newton
    /// solve that failed at the step's predicted state, which a shorter step brings closer; a
    /// failed or singular Newton iteration of an implicit step).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            SimError::SingularKkt { .. }
                | SimError::NonFiniteKernel { .. }
                | SimError::SingularPartition { .. }
                | SimError::PartitionNewtonFailed { .. }
                | SimError::NewtonDiverged { .. }
                | SimError::SingularIterationMatrix { .. }
        )
    }
}

/// The stage of [`crate::initialize`] that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InitStage {
    /// Gauss–Newton on Φ(t0, q) = 0.
    Positions,
    /// The projection onto G v + [Φ_t; b] = 0.
    Velocities,
}

impl std::fmt::Display for InitStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InitStage::Positions => "positions, Φ = 0",
            InitStage::Velocities => "velocities, Φ_q v + Φ_t = 0",
        })
    }
}

/// One constraint row that stays violated, for [`SimError::InitializationFailed`] and
/// [`SimError::InconsistentInitialState`]: its index, its name and its residual.
#[derive(Clone, Debug, PartialEq)]
pub struct ViolatedRow {
    /// Row index (into Φ, or into the velocity residual; see the variant).
    pub row: usize,
    /// The row's name ([`crate::ConstrainedSystem::constraint_names`]: its label in the model,
    /// otherwise `phi_i` / `nh_i`).
    pub name: String,
    /// The row's residual at the last iterate.
    pub residual: f64,
}

impl ViolatedRow {
    /// Rows with |r_i| > `tol` (NaN rows too), largest |r_i| first (ties by index), named
    /// after `names` (the model's constraint names; rows beyond them are named `row i`).
    pub fn collect(residuals: &[f64], tol: f64, names: &[String]) -> Vec<ViolatedRow> {
        let mut rows: Vec<ViolatedRow> = residuals
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_nan() || r.abs() > tol)
            .map(|(row, &residual)| ViolatedRow {
                row,
                name: names
                    .get(row)
                    .cloned()
                    .unwrap_or_else(|| format!("row {row}")),
                residual,
            })
            .collect();
        rows.sort_by(|a, b| {
            let key = |r: &ViolatedRow| {
                if r.residual.is_nan() {
                    f64::INFINITY
                } else {
                    r.residual.abs()
                }
            };
            key(b).total_cmp(&key(a)).then(a.row.cmp(&b.row))
        });
        rows
    }

    /// "`rod` (row 0, 1.5e0), `phi_4` (row 3, -2e-3)", at most ten rows, then "… and k more".
    fn list(rows: &[ViolatedRow]) -> String {
        const SHOWN: usize = 10;
        let mut s: Vec<String> = rows
            .iter()
            .take(SHOWN)
            .map(|r| format!("`{}` (row {}, {:e})", r.name, r.row, r.residual))
            .collect();
        if rows.len() > SHOWN {
            s.push(format!("… and {} more", rows.len() - SHOWN));
        }
        if s.is_empty() {
            "none above the tolerance".to_string()
        } else {
            s.join(", ")
        }
    }
}

/// A generalized coordinate named for a message: its index into q and its name
/// ([`crate::ConstrainedSystem::coordinate_names`], else `q[i]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Coordinate {
    /// Index into q.
    pub index: usize,
    /// The coordinate's name.
    pub name: String,
}

impl Coordinate {
    /// Coordinate `index` named after `names` (`q[i]` beyond them).
    pub fn named(index: usize, names: &[&str]) -> Coordinate {
        let name = names
            .get(index)
            .map_or_else(|| format!("q[{index}]"), |n| n.to_string());
        Coordinate { index, name }
    }

    /// "x1 (0), phi1 (2)".
    fn list(coordinates: &[Coordinate]) -> String {
        let s: Vec<String> = coordinates
            .iter()
            .map(|c| format!("{} ({})", c.name, c.index))
            .collect();
        s.join(", ")
    }
}

/// A constraint row named for a message: its index into G = [Φ_q; A] (and λ) and its name
/// ([`crate::ConstrainedSystem::constraint_names`]: its label in the model, otherwise `phi_i` /
/// `nh_i`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstraintRow {
    /// Row index into G (and λ).
    pub row: usize,
    /// The row's name.
    pub name: String,
}

impl ConstraintRow {
    /// Rows `rows` named after `names` (the model's constraint names; rows beyond them are
    /// named `row i`).
    pub fn named(rows: &[usize], names: &[String]) -> Vec<ConstraintRow> {
        rows.iter()
            .map(|&row| ConstraintRow {
                row,
                name: names
                    .get(row)
                    .cloned()
                    .unwrap_or_else(|| format!("row {row}")),
            })
            .collect()
    }

    /// "`rod` (row 2), `loop_x` (row 5)", at most ten rows, then "… and k more"; "none".
    fn list(rows: &[ConstraintRow]) -> String {
        const SHOWN: usize = 10;
        if rows.is_empty() {
            return "none".to_string();
        }
        let mut s: Vec<String> = rows
            .iter()
            .take(SHOWN)
            .map(|r| format!("`{}` (row {})", r.name, r.row))
            .collect();
        if rows.len() > SHOWN {
            s.push(format!("… and {} more", rows.len() - SHOWN));
        }
        s.join(", ")
    }
}

/// One constraint row found dependent on the others (a redundant constraint, or a row that
/// loses rank at a singular configuration).
#[derive(Clone, Debug, PartialEq)]
pub struct DependentRow {
    /// Row index into G = [Φ_q; A] (and λ).
    pub row: usize,
    /// The row's name ([`crate::ConstrainedSystem::constraint_names`]).
    pub name: String,
    /// Distance of the row's gradient to the span of the independent rows (relative to the
    /// largest row norm of G).
    pub distance: f64,
}

impl DependentRow {
    /// "`rod` (row 2, distance 1e-17), …", or "none".
    fn list(rows: &[DependentRow]) -> String {
        if rows.is_empty() {
            return "none".to_string();
        }
        rows.iter()
            .map(|r| format!("`{}` (row {}, distance {:e})", r.name, r.row, r.distance))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `Err(InvalidProblem)` unless a slice named `what` has the length `expected` (the public
/// entry points' check of user input: a wrong length is an error, never a panic).
pub(crate) fn check_length(what: &str, got: usize, expected: usize) -> Result<(), SimError> {
    if got == expected {
        return Ok(());
    }
    Err(SimError::InvalidProblem {
        what: format!("{what} has length {got}, the model needs {expected}"),
    })
}

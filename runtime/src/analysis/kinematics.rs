//! Kinematic analysis of a fully driven (0-DOF) model (\[HAUG\] §7.1, digest §2.8 steps 1–3).
//!
//! Along a time grid: positions by Newton on Φ(t, q) = 0, started from the previous point's
//! Taylor prediction q + Δt v + ½ Δt² a (continuation); velocities from Φ_q v = −Φ_t;
//! accelerations from Φ_q a = γ. Each point records the condition and the determinant of Φ_q;
//! a sign change of the determinant between two points is reported as a passage through a
//! singular configuration ([`Kinematics::singular_passages`]). Two paths
//! ([`KinematicSolver`]):
//!
//! - **dense** (small models, and any model whose Φ_q is not square): the model is checked
//!   first ([`super::check`]): a model that is under-driven or nonholonomic fails with
//!   [`SimError::NotAnalyzable`]; an over-constrained one (m > rank = n) is analysed with its
//!   redundant rows left out ([`crate::redundancy`]: λ = 0 on them, the determinant is that
//!   of the kept rows in the model's order). Each point is [`crate::initialize`] at that time
//!   (its Newton iteration, its velocity projection — exact for a square Φ_q — and its KKT
//!   solve, which for a square nonsingular Φ_q gives a from Φ_q a = γ whatever M is, and
//!   λ = Φ_q⁻ᵀ (Q − M a): the inverse dynamics of [`super::inverse_dynamics`]), then the
//!   rank test, the SVD (condition κ₂) and the determinant of the dense Φ_q: O(n³) per point.
//! - **banded** (a model with the sparse kernel forms whose Φ_q is square, by default;
//!   `kinematics_banded.rs`): Newton, velocities, determinant and a 1-norm condition
//!   estimate κ̂₁ on the banded LU of Φ_q (`square_band.rs`), a and λ from the same KKT solve
//!   as the dense path's: O(n) per point for a chain. The dense check runs only if Φ_q does
//!   not factor at the first guess, and a point the band cannot solve is handed to the dense
//!   path (for its answer or its diagnosis). [`Kinematics::condition_measure`] says which
//!   condition the points carry.

use super::kinematics_banded::{BandedPoints, Unsolved};
use crate::error::{SimError, SingularBlock};
use crate::init::{InitOptions, VelocityMetric, initialize};
use crate::system::ConstrainedSystem;

/// Settings of [`kinematics`].
#[derive(Clone, Debug, PartialEq)]
pub struct KinematicOptions {
    /// Newton target for ‖Φ‖∞ at every grid point (default 1e-12).
    pub tol: f64,
    /// Newton iteration limit per grid point (default 50).
    pub max_iterations: usize,
    /// Dense or banded factorization of Φ_q (default [`KinematicSolver::Auto`]).
    pub solver: KinematicSolver,
}

impl Default for KinematicOptions {
    fn default() -> Self {
        Self {
            tol: 1e-12,
            max_iterations: 50,
            solver: KinematicSolver::Auto,
        }
    }
}

/// How [`kinematics`] factors Φ_q at the grid points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KinematicSolver {
    /// Banded for a model with the sparse kernel forms whose Φ_q is square (k = 0, m = n) and
    /// whose band costs at most a quarter of the dense LU; dense otherwise.
    #[default]
    Auto,
    /// Dense: `initialize` at every point, the SVD condition κ₂ and the dense determinant.
    Dense,
    /// Banded whenever Φ_q is square, whatever the model's size or forms (dense otherwise).
    Banded,
}

/// What [`KinematicPoint::condition`] measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConditionMeasure {
    /// κ₂ = σ_max/σ_min of Φ_q, from a dense SVD (the dense path).
    TwoNormSvd,
    /// κ̂₁ = ‖Φ_q‖₁ · est‖Φ_q⁻¹‖₁, Hager–Higham's estimate from the banded LU (the banded
    /// path): a lower bound on κ₁, usually within a factor 3, and κ₂/n ≤ κ₁ ≤ n κ₂.
    OneNormEstimate,
    /// κ₂ = σ_max/σ_min of G from Lanczos on GGᵀ (σ_max) and on (GGᵀ)⁻¹ with the banded
    /// augmented factors (σ_min), each to a relative Ritz residual of 1e-6
    /// (`condition_sparse.rs`): `check`'s measure on the banded path.
    TwoNormIterative,
    /// ∞ without a computation: the rank test found dependent rows, so σ_min(G) ≤
    /// [`super::RANK_TOLERANCE`] · max_i ‖g_i‖ (the dependency g_r − Σ c_j g_j, of norm at most
    /// that distance, is Gᵀu for the unit u ∝ (1, −c)); the condition of the independent rows
    /// is [`super::JacobianRank::kept_condition`].
    RankDeficient,
}

impl ConditionMeasure {
    /// A short label for files and reports.
    pub fn label(self) -> &'static str {
        match self {
            ConditionMeasure::TwoNormSvd => "2-norm condition of Phi_q (dense SVD)",
            ConditionMeasure::OneNormEstimate => {
                "1-norm condition estimate of Phi_q (Hager-Higham, banded LU)"
            }
            ConditionMeasure::TwoNormIterative => {
                "2-norm condition (sparse estimate: Lanczos on GG^T and its inverse, rel. tol 1e-6)"
            }
            ConditionMeasure::RankDeficient => "infinite: dependent rows found by the rank test",
        }
    }
}

/// The kinematic state at one grid point, and the multipliers of the inverse dynamics.
#[derive(Clone, Debug, PartialEq)]
pub struct KinematicPoint {
    /// Time.
    pub t: f64,
    /// Positions.
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// Accelerations.
    pub a: Vec<f64>,
    /// Multipliers λ = Φ_q⁻ᵀ (Q − M a) (length m, indexed like the constraint names).
    pub lambda: Vec<f64>,
    /// Newton iterations at this point.
    pub iterations: usize,
    /// ‖Φ(t, q)‖∞ reached.
    pub residual: f64,
    /// ‖Φ_q v + Φ_t‖∞ reached.
    pub velocity_residual: f64,
    /// The condition of Φ_q at the point, as [`Kinematics::condition_measure`] says: σ_max/σ_min
    /// on the dense path, the 1-norm estimate κ̂₁ on the banded one.
    pub condition: f64,
    /// det Φ_q at the point: a sign change between two points means the motion passed a
    /// singular configuration between them ([`Kinematics::singular_passages`]).
    pub determinant: f64,
}

/// The result of [`kinematics`].
#[derive(Clone, Debug, PartialEq)]
pub struct Kinematics {
    /// Constraint row names (indexing λ).
    pub names: Vec<String>,
    /// One point per grid time.
    pub points: Vec<KinematicPoint>,
    /// What the points' `condition` measures (the path taken).
    pub condition_measure: ConditionMeasure,
}

impl Kinematics {
    /// Newton iterations over all points.
    pub fn total_iterations(&self) -> usize {
        self.points.iter().map(|p| p.iterations).sum()
    }

    /// The largest ‖Φ‖∞ and ‖Φ_q v + Φ_t‖∞ over the points.
    pub fn max_residuals(&self) -> (f64, f64) {
        self.points.iter().fold((0.0_f64, 0.0_f64), |(p, v), x| {
            (p.max(x.residual), v.max(x.velocity_residual))
        })
    }

    /// The grid intervals `(t_a, t_b)` over which det Φ_q changed sign: the motion passed a
    /// singular configuration there (a dead point or change point crossed between two grid
    /// points, where the continuation may have switched branches). A singular point the
    /// determinant touches without crossing (a double root) is not seen; the condition is.
    pub fn singular_passages(&self) -> Vec<(f64, f64)> {
        self.points
            .windows(2)
            .filter(|w| w[0].determinant * w[1].determinant < 0.0)
            .map(|w| (w[0].t, w[1].t))
            .collect()
    }

    /// The largest condition estimate of Φ_q over the points, and its time.
    pub fn worst_condition(&self) -> Option<(f64, f64)> {
        self.points
            .iter()
            .map(|p| (p.t, p.condition))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Kinematic analysis of `sys` at `times` (in order), starting Newton at `q_guess` for the
/// first time (see the module docs).
pub fn kinematics<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    times: &[f64],
    q_guess: &[f64],
    opts: &KinematicOptions,
) -> Result<Kinematics, SimError> {
    validate(opts)?;
    crate::error::check_length("kinematics: q_guess", q_guess.len(), sys.dims().n)?;
    let banded = match opts.solver {
        KinematicSolver::Dense => None,
        KinematicSolver::Auto => BandedPoints::for_system(sys, false),
        KinematicSolver::Banded => BandedPoints::for_system(sys, true),
    };
    let (points, condition_measure) = match banded {
        Some(banded) => (
            banded_points(sys, banded, times, q_guess, opts)?,
            ConditionMeasure::OneNormEstimate,
        ),
        None => (
            dense_points(sys, times, q_guess, opts)?,
            ConditionMeasure::TwoNormSvd,
        ),
    };
    Ok(Kinematics {
        names: sys.constraint_names(),
        points,
        condition_measure,
    })
}

/// The admission test (`super::check`: fully driven, redundant rows left out) at the first
/// guess: the rank-revealing selection on G (on its nonzeros for a large sparse model).
fn admit<S: ConstrainedSystem + ?Sized>(sys: &S, t: f64, q_guess: &[f64]) -> Result<(), SimError> {
    let d = sys.dims();
    let diagnosis = super::check(sys, t, q_guess)?;
    if d.k == 0 && diagnosis.jacobian.rank == d.n {
        return Ok(());
    }
    Err(SimError::NotAnalyzable {
        mode: "kinematic analysis",
        needs: "a fully driven model (k = 0, Φ_q of rank n; redundant rows are left out)",
        n: d.n,
        m: d.m,
        k: d.k,
        rank: diagnosis.jacobian.rank,
        advice: diagnosis.kinematic_advice(),
    })
}

/// The dense path: `initialize` at every point, `check`'s SVD and the dense determinant.
fn dense_points<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    times: &[f64],
    q_guess: &[f64],
    opts: &KinematicOptions,
) -> Result<Vec<KinematicPoint>, SimError> {
    admit(sys, times.first().copied().unwrap_or(0.0), q_guess)?;
    let init = init_options(opts);
    let mut points: Vec<KinematicPoint> = Vec::with_capacity(times.len());
    for &t in times {
        let (guess, v_guess) = predict(points.last(), t, q_guess);
        let point = solve_point(sys, t, &guess, &v_guess, &init)?;
        points.push(point);
    }
    Ok(points)
}

/// The banded path (`kinematics_banded.rs`): the dense admission test only when Φ_q does not
/// factor at the first guess, a point the band cannot solve handed to the dense path.
fn banded_points<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    mut banded: BandedPoints,
    times: &[f64],
    q_guess: &[f64],
    opts: &KinematicOptions,
) -> Result<Vec<KinematicPoint>, SimError> {
    let first = times.first().copied().unwrap_or(0.0);
    if !banded.factor_at(sys, first, q_guess)? {
        admit(sys, first, q_guess)?;
    }
    let init = init_options(opts);
    let mut points: Vec<KinematicPoint> = Vec::with_capacity(times.len());
    for &t in times {
        let (guess, v_guess) = predict(points.last(), t, q_guess);
        let point = match banded.solve_point(sys, t, (&guess, &v_guess), opts)? {
            Ok(point) => point,
            Err(Unsolved) => {
                let mut point = solve_point(sys, t, &guess, &v_guess, &init)?;
                (point.condition, point.determinant) = banded.conditioning(sys, t, &point.q)?;
                point
            }
        };
        points.push(point);
    }
    Ok(points)
}

/// `initialize`'s settings for a point. 0 DOF: G is square and v = −G⁻¹[Φ_t; b] whatever the
/// metric; the identity needs no M.
fn init_options(opts: &KinematicOptions) -> InitOptions {
    InitOptions {
        tol: opts.tol,
        max_iterations: opts.max_iterations,
        velocity_metric: VelocityMetric::Euclidean,
        ..InitOptions::default()
    }
}

/// Options out of their domain.
fn validate(opts: &KinematicOptions) -> Result<(), SimError> {
    if !(opts.tol.is_finite() && opts.tol > 0.0) {
        return Err(SimError::InvalidOption {
            option: "KinematicOptions::tol",
            value: opts.tol.to_string(),
            reason: "must be finite and positive",
        });
    }
    if opts.max_iterations == 0 {
        return Err(SimError::InvalidOption {
            option: "KinematicOptions::max_iterations",
            value: "0".to_string(),
            reason: "must be at least 1",
        });
    }
    Ok(())
}

/// Newton's starting point at `t`: the Taylor prediction from the previous point, or the
/// user's guess (with zero velocity) at the first.
fn predict(prev: Option<&KinematicPoint>, t: f64, q_guess: &[f64]) -> (Vec<f64>, Vec<f64>) {
    match prev {
        None => (q_guess.to_vec(), vec![0.0; q_guess.len()]),
        Some(p) => {
            let dt = t - p.t;
            let q = (0..p.q.len())
                .map(|i| p.q[i] + dt * p.v[i] + 0.5 * dt * dt * p.a[i])
                .collect();
            let v = (0..p.v.len()).map(|i| p.v[i] + dt * p.a[i]).collect();
            (q, v)
        }
    }
}

/// Positions, velocities, accelerations and multipliers at `t`.
fn solve_point<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    guess: &[f64],
    v_guess: &[f64],
    init: &InitOptions,
) -> Result<KinematicPoint, SimError> {
    let report = initialize(sys, t, guess, v_guess, init).map_err(|e| match e {
        SimError::SingularKkt {
            block: SingularBlock::Jacobian,
            ..
        } => super::singular::name_singularity(sys, (f64::NAN, None), guess, e),
        other => other,
    })?;
    // The dense path's own rank test (the same rows and condition as the banded one).
    let diagnosis = super::check_with(sys, t, &report.q, KinematicSolver::Dense)?;
    let n = report.q.len();
    let mut g = nalgebra::DMatrix::zeros(sys.dims().m, n);
    crate::kernels::jacobian(sys, t, &report.q, &mut g)?;
    // Over-constrained: the determinant of the kept rows, in the model's order.
    let determinant = if g.nrows() == n {
        g.determinant()
    } else {
        let mut kept = crate::redundancy::select_redundant(&g).independent;
        kept.sort_unstable();
        g.select_rows(&kept).determinant()
    };
    Ok(KinematicPoint {
        determinant,
        t,
        q: report.q,
        v: report.v,
        a: report.vdot,
        lambda: report.lambda,
        iterations: report.iterations,
        residual: report.residual.position,
        velocity_residual: report.residual.velocity,
        condition: diagnosis.jacobian.condition,
    })
}

//! Static equilibrium by minimum total potential energy subject to Φ(q) = 0 (\[HAUG\] §7.5,
//! digest §2.7 route 3), with a reduced Newton method.
//!
//! At a feasible q (Φ = 0 to `projection_tol`): G = Φ_q, the generalized force at rest
//! Q(t, q, 0) = −V_q, the least-squares multipliers λ = (G Gᵀ)⁻¹ G Q, an orthonormal basis Z of
//! ker G (the admissible motions, the "independent" directions of Haug's reduction) and the
//! reduced gradient r = Zᵀ(−Q) = Zᵀ V_q. Converged when ‖r‖∞ ≤ `tol`; then the equilibrium
//! equations Gᵀλ = Q, Φ = 0 (7.5.2) hold to that residual. Otherwise:
//!
//! 1. the Hessian of the Lagrangian V + λᵀΦ from the generated second derivatives,
//!    H = −∂Q/∂q + ∂(Φ_qᵀ λ)/∂q (`force_q`, `phi_q_t_lambda_q` of [`TangentSystem`]), reduced
//!    to H_r = Zᵀ H Z;
//! 2. the Newton step Z p with H_r p = −r where H_r is positive definite; in the eigenbasis of
//!    H_r, eigenvalues μ ≤ √ε max|μ| are replaced by max(|μ|, 10⁻³ max|μ|), so that along a direction of
//!    negative curvature the step goes downhill by the Newton length (the method looks for
//!    minima, not saddles or maxima);
//! 3. a backtracking line search on V: q + α Z p is projected back onto Φ = 0 (Newton with
//!    minimum-norm corrections, [`crate::initialize`]), α halves until the Armijo test
//!    V(q_new) ≤ V(q) + 10⁻⁴ α rᵀp holds.
//!
//! The reported stability is that of the constrained minimum: the eigenvalues of H_r at the
//! solution, all positive → stable, one negative → unstable, otherwise indeterminate (within
//! √ε of the largest in magnitude).
//!
//! On a large sparse model ([`EquilibriumOptions::solver`], `statics_band.rs`) G is ranked on
//! its nonzeros, λ comes from the banded [I G_kᵀ; G_k 0] and Z from projections of fixed
//! vectors onto ker G_k (then QR) instead of GᵀG's eigenvectors: another orthonormal basis of
//! the same space, so the step, the eigenvalues and the stability agree with the dense path to
//! round-off; the reduced gradient's ∞-norm depends on the basis (not for 1 DOF).

use nalgebra::{DMatrix, DVector};

use super::kinematics::KinematicSolver;
use crate::error::SimError;
use crate::init::{InitOptions, initialize};
use crate::kernels;
use crate::system::ConstrainedSystem;
use crate::table::{KernelArgs, KernelId, KernelOut};
use crate::tangent::{Energy, TangentSystem};

/// Settings of [`equilibrium`].
#[derive(Clone, Debug, PartialEq)]
pub struct EquilibriumOptions {
    /// Time at which the (rheonomic) constraints and forces are taken (default 0).
    pub t: f64,
    /// Target for the reduced gradient ‖Zᵀ V_q‖∞, in the units of the generalized forces
    /// (default 1e-10).
    pub tol: f64,
    /// Newton iteration limit (default 100).
    pub max_iterations: usize,
    /// Target for ‖Φ‖∞ of every projection onto the constraints (default 1e-13).
    pub projection_tol: f64,
    /// Dense or banded local quantities (λ, the tangent basis Z, the rank test; default
    /// [`KinematicSolver::Auto`]: banded for a model with the sparse kernel forms whose
    /// augmented [I Gᵀ; G 0] takes the banded layout and whose DOF d ≤ n/8,
    /// `statics_band.rs`).
    pub solver: KinematicSolver,
}

impl Default for EquilibriumOptions {
    fn default() -> Self {
        Self {
            t: 0.0,
            tol: 1e-10,
            max_iterations: 100,
            projection_tol: 1e-13,
            solver: KinematicSolver::Auto,
        }
    }
}

/// Stability of an equilibrium, from the reduced Hessian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stability {
    /// Every eigenvalue of Zᵀ H Z is positive: a strict local minimum of V on Φ = 0.
    Stable,
    /// Some eigenvalue is negative: a maximum or a saddle of V on Φ = 0.
    Unstable,
    /// The smallest eigenvalue is zero to within √ε of the largest: the test is inconclusive.
    Indeterminate,
}

/// An equilibrium and how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Equilibrium {
    /// Which method converged ("reduced Newton").
    pub method: &'static str,
    /// Equilibrium coordinates.
    pub q: Vec<f64>,
    /// Multipliers λ (Gᵀλ = Q): the constraint forces holding the mechanism.
    pub lambda: Vec<f64>,
    /// Newton iterations.
    pub iterations: usize,
    /// Halvings of the line search over all iterations.
    pub halvings: usize,
    /// Final reduced gradient ‖Zᵀ V_q‖∞.
    pub residual: f64,
    /// Final ‖Q − Gᵀλ‖∞ (the equilibrium equations (7.5.2)).
    pub equation_residual: f64,
    /// Final ‖Φ‖∞.
    pub constraint_residual: f64,
    /// Potential energy V at the equilibrium.
    pub potential: f64,
    /// Eigenvalues of the reduced Hessian Zᵀ H Z, ascending.
    pub hessian_eigenvalues: Vec<f64>,
    /// Stability read from them.
    pub stability: Stability,
}

/// The local quantities at a feasible point.
pub(super) struct Local {
    pub(super) lambda: DVector<f64>,
    pub(super) z: DMatrix<f64>,
    pub(super) gradient: DVector<f64>,
    pub(super) equation_residual: f64,
}

/// Find the equilibrium nearest (downhill) from `q_guess` (see the module docs).
pub fn equilibrium<S: TangentSystem + Energy + ?Sized>(
    sys: &S,
    q_guess: &[f64],
    opts: &EquilibriumOptions,
) -> Result<Equilibrium, SimError> {
    validate(opts)?;
    let d = sys.dims();
    crate::error::check_length("equilibrium: q_guess", q_guess.len(), d.n)?;
    if d.k > 0 {
        return Err(SimError::NotAnalyzable {
            mode: "equilibrium analysis",
            needs: "holonomic constraints only (k = 0)",
            n: d.n,
            m: d.m,
            k: d.k,
            rank: super::check(sys, opts.t, q_guess)?.jacobian.rank,
            advice: "nonholonomic rows do not restrict positions; drop them for statics"
                .to_string(),
        });
    }
    super::driving::refuse_driving(sys, "equilibrium analysis", opts.t, q_guess)?;
    let mut q = project(sys, opts, q_guess)?;
    let mut v_now = potential(sys, opts.t, &q)?;
    let (mut iterations, mut halvings) = (0, 0);
    loop {
        let local = local(sys, opts.t, &q, opts.solver)?;
        let residual = local.gradient.amax();
        let hr = reduced_hessian(sys, opts.t, &q, &local)?;
        let eig = hr.clone().symmetric_eigenvalues();
        if residual <= opts.tol {
            return finish(sys, opts, q, local, iterations, halvings, v_now, eig);
        }
        if iterations == opts.max_iterations || !residual.is_finite() {
            return Err(failed(residual, iterations));
        }
        iterations += 1;
        let step = newton_direction(&hr, &local.gradient);
        let slope = local.gradient.dot(&step);
        let direction = &local.z * &step;
        let mut alpha = 1.0;
        loop {
            let trial: Vec<f64> = (0..d.n).map(|i| q[i] + alpha * direction[i]).collect();
            if let Ok(qt) = project(sys, opts, &trial) {
                let vt = potential(sys, opts.t, &qt)?;
                if vt <= v_now + 1e-4 * alpha * slope {
                    (q, v_now) = (qt, vt);
                    break;
                }
            }
            alpha *= 0.5;
            halvings += 1;
            if alpha < 1e-12 {
                return Err(failed(residual, iterations));
            }
        }
    }
}

/// The converged result.
#[allow(clippy::too_many_arguments)] // the pieces of the result gathered in the loop
fn finish<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    opts: &EquilibriumOptions,
    q: Vec<f64>,
    local: Local,
    iterations: usize,
    halvings: usize,
    potential: f64,
    eig: DVector<f64>,
) -> Result<Equilibrium, SimError> {
    let mut phi = vec![0.0; sys.dims().m];
    kernels::phi(sys, opts.t, &q, &mut phi)?;
    let mut values: Vec<f64> = eig.iter().copied().collect();
    values.sort_by(f64::total_cmp);
    Ok(Equilibrium {
        method: "reduced Newton",
        lambda: local.lambda.iter().copied().collect(),
        residual: local.gradient.amax(),
        equation_residual: local.equation_residual,
        constraint_residual: phi.iter().fold(0.0_f64, |s, x| s.max(x.abs())),
        stability: stability(&values),
        hessian_eigenvalues: values,
        q,
        iterations,
        halvings,
        potential,
    })
}

fn failed(residual: f64, iterations: usize) -> SimError {
    SimError::EquilibriumFailed {
        method: "reduced Newton",
        residual,
        iterations,
    }
}

fn validate(opts: &EquilibriumOptions) -> Result<(), SimError> {
    let positive = |x: f64| x.is_finite() && x > 0.0;
    let bad = |option: &'static str, value: String, reason: &'static str| {
        Err(SimError::InvalidOption {
            option,
            value,
            reason,
        })
    };
    if !positive(opts.tol) {
        return bad(
            "EquilibriumOptions::tol",
            opts.tol.to_string(),
            "must be > 0",
        );
    }
    if !positive(opts.projection_tol) {
        let value = opts.projection_tol.to_string();
        return bad("EquilibriumOptions::projection_tol", value, "must be > 0");
    }
    if !opts.t.is_finite() {
        return bad(
            "EquilibriumOptions::t",
            opts.t.to_string(),
            "must be finite",
        );
    }
    if opts.max_iterations == 0 {
        return bad(
            "EquilibriumOptions::max_iterations",
            "0".into(),
            "must be ≥ 1",
        );
    }
    Ok(())
}

/// Stability from ascending eigenvalues of the reduced Hessian.
fn stability(values: &[f64]) -> Stability {
    let big = values.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    let margin = f64::EPSILON.sqrt() * big;
    match values.first() {
        None => Stability::Stable, // no freedom left: nothing can move
        Some(&low) if low > margin => Stability::Stable,
        Some(&low) if low < -margin => Stability::Unstable,
        Some(_) => Stability::Indeterminate,
    }
}

/// The nearest point with ‖Φ‖∞ ≤ `projection_tol` (minimum-norm Newton, [`initialize`]).
fn project<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    opts: &EquilibriumOptions,
    q: &[f64],
) -> Result<Vec<f64>, SimError> {
    let init = InitOptions {
        tol: opts.projection_tol,
        max_iterations: 50,
        ..InitOptions::default()
    };
    Ok(initialize(sys, opts.t, q, &vec![0.0; q.len()], &init)?.q)
}

/// V(t, q), checked.
fn potential<S: Energy + ?Sized>(sys: &S, t: f64, q: &[f64]) -> Result<f64, SimError> {
    let mut out = [0.0];
    sys.potential_energy_into(t, q, &mut out);
    kernels::check(
        &crate::naming::ModelNames(sys),
        crate::error::Kernel::PotentialEnergy,
        &out,
        (t, q, &[]),
    )?;
    Ok(out[0])
}

/// G, Q at rest, λ, Z and the reduced gradient at q: on the banded path
/// (`statics_band.rs`) where `solver` and the model allow it, else dense.
pub(super) fn local<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    solver: KinematicSolver,
) -> Result<Local, SimError> {
    if let Some(policy) = super::statics_band::kkt_policy(sys, solver)
        && let Some(local) = super::statics_band::local_banded(sys, (t, q), policy)?
    {
        return Ok(local);
    }
    local_dense(sys, t, q)
}

/// [`local`] with dense G, GᵀG's eigenvectors as Z.
fn local_dense<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
) -> Result<Local, SimError> {
    let d = sys.dims();
    let mut g = DMatrix::zeros(d.m, d.n);
    kernels::jacobian(sys, t, q, &mut g)?;
    let rest = vec![0.0; d.n];
    let mut force = vec![0.0; d.n];
    kernels::force(sys, t, q, &rest, &mut force)?;
    let force = DVector::from_vec(force);
    // Redundant rows (over-constrained models, [`crate::redundancy`]) are left out: λ on the
    // independent rows by least squares, 0 on the others; ker G has dimension n − rank.
    let pick = crate::redundancy::select_redundant(&g);
    let mut kept = pick.independent.clone();
    kept.sort_unstable();
    let gk = g.select_rows(&kept);
    let lambda_kept = (&gk * gk.transpose())
        .lu()
        .solve(&(&gk * &force))
        .unwrap_or_else(|| DVector::zeros(kept.len()));
    let mut lambda = DVector::zeros(d.m);
    for (j, &row) in kept.iter().enumerate() {
        lambda[row] = lambda_kept[j];
    }
    let z = null_space(&gk);
    let gradient = -(z.transpose() * &force);
    let equation_residual = (g.transpose() * &lambda - &force).amax();
    Ok(Local {
        lambda,
        z,
        gradient,
        equation_residual,
    })
}

/// An orthonormal basis of ker G: the eigenvectors of GᵀG for its n − m smallest eigenvalues.
fn null_space(g: &DMatrix<f64>) -> DMatrix<f64> {
    let (m, n) = g.shape();
    let eig = (g.transpose() * g).symmetric_eigen();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| eig.eigenvalues[a].total_cmp(&eig.eigenvalues[b]));
    let columns: Vec<DVector<f64>> = order[..n.saturating_sub(m)]
        .iter()
        .map(|&i| eig.eigenvectors.column(i).into_owned())
        .collect();
    if columns.is_empty() {
        DMatrix::zeros(n, 0)
    } else {
        DMatrix::from_columns(&columns)
    }
}

/// Zᵀ (−∂Q/∂q + ∂(Φ_qᵀλ)/∂q) Z, symmetrized.
fn reduced_hessian<S: TangentSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    local: &Local,
) -> Result<DMatrix<f64>, SimError> {
    let n = sys.dims().n;
    let rest = vec![0.0; n];
    let (mut fq, mut curv) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n));
    let mut args = KernelArgs {
        t,
        q,
        v: &rest,
        lambda: &[],
        w: &[],
    };
    let out = KernelOut::Matrix(fq.as_view_mut());
    kernels::checked_tangent(sys, KernelId::ForceQ, &args, out)?;
    args.lambda = local.lambda.as_slice();
    let out = KernelOut::Matrix(curv.as_view_mut());
    kernels::checked_tangent(sys, KernelId::PhiQTLambdaQ, &args, out)?;
    let h = curv - fq;
    let hr = local.z.transpose() * h * &local.z;
    Ok((&hr + hr.transpose()) * 0.5)
}

/// p = −Σ_i u_i (u_iᵀ r) / μ'_i over the eigenpairs (μ_i, u_i) of H_r, with μ' = μ for
/// μ > √ε max|μ| and μ' = max(|μ|, 10⁻³ max|μ|) otherwise: the Newton step where H_r is positive definite, and a descent step of Newton
/// length along directions of negative curvature (see the module docs).
fn newton_direction(hr: &DMatrix<f64>, r: &DVector<f64>) -> DVector<f64> {
    let eig = hr.clone().symmetric_eigen();
    let big = eig.eigenvalues.amax();
    let floor = if big > 0.0 { 1e-3 * big } else { 1.0 };
    let mut p = DVector::zeros(r.len());
    for (i, mu) in eig.eigenvalues.iter().enumerate() {
        let u = eig.eigenvectors.column(i);
        let curvature = if *mu > f64::EPSILON.sqrt() * big {
            *mu
        } else {
            mu.abs().max(floor)
        };
        p -= u * (u.dot(r) / curvature);
    }
    p
}

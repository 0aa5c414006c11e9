//! The index-1 ("KKT") solve [M Gᵀ; G 0][v̇; λ] = [Q; γ] and its preallocated workspace.
//!
//! Every right-hand-side evaluation of every integrator goes through
//! [`accelerations_into`]: one fused kernel call, one LU factorization of the augmented
//! matrix with partial pivoting (\[CHIN\] used LINPACK's dense LU the same way), one solve. The
//! augmented form works with a singular positive-semidefinite M as long as G has full row rank
//! and M is positive definite on ker G (\[CHIN\] Lemma 4.1). The same factorization machinery,
//! with M or the identity in the (1,1) block, serves the post-stabilization projections
//! (\[CHIN\] (4.15) and Remark 3.4).
//!
//! Large chains factor on the banded path instead (`banded.rs`): on its first factorization a
//! workspace reads the model's structural patterns (M, Φ_q, A) and, under [`KktSolver::Auto`],
//! picks the banded LU when its operation count under an RCM ordering is at most a quarter of
//! the dense one ([`KktLayout::choose`]). Small models stay dense, bit for bit as before.
//!
//! A model with the sparse kernel forms ([`ConstrainedSystem::has_nonzero_forms`]) keeps M and
//! G as their nonzeros in the workspace (`crate::sparse`): the fused kernel writes them without
//! zero-filling n² + (m + k)·n entries and the assembly scatters them into the band. The dense
//! `mass`/`jac` are then only written on the cold paths that need them (a singular matrix's
//! diagnosis, rows left out as redundant, the continuous stabilizations' correction).

use nalgebra::DMatrix;

use crate::baumgarte::Baumgarte;
use crate::error::{ConstraintRow, Kernel, SimError};
use crate::kernels;
use crate::kkt_layout::Factors;
use crate::lu::diagnose_singular;
use crate::naming::ModelNames;
use crate::redundancy::RowSelection;
use crate::sparse::{Jac, SparseKkt};
use crate::system::{ConstrainedSystem, Dims};

pub use crate::kkt_layout::{KktLayout, KktSolver};

/// The run-time conditioning monitor of the matrix a method factors where G enters (the
/// dynamics' KKT matrix [M Gᵀ; G 0] here; the Newton matrix of the implicit methods, S of HPIM
/// and NPC, see [`crate::Stats::conditioning`]): the largest pivot spread max|u_jj| / min|u_jj|
/// of its LU over a run, and when it occurred.
///
/// The spread costs O(N) on the factorization already made. It is an indicator, not κ: for
/// a triangular U, κ(U) ≥ max|u_jj|/min|u_jj|, and partial pivoting keeps L's entries ≤ 1, so
/// a spread that grows by decades means κ of the KKT matrix grew at least about as much — as
/// G loses rank near a singular (dead-point, bifurcation) configuration the smallest pivot
/// goes to zero like the smallest singular value of G. It also reflects the scaling of M
/// against G, so compare it along a run, not between models.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditioning {
    /// The largest pivot spread seen.
    pub spread: f64,
    /// The time of that factorization.
    pub t: f64,
}

impl Conditioning {
    /// Keep the worse of `self` and a spread `spread` at `t`.
    pub(crate) fn note(worst: &mut Option<Conditioning>, spread: f64, t: f64) {
        if worst.is_none_or(|w| spread > w.spread) {
            *worst = Some(Conditioning { spread, t });
        }
    }
}

/// What goes in the (1,1) block of the augmented matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Metric {
    /// The mass matrix M: the dynamics, and the M-metric projections (PStab, S-both).
    Mass,
    /// The identity: the GGᵀ projections (Remark 3.4) and initialization.
    Identity,
}

/// Preallocated storage for the KKT solve at one point: M, Q, G, γ, residual scratch and the
/// LU factors of the augmented matrix. Create once per model with [`KktWorkspace::new`].
#[derive(Clone, Debug)]
pub struct KktWorkspace {
    pub(crate) dims: Dims,
    pub(crate) mass: DMatrix<f64>,
    pub(crate) force: Vec<f64>,
    pub(crate) jac: DMatrix<f64>,
    pub(crate) gamma: Vec<f64>,
    pub(crate) phi: Vec<f64>,
    pub(crate) vel_res: Vec<f64>,
    pub(crate) tmp: Vec<f64>,
    /// The factorization, chosen on the first [`KktWorkspace::factor`] (`None` before).
    pub(crate) factors: Option<Factors>,
    /// The policy of that choice.
    pub(crate) solver: KktSolver,
    /// The pivot spread of the last dynamics factorization ([`Conditioning`]).
    pub(crate) last_spread: f64,
    /// The spread of the factors the last [`KktWorkspace::factor`] left, when it took it
    /// (the row selection's test does, on over-constrained models): not taken twice.
    factored_spread: Option<f64>,
    pub(crate) rhs: Vec<f64>,
    /// The second right side of [`KktWorkspace::solve_projection_pair`].
    pub(crate) rhs_pair: Vec<f64>,
    /// The rows of G left out as redundant ([`crate::redundancy`]).
    pub(crate) rows: RowSelection,
    /// M and G as nonzeros, for a model with the sparse forms (set by `prepare`).
    pub(crate) sparse: Option<Box<SparseKkt>>,
    /// Whether `prepare` has chosen the storage.
    prepared: bool,
}

impl KktWorkspace {
    /// Storage for a model of dimensions `dims`, factorization chosen by [`KktSolver::Auto`].
    pub fn new(dims: Dims) -> Self {
        Self::with_solver(dims, KktSolver::Auto)
    }

    /// Storage for a model of dimensions `dims` with the factorization policy `solver`.
    pub fn with_solver(dims: Dims, solver: KktSolver) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        Self {
            dims,
            mass: DMatrix::zeros(n, n),
            force: vec![0.0; n],
            jac: DMatrix::zeros(r, n),
            gamma: vec![0.0; r],
            phi: vec![0.0; dims.m],
            vel_res: vec![0.0; r],
            tmp: vec![0.0; r],
            factors: None,
            solver,
            last_spread: 1.0,
            factored_spread: None,
            rhs: vec![0.0; n + r],
            rhs_pair: vec![0.0; n + r],
            rows: RowSelection::default(),
            sparse: None,
            prepared: false,
        }
    }

    /// Choose the storage of M and G for `sys` (once): nonzeros when it has the sparse forms.
    /// Every path that fills the workspace through [`KktWorkspace::eval_mass`],
    /// [`KktWorkspace::eval_jacobian`] or [`accelerations_into`] calls it first; a workspace
    /// filled by hand (`ws.mass`, `ws.jac`) is never prepared and stays dense.
    pub(crate) fn prepare<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S) {
        if !self.prepared {
            self.prepared = true;
            if sys.has_nonzero_forms() {
                self.sparse = Some(Box::new(SparseKkt::for_system(sys, self.dims)));
            }
        }
    }

    /// M at (t, q), checked, into the workspace's storage.
    pub(crate) fn eval_mass<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        self.prepare(sys);
        match &mut self.sparse {
            Some(sp) => sp.eval_mass(sys, t, q),
            None => kernels::mass(sys, t, q, &mut self.mass),
        }
    }

    /// G (Φ_q alone for a workspace with k = 0) at (t, q), checked, into the workspace's
    /// storage.
    pub(crate) fn eval_jacobian<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        self.prepare(sys);
        match &mut self.sparse {
            Some(sp) => sp.eval_jacobian(sys, t, q),
            None => kernels::jacobian(sys, t, q, &mut self.jac),
        }
    }

    /// The G at hand, for products.
    pub(crate) fn jacobian(&self) -> Jac<'_> {
        jac_of(&self.sparse, &self.jac)
    }

    /// The G at hand as a dense matrix (written from the nonzeros on the sparse path: for the
    /// cold paths only).
    pub(crate) fn dense_jacobian(&mut self) -> &DMatrix<f64> {
        if let Some(sp) = &self.sparse {
            sp.jac.write_dense(&mut self.jac);
        }
        &self.jac
    }

    /// The pivot spread of the last [`accelerations_into`] ([`Conditioning`]).
    pub fn last_pivot_spread(&self) -> f64 {
        self.last_spread
    }

    /// The rows of G left out as redundant, and every change of that set.
    pub fn row_selection(&self) -> &RowSelection {
        &self.rows
    }

    /// The layout in use (`None` before the first factorization).
    pub fn layout(&self) -> Option<KktLayout> {
        self.factors.as_ref().map(Factors::layout)
    }

    /// While rows are left out, the layout of the kept rows' system that is factored instead
    /// of the whole one (its own RCM ordering and band: that of the mechanism with the
    /// left-out rows deleted); `None` when no row is left out.
    pub fn compact_layout(&self) -> Option<KktLayout> {
        self.factors.as_ref().and_then(Factors::compact_layout)
    }

    /// Assemble [W Gᵀ; G 0] from `self.mass` (or the identity) and `self.jac`, leaving out the
    /// redundant rows ([`crate::redundancy`]), and factor it; the first call chooses the
    /// factorization from `sys`'s patterns. A singular matrix makes a new selection of the
    /// rows to leave out (at time `t`) and is factored again; with rows left out, those that
    /// regained independence are taken back. `t`, `h` label a [`SimError::SingularKkt`].
    pub(crate) fn factor<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        metric: Metric,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let dims = self.dims;
        let solver = self.solver;
        let sparse = self.sparse.as_deref();
        let factors = self
            .factors
            .get_or_insert_with(|| Factors::for_system(sys, dims, solver, sparse));
        self.factored_spread = None;
        // The sparse path assembles from the nonzeros, left-out rows included; the selection
        // itself (a cold path) works on dense copies.
        let mut regular = assemble(factors, metric, sparse, &self.rows, (&self.mass, &self.jac));
        if regular.is_ok() && !self.rows.is_empty() {
            let mass = &self.mass;
            // Taken only when the left-out rows are probed (`RowSelection::revise_by_rows`).
            let omega = || match (metric, sparse) {
                (Metric::Identity, _) => 1.0,
                (Metric::Mass, None) => (0..dims.n).fold(0.0_f64, |s, i| s.max(mass[(i, i)].abs())),
                (Metric::Mass, Some(sp)) => sp.mass.largest_diagonal(),
            };
            let spread = factors.pivot_spread();
            let solve = |x: &mut [f64]| factors.solve_in_place(x);
            let changed = match sparse {
                Some(sp) => {
                    let jac = &mut self.jac;
                    let dense = move || {
                        let jac = { jac }; // moved, not reborrowed: the closure is FnOnce
                        sp.jac.write_dense(jac);
                        &*jac
                    };
                    let shape = (dims.constraint_rows(), dims.n);
                    let row = |i: usize, out: &mut [f64]| sp.jac.write_row(i, out);
                    (self.rows).revise_by_rows(shape, row, dense, (omega, spread, t), solve)
                }
                None => self.rows.revise(&self.jac, omega(), spread, t, solve),
            };
            if changed {
                regular = assemble(factors, metric, sparse, &self.rows, (&self.mass, &self.jac));
            } else {
                self.factored_spread = Some(spread);
            }
        }
        if regular.is_err() {
            densify(&self.sparse, metric, &mut self.mass, &mut self.jac);
            if self.jac.iter().all(|x| x.is_finite()) && self.rows.reselect(&self.jac, t) {
                regular = assemble(factors, metric, sparse, &self.rows, (&self.mass, &self.jac));
            }
        }
        regular.map_err(|()| {
            let w = match metric {
                Metric::Mass => Some(&self.mass),
                Metric::Identity => None,
            };
            let (block, dependent) = diagnose_singular(&self.jac, w, sys.coordinate_names());
            SimError::SingularKkt {
                t,
                h,
                block,
                dependent_rows: ConstraintRow::named(&dependent, &sys.constraint_names()),
            }
        })
    }

    /// `Err(NonFiniteKernel)` naming the first non-finite entry of M, Q, G, γ at hand.
    fn check_kernels<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), SimError> {
        if let Some(sp) = &self.sparse {
            return sp.check_dynamics(sys, (t, q, v), &self.force, &self.gamma);
        }
        kernels::check_dynamics(
            sys,
            t,
            q,
            v,
            &mut self.mass,
            &mut self.force,
            &mut self.jac,
            &mut self.gamma,
        )
    }

    /// Solve in place with the current factors; the multipliers of left-out rows are 0.
    fn solve_rhs(&mut self) {
        self.factors
            .as_mut()
            .expect("KktWorkspace: solve before factor")
            .solve_in_place(&mut self.rhs);
        if !self.rows.is_empty() {
            self.rows.zero_multipliers(&mut self.rhs[self.dims.n..]);
        }
    }

    /// [`KktWorkspace::solve_projection`] for two right sides at once: the correction of
    /// `first` is left in `rhs[..n]`, that of `second` in `rhs_pair[..n]`, each bit for bit as
    /// one `solve_projection` would leave it.
    pub(crate) fn solve_projection_pair(&mut self, first: &[f64], second: &[f64]) {
        let n = self.dims.n;
        self.rhs[..n].fill(0.0);
        self.rhs[n..].copy_from_slice(first);
        self.rhs_pair[..n].fill(0.0);
        self.rhs_pair[n..].copy_from_slice(second);
        self.factors
            .as_mut()
            .expect("KktWorkspace: solve before factor")
            .solve_pair_in_place(&mut self.rhs, &mut self.rhs_pair);
        if !self.rows.is_empty() {
            self.rows.zero_multipliers(&mut self.rhs[n..]);
            self.rows.zero_multipliers(&mut self.rhs_pair[n..]);
        }
    }

    /// Solve with the current factors for `[0; rc]`, the right side of a projection, and leave
    /// the top block (the correction) in `rhs[..n]`.
    pub(crate) fn solve_projection(&mut self, rc: &[f64]) {
        let n = self.dims.n;
        self.rhs[..n].fill(0.0);
        self.rhs[n..].copy_from_slice(rc);
        self.solve_rhs();
    }
}

/// Accelerations v̇ (length n) and multipliers λ (length m + k) at (t, q, v) from
/// [M Gᵀ; G 0][v̇; λ] = [Q; γ̂], with γ̂ = γ unless `baumgarte` is given ([`Baumgarte`]).
///
/// `h` is only used to label a [`SimError::SingularKkt`] (pass `0.0` outside a step).
#[allow(clippy::too_many_arguments)] // the state, two outputs and the workspace are all needed
pub fn accelerations_into<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    baumgarte: Option<&Baumgarte>,
    ws: &mut KktWorkspace,
    h: f64,
    vdot: &mut [f64],
    lambda: &mut [f64],
) -> Result<(), SimError> {
    let d = ws.dims;
    assert_eq!(
        sys.dims(),
        d,
        "accelerations_into: workspace built for other dimensions"
    );
    assert!(
        q.len() == d.n && v.len() == d.n && vdot.len() == d.n,
        "accelerations_into: q, v, vdot need length n"
    );
    assert_eq!(
        lambda.len(),
        d.constraint_rows(),
        "accelerations_into: lambda needs length m + k"
    );
    ws.prepare(sys);
    match &mut ws.sparse {
        Some(sp) => sp.dynamics(sys, (t, q, v), &mut ws.force, &mut ws.gamma),
        None => kernels::dynamics(
            sys,
            t,
            q,
            v,
            &mut ws.mass,
            &mut ws.force,
            &mut ws.jac,
            &mut ws.gamma,
        ),
    }
    if let Some(b) = baumgarte {
        kernels::phi(sys, t, q, &mut ws.phi)?;
        let jac = jac_of(&ws.sparse, &ws.jac);
        kernels::velocity_residual(sys, t, q, v, jac, &mut ws.tmp, &mut ws.vel_res)?;
        b.modify_gamma(&ws.phi, &ws.vel_res, &mut ws.gamma);
    }
    if let Err(singular) = ws.factor(sys, Metric::Mass, t, h) {
        ws.check_kernels(sys, t, q, v)?;
        return Err(singular);
    }
    ws.last_spread = match ws.factored_spread {
        Some(spread) => spread,
        None => ws.factors.as_ref().map_or(1.0, Factors::pivot_spread),
    };
    ws.rhs[..d.n].copy_from_slice(&ws.force);
    ws.rhs[d.n..].copy_from_slice(&ws.gamma);
    ws.solve_rhs();
    if let Err(non_finite) =
        kernels::check(&ModelNames(sys), Kernel::KktSolution, &ws.rhs, (t, q, v))
    {
        ws.check_kernels(sys, t, q, v)?;
        return Err(non_finite);
    }
    vdot.copy_from_slice(&ws.rhs[..d.n]);
    lambda.copy_from_slice(&ws.rhs[d.n..]);
    Ok(())
}

/// The G of a workspace's storage.
fn jac_of<'a>(sparse: &'a Option<Box<SparseKkt>>, dense: &'a DMatrix<f64>) -> Jac<'a> {
    match sparse {
        Some(sp) => Jac::Sparse(&sp.jac),
        None => Jac::Dense(dense),
    }
}

/// Write the dense copies of M (for `metric` Mass) and G from the nonzeros, if any.
/// Assemble and factor [W Gᵀ; G 0] with `rows` left out: from the nonzeros on the sparse
/// path, else from the dense `mass` and `jac`.
fn assemble(
    factors: &mut Factors,
    metric: Metric,
    sparse: Option<&SparseKkt>,
    rows: &RowSelection,
    (mass, jac): (&DMatrix<f64>, &DMatrix<f64>),
) -> Result<(), ()> {
    match sparse {
        Some(sp) => factors.factor_sparse(metric, sp, rows),
        None => factors.factor(metric, mass, jac, rows),
    }
}

fn densify(
    sparse: &Option<Box<SparseKkt>>,
    metric: Metric,
    mass: &mut DMatrix<f64>,
    jac: &mut DMatrix<f64>,
) {
    if let Some(sp) = sparse {
        if metric == Metric::Mass {
            sp.mass.write_dense(mass);
        }
        sp.jac.write_dense(jac);
    }
}

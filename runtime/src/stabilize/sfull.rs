//! S-full post-stabilization (\[CHIN\] Algorithm 3.2): z ← z − Hᵀ(HHᵀ)⁻¹ h(z).
//!
//! With z = (q, v) and h = (Φ; Φ_q v + Φ_t), H = ∂h/∂z = [[Φ_q, 0], [L, Φ_q]] where
//! L = ∂(Φ_q v)/∂q comes from the `l_into` kernel. HF = I, so the drift is O(h^{2(p+1)}) after
//! a single application. Everything is evaluated at the unstabilized point.
//! A large model with the sparse forms solves the same system on the banded path instead
//! (`sfull_sparse.rs`) where that layout pays; the rest form and factor HHᵀ densely.
//!
//! Nonholonomic rows (a documented approximation): the kernel contract has no ∂(A v + b)/∂q,
//! so their rows of H are taken as [0, A]. For purely nonholonomic models this is exactly the
//! GGᵀ form of (3.75); for mixed models the nonholonomic part of HF differs from I by a term
//! of the size of the (small) position correction.

use nalgebra::DMatrix;

use super::sfull_sparse::SparseSFull;
use super::{Stabilization, Stabilizer};
use crate::error::{ConstraintRow, SimError};
use crate::kernels;
use crate::lu::{DenseLu, diagnose_singular};
use crate::system::{ConstrainedSystem, Dims};

/// S-full's workspace (empty for the other methods): the dense path's Hᵀ (2n × (2m + k)),
/// L (m × n), the factors of HHᵀ and ζ, and the sparse path's, chosen on the first call.
#[derive(Clone, Debug)]
pub(super) struct SFullWork {
    ht: DMatrix<f64>,
    l: DMatrix<f64>,
    hh: DenseLu,
    zeta: Vec<f64>,
    /// The sparse path (`sfull_sparse.rs`); `None` on the dense path.
    sparse: Option<Box<SparseSFull>>,
    /// Whether that choice was made.
    chosen: bool,
}

impl SFullWork {
    /// The workspace for `kind` on a model of dimensions `dims` (sized 0 unless S-full).
    pub(super) fn new(kind: Stabilization, dims: Dims) -> Self {
        let (n, m) = (dims.n, dims.m);
        let sfull = matches!(kind, Stabilization::SFull);
        let hr = if sfull { 2 * m + dims.k } else { 0 };
        Self {
            ht: DMatrix::zeros(if sfull { 2 * n } else { 0 }, hr),
            l: DMatrix::zeros(if sfull { m } else { 0 }, n),
            hh: DenseLu::new(hr),
            zeta: vec![0.0; hr],
            sparse: None,
            chosen: false,
        }
    }
}

impl Stabilizer {
    /// Apply Algorithm 3.2 to (q, v) at time t.
    pub(super) fn s_full<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<(), SimError> {
        let (n, m, k) = (self.dims.n, self.dims.m, self.dims.k);
        self.jac_r.prepare(sys);
        self.jac_r.eval(sys, t, q)?;
        kernels::l(sys, t, q, v, &mut self.sfull.l)?;
        if !self.sfull.chosen {
            self.sfull.chosen = true;
            self.sfull.sparse =
                SparseSFull::for_system(sys, self.dims, &self.sfull.l).map(Box::new);
        }
        self.residuals(sys, (t, q, v), false, true)?;
        self.sfull.zeta[..m].copy_from_slice(&self.pos_res[..m]);
        self.sfull.zeta[m..].copy_from_slice(&self.vel_res);
        if self.sfull.sparse.is_some() {
            return self.s_full_sparse(sys, t, h, q, v);
        }
        // The dense path (HHᵀ, L): G's nonzeros, if any, are written out once here.
        self.jac_r.dense();
        // Hᵀ, column by column (a column of Hᵀ is a row of H).
        self.sfull.ht.fill(0.0);
        for j in 0..n {
            for i in 0..m {
                self.sfull.ht[(j, i)] = self.jac_r.dense[(i, j)];
                self.sfull.ht[(j, m + i)] = self.sfull.l[(i, j)];
                self.sfull.ht[(n + j, m + i)] = self.jac_r.dense[(i, j)];
            }
            for i in 0..k {
                self.sfull.ht[(n + j, 2 * m + i)] = self.jac_r.dense[(m + i, j)];
            }
        }
        // HHᵀ = (Hᵀ)ᵀ Hᵀ, without a temporary. Redundant rows of G (rank loss) are left out
        // as in the projections ([`crate::redundancy`]), with the projections' selection.
        if !self.factor_hh(t) {
            return Err(self.singular_h(sys, t, h));
        }
        self.sfull.hh.solve_in_place(&mut self.sfull.zeta);
        self.kkt
            .rows
            .zero_mapped(&mut self.sfull.zeta, |i| h_rows(m, i));
        for j in 0..n {
            let (mut dq, mut dv) = (0.0, 0.0);
            for (c, z) in self.sfull.zeta.iter().enumerate() {
                dq += self.sfull.ht[(j, c)] * z;
                dv += self.sfull.ht[(n + j, c)] * z;
            }
            q[j] -= dq;
            v[j] -= dv;
        }
        Ok(())
    }

    /// The residuals at (t, q, v), shared with the projections: G v + [Φ_t; b] into `vel_res`
    /// with G the frozen one of the KKT workspace (`frozen`) or `jac_r`'s, and (`positions`)
    /// Φ into `pos_res[..m]`, zero on the nonholonomic rows.
    pub(super) fn residuals<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, q, v): (f64, &[f64], &[f64]),
        frozen: bool,
        positions: bool,
    ) -> Result<(), SimError> {
        let jac = if frozen {
            self.kkt.jacobian()
        } else {
            self.jac_r.get()
        };
        kernels::velocity_residual(sys, t, q, v, jac, &mut self.tmp, &mut self.vel_res)?;
        if positions {
            let m = self.dims.m;
            kernels::phi(sys, t, q, &mut self.pos_res[..m])?;
            self.pos_res[m..].fill(0.0);
        }
        Ok(())
    }

    /// The sparse path ([`SparseSFull`]) with ζ in `self.sfull.zeta`: factor the augmented system
    /// (on a singular matrix, select the rows to leave out afresh and try once more) and
    /// correct (q, v).
    fn s_full_sparse<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<(), SimError> {
        let sparse = self.sfull.sparse.as_mut().expect("S-full: the sparse path");
        for attempt in 0..2 {
            let g = self.jac_r.sparse.as_ref().expect("S-full: G as nonzeros");
            if sparse.factor(g, &self.sfull.l, &self.kkt.rows) {
                sparse.correct(&self.sfull.zeta, &self.kkt.rows, q, v);
                return Ok(());
            }
            if attempt == 1 || !self.kkt.rows.reselect(self.jac_r.dense(), t) {
                break;
            }
        }
        Err(self.singular_h(sys, t, h))
    }

    /// The error for a singular HHᵀ. It is singular exactly when G = [Φ_q; A] lacks full row
    /// rank (H is block triangular with G on the diagonal), so the identity-metric diagnosis
    /// names the rows.
    fn singular_h<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, t: f64, h: f64) -> SimError {
        let (block, dependent) =
            diagnose_singular(self.jac_r.dense(), None, sys.coordinate_names());
        SimError::SingularKkt {
            t,
            h,
            block,
            dependent_rows: ConstraintRow::named(&dependent, &sys.constraint_names()),
        }
    }

    /// Assemble and factor HHᵀ with the left-out rows' entries decoupled; on a singular
    /// matrix, select the rows to leave out afresh and try once more. Whether it factored.
    fn factor_hh(&mut self, t: f64) -> bool {
        let m = self.dims.m;
        for attempt in 0..2 {
            let hh = self.sfull.hh.matrix_mut();
            hh.gemm_tr(1.0, &self.sfull.ht, &self.sfull.ht, 0.0);
            if !self.kkt.rows.is_empty() {
                let d = hh
                    .diagonal()
                    .iter()
                    .fold(0.0_f64, |s, x| s.max(x.abs()))
                    .max(1.0);
                self.kkt.rows.mask_mapped(hh, d, |i| h_rows(m, i));
            }
            if self.sfull.hh.factor().is_ok() {
                return true;
            }
            if attempt == 1 || !self.kkt.rows.reselect(&self.jac_r.dense, t) {
                return false;
            }
        }
        false
    }
}

/// The rows of H (and of HHᵀ) that row `i` of G = [Φ_q; A] makes: Φ_i's position row (i < m)
/// and the velocity row m + i.
pub(super) fn h_rows(m: usize, i: usize) -> crate::redundancy::Indices {
    [(i < m).then_some(i), Some(m + i), None]
}

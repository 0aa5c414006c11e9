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

use super::Stabilizer;
use super::sfull_sparse::SparseSFull;
use crate::error::{ConstraintRow, SimError};
use crate::kernels;
use crate::lu::diagnose_singular;
use crate::system::ConstrainedSystem;

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
        kernels::l(sys, t, q, v, &mut self.l)?;
        if !self.sfull_chosen {
            self.sfull_chosen = true;
            self.sfull_sparse = SparseSFull::for_system(sys, self.dims, &self.l).map(Box::new);
        }
        kernels::phi(sys, t, q, &mut self.zeta[..m])?;
        let jac = self.jac_r.get();
        kernels::velocity_residual(sys, t, q, v, jac, &mut self.tmp, &mut self.vel_res)?;
        self.zeta[m..].copy_from_slice(&self.vel_res);
        if self.sfull_sparse.is_some() {
            return self.s_full_sparse(sys, t, h, q, v);
        }
        // The dense path (HHᵀ, L): G's nonzeros, if any, are written out once here.
        self.jac_r.dense();
        // Hᵀ, column by column (a column of Hᵀ is a row of H).
        self.ht.fill(0.0);
        for j in 0..n {
            for i in 0..m {
                self.ht[(j, i)] = self.jac_r.dense[(i, j)];
                self.ht[(j, m + i)] = self.l[(i, j)];
                self.ht[(n + j, m + i)] = self.jac_r.dense[(i, j)];
            }
            for i in 0..k {
                self.ht[(n + j, 2 * m + i)] = self.jac_r.dense[(m + i, j)];
            }
        }
        // HHᵀ = (Hᵀ)ᵀ Hᵀ, without a temporary. Redundant rows of G (rank loss) are left out
        // as in the projections ([`crate::redundancy`]), with the projections' selection.
        if !self.factor_hh(t) {
            return Err(self.singular_h(sys, t, h));
        }
        self.hh.solve_in_place(&mut self.zeta);
        self.kkt.rows.zero_mapped(&mut self.zeta, |i| h_rows(m, i));
        for j in 0..n {
            let (mut dq, mut dv) = (0.0, 0.0);
            for (c, z) in self.zeta.iter().enumerate() {
                dq += self.ht[(j, c)] * z;
                dv += self.ht[(n + j, c)] * z;
            }
            q[j] -= dq;
            v[j] -= dv;
        }
        Ok(())
    }

    /// The sparse path ([`SparseSFull`]) with ζ in `self.zeta`: factor the augmented system
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
        let sparse = self.sfull_sparse.as_mut().expect("S-full: the sparse path");
        for attempt in 0..2 {
            let g = self.jac_r.sparse.as_ref().expect("S-full: G as nonzeros");
            if sparse.factor(g, &self.l, &self.kkt.rows) {
                sparse.correct(&self.zeta, &self.kkt.rows, q, v);
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
            let hh = self.hh.matrix_mut();
            hh.gemm_tr(1.0, &self.ht, &self.ht, 0.0);
            if !self.kkt.rows.is_empty() {
                let d = hh
                    .diagonal()
                    .iter()
                    .fold(0.0_f64, |s, x| s.max(x.abs()))
                    .max(1.0);
                self.kkt.rows.mask_mapped(hh, d, |i| h_rows(m, i));
            }
            if self.hh.factor().is_ok() {
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

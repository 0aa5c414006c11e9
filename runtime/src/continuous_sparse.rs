//! The sparse path of Chin's continuous stabilizations ([`crate::continuous`]) for a large model
//! with the sparse kernel forms: G stays as its nonzeros, and no r × r Gram matrix is formed.
//!
//! - `GGt`: Gᵀ(GGᵀ)⁻¹ c is the top block x of [I Gᵀ; G 0][x; μ] = [0; c] (x = −Gᵀμ,
//!   G x = c), the GGᵀ projection's augmented system, factored on the KKT machinery's banded
//!   path (RCM ordering, banded LU) from G's nonzeros. The dense path formed GGᵀ entry by entry
//!   (O(r² n)) and factored it densely (O(r³)): 12 ms per right-hand side on the A02 chain in
//!   body coordinates.
//! - `Identity`: G_Φ G_Φᵀ Φ as two sparse products, G_Φ (G_Φᵀ Φ), instead of r² row products.
//!
//! The path is taken only where the KKT machinery chooses its banded layout for the
//! identity-metric augmented matrix ([`KktLayout::Banded`]), so every model that factored
//! densely before still does, bit for bit. On the sparse path the results agree with the
//! dense path's to round-off (a different factorization and summation order), not bit for bit.
//! Rows left out as redundant: the workspace keeps its own selection of G's rows (made from
//! the same G by the same rule, [`crate::redundancy`]); a left-out row's multiplier is 0, so it
//! contributes nothing, as its zeroed entry of c did on the dense path.

use crate::error::SimError;
use crate::kkt::{KktLayout, KktSolver, KktWorkspace, Metric};
use crate::kkt_layout::Factors;
use crate::redundancy::RowSelection;
use crate::sparse::{Jac, SparseMatrix};
use crate::system::{ConstrainedSystem, Dims};

/// The sparse path's workspace: the augmented [I Gᵀ; G 0] on the banded path, and G_Φᵀ Φ.
#[derive(Clone, Debug)]
pub(crate) struct SparseGram {
    gram: KktWorkspace,
    /// G_Φᵀ Φ (length n), the `Identity` choice's intermediate product.
    y: Vec<f64>,
}

impl SparseGram {
    /// The workspace for `sys`, if it has the sparse forms and the identity-metric augmented
    /// matrix takes the banded layout (else `None`: the dense path).
    pub(crate) fn for_system<S: ConstrainedSystem + ?Sized>(sys: &S, dims: Dims) -> Option<Self> {
        if !sys.has_nonzero_forms() || dims.constraint_rows() == 0 {
            return None;
        }
        let mut gram = KktWorkspace::new(dims);
        gram.prepare(sys);
        let factors = Factors::for_system(sys, dims, KktSolver::Auto, gram.sparse.as_deref());
        if !matches!(factors.layout(), KktLayout::Banded { .. }) {
            return None;
        }
        gram.factors = Some(factors);
        Some(Self {
            gram,
            y: vec![0.0; dims.n],
        })
    }

    /// c ← (GGᵀ)⁻¹ c and `fv −= Gᵀ (GGᵀ)⁻¹ c` in one: the correction of the `GGt` choice.
    /// `t`, `h` label a [`SimError::SingularKkt`] (G without full row rank, rows named).
    pub(crate) fn subtract_ggt_solve<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        g: &SparseMatrix,
        c: &[f64],
        (t, h): (f64, f64),
        fv: &mut [f64],
    ) -> Result<(), SimError> {
        let own = &mut self
            .gram
            .sparse
            .as_mut()
            .expect("SparseGram: prepared with the sparse forms")
            .jac;
        own.values.copy_from_slice(&g.values);
        self.gram.factor(sys, Metric::Identity, t, h)?;
        self.gram.solve_projection(c);
        for (f, x) in fv.iter_mut().zip(&self.gram.rhs) {
            *f -= x;
        }
        Ok(())
    }

    /// `out[i] = (G_Φ G_Φᵀ Φ)_i` over the kept holonomic rows (0 on left-out rows), for i < m.
    pub(crate) fn ggt_phi(
        &mut self,
        g: &SparseMatrix,
        phi: &[f64],
        rows: &RowSelection,
        out: &mut [f64],
    ) {
        let m = phi.len();
        self.y.fill(0.0);
        for (&(i, j), &a) in g.entries().iter().zip(&g.values) {
            if i < m && !rows.contains(i) {
                self.y[j] += a * phi[i];
            }
        }
        for (i, o) in out[..m].iter_mut().enumerate() {
            *o = if rows.contains(i) {
                0.0
            } else {
                g.row_dot(i, &self.y)
            };
        }
    }
}

/// `out −= scale Gᵀ c` (G dense or as nonzeros).
pub(crate) fn subtract_transpose(g: Jac<'_>, c: &[f64], scale: f64, out: &mut [f64]) {
    match g {
        Jac::Dense(g) => {
            for (j, o) in out.iter_mut().enumerate() {
                let dot: f64 = (0..g.nrows()).map(|i| g[(i, j)] * c[i]).sum();
                *o -= scale * dot;
            }
        }
        Jac::Sparse(g) => {
            for (&(i, j), &a) in g.entries().iter().zip(&g.values) {
                out[j] -= scale * (a * c[i]);
            }
        }
    }
}

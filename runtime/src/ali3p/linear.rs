//! ALI3-P's linear algebra: M and G at the iterate, the tangents K and C, the leading matrix
//! P = W + s GᵀG (W = M + (h/2) C + (h²/4) K, s = (h²/4) α) factored, and the products the
//! step needs (W x, M x, Gᵀ x, a row of G x).
//!
//! Dense path (every model without the sparse kernel forms, or whose system is small): P
//! formed and factored as an n × n LU, the arithmetic of the method as first written, bit for
//! bit. Sparse path (the implicit methods' rule, `implicit/iteration.rs`: sparse forms, no
//! nonholonomic rows, the banded layout chosen for the order n + r system): GᵀG is never
//! formed (its band is twice G's and it couples every pair of coordinates sharing a row);
//! instead [W Gᵀ; G −I/s] is factored banded under the RCM ordering of its pattern, and its
//! solve of [r; 0] returns x = P⁻¹ r in the first block (the second is y = s G x). The matrix
//! is quasi-definite (W positive definite on ker G, −I/s negative definite), so redundant rows
//! need no selection on this path either. M, G and the tangents are kept as their nonzeros
//! (K and C by compressed central differences on the tangent pattern, or the exact kernels
//! gathered onto it); both paths agree to the round-off of P's conditioning (test in
//! `models/tests/suite/sparse_path.rs`).

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::implicit::iteration::{BandedIteration, sparse_parts, sparse_plan};
use crate::implicit::matrices::PointMatrices;
use crate::implicit::tangents::{Point, TangentStore, Tangents};
use crate::kkt::KktSolver;
use crate::lu::DenseLu;
use crate::sparse::{Jac, SparseMatrix};
use crate::system::{ConstrainedSystem, Dims};

/// The factors of P (module docs).
enum Factors {
    /// P itself as an n × n LU, and W (kept for W x).
    Dense { w: DMatrix<f64>, lu: DenseLu },
    /// [W Gᵀ; G −I/s] banded, with a right side of length n + r.
    Banded {
        matrix: Box<BandedIteration>,
        rhs: Vec<f64>,
    },
}

/// M, G, K, C and P's factors at the current iterate.
pub(super) struct Linear {
    n: usize,
    point: PointMatrices,
    tangents: TangentStore,
    factors: Factors,
    /// (cq, cv) = (h²/4, h/2) of the last factorization (W of the sparse path's products).
    coefficients: (f64, f64),
    /// Gᵀ x's columns (the sparse path's scratch, length n).
    column: Vec<f64>,
}

impl Linear {
    /// Dense storage for `dims`.
    pub(super) fn new(dims: Dims) -> Self {
        let n = dims.n;
        Self {
            n,
            point: PointMatrices::dense(dims),
            tangents: TangentStore::dense(n),
            factors: Factors::Dense {
                w: DMatrix::zeros(n, n),
                lu: DenseLu::new(n),
            },
            coefficients: (0.0, 0.0),
            column: vec![0.0; n],
        }
    }

    /// Move to the sparse path when `sys` goes on it under `solver` (module docs).
    pub(super) fn prepare<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, solver: KktSolver) {
        let Some(tangents) = sparse_plan(sys, solver, 1) else {
            return;
        };
        let point = PointMatrices::sparse(sys);
        if let Some((mass, jac)) = point.nonzeros() {
            self.factors = Factors::Banded {
                matrix: Box::new(BandedIteration::new(mass, jac, &tangents)),
                rhs: vec![0.0; self.n + jac.rows()],
            };
            self.point = point;
            self.tangents = TangentStore::Sparse(Box::new(tangents));
        }
    }

    /// M and G at (t, q), checked.
    pub(super) fn eval<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        self.point.eval(sys, t, q)
    }

    /// K and C at `p` from `source`.
    pub(super) fn eval_tangents<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        source: &mut T,
        sys: &S,
        p: &Point<'_>,
    ) -> Result<(), SimError> {
        self.tangents.eval(source, sys, p)
    }

    /// max_i |M_ii| and max_i ‖g_i‖² (the penalty scale's ω and g², cold path; on the sparse
    /// path over G's nonzeros, no dense copy of G).
    pub(super) fn scales(&mut self) -> (f64, f64) {
        let omega = (0..self.n).fold(0.0, |s: f64, i| s.max(self.point.mass_entry(i, i).abs()));
        let g2 = match self.point.nonzeros() {
            Some((_, g)) => (0..g.rows())
                .map(|i| g.row_norm_squared(i))
                .fold(0.0, f64::max),
            None => (self.point.dense_jac().row_iter())
                .map(|row| row.norm_squared())
                .fold(0.0, f64::max),
        };
        (omega, g2)
    }

    /// The minimum-norm multipliers of the same force Gᵀλ (cold: ALI3-P's start): the dense
    /// SVD on the dense path, on G's nonzeros on the sparse one (no SVD of the model's order).
    pub(super) fn minimum_norm_multipliers(&mut self, lambda: &[f64]) -> Vec<f64> {
        match self.point.nonzeros() {
            Some((_, g)) => {
                let (entries, n) = (g.entries(), self.n);
                let values = &g.values[..entries.len()];
                crate::redundancy::minimum_norm_multipliers_sparse(
                    g.rows(),
                    n,
                    entries,
                    values,
                    lambda,
                )
            }
            None => crate::redundancy::minimum_norm_multipliers(self.dense_jac(), lambda),
        }
    }

    /// G as a dense matrix (cold paths).
    pub(super) fn dense_jac(&mut self) -> &DMatrix<f64> {
        self.point.dense_jac()
    }

    /// Σ_j G_ij x_j.
    pub(super) fn jac_row_dot(&self, i: usize, x: &[f64]) -> f64 {
        self.point.jac_row_dot(i, x)
    }

    /// `out = M x`.
    pub(super) fn mass_mul(&self, x: &[f64], out: &mut [f64]) {
        self.point.mass_mul(x, out);
    }

    /// Assemble P for step h and penalty α and factor it; `Err` when singular.
    pub(super) fn factor(&mut self, h: f64, alpha: f64) -> Result<(), ()> {
        let hh = 0.25 * h * h;
        self.coefficients = (hh, 0.5 * h);
        match &mut self.factors {
            Factors::Dense { w, lu } => {
                let (PointMatrices::Dense { mass, jac }, TangentStore::Dense { k, c }) =
                    (&self.point, &self.tangents)
                else {
                    unreachable!("dense factors go with dense M, G, K and C")
                };
                w.copy_from(mass);
                w.zip_zip_apply(c, k, |w, c, k| *w += 0.5 * h * c + hh * k);
                let a = lu.matrix_mut();
                a.copy_from(w);
                a.gemm_tr(hh * alpha, jac, jac, 1.0);
                lu.factor().map_err(|_| ())
            }
            Factors::Banded { matrix, .. } => {
                let Some((nonzeros, t)) = sparse_parts(&self.point, &self.tangents) else {
                    return Err(());
                };
                if !matrix.is_current(t) {
                    **matrix = BandedIteration::new(nonzeros.0, nonzeros.1, t);
                }
                matrix.factor_penalized(nonzeros, t, self.coefficients, hh * alpha)
            }
        }
    }

    /// P as a dense matrix for step h and penalty α (the diagnosis of a singular P; cold).
    pub(super) fn dense_p(&mut self, h: f64, alpha: f64) -> DMatrix<f64> {
        let hh = 0.25 * h * h;
        let (k, c) = self.tangents.dense_copies();
        let mut a = self.point.dense_mass();
        a.zip_zip_apply(&c, &k, |w, c, k| *w += 0.5 * h * c + hh * k);
        let g = self.point.dense_jac().clone();
        a.gemm_tr(hh * alpha, &g, &g, 1.0);
        a
    }

    /// The pivot spread of the current factors.
    pub(super) fn pivot_spread(&self) -> f64 {
        match &self.factors {
            Factors::Dense { lu, .. } => lu.pivot_spread(),
            Factors::Banded { matrix, .. } => matrix.pivot_spread(),
        }
    }

    /// x ← P⁻¹ x with the current factors.
    pub(super) fn solve_in_place(&mut self, x: &mut [f64]) {
        match &mut self.factors {
            Factors::Dense { lu, .. } => lu.solve_in_place(x),
            Factors::Banded { matrix, rhs } => {
                let (head, tail) = rhs.split_at_mut(self.n);
                head.copy_from_slice(x);
                tail.fill(0.0);
                matrix.solve_in_place(rhs);
                x.copy_from_slice(&rhs[..self.n]);
            }
        }
    }

    /// `out = W x` with W of the last factorization.
    pub(super) fn w_mul(&self, x: &[f64], out: &mut [f64]) {
        match &self.factors {
            Factors::Dense { w, .. } => {
                for (i, r) in out.iter_mut().enumerate() {
                    *r = (0..x.len()).map(|j| w[(i, j)] * x[j]).sum();
                }
            }
            Factors::Banded { .. } => {
                self.point.mass_mul(x, out);
                if let TangentStore::Sparse(t) = &self.tangents {
                    let (cq, cv) = self.coefficients;
                    let values = t.k.iter().zip(&t.c);
                    for (&(i, j), (k, c)) in t.pattern.entries().iter().zip(values) {
                        out[i] += (cq * k + cv * c) * x[j];
                    }
                }
            }
        }
    }

    /// `out += s Gᵀ x`.
    pub(super) fn add_gt(&mut self, s: f64, x: &[f64], out: &mut [f64]) {
        match self.point.jac() {
            Jac::Dense(jac) => {
                for (j, r) in out.iter_mut().enumerate() {
                    let col: f64 = x.iter().enumerate().map(|(i, xi)| jac[(i, j)] * xi).sum();
                    *r += s * col;
                }
            }
            Jac::Sparse(jac) => {
                transpose_mul(jac, x, &mut self.column);
                for (r, c) in out.iter_mut().zip(&self.column) {
                    *r += s * c;
                }
            }
        }
    }
}

/// `out = Gᵀ x` over G's nonzeros.
fn transpose_mul(jac: &SparseMatrix, x: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for (&(i, j), g) in jac.entries().iter().zip(&jac.values) {
        out[j] += g * x[i];
    }
}

//! M and G at one point as the implicit methods' residuals use them (Newmark's iterate,
//! Radau's stages, the difference quotients of the tangents): dense, or as the nonzeros of the
//! sparse kernel forms on the sparse path (`crate::sparse`).
//!
//! The dynamic rows M a + Gᵀλ − Q are summed in the same order on both paths (per row: −Q_i,
//! then M's row by ascending column, then G's column by ascending row), leaving out only
//! exact zeros, so both give the same numbers bit for bit.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::redundancy::RowSelection;
use crate::sparse::{Jac, SparseKkt, SparseMatrix};
use crate::system::{ConstrainedSystem, Dims};

/// M and G at one point.
#[derive(Clone, Debug)]
pub(crate) enum PointMatrices {
    /// Dense M (n × n) and G ((m + k) × n).
    Dense {
        mass: DMatrix<f64>,
        jac: DMatrix<f64>,
    },
    /// The nonzeros, with the dynamic rows' size scratch and a dense G for the cold paths.
    Sparse(Box<SparsePoint>),
}

/// The sparse path's storage of [`PointMatrices`].
#[derive(Clone, Debug)]
pub(crate) struct SparsePoint {
    pub(crate) kkt: SparseKkt,
    /// Σ|terms| of each dynamic row at the last [`PointMatrices::dynamic_rows`].
    size: Vec<f64>,
    /// G dense, written on demand (diagnoses, redundant rows).
    dense_jac: DMatrix<f64>,
}

impl PointMatrices {
    /// Dense storage for dimensions `dims`.
    pub(crate) fn dense(dims: Dims) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        PointMatrices::Dense {
            mass: DMatrix::zeros(n, n),
            jac: DMatrix::zeros(r, n),
        }
    }

    /// The nonzeros of `sys` (which has the sparse forms).
    pub(crate) fn sparse<S: ConstrainedSystem + ?Sized>(sys: &S) -> Self {
        let dims = sys.dims();
        PointMatrices::Sparse(Box::new(SparsePoint {
            kkt: SparseKkt::for_system(sys, dims),
            size: vec![0.0; dims.n],
            dense_jac: DMatrix::zeros(0, 0),
        }))
    }

    /// M and G at (t, q), checked.
    pub(crate) fn eval<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        match self {
            PointMatrices::Dense { mass, jac } => {
                kernels::mass(sys, t, q, mass)?;
                kernels::jacobian(sys, t, q, jac)
            }
            PointMatrices::Sparse(sp) => {
                sp.kkt.eval_mass(sys, t, q)?;
                sp.kkt.eval_jacobian(sys, t, q)
            }
        }
    }

    /// `out_i = Σ_j M_ij a_j + Σ_j G_ji λ_j − f_i` (module docs for the order); returns
    /// max_i |out_i| / (|f_i| + Σ_j |M_ij a_j| + Σ_j |G_ji λ_j|), the rows' residual relative
    /// to the round-off of their terms (0 for a row whose terms all vanish).
    pub(crate) fn dynamic_rows(
        &mut self,
        force: &[f64],
        acc: &[f64],
        lambda: &[f64],
        out: &mut [f64],
    ) -> f64 {
        match self {
            PointMatrices::Dense { mass, jac } => {
                let mut relative = 0.0_f64;
                for (i, r) in out.iter_mut().enumerate() {
                    let (mut sum, mut size) = (-force[i], force[i].abs());
                    for (j, a) in acc.iter().enumerate() {
                        let x = mass[(i, j)] * a;
                        (sum, size) = (sum + x, size + x.abs());
                    }
                    for (j, l) in lambda.iter().enumerate() {
                        let x = jac[(j, i)] * l;
                        (sum, size) = (sum + x, size + x.abs());
                    }
                    *r = sum;
                    relative = relative.max(if size > 0.0 { sum.abs() / size } else { 0.0 });
                }
                relative
            }
            PointMatrices::Sparse(sp) => sp.dynamic_rows(force, acc, lambda, out),
        }
    }

    /// G for products.
    pub(crate) fn jac(&self) -> Jac<'_> {
        match self {
            PointMatrices::Dense { jac, .. } => Jac::Dense(jac),
            PointMatrices::Sparse(sp) => Jac::Sparse(&sp.kkt.jac),
        }
    }

    /// Σ_j G_ij x_j of row i (the nonholonomic rows' A v).
    pub(crate) fn jac_row_dot(&self, i: usize, x: &[f64]) -> f64 {
        match self {
            PointMatrices::Dense { jac, .. } => (0..x.len()).map(|j| jac[(i, j)] * x[j]).sum(),
            PointMatrices::Sparse(sp) => sp.kkt.jac.row_dot(i, x),
        }
    }

    /// M_ij.
    pub(crate) fn mass_entry(&self, i: usize, j: usize) -> f64 {
        match self {
            PointMatrices::Dense { mass, .. } => mass[(i, j)],
            PointMatrices::Sparse(sp) => sp.kkt.mass.get(i, j),
        }
    }

    /// `out = M x`.
    pub(crate) fn mass_mul(&self, x: &[f64], out: &mut [f64]) {
        match self {
            PointMatrices::Dense { mass, .. } => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = (0..x.len()).map(|j| mass[(i, j)] * x[j]).sum();
                }
            }
            PointMatrices::Sparse(sp) => {
                out.fill(0.0);
                sp.kkt.mass.mul_add(x, out);
            }
        }
    }

    /// G as a dense matrix (written from the nonzeros on the sparse path: cold paths only).
    pub(crate) fn dense_jac(&mut self) -> &DMatrix<f64> {
        match self {
            PointMatrices::Dense { jac, .. } => jac,
            PointMatrices::Sparse(sp) => write_dense(&sp.kkt.jac, sp.size.len(), &mut sp.dense_jac),
        }
    }

    /// [`RowSelection::revise`] after a factorization with G at hand (`scales` = (ω, pivot
    /// spread, t), `solve` with the factors): on the sparse path through
    /// [`RowSelection::revise_by_rows`], G's rows read from the nonzeros and a dense G written
    /// only for a re-selection of degraded kept rows (a cold path), not at every factorization.
    /// The same arithmetic in the same order on both paths, so the same rows come back.
    pub(crate) fn revise_selection(
        &mut self,
        rows: &mut RowSelection,
        (omega, spread, t): (f64, f64, f64),
        solve: impl FnMut(&mut [f64]),
    ) -> bool {
        match self {
            PointMatrices::Dense { jac, .. } => rows.revise(jac, omega, spread, t, solve),
            PointMatrices::Sparse(sp) => {
                let (g, n, dense_jac) = (&sp.kkt.jac, sp.size.len(), &mut sp.dense_jac);
                let dense = move || {
                    let dense_jac = { dense_jac }; // moved, not reborrowed: the closure is FnOnce
                    write_dense(g, n, dense_jac)
                };
                let row = |i: usize, out: &mut [f64]| g.write_row(i, out);
                rows.revise_by_rows((g.rows(), n), row, dense, (|| omega, spread, t), solve)
            }
        }
    }

    /// M as a dense matrix (a copy; cold paths only).
    pub(crate) fn dense_mass(&self) -> DMatrix<f64> {
        match self {
            PointMatrices::Dense { mass, .. } => mass.clone(),
            PointMatrices::Sparse(sp) => {
                let n = sp.size.len();
                let mut m = DMatrix::zeros(n, n);
                sp.kkt.mass.write_dense(&mut m);
                m
            }
        }
    }

    /// The sparse path's M and G (`None` on the dense path).
    pub(crate) fn nonzeros(&self) -> Option<(&SparseMatrix, &SparseMatrix)> {
        match self {
            PointMatrices::Dense { .. } => None,
            PointMatrices::Sparse(sp) => Some((&sp.kkt.mass, &sp.kkt.jac)),
        }
    }
}

/// The nonzeros `g` (n columns) into `dense` (sized on first use) and a view of it.
fn write_dense<'d>(g: &SparseMatrix, n: usize, dense: &'d mut DMatrix<f64>) -> &'d DMatrix<f64> {
    if dense.nrows() != g.rows() {
        *dense = DMatrix::zeros(g.rows(), n);
    }
    g.write_dense(dense);
    dense
}

impl SparsePoint {
    /// [`PointMatrices::dynamic_rows`] over the nonzeros: M row-major (each row by ascending
    /// column), then G row-major, which adds to each column by ascending row.
    fn dynamic_rows(&mut self, force: &[f64], acc: &[f64], lambda: &[f64], out: &mut [f64]) -> f64 {
        for ((o, s), f) in out.iter_mut().zip(&mut self.size).zip(force) {
            (*o, *s) = (-f, f.abs());
        }
        let (mass, jac) = (&self.kkt.mass, &self.kkt.jac);
        for (&(i, j), m) in mass.entries().iter().zip(&mass.values) {
            let x = m * acc[j];
            out[i] += x;
            self.size[i] += x.abs();
        }
        for (&(r, c), g) in jac.entries().iter().zip(&jac.values) {
            let x = g * lambda[r];
            out[c] += x;
            self.size[c] += x.abs();
        }
        out.iter().zip(&self.size).fold(0.0_f64, |worst, (r, &s)| {
            worst.max(if s > 0.0 { r.abs() / s } else { 0.0 })
        })
    }
}

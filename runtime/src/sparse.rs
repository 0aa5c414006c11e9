//! M and G = [Φ_q; A] kept as their structural nonzeros, for models with the sparse kernel
//! forms ([`ConstrainedSystem::has_nonzero_forms`]).
//!
//! A large model in absolute (body) coordinates has a few nonzeros per row of M and G; its
//! dense kernels zero-fill n² + (m + k)·n entries per call, more memory traffic than the
//! banded KKT factorization itself. Here the kernels write the nonzeros into a value array in
//! the order of the model's patterns, the KKT assembly scatters them into the band storage
//! (`kkt_layout.rs`), and the products the integrators need (G v of the velocity residual)
//! run over the nonzeros. Products sum each row in ascending column order, as the dense
//! column-by-column loop does, and only leave out exact zeros, so every result is the dense
//! path's bit for bit (up to the sign of a zero). A dense copy is written only on cold paths
//! (the diagnosis of a singular matrix, the selection of redundant rows).

use nalgebra::DMatrix;

use crate::error::{Kernel, SimError};
use crate::kernels;
use crate::naming::{EntryNames, ModelNames};
use crate::system::{ConstrainedSystem, Dims, DynamicsNonzeros, Sparsity};

/// A matrix with a fixed row-major pattern and its values in that order.
#[derive(Clone, Debug)]
pub(crate) struct SparseMatrix {
    rows: usize,
    /// (row, column) of each value, sorted by row then column.
    entries: Vec<(usize, usize)>,
    /// Row r's values are `values[row_start[r]..row_start[r + 1]]`.
    row_start: Vec<usize>,
    /// The values; a kernel may write more (a longer pattern whose prefix this matrix is, as
    /// Φ_q is of G's), the products read the first `entries.len()`.
    pub(crate) values: Vec<f64>,
}

impl SparseMatrix {
    /// The matrix of pattern `entries` (row-major sorted) with room for `len ≥ entries.len()`
    /// values.
    pub(crate) fn new(rows: usize, cols: usize, entries: Vec<(usize, usize)>, len: usize) -> Self {
        assert!(
            entries.windows(2).all(|w| w[0] < w[1]) && len >= entries.len(),
            "SparseMatrix: pattern not sorted row-major"
        );
        assert!(
            entries.iter().all(|&(i, j)| i < rows && j < cols),
            "SparseMatrix: entry outside the matrix"
        );
        let mut row_start = vec![0; rows + 1];
        for &(i, _) in &entries {
            row_start[i + 1] += 1;
        }
        for i in 0..rows {
            row_start[i + 1] += row_start[i];
        }
        Self {
            rows,
            entries,
            row_start,
            values: vec![0.0; len],
        }
    }

    /// Number of rows.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The pattern.
    pub(crate) fn entries(&self) -> &[(usize, usize)] {
        &self.entries
    }

    /// `out[i] += Σ_j a_ij x_j`, each row summed in ascending column order.
    pub(crate) fn mul_add(&self, x: &[f64], out: &mut [f64]) {
        for (i, o) in out[..self.rows].iter_mut().enumerate() {
            let range = self.row_start[i]..self.row_start[i + 1];
            let mut sum = *o;
            for (&(_, j), a) in self.entries[range.clone()].iter().zip(&self.values[range]) {
                sum += a * x[j];
            }
            *o = sum;
        }
    }

    /// Row `i` into `out` (length = columns; zero outside the pattern).
    pub(crate) fn write_row(&self, i: usize, out: &mut [f64]) {
        out.fill(0.0);
        let range = self.row_start[i]..self.row_start[i + 1];
        for (&(_, j), &a) in self.entries[range.clone()].iter().zip(&self.values[range]) {
            out[j] = a;
        }
    }

    /// max_j |a_ij| of row `i`, 1 where it is 0 or not finite: the diagonal that stands in for
    /// a left-out row, [`crate::redundancy`]'s `row_scale` of the dense matrix.
    pub(crate) fn row_scale(&self, i: usize) -> f64 {
        let range = self.row_start[i]..self.row_start[i + 1];
        crate::redundancy::stand_in(self.values[range].iter())
    }

    /// max_i |a_ii| over the pattern's diagonal (0 without one): the dense diagonal's fold.
    pub(crate) fn largest_diagonal(&self) -> f64 {
        (self.entries.iter().zip(&self.values))
            .filter(|((i, j), _)| i == j)
            .fold(0.0_f64, |s, (_, a)| s.max(a.abs()))
    }

    /// Σ_j a_ij x_j over row i's nonzeros, by ascending column.
    pub(crate) fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let range = self.row_start[i]..self.row_start[i + 1];
        let row = self.entries[range.clone()].iter().zip(&self.values[range]);
        row.map(|(&(_, j), a)| a * x[j]).sum()
    }

    /// Σ_j a_ij² over row i's nonzeros, by ascending column: the dense row's `norm_squared`
    /// bit for bit (the left-out zeros add +0).
    pub(crate) fn row_norm_squared(&self, i: usize) -> f64 {
        let range = self.row_start[i]..self.row_start[i + 1];
        self.values[range].iter().fold(0.0, |s, a| s + a * a)
    }

    /// Entry (i, j) (0 outside the pattern).
    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        let range = self.row_start[i]..self.row_start[i + 1];
        let start = range.start;
        match self.entries[range].binary_search_by_key(&j, |e| e.1) {
            Ok(k) => self.values[start + k],
            Err(_) => 0.0,
        }
    }

    /// Write the matrix into `dense` (zero elsewhere): the cold paths' dense copy.
    pub(crate) fn write_dense(&self, dense: &mut DMatrix<f64>) {
        dense.fill(0.0);
        for (&(i, j), &a) in self.entries.iter().zip(&self.values) {
            dense[(i, j)] = a;
        }
    }

    /// The column-major flat index of value `p` in the dense matrix, minus the first `rows_before`
    /// rows' worth (how [`SimError::NonFiniteKernel`] numbers the entries of a block).
    fn dense_index(&self, p: usize, first_row: usize, block_rows: usize) -> usize {
        let (i, j) = self.entries[p];
        j * block_rows + (i - first_row)
    }

    fn first_non_finite(&self) -> Option<usize> {
        let used = &self.values[..self.entries.len()];
        used.iter().position(|x| !x.is_finite())
    }
}

/// A constraint Jacobian G (or Φ_q alone) as the integrators use it: dense, or as nonzeros.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Jac<'a> {
    Dense(&'a DMatrix<f64>),
    Sparse(&'a SparseMatrix),
}

impl<'a> From<&'a DMatrix<f64>> for Jac<'a> {
    fn from(g: &'a DMatrix<f64>) -> Self {
        Jac::Dense(g)
    }
}

impl Jac<'_> {
    /// `out[i] += (G x)_i`, each row summed in ascending column order.
    pub(crate) fn mul_add(self, x: &[f64], out: &mut [f64]) {
        match self {
            Jac::Dense(g) => {
                // Column by column (G is column-major); every out[i] still sums Σ_j G_ij x_j in
                // the order j = 0, 1, …, so the result is bit for bit the row-wise loop's.
                let rows = g.nrows();
                for (j, &xj) in x.iter().enumerate().take(g.ncols()) {
                    for (o, a) in out[..rows].iter_mut().zip(g.column(j).iter()) {
                        *o += a * xj;
                    }
                }
            }
            Jac::Sparse(g) => g.mul_add(x, out),
        }
    }
}

/// A Jacobian store: G = [Φ_q; A] (or Φ_q alone, `rows = m`) at one point, as nonzeros when the
/// model has the sparse forms, else dense.
#[derive(Clone, Debug)]
pub(crate) struct JacobianStore {
    /// The dense G: the store itself, or on the sparse path the cold paths' copy.
    pub(crate) dense: DMatrix<f64>,
    pub(crate) sparse: Option<SparseMatrix>,
}

impl JacobianStore {
    /// A dense store of `rows × n` (the mode is chosen by [`JacobianStore::prepare`]).
    pub(crate) fn new(rows: usize, n: usize) -> Self {
        Self {
            dense: DMatrix::zeros(rows, n),
            sparse: None,
        }
    }

    /// Switch to the nonzeros if `sys` has the sparse forms (once; cheap afterwards).
    pub(crate) fn prepare<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S) {
        if self.sparse.is_none() && sys.has_nonzero_forms() {
            let d = sys.dims();
            let rows = self.dense.nrows();
            let full = jacobian_pattern(sys, d);
            let len = full.len();
            let entries = full.into_iter().filter(|&(i, _)| i < rows).collect();
            self.sparse = Some(SparseMatrix::new(rows, d.n, entries, len));
        }
    }

    /// G at (t, q), checked.
    pub(crate) fn eval<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        match &mut self.sparse {
            None => kernels::jacobian(sys, t, q, &mut self.dense),
            Some(g) => {
                sys.jacobian_nonzeros_into(t, q, &mut g.values);
                check_jacobian(sys, g, (t, q, &[]))
            }
        }
    }

    /// Take the values of `g` (the same layout, or a dense G into the dense copy).
    pub(crate) fn copy_from(&mut self, g: Jac<'_>) {
        match (g, &mut self.sparse) {
            (Jac::Sparse(from), Some(own)) => own.values.copy_from_slice(&from.values),
            (Jac::Sparse(from), None) => from.write_dense(&mut self.dense),
            (Jac::Dense(from), _) => self.dense.copy_from(from),
        }
    }

    /// The current G for products.
    pub(crate) fn get(&self) -> Jac<'_> {
        match &self.sparse {
            None => Jac::Dense(&self.dense),
            Some(g) => Jac::Sparse(g),
        }
    }

    /// The current G as a dense matrix (written from the nonzeros on the sparse path: a cold
    /// path's copy, O(rows·n)).
    pub(crate) fn dense(&mut self) -> &DMatrix<f64> {
        if let Some(g) = &self.sparse {
            g.write_dense(&mut self.dense);
        }
        &self.dense
    }
}

/// M's stated pattern (all n² entries when the model states none), in the kernels' order.
pub(crate) fn mass_entries<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    n: usize,
) -> Vec<(usize, usize)> {
    match sys.mass_sparsity() {
        Some(s) => s.nonzeros.to_vec(),
        None => all_entries(n, n),
    }
}

/// G = [Φ_q; A]'s pattern: Φ_q's rows, then A's (all of A when the model does not state it).
pub(crate) fn jacobian_pattern<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    dims: Dims,
) -> Vec<(usize, usize)> {
    let mut entries = sys.phi_q_sparsity().nonzeros.to_vec();
    let a_rows: Vec<(usize, usize)> = match sys.a_sparsity() {
        Some(Sparsity { nonzeros, .. }) => nonzeros.to_vec(),
        None => all_entries(dims.k, dims.n),
    };
    entries.extend(a_rows.into_iter().map(|(r, c)| (dims.m + r, c)));
    entries
}

pub(crate) fn all_entries(rows: usize, cols: usize) -> Vec<(usize, usize)> {
    (0..rows)
        .flat_map(|i| (0..cols).map(move |j| (i, j)))
        .collect()
}

/// M and G as nonzeros: the KKT workspace's storage on the sparse path.
#[derive(Clone, Debug)]
pub(crate) struct SparseKkt {
    pub(crate) mass: SparseMatrix,
    pub(crate) jac: SparseMatrix,
}

impl SparseKkt {
    /// The storage for `sys` in a workspace of dimensions `dims` (`dims.k` may be 0 for a
    /// workspace of Φ_q alone, as `initialize`'s position stage uses).
    pub(crate) fn for_system<S: ConstrainedSystem + ?Sized>(sys: &S, dims: Dims) -> Self {
        let n = dims.n;
        let mass_nonzeros = mass_entries(sys, n);
        let len = mass_nonzeros.len();
        let mass = SparseMatrix::new(n, n, mass_nonzeros, len);
        let full = jacobian_pattern(sys, sys.dims());
        let len = full.len();
        let rows = dims.constraint_rows();
        let entries = full.into_iter().filter(|&(i, _)| i < rows).collect();
        Self {
            mass,
            jac: SparseMatrix::new(rows, n, entries, len),
        }
    }

    /// M, Q, G, γ at (t, q, v) from the sparse fused kernel (unchecked, like the dense one:
    /// the KKT solve checks its solution).
    pub(crate) fn dynamics<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, q, v): (f64, &[f64], &[f64]),
        force: &mut [f64],
        gamma: &mut [f64],
    ) {
        let out = DynamicsNonzeros {
            mass: &mut self.mass.values,
            force,
            jacobian: &mut self.jac.values,
            gamma,
        };
        sys.dynamics_nonzeros_into(t, q, v, out);
    }

    /// M at (t, q), checked.
    pub(crate) fn eval_mass<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        sys.mass_nonzeros_into(t, q, &mut self.mass.values);
        match self.mass.first_non_finite() {
            None => Ok(()),
            Some(p) => Err(non_finite(
                &ModelNames(sys),
                Kernel::Mass,
                self.mass.dense_index(p, 0, self.mass.rows),
                (t, q, &[]),
            )),
        }
    }

    /// G at (t, q), checked.
    pub(crate) fn eval_jacobian<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        sys.jacobian_nonzeros_into(t, q, &mut self.jac.values);
        check_jacobian(sys, &self.jac, (t, q, &[]))
    }

    /// `Err(NonFiniteKernel)` naming the first non-finite entry of M, Q, G, γ at hand.
    pub(crate) fn check_dynamics<S: ConstrainedSystem + ?Sized>(
        &self,
        sys: &S,
        state: (f64, &[f64], &[f64]),
        force: &[f64],
        gamma: &[f64],
    ) -> Result<(), SimError> {
        let names = ModelNames(sys);
        if let Some(p) = self.mass.first_non_finite() {
            let entry = self.mass.dense_index(p, 0, sys.dims().n);
            return Err(non_finite(&names, Kernel::Mass, entry, state));
        }
        kernels::check(&names, Kernel::Force, force, state)?;
        check_jacobian(sys, &self.jac, state)?;
        kernels::check(&names, Kernel::Gamma, gamma, state)
    }
}

/// `Err(NonFiniteKernel)` for the first non-finite nonzero of G, named as an entry of Φ_q or A.
fn check_jacobian<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    g: &SparseMatrix,
    state: (f64, &[f64], &[f64]),
) -> Result<(), SimError> {
    let Some(p) = g.first_non_finite() else {
        return Ok(());
    };
    let d = sys.dims();
    let (kernel, entry) = match g.entries[p].0 < d.m {
        true => (Kernel::PhiQ, g.dense_index(p, 0, d.m)),
        false => (Kernel::NhMatrix, g.dense_index(p, d.m, d.k)),
    };
    Err(non_finite(&ModelNames(sys), kernel, entry, state))
}

fn non_finite(
    names: &dyn EntryNames,
    kernel: Kernel,
    entry: usize,
    (t, q, v): (f64, &[f64], &[f64]),
) -> SimError {
    SimError::NonFiniteKernel {
        kernel,
        entry,
        at: names.describe(kernel, entry),
        t,
        q: q.to_vec(),
        v: v.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row norms over the nonzeros are the dense rows' `norm_squared` bit for bit (ALI3-P's
    /// penalty scale reads them instead of a dense copy of G).
    #[test]
    fn row_norms_over_the_nonzeros_are_the_dense_rows() {
        let entries = vec![(0, 0), (0, 3), (0, 4), (1, 1), (2, 2), (2, 4)];
        let mut g = SparseMatrix::new(3, 5, entries, 6);
        g.values = vec![0.1, -2.3, 1.0 / 3.0, 7.0e-9, 0.0, 1.0e5 / 7.0];
        let mut dense = DMatrix::zeros(3, 5);
        g.write_dense(&mut dense);
        for i in 0..3 {
            assert_eq!(
                g.row_norm_squared(i),
                dense.row(i).norm_squared(),
                "row {i}"
            );
        }
    }
}

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

use nalgebra::DMatrix;

use crate::augmented_band::{AugmentedBand, l_covered};
use crate::error::SimError;
use crate::kernels;
use crate::kkt::{KktLayout, KktSolver, KktWorkspace, Metric};
use crate::kkt_layout::Factors;
use crate::redundancy::RowSelection;
use crate::sparse::{Jac, JacobianStore, SparseMatrix, jacobian_pattern};
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

/// The two-step route's sparse path (module docs): J₂ = ∂r/∂q + γ Φ_q on its pattern by
/// grouped central differences, and H₂ᵀ(H₂H₂ᵀ)⁻¹ s on the banded augmented system.
#[derive(Clone, Debug)]
pub(crate) struct SparseTwoStep {
    /// J₂'s pattern (holonomic rows; row-major): L's and Φ_q's stated nonzeros.
    j2_entries: Vec<(usize, usize)>,
    /// J₂'s values on that pattern.
    j2: Vec<f64>,
    /// For each J₂ entry, the index of the same (i, j) among G's nonzeros, if Φ_q has it.
    phi_q_at: Vec<Option<usize>>,
    /// The column groups of the differences: no two columns of a group share a row of J₂.
    groups: Vec<Vec<usize>>,
    /// The J₂ entries of each column.
    by_column: Vec<Vec<usize>>,
    /// [I H₂ᵀ; H₂ 0] with H₂ = [J₂, G]: J₂'s entries first, then G's (columns n + j).
    band: AugmentedBand,
    /// G at a shifted q, and the shifted q, residuals and scratch of the differences.
    shifted: JacobianStore,
    q_shift: Vec<f64>,
    plus: Vec<f64>,
    minus: Vec<f64>,
    tmp: Vec<f64>,
}

impl SparseTwoStep {
    /// The workspace for `sys` at (t, q), if it has the sparse forms, no nonholonomic rows
    /// (their ∂(A v + b)/∂q has no stated pattern), a stated L pattern that covers L(t, q, 1)
    /// (L is linear in v: all ones shows every q-dependence of G that a zero velocity would
    /// hide) and an augmented matrix with the banded layout; else `None` (the dense path).
    pub(crate) fn for_system<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        dims: Dims,
        (t, q): (f64, &[f64]),
    ) -> Option<Self> {
        let (n, m) = (dims.n, dims.m);
        if !sys.has_nonzero_forms() || dims.k != 0 || m == 0 {
            return None;
        }
        let mut l = DMatrix::zeros(m, n);
        kernels::l(sys, t, q, &vec![1.0; n], &mut l).ok()?;
        if !l_covered(sys, &l) {
            return None;
        }
        let g_pattern = jacobian_pattern(sys, dims);
        let mut j2_entries: Vec<(usize, usize)> = sys.l_sparsity().nonzeros.to_vec();
        j2_entries.extend_from_slice(&g_pattern);
        j2_entries.sort_unstable();
        j2_entries.dedup();
        let mut h2 = j2_entries.clone();
        h2.extend(g_pattern.iter().map(|&(i, j)| (i, n + j)));
        let band = AugmentedBand::banded(m, 2 * n, h2)?;
        let phi_q_at = (j2_entries.iter())
            .map(|e| g_pattern.binary_search(e).ok())
            .collect();
        let mut by_column = vec![Vec::new(); n];
        for (e, &(_, j)) in j2_entries.iter().enumerate() {
            by_column[j].push(e);
        }
        let mut shifted = JacobianStore::new(m, n);
        shifted.prepare(sys);
        Some(Self {
            j2: vec![0.0; j2_entries.len()],
            groups: column_groups(&j2_entries, m, n),
            j2_entries,
            phi_q_at,
            by_column,
            band,
            shifted,
            q_shift: q.to_vec(),
            plus: vec![0.0; m],
            minus: vec![0.0; m],
            tmp: vec![0.0; m],
        })
    }

    /// Correct the field by the second step: (fq, fv) −= γ H₂ᵀ(H₂H₂ᵀ)⁻¹ s with s = r + γΦ
    /// (`s` on entry, left-out rows ignored), G = `g` at (t, q). `h` labels errors.
    #[allow(clippy::too_many_arguments)] // state, G, its row selection, s and the field
    pub(crate) fn subtract_correction<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, h, gamma): (f64, f64, f64),
        (q, v): (&[f64], &[f64]),
        g: &SparseMatrix,
        rows: &RowSelection,
        s: &[f64],
        (fq, fv): (&mut [f64], &mut [f64]),
    ) -> Result<(), SimError> {
        self.differences(sys, t, q, v)?;
        for (x, at) in self.j2.iter_mut().zip(&self.phi_q_at) {
            if let Some(p) = at {
                *x += gamma * g.values[*p];
            }
        }
        let (j2, n) = (&self.j2, q.len());
        let value = |k: usize, i: usize| {
            (!rows.contains(i)).then(|| match k < j2.len() {
                true => j2[k],
                false => g.values[k - j2.len()],
            })
        };
        if !self.band.factor(value, rows.left_out().iter().copied()) {
            return Err(singular_two_step(sys, g, n, (t, h)));
        }
        let x = self.band.solve(|w| {
            w.copy_from_slice(s);
            for &i in rows.left_out() {
                w[i] = 0.0;
            }
        });
        let (xq, xv) = x.split_at(n);
        for (f, d) in fq.iter_mut().zip(xq) {
            *f -= gamma * d;
        }
        for (f, d) in fv.iter_mut().zip(xv) {
            *f -= gamma * d;
        }
        Ok(())
    }

    /// J₂ ← ∂r/∂q on its pattern by central differences, one pair of residuals per column
    /// group: each column j of a group shifted by its own step ε^⅓ max(1, |q_j|) (the dense
    /// path's), and since no row of J₂ sees two columns of a group, each entry is the dense
    /// path's difference quotient.
    fn differences<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), SimError> {
        let step = crate::continuous::difference_step;
        self.q_shift.copy_from_slice(q);
        for group in &self.groups {
            for sign in [1.0, -1.0] {
                for &j in group {
                    self.q_shift[j] = q[j] + sign * step(q[j]);
                }
                self.shifted.eval(sys, t, &self.q_shift)?;
                let target = if sign > 0.0 {
                    &mut self.plus
                } else {
                    &mut self.minus
                };
                let g = self.shifted.get();
                kernels::velocity_residual(sys, t, &self.q_shift, v, g, &mut self.tmp, target)?;
            }
            for &j in group {
                self.q_shift[j] = q[j];
                for &e in &self.by_column[j] {
                    let i = self.j2_entries[e].0;
                    self.j2[e] = (self.plus[i] - self.minus[i]) / (2.0 * step(q[j]));
                }
            }
        }
        Ok(())
    }
}

/// A greedy colouring of the columns of a pattern (`rows × n`): columns that share a row get
/// different groups, so one shifted evaluation per group gives every column's differences.
fn column_groups(entries: &[(usize, usize)], rows: usize, n: usize) -> Vec<Vec<usize>> {
    let mut columns_of_row = vec![Vec::new(); rows];
    let mut rows_of_column = vec![Vec::new(); n];
    for &(i, j) in entries {
        columns_of_row[i].push(j);
        rows_of_column[j].push(i);
    }
    let mut group_of = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut taken = Vec::new();
    for j in 0..n {
        taken.clear();
        for &i in &rows_of_column[j] {
            taken.extend(columns_of_row[i].iter().map(|&c| group_of[c]));
        }
        let g = (0..).find(|g| !taken.contains(g)).expect("a free group");
        if g == groups.len() {
            groups.push(Vec::new());
        }
        groups[g].push(j);
        group_of[j] = g;
    }
    groups
}

/// The error for a singular H₂H₂ᵀ: G lacks full row rank (a dense copy of G, a cold path).
fn singular_two_step<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    g: &SparseMatrix,
    n: usize,
    (t, h): (f64, f64),
) -> SimError {
    let mut dense = DMatrix::zeros(g.rows(), n);
    g.write_dense(&mut dense);
    crate::continuous::singular_gram(sys, &dense, (t, h))
}

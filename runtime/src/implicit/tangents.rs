//! Where the tangent blocks of the Newton iteration matrix come from.
//!
//! The iteration matrix needs, at the current iterate (t, q, v, q̈, λ),
//! `K = ∂(M q̈ + Gᵀλ − Q)/∂q` (q̈, λ held fixed) and `C = −∂Q/∂v`:
//! - [`Exact`]: the generated tangent kernels of a [`TangentSystem`]
//!   (`mass_w_q(w = q̈) + phi_q_t_lambda_q(λ) + nh_matrix_t_lambda_q(λ) − force_q`, `−force_v`);
//! - [`FiniteDifference`]: central differences of the same residual, for any
//!   [`ConstrainedSystem`] (what the [`crate::Integrator`] path uses, since its generic bound
//!   cannot see whether a model has tangents).
//!
//! Both write into preallocated storage: dense n × n matrices, or on the sparse path values on
//! the tangent pattern (`pattern.rs`), where the exact kernels' dense output is gathered and
//! the differences are compressed (one pair of residuals per group of structurally orthogonal
//! columns, the residuals over the nonzeros of M and G) after a first evaluation that
//! differences every column and checks the pattern.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::system::ConstrainedSystem;
use crate::table::{KernelArgs, KernelId, KernelOut, checked_tangent};
use crate::tangent::TangentSystem;

use super::matrices::PointMatrices;
use super::pattern::SparseTangents;

/// The state at which the tangent blocks are evaluated.
pub(crate) struct Point<'a> {
    pub(crate) t: f64,
    pub(crate) q: &'a [f64],
    pub(crate) v: &'a [f64],
    pub(crate) qdd: &'a [f64],
    pub(crate) lambda: &'a [f64],
}

/// A source of K and C (module docs).
pub(crate) trait Tangents<S: ConstrainedSystem + ?Sized> {
    /// K into `k` and C into `c` (both n × n) at `p`.
    fn eval(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        k: &mut DMatrix<f64>,
        c: &mut DMatrix<f64>,
    ) -> Result<(), SimError>;

    /// K and C at `p` as values on `out`'s pattern, which grows when they have a nonzero
    /// outside it (`pattern.rs`).
    fn eval_sparse(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        out: &mut SparseTangents,
    ) -> Result<(), SimError>;
}

/// K and C: dense, or values on the tangent pattern (the sparse path).
#[derive(Clone, Debug)]
pub(crate) enum TangentStore {
    Dense { k: DMatrix<f64>, c: DMatrix<f64> },
    Sparse(Box<SparseTangents>),
}

impl TangentStore {
    /// Dense n × n storage.
    pub(crate) fn dense(n: usize) -> Self {
        TangentStore::Dense {
            k: DMatrix::zeros(n, n),
            c: DMatrix::zeros(n, n),
        }
    }

    /// K and C at `p` from `source` into this storage.
    pub(crate) fn eval<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        source: &mut T,
        sys: &S,
        p: &Point<'_>,
    ) -> Result<(), SimError> {
        match self {
            TangentStore::Dense { k, c } => source.eval(sys, p, k, c),
            TangentStore::Sparse(out) => source.eval_sparse(sys, p, out),
        }
    }

    /// After a failed Newton iteration: have the next evaluation on the sparse path check the
    /// pattern again with a full one (`pattern.rs`: a nonzero outside it in a row its group
    /// covers escapes the compressed differences and shows only as slower convergence).
    pub(crate) fn distrust(&mut self) {
        if let TangentStore::Sparse(t) = self {
            t.verified = false;
        }
    }

    /// (K_ii, C_ii).
    pub(crate) fn diagonal(&self, i: usize) -> (f64, f64) {
        match self {
            TangentStore::Dense { k, c } => (k[(i, i)], c[(i, i)]),
            TangentStore::Sparse(t) => {
                let p = t.pattern.diagonal(i);
                (t.k[p], t.c[p])
            }
        }
    }

    /// K and C as dense matrices (copies; cold paths only).
    pub(crate) fn dense_copies(&self) -> (DMatrix<f64>, DMatrix<f64>) {
        match self {
            TangentStore::Dense { k, c } => (k.clone(), c.clone()),
            TangentStore::Sparse(t) => t.dense_copies(),
        }
    }
}

/// The generated tangent kernels.
pub(crate) struct Exact {
    tmp: DMatrix<f64>,
    /// The sparse path's use of the tangent nonzero form (created on its first evaluation).
    nonzeros: Option<Box<NonzeroForm>>,
}

impl Exact {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            tmp: DMatrix::zeros(n, n),
            nonzeros: None,
        }
    }
}

/// The output of [`TangentSystem::tangent_nonzeros_into`] and where its entries sit on the
/// tangent pattern.
struct NonzeroForm {
    /// K's values on the form's entries, then ∂Q/∂v's.
    values: Vec<f64>,
    /// Pattern index of each of the form's entries.
    positions: Vec<usize>,
    /// The pattern generation `positions` was computed for.
    generation: usize,
}

impl NonzeroForm {
    /// Where the form's `entries` sit on `out`'s pattern, which first grows by those outside
    /// it (the structural guess does not know Q's couplings; cold: once per pattern).
    fn place(&mut self, entries: &[(usize, usize)], out: &mut SparseTangents) {
        let outside: Vec<(usize, usize)> = (entries.iter().copied())
            .filter(|&(i, j)| out.pattern.index(i, j).is_none())
            .collect();
        if !outside.is_empty() {
            out.grow(outside);
        }
        self.positions = (entries.iter())
            .map(|&(i, j)| (out.pattern.index(i, j)).expect("the pattern holds the form's entries"))
            .collect();
        self.generation = out.generation;
    }
}

impl<S: TangentSystem + ?Sized> Tangents<S> for Exact {
    fn eval(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        k: &mut DMatrix<f64>,
        c: &mut DMatrix<f64>,
    ) -> Result<(), SimError> {
        let args = KernelArgs {
            t: p.t,
            q: p.q,
            v: p.v,
            lambda: p.lambda,
            w: p.qdd,
        };
        checked_tangent(sys, KernelId::MassWQ, &args, out(k))?;
        let sum = [
            (KernelId::PhiQTLambdaQ, 1.0),
            (KernelId::NhMatrixTLambdaQ, 1.0),
            (KernelId::ForceQ, -1.0),
        ];
        for (id, sign) in sum {
            checked_tangent(sys, id, &args, out(&mut self.tmp))?;
            k.zip_apply(&self.tmp, |kij, tij| *kij += sign * tij);
        }
        checked_tangent(sys, KernelId::ForceV, &args, out(c))?;
        c.neg_mut();
        Ok(())
    }

    /// With the tangent nonzero form: its values scattered onto the pattern, K and −∂Q/∂v,
    /// every other entry 0 (the form holds every structural nonzero). A non-finite value
    /// falls back to the dense kernels, whose checked calls name the entry. Without the form:
    /// the dense kernels' output gathered.
    fn eval_sparse(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        out: &mut SparseTangents,
    ) -> Result<(), SimError> {
        if let Some(sparsity) = sys.tangent_sparsity() {
            let entries = sparsity.nonzeros;
            let form = self.nonzeros.get_or_insert_with(|| {
                Box::new(NonzeroForm {
                    values: vec![0.0; 2 * entries.len()],
                    positions: Vec::new(),
                    generation: usize::MAX,
                })
            });
            if form.generation != out.generation {
                form.place(entries, out);
            }
            let values = &mut form.values;
            sys.tangent_nonzeros_into(p.t, p.q, p.v, p.lambda, p.qdd, values);
            if values.iter().all(|x| x.is_finite()) {
                let (k, c) = values.split_at(entries.len());
                out.k.fill(0.0);
                out.c.fill(0.0);
                for ((&at, &kij), &fv) in form.positions.iter().zip(k).zip(c) {
                    (out.k[at], out.c[at]) = (kij, -fv);
                }
                out.verified = true;
                return Ok(());
            }
        }
        let (k, c) = out.dense_mut();
        self.eval(sys, p, k, c)?;
        out.absorb_dense();
        out.verified = true;
        Ok(())
    }
}

fn out(m: &mut DMatrix<f64>) -> KernelOut<'_> {
    KernelOut::Matrix(m.as_view_mut())
}

/// Central differences of r(q, v) = M(q) q̈ + G(q)ᵀ λ − Q(t, q, v), 4n residual evaluations.
pub(crate) struct FiniteDifference {
    mass: DMatrix<f64>,
    jac: DMatrix<f64>,
    force: Vec<f64>,
    x: Vec<f64>,
    r_plus: Vec<f64>,
    r_minus: Vec<f64>,
    /// The sparse path's residuals (created on its first evaluation).
    sparse: Option<Box<SparseDifferences>>,
}

impl FiniteDifference {
    pub(crate) fn new(n: usize, rows: usize) -> Self {
        Self {
            mass: DMatrix::zeros(n, n),
            jac: DMatrix::zeros(rows, n),
            force: vec![0.0; n],
            x: vec![0.0; n],
            r_plus: vec![0.0; n],
            r_minus: vec![0.0; n],
            sparse: None,
        }
    }

    /// r at (t, q, v) into `out`.
    #[allow(clippy::too_many_arguments)] // the point's parts and the output
    fn residual<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        q: &[f64],
        v: &[f64],
        plus: bool,
    ) -> Result<(), SimError> {
        kernels::mass(sys, p.t, q, &mut self.mass)?;
        kernels::jacobian(sys, p.t, q, &mut self.jac)?;
        kernels::force(sys, p.t, q, v, &mut self.force)?;
        let out = if plus {
            &mut self.r_plus
        } else {
            &mut self.r_minus
        };
        for (i, r) in out.iter_mut().enumerate() {
            let mw: f64 = (0..p.qdd.len()).map(|j| self.mass[(i, j)] * p.qdd[j]).sum();
            let gl: f64 = (0..p.lambda.len())
                .map(|j| self.jac[(j, i)] * p.lambda[j])
                .sum();
            *r = mw + gl - self.force[i];
        }
        Ok(())
    }

    /// Column j of ∂r/∂(q or v) into `target`.
    fn column<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        j: usize,
        wrt_v: bool,
        target: &mut DMatrix<f64>,
    ) -> Result<(), SimError> {
        let base = if wrt_v { p.v } else { p.q };
        // δ = ε^{1/3}(1 + |x_j|) balances truncation (δ² |r'''|/6) and round-off (ε |r|/δ):
        // both ≈ 5e-11 relative for derivatives of moderate size.
        let delta = increment(base[j]);
        for (sign, plus) in [(1.0, true), (-1.0, false)] {
            self.x.copy_from_slice(base);
            self.x[j] += sign * delta;
            let x = std::mem::take(&mut self.x);
            let result = if wrt_v {
                self.residual(sys, p, p.q, &x, plus)
            } else {
                self.residual(sys, p, &x, p.v, plus)
            };
            self.x = x;
            result?;
        }
        for i in 0..self.r_plus.len() {
            target[(i, j)] = (self.r_plus[i] - self.r_minus[i]) / (2.0 * delta);
        }
        Ok(())
    }
}

impl<S: ConstrainedSystem + ?Sized> Tangents<S> for FiniteDifference {
    fn eval(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        k: &mut DMatrix<f64>,
        c: &mut DMatrix<f64>,
    ) -> Result<(), SimError> {
        for j in 0..p.q.len() {
            self.column(sys, p, j, false, k)?;
            self.column(sys, p, j, true, c)?;
        }
        Ok(())
    }

    fn eval_sparse(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        out: &mut SparseTangents,
    ) -> Result<(), SimError> {
        let d = self
            .sparse
            .get_or_insert_with(|| Box::new(SparseDifferences::new(sys)));
        if out.verified && d.compressed(sys, p, out)? {
            return Ok(());
        }
        let (k, c) = out.dense_mut();
        d.full(sys, p, k, c)?;
        out.absorb_dense();
        out.verified = true;
        Ok(())
    }
}

/// ε^{1/3} (`f64::EPSILON.cbrt()`, to the last bit: a unit test checks it), a constant so the
/// differences do not pay a `cbrt` per column.
const CBRT_EPSILON: f64 = 6.055_454_452_393_339_5e-6;

/// δ_j = ε^{1/3}(1 + |x_j|) (see [`FiniteDifference`]).
pub(crate) fn increment(x: f64) -> f64 {
    CBRT_EPSILON * (1.0 + x.abs())
}

/// The sparse path's central differences: residuals over the nonzeros of M and G, compressed
/// by the pattern's column groups.
struct SparseDifferences {
    point: PointMatrices,
    force: Vec<f64>,
    x: Vec<f64>,
    plus: Vec<f64>,
    minus: Vec<f64>,
    /// Rows the current group's columns cover in the pattern.
    covered: Vec<bool>,
}

impl SparseDifferences {
    fn new<S: ConstrainedSystem + ?Sized>(sys: &S) -> Self {
        let n = sys.dims().n;
        Self {
            point: PointMatrices::sparse(sys),
            force: vec![0.0; n],
            x: vec![0.0; n],
            plus: vec![0.0; n],
            minus: vec![0.0; n],
            covered: vec![false; n],
        }
    }

    /// r = M q̈ + Gᵀλ − Q at (t, x, v) (`wrt_v`: at (t, q, x), where only −Q varies, which
    /// alone is evaluated) into `plus` or `minus`.
    fn residual<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        wrt_v: bool,
        plus: bool,
    ) -> Result<(), SimError> {
        let out = if plus {
            &mut self.plus
        } else {
            &mut self.minus
        };
        if wrt_v {
            kernels::force(sys, p.t, p.q, &self.x, out)?;
            out.iter_mut().for_each(|f| *f = -*f);
            return Ok(());
        }
        self.point.eval(sys, p.t, &self.x)?;
        kernels::force(sys, p.t, &self.x, p.v, &mut self.force)?;
        self.point.dynamic_rows(&self.force, p.qdd, p.lambda, out);
        Ok(())
    }

    /// The residual pair at the base point with `columns` shifted by ±δ_j.
    fn pair<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        columns: &[usize],
        wrt_v: bool,
    ) -> Result<(), SimError> {
        let base = if wrt_v { p.v } else { p.q };
        for (sign, plus) in [(1.0, true), (-1.0, false)] {
            self.x.copy_from_slice(base);
            for &j in columns {
                self.x[j] += sign * increment(base[j]);
            }
            self.residual(sys, p, wrt_v, plus)?;
        }
        Ok(())
    }

    /// Every column differenced on its own into dense `k` and `c`.
    fn full<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        k: &mut DMatrix<f64>,
        c: &mut DMatrix<f64>,
    ) -> Result<(), SimError> {
        for j in 0..p.q.len() {
            for (wrt_v, target) in [(false, &mut *k), (true, &mut *c)] {
                self.pair(sys, p, &[j], wrt_v)?;
                let delta = increment(if wrt_v { p.v[j] } else { p.q[j] });
                for i in 0..self.plus.len() {
                    target[(i, j)] = (self.plus[i] - self.minus[i]) / (2.0 * delta);
                }
            }
        }
        Ok(())
    }

    /// K and C by groups of columns into `out`'s values; `Ok(false)` when a residual row
    /// changed that no column of its group covers (an entry outside the pattern: the values
    /// are then incomplete).
    fn compressed<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        p: &Point<'_>,
        out: &mut SparseTangents,
    ) -> Result<bool, SimError> {
        let pattern = &out.pattern;
        for group in pattern.groups() {
            for wrt_v in [false, true] {
                self.pair(sys, p, group, wrt_v)?;
                let base = if wrt_v { p.v } else { p.q };
                let values = if wrt_v { &mut out.c } else { &mut out.k };
                for &j in group {
                    let delta = increment(base[j]);
                    for e in pattern.row(j) {
                        let i = pattern.entries()[e].1;
                        values[pattern.transposed(e)] =
                            (self.plus[i] - self.minus[i]) / (2.0 * delta);
                        self.covered[i] = true;
                    }
                }
                let orphan =
                    (0..self.plus.len()).any(|i| self.plus[i] != self.minus[i] && !self.covered[i]);
                self.covered.fill(false);
                if orphan {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_increment_constant_is_the_cube_root_of_epsilon() {
        assert_eq!(super::CBRT_EPSILON, f64::EPSILON.cbrt());
    }
}

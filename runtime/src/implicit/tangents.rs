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
//! Both write into preallocated storage.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::system::ConstrainedSystem;
use crate::table::{KernelArgs, KernelId, KernelOut, checked_tangent};
use crate::tangent::TangentSystem;

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
}

/// The generated tangent kernels.
pub(crate) struct Exact {
    tmp: DMatrix<f64>,
}

impl Exact {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            tmp: DMatrix::zeros(n, n),
        }
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
        let delta = f64::EPSILON.cbrt() * (1.0 + base[j].abs());
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
}

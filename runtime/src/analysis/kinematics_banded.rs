//! The banded path of [`super::kinematics`] (issue 27): a fully driven model whose Φ_q is
//! square (k = 0, m = n) solved at every grid point without a dense matrix of order n.
//!
//! Per point, on one [`SquareBand`] (Φ_q ordered and factored in its band) and one
//! [`KktWorkspace`] kept for the whole grid:
//! - positions: Newton q ← q − Φ_q⁻¹ Φ(t, q) from the continuation's prediction until
//!   ‖Φ‖∞ ≤ tol (the dense path's `initialize` takes the minimum-norm Gauss–Newton step
//!   Φ_qᵀ(Φ_q Φ_qᵀ)⁻¹ Φ, the same step for a square nonsingular Φ_q, so both reach the same
//!   root to the tolerance and differ by round-off);
//! - velocities: v = v̂ − Φ_q⁻¹ (Φ_q v̂ + Φ_t) from the prediction v̂ (kept when its residual
//!   is already ≤ tol, as `initialize` does);
//! - accelerations and multipliers: the KKT solve [`accelerations_into`] at (q, v), the dense
//!   path's own call (banded, on the nonzeros, for a model with the sparse forms), so a from
//!   Φ_q a = γ and λ = Φ_q⁻ᵀ (Q − M a);
//! - det Φ_q and the condition estimate κ̂₁ from the factors at the final q (`square_band.rs`).
//!
//! A point the banded path cannot solve (a negligible pivot, Newton not converging, a KKT
//! failure) is handed to the dense path, which either solves it or fails with its diagnosis
//! naming the rows; the point's condition and determinant are then still the band's at the q
//! found (κ̂₁ = ∞ where Φ_q does not factor), so the column keeps one meaning.

use super::kinematics::{KinematicOptions, KinematicPoint};
use super::square_band::SquareBand;
use crate::drift::inf_norm;
use crate::error::SimError;
use crate::init_sparse::velocity_residual;
use crate::kernels;
use crate::kkt::{KktWorkspace, accelerations_into};
use crate::system::ConstrainedSystem;

/// The banded solver of one analysis (see the module docs).
pub(crate) struct BandedPoints {
    band: SquareBand,
    /// Φ_q's pattern (row-major, the sparse forms' order).
    pattern: Vec<(usize, usize)>,
    /// Φ_q's values gathered from a dense Jacobian (a model without the sparse forms).
    gathered: Vec<f64>,
    ws: KktWorkspace,
}

/// Why a point left the banded path (the caller hands it to the dense path).
pub(crate) struct Unsolved;

impl BandedPoints {
    /// The solver for `sys` if its Φ_q is square (k = 0, m = n): `Some` when `forced` or when
    /// the model has the sparse kernel forms and the band pays ([`SquareBand::pays`]).
    pub(crate) fn for_system<S: ConstrainedSystem + ?Sized>(sys: &S, forced: bool) -> Option<Self> {
        let d = sys.dims();
        if d.k != 0 || d.m != d.n || !(forced || sys.has_nonzero_forms()) {
            return None;
        }
        let pattern: Vec<(usize, usize)> = crate::sparse::jacobian_pattern(sys, d);
        let band = SquareBand::new(d.n, &pattern);
        (forced || band.pays()).then(|| Self {
            band,
            gathered: vec![0.0; pattern.len()],
            pattern,
            ws: KktWorkspace::new(d),
        })
    }

    /// Φ_q at (t, q) into the workspace and factored; `Ok(false)` if it is singular (the
    /// banded path's admission test at the first guess, too).
    pub(crate) fn factor_at<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<bool, SimError> {
        self.ws.eval_jacobian(sys, t, q)?;
        let values = match &self.ws.sparse {
            Some(sp) => &sp.jac.values[..self.pattern.len()],
            None => {
                for (x, &(i, j)) in self.gathered.iter_mut().zip(&self.pattern) {
                    *x = self.ws.jac[(i, j)];
                }
                &self.gathered[..]
            }
        };
        Ok(self.band.factor(values).is_ok())
    }

    /// (κ̂₁, det Φ_q) at (t, q): (∞, 0) where Φ_q does not factor.
    pub(crate) fn conditioning<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<(f64, f64), SimError> {
        Ok(match self.factor_at(sys, t, q)? {
            true => (self.band.condition_estimate(), self.band.determinant()),
            false => (f64::INFINITY, 0.0),
        })
    }

    /// The point at `t` from the prediction (`guess`, `v_guess`); `Ok(Err(Unsolved))` hands it
    /// to the dense path, `Err` is a kernel failure.
    pub(crate) fn solve_point<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        (guess, v_guess): (&[f64], &[f64]),
        opts: &KinematicOptions,
    ) -> Result<Result<KinematicPoint, Unsolved>, SimError> {
        let Some((q, iterations, residual)) = self.positions(sys, t, guess, opts)? else {
            return Ok(Err(Unsolved));
        };
        // Φ_q at the root: the velocities', the determinant's and the estimate's.
        if !self.factor_at(sys, t, &q)? {
            return Ok(Err(Unsolved));
        }
        let (condition, determinant) = (self.band.condition_estimate(), self.band.determinant());
        let Some((v, velocity_residual)) = self.velocities(sys, (t, &q), v_guess, opts.tol)? else {
            return Ok(Err(Unsolved));
        };
        let n = q.len();
        let (mut a, mut lambda) = (vec![0.0; n], vec![0.0; n]);
        let kkt = accelerations_into(sys, t, &q, &v, None, &mut self.ws, 0.0, &mut a, &mut lambda);
        if kkt.is_err() {
            return Ok(Err(Unsolved));
        }
        Ok(Ok(KinematicPoint {
            t,
            q,
            v,
            a,
            lambda,
            iterations,
            residual,
            velocity_residual,
            condition,
            determinant,
        }))
    }

    /// Newton on Φ(t, q) = 0: (q, corrections made, ‖Φ‖∞), or `None` (singular Φ_q, no
    /// convergence within the limit, a non-finite residual).
    fn positions<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        guess: &[f64],
        opts: &KinematicOptions,
    ) -> Result<Option<(Vec<f64>, usize, f64)>, SimError> {
        let mut q = guess.to_vec();
        let mut iterations = 0;
        loop {
            kernels::phi(sys, t, &q, &mut self.ws.phi)?;
            let residual = inf_norm(&self.ws.phi);
            if residual <= opts.tol {
                return Ok(Some((q, iterations, residual)));
            }
            if iterations == opts.max_iterations || !residual.is_finite() {
                return Ok(None);
            }
            if !self.factor_at(sys, t, &q)? {
                return Ok(None);
            }
            let mut step = self.ws.phi.clone();
            self.band.solve(&mut step);
            for (x, dx) in q.iter_mut().zip(&step) {
                *x -= dx;
            }
            iterations += 1;
        }
    }

    /// v with Φ_q v + Φ_t = 0 (Φ_q factored at q) and its residual, or `None` when the
    /// residual after the correction is above `initialize`'s bound max(tol, 64 ε ‖v‖∞).
    fn velocities<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, q): (f64, &[f64]),
        v_guess: &[f64],
        tol: f64,
    ) -> Result<Option<(Vec<f64>, f64)>, SimError> {
        let mut v = v_guess.to_vec();
        velocity_residual(sys, &mut self.ws, (t, q, &v))?;
        if inf_norm(&self.ws.vel_res) <= tol {
            return Ok(Some((v, inf_norm(&self.ws.vel_res))));
        }
        let mut step = self.ws.vel_res.clone();
        self.band.solve(&mut step);
        for (x, dx) in v.iter_mut().zip(&step) {
            *x -= dx;
        }
        velocity_residual(sys, &mut self.ws, (t, q, &v))?;
        let residual = inf_norm(&self.ws.vel_res);
        let bound = tol.max(64.0 * f64::EPSILON * inf_norm(&v));
        Ok((residual <= bound).then_some((v, residual)))
    }
}

//! The one place that evaluates constraint drift: ‖Φ(t, q)‖∞ and ‖G v + [Φ_t; b]‖∞.
//!
//! Every consumer goes through [`DriftMeter`]: the DATOL test of the post-stabilization, the
//! drift of each output sample, the maximum over accepted step points in [`crate::Stats`] and
//! the consistency check of the initial state. The meter owns its workspace (allocated once)
//! and can reuse a G that a caller has already evaluated at the same (t, q). The drift types
//! ([`Drift`], `inf_norm`) live here with their evaluator, so that `error.rs` (which carries a
//! [`Drift`]) does not depend on the stabilizers.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::sparse::{Jac, JacobianStore};
use crate::system::{ConstrainedSystem, Dims};
use crate::table::{KernelArgs, KernelId, KernelOut};

/// Preallocated drift evaluator.
#[derive(Clone, Debug)]
pub struct DriftMeter {
    dims: Dims,
    jac: JacobianStore,
    /// Φ(t, q) of the last measurement (length m).
    pub(crate) phi: Vec<f64>,
    tmp: Vec<f64>,
    /// G v + [Φ_t; b] of the last measurement (length m + k).
    pub(crate) vel_res: Vec<f64>,
    /// G a − γ of the last [`DriftMeter::acceleration`] (length m + k).
    acc_res: Vec<f64>,
}

impl DriftMeter {
    /// Workspace for a model of dimensions `dims`.
    pub fn new(dims: Dims) -> Self {
        let r = dims.constraint_rows();
        Self {
            dims,
            jac: JacobianStore::new(r, dims.n),
            phi: vec![0.0; dims.m],
            tmp: vec![0.0; r],
            vel_res: vec![0.0; r],
            acc_res: vec![0.0; r],
        }
    }

    /// Φ of the last measurement, row by row (the holonomic rows).
    pub fn position_residuals(&self) -> &[f64] {
        &self.phi
    }

    /// G v + [Φ_t; b] of the last measurement, row by row.
    pub fn velocity_residuals(&self) -> &[f64] {
        &self.vel_res
    }

    /// The acceleration-level drift ‖G a − γ(t, q, v)‖∞ of accelerations `a` at (t, q, v),
    /// evaluating G and γ (the rows in [`DriftMeter::acceleration_residuals`]).
    pub fn acceleration<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
    ) -> Result<f64, SimError> {
        self.jac.prepare(sys);
        self.jac.eval(sys, t, q)?;
        let args = KernelArgs {
            t,
            q,
            v,
            lambda: &[],
            w: &[],
        };
        let gamma = KernelOut::Vector(&mut self.tmp);
        kernels::checked(sys, KernelId::Gamma, &args, gamma)?;
        for (r, g) in self.acc_res.iter_mut().zip(&self.tmp) {
            *r = -g;
        }
        self.jac.get().mul_add(a, &mut self.acc_res);
        Ok(inf_norm(&self.acc_res))
    }

    /// G a − γ of the last [`DriftMeter::acceleration`], row by row.
    pub fn acceleration_residuals(&self) -> &[f64] {
        &self.acc_res
    }

    /// The drift at (t, q, v), evaluating G itself.
    pub fn measure<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<Drift, SimError> {
        self.jac.prepare(sys);
        self.jac.eval(sys, t, q)?;
        kernels::phi(sys, t, q, &mut self.phi)?;
        let jac = self.jac.get();
        kernels::velocity_residual(sys, t, q, v, jac, &mut self.tmp, &mut self.vel_res)?;
        Ok(self.norms())
    }

    /// The drift at (t, q, v) with G = [Φ_q; A] already evaluated at (t, q) in `jac`.
    pub fn measure_with_jacobian<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
        jac: &DMatrix<f64>,
    ) -> Result<Drift, SimError> {
        self.measure_with(sys, t, q, v, Jac::Dense(jac))
    }

    /// [`DriftMeter::measure_with_jacobian`] with G dense or as nonzeros.
    pub(crate) fn measure_with<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
        jac: Jac<'_>,
    ) -> Result<Drift, SimError> {
        debug_assert_eq!(sys.dims(), self.dims, "DriftMeter: other dimensions");
        kernels::phi(sys, t, q, &mut self.phi)?;
        kernels::velocity_residual(sys, t, q, v, jac, &mut self.tmp, &mut self.vel_res)?;
        Ok(self.norms())
    }

    fn norms(&self) -> Drift {
        Drift {
            position: inf_norm(&self.phi),
            velocity: inf_norm(&self.vel_res),
        }
    }
}

impl Drift {
    /// The componentwise maximum of two drifts.
    pub fn worst(self, other: Drift) -> Drift {
        Drift {
            position: self.position.max(other.position),
            velocity: self.velocity.max(other.velocity),
        }
    }
}

/// Constraint drift at one state: ‖Φ‖∞ and ‖G v + [Φ_t; b]‖∞.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drift {
    /// ‖Φ(t, q)‖∞ (holonomic rows only).
    pub position: f64,
    /// ‖G v + [Φ_t; b]‖∞ (holonomic and nonholonomic rows).
    pub velocity: f64,
}

impl Drift {
    /// `max(position, velocity)`, the quantity compared with DATOL.
    pub fn max(&self) -> f64 {
        self.position.max(self.velocity)
    }
}

/// ‖x‖∞ (0 for an empty slice).
pub(crate) fn inf_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |s, v| s.max(v.abs()))
}

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
use crate::system::{ConstrainedSystem, Dims};

/// Preallocated drift evaluator.
#[derive(Clone, Debug)]
pub struct DriftMeter {
    dims: Dims,
    jac: DMatrix<f64>,
    /// Φ(t, q) of the last measurement (length m).
    pub(crate) phi: Vec<f64>,
    tmp: Vec<f64>,
    /// G v + [Φ_t; b] of the last measurement (length m + k).
    pub(crate) vel_res: Vec<f64>,
}

impl DriftMeter {
    /// Workspace for a model of dimensions `dims`.
    pub fn new(dims: Dims) -> Self {
        let r = dims.constraint_rows();
        Self {
            dims,
            jac: DMatrix::zeros(r, dims.n),
            phi: vec![0.0; dims.m],
            tmp: vec![0.0; r],
            vel_res: vec![0.0; r],
        }
    }

    /// The drift at (t, q, v), evaluating G itself.
    pub fn measure<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<Drift, SimError> {
        kernels::jacobian(sys, t, q, &mut self.jac)?;
        kernels::phi(sys, t, q, &mut self.phi)?;
        kernels::velocity_residual(sys, t, q, v, &self.jac, &mut self.tmp, &mut self.vel_res)?;
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

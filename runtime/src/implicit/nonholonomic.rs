//! N = ∂(A v + b)/∂q for the nonholonomic rows of the implicit methods' iteration matrices,
//! by central differences of the A and b kernels (no kernel gives it): 2n evaluations of each
//! per refresh, only when k > 0. Dense: models with nonholonomic rows keep the dense path.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::system::{ConstrainedSystem, Dims};

/// Central differences of A(t, q) v + b(t, q) in q (v held): N = ∂(A v + b)/∂q, k × n, for the
/// nonholonomic rows of the iteration matrix. Does nothing when k = 0.
pub(crate) struct NhWork {
    q: Vec<f64>,
    jac: DMatrix<f64>,
    offset: Vec<f64>,
    plus: Vec<f64>,
}

impl NhWork {
    pub(crate) fn new(dims: Dims) -> Self {
        let k = dims.k;
        let (n, r) = if k > 0 {
            (dims.n, dims.constraint_rows())
        } else {
            (0, 0)
        };
        Self {
            q: vec![0.0; n],
            jac: DMatrix::zeros(r, n),
            offset: vec![0.0; k],
            plus: vec![0.0; k],
        }
    }

    /// A v + b at (t, self.q) into `plus` (`out_plus`) or over `offset` (length k).
    fn value<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        dims: Dims,
        t: f64,
        v: &[f64],
        out_plus: bool,
    ) -> Result<(), SimError> {
        kernels::jacobian(sys, t, &self.q, &mut self.jac)?;
        kernels::nh_offset(sys, t, &self.q, &mut self.offset)?;
        for i in 0..dims.k {
            let av: f64 = (0..dims.n).map(|j| self.jac[(dims.m + i, j)] * v[j]).sum();
            let value = av + self.offset[i];
            if out_plus {
                self.plus[i] = value;
            } else {
                self.offset[i] = value;
            }
        }
        Ok(())
    }

    /// N at (t, q, v) into `out` (k × n).
    pub(crate) fn eval<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        dims: Dims,
        t: f64,
        q: &[f64],
        v: &[f64],
        out: &mut DMatrix<f64>,
    ) -> Result<(), SimError> {
        if dims.k == 0 {
            return Ok(());
        }
        for j in 0..dims.n {
            // δ = ε^{1/3}(1 + |q_j|): truncation and round-off balanced, as the FD tangents.
            let delta = super::tangents::increment(q[j]);
            self.q.copy_from_slice(q);
            self.q[j] = q[j] + delta;
            self.value(sys, dims, t, v, true)?;
            self.q[j] = q[j] - delta;
            self.value(sys, dims, t, v, false)?;
            for i in 0..dims.k {
                out[(i, j)] = (self.plus[i] - self.offset[i]) / (2.0 * delta);
            }
        }
        Ok(())
    }
}

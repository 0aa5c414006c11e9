//! DOPRI5 dense output (Hairer's `contd5`), a 4th-order continuous extension of each step.
//!
//! Built from the step's stages, its start z_n and its (stabilized) end z_{n+1}; with RKSTAB
//! the 7th stage is evaluated at the stabilized end, so the interpolant matches the stabilized
//! value and derivative at t_{n+1} and is C¹ across steps.

use crate::tableau::D;

/// The cubic Hermite basis (h00, h10, h01, h11) at θ = (t − t_n)/h: the continuous extension
/// of the constant-step and implicit methods from the values and derivatives at both ends,
/// x(θ) = h00 x_n + h10 h ẋ_n + h01 x_{n+1} + h11 h ẋ_{n+1}.
pub(crate) fn hermite_basis(th: f64) -> [f64; 4] {
    let (th2, th3) = (th * th, th * th * th);
    [
        2.0 * th3 - 3.0 * th2 + 1.0,
        th3 - 2.0 * th2 + th,
        3.0 * th2 - 2.0 * th3,
        th3 - th2,
    ]
}

/// Interpolation coefficients of the last accepted step.
#[derive(Clone, Debug)]
pub(crate) struct DenseOutput {
    r: [Vec<f64>; 5],
    t_old: f64,
    h: f64,
}

impl DenseOutput {
    pub(crate) fn new(len: usize) -> Self {
        Self {
            r: std::array::from_fn(|_| vec![0.0; len]),
            t_old: 0.0,
            h: 0.0,
        }
    }

    /// Prepare the interpolant of the step [t, t + h] from z_n (`z0`), z_{n+1} (`z1`) and the
    /// seven stages `k` (k[6] evaluated at z_{n+1}).
    pub(crate) fn prepare(&mut self, t: f64, h: f64, z0: &[f64], z1: &[f64], k: &[Vec<f64>; 7]) {
        self.t_old = t;
        self.h = h;
        let [r1, r2, r3, r4, r5] = &mut self.r;
        for i in 0..z0.len() {
            let ydiff = z1[i] - z0[i];
            let bspl = h * k[0][i] - ydiff;
            r1[i] = z0[i];
            r2[i] = ydiff;
            r3[i] = bspl;
            r4[i] = ydiff - h * k[6][i] - bspl;
            r5[i] = h
                * (D[0] * k[0][i]
                    + D[2] * k[2][i]
                    + D[3] * k[3][i]
                    + D[4] * k[4][i]
                    + D[5] * k[5][i]
                    + D[6] * k[6][i]);
        }
    }

    /// z(t) for t in the prepared step, into `out`.
    pub(crate) fn eval_into(&self, t: f64, out: &mut [f64]) {
        let th = (t - self.t_old) / self.h;
        let th1 = 1.0 - th;
        let [r1, r2, r3, r4, r5] = &self.r;
        for i in 0..out.len() {
            out[i] = r1[i] + th * (r2[i] + th1 * (r3[i] + th * (r4[i] + th1 * r5[i])));
        }
    }
}

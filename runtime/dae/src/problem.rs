//! [`SemiExplicit`]: the problem a user states.

use nalgebra::DMatrix;

/// A semi-explicit DAE of Hessenberg form with a general multiplier input B (\[CHIN\] (2.37),
/// (2.55)):
///
/// - first order (index 2): x' = f(t, x) + B(t, x) y, 0 = g(t, x);
/// - second order (index 3): x'' = f(t, x, v) + B(t, x, v) y with v = x', 0 = g(t, x);
///
/// GB must be nonsingular (G = g_x). For a first-order problem the `v` passed to
/// [`f_into`](SemiExplicit::f_into) and [`b_into`](SemiExplicit::b_into) is empty.
pub trait SemiExplicit {
    /// (nx, ny): the lengths of x and y (and of g).
    fn dims(&self) -> (usize, usize);

    /// True for x'' = f + B y (index 3), false for x' = f + B y (index 2).
    fn second_order(&self) -> bool;

    /// f(t, x) or f(t, x, v), length nx.
    fn f_into(&self, t: f64, x: &[f64], v: &[f64], out: &mut [f64]);

    /// B(t, x) or B(t, x, v), nx × ny.
    fn b_into(&self, t: f64, x: &[f64], v: &[f64], out: &mut DMatrix<f64>);

    /// g(t, x), length ny.
    fn g_into(&self, t: f64, x: &[f64], out: &mut [f64]);

    /// G = ∂g/∂x, ny × nx.
    fn g_x_into(&self, t: f64, x: &[f64], out: &mut DMatrix<f64>);

    /// ∂g/∂t, length ny.
    fn g_t_into(&self, t: f64, x: &[f64], out: &mut [f64]);

    /// Index 3: z(t, x, v) = d²/ds² g(t + s, x + s v) at s = 0, i.e. g_xx(v, v) + 2 g_xt v +
    /// g_tt, so that g'' = G x'' + z. The default is a central second difference with
    /// s = ε^¼ max(1, |t|, ‖x‖∞ / ‖v‖∞) (error O(s²) + O(ε/s²), about 1e-8 relative);
    /// override it with the exact expression when one is at hand.
    fn curvature_into(&self, t: f64, x: &[f64], v: &[f64], out: &mut [f64]) {
        let (nx, ny) = self.dims();
        let vmax = v.iter().fold(0.0_f64, |m, a| m.max(a.abs()));
        let xmax = x.iter().fold(0.0_f64, |m, a| m.max(a.abs()));
        let s = f64::EPSILON.powf(0.25)
            * 1f64
                .max(t.abs())
                .max(if vmax > 0.0 { xmax / vmax } else { 1.0 });
        let mut shifted = vec![0.0; nx];
        let (mut plus, mut minus, mut mid) = (vec![0.0; ny], vec![0.0; ny], vec![0.0; ny]);
        for (sign, into) in [(1.0, &mut plus), (-1.0, &mut minus)] {
            for i in 0..nx {
                shifted[i] = x[i] + sign * s * v[i];
            }
            self.g_into(t + sign * s, &shifted, into);
        }
        self.g_into(t, x, &mut mid);
        for i in 0..ny {
            out[i] = (plus[i] - 2.0 * mid[i] + minus[i]) / (s * s);
        }
    }

    /// The two-step route (2.63)–(2.64): J = ∂(G v + g_t)/∂x, ny × nx. The default is central
    /// differences in each x_j with step ε^⅓ max(1, |x_j|); override it with the exact
    /// expression when one is at hand.
    fn velocity_jacobian_into(&self, t: f64, x: &[f64], v: &[f64], out: &mut DMatrix<f64>) {
        let (nx, ny) = self.dims();
        let mut xs = x.to_vec();
        let mut jac = DMatrix::zeros(ny, nx);
        let (mut gt, mut plus) = (vec![0.0; ny], vec![0.0; ny]);
        let residual = |xs: &[f64], jac: &mut DMatrix<f64>, gt: &mut [f64], r: &mut [f64]| {
            self.g_x_into(t, xs, jac);
            self.g_t_into(t, xs, gt);
            for i in 0..ny {
                r[i] = gt[i] + (0..nx).map(|j| jac[(i, j)] * v[j]).sum::<f64>();
            }
        };
        let mut minus = vec![0.0; ny];
        for j in 0..nx {
            let s = f64::EPSILON.cbrt() * 1f64.max(x[j].abs());
            xs[j] = x[j] + s;
            residual(&xs, &mut jac, &mut gt, &mut plus);
            xs[j] = x[j] - s;
            residual(&xs, &mut jac, &mut gt, &mut minus);
            xs[j] = x[j];
            for i in 0..ny {
                out[(i, j)] = (plus[i] - minus[i]) / (2.0 * s);
            }
        }
    }
}

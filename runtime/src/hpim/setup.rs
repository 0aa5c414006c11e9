//! What HPIM and NPC derive once from a [`Structure`] before the first step: the checks that
//! the structure fits the system (n, holonomic rows only, the same M), M⁻¹ from the Cholesky
//! factor, the first-order matrix
//!
//! ```text
//! H = [[−M⁻¹C/2, M⁻¹], [C M⁻¹ C/4 − K, −C M⁻¹/2]]
//! ```
//!
//! with its LU (when invertible), and the particular integrals of the loads.

use nalgebra::{Cholesky, DMatrix, DVector, Dyn, LU};

use super::particular::{LoadIntegral, load_integral};
use crate::error::SimError;
use crate::integrator::Problem;
use crate::structural::Structure;
use crate::system::ConstrainedSystem;

/// The constant matrices of a structural run.
pub(crate) struct Setup {
    pub(crate) chol: Cholesky<f64, Dyn>,
    pub(crate) minv: DMatrix<f64>,
    pub(crate) h: DMatrix<f64>,
    pub(crate) h_lu: Option<LU<f64, Dyn, Dyn>>,
    pub(crate) damping: DMatrix<f64>,
    pub(crate) stiffness: DMatrix<f64>,
    pub(crate) rows: usize,
}

fn invalid(what: String) -> SimError {
    SimError::InvalidProblem { what }
}

impl Setup {
    pub(crate) fn new<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        st: &Structure,
        problem: &Problem,
    ) -> Result<Self, SimError> {
        let chol = st.validate()?;
        let (n, dims) = (st.dofs(), sys.dims());
        if dims.n != n {
            return Err(invalid(format!(
                "structure has {n} DOFs, the system {} coordinates",
                dims.n
            )));
        }
        if dims.k != 0 {
            return Err(invalid(
                "HPIM/NPC: nonholonomic constraints are not supported".to_string(),
            ));
        }
        let mut m_sys = DMatrix::zeros(n, n);
        sys.mass_into(problem.t0, &problem.q0, m_sys.as_view_mut());
        if (&m_sys - &st.mass).amax() > 1e-12 * st.mass.amax() {
            return Err(invalid(
                "the system's mass matrix differs from the structure's: integrate \
                 `Structural::new(structure, constraints)`"
                    .to_string(),
            ));
        }
        let minv = chol.inverse();
        let h = first_order(&minv, &st.damping, &st.stiffness);
        if let Some((i, x)) = h.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(invalid(format!("H entry {i} is not finite ({x})")));
        }
        let lu = h.clone().lu();
        let h_lu = invertible(&h, &lu).then_some(lu);
        Ok(Self {
            chol,
            minv,
            h,
            h_lu,
            damping: st.damping.clone(),
            stiffness: st.stiffness.clone(),
            rows: dims.m,
        })
    }

    /// |μ|max bound of H ([`super::expm::spectral_bound`]).
    pub(crate) fn spectral_bound(&self) -> f64 {
        super::expm::spectral_bound(&self.chol, &self.damping, &self.stiffness)
    }

    /// The particular integral of every load (typed error for one without).
    pub(crate) fn load_integrals(&self, st: &Structure) -> Result<Vec<LoadIntegral>, SimError> {
        st.loads
            .iter()
            .enumerate()
            .map(|(i, load)| load_integral(&self.h, self.h_lu.as_ref(), load, i))
            .collect()
    }

    /// The LU of H, or the typed error of a singular H (needed by the quadratic force).
    pub(crate) fn require_lu(&self) -> Result<&LU<f64, Dyn, Dyn>, SimError> {
        self.h_lu.as_ref().ok_or_else(|| {
            invalid(
                "hpim: H is singular (no damping and a singular K: a rigid-body mode); the \
                 polynomial particular integral of the expanded constraint force needs H⁻¹"
                    .to_string(),
            )
        })
    }

    /// D' = M⁻¹(u − C D/2) from v = [D; u] (`scratch` of length n).
    pub(crate) fn velocity_into(
        &self,
        v: &DVector<f64>,
        scratch: &mut DVector<f64>,
        out: &mut [f64],
    ) {
        let n = self.minv.nrows();
        scratch.copy_from(&v.rows(n, n));
        scratch.gemv(-0.5, &self.damping, &v.rows(0, n), 1.0);
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.minv.row(i).tr_dot(scratch);
        }
    }

    /// v = [D; M D' + C D/2].
    pub(crate) fn first_order_state(&self, st: &Structure, d: &[f64], dv: &[f64]) -> DVector<f64> {
        let n = d.len();
        let (dd, dvv) = (
            DVector::from_column_slice(d),
            DVector::from_column_slice(dv),
        );
        let u = &st.mass * dvv + &self.damping * &dd * 0.5;
        let mut v = DVector::zeros(2 * n);
        v.rows_mut(0, n).copy_from(&dd);
        v.rows_mut(n, n).copy_from(&u);
        v
    }
}

/// H of the first-order form u = M D' + C D/2.
pub(crate) fn first_order(minv: &DMatrix<f64>, c: &DMatrix<f64>, k: &DMatrix<f64>) -> DMatrix<f64> {
    let n = minv.nrows();
    let mut h = DMatrix::zeros(2 * n, 2 * n);
    h.view_mut((0, 0), (n, n)).copy_from(&(-(minv * c) * 0.5));
    h.view_mut((0, n), (n, n)).copy_from(minv);
    h.view_mut((n, 0), (n, n))
        .copy_from(&(c * minv * c * 0.25 - k));
    h.view_mut((n, n), (n, n)).copy_from(&(-(c * minv) * 0.5));
    h
}

/// H is invertible to working precision: the LU's smallest pivot is not below 2n ε max|U|.
fn invertible(h: &DMatrix<f64>, lu: &LU<f64, Dyn, Dyn>) -> bool {
    let u = lu.u();
    let scale = u.amax().max(h.amax());
    let tiny = (h.nrows() as f64) * 2.0 * f64::EPSILON * scale;
    lu.is_invertible() && u.diagonal().iter().all(|d| d.abs() > tiny)
}

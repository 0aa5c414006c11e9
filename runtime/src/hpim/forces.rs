//! The constraint force of a structural model at one point, from the multiplier equation (8)
//! with the penalty of (32) (\[HPIM\], digest §2.10):
//!
//! ```text
//! S λ = E M⁻¹ F − γ̂,   S = E M⁻¹ Eᵀ,   F = P + Q − C D' − K D,
//! γ̂ = γ − κ₁ sgn(Φ̇)|Φ̇|^p − κ₂ sgn(Φ)|Φ|^q,   Φ̇ = E D' + Φ_t,   γ = −R,
//! D'' = M⁻¹ (F − Eᵀ λ).
//! ```
//!
//! M is constant, so M⁻¹ is formed once; S (r × r, r the constraint count) is factored per
//! evaluation, with the rows of an over-constrained structure left out (λ_i = 0 on them,
//! [`super::schur`]). Kernel outputs are checked ([`SimError::NonFiniteKernel`]); an S that
//! stays singular after the selection is [`SimError::SingularKkt`] with the dependent rows.

use nalgebra::{DMatrix, DVector};

use super::schur::MultiplierMatrix;
use crate::error::{ConstraintRow, SimError, SingularBlock};
use crate::kernels::{self, checked};
use crate::kkt::Conditioning;
use crate::structural::Structure;
use crate::system::ConstrainedSystem;
use crate::table::{KernelArgs, KernelId, KernelOut};

/// The penalty of (32): κ₁ sgn(Φ̇)|Φ̇|^p + κ₂ sgn(Φ)|Φ|^q added to the acceleration constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penalty {
    /// κ₁ ≥ 0, on the velocity residual.
    pub kappa1: f64,
    /// κ₂ ≥ 0, on the position residual.
    pub kappa2: f64,
    /// Exponent p ≥ 1 of |Φ̇|.
    pub p: i32,
    /// Exponent q ≥ 1 of |Φ|.
    pub q: i32,
}

impl Penalty {
    /// No stabilization (κ₁ = κ₂ = 0).
    pub const NONE: Penalty = Penalty {
        kappa1: 0.0,
        kappa2: 0.0,
        p: 1,
        q: 1,
    };

    /// κ₁ sgn(x)|x|^p (or with κ₂, q).
    fn term(kappa: f64, power: i32, x: f64) -> f64 {
        kappa * x.signum() * x.abs().powi(power)
    }

    /// Typed errors for negative or non-finite gains and exponents below 1.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |option, value: String, reason| SimError::InvalidOption {
            option,
            value,
            reason,
        };
        for (name, k) in [
            ("penalty.kappa1", self.kappa1),
            ("penalty.kappa2", self.kappa2),
        ] {
            if !(k.is_finite() && k >= 0.0) {
                return Err(bad(name, k.to_string(), "a finite gain >= 0"));
            }
        }
        for (name, e) in [("penalty.p", self.p), ("penalty.q", self.q)] {
            if e < 1 {
                return Err(bad(name, e.to_string(), "a positive integer exponent"));
            }
        }
        Ok(())
    }
}

/// Workspace of the penalized multiplier solve, and its results (no allocation per call).
#[derive(Clone, Debug)]
pub(crate) struct ConstraintForce {
    minv: DMatrix<f64>,
    /// E = Φ_D at the last point.
    pub(crate) e: DMatrix<f64>,
    /// S = E M⁻¹ Eᵀ with the redundant rows left out.
    pub(crate) schur: MultiplierMatrix,
    gamma: Vec<f64>,
    phi: Vec<f64>,
    phi_t: Vec<f64>,
    rhs: Vec<f64>,
    force: DVector<f64>,
    work: DVector<f64>,
    pub(crate) penalty: Penalty,
    /// λ at the last point.
    pub(crate) lambda: DVector<f64>,
    /// D'' at the last point.
    pub(crate) accel: DVector<f64>,
    /// Q − Eᵀλ at the last point: the force HPIM expands in time.
    pub(crate) expanded: DVector<f64>,
    /// Evaluations (each one multiplier solve).
    pub(crate) evaluations: usize,
    /// The worst pivot spread of S = E M⁻¹ Eᵀ over the solves and its time.
    pub(crate) conditioning: Option<Conditioning>,
}

impl ConstraintForce {
    pub(crate) fn new(
        mass: &DMatrix<f64>,
        minv: DMatrix<f64>,
        rows: usize,
        penalty: Penalty,
    ) -> Self {
        let n = minv.nrows();
        Self {
            minv,
            e: DMatrix::zeros(rows, n),
            schur: MultiplierMatrix::new(mass, rows),
            gamma: vec![0.0; rows],
            phi: vec![0.0; rows],
            phi_t: vec![0.0; rows],
            rhs: vec![0.0; rows],
            force: DVector::zeros(n),
            work: DVector::zeros(n),
            penalty,
            lambda: DVector::zeros(rows),
            accel: DVector::zeros(n),
            expanded: DVector::zeros(n),
            evaluations: 0,
            conditioning: None,
        }
    }

    /// λ, D'' and Q − Eᵀλ at (t, D, D').
    pub(crate) fn eval<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        st: &Structure,
        t: f64,
        h: f64,
        d: &[f64],
        dv: &[f64],
    ) -> Result<(), SimError> {
        self.evaluations += 1;
        let r = self.e.nrows();
        kernels::jacobian(sys, t, d, &mut self.e)?;
        let a = KernelArgs {
            t,
            q: d,
            v: dv,
            lambda: &[],
            w: &[],
        };
        checked(sys, KernelId::Gamma, &a, KernelOut::Vector(&mut self.gamma))?;
        kernels::phi(sys, t, d, &mut self.phi)?;
        checked(sys, KernelId::PhiT, &a, KernelOut::Vector(&mut self.phi_t))?;
        st.force_into(t, d, dv, self.force.as_mut_slice());
        if r == 0 {
            self.accel.gemv(1.0, &self.minv, &self.force, 0.0);
            self.expanded.fill(0.0);
            st.add_nonlinear(t, d, dv, self.expanded.as_mut_slice());
            return Ok(());
        }
        if !self.schur.factor(&self.e, &self.minv, t) {
            return Err(SimError::SingularKkt {
                t,
                h,
                block: SingularBlock::Jacobian,
                dependent_rows: ConstraintRow::named(
                    &crate::lu::dependent_rows(&self.e, 1e-10).0,
                    &sys.constraint_names(),
                ),
            });
        }
        Conditioning::note(&mut self.conditioning, self.schur.pivot_spread(), t);
        let pen = self.penalty;
        for i in 0..r {
            let phi_dot = (0..d.len()).map(|j| self.e[(i, j)] * dv[j]).sum::<f64>() + self.phi_t[i];
            let gamma_hat = self.gamma[i]
                - Penalty::term(pen.kappa1, pen.p, phi_dot)
                - Penalty::term(pen.kappa2, pen.q, self.phi[i]);
            self.rhs[i] = self.schur.minv_et.column(i).dot(&self.force) - gamma_hat;
        }
        self.schur.solve_in_place(&mut self.rhs);
        self.schur.rows.zero_multipliers(&mut self.rhs);
        self.lambda.copy_from_slice(&self.rhs);
        // work = Eᵀλ (kept rows); D'' = M⁻¹ (F − Eᵀλ); expanded = Q − Eᵀλ.
        self.work.gemv(1.0, &self.schur.et, &self.lambda, 0.0);
        self.force -= &self.work;
        self.accel.gemv(1.0, &self.minv, &self.force, 0.0);
        self.expanded.copy_from(&self.work);
        self.expanded.neg_mut();
        st.add_nonlinear(t, d, dv, self.expanded.as_mut_slice());
        Ok(())
    }
}

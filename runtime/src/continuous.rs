//! Chin's continuous stabilizations of the index-3 DAE (\[CHIN\] §2.4, digest §2.2 "Ch. 2
//! generalisations") as a drift control: [`Stabilization::Continuous`](crate::Stabilization).
//!
//! Like Baumgarte they change the vector field in every evaluation, not the state after a
//! step, so every explicit method (RKSTAB, fixed-step Runge–Kutta, the Adams family) takes
//! them; the index-3 methods (Newmark/HHT/generalized-α, Radau) refuse them as they refuse
//! Baumgarte. The multipliers λ come from the *unstabilized* KKT solve (2.58b), and the
//! correction acts along Gᵀ instead of Baumgarte's M⁻¹Gᵀ. With r = G v + [Φ_t; b] the velocity
//! residual and Φ the position residual (holonomic rows first):
//!
//! | [`ContinuousChoice`] | q' | v' | the residuals then satisfy |
//! |---|---|---|---|
//! | `GGt`: (2.58), P₁ = P₂ = GGᵀ | v | a₀ − Gᵀ(GGᵀ)⁻¹ c, c = (2γ r + γ²Φ; γ r_A) | (2.60) Φ̈ + 2γΦ̇ + γ²Φ = 0, (A v + b)' = −γ (A v + b) |
//! | `Identity`: (2.58), P₁ = I, P₂⁻¹ = GGᵀ | v | a₀ − Gᵀ c, c = (2γ r + γ² G_Φ G_Φᵀ Φ; γ r_A) | (2.61), (A v + b)' = −γ AAᵀ(A v + b) |
//! | `TwoStep`: (2.63)–(2.64) | v − γ J₂ᵀ w | a_γ − γ Gᵀ w | s = r + γΦ: s' = −γ s; (A v + b)' = −γ (A v + b) |
//!
//! a₀ is the unstabilized acceleration of the KKT solve. The nonholonomic rows (index 2) get the
//! index-2 forms (2.45) (`GGt`), (2.50) (`Identity`) and Baumgarte's (2.41) (`TwoStep`, whose
//! first step is exactly that for them): their invariant is A v + b alone.
//!
//! The two-step route reduces the index by Baumgarte first, s = r + γΦ = 0 (2.63c), so a_γ is
//! the KKT solve with γ̂ = γ − γ r (Baumgarte with α = γ/2, β = 0), and then stabilizes s along
//! the normal of its manifold in (q, v): H₂ = ∂(s; A v + b)/∂(q, v) = [J₂, G] with
//! J₂ = ∂r/∂q + γ (Φ_q; 0) and w = (H₂H₂ᵀ)⁻¹ (s; 0) — the (2.45) choice, with the same γ. With
//! q' ≠ v, Φ̇ is no longer r: the law is on s (Φ itself decays with s as its source). (The print's
//! (2.64) is the multiplier form with a → 0; a gain keeps it an ODE any explicit method takes.)
//! ∂r/∂q (L(q, v) + Φ_qt for the holonomic rows, ∂(A v + b)/∂q for the nonholonomic ones) is
//! taken by central differences of r in each q_j (step ε^⅓ max(1, |q_j|), error ~1e-11
//! relative): 2n extra evaluations of G, Φ_t and b per right-hand side, which makes the
//! two-step route the costliest of the three (no kernel gives ∂(A v + b)/∂q or, outside the
//! tangent group, Φ_qt).
//!
//! Rows left out as redundant by the KKT solve ([`crate::redundancy`]) are left out here too
//! (zero rows of c, identity rows of GGᵀ): they stay satisfied as combinations of the kept ones.
//!
//! A large model with the sparse kernel forms takes the sparse path (`continuous_sparse.rs`:
//! G as its nonzeros, the banded augmented solve instead of GGᵀ or H₂H₂ᵀ). For `TwoStep` the
//! differences of J₂ run over column groups of its pattern (L's and Φ_q's stated nonzeros)
//! instead of every q_j; a model with nonholonomic rows (no pattern for ∂(A v + b)/∂q) keeps
//! the dense path.

use nalgebra::DMatrix;

use crate::baumgarte::Baumgarte;
use crate::continuous_sparse::{SparseGram, SparseTwoStep, subtract_transpose};
use crate::error::{ConstraintRow, SimError, SingularBlock};
use crate::kernels;
use crate::kkt::KktWorkspace;
use crate::lu::{DenseLu, dependent_rows};
use crate::redundancy::RowSelection;
use crate::sparse::Jac;
use crate::system::{ConstrainedSystem, Dims};

/// Which stabilization matrices of \[CHIN\] (2.58) / (2.63)–(2.64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContinuousChoice {
    /// (2.58) with P₁ = P₂ = GGᵀ: Baumgarte's characteristic equation (2.60) along Gᵀ.
    GGt,
    /// (2.58) with P₁ = I, P₂⁻¹ = GGᵀ: (2.61).
    Identity,
    /// Baumgarte to index 2, then the normal (2.45) stabilization of that (2.63)–(2.64).
    TwoStep,
}

/// A continuous stabilization with its gain γ ≥ 0 (γ = 0 is no stabilization).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Continuous {
    /// The stabilization matrices.
    pub choice: ContinuousChoice,
    /// The gain γ (1/s): the residuals decay like e^{−γt} (critically damped for GGᵀ and the
    /// two-step route, as Baumgarte's B(2γ, γ²)).
    pub gamma: f64,
}

impl Continuous {
    /// `choice` with gain `gamma`.
    pub fn new(choice: ContinuousChoice, gamma: f64) -> Self {
        Self { choice, gamma }
    }

    /// The Baumgarte γ̂ of the two-step route's first step (α = γ/2, β = 0), else `None`.
    pub(crate) fn first_step(&self) -> Option<Baumgarte> {
        (self.choice == ContinuousChoice::TwoStep).then_some(Baumgarte {
            alpha: 0.5 * self.gamma,
            beta: 0.0,
        })
    }

    /// A short name for reports.
    pub fn name(&self) -> &'static str {
        match self.choice {
            ContinuousChoice::GGt => "continuous-ggt",
            ContinuousChoice::Identity => "continuous-identity",
            ContinuousChoice::TwoStep => "continuous-two-step",
        }
    }
}

/// The correction's workspace (allocated once; `apply` allocates nothing).
#[derive(Clone, Debug)]
pub(crate) struct Correction {
    kind: Continuous,
    dims: Dims,
    phi: Vec<f64>,
    vel_res: Vec<f64>,
    tmp: Vec<f64>,
    c: Vec<f64>,
    lu: DenseLu,
    /// J₂ (two-step), (m + k) × n, and the shifted Jacobian / residuals of its differences.
    j2: DMatrix<f64>,
    jac_shift: DMatrix<f64>,
    q_shift: Vec<f64>,
    plus: Vec<f64>,
    minus: Vec<f64>,
    /// The sparse path's workspaces ([`SparseGram`] for `GGt` and `Identity`,
    /// [`SparseTwoStep`] for `TwoStep`), chosen on the first [`Correction::needs_dense`];
    /// `None` on the dense path.
    sparse: Option<SparseGram>,
    two_step: Option<Box<SparseTwoStep>>,
    /// Whether that choice was made.
    chosen: bool,
}

impl Correction {
    pub(crate) fn new(kind: Continuous, dims: Dims) -> Self {
        let (n, m, r) = (dims.n, dims.m, dims.constraint_rows());
        let two = kind.choice == ContinuousChoice::TwoStep;
        Self {
            kind,
            dims,
            phi: vec![0.0; m],
            vel_res: vec![0.0; r],
            tmp: vec![0.0; r],
            c: vec![0.0; r],
            lu: DenseLu::new(r),
            j2: DMatrix::zeros(if two { r } else { 0 }, n),
            jac_shift: DMatrix::zeros(if two { r } else { 0 }, n),
            q_shift: vec![0.0; if two { n } else { 0 }],
            plus: vec![0.0; if two { r } else { 0 }],
            minus: vec![0.0; if two { r } else { 0 }],
            sparse: None,
            two_step: None,
            chosen: false,
        }
    }

    /// [`Correction::apply`] with G and its left-out rows from `kkt`, the workspace of the
    /// KKT solve just made at (t, q, v): G is written out dense first on the dense path.
    #[allow(clippy::too_many_arguments)] // state, the workspace and the field
    pub(crate) fn apply_after<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, h): (f64, f64),
        q: &[f64],
        v: &[f64],
        kkt: &mut KktWorkspace,
        fq: &mut [f64],
        fv: &mut [f64],
    ) -> Result<(), SimError> {
        let dense = self.needs_dense(sys, t, q);
        if dense {
            kkt.dense_jacobian();
        }
        let jac = match dense {
            true => Jac::Dense(&kkt.jac),
            false => kkt.jacobian(),
        };
        self.apply(sys, t, h, q, v, jac, &kkt.rows, fq, fv)
    }

    /// Whether [`Correction::apply`] needs G dense (the dense path); the first call chooses
    /// the path for `sys` (module docs; the two-step route checks L's pattern at (t, q)).
    pub(crate) fn needs_dense<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> bool {
        if !self.chosen {
            self.chosen = true;
            match self.kind.choice {
                ContinuousChoice::TwoStep => {
                    self.two_step = SparseTwoStep::for_system(sys, self.dims, (t, q)).map(Box::new)
                }
                ContinuousChoice::GGt | ContinuousChoice::Identity => {
                    self.sparse = SparseGram::for_system(sys, self.dims)
                }
            }
        }
        self.sparse.is_none() && self.two_step.is_none()
    }

    /// Correct the field (fq, fv) = (v, a) at (t, q, v) in place; `jac` is G(t, q) (left by
    /// the KKT solve; dense if [`Correction::needs_dense`]) and `rows` its left-out rows. `h`
    /// labels errors.
    #[allow(clippy::too_many_arguments)] // state, G, its row selection and the field
    fn apply<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &[f64],
        v: &[f64],
        jac: Jac<'_>,
        rows: &RowSelection,
        fq: &mut [f64],
        fv: &mut [f64],
    ) -> Result<(), SimError> {
        let r = self.dims.constraint_rows();
        if r == 0 || self.kind.gamma == 0.0 {
            return Ok(());
        }
        kernels::phi(sys, t, q, &mut self.phi)?;
        kernels::velocity_residual(sys, t, q, v, jac, &mut self.tmp, &mut self.vel_res)?;
        match jac {
            Jac::Sparse(g) => self.apply_sparse(sys, (t, q, v, h), g, rows, fq, fv),
            Jac::Dense(jac) => self.apply_dense(sys, (t, q, v, h), jac, rows, fq, fv),
        }
    }

    /// The sparse path, with `phi` and `vel_res` at hand.
    #[allow(clippy::too_many_arguments)] // state, G, its row selection and the field
    fn apply_sparse<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, q, v, h): (f64, &[f64], &[f64], f64),
        g: &crate::sparse::SparseMatrix,
        rows: &RowSelection,
        fq: &mut [f64],
        fv: &mut [f64],
    ) -> Result<(), SimError> {
        let (m, gamma) = (self.dims.m, self.kind.gamma);
        if let Some(two_step) = &mut self.two_step {
            // No nonholonomic rows on this path: s = r + γΦ on every row.
            for (c, (r, phi)) in self.c.iter_mut().zip(self.vel_res.iter().zip(&self.phi)) {
                *c = r + gamma * phi;
            }
            let (state, field) = ((q, v), (fq, fv));
            return two_step.subtract_correction(
                sys,
                (t, h, gamma),
                state,
                g,
                rows,
                &self.c,
                field,
            );
        }
        let sparse = self
            .sparse
            .as_mut()
            .expect("Correction: G as nonzeros on the dense path");
        if self.kind.choice == ContinuousChoice::Identity {
            sparse.ggt_phi(g, &self.phi, rows, &mut self.c);
        }
        for (i, c) in self.c.iter_mut().enumerate() {
            *c = match (self.kind.choice, i < m) {
                (_, false) => gamma * self.vel_res[i],
                (ContinuousChoice::GGt, true) => {
                    2.0 * gamma * self.vel_res[i] + gamma * gamma * self.phi[i]
                }
                (ContinuousChoice::Identity, true) if rows.contains(i) => 0.0,
                (ContinuousChoice::Identity, true) => {
                    2.0 * gamma * self.vel_res[i] + gamma * gamma * *c
                }
                (ContinuousChoice::TwoStep, true) => unreachable!("two-step: its own workspace"),
            };
        }
        match self.kind.choice {
            ContinuousChoice::GGt => sparse.subtract_ggt_solve(sys, g, &self.c, (t, h), fv),
            ContinuousChoice::Identity => {
                for i in rows.left_out() {
                    self.c[*i] = 0.0;
                }
                subtract_transpose(Jac::Sparse(g), &self.c, 1.0, fv);
                Ok(())
            }
            ContinuousChoice::TwoStep => unreachable!("two-step: its own workspace"),
        }
    }

    /// The dense path, with `phi` and `vel_res` at hand.
    #[allow(clippy::too_many_arguments)] // state, G, its row selection and the field
    fn apply_dense<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, q, v, h): (f64, &[f64], &[f64], f64),
        jac: &DMatrix<f64>,
        rows: &RowSelection,
        fq: &mut [f64],
        fv: &mut [f64],
    ) -> Result<(), SimError> {
        let (m, r, gamma) = (self.dims.m, self.dims.constraint_rows(), self.kind.gamma);
        match self.kind.choice {
            ContinuousChoice::GGt => {
                for i in 0..r {
                    self.c[i] = if i < m {
                        2.0 * gamma * self.vel_res[i] + gamma * gamma * self.phi[i]
                    } else {
                        gamma * self.vel_res[i]
                    };
                }
                self.solve_gram(sys, jac, None, rows, t, h)?;
                subtract_transpose(jac.into(), &self.c, 1.0, fv);
            }
            ContinuousChoice::Identity => {
                for i in 0..r {
                    self.c[i] = if rows.contains(i) {
                        0.0
                    } else if i < m {
                        let ggt_phi: f64 = (0..m)
                            .filter(|&k| !rows.contains(k))
                            .map(|k| row_dot(jac, i, jac, k) * self.phi[k])
                            .sum();
                        2.0 * gamma * self.vel_res[i] + gamma * gamma * ggt_phi
                    } else {
                        gamma * self.vel_res[i]
                    };
                }
                subtract_transpose(jac.into(), &self.c, 1.0, fv);
            }
            ContinuousChoice::TwoStep => {
                self.velocity_jacobian(sys, t, q, v)?;
                for i in 0..r {
                    // Nonholonomic rows: index 2 already, the first step's Baumgarte is their
                    // (2.41); s_A = 0 keeps them out of the second step's correction.
                    self.c[i] = if i < m {
                        self.vel_res[i] + gamma * self.phi[i]
                    } else {
                        0.0
                    };
                    if i < m {
                        for j in 0..self.dims.n {
                            self.j2[(i, j)] += gamma * jac[(i, j)];
                        }
                    }
                }
                let j2 = std::mem::replace(&mut self.j2, DMatrix::zeros(0, 0));
                let solved = self.solve_gram(sys, jac, Some(&j2), rows, t, h);
                self.j2 = j2;
                solved?;
                subtract_transpose((&self.j2).into(), &self.c, gamma, fq);
                subtract_transpose(jac.into(), &self.c, gamma, fv);
            }
        }
        Ok(())
    }

    /// c ← (G Gᵀ + J Jᵀ)⁻¹ c (J absent: G Gᵀ), left-out rows as identity rows with c = 0.
    fn solve_gram<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        jac: &DMatrix<f64>,
        extra: Option<&DMatrix<f64>>,
        rows: &RowSelection,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let r = self.dims.constraint_rows();
        let a = self.lu.matrix_mut();
        for i in 0..r {
            for k in 0..r {
                a[(i, k)] = if rows.contains(i) || rows.contains(k) {
                    f64::from(u8::from(i == k))
                } else {
                    row_dot(jac, i, jac, k) + extra.map_or(0.0, |j| row_dot(j, i, j, k))
                };
            }
        }
        for i in rows.left_out() {
            self.c[*i] = 0.0;
        }
        if self.lu.factor().is_err() {
            return Err(singular_gram(sys, jac, (t, h)));
        }
        self.lu.solve_in_place(&mut self.c);
        Ok(())
    }

    /// J₂ ← ∂r/∂q with r = G v + [Φ_t; b] (m + k rows), by central differences (module docs).
    fn velocity_jacobian<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), SimError> {
        let (n, r) = (self.dims.n, self.dims.constraint_rows());
        self.q_shift.copy_from_slice(q);
        for j in 0..n {
            let s = difference_step(q[j]);
            for plus in [true, false] {
                self.q_shift[j] = if plus { q[j] + s } else { q[j] - s };
                kernels::jacobian(sys, t, &self.q_shift, &mut self.jac_shift)?;
                let target = if plus {
                    &mut self.plus
                } else {
                    &mut self.minus
                };
                kernels::velocity_residual(
                    sys,
                    t,
                    &self.q_shift,
                    v,
                    (&self.jac_shift).into(),
                    &mut self.tmp,
                    target,
                )?;
            }
            self.q_shift[j] = q[j];
            for i in 0..r {
                self.j2[(i, j)] = (self.plus[i] - self.minus[i]) / (2.0 * s);
            }
        }
        Ok(())
    }
}

/// The error for a singular Gram matrix (GGᵀ, or H₂H₂ᵀ on either path): G lacks full row
/// rank; its dependent rows named.
pub(crate) fn singular_gram<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    jac: &DMatrix<f64>,
    (t, h): (f64, f64),
) -> SimError {
    let (dependent, _) = dependent_rows(jac, f64::EPSILON.sqrt());
    SimError::SingularKkt {
        t,
        h,
        block: SingularBlock::Jacobian,
        dependent_rows: ConstraintRow::named(&dependent, &sys.constraint_names()),
    }
}

/// The central-difference step of J₂ in a coordinate of value `x`: ε^⅓ max(1, |x|) (module
/// docs), on both paths.
pub(crate) fn difference_step(x: f64) -> f64 {
    f64::EPSILON.cbrt() * 1f64.max(x.abs())
}

/// Σ_j a_ij b_kj.
fn row_dot(a: &DMatrix<f64>, i: usize, b: &DMatrix<f64>, k: usize) -> f64 {
    (0..a.ncols()).map(|j| a[(i, j)] * b[(k, j)]).sum()
}

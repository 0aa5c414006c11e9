//! The projected formulation of HPIM ([`super::Formulation::Projected`], ours): the linear
//! part of the constraint force is folded into H, so that only a smooth remainder is
//! expanded in time by the Taylor treatment.
//!
//! With E₀ = Φ_D(t₀, D₀) frozen, S₀ = E₀ M⁻¹ E₀ᵀ and the projector Π₀ = I − E₀ᵀ S₀⁻¹ E₀ M⁻¹,
//! the multiplier equation (8) gives, when E = E₀,
//!
//! ```text
//! Eᵀλ = (I − Π₀)(P + Q − C D' − K D) − E₀ᵀ S₀⁻¹ γ̂,
//! M D'' + Π₀ C D' + Π₀ K D = Π₀ (P + Q) + E₀ᵀ S₀⁻¹ γ̂,
//! ```
//!
//! so the stiff state dependence of Eᵀλ (through K D, C D') is exact in H₀ (H of (9) with
//! Π₀C, Π₀K), and the force left to expand, g = M D'' + Π₀(C D' + K D) − Π₀ P_exact(t), is a
//! smooth function of time (γ̂ = γ − penalty, Q) plus, for a nonlinear constraint, the part
//! of Eᵀλ due to E − E₀. The paper's explicit Eᵀλ turns into an explicit multistep treatment
//! of a force with the structure's stiffness, unstable for τ|μ|max ≫ 1 (the slewing beam at
//! τ = 1e-3); this one is exact for constant E whatever τ.
//!
//! H₀ is singular (the constrained directions E₀ D are double integrators of γ̂), so the
//! expanded force and the polynomial loads go through the Duhamel integrals
//! [`super::expm::duhamel`] (no H⁻¹); harmonic and exponential loads keep their particular
//! integrals on H₀ with the projected shapes Π₀ b.
//!
//! An over-constrained structure: Π₀ is built from the rows the multiplier solve keeps at E₀
//! (its [`RowSelection`], [`super::schur`]), E₀ → E_kept. Π₀ depends only on the row space of
//! E₀, which the kept rows span, so it is the same projector; the left-out rows only made S₀
//! singular.

use nalgebra::{DMatrix, DVector};

use super::expm;
use super::particular::{LoadIntegral, load_integral};
use super::setup::{Setup, first_order};
use crate::error::{ConstraintRow, SimError, SingularBlock};
use crate::redundancy::RowSelection;
use crate::structural::{Load, Structure, TimeFunction};
use crate::system::ConstrainedSystem;

/// H₀, its exponential and Duhamel integrals, and what turns a multiplier solve into g.
pub(crate) struct Projection {
    /// E₀, the Jacobian the projection was built about.
    e0: DMatrix<f64>,
    /// The rows of E₀ left out of Π₀ (the multiplier solve's selection then).
    left_out: Vec<usize>,
    /// How many times the projection was built (the first included).
    pub(crate) refreshes: usize,
    /// E₀ᵀ S₀⁻¹ E₀ M⁻¹ = I − Π₀.
    coupling: DMatrix<f64>,
    /// H₀ = H(Π₀C, Π₀K).
    pub(crate) h: DMatrix<f64>,
    /// exp(H₀τ) and W₀, W₁, W₂ (2n × n) for the current τ.
    pub(crate) t_mat: DMatrix<f64>,
    pub(crate) w: Vec<DMatrix<f64>>,
    /// The particular integrals of the harmonic and exponential loads (shapes Π₀ b).
    pub(crate) loads: Vec<LoadIntegral>,
    /// Those loads' projected shapes and time functions (subtracted from g).
    exact: Vec<Load>,
    mass: DMatrix<f64>,
    damping: DMatrix<f64>,
    stiffness: DMatrix<f64>,
    /// The model's constraint names (for the error of a singular S₀).
    row_names: Vec<String>,
    /// Workspace of the residual.
    work: DVector<f64>,
}

impl Projection {
    /// Π₀, H₀ and its exponentials for step `tau` about E₀ = `e0` at t₀ (the Jacobian of the
    /// multiplier solve at the initial point, whose selection `rows` leaves out the
    /// redundant rows).
    pub(crate) fn new<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        st: &Structure,
        setup: &Setup,
        (e0, rows): (&DMatrix<f64>, &RowSelection),
        t0: f64,
        tau: f64,
        doublings: u32,
    ) -> Result<Self, SimError> {
        let n = st.dofs();
        let mut p = Self {
            e0: e0.clone(),
            left_out: Vec::new(),
            coupling: DMatrix::zeros(n, n),
            h: DMatrix::zeros(2 * n, 2 * n),
            t_mat: DMatrix::zeros(2 * n, 2 * n),
            w: Vec::new(),
            loads: Vec::new(),
            exact: Vec::new(),
            mass: st.mass.clone(),
            damping: st.damping.clone(),
            stiffness: st.stiffness.clone(),
            work: DVector::zeros(n),
            refreshes: 0,
            row_names: sys.constraint_names(),
        };
        p.project(st, &setup.minv, (e0, rows), t0, tau, doublings)?;
        Ok(p)
    }

    /// ‖E − E₀‖_F / ‖E₀‖_F: how far the constraint Jacobian has turned since the projection.
    pub(crate) fn turn(&self, e: &DMatrix<f64>) -> f64 {
        let scale = self.e0.norm();
        if scale == 0.0 {
            0.0
        } else {
            let diff: f64 = e
                .iter()
                .zip(self.e0.iter())
                .map(|(a, b)| (a - b).powi(2))
                .sum();
            diff.sqrt() / scale
        }
    }

    /// Whether Π₀ was built with the rows `rows` leaves out now: a change of the selection
    /// (rows regained, or chosen again) asks for a new Π₀, so that the kept rows' constraint
    /// stiffness is in H₀ and not in the explicitly expanded force.
    pub(crate) fn built_with(&self, rows: &RowSelection) -> bool {
        self.left_out == rows.left_out()
    }

    /// Rebuild Π₀, H₀, the load integrals and the exponentials about E₀ = `e` with the rows
    /// `rows` leaves out dropped (at time `t`, for the error of a singular S₀).
    pub(crate) fn project(
        &mut self,
        st: &Structure,
        minv: &DMatrix<f64>,
        (e, rows): (&DMatrix<f64>, &RowSelection),
        t: f64,
        tau: f64,
        doublings: u32,
    ) -> Result<(), SimError> {
        let coupling = if rows.is_empty() {
            coupling(e, minv, t, tau, &self.row_names)?
        } else {
            let kept: Vec<usize> = (0..e.nrows()).filter(|&i| !rows.contains(i)).collect();
            let names: Vec<String> = kept.iter().map(|&i| self.row_names[i].clone()).collect();
            coupling(&e.select_rows(&kept), minv, t, tau, &names)?
        };
        let project = |a: &DMatrix<f64>| a - &coupling * a;
        let h = first_order(minv, &project(&st.damping), &project(&st.stiffness));
        self.exact.clear();
        self.loads.clear();
        for (i, load) in st.loads.iter().enumerate() {
            if matches!(load.time, TimeFunction::Polynomial(_)) {
                continue;
            }
            let projected = Load {
                shape: &load.shape - &coupling * &load.shape,
                time: load.time.clone(),
            };
            self.loads.push(load_integral(&h, None, &projected, i)?);
            self.exact.push(projected);
        }
        (self.t_mat, self.w) = expm::duhamel(&h, tau, doublings, 2);
        self.h = h;
        self.coupling = coupling;
        self.e0.copy_from(e);
        self.left_out = rows.left_out().to_vec();
        self.refreshes += 1;
        Ok(())
    }

    /// Recompute exp(H₀τ) and the Duhamel integrals for a new step size.
    pub(crate) fn retime(&mut self, tau: f64, doublings: u32) {
        (self.t_mat, self.w) = expm::duhamel(&self.h, tau, doublings, 2);
    }

    /// g = M D'' + Π₀(C D' + K D) − Π₀ P_exact(t) into `out`.
    pub(crate) fn residual_into(
        &mut self,
        t: f64,
        d: &[f64],
        dv: &[f64],
        accel: &DVector<f64>,
        out: &mut DVector<f64>,
    ) {
        let n = d.len();
        let work = &mut self.work;
        for i in 0..n {
            let mut s = 0.0;
            for j in 0..n {
                s += self.damping[(i, j)] * dv[j] + self.stiffness[(i, j)] * d[j];
            }
            work[i] = s;
        }
        // out = M a + Π₀ w − Σ (Π₀ b) φ(t), Π₀ w = w − coupling w.
        out.gemv(1.0, &self.mass, accel, 0.0);
        *out += &*work;
        out.gemv(-1.0, &self.coupling, work, 1.0);
        for load in &self.exact {
            out.axpy(-load.time.value(t), &load.shape, 1.0);
        }
    }
}

/// E₀ᵀ S₀⁻¹ E₀ M⁻¹ (zero without constraints); `names` those of E₀'s rows.
fn coupling(
    e: &DMatrix<f64>,
    minv: &DMatrix<f64>,
    t: f64,
    tau: f64,
    names: &[String],
) -> Result<DMatrix<f64>, SimError> {
    let n = minv.nrows();
    if e.nrows() == 0 {
        return Ok(DMatrix::zeros(n, n));
    }
    let e_minv = e * minv;
    let s = &e_minv * e.transpose();
    let singular = || SimError::SingularKkt {
        t,
        h: tau,
        block: SingularBlock::Jacobian,
        dependent_rows: ConstraintRow::named(&crate::lu::dependent_rows(e, 1e-10).0, names),
    };
    let sinv_e_minv = s.lu().solve(&e_minv).ok_or_else(singular)?;
    Ok(e.transpose() * sinv_e_minv)
}

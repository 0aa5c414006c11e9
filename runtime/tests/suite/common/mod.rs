//! Shared test support: a compact [`Model`] trait for hand-written kernels, the [`Sys`] adapter
//! to [`ConstrainedSystem`], and the comparison helpers
//! (re-exported from `mbsim-testkit`, the one place they are defined).
//!
//! Hand-written models stand in for generated code until the proc-macro lands; they live in
//! `models.rs`. Every integration-test binary includes this module, so not every item is used
//! by every binary.
#![allow(dead_code)] // each test binary uses a different subset of the shared helpers
#![allow(unused_imports)] // likewise for the re-exported comparison helpers

pub mod models;

pub use mbsim_testkit::{assert_below, assert_close, assert_within};

use mbsim_runtime::{
    ConstrainedSystem, Dims, DynamicsOut, MatOut, ParameterError, Sparsity, zero_fill,
};

/// What a hand-written test model provides; outputs arrive zero-filled, so only nonzero
/// entries need to be written.
pub trait Model {
    /// Name.
    fn name(&self) -> &'static str;
    /// Dimensions.
    fn dims(&self) -> Dims;
    /// Φ(t, q).
    fn phi(&self, _t: f64, _q: &[f64], _out: &mut [f64]) {}
    /// Φ_q(t, q).
    fn phi_q(&self, _t: f64, _q: &[f64], _out: &mut MatOut<'_>) {}
    /// Φ_t(t, q).
    fn phi_t(&self, _t: f64, _q: &[f64], _out: &mut [f64]) {}
    /// A(t, q).
    fn nh(&self, _t: f64, _q: &[f64], _out: &mut MatOut<'_>) {}
    /// b(t, q).
    fn nh_b(&self, _t: f64, _q: &[f64], _out: &mut [f64]) {}
    /// γ(t, q, v) (length m + k).
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// L(t, q, v) = ∂(Φ_q v)/∂q.
    fn l(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut MatOut<'_>) {}
    /// M(t, q).
    fn mass(&self, t: f64, q: &[f64], out: &mut MatOut<'_>);
    /// Q(t, q, v).
    fn force(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// Φ_q's structural nonzeros, row-major (`None`: dense).
    fn phi_q_pattern(&self) -> Option<Vec<(usize, usize)>> {
        None
    }
    /// M's structural nonzeros, row-major (`None`: dense).
    fn mass_pattern(&self) -> Option<Vec<(usize, usize)>> {
        None
    }
}

/// Adapter from [`Model`] to the kernel contract.
pub struct Sys<T>(pub T);

const NO_NAMES: &[&str] = &[];

impl<T: Model> ConstrainedSystem for Sys<T> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn dims(&self) -> Dims {
        self.0.dims()
    }
    fn coordinate_names(&self) -> &'static [&'static str] {
        NO_NAMES
    }
    fn parameter_names(&self) -> &'static [&'static str] {
        NO_NAMES
    }
    fn parameter(&self, _name: &str) -> Option<f64> {
        None
    }
    fn set_parameter(&mut self, name: &str, _value: f64) -> Result<(), ParameterError> {
        Err(ParameterError::Unknown {
            model: self.0.name(),
            name: name.to_string(),
            known: String::new(),
        })
    }
    fn phi_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.0.phi(t, q, out);
    }
    fn phi_q_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        zero_fill(&mut out);
        self.0.phi_q(t, q, &mut out);
    }
    fn phi_t_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.0.phi_t(t, q, out);
    }
    fn nh_matrix_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        zero_fill(&mut out);
        self.0.nh(t, q, &mut out);
    }
    fn nh_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.0.nh_b(t, q, out);
    }
    fn gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.0.gamma(t, q, v, out);
    }
    fn l_into(&self, t: f64, q: &[f64], v: &[f64], mut out: MatOut<'_>) {
        zero_fill(&mut out);
        self.0.l(t, q, v, &mut out);
    }
    fn mass_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        zero_fill(&mut out);
        self.0.mass(t, q, &mut out);
    }
    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.0.force(t, q, v, out);
    }
    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        let d = self.0.dims();
        let DynamicsOut {
            mass,
            force,
            mut jacobian,
            gamma,
        } = out;
        self.mass_into(t, q, mass);
        self.force_into(t, q, v, force);
        self.phi_q_into(t, q, jacobian.rows_mut(0, d.m));
        self.nh_matrix_into(t, q, jacobian.rows_mut(d.m, d.k));
        self.gamma_into(t, q, v, gamma);
    }
    /// Dense unless the model states its pattern (the chain in body coordinates does, for
    /// the banded KKT path). Leaked: a workspace asks once, a test makes a few workspaces.
    fn phi_q_sparsity(&self) -> Sparsity {
        let d = self.0.dims();
        match self.0.phi_q_pattern() {
            Some(nz) => leaked(d.m, d.n, nz),
            None => dense_pattern(d.m, d.n),
        }
    }
    fn mass_sparsity(&self) -> Option<Sparsity> {
        let n = self.0.dims().n;
        self.0.mass_pattern().map(|nz| leaked(n, n, nz))
    }
    fn l_sparsity(&self) -> Sparsity {
        let d = self.0.dims();
        dense_pattern(d.m, d.n)
    }
}

fn dense_pattern(rows: usize, cols: usize) -> Sparsity {
    let nz: Vec<(usize, usize)> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .collect();
    leaked(rows, cols, nz)
}

fn leaked(rows: usize, cols: usize, nz: Vec<(usize, usize)>) -> Sparsity {
    Sparsity {
        rows,
        cols,
        nonzeros: Box::leak(nz.into_boxed_slice()),
    }
}

/// Integrate with `method` from (t0, q0, v0) to `t_end`, sampling at `times`: the suites'
/// one-line form of [`mbsim_runtime::integrate`] with a [`mbsim_runtime::Problem`].
#[allow(clippy::too_many_arguments)] // model, method, span, state and grid, as in a table row
pub fn simulate<S: ConstrainedSystem + ?Sized, I: mbsim_runtime::Integrator>(
    sys: &S,
    method: &I,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
    times: &[f64],
) -> Result<(mbsim_runtime::Recorder, mbsim_runtime::Stats), mbsim_runtime::SimError> {
    let problem = mbsim_runtime::Problem::new(t0, t_end, q0, v0).with_times(times);
    mbsim_runtime::integrate(sys, method, &problem).map(|(rec, sol)| (rec, sol.stats))
}

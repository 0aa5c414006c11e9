//! The four-bar chain in body coordinates for the implicit methods' sparse path: [`SprungChain`]
//! (the chain of `common::models::FourBarBodies`, optionally with a linear spring between two
//! bodies that share no joint, and its tangent kernels) and [`Nonzeros`] (a hand-written model
//! given the sparse kernel forms, gathered from its dense kernels through its stated patterns,
//! as generated code writes them for large sparse models).

use std::cell::RefCell;

use nalgebra::DMatrix;

use super::Tangent;
use crate::common::models::FourBarBodies;
use crate::common::{Model, Sys};
use mbsim_runtime::{
    ConstrainedSystem, Dims, DynamicsNonzeros, DynamicsOut, MatOut, ParameterError, Sparsity,
    TangentSystem,
};

/// A spring k (x_a − x_b − x_a⁰ + x_b⁰) between the x coordinates of two bodies.
#[derive(Clone, Copy, Debug)]
pub struct Spring {
    pub a: usize,
    pub b: usize,
    pub k: f64,
    /// x_a − x_b at rest.
    pub rest: f64,
}

/// The chain with an optional spring (module docs).
#[derive(Clone, Debug)]
pub struct SprungChain {
    pub chain: FourBarBodies,
    pub spring: Option<Spring>,
}

impl Model for SprungChain {
    fn name(&self) -> &'static str {
        "SprungChain"
    }
    fn dims(&self) -> Dims {
        self.chain.dims()
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.chain.phi(t, q, out);
    }
    fn phi_q(&self, t: f64, q: &[f64], out: &mut MatOut<'_>) {
        self.chain.phi_q(t, q, out);
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.chain.gamma(t, q, v, out);
    }
    fn l(&self, t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        self.chain.l(t, q, v, out);
    }
    fn mass(&self, t: f64, q: &[f64], out: &mut MatOut<'_>) {
        self.chain.mass(t, q, out);
    }
    fn force(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.chain.force(t, q, v, out);
        if let Some(s) = self.spring {
            let (xa, xb) = (3 * s.a, 3 * s.b);
            let f = s.k * (q[xa] - q[xb] - s.rest);
            out[xa] -= f;
            out[xb] += f;
        }
    }
    fn phi_q_pattern(&self) -> Option<Vec<(usize, usize)>> {
        Some(self.chain.phi_q_pattern())
    }
    fn mass_pattern(&self) -> Option<Vec<(usize, usize)>> {
        Some(self.chain.mass_pattern())
    }
}

impl Tangent for SprungChain {
    fn force_q(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut MatOut<'_>) {
        if let Some(s) = self.spring {
            let (xa, xb) = (3 * s.a, 3 * s.b);
            out[(xa, xa)] = -s.k;
            out[(xa, xb)] = s.k;
            out[(xb, xa)] = s.k;
            out[(xb, xb)] = -s.k;
        }
    }
    /// ∂(Φ_qᵀλ)/∂q: column i of Φ_q is Φ_q e_i, so its derivative is L(q, e_i) (L = ∂(Φ_q v)/∂q),
    /// and entry (i, j) is Σ_r λ_r L(q, e_i)_rj, exactly.
    fn phi_q_t_lambda_q(&self, t: f64, q: &[f64], l: &[f64], out: &mut MatOut<'_>) {
        let d = self.dims();
        let mut unit = vec![0.0; d.n];
        let mut lm = DMatrix::zeros(d.m, d.n);
        for i in 0..d.n {
            unit[i] = 1.0;
            lm.fill(0.0);
            self.chain.l(t, q, &unit, &mut lm.as_view_mut());
            unit[i] = 0.0;
            for j in 0..d.n {
                out[(i, j)] = (0..d.m).map(|r| l[r] * lm[(r, j)]).sum();
            }
        }
    }
}

/// A hand-written model with the sparse kernel forms (module docs); k = 0.
pub struct Nonzeros<T> {
    pub sys: Sys<T>,
    mass: Sparsity,
    jac: Sparsity,
    /// Dense M and G the gathers read.
    scratch: RefCell<(DMatrix<f64>, DMatrix<f64>)>,
}

impl<T: Model> Nonzeros<T> {
    /// `model` (whose M and Φ_q patterns are stated) with its sparse forms.
    pub fn new(model: T) -> Self {
        let d = model.dims();
        assert_eq!(d.k, 0, "Nonzeros: holonomic models only");
        let leak = |rows, cols, nz: Vec<(usize, usize)>| Sparsity {
            rows,
            cols,
            nonzeros: Box::leak(nz.into_boxed_slice()),
        };
        let mass = leak(d.n, d.n, model.mass_pattern().expect("M's pattern"));
        let jac = leak(d.m, d.n, model.phi_q_pattern().expect("Φ_q's pattern"));
        Self {
            sys: Sys(model),
            mass,
            jac,
            scratch: RefCell::new((DMatrix::zeros(d.n, d.n), DMatrix::zeros(d.m, d.n))),
        }
    }

    fn gather(dense: &DMatrix<f64>, pattern: &Sparsity, out: &mut [f64]) {
        for (o, &(i, j)) in out.iter_mut().zip(pattern.nonzeros) {
            *o = dense[(i, j)];
        }
    }
}

impl<T: Model> ConstrainedSystem for Nonzeros<T> {
    fn name(&self) -> &'static str {
        self.sys.name()
    }
    fn dims(&self) -> Dims {
        self.sys.dims()
    }
    fn coordinate_names(&self) -> &'static [&'static str] {
        self.sys.coordinate_names()
    }
    fn parameter_names(&self) -> &'static [&'static str] {
        self.sys.parameter_names()
    }
    fn parameter(&self, name: &str) -> Option<f64> {
        self.sys.parameter(name)
    }
    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), ParameterError> {
        self.sys.set_parameter(name, value)
    }
    fn phi_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.sys.phi_into(t, q, out)
    }
    fn phi_q_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.sys.phi_q_into(t, q, out)
    }
    fn phi_t_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.sys.phi_t_into(t, q, out)
    }
    fn nh_matrix_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.sys.nh_matrix_into(t, q, out)
    }
    fn nh_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.sys.nh_offset_into(t, q, out)
    }
    fn gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.sys.gamma_into(t, q, v, out)
    }
    fn l_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.sys.l_into(t, q, v, out)
    }
    fn mass_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.sys.mass_into(t, q, out)
    }
    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.sys.force_into(t, q, v, out)
    }
    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        self.sys.dynamics_into(t, q, v, out)
    }
    fn phi_q_sparsity(&self) -> Sparsity {
        self.jac
    }
    /// Φ_q's pattern: row i of L = ∂(Φ_q v)/∂q is nonzero only where Φ_i depends on q.
    fn l_sparsity(&self) -> Sparsity {
        self.jac
    }
    fn mass_sparsity(&self) -> Option<Sparsity> {
        Some(self.mass)
    }
    fn has_nonzero_forms(&self) -> bool {
        true
    }
    fn dynamics_nonzeros_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsNonzeros<'_>) {
        self.mass_nonzeros_into(t, q, out.mass);
        self.jacobian_nonzeros_into(t, q, out.jacobian);
        self.force_into(t, q, v, out.force);
        self.gamma_into(t, q, v, out.gamma);
    }
    fn mass_nonzeros_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let m = &mut self.scratch.borrow_mut().0;
        self.sys.mass_into(t, q, m.as_view_mut());
        Self::gather(m, &self.mass, out);
    }
    fn jacobian_nonzeros_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let g = &mut self.scratch.borrow_mut().1;
        self.sys.phi_q_into(t, q, g.as_view_mut());
        Self::gather(g, &self.jac, out);
    }
}

impl<T: Tangent> TangentSystem for Nonzeros<T> {
    fn force_q_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.sys.force_q_into(t, q, v, out)
    }
    fn force_v_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.sys.force_v_into(t, q, v, out)
    }
    fn mass_w_q_into(&self, t: f64, q: &[f64], w: &[f64], out: MatOut<'_>) {
        self.sys.mass_w_q_into(t, q, w, out)
    }
    fn phi_q_t_lambda_q_into(&self, t: f64, q: &[f64], l: &[f64], out: MatOut<'_>) {
        self.sys.phi_q_t_lambda_q_into(t, q, l, out)
    }
    fn nh_matrix_t_lambda_q_into(&self, t: f64, q: &[f64], l: &[f64], out: MatOut<'_>) {
        self.sys.nh_matrix_t_lambda_q_into(t, q, l, out)
    }
    fn phi_qt_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.sys.phi_qt_into(t, q, out)
    }
    fn phi_tt_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.sys.phi_tt_into(t, q, out)
    }
}

//! [`Structural`]: a [`Structure`] under the constraints of a generated model, as an ordinary
//! [`ConstrainedSystem`] — M from the structure, Q = P(t) + Q_nl − C D' − K D, and every
//! constraint kernel (Φ, Φ_q, Φ_t, γ, L, nonholonomic rows, names) from the constraint model.
//! So RKSTAB, the Adams family and HHT integrate a structural model for comparison with HPIM.

use crate::system::{ConstrainedSystem, Dims, DynamicsOut, MatOut, ParameterError, Sparsity};

use super::Structure;

/// A structure with the constraints (and coordinate names) of `constraints`, whose own mass
/// matrix and force are ignored.
#[derive(Clone, Debug)]
pub struct Structural<C> {
    /// M, C, K, the loads and Q.
    pub structure: Structure,
    /// The model that supplies Φ(t, D) and its derivatives (coordinates = the nodal DOFs).
    pub constraints: C,
}

impl<C: ConstrainedSystem> Structural<C> {
    /// Pair `structure` with the constraint kernels of `constraints` (same n, else a panic:
    /// a programming error, like every dimension mismatch of the kernel contract).
    pub fn new(structure: Structure, constraints: C) -> Self {
        assert_eq!(
            structure.dofs(),
            constraints.dims().n,
            "Structural: the structure's DOFs and the constraint model's coordinates differ"
        );
        Self {
            structure,
            constraints,
        }
    }
}

impl<C: ConstrainedSystem> ConstrainedSystem for Structural<C> {
    fn name(&self) -> &'static str {
        self.constraints.name()
    }
    fn dims(&self) -> Dims {
        self.constraints.dims()
    }
    fn coordinate_names(&self) -> &'static [&'static str] {
        self.constraints.coordinate_names()
    }
    fn parameter_names(&self) -> &'static [&'static str] {
        self.constraints.parameter_names()
    }
    fn parameter(&self, name: &str) -> Option<f64> {
        self.constraints.parameter(name)
    }
    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), ParameterError> {
        self.constraints.set_parameter(name, value)
    }
    fn phi_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.constraints.phi_into(t, q, out)
    }
    fn phi_q_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.constraints.phi_q_into(t, q, out)
    }
    fn phi_t_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.constraints.phi_t_into(t, q, out)
    }
    fn nh_matrix_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.constraints.nh_matrix_into(t, q, out)
    }
    fn nh_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.constraints.nh_offset_into(t, q, out)
    }
    fn gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.constraints.gamma_into(t, q, v, out)
    }
    fn l_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.constraints.l_into(t, q, v, out)
    }
    fn mass_into(&self, _t: f64, _q: &[f64], mut out: MatOut<'_>) {
        out.copy_from(&self.structure.mass);
    }
    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.structure.force_into(t, q, v, out)
    }
    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        let DynamicsOut {
            mass,
            force,
            mut jacobian,
            gamma,
        } = out;
        let d = self.dims();
        self.mass_into(t, q, mass);
        self.force_into(t, q, v, force);
        self.phi_q_into(t, q, jacobian.rows_mut(0, d.m));
        self.nh_matrix_into(t, q, jacobian.rows_mut(d.m, d.k));
        self.gamma_into(t, q, v, gamma);
    }
    fn phi_q_sparsity(&self) -> Sparsity {
        self.constraints.phi_q_sparsity()
    }
    fn l_sparsity(&self) -> Sparsity {
        self.constraints.l_sparsity()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.constraints.constraint_names()
    }
    fn as_structure(&self) -> Option<&Structure> {
        Some(&self.structure)
    }
}

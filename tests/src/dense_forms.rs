//! A model with its sparse kernel forms hidden ([`DenseForms`]): every kernel delegated,
//! `has_nonzero_forms` false, so the runtime takes the dense path. The tests compare the two
//! paths' numbers and the `sparse` benchmark of `mbsim-models` times them ("before" / "after").

use mbsim_runtime::{
    ConstrainedSystem, Dims, DynamicsOut, GeneratedDiagnostics, MatOut, ParameterError, Sparsity,
};

/// A model with its sparse forms hidden: every kernel delegated, `has_nonzero_forms` false.
pub struct DenseForms<'a>(pub &'a dyn ConstrainedSystem);

impl ConstrainedSystem for DenseForms<'_> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn dims(&self) -> Dims {
        self.0.dims()
    }
    fn coordinate_names(&self) -> &'static [&'static str] {
        self.0.coordinate_names()
    }
    fn parameter_names(&self) -> &'static [&'static str] {
        self.0.parameter_names()
    }
    fn parameter(&self, name: &str) -> Option<f64> {
        self.0.parameter(name)
    }
    fn set_parameter(&mut self, name: &str, _value: f64) -> Result<(), ParameterError> {
        Err(ParameterError::Unknown {
            model: self.0.name(),
            name: name.to_string(),
            known: String::new(),
        })
    }
    fn phi_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.0.phi_into(t, q, out)
    }
    fn phi_q_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.0.phi_q_into(t, q, out)
    }
    fn phi_t_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.0.phi_t_into(t, q, out)
    }
    fn nh_matrix_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.0.nh_matrix_into(t, q, out)
    }
    fn nh_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.0.nh_offset_into(t, q, out)
    }
    fn gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.0.gamma_into(t, q, v, out)
    }
    fn l_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.0.l_into(t, q, v, out)
    }
    fn mass_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.0.mass_into(t, q, out)
    }
    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.0.force_into(t, q, v, out)
    }
    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        self.0.dynamics_into(t, q, v, out)
    }
    fn phi_q_sparsity(&self) -> Sparsity {
        self.0.phi_q_sparsity()
    }
    fn l_sparsity(&self) -> Sparsity {
        self.0.l_sparsity()
    }
    fn mass_sparsity(&self) -> Option<Sparsity> {
        self.0.mass_sparsity()
    }
    fn a_sparsity(&self) -> Option<Sparsity> {
        self.0.a_sparsity()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.0.constraint_names()
    }
    fn generated_diagnostics(&self) -> Option<GeneratedDiagnostics> {
        self.0.generated_diagnostics()
    }
}

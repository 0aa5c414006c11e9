//! A model seen through its optional views at once: [`Both`] is the `TangentSystem + Energy`
//! that the reduced-Newton equilibrium needs, built from a `&dyn ConstrainedSystem` whose
//! `as_tangents()` and `as_energy()` are both `Some` (a Lagrangian model with
//! `tangents: true`, whatever crate it comes from). Every method forwards to the model.

use mbsim::runtime::{
    ConstrainedSystem, Dims, DynamicsOut, Energy, MatOut, ParameterError, Sparsity, TangentSystem,
};

/// The tangent kernels and the energies of one model.
pub struct Both<'a> {
    tangents: &'a dyn TangentSystem,
    energy: &'a dyn Energy,
}

impl<'a> Both<'a> {
    /// The views of `sys`, when it has both.
    pub fn of(sys: &'a dyn ConstrainedSystem) -> Option<Both<'a>> {
        Some(Both {
            tangents: sys.as_tangents()?,
            energy: sys.as_energy()?,
        })
    }
}

macro_rules! forward {
    ($field:ident: $($method:ident ($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(fn $method(&self, $($arg: $ty),*) -> $out { self.$field.$method($($arg),*) })*
    };
}

impl ConstrainedSystem for Both<'_> {
    forward! { tangents:
        name() -> &'static str;
        dims() -> Dims;
        coordinate_names() -> &'static [&'static str];
        parameter_names() -> &'static [&'static str];
        parameter(name: &str) -> Option<f64>;
        phi_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        phi_q_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        phi_t_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        nh_matrix_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        nh_offset_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        gamma_into(t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> ();
        l_into(t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) -> ();
        mass_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        force_into(t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> ();
        dynamics_into(t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) -> ();
        phi_q_sparsity() -> Sparsity;
        l_sparsity() -> Sparsity;
        constraint_names() -> Vec<String>;
    }

    fn set_parameter(&mut self, name: &str, _value: f64) -> Result<(), ParameterError> {
        Err(ParameterError::Unknown {
            model: self.tangents.name(),
            name: name.to_string(),
            known: "none (a view cannot change its model)".to_string(),
        })
    }
}

impl TangentSystem for Both<'_> {
    forward! { tangents:
        force_q_into(t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) -> ();
        force_v_into(t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) -> ();
        mass_w_q_into(t: f64, q: &[f64], w: &[f64], out: MatOut<'_>) -> ();
        phi_q_t_lambda_q_into(t: f64, q: &[f64], lambda: &[f64], out: MatOut<'_>) -> ();
        nh_matrix_t_lambda_q_into(t: f64, q: &[f64], lambda: &[f64], out: MatOut<'_>) -> ();
        phi_qt_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        phi_tt_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        tangent_sparsity() -> Option<Sparsity>;
        tangent_nonzeros_into(t: f64, q: &[f64], v: &[f64], lambda: &[f64], w: &[f64], out: &mut [f64]) -> ();
    }
}

impl Energy for Both<'_> {
    forward! { energy:
        kinetic_energy_into(t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> ();
        potential_energy_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
    }
}

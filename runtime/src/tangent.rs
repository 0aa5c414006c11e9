//! The optional kernel groups: [`TangentSystem`] (derivatives of the equations of motion and of
//! the constraint forces, for Newton iterations of implicit methods such as Newmark/HHT) and
//! [`Energy`] (kinetic and potential energy of Lagrangian models, for energy checks).
//!
//! Their methods are expanded from the `tangent` and `energy` rows of the one kernel table
//! (`mbsim_kernel_table::kernel_table!`), with the conventions of [`crate::system`]: `t`, `q`
//! (length n), `v` (length n), `lambda` (multipliers, length m + k, holonomic rows first, the
//! same λ as in M v̇ + Gᵀ λ = Q) and `w` (any vector of length n). Generated code implements
//! `TangentSystem` only for models annotated with `tangents: true`, and `Energy` for models
//! given by a Lagrangian (`kinetic:` and `potential:`).

use crate::system::{ConstrainedSystem, Sparsity};

/// The `tangent` rows as `TangentSystem` methods.
macro_rules! tangent_methods {
    (core { $($core:tt)* } tangent { $($rows:tt)* } $($rest:tt)*) => {
        $crate::system::kernel_methods! { $($rows)* }
    };
}

/// The `energy` rows as `Energy` methods.
macro_rules! energy_methods {
    (core { $($core:tt)* } tangent { $($tangent:tt)* } energy { $($rows:tt)* }) => {
        $crate::system::kernel_methods! { $($rows)* }
    };
}

/// Tangent kernels of a model: ∂Q/∂q, ∂Q/∂v, ∂(M w)/∂q, ∂(Φ_qᵀ λ)/∂q, ∂(Aᵀ λ)/∂q, Φ_qt, Φ_tt.
///
/// With these the Jacobian of the residual M(q) v̇ + Gᵀ(q) λ − Q(t, q, v) with respect to q is
/// `mass_w_q(w = v̇) + phi_q_t_lambda_q(λ) + nh_matrix_t_lambda_q(λ) − force_q`, and with respect
/// to v it is `−force_v`.
pub trait TangentSystem: ConstrainedSystem {
    mbsim_kernel_table::kernel_table!(tangent_methods);

    /// The entries written by [`TangentSystem::tangent_nonzeros_into`] (the union of the
    /// structural nonzeros of K = ∂(M w + Gᵀλ − Q)/∂q and of ∂Q/∂v, row-major); `None` for a
    /// model without it. Generated code states it for models with the sparse kernel forms
    /// ([`ConstrainedSystem::has_nonzero_forms`]) and tangents.
    fn tangent_sparsity(&self) -> Option<Sparsity> {
        None
    }

    /// K = `mass_w_q(w) + phi_q_t_lambda_q(λ) + nh_matrix_t_lambda_q(λ) − force_q` on the
    /// entries of [`TangentSystem::tangent_sparsity`], then ∂Q/∂v on the same entries (`out`
    /// has twice their number): the implicit methods' tangent blocks with no n × n zero fill.
    /// NaN for a model without it, which the checked call reports.
    fn tangent_nonzeros_into(
        &self,
        _t: f64,
        _q: &[f64],
        _v: &[f64],
        _lambda: &[f64],
        _w: &[f64],
        out: &mut [f64],
    ) {
        out.fill(f64::NAN);
    }
}

/// Kinetic and potential energy of a Lagrangian model.
pub trait Energy: ConstrainedSystem {
    mbsim_kernel_table::kernel_table!(energy_methods);

    /// T + V at (t, q, v).
    fn total_energy(&self, t: f64, q: &[f64], v: &[f64]) -> f64 {
        let (mut kinetic, mut potential) = ([0.0], [0.0]);
        self.kinetic_energy_into(t, q, v, &mut kinetic);
        self.potential_energy_into(t, q, &mut potential);
        kinetic[0] + potential[0]
    }
}

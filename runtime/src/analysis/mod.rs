//! The analysis modes besides dynamics (Haug's DADS organisation, \[HAUG\] §7.1, §7.5; digest
//! §2.6–2.8) and the diagnostics of a model:
//!
//! - [`kinematics`] (`kinematics.rs`): kinematic analysis of a fully driven (0-DOF) model —
//!   positions by Newton on Φ(t, q) = 0 along a time grid (continuation from the previous
//!   point), velocities from Φ_q v = −Φ_t, accelerations from Φ_q a = γ;
//! - [`inverse_dynamics`] (`inverse.rs`): the multipliers from Φ_qᵀ λ = Q − M a along the same
//!   grid, and the reaction (or driving) force of every constraint row, by name;
//! - [`equilibrium`] (`equilibrium.rs`): minimum total potential energy subject to Φ = 0 by a
//!   reduced Newton method with line search and the Hessian of the Lagrangian from the tangent
//!   kernels, with the stability of the equilibrium found; [`settle`] (`settling.rs`): dynamic
//!   settling with added damping;
//! - [`check`] (`diagnostics.rs`): n, m, k, the numerical rank of G = [Φ_q; A], the degrees of
//!   freedom, the redundant rows by name with the dependency found, the condition of G;
//! - `singular.rs`: the run-time naming of singular configurations, which the integrators'
//!   run loop applies to a failed run ([`SimError::SingularConfiguration`]).
//!
//! These are cold paths (once per grid point or per Newton iteration): they allocate, unlike
//! the integrators' steps. Kinematics and inverse dynamics of a large sparse driven model run
//! without a dense matrix of the model's order (`kinematics_banded.rs` on `square_band.rs`,
//! issue 27); `check`, settling and `equilibrium` rank G on its nonzeros and take λ and the
//! tangent basis from the banded [I Gᵀ; G 0] (`statics_band.rs`), and `check`'s condition by
//! Lanczos on GGᵀ and, with those factors, on (GGᵀ)⁻¹ (`condition_sparse.rs`); what stays dense
//! there is the reduced Hessian's n × n tangent kernels.
//!
//! [`SimError::SingularConfiguration`]: crate::SimError::SingularConfiguration

mod condition_augmented;
mod condition_sparse;
mod diagnostics;
mod driving;
mod equilibrium;
mod inverse;
mod kinematics;
mod kinematics_banded;
mod settling;
pub(crate) mod singular;
mod square_band;
mod statics_band;
pub use singular::{AugmentedCondition, SINGULAR_CONDITION, SINGULAR_GROWTH, augmented_condition};

pub use diagnostics::{
    Diagnosis, JacobianRank, RANK_TOLERANCE, Redundancy, check, check_with, jacobian_rank,
};
pub use equilibrium::{Equilibrium, EquilibriumOptions, Stability, equilibrium};
pub use inverse::{InverseDynamics, Reaction, inverse_dynamics, reactions};
pub use kinematics::{
    ConditionMeasure, KinematicOptions, KinematicPoint, KinematicSolver, Kinematics, kinematics,
};
pub use settling::{Damped, Settled, SettlingOptions, settle};

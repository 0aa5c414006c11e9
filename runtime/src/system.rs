//! The kernel contract: what a generated (or hand-written) model provides to the integrators.
//!
//! Conventions, shared by every kernel:
//! - `t` is time, `q` the generalized coordinates (length `n`), `v = q̇` the velocities
//!   (length `n`). Inputs are plain slices so callers can pass any contiguous storage.
//! - Vector outputs are `&mut [f64]` of exactly the documented length; matrix outputs are
//!   nalgebra views ([`MatOut`]) of exactly the documented shape, so a caller can write straight
//!   into a block of a larger matrix (the KKT matrix, say). Kernels never allocate.
//! - A kernel overwrites every entry of its output: structurally zero entries are set to `0.0`
//!   (never computed), the others are computed. The structural patterns of Φ_q and L are exported
//!   through [`ConstrainedSystem::phi_q_sparsity`] and [`ConstrainedSystem::l_sparsity`].
//! - Holonomic constraints Φ(t, q) = 0 have `m` rows; nonholonomic constraints
//!   A(t, q) v + b(t, q) = 0 have `k` rows. The full constraint Jacobian used in the
//!   acceleration solve is G = [Φ_q; A] with `m + k` rows, and the acceleration right side
//!   γ has `m + k` entries (holonomic rows first), so that G v̇ = γ.
//! - Sign convention (all five sources): M v̇ + Gᵀ λ = Q.
//!
//! The kernel methods are expanded from the `core` rows of the one kernel table
//! (`mbsim_kernel_table`); the optional groups are [`crate::tangent::TangentSystem`] and
//! [`crate::tangent::Energy`].
//!
//! Dimension mismatches are programming errors and panic with a message (nalgebra's convention
//! for misuse); numerical failures are the integrators' business and are values.

use nalgebra::DMatrixViewMut;

/// The output type of a kernel row: `vector` → `&mut [f64]`, `matrix` → [`MatOut`].
macro_rules! kernel_out {
    (vector) => { &mut [f64] };
    (matrix) => { $crate::system::MatOut<'_> };
}
pub(crate) use kernel_out;

/// The trait methods of one group of rows of the kernel table (`$group` selects it).
macro_rules! kernel_methods {
    ($($variant:ident $method:ident $name:literal [$($input:ident),*] $kind:ident($($dim:ident),*) $doc:literal;)*) => {
        $(
            #[doc = $doc]
            fn $method(&self, t: f64, q: &[f64], $($input: &[f64],)* out: $crate::system::kernel_out!($kind));
        )*
    };
}
pub(crate) use kernel_methods;

/// The `core` rows as `ConstrainedSystem` methods.
macro_rules! core_methods {
    (core { $($rows:tt)* } $($rest:tt)*) => { $crate::system::kernel_methods! { $($rows)* } };
}

/// A mutable dense matrix output: any column-major nalgebra view (a whole `DMatrix` through
/// `as_view_mut()`, or a block of one through `view_mut((r, c), (nr, nc))`).
pub type MatOut<'a> = DMatrixViewMut<'a, f64>;

/// Zero a matrix output column by column (each column of a view is a contiguous slice, so this
/// is a `memset` per column; the view's own `fill` walks it entry by entry, several times
/// slower on the n² entries of a large M).
pub fn zero_fill(out: &mut MatOut<'_>) {
    for j in 0..out.ncols() {
        out.column_mut(j).as_mut_slice().fill(0.0);
    }
}

/// Dimensions of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dims {
    /// Number of generalized coordinates (and of velocities).
    pub n: usize,
    /// Number of holonomic constraints Φ(t, q) = 0.
    pub m: usize,
    /// Number of nonholonomic constraints A(t, q) v + b(t, q) = 0.
    pub k: usize,
}

impl Dims {
    /// Rows of the full constraint Jacobian G = [Φ_q; A] and of γ.
    pub fn constraint_rows(&self) -> usize {
        self.m + self.k
    }
}

/// The structural nonzero pattern of a matrix kernel output, row-major ordered `(row, col)` pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sparsity {
    /// Number of rows of the matrix.
    pub rows: usize,
    /// Number of columns of the matrix.
    pub cols: usize,
    /// The entries that may be nonzero, sorted by row then column.
    pub nonzeros: &'static [(usize, usize)],
}

/// What the generator decided about a model's constraints from their expressions alone, before
/// any state is known (`mbsim_codegen::diagnose`); the numerical rank at a state is
/// [`crate::analysis::check`]'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratedDiagnostics {
    /// Rows equal to an earlier row or to its negation: (earlier row, row), by name.
    pub repeated_rows: &'static [(&'static str, &'static str)],
    /// Size of a maximum matching of G = [Φ_q; A]'s rows to its columns over the structural
    /// nonzeros: no numerical rank exceeds it, so DOF ≥ n − structural rank.
    pub structural_rank: usize,
    /// Rows a maximum matching leaves unmatched: dependent at every state.
    pub structurally_redundant: &'static [&'static str],
}

/// Every output of the fused kernel [`ConstrainedSystem::dynamics_into`].
pub struct DynamicsOut<'a> {
    /// Mass matrix M(t, q), `n × n`.
    pub mass: MatOut<'a>,
    /// Generalized applied force Q(t, q, v), length `n`.
    pub force: &'a mut [f64],
    /// Constraint Jacobian G = [Φ_q; A], `(m + k) × n`.
    pub jacobian: MatOut<'a>,
    /// Acceleration right side γ(t, q, v), length `m + k`.
    pub gamma: &'a mut [f64],
}

/// Every output of the sparse fused kernel [`ConstrainedSystem::dynamics_nonzeros_into`]: M and
/// G = [Φ_q; A] as their structural nonzeros only (no zero fill), Q and γ as in [`DynamicsOut`].
pub struct DynamicsNonzeros<'a> {
    /// M's structural nonzeros in the order of [`ConstrainedSystem::mass_sparsity`] (all n²
    /// entries row by row when it is `None`).
    pub mass: &'a mut [f64],
    /// Generalized applied force Q(t, q, v), length `n`.
    pub force: &'a mut [f64],
    /// G's structural nonzeros: Φ_q's in the order of [`ConstrainedSystem::phi_q_sparsity`],
    /// then A's in the order of [`ConstrainedSystem::a_sparsity`] (all k·n when `None`).
    pub jacobian: &'a mut [f64],
    /// Acceleration right side γ(t, q, v), length `m + k`.
    pub gamma: &'a mut [f64],
}

/// A runtime parameter that cannot be set: an unknown name or a non-finite value (which would
/// only surface later as a non-finite kernel that does not name the parameter).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParameterError {
    /// The model has no runtime parameter of that name.
    #[error("model `{model}` has no runtime parameter `{name}` (runtime parameters: {known})")]
    Unknown {
        /// The model's name.
        model: &'static str,
        /// The name that was asked for.
        name: String,
        /// The model's runtime parameter names, comma separated.
        known: String,
    },
    /// The value is NaN or infinite.
    #[error("parameter `{name}` of model `{model}` must be finite, got {value}")]
    NotFinite {
        /// The model's name.
        model: &'static str,
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
    },
}

impl ParameterError {
    /// `value` if it is finite, else [`ParameterError::NotFinite`]: what generated
    /// `set_parameter` calls before it stores a value.
    pub fn finite(model: &'static str, name: &'static str, value: f64) -> Result<f64, Self> {
        if value.is_finite() {
            Ok(value)
        } else {
            Err(Self::NotFinite { model, name, value })
        }
    }
}

/// A constrained multibody model: M(t,q) v̇ + Gᵀ λ = Q(t,q,v), Φ(t,q) = 0, A(t,q) v + b(t,q) = 0.
///
/// Implemented by generated code; hand-written implementations are fine for tests.
pub trait ConstrainedSystem {
    /// The model's name (the struct name for generated models).
    fn name(&self) -> &'static str;
    /// Dimensions n, m, k.
    fn dims(&self) -> Dims;
    /// Names of the generalized coordinates, in order (velocities are named after them).
    fn coordinate_names(&self) -> &'static [&'static str];
    /// Names of the runtime parameters, in order.
    fn parameter_names(&self) -> &'static [&'static str];
    /// The current value of a runtime parameter.
    fn parameter(&self, name: &str) -> Option<f64>;
    /// Change a runtime parameter.
    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), ParameterError>;

    // One method per `core` row of the kernel table (`mbsim_kernel_table::kernel_table!`):
    // phi_into, phi_q_into, phi_t_into, nh_matrix_into, nh_offset_into, gamma_into, l_into,
    // mass_into, force_into.
    mbsim_kernel_table::kernel_table!(core_methods);

    /// M, Q, G = [Φ_q; A] and γ together, sharing temporaries: what every integrator stage needs.
    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>);

    /// Structural nonzeros of Φ_q.
    fn phi_q_sparsity(&self) -> Sparsity;
    /// Structural nonzeros of L.
    fn l_sparsity(&self) -> Sparsity;
    /// Structural nonzeros of M, if the model states them (`None`: treat M as dense). The KKT
    /// solve's choice of a banded factorization reads it (`kkt_layout.rs`). Like every
    /// pattern here it must hold at every (t, q): the banded path reads only these entries.
    /// Generated patterns are structural by construction; for hand-written ones the first
    /// factorization checks the matrices at hand and falls back to dense on a miss, which
    /// cannot catch an entry that happens to vanish there.
    fn mass_sparsity(&self) -> Option<Sparsity> {
        None
    }
    /// Structural nonzeros of A, if the model states them (`None`: treat A as dense).
    fn a_sparsity(&self) -> Option<Sparsity> {
        None
    }

    /// Whether the model has the sparse kernel forms (`dynamics_nonzeros_into`,
    /// `mass_nonzeros_into`, `jacobian_nonzeros_into`): generated code says `true` for models
    /// large and sparse enough that they pay (`mbsim_codegen::emit::nonzero_forms`), and
    /// the runtime then keeps M and G as their nonzeros (`crate::sparse`), never zero-filling
    /// n² entries per evaluation.
    fn has_nonzero_forms(&self) -> bool {
        false
    }
    /// The fused kernel with M and G as their structural nonzeros ([`DynamicsNonzeros`]). Models
    /// without the sparse forms ([`ConstrainedSystem::has_nonzero_forms`] `false`) write NaN,
    /// which the checked call reports as a non-finite kernel rather than wrong numbers.
    fn dynamics_nonzeros_into(&self, _t: f64, _q: &[f64], _v: &[f64], out: DynamicsNonzeros<'_>) {
        for x in [out.mass, out.force, out.jacobian, out.gamma] {
            x.fill(f64::NAN);
        }
    }
    /// M's structural nonzeros (the order of [`DynamicsNonzeros::mass`]); NaN without the
    /// sparse forms.
    fn mass_nonzeros_into(&self, _t: f64, _q: &[f64], out: &mut [f64]) {
        out.fill(f64::NAN);
    }
    /// G = [Φ_q; A]'s structural nonzeros (the order of [`DynamicsNonzeros::jacobian`]); NaN
    /// without the sparse forms.
    fn jacobian_nonzeros_into(&self, _t: f64, _q: &[f64], out: &mut [f64]) {
        out.fill(f64::NAN);
    }

    /// Names of the constraint rows, holonomic rows first (`m + k` names): the labels given in
    /// the model (`holonomic: [rod = …]`), otherwise `phi_1`, `phi_2`, … and `nh_1`, `nh_2`, ….
    /// Multipliers λ are indexed like these rows.
    fn constraint_names(&self) -> Vec<String> {
        let d = self.dims();
        let holonomic = (1..=d.m).map(|i| format!("phi_{i}"));
        holonomic
            .chain((1..=d.k).map(|i| format!("nh_{i}")))
            .collect()
    }

    /// The row (index into λ, γ and G) of the constraint named `name`, see
    /// [`ConstrainedSystem::constraint_names`].
    fn constraint_index(&self, name: &str) -> Option<usize> {
        self.constraint_names().iter().position(|n| n == name)
    }

    /// The model's tangent kernels, when it has them (`tangents: true`): generated code
    /// overrides this with `Some(self)`, so a front end holding a `&dyn ConstrainedSystem` can
    /// still reach them (exact Newton matrices, reduced-Newton equilibrium).
    fn as_tangents(&self) -> Option<&dyn crate::tangent::TangentSystem> {
        None
    }

    /// The model's kinetic and potential energy, when it states them (a Lagrangian model):
    /// generated code overrides this with `Some(self)` (energy plots, energy checks).
    fn as_energy(&self) -> Option<&dyn crate::tangent::Energy> {
        None
    }

    /// What the model draws, when it declares it (`draw: { points: …, segments: … }`):
    /// generated code overrides this with `Some(self)` (`mbsim animate`).
    fn as_drawing(&self) -> Option<&dyn crate::drawing::Drawing> {
        None
    }

    /// The model's event functions and actions, when it declares them (`events: [...]`):
    /// generated code overrides this with `Some(self)`; every method then stops at the first
    /// located event, and [`crate::events::simulate`] runs through them.
    fn as_events(&self) -> Option<&dyn crate::events::Events> {
        None
    }

    /// The linear structure (constant M, C, K, loads) of a structural model,
    /// [`crate::Structural`] overrides this with `Some` so that a front end holding a
    /// `&dyn ConstrainedSystem` can run HPIM and NPC on it.
    fn as_structure(&self) -> Option<&crate::structural::Structure> {
        None
    }

    /// The generation-time diagnostics of the constraints; generated code overrides this,
    /// hand-written models have none.
    fn generated_diagnostics(&self) -> Option<GeneratedDiagnostics> {
        None
    }
}

//! The one kernel table: one row per kernel of the mbsim contract, shared by the code generator
//! (`mbsim-codegen`, which derives and emits each row) and the runtime (`mbsim-runtime`, whose
//! traits, `Kernel` error enum, dispatch and checked calls are expanded from the rows). The crate
//! has no dependencies so that both can depend on it; the runtime never depends on codegen.
//!
//! A row is `Variant method_name "display" [extra inputs] shape "doc";` inside one of three
//! groups, one per trait of the runtime:
//! - `core`: `ConstrainedSystem`, every model;
//! - `tangent`: `TangentSystem`, only for models annotated with `tangents: true`;
//! - `energy`: `Energy`, only for Lagrangian models (kinetic and potential energy).
//!
//! Every kernel takes `t` and `q`; the extra inputs are `v` (velocities, length n), `lambda`
//! (multipliers, length m + k, holonomic rows first) and `w` (an arbitrary vector of length n,
//! for products such as ∂(M w)/∂q). Shapes are `vector(D)` or `matrix(R, C)` with the sizes
//! `n`, `m`, `k`, `mk` (= m + k) and `one`.
//!
//! [`kernel_table!`] hands the rows to a callback macro; [`KERNELS`] is the same table as data.
//! Adding a kernel: one row here, its derivation in codegen's `kernels::entries` (the match is
//! exhaustive, so the build says where), and its checks come from the table.
#![warn(missing_docs)]

/// Calls `$callback! { core { rows } tangent { rows } energy { rows } }` with every kernel row.
/// The order of the rows is the order of emission (and of the trait methods).
#[macro_export]
macro_rules! kernel_table {
    ($callback:ident) => {
        $callback! {
            core {
                Phi phi_into "phi" [] vector(m)
                    "Holonomic constraints Φ(t, q), length `m`.";
                PhiQ phi_q_into "phi_q" [] matrix(m, n)
                    "Holonomic constraint Jacobian Φ_q(t, q), `m × n`.";
                PhiT phi_t_into "phi_t" [] vector(m)
                    "Partial time derivative Φ_t(t, q), length `m`.";
                NhMatrix nh_matrix_into "nh_matrix" [] matrix(k, n)
                    "Nonholonomic matrix A(t, q), `k × n`.";
                NhOffset nh_offset_into "nh_offset" [] vector(k)
                    "Nonholonomic offset b(t, q), length `k`.";
                Gamma gamma_into "gamma" [v] vector(mk)
                    "Acceleration right side γ(t, q, v) with G v̇ = γ, length `m + k` (holonomic rows first): γ_Φ = −(Φ_q v)_q v − 2 Φ_qt v − Φ_tt and γ_A = −(A v)_q v − A_t v − b_q v − b_t.";
                L l_into "l" [v] matrix(m, n)
                    "L(t, q, v) = ∂(Φ_q v)/∂q, `m × n` (used by S-full post-stabilization).";
                Mass mass_into "mass" [] matrix(n, n)
                    "Mass matrix M(t, q), `n × n`, symmetric.";
                Force force_into "force" [v] vector(n)
                    "Generalized applied force Q(t, q, v), length `n`.";
            }
            tangent {
                ForceQ force_q_into "force_q" [v] matrix(n, n)
                    "∂Q/∂q (t, q, v), `n × n`.";
                ForceV force_v_into "force_v" [v] matrix(n, n)
                    "∂Q/∂v (t, q, v), `n × n`.";
                MassWQ mass_w_q_into "mass_w_q" [w] matrix(n, n)
                    "∂(M w)/∂q (t, q) for a given vector `w` of length `n` (w held fixed), `n × n`.";
                PhiQTLambdaQ phi_q_t_lambda_q_into "phi_q_t_lambda_q" [lambda] matrix(n, n)
                    "∂(Φ_qᵀ λ_Φ)/∂q (t, q), `n × n`, with λ of length `m + k` whose first `m` entries λ_Φ are used.";
                NhMatrixTLambdaQ nh_matrix_t_lambda_q_into "nh_matrix_t_lambda_q" [lambda] matrix(n, n)
                    "∂(Aᵀ λ_A)/∂q (t, q), `n × n`, with λ of length `m + k` whose last `k` entries λ_A are used.";
                PhiQT phi_qt_into "phi_qt" [] matrix(m, n)
                    "Φ_qt = ∂Φ_t/∂q (t, q), `m × n`.";
                PhiTT phi_tt_into "phi_tt" [] vector(m)
                    "Φ_tt = ∂²Φ/∂t² (t, q), length `m`.";
            }
            energy {
                KineticEnergy kinetic_energy_into "kinetic_energy" [v] vector(one)
                    "Kinetic energy T(t, q, v), length 1.";
                PotentialEnergy potential_energy_into "potential_energy" [] vector(one)
                    "Potential energy V(t, q), length 1.";
            }
        }
    };
}

/// A size in the table, in terms of the model's dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Number of coordinates n.
    N,
    /// Number of holonomic constraints m.
    M,
    /// Number of nonholonomic constraints k.
    K,
    /// All constraint rows, m + k.
    Mk,
    /// One (scalars).
    One,
}

impl Dim {
    /// The size for a model with dimensions n, m, k.
    pub fn of(self, n: usize, m: usize, k: usize) -> usize {
        match self {
            Dim::N => n,
            Dim::M => m,
            Dim::K => k,
            Dim::Mk => m + k,
            Dim::One => 1,
        }
    }
}

/// The shape of a kernel's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A vector `&mut [f64]` of this length.
    Vector(Dim),
    /// A matrix view of rows × columns.
    Matrix(Dim, Dim),
}

impl Shape {
    /// (rows, columns) for a model with dimensions n, m, k (vectors are one column).
    pub fn size(self, n: usize, m: usize, k: usize) -> (usize, usize) {
        match self {
            Shape::Vector(d) => (d.of(n, m, k), 1),
            Shape::Matrix(r, c) => (r.of(n, m, k), c.of(n, m, k)),
        }
    }
}

/// An input of a kernel besides `t` and `q` (which every kernel takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// Velocities `v`, length n.
    V,
    /// Multipliers `lambda`, length m + k (holonomic rows first).
    Lambda,
    /// An arbitrary vector `w`, length n.
    W,
}

impl Input {
    /// The parameter name in the trait method.
    pub fn name(self) -> &'static str {
        match self {
            Input::V => "v",
            Input::Lambda => "lambda",
            Input::W => "w",
        }
    }

    /// Its length.
    pub fn dim(self) -> Dim {
        match self {
            Input::V | Input::W => Dim::N,
            Input::Lambda => Dim::Mk,
        }
    }
}

/// Which trait a kernel belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// `ConstrainedSystem`: every model.
    Core,
    /// `TangentSystem`: models annotated with `tangents: true`.
    Tangent,
    /// `Energy`: Lagrangian models.
    Energy,
}

/// One row of the table as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelSpec {
    /// The kernel.
    pub id: KernelId,
    /// The trait it belongs to.
    pub group: Group,
    /// The trait method (`phi_q_into`).
    pub method: &'static str,
    /// The short name (`phi_q`), used in messages and by `mbsim eval`.
    pub name: &'static str,
    /// Inputs besides `t` and `q`, in parameter order.
    pub inputs: &'static [Input],
    /// The output's shape.
    pub shape: Shape,
    /// What it computes.
    pub doc: &'static str,
}

impl KernelSpec {
    /// The row of `id`.
    pub fn of(id: KernelId) -> &'static KernelSpec {
        &KERNELS[id as usize]
    }

    /// Whether the kernel takes `input`.
    pub fn takes(&self, input: Input) -> bool {
        self.inputs.contains(&input)
    }
}

/// Private helpers of the table's expansion.
#[doc(hidden)]
#[macro_export]
macro_rules! __table_dim {
    (n) => {
        $crate::Dim::N
    };
    (m) => {
        $crate::Dim::M
    };
    (k) => {
        $crate::Dim::K
    };
    (mk) => {
        $crate::Dim::Mk
    };
    (one) => {
        $crate::Dim::One
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __table_shape {
    (vector($d:ident)) => {
        $crate::Shape::Vector($crate::__table_dim!($d))
    };
    (matrix($r:ident, $c:ident)) => {
        $crate::Shape::Matrix($crate::__table_dim!($r), $crate::__table_dim!($c))
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __table_input {
    (v) => {
        $crate::Input::V
    };
    (lambda) => {
        $crate::Input::Lambda
    };
    (w) => {
        $crate::Input::W
    };
}

macro_rules! define_data {
    ($( $group:ident { $(
        $variant:ident $method:ident $name:literal [$($input:ident),*] $kind:ident($($dim:ident),*) $doc:literal;
    )* } )*) => {
        /// Every kernel of the table, in table order (`KernelId as usize` indexes [`KERNELS`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum KernelId {
            $($( #[doc = $doc] $variant, )*)*
        }

        /// The table as data, in row order.
        pub const KERNELS: &[KernelSpec] = &[
            $($( KernelSpec {
                id: KernelId::$variant,
                group: define_data!(@group $group),
                method: stringify!($method),
                name: $name,
                inputs: &[$($crate::__table_input!($input)),*],
                shape: $crate::__table_shape!($kind($($dim),*)),
                doc: $doc,
            }, )*)*
        ];
    };
    (@group core) => { Group::Core };
    (@group tangent) => { Group::Tangent };
    (@group energy) => { Group::Energy };
}

kernel_table!(define_data);

impl KernelId {
    /// The row of this kernel.
    pub fn spec(self) -> &'static KernelSpec {
        KernelSpec::of(self)
    }
}

impl std::fmt::Display for KernelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spec().name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_indexed_by_their_id_and_named_uniquely() {
        for (i, row) in KERNELS.iter().enumerate() {
            assert_eq!(row.id as usize, i, "{}", row.name);
            assert_eq!(row.method, format!("{}_into", row.name), "{}", row.name);
            let same = KERNELS.iter().filter(|r| r.name == row.name).count();
            assert_eq!(same, 1, "{} appears {same} times", row.name);
        }
    }
}

//! Kernel derivation: from a validated [`Model`] to every expression the runtime contract
//! needs — Φ, Φ_q, Φ_t, A, b, γ, L, M, Q.
//!
//! With the directional derivative D = ∂_t + Σ v_i ∂_{q_i} (velocities held fixed; see
//! `diff.rs`):
//! - Φ̇ = D Φ = Φ_q v + Φ_t and γ_Φ = −D(DΦ) = −(Φ_q v)_q v − 2 Φ_qt v − Φ_tt;
//! - Φ_q v = D_q Φ with D_q = Σ v_i ∂_{q_i}, and L = ∂(Φ_q v)/∂q;
//! - a nonholonomic row e = A v + b gives A = ∂e/∂v, b = e|_{v=0} (by substitution, so b never
//!   mentions v), and
//!   γ_A = −D e = −(A v)_q v − A_t v − b_q v − b_t.
//!
//! Each is linear in the size of the graph; canonical construction keeps them small.
//!
//! The tangent kernels (only for models with `tangents: true`) take new inputs, multipliers
//! λ (`SymbolKind::Multiplier`, length m + k) and a vector w (`SymbolKind::Auxiliary`, length
//! n): ∂Q/∂q, ∂Q/∂v, ∂(M w)/∂q, ∂(Φ_qᵀ λ_Φ)/∂q, ∂(Aᵀ λ_A)/∂q (Jacobians of the products,
//! built from the already derived Φ_q and A), Φ_qt = ∂Φ_t/∂q and Φ_tt = ∂Φ_t/∂t.
//!
//! [`Kernels::entries`] maps each row of the one kernel table (`mbsim_kernel_table`) to its
//! expressions; its match is exhaustive, so a new row fails to build until it is derived here.

use crate::model::Model;
use crate::pool::{ExprId, Pool, SymbolKind};
use mbsim_kernel_table::KernelId;

/// A dense row-major matrix of expressions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprMatrix {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Entries, row-major.
    pub entries: Vec<ExprId>,
}

impl ExprMatrix {
    /// Entry (r, c).
    pub fn get(&self, r: usize, c: usize) -> ExprId {
        self.entries[r * self.cols + c]
    }
}

/// Every kernel's expressions for one model. All ids live in the model's pool.
#[derive(Clone, Debug)]
pub struct Kernels {
    /// Φ(t, q), `m`.
    pub phi: Vec<ExprId>,
    /// Φ_q, `m × n`.
    pub phi_q: ExprMatrix,
    /// Φ_t, `m`.
    pub phi_t: Vec<ExprId>,
    /// Nonholonomic A(t, q), `k × n`.
    pub nh_matrix: ExprMatrix,
    /// Nonholonomic b(t, q), `k`.
    pub nh_offset: Vec<ExprId>,
    /// γ, `m + k` (holonomic rows first).
    pub gamma: Vec<ExprId>,
    /// L = ∂(Φ_q v)/∂q, `m × n`.
    pub l: ExprMatrix,
    /// Mass matrix, `n × n`.
    pub mass: ExprMatrix,
    /// Applied forces, `n`.
    pub force: Vec<ExprId>,
    /// The tangent kernels, when the model asks for them.
    pub tangents: Option<Tangents>,
    /// [T, V] of a Lagrangian model.
    pub energy: Option<[ExprId; 2]>,
}

/// The tangent kernels' expressions (see the module documentation). Inputs: `lambda` are the
/// symbols λ_0 … λ_{m+k−1}, `w` the symbols w_0 … w_{n−1}.
#[derive(Clone, Debug)]
pub struct Tangents {
    /// Multiplier symbols, `m + k`.
    pub lambda: Vec<ExprId>,
    /// Input vector symbols, `n`.
    pub w: Vec<ExprId>,
    /// ∂Q/∂q, `n × n`.
    pub force_q: ExprMatrix,
    /// ∂Q/∂v, `n × n`.
    pub force_v: ExprMatrix,
    /// ∂(M w)/∂q, `n × n`.
    pub mass_w_q: ExprMatrix,
    /// ∂(Φ_qᵀ λ_Φ)/∂q, `n × n`.
    pub phi_q_t_lambda_q: ExprMatrix,
    /// ∂(Aᵀ λ_A)/∂q, `n × n`.
    pub nh_matrix_t_lambda_q: ExprMatrix,
    /// Φ_qt = ∂Φ_t/∂q, `m × n`.
    pub phi_qt: ExprMatrix,
    /// Φ_tt, `m`.
    pub phi_tt: Vec<ExprId>,
    /// K = ∂(M w + Φ_qᵀ λ_Φ + Aᵀ λ_A − Q)/∂q, `n × n`: the sum the implicit methods' Newton
    /// matrix needs, built only for a model with the sparse kernel forms, whose one
    /// `tangent_nonzeros_into` writes it (with ∂Q/∂v) on its nonzeros (`emit_sparse.rs`).
    pub residual_q: Option<ExprMatrix>,
}

impl Kernels {
    /// The row-major expressions of a kernel of the table; `None` for a tangent kernel of a model
    /// without tangents, or an energy kernel of a model without a Lagrangian.
    pub fn entries(&self, id: KernelId) -> Option<&[ExprId]> {
        let t = self.tangents.as_ref();
        Some(match id {
            KernelId::Phi => &self.phi,
            KernelId::PhiQ => &self.phi_q.entries,
            KernelId::PhiT => &self.phi_t,
            KernelId::NhMatrix => &self.nh_matrix.entries,
            KernelId::NhOffset => &self.nh_offset,
            KernelId::Gamma => &self.gamma,
            KernelId::L => &self.l.entries,
            KernelId::Mass => &self.mass.entries,
            KernelId::Force => &self.force,
            KernelId::ForceQ => &t?.force_q.entries,
            KernelId::ForceV => &t?.force_v.entries,
            KernelId::MassWQ => &t?.mass_w_q.entries,
            KernelId::PhiQTLambdaQ => &t?.phi_q_t_lambda_q.entries,
            KernelId::NhMatrixTLambdaQ => &t?.nh_matrix_t_lambda_q.entries,
            KernelId::PhiQT => &t?.phi_qt.entries,
            KernelId::PhiTT => &t?.phi_tt,
            KernelId::KineticEnergy => &self.energy.as_ref()?[..1],
            KernelId::PotentialEnergy => &self.energy.as_ref()?[1..],
        })
    }

    /// The full constraint Jacobian G = [Φ_q; A], `(m + k) × n`.
    pub fn jacobian(&self) -> ExprMatrix {
        let mut entries = self.phi_q.entries.clone();
        entries.extend_from_slice(&self.nh_matrix.entries);
        ExprMatrix {
            rows: self.phi_q.rows + self.nh_matrix.rows,
            cols: self.phi_q.cols,
            entries,
        }
    }
}

/// Derive every kernel of `model` (adds nodes to its pool).
pub fn derive(model: &mut Model) -> Kernels {
    let (n, t) = (model.n(), model.time);
    let (q, v) = (model.q(), model.v());
    let pool = &mut model.pool;
    let one = pool.one();
    let mut total_rates: Vec<(ExprId, ExprId)> = q.iter().copied().zip(v.iter().copied()).collect();
    let spatial = pool.direction(&total_rates);
    total_rates.push((t, one));
    let total = pool.direction(&total_rates);

    let phi = model.holonomic.clone();
    let phi_q = ExprMatrix {
        rows: phi.len(),
        cols: n,
        entries: pool.jacobian(&phi, &q),
    };
    let phi_t: Vec<ExprId> = phi.iter().map(|&e| pool.diff(e, t)).collect();
    let mut gamma: Vec<ExprId> = phi
        .iter()
        .map(|&e| {
            let rate = pool.directional(e, total);
            let accel = pool.directional(rate, total);
            pool.neg(accel)
        })
        .collect();
    let phi_q_v: Vec<ExprId> = phi.iter().map(|&e| pool.directional(e, spatial)).collect();
    let l = ExprMatrix {
        rows: phi.len(),
        cols: n,
        entries: pool.jacobian(&phi_q_v, &q),
    };

    let nh = model.nonholonomic.clone();
    let nh_matrix = ExprMatrix {
        rows: nh.len(),
        cols: n,
        entries: pool.jacobian(&nh, &v),
    };
    let zero = pool.zero();
    let at_rest: rustc_hash::FxHashMap<_, _> = v
        .iter()
        .map(|&vi| (pool.as_symbol(vi).expect("velocities are symbols"), zero))
        .collect();
    let nh_offset = pool.substitute_many(&nh, &at_rest);
    gamma.extend(nh.iter().map(|&e| {
        let rate = pool.directional(e, total);
        pool.neg(rate)
    }));
    let kernels = Kernels {
        phi,
        phi_q,
        phi_t,
        nh_matrix,
        nh_offset,
        gamma,
        l,
        mass: ExprMatrix {
            rows: n,
            cols: n,
            entries: model.mass.clone(),
        },
        force: model.force.clone(),
        tangents: None,
        energy: model
            .energy
            .map(|(kinetic, potential)| [kinetic, potential]),
    };
    let sparse = crate::emit_sparse::nonzero_forms(model, &kernels);
    let tangents = model.tangents.then(|| tangents(model, &kernels, sparse));
    debug_assert!(model.pool.check_invariants());
    Kernels {
        tangents,
        ..kernels
    }
}

/// The tangent kernels of `model` from its derived kernels (adds λ and w symbols to the pool);
/// with `residual` (a model with the sparse forms) also their sum K.
fn tangents(model: &mut Model, k: &Kernels, residual: bool) -> Tangents {
    let (n, m, t) = (model.n(), k.phi.len(), model.time);
    let (q, v) = (model.q(), model.v());
    let pool = &mut model.pool;
    let rows = m + k.nh_offset.len();
    let lambda: Vec<ExprId> = (0..rows)
        .map(|i| pool.symbol(&format!("lambda[{i}]"), SymbolKind::Multiplier(i)))
        .collect();
    let w: Vec<ExprId> = (0..n)
        .map(|i| pool.symbol(&format!("w[{i}]"), SymbolKind::Auxiliary(i)))
        .collect();
    let square = |entries| ExprMatrix {
        rows: n,
        cols: n,
        entries,
    };
    let mass_w = times(pool, &k.mass, &w, false);
    let phi_q_t_lambda = times(pool, &k.phi_q, &lambda[..m], true);
    let nh_t_lambda = times(pool, &k.nh_matrix, &lambda[m..], true);
    let phi_tt = k.phi_t.iter().map(|&e| pool.diff(e, t)).collect();
    // In the order the pool has always met them (ids, and so the emitted code, unchanged).
    let force_q = square(pool.jacobian(&k.force, &q));
    let force_v = square(pool.jacobian(&k.force, &v));
    let mass_w_q = square(pool.jacobian(&mass_w, &q));
    let phi_q_t_lambda_q = square(pool.jacobian(&phi_q_t_lambda, &q));
    let nh_matrix_t_lambda_q = square(pool.jacobian(&nh_t_lambda, &q));
    let residual_q = residual.then(|| {
        let blocks = [&mass_w_q, &phi_q_t_lambda_q, &nh_matrix_t_lambda_q];
        let entries = (0..n * n)
            .map(|i| {
                let sum: Vec<ExprId> = blocks.iter().map(|b| b.entries[i]).collect();
                let sum = pool.add(&sum);
                pool.sub(sum, force_q.entries[i])
            })
            .collect();
        square(entries)
    });
    Tangents {
        force_q,
        force_v,
        mass_w_q,
        phi_q_t_lambda_q,
        nh_matrix_t_lambda_q,
        residual_q,
        phi_qt: ExprMatrix {
            rows: m,
            cols: n,
            entries: pool.jacobian(&k.phi_t, &q),
        },
        phi_tt,
        lambda,
        w,
    }
}

/// `mat · x` (or `matᵀ · x` when `transpose`), as expressions.
fn times(pool: &mut Pool, mat: &ExprMatrix, x: &[ExprId], transpose: bool) -> Vec<ExprId> {
    let (outer, inner) = match transpose {
        true => (mat.cols, mat.rows),
        false => (mat.rows, mat.cols),
    };
    (0..outer)
        .map(|i| {
            let terms: Vec<ExprId> = (0..inner)
                .map(|j| {
                    let a = if transpose {
                        mat.get(j, i)
                    } else {
                        mat.get(i, j)
                    };
                    pool.mul2(a, x[j])
                })
                .collect();
            pool.add(&terms)
        })
        .collect()
}

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

use crate::model::Model;
use crate::pool::ExprId;

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
}

impl Kernels {
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
    debug_assert!(pool.check_invariants());
    Kernels {
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
    }
}

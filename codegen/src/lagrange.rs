//! Lagrangian derivation: the mass matrix and generalized forces from energies (the MAPLE
//! workflow of the thesis, ch. 5), symbolically and in time linear in the size of the graph.
//!
//! Given the kinetic energy T(t, q, v), the potential V(t, q) and non-conservative generalized
//! forces Q_nc(t, q, v), Lagrange's equations d/dt(∂T/∂v) − ∂T/∂q + ∂V/∂q = Q_nc read
//! M v̇ = Q with
//! - M = ∂²T/∂v∂v (T is quadratic in v for mechanical systems, so M does not depend on v; that is
//!   checked, not assumed);
//! - Q = Q_nc + ∂T/∂q − ∂V/∂q − (∂²T/∂v∂q) v − ∂²T/∂v∂t.
//!
//! The last two terms together are the total derivative of the momenta p = ∂T/∂v along
//! q ↦ v, t ↦ 1 with v held fixed: one directional derivative per momentum
//! ([`Pool::directional`]) instead of n² partial derivatives. Only the upper triangle of M is
//! differentiated; the lower one is its mirror, so M is symmetric by construction. The
//! derivatives in v skip velocity-free subgraphs through the pool's cached symbol sets
//! ([`Pool::diff`] prunes by them), which keeps the Hessian of T linear in the size of its
//! velocity-dependent part.

use crate::pool::{CmpOp, ExprId, Func, Node, Pool, SymbolKind};
use rustc_hash::FxHashMap;

/// The energies and forces of a Lagrangian model; all ids live in one pool.
#[derive(Clone, Debug)]
pub struct Lagrangian<'a> {
    /// The time symbol.
    pub time: ExprId,
    /// Coordinate symbols q.
    pub q: &'a [ExprId],
    /// Velocity symbols v (same order).
    pub v: &'a [ExprId],
    /// Kinetic energy T(t, q, v).
    pub kinetic: ExprId,
    /// Potential energy V(t, q).
    pub potential: ExprId,
    /// Non-conservative generalized forces Q_nc(t, q, v), one per coordinate.
    pub nonconservative: &'a [ExprId],
}

/// The derived equations of motion M(t, q) v̇ = Q(t, q, v).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquationsOfMotion {
    /// Mass matrix rows, `n × n`, symmetric.
    pub mass: Vec<Vec<ExprId>>,
    /// Generalized forces, `n`.
    pub force: Vec<ExprId>,
}

/// Why a Lagrangian does not give mechanical equations of motion.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LagrangeError {
    /// ∂²T/∂v_i∂v_j still depends on a velocity: T is not quadratic in v.
    #[error(
        "the kinetic energy is not quadratic in the velocities: its second derivative ∂²T/∂{vi}∂{vj} (mass-matrix entry) is `{entry}`, which still depends on `{velocity}`"
    )]
    NotQuadratic {
        /// First velocity.
        vi: String,
        /// Second velocity.
        vj: String,
        /// The mass-matrix entry, in the model's Rust-like syntax.
        entry: String,
        /// The velocity it mentions.
        velocity: String,
    },
    /// The potential depends on a velocity.
    #[error(
        "the potential energy depends on the velocity `{velocity}`; V may depend only on t, q and parameters"
    )]
    VelocityInPotential {
        /// The velocity.
        velocity: String,
    },
    /// Q_nc has the wrong length.
    #[error(
        "the non-conservative forces have {found} entries, expected one per coordinate ({expected})"
    )]
    ForceLength {
        /// Coordinates.
        expected: usize,
        /// Entries given.
        found: usize,
    },
}

/// Derive M and Q from a Lagrangian (adds nodes to `pool`).
pub fn derive(
    pool: &mut Pool,
    lagrangian: &Lagrangian<'_>,
) -> Result<EquationsOfMotion, LagrangeError> {
    let Lagrangian {
        time,
        q,
        v,
        kinetic,
        potential,
        nonconservative,
    } = *lagrangian;
    let n = q.len();
    if nonconservative.len() != n {
        return Err(LagrangeError::ForceLength {
            expected: n,
            found: nonconservative.len(),
        });
    }
    if let Some(velocity) = first_velocity(pool, potential) {
        return Err(LagrangeError::VelocityInPotential { velocity });
    }
    let momenta: Vec<ExprId> = v.iter().map(|&vi| pool.diff(kinetic, vi)).collect();
    let zero = pool.zero();
    let mut mass = vec![vec![zero; n]; n];
    for j in 0..n {
        for i in 0..=j {
            let entry = pool.diff(momenta[i], v[j]);
            mass[i][j] = entry;
            mass[j][i] = entry;
        }
    }
    let entries: Vec<ExprId> = mass.iter().flatten().copied().collect();
    let velocities = pool.symbol_mask(v.iter().filter_map(|&vi| pool.as_symbol(vi)));
    if let Some(pos) = entries
        .iter()
        .position(|&e| pool.depends_on_any(e, &velocities))
    {
        let (i, j) = (pos / n, pos % n);
        let name = |e: ExprId| {
            pool.symbol_info(pool.as_symbol(e).expect("symbol"))
                .name
                .clone()
        };
        let velocity = first_velocity(pool, entries[pos]).expect("flagged");
        let (vi, vj, entry) = (name(v[i]), name(v[j]), pool.to_rust(entries[pos]));
        return Err(LagrangeError::NotQuadratic {
            vi,
            vj,
            entry,
            velocity,
        });
    }
    let total = pool.total_direction(time, q, v);
    let force = (0..n)
        .map(|i| {
            let dt_dq = pool.diff(kinetic, q[i]);
            let dv_dq = pool.diff(potential, q[i]);
            let dp_dt = pool.directional(momenta[i], total);
            let (minus_dv, minus_dp) = (pool.neg(dv_dq), pool.neg(dp_dt));
            pool.add(&[nonconservative[i], dt_dq, minus_dv, minus_dp])
        })
        .collect();
    debug_assert!(pool.check_invariants());
    Ok(EquationsOfMotion { mass, force })
}

/// The name of the first velocity symbol occurring in `e`.
pub(crate) fn first_velocity(pool: &Pool, e: ExprId) -> Option<String> {
    pool.reachable(&[e]).into_iter().find_map(|id| {
        let s = pool.as_symbol(id)?;
        let info = pool.symbol_info(s);
        matches!(info.kind, SymbolKind::Velocity(_)).then(|| info.name.clone())
    })
}

/// The gradient ∂e/∂x_j for every symbol of `xs` at once, in reverse mode: adjoints are
/// accumulated from `e` down to the leaves, so a subexpression shared by many paths (an angle
/// a_k = q_1 + … + q_k of a chain) passes its adjoint on once, and the result has the size of
/// `e` plus the adjoint sums (nested sums over a chain, which the schedule's sub-sum rewrite
/// computes from each other), instead of n forward derivatives each through the whole graph.
/// Used for −∂V/∂q beside the structured bodies of `frontend/body_energy.rs`.
pub(crate) fn gradient(pool: &mut Pool, e: ExprId, xs: &[ExprId]) -> Vec<ExprId> {
    let syms: Vec<_> = xs.iter().filter_map(|&x| pool.as_symbol(x)).collect();
    let mask = pool.symbol_mask(syms.iter().copied());
    let mut nodes = pool.reachable(&[e]);
    nodes.retain(|&id| pool.depends_on_any(id, &mask));
    let mut parts: FxHashMap<ExprId, Vec<ExprId>> = FxHashMap::default();
    let one = pool.one();
    parts.insert(e, vec![one]);
    let mut adjoints: FxHashMap<ExprId, ExprId> = FxHashMap::default();
    for &id in nodes.iter().rev() {
        let contributions = parts.remove(&id).unwrap_or_default();
        let adjoint = pool.add(&contributions);
        adjoints.insert(id, adjoint);
        if pool.is_zero(adjoint) {
            continue;
        }
        for (child, local) in local_partials(pool, id, &mask) {
            let term = pool.mul2(adjoint, local);
            parts.entry(child).or_default().push(term);
        }
    }
    let zero = pool.zero();
    xs.iter()
        .map(|x| adjoints.get(x).copied().unwrap_or(zero))
        .collect()
}

/// ∂node/∂child for each child of `id` that depends on a symbol of `mask` (children of a
/// canonical node are distinct).
fn local_partials(pool: &mut Pool, id: ExprId, mask: &[u64]) -> Vec<(ExprId, ExprId)> {
    let mut partials = all_partials(pool, id, mask);
    partials.retain(|&(child, _)| pool.depends_on_any(child, mask));
    partials
}

/// ∂node/∂child, built only for the children that depend on `mask` where building costs nodes.
fn all_partials(pool: &mut Pool, id: ExprId, mask: &[u64]) -> Vec<(ExprId, ExprId)> {
    let (zero, one) = (pool.zero(), pool.one());
    match pool.node(id).clone() {
        Node::Num(_) | Node::Sym(_) | Node::Cmp(..) => Vec::new(),
        Node::Add(terms) => terms.iter().map(|&t| (t, one)).collect(),
        Node::Mul(factors) => {
            let dependent: Vec<usize> = (0..factors.len())
                .filter(|&i| pool.depends_on_any(factors[i], mask))
                .collect();
            dependent
                .into_iter()
                .map(|i| {
                    let rest: Vec<ExprId> = (0..factors.len())
                        .filter(|&j| j != i)
                        .map(|j| factors[j])
                        .collect();
                    (factors[i], pool.mul(&rest))
                })
                .collect()
        }
        Node::Pow(b, x) => {
            // ∂/∂b = x · b^(x−1), ∂/∂x = b^x · ln b
            let mut partials = Vec::new();
            if pool.depends_on_any(b, mask) {
                let minus_one = pool.int(-1);
                let xm1 = pool.add2(x, minus_one);
                let p = pool.pow(b, xm1);
                partials.push((b, pool.mul2(x, p)));
            }
            if pool.depends_on_any(x, mask) {
                let lnb = pool.func(Func::Ln, b);
                partials.push((x, pool.mul2(id, lnb)));
            }
            partials
        }
        Node::Func(f, a) => vec![(a, pool.func_derivative(f, id, a))],
        Node::Atan2(y, x) => {
            // ∂/∂y = x / (x² + y²), ∂/∂x = −y / (x² + y²)
            let (x2, y2) = (pool.powi(x, 2), pool.powi(y, 2));
            let den = pool.add2(x2, y2);
            let inv = pool.powi(den, -1);
            let minus_y = pool.neg(y);
            vec![(y, pool.mul2(x, inv)), (x, pool.mul2(minus_y, inv))]
        }
        Node::Min(a, b) => branch_partials(pool, CmpOp::Le, a, b),
        Node::Max(a, b) => branch_partials(pool, CmpOp::Ge, a, b),
        Node::Select(c, a, b) => vec![
            (a, pool.select(c, one, zero)),
            (b, pool.select(c, zero, one)),
        ],
    }
}

/// min/max: the selected branch (`a` when `a op b`) gets the adjoint, as in forward mode.
fn branch_partials(pool: &mut Pool, op: CmpOp, a: ExprId, b: ExprId) -> Vec<(ExprId, ExprId)> {
    let (zero, one) = (pool.zero(), pool.one());
    let c = pool.cmp(op, a, b);
    vec![
        (a, pool.select(c, one, zero)),
        (b, pool.select(c, zero, one)),
    ]
}

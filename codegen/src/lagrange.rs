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
//! derivatives in v skip velocity-free subgraphs (`VelocityFlags`), which keeps the Hessian of T
//! linear in the size of its velocity-dependent part.

use crate::pool::{ExprId, Node, Pool, SymbolKind, children};
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
        "the kinetic energy is not quadratic in the velocities: ∂²T/∂{vi}∂{vj} = `{entry}` depends on `{velocity}`"
    )]
    NotQuadratic {
        /// First velocity.
        vi: String,
        /// Second velocity.
        vj: String,
        /// The mass-matrix entry.
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
    let mut flags = VelocityFlags::new(pool, &[kinetic]);
    let mut momenta = Vec::with_capacity(n);
    for &vi in v {
        flags.memo.clear();
        momenta.push(flags.diff(pool, kinetic, vi));
    }
    flags = VelocityFlags::new(pool, &momenta);
    let zero = pool.zero();
    let mut mass = vec![vec![zero; n]; n];
    for j in 0..n {
        flags.memo.clear();
        for i in 0..=j {
            let entry = flags.diff(pool, momenta[i], v[j]);
            mass[i][j] = entry;
            mass[j][i] = entry;
        }
    }
    let entries: Vec<ExprId> = mass.iter().flatten().copied().collect();
    let in_mass = VelocityFlags::new(pool, &entries);
    if let Some(pos) = entries.iter().position(|e| in_mass.has_v[e.index()]) {
        let (i, j) = (pos / n, pos % n);
        let name = |e: ExprId| {
            pool.symbol_info(pool.as_symbol(e).expect("symbol"))
                .name
                .clone()
        };
        let velocity = first_velocity(pool, entries[pos]).expect("flagged");
        let (vi, vj, entry) = (name(v[i]), name(v[j]), pool.to_sexpr(entries[pos]));
        return Err(LagrangeError::NotQuadratic {
            vi,
            vj,
            entry,
            velocity,
        });
    }
    let one = pool.one();
    let mut rates: Vec<(ExprId, ExprId)> = q.iter().copied().zip(v.iter().copied()).collect();
    rates.push((time, one));
    let total = pool.direction(&rates);
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

/// Which nodes mention a velocity, and ∂/∂v_k that skips the subgraphs that do not.
///
/// `Pool::diff` visits every node below its argument; a momentum p_j = ∂T/∂v_j, though, is
/// mostly position-only subexpressions (∂c/∂q, sines, cosines), and M needs n²/2 derivatives of
/// momenta. Returning 0 at once for velocity-free nodes makes those derivatives cost the size of
/// their velocity-dependent part only (O(n³) instead of O(n⁴) for a serial chain). Sums,
/// products, symbols and constant powers are differentiated here; any other node that mentions
/// v falls back to `Pool::diff` (same rules, unpruned). The memo is per variable: clear it when
/// the variable changes.
struct VelocityFlags {
    has_v: Vec<bool>,
    memo: FxHashMap<ExprId, ExprId>,
}

impl VelocityFlags {
    /// Flags for every node reachable from `roots` (nodes created later count as mentioning v).
    fn new(pool: &Pool, roots: &[ExprId]) -> VelocityFlags {
        let mut has_v = vec![false; pool.len()];
        for id in pool.reachable(roots) {
            has_v[id.index()] = match pool.node(id) {
                Node::Sym(s) => matches!(pool.symbol_info(*s).kind, SymbolKind::Velocity(_)),
                node => children(node).iter().any(|c| has_v[c.index()]),
            };
        }
        VelocityFlags {
            has_v,
            memo: FxHashMap::default(),
        }
    }

    /// ∂e/∂x for the velocity symbol `x` (memoised until `memo` is cleared).
    fn diff(&mut self, pool: &mut Pool, e: ExprId, x: ExprId) -> ExprId {
        if !self.has_v.get(e.index()).copied().unwrap_or(true) {
            return pool.zero();
        }
        if let Some(&d) = self.memo.get(&e) {
            return d;
        }
        let d = match pool.node(e).clone() {
            Node::Add(terms) => {
                let ds: Vec<ExprId> = terms.iter().map(|&t| self.diff(pool, t, x)).collect();
                pool.add(&ds)
            }
            Node::Mul(factors) => {
                let mut terms = Vec::new();
                for (i, &f) in factors.iter().enumerate() {
                    let df = self.diff(pool, f, x);
                    if pool.as_number(df).is_some_and(|d| d.is_zero()) {
                        continue;
                    }
                    let mut rest: Vec<ExprId> = factors
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, &g)| g)
                        .collect();
                    rest.push(df);
                    terms.push(pool.mul(&rest));
                }
                pool.add(&terms)
            }
            Node::Pow(b, k) if pool.as_number(k).is_some() => {
                let db = self.diff(pool, b, x);
                let m1 = pool.int(-1);
                let km1 = pool.add2(k, m1);
                let p = pool.pow(b, km1);
                pool.mul(&[k, p, db])
            }
            _ => pool.diff(e, x),
        };
        self.memo.insert(e, d);
        d
    }
}

/// The name of the first velocity symbol occurring in `e`.
fn first_velocity(pool: &Pool, e: ExprId) -> Option<String> {
    pool.reachable(&[e]).into_iter().find_map(|id| {
        let s = pool.as_symbol(id)?;
        let info = pool.symbol_info(s);
        matches!(info.kind, SymbolKind::Velocity(_)).then(|| info.name.clone())
    })
}

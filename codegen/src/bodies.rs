//! Structured dynamics of planar rigid bodies placed by expressions of the coordinates: M and Q
//! in the factored form M = Σ_b J_bᵀ M_b J_b, Q = Σ_b J_bᵀ F_b, never as the expanded Hessian of
//! the kinetic energy.
//!
//! A body b has mass m, inertia J about its centre of mass, and a placement (x, y, φ)(t, q) of
//! its centre of mass and angle. Its motion is taken as a *spatial* (Plücker) velocity at the
//! fixed origin, V_b = (ω, v_O) with v_O the velocity of the body point passing through the
//! origin, so V_b = Σ_j s_bj v_j + s_bt with the spatial Jacobian columns
//! s_bj = (∂φ/∂q_j, ∂x/∂q_j + y ∂φ/∂q_j, ∂y/∂q_j − x ∂φ/∂q_j). For a tree of bodies in relative
//! coordinates, joint j's column is the same for every body beyond it (for a revolute joint at
//! p_j it is (1, p_jy, −p_jx)), and the canonical sums make those columns one node: the columns
//! are shared, and Σ_b s_biᵀ I_b s_bj regroups into s_iᵀ (Σ_{b ∈ S} I_b) s_j over the set S of
//! bodies sharing both columns, with the spatial inertia at the origin
//! I_b = [[J + m(x² + y²), −m y, m x], [−m y, m, 0], [m x, 0, m]] — the composite-rigid-body
//! form, found from the expressions instead of declared. The body sums over nested sets are
//! computed from each other by the schedule's sub-sum rewrite (`cse.rs`), so a serial chain of
//! n bodies costs O(n) for the composites and O(n²) for M, like the hand-written recursion.
//!
//! Q: with h_b = I_b V_b the spatial momentum about the origin, Newton–Euler reads
//! ḣ_b = F_b, and projecting onto the columns gives M v̇ = Q with
//! Q_j = Σ_b s_bjᵀ (F_b − ḣ_b|_{v̇=0}) plus the extra generalized forces; ḣ_b|_{v̇=0} is the
//! directional derivative of h_b along q ↦ v, t ↦ 1 with v held fixed (the velocity-product and
//! rheonomic terms), and F_b = (τ + x f_y − y f_x, f_x, f_y) is the applied force (f at the
//! centre of mass, torque τ) as a spatial force at the origin. T = ½ Σ_b V_b · h_b.

use crate::lagrange::{EquationsOfMotion, first_velocity};
use crate::number::Number;
use crate::pool::{ExprId, Pool};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// A planar rigid body placed by expressions of t and q.
#[derive(Clone, Debug)]
pub struct RigidBody {
    /// The body's name (for error messages).
    pub name: String,
    /// Mass m.
    pub mass: ExprId,
    /// Moment of inertia J about the centre of mass.
    pub inertia: ExprId,
    /// Centre of mass (x, y) and angle φ: expressions of t, q and parameters.
    pub placement: [ExprId; 3],
    /// Applied force (f_x, f_y) at the centre of mass and torque τ: expressions of t, q, v.
    pub load: [ExprId; 3],
}

/// The bodies of a model and what they move with; all ids live in one pool.
#[derive(Clone, Debug)]
pub struct Bodies<'a> {
    /// The time symbol.
    pub time: ExprId,
    /// Coordinate symbols q.
    pub q: &'a [ExprId],
    /// Velocity symbols v (same order).
    pub v: &'a [ExprId],
    /// The bodies.
    pub bodies: &'a [RigidBody],
    /// Generalized forces added to Q (non-body loads, −∂V/∂q of a potential), one per
    /// coordinate.
    pub extra: &'a [ExprId],
}

/// M, Q and the kinetic energy of a body system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// M and Q.
    pub eom: EquationsOfMotion,
    /// T = ½ Σ_b V_b · h_b.
    pub kinetic: ExprId,
}

/// Why bodies do not give equations of motion.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// A placement depends on a velocity.
    #[error(
        "the placement of body `{body}` depends on the velocity `{velocity}`; x, y and the angle may depend only on t, q and parameters"
    )]
    VelocityInPlacement {
        /// The body.
        body: String,
        /// The velocity.
        velocity: String,
    },
    /// The extra forces have the wrong length.
    #[error(
        "the generalized forces have {found} entries, expected one per coordinate ({expected})"
    )]
    ForceLength {
        /// Coordinates.
        expected: usize,
        /// Entries given.
        found: usize,
    },
}

/// A spatial vector (ω, v_x, v_y) or force (n, f_x, f_y).
type Spatial = [ExprId; 3];

/// Index of a distinct spatial column.
pub(crate) type ColumnId = usize;

/// One body's kinematics: its nonzero columns (coordinate, column id), spatial inertia entries
/// (here (a, b, c, m) of [[a, b, c], [b, m, 0], [c, 0, m]]; `spatial_tree.rs` has ten), and
/// its net spatial force F − ḣ|_{v̇=0}.
pub(crate) struct BodyTerms<const N: usize, const K: usize> {
    pub(crate) columns: Vec<(usize, ColumnId)>,
    pub(crate) inertia: [ExprId; K],
    pub(crate) net_force: [ExprId; N],
}

/// Derive M, Q and T from the bodies (adds nodes to `pool`).
pub fn derive(pool: &mut Pool, system: &Bodies<'_>) -> Result<Structured, BodyError> {
    let n = system.q.len();
    if system.extra.len() != n {
        return Err(BodyError::ForceLength {
            expected: n,
            found: system.extra.len(),
        });
    }
    let total = pool.total_direction(system.time, system.q, system.v);
    let mut columns: Vec<Spatial> = Vec::new();
    let mut column_ids: FxHashMap<Spatial, ColumnId> = FxHashMap::default();
    let mut terms = Vec::with_capacity(system.bodies.len());
    let mut kinetic = Vec::with_capacity(system.bodies.len());
    for body in system.bodies {
        check_placement(pool, body)?;
        let mut column_of = |s: Spatial| {
            let next = columns.len();
            let id = *column_ids.entry(s).or_insert(next);
            if id == next {
                columns.push(s);
            }
            id
        };
        let [x, y, _] = body.placement;
        let mut nonzero = Vec::new();
        let mut velocity: [Vec<ExprId>; 3] = Default::default();
        for (j, &qj) in system.q.iter().enumerate() {
            let s = spatial_column(pool, body, qj);
            if s.iter().all(|&e| pool.is_zero(e)) {
                continue;
            }
            nonzero.push((j, column_of(s)));
            for (acc, &e) in velocity.iter_mut().zip(&s) {
                acc.push(pool.mul2(e, system.v[j]));
            }
        }
        let st = spatial_column(pool, body, system.time);
        for (acc, e) in velocity.iter_mut().zip(st) {
            acc.push(e);
        }
        let velocity: Spatial = velocity.map(|parts| pool.add(&parts));
        let inertia = spatial_inertia(pool, body.mass, body.inertia, x, y);
        let momentum = times_inertia(pool, &inertia, velocity);
        let rate = momentum_rate(pool, &inertia, velocity, momentum, total);
        let applied = applied_force(pool, body.load, x, y);
        let net_force = [0, 1, 2].map(|k| pool.sub(applied[k], rate[k]));
        kinetic.push(dot(pool, velocity, momentum));
        terms.push(BodyTerms {
            columns: nonzero,
            inertia,
            net_force,
        });
    }
    let half = pool.rational(1, 2);
    let kinetic = pool.add(&kinetic);
    let kinetic = pool.mul2(half, kinetic);
    let mass = assemble_mass(pool, n, &columns, &terms, times_inertia);
    let force = assemble_force(pool, system.extra, &columns, &terms);
    Ok(Structured {
        eom: EquationsOfMotion { mass, force },
        kinetic,
    })
}

/// The error for a placement that mentions a velocity.
fn check_placement(pool: &Pool, body: &RigidBody) -> Result<(), BodyError> {
    match body.placement.iter().find_map(|&e| first_velocity(pool, e)) {
        Some(velocity) => Err(BodyError::VelocityInPlacement {
            body: body.name.clone(),
            velocity,
        }),
        None => Ok(()),
    }
}

/// The spatial column of a body for the variable `x` (a coordinate, or t for the rheonomic
/// part): (∂φ, ∂x_c + y ∂φ, ∂y_c − x ∂φ).
fn spatial_column(pool: &mut Pool, body: &RigidBody, var: ExprId) -> Spatial {
    let [x, y, phi] = body.placement;
    let (dx, dy, dphi) = (pool.diff(x, var), pool.diff(y, var), pool.diff(phi, var));
    if [dx, dy, dphi].iter().all(|&d| pool.is_zero(d)) {
        // What the products and sums below give for a body that does not move with `var`,
        // interning 1 and −1 on the way as they do.
        let _ = (pool.one(), pool.num(Number::MINUS_ONE));
        return [dphi; 3];
    }
    let (y_dphi, x_dphi) = (pool.mul2(y, dphi), pool.mul2(x, dphi));
    [dphi, pool.add2(dx, y_dphi), pool.sub(dy, x_dphi)]
}

/// The entries (a, b, c, m) of the spatial inertia at the origin
/// [[J + m(x² + y²), −m y, m x], [−m y, m, 0], [m x, 0, m]].
fn spatial_inertia(pool: &mut Pool, m: ExprId, j: ExprId, x: ExprId, y: ExprId) -> [ExprId; 4] {
    let (x2, y2) = (pool.powi(x, 2), pool.powi(y, 2));
    let r2 = pool.add2(x2, y2);
    let m_r2 = pool.mul2(m, r2);
    let a = pool.add2(j, m_r2);
    let m_y = pool.mul2(m, y);
    let b = pool.neg(m_y);
    let c = pool.mul2(m, x);
    [a, b, c, m]
}

/// I s for the inertia entries (a, b, c, m) and a spatial vector s.
fn times_inertia(pool: &mut Pool, [a, b, c, m]: &[ExprId; 4], s: Spatial) -> Spatial {
    let row0 = [
        pool.mul2(*a, s[0]),
        pool.mul2(*b, s[1]),
        pool.mul2(*c, s[2]),
    ];
    let row1 = [pool.mul2(*b, s[0]), pool.mul2(*m, s[1])];
    let row2 = [pool.mul2(*c, s[0]), pool.mul2(*m, s[2])];
    [pool.add(&row0), pool.add(&row1), pool.add(&row2)]
}

/// ḣ at v̇ = 0: I A + V ×* h with A = V̇ at v̇ = 0 (the directional derivative of V along
/// q ↦ v, t ↦ 1) and the spatial cross product for forces
/// (ω, v_x, v_y) ×* (n, f_x, f_y) = (v_x f_y − v_y f_x, −ω f_y, ω f_x), which is İ V for an
/// inertia expressed at a fixed origin (Featherstone, Rigid Body Dynamics Algorithms, §2.13).
fn momentum_rate(
    pool: &mut Pool,
    inertia: &[ExprId; 4],
    velocity: Spatial,
    momentum: Spatial,
    total: crate::diff::Direction,
) -> Spatial {
    let acceleration = velocity.map(|e| pool.directional(e, total));
    let inertial = times_inertia(pool, inertia, acceleration);
    let [w, vx, vy] = velocity;
    let [_, fx, fy] = momentum;
    let (vx_fy, vy_fx) = (pool.mul2(vx, fy), pool.mul2(vy, fx));
    let moment = pool.sub(vx_fy, vy_fx);
    let w_fy = pool.mul2(w, fy);
    let cross = [moment, pool.neg(w_fy), pool.mul2(w, fx)];
    [0, 1, 2].map(|k| pool.add2(inertial[k], cross[k]))
}

/// A force (f_x, f_y) at (x, y) and a torque τ as a spatial force at the origin.
fn applied_force(pool: &mut Pool, [fx, fy, tau]: [ExprId; 3], x: ExprId, y: ExprId) -> Spatial {
    let (x_fy, y_fx) = (pool.mul2(x, fy), pool.mul2(y, fx));
    let minus_y_fx = pool.neg(y_fx);
    [pool.add(&[tau, x_fy, minus_y_fx]), fx, fy]
}

/// a · b for spatial vectors (or forces) of any length.
pub(crate) fn dot<const N: usize>(pool: &mut Pool, a: [ExprId; N], b: [ExprId; N]) -> ExprId {
    let products: [ExprId; N] = std::array::from_fn(|k| pool.mul2(a[k], b[k]));
    pool.add(&products)
}

/// M_ij = Σ over the groups of bodies sharing the columns (s_i, s_j): s_iᵀ (Σ_S I_b) s_j, for
/// spatial vectors of length N and inertias of K entries (`times` is I s); shared by the planar
/// bodies here and the spatial ones of `spatial_tree.rs`.
pub(crate) fn assemble_mass<const N: usize, const K: usize>(
    pool: &mut Pool,
    n: usize,
    columns: &[[ExprId; N]],
    terms: &[BodyTerms<N, K>],
    times: impl Fn(&mut Pool, &[ExprId; K], [ExprId; N]) -> [ExprId; N],
) -> Vec<Vec<ExprId>> {
    let mut groups: BTreeMap<(usize, usize, ColumnId, ColumnId), Vec<usize>> = BTreeMap::new();
    for (b, body) in terms.iter().enumerate() {
        for (k, &(i, ci)) in body.columns.iter().enumerate() {
            for &(j, cj) in &body.columns[k..] {
                groups.entry((i, j, ci, cj)).or_default().push(b);
            }
        }
    }
    let mut composite: FxHashMap<Vec<usize>, [ExprId; K]> = FxHashMap::default();
    let mut weighted: FxHashMap<(Vec<usize>, ColumnId), [ExprId; N]> = FxHashMap::default();
    let mut parts: BTreeMap<(usize, usize), Vec<ExprId>> = BTreeMap::new();
    for ((i, j, ci, cj), set) in groups {
        let key = (set, cj);
        let w = match weighted.get(&key) {
            Some(&w) => w,
            None => {
                let sum = composite_sum(pool, &mut composite, &key.0, |b| terms[b].inertia);
                let w = times(pool, &sum, columns[cj]);
                weighted.insert(key, w);
                w
            }
        };
        let entry = dot(pool, columns[ci], w);
        parts.entry((i, j)).or_default().push(entry);
    }
    let zero = pool.zero();
    let mut mass = vec![vec![zero; n]; n];
    for ((i, j), entries) in parts {
        let e = pool.add(&entries);
        mass[i][j] = e;
        mass[j][i] = e;
    }
    mass
}

/// Σ_{b ∈ set} of a per-body array, entry by entry, memoised per set.
fn composite_sum<const K: usize>(
    pool: &mut Pool,
    cache: &mut FxHashMap<Vec<usize>, [ExprId; K]>,
    set: &[usize],
    of: impl Fn(usize) -> [ExprId; K],
) -> [ExprId; K] {
    if let Some(&sum) = cache.get(set) {
        return sum;
    }
    let sum = std::array::from_fn(|k| {
        let parts: Vec<ExprId> = set.iter().map(|&b| of(b)[k]).collect();
        pool.add(&parts)
    });
    cache.insert(set.to_vec(), sum);
    sum
}

/// Q_j = extra_j + Σ over the groups of bodies sharing column s of coordinate j: s · Σ_S F_b.
pub(crate) fn assemble_force<const N: usize, const K: usize>(
    pool: &mut Pool,
    extra: &[ExprId],
    columns: &[[ExprId; N]],
    terms: &[BodyTerms<N, K>],
) -> Vec<ExprId> {
    let mut groups: BTreeMap<(usize, ColumnId), Vec<usize>> = BTreeMap::new();
    for (b, body) in terms.iter().enumerate() {
        for &(j, c) in &body.columns {
            groups.entry((j, c)).or_default().push(b);
        }
    }
    let mut composite: FxHashMap<Vec<usize>, [ExprId; N]> = FxHashMap::default();
    let mut parts: Vec<Vec<ExprId>> = extra.iter().map(|&e| vec![e]).collect();
    for ((j, c), set) in groups {
        let sum = composite_sum(pool, &mut composite, &set, |b| terms[b].net_force);
        let e = dot(pool, columns[c], sum);
        parts[j].push(e);
    }
    parts.iter().map(|p| pool.add(p)).collect()
}

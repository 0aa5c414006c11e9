//! Structured dynamics of *spatial* rigid bodies placed by expressions of the coordinates (a
//! tree in relative coordinates: a serial arm, a gimbal, a top on joint angles): M and Q in the
//! factored form M = Σ_b J_bᵀ M_b J_b, Q = Σ_b J_bᵀ F_b, the three-dimensional counterpart of
//! [`crate::bodies`].
//!
//! A body has mass m, the body-frame inertia tensor J′ about its centre of mass, an
//! [`Orientation`] R(t, q) (body to world) and a position r(t, q) of its centre of mass given as
//! a sum of [`Segment`]s R_k c_k (a rotation times a vector of its frame; a plain vector is a
//! segment with R = 1). Its motion is the spatial (Plücker) velocity at the fixed origin,
//! V_b = (ω, v_O) with v_O = ṙ − ω × r the velocity of the body point passing through the
//! origin, V_b = Σ_j s_bj v_j + s_bt.
//!
//! **Columns from the structure, not from ∂R Rᵀ.** The canonicalising constructors do not
//! know cos² + sin² = 1, so ω from the entries of ∂R/∂q_j Rᵀ would be large and would differ
//! from body to body. An orientation keeps, besides its matrix, the list of its factors' rates
//! ([`Rate`]): an elementary rotation by the angle a about an axis contributes that axis (turned
//! into the world by the factors before it) times ∂a/∂q_j; a general factor F (a matrix
//! expression) after the prefix P contributes P vee(skew(∂F/∂q_j Fᵀ)). So ω_j of a body in a
//! chain is exactly the node of its joint's world axis, the same for every body beyond the joint.
//! The translational part is taken segment by segment with ∂(R c)/∂x = ω_x^R × (R c) + R ∂c/∂x:
//! v_O,x = Σ_k (ω_x^{R_k} − ω_x) × (R_k c_k) + R_k ∂c_k/∂x, where a segment beyond the joint
//! (its rotation holds the joint's) contributes an exact 0 and one before it −ω_x × (R_k c_k),
//! the same nodes for every body that shares the segments: for a revolute joint at p with axis
//! u the column is (u, p × u), one node for all bodies beyond it. The shared columns then
//! regroup M_ij = s_iᵀ (Σ_{b ∈ S} I_b) s_j over the sets S of bodies sharing both columns, the
//! composite-rigid-body form, with the spatial inertia at the origin (Featherstone, *Rigid Body
//! Dynamics Algorithms*, §2.13) I_b = [[Ī, h̃], [h̃ᵀ, m 1]], Ī = R J′ Rᵀ + m (|r|² 1 − r rᵀ),
//! h = m r, summed entry by entry (ten entries).
//!
//! Q: with the spatial momentum h_b = I_b V_b at the origin, Newton–Euler reads ḣ_b = F_b and
//! Q_j = Σ_b s_bjᵀ (F_b − ḣ_b|_{v̇=0}) plus the extra generalized forces, where
//! ḣ|_{v̇=0} = I A + V ×* (I V) with A the directional derivative of V along q ↦ v, t ↦ 1 at
//! fixed v, and (ω, v) ×* (n, f) = (ω × n + v × f, ω × f). The applied force f at the centre
//! of mass with the couple τ is the spatial force (τ + r × f, f) at the origin.
//! T = ½ Σ_b V_b · h_b.

use crate::bodies::{self, BodyError, ColumnId, assemble_force, assemble_mass};
use crate::diff::Direction;
use crate::lagrange::{EquationsOfMotion, first_velocity};
use crate::pool::{ExprId, Pool};
use rustc_hash::FxHashMap;

/// A 3-vector of expressions.
pub type V3 = [ExprId; 3];
/// A 3 × 3 matrix of expressions, row-major.
pub type M3 = [[ExprId; 3]; 3];

/// One factor's contribution to the angular velocity of an [`Orientation`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rate {
    /// A rotation by `angle` about the world-frame unit vector `axis` (the factor's own axis
    /// turned by the factors before it): ω += axis · dangle/dt.
    Axis {
        /// The axis in the world frame.
        axis: V3,
        /// The angle, an expression of t, q and parameters.
        angle: ExprId,
    },
    /// A general rotation factor F after the rotation `prefix`: ω += prefix · vee(Ḟ Fᵀ).
    General {
        /// The product of the factors before F.
        prefix: M3,
        /// F (must be a rotation; the front end's documentation says so).
        factor: M3,
    },
}

/// A rotation matrix (body to world) with the rates of the factors it is the product of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orientation {
    /// R.
    pub matrix: M3,
    /// The factors' rates, in product order.
    pub rates: Vec<Rate>,
}

/// One term R c of a position: the rotation R of some frame times a vector c of that frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// R (the identity for a plain world vector).
    pub rotation: Orientation,
    /// c, in R's frame (may depend on t and q: a prismatic joint).
    pub local: V3,
}

/// A spatial rigid body placed by expressions of t and q.
#[derive(Clone, Debug)]
pub struct SpatialBody {
    /// The body's name (for error messages).
    pub name: String,
    /// Mass m.
    pub mass: ExprId,
    /// Inertia tensor J′ about the centre of mass, in the body frame (symmetric).
    pub inertia: M3,
    /// R(t, q), body to world.
    pub orientation: Orientation,
    /// The centre of mass r = Σ R_k c_k.
    pub position: Vec<Segment>,
    /// Applied force f at the centre of mass (world frame), expressions of t, q, v.
    pub force: V3,
    /// Applied couple τ (world frame).
    pub torque: V3,
}

/// The bodies of a model and what they move with; all ids live in one pool.
#[derive(Clone, Debug)]
pub struct SpatialBodies<'a> {
    /// The time symbol.
    pub time: ExprId,
    /// Coordinate symbols q.
    pub q: &'a [ExprId],
    /// Velocity symbols v (same order).
    pub v: &'a [ExprId],
    /// The bodies.
    pub bodies: &'a [SpatialBody],
    /// Generalized forces added to Q, one per coordinate.
    pub extra: &'a [ExprId],
}

/// M, Q and the kinetic energy of a spatial body system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructuredSpatial {
    /// M and Q.
    pub eom: EquationsOfMotion,
    /// T = ½ Σ_b V_b · h_b.
    pub kinetic: ExprId,
    /// The number of distinct spatial Jacobian columns (one per joint for a tree in relative
    /// coordinates, when the columns are shared as the module doc says).
    pub columns: usize,
}

/// A spatial vector (ω, v) or force (n, f).
type Six = [ExprId; 6];

/// The ten entries of a spatial inertia at the origin: Ī (xx, yy, zz, xy, xz, yz), h, m.
type Inertia = [ExprId; 10];

/// One body's columns, inertia and net force (the assembly is `bodies.rs`'s).
type BodyTerms = bodies::BodyTerms<6, 10>;

// --- small algebra on expressions ---

/// a · b.
pub fn dot(pool: &mut Pool, a: V3, b: V3) -> ExprId {
    let t = [0, 1, 2].map(|k| pool.mul2(a[k], b[k]));
    pool.add(&t)
}

/// a × b.
pub fn cross(pool: &mut Pool, a: V3, b: V3) -> V3 {
    let c = |pool: &mut Pool, i: usize, j: usize| {
        let (x, y) = (pool.mul2(a[i], b[j]), pool.mul2(a[j], b[i]));
        pool.sub(x, y)
    };
    [c(pool, 1, 2), c(pool, 2, 0), c(pool, 0, 1)]
}

/// a + b.
pub fn add3(pool: &mut Pool, a: V3, b: V3) -> V3 {
    [0, 1, 2].map(|k| pool.add2(a[k], b[k]))
}

/// M x.
pub fn mat_vec(pool: &mut Pool, m: &M3, x: V3) -> V3 {
    [0, 1, 2].map(|r| dot(pool, m[r], x))
}

/// A B.
pub fn mat_mul(pool: &mut Pool, a: &M3, b: &M3) -> M3 {
    [0, 1, 2].map(|r| {
        [0, 1, 2].map(|c| {
            let t = [0, 1, 2].map(|k| pool.mul2(a[r][k], b[k][c]));
            pool.add(&t)
        })
    })
}

/// The identity matrix.
pub fn identity(pool: &mut Pool) -> M3 {
    let (zero, one) = (pool.zero(), pool.one());
    [0, 1, 2].map(|r| [0, 1, 2].map(|c| if r == c { one } else { zero }))
}

impl Orientation {
    /// The identity (the ground's orientation), no rates.
    pub fn identity(pool: &mut Pool) -> Orientation {
        Orientation {
            matrix: identity(pool),
            rates: Vec::new(),
        }
    }

    /// The rotation by `angle` about the coordinate axis `axis` (0, 1, 2 for x, y, z).
    pub fn elementary(pool: &mut Pool, axis: usize, angle: ExprId) -> Orientation {
        let (c, s) = (
            pool.func(crate::pool::Func::Cos, angle),
            pool.func(crate::pool::Func::Sin, angle),
        );
        let ms = pool.neg(s);
        let mut matrix = identity(pool);
        let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
        matrix[i][i] = c;
        matrix[j][j] = c;
        matrix[i][j] = ms;
        matrix[j][i] = s;
        let mut unit = [pool.zero(); 3];
        unit[axis] = pool.one();
        Orientation {
            matrix,
            rates: vec![Rate::Axis { axis: unit, angle }],
        }
    }

    /// The rotation by `angle` about the unit vector `axis` (numbers): Rodrigues'
    /// R = cos a 1 + sin a ũ + (1 − cos a) u uᵀ.
    pub fn about(pool: &mut Pool, axis: V3, angle: ExprId) -> Orientation {
        let (c, s) = (
            pool.func(crate::pool::Func::Cos, angle),
            pool.func(crate::pool::Func::Sin, angle),
        );
        let one = pool.one();
        let one_minus_c = pool.sub(one, c);
        let [ux, uy, uz] = axis;
        let skew = [
            [None, Some((uz, -1)), Some((uy, 1))],
            [Some((uz, 1)), None, Some((ux, -1))],
            [Some((uy, -1)), Some((ux, 1)), None],
        ];
        let matrix = [0, 1, 2].map(|r| {
            [0, 1, 2].map(|k| {
                let uu = pool.mul2(axis[r], axis[k]);
                let mut terms = vec![pool.mul2(one_minus_c, uu)];
                if r == k {
                    terms.push(c);
                }
                if let Some((u, sign)) = skew[r][k] {
                    let su = pool.mul2(s, u);
                    terms.push(if sign < 0 { pool.neg(su) } else { su });
                }
                pool.add(&terms)
            })
        });
        Orientation {
            matrix,
            rates: vec![Rate::Axis { axis, angle }],
        }
    }

    /// A general rotation matrix: constant (no rates) unless it depends on t or q.
    pub fn general(pool: &mut Pool, matrix: M3, moves: bool) -> Orientation {
        let rates = match moves {
            true => vec![Rate::General {
                prefix: identity(pool),
                factor: matrix,
            }],
            false => Vec::new(),
        };
        Orientation { matrix, rates }
    }

    /// self · other: the matrices multiplied, the other's rates turned by self's matrix.
    pub fn then(&self, pool: &mut Pool, other: &Orientation) -> Orientation {
        let matrix = mat_mul(pool, &self.matrix, &other.matrix);
        let mut rates = self.rates.clone();
        for rate in &other.rates {
            rates.push(match rate {
                Rate::Axis { axis, angle } => Rate::Axis {
                    axis: mat_vec(pool, &self.matrix, *axis),
                    angle: *angle,
                },
                Rate::General { prefix, factor } => Rate::General {
                    prefix: mat_mul(pool, &self.matrix, prefix),
                    factor: *factor,
                },
            });
        }
        Orientation { matrix, rates }
    }

    /// ω_x = vee(∂R/∂x Rᵀ) from the factors: Σ axis ∂a/∂x + Σ prefix vee(skew(∂F/∂x Fᵀ)).
    pub fn omega_column(&self, pool: &mut Pool, x: ExprId) -> V3 {
        let mut parts: [Vec<ExprId>; 3] = Default::default();
        for rate in &self.rates {
            let w = match rate {
                Rate::Axis { axis, angle } => {
                    let da = pool.diff(*angle, x);
                    if pool.is_zero(da) {
                        continue;
                    }
                    axis.map(|e| pool.mul2(e, da))
                }
                Rate::General { prefix, factor } => {
                    let df = factor.map(|row| row.map(|e| pool.diff(e, x)));
                    if df.iter().flatten().all(|&e| pool.is_zero(e)) {
                        continue;
                    }
                    let transposed = [0, 1, 2].map(|r| [0, 1, 2].map(|c| factor[c][r]));
                    let w = mat_mul(pool, &df, &transposed);
                    let local = vee_of_skew_part(pool, &w);
                    mat_vec(pool, prefix, local)
                }
            };
            for (acc, e) in parts.iter_mut().zip(w) {
                acc.push(e);
            }
        }
        parts.map(|p| pool.add(&p))
    }
}

/// vee(½ (W − Wᵀ)).
fn vee_of_skew_part(pool: &mut Pool, w: &M3) -> V3 {
    let half = pool.rational(1, 2);
    let pair = |pool: &mut Pool, (a, b): (usize, usize), (c, d): (usize, usize)| {
        let diff = pool.sub(w[a][b], w[c][d]);
        pool.mul2(half, diff)
    };
    [
        pair(pool, (2, 1), (1, 2)),
        pair(pool, (0, 2), (2, 0)),
        pair(pool, (1, 0), (0, 1)),
    ]
}

/// r = Σ R_k c_k.
pub fn position(pool: &mut Pool, segments: &[Segment]) -> V3 {
    let mut parts: [Vec<ExprId>; 3] = Default::default();
    for seg in segments {
        let rc = mat_vec(pool, &seg.rotation.matrix, seg.local);
        for (acc, e) in parts.iter_mut().zip(rc) {
            acc.push(e);
        }
    }
    parts.map(|p| pool.add(&p))
}

/// Derive M, Q and T from the bodies (adds nodes to `pool`).
pub fn derive(pool: &mut Pool, system: &SpatialBodies<'_>) -> Result<StructuredSpatial, BodyError> {
    let n = system.q.len();
    if system.extra.len() != n {
        return Err(BodyError::ForceLength {
            expected: n,
            found: system.extra.len(),
        });
    }
    let total = pool.total_direction(system.time, system.q, system.v);
    let mut columns: Vec<Six> = Vec::new();
    let mut column_ids: FxHashMap<Six, ColumnId> = FxHashMap::default();
    let mut terms = Vec::with_capacity(system.bodies.len());
    let mut kinetic = Vec::with_capacity(system.bodies.len());
    for body in system.bodies {
        check_placement(pool, body)?;
        let r = position(pool, &body.position);
        let mut nonzero = Vec::new();
        let mut velocity: [Vec<ExprId>; 6] = Default::default();
        for (j, &qj) in system.q.iter().enumerate() {
            let s = spatial_column(pool, body, qj);
            if s.iter().all(|&e| pool.is_zero(e)) {
                continue;
            }
            let next = columns.len();
            let id = *column_ids.entry(s).or_insert(next);
            if id == next {
                columns.push(s);
            }
            nonzero.push((j, id));
            for (acc, &e) in velocity.iter_mut().zip(&s) {
                acc.push(pool.mul2(e, system.v[j]));
            }
        }
        let st = spatial_column(pool, body, system.time);
        for (acc, e) in velocity.iter_mut().zip(st) {
            acc.push(e);
        }
        let velocity: Six = velocity.map(|parts| pool.add(&parts));
        let inertia = spatial_inertia(pool, body, r);
        let momentum = times_inertia(pool, &inertia, velocity);
        let rate = momentum_rate(pool, &inertia, velocity, momentum, total);
        let moment = {
            let rf = cross(pool, r, body.force);
            add3(pool, body.torque, rf)
        };
        let applied: Six = std::array::from_fn(|k| match k {
            0..3 => moment[k],
            _ => body.force[k - 3],
        });
        let net_force = std::array::from_fn(|k| pool.sub(applied[k], rate[k]));
        kinetic.push(bodies::dot(pool, velocity, momentum));
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
    Ok(StructuredSpatial {
        eom: EquationsOfMotion { mass, force },
        kinetic,
        columns: columns.len(),
    })
}

/// The error for a placement that mentions a velocity.
fn check_placement(pool: &Pool, body: &SpatialBody) -> Result<(), BodyError> {
    let mut exprs: Vec<ExprId> = body.orientation.matrix.iter().flatten().copied().collect();
    for seg in &body.position {
        exprs.extend(seg.rotation.matrix.iter().flatten());
        exprs.extend(seg.local);
    }
    match exprs.iter().find_map(|&e| first_velocity(pool, e)) {
        Some(velocity) => Err(BodyError::VelocityInPlacement {
            body: body.name.clone(),
            velocity,
        }),
        None => Ok(()),
    }
}

/// The spatial column of a body for the variable `x` (a coordinate, or t for the rheonomic
/// part): (ω_x, Σ_k (ω_x^{R_k} − ω_x) × R_k c_k + R_k ∂c_k/∂x).
fn spatial_column(pool: &mut Pool, body: &SpatialBody, x: ExprId) -> Six {
    let omega = body.orientation.omega_column(pool, x);
    let mut parts: [Vec<ExprId>; 3] = Default::default();
    for seg in &body.position {
        let own = seg.rotation.omega_column(pool, x);
        let relative = [0, 1, 2].map(|k| pool.sub(own[k], omega[k]));
        if relative.iter().any(|&e| !pool.is_zero(e)) {
            let rc = mat_vec(pool, &seg.rotation.matrix, seg.local);
            let turn = cross(pool, relative, rc);
            for (acc, e) in parts.iter_mut().zip(turn) {
                acc.push(e);
            }
        }
        let dc = seg.local.map(|e| pool.diff(e, x));
        if dc.iter().any(|&e| !pool.is_zero(e)) {
            let slide = mat_vec(pool, &seg.rotation.matrix, dc);
            for (acc, e) in parts.iter_mut().zip(slide) {
                acc.push(e);
            }
        }
    }
    let linear = parts.map(|p| pool.add(&p));
    std::array::from_fn(|k| match k {
        0..3 => omega[k],
        _ => linear[k - 3],
    })
}

/// Ī = R J′ Rᵀ + m (|r|² 1 − r rᵀ), h = m r, m.
fn spatial_inertia(pool: &mut Pool, body: &SpatialBody, r: V3) -> Inertia {
    let rot = &body.orientation.matrix;
    let rj = mat_mul(pool, rot, &body.inertia);
    let m = body.mass;
    let r2 = dot(pool, r, r);
    let entry = |pool: &mut Pool, a: usize, b: usize| {
        let t = [0, 1, 2].map(|k| pool.mul2(rj[a][k], rot[b][k]));
        let ic = pool.add(&t);
        let rr = pool.mul2(r[a], r[b]);
        let shift = match a == b {
            true => pool.sub(r2, rr),
            false => pool.neg(rr),
        };
        let m_shift = pool.mul2(m, shift);
        pool.add2(ic, m_shift)
    };
    let bar = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)].map(|(a, b)| entry(pool, a, b));
    let h = r.map(|e| pool.mul2(m, e));
    std::array::from_fn(|k| match k {
        0..6 => bar[k],
        6..9 => h[k - 6],
        _ => m,
    })
}

/// Ī as a matrix, h and m from the ten entries.
fn unpack(i: &Inertia) -> (M3, V3, ExprId) {
    let bar = [[i[0], i[3], i[4]], [i[3], i[1], i[5]], [i[4], i[5], i[2]]];
    (bar, [i[6], i[7], i[8]], i[9])
}

/// I V = (Ī ω + h × v, m v + ω × h).
fn times_inertia(pool: &mut Pool, inertia: &Inertia, s: Six) -> Six {
    let (bar, h, m) = unpack(inertia);
    let (w, v) = ([s[0], s[1], s[2]], [s[3], s[4], s[5]]);
    let bw = mat_vec(pool, &bar, w);
    let hv = cross(pool, h, v);
    let n = add3(pool, bw, hv);
    let mv = v.map(|e| pool.mul2(m, e));
    let wh = cross(pool, w, h);
    let f = add3(pool, mv, wh);
    std::array::from_fn(|k| if k < 3 { n[k] } else { f[k - 3] })
}

/// ḣ at v̇ = 0: I A + V ×* h, with A the directional derivative of V along q ↦ v, t ↦ 1 and
/// (ω, v) ×* (n, f) = (ω × n + v × f, ω × f).
fn momentum_rate(
    pool: &mut Pool,
    inertia: &Inertia,
    velocity: Six,
    momentum: Six,
    total: Direction,
) -> Six {
    let acceleration = velocity.map(|e| pool.directional(e, total));
    let inertial = times_inertia(pool, inertia, acceleration);
    let (w, v) = (
        [velocity[0], velocity[1], velocity[2]],
        [velocity[3], velocity[4], velocity[5]],
    );
    let (n, f) = (
        [momentum[0], momentum[1], momentum[2]],
        [momentum[3], momentum[4], momentum[5]],
    );
    let wn = cross(pool, w, n);
    let vf = cross(pool, v, f);
    let moment = add3(pool, wn, vf);
    let force = cross(pool, w, f);
    std::array::from_fn(|k| {
        let cross_k = if k < 3 { moment[k] } else { force[k - 3] };
        pool.add2(inertial[k], cross_k)
    })
}

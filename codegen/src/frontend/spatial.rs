//! Spatial bodies in absolute coordinates (Haug, *Computer-Aided Kinematics and Dynamics of
//! Mechanical Systems*, ch. 9–11): sugar of the model language that produces the Φ, M and Q
//! expressions of the Euler-parameter formulation, so every kernel, oracle and snapshot works as
//! for any other model.
//!
//! ```text
//! bodies: [top = body(m, [jt, jt, ja]), rod = body(m2, [[jxx, jxy, 0.0], [jxy, jyy, 0.0], [0.0, 0.0, jzz]])],
//! joints: [tip = spherical(top, [0.0, 0.0, -h], ground, [0.0, 0.0, 0.0]), …],
//! loads:  [gravity([0.0, 0.0, -g])],
//! ```
//! A body is spatial when its inertia is a body-frame tensor: principal moments `[jx, jy, jz]`
//! or the symmetric matrix `[[…], […], […]]` (about the centre of mass; a planar body's inertia
//! is one number, and one model's bodies are all planar or all spatial). Body `b` has the seven
//! coordinates `b_x, b_y, b_z` (centre of mass r) and `b_p0 … b_p3` (Euler parameters
//! p = (e0, e), the rotation A(p) = E Gᵀ from body to world), in the order the bodies are listed,
//! and one holonomic row `b_norm`: pᵀp − 1 = 0 (the first rows after `holonomic`'s, before the
//! joints'). With G = [−e, −ẽ + e0 I], E = [−e, ẽ + e0 I] and the body-frame angular velocity
//! ω' = 2 G ṗ, the kinetic energy ½ m ṙᵀṙ + ½ ω'ᵀ J' ω' gives the blocks
//! M = blockdiag(m I₃, 4 Gᵀ J' G) (singular in p alone, regular on the kernel of the
//! normalization row, which the KKT solve needs), and the quadratic-velocity force
//! Q_p = 8 Ġᵀ J' Ġ p (Haug (11.2.35)) is added to Q.
//!
//! Joints and drivers are in `spatial_joints.rs`. Loads (added to the generalized forces; the
//! `force` entry, if given, adds to them):
//! - `gravity([gx, gy, gz])`: m_b g at every body's centre of mass;
//! - `force(b, s', [fx, fy, fz])` a world-frame force at the body point s', `force_local(b, s',
//!   f')` one fixed in the body frame: Q_r += F, Q_p += 2 Eᵀ (A s' × F);
//! - `torque(b, [nx, ny, nz])` world frame, Q_p += 2 Eᵀ n; `torque_local(b, n')` body frame,
//!   Q_p += 2 Gᵀ n';
//! - `tsda(i, si, j, sj, k, c, l0, f)`: d = P_i − P_j, l = |d|, l̇ = dᵀḋ/l,
//!   f_s = k (l − l0) + c l̇ + f pulls the points together (as in the planar set);
//! - `rsda(joint, k, c, theta0, tau)`: about the axis of a revolute or cylindrical joint, the
//!   relative angle θ of the joint (`spatial_joints.rs`), n = k (θ − θ0) + c θ̇ + τ turns body j
//!   back and body i forward: Q −= n ∂θ/∂q (the torque pair ±n h_i where the joint holds; θ in
//!   (−π, π]: a spring wound past half a turn jumps).
//!
//! With gravity as the only load and no `force` entry the model also gets its energies:
//! T = Σ ½ m ṙᵀṙ + 2 ṗᵀ Gᵀ J' G ṗ, V = −Σ m gᵀ r.
//!
//! Initial orientations and angular velocities are turned into p and ṗ by `mbsim::spatial`
//! (axis–angle, Euler angles, rotation matrix; ṗ = ½ Eᵀ ω = ½ Gᵀ ω'), plain f64 helpers of the
//! façade: a model's initial state is numbers, not expressions, so they need no generated code.

use super::errors::Row;
use super::family::Item;
use super::lower::Lowerer;
use super::planar::{self, call_parts};
use super::spatial_joints::Joint;
use crate::diff::Direction;
use crate::pool::{ExprId, Pool};
use quote::ToTokens;
use syn::Expr;
use syn::spanned::Spanned;

/// A 3-vector of expressions.
pub type V3 = [ExprId; 3];
/// A 3 × 3 matrix of expressions, row-major.
pub type M3 = [[ExprId; 3]; 3];

pub(super) type Result<T> = syn::Result<T>;

pub(super) fn err<T>(span: proc_macro2::Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new(span, msg))
}

/// The coordinate suffixes of a spatial body, in order.
pub const SUFFIXES: [&str; 7] = ["x", "y", "z", "p0", "p1", "p2", "p3"];

/// One spatial body: its name, coordinates (r, p) and velocities and the index of r_x in q.
#[derive(Clone, Debug)]
pub struct Body {
    /// The body's name (`top`, `link[3]`).
    pub name: String,
    /// x, y, z, e0, e1, e2, e3 symbols.
    pub q: [ExprId; 7],
    /// Their velocities.
    pub v: [ExprId; 7],
    /// Index of x in q (the other six follow).
    pub index: usize,
}

/// Whether a `bodies` item is spatial: `body(m, [..])` with an array as the inertia (decided
/// from the syntax alone, before the coordinates are declared).
pub fn is_spatial(item: &Item<'_>) -> bool {
    call_parts(item.expr).is_ok_and(|(_, args)| {
        args.get(1)
            .is_some_and(|e| matches!(strip(e), Expr::Array(_)))
    })
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Group(g) => strip(&g.expr),
        Expr::Paren(p) => strip(&p.expr),
        other => other,
    }
}

/// The mass and the body-frame inertia tensor J' of `body(m, [jx, jy, jz])` or
/// `body(m, [[jxx, jxy, jxz], [jxy, jyy, jyz], [jxz, jyz, jzz]])`.
pub fn body_parts(lw: &mut Lowerer, pool: &mut Pool, item: &Item<'_>) -> Result<(ExprId, M3)> {
    let (kind, args) = call_parts(item.expr)?;
    let span = item.expr.span();
    if kind != "body" {
        return err(
            span,
            format!("expected `body(mass, [jx, jy, jz])`, found `{kind}(…)`"),
        );
    }
    if args.len() != 2 {
        let form = "body(mass, [jx, jy, jz])` or `body(mass, [[jxx, jxy, jxz], [jxy, jyy, jyz], [jxz, jyz, jzz]])";
        return err(
            span,
            format!(
                "a spatial `body` takes 2 arguments: `{form}`, or 4 when placed by expressions of the coordinates: `body(mass, [jx, jy, jz], [x, y, z], rotation)`"
            ),
        );
    }
    let mass = lw.lower_in(pool, &item.bindings, args[0])?;
    Ok((mass, inertia_tensor(lw, pool, &item.bindings, args[1])?))
}

/// The body-frame inertia tensor J' of `[jx, jy, jz]` (principal moments) or a symmetric 3 × 3
/// matrix.
pub(super) fn inertia_tensor(
    lw: &mut Lowerer,
    pool: &mut Pool,
    b: &[(String, i64)],
    tensor: &Expr,
) -> Result<M3> {
    let rows = super::syntax::array(tensor, "an inertia tensor")?;
    let zero = pool.zero();
    let mut j = [[zero; 3]; 3];
    let nested = rows.iter().all(|r| matches!(strip(r), Expr::Array(_)));
    match (rows.len(), nested) {
        (3, false) => {
            for (k, e) in rows.iter().enumerate() {
                j[k][k] = lw.lower_in(pool, b, e)?;
            }
        }
        (3, true) => {
            for (r, row) in rows.iter().enumerate() {
                let entries = super::syntax::array(row, "a row of the inertia tensor")?;
                if entries.len() != 3 {
                    return err(row.span(), "a row of the inertia tensor has three entries");
                }
                for (c, e) in entries.iter().enumerate() {
                    j[r][c] = lw.lower_in(pool, b, e)?;
                }
            }
            for (r, c) in [(0, 1), (0, 2), (1, 2)] {
                if j[r][c] != j[c][r] {
                    return err(
                        tensor.span(),
                        format!(
                            "the inertia tensor is not symmetric: entries ({r}, {c}) and ({c}, {r}) differ"
                        ),
                    );
                }
            }
        }
        _ => {
            return err(
                tensor.span(),
                "a spatial inertia is `[jx, jy, jz]` (principal moments) or a 3 × 3 matrix `[[…], […], […]]`",
            );
        }
    }
    Ok(j)
}

/// A body reference resolved: position, Euler parameters (the ground's are 0 and (1, 0, 0, 0))
/// and the body's index.
#[derive(Clone, Copy)]
pub struct Frame {
    /// Centre of mass r.
    pub r: V3,
    /// Euler parameters p.
    pub p: [ExprId; 4],
    /// The body's index among the bodies, `None` for the ground.
    pub body: Option<usize>,
}

/// What the spatial entries add to the model.
pub struct Spatial<'b> {
    /// The bodies, in coordinate order.
    pub bodies: &'b [Body],
    /// The number of coordinates n.
    pub n: usize,
    /// d/dt along (t, q, v): the velocities of points, angles.
    pub total: Direction,
    /// The joints read so far with their kinds (drivers and RSDAs refer to them by name).
    pub named: Vec<(String, &'static str)>,
    /// The geometry of the named joints with an axis (revolute, …, planar).
    pub joints: Vec<Joint>,
}

// --- small vector algebra on expressions ---

pub(super) fn dot(pool: &mut Pool, a: V3, b: V3) -> ExprId {
    let t = [0, 1, 2].map(|k| pool.mul2(a[k], b[k]));
    pool.add(&t)
}

pub(super) fn sub3(pool: &mut Pool, a: V3, b: V3) -> V3 {
    [0, 1, 2].map(|k| pool.sub(a[k], b[k]))
}

pub(super) fn add3(pool: &mut Pool, a: V3, b: V3) -> V3 {
    [0, 1, 2].map(|k| pool.add2(a[k], b[k]))
}

pub(super) fn cross(pool: &mut Pool, a: V3, b: V3) -> V3 {
    let c = |pool: &mut Pool, i: usize, j: usize| {
        let (x, y) = (pool.mul2(a[i], b[j]), pool.mul2(a[j], b[i]));
        pool.sub(x, y)
    };
    [c(pool, 1, 2), c(pool, 2, 0), c(pool, 0, 1)]
}

fn mat_vec(pool: &mut Pool, m: &M3, x: V3) -> V3 {
    [0, 1, 2].map(|r| dot(pool, m[r], x))
}

/// Gᵀ y or Eᵀ y for a 3 × 4 matrix given by rows.
fn transpose_times(pool: &mut Pool, rows: &[[ExprId; 4]; 3], y: V3) -> [ExprId; 4] {
    [0, 1, 2, 3].map(|c| {
        let t = [0, 1, 2].map(|r| pool.mul2(rows[r][c], y[r]));
        pool.add(&t)
    })
}

fn times4(pool: &mut Pool, rows: &[[ExprId; 4]; 3], x: [ExprId; 4]) -> V3 {
    [0, 1, 2].map(|r| {
        let t = [0, 1, 2, 3].map(|c| pool.mul2(rows[r][c], x[c]));
        pool.add(&t)
    })
}

/// G(p) = [−e, −ẽ + e0 I] by rows.
pub(super) fn g_matrix(pool: &mut Pool, p: [ExprId; 4]) -> [[ExprId; 4]; 3] {
    let [e0, e1, e2, e3] = p;
    let n = |pool: &mut Pool, x: ExprId| pool.neg(x);
    [
        [n(pool, e1), e0, e3, n(pool, e2)],
        [n(pool, e2), n(pool, e3), e0, e1],
        [n(pool, e3), e2, n(pool, e1), e0],
    ]
}

/// E(p) = [−e, ẽ + e0 I] by rows.
pub(super) fn e_matrix(pool: &mut Pool, p: [ExprId; 4]) -> [[ExprId; 4]; 3] {
    let [e0, e1, e2, e3] = p;
    let n = |pool: &mut Pool, x: ExprId| pool.neg(x);
    [
        [n(pool, e1), e0, n(pool, e3), e2],
        [n(pool, e2), e3, e0, n(pool, e1)],
        [n(pool, e3), n(pool, e2), e1, e0],
    ]
}

/// A(p) = E Gᵀ = (e0² − eᵀe) I + 2 e eᵀ + 2 e0 ẽ.
pub(super) fn rotation(pool: &mut Pool, p: [ExprId; 4]) -> M3 {
    let (e, g) = (e_matrix(pool, p), g_matrix(pool, p));
    [0, 1, 2].map(|r| {
        [0, 1, 2].map(|c| {
            let t = [0, 1, 2, 3].map(|k| pool.mul2(e[r][k], g[c][k]));
            pool.add(&t)
        })
    })
}

/// World position of the body point s', P = r + A s'.
pub(super) fn point(pool: &mut Pool, f: &Frame, s: V3) -> V3 {
    let a = rotation(pool, f.p);
    let as_ = mat_vec(pool, &a, s);
    add3(pool, f.r, as_)
}

/// A body-fixed direction in the world, A a'.
pub(super) fn direction(pool: &mut Pool, f: &Frame, a: V3) -> V3 {
    let rot = rotation(pool, f.p);
    mat_vec(pool, &rot, a)
}

fn mentions(item: &Item<'_>, label: String, lw: &mut Lowerer) -> Row {
    Row {
        label,
        tokens: item.expr.to_token_stream(),
        mentions: lw.take_mentions(),
        iteration: item.iteration(),
    }
}

pub(super) fn row_of(item: &Item<'_>, label: String, lw: &mut Lowerer) -> Row {
    mentions(item, label, lw)
}

/// The blocks of M and the quadratic-velocity forces of the bodies `items` (parts lowered by
/// [`body_parts`]): M = blockdiag(m I, 4 Gᵀ J' G) and Q_p = 8 Ġᵀ J' Ġ p into `force`.
pub fn inertia(
    pool: &mut Pool,
    bodies: &[Body],
    parts: &[(ExprId, M3)],
    mass: &mut [Vec<ExprId>],
    force: &mut [ExprId],
) {
    for (body, (m, j)) in bodies.iter().zip(parts) {
        let k = body.index;
        for c in 0..3 {
            mass[k + c][k + c] = *m;
        }
        let p = [3, 4, 5, 6].map(|c| body.q[c]);
        let pdot = [3, 4, 5, 6].map(|c| body.v[c]);
        let g = g_matrix(pool, p);
        let jg: [[ExprId; 4]; 3] = [0, 1, 2].map(|r| {
            [0, 1, 2, 3].map(|c| {
                let t = [0, 1, 2].map(|l| pool.mul2(j[r][l], g[l][c]));
                pool.add(&t)
            })
        });
        let four = pool.int(4);
        for a in 0..4 {
            for bcol in a..4 {
                // 4 Σ_l G_la (J' G)_lb, computed once for the pair (a, b): M is symmetric
                // by construction, entry for entry.
                let t = [0, 1, 2].map(|l| pool.mul2(g[l][a], jg[l][bcol]));
                let s = pool.add(&t);
                let entry = pool.mul2(four, s);
                mass[k + 3 + a][k + 3 + bcol] = entry;
                mass[k + 3 + bcol][k + 3 + a] = entry;
            }
        }
        let gdot = g_matrix(pool, pdot);
        let w = times4(pool, &gdot, p);
        let jw = mat_vec(pool, j, w);
        let qv = transpose_times(pool, &gdot, jw);
        let eight = pool.int(8);
        for a in 0..4 {
            let term = pool.mul2(eight, qv[a]);
            force[k + 3 + a] = pool.add2(force[k + 3 + a], term);
        }
    }
}

/// T = Σ ½ m ṙᵀṙ + 2 (G ṗ)ᵀ J' (G ṗ) of the bodies.
pub fn kinetic_energy(pool: &mut Pool, bodies: &[Body], parts: &[(ExprId, M3)]) -> ExprId {
    let mut terms = Vec::new();
    let half = pool.rational(1, 2);
    let two = pool.int(2);
    for (body, (m, j)) in bodies.iter().zip(parts) {
        let rdot = [0, 1, 2].map(|c| body.v[c]);
        let vv = dot(pool, rdot, rdot);
        terms.push(pool.mul(&[half, *m, vv]));
        let p = [3, 4, 5, 6].map(|c| body.q[c]);
        let pdot = [3, 4, 5, 6].map(|c| body.v[c]);
        let g = g_matrix(pool, p);
        let w = times4(pool, &g, pdot);
        let jw = mat_vec(pool, j, w);
        let rot = dot(pool, w, jw);
        terms.push(pool.mul2(two, rot));
    }
    pool.add(&terms)
}

/// V = −Σ_b m_b gᵀ r_b over the gravity vectors `gravity`.
pub fn potential_energy(
    pool: &mut Pool,
    bodies: &[Body],
    masses: &[ExprId],
    gravity: &[V3],
) -> ExprId {
    let mut terms = Vec::new();
    for g in gravity {
        for (body, &m) in bodies.iter().zip(masses) {
            let r = [body.q[0], body.q[1], body.q[2]];
            let gr = dot(pool, *g, r);
            let mgr = pool.mul2(m, gr);
            terms.push(pool.neg(mgr));
        }
    }
    pool.add(&terms)
}

/// The normalization rows pᵀp − 1 of the bodies, labelled `<body>_norm`.
pub fn normalization(pool: &mut Pool, bodies: &[Body]) -> Vec<(ExprId, String)> {
    bodies
        .iter()
        .map(|b| {
            let sq = [3, 4, 5, 6].map(|c| pool.powi(b.q[c], 2));
            let s = pool.add(&sq);
            let one = pool.one();
            (pool.sub(s, one), planar::suffixed(&b.name, "norm"))
        })
        .collect()
}

impl Spatial<'_> {
    /// The frame a body reference names (`ground`, `crank`, `link[i + 1]`).
    pub(super) fn frame(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        bindings: &[(String, i64)],
        e: &Expr,
    ) -> Result<Frame> {
        let name = planar::body_name(lw, pool, bindings, e)?;
        if name == "ground" {
            let (zero, one) = (pool.zero(), pool.one());
            return Ok(Frame {
                r: [zero; 3],
                p: [one, zero, zero, zero],
                body: None,
            });
        }
        match self.bodies.iter().position(|b| b.name == name) {
            Some(k) => {
                let q = self.bodies[k].q;
                Ok(Frame {
                    r: [q[0], q[1], q[2]],
                    p: [q[3], q[4], q[5], q[6]],
                    body: Some(k),
                })
            }
            None => {
                let known: Vec<&str> = self.bodies.iter().map(|b| b.name.as_str()).collect();
                let hint = super::suggest::did_you_mean(&name, known.iter().copied());
                err(
                    e.span(),
                    format!(
                        "unknown body `{name}`{hint} (bodies: ground, {})",
                        known.join(", ")
                    ),
                )
            }
        }
    }

    /// A point or vector `[x, y, z]`.
    pub(super) fn vector(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        bindings: &[(String, i64)],
        e: &Expr,
    ) -> Result<V3> {
        let parts = super::syntax::array(e, "a point or vector `[x, y, z]`")?;
        let [a, b, c] = parts.as_slice() else {
            let hint = match parts.len() {
                2 => " (the bodies are spatial: a point has a z entry too)",
                _ => "",
            };
            return err(
                e.span(),
                format!(
                    "a point or vector of a spatial model has three entries `[x, y, z]`, found {}{hint}",
                    parts.len()
                ),
            );
        };
        Ok([
            lw.lower_in(pool, bindings, a)?,
            lw.lower_in(pool, bindings, b)?,
            lw.lower_in(pool, bindings, c)?,
        ])
    }

    /// The velocity of an expression vector along (t, q, v).
    pub(super) fn rate(&self, pool: &mut Pool, x: V3) -> V3 {
        x.map(|e| pool.directional(e, self.total))
    }

    fn add(&self, pool: &mut Pool, q: &mut [ExprId], f: &Frame, k: usize, value: ExprId) {
        if let Some(body) = f.body {
            let i = self.bodies[body].index + k;
            q[i] = pool.add2(q[i], value);
        }
    }

    /// Q += the generalized force of a world force F at the body point s' of frame f.
    pub(super) fn point_force(
        &self,
        pool: &mut Pool,
        q: &mut [ExprId],
        f: &Frame,
        s: V3,
        force: V3,
    ) {
        for (c, &fc) in force.iter().enumerate() {
            self.add(pool, q, f, c, fc);
        }
        let arm = direction(pool, f, s);
        let moment = cross(pool, arm, force);
        self.world_torque(pool, q, f, moment);
    }

    /// Q_p += 2 Eᵀ n for a world torque n.
    pub(super) fn world_torque(&self, pool: &mut Pool, q: &mut [ExprId], f: &Frame, n: V3) {
        let e = e_matrix(pool, f.p);
        let qp = transpose_times(pool, &e, n);
        let two = pool.int(2);
        for (a, &value) in qp.iter().enumerate() {
            let w = pool.mul2(two, value);
            self.add(pool, q, f, 3 + a, w);
        }
    }

    /// Q_p += 2 Gᵀ n' for a body-frame torque n'.
    fn local_torque(&self, pool: &mut Pool, q: &mut [ExprId], f: &Frame, n: V3) {
        let g = g_matrix(pool, f.p);
        let qp = transpose_times(pool, &g, n);
        let two = pool.int(2);
        for (a, &value) in qp.iter().enumerate() {
            let w = pool.mul2(two, value);
            self.add(pool, q, f, 3 + a, w);
        }
    }

    /// Add the `loads` entry's generalized forces to `q` (length n); `masses[k]` is body k's
    /// mass. Returns the gravity vectors when every load is `gravity` (the model then has a
    /// potential), `None` otherwise.
    pub fn loads(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        value: &Expr,
        masses: &[ExprId],
        q: &mut [ExprId],
        rows: &mut Vec<Row>,
    ) -> Result<Option<Vec<V3>>> {
        let array = super::syntax::array(value, "`loads`")?;
        let items = super::family::expand(lw, pool, &array, true)?;
        let mut gravity = Some(Vec::new());
        for item in &items {
            let g = self.load(lw, pool, item, masses, q)?;
            gravity = match (gravity, g) {
                (Some(mut all), Some(g)) => {
                    all.push(g);
                    Some(all)
                }
                _ => None,
            };
            rows.push(row_of(item, "loads".into(), lw));
        }
        Ok(gravity)
    }

    /// One load into `q`; its gravity vector if it is `gravity`.
    fn load(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        item: &Item<'_>,
        masses: &[ExprId],
        q: &mut [ExprId],
    ) -> Result<Option<V3>> {
        let (kind, a) = call_parts(item.expr)?;
        let (b, span) = (&item.bindings, item.expr.span());
        let arity = |k: usize, form: &str| planar::arity(&a, k, &kind, span, form);
        match kind.as_str() {
            "gravity" => {
                arity(1, "gravity([gx, gy, gz])")?;
                let g = self.vector(lw, pool, b, a[0])?;
                for (k, body) in self.bodies.iter().enumerate() {
                    for (c, &gc) in g.iter().enumerate() {
                        let w = pool.mul2(masses[k], gc);
                        let i = body.index + c;
                        q[i] = pool.add2(q[i], w);
                    }
                }
                return Ok(Some(g));
            }
            "force" | "force_local" => {
                arity(3, &format!("{kind}(b, [sx, sy, sz], [fx, fy, fz])"))?;
                let f = self.frame(lw, pool, b, a[0])?;
                let s = self.vector(lw, pool, b, a[1])?;
                let mut force = self.vector(lw, pool, b, a[2])?;
                if kind == "force_local" {
                    force = direction(pool, &f, force);
                }
                self.point_force(pool, q, &f, s, force);
            }
            "torque" | "torque_local" => {
                arity(2, &format!("{kind}(b, [nx, ny, nz])"))?;
                let f = self.frame(lw, pool, b, a[0])?;
                let n = self.vector(lw, pool, b, a[1])?;
                match kind.as_str() {
                    "torque" => self.world_torque(pool, q, &f, n),
                    _ => self.local_torque(pool, q, &f, n),
                }
            }
            "tsda" => {
                arity(8, "tsda(i, [sx, sy, sz], j, [sx, sy, sz], k, c, l0, f)")?;
                let (fi, si) = (
                    self.frame(lw, pool, b, a[0])?,
                    self.vector(lw, pool, b, a[1])?,
                );
                let (fj, sj) = (
                    self.frame(lw, pool, b, a[2])?,
                    self.vector(lw, pool, b, a[3])?,
                );
                let [k, c, l0, fa] = [a[4], a[5], a[6], a[7]].map(|e| lw.lower_in(pool, b, e));
                let (k, c, l0, fa) = (k?, c?, l0?, fa?);
                let (pi, pj) = (point(pool, &fi, si), point(pool, &fj, sj));
                let d = sub3(pool, pi, pj);
                let dd = self.rate(pool, d);
                let l = {
                    let dsq = dot(pool, d, d);
                    pool.sqrt(dsq)
                };
                let ldot = {
                    let ddot = dot(pool, d, dd);
                    pool.div(ddot, l)
                };
                let stretch = pool.sub(l, l0);
                let terms = [pool.mul2(k, stretch), pool.mul2(c, ldot), fa];
                let fs = pool.add(&terms);
                let fl = pool.div(fs, l);
                let pull = d.map(|e| pool.mul2(fl, e));
                let push = pull.map(|e| pool.neg(e));
                self.point_force(pool, q, &fi, si, push);
                self.point_force(pool, q, &fj, sj, pull);
            }
            "rsda" => {
                arity(5, "rsda(joint, k, c, theta0, tau)")?;
                let joint = self.joint_named(a[0], "an RSDA", &["revolute", "cylindrical"])?;
                let [k, c, th0, tau] = [a[1], a[2], a[3], a[4]].map(|e| lw.lower_in(pool, b, e));
                let (k, c, th0, tau) = (k?, c?, th0?, tau?);
                let theta = joint.angle(pool);
                let omega = pool.directional(theta, self.total);
                let stretch = pool.sub(theta, th0);
                let terms = [pool.mul2(k, stretch), pool.mul2(c, omega), tau];
                let n = pool.add(&terms);
                // Q −= n ∂θ/∂q: the torque pair ±n h_i where the joint holds, and the exact
                // gradient of the spring's energy everywhere (θ is invariant under scaling p,
                // so ∂θ/∂p ⟂ p).
                for body in [joint.frame_i.body, joint.frame_j.body]
                    .into_iter()
                    .flatten()
                {
                    let coords = self.bodies[body].q;
                    let at = self.bodies[body].index;
                    for (c, &x) in coords.iter().enumerate() {
                        let slope = pool.diff(theta, x);
                        let w = pool.mul2(n, slope);
                        q[at + c] = pool.sub(q[at + c], w);
                    }
                }
            }
            other => {
                const KINDS: [&str; 7] = [
                    "gravity",
                    "force",
                    "force_local",
                    "torque",
                    "torque_local",
                    "tsda",
                    "rsda",
                ];
                let hint = super::suggest::did_you_mean(other, KINDS);
                return err(
                    span,
                    format!(
                        "unknown load `{other}`{hint} (spatial loads: {})",
                        KINDS.join(", ")
                    ),
                );
            }
        }
        Ok(None)
    }
}

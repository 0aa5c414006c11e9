//! Spatial bodies placed by expressions of the coordinates (a tree in relative coordinates: a
//! serial arm, a gimbal): `body(m, J′, position, rotation)` in `bodies`, with `coordinates`
//! given, M and Q from [`crate::spatial_tree`] in the structured (composite-body) form.
//!
//! ```text
//! coordinates: [q1, q2],
//! bodies: [
//!     upper = body(m1, [j1, j1, j1z], [0.0, 0.0, -l1 / 2.0], rot_z(q1) * rot_x(q2)),
//!     lower = body(m2, [j2, j2, j2z],
//!         point(upper, [0.0, 0.0, -l1 / 2.0]) + orientation(upper) * rot_y(q3) * [0.0, 0.0, -l2 / 2.0],
//!         orientation(upper) * rot_y(q3)),
//! ],
//! loads: [gravity([0.0, 0.0, -g])],
//! ```
//! The position (of the centre of mass, world frame) and the rotation (body to world) are small
//! expressions over vectors and rotations, told apart by their syntax:
//! - a vector: `[x, y, z]` (scalar expressions), `point(b, [sx, sy, sz])` (the world position
//!   of the point s′ of an earlier body b, r_b + R_b s′; `point(ground, s)` is s), `R * v`,
//!   `v + w`, `v - w`, `-v`, `s * v`, `v * s`, `v / s`;
//! - a rotation: `rot_x(a)`, `rot_y(a)`, `rot_z(a)` (about a coordinate axis by the angle a,
//!   any expression of t and q), `rot([ux, uy, uz], a)` (about a constant axis, normalised at
//!   generation time), `orientation(b)` (an earlier body's; the ground's is 1), a 3 × 3 matrix
//!   `[[…], […], […]]` of expressions (it must be a rotation: checked when its entries are
//!   numbers, the user's responsibility when they are expressions), and products `R1 * R2`;
//! - `if` on generation-time values (`if i == 0 { … } else { … }`) around either, for families.
//!
//! The rotation keeps its factors, so the angular velocity's columns are the joint axes
//! themselves (`spatial_tree.rs`). Loads (world frame unless `_local`; points in the body's
//! frame, the ground allowed): `gravity([gx, gy, gz])`, `force(b, s, f)`, `force_local(b, s,
//! f′)`, `torque(b, n)`, `torque_local(b, n′)` and `tsda(i, si, j, sj, k, c, l0, f)`; their
//! vectors may be any vector expression above. `potential` and `force` add to Q; with gravity as
//! the only load and no `force` the model gets its energies (T, V = potential − Σ m g·r).
//! Joints between placed bodies are not offered: a tree needs none, and a loop's closure rows
//! go into `holonomic`.

use super::errors::Row;
use super::family::Item;
use super::lower::Lowerer;
use super::placed::{Extra, PlacedDynamics, State};
use super::planar::{self, call_parts};
use super::spatial::{self, err};
use super::syntax::ModelSpec;
use crate::bodies::BodyError;
use crate::diff::Direction;
use crate::model::ModelBuilder;
use crate::pool::{ExprId, Pool, SymbolKind};
use crate::spatial_tree::{
    self, M3, Orientation, Segment, SpatialBodies, SpatialBody, V3, add3, cross, mat_vec,
};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

type Result<T> = syn::Result<T>;

/// Whether a `bodies` item is a placed spatial body, `body(m, [..], position, rotation)`.
pub fn is_placed_spatial(item: &Item<'_>) -> bool {
    call_parts(item.expr).is_ok_and(|(_, args)| args.len() == 4) && spatial::is_spatial(item)
}

/// A placed body as the later bodies and the loads see it.
struct Placed {
    name: String,
    orientation: Orientation,
    position: Vec<Segment>,
}

/// The value of a geometric expression.
enum Value {
    Scalar(ExprId),
    Vector(Vec<Segment>),
    Rotation(Orientation),
}

/// The front end's view of the placed bodies so far (for `point` and `orientation`).
struct Scene<'p> {
    placed: &'p [Placed],
    /// d/dt along (t, q, v), for the rates of the TSDAs.
    total: Direction,
}

const ROTATIONS: [&str; 5] = ["rot_x", "rot_y", "rot_z", "rot", "orientation"];

/// Whether an expression is built from vectors or rotations (else a scalar for the lowerer).
fn geometric(e: &Expr) -> bool {
    match e {
        Expr::Array(_) => true,
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| i == "point" || ROTATIONS.iter().any(|r| i == r)),
            _ => false,
        },
        Expr::Binary(b) => geometric(&b.left) || geometric(&b.right),
        Expr::Unary(u) => geometric(&u.expr),
        Expr::Paren(p) => geometric(&p.expr),
        Expr::Group(g) => geometric(&g.expr),
        Expr::If(i) => {
            branch(&i.then_branch).is_some_and(geometric)
                || i.else_branch.as_ref().is_some_and(|(_, e)| geometric(e))
        }
        Expr::Block(b) => branch(&b.block).is_some_and(geometric),
        _ => false,
    }
}

fn branch(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Scalar(_) => "a scalar",
        Value::Vector(_) => "a vector",
        Value::Rotation(_) => "a rotation",
    }
}

impl Scene<'_> {
    /// The value of `e` under the loop indices `b`.
    fn eval(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
    ) -> Result<Value> {
        if !geometric(e) {
            return Ok(Value::Scalar(lw.lower_in(pool, b, e)?));
        }
        match e {
            Expr::Paren(p) => self.eval(lw, pool, b, &p.expr),
            Expr::Group(g) => self.eval(lw, pool, b, &g.expr),
            Expr::Array(a) => self.literal(lw, pool, b, e, &a.elems.iter().collect::<Vec<_>>()),
            Expr::Call(_) => self.call(lw, pool, b, e),
            Expr::Unary(u) => match (&u.op, self.eval(lw, pool, b, &u.expr)?) {
                (UnOp::Neg(_), Value::Vector(v)) => {
                    let minus = pool.int(-1);
                    Ok(Value::Vector(scale(pool, v, minus)))
                }
                (_, v) => err(
                    e.span(),
                    format!("this operator does not apply to {}", kind_name(&v)),
                ),
            },
            Expr::Binary(x) => {
                let l = self.eval(lw, pool, b, &x.left)?;
                let r = self.eval(lw, pool, b, &x.right)?;
                binary(pool, e, &x.op, l, r)
            }
            Expr::Block(block) => match branch(&block.block) {
                Some(x) => self.eval(lw, pool, b, x),
                None => err(e.span(), "a block here holds one expression"),
            },
            Expr::If(i) => {
                let cond = lw.lower_in(pool, b, &i.cond)?;
                lw.take_mentions();
                let Some(c) = pool.as_number(cond) else {
                    return err(
                        i.cond.span(),
                        "a vector or rotation `if` needs a condition known at generation time (loop indices, `const`s)",
                    );
                };
                let chosen = match (c.is_zero(), &i.else_branch) {
                    (false, _) => branch(&i.then_branch),
                    (true, Some((_, otherwise))) => Some(&**otherwise),
                    (true, None) => None,
                };
                match chosen {
                    Some(x) => self.eval(lw, pool, b, x),
                    None => err(i.span(), "an `if` needs one expression in each branch"),
                }
            }
            other => err(other.span(), "expected a vector or rotation expression"),
        }
    }

    /// `[x, y, z]` or `[[…], […], […]]`.
    fn literal(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
        elems: &[&Expr],
    ) -> Result<Value> {
        let nested = elems.iter().any(|x| matches!(x, Expr::Array(_)));
        if !nested {
            let [x, y, z] = elems else {
                let hint = match elems.len() {
                    2 => " (the bodies are spatial: a point has a z entry too)",
                    _ => "",
                };
                return err(
                    e.span(),
                    format!(
                        "a vector of a spatial model has three entries `[x, y, z]`, found {}{hint}",
                        elems.len()
                    ),
                );
            };
            let local = [
                lw.lower_in(pool, b, x)?,
                lw.lower_in(pool, b, y)?,
                lw.lower_in(pool, b, z)?,
            ];
            let rotation = Orientation::identity(pool);
            return Ok(Value::Vector(vec![Segment { rotation, local }]));
        }
        let shape =
            "a rotation matrix is 3 × 3: `[[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]]`";
        if elems.len() != 3 {
            return err(e.span(), shape);
        }
        let zero = pool.zero();
        let mut m: M3 = [[zero; 3]; 3];
        for (r, row) in elems.iter().enumerate() {
            let entries = super::syntax::array(row, "a row of a rotation matrix")?;
            if entries.len() != 3 {
                return err(row.span(), shape);
            }
            for (c, x) in entries.iter().enumerate() {
                m[r][c] = lw.lower_in(pool, b, x)?;
            }
        }
        check_constant_rotation(pool, &m, e)?;
        let moves = m.iter().flatten().any(|&x| {
            pool.mentions(x, |s| {
                matches!(s.kind, SymbolKind::Coordinate(_) | SymbolKind::Time)
            })
        });
        Ok(Value::Rotation(Orientation::general(pool, m, moves)))
    }

    fn call(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        c: &Expr,
    ) -> Result<Value> {
        let (kind, args) = call_parts(c)?;
        let span = c.span();
        let arity = |k: usize, form: &str| planar::arity(&args, k, &kind, span, form);
        match kind.as_str() {
            "rot_x" | "rot_y" | "rot_z" => {
                arity(1, &format!("{kind}(angle)"))?;
                let angle = lw.lower_in(pool, b, args[0])?;
                let axis = match kind.as_str() {
                    "rot_x" => 0,
                    "rot_y" => 1,
                    _ => 2,
                };
                Ok(Value::Rotation(Orientation::elementary(pool, axis, angle)))
            }
            "rot" => {
                arity(2, "rot([ux, uy, uz], angle)")?;
                let axis = self.constant_axis(lw, pool, b, args[0])?;
                let angle = lw.lower_in(pool, b, args[1])?;
                Ok(Value::Rotation(match axis {
                    Axis::Coordinate(k) => Orientation::elementary(pool, k, angle),
                    Axis::Unit(u) => {
                        let u = u.map(|x| pool.try_float(x).expect("finite unit vector"));
                        Orientation::about(pool, u, angle)
                    }
                }))
            }
            "orientation" => {
                arity(1, "orientation(body)")?;
                match self.body(lw, pool, b, args[0])? {
                    Some(p) => Ok(Value::Rotation(p.orientation.clone())),
                    None => Ok(Value::Rotation(Orientation::identity(pool))),
                }
            }
            "point" => {
                arity(2, "point(body, [sx, sy, sz])")?;
                let frame = self.body(lw, pool, b, args[0])?;
                let s = self.vector(lw, pool, b, args[1], "the point")?;
                Ok(Value::Vector(match frame {
                    Some(p) => {
                        let mut segments = p.position.clone();
                        segments.extend(rotate(pool, &p.orientation, s));
                        segments
                    }
                    None => s,
                }))
            }
            _ => unreachable!("`geometric` admits only the geometric calls"),
        }
    }

    /// A constant axis: a coordinate axis, or a unit vector (normalised).
    fn constant_axis(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
    ) -> Result<Axis> {
        let parts = super::syntax::array(e, "an axis `[ux, uy, uz]`")?;
        let msg = "an axis is three numbers known at generation time (literals, `const`s), not all zero: the rotation's rate is taken about it";
        let [x, y, z] = parts.as_slice() else {
            return err(e.span(), msg);
        };
        let mut u = [0.0; 3];
        for (k, x) in [x, y, z].into_iter().enumerate() {
            let id = lw.lower_in(pool, b, x)?;
            lw.take_mentions();
            match pool.as_number(id) {
                Some(n) => u[k] = n.to_f64(),
                None => return err(x.span(), msg),
            }
        }
        let norm = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(norm > 0.0 && norm.is_finite()) {
            return err(e.span(), msg);
        }
        let ones = u.iter().filter(|&&x| x != 0.0).count();
        if ones == 1 {
            let k = u.iter().position(|&x| x != 0.0).expect("one nonzero");
            if u[k] > 0.0 {
                return Ok(Axis::Coordinate(k));
            }
        }
        Ok(Axis::Unit(u.map(|x| x / norm)))
    }

    /// An earlier body (`None` for the ground).
    fn body(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
    ) -> Result<Option<&Placed>> {
        Ok(self.body_index(lw, pool, b, e)?.map(|k| &self.placed[k]))
    }

    /// The index of an earlier body (`None` for the ground).
    fn body_index(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
    ) -> Result<Option<usize>> {
        let name = planar::body_name(lw, pool, b, e)?;
        if name == "ground" {
            return Ok(None);
        }
        match self.placed.iter().position(|p| p.name == name) {
            Some(k) => Ok(Some(k)),
            None => {
                let known: Vec<&str> = self.placed.iter().map(|p| p.name.as_str()).collect();
                let hint = super::suggest::did_you_mean(&name, known.iter().copied());
                err(
                    e.span(),
                    format!(
                        "unknown body `{name}`{hint}: a placed body may refer to the ground and the bodies listed before it (here: ground{}{})",
                        if known.is_empty() { "" } else { ", " },
                        known.join(", ")
                    ),
                )
            }
        }
    }

    /// A vector expression, or an error naming `what`.
    fn vector(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
        what: &str,
    ) -> Result<Vec<Segment>> {
        match self.eval(lw, pool, b, e)? {
            Value::Vector(v) => Ok(v),
            other => err(
                e.span(),
                format!(
                    "{what} must be a vector (`[x, y, z]`, `point(b, s)`, `R * v`, sums of them), found {}",
                    kind_name(&other)
                ),
            ),
        }
    }

    /// A vector expression's world value.
    fn world(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        b: &[(String, i64)],
        e: &Expr,
        what: &str,
    ) -> Result<V3> {
        let v = self.vector(lw, pool, b, e, what)?;
        Ok(spatial_tree::position(pool, &v))
    }
}

/// A matrix of numbers must be a rotation (RᵀR = 1 and det R = 1 to 1e-9: entries typed with
/// ten digits pass); one with symbols cannot be checked when the code is generated.
fn check_constant_rotation(pool: &Pool, m: &M3, e: &Expr) -> Result<()> {
    let mut numbers = [[0.0; 3]; 3];
    for (r, row) in m.iter().enumerate() {
        for (c, &x) in row.iter().enumerate() {
            match pool.as_number(x) {
                Some(n) => numbers[r][c] = n.to_f64(),
                None => return Ok(()),
            }
        }
    }
    let column = |c: usize| [numbers[0][c], numbers[1][c], numbers[2][c]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut worst: f64 = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j { 1.0 } else { 0.0 };
            worst = worst.max((dot(column(i), column(j)) - want).abs());
        }
    }
    let (a, b, c) = (column(0), column(1), column(2));
    let det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
        + a[2] * (b[0] * c[1] - b[1] * c[0]);
    if worst > 1e-9 || (det - 1.0).abs() > 1e-9 {
        let msg = format!(
            "this matrix is not a rotation: |RᵀR − 1| reaches {worst:.1e}, det R = {det:.6} (a rotation has orthonormal columns and det 1)"
        );
        return err(e.span(), msg);
    }
    Ok(())
}

enum Axis {
    Coordinate(usize),
    Unit([f64; 3]),
}

fn scale(pool: &mut Pool, v: Vec<Segment>, s: ExprId) -> Vec<Segment> {
    v.into_iter()
        .map(|seg| Segment {
            local: seg.local.map(|e| pool.mul2(s, e)),
            rotation: seg.rotation,
        })
        .collect()
}

fn rotate(pool: &mut Pool, r: &Orientation, v: Vec<Segment>) -> Vec<Segment> {
    v.into_iter()
        .map(|seg| Segment {
            rotation: r.then(pool, &seg.rotation),
            local: seg.local,
        })
        .collect()
}

/// `l op r` on values.
fn binary(pool: &mut Pool, e: &Expr, op: &BinOp, l: Value, r: Value) -> Result<Value> {
    use Value::{Rotation, Scalar, Vector};
    Ok(match (op, l, r) {
        (BinOp::Mul(_), Rotation(a), Rotation(b)) => Rotation(a.then(pool, &b)),
        (BinOp::Mul(_), Rotation(a), Vector(v)) => Vector(rotate(pool, &a, v)),
        (BinOp::Mul(_), Scalar(s), Vector(v)) | (BinOp::Mul(_), Vector(v), Scalar(s)) => {
            Vector(scale(pool, v, s))
        }
        (BinOp::Div(_), Vector(v), Scalar(s)) => {
            let one = pool.one();
            let inv = pool.div(one, s);
            Vector(scale(pool, v, inv))
        }
        (BinOp::Add(_), Vector(mut a), Vector(b)) => {
            a.extend(b);
            Vector(a)
        }
        (BinOp::Sub(_), Vector(mut a), Vector(b)) => {
            let minus = pool.int(-1);
            a.extend(scale(pool, b, minus));
            Vector(a)
        }
        (op, l, r) => {
            return err(
                e.span(),
                format!(
                    "`{}` does not combine {} and {} (vectors add and subtract, a rotation multiplies a rotation or a vector, a scalar scales a vector)",
                    op.to_token_stream(),
                    kind_name(&l),
                    kind_name(&r)
                ),
            );
        }
    })
}

/// The structured M and Q of the placed spatial bodies `items` (with `force` and `potential`).
pub fn dynamics(
    spec: &ModelSpec,
    items: &[(String, Item<'_>)],
    b: &mut ModelBuilder,
    lw: &mut Lowerer,
    rows: &mut Vec<Row>,
    state: State<'_>,
    extra: Extra,
) -> Result<PlacedDynamics> {
    if let Some((k, _)) = spec.key("joints") {
        let msg = "joints between bodies placed by expressions are not offered: a tree needs none (its coordinates are the joints'), and a loop's closure rows go into `holonomic`";
        return Err(syn::Error::new(k.span(), msg));
    }
    let time = b.time();
    let n = state.q.len();
    let pool = b.pool();
    let total = pool.total_direction(time, state.q, state.v);
    let mut placed: Vec<Placed> = Vec::new();
    let mut bodies: Vec<SpatialBody> = Vec::new();
    for (name, item) in items {
        let (kind, args) = call_parts(item.expr)?;
        if kind != "body" || args.len() != 4 || !spatial::is_spatial(item) {
            let msg = format!(
                "body `{name}` is not placed like the others: every body here is `body(mass, [jx, jy, jz], [x, y, z], rotation)`"
            );
            return err(item.expr.span(), msg);
        }
        let bind = &item.bindings;
        let mass = lw.lower_in(pool, bind, args[0])?;
        let inertia = spatial::inertia_tensor(lw, pool, bind, args[1])?;
        let scene = Scene {
            placed: &placed,
            total,
        };
        let position = scene.vector(
            lw,
            pool,
            bind,
            args[2],
            "the position of the centre of mass",
        )?;
        let orientation = match scene.eval(lw, pool, bind, args[3])? {
            Value::Rotation(r) => r,
            other => {
                let msg = format!(
                    "the body's rotation must be a rotation (`rot_x(a)`, `rot_y(a)`, `rot_z(a)`, `rot([ux, uy, uz], a)`, `orientation(b)`, a 3 × 3 matrix, products of them), found {}",
                    kind_name(&other)
                );
                return err(args[3].span(), msg);
            }
        };
        lw.take_mentions();
        let zero = pool.zero();
        bodies.push(SpatialBody {
            name: name.clone(),
            mass,
            inertia,
            orientation: orientation.clone(),
            position: position.clone(),
            force: [zero; 3],
            torque: [zero; 3],
        });
        placed.push(Placed {
            name: name.clone(),
            orientation,
            position,
        });
    }
    let scene = Scene {
        placed: &placed,
        total,
    };
    let mut gravity = Some(Vec::new());
    if let Some((_, value)) = spec.key("loads") {
        gravity = loads(&scene, lw, pool, value, &mut bodies, rows)?;
    }
    let conservative = extra.force.is_none() && gravity.is_some();
    let zero = pool.zero();
    let user_force = extra.force.unwrap_or_else(|| vec![zero; n]);
    let potential = extra.potential.unwrap_or(zero);
    let generalized: Vec<ExprId> = user_force
        .iter()
        .zip(state.q)
        .map(|(&f, &qi)| {
            let dv = pool.diff(potential, qi);
            pool.sub(f, dv)
        })
        .collect();
    let system = SpatialBodies {
        time,
        q: state.q,
        v: state.v,
        bodies: &bodies,
        extra: &generalized,
    };
    let structured = spatial_tree::derive(pool, &system).map_err(|e| body_error(&e, items))?;
    let energy = match (conservative, gravity) {
        (true, Some(gravity)) => {
            let mut v_total = vec![potential];
            for g in &gravity {
                for body in &bodies {
                    let r = spatial_tree::position(pool, &body.position);
                    let gr = spatial_tree::dot(pool, *g, r);
                    let mgr = pool.mul2(body.mass, gr);
                    v_total.push(pool.neg(mgr));
                }
            }
            Some((structured.kinetic, pool.add(&v_total)))
        }
        _ => None,
    };
    Ok(PlacedDynamics {
        mass: structured.eom.mass,
        force: structured.eom.force,
        energy,
    })
}

/// The `loads` entry into the bodies' forces and couples; the gravity vectors when every load
/// is `gravity`.
fn loads(
    scene: &Scene<'_>,
    lw: &mut Lowerer,
    pool: &mut Pool,
    value: &Expr,
    bodies: &mut [SpatialBody],
    rows: &mut Vec<Row>,
) -> Result<Option<Vec<V3>>> {
    let array = super::syntax::array(value, "`loads`")?;
    let items = super::family::expand(lw, pool, &array, true)?;
    let mut gravity = Some(Vec::new());
    for item in &items {
        let g = load(scene, lw, pool, item, bodies)?;
        gravity = match (gravity, g) {
            (Some(mut all), Some(g)) => {
                all.push(g);
                Some(all)
            }
            _ => None,
        };
        rows.push(spatial::row_of(item, "loads".into(), lw));
    }
    Ok(gravity)
}

/// Add the force `f` at the body point with world arm `arm` (from the centre of mass).
fn apply(pool: &mut Pool, body: &mut SpatialBody, arm: V3, f: V3) {
    let moment = cross(pool, arm, f);
    body.force = add3(pool, body.force, f);
    body.torque = add3(pool, body.torque, moment);
}

fn load(
    scene: &Scene<'_>,
    lw: &mut Lowerer,
    pool: &mut Pool,
    item: &Item<'_>,
    bodies: &mut [SpatialBody],
) -> Result<Option<V3>> {
    let (kind, a) = call_parts(item.expr)?;
    let (b, span) = (&item.bindings, item.expr.span());
    let arity = |k: usize, form: &str| planar::arity(&a, k, &kind, span, form);
    match kind.as_str() {
        "gravity" => {
            arity(1, "gravity([gx, gy, gz])")?;
            let g = scene.world(lw, pool, b, a[0], "gravity")?;
            for body in bodies.iter_mut() {
                let f = g.map(|e| pool.mul2(body.mass, e));
                body.force = add3(pool, body.force, f);
            }
            return Ok(Some(g));
        }
        "force" | "force_local" => {
            arity(3, &format!("{kind}(b, [sx, sy, sz], [fx, fy, fz])"))?;
            let k = scene.body_index(lw, pool, b, a[0])?;
            let s = scene.world(lw, pool, b, a[1], "the point")?;
            let f = scene.world(lw, pool, b, a[2], "the force")?;
            if let Some(k) = k {
                let rot = scene.placed[k].orientation.matrix;
                let arm = mat_vec(pool, &rot, s);
                let f = match kind.as_str() {
                    "force" => f,
                    _ => mat_vec(pool, &rot, f),
                };
                apply(pool, &mut bodies[k], arm, f);
            }
        }
        "torque" | "torque_local" => {
            arity(2, &format!("{kind}(b, [nx, ny, nz])"))?;
            let k = scene.body_index(lw, pool, b, a[0])?;
            let n = scene.world(lw, pool, b, a[1], "the torque")?;
            if let Some(k) = k {
                let n = match kind.as_str() {
                    "torque" => n,
                    _ => mat_vec(pool, &scene.placed[k].orientation.matrix, n),
                };
                bodies[k].torque = add3(pool, bodies[k].torque, n);
            }
        }
        "tsda" => {
            arity(8, "tsda(i, [sx, sy, sz], j, [sx, sy, sz], k, c, l0, f)")?;
            tsda(scene, lw, pool, item, &a, bodies)?;
        }
        other => {
            const KINDS: [&str; 6] = [
                "gravity",
                "force",
                "force_local",
                "torque",
                "torque_local",
                "tsda",
            ];
            let hint = super::suggest::did_you_mean(other, KINDS);
            return err(
                span,
                format!(
                    "unknown load `{other}`{hint} (loads of placed spatial bodies: {})",
                    KINDS.join(", ")
                ),
            );
        }
    }
    Ok(None)
}

/// d = P_i − P_j, l = |d|, f_s = k (l − l0) + c l̇ + f pulling the points together.
fn tsda(
    scene: &Scene<'_>,
    lw: &mut Lowerer,
    pool: &mut Pool,
    item: &Item<'_>,
    a: &[&Expr],
    bodies: &mut [SpatialBody],
) -> Result<()> {
    let b = &item.bindings;
    let mut ends = Vec::new();
    for (body, point) in [(a[0], a[1]), (a[2], a[3])] {
        let k = scene.body_index(lw, pool, b, body)?;
        let s = scene.world(lw, pool, b, point, "the point")?;
        let (arm, p) = match k {
            Some(k) => {
                let arm = mat_vec(pool, &scene.placed[k].orientation.matrix, s);
                let r = spatial_tree::position(pool, &scene.placed[k].position);
                (arm, add3(pool, r, arm))
            }
            None => (s, s),
        };
        ends.push((k, arm, p));
    }
    let [kk, c, l0, fa] = [a[4], a[5], a[6], a[7]].map(|e| lw.lower_in(pool, b, e));
    let (kk, c, l0, fa) = (kk?, c?, l0?, fa?);
    let d = [0, 1, 2].map(|i| pool.sub(ends[0].2[i], ends[1].2[i]));
    let dd = d.map(|e| pool.directional(e, scene.total));
    let l = {
        let dsq = spatial_tree::dot(pool, d, d);
        pool.sqrt(dsq)
    };
    let ldot = {
        let ddot = spatial_tree::dot(pool, d, dd);
        pool.div(ddot, l)
    };
    let stretch = pool.sub(l, l0);
    let terms = [pool.mul2(kk, stretch), pool.mul2(c, ldot), fa];
    let fs = pool.add(&terms);
    let fl = pool.div(fs, l);
    let pull = d.map(|e| pool.mul2(fl, e));
    let push = pull.map(|e| pool.neg(e));
    for ((k, arm, _), f) in ends.into_iter().zip([push, pull]) {
        if let Some(k) = k {
            apply(pool, &mut bodies[k], arm, f);
        }
    }
    Ok(())
}

/// A body error on the offending body's tokens.
fn body_error(e: &BodyError, items: &[(String, Item<'_>)]) -> syn::Error {
    let span = match e {
        BodyError::VelocityInPlacement { body, .. } => items
            .iter()
            .find(|(name, _)| name == body)
            .map(|(_, item)| item.expr.span()),
        BodyError::ForceLength { .. } => None,
    };
    syn::Error::new(span.unwrap_or_else(proc_macro2::Span::call_site), e)
}

//! Planar bodies, joints and loads (Haug's DADS formulation, ch. 7; ME451's simEngine2D):
//! sugar of the model language that produces the same Φ, M and Q expressions a user would
//! write by hand, so every kernel, oracle and snapshot works as for any other model.
//!
//! ```text
//! bodies: [crank = body(m2, j2), rod = body(m3, j3), for i in 0..N { link = body(m[i], j[i]) }],
//! joints: [pin = revolute(ground, [0.0, 0.0], crank, [-1.0, 0.0]), …],
//! loads:  [gravity([0.0, -g]), torque(crank, tau), spring = tsda(ground, [12.0, 0.0], slider, [2.0, 0.0], k, c, l0, 0.0)],
//! ```
//! A body `b` has the coordinates `b_x`, `b_y`, `b_phi` (centre of mass and angle; members of a
//! family `link[3]` get `link_x[3]`, …), in the order the bodies are listed, and the mass block
//! diag(m, m, J) (J about the centre of mass); `ground` is the fixed frame (no coordinates).
//! A point of body b given in its frame, s' = (sx, sy), is at P = r + A(φ) s'.
//!
//! Joints (the row names are the joint's name with a suffix, so diagnostics name the joint):
//! - `revolute(i, si, j, sj)`: P_i − P_j = 0 (rows `_x`, `_y`);
//! - `translational(i, si, j, sj)`: P_j moves along body i's x axis through P_i and the bodies
//!   keep their relative angle: n_i·(P_j − P_i) = 0 and u_i × u_j = 0 with u, n the bodies'
//!   x and y axes (rows `_n`, `_phi`; Haug's form, sin of the relative angle);
//! - `revolute_translational(i, si, j, sj, d)`: P_i stays at distance d from the line through
//!   P_j along body j's x axis, n_j·(P_i − P_j) − d = 0 (one row);
//! - `distance(i, si, j, sj, d)`: |P_i − P_j|² − d² = 0 (one row);
//! - `fixed(i, j)`: r_i − r_j = 0 and φ_i − φ_j = 0 (rows `_x`, `_y`, `_phi`);
//! - drivers, of t through any expression: `absolute(b, x | y | phi, f)`: b's coordinate − f = 0;
//!   `relative(i, j, f)`: φ_j − φ_i − f = 0 (one row each).
//!
//! Loads (added to the generalized forces; the `force` entry, if given, adds to them):
//! - `gravity([gx, gy])`: m_b (gx, gy) at every body's centre of mass;
//! - `force(b, s, [fx, fy])`: a global force at the point s of b, Q += (∂P/∂q)ᵀ F;
//! - `torque(b, tau)`;
//! - `tsda(i, si, j, sj, k, c, l0, f)`: d = P_i − P_j, l = |d|, l̇ = d·ḋ/l,
//!   f_s = k (l − l0) + c l̇ + f pulls the points together: Q_i −= f_s (∂P_i/∂q_i)ᵀ d / l,
//!   Q_j += f_s (∂P_j/∂q_j)ᵀ d / l;
//! - `rsda(i, j, k, c, theta0, tau)`: θ = φ_j − φ_i, n = k (θ − θ0) + c θ̇ + τ;
//!   Q_φj −= n, Q_φi += n.
//!
//! Loops and labels work as in the other array entries (`family.rs`); a body reference may be
//! indexed, `crank[i + 1]`.

use super::errors::Row;
use super::family::{self, Item};
use super::lower::Lowerer;
use crate::pool::{ExprId, Func, Pool};
use quote::ToTokens;
use syn::Expr;
use syn::spanned::Spanned;

/// One planar body: its name, coordinates and velocities (x, y, φ) and their indices in q.
#[derive(Clone, Debug)]
pub struct Body {
    /// The body's name (`crank`, `link[3]`).
    pub name: String,
    /// x, y, φ symbols.
    pub q: [ExprId; 3],
    /// Their velocities.
    pub v: [ExprId; 3],
    /// Index of x in q (y and φ follow).
    pub index: usize,
}

/// The name of a body's coordinate: `crank` + `x` → `crank_x`, `link[3]` + `x` → `link_x[3]`.
pub fn suffixed(name: &str, suffix: &str) -> String {
    match name.find('[') {
        Some(at) => format!("{}_{suffix}{}", &name[..at], &name[at..]),
        None => format!("{name}_{suffix}"),
    }
}

/// The bodies of the `bodies` entry, unrolled (names and their `body(m, J)` expressions).
pub fn declare<'a>(
    lw: &mut Lowerer,
    pool: &mut Pool,
    value: &'a Expr,
) -> syn::Result<Vec<(String, Item<'a>)>> {
    let items = family::expand(lw, pool, &super::syntax::array(value, "`bodies`")?, true)?;
    items
        .into_iter()
        .map(|item| match &item.label {
            Some(name) if name != "ground" => Ok((name.clone(), item)),
            Some(_) => Err(syn::Error::new(
                item.expr.span(),
                "`ground` is the fixed frame; name the body otherwise",
            )),
            None => Err(syn::Error::new(
                item.expr.span(),
                "a body needs a name: `crank = body(m, j)`",
            )),
        })
        .collect()
}

/// What the planar entries add to the model.
pub struct Planar<'b> {
    /// The bodies, in coordinate order.
    pub bodies: &'b [Body],
    /// The number of coordinates n.
    pub n: usize,
}

type Result<T> = syn::Result<T>;

fn err<T>(span: proc_macro2::Span, msg: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new(span, msg))
}

/// A body reference resolved: its position and angle expressions (the ground's are zeros) and
/// its index among the bodies.
#[derive(Clone, Copy)]
struct Frame {
    q: [ExprId; 3],
    v: [ExprId; 3],
    body: Option<usize>,
}

/// The arguments of a call `kind(a, b, …)`.
pub(super) fn call_parts(expr: &Expr) -> Result<(String, Vec<&Expr>)> {
    match expr {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => Ok((
                p.path.get_ident().expect("checked").to_string(),
                c.args.iter().collect(),
            )),
            other => err(other.span(), "expected a joint, load or body kind"),
        },
        Expr::Group(g) => call_parts(&g.expr),
        other => err(
            other.span(),
            "expected a call such as `revolute(a, [0.0, 0.0], b, [1.0, 0.0])`",
        ),
    }
}

/// `kind` called with `k` arguments, or an error quoting its form.
pub(super) fn arity(
    args: &[&Expr],
    k: usize,
    kind: &str,
    span: proc_macro2::Span,
    form: &str,
) -> Result<()> {
    match args.len() == k {
        true => Ok(()),
        false => err(span, format!("`{kind}` takes {k} arguments: `{form}`")),
    }
}

/// The name a body reference spells: `crank`, `ground`, `link[i + 1]` → `link[4]`.
pub(super) fn body_name(
    lw: &mut Lowerer,
    pool: &mut Pool,
    bindings: &[(String, i64)],
    e: &Expr,
) -> Result<String> {
    Ok(match e {
        Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            p.path.get_ident().expect("checked").to_string()
        }
        Expr::Index(ix) => {
            let Expr::Path(p) = &*ix.expr else {
                return err(e.span(), "a body is a name or `name[index]`");
            };
            let base = p
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let k = lw.scoped(bindings, |lw| lw.integer(pool, &ix.index, "a body's index"))?;
            format!("{base}[{k}]")
        }
        Expr::Group(g) => return body_name(lw, pool, bindings, &g.expr),
        other => return err(other.span(), "a body is a name, `name[index]` or `ground`"),
    })
}

impl Planar<'_> {
    fn frame(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        bindings: &[(String, i64)],
        e: &Expr,
    ) -> Result<Frame> {
        let name = body_name(lw, pool, bindings, e)?;
        if name == "ground" {
            let zero = pool.zero();
            return Ok(Frame {
                q: [zero; 3],
                v: [zero; 3],
                body: None,
            });
        }
        match self.bodies.iter().position(|b| b.name == name) {
            Some(k) => Ok(Frame {
                q: self.bodies[k].q,
                v: self.bodies[k].v,
                body: Some(k),
            }),
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

    fn vector(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        bindings: &[(String, i64)],
        e: &Expr,
    ) -> Result<[ExprId; 2]> {
        let parts = super::syntax::array(e, "a point or vector `[x, y]`")?;
        let [a, b] = parts.as_slice() else {
            return err(e.span(), "a point or vector has two entries `[x, y]`");
        };
        Ok([
            lw.lower_in(pool, bindings, a)?,
            lw.lower_in(pool, bindings, b)?,
        ])
    }
}

/// A point s' of a frame: position P = r + A s', its partial ∂P/∂φ = A' s', velocity Ṗ.
struct Point {
    p: [ExprId; 2],
    dp_dphi: [ExprId; 2],
    pdot: [ExprId; 2],
}

fn point(pool: &mut Pool, f: &Frame, s: [ExprId; 2]) -> Point {
    let (c, sn) = (pool.func(Func::Cos, f.q[2]), pool.func(Func::Sin, f.q[2]));
    let rot = |pool: &mut Pool, a: ExprId, b: ExprId, sign: i64| {
        let (ab, bb) = (pool.mul2(a, s[0]), pool.mul2(b, s[1]));
        let bb = match sign {
            1 => bb,
            _ => pool.neg(bb),
        };
        pool.add2(ab, bb)
    };
    // A s' = (c sx − s sy, s sx + c sy); A' s' = (−s sx − c sy, c sx − s sy).
    let ax = rot(pool, c, sn, -1);
    let ay = rot(pool, sn, c, 1);
    let msn = pool.neg(sn);
    let dx = rot(pool, msn, c, -1);
    let dy = rot(pool, c, sn, -1);
    let p = [pool.add2(f.q[0], ax), pool.add2(f.q[1], ay)];
    let (wx, wy) = (pool.mul2(dx, f.v[2]), pool.mul2(dy, f.v[2]));
    let pdot = [pool.add2(f.v[0], wx), pool.add2(f.v[1], wy)];
    Point {
        p,
        dp_dphi: [dx, dy],
        pdot,
    }
}

fn dot(pool: &mut Pool, a: [ExprId; 2], b: [ExprId; 2]) -> ExprId {
    let (x, y) = (pool.mul2(a[0], b[0]), pool.mul2(a[1], b[1]));
    pool.add2(x, y)
}

fn diff2(pool: &mut Pool, a: [ExprId; 2], b: [ExprId; 2]) -> [ExprId; 2] {
    [pool.sub(a[0], b[0]), pool.sub(a[1], b[1])]
}

/// The unit axes (u, n) of a frame: u = (cos φ, sin φ), n = (−sin φ, cos φ).
fn axes(pool: &mut Pool, f: &Frame) -> ([ExprId; 2], [ExprId; 2]) {
    let (c, s) = (pool.func(Func::Cos, f.q[2]), pool.func(Func::Sin, f.q[2]));
    let ms = pool.neg(s);
    ([c, s], [ms, c])
}

/// One unrolled joint or load with its lowering context.
struct Ctx<'i, 'a> {
    item: &'i Item<'a>,
    kind: String,
    args: Vec<&'a Expr>,
}

fn context<'i, 'a>(item: &'i Item<'a>) -> Result<Ctx<'i, 'a>> {
    let (kind, args) = call_parts(item.expr)?;
    Ok(Ctx { item, kind, args })
}

fn row_of(item: &Item<'_>, label: String, lw: &mut Lowerer) -> Row {
    Row {
        label,
        tokens: item.expr.to_token_stream(),
        mentions: lw.take_mentions(),
        iteration: item.iteration(),
    }
}

impl Planar<'_> {
    /// The rows of the `joints` entry, with their labels; `first` is the index of the first
    /// holonomic row they become (for the error table).
    pub fn joints(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        value: &Expr,
        first: usize,
        rows: &mut Vec<Row>,
    ) -> Result<Vec<(ExprId, Option<String>)>> {
        let items = family::expand(lw, pool, &super::syntax::array(value, "`joints`")?, true)?;
        let mut out = Vec::new();
        for item in &items {
            let ctx = context(item)?;
            let exprs = self.joint(lw, pool, &ctx)?;
            for (suffix, e) in exprs {
                let label = item.label.as_ref().map(|l| match suffix {
                    "" => l.clone(),
                    s => suffixed(l, s),
                });
                rows.push(row_of(
                    item,
                    format!("holonomic[{}]", first + out.len()),
                    lw,
                ));
                out.push((e, label));
            }
        }
        Ok(out)
    }

    fn joint(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        ctx: &Ctx<'_, '_>,
    ) -> Result<Vec<(&'static str, ExprId)>> {
        let (b, a, span) = (&ctx.item.bindings, &ctx.args, ctx.item.expr.span());
        let two_points =
            |lw: &mut Lowerer, pool: &mut Pool| -> Result<(Frame, Point, Frame, Point)> {
                let (fi, si) = (
                    self.frame(lw, pool, b, a[0])?,
                    self.vector(lw, pool, b, a[1])?,
                );
                let (fj, sj) = (
                    self.frame(lw, pool, b, a[2])?,
                    self.vector(lw, pool, b, a[3])?,
                );
                let (pi, pj) = (point(pool, &fi, si), point(pool, &fj, sj));
                Ok((fi, pi, fj, pj))
            };
        Ok(match ctx.kind.as_str() {
            "revolute" => {
                arity(a, 4, "revolute", span, "revolute(i, [sx, sy], j, [sx, sy])")?;
                let (_, pi, _, pj) = two_points(lw, pool)?;
                let d = diff2(pool, pi.p, pj.p);
                vec![("x", d[0]), ("y", d[1])]
            }
            "translational" => {
                arity(
                    a,
                    4,
                    "translational",
                    span,
                    "translational(i, [sx, sy], j, [sx, sy])",
                )?;
                let (fi, pi, fj, pj) = two_points(lw, pool)?;
                let ((_, ni), (uj, _)) = (axes(pool, &fi), axes(pool, &fj));
                let d = diff2(pool, pj.p, pi.p);
                vec![("n", dot(pool, ni, d)), ("phi", dot(pool, ni, uj))]
            }
            "revolute_translational" => {
                arity(
                    a,
                    5,
                    "revolute_translational",
                    span,
                    "revolute_translational(i, [sx, sy], j, [sx, sy], d)",
                )?;
                let (_, pi, fj, pj) = two_points(lw, pool)?;
                let (_, nj) = axes(pool, &fj);
                let d = diff2(pool, pi.p, pj.p);
                let off = lw.lower_in(pool, b, a[4])?;
                let n = dot(pool, nj, d);
                vec![("", pool.sub(n, off))]
            }
            "distance" => {
                arity(
                    a,
                    5,
                    "distance",
                    span,
                    "distance(i, [sx, sy], j, [sx, sy], d)",
                )?;
                let (_, pi, _, pj) = two_points(lw, pool)?;
                let d = diff2(pool, pi.p, pj.p);
                let len = lw.lower_in(pool, b, a[4])?;
                let (dd, ll) = (dot(pool, d, d), pool.powi(len, 2));
                vec![("", pool.sub(dd, ll))]
            }
            "fixed" => {
                arity(a, 2, "fixed", span, "fixed(i, j)")?;
                let (fi, fj) = (
                    self.frame(lw, pool, b, a[0])?,
                    self.frame(lw, pool, b, a[1])?,
                );
                let rows = [0, 1, 2].map(|k| pool.sub(fi.q[k], fj.q[k]));
                vec![("x", rows[0]), ("y", rows[1]), ("phi", rows[2])]
            }
            "absolute" => {
                arity(a, 3, "absolute", span, "absolute(b, x | y | phi, f(t))")?;
                let f = self.frame(lw, pool, b, a[0])?;
                let which = match a[1] {
                    Expr::Path(p) if p.path.is_ident("x") => 0,
                    Expr::Path(p) if p.path.is_ident("y") => 1,
                    Expr::Path(p) if p.path.is_ident("phi") => 2,
                    other => {
                        return err(other.span(), "the driven coordinate is `x`, `y` or `phi`");
                    }
                };
                let value = lw.lower_in(pool, b, a[2])?;
                vec![("", pool.sub(f.q[which], value))]
            }
            "relative" => {
                arity(a, 3, "relative", span, "relative(i, j, f(t))")?;
                let (fi, fj) = (
                    self.frame(lw, pool, b, a[0])?,
                    self.frame(lw, pool, b, a[1])?,
                );
                let value = lw.lower_in(pool, b, a[2])?;
                let rel = pool.sub(fj.q[2], fi.q[2]);
                vec![("", pool.sub(rel, value))]
            }
            other => {
                const KINDS: [&str; 7] = [
                    "revolute",
                    "translational",
                    "revolute_translational",
                    "distance",
                    "fixed",
                    "absolute",
                    "relative",
                ];
                let hint = super::suggest::did_you_mean(other, KINDS);
                return err(
                    span,
                    format!(
                        "unknown joint `{other}`{hint} (joints: {})",
                        KINDS.join(", ")
                    ),
                );
            }
        })
    }

    /// Add the `loads` entry's generalized forces to `q` (length n); `masses[k]` is body k's
    /// mass expression.
    pub fn loads(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        value: &Expr,
        masses: &[ExprId],
        q: &mut [ExprId],
        rows: &mut Vec<Row>,
    ) -> Result<()> {
        let items = family::expand(lw, pool, &super::syntax::array(value, "`loads`")?, true)?;
        for item in &items {
            let ctx = context(item)?;
            self.load(lw, pool, &ctx, masses, q)?;
            rows.push(row_of(item, "loads".into(), lw));
        }
        Ok(())
    }

    fn add(&self, pool: &mut Pool, q: &mut [ExprId], f: &Frame, k: usize, value: ExprId) {
        if let Some(body) = f.body {
            let i = self.bodies[body].index + k;
            q[i] = pool.add2(q[i], value);
        }
    }

    /// Q += ±(∂P/∂q)ᵀ F for a point of frame f.
    fn point_force(
        &self,
        pool: &mut Pool,
        q: &mut [ExprId],
        f: &Frame,
        p: &Point,
        force: [ExprId; 2],
    ) {
        self.add(pool, q, f, 0, force[0]);
        self.add(pool, q, f, 1, force[1]);
        let moment = dot(pool, p.dp_dphi, force);
        self.add(pool, q, f, 2, moment);
    }

    fn load(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        ctx: &Ctx<'_, '_>,
        masses: &[ExprId],
        q: &mut [ExprId],
    ) -> Result<()> {
        let (b, a, span) = (&ctx.item.bindings, &ctx.args, ctx.item.expr.span());
        match ctx.kind.as_str() {
            "gravity" => {
                arity(a, 1, "gravity", span, "gravity([gx, gy])")?;
                let g = self.vector(lw, pool, b, a[0])?;
                for (k, body) in self.bodies.iter().enumerate() {
                    let f = Frame {
                        q: body.q,
                        v: body.v,
                        body: Some(k),
                    };
                    for c in 0..2 {
                        let w = pool.mul2(masses[k], g[c]);
                        self.add(pool, q, &f, c, w);
                    }
                }
            }
            "force" => {
                arity(a, 3, "force", span, "force(b, [sx, sy], [fx, fy])")?;
                let f = self.frame(lw, pool, b, a[0])?;
                let s = self.vector(lw, pool, b, a[1])?;
                let force = self.vector(lw, pool, b, a[2])?;
                let p = point(pool, &f, s);
                self.point_force(pool, q, &f, &p, force);
            }
            "torque" => {
                arity(a, 2, "torque", span, "torque(b, tau)")?;
                let f = self.frame(lw, pool, b, a[0])?;
                let tau = lw.lower_in(pool, b, a[1])?;
                self.add(pool, q, &f, 2, tau);
            }
            "tsda" => {
                arity(
                    a,
                    8,
                    "tsda",
                    span,
                    "tsda(i, [sx, sy], j, [sx, sy], k, c, l0, f)",
                )?;
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
                let d = diff2(pool, pi.p, pj.p);
                let dd = diff2(pool, pi.pdot, pj.pdot);
                let dsq = dot(pool, d, d);
                let l = pool.sqrt(dsq);
                let ddot = dot(pool, d, dd);
                let ldot = pool.div(ddot, l);
                let stretch = pool.sub(l, l0);
                let terms = [pool.mul2(k, stretch), pool.mul2(c, ldot), fa];
                let fs = pool.add(&terms);
                let fl = pool.div(fs, l);
                let pull = [pool.mul2(fl, d[0]), pool.mul2(fl, d[1])];
                let push = pull.map(|e| pool.neg(e));
                self.point_force(pool, q, &fi, &pi, push);
                self.point_force(pool, q, &fj, &pj, pull);
            }
            "rsda" => {
                arity(a, 6, "rsda", span, "rsda(i, j, k, c, theta0, tau)")?;
                let (fi, fj) = (
                    self.frame(lw, pool, b, a[0])?,
                    self.frame(lw, pool, b, a[1])?,
                );
                let [k, c, th0, tau] = [a[2], a[3], a[4], a[5]].map(|e| lw.lower_in(pool, b, e));
                let (k, c, th0, tau) = (k?, c?, th0?, tau?);
                let theta = pool.sub(fj.q[2], fi.q[2]);
                let omega = pool.sub(fj.v[2], fi.v[2]);
                let stretch = pool.sub(theta, th0);
                let terms = [pool.mul2(k, stretch), pool.mul2(c, omega), tau];
                let n = pool.add(&terms);
                let mn = pool.neg(n);
                self.add(pool, q, &fj, 2, mn);
                self.add(pool, q, &fi, 2, n);
            }
            other => {
                const KINDS: [&str; 5] = ["gravity", "force", "torque", "tsda", "rsda"];
                let hint = super::suggest::did_you_mean(other, KINDS);
                return err(
                    span,
                    format!("unknown load `{other}`{hint} (loads: {})", KINDS.join(", ")),
                );
            }
        }
        Ok(())
    }
}

/// The parts of `body(m, j)` or `body(m, j, [x, y, phi])`: mass, inertia and, for a body
/// placed by expressions of the coordinates, its centre of mass and angle.
pub struct BodyParts {
    /// Mass m.
    pub mass: ExprId,
    /// Inertia J about the centre of mass.
    pub inertia: ExprId,
    /// (x, y, φ) of a placed body; `None` for a body with its own coordinates.
    pub placement: Option<[ExprId; 3]>,
}

/// Whether a body item is placed, `body(m, j, [x, y, phi])` (decided from the syntax alone,
/// before the coordinates are declared).
pub fn is_placed(item: &Item<'_>) -> bool {
    call_parts(item.expr).is_ok_and(|(_, args)| args.len() == 3)
}

/// The mass, inertia and optional placement of `body(m, j)` / `body(m, j, [x, y, phi])`.
pub fn body_parts(lw: &mut Lowerer, pool: &mut Pool, item: &Item<'_>) -> Result<BodyParts> {
    let (kind, args) = call_parts(item.expr)?;
    let span = item.expr.span();
    if kind != "body" {
        return err(
            span,
            format!("expected `body(mass, inertia)`, found `{kind}(…)`"),
        );
    }
    if !(2..=3).contains(&args.len()) {
        let form = "body(mass, inertia)` or `body(mass, inertia, [x, y, phi])";
        return err(span, format!("`body` takes 2 or 3 arguments: `{form}`"));
    }
    let mass = lw.lower_in(pool, &item.bindings, args[0])?;
    let inertia = lw.lower_in(pool, &item.bindings, args[1])?;
    let placement = match args.get(2) {
        None => None,
        Some(e) => {
            let parts = super::syntax::array(e, "a placement `[x, y, phi]`")?;
            let [x, y, phi] = parts.as_slice() else {
                return err(
                    e.span(),
                    "a placement has three entries `[x, y, phi]`: the centre of mass and the angle",
                );
            };
            let mut lower = |e: &Expr| lw.lower_in(pool, &item.bindings, e);
            Some([lower(x)?, lower(y)?, lower(phi)?])
        }
    };
    Ok(BodyParts {
        mass,
        inertia,
        placement,
    })
}

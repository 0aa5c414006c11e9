//! Spatial joints and drivers (Haug ch. 9): rows named after the joint with a suffix, built
//! from the basic constraints of the book on the bodies' points P = r + A(p) s' and body-fixed
//! directions A(p) a':
//! dot-1 `aᵢᵀ aⱼ = 0`, dot-2 `aᵢᵀ d = 0` with d = P_j − P_i, spherical `P_i − P_j = 0` and
//! spherical–spherical `dᵀd − l² = 0`.
//!
//! An axis `h'` is given in each body's frame; it must be known at generation time (numbers,
//! `const`s) because the front end completes it to a right-handed unit triad (f', g', h'):
//! h' is normalized, f' is the coordinate axis least aligned with h' (x before y before z on
//! ties) with its h' component removed, normalized, and g' = h' × f'. So h' = z gives f' = x,
//! g' = y; h' = x gives f' = y, g' = z; h' = y gives f' = x, g' = −z.
//!
//! - `spherical(i, si, j, sj)`: P_i − P_j = 0 (rows `_x`, `_y`, `_z`);
//! - `revolute(i, si, hi, j, sj, hj)`: spherical, and h_j ⟂ f_i, g_i (rows `_x _y _z _f _g`);
//! - `universal(i, si, hi, j, sj, hj)`: spherical, and h_iᵀ h_j = 0 (the cross's two axes,
//!   `_x _y _z _h`);
//! - `cylindrical(i, si, hi, j, sj, hj)`: h_j ⟂ f_i, g_i and d ⟂ f_i, g_i (P_j on the axis
//!   of body i through P_i; rows `_f _g _df _dg`);
//! - `translational(i, si, hi, j, sj, hj)`: cylindrical, and g_iᵀ f_j = 0 (no rotation about
//!   the axis: f_j stays at f_i, or at −f_i; row `_rot`);
//! - `planar(i, si, hi, j, sj, hj)`: h_j ⟂ f_i, g_i and h_iᵀ d = 0 (P_j in body i's plane
//!   through P_i normal to h_i; rows `_f _g _n`);
//! - `fixed(i, si, j, sj)`: spherical, and the body frames parallel: x_iᵀ y_j = y_iᵀ z_j =
//!   z_iᵀ x_j = 0 (rows `_x _y _z _a _b _c`);
//! - `distance(i, si, j, sj, d)` and `spherical_spherical(i, si, j, sj, l)`: dᵀd − l² = 0 (one
//!   row; the second is Haug's name for the massless link with a ball at each end — the same
//!   equation);
//! - drivers, of t through any expression: `rotation(joint, f)` on a revolute or cylindrical
//!   joint keeps its angle θ at f: with cos θ = f_iᵀ f_j and sin θ = g_iᵀ f_j, the row is
//!   sin(θ − f) = (g_iᵀ f_j) cos f − (f_iᵀ f_j) sin f, smooth for every θ (no branch cut,
//!   f may grow without bound); `translation(joint, f)` on a translational or cylindrical
//!   joint: h_iᵀ d − f = 0; `absolute(b, x | y | z, f)`: a coordinate of the centre of mass.
//!   A driver names a joint listed before it.

use super::errors::Row;
use super::family::{self, Item};
use super::lower::Lowerer;
use super::planar::{arity, call_parts, suffixed};
use super::spatial::{Frame, Result, Spatial, V3, direction, dot, err, point, row_of, sub3};
use crate::pool::{ExprId, Pool};
use syn::Expr;
use syn::spanned::Spanned;

/// A joint's geometry, kept for the drivers and RSDAs that name it.
#[derive(Clone)]
pub struct Joint {
    /// The joint's name.
    pub name: String,
    /// Its kind (`revolute`, …).
    pub kind: &'static str,
    /// Body i's frame.
    pub frame_i: Frame,
    /// Body j's frame.
    pub frame_j: Frame,
    /// d = P_j − P_i in the world.
    pub d: V3,
    /// h_i, f_i, g_i in the world.
    pub axis_i: V3,
    /// f_i in the world.
    pub f_i: V3,
    /// g_i in the world.
    pub g_i: V3,
    /// f_j in the world.
    pub f_j: V3,
}

impl Joint {
    /// The relative angle θ of body j about h_i, atan2(g_iᵀ f_j, f_iᵀ f_j).
    pub fn angle(&self, pool: &mut Pool) -> ExprId {
        let (s, c) = (dot(pool, self.g_i, self.f_j), dot(pool, self.f_i, self.f_j));
        pool.atan2(s, c)
    }
}

/// The right-handed unit triad (f', g', h') of an axis h' (see the module doc).
fn triad(h: [f64; 3]) -> Option<[[f64; 3]; 3]> {
    let len = (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]).sqrt();
    if !(len > 0.0 && len.is_finite()) {
        return None;
    }
    let h = h.map(|x| x / len);
    let k = (0..3)
        .min_by(|&a, &b| h[a].abs().total_cmp(&h[b].abs()))
        .expect("three axes");
    let mut f = [0.0; 3];
    f[k] = 1.0;
    let along = h[k];
    let f = [0, 1, 2].map(|c| f[c] - along * h[c]);
    let fl = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
    let f = f.map(|x| x / fl);
    let g = [
        h[1] * f[2] - h[2] * f[1],
        h[2] * f[0] - h[0] * f[2],
        h[0] * f[1] - h[1] * f[0],
    ];
    Some([f, g, h])
}

/// A frame's point and (f', g', h') lowered: `[sx, sy, sz]` and a constant axis.
struct Attach {
    frame: Frame,
    point: V3,
    triad: [V3; 3],
}

impl Spatial<'_> {
    fn axis(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        bindings: &[(String, i64)],
        e: &Expr,
    ) -> Result<[V3; 3]> {
        let h = self.vector(lw, pool, bindings, e)?;
        let values: Option<Vec<f64>> = h
            .iter()
            .map(|&x| pool.as_number(x).map(|n| n.to_f64()))
            .collect();
        let Some(values) = values else {
            return err(
                e.span(),
                "a joint axis must be known when the code is generated (numbers and `const`s): the front end completes it to a frame",
            );
        };
        let Some(t) = triad([values[0], values[1], values[2]]) else {
            return err(e.span(), "a joint axis cannot be zero");
        };
        let lower = |pool: &mut Pool, v: [f64; 3]| {
            v.map(|x| pool.try_float(x).expect("a finite unit vector"))
        };
        Ok([lower(pool, t[0]), lower(pool, t[1]), lower(pool, t[2])])
    }

    /// Body, point and axis at `args[at..at + 3]`.
    fn attach(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        item: &Item<'_>,
        args: &[&Expr],
        at: usize,
    ) -> Result<Attach> {
        let b = &item.bindings;
        let frame = self.frame(lw, pool, b, args[at])?;
        let s = self.vector(lw, pool, b, args[at + 1])?;
        let local = self.axis(lw, pool, b, args[at + 2])?;
        Ok(Attach {
            point: point(pool, &frame, s),
            triad: local.map(|a| direction(pool, &frame, a)),
            frame,
        })
    }

    fn two_points(
        &self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        item: &Item<'_>,
        args: &[&Expr],
    ) -> Result<(Frame, V3, Frame, V3)> {
        let b = &item.bindings;
        let (fi, si) = (
            self.frame(lw, pool, b, args[0])?,
            self.vector(lw, pool, b, args[1])?,
        );
        let (fj, sj) = (
            self.frame(lw, pool, b, args[2])?,
            self.vector(lw, pool, b, args[3])?,
        );
        let (pi, pj) = (point(pool, &fi, si), point(pool, &fj, sj));
        Ok((fi, pi, fj, pj))
    }

    /// A joint named before this driver, of one of `kinds`.
    pub(super) fn joint_named(&self, e: &Expr, what: &str, kinds: &[&str]) -> Result<Joint> {
        let name = match e {
            Expr::Path(p) if p.path.get_ident().is_some() => {
                p.path.get_ident().expect("checked").to_string()
            }
            other => return err(other.span(), format!("{what} names a joint: `hinge`")),
        };
        let geometry = self.joints.iter().find(|j| j.name == name);
        match self.named.iter().find(|(n, _)| *n == name) {
            Some((_, kind)) if kinds.contains(kind) => {
                Ok(geometry.expect("axial joints keep their geometry").clone())
            }
            Some((_, kind)) => err(
                e.span(),
                format!(
                    "{what} acts on a {} joint; `{name}` is {kind}",
                    kinds.join(" or "),
                ),
            ),
            None => {
                let known: Vec<&str> = self.named.iter().map(|(n, _)| n.as_str()).collect();
                let hint = super::suggest::did_you_mean(&name, known.iter().copied());
                err(
                    e.span(),
                    format!(
                        "unknown joint `{name}`{hint}: {what} names a joint listed before it (joints: {})",
                        known.join(", ")
                    ),
                )
            }
        }
    }

    /// The rows of the `joints` entry with their labels; `first` is the index of the first
    /// holonomic row they become (for the error table).
    pub fn joints(
        &mut self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        value: &Expr,
        first: usize,
        rows: &mut Vec<Row>,
    ) -> Result<Vec<(ExprId, Option<String>)>> {
        let items = family::expand(lw, pool, &super::syntax::array(value, "`joints`")?, true)?;
        let mut out = Vec::new();
        for item in &items {
            let exprs = self.joint(lw, pool, item)?;
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

    fn remember(&mut self, item: &Item<'_>, kind: &'static str, i: &Attach, j: &Attach, d: V3) {
        if let Some(name) = &item.label {
            self.joints.push(Joint {
                name: name.clone(),
                kind,
                frame_i: i.frame,
                frame_j: j.frame,
                d,
                axis_i: i.triad[2],
                f_i: i.triad[0],
                g_i: i.triad[1],
                f_j: j.triad[0],
            });
        }
    }

    fn joint(
        &mut self,
        lw: &mut Lowerer,
        pool: &mut Pool,
        item: &Item<'_>,
    ) -> Result<Vec<(&'static str, ExprId)>> {
        let (kind, a) = call_parts(item.expr)?;
        if let (Some(name), Some(k)) = (&item.label, KINDS.iter().find(|k| **k == kind)) {
            self.named.push((name.clone(), k));
        }
        let (b, span) = (&item.bindings, item.expr.span());
        let axial = "(i, [sx, sy, sz], [hx, hy, hz], j, [sx, sy, sz], [hx, hy, hz])";
        let two = "(i, [sx, sy, sz], j, [sx, sy, sz])";
        Ok(match kind.as_str() {
            "spherical" => {
                arity(&a, 4, &kind, span, &format!("spherical{two}"))?;
                let (_, pi, _, pj) = self.two_points(lw, pool, item, &a)?;
                let d = sub3(pool, pi, pj);
                vec![("x", d[0]), ("y", d[1]), ("z", d[2])]
            }
            "revolute" | "universal" | "cylindrical" | "translational" | "planar" => {
                arity(&a, 6, &kind, span, &format!("{kind}{axial}"))?;
                let i = self.attach(lw, pool, item, &a, 0)?;
                let j = self.attach(lw, pool, item, &a, 3)?;
                let d = sub3(pool, j.point, i.point);
                let [fi, gi, hi] = i.triad;
                let [fj, _, hj] = j.triad;
                let (k, rows): (&'static str, Vec<(&'static str, ExprId)>) = match kind.as_str() {
                    "revolute" => ("revolute", {
                        let mut r = spherical(pool, &i, &j);
                        r.push(("f", dot(pool, fi, hj)));
                        r.push(("g", dot(pool, gi, hj)));
                        r
                    }),
                    "universal" => ("universal", {
                        let mut r = spherical(pool, &i, &j);
                        r.push(("h", dot(pool, hi, hj)));
                        r
                    }),
                    "planar" => (
                        "planar",
                        vec![
                            ("f", dot(pool, fi, hj)),
                            ("g", dot(pool, gi, hj)),
                            ("n", dot(pool, hi, d)),
                        ],
                    ),
                    translational_or_cylindrical => {
                        let mut r = vec![
                            ("f", dot(pool, fi, hj)),
                            ("g", dot(pool, gi, hj)),
                            ("df", dot(pool, fi, d)),
                            ("dg", dot(pool, gi, d)),
                        ];
                        if translational_or_cylindrical == "translational" {
                            r.push(("rot", dot(pool, gi, fj)));
                            ("translational", r)
                        } else {
                            ("cylindrical", r)
                        }
                    }
                };
                self.remember(item, k, &i, &j, d);
                rows
            }
            "fixed" => {
                arity(&a, 4, &kind, span, &format!("fixed{two}"))?;
                let (fi, pi, fj, pj) = self.two_points(lw, pool, item, &a)?;
                let d = sub3(pool, pi, pj);
                let (zero, one) = (pool.zero(), pool.one());
                let unit = [[one, zero, zero], [zero, one, zero], [zero, zero, one]];
                let ei = unit.map(|u| direction(pool, &fi, u));
                let ej = unit.map(|u| direction(pool, &fj, u));
                vec![
                    ("x", d[0]),
                    ("y", d[1]),
                    ("z", d[2]),
                    ("a", dot(pool, ei[0], ej[1])),
                    ("b", dot(pool, ei[1], ej[2])),
                    ("c", dot(pool, ei[2], ej[0])),
                ]
            }
            "distance" | "spherical_spherical" => {
                arity(
                    &a,
                    5,
                    &kind,
                    span,
                    &format!("{kind}{}", &two.replace(')', ", d)")),
                )?;
                let (_, pi, _, pj) = self.two_points(lw, pool, item, &a)?;
                let d = sub3(pool, pi, pj);
                let len = lw.lower_in(pool, b, a[4])?;
                let (dd, ll) = (dot(pool, d, d), pool.powi(len, 2));
                vec![("", pool.sub(dd, ll))]
            }
            "rotation" => {
                arity(&a, 2, &kind, span, "rotation(joint, f(t))")?;
                let joint =
                    self.joint_named(a[0], "a rotation driver", &["revolute", "cylindrical"])?;
                let f = lw.lower_in(pool, b, a[1])?;
                let (s, c) = (
                    dot(pool, joint.g_i, joint.f_j),
                    dot(pool, joint.f_i, joint.f_j),
                );
                let (cf, sf) = (
                    pool.func(crate::pool::Func::Cos, f),
                    pool.func(crate::pool::Func::Sin, f),
                );
                let (x, y) = (pool.mul2(s, cf), pool.mul2(c, sf));
                vec![("", pool.sub(x, y))]
            }
            "translation" => {
                arity(&a, 2, &kind, span, "translation(joint, f(t))")?;
                let joint = self.joint_named(
                    a[0],
                    "a translation driver",
                    &["translational", "cylindrical"],
                )?;
                let f = lw.lower_in(pool, b, a[1])?;
                let along = dot(pool, joint.axis_i, joint.d);
                vec![("", pool.sub(along, f))]
            }
            "absolute" => {
                arity(&a, 3, &kind, span, "absolute(b, x | y | z, f(t))")?;
                let f = self.frame(lw, pool, b, a[0])?;
                let which = match a[1] {
                    Expr::Path(p) if p.path.is_ident("x") => 0,
                    Expr::Path(p) if p.path.is_ident("y") => 1,
                    Expr::Path(p) if p.path.is_ident("z") => 2,
                    other => return err(other.span(), "the driven coordinate is `x`, `y` or `z`"),
                };
                let value = lw.lower_in(pool, b, a[2])?;
                vec![("", pool.sub(f.r[which], value))]
            }
            other => {
                let hint = super::suggest::did_you_mean(other, KINDS);
                return err(
                    span,
                    format!(
                        "unknown joint `{other}`{hint} (spatial joints: {})",
                        KINDS.join(", ")
                    ),
                );
            }
        })
    }
}

/// The joint and driver kinds.
const KINDS: [&str; 12] = [
    "spherical",
    "revolute",
    "universal",
    "cylindrical",
    "translational",
    "planar",
    "fixed",
    "distance",
    "spherical_spherical",
    "rotation",
    "translation",
    "absolute",
];

/// The spherical rows P_i − P_j of two attachments.
fn spherical(pool: &mut Pool, i: &Attach, j: &Attach) -> Vec<(&'static str, ExprId)> {
    let d = sub3(pool, i.point, j.point);
    vec![("x", d[0]), ("y", d[1]), ("z", d[2])]
}

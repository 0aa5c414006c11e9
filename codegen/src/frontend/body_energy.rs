//! Rigid-body terms of a Lagrangian: `body_energy(m, j, [x, y, phi])` in `kinetic` is the kinetic
//! energy ½ m (ẋ² + ẏ²) + ½ j φ̇² of a planar rigid body whose centre of mass (x, y) and angle φ
//! are expressions of t and q, and such terms get the structured form of [`crate::bodies`]
//! (M = Σ_b J_bᵀ M_b J_b, Q from the spatial Jacobian columns) instead of the Hessian of T:
//!
//! ```text
//! coordinates: [q[0..N]],
//! let a[i in 0..N] = sum(for k in 0..=i { q[k] }),
//! kinetic: sum(for i in 0..N { body_energy(m[i], m[i] * l[i].powi(2) / 12.0, [cx[i], cy[i], a[i]]) })
//!     + mr / 2.0 * q_dot[0].powi(2),
//! potential: sum(for i in 0..N { m[i] * g * cy[i] }),
//! ```
//!
//! Lowering ([`lower_call`]) checks the call (three arguments, a placement of three entries, no
//! velocity inside: an error on the velocity's token) and stands a placeholder symbol for the
//! term (`SymbolKind::Free`, named `body_energy#k`, which no model name can spell), recorded with
//! its mass, inertia and placement. [`derive()`] then splits T = Σ c_k E_k + R by differentiating
//! T in each placeholder: a term whose factor c_k is free of t, q, v and of every placeholder,
//! and whose m and j are free of t and q, is a body of mass c_k m and inertia c_k j for
//! [`crate::bodies::derive`]; any other term (inside a nonlinear function, times a coordinate,
//! with a configuration-dependent mass) is expanded in place into ½ m (ẋ² + ẏ²) + ½ j φ̇² with
//! ẋ the total derivative, so every use means the same. The remainder R (with `potential` and
//! `force`) goes through the Hessian path of [`crate::lagrange`] and is added to the bodies' M
//! and Q, and −∂V/∂q comes from one reverse-mode gradient (`lagrange::gradient`; n
//! forward derivatives of a chain's V would cost O(n²) code, the bodies' loads O(n)); T =
//! T_bodies + R is the model's kinetic energy. Without a structured term the model is exactly
//! today's Lagrangian one.

use super::errors::{Row, at_mention};
use super::lower::Lowerer;
use crate::bodies::{self, Bodies, RigidBody};
use crate::lagrange::{self, EquationsOfMotion, LagrangeError, Lagrangian, first_velocity};
use crate::pool::{ExprId, Pool, SymbolKind};
use proc_macro2::Span;
use rustc_hash::FxHashMap;
use syn::Expr;
use syn::spanned::Spanned;

/// The function's name in the model language.
pub const NAME: &str = "body_energy";

/// One lowered `body_energy(m, j, [x, y, phi])`.
#[derive(Clone, Debug)]
pub struct EnergyTerm {
    /// The placeholder symbol standing for the term in T.
    pub symbol: ExprId,
    /// Mass m.
    pub mass: ExprId,
    /// Moment of inertia j about the centre of mass.
    pub inertia: ExprId,
    /// Centre of mass (x, y) and angle φ, expressions of t, q and parameters.
    pub placement: [ExprId; 3],
}

/// Whether `name` is a placeholder of a `body_energy` term.
pub fn is_placeholder(name: &str) -> bool {
    name.strip_prefix(NAME)
        .is_some_and(|rest| rest.starts_with('#'))
}

/// Lower `body_energy(m, j, [x, y, phi])` (the call `c`) to a new placeholder symbol, recording
/// the term in `lw`.
pub fn lower_call(lw: &mut Lowerer, pool: &mut Pool, c: &syn::ExprCall) -> syn::Result<ExprId> {
    let args: Vec<&Expr> = c.args.iter().collect();
    let form = "`body_energy(m, j, [x, y, phi])`";
    let [m, j, placement] = args.as_slice() else {
        let msg = format!(
            "`{NAME}` takes three arguments, {form} (mass, inertia, centre of mass and angle), found {}",
            args.len()
        );
        return Err(located(lw, c.span(), msg));
    };
    let parts = super::syntax::array(placement, "a placement `[x, y, phi]`")?;
    let [x, y, phi] = parts.as_slice() else {
        let msg = format!(
            "the placement of `{NAME}` has three entries `[x, y, phi]` (the centre of mass and the angle), found {}",
            parts.len()
        );
        return Err(located(lw, placement.span(), msg));
    };
    let mut lower = |e: &Expr| lower_argument(lw, pool, e);
    let (mass, inertia) = (lower(m)?, lower(j)?);
    let placement = [lower(x)?, lower(y)?, lower(phi)?];
    let name = format!("{NAME}#{}", lw.energy_count());
    let symbol = pool.symbol(&name, SymbolKind::Free);
    lw.record_energy(
        EnergyTerm {
            symbol,
            mass,
            inertia,
            placement,
        },
        name,
        c.func.span(),
    );
    Ok(symbol)
}

/// One argument of `body_energy`: free of velocities (an error on the velocity's token) and of
/// other `body_energy` terms.
fn lower_argument(lw: &mut Lowerer, pool: &mut Pool, e: &Expr) -> syn::Result<ExprId> {
    let id = lw.lower(pool, e)?;
    if let Some(velocity) = first_velocity(pool, id) {
        let span = lw.last_mention(&velocity).unwrap_or_else(|| e.span());
        let msg = format!(
            "the arguments of `{NAME}` depend on the velocity `{velocity}`; the mass, inertia and placement `[x, y, phi]` may depend only on t, q and parameters (the velocities come from differentiating the placement)"
        );
        return Err(located(lw, span, msg));
    }
    let nested = pool.mentions(id, |s| is_placeholder(&s.name));
    if nested {
        let msg = format!("a `{NAME}` term cannot be an argument of another one");
        return Err(located(lw, e.span(), msg));
    }
    Ok(id)
}

/// An error at `span`, with the loop iteration it happened in (`(for i = 3)`).
fn located(lw: &Lowerer, span: Span, msg: String) -> syn::Error {
    let iteration: Vec<String> = lw
        .indices()
        .iter()
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    match iteration.is_empty() {
        true => syn::Error::new(span, msg),
        false => syn::Error::new(span, format!("{msg} (for {})", iteration.join(", "))),
    }
}

/// A `body_energy` term used outside `kinetic`: an error on its first use, else `Ok`.
pub fn check_confined(rows: &[Row]) -> syn::Result<()> {
    for row in rows.iter().filter(|r| r.label != "kinetic") {
        if let Some((name, _)) = row.mentions.iter().find(|(n, _)| is_placeholder(n)) {
            let msg = format!(
                "`{NAME}(…)` is a kinetic energy: it may appear only in `kinetic` (here in {})",
                row.label
            );
            return Err(at_mention(Some(row), name, msg));
        }
    }
    Ok(())
}

/// The model's state and its Lagrangian pieces, all in one pool.
pub struct LagrangianParts<'a> {
    /// The time symbol.
    pub time: ExprId,
    /// Coordinates q.
    pub q: &'a [ExprId],
    /// Velocities v.
    pub v: &'a [ExprId],
    /// T as written, with the terms' placeholders.
    pub kinetic: ExprId,
    /// V(t, q).
    pub potential: ExprId,
    /// The non-conservative generalized forces (`force`), n of them.
    pub nonconservative: &'a [ExprId],
}

/// What a Lagrangian with `body_energy` terms gives the model.
#[derive(Clone, Debug)]
pub struct Derived {
    /// M and Q.
    pub eom: EquationsOfMotion,
    /// T without placeholders (the bodies' energy plus the remainder).
    pub kinetic: ExprId,
    /// Whether some term took the structured form (the model is then marked structured).
    pub structured: bool,
}

/// M, Q and T of a Lagrangian whose T holds the `terms` (see the module documentation).
pub fn derive(
    pool: &mut Pool,
    parts: &LagrangianParts<'_>,
    terms: &[EnergyTerm],
) -> Result<Derived, LagrangeError> {
    let total = pool.total_direction(parts.time, parts.q, parts.v);
    let mut images: FxHashMap<_, ExprId> = FxHashMap::default();
    let mut rigid = Vec::new();
    for (k, term) in terms.iter().enumerate() {
        let sym = pool
            .as_symbol(term.symbol)
            .expect("a placeholder is a symbol");
        let factor = pool.diff(parts.kinetic, term.symbol);
        let image = match structurable(pool, term, factor) {
            true => {
                rigid.push(RigidBody {
                    name: format!("{NAME} #{k}"),
                    mass: pool.mul2(factor, term.mass),
                    inertia: pool.mul2(factor, term.inertia),
                    placement: term.placement,
                    load: [pool.zero(); 3],
                });
                pool.zero()
            }
            false => expanded(pool, term, total),
        };
        images.insert(sym, image);
    }
    let remainder = pool.substitute(parts.kinetic, &images);
    let structured = !rigid.is_empty();
    let lagrangian = Lagrangian {
        time: parts.time,
        q: parts.q,
        v: parts.v,
        kinetic: remainder,
        potential: match structured {
            true => pool.zero(), // its gradient in reverse mode, below
            false => parts.potential,
        },
        nonconservative: parts.nonconservative,
    };
    let hessian = lagrange::derive(pool, &lagrangian)?;
    if !structured {
        return Ok(Derived {
            eom: hessian,
            kinetic: remainder,
            structured: false,
        });
    }
    if let Some(velocity) = first_velocity(pool, parts.potential) {
        return Err(LagrangeError::VelocityInPotential { velocity });
    }
    let gradient = lagrange::gradient(pool, parts.potential, parts.q);
    let extra: Vec<ExprId> = hessian
        .force
        .iter()
        .zip(gradient)
        .map(|(&f, dv)| pool.sub(f, dv))
        .collect();
    let system = Bodies {
        time: parts.time,
        q: parts.q,
        v: parts.v,
        bodies: &rigid,
        extra: &extra,
    };
    let structured = bodies::derive(pool, &system).expect("placements checked, n forces");
    let mass = structured
        .eom
        .mass
        .iter()
        .zip(&hessian.mass)
        .map(|(s, h)| s.iter().zip(h).map(|(&a, &b)| pool.add2(a, b)).collect())
        .collect();
    Ok(Derived {
        eom: EquationsOfMotion {
            mass,
            force: structured.eom.force,
        },
        kinetic: pool.add2(structured.kinetic, remainder),
        structured: true,
    })
}

/// Whether a term with this factor is a rigid body of constant mass and inertia: the factor is
/// free of t, q, v and placeholders, m and j free of t and q (velocities are excluded at
/// lowering).
fn structurable(pool: &Pool, term: &EnergyTerm, factor: ExprId) -> bool {
    let state = |kind: SymbolKind| {
        matches!(
            kind,
            SymbolKind::Time | SymbolKind::Coordinate(_) | SymbolKind::Velocity(_)
        )
    };
    let constant_factor = !pool.mentions(factor, |s| state(s.kind) || is_placeholder(&s.name));
    let rigid = !pool.mentions_any(&[term.mass, term.inertia], |s| state(s.kind));
    constant_factor && rigid && !pool.is_zero(factor)
}

/// ½ m (ẋ² + ẏ²) + ½ j φ̇², with the rates the total derivatives along q ↦ v, t ↦ 1.
fn expanded(pool: &mut Pool, term: &EnergyTerm, total: crate::diff::Direction) -> ExprId {
    let [x, y, phi] = term
        .placement
        .map(|e| pool.directional(e, total))
        .map(|rate| pool.powi(rate, 2));
    let translation = pool.add2(x, y);
    let m_part = pool.mul2(term.mass, translation);
    let j_part = pool.mul2(term.inertia, phi);
    let sum = pool.add2(m_part, j_part);
    let half = pool.rational(1, 2);
    pool.mul2(half, sum)
}

//! Planar bodies placed by expressions of the coordinates: `body(m, j, [x, y, phi])` in
//! `bodies`, with `coordinates` given (relative angles of a chain, any minimal set):
//!
//! ```text
//! coordinates: [q[0..N]],
//! let a[i in 0..N] = sum(for k in 0..=i { q[k] }),
//! bodies: [for i in 0..N { rod = body(m[i], m[i] * l[i].powi(2) / 12.0, [cx[i], cy[i], a[i]]) }],
//! loads: [gravity([0.0, -g])],
//! ```
//! M and Q come from [`crate::bodies`] in the structured (composite-body) form, never as the
//! expanded Hessian of T. Joints and loads work as for bodies with their own coordinates
//! (`planar.rs`): a joint's points are expressions of q, a load becomes the body's force at its
//! centre of mass and torque. `potential` (V(t, q)) and `force` (generalized forces) add to Q.
//! When the loads are gravity alone and no `force` is given, the model also gets its energies
//! (T of the bodies, V = potential − Σ m g·r), so energy checks and equilibrium work.

use super::errors::Row;
use super::family::Item;
use super::lower::Lowerer;
use super::planar::{self, Body, BodyParts, Planar};
use super::syntax::ModelSpec;
use crate::bodies::{self, Bodies, BodyError, RigidBody};
use crate::model::ModelBuilder;
use crate::pool::ExprId;
use quote::ToTokens;
use syn::spanned::Spanned;

/// What the placed bodies give the model.
pub struct PlacedDynamics {
    /// M, structured.
    pub mass: Vec<Vec<ExprId>>,
    /// Q, structured, with `force` and −∂V/∂q added.
    pub force: Vec<ExprId>,
    /// (T, V) when every load is conservative (gravity only, no `force`).
    pub energy: Option<(ExprId, ExprId)>,
}

/// The model's coordinates and velocities.
pub struct State<'a> {
    /// q.
    pub q: &'a [ExprId],
    /// v.
    pub v: &'a [ExprId],
}

/// The user's own additions to Q: the `force` entry and the `potential`.
pub struct Extra {
    /// Generalized forces of the `force` entry (n), if given.
    pub force: Option<Vec<ExprId>>,
    /// V(t, q), if given.
    pub potential: Option<ExprId>,
}

/// The joints' rows (appended to `holonomic`/`labels`) and the structured M, Q of the placed
/// bodies `items`.
#[allow(clippy::too_many_arguments)] // the front end's shared state, passed through once
pub fn dynamics(
    spec: &ModelSpec,
    items: &[(String, Item<'_>)],
    b: &mut ModelBuilder,
    lw: &mut Lowerer,
    rows: &mut Vec<Row>,
    state: State<'_>,
    extra: Extra,
    (holonomic, labels): (&mut Vec<ExprId>, &mut Vec<Option<String>>),
) -> syn::Result<PlacedDynamics> {
    let time = b.time();
    let n = state.q.len();
    let parts = lower_bodies(items, b, lw)?;
    let pool = b.pool();
    let total = pool.total_direction(time, state.q, state.v);
    let frames: Vec<Body> = items
        .iter()
        .zip(&parts)
        .enumerate()
        .map(|(k, ((name, _), (_, placement)))| Body {
            name: name.clone(),
            q: *placement,
            v: placement.map(|e| pool.directional(e, total)),
            index: 3 * k,
        })
        .collect();
    let geometry = Planar { bodies: &frames, n };
    if let Some((_, value)) = spec.key("joints") {
        let first = holonomic.len();
        for (e, label) in geometry.joints(lw, pool, value, first, rows)? {
            holonomic.push(e);
            labels.push(label);
        }
    }
    let zero = pool.zero();
    let masses: Vec<ExprId> = parts.iter().map(|(p, _)| p.mass).collect();
    let mut loads = vec![zero; 3 * frames.len()];
    if let Some((_, value)) = spec.key("loads") {
        geometry.loads(lw, pool, value, &masses, &mut loads, rows)?;
    }
    let rigid: Vec<RigidBody> = frames
        .iter()
        .zip(&parts)
        .map(|(frame, (p, placement))| RigidBody {
            name: frame.name.clone(),
            mass: p.mass,
            inertia: p.inertia,
            placement: *placement,
            load: [0, 1, 2].map(|c| loads[frame.index + c]),
        })
        .collect();
    let conservative = extra.force.is_none() && gravity_only(spec);
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
    let system = Bodies {
        time,
        q: state.q,
        v: state.v,
        bodies: &rigid,
        extra: &generalized,
    };
    let structured = bodies::derive(pool, &system).map_err(|e| body_error(&e, items))?;
    let energy = conservative.then(|| {
        let mut v_total = vec![potential];
        for body in &rigid {
            let [x, y, _] = body.placement;
            let (fx_x, fy_y) = (pool.mul2(body.load[0], x), pool.mul2(body.load[1], y));
            v_total.push(pool.neg(fx_x));
            v_total.push(pool.neg(fy_y));
        }
        (structured.kinetic, pool.add(&v_total))
    });
    Ok(PlacedDynamics {
        mass: structured.eom.mass,
        force: structured.eom.force,
        energy,
    })
}

/// Every body's mass, inertia and placement; a body without a placement among placed ones is
/// an error on it.
fn lower_bodies(
    items: &[(String, Item<'_>)],
    b: &mut ModelBuilder,
    lw: &mut Lowerer,
) -> syn::Result<Vec<(BodyParts, [ExprId; 3])>> {
    items
        .iter()
        .map(|(name, item)| {
            let parts = planar::body_parts(lw, b.pool(), item)?;
            lw.take_mentions();
            match parts.placement {
                Some(placement) => Ok((parts, placement)),
                None => Err(syn::Error::new(
                    item.expr.span(),
                    format!(
                        "body `{name}` has no placement, but other bodies are placed by expressions of the coordinates: give it one, `body(m, j, [x, y, phi])`"
                    ),
                )),
            }
        })
        .collect()
}

/// Whether the `loads` entry (if any) calls no load kind but `gravity` (the other kinds are
/// not conservative in general: damping, driving forces).
fn gravity_only(spec: &ModelSpec) -> bool {
    fn calls_other(tokens: proc_macro2::TokenStream) -> bool {
        let mut previous: Option<String> = None;
        for tree in tokens {
            match tree {
                proc_macro2::TokenTree::Group(g) => {
                    let is_call = g.delimiter() == proc_macro2::Delimiter::Parenthesis;
                    if is_call
                        && previous
                            .as_deref()
                            .is_some_and(|k| NON_CONSERVATIVE.contains(&k))
                    {
                        return true;
                    }
                    if calls_other(g.stream()) {
                        return true;
                    }
                    previous = None;
                }
                proc_macro2::TokenTree::Ident(id) => previous = Some(id.to_string()),
                proc_macro2::TokenTree::Punct(_) | proc_macro2::TokenTree::Literal(_) => {
                    previous = None
                }
            }
        }
        false
    }
    const NON_CONSERVATIVE: [&str; 4] = ["force", "torque", "tsda", "rsda"];
    spec.key("loads")
        .is_none_or(|(_, value)| !calls_other(value.to_token_stream()))
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

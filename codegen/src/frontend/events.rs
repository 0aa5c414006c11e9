//! The `events` entry of a model: located zero crossings and what happens at them.
//!
//! ```text
//! events: [
//!     floor = y => impact(e),                 // g(t, q) ≥ 0 a unilateral contact, restitution e
//!     top = x - x_max => stop(rising),        // end the run (direction: rising, falling, both)
//!     log = theta => handler(both),           // call the user's Rust handler
//!     belt = x_dot - v_belt => friction(mu_s, mu_k, m * g),   // v_rel, μ_s, μ_k, N(t, q, v)
//! ]
//! ```
//! g is an expression of t, the coordinates, the velocities, the parameters, `let` bindings and
//! `const`s, lowered by the same front end as the kernels. An impact's g may not contain a
//! velocity (it is a position: its row joins Φ when the contact closes); a friction slot's
//! v_rel must be linear in the velocities (its row w = ∂v_rel/∂v joins A when it sticks).
//! Restitution and friction coefficients are expressions of the parameters alone.
//!
//! [`lower`] builds, in the model's pool, g and the derivatives the runtime's actions need
//! (`mbsim_runtime::events::Events`): the row (∂g/∂q of an impact, ∂v_rel/∂v of a friction
//! slot), its offset (g_t, or v_rel at v = 0), γ (−d²g/dt² or −dv_rel/dt at v̇ = 0), L_g =
//! ∂(g_q v)/∂q and N; [`emit`] prints the `impl Events` body, each method scheduled jointly
//! like a kernel.

use super::syntax::ModelSpec;
use crate::cse::Schedule;
use crate::emit::ulit;
use crate::emit_expr::{ExprEmitter, Prec};
use crate::model::Model;
use crate::pool::{ExprId, SymbolKind};
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

/// The actions an event may name.
const ACTIONS: [&str; 4] = ["stop", "handler", "impact", "friction"];

/// The `events: [ … ]` value as raw tokens, for `syntax.rs` (`=>` is not an expression).
pub fn raw(input: ParseStream<'_>) -> syn::Result<Expr> {
    let content;
    let bracket = syn::bracketed!(content in input);
    let tokens: TokenStream = content.parse()?;
    if tokens.is_empty() {
        return Err(syn::Error::new(
            bracket.span.join(),
            "`events` needs at least one `NAME = g => ACTION`",
        ));
    }
    Ok(Expr::Verbatim(tokens))
}

/// What an event does, as written.
#[derive(Clone, Debug)]
enum ActionSyntax {
    Stop(Direction),
    Handler(Direction),
    Impact(Box<Expr>),
    Friction(Box<[Expr; 3]>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Rising,
    Falling,
    Both,
}

/// One `NAME = g => ACTION`.
struct EventSyntax {
    name: Ident,
    g: Expr,
    action: ActionSyntax,
}

struct EventsSyntax(Vec<EventSyntax>);

impl Parse for EventsSyntax {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let g: Expr = input.parse()?;
            input.parse::<Token![=>]>().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected `=> ACTION` (stop, handler, impact, friction)",
                )
            })?;
            let word: Ident = input.parse()?;
            let args = if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                Punctuated::<Expr, Token![,]>::parse_terminated(&content)?
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            let action = action(&word, args)?;
            out.push(EventSyntax { name, g, action });
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(EventsSyntax(out))
    }
}

/// The action named `word` with its arguments.
fn action(word: &Ident, args: Vec<Expr>) -> syn::Result<ActionSyntax> {
    let text = word.to_string();
    let arity = |want: &str, n: usize| -> syn::Result<()> {
        if args.len() == n {
            Ok(())
        } else {
            Err(syn::Error::new(
                word.span(),
                format!("`{text}` takes {want}, got {} argument(s)", args.len()),
            ))
        }
    };
    match text.as_str() {
        "stop" | "handler" => {
            let direction = match args.as_slice() {
                [] => Direction::Both,
                [d] => direction(d)?,
                _ => return Err(arity("one direction (rising, falling, both)", 1).unwrap_err()),
            };
            Ok(if text == "stop" {
                ActionSyntax::Stop(direction)
            } else {
                ActionSyntax::Handler(direction)
            })
        }
        "impact" => {
            arity("the restitution coefficient `impact(e)`", 1)?;
            Ok(ActionSyntax::Impact(Box::new(args[0].clone())))
        }
        "friction" => {
            arity("`friction(mu_static, mu_kinetic, normal_force)`", 3)?;
            Ok(ActionSyntax::Friction(Box::new([
                args[0].clone(),
                args[1].clone(),
                args[2].clone(),
            ])))
        }
        other => {
            let hint = super::suggest::did_you_mean(other, ACTIONS);
            Err(syn::Error::new(
                word.span(),
                format!(
                    "unknown event action `{other}`{hint} (actions: stop, handler, impact, friction)"
                ),
            ))
        }
    }
}

fn direction(e: &Expr) -> syn::Result<Direction> {
    let word = match e {
        Expr::Path(p) => p.path.get_ident().map(Ident::to_string),
        _ => None,
    };
    match word.as_deref() {
        Some("rising") => Ok(Direction::Rising),
        Some("falling") => Ok(Direction::Falling),
        Some("both") => Ok(Direction::Both),
        _ => Err(syn::Error::new(
            e.span(),
            "a direction is `rising`, `falling` or `both`",
        )),
    }
}

/// What each slot is, lowered.
#[derive(Clone, Debug)]
enum Kind {
    Stop(Direction),
    Handler(Direction),
    Impact { restitution: ExprId },
    Friction { mu_s: ExprId, mu_k: ExprId },
}

/// The lowered events: names, kinds and the expressions of every `Events` method.
#[derive(Clone, Debug)]
pub struct Lowered {
    names: Vec<String>,
    kinds: Vec<Kind>,
    values: Vec<ExprId>,
    /// ne × n, row-major.
    rows: Vec<ExprId>,
    offsets: Vec<ExprId>,
    gammas: Vec<ExprId>,
    /// ne × n, row-major.
    ls: Vec<ExprId>,
    normals: Vec<ExprId>,
    zero: ExprId,
}

/// The model's events, if the attribute has an `events` entry (lowered into `model.pool`).
pub fn lower(spec: &ModelSpec, model: &mut Model) -> syn::Result<Option<Lowered>> {
    let Some((_, value)) = spec.key("events") else {
        return Ok(None);
    };
    let tokens = match value {
        Expr::Verbatim(tokens) => tokens.clone(),
        other => quote!(#other),
    };
    let mut parsed: EventsSyntax = syn::parse2(tokens)?;
    // The recursive passes walk these expressions too: the same depth limit as everywhere.
    for event in &mut parsed.0 {
        super::limits::check_depth(&mut event.g)?;
        match &mut event.action {
            ActionSyntax::Stop(_) | ActionSyntax::Handler(_) => {}
            ActionSyntax::Impact(e) => super::limits::check_depth(e)?,
            ActionSyntax::Friction(args) => {
                for e in args.iter_mut() {
                    super::limits::check_depth(e)?;
                }
            }
        }
    }
    let mut lowerer = super::lower::Lowerer::default();
    super::draw::replay_bindings(spec, model, &mut lowerer)?;
    let mut out = Lowered {
        names: Vec::new(),
        kinds: Vec::new(),
        values: Vec::new(),
        rows: Vec::new(),
        offsets: Vec::new(),
        gammas: Vec::new(),
        ls: Vec::new(),
        normals: Vec::new(),
        zero: model.pool.zero(),
    };
    for event in &parsed.0 {
        let name = syn::ext::IdentExt::unraw(&event.name).to_string();
        if out.names.contains(&name) {
            let msg = format!("event `{name}` is declared twice");
            return Err(syn::Error::new(event.name.span(), msg));
        }
        out.names.push(name);
        lower_event(model, &mut lowerer, event, &mut out)?;
    }
    Ok(Some(out))
}

/// Which symbols an expression may mention.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Allowed {
    /// t, q, v, parameters.
    State,
    /// t, q, parameters.
    Position,
    /// Parameters and constants only.
    Parameters,
}

fn lower_checked(
    model: &mut Model,
    lowerer: &mut super::lower::Lowerer,
    e: &Expr,
    allowed: Allowed,
    what: &str,
) -> syn::Result<ExprId> {
    let id = lowerer.lower(&mut model.pool, e)?;
    for (name, span) in lowerer.take_mentions() {
        let kind = model
            .pool
            .lookup_symbol(&name)
            .map(|s| model.pool.symbol_info(s).kind);
        if super::body_energy::is_placeholder(&name) {
            let msg = "`body_energy(…)` may appear only in `kinetic`";
            return Err(syn::Error::new(span, msg));
        }
        let refused = matches!(
            (allowed, kind),
            (Allowed::Position, Some(SymbolKind::Velocity(_)))
                | (
                    Allowed::Parameters,
                    Some(SymbolKind::Velocity(_) | SymbolKind::Coordinate(_) | SymbolKind::Time)
                )
        );
        if refused {
            let msg = format!("{what} may not depend on `{name}`");
            return Err(syn::Error::new(span, msg));
        }
    }
    Ok(id)
}

fn lower_event(
    model: &mut Model,
    lowerer: &mut super::lower::Lowerer,
    event: &EventSyntax,
    out: &mut Lowered,
) -> syn::Result<()> {
    let (n, t) = (model.n(), model.time);
    let (q, v) = (model.q(), model.v());
    let zero = model.pool.zero();
    let one = model.pool.one();
    let mut rates: Vec<(ExprId, ExprId)> = q.iter().copied().zip(v.iter().copied()).collect();
    let spatial = model.pool.direction(&rates);
    rates.push((t, one));
    let total = model.pool.direction(&rates);
    let name = out.names.last().cloned().unwrap_or_default();
    let coefficient = format!("a coefficient of event `{name}`");
    let (kind, allowed, normal) = match &event.action {
        ActionSyntax::Stop(d) => (Kind::Stop(*d), Allowed::State, None),
        ActionSyntax::Handler(d) => (Kind::Handler(*d), Allowed::State, None),
        ActionSyntax::Impact(e) => {
            let r = lower_checked(model, lowerer, e, Allowed::Parameters, &coefficient)?;
            (Kind::Impact { restitution: r }, Allowed::Position, None)
        }
        ActionSyntax::Friction(args) => {
            let [mu_s, mu_k, normal] = &**args;
            let mu_s = lower_checked(model, lowerer, mu_s, Allowed::Parameters, &coefficient)?;
            let mu_k = lower_checked(model, lowerer, mu_k, Allowed::Parameters, &coefficient)?;
            let what = format!("the normal force of event `{name}`");
            let normal = lower_checked(model, lowerer, normal, Allowed::State, &what)?;
            (Kind::Friction { mu_s, mu_k }, Allowed::State, Some(normal))
        }
    };
    let what = match allowed {
        Allowed::Position => format!("the contact function of impact event `{name}` (a position)"),
        _ => format!("event `{name}`"),
    };
    let g = lower_checked(model, lowerer, &event.g, allowed, &what)?;
    out.values.push(g);
    out.normals.push(normal.unwrap_or(zero));
    match &kind {
        Kind::Impact { .. } => {
            let row = model.pool.jacobian(&[g], &q);
            let rate = model.pool.directional(g, total);
            let accel = model.pool.directional(rate, total);
            let g_q_v = model.pool.directional(g, spatial);
            let l = model.pool.jacobian(&[g_q_v], &q);
            out.rows.extend(row);
            out.offsets.push(model.pool.diff(g, t));
            out.gammas.push(model.pool.neg(accel));
            out.ls.extend(l);
        }
        Kind::Friction { .. } => {
            let row = model.pool.jacobian(&[g], &v);
            for (j, &w) in row.iter().enumerate() {
                if model.pool.jacobian(&[w], &v).iter().any(|&c| c != zero) {
                    let velocity = model.pool.as_symbol(v[j]).expect("velocities are symbols");
                    let msg = format!(
                        "the relative velocity of friction event `{name}` must be linear in the velocities (its coefficient of `{}` depends on them)",
                        model.pool.symbol_info(velocity).name
                    );
                    return Err(syn::Error::new(event.g.span(), msg));
                }
            }
            let at_rest: rustc_hash::FxHashMap<_, _> = v
                .iter()
                .map(|&vi| {
                    (
                        model.pool.as_symbol(vi).expect("velocities are symbols"),
                        zero,
                    )
                })
                .collect();
            let offset = model.pool.substitute_many(&[g], &at_rest)[0];
            let rate = model.pool.directional(g, total);
            out.rows.extend(row);
            out.offsets.push(offset);
            out.gammas.push(model.pool.neg(rate));
            out.ls.extend(std::iter::repeat_n(zero, n));
        }
        Kind::Stop(_) | Kind::Handler(_) => {
            out.rows.extend(std::iter::repeat_n(zero, n));
            out.offsets.push(zero);
            out.gammas.push(zero);
            out.ls.extend(std::iter::repeat_n(zero, n));
        }
    }
    out.kinds.push(kind);
    Ok(())
}

/// The items of `impl Events for <model>`: names, specs and the six kernels, each scheduled
/// jointly like a kernel (`rt` is the runtime path).
pub fn emit(model: &Model, events: &Lowered, rt: &syn::Path) -> TokenStream {
    let names = &events.names;
    let n = model.n();
    let zero = events.zero;
    let specs = events.kinds.iter().enumerate().map(|(i, kind)| {
        let i = ulit(i);
        let dir = |d: &Direction| match d {
            Direction::Rising => quote!(#rt::events::Direction::Rising),
            Direction::Falling => quote!(#rt::events::Direction::Falling),
            Direction::Both => quote!(#rt::events::Direction::Both),
        };
        let (direction, action) = match kind {
            Kind::Stop(d) => (dir(d), quote!(#rt::events::Action::Stop)),
            Kind::Handler(d) => (dir(d), quote!(#rt::events::Action::Handler)),
            Kind::Impact { restitution } => {
                let e = scalar(model, *restitution);
                (
                    quote!(#rt::events::Direction::Falling),
                    quote!(#rt::events::Action::Impact { restitution: #e }),
                )
            }
            Kind::Friction { mu_s, mu_k } => {
                let (s, k) = (scalar(model, *mu_s), scalar(model, *mu_k));
                (
                    quote!(#rt::events::Direction::Both),
                    quote!(#rt::events::Action::Friction { mu_static: #s, mu_kinetic: #k }),
                )
            }
        };
        quote!(#i => #rt::events::EventSpec { direction: #direction, action: #action },)
    });
    let ne = ulit(names.len());
    let values = vector_body(model, &events.values, zero);
    let offsets = vector_body(model, &events.offsets, zero);
    let gammas = vector_body(model, &events.gammas, zero);
    let normals = vector_body(model, &events.normals, zero);
    let rows = matrix_body(model, &events.rows, n, zero);
    let ls = matrix_body(model, &events.ls, n, zero);
    quote! {
        fn event_names(&self) -> &'static [&'static str] { &[#(#names),*] }
        fn event_spec(&self, i: usize) -> #rt::events::EventSpec {
            match i {
                #(#specs)*
                _ => panic!("event index {} out of range (the model has {} events)", i, #ne),
            }
        }
        #[allow(unused_variables)]
        fn events_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) { #values }
        #[allow(unused_variables)]
        fn event_jacobian_into(&self, t: f64, q: &[f64], mut out: #rt::MatOut<'_>) { #rows }
        #[allow(unused_variables)]
        fn event_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) { #offsets }
        #[allow(unused_variables)]
        fn event_gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) { #gammas }
        #[allow(unused_variables)]
        fn event_l_into(&self, t: f64, q: &[f64], v: &[f64], mut out: #rt::MatOut<'_>) { #ls }
        #[allow(unused_variables)]
        fn event_normal_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) { #normals }
    }
}

/// One expression of the parameters, as a Rust expression (its own small schedule).
fn scalar(model: &Model, root: ExprId) -> TokenStream {
    let (temps, stores) = scheduled(model, &[root], |_, value| quote!(#value));
    if temps.is_empty() {
        quote!(#(#stores)*)
    } else {
        quote!({ #(#temps)* #(#stores)* })
    }
}

/// `let` statements of the temporaries and one `store(i, value)` per root.
fn scheduled(
    model: &Model,
    roots: &[ExprId],
    store: impl Fn(usize, syn::Expr) -> TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let schedule = Schedule::new(&model.pool, roots);
    let fields: Vec<syn::Expr> = (model.parameters.iter())
        .map(|p| crate::emit::parameter_read(&p.name))
        .collect();
    let temp_names = (schedule.temps.iter().enumerate())
        .map(|(i, &id)| (id, crate::emit_ast::path(&format!("x{i}"))))
        .collect();
    let emitter = ExprEmitter {
        pool: &model.pool,
        schedule: &schedule,
        temp_names,
        param_fields: &fields,
    };
    let temps = schedule
        .temps
        .iter()
        .map(|id| {
            let name = &emitter.temp_names[id];
            let (value, _) = emitter.node(*id);
            quote!(let #name = #value;)
        })
        .collect();
    let stores = roots
        .iter()
        .enumerate()
        .map(|(i, &e)| store(i, emitter.at(e, Prec::Sum)))
        .collect();
    (temps, stores)
}

/// The body writing `roots` into `out[i]` (zeros included).
fn vector_body(model: &Model, roots: &[ExprId], zero: ExprId) -> TokenStream {
    let len = ulit(roots.len());
    let live: Vec<(usize, ExprId)> = roots
        .iter()
        .copied()
        .enumerate()
        .filter(|p| p.1 != zero)
        .collect();
    let ids: Vec<ExprId> = live.iter().map(|p| p.1).collect();
    let (temps, stores) = scheduled(model, &ids, |k, value| {
        let i = ulit(live[k].0);
        quote!(out[#i] = #value;)
    });
    quote! {
        assert_eq!(out.len(), #len, "out must have one entry per event ({})", #len);
        out.fill(0.0);
        #(#temps)*
        #(#stores)*
    }
}

/// The body writing the row-major ne × n `roots` into the matrix `out` (zeros included).
fn matrix_body(model: &Model, roots: &[ExprId], n: usize, zero: ExprId) -> TokenStream {
    let rows = ulit(roots.len() / n.max(1));
    let cols = ulit(n);
    let live: Vec<(usize, ExprId)> = roots
        .iter()
        .copied()
        .enumerate()
        .filter(|p| p.1 != zero)
        .collect();
    let ids: Vec<ExprId> = live.iter().map(|p| p.1).collect();
    let (temps, stores) = scheduled(model, &ids, |k, value| {
        let (r, c) = (ulit(live[k].0 / n), ulit(live[k].0 % n));
        quote!(out[(#r, #c)] = #value;)
    });
    quote! {
        assert_eq!(out.shape(), (#rows, #cols), "out must be events × coordinates");
        out.fill(0.0);
        #(#temps)*
        #(#stores)*
    }
}

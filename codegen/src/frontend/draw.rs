//! The `draw` entry of a model: what a mechanism looks like, for animations.
//!
//! ```text
//! draw: {
//!     points: [O = (0.0, 0.0), A = (l * q1.cos(), l * q1.sin()), B = (x, 0.0)],
//!     segments: [(O, A), (A, B)],
//! }
//! ```
//! Each point is a name and a position `(x, y)`, or `(x, y, z)` in a spatial drawing —
//! expressions of `t`, the coordinates, the parameters, `let` bindings and `const`s, lowered by
//! the same front end as the kernels (so the same functions, the same errors); a velocity is
//! refused. `at(body, [sx, sy, sz])` is the world position of a point fixed in a body of the
//! `bodies` entry, r + A(p) s' for a spatial body (Euler parameters), r + A(φ) s' with
//! `[sx, sy]` for a planar one (and the point itself for `ground`). One drawing's points are all
//! 2D or all 3D: a mix is an error on the first point that disagrees. Segments join two points
//! by name; an unknown name is an error on that name, with "did you mean". `up: y` names a
//! spatial drawing's vertical axis (z by default), the axis the animation's views turn about.
//!
//! The entry is read by `syntax.rs` as raw tokens (its braces are not a Rust expression) and
//! lowered here after the model is built ([`lower`]), into the model's own pool, replaying the
//! `let`/`const` entries so they are visible. [`emit`] prints the `impl Drawing` body
//! (`point_names`, `segments`, `points_into` with the positions scheduled jointly, like a
//! kernel); `emit.rs` adds the `as_drawing` override when there is one.

use super::syntax::{Entry, ModelSpec};
use crate::cse::Schedule;
use crate::emit::ulit;
use crate::emit_expr::{ExprEmitter, Prec};
use crate::model::Model;
use crate::pool::{ExprId, Func, SymbolKind};
use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

/// The fields of a `draw` entry.
const FIELDS: [&str; 3] = ["points", "segments", "up"];

/// The `draw: { … }` value as raw tokens, for `syntax.rs` (braces are not an expression).
pub fn raw(input: ParseStream<'_>) -> syn::Result<Expr> {
    let content;
    let brace = syn::braced!(content in input);
    let tokens: TokenStream = content.parse()?;
    if tokens.is_empty() {
        return Err(syn::Error::new(
            brace.span.join(),
            "`draw` needs `points: [...]` (and usually `segments: [...]`)",
        ));
    }
    Ok(Expr::Verbatim(tokens))
}

/// A parsed `draw` entry.
struct DrawSyntax {
    up: Option<Ident>,
    points: Vec<(Ident, PointSyntax)>,
    segments: Vec<(Ident, Ident)>,
}

/// A point's position as written.
enum PointSyntax {
    /// `(x, y)` or `(x, y, z)`.
    Tuple(Expr, Vec<Expr>),
    /// `at(body, [sx, sy(, sz)])`: the call, the body reference, the body-frame point.
    At(Expr, Box<Expr>, Vec<Expr>),
}

impl PointSyntax {
    fn span(&self) -> proc_macro2::Span {
        match self {
            PointSyntax::Tuple(e, _) | PointSyntax::At(e, _, _) => e.span(),
        }
    }
}

impl Parse for DrawSyntax {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let (mut points, mut segments, mut up) = (None, None, None::<Ident>);
        while !input.is_empty() {
            let field: Ident = input.parse()?;
            input.parse::<Token![:]>()?;
            if field == "up" {
                let axis: Ident = input.parse()?;
                if !["x", "y", "z"].contains(&axis.to_string().as_str()) {
                    let msg = "`up` is the vertical axis of a spatial drawing: x, y or z";
                    return Err(syn::Error::new(axis.span(), msg));
                }
                if up.replace(axis).is_some() {
                    return Err(syn::Error::new(field.span(), "`up` is given twice"));
                }
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
                continue;
            }
            let mut value: syn::ExprArray = input.parse()?;
            for e in value.elems.iter_mut() {
                super::limits::check_depth(e)?;
            }
            let slot = match field.to_string().as_str() {
                "points" => &mut points,
                "segments" => &mut segments,
                other => {
                    let hint = super::suggest::did_you_mean(other, FIELDS);
                    let msg = format!(
                        "unknown field `{other}` of `draw`{hint} (fields: points, segments, up)"
                    );
                    return Err(syn::Error::new(field.span(), msg));
                }
            };
            if slot.replace(value.elems).is_some() {
                return Err(syn::Error::new(
                    field.span(),
                    format!("`{field}` is given twice"),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        let Some(points) = points else {
            return Err(input.error("`draw` needs `points: [NAME = (x, y), ...]`"));
        };
        Ok(DrawSyntax {
            up,
            points: points.iter().map(point).collect::<syn::Result<_>>()?,
            segments: segments
                .unwrap_or_default()
                .iter()
                .map(segment)
                .collect::<syn::Result<_>>()?,
        })
    }
}

/// `NAME = (x, y)`, `NAME = (x, y, z)` or `NAME = at(body, [sx, sy, sz])`.
fn point(e: &Expr) -> syn::Result<(Ident, PointSyntax)> {
    let bad = || {
        syn::Error::new(
            e.span(),
            "a point is `NAME = (x, y)`, `NAME = (x, y, z)` or `NAME = at(body, [sx, sy, sz])`",
        )
    };
    let Expr::Assign(a) = e else {
        return Err(bad());
    };
    let name = plain_name(&a.left).ok_or_else(bad)?;
    let position = &*a.right;
    match position {
        Expr::Tuple(t) if t.elems.len() == 2 || t.elems.len() == 3 => Ok((
            name,
            PointSyntax::Tuple(position.clone(), t.elems.iter().cloned().collect()),
        )),
        Expr::Call(c) if plain_name(&c.func).is_some_and(|f| f == "at") => {
            let usage = "`at` takes a body and a body-frame point: `at(body, [sx, sy, sz])`";
            let (Some(body), Some(Expr::Array(local)), 2) =
                (c.args.first(), c.args.get(1), c.args.len())
            else {
                return Err(syn::Error::new(position.span(), usage));
            };
            let local = local.elems.iter().cloned().collect();
            Ok((
                name,
                PointSyntax::At(position.clone(), Box::new(body.clone()), local),
            ))
        }
        other => Err(syn::Error::new(
            other.span(),
            "a point's position is `(x, y)`, `(x, y, z)` or `at(body, [sx, sy, sz])`",
        )),
    }
}

/// `(A, B)`.
fn segment(e: &Expr) -> syn::Result<(Ident, Ident)> {
    let bad = || syn::Error::new(e.span(), "a segment is a pair of point names `(A, B)`");
    match e {
        Expr::Tuple(t) if t.elems.len() == 2 => {
            let a = plain_name(&t.elems[0]).ok_or_else(bad)?;
            let b = plain_name(&t.elems[1]).ok_or_else(bad)?;
            Ok((a, b))
        }
        _ => Err(bad()),
    }
}

fn plain_name(e: &Expr) -> Option<Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    }
}

/// A lowered drawing: point names, positions in the model's pool, segments.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// 2 (points `[x, y]`) or 3 (`[x, y, z]`).
    pub dimension: usize,
    /// A spatial drawing's vertical axis (0, 1, 2), if declared.
    pub up: Option<usize>,
    /// The points' names, in declaration order.
    pub names: Vec<String>,
    /// Each point's `[x, y]` or `[x, y, z]` (`dimension` entries).
    pub positions: Vec<Vec<ExprId>>,
    /// Index pairs into `names`.
    pub segments: Vec<(usize, usize)>,
}

/// The model's drawing, if the attribute has a `draw` entry: parsed, checked and lowered into
/// `model.pool` (after the `let` and `const` entries are replayed so they are in scope).
pub fn lower(spec: &ModelSpec, model: &mut Model) -> syn::Result<Option<Lowered>> {
    let Some((_, value)) = spec.key("draw") else {
        return Ok(None);
    };
    let tokens = match value {
        Expr::Verbatim(tokens) => tokens.clone(),
        other => quote!(#other),
    };
    let parsed: DrawSyntax = syn::parse2(tokens)?;
    let names = point_names(&parsed)?;
    let segments = segment_indices(&parsed, &names)?;
    let mut lowerer = super::lower::Lowerer::default();
    replay_bindings(spec, model, &mut lowerer)?;
    let mut positions: Vec<Vec<ExprId>> = Vec::new();
    let mut first: Option<(&Ident, usize)> = None;
    for (name, position) in &parsed.points {
        let lowered = lower_point(model, &mut lowerer, position)?;
        match first {
            None => first = Some((name, lowered.len())),
            Some((first, dim)) if dim != lowered.len() => {
                let msg = format!(
                    "the drawing's points are {dim}D (from `{first}` on), but `{name}` is {}D: \
                     one drawing is planar or spatial",
                    lowered.len()
                );
                return Err(syn::Error::new(position.span(), msg));
            }
            Some(_) => {}
        }
        positions.push(lowered);
    }
    let dimension = first.map_or(2, |(_, dim)| dim);
    let up = match &parsed.up {
        Some(axis) if dimension == 2 => {
            let msg = "`up` is for spatial drawings (points `(x, y, z)`); a planar one has y up";
            return Err(syn::Error::new(axis.span(), msg));
        }
        Some(axis) => ["x", "y", "z"].iter().position(|a| axis == a),
        None => None,
    };
    Ok(Some(Lowered {
        dimension,
        up,
        names,
        positions,
        segments,
    }))
}

fn point_names(parsed: &DrawSyntax) -> syn::Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in &parsed.points {
        let text = name.to_string();
        if names.contains(&text) {
            return Err(syn::Error::new(
                name.span(),
                format!("point `{text}` is declared twice"),
            ));
        }
        names.push(text);
    }
    Ok(names)
}

fn segment_indices(parsed: &DrawSyntax, names: &[String]) -> syn::Result<Vec<(usize, usize)>> {
    let index = |id: &Ident| {
        let text = id.to_string();
        names.iter().position(|n| *n == text).ok_or_else(|| {
            let hint = super::suggest::did_you_mean(&text, names.iter().map(String::as_str));
            let msg = format!(
                "unknown point `{text}` in a segment{hint} (points: {})",
                names.join(", ")
            );
            syn::Error::new(id.span(), msg)
        })
    };
    parsed
        .segments
        .iter()
        .map(|(a, b)| {
            let (i, j) = (index(a)?, index(b)?);
            if i == j {
                let msg = format!("a segment joins two different points, not `{a}` with itself");
                return Err(syn::Error::new(b.span(), msg));
            }
            Ok((i, j))
        })
        .collect()
}

/// The `let` and `const` entries again, in order, so a point may use them (already validated by
/// the model's own lowering, so they lower without error).
pub(super) fn replay_bindings(
    spec: &ModelSpec,
    model: &mut Model,
    lowerer: &mut super::lower::Lowerer,
) -> syn::Result<()> {
    for entry in &spec.entries {
        match entry {
            Entry::Let(name, value) => {
                let e = lowerer.lower(&mut model.pool, value)?;
                let mentions = lowerer.take_mentions();
                lowerer.bind_let(&syn::ext::IdentExt::unraw(name).to_string(), e, mentions);
            }
            Entry::Const(name, value) => {
                let e = lowerer.lower(&mut model.pool, value)?;
                lowerer.take_mentions();
                lowerer.bind_const(&syn::ext::IdentExt::unraw(name).to_string(), e);
            }
            Entry::LetFamily(family) => {
                let key = syn::ext::IdentExt::unraw(&family.name).to_string();
                let var = syn::ext::IdentExt::unraw(&family.var).to_string();
                for k in lowerer.range(&mut model.pool, &family.range)? {
                    let value = &family.value;
                    let e = lowerer.with_index(&var, k, |lw| lw.lower(&mut model.pool, value))?;
                    let mentions = lowerer.take_mentions();
                    lowerer.bind_member(&key, k, e, mentions);
                }
            }
            Entry::Key(..) => {}
        }
    }
    Ok(())
}

/// A point's position: its 2 or 3 coordinates.
fn lower_point(
    model: &mut Model,
    lowerer: &mut super::lower::Lowerer,
    position: &PointSyntax,
) -> syn::Result<Vec<ExprId>> {
    match position {
        PointSyntax::Tuple(_, elems) => elems
            .iter()
            .map(|e| lower_coordinate(model, lowerer, e))
            .collect(),
        PointSyntax::At(call, body, local) => {
            let name = super::planar::body_name(lowerer, &mut model.pool, &[], body)?;
            let local: Vec<ExprId> = local
                .iter()
                .map(|e| lower_coordinate(model, lowerer, e))
                .collect::<syn::Result<_>>()?;
            body_point(model, &name, body, call, &local)
        }
    }
}

/// The world position of the body point `local` of body `name` (module docs).
fn body_point(
    model: &mut Model,
    name: &str,
    body: &Expr,
    call: &Expr,
    local: &[ExprId],
) -> syn::Result<Vec<ExprId>> {
    let coordinate = |model: &mut Model, suffix: &str| {
        let text = super::planar::suffixed(name, suffix);
        let sym = model.pool.lookup_symbol(&text)?;
        let kind = model.pool.symbol_info(sym).kind;
        matches!(kind, SymbolKind::Coordinate(_)).then(|| model.pool.symbol(&text, kind))
    };
    let arity = |want: usize, kind: &str| {
        let msg = format!(
            "`{name}` is a {kind} body: its points have {want} coordinates, not {}",
            local.len()
        );
        match local.len() == want {
            true => Ok(()),
            false => Err(syn::Error::new(call.span(), msg)),
        }
    };
    if name == "ground" {
        return Ok(local.to_vec());
    }
    if let Some(e0) = coordinate(model, "p0") {
        arity(3, "spatial")?;
        let [x, y, z, p1, p2, p3] = ["x", "y", "z", "p1", "p2", "p3"]
            .map(|s| coordinate(model, s).expect("a spatial body has seven coordinates"));
        let frame = super::spatial::Frame {
            r: [x, y, z],
            p: [e0, p1, p2, p3],
            body: None,
        };
        let pool = &mut model.pool;
        return Ok(super::spatial::point(pool, &frame, [local[0], local[1], local[2]]).to_vec());
    }
    if let Some(phi) = coordinate(model, "phi") {
        arity(2, "planar")?;
        let [x, y] = ["x", "y"].map(|s| coordinate(model, s).expect("a planar body has x, y"));
        let pool = &mut model.pool;
        let (c, s) = (pool.func(Func::Cos, phi), pool.func(Func::Sin, phi));
        let (xc, ys) = (pool.mul2(local[0], c), pool.mul2(local[1], s));
        let ys = pool.neg(ys);
        let (xs, yc) = (pool.mul2(local[0], s), pool.mul2(local[1], c));
        return Ok(vec![pool.add(&[x, xc, ys]), pool.add(&[y, xs, yc])]);
    }
    let msg = format!(
        "`{name}` is not a body of this model's `bodies` entry (no coordinate `{}`)",
        super::planar::suffixed(name, "x")
    );
    Err(syn::Error::new(body.span(), msg))
}

/// One coordinate of a point; a velocity in it is an error on the velocity's token.
fn lower_coordinate(
    model: &mut Model,
    lowerer: &mut super::lower::Lowerer,
    e: &Expr,
) -> syn::Result<ExprId> {
    let id = lowerer.lower(&mut model.pool, e)?;
    for (name, span) in lowerer.take_mentions() {
        let kind = model
            .pool
            .lookup_symbol(&name)
            .map(|s| model.pool.symbol_info(s).kind);
        if super::body_energy::is_placeholder(&name) {
            let msg = "a drawn point is a position: `body_energy(…)` may appear only in `kinetic`";
            return Err(syn::Error::new(span, msg));
        }
        if matches!(kind, Some(SymbolKind::Velocity(_))) {
            let msg = format!(
                "a drawn point depends on t, the coordinates and the parameters, not on the velocity `{name}`"
            );
            return Err(syn::Error::new(span, msg));
        }
    }
    Ok(id)
}

/// The items of `impl Drawing for <model>`: names, segments and `points_into`, whose positions
/// are scheduled jointly (shared subexpressions computed once), like a kernel.
pub fn emit(model: &Model, drawing: &Lowered) -> TokenStream {
    let names = &drawing.names;
    let pairs = drawing.segments.iter().map(|&(a, b)| {
        let (a, b) = (ulit(a), ulit(b));
        quote!((#a, #b))
    });
    let roots: Vec<ExprId> = drawing.positions.iter().flatten().copied().collect();
    let dimension = (drawing.dimension == 3).then(|| {
        quote!(
            fn dimension(&self) -> usize {
                3
            }
        )
    });
    let up = drawing.up.filter(|&axis| axis != 2).map(|axis| {
        let axis = ulit(axis);
        quote!(fn up(&self) -> usize { #axis })
    });
    let per_point = match drawing.dimension {
        3 => "out must have 3 entries per point ({})",
        _ => "out must have 2 entries per point ({})",
    };
    let schedule = Schedule::new(&model.pool, &roots);
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
    let temps = schedule.temps.iter().map(|id| {
        let name = &emitter.temp_names[id];
        let (value, _) = emitter.node(*id);
        quote!(let #name = #value;)
    });
    let stores = roots.iter().enumerate().map(|(i, &e)| {
        let (i, value) = (ulit(i), emitter.at(e, Prec::Sum));
        quote!(out[#i] = #value;)
    });
    let uses_time = model
        .pool
        .mentions_any(&roots, |s| matches!(s.kind, SymbolKind::Time));
    let t = if uses_time { quote!(t) } else { quote!(_t) };
    let (n, len) = (ulit(model.n()), ulit(roots.len()));
    quote! {
        #dimension
        #up
        fn point_names(&self) -> &'static [&'static str] { &[#(#names),*] }
        fn segments(&self) -> &'static [(usize, usize)] { &[#(#pairs),*] }
        fn points_into(&self, #t: f64, q: &[f64], out: &mut [f64]) {
            assert_eq!(q.len(), #n, "q must have n = {} entries", #n);
            assert_eq!(out.len(), #len, #per_point, #len);
            #(#temps)*
            #(#stores)*
        }
    }
}

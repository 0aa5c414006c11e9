//! From a parsed attribute and its struct to a validated [`Model`], keeping a side table from
//! every model row to the span of the tokens it came from, so that the validation errors of
//! `model.rs` and `lagrange.rs` are reported on the offending tokens.
//!
//! Order of work: struct fields become runtime parameters (each must be `f64`); coordinates are
//! declared (velocities `<name>_dot`); entries are lowered in source order (a `let` or `const`
//! is visible to later entries only); shapes are checked here with spans; in Lagrangian mode
//! (`kinetic` given) M and Q come from [`crate::lagrange::derive`], with `force` as Q_nc.

use super::errors::{Row, at, at_mention, map_model_error};
use super::lower::Lowerer;
use super::syntax::{self, Entry, MassSyntax, ModelSpec};
use crate::lagrange::{self, LagrangeError, Lagrangian};
use crate::model::{Model, ModelBuilder};
use crate::pool::ExprId;
use proc_macro2::Span;
use quote::ToTokens;
use rustc_hash::FxHashMap;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, Fields, ItemStruct};

/// Build and validate the model described by `spec` for the struct `item`.
pub fn assemble(spec: &ModelSpec, item: &ItemStruct) -> syn::Result<Model> {
    let name = item.ident.unraw().to_string();
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            item.generics.span(),
            "a model struct cannot be generic",
        ));
    }
    let mut builder = ModelBuilder::new(&name);
    let mut taken: FxHashMap<String, Span> = FxHashMap::default();
    taken.insert("t".into(), Span::call_site());
    let Some((_, coords)) = spec.key("coordinates") else {
        return Err(syn::Error::new(
            Span::call_site(),
            "the model needs `coordinates: [q1, q2, …]`",
        ));
    };
    let coordinates = syntax::coordinate_names(coords)?;
    if coordinates.is_empty() {
        return Err(syn::Error::new(
            coords.span(),
            "the model needs at least one coordinate",
        ));
    }
    let (mut q, mut v) = (Vec::new(), Vec::new());
    for c in &coordinates {
        let name = c.unraw().to_string();
        claim(&mut taken, &name, c.span())?;
        claim(&mut taken, &format!("{name}_dot"), c.span())?;
        let (qi, vi) = builder.coordinate(&name);
        q.push(qi);
        v.push(vi);
    }
    for field in fields(item)? {
        let name = field.unraw().to_string();
        claim(&mut taken, &name, field.span())?;
        builder.parameter(&name);
    }
    let mut lowerer = Lowerer::default();
    let mut rows: Vec<Row> = Vec::new();
    let mut parts = Parts::default();
    for entry in &spec.entries {
        match entry {
            Entry::Let(name, value) => {
                let key = name.unraw().to_string();
                if taken.contains_key(&key) {
                    let msg = format!(
                        "`{key}` is already a coordinate, velocity, parameter or `t`; pick another name"
                    );
                    return Err(syn::Error::new(name.span(), msg));
                }
                let e = lowerer.lower(builder.pool(), value)?;
                let mentions = lowerer.take_mentions();
                lowerer.bind_let(&key, e, mentions);
            }
            Entry::Const(name, value) => {
                let key = name.unraw().to_string();
                claim(&mut taken, &key, name.span())?;
                let e = lowerer.lower(builder.pool(), value)?;
                lowerer.take_mentions();
                if builder.pool().as_number(e).is_none() {
                    let msg =
                        "a baked parameter must be a constant (numbers, `PI` and earlier `const`s)";
                    return Err(syn::Error::new(value.span(), msg));
                }
                lowerer.bind_const(&key, e);
            }
            Entry::Key(key, value) => parts.lower(
                &key.to_string(),
                value,
                &mut builder,
                &mut lowerer,
                &mut rows,
            )?,
        }
    }
    finish(builder, parts, rows, (&q, &v), spec)
}

/// The lowered rows of each key.
#[derive(Default)]
struct Parts {
    holonomic: Vec<ExprId>,
    nonholonomic: Vec<ExprId>,
    mass: Option<Vec<Vec<ExprId>>>,
    force: Option<Vec<ExprId>>,
    kinetic: Option<ExprId>,
    potential: Option<ExprId>,
    /// Labels of the constraint rows (`holonomic: [rod = …]`), holonomic rows first once both
    /// are read; see [`Parts::labels`].
    holonomic_labels: Vec<Option<String>>,
    nonholonomic_labels: Vec<Option<String>>,
    tangents: bool,
}

impl Parts {
    fn lower(
        &mut self,
        key: &str,
        value: &Expr,
        b: &mut ModelBuilder,
        lw: &mut Lowerer,
        rows: &mut Vec<Row>,
    ) -> syn::Result<()> {
        let mut one = |label: String, e: &Expr, b: &mut ModelBuilder| -> syn::Result<ExprId> {
            let id = lw.lower(b.pool(), e)?;
            rows.push(Row {
                label,
                tokens: e.to_token_stream(),
                mentions: lw.take_mentions(),
            });
            Ok(id)
        };
        match key {
            "coordinates" | "draw" => {}
            "holonomic" | "nonholonomic" | "force" => {
                let exprs = syntax::array(value, &format!("`{key}`"))?;
                let labeled: Vec<(Option<String>, &Expr)> = match key {
                    "force" => exprs.into_iter().map(|e| (None, e)).collect(),
                    _ => exprs.into_iter().map(syntax::labeled).collect(),
                };
                let ids = labeled
                    .iter()
                    .enumerate()
                    .map(|(i, (_, e))| one(format!("{key}[{i}]"), e, b))
                    .collect::<syn::Result<Vec<_>>>()?;
                let labels = labeled.into_iter().map(|(l, _)| l).collect();
                match key {
                    "holonomic" => (self.holonomic, self.holonomic_labels) = (ids, labels),
                    "nonholonomic" => (self.nonholonomic, self.nonholonomic_labels) = (ids, labels),
                    _ => self.force = Some(ids),
                }
            }
            "tangents" => self.tangents = syntax::flag(value, "`tangents`")?,
            "mass" => {
                let zero = b.pool().zero();
                self.mass = Some(match syntax::mass(value)? {
                    MassSyntax::Diagonal(diag) => {
                        let n = diag.len();
                        let mut m = vec![vec![zero; n]; n];
                        for (i, e) in diag.iter().enumerate() {
                            m[i][i] = one(format!("mass[{i}][{i}]"), e, b)?;
                        }
                        m
                    }
                    MassSyntax::Full(full) => {
                        let mut m = Vec::new();
                        for (i, (_, row)) in full.iter().enumerate() {
                            let r = row
                                .iter()
                                .enumerate()
                                .map(|(j, e)| one(format!("mass[{i}][{j}]"), e, b));
                            m.push(r.collect::<syn::Result<Vec<_>>>()?);
                        }
                        m
                    }
                });
            }
            "kinetic" => self.kinetic = Some(one("kinetic".into(), value, b)?),
            "potential" => self.potential = Some(one("potential".into(), value, b)?),
            other => unreachable!("syntax.rs admits only known keys, got {other}"),
        }
        Ok(())
    }
}

/// Shapes, Lagrangian derivation, then the builder's validation with errors mapped to spans.
fn finish(
    mut b: ModelBuilder,
    parts: Parts,
    rows: Vec<Row>,
    (q, v): (&[ExprId], &[ExprId]),
    spec: &ModelSpec,
) -> syn::Result<Model> {
    let n = q.len();
    let key_error = |key: &str, msg: &str| match spec.key(key) {
        Some((_, v)) => syn::Error::new_spanned(v, msg),
        None => syn::Error::new(Span::call_site(), msg),
    };
    let zero = b.pool().zero();
    let force = parts.force.clone().unwrap_or_else(|| vec![zero; n]);
    if force.len() != n {
        let msg = format!(
            "`force` has {} entries, expected one per coordinate ({n})",
            force.len()
        );
        return Err(key_error("force", &msg));
    }
    let (mass, force) = match (parts.kinetic, &parts.mass) {
        (Some(_), Some(_)) => {
            let msg = "give either `mass` (with `force`) or `kinetic` (with `potential` and non-conservative `force`), not both";
            return Err(key_error("mass", msg));
        }
        (None, None) => {
            let msg = "the model needs `mass: …` (and `force`) or a Lagrangian `kinetic: …` (and `potential`)";
            return Err(syn::Error::new(Span::call_site(), msg));
        }
        (None, Some(mass)) => {
            check_mass_shape(spec, mass, n)?;
            (mass.clone(), force)
        }
        (Some(kinetic), None) => {
            let potential = parts.potential.unwrap_or(zero);
            let time = b.time();
            let lagrangian = Lagrangian {
                time,
                q,
                v,
                kinetic,
                potential,
                nonconservative: &force,
            };
            let eom = lagrange::derive(b.pool(), &lagrangian)
                .map_err(|e| lagrange_error(e, &rows, spec))?;
            (eom.mass, eom.force)
        }
    };
    if parts.potential.is_some() && parts.kinetic.is_none() {
        return Err(key_error(
            "potential",
            "`potential` needs `kinetic` (Lagrangian mode)",
        ));
    }
    let mut labels = parts.holonomic_labels.clone();
    labels.extend(parts.nonholonomic_labels.iter().cloned());
    b.holonomic(&parts.holonomic)
        .nonholonomic(&parts.nonholonomic)
        .mass(mass)
        .force(&force)
        .tangents(parts.tangents)
        .constraint_labels(labels);
    if let Some(kinetic) = parts.kinetic {
        let potential = parts.potential.unwrap_or(zero);
        b.energy(kinetic, potential);
    }
    let lagrangian = parts.kinetic.is_some();
    b.build()
        .map_err(|e| map_model_error(&e, &rows, lagrangian))
}

fn check_mass_shape(spec: &ModelSpec, mass: &[Vec<ExprId>], n: usize) -> syn::Result<()> {
    let (_, value) = spec.key("mass").expect("mass given");
    if mass.len() != n {
        let msg = format!(
            "the mass matrix has {} rows, expected {n} (one per coordinate)",
            mass.len()
        );
        return Err(syn::Error::new(value.span(), msg));
    }
    if let MassSyntax::Full(rows) = syntax::mass(value)? {
        for (span, row) in rows {
            if row.len() != n {
                let msg = format!(
                    "this row of the mass matrix has {} columns, expected {n}",
                    row.len()
                );
                return Err(syn::Error::new(span, msg));
            }
        }
    }
    Ok(())
}

fn lagrange_error(e: LagrangeError, rows: &[Row], spec: &ModelSpec) -> syn::Error {
    let row = |label: &str| rows.iter().find(|r| r.label == label);
    match &e {
        LagrangeError::NotQuadratic { .. } => at(row("kinetic"), &e),
        LagrangeError::VelocityInPotential { velocity } => {
            at_mention(row("potential"), velocity, &e)
        }
        LagrangeError::ForceLength { .. } => match spec.key("force") {
            Some((_, v)) => syn::Error::new_spanned(v, &e),
            None => syn::Error::new(Span::call_site(), &e),
        },
    }
}

/// The struct's named fields, each checked to be `f64`.
fn fields(item: &ItemStruct) -> syn::Result<Vec<syn::Ident>> {
    let named = match &item.fields {
        Fields::Named(named) => named.named.iter().collect::<Vec<_>>(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(u) => {
            return Err(syn::Error::new(
                u.span(),
                "model parameters are named `f64` fields (`struct M { mass: f64 }`)",
            ));
        }
    };
    named
        .into_iter()
        .map(|f| {
            if !matches!(&f.ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64")) {
                return Err(syn::Error::new(
                    f.ty.span(),
                    "model parameters must be `f64` fields",
                ));
            }
            Ok(f.ident.clone().expect("named field"))
        })
        .collect()
}

fn claim(taken: &mut FxHashMap<String, Span>, name: &str, span: Span) -> syn::Result<()> {
    if taken.insert(name.to_string(), span).is_some() {
        let msg = format!(
            "the name `{name}` is declared twice (coordinates, their `_dot` velocities, fields, `const`s and `t` share one namespace)"
        );
        return Err(syn::Error::new(span, msg));
    }
    Ok(())
}

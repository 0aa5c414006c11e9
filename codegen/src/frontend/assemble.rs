//! From a parsed attribute and its struct to a validated [`Model`], keeping a side table from
//! every model row to the span of the tokens it came from, so that the validation errors of
//! `model.rs` and `lagrange.rs` are reported on the offending tokens.
//!
//! Order of work: struct fields become runtime parameters (each must be `f64`); coordinates are
//! declared (velocities `<name>_dot`); entries are lowered in source order (a `let` or `const`
//! is visible to later entries only); shapes are checked here with spans; in Lagrangian mode
//! (`kinetic` given) M and Q come from [`crate::lagrange::derive`], with `force` as Q_nc, or,
//! when T holds `body_energy(…)` terms, from [`super::body_energy::derive`] (the bodies in the
//! structured form, the rest of T through the Hessian).

use super::body_energy::{self, EnergyTerm};
use super::errors::{Row, at, at_mention, map_model_error};
use super::family::{self, Item};
use super::lower::Lowerer;
use super::placed;
use super::placed_spatial;
use super::planar;
use super::spatial;
use super::syntax::{self, CoordinateSyntax, Entry, MassSyntax, ModelSpec};
use crate::lagrange::{self, LagrangeError, Lagrangian};
use crate::model::{Model, ModelBuilder, velocity_name};
use crate::pool::{ExprId, Pool};
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
    let mut consts = ConstScope::new(spec);
    let mut coordinates: Vec<(String, Span)> = Vec::new();
    let declared_bodies = match spec.key("bodies") {
        Some((key, value)) => {
            let declared = planar::declare(&mut consts.lowerer, &mut consts.pool, value)?;
            if let Some(kind) = spatial_kind(&declared, spec, key.span())? {
                if kind == BodyKind::Spatial {
                    for (name, _) in &declared {
                        for s in spatial::SUFFIXES {
                            coordinates.push((planar::suffixed(name, s), key.span()));
                        }
                    }
                }
                Some((declared, kind))
            } else {
                let placed = declared.iter().any(|(_, item)| planar::is_placed(item));
                match (placed, spec.key("coordinates")) {
                    (false, Some((k, _))) => {
                        let msg = "with `bodies`, the coordinates are the bodies' (x, y, phi): remove `coordinates` (or place every body by expressions of them, `body(m, j, [x, y, phi])`)";
                        return Err(syn::Error::new(k.span(), msg));
                    }
                    (true, None) => {
                        let msg = "bodies placed by `[x, y, phi]` are placed by expressions of the coordinates: declare them, `coordinates: [q1, q2, …]`";
                        return Err(syn::Error::new(key.span(), msg));
                    }
                    (true, Some(_)) => {}
                    (false, None) => {
                        for (name, _) in &declared {
                            for s in ["x", "y", "phi"] {
                                coordinates.push((planar::suffixed(name, s), key.span()));
                            }
                        }
                    }
                }
                Some((
                    declared,
                    if placed {
                        BodyKind::Placed
                    } else {
                        BodyKind::Planar
                    },
                ))
            }
        }
        None => None,
    };
    let no_coordinates: Expr = syn::parse_quote!([]);
    let coords = match spec.key("coordinates") {
        Some((_, coords)) => coords,
        None if declared_bodies.is_some() => &no_coordinates,
        None => {
            return Err(syn::Error::new(
                Span::call_site(),
                "the model needs `coordinates: [q1, q2, …]` (or planar `bodies: […]`)",
            ));
        }
    };
    for c in syntax::coordinate_names(coords)? {
        match c {
            CoordinateSyntax::Name(id) => coordinates.push((id.unraw().to_string(), id.span())),
            CoordinateSyntax::Family(id, range) => {
                let base = id.unraw().to_string();
                claim_family(&mut taken, &base, id.span())?;
                claim(&mut taken, &format!("{base}_dot"), id.span())?;
                for k in consts.range(range)? {
                    coordinates.push((format!("{base}[{k}]"), id.span()));
                }
            }
        }
    }
    if coordinates.len() > super::limits::MAX_COORDINATES {
        let msg = format!(
            "the model has {} coordinates; the front end generates at most {} (its mass matrix alone has n² entries)",
            coordinates.len(),
            super::limits::MAX_COORDINATES
        );
        return Err(syn::Error::new(
            spec.key("bodies").map_or(coords.span(), |(k, _)| k.span()),
            msg,
        ));
    }
    if coordinates.is_empty() {
        return Err(syn::Error::new(
            spec.key("bodies").map_or(coords.span(), |(k, _)| k.span()),
            "the model needs at least one coordinate",
        ));
    }
    let (mut q, mut v) = (Vec::new(), Vec::new());
    for (name, span) in &coordinates {
        symbol_name(name, *span)?;
        claim(&mut taken, name, *span)?;
        claim(&mut taken, &velocity_name(name), *span)?;
        let (qi, vi) = builder.coordinate(name);
        q.push(qi);
        v.push(vi);
    }
    let mut parameters: u64 = 0;
    for (field, length) in fields(item)? {
        let name = field.unraw().to_string();
        symbol_name(&name, field.span())?;
        match length {
            None => claim(&mut taken, &name, field.span())?,
            Some(_) => claim_family(&mut taken, &name, field.span())?,
        }
        let members = match length {
            None => 1,
            Some(length) => consts.integer(length, "the length of an array parameter")?,
        };
        parameters += members.max(0) as u64;
        if parameters > super::limits::MAX_PARAMETERS {
            let msg = format!(
                "the model would have {parameters} runtime parameters; the front end generates at most {}",
                super::limits::MAX_PARAMETERS
            );
            let span = length.map_or(field.span(), |l| l.span());
            return Err(syn::Error::new(span, msg));
        }
        match length {
            None => {
                builder.parameter(&name);
            }
            Some(length) => {
                consts
                    .lowerer
                    .unroll(members.max(0) as u128, length.span())?;
                for k in 0..members {
                    builder.parameter(&format!("{name}[{k}]"));
                }
            }
        }
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
            Entry::LetFamily(family) => {
                let syntax::LetFamily {
                    name,
                    var,
                    range,
                    value,
                } = &**family;
                let key = name.unraw().to_string();
                if taken.contains_key(&key) {
                    let msg = format!(
                        "`{key}` is already a coordinate, velocity, parameter or `t`; pick another name"
                    );
                    return Err(syn::Error::new(name.span(), msg));
                }
                let var = var.unraw().to_string();
                for k in lowerer.range(builder.pool(), range)? {
                    let e = lowerer.with_index(&var, k, |lw| lw.lower(builder.pool(), value))?;
                    let mentions = lowerer.take_mentions();
                    lowerer.bind_member(&key, k, e, mentions);
                }
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
    if let Some((declared, BodyKind::Spatial)) = &declared_bodies {
        parts.spatial(
            spec,
            declared,
            &mut builder,
            &mut lowerer,
            &mut rows,
            (&q, &v),
        )?;
    } else if let Some((declared, kind @ (BodyKind::Placed | BodyKind::PlacedSpatial))) =
        &declared_bodies
    {
        parts.placed(
            spec,
            (declared, *kind),
            &mut builder,
            &mut lowerer,
            &mut rows,
            (&q, &v),
        )?;
    } else if let Some((declared, BodyKind::Planar)) = declared_bodies {
        let bodies: Vec<planar::Body> = declared
            .iter()
            .enumerate()
            .map(|(k, (name, _))| planar::Body {
                name: name.clone(),
                q: [q[3 * k], q[3 * k + 1], q[3 * k + 2]],
                v: [v[3 * k], v[3 * k + 1], v[3 * k + 2]],
                index: 3 * k,
            })
            .collect();
        let items: Vec<Item<'_>> = declared.into_iter().map(|(_, item)| item).collect();
        parts.planar(spec, &bodies, &items, &mut builder, &mut lowerer, &mut rows)?;
    }
    body_energy::check_confined(&rows)?;
    parts.energies = lowerer.take_energies();
    finish(builder, parts, rows, (&q, &v), spec)
}

/// What the `bodies` entry declares.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    /// Planar bodies with their own coordinates (x, y, φ).
    Planar,
    /// Planar bodies placed by expressions of the declared coordinates.
    Placed,
    /// Spatial bodies with their own coordinates (r, p).
    Spatial,
    /// Spatial bodies placed by expressions of the declared coordinates.
    PlacedSpatial,
}

/// `Some(Spatial)` when the bodies are spatial (`body(m, [jx, jy, jz])`); an error when a model
/// mixes planar and spatial bodies, or gives `coordinates` beside spatial bodies.
fn spatial_kind(
    declared: &[(String, Item<'_>)],
    spec: &ModelSpec,
    key: Span,
) -> syn::Result<Option<BodyKind>> {
    let spatial = declared
        .iter()
        .filter(|(_, item)| spatial::is_spatial(item))
        .count();
    if spatial == 0 {
        return Ok(None);
    }
    if let Some((name, item)) = declared.iter().find(|(_, item)| !spatial::is_spatial(item)) {
        let msg = format!(
            "`{name}` is a planar body (its inertia is one number) but the model's other bodies are spatial (`body(m, [jx, jy, jz])`): one model's bodies are all planar or all spatial"
        );
        return Err(syn::Error::new(item.expr.span(), msg));
    }
    if declared
        .iter()
        .any(|(_, item)| placed_spatial::is_placed_spatial(item))
    {
        if let Some((name, item)) = declared
            .iter()
            .find(|(_, item)| !placed_spatial::is_placed_spatial(item))
        {
            let msg = format!(
                "body `{name}` has no placement, but other bodies are placed by expressions of the coordinates: give it one, `body(m, [jx, jy, jz], [x, y, z], rotation)`"
            );
            return Err(syn::Error::new(item.expr.span(), msg));
        }
        if spec.key("coordinates").is_none() {
            let msg = "bodies placed by `[x, y, z]` and a rotation are placed by expressions of the coordinates: declare them, `coordinates: [q1, q2, …]`";
            return Err(syn::Error::new(key, msg));
        }
        return Ok(Some(BodyKind::PlacedSpatial));
    }
    if let Some((k, _)) = spec.key("coordinates") {
        let msg = "with spatial `bodies`, the coordinates are the bodies' (x, y, z, p0, p1, p2, p3): remove `coordinates` (or place every body by expressions of them, `body(m, [jx, jy, jz], [x, y, z], rotation)`)";
        return Err(syn::Error::new(k.span(), msg));
    }
    Ok(Some(BodyKind::Spatial))
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
    /// M and Q come from placed bodies (`placed.rs`); their energies, when conservative.
    structured: Option<Option<(ExprId, ExprId)>>,
    /// The `body_energy(…)` terms lowered anywhere (used only in `kinetic`).
    energies: Vec<EnergyTerm>,
    /// (T, V) of spatial bodies whose only loads are gravity (`spatial.rs`).
    spatial_energy: Option<(ExprId, ExprId)>,
}

/// Lower one row (a plain row, or one iteration of a loop) and record where it came from.
fn lower_row(
    lw: &mut Lowerer,
    b: &mut ModelBuilder,
    rows: &mut Vec<Row>,
    label: String,
    item: &Item<'_>,
) -> syn::Result<ExprId> {
    let id = lw.lower_in(b.pool(), &item.bindings, item.expr)?;
    rows.push(Row {
        label,
        tokens: item.expr.to_token_stream(),
        mentions: lw.take_mentions(),
        iteration: item.iteration(),
    });
    Ok(id)
}

/// A row outside any loop.
fn plain(expr: &Expr) -> Item<'_> {
    Item {
        expr,
        label: None,
        bindings: Vec::new(),
    }
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
        match key {
            "coordinates" | "draw" | "events" => {}
            "holonomic" | "nonholonomic" | "force" => {
                let exprs = syntax::array(value, &format!("`{key}`"))?;
                let items = family::expand(lw, b.pool(), &exprs, key != "force")?;
                let ids = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| lower_row(lw, b, rows, format!("{key}[{i}]"), item))
                    .collect::<syn::Result<Vec<_>>>()?;
                let labels = items.into_iter().map(|item| item.label).collect();
                match key {
                    "holonomic" => (self.holonomic, self.holonomic_labels) = (ids, labels),
                    "nonholonomic" => (self.nonholonomic, self.nonholonomic_labels) = (ids, labels),
                    _ => self.force = Some(ids),
                }
            }
            "tangents" => self.tangents = syntax::flag(value, "`tangents`")?,
            "bodies" | "joints" | "loads" => {} // after every entry: `Parts::planar`
            "mass" => {
                let zero = b.pool().zero();
                self.mass = Some(match syntax::mass(value)? {
                    MassSyntax::Diagonal(diag) => {
                        let items = family::expand(lw, b.pool(), &diag, false)?;
                        let n = items.len();
                        let mut m = vec![vec![zero; n]; n];
                        for (i, item) in items.iter().enumerate() {
                            m[i][i] = lower_row(lw, b, rows, format!("mass[{i}][{i}]"), item)?;
                        }
                        m
                    }
                    MassSyntax::Full(full) => {
                        let mut m = Vec::new();
                        for (i, (_, row)) in full.iter().enumerate() {
                            let r = row.iter().enumerate().map(|(j, e)| {
                                lower_row(lw, b, rows, format!("mass[{i}][{j}]"), &plain(e))
                            });
                            m.push(r.collect::<syn::Result<Vec<_>>>()?);
                        }
                        m
                    }
                });
            }
            "kinetic" => {
                self.kinetic = Some(lower_row(lw, b, rows, "kinetic".into(), &plain(value))?);
            }
            "potential" => {
                self.potential = Some(lower_row(lw, b, rows, "potential".into(), &plain(value))?);
            }
            other => unreachable!("syntax.rs admits only known keys, got {other}"),
        }
        Ok(())
    }
}

impl Parts {
    /// The planar entries: the bodies' mass blocks, the joints' rows after the `holonomic`
    /// ones, the loads added to `force` (`planar.rs`).
    fn planar(
        &mut self,
        spec: &ModelSpec,
        bodies: &[planar::Body],
        items: &[Item<'_>],
        b: &mut ModelBuilder,
        lw: &mut Lowerer,
        rows: &mut Vec<Row>,
    ) -> syn::Result<()> {
        for key in ["mass", "kinetic", "potential"] {
            if let Some((k, _)) = spec.key(key) {
                let msg = format!("with `bodies`, M comes from the bodies: remove `{key}`");
                return Err(syn::Error::new(k.span(), msg));
            }
        }
        let n = 3 * bodies.len();
        let zero = b.pool().zero();
        let mut mass = vec![vec![zero; n]; n];
        let mut masses = Vec::new();
        for (k, item) in items.iter().enumerate() {
            let planar::BodyParts {
                mass: m,
                inertia: j,
                ..
            } = planar::body_parts(lw, b.pool(), item)?;
            for (c, value) in [m, m, j].into_iter().enumerate() {
                let i = 3 * k + c;
                mass[i][i] = value;
                rows.push(Row {
                    label: format!("mass[{i}][{i}]"),
                    tokens: item.expr.to_token_stream(),
                    mentions: lw.take_mentions(),
                    iteration: item.iteration(),
                });
            }
            masses.push(m);
        }
        self.mass = Some(mass);
        let geometry = planar::Planar { bodies, n };
        if let Some((_, value)) = spec.key("joints") {
            let first = self.holonomic.len();
            for (e, label) in geometry.joints(lw, b.pool(), value, first, rows)? {
                self.holonomic.push(e);
                self.holonomic_labels.push(label);
            }
        }
        let mut force = self.force.take().unwrap_or_else(|| vec![zero; n]);
        if force.len() == n
            && let Some((_, value)) = spec.key("loads")
        {
            geometry.loads(lw, b.pool(), value, &masses, &mut force, rows)?;
        }
        self.force = Some(force);
        Ok(())
    }
}

impl Parts {
    /// Spatial bodies (`spatial.rs`): M = blockdiag(m I, 4 Gᵀ J' G) and the quadratic-velocity
    /// forces, the normalization rows after the `holonomic` ones, then the joints' rows, the
    /// loads added to `force`.
    fn spatial(
        &mut self,
        spec: &ModelSpec,
        declared: &[(String, Item<'_>)],
        b: &mut ModelBuilder,
        lw: &mut Lowerer,
        rows: &mut Vec<Row>,
        (q, v): (&[ExprId], &[ExprId]),
    ) -> syn::Result<()> {
        for key in ["mass", "kinetic", "potential"] {
            if let Some((k, _)) = spec.key(key) {
                let msg = format!("with `bodies`, M comes from the bodies: remove `{key}`");
                return Err(syn::Error::new(k.span(), msg));
            }
        }
        let n = q.len();
        let bodies: Vec<spatial::Body> = declared
            .iter()
            .enumerate()
            .map(|(k, (name, _))| spatial::Body {
                name: name.clone(),
                q: std::array::from_fn(|c| q[7 * k + c]),
                v: std::array::from_fn(|c| v[7 * k + c]),
                index: 7 * k,
            })
            .collect();
        let zero = b.pool().zero();
        let mut inertias = Vec::new();
        for (k, (_, item)) in declared.iter().enumerate() {
            inertias.push(spatial::body_parts(lw, b.pool(), item)?);
            for c in 0..7 {
                let i = 7 * k + c;
                rows.push(Row {
                    label: format!("mass[{i}][{i}]"),
                    tokens: item.expr.to_token_stream(),
                    mentions: lw.take_mentions(),
                    iteration: item.iteration(),
                });
            }
        }
        let masses: Vec<ExprId> = inertias.iter().map(|(m, _)| *m).collect();
        let mut mass = vec![vec![zero; n]; n];
        let mut force = self.force.take().unwrap_or_else(|| vec![zero; n]);
        let user_force = spec.key("force").is_some();
        if force.len() != n {
            self.force = Some(force);
            return Ok(()); // `finish` reports the length
        }
        spatial::inertia(b.pool(), &bodies, &inertias, &mut mass, &mut force);
        for ((e, label), (_, item)) in spatial::normalization(b.pool(), &bodies)
            .into_iter()
            .zip(declared)
        {
            rows.push(Row {
                label: format!("holonomic[{}]", self.holonomic.len()),
                tokens: item.expr.to_token_stream(),
                mentions: Vec::new(),
                iteration: item.iteration(),
            });
            self.holonomic.push(e);
            self.holonomic_labels.push(Some(label));
        }
        let time = b.time();
        let total = b.pool().total_direction(time, q, v);
        let mut geometry = spatial::Spatial {
            bodies: &bodies,
            n,
            total,
            named: Vec::new(),
            joints: Vec::new(),
        };
        if let Some((_, value)) = spec.key("joints") {
            let first = self.holonomic.len();
            for (e, label) in geometry.joints(lw, b.pool(), value, first, rows)? {
                self.holonomic.push(e);
                self.holonomic_labels.push(label);
            }
        }
        let gravity = match spec.key("loads") {
            Some((_, value)) => geometry.loads(lw, b.pool(), value, &masses, &mut force, rows)?,
            None => Some(Vec::new()),
        };
        if let (Some(gravity), false) = (gravity, user_force) {
            let kinetic = spatial::kinetic_energy(b.pool(), &bodies, &inertias);
            let potential = spatial::potential_energy(b.pool(), &bodies, &masses, &gravity);
            self.spatial_energy = Some((kinetic, potential));
        }
        self.mass = Some(mass);
        self.force = Some(force);
        Ok(())
    }

    /// Bodies placed by expressions of the coordinates: the joints' rows, and M, Q (with
    /// `force` and `potential` folded in) in the structured form.
    fn placed(
        &mut self,
        spec: &ModelSpec,
        (declared, kind): (&[(String, Item<'_>)], BodyKind),
        b: &mut ModelBuilder,
        lw: &mut Lowerer,
        rows: &mut Vec<Row>,
        (q, v): (&[ExprId], &[ExprId]),
    ) -> syn::Result<()> {
        for key in ["mass", "kinetic"] {
            if let Some((k, _)) = spec.key(key) {
                let msg = format!("with `bodies`, M comes from the bodies: remove `{key}`");
                return Err(syn::Error::new(k.span(), msg));
            }
        }
        if let Some(force) = &self.force
            && force.len() != q.len()
        {
            let msg = format!(
                "`force` has {} entries, expected one per coordinate ({})",
                force.len(),
                q.len()
            );
            let (_, value) = spec.key("force").expect("force was lowered from its key");
            return Err(syn::Error::new_spanned(value, msg));
        }
        let extra = placed::Extra {
            force: self.force.take(),
            potential: self.potential.take(),
        };
        let state = placed::State { q, v };
        let targets = (&mut self.holonomic, &mut self.holonomic_labels);
        let dynamics = match kind {
            BodyKind::PlacedSpatial => {
                placed_spatial::dynamics(spec, declared, b, lw, rows, state, extra)?
            }
            _ => placed::dynamics(spec, declared, b, lw, rows, state, extra, targets)?,
        };
        self.mass = Some(dynamics.mass);
        self.force = Some(dynamics.force);
        self.structured = Some(dynamics.energy);
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
    // T without `body_energy` placeholders (the bodies' energy plus the remainder).
    let mut kinetic_energy = parts.kinetic.unwrap_or(zero);
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
            let has_bodies = b
                .pool()
                .mentions(kinetic, |s| body_energy::is_placeholder(&s.name));
            let eom = if has_bodies {
                let lagrangian = body_energy::LagrangianParts {
                    time,
                    q,
                    v,
                    kinetic,
                    potential,
                    nonconservative: &force,
                };
                let derived = body_energy::derive(b.pool(), &lagrangian, &parts.energies)
                    .map_err(|e| lagrange_error(e, &rows, spec))?;
                b.structured(derived.structured);
                kinetic_energy = derived.kinetic;
                derived.eom
            } else {
                let lagrangian = Lagrangian {
                    time,
                    q,
                    v,
                    kinetic,
                    potential,
                    nonconservative: &force,
                };
                lagrange::derive(b.pool(), &lagrangian)
                    .map_err(|e| lagrange_error(e, &rows, spec))?
            };
            (eom.mass, eom.force)
        }
    };
    if parts.potential.is_some() && parts.kinetic.is_none() && parts.structured.is_none() {
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
    if parts.structured.is_some() {
        b.structured(true);
    }
    if parts.kinetic.is_some() {
        let potential = parts.potential.unwrap_or(zero);
        b.energy(kinetic_energy, potential);
    }
    if let Some(Some((kinetic, potential))) = parts.structured {
        b.energy(kinetic, potential);
    }
    if let Some((kinetic, potential)) = parts.spatial_energy {
        b.energy(kinetic, potential);
    }
    let lagrangian = parts.kinetic.is_some();
    b.build()
        .map_err(|e| map_model_error(&e, &rows, lagrangian))
}

fn check_mass_shape(spec: &ModelSpec, mass: &[Vec<ExprId>], n: usize) -> syn::Result<()> {
    let Some((_, value)) = spec.key("mass") else {
        return Ok(()); // the bodies' mass blocks: n × n by construction
    };
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

/// The struct's named fields, each checked to be `f64` or an array `[f64; LEN]` (then with its
/// length's expression: an integer literal or a model `const`).
fn fields(item: &ItemStruct) -> syn::Result<Vec<(syn::Ident, Option<&Expr>)>> {
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
            let is_f64 = |ty: &syn::Type| {
                matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"))
            };
            let name = f.ident.clone().expect("named field");
            match &f.ty {
                ty if is_f64(ty) => Ok((name, None)),
                syn::Type::Array(a) if is_f64(&a.elem) => Ok((name, Some(&a.len))),
                other => Err(syn::Error::new(
                    other.span(),
                    "model parameters must be `f64` fields (or arrays `[f64; N]`)",
                )),
            }
        })
        .collect()
}

/// The model's `const`s evaluated ahead of the entries, in a scratch pool, for the bounds of
/// coordinate families and the lengths of array parameters (which are declared before the
/// entries are lowered). The main pass lowers the `const`s again, in source order, into the
/// model's pool, so the model's expressions do not depend on this scratch work.
struct ConstScope {
    pool: Pool,
    lowerer: Lowerer,
}

impl ConstScope {
    fn new(spec: &ModelSpec) -> Self {
        let (mut pool, mut lowerer) = (Pool::new(), Lowerer::default());
        for entry in &spec.entries {
            if let Entry::Const(name, value) = entry
                && let Ok(e) = lowerer.lower(&mut pool, value)
                && pool.as_number(e).is_some()
            {
                lowerer.bind_const(&name.unraw().to_string(), e);
            }
        }
        ConstScope { pool, lowerer }
    }

    fn range(&mut self, range: &Expr) -> syn::Result<Vec<i64>> {
        self.lowerer.range(&mut self.pool, range)
    }

    fn integer(&mut self, expr: &Expr, what: &str) -> syn::Result<i64> {
        self.lowerer.integer(&mut self.pool, expr, what)
    }
}

/// A coordinate or parameter name is a symbol of the generated code: checked here, on its
/// tokens (the builder's own check has no span to point at).
fn symbol_name(name: &str, span: Span) -> syn::Result<()> {
    // `_` passes the character test but is no identifier (nor are the path keywords, which
    // cannot be raw either: `r#_` panics in the emitter).
    let base = name.split('[').next().unwrap_or(name);
    if crate::model::is_symbol_name(name)
        && !matches!(base, "_" | "self" | "super" | "crate" | "Self")
    {
        return Ok(());
    }
    let msg = format!(
        "`{name}` cannot name a coordinate or parameter: such names are ASCII letters, digits and `_`, not starting with a digit, and not `_` or a path keyword (they are spelt in the generated code and its s-expression fixtures)"
    );
    Err(syn::Error::new(span, msg))
}

/// Claim the name of a family (coordinates `theta[…]`, an array parameter `m: [f64; K]`); the
/// families `lambda[…]` and `w[…]` are the tangent kernels' inputs.
fn claim_family(taken: &mut FxHashMap<String, Span>, base: &str, span: Span) -> syn::Result<()> {
    if matches!(base, "lambda" | "w") {
        let msg = format!(
            "`{base}[…]` names the tangent kernels' inputs (λ, w); pick another family name"
        );
        return Err(syn::Error::new(span, msg));
    }
    claim(taken, base, span)
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

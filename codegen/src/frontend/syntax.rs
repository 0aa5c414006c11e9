//! The attribute's grammar, read with syn into a [`ModelSpec`] that keeps every token's span.
//!
//! ```text
//! body    := entry (("," | ";") entry)* ("," | ";")?
//! entry   := "let" IDENT "=" EXPR          a named subexpression, usable by later entries
//!          | "let" IDENT "[" IDENT "in" RANGE "]" "=" EXPR   a family of them, `x[i]` for i in
//!                                                  RANGE in order (a member may use earlier ones)
//!          | "const" IDENT (":" TYPE)? "=" EXPR   a baked parameter (constant-folded)
//!          | KEY ":" EXPR
//!          | "crate" "=" PATH                 where the façade `mbsim` is (re-exporters)
//! KEY     := coordinates | holonomic | nonholonomic | mass | force | kinetic | potential
//!          | tangents | bodies | joints | loads
//! ```
//! `coordinates: [x, y]` names the coordinates (velocities are `x_dot`, `y_dot`); an indexed
//! family `coordinates: [theta[0..=N]]` declares `theta[0]` … `theta[N]` (velocities
//! `theta_dot[i]`), its bounds integers known at generation time (literals, `const`s). Array
//! entries may hold loops `for i in 0..N { row }` / `{ [row, row] }`, unrolled by
//! `family.rs`. `holonomic`,
//! `nonholonomic` and `force` are arrays of expressions; `mass` is an array of rows
//! (`[[a, b], [b, c]]`) or the diagonal shorthand `diag(a, b)`; `kinetic` and `potential` are
//! single expressions; `tangents: true` asks for the tangent kernels. A constraint row may carry
//! a label, `holonomic: [rod = x.powi(2) + y.powi(2) - l.powi(2)]` (the row's name in
//! `constraint_names()`). `bodies`, `joints` and `loads` describe planar bodies
//! (`planar.rs`) or spatial ones (`spatial.rs`, a body whose inertia is a tensor).
//! Expressions are checked when lowered (`lower.rs`), not here.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

/// The keys an entry may have.
pub const KEYS: [&str; 13] = [
    "coordinates",
    "bodies",
    "joints",
    "loads",
    "holonomic",
    "nonholonomic",
    "mass",
    "force",
    "kinetic",
    "potential",
    "tangents",
    "draw",
    "events",
];

/// One entry of the attribute body, in source order.
#[derive(Clone, Debug)]
pub enum Entry {
    /// `let name = expr`.
    Let(Ident, Expr),
    /// `let name[var in range] = expr`: the members `name[k]`, in the range's order.
    LetFamily(Box<LetFamily>),
    /// `const name = expr`.
    Const(Ident, Expr),
    /// `key: expr`.
    Key(Ident, Expr),
}

/// `let name[var in range] = value`.
#[derive(Clone, Debug)]
pub struct LetFamily {
    /// The family's name.
    pub name: Ident,
    /// The index variable.
    pub var: Ident,
    /// The range of indices.
    pub range: Expr,
    /// The value of one member (may use `var` and earlier members).
    pub value: Expr,
}

/// The parsed attribute: entries in source order.
#[derive(Clone, Debug, Default)]
pub struct ModelSpec {
    /// The entries.
    pub entries: Vec<Entry>,
    /// `crate = path`: the path of the façade crate in the user's crate (default `::mbsim`).
    pub facade: Option<syn::Path>,
}

impl ModelSpec {
    /// The entry with this key, if present (duplicates are rejected by parsing).
    pub fn key(&self, key: &str) -> Option<(&Ident, &Expr)> {
        self.entries.iter().find_map(|e| match e {
            Entry::Key(k, v) if k == key => Some((k, v)),
            _ => None,
        })
    }
}

impl Parse for ModelSpec {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut facade: Option<syn::Path> = None;
        while !input.is_empty() {
            if input.peek(Token![crate]) && input.peek2(Token![=]) {
                let kw = input.parse::<Token![crate]>()?;
                input.parse::<Token![=]>()?;
                if facade.is_some() {
                    return Err(syn::Error::new(kw.span, "`crate` is given twice"));
                }
                facade = Some(input.call(syn::Path::parse_mod_style)?);
                if input.is_empty() {
                    break;
                }
                if input.peek(Token![,]) {
                    input.parse::<Token![,]>()?;
                } else {
                    input.parse::<Token![;]>().map_err(|e| {
                        syn::Error::new(e.span(), "expected `,` or `;` between entries")
                    })?;
                }
                continue;
            }
            let entry = if input.peek(Token![let]) {
                input.parse::<Token![let]>()?;
                let name: Ident = input.parse()?;
                if input.peek(syn::token::Bracket) {
                    let inside;
                    syn::bracketed!(inside in input);
                    let var: Ident = inside.parse()?;
                    inside.parse::<Token![in]>()?;
                    let range: Expr = inside.parse()?;
                    input.parse::<Token![=]>()?;
                    let value = input.parse()?;
                    Entry::LetFamily(Box::new(LetFamily {
                        name,
                        var,
                        range,
                        value,
                    }))
                } else {
                    input.parse::<Token![=]>()?;
                    Entry::Let(name, input.parse()?)
                }
            } else if input.peek(Token![const]) {
                input.parse::<Token![const]>()?;
                let name: Ident = input.parse()?;
                if input.peek(Token![:]) {
                    input.parse::<Token![:]>()?;
                    let ty: syn::Type = input.parse()?;
                    if !matches!(&ty, syn::Type::Path(p) if p.path.is_ident("f64")) {
                        return Err(syn::Error::new(ty.span(), "a baked parameter is an `f64`"));
                    }
                }
                input.parse::<Token![=]>()?;
                Entry::Const(name, input.parse()?)
            } else {
                let key: Ident = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        format!(
                            "expected `let`, `const` or one of the keys {}",
                            KEYS.join(", ")
                        ),
                    )
                })?;
                if !KEYS.contains(&key.to_string().as_str()) {
                    let hint = super::suggest::did_you_mean(&key.to_string(), KEYS);
                    let msg = format!(
                        "unknown key `{key}`{hint} (the keys are {})",
                        KEYS.join(", ")
                    );
                    return Err(syn::Error::new(key.span(), msg));
                }
                if entries
                    .iter()
                    .any(|e| matches!(e, Entry::Key(k, _) if *k == key))
                {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("`{key}` is given twice"),
                    ));
                }
                input.parse::<Token![:]>()?;
                Entry::Key(
                    key.clone(),
                    if key == "draw" {
                        super::draw::raw(input)?
                    } else if key == "events" {
                        super::events::raw(input)?
                    } else {
                        input.parse()?
                    },
                )
            };
            let mut entry = entry;
            match &mut entry {
                Entry::Let(_, e) | Entry::Const(_, e) | Entry::Key(_, e) => {
                    super::limits::check_depth(e)?;
                }
                Entry::LetFamily(f) => {
                    super::limits::check_depth(&mut f.range)?;
                    super::limits::check_depth(&mut f.value)?;
                }
            }
            entries.push(entry);
            if input.is_empty() {
                break;
            }
            if input.peek(Token![,]) {
                input.parse::<Token![,]>()?;
            } else {
                input.parse::<Token![;]>().map_err(|e| {
                    syn::Error::new(e.span(), "expected `,` or `;` between entries")
                })?;
            }
        }
        Ok(ModelSpec { entries, facade })
    }
}

/// The elements of an array expression `[a, b, …]`, or an error naming `what`.
pub fn array<'a>(expr: &'a Expr, what: &str) -> syn::Result<Vec<&'a Expr>> {
    match expr {
        Expr::Array(a) => Ok(a.elems.iter().collect()),
        Expr::Group(g) => array(&g.expr, what),
        other => Err(syn::Error::new(
            other.span(),
            format!("{what} must be an array `[…]`"),
        )),
    }
}

/// A `true` / `false` literal.
pub fn flag(expr: &Expr, what: &str) -> syn::Result<bool> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) => Ok(b.value),
        other => Err(syn::Error::new(
            other.span(),
            format!("{what} is `true` or `false`"),
        )),
    }
}

/// One item of `coordinates: [x, theta[0..=N]]`.
pub enum CoordinateSyntax<'a> {
    /// A plain name.
    Name(Ident),
    /// A family: its name and the range of its indices (evaluated by the caller).
    Family(Ident, &'a Expr),
}

/// The items of `coordinates: [x, theta[0..=N]]`.
pub fn coordinate_names(expr: &Expr) -> syn::Result<Vec<CoordinateSyntax<'_>>> {
    let plain = |e: &Expr| match e {
        Expr::Path(p) if p.path.get_ident().is_some() && p.qself.is_none() => {
            p.path.get_ident().cloned()
        }
        _ => None,
    };
    array(expr, "`coordinates`")?
        .into_iter()
        .map(|e| match e {
            Expr::Index(ix) if plain(&ix.expr).is_some() => Ok(CoordinateSyntax::Family(
                plain(&ix.expr).expect("checked"),
                &ix.index,
            )),
            other => match plain(other) {
                Some(name) => Ok(CoordinateSyntax::Name(name)),
                None => Err(syn::Error::new(
                    other.span(),
                    "a coordinate is a plain name or a family `theta[0..N]`",
                )),
            },
        })
        .collect()
}

/// The shapes the `mass` entry may take.
pub enum MassSyntax<'a> {
    /// `[[row], [row], …]`.
    Full(Vec<(Span, Vec<&'a Expr>)>),
    /// `diag(a, b, …)`.
    Diagonal(Vec<&'a Expr>),
}

/// Read the `mass` entry.
pub fn mass(expr: &Expr) -> syn::Result<MassSyntax<'_>> {
    if let Expr::Call(call) = expr
        && matches!(&*call.func, Expr::Path(p) if p.path.is_ident("diag"))
    {
        return Ok(MassSyntax::Diagonal(call.args.iter().collect()));
    }
    let rows = array(expr, "`mass` (rows `[[…], …]` or `diag(…)`)")?;
    rows.into_iter()
        .map(|r| Ok((r.span(), array(r, "a row of the mass matrix")?)))
        .collect::<syn::Result<_>>()
        .map(MassSyntax::Full)
}

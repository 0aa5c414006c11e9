//! The Rust-syntax model front end shared by the proc-macro (`mbsim::model`) and
//! `mbsim generate / eval` and `cargo xtask generate`: one attribute on a struct describes a model, [`expand`] turns
//! it into the struct plus its `impl mbsim_runtime::ConstrainedSystem`.
//!
//! ```text
//! #[mbsim::model(
//!     coordinates: [x, y],                       // velocities are x_dot, y_dot
//!     let r2 = x.powi(2) + y.powi(2),            // named subexpression
//!     const g = 9.81,                            // baked parameter (constant-folded)
//!     holonomic: [r2 - len.powi(2)],             // Φ(t, q) = 0, may use `t`
//!     nonholonomic: [],                          // A(t, q) v + b(t, q) = 0, linear in v
//!     mass: diag(m, m),                          // or [[m, 0.0], [0.0, m]]
//!     force: [0.0, -m * g],                      // Q(t, q, v)
//! )]
//! pub struct Pendulum { pub m: f64, pub len: f64 }   // fields = runtime parameters (f64)
//! ```
//! or, in Lagrangian mode, `kinetic: T` and `potential: V` instead of `mass` (with `force` as
//! the non-conservative forces): M and Q are derived by [`crate::lagrange`], and by
//! [`body_energy`] in the structured form for the `body_energy(m, j, [x, y, phi])` terms of T.
//! `bodies`/`joints`/`loads` are planar ([`planar`], [`placed`]), spatial in Euler
//! parameters ([`spatial`], [`spatial_joints`]) or spatial placed by expressions of the
//! coordinates ([`placed_spatial`]).
//!
//! Pipeline: [`syntax`] (syn grammar of the attribute) → [`assemble`] (lowering with [`lower`]
//! into one pool, shapes, Lagrangian derivation, validation; errors mapped to spans by
//! [`errors`]) → [`crate::kernels::derive`] → [`crate::emit::emit_tokens`] with runtime path
//! `::mbsim::__private` (the façade's hidden re-export; `crate = path` moves it). [`file`](mod@file) finds
//! annotated structs in a source file and renders the committed form of an expansion;
//! [`stub`] is what the proc-macro emits (on a mistake: the located error plus a placeholder
//! impl, so the error is the only one); [`suggest`] finds the "did you mean" of a misspelt name;
//! [`limits`] bounds nesting and unrolling (an error, not a stack overflow or an OOM).
//! Everything is text and tokens; no file IO.

pub mod assemble;
pub mod body_energy;
pub mod draw;
pub mod errors;
pub mod events;
pub mod family;
pub mod file;
pub mod limits;
pub mod lower;
pub mod placed;
pub mod placed_spatial;
pub mod planar;
pub mod spatial;
pub mod spatial_joints;
pub mod stub;
pub mod suggest;
pub mod syntax;

use crate::emit::{self, EmitOptions};
use crate::kernels;
use crate::model::Model;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ItemStruct;

/// Parse the attribute and the struct, and build the validated model.
pub fn model(attr: TokenStream, item: TokenStream) -> syn::Result<Model> {
    let anchor = anchor(&attr, &item);
    let built = (|| {
        limits::check_nesting(&attr)?;
        limits::check_nesting(&item)?;
        let item: ItemStruct = syn::parse2(item)?;
        let spec: syntax::ModelSpec = syn::parse2(attr)?;
        assemble::assemble(&spec, &item)
    })();
    built.map_err(|e| anchored(e, &anchor))
}

/// Where an error without a place of its own goes: the attribute's tokens (or the struct's
/// when the attribute is empty).
fn anchor(attr: &TokenStream, item: &TokenStream) -> TokenStream {
    if attr.is_empty() {
        item.clone()
    } else {
        attr.clone()
    }
}

/// `error` with every part that has no place in the text (a call-site span: "the model needs
/// `mass`", syn's "unexpected end of input" of a token stream) moved onto `anchor`. In the
/// proc-macro a call-site span is the attribute and has source text, so nothing moves; from
/// text (`mbsim generate`, `cargo xtask generate`) it would print as line 1, column 1 of the
/// file. Found by the fuzzing campaign (`tests/fuzz`).
pub fn anchored(error: syn::Error, anchor: &TokenStream) -> syn::Error {
    error
        .into_iter()
        .map(|part| {
            if part.span().source_text().is_some() || anchor.is_empty() {
                part
            } else {
                syn::Error::new_spanned(anchor, part.to_string())
            }
        })
        .reduce(|mut all, part| {
            all.combine(part);
            all
        })
        .expect("a syn::Error has at least one part")
}

/// The macro expansion: the struct unchanged, then the emitted impls (runtime path
/// `::mbsim::__private`, or `<crate>::__private` with `crate = path`). The proc-macro (through
/// [`stub::expand_or_error`]) and `cargo xtask generate` both call exactly this.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    expand_file(attr, item).map(ToTokens::into_token_stream)
}

/// [`expand`] as a syntax tree: what `cargo xtask generate` formats with prettyplease.
pub fn expand_file(attr: TokenStream, item: TokenStream) -> syn::Result<syn::File> {
    let anchor = anchor(&attr, &item);
    expand_unanchored(attr, item).map_err(|e| anchored(e, &anchor))
}

fn expand_unanchored(attr: TokenStream, item: TokenStream) -> syn::Result<syn::File> {
    limits::check_nesting(&attr)?;
    limits::check_nesting(&item)?;
    let parsed: ItemStruct = syn::parse2(item)?;
    let spec: syntax::ModelSpec = syn::parse2(attr)?;
    let mut model = assemble::assemble(&spec, &parsed)?;
    let kernels = kernels::derive(&mut model);
    let drawing = draw::lower(&spec, &mut model)?.map(|d| draw::emit(&model, &d));
    let options = match &spec.facade {
        Some(facade) => EmitOptions::default().with_facade(facade),
        None => EmitOptions::default(),
    };
    let events =
        events::lower(&spec, &mut model)?.map(|e| events::emit(&model, &e, &options.runtime_path));
    let extras = emit::Extras { drawing, events };
    let mut file = emit::emit_file_extras(&model, &kernels, extras, &options);
    file.items.insert(0, syn::Item::Struct(parsed));
    Ok(file)
}

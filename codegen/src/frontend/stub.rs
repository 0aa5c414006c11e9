//! What the proc-macro emits: the expansion, or — for a model with a mistake — the located
//! `compile_error!`, the unchanged struct and a placeholder implementation of the runtime's
//! items, so that the one located error is the only error. Without the placeholder every use
//! of the struct elsewhere (`sys.dims()`, `&dyn ConstrainedSystem`, `Model::PHI_Q_SPARSITY`)
//! would add a "not implemented" error and bury the real one.
//!
//! The placeholder is the emitter's own output for a stand-in model (one coordinate, M = 1,
//! Q = 0, the struct's `f64` fields as parameters), so it implements exactly the items a real
//! expansion does, whatever the trait holds today. It never runs: the `compile_error!` stops
//! the build. Structs that cannot get one (generic, unparsable) get only the error.

use crate::emit::{self, EmitOptions};
use crate::kernels;
use crate::model::ModelBuilder;
use proc_macro2::{TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::{Fields, ItemStruct};

/// The macro's output for `#[model(attr)] item`: [`super::expand`], or on error the located
/// `compile_error!`, the struct and the placeholder.
pub fn expand_or_error(attr: TokenStream, item: TokenStream) -> TokenStream {
    match super::expand(attr.clone(), item.clone()) {
        Ok(tokens) => tokens,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item.clone());
            out.extend(placeholder(&attr, &item));
            out
        }
    }
}

/// The runtime items for a stand-in model of `item`'s struct, or `None` when the struct is
/// generic or does not parse.
pub fn placeholder(attr: &TokenStream, item: &TokenStream) -> Option<TokenStream> {
    let parsed: ItemStruct = syn::parse2(item.clone()).ok()?;
    if !parsed.generics.params.is_empty() || parsed.generics.where_clause.is_some() {
        return None;
    }
    let mut b = ModelBuilder::new(&parsed.ident.unraw().to_string());
    b.coordinate("placeholder");
    for name in f64_fields(&parsed) {
        b.parameter(&name);
    }
    let (one, zero) = (b.pool().one(), b.pool().zero());
    b.mass_diagonal(&[one]).force(&[zero]);
    let mut model = b.build().ok()?;
    let kernels = kernels::derive(&mut model);
    let options = match facade(attr) {
        Some(path) => EmitOptions::default().with_facade(&path),
        None => EmitOptions::default(),
    };
    Some(emit::emit_tokens(&model, &kernels, &options))
}

/// The named fields of type `f64` (the others are already reported as errors).
fn f64_fields(item: &ItemStruct) -> Vec<String> {
    let Fields::Named(named) = &item.fields else {
        return Vec::new();
    };
    named
        .named
        .iter()
        .filter(
            |f| matches!(&f.ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64")),
        )
        .filter_map(|f| f.ident.as_ref().map(|i| i.unraw().to_string()))
        .collect()
}

/// The `crate = path` entry of the attribute, found by scanning its top-level tokens (the
/// attribute as a whole may not parse: that may be the very mistake being reported).
fn facade(attr: &TokenStream) -> Option<syn::Path> {
    let tokens: Vec<TokenTree> = attr.clone().into_iter().collect();
    let start = tokens.windows(2).position(|w| {
        matches!(&w[0], TokenTree::Ident(i) if i == "crate")
            && matches!(&w[1], TokenTree::Punct(p) if p.as_char() == '=')
    })?;
    let path: TokenStream = tokens[start + 2..]
        .iter()
        .take_while(|t| !matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';')))
        .cloned()
        .collect();
    syn::parse::Parser::parse2(syn::Path::parse_mod_style, path).ok()
}

//! Rust emission: a model's kernels as an `impl ConstrainedSystem` for its struct.
//!
//! The file is built as a syn tree: the items around the kernels (struct, accessors, sparsity,
//! diagnostics) are parsed from their tokens, the kernels' methods come from
//! `emit_kernel.rs` as trees. The macro gets the tree's tokens; the file form is that tree
//! normalised by prettyplease, so emission is byte-identical across runs.

use crate::emit_kernel;
use crate::kernels::{ExprMatrix, Kernels};
use crate::model::Model;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, format_ident, quote};

/// How to emit.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Path at which the generated code finds the runtime's items (`ConstrainedSystem`,
    /// `Dims`, …). Default `::mbsim::__private`, the façade's hidden re-export, so a user's crate
    /// depends on the façade `mbsim` alone; [`EmitOptions::direct_runtime`] names
    /// `::mbsim_runtime` for code that depends on the runtime crate itself.
    pub runtime_path: syn::Path,
    /// Also emit the model struct itself (one `pub f64` field per parameter).
    pub with_struct: bool,
    /// A kernel with more statements than this is split into parts of a few hundred statements,
    /// with its temporaries in a heap-allocated scratch array (the one allocation a kernel may
    /// make, and only for models this large): rustc's time grows faster than linearly with the
    /// size of a function.
    pub max_statements_per_fn: usize,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            runtime_path: syn::parse_quote!(::mbsim::__private),
            with_struct: false,
            max_statements_per_fn: 4000,
        }
    }
}

impl EmitOptions {
    /// Options for code compiled in a crate that depends on `mbsim-runtime` directly (the
    /// workspace's own test crate), not on the façade.
    pub fn direct_runtime() -> Self {
        EmitOptions {
            runtime_path: syn::parse_quote!(::mbsim_runtime),
            ..Default::default()
        }
    }

    /// The runtime path for a façade found at `facade` (the attribute's `crate = path`).
    pub fn with_facade(mut self, facade: &syn::Path) -> Self {
        let mut path = facade.clone();
        path.segments.push(syn::parse_quote!(__private));
        self.runtime_path = path;
        self
    }
}
/// The tokens of the model's impl (and struct, if asked).
pub fn emit_tokens(model: &Model, kernels: &Kernels, options: &EmitOptions) -> TokenStream {
    emit_file(model, kernels, options).into_token_stream()
}

/// [`emit_tokens`] for a model that may draw itself: `drawing` is the body of its
/// `impl Drawing` (from `frontend::draw::emit`), which also gets the `as_drawing` override.
pub fn emit_tokens_drawn(
    model: &Model,
    kernels: &Kernels,
    drawing: Option<TokenStream>,
    options: &EmitOptions,
) -> TokenStream {
    emit_file_drawn(model, kernels, drawing, options).into_token_stream()
}

/// The model's impls (and struct, if asked) as a syntax tree, ready for prettyplease.
pub fn emit_file(model: &Model, kernels: &Kernels, options: &EmitOptions) -> syn::File {
    emit_file_drawn(model, kernels, None, options)
}

/// [`emit_file`] for a model that may draw itself (see [`emit_tokens_drawn`]).
pub fn emit_file_drawn(
    model: &Model,
    kernels: &Kernels,
    drawing: Option<TokenStream>,
    options: &EmitOptions,
) -> syn::File {
    let extras = Extras {
        drawing,
        events: None,
    };
    emit_file_extras(model, kernels, extras, options)
}

/// The optional parts of a model beside its kernels, as the bodies of their impls (from the
/// front end's `draw` and `events` entries).
#[derive(Default)]
pub struct Extras {
    /// The body of `impl Drawing` (`frontend::draw::emit`).
    pub drawing: Option<TokenStream>,
    /// The body of `impl Events` (`frontend::events::emit`).
    pub events: Option<TokenStream>,
}

/// [`emit_file`] with the model's optional parts, each with its `as_…` view override.
pub fn emit_file_extras(
    model: &Model,
    kernels: &Kernels,
    extras: Extras,
    options: &EmitOptions,
) -> syn::File {
    let Extras { drawing, events } = extras;
    let name = ident(&model.name);
    let rt = &options.runtime_path;
    let fields: Vec<TokenStream> = model
        .parameters
        .iter()
        .map(|p| field_access(&p.name))
        .collect();
    let params: Vec<syn::Expr> = (model.parameters.iter())
        .map(|p| parameter_read(&p.name))
        .collect();
    let ([kernel_fns, tangent_fns, energy_fns], [core, tangent, energy]) =
        emit_kernel::kernel_functions(model, kernels, &params, options);
    let mut items = Vec::new();
    if options.with_struct {
        items.extend(parse_items(struct_def(model, &fields)));
    }
    let mut inherent = parse_impl(sparsity_consts(model, kernels, &name));
    let helpers = core.into_iter().chain(tangent).chain(energy);
    inherent.items.extend(helpers.map(syn::ImplItem::Fn));
    items.push(syn::Item::Impl(inherent));
    let views = (drawing.is_some(), events.is_some());
    let system = constrained_system(model, kernels, (&name, &fields), views, rt);
    items.push(with_methods(system, kernel_fns));
    if kernels.tangents.is_some() {
        let sparsity = tangent_sparsity(model, kernels, rt);
        let tangents = quote!(impl #rt::TangentSystem for #name { #sparsity });
        items.push(with_methods(tangents, tangent_fns));
    }
    if kernels.energy.is_some() {
        items.push(with_methods(
            quote!(impl #rt::Energy for #name {}),
            energy_fns,
        ));
    }
    if let Some(body) = drawing {
        items.extend(parse_items(quote!(impl #rt::Drawing for #name { #body })));
    }
    if let Some(body) = events {
        items.extend(parse_items(
            quote!(impl #rt::events::Events for #name { #body }),
        ));
    }
    syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    }
}

pub use crate::emit_sparse::{NONZERO_FORMS_MAX_FILL, NONZERO_FORMS_MIN_ORDER, nonzero_forms};

/// Items parsed from the emitter's own tokens.
fn parse_items(tokens: TokenStream) -> Vec<syn::Item> {
    let file: syn::File = syn::parse2(tokens).expect("the emitter's item tokens parse");
    file.items
}

fn parse_impl(tokens: TokenStream) -> syn::ItemImpl {
    syn::parse2(tokens).expect("the emitter's impl tokens parse")
}

/// The impl of `tokens` with `methods` appended.
fn with_methods(tokens: TokenStream, methods: Vec<syn::ImplItemFn>) -> syn::Item {
    let mut item = parse_impl(tokens);
    item.items
        .extend(methods.into_iter().map(syn::ImplItem::Fn));
    syn::Item::Impl(item)
}

/// The model struct (one `pub f64` field per parameter) and its `from_parameters`.
fn struct_def(model: &Model, fields: &[TokenStream]) -> TokenStream {
    let name = ident(&model.name);
    let n_params = ulit(fields.len());
    let doc = format!(" Runtime parameters of the `{}` model.", model.name);
    let field_docs = model
        .parameters
        .iter()
        .map(|p| format!(" Parameter `{}`.", p.name));
    quote! {
        #[doc = #doc]
        // Parameter names follow the mechanics sources (`I1`, `X`), not Rust's case rules.
        #[allow(non_snake_case)]
        #[derive(Clone, Debug, PartialEq)]
        pub struct #name { #( #[doc = #field_docs] pub #fields: f64, )* }
        #[allow(non_snake_case)]
        impl #name {
            /// The model with its parameters given in declaration order.
            pub fn from_parameters(values: [f64; #n_params]) -> Self {
                let [#(#fields),*] = values;
                #name { #(#fields),* }
            }
        }
    }
}

/// The inherent impl's structural patterns (the split kernels' helpers follow them): Φ_q's and
/// L's always, M's and A's where `mass_sparsity`/`a_sparsity` state them or the dense forms
/// scatter the sparse ones through them (`emit_sparse.rs`).
fn sparsity_consts(model: &Model, kernels: &Kernels, name: &Ident) -> TokenStream {
    let phi_q_nz = sparsity(model, &kernels.phi_q);
    let l_nz = sparsity(model, &kernels.l);
    let scattered = crate::emit_sparse::nonzero_forms(model, kernels);
    let optional = |mat: &ExprMatrix, konst: Ident, doc: &str| {
        let stated = !is_dense(model, mat);
        ((stated || scattered) && !mat.entries.is_empty()).then(|| {
            let nonzeros = sparsity(model, mat);
            quote!(#[doc = #doc] pub const #konst: &'static [(usize, usize)] = &[#nonzeros];)
        })
    };
    let mass_nz = optional(
        &kernels.mass,
        format_ident!("MASS_SPARSITY"),
        " Structural nonzeros of M, row-major.",
    );
    let a_nz = optional(
        &kernels.nh_matrix,
        format_ident!("A_SPARSITY"),
        " Structural nonzeros of A, row-major.",
    );
    let tangent_nz = crate::emit_sparse::tangent_pattern(model, kernels).map(|pattern| {
        let pairs = pattern.iter().map(|&(r, c)| {
            let (r, c) = (ulit(r), ulit(c));
            quote!((#r, #c))
        });
        quote!(
            /// Structural nonzeros of the tangent blocks K = ∂(M w + Gᵀλ − Q)/∂q and ∂Q/∂v
            /// together, row-major.
            pub const TANGENT_SPARSITY: &'static [(usize, usize)] = &[#(#pairs),*];
        )
    });
    quote! {
        impl #name {
            /// Structural nonzeros of Φ_q, row-major.
            pub const PHI_Q_SPARSITY: &'static [(usize, usize)] = &[#phi_q_nz];
            /// Structural nonzeros of L = ∂(Φ_q v)/∂q, row-major.
            pub const L_SPARSITY: &'static [(usize, usize)] = &[#l_nz];
            #mass_nz
            #a_nz
            #tangent_nz
        }
    }
}

/// `tangent_sparsity` of a model with the tangent nonzero form (`emit_sparse::tangent_form`).
fn tangent_sparsity(model: &Model, kernels: &Kernels, rt: &syn::Path) -> Option<TokenStream> {
    crate::emit_sparse::tangent_pattern(model, kernels)?;
    let n = ulit(model.n());
    Some(quote!(
        fn tangent_sparsity(&self) -> Option<#rt::Sparsity> {
            Some(#rt::Sparsity { rows: #n, cols: #n, nonzeros: Self::TANGENT_SPARSITY })
        }
    ))
}

/// `impl ConstrainedSystem` without its kernels: accessors, dimensions, sparsity, names,
/// diagnostics and the views of the optional groups.
fn constrained_system(
    model: &Model,
    kernels: &Kernels,
    (name, fields): (&Ident, &[TokenStream]),
    (drawing, events): (bool, bool),
    rt: &syn::Path,
) -> TokenStream {
    let (n, m, k) = (
        ulit(model.n()),
        ulit(kernels.phi.len()),
        ulit(kernels.nh_offset.len()),
    );
    let views = views(kernels, (drawing, events), rt);
    let names = constraint_names(model);
    let diagnostics = generated_diagnostics(model, kernels, rt);
    let accessors = accessors(model, fields, rt);
    let mass_sparsity = optional_sparsity(
        model,
        &kernels.mass,
        (quote!(mass_sparsity), quote!(MASS_SPARSITY)),
        rt,
    );
    let a_sparsity = optional_sparsity(
        model,
        &kernels.nh_matrix,
        (quote!(a_sparsity), quote!(A_SPARSITY)),
        rt,
    );
    let nonzero_forms = crate::emit_sparse::nonzero_forms(model, kernels).then(|| {
        quote!(
            fn has_nonzero_forms(&self) -> bool {
                true
            }
        )
    });
    let (pr, pc) = (ulit(kernels.phi_q.rows), ulit(kernels.phi_q.cols));
    let (lr, lc) = (ulit(kernels.l.rows), ulit(kernels.l.cols));
    quote! {
        impl #rt::ConstrainedSystem for #name {
            #accessors
            fn dims(&self) -> #rt::Dims { #rt::Dims { n: #n, m: #m, k: #k } }
            fn phi_q_sparsity(&self) -> #rt::Sparsity {
                #rt::Sparsity { rows: #pr, cols: #pc, nonzeros: Self::PHI_Q_SPARSITY }
            }
            fn l_sparsity(&self) -> #rt::Sparsity {
                #rt::Sparsity { rows: #lr, cols: #lc, nonzeros: Self::L_SPARSITY }
            }
            #mass_sparsity
            #a_sparsity
            #nonzero_forms
            #names
            #diagnostics
            #views
        }
    }
}

/// `generated_diagnostics()`: what `diagnose.rs` decided from the expressions.
fn generated_diagnostics(model: &Model, kernels: &Kernels, rt: &syn::Path) -> TokenStream {
    let d = crate::diagnose::diagnose(model, kernels);
    let rank = ulit(d.structural_rank);
    let repeated = d.repeated_rows.iter().map(|(a, b)| quote!((#a, #b)));
    let redundant = &d.structurally_redundant;
    quote! {
        fn generated_diagnostics(&self) -> Option<#rt::GeneratedDiagnostics> {
            Some(#rt::GeneratedDiagnostics {
                repeated_rows: &[#(#repeated),*],
                structural_rank: #rank,
                structurally_redundant: &[#(#redundant),*],
            })
        }
    }
}

/// The overrides of `as_tangents`, `as_energy` and `as_drawing` for the optional groups the
/// model implements, so a `&dyn ConstrainedSystem` reaches them.
fn views(kernels: &Kernels, (drawing, events): (bool, bool), rt: &syn::Path) -> TokenStream {
    let tangents = kernels
        .tangents
        .is_some()
        .then(|| quote!(fn as_tangents(&self) -> Option<&dyn #rt::TangentSystem> { Some(self) }));
    let energy = kernels
        .energy
        .is_some()
        .then(|| quote!(fn as_energy(&self) -> Option<&dyn #rt::Energy> { Some(self) }));
    let drawing =
        drawing.then(|| quote!(fn as_drawing(&self) -> Option<&dyn #rt::Drawing> { Some(self) }));
    let events = events
        .then(|| quote!(fn as_events(&self) -> Option<&dyn #rt::events::Events> { Some(self) }));
    quote!(#tangents #energy #drawing #events)
}

/// The formatted source of the model's impl (prettyplease), deterministic.
pub fn emit_source(model: &Model, kernels: &Kernels, options: &EmitOptions) -> String {
    prettyplease::unparse(&emit_file(model, kernels, options))
}

fn constraint_names(model: &Model) -> TokenStream {
    if model.constraint_labels.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    let names = model.constraint_names();
    quote! {
        fn constraint_names(&self) -> Vec<String> {
            [#(#names),*].iter().map(|s| s.to_string()).collect()
        }
    }
}

fn accessors(model: &Model, fields: &[TokenStream], rt: &syn::Path) -> TokenStream {
    let name = &model.name;
    let coords: Vec<&str> = model.coordinates.iter().map(|c| c.name.as_str()).collect();
    let params: Vec<&str> = model.parameters.iter().map(|p| p.name.as_str()).collect();
    let known = params.join(", ");
    // A model without parameters never reads the value (an unused-variable warning otherwise).
    let value = if params.is_empty() {
        format_ident!("_value")
    } else {
        format_ident!("value")
    };
    quote! {
        fn name(&self) -> &'static str { #name }
        fn coordinate_names(&self) -> &'static [&'static str] { &[#(#coords),*] }
        fn parameter_names(&self) -> &'static [&'static str] { &[#(#params),*] }
        fn parameter(&self, name: &str) -> Option<f64> {
            match name { #(#params => Some(self.#fields),)* _ => None }
        }
        fn set_parameter(&mut self, name: &str, #value: f64) -> Result<(), #rt::ParameterError> {
            // One arm per parameter returning `Ok` (non-finite values rejected): no code after
            // the match, which would be unreachable (a warning in the user's crate) for a model
            // without parameters.
            match name {
                #(#params => { self.#fields = #rt::ParameterError::finite(#name, #params, #value)?; Ok(()) })*
                _ => Err(#rt::ParameterError::Unknown { model: #name, name: name.to_string(), known: #known.to_string() }),
            }
        }
    }
}

fn sparsity(model: &Model, mat: &ExprMatrix) -> TokenStream {
    let pairs = mat
        .entries
        .iter()
        .enumerate()
        .filter(|&(_, &e)| !model.pool.is_zero(e))
        .map(|(i, _)| {
            let (r, c) = (ulit(i / mat.cols), ulit(i % mat.cols));
            quote!((#r, #c))
        });
    quote!(#(#pairs),*)
}

/// Whether every entry of `mat` may be nonzero (an empty matrix too).
fn is_dense(model: &Model, mat: &ExprMatrix) -> bool {
    mat.entries.iter().all(|&e| !model.pool.is_zero(e))
}

/// The override of the provided `method` (`mass_sparsity`, `a_sparsity`) stating `mat`'s
/// structural nonzeros (the constant `konst`); nothing when every entry may be nonzero (the
/// default, `None`, means dense) or the matrix is empty.
fn optional_sparsity(
    model: &Model,
    mat: &ExprMatrix,
    (method, konst): (TokenStream, TokenStream),
    rt: &syn::Path,
) -> Option<TokenStream> {
    if is_dense(model, mat) {
        return None;
    }
    let (rows, cols) = (ulit(mat.rows), ulit(mat.cols));
    Some(quote! {
        fn #method(&self) -> Option<#rt::Sparsity> {
            Some(#rt::Sparsity { rows: #rows, cols: #cols, nonzeros: Self::#konst })
        }
    })
}

/// How generated code reads a parameter from `self`: the field `m`, or for the member `m[3]`
/// of an array parameter (`pub m: [f64; 41]`) the element `m[3]`.
pub(crate) fn field_access(name: &str) -> TokenStream {
    match crate::model::split_indexed(name) {
        Some((base, i)) => {
            let (base, i) = (ident(base), ulit(i));
            quote!(#base[#i])
        }
        None => ident(name).into_token_stream(),
    }
}

/// [`field_access`] as an expression of a kernel: `self.m` or `self.m[3]`.
pub(crate) fn parameter_read(name: &str) -> syn::Expr {
    use crate::emit_ast::{field, index, int, path};
    match crate::model::split_indexed(name) {
        Some((base, i)) => index(field(path("self"), ident(base)), int(i)),
        None => field(path("self"), ident(name)),
    }
}

/// An unsuffixed integer literal (`3`, not `3usize`).
pub(crate) fn ulit(i: usize) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_unsuffixed(i)
}

/// A Rust identifier for a user name; keywords become raw identifiers (`r#gen`).
pub fn ident(name: &str) -> Ident {
    // syn 2 parses `gen` (reserved since edition 2024) as a plain identifier: escape it too.
    match syn::parse_str::<Ident>(name) {
        Ok(id) if name != "gen" => id,
        _ => Ident::new_raw(name, Span::call_site()),
    }
}

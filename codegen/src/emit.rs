//! Rust emission: a model's kernels as an `impl ConstrainedSystem` for its struct.
//!
//! Each kernel is scheduled by [`Schedule`] over all of its outputs (the fused
//! `dynamics_into` over M, Q, G and γ together), then printed: inputs' lengths asserted, the
//! output zero-filled when it has structural zeros (they are never computed), temporaries bound
//! with `let` in evaluation order, then one assignment per nonzero entry. The file form is
//! normalised by prettyplease, so emission is byte-identical across runs.

use crate::cse::Schedule;
use crate::emit_expr::{ExprEmitter, Prec};
use crate::kernels::{ExprMatrix, Kernels};
use crate::model::Model;
use crate::pool::{ExprId, SymbolKind};
use mbsim_kernel_table::{Group, Input, KERNELS, KernelSpec};
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

/// One output of a kernel.
struct Output {
    binding: Ident,
    shape: Shape,
    entries: Vec<ExprId>,
}

#[derive(Clone, Copy)]
enum Shape {
    Vector(usize),
    Matrix(usize, usize),
}

/// The inputs of a kernel besides `&self`, `t` and `q`, with their lengths.
type Inputs<'a> = &'a [(Input, usize)];

/// The tokens of the model's impl (and struct, if asked).
pub fn emit_tokens(model: &Model, kernels: &Kernels, options: &EmitOptions) -> TokenStream {
    emit_tokens_drawn(model, kernels, None, options)
}

/// [`emit_tokens`] for a model that may draw itself: `drawing` is the body of its
/// `impl Drawing` (from `frontend::draw::emit`), which also gets the `as_drawing` override.
pub fn emit_tokens_drawn(
    model: &Model,
    kernels: &Kernels,
    drawing: Option<TokenStream>,
    options: &EmitOptions,
) -> TokenStream {
    let name = ident(&model.name);
    let rt = &options.runtime_path;
    let fields: Vec<TokenStream> = model
        .parameters
        .iter()
        .map(|p| field_access(&p.name))
        .collect();
    let (n, m, k) = (
        ulit(model.n()),
        ulit(kernels.phi.len()),
        ulit(kernels.nh_offset.len()),
    );
    let ([kernel_fns, tangent_fns, energy_fns], kernel_helpers) =
        kernel_functions(model, kernels, &fields, options);
    let tangent = kernels
        .tangents
        .is_some()
        .then(|| quote!(impl #rt::TangentSystem for #name { #tangent_fns }));
    let energy = kernels
        .energy
        .is_some()
        .then(|| quote!(impl #rt::Energy for #name { #energy_fns }));
    let views = views(kernels, drawing.is_some(), rt);
    let drawing = drawing.map(|body| quote!(impl #rt::Drawing for #name { #body }));
    let names = constraint_names(model);
    let diagnostics = generated_diagnostics(model, kernels, rt);
    let accessors = accessors(model, &fields, rt);
    let phi_q_nz = sparsity(model, &kernels.phi_q);
    let l_nz = sparsity(model, &kernels.l);
    let mass_sparsity = optional_sparsity(model, &kernels.mass, quote!(mass_sparsity), rt);
    let a_sparsity = optional_sparsity(model, &kernels.nh_matrix, quote!(a_sparsity), rt);
    let (pr, pc) = (ulit(kernels.phi_q.rows), ulit(kernels.phi_q.cols));
    let (lr, lc) = (ulit(kernels.l.rows), ulit(kernels.l.cols));
    let n_params = ulit(fields.len());
    let struct_def = options.with_struct.then(|| {
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
    });
    quote! {
        #struct_def
        impl #name {
            /// Structural nonzeros of Φ_q, row-major.
            pub const PHI_Q_SPARSITY: &'static [(usize, usize)] = &[#phi_q_nz];
            /// Structural nonzeros of L = ∂(Φ_q v)/∂q, row-major.
            pub const L_SPARSITY: &'static [(usize, usize)] = &[#l_nz];
            #(#kernel_helpers)*
        }
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
            #names
            #diagnostics
            #views
            #kernel_fns
        }
        #tangent
        #energy
        #drawing
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
fn views(kernels: &Kernels, drawing: bool, rt: &syn::Path) -> TokenStream {
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
    quote!(#tangents #energy #drawing)
}

/// The formatted source of the model's impl (prettyplease), deterministic.
pub fn emit_source(model: &Model, kernels: &Kernels, options: &EmitOptions) -> String {
    let tokens = emit_tokens(model, kernels, options);
    let file: syn::File = syn::parse2(tokens).expect("emitted tokens form a Rust file");
    prettyplease::unparse(&file)
}

/// The methods of every kernel, by group of the kernel table (`[core, tangent, energy]`; the
/// fused `dynamics_into` ends the core group), and the helpers of split kernels, by group.
fn kernel_functions(
    model: &Model,
    kernels: &Kernels,
    fields: &[TokenStream],
    options: &EmitOptions,
) -> ([TokenStream; 3], [TokenStream; 3]) {
    let (mut methods, mut helpers) = <([TokenStream; 3], [TokenStream; 3])>::default();
    let dims = (model.n(), kernels.phi.len(), kernels.nh_offset.len());
    // Structured models look for sub-sums over the whole pool (`Model::structured`), once.
    let pool_splits = model
        .structured
        .then(|| crate::cse::pool_splits(&model.pool));
    let splits = pool_splits.as_ref();
    for spec in KERNELS {
        let Some(entries) = kernels.entries(spec.id) else {
            continue;
        };
        let output = Output {
            binding: format_ident!("out"),
            shape: shape(spec, dims),
            entries: entries.to_vec(),
        };
        let inputs = inputs(spec, dims);
        let code = kernel_fn(
            model,
            fields,
            options,
            splits,
            (spec.method, &inputs),
            &[output],
        );
        let g = group_index(spec.group);
        methods[g].extend(code.method);
        helpers[g].extend(code.helpers);
    }
    let code = fused(model, kernels, fields, options, splits);
    methods[0].extend(code.method);
    helpers[0].extend(code.helpers);
    (methods, helpers)
}

/// `dynamics_into`: M, Q, G and γ with one schedule.
fn fused(
    model: &Model,
    kernels: &Kernels,
    fields: &[TokenStream],
    options: &EmitOptions,
    splits: Option<&crate::cse::Splits>,
) -> KernelCode {
    let vector = |binding: &str, entries: &[ExprId]| Output {
        binding: format_ident!("{binding}"),
        shape: Shape::Vector(entries.len()),
        entries: entries.to_vec(),
    };
    let matrix = |binding: &str, mat: &ExprMatrix| Output {
        binding: format_ident!("{binding}"),
        shape: Shape::Matrix(mat.rows, mat.cols),
        entries: mat.entries.clone(),
    };
    let outputs = [
        matrix("mass", &kernels.mass),
        vector("force", &kernels.force),
        matrix("jacobian", &kernels.jacobian()),
        vector("gamma", &kernels.gamma),
    ];
    let inputs = [(Input::V, model.n())];
    let spec = ("dynamics_into", &inputs[..]);
    kernel_fn(model, fields, options, splits, spec, &outputs)
}

fn group_index(group: Group) -> usize {
    match group {
        Group::Core => 0,
        Group::Tangent => 1,
        Group::Energy => 2,
    }
}

fn shape(spec: &KernelSpec, (n, m, k): (usize, usize, usize)) -> Shape {
    match spec.shape {
        mbsim_kernel_table::Shape::Vector(d) => Shape::Vector(d.of(n, m, k)),
        mbsim_kernel_table::Shape::Matrix(r, c) => Shape::Matrix(r.of(n, m, k), c.of(n, m, k)),
    }
}

fn inputs(spec: &KernelSpec, (n, m, k): (usize, usize, usize)) -> Vec<(Input, usize)> {
    spec.inputs
        .iter()
        .map(|&i| (i, i.dim().of(n, m, k)))
        .collect()
}

/// `constraint_names()` when a constraint row is labeled (otherwise the trait's default names
/// are the model's names).
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

/// A kernel's trait method and, for kernels split into parts, the private helper methods.
struct KernelCode {
    method: TokenStream,
    helpers: TokenStream,
}

/// One kernel's code; `splits` are the pool-wide sub-sum rewrites of a structured model (else
/// the schedule finds its own among the nodes the outputs reach).
fn kernel_fn(
    model: &Model,
    fields: &[TokenStream],
    options: &EmitOptions,
    splits: Option<&crate::cse::Splits>,
    spec: (&str, Inputs<'_>),
    outputs: &[Output],
) -> KernelCode {
    let (name, inputs) = spec;
    let rt = &options.runtime_path;
    let pool = &model.pool;
    let n = ulit(model.n());
    let roots: Vec<ExprId> = outputs
        .iter()
        .flat_map(|o| o.entries.iter().copied())
        .filter(|&e| !model.pool.is_zero(e))
        .collect();
    let schedule = match splits {
        Some(splits) => Schedule::with_splits(pool, &roots, splits),
        None => Schedule::new(pool, &roots),
    };
    let split = schedule.temps.len() + roots.len() > options.max_statements_per_fn;
    let temp_names = schedule
        .temps
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let name = if split {
                let i = ulit(i);
                quote!(z[#i])
            } else {
                format_ident!("x{i}").into_token_stream()
            };
            (id, name)
        })
        .collect();
    let emitter = ExprEmitter {
        pool,
        schedule: &schedule,
        temp_names,
        param_fields: fields,
    };
    let uses_time = pool.mentions_any(&roots, |s| matches!(s.kind, SymbolKind::Time));
    let t = if uses_time { quote!(t) } else { quote!(_t) };
    let fn_name = format_ident!("{name}");
    let (v_param, v_check) = input_plumbing(inputs);
    let (out_params, out_checks, fills) = output_plumbing(model, rt, outputs, split);
    let mut statements: Vec<TokenStream> = schedule
        .temps
        .iter()
        .map(|&id| {
            let name = &emitter.temp_names[&id];
            let (value, _) = emitter.node(id);
            if split {
                quote!(#name = #value;)
            } else {
                quote!(let #name = #value;)
            }
        })
        .collect();
    statements.extend(assignments(model, &emitter, outputs));
    let signature = quote!(fn #fn_name(&self, #t: f64, q: &[f64], #v_param #out_params));
    let prologue = quote! {
        assert_eq!(q.len(), #n, "q must have n = {} entries", #n);
        #v_check
        #out_checks
        #fills
    };
    if !split {
        let method = quote!(#signature { #prologue #(#statements)* });
        return KernelCode {
            method,
            helpers: TokenStream::new(),
        };
    }
    split_kernel(
        rt,
        name,
        inputs,
        outputs,
        schedule.temps.len(),
        &statements,
        (signature, prologue),
    )
}

/// A kernel too large for one function (rustc's time grows faster than linearly with function
/// size): temporaries live in a scratch array `z`, and the statements are cut into parts, each a
/// private `#[inline(never)]` method, called in order.
fn split_kernel(
    rt: &syn::Path,
    name: &str,
    inputs: Inputs<'_>,
    outputs: &[Output],
    temps: usize,
    statements: &[TokenStream],
    (signature, prologue): (TokenStream, TokenStream),
) -> KernelCode {
    let size = ulit(temps.max(1));
    let (v_param, _) = input_plumbing(inputs);
    let names = inputs.iter().map(|(i, _)| format_ident!("{}", i.name()));
    let v_arg = quote!(#(#names,)*);
    let out_params = outputs.iter().map(|o| {
        let b = &o.binding;
        match o.shape {
            Shape::Vector(_) => quote!(#b: &mut [f64]),
            Shape::Matrix(..) => quote!(#b: &mut #rt::MatOut<'_>),
        }
    });
    let out_params: Vec<TokenStream> = out_params.collect();
    let out_args: Vec<TokenStream> = outputs
        .iter()
        .map(|o| {
            let b = &o.binding;
            match o.shape {
                Shape::Vector(_) => quote!(#b),
                Shape::Matrix(..) => quote!(&mut #b),
            }
        })
        .collect();
    let chunk = statements
        .len()
        .div_ceil(statements.len().div_ceil(PART_STATEMENTS));
    let mut helpers = TokenStream::new();
    let mut calls = TokenStream::new();
    for (i, part) in statements.chunks(chunk.max(1)).enumerate() {
        let part_name = format_ident!("{name}_part{i}");
        helpers.extend(quote! {
            #[inline(never)]
            #[allow(unused_variables, clippy::too_many_arguments)]
            fn #part_name(&self, t: f64, q: &[f64], #v_param z: &mut [f64], #(#out_params),*) {
                #(#part)*
            }
        });
        calls.extend(quote!(self.#part_name(t, q, #v_arg &mut z, #(#out_args),*);));
    }
    let signature = signature.to_string().replace("_t :", "t :");
    let signature: TokenStream = signature.parse().expect("the signature re-parses");
    let method = quote! {
        #signature {
            #prologue
            // Scratch space for the temporaries of the parts below (large models only).
            let mut z = vec![0.0_f64; #size];
            #calls
        }
    };
    KernelCode { method, helpers }
}

/// The parameters `v: &[f64], lambda: &[f64], …` of a kernel's extra inputs and their length
/// assertions.
fn input_plumbing(inputs: Inputs<'_>) -> (TokenStream, TokenStream) {
    let (mut params, mut checks) = (TokenStream::new(), TokenStream::new());
    for &(input, len) in inputs {
        let name = format_ident!("{}", input.name());
        let what = match input {
            Input::V | Input::W => "n",
            Input::Lambda => "m + k",
        };
        let msg = format!("{name} must have {what} = {{}} entries");
        let len = ulit(len);
        params.extend(quote!(#name: &[f64],));
        checks.extend(quote!(assert_eq!(#name.len(), #len, #msg, #len);));
    }
    (params, checks)
}

/// Statements per part of a split kernel.
const PART_STATEMENTS: usize = 400;

/// One assignment per structurally nonzero output entry; a large, dense, symmetric matrix gets
/// its upper triangle assigned and the lower one mirrored by a loop (see [`mirrored`]).
fn assignments(model: &Model, emitter: &ExprEmitter<'_>, outputs: &[Output]) -> Vec<TokenStream> {
    let mut statements = Vec::new();
    for o in outputs {
        let binding = &o.binding;
        let mirror = mirrored(model, o);
        for (i, &e) in o.entries.iter().enumerate() {
            if model.pool.is_zero(e) {
                continue;
            }
            let value = || emitter.at(e, Prec::Sum);
            statements.push(match o.shape {
                Shape::Vector(_) => {
                    let (i, value) = (ulit(i), value());
                    quote!(#binding[#i] = #value;)
                }
                Shape::Matrix(_, cols) if mirror && i % cols < i / cols => continue,
                Shape::Matrix(_, cols) => {
                    let (r, c, value) = (ulit(i / cols), ulit(i % cols), value());
                    quote!(#binding[(#r, #c)] = #value;)
                }
            });
        }
        if let (true, Shape::Matrix(rows, _)) = (mirror, o.shape) {
            let n = ulit(rows);
            statements.push(quote! {
                // The lower triangle mirrors the upper one (the matrix is symmetric).
                for i in 1..#n { for j in 0..i { #binding[(i, j)] = #binding[(j, i)]; } }
            });
        }
    }
    statements
}

/// Whether a square output is symmetric entry by entry (the same expression) and large and
/// dense enough that mirroring its lower triangle in a loop saves code: at least 64 nonzero
/// entries below the diagonal, filling at least half of it (the mass matrices of bodies in
/// relative coordinates; the small models' kernels keep one assignment per entry).
fn mirrored(model: &Model, o: &Output) -> bool {
    let Shape::Matrix(rows, cols) = o.shape else {
        return false;
    };
    if rows != cols {
        return false;
    }
    let at = |i: usize, j: usize| o.entries[i * cols + j];
    let lower = (1..rows).flat_map(|i| (0..i).map(move |j| (i, j)));
    let mut nonzero = 0;
    for (i, j) in lower {
        if at(i, j) != at(j, i) {
            return false;
        }
        nonzero += usize::from(!model.pool.is_zero(at(i, j)));
    }
    nonzero >= 64 && 2 * nonzero >= rows * (rows - 1) / 2
}

/// Parameters, shape assertions and zero fills for a kernel's outputs.
fn output_plumbing(
    model: &Model,
    rt: &syn::Path,
    outputs: &[Output],
    split: bool,
) -> (TokenStream, TokenStream, TokenStream) {
    let mut checks = TokenStream::new();
    let mut fills = TokenStream::new();
    for o in outputs {
        let b = &o.binding;
        let msg = format!("{b} has the wrong shape");
        checks.extend(match o.shape {
            Shape::Vector(len) => {
                let len = ulit(len);
                quote!(assert_eq!(#b.len(), #len, #msg);)
            }
            Shape::Matrix(r, c) => {
                let (r, c) = (ulit(r), ulit(c));
                quote!(assert_eq!(#b.shape(), (#r, #c), #msg);)
            }
        });
        if o.entries.iter().any(|&e| model.pool.is_zero(e)) {
            fills.extend(quote!(#b.fill(0.0);));
        }
    }
    // A matrix view is written through `&mut self` methods, so it is `mut` when written at all.
    // In a split kernel every matrix view is lent out as `&mut` to the parts.
    let mutability = |o: &Output| {
        (matches!(o.shape, Shape::Matrix(..)) && (split || !o.entries.is_empty()))
            .then(|| quote!(mut))
    };
    let params = if outputs.len() == 1 {
        let b = &outputs[0].binding;
        let m = mutability(&outputs[0]);
        match outputs[0].shape {
            Shape::Vector(_) => quote!(#b: &mut [f64]),
            Shape::Matrix(..) => quote!(#m #b: #rt::MatOut<'_>),
        }
    } else {
        let names = outputs.iter().map(|o| {
            let b = &o.binding;
            let m = mutability(o);
            quote!(#m #b)
        });
        let destructure = quote!(let #rt::DynamicsOut { #(#names),* } = out;);
        checks = quote!(#destructure #checks);
        quote!(out: #rt::DynamicsOut<'_>)
    };
    (params, checks, fills)
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

/// The override of the provided `method` (`mass_sparsity`, `a_sparsity`) stating `mat`'s
/// structural nonzeros; nothing when every entry may be nonzero (the default, `None`, means
/// dense) or the matrix is empty.
fn optional_sparsity(
    model: &Model,
    mat: &ExprMatrix,
    method: TokenStream,
    rt: &syn::Path,
) -> Option<TokenStream> {
    let dense = mat.entries.iter().all(|&e| !model.pool.is_zero(e));
    if dense {
        return None;
    }
    let (rows, cols) = (ulit(mat.rows), ulit(mat.cols));
    let nonzeros = sparsity(model, mat);
    Some(quote! {
        fn #method(&self) -> Option<#rt::Sparsity> {
            Some(#rt::Sparsity { rows: #rows, cols: #cols, nonzeros: &[#nonzeros] })
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

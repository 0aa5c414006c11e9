//! The methods of a model's kernels, as syn trees: each kernel scheduled by [`Schedule`] over
//! all of its outputs (the fused `dynamics_into` over M, Q, G and γ together), then written out:
//! inputs' lengths asserted, the output zero-filled when it has structural zeros (they are never
//! computed), temporaries bound with `let` in evaluation order, then one assignment per nonzero
//! entry. Signatures and prologues are small and parsed from tokens; the statements, the bulk
//! of a file, are built as trees directly ([`crate::emit_ast`]).

use crate::cse::Schedule;
use crate::emit::{EmitOptions, ulit};
use crate::emit_ast::{assign_stmt, entry, indexed, let_stmt, path};
use crate::emit_expr::{ExprEmitter, Prec};
use crate::emit_sparse::{nonzero_forms, sparse_forms, tangent_form};
use crate::kernels::{ExprMatrix, Kernels};
use crate::model::Model;
use crate::pool::{ExprId, SymbolKind};
use mbsim_kernel_table::{Group, Input, KERNELS, KernelSpec};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Expr, ImplItemFn, Stmt};

/// One output of a kernel.
pub(crate) struct Output {
    binding: &'static str,
    shape: Shape,
    entries: Vec<ExprId>,
    /// Only the upper triangle is computed (see [`mirrored`]).
    mirror: bool,
}

impl Output {
    pub(crate) fn new(
        model: &Model,
        binding: &'static str,
        shape: Shape,
        entries: Vec<ExprId>,
    ) -> Output {
        let mirror = mirrored(model, shape, &entries);
        Output {
            binding,
            shape,
            entries,
            mirror,
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Shape {
    Vector(usize),
    Matrix(usize, usize),
}

/// The inputs of a kernel besides `&self`, `t` and `q`, with their lengths.
type Inputs<'a> = &'a [(Input, usize)];

/// The kernels' methods by group of the kernel table (`[core, tangent, energy]`).
pub(crate) type ByGroup = [Vec<ImplItemFn>; 3];

/// A kernel's trait method and, for kernels split into parts, the private helper methods.
pub(crate) struct KernelCode {
    pub(crate) method: ImplItemFn,
    pub(crate) helpers: Vec<ImplItemFn>,
}

/// What every kernel of a model shares: the model, how parameters are read (`self.m`,
/// `self.m[3]`), the options and, for a structured model, the pool-wide sub-sum rewrites (else
/// each schedule finds its own among the nodes its outputs reach).
pub(crate) struct Context<'a> {
    pub(crate) model: &'a Model,
    params: &'a [Expr],
    pub(crate) options: &'a EmitOptions,
    splits: Option<&'a crate::cse::Splits>,
}

/// The methods of every kernel, by group (the fused `dynamics_into` ends the core group), and
/// the helpers of split kernels, by group.
pub(crate) fn kernel_functions(
    model: &Model,
    kernels: &Kernels,
    params: &[Expr],
    options: &EmitOptions,
) -> (ByGroup, ByGroup) {
    let (mut methods, mut helpers) = <(ByGroup, ByGroup)>::default();
    let dims = (model.n(), kernels.phi.len(), kernels.nh_offset.len());
    // Structured models look for sub-sums over the whole pool (`Model::structured`), once.
    let pool_splits = model
        .structured
        .then(|| crate::cse::pool_splits(&model.pool));
    let cx = Context {
        model,
        params,
        options,
        splits: pool_splits.as_ref(),
    };
    // A large sparse model's dense forms of M and G scatter its sparse forms (`emit_sparse.rs`).
    let sparse = nonzero_forms(model, kernels).then(|| sparse_forms(&cx, kernels));
    for spec in KERNELS {
        let Some(entries) = kernels.entries(spec.id) else {
            continue;
        };
        let g = group_index(spec.group);
        if let Some(method) = sparse.as_ref().and_then(|s| s.dense_row(spec.id)) {
            methods[g].push(method);
            continue;
        }
        let output = Output::new(model, "out", shape(spec, dims), entries.to_vec());
        let code = kernel_fn(&cx, (spec.method, &inputs(spec, dims)), &[output]);
        methods[g].push(code.method);
        helpers[g].extend(code.helpers);
    }
    if let Some(code) = tangent_form(&cx, kernels) {
        methods[1].push(code.method);
        helpers[1].extend(code.helpers);
    }
    let Some(sparse) = sparse else {
        let code = fused(&cx, kernels);
        methods[0].push(code.method);
        helpers[0].extend(code.helpers);
        return (methods, helpers);
    };
    methods[0].push(sparse.dense_fused());
    for code in sparse.codes {
        methods[0].push(code.method);
        helpers[0].extend(code.helpers);
    }
    (methods, helpers)
}

/// `dynamics_into`: M, Q, G and γ with one schedule.
fn fused(cx: &Context<'_>, kernels: &Kernels) -> KernelCode {
    let model = cx.model;
    let vector = |binding, entries: &[ExprId]| {
        Output::new(
            model,
            binding,
            Shape::Vector(entries.len()),
            entries.to_vec(),
        )
    };
    let matrix = |binding, mat: &ExprMatrix| {
        let shape = Shape::Matrix(mat.rows, mat.cols);
        Output::new(model, binding, shape, mat.entries.clone())
    };
    let outputs = [
        matrix("mass", &kernels.mass),
        vector("force", &kernels.force),
        matrix("jacobian", &kernels.jacobian()),
        vector("gamma", &kernels.gamma),
    ];
    let inputs = [(Input::V, cx.model.n())];
    kernel_fn(cx, ("dynamics_into", &inputs[..]), &outputs)
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

/// One kernel's code.
pub(crate) fn kernel_fn(
    cx: &Context<'_>,
    spec: (&str, Inputs<'_>),
    outputs: &[Output],
) -> KernelCode {
    let (name, inputs) = spec;
    let (model, rt) = (cx.model, &cx.options.runtime_path);
    let pool = &model.pool;
    let n = ulit(model.n());
    // The entries assigned: a mirrored matrix's lower triangle is copied, not computed, so it
    // is no root (else every off-diagonal entry would count as used twice and get a temporary).
    let roots: Vec<ExprId> = (outputs.iter())
        .flat_map(|o| assigned(model, o).map(|(_, e)| e))
        .collect();
    let schedule = match cx.splits {
        Some(splits) => Schedule::with_splits(pool, &roots, splits),
        None => Schedule::new(pool, &roots),
    };
    let split = schedule.temps.len() + roots.len() > cx.options.max_statements_per_fn;
    let temp_name = |i: usize| match split {
        true => indexed("z", i),
        false => path(&format!("x{i}")),
    };
    let temp_names = (schedule.temps.iter().enumerate())
        .map(|(i, &id)| (id, temp_name(i)))
        .collect();
    let emitter = ExprEmitter {
        pool,
        schedule: &schedule,
        temp_names,
        param_fields: cx.params,
    };
    let mut statements: Vec<Stmt> = (schedule.temps.iter().enumerate())
        .map(|(i, &id)| {
            let (value, _) = emitter.node(id);
            match split {
                true => assign_stmt(indexed("z", i), value),
                false => let_stmt(&format!("x{i}"), value),
            }
        })
        .collect();
    statements.extend(assignments(model, &emitter, outputs));
    let uses_time = pool.mentions_any(&roots, |s| matches!(s.kind, SymbolKind::Time));
    let t = if uses_time { quote!(t) } else { quote!(_t) };
    let fn_name = format_ident!("{name}");
    let (v_param, v_check) = input_plumbing(inputs);
    let (out_params, out_checks, fills) = output_plumbing(model, rt, outputs, split);
    let signature = quote!(fn #fn_name(&self, #t: f64, q: &[f64], #v_param #out_params));
    let prologue = quote! {
        assert_eq!(q.len(), #n, "q must have n = {} entries", #n);
        #v_check
        #out_checks
        #fills
    };
    if !split {
        let mut method = method_from(quote!(#signature { #prologue }));
        method.block.stmts.extend(statements);
        return KernelCode {
            method,
            helpers: Vec::new(),
        };
    }
    let parts = Parts {
        name,
        inputs,
        outputs,
        temps: schedule.temps.len(),
    };
    split_kernel(rt, parts, statements, (signature, prologue))
}

/// A method parsed from its tokens (signature and a short body).
fn method_from(tokens: TokenStream) -> ImplItemFn {
    syn::parse2(tokens).expect("the emitter's method tokens parse")
}

/// What a split kernel's parts need to know of it.
struct Parts<'a> {
    name: &'a str,
    inputs: Inputs<'a>,
    outputs: &'a [Output],
    temps: usize,
}

/// A kernel too large for one function (rustc's time grows faster than linearly with function
/// size): temporaries live in a scratch array `z`, and the statements are cut into parts, each a
/// private `#[inline(never)]` method, called in order.
fn split_kernel(
    rt: &syn::Path,
    parts: Parts<'_>,
    statements: Vec<Stmt>,
    (signature, prologue): (TokenStream, TokenStream),
) -> KernelCode {
    let size = ulit(parts.temps.max(1));
    let (v_param, _) = input_plumbing(parts.inputs);
    let names = parts
        .inputs
        .iter()
        .map(|(i, _)| format_ident!("{}", i.name()));
    let v_arg = quote!(#(#names,)*);
    let out_params: Vec<TokenStream> = (parts.outputs.iter())
        .map(|o| {
            let b = format_ident!("{}", o.binding);
            match o.shape {
                Shape::Vector(_) => quote!(#b: &mut [f64]),
                Shape::Matrix(..) => quote!(#b: &mut #rt::MatOut<'_>),
            }
        })
        .collect();
    let out_args: Vec<TokenStream> = (parts.outputs.iter())
        .map(|o| {
            let b = format_ident!("{}", o.binding);
            match o.shape {
                Shape::Vector(_) => quote!(#b),
                Shape::Matrix(..) => quote!(&mut #b),
            }
        })
        .collect();
    let chunk = statements
        .len()
        .div_ceil(statements.len().div_ceil(PART_STATEMENTS))
        .max(1);
    let mut helpers = Vec::new();
    let mut calls = TokenStream::new();
    let mut statements = statements.into_iter().peekable();
    while statements.peek().is_some() {
        let part_name = format_ident!("{}_part{}", parts.name, helpers.len());
        let mut helper = method_from(quote! {
            #[inline(never)]
            #[allow(unused_variables, clippy::too_many_arguments)]
            fn #part_name(&self, t: f64, q: &[f64], #v_param z: &mut [f64], #(#out_params),*) {}
        });
        helper.block.stmts.extend(statements.by_ref().take(chunk));
        helpers.push(helper);
        calls.extend(quote!(self.#part_name(t, q, #v_arg &mut z, #(#out_args),*);));
    }
    let signature = signature.to_string().replace("_t :", "t :");
    let signature: TokenStream = signature.parse().expect("the signature re-parses");
    let method = method_from(quote! {
        #signature {
            #prologue
            // Scratch space for the temporaries of the parts below (large models only).
            let mut z = vec![0.0_f64; #size];
            #calls
        }
    });
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

/// One assignment per structurally nonzero output entry; a large, dense, symmetric matrix (see
/// [`mirrored`]) gets its upper triangle computed, each entry copied to its mirror image right
/// after it is written (a loop over the lower triangle afterwards re-read the upper one with a
/// stride: a tenth of the n = 60 pendulum's `dynamics_into`).
fn assignments(model: &Model, emitter: &ExprEmitter<'_>, outputs: &[Output]) -> Vec<Stmt> {
    let mut statements = Vec::new();
    for o in outputs {
        for (i, e) in assigned(model, o) {
            let value = emitter.at(e, Prec::Sum);
            let (r, c) = match o.shape {
                Shape::Vector(_) => {
                    statements.push(assign_stmt(indexed(o.binding, i), value));
                    continue;
                }
                Shape::Matrix(_, cols) => (i / cols, i % cols),
            };
            statements.push(assign_stmt(entry(o.binding, r, c), value));
            if o.mirror && r != c {
                statements.push(assign_stmt(entry(o.binding, c, r), entry(o.binding, r, c)));
            }
        }
    }
    statements
}

/// The entries of `o` that get an assignment, with their flat index: the structurally nonzero
/// ones, less a mirrored matrix's lower triangle.
fn assigned<'o>(model: &'o Model, o: &'o Output) -> impl Iterator<Item = (usize, ExprId)> + 'o {
    let lower = move |i: usize| match o.shape {
        Shape::Matrix(_, cols) => o.mirror && i % cols < i / cols,
        Shape::Vector(_) => false,
    };
    (o.entries.iter().copied().enumerate())
        .filter(move |&(i, e)| !model.pool.is_zero(e) && !lower(i))
}

/// Whether a square output is symmetric entry by entry (the same expression) and large and
/// dense enough that computing its upper triangle only and copying each entry pays: at least 64
/// nonzero entries below the diagonal, filling at least half of it (the mass matrices of bodies
/// in relative coordinates; the small models' kernels keep one assignment per entry).
fn mirrored(model: &Model, shape: Shape, entries: &[ExprId]) -> bool {
    let Shape::Matrix(rows, cols) = shape else {
        return false;
    };
    if rows != cols {
        return false;
    }
    let at = |i: usize, j: usize| entries[i * cols + j];
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
        let b = format_ident!("{}", o.binding);
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
        let b = format_ident!("{}", outputs[0].binding);
        let m = mutability(&outputs[0]);
        match outputs[0].shape {
            Shape::Vector(_) => quote!(#b: &mut [f64]),
            Shape::Matrix(..) => quote!(#m #b: #rt::MatOut<'_>),
        }
    } else {
        let names = outputs.iter().map(|o| {
            let b = format_ident!("{}", o.binding);
            let m = mutability(o);
            quote!(#m #b)
        });
        // The fused kernel's outputs: dense (`DynamicsOut`) or as nonzeros (`DynamicsNonzeros`).
        let bundle = match outputs[0].shape {
            Shape::Matrix(..) => quote!(DynamicsOut),
            Shape::Vector(_) => quote!(DynamicsNonzeros),
        };
        let destructure = quote!(let #rt::#bundle { #(#names),* } = out;);
        checks = quote!(#destructure #checks);
        quote!(out: #rt::#bundle<'_>)
    };
    (params, checks, fills)
}

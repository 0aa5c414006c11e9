//! The sparse kernel forms of a large sparse model and the dense forms they replace.
//!
//! A model of KKT order n + m + k ≥ 40 whose M and G = [Φ_q; A] are at most a quarter full
//! ([`nonzero_forms`]) gets `dynamics_nonzeros_into`, `mass_nonzeros_into` and
//! `jacobian_nonzeros_into`: M's and G's structurally nonzero entries, row by row (the order of
//! the emitted patterns), written as vectors with nothing to zero-fill. Its dense forms of the
//! same outputs (`dynamics_into`, `mass_into`, `phi_q_into`, and `nh_matrix_into` when k > 0)
//! are not emitted a second time: each calls its sparse form into an array of the pattern's
//! length, zero-fills its view and scatters the nonzeros through the pattern constants
//! (`MASS_SPARSITY`, `PHI_Q_SPARSITY`, `A_SPARSITY`), so every expression is emitted once and
//! both forms give the same numbers bit for bit. The array is on the stack, or on the heap when
//! the sparse form itself is split into parts (it then has more than
//! `EmitOptions::max_statements_per_fn` statements and a heap scratch array of its own), so the
//! stack holds at most that many entries.
//!
//! With `tangents: true` such a model also gets `tangent_nonzeros_into` ([`tangent_form`]): K =
//! ∂(M w + Gᵀλ − Q)/∂q (the sum built in `kernels.rs`) and ∂Q/∂v on the union of their
//! nonzeros (`TANGENT_SPARSITY`), for the implicit methods' sparse path; the five dense tangent
//! kernels stay as they are.

use crate::emit::ulit;
use crate::emit_kernel::{Context, KernelCode, Output, Shape, kernel_fn};
use crate::kernels::Kernels;
use crate::model::Model;
use crate::pool::ExprId;
use mbsim_kernel_table::{Input, KernelId};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ImplItemFn;

/// Smallest KKT order n + m + k whose model gets the sparse kernel forms: the runtime's
/// `KktSolver::MIN_BANDED_ORDER`, below which the KKT solve is dense anyway.
pub const NONZERO_FORMS_MIN_ORDER: usize = 40;

/// The sparse forms are emitted when M's and G's nonzeros are at most this fraction of their
/// n² + (m + k)·n entries (the zero fill they save is then at least 4× the entries written).
pub const NONZERO_FORMS_MAX_FILL: f64 = 0.25;

/// Whether the model gets the sparse kernel forms (`has_nonzero_forms`): large enough for the
/// banded KKT path and sparse enough that the dense forms' zero fill dominates. Measured on the
/// body-coordinate four-bar chain (`cargo bench -p mbsim-runtime --bench kkt`).
pub fn nonzero_forms(model: &Model, kernels: &Kernels) -> bool {
    let n = model.n();
    let rows = kernels.phi.len() + kernels.nh_offset.len();
    let stored = nonzeros(model, &kernels.mass.entries).len()
        + nonzeros(model, &kernels.jacobian().entries).len();
    let dense = n * n + rows * n;
    n + rows >= NONZERO_FORMS_MIN_ORDER && (stored as f64) <= NONZERO_FORMS_MAX_FILL * dense as f64
}

/// The structurally nonzero entries, in order.
fn nonzeros(model: &Model, entries: &[ExprId]) -> Vec<ExprId> {
    (entries.iter().copied())
        .filter(|&e| !model.pool.is_zero(e))
        .collect()
}

/// A model's sparse forms, emitted, and what its dense forms need to scatter them.
pub(crate) struct SparseForms {
    /// `dynamics_nonzeros_into`, `mass_nonzeros_into`, `jacobian_nonzeros_into`.
    pub(crate) codes: [KernelCode; 3],
    /// (n, m, k).
    dims: (usize, usize, usize),
    /// Nonzeros of M, Φ_q and A.
    lengths: (usize, usize, usize),
    /// The runtime's path (`::mbsim::__private`).
    rt: syn::Path,
}

/// The sparse forms of M and G: the fused `dynamics_nonzeros_into` (M, Q, G, γ with one
/// schedule), `mass_nonzeros_into` and `jacobian_nonzeros_into` (G = [Φ_q; A]).
pub(crate) fn sparse_forms(cx: &Context<'_>, kernels: &Kernels) -> SparseForms {
    let model = cx.model;
    let vector = |binding, entries: Vec<ExprId>| {
        Output::new(model, binding, Shape::Vector(entries.len()), entries)
    };
    let mass = nonzeros(model, &kernels.mass.entries);
    let phi_q = nonzeros(model, &kernels.phi_q.entries);
    let a = nonzeros(model, &kernels.nh_matrix.entries);
    let jacobian: Vec<ExprId> = phi_q.iter().chain(&a).copied().collect();
    let lengths = (mass.len(), phi_q.len(), a.len());
    let outputs = [
        vector("mass", mass.clone()),
        vector("force", kernels.force.clone()),
        vector("jacobian", jacobian.clone()),
        vector("gamma", kernels.gamma.clone()),
    ];
    let v = [(Input::V, model.n())];
    let codes = [
        kernel_fn(cx, ("dynamics_nonzeros_into", &v[..]), &outputs),
        kernel_fn(cx, ("mass_nonzeros_into", &[]), &[vector("out", mass)]),
        kernel_fn(
            cx,
            ("jacobian_nonzeros_into", &[]),
            &[vector("out", jacobian)],
        ),
    ];
    SparseForms {
        codes,
        dims: (model.n(), kernels.phi.len(), kernels.nh_offset.len()),
        lengths,
        rt: cx.options.runtime_path.clone(),
    }
}

/// A block of nonzeros a dense form scatters: M's, or Φ_q's and A's (the first and the last
/// of G's).
#[derive(Clone, Copy)]
enum Block {
    Mass,
    PhiQ,
    A,
}

impl SparseForms {
    /// The dense form of the table row `id` as a scatter of a sparse form, for the rows that
    /// have one: M, Φ_q, and A when the model has nonholonomic rows.
    pub(crate) fn dense_row(&self, id: KernelId) -> Option<ImplItemFn> {
        let (n, m, k) = self.dims;
        let (method, rows, block) = match id {
            KernelId::Mass => (quote!(mass_into), n, Block::Mass),
            KernelId::PhiQ => (quote!(phi_q_into), m, Block::PhiQ),
            KernelId::NhMatrix if k > 0 => (quote!(nh_matrix_into), k, Block::A),
            _ => return None,
        };
        let (source, len, split) = self.source(block);
        let array = scratch(len, split);
        let scatter = self.scatter(block, "out", "nonzeros", 0);
        let (rt, rows, cols) = (&self.rt, ulit(rows), ulit(n));
        Some(method_from(quote! {
            fn #method(&self, t: f64, q: &[f64], mut out: #rt::MatOut<'_>) {
                assert_eq!(out.shape(), (#rows, #cols), "out has the wrong shape");
                let mut nonzeros = #array;
                self.#source(t, q, &mut nonzeros);
                out.fill(0.0);
                #scatter
            }
        }))
    }

    /// `dynamics_into` as a scatter of `dynamics_nonzeros_into`'s M and G; Q and γ are written
    /// by it directly.
    pub(crate) fn dense_fused(&self) -> ImplItemFn {
        let (n, m, k) = self.dims;
        let (mass_len, phi_q_len, a_len) = self.lengths;
        let split = !self.codes[0].helpers.is_empty();
        let mass_array = scratch(mass_len, split);
        let jacobian_array = scratch(phi_q_len + a_len, split);
        let mass = self.scatter(Block::Mass, "mass", "mass_nonzeros", 0);
        let phi_q = self.scatter(Block::PhiQ, "jacobian", "jacobian_nonzeros", 0);
        let a = (k > 0).then(|| self.scatter(Block::A, "jacobian", "jacobian_nonzeros", m));
        let (rt, n, mk) = (&self.rt, ulit(n), ulit(m + k));
        method_from(quote! {
            fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: #rt::DynamicsOut<'_>) {
                let #rt::DynamicsOut { mut mass, force, mut jacobian, gamma } = out;
                assert_eq!(mass.shape(), (#n, #n), "mass has the wrong shape");
                assert_eq!(jacobian.shape(), (#mk, #n), "jacobian has the wrong shape");
                let mut mass_nonzeros = #mass_array;
                let mut jacobian_nonzeros = #jacobian_array;
                let nonzeros = #rt::DynamicsNonzeros {
                    mass: &mut mass_nonzeros,
                    force,
                    jacobian: &mut jacobian_nonzeros,
                    gamma,
                };
                self.dynamics_nonzeros_into(t, q, v, nonzeros);
                mass.fill(0.0);
                #mass
                jacobian.fill(0.0);
                #phi_q
                #a
            }
        })
    }

    /// The sparse form a block's dense form calls, the length of its output and whether it is
    /// split into parts.
    fn source(&self, block: Block) -> (TokenStream, usize, bool) {
        let [_, mass, jacobian] = &self.codes;
        let (mass_len, phi_q_len, a_len) = self.lengths;
        match block {
            Block::Mass => (
                quote!(mass_nonzeros_into),
                mass_len,
                !mass.helpers.is_empty(),
            ),
            Block::PhiQ | Block::A => (
                quote!(jacobian_nonzeros_into),
                phi_q_len + a_len,
                !jacobian.helpers.is_empty(),
            ),
        }
    }

    /// The block's nonzeros, read from the array `values` (the whole output of its sparse
    /// form), written into the matrix view `out` through the block's pattern, rows shifted down
    /// by `first_row`.
    fn scatter(&self, block: Block, out: &str, values: &str, first_row: usize) -> TokenStream {
        let (out, values) = (format_ident!("{out}"), format_ident!("{values}"));
        let (pattern, values) = match block {
            Block::Mass => (quote!(MASS_SPARSITY), quote!(&#values)),
            Block::PhiQ => (quote!(PHI_Q_SPARSITY), quote!(&#values)),
            Block::A => {
                let start = ulit(self.lengths.1);
                (quote!(A_SPARSITY), quote!(&#values[#start..]))
            }
        };
        let row = match first_row {
            0 => quote!(r),
            _ => {
                let first_row = ulit(first_row);
                quote!(#first_row + r)
            }
        };
        quote! {
            for (&(r, c), &x) in Self::#pattern.iter().zip(#values) {
                #out[(#row, c)] = x;
            }
        }
    }
}

/// The tangent blocks' sparse form of a model with the sparse forms and tangents:
/// `tangent_nonzeros_into(t, q, v, lambda, w, out)` writes K = ∂(M w + Gᵀλ − Q)/∂q on the
/// nonzeros of `TANGENT_SPARSITY` (the union of K's and ∂Q/∂v's, row-major), then ∂Q/∂v on the
/// same entries: one schedule for both, no n × n zero fill. `None` for other models.
pub(crate) fn tangent_form(cx: &Context<'_>, kernels: &Kernels) -> Option<KernelCode> {
    let t = kernels.tangents.as_ref()?;
    let k = t.residual_q.as_ref()?;
    let model = cx.model;
    let pattern = tangent_pattern(model, kernels)?;
    let cols = k.cols;
    let values = (pattern.iter().map(|&(r, c)| k.entries[r * cols + c]))
        .chain(
            pattern
                .iter()
                .map(|&(r, c)| t.force_v.entries[r * cols + c]),
        )
        .collect::<Vec<_>>();
    let n = model.n();
    let inputs = [
        (Input::V, n),
        (Input::Lambda, k_rows(kernels)),
        (Input::W, n),
    ];
    let out = Output::new(model, "out", Shape::Vector(values.len()), values);
    Some(kernel_fn(
        cx,
        ("tangent_nonzeros_into", &inputs[..]),
        &[out],
    ))
}

/// The union of K's and ∂Q/∂v's structural nonzeros, row-major (`TANGENT_SPARSITY`); `None`
/// when the model has no tangent nonzero form.
pub(crate) fn tangent_pattern(model: &Model, kernels: &Kernels) -> Option<Vec<(usize, usize)>> {
    let t = kernels.tangents.as_ref()?;
    let k = t.residual_q.as_ref()?;
    let nonzero = |m: &crate::kernels::ExprMatrix, i: usize| !model.pool.is_zero(m.entries[i]);
    Some(
        (0..k.rows * k.cols)
            .filter(|&i| nonzero(k, i) || nonzero(&t.force_v, i))
            .map(|i| (i / k.cols, i % k.cols))
            .collect(),
    )
}

/// m + k, the multipliers' length.
fn k_rows(kernels: &Kernels) -> usize {
    kernels.phi.len() + kernels.nh_offset.len()
}

/// An array of `len` zeros for a sparse form's output: on the stack, on the heap when that form
/// is split into parts (see the module's paragraph).
fn scratch(len: usize, split: bool) -> TokenStream {
    let len = ulit(len);
    match split {
        false => quote!([0.0_f64; #len]),
        true => quote!(vec![0.0_f64; #len]),
    }
}

/// A method parsed from its tokens.
fn method_from(tokens: TokenStream) -> ImplItemFn {
    syn::parse2(tokens).expect("the emitter's method tokens parse")
}

//! `#[model(…)]`: annotate a struct whose `f64` fields are a model's runtime parameters, get an
//! `impl mbsim_runtime::ConstrainedSystem` for it, derived symbolically at compile time.
//!
//! The macro is a thin shell around [`mbsim_codegen::frontend::expand`], which `cargo xtask generate`
//! also calls, so the committed `generated/` files are exactly this macro's expansion. The
//! attribute's syntax is documented in `mbsim_codegen::frontend` (and the workspace README); errors
//! are `compile_error!`s spanned on the offending tokens, emitted next to the unchanged struct so
//! that uses of the struct elsewhere do not add follow-up errors. The expansion refers to the
//! runtime crate as `::runtime`: depend on it under that name.

use proc_macro::TokenStream;

/// Implement `mbsim_runtime::ConstrainedSystem` for the annotated struct; see the crate docs.
#[proc_macro_attribute]
pub fn model(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match mbsim_codegen::frontend::expand(attr.into(), item.clone()) {
        Ok(tokens) => tokens.into(),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out.into()
        }
    }
}

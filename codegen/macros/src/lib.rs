//! `#[model(…)]`: annotate a struct whose `f64` fields are a model's runtime parameters, get an
//! `impl ConstrainedSystem` for it, derived symbolically at compile time.
//!
//! The macro is a thin shell around [`mbsim_codegen::frontend::stub::expand_or_error`], whose
//! success path is [`mbsim_codegen::frontend::expand`], which `cargo xtask generate` also calls,
//! so the committed `generated/` files are exactly this macro's expansion. The attribute's
//! syntax is documented in `mbsim_codegen::frontend` (and the workspace README). The expansion
//! names the runtime's items through the façade, `::mbsim::__private` (`crate = path` in the
//! attribute moves it): depend on `mbsim`. A mistake is one `compile_error!` spanned on the
//! offending tokens, emitted next to the unchanged struct and a placeholder implementation, so
//! that uses of the struct elsewhere add no follow-up errors.

use proc_macro::TokenStream;

/// Implement `ConstrainedSystem` for the annotated struct; see the crate docs.
#[proc_macro_attribute]
pub fn model(attr: TokenStream, item: TokenStream) -> TokenStream {
    mbsim_codegen::frontend::stub::expand_or_error(attr.into(), item.into()).into()
}

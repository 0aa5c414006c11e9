//! One input through the front end, under the contract: no panic, every error located inside
//! the input, and (for a valid, smooth model) kernels that agree with finite differences.
//!
//! The path is the one `mbsim generate` and `cargo xtask generate` take, and (from the
//! attribute's tokens on) the proc-macro's: `frontend::file::models_in_source` finds the
//! annotated structs, `frontend::file::render` runs `expand_file` — parse, lowering, validation,
//! kernel derivation, CSE, emission — and formats the file with prettyplease. No rustc.
//!
//! "Located inside the input": every part of the `syn::Error` has a span in the input's text
//! (a parsed file's, its byte range within the text, its source the input's text there), so `mbsim generate`
//! prints a `file:line:col` that points into the file, and the proc-macro underlines the
//! user's tokens rather than the call site. Spans are checked through proc-macro2's
//! `span-locations` source map; it grows with every parsed text, so it is cleared after each
//! input (`invalidate_current_thread_spans`, once every span of the input is dropped).

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use mbsim_codegen::frontend::file;
use mbsim_codegen::kernels;
use mbsim_testkit::Rng;

use crate::model::Generated;

/// What an input did, when it kept the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every model built and emitted; `entries` kernel entries compared with finite differences.
    Built {
        /// Annotated structs found.
        models: usize,
        /// Kernel entries checked numerically (0 without the check).
        entries: usize,
    },
    /// A located error (the number of its parts).
    Rejected(usize),
}

/// A broken contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The front end panicked: the message and where.
    Panic(String),
    /// An error whose span is not inside the input.
    Unlocated {
        /// The error's message.
        message: String,
        /// Where its span points (file, byte range).
        span: String,
    },
    /// A kernel disagrees with finite differences (the comparison's message).
    Mismatch(String),
    /// One of the above as a campaign worker printed it (its text).
    Relayed(String),
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Panic(m) => write!(f, "panic: {m}"),
            Violation::Unlocated { message, span } => {
                write!(f, "error not located in the input ({span}): {message}")
            }
            Violation::Mismatch(m) => write!(f, "kernel disagrees with finite differences: {m}"),
            Violation::Relayed(m) => write!(f, "{m}"),
        }
    }
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replace the panic hook by one that records the message and location for [`run`], and
/// prints them only outside the campaign's worker thread (its inputs are reported, not sprayed
/// on stderr; `MBSIM_FUZZ_VERBOSE=1` prints them too). Call once per process.
pub fn quiet_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        LAST_PANIC.with(|p| {
            let msg = match info.payload().downcast_ref::<&str>() {
                Some(s) => s.to_string(),
                None => info
                    .payload()
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_default(),
            };
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()));
            *p.borrow_mut() = Some(msg + &at.unwrap_or_default());
        });
        let worker = std::thread::current().name() == Some(crate::campaign::WORKER);
        if !worker || std::env::var_os("MBSIM_FUZZ_VERBOSE").is_some() {
            previous(info);
        }
    }));
}

fn panic_message() -> String {
    LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| "(no message)".into())
}

/// Run one input. `numeric`: the generated model it came from, when the kernels of a valid
/// smooth model are to be checked against finite differences (seeded by `rng`).
pub fn run(text: &str, numeric: Option<(&Generated, &mut Rng)>) -> Result<Outcome, Violation> {
    proc_macro2::extra::invalidate_current_thread_spans();
    let result = catch_unwind(AssertUnwindSafe(|| pipeline(text, numeric)));
    let verdict = match result {
        Ok(v) => v,
        Err(_) => Err(Violation::Panic(panic_message())),
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    verdict
}

fn pipeline(text: &str, numeric: Option<(&Generated, &mut Rng)>) -> Result<Outcome, Violation> {
    let found = match file::models_in_source(text) {
        Ok(found) => found,
        Err(e) => return located(text, &e),
    };
    for model in &found {
        if let Err(e) = file::render("fuzz.rs", model) {
            return located(text, &e);
        }
    }
    let mut entries = 0;
    if let (Some((generated, rng)), [model]) = (numeric, found.as_slice())
        && generated.smooth
    {
        let mut built = model
            .build()
            .map_err(|e| Violation::Mismatch(format!("built once, not twice: {e}")))?;
        let derived = kernels::derive(&mut built);
        let lagrange = generated.lagrange_exact;
        entries = catch_unwind(AssertUnwindSafe(|| {
            crate::numeric::check(&built, &derived, rng, lagrange)
        }))
        .map_err(|_| Violation::Mismatch(panic_message()))?;
    }
    Ok(Outcome::Built {
        models: found.len(),
        entries,
    })
}

fn located(text: &str, error: &syn::Error) -> Result<Outcome, Violation> {
    let mut parts = 0;
    for e in error.clone() {
        parts += 1;
        let span = e.span();
        let range = span.byte_range();
        // A text parsed from the input (the front end may lex it twice) holds exactly the
        // input, so the span's source is the input's text over the same bytes; a call-site
        // span has no file and no text.
        let inside = span.file() != "<unspecified>"
            && range.end <= text.len()
            && span.source_text().as_deref() == text.get(range.clone())
            && span.start().line >= 1;
        if !inside {
            return Err(Violation::Unlocated {
                message: e.to_string(),
                span: format!("{} bytes {:?}", span.file(), range),
            });
        }
    }
    Ok(Outcome::Rejected(parts))
}

/// The front end's verdict on `text` in words: `ok` or its errors, each with `line:col` (for
/// looking at a reported input; not under the contract's watch).
pub fn explain(text: &str) -> String {
    proc_macro2::extra::invalidate_current_thread_spans();
    let result = file::models_in_source(text).and_then(|found| {
        found
            .iter()
            .try_for_each(|m| file::render("fuzz.rs", m).map(drop))
    });
    let words = match result {
        Ok(()) => "ok".to_string(),
        Err(e) => e
            .into_iter()
            .map(|p| {
                format!(
                    "{}:{}: {p}",
                    p.span().start().line,
                    p.span().start().column + 1
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    words
}

//! The Rust-syntax model front end shared by the proc-macro and `cargo xtask` (model-authoring issue).

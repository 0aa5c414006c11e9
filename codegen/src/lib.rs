//! Symbolic pipeline.

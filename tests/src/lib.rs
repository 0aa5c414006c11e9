//! Cross-crate verification: generated kernels compiled and compared, oracle tests, benchmarks.

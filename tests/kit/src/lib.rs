//! Test support shared by every crate of the workspace, with no dependency (but the optional
//! clock's) so that any test (codegen's, runtime's, the models', the CLI's) can use it freely:
//!
//! - [`Rng`], the one seeded generator (SplitMix64), so that failures reproduce;
//! - [`assert_entry`], the one comparison: on failure it prints the quantity, the index, both values,
//!   the difference and the tolerance. [`assert_close`] (absolute + relative per entry) and
//!   [`compare`] (relative to the reference's largest entry) are its slice forms;
//!   [`assert_below`] and [`assert_within`] bound a single measured quantity;
//! - with the feature `clock`, [`CpuClock`], the benchmarks' one thread-CPU clock.
//!
//! Tolerances are the caller's business and are derived next to each use.

use std::fmt::Display;

#[cfg(feature = "clock")]
mod clock;
#[cfg(feature = "clock")]
pub use clock::{CpuClock, thread_cpu};

/// SplitMix64: a tiny deterministic generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// `n` samples uniform in [lo, hi).
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// The one comparison: `|got − want| ≤ tol` (and both finite or both not), else panic naming
/// the quantity, the index, both values, the difference and the tolerance.
#[track_caller]
pub fn assert_entry(what: &str, index: impl Display, got: f64, want: f64, tol: f64) {
    let delta = (got - want).abs();
    assert!(
        delta <= tol && got.is_finite() == want.is_finite(),
        "{what}[{index}]: got {got:.17e}, want {want:.17e}, |delta| {delta:.3e} > tolerance {tol:.3e}"
    );
}

/// Entry by entry, |got − want| ≤ abs + rel·|want|.
#[track_caller]
pub fn assert_close(what: &str, got: &[f64], want: &[f64], abs: f64, rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_entry(what, i, *g, *w, abs + rel * w.abs());
    }
}

/// Entry by entry, |got − want| ≤ relative · max(1, ‖want‖∞).
#[track_caller]
pub fn compare(what: &str, got: &[f64], want: &[f64], relative: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_entry(what, i, *g, *w, relative * scale);
    }
}

/// Assert `value ≤ bound`, naming the quantity.
#[track_caller]
pub fn assert_below(what: &str, value: f64, bound: f64) {
    assert!(
        value <= bound,
        "{what}: {value:.3e} exceeds bound {bound:.3e}"
    );
}

/// Assert lo ≤ value ≤ hi, naming the quantity.
#[track_caller]
pub fn assert_within(what: &str, value: f64, lo: f64, hi: f64) {
    assert!(
        (lo..=hi).contains(&value),
        "{what}: {value:.4e} outside [{lo:.4e}, {hi:.4e}]"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_seeded_and_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            let x = a.uniform(-2.0, 3.0);
            assert_eq!(x, b.uniform(-2.0, 3.0));
            assert!((-2.0..3.0).contains(&x));
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn check_accepts_within_and_reports_outside() {
        assert_entry("x", 0, 1.0, 1.0 + 1e-12, 1e-11);
        let msg = std::panic::catch_unwind(|| assert_entry("phi_q", "2,1", 1.0, 2.0, 0.5))
            .expect_err("outside the tolerance");
        let msg = msg.downcast_ref::<String>().expect("formatted message");
        assert!(
            msg.contains("phi_q[2,1]") && msg.contains("tolerance 5.000e-1"),
            "{msg}"
        );
        assert!(std::panic::catch_unwind(|| assert_entry("nan", 0, f64::NAN, 1.0, 1.0)).is_err());
    }
}

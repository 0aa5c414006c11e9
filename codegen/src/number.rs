//! Numeric constants of the expression graph: exact small rationals and finite floats.
//!
//! Invariants (upheld by [`Number::from_f64`] and the arithmetic here):
//! - a rational is reduced, its denominator is positive, and it fits in `i64`;
//! - a float is finite, never `-0.0`, and is not exactly a "small" rational (an integer below
//!   2^53, or a dyadic fraction with denominator up to 2^20): those are stored as rationals, so
//!   `0.5`, `2.0` and `1/2` are the same constant;
//! - arithmetic stays exact while it can and falls back to `f64` on overflow or when a float is
//!   involved. Operations whose result would not be finite return `None`.

use std::cmp::Ordering;
use std::fmt;

/// A numeric constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Number {
    /// `num / den`, reduced, `den > 0`.
    Rational(i64, i64),
    /// A finite float that is not a small rational, stored by bits for hashing.
    Float(u64),
}

const MAX_EXACT_INT: f64 = 9_007_199_254_740_992.0; // 2^53
const MAX_DYADIC_SHIFT: i32 = 20;

impl Number {
    /// Zero.
    pub const ZERO: Number = Number::Rational(0, 1);
    /// One.
    pub const ONE: Number = Number::Rational(1, 1);
    /// Minus one.
    pub const MINUS_ONE: Number = Number::Rational(-1, 1);
    /// One half (the exponent of a square root).
    pub const HALF: Number = Number::Rational(1, 2);

    /// An integer constant.
    pub fn int(i: i64) -> Number {
        Number::Rational(i, 1)
    }

    /// The rational `num/den`, reduced; `None` when `den == 0`.
    pub fn rational(num: i64, den: i64) -> Option<Number> {
        Self::from_i128(num as i128, den as i128)
    }

    /// A finite float, canonicalised to a rational when it is exactly a small one; `None` when
    /// `x` is not finite.
    pub fn from_f64(x: f64) -> Option<Number> {
        if !x.is_finite() {
            return None;
        }
        if x == 0.0 {
            return Some(Number::ZERO);
        }
        for shift in 0..=MAX_DYADIC_SHIFT {
            let scaled = x * f64::from(1u32 << shift);
            if scaled.abs() < MAX_EXACT_INT && scaled.fract() == 0.0 {
                return Self::from_i128(scaled as i128, 1i128 << shift);
            }
        }
        Some(Number::Float(x.to_bits()))
    }

    fn from_i128(num: i128, den: i128) -> Option<Number> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()) as i128;
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = -n;
            d = -d;
        }
        match (i64::try_from(n), i64::try_from(d)) {
            (Ok(n), Ok(d)) => Some(Number::Rational(n, d)),
            _ => Self::from_f64(n as f64 / d as f64),
        }
    }

    /// The value as `f64` (correctly rounded for rationals).
    pub fn to_f64(self) -> f64 {
        match self {
            Number::Rational(n, d) => n as f64 / d as f64,
            Number::Float(bits) => f64::from_bits(bits),
        }
    }

    /// Whether this is exactly zero.
    pub fn is_zero(self) -> bool {
        self == Number::ZERO
    }

    /// Whether this is exactly one.
    pub fn is_one(self) -> bool {
        self == Number::ONE
    }

    /// The integer value, when this is an integer.
    pub fn as_integer(self) -> Option<i64> {
        match self {
            Number::Rational(n, 1) => Some(n),
            Number::Rational(..) | Number::Float(_) => None,
        }
    }

    /// Whether the value is negative.
    pub fn is_negative(self) -> bool {
        self.to_f64() < 0.0
    }

    /// Sum.
    pub fn checked_add(self, other: Number) -> Option<Number> {
        match (self, other) {
            (Number::Rational(a, 1), Number::Rational(c, 1)) => match a.checked_add(c) {
                Some(s) => Some(Number::Rational(s, 1)),
                None => Self::from_f64(a as f64 + c as f64),
            },
            (Number::Rational(a, b), Number::Rational(c, d)) => Self::from_i128(
                a as i128 * d as i128 + c as i128 * b as i128,
                b as i128 * d as i128,
            ),
            _ => Self::from_f64(self.to_f64() + other.to_f64()),
        }
    }

    /// Product.
    pub fn checked_mul(self, other: Number) -> Option<Number> {
        match (self, other) {
            (Number::Rational(a, 1), Number::Rational(c, 1)) => match a.checked_mul(c) {
                Some(p) => Some(Number::Rational(p, 1)),
                None => Self::from_f64(a as f64 * c as f64),
            },
            (Number::Rational(a, b), Number::Rational(c, d)) => {
                Self::from_i128(a as i128 * c as i128, b as i128 * d as i128)
            }
            _ => Self::from_f64(self.to_f64() * other.to_f64()),
        }
    }

    /// Negation.
    pub fn negated(self) -> Number {
        match self {
            Number::Rational(n, d) => {
                Self::from_i128(-(n as i128), d as i128).expect("negating a reduced rational")
            }
            Number::Float(bits) => Number::Float((-f64::from_bits(bits)).to_bits()),
        }
    }

    /// Reciprocal; `None` for zero.
    pub fn recip(self) -> Option<Number> {
        match self {
            Number::Rational(n, d) => Self::from_i128(d as i128, n as i128),
            Number::Float(_) => Self::from_f64(1.0 / self.to_f64()),
        }
    }

    /// `self^exp` when the result is exactly representable (integer exponent, or a float base),
    /// `None` otherwise (irrational results stay symbolic, e.g. `2^(1/2)`).
    pub fn pow(self, exp: Number) -> Option<Number> {
        match (self, exp) {
            (_, Number::Rational(e, 1)) => self.powi(e),
            (Number::Rational(..), _) => self.exact_root_pow(exp),
            (Number::Float(_), _) => Self::from_f64(self.to_f64().powf(exp.to_f64())),
        }
    }

    fn powi(self, e: i64) -> Option<Number> {
        if e < 0 {
            return self.recip()?.powi(e.checked_neg()?);
        }
        let mut acc = Number::ONE;
        for _ in 0..e.min(256) {
            acc = acc.checked_mul(self)?;
        }
        if e > 256 {
            return Self::from_f64(self.to_f64().powf(e as f64));
        }
        Some(acc)
    }

    /// `(p/q)^(a/b)` is exact when p and q are perfect b-th powers (b small).
    fn exact_root_pow(self, exp: Number) -> Option<Number> {
        let (Number::Rational(p, q), Number::Rational(a, b)) = (self, exp) else {
            return None;
        };
        if p < 0 || b > 8 {
            return None;
        }
        let root = |x: i64| -> Option<i64> {
            let r = (x as f64).powf(1.0 / b as f64).round() as i64;
            (r.checked_pow(b as u32)? == x).then_some(r)
        };
        Number::rational(root(p)?, root(q)?)?.powi(a)
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.to_f64().partial_cmp(&other.to_f64())
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Rational(n, 1) => write!(f, "{n}"),
            Number::Rational(n, d) => write!(f, "{n}/{d}"),
            Number::Float(bits) => write!(f, "{:?}", f64::from_bits(*bits)),
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_that_are_small_rationals_become_rationals() {
        assert_eq!(Number::from_f64(0.5), Number::rational(1, 2));
        assert_eq!(Number::from_f64(-3.0), Some(Number::int(-3)));
        assert_eq!(Number::from_f64(-0.0), Some(Number::ZERO));
        assert!(matches!(Number::from_f64(0.1), Some(Number::Float(_))));
        assert_eq!(Number::from_f64(f64::NAN), None);
        assert_eq!(Number::from_f64(f64::INFINITY), None);
    }

    #[test]
    fn exact_arithmetic() {
        let third = Number::rational(1, 3).unwrap();
        assert_eq!(
            third.checked_add(third).unwrap(),
            Number::rational(2, 3).unwrap()
        );
        assert_eq!(third.checked_mul(Number::int(3)).unwrap(), Number::ONE);
        assert_eq!(Number::int(2).pow(Number::int(-2)), Number::rational(1, 4));
        assert_eq!(Number::int(4).pow(Number::HALF), Some(Number::int(2)));
        assert_eq!(Number::int(2).pow(Number::HALF), None);
        assert_eq!(Number::ZERO.recip(), None);
        assert_eq!(Number::rational(1, 0), None);
    }

    #[test]
    fn overflow_falls_back_to_float() {
        let big = Number::int(i64::MAX);
        let sum = big.checked_add(big).unwrap();
        assert!(matches!(sum, Number::Float(_)));
        assert_eq!(sum.to_f64(), 2.0 * i64::MAX as f64);
    }
}

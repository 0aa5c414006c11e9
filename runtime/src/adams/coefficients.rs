//! The Adams coefficients, computed in exact rationals: the Adams–Bashforth γ_k and
//! Adams–Moulton γ*_k of the backward-difference forms (digest §2.5, \[WU\] Table 1, \[HAUG\]
//! Tables 7.4.4 and 7.4.10), the ordinate (Lagrange) weights of AB and AM of any order up to
//! [`MAX_ORDER`] for constant steps, and \[WU\]'s W1/W2 weights of MAMPC (eq. 21).
//!
//! Nothing is typed in: γ_k and γ*_k come from the generating-function recurrences
//!
//! ```text
//! Σ γ_k t^k  = −t / ((1 − t) ln(1 − t))  ⇒  Σ_{i=0..k} γ_{k−i} / (i + 1) = 1
//! Σ γ*_k t^k = −t / ln(1 − t)             ⇒  Σ_{i=0..k} γ*_{k−i} / (i + 1) = [k = 0]
//! ```
//!
//! (multiply the series by −ln(1 − t)/t = Σ t^i/(i + 1) and compare coefficients), and the
//! ordinate weights from the expansion of the backward differences,
//! ∇^i f_n = Σ_j (−1)^j C(i, j) f_{n−j}. The tests hold the sources' printed numbers as
//! references and the identities γ_k − γ*_k = γ_{k−1}, Σ_{r≤k} γ*_r = γ_k, Σ weights = 1 and
//! \[WU\] Theorem 1 (the W1/W2 blend of AB_m and AMc_m is AM of order m + 1 with f^p).
//!
//! Naming: every function here takes the **order** p of the formula. AB of order p uses the p
//! values f_n … f_{n−p+1} (\[WU\]'s `ABP_p`); AM of order p uses f_{n+1} … f_{n+2−p}, i.e. it
//! is the (p − 1)-step AM (\[WU\]'s `AMC_(p−1)`; \[WU\]'s `AM_m` is order m + 1).

use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::error::SimError;

/// The largest order the coefficients are computed for. Every weight's numerator and
/// denominator up to here is below 1.4·10^17 (the largest, 1.32·10^17, is in the order-16 AB
/// weights), so the cross products of an addition stay below ~10^32, inside i128 (1.7·10^38);
/// the test `every_order_computes_exactly` runs every order, and overflow would panic, not wrap.
pub const MAX_ORDER: usize = 16;

/// An exact rational number `num/den` in lowest terms with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i128,
    den: i128,
}

impl Ratio {
    /// Zero.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };
    /// One.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num/den` reduced to lowest terms (`den ≠ 0`, misuse otherwise).
    pub fn new(num: i128, den: i128) -> Ratio {
        assert!(den != 0, "Ratio::new: zero denominator");
        let g = gcd(num, den).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Ratio {
            num: sign * num / g,
            den: sign * den / g,
        }
    }

    /// The integer `n`.
    pub fn int(n: i128) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    /// Numerator (carries the sign).
    pub fn num(self) -> i128 {
        self.num
    }

    /// Denominator (positive).
    pub fn den(self) -> i128 {
        self.den
    }

    /// The nearest f64 (numerator and denominator are each exact in f64 below 2^53, so the
    /// one rounding is the division's; above that, a few ulps at most).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl Add for Ratio {
    type Output = Ratio;
    fn add(self, other: Ratio) -> Ratio {
        let g = gcd(self.den, other.den);
        let (a, b) = (self.den / g, other.den / g);
        Ratio::new(
            checked(self.num.checked_mul(b), "add")
                .checked_add(checked(other.num.checked_mul(a), "add"))
                .unwrap_or_else(|| overflow("add")),
            checked(self.den.checked_mul(b), "add"),
        )
    }
}

impl Sub for Ratio {
    type Output = Ratio;
    fn sub(self, other: Ratio) -> Ratio {
        self + (-other)
    }
}

impl Mul for Ratio {
    type Output = Ratio;
    fn mul(self, other: Ratio) -> Ratio {
        let (g1, g2) = (
            gcd(self.num, other.den).max(1),
            gcd(other.num, self.den).max(1),
        );
        Ratio::new(
            checked((self.num / g1).checked_mul(other.num / g2), "mul"),
            checked((self.den / g2).checked_mul(other.den / g1), "mul"),
        )
    }
}

impl Div for Ratio {
    type Output = Ratio;
    /// Division by zero is misuse (panics).
    fn div(self, other: Ratio) -> Ratio {
        assert!(other.num != 0, "Ratio::div: division by zero");
        self * Ratio::new(other.den, other.num)
    }
}

impl Neg for Ratio {
    type Output = Ratio;
    fn neg(self) -> Ratio {
        Ratio {
            num: -self.num,
            den: self.den,
        }
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn checked(x: Option<i128>, op: &str) -> i128 {
    x.unwrap_or_else(|| overflow(op))
}

fn overflow(op: &str) -> ! {
    panic!("Ratio::{op}: i128 overflow (orders above MAX_ORDER = {MAX_ORDER} are not supported)")
}

/// `Ok` when `1 ≤ order ≤ max`, else [`SimError::InvalidOption`] naming `option`. Integrators
/// call this up front; the functions below treat an order outside [1, [`MAX_ORDER`]] as misuse.
pub fn validate_order(option: &'static str, order: usize, max: usize) -> Result<(), SimError> {
    if (1..=max.min(MAX_ORDER)).contains(&order) {
        Ok(())
    } else {
        Err(SimError::InvalidOption {
            option,
            value: order.to_string(),
            reason: "an Adams order must be at least 1 and at most the method's maximum",
        })
    }
}

/// γ_0 … γ_{count−1}, the Adams–Bashforth coefficients of the backward-difference form
/// `x_{n+1} = x_n + h Σ γ_i ∇^i f_n` (γ_k = (1/k!) ∫_0^1 s(s+1)…(s+k−1) ds).
pub fn ab_gammas(count: usize) -> Vec<Ratio> {
    gammas_from_recurrence(count, Ratio::ONE)
}

/// γ*_0 … γ*_{count−1}, the Adams–Moulton coefficients of
/// `x_{n+1} = x_n + h Σ γ*_i ∇^i f_{n+1}` (γ*_k = (1/k!) ∫_0^1 (s−1)s…(s+k−2) ds).
pub fn am_gammas(count: usize) -> Vec<Ratio> {
    gammas_from_recurrence(count, Ratio::ZERO)
}

/// The coefficients c_k of a series whose product with Σ t^i/(i + 1) is
/// `1 + rest·(t + t² + …)`: c_k = rest − Σ_{i=1..k} c_{k−i}/(i + 1) for k ≥ 1, c_0 = 1.
fn gammas_from_recurrence(count: usize, rest: Ratio) -> Vec<Ratio> {
    assert!(
        count <= MAX_ORDER + 2,
        "at most MAX_ORDER + 2 coefficients are supported"
    );
    let mut c: Vec<Ratio> = Vec::with_capacity(count);
    for k in 0..count {
        let rhs = if k == 0 { Ratio::ONE } else { rest };
        let tail = (1..=k).fold(Ratio::ZERO, |s, i| s + c[k - i] / Ratio::int(i as i128 + 1));
        c.push(rhs - tail);
    }
    c
}

/// The binomial coefficient C(n, k) (exact; n ≤ [`MAX_ORDER`] + 1 here).
pub fn binomial(n: usize, k: usize) -> i128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1i128, |b, i| b * (n - i) as i128 / (i as i128 + 1))
}

/// Ordinate weights w_j of `Σ_i d_i ∇^i g_0 = Σ_j w_j g_{−j}` (j = 0 … len − 1):
/// w_j = (−1)^j Σ_{i ≥ j} d_i C(i, j).
pub fn backward_to_ordinates(differences: &[Ratio]) -> Vec<Ratio> {
    (0..differences.len())
        .map(|j| {
            let s = (j..differences.len()).fold(Ratio::ZERO, |s, i| {
                s + differences[i] * Ratio::int(binomial(i, j))
            });
            if j % 2 == 0 { s } else { -s }
        })
        .collect()
}

/// Ordinate weights of Adams–Bashforth of order `order` (the `order`-step AB):
/// `x_{n+1} = x_n + h Σ_j β_j f_{n−j}`, j = 0 … order − 1. Order 1 is forward Euler.
pub fn ab_weights(order: usize) -> Vec<Ratio> {
    assert_order(order);
    backward_to_ordinates(&ab_gammas(order))
}

/// Ordinate weights of Adams–Moulton of order `order` (the (order − 1)-step AM):
/// `x_{n+1} = x_n + h Σ_j β*_j f_{n+1−j}`, j = 0 … order − 1. Order 1 is backward Euler,
/// order 2 the trapezoidal rule. In a PECE step f_{n+1} is f^p = f(t_{n+1}, x^p).
pub fn am_weights(order: usize) -> Vec<Ratio> {
    assert_order(order);
    backward_to_ordinates(&am_gammas(order))
}

/// [`ab_weights`] as f64.
pub fn ab_weights_f64(order: usize) -> Vec<f64> {
    ab_weights(order).into_iter().map(Ratio::to_f64).collect()
}

/// [`am_weights`] as f64.
pub fn am_weights_f64(order: usize) -> Vec<f64> {
    am_weights(order).into_iter().map(Ratio::to_f64).collect()
}

/// [`ab_gammas`] as f64.
pub fn ab_gammas_f64(count: usize) -> Vec<f64> {
    ab_gammas(count).into_iter().map(Ratio::to_f64).collect()
}

/// [`am_gammas`] as f64.
pub fn am_gammas_f64(count: usize) -> Vec<f64> {
    am_gammas(count).into_iter().map(Ratio::to_f64).collect()
}

fn assert_order(order: usize) {
    assert!(
        (1..=MAX_ORDER).contains(&order),
        "Adams order {order} outside 1..={MAX_ORDER} (validate with validate_order first)"
    );
}

/// \[WU\]'s MAMPC_m weights (eq. 21): W1 = −γ*_m on the AB_m prediction, W2 = γ_m on the
/// AMc_(m−1) correction (27b); W1 + W2 = γ_{m−1}.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WuWeights {
    /// W1 = −γ*_m (> 0).
    pub w1: Ratio,
    /// W2 = γ_m.
    pub w2: Ratio,
}

impl WuWeights {
    /// The weights of MAMPC of order m (m ≥ 1).
    pub fn new(m: usize) -> WuWeights {
        assert_order(m);
        WuWeights {
            w1: -am_gammas(m + 1)[m],
            w2: ab_gammas(m + 1)[m],
        }
    }

    /// W1/(W1 + W2): the share of the AB_m prediction in (27c).
    pub fn ab_share(self) -> Ratio {
        self.w1 / (self.w1 + self.w2)
    }

    /// W2/(W1 + W2): the share of the AMc_(m−1) correction in (27c).
    pub fn am_share(self) -> Ratio {
        self.w2 / (self.w1 + self.w2)
    }
}

/// \[WU\] (27b) in ordinate form over the m + 1 values (f^p, f_i, f_{i−1}, …, f_{i−m+1}):
/// `h γ_{m−1} f^p + h Σ_{k<m} (γ_k − γ_{m−1}) ∇^k f_i`, computed from the printed formula so
/// that the test can compare it with [`am_weights`]`(m)` (the digest: "(27b) is just the
/// (m − 1)-step AM corrector"; the weight on f_{i−m+1} comes out zero).
pub fn wu_amc_weights(m: usize) -> Vec<Ratio> {
    assert_order(m);
    let g = ab_gammas(m);
    let last = g[m - 1];
    let diffs: Vec<Ratio> = g.iter().map(|&gk| gk - last).collect();
    let mut w = vec![last];
    w.extend(backward_to_ordinates(&diffs));
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(num: i128, den: i128) -> Ratio {
        Ratio::new(num, den)
    }

    fn ratios(nums: &[i128], den: i128) -> Vec<Ratio> {
        nums.iter().map(|&n| r(n, den)).collect()
    }

    /// \[WU\] Table 1 = \[HAUG\] Tables 7.4.4 (γ; its printed 95/298 is 95/288, ambiguity 30)
    /// and 7.4.10 (γ*): the sources' numbers, computed here by the recurrences.
    #[test]
    fn gammas_match_the_printed_tables() {
        let ab = [r(1, 1), r(1, 2), r(5, 12), r(3, 8), r(251, 720), r(95, 288)];
        let am = [
            r(1, 1),
            r(-1, 2),
            r(-1, 12),
            r(-1, 24),
            r(-19, 720),
            r(-3, 160),
        ];
        assert_eq!(ab_gammas(6), ab);
        assert_eq!(am_gammas(6), am);
    }

    /// The recurrences against the defining integrals γ_k = (1/k!) ∫_0^1 s(s+1)…(s+k−1) ds and
    /// γ*_k = (1/k!) ∫_0^1 (s−1)s…(s+k−2) ds, integrated exactly term by term.
    #[test]
    fn gammas_equal_their_defining_integrals() {
        let (ab, am) = (ab_gammas(MAX_ORDER + 1), am_gammas(MAX_ORDER + 1));
        for k in 0..=MAX_ORDER {
            let factorial = (1..=k as i128).product::<i128>();
            let ab_int = integral_of_product(0, k) / Ratio::int(factorial);
            let am_int = integral_of_product(-1, k) / Ratio::int(factorial);
            assert_eq!(ab[k], ab_int, "gamma_{k}");
            assert_eq!(am[k], am_int, "gamma*_{k}");
        }
    }

    /// ∫_0^1 Π_{i<k} (s + first + i) ds, exactly.
    fn integral_of_product(first: i128, k: usize) -> Ratio {
        let mut poly = vec![1i128]; // coefficients of s^0, s^1, …
        for i in 0..k as i128 {
            let mut next = vec![0i128; poly.len() + 1];
            for (d, &c) in poly.iter().enumerate() {
                next[d + 1] += c;
                next[d] += c * (first + i);
            }
            poly = next;
        }
        poly.iter()
            .enumerate()
            .fold(Ratio::ZERO, |s, (d, &c)| s + r(c, d as i128 + 1))
    }

    /// \[WU\] Propositions 2–3: γ_k − γ*_k = γ_{k−1} and Σ_{r≤k} γ*_r = γ_k, exactly, to MAX_ORDER.
    #[test]
    fn gamma_identities_hold_exactly() {
        let (ab, am) = (ab_gammas(MAX_ORDER + 1), am_gammas(MAX_ORDER + 1));
        for k in 1..=MAX_ORDER {
            assert_eq!(ab[k] - am[k], ab[k - 1], "gamma_{k} - gamma*_{k}");
        }
        for k in 0..=MAX_ORDER {
            let partial = am[..=k].iter().fold(Ratio::ZERO, |s, &g| s + g);
            assert_eq!(partial, ab[k], "sum of gamma*_0..{k}");
        }
    }

    /// The ordinate forms the digest lists (\[WU\] appendix; AM 5-step is the standard one).
    #[test]
    fn ordinate_weights_match_the_printed_forms() {
        assert_eq!(ab_weights(1), ratios(&[1], 1));
        assert_eq!(ab_weights(2), ratios(&[3, -1], 2));
        assert_eq!(ab_weights(3), ratios(&[23, -16, 5], 12));
        assert_eq!(ab_weights(4), ratios(&[55, -59, 37, -9], 24));
        assert_eq!(ab_weights(5), ratios(&[1901, -2774, 2616, -1274, 251], 720));
        assert_eq!(am_weights(1), ratios(&[1], 1));
        assert_eq!(am_weights(2), ratios(&[1, 1], 2));
        assert_eq!(am_weights(3), ratios(&[5, 8, -1], 12));
        assert_eq!(am_weights(4), ratios(&[9, 19, -5, 1], 24));
        assert_eq!(am_weights(5), ratios(&[251, 646, -264, 106, -19], 720));
        assert_eq!(
            am_weights(6),
            ratios(&[475, 1427, -798, 482, -173, 27], 1440)
        );
    }

    /// Σ weights = 1 (exact for f = const) and, independently of the γ's, exactness on
    /// polynomials of degree < order: Σ_j β_j (−j)^q = 1/(q+1) for AB, Σ_j β*_j (1−j)^q = 1/(q+1)
    /// for AM (h = 1, t_n = 0), every order to MAX_ORDER.
    #[test]
    fn every_order_computes_exactly() {
        for order in 1..=MAX_ORDER {
            let (ab, am) = (ab_weights(order), am_weights(order));
            let sum = |w: &[Ratio]| w.iter().fold(Ratio::ZERO, |s, &x| s + x);
            assert_eq!(sum(&ab), Ratio::ONE, "sum of AB{order} weights");
            assert_eq!(sum(&am), Ratio::ONE, "sum of AM{order} weights");
            for q in 0..order as u32 {
                let exact = r(1, q as i128 + 1);
                let quad = |w: &[Ratio], shift: i128| {
                    w.iter().enumerate().fold(Ratio::ZERO, |s, (j, &b)| {
                        s + b * Ratio::int((shift - j as i128).pow(q))
                    })
                };
                assert_eq!(quad(&ab, 0), exact, "AB{order} on t^{q}");
                assert_eq!(quad(&am, 1), exact, "AM{order} on t^{q}");
            }
        }
    }

    /// The f64 forms are the nearest doubles of the exact weights: each within one rounding
    /// (ε/2 relative) of num/den evaluated in f64 (numerator and denominator are below 2^53
    /// up to order 12, so that quotient has a single rounding), and the f64 sums are 1 to
    /// order·ε·max|w| (one rounding per addition).
    #[test]
    fn f64_forms_round_the_exact_weights() {
        for order in 1..=12 {
            for (w, x) in am_weights(order).iter().zip(am_weights_f64(order)) {
                assert!(w.num().abs() < 1 << 53 && w.den() < 1 << 53, "{w}");
                assert_eq!(x, w.num() as f64 / w.den() as f64);
            }
            let ab = ab_weights_f64(order);
            let max = ab.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let tol = order as f64 * f64::EPSILON * max;
            mbsim_testkit::assert_entry("sum AB", order, ab.iter().sum(), 1.0, tol);
        }
        assert_eq!(ab_gammas_f64(3), [1.0, 0.5, 5.0 / 12.0]);
        assert_eq!(am_gammas_f64(3), [1.0, -0.5, -1.0 / 12.0]);
    }

    /// \[WU\] eq. 21 and its table: W1 = −γ*_m, W2 = γ_m, W1 + W2 = γ_{m−1}, and the shares.
    #[test]
    fn wu_weights_match_the_printed_table() {
        let printed = [
            (3, r(1, 24), r(3, 8), r(5, 12), r(1, 10), r(9, 10)),
            (4, r(19, 720), r(251, 720), r(3, 8), r(19, 270), r(251, 270)),
            (
                5,
                r(3, 160),
                r(95, 288),
                r(251, 720),
                r(27, 502),
                r(475, 502),
            ),
        ];
        for (m, w1, w2, sum, ab, am) in printed {
            let w = WuWeights::new(m);
            assert_eq!((w.w1, w.w2, w.w1 + w.w2), (w1, w2, sum), "m = {m}");
            assert_eq!((w.ab_share(), w.am_share()), (ab, am), "m = {m}");
        }
        for m in 1..MAX_ORDER {
            let w = WuWeights::new(m);
            assert_eq!(
                w.w1 + w.w2,
                ab_gammas(m)[m - 1],
                "W1 + W2 = gamma_(m-1), m = {m}"
            );
        }
    }

    /// \[WU\] Theorem 1 on the weights: over (f^p, f_i, …, f_{i−m+1}),
    /// w_AB·AB_m + w_AM·AMc_(m−1) = AM_m (order m + 1) exactly; e.g. 0.1·AB3 + 0.9·AM2 = AM3.
    /// AMc is (27b) as printed, which is the order-m AM weights.
    #[test]
    fn theorem_1_blend_is_the_higher_order_corrector() {
        for m in 1..MAX_ORDER {
            let w = WuWeights::new(m);
            let amc = wu_amc_weights(m);
            assert_eq!(amc[..m], am_weights(m), "(27b) is AM of order {m}");
            assert_eq!(
                amc[m],
                Ratio::ZERO,
                "(27b) has no weight on f_(i-m+1), m = {m}"
            );
            let mut ab = vec![Ratio::ZERO];
            ab.extend(ab_weights(m));
            let blend: Vec<Ratio> = (0..=m)
                .map(|j| w.ab_share() * ab[j] + w.am_share() * amc[j])
                .collect();
            assert_eq!(blend, am_weights(m + 1), "Theorem 1, m = {m}");
        }
    }

    #[test]
    fn orders_are_validated() {
        assert!(validate_order("order", 3, 5).is_ok());
        for bad in [0, 6] {
            match validate_order("order", bad, 5) {
                Err(SimError::InvalidOption { option, value, .. }) => {
                    assert_eq!((option, value), ("order", bad.to_string()));
                }
                other => panic!("order {bad}: expected InvalidOption, got {other:?}"),
            }
        }
        assert!(validate_order("order", MAX_ORDER + 1, usize::MAX).is_err());
    }

    #[test]
    fn ratios_reduce_and_print() {
        assert_eq!(r(6, -4), r(-3, 2));
        assert_eq!((r(-3, 2).num(), r(-3, 2).den()), (-3, 2));
        assert_eq!(r(1, 3) + r(1, 6), r(1, 2));
        assert_eq!(r(2, 3) / r(-4, 9), r(-3, 2));
        assert_eq!(format!("{} {}", r(95, 288), r(4, 2)), "95/288 2");
    }
}

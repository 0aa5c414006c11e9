//! Butcher tableaux: Dormand–Prince 5(4) with its dense output, and the fixed-step methods.
//!
//! The DOPRI5 coefficients are the standard ones (Hairer–Nørsett–Wanner `dopri5.f`); the
//! thesis' OCR lost their minus signs and has three typos (ambiguity 8), so it is not the
//! source. [`ExplicitTableau`] describes the explicit methods of the fixed-step driver
//! ([`crate::fixed_step`]).

/// An explicit Runge–Kutta method: nodes c, strictly lower-triangular A (row i has i entries),
/// weights b, and its classical order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExplicitTableau {
    /// Name for reports.
    pub name: &'static str,
    /// Nodes c_i (c_1 = 0).
    pub c: &'static [f64],
    /// Rows a_i1..a_i,i−1 of A for i = 1..s (the first row is empty).
    pub a: &'static [&'static [f64]],
    /// Weights b_i.
    pub b: &'static [f64],
    /// Classical order p.
    pub order: usize,
}

impl ExplicitTableau {
    /// Number of stages s.
    pub fn stages(&self) -> usize {
        self.b.len()
    }
}

/// Forward Euler (order 1).
pub const EULER: ExplicitTableau = ExplicitTableau {
    name: "euler",
    c: &[0.0],
    a: &[&[]],
    b: &[1.0],
    order: 1,
};

/// Heun's method (order 2, b = (1/2, 1/2), c2 = 1): the "explicit RK2" of \[CHIN\] Table 3.1.
pub const HEUN: ExplicitTableau = ExplicitTableau {
    name: "heun",
    c: &[0.0, 1.0],
    a: &[&[], &[1.0]],
    b: &[0.5, 0.5],
    order: 2,
};

/// The explicit midpoint rule (order 2).
pub const MIDPOINT: ExplicitTableau = ExplicitTableau {
    name: "midpoint",
    c: &[0.0, 0.5],
    a: &[&[], &[0.5]],
    b: &[0.0, 1.0],
    order: 2,
};

/// The classical Runge–Kutta method (order 4).
pub const RK4: ExplicitTableau = ExplicitTableau {
    name: "rk4",
    c: &[0.0, 0.5, 0.5, 1.0],
    a: &[&[], &[0.5], &[0.0, 0.5], &[0.0, 0.0, 1.0]],
    b: &[1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
    order: 4,
};

/// The 5th-order Dormand–Prince solution as a 6-stage fixed-step method.
pub const DOPRI5_FIXED: ExplicitTableau = ExplicitTableau {
    name: "dopri5-fixed",
    c: &[0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0],
    a: &[&[], A2, A3, A4, A5, A6],
    b: &[
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
    order: 5,
};

/// DOPRI5 nodes c_1..c_7.
pub const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
/// Row 2 of A.
pub const A2: &[f64] = &[1.0 / 5.0];
/// Row 3 of A.
pub const A3: &[f64] = &[3.0 / 40.0, 9.0 / 40.0];
/// Row 4 of A.
pub const A4: &[f64] = &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0];
/// Row 5 of A.
pub const A5: &[f64] = &[
    19372.0 / 6561.0,
    -25360.0 / 2187.0,
    64448.0 / 6561.0,
    -212.0 / 729.0,
];
/// Row 6 of A.
pub const A6: &[f64] = &[
    9017.0 / 3168.0,
    -355.0 / 33.0,
    46732.0 / 5247.0,
    49.0 / 176.0,
    -5103.0 / 18656.0,
];
/// 5th-order weights (= row 7 of A: FSAL).
pub const B: [f64; 7] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
    0.0,
];
/// 4th-order (embedded) weights b̂.
pub const BHAT: [f64; 7] = [
    5179.0 / 57600.0,
    0.0,
    7571.0 / 16695.0,
    393.0 / 640.0,
    -92097.0 / 339200.0,
    187.0 / 2100.0,
    1.0 / 40.0,
];
/// E = b − b̂.
pub const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];
/// Dense-output coefficients d_1..d_7 (Hairer's `contd5`; d_2 = 0).
pub const D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Order conditions up to order 5 for the b weights, up to 4 for b̂; sums are exact rationals
    /// evaluated in f64, so 16 ε covers the rounding of a dozen terms of size ≤ 12.
    #[test]
    fn dopri5_order_conditions() {
        let tol = 16.0 * f64::EPSILON * 12.0;
        let a = [&[][..], A2, A3, A4, A5, A6, &B[..6]];
        let sum = |w: &[f64; 7], f: &dyn Fn(usize) -> f64| (0..7).map(|i| w[i] * f(i)).sum::<f64>();
        let ac = |i: usize| a[i].iter().enumerate().map(|(j, x)| x * C[j]).sum::<f64>();
        for i in 1..7 {
            let rowsum: f64 = a[i].iter().sum();
            assert!(
                (rowsum - C[i]).abs() <= tol,
                "row {i}: sum a = {rowsum}, c = {}",
                C[i]
            );
        }
        for (w, p) in [(&B, 5i32), (&BHAT, 4)] {
            for q in 1..=p {
                let s = sum(w, &|i| C[i].powi(q - 1));
                assert!(
                    (s - 1.0 / q as f64).abs() <= tol,
                    "sum b c^{} = {s} (order {p})",
                    q - 1
                );
            }
            let s = sum(w, &ac);
            assert!((s - 1.0 / 6.0).abs() <= tol, "sum b a c = {s}");
        }
        let e_sum: f64 = E.iter().sum();
        assert!(e_sum.abs() <= tol, "sum E = {e_sum}");
        for i in 0..7 {
            assert!((E[i] - (B[i] - BHAT[i])).abs() <= tol, "E[{i}]");
        }
    }
}

//! The centred step rule of the error-controlled implicit methods (option
//! [`StepRule::Centred`]): the next step's size from the error its own midpoint is predicted to
//! have, instead of the error of the step just taken.
//!
//! The standard controller sets h_{n+1} from err_n, whose coefficient
//! Δ/h ≈ q⃛(t_{n+1/2}) belongs to the midpoint of the step just taken: every step is sized one
//! step late. A nearly symmetric scheme (HHT, generalized-α) on steps that follow the position
//! with such a lag is no longer time-reversible, and where the steps vary fast across a zero of
//! q⃛ (the A02 chain's horizontal positions) it gains energy at every passage
//! (`stepper.rs`, "Zeros of q⃛"). A step-size rule that is a function of the step's own
//! midpoint, h_n = S(y(t_n + h_n/2)), is symmetric (Hairer & Söderlind 2005, Stoffer 1995: a
//! reversible step-size function). This rule approximates it explicitly: the signed, filtered
//! coefficients d_k = Δ_k/h_k of the last two accepted steps are extrapolated linearly to the
//! midpoint t_{n+1} + h/2 of a candidate step h, and h is the largest step on a geometric grid
//! [h_n/5, 10 h_n] whose predicted error c_q h³ d(h/2) (and c_v h² d(h/2)), in the error
//! test's norm, stays at the controller's target safety³ for it and for every shorter grid
//! step. Signed extrapolation passes through a zero of q⃛ smoothly, where the logarithm of the
//! error (Gustafsson's predictive controller) has a cusp.
//!
//! The rule only proposes the next step; accepting and rejecting are the error test's, and the
//! controller still limits growth after a rejection and the step to h_max.

/// How the error-controlled implicit methods choose the next step size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StepRule {
    /// Hairer's controller on the error of the step just taken (p = 2, Lund stabilization).
    #[default]
    Standard,
    /// The next step from the error predicted at its own midpoint (module docs).
    Centred,
}

/// Steps of the geometric grid per factor 10 of step size.
const GRID_PER_DECADE: f64 = 12.0;

/// The grid's range relative to the last step (the controller's default ratio limits).
const SMALLEST: f64 = 0.2;
const LARGEST: f64 = 10.0;

/// Bisections of a grid interval (ratio 10^(1/12) = 1.21): the proposal to 0.03 %.
const BISECTIONS: usize = 10;

/// The coefficient history of the centred rule: the previous accepted step's signed,
/// filtered d = Δ/h and its size.
pub(crate) struct Centred {
    previous: Vec<f64>,
    h_previous: f64,
    /// The attempt's d (set by the error estimate).
    pub(crate) current: Vec<f64>,
}

/// The error test's weights for one prediction: 1/sk per component of (q, v) and the
/// coefficients with e_q = c_q h³ d, e_v = c_v h² d.
pub(crate) struct Weights<'a> {
    pub(crate) inv_scale: &'a [f64],
    pub(crate) c_q: f64,
    pub(crate) c_v: f64,
}

impl Centred {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            previous: vec![0.0; n],
            h_previous: 0.0,
            current: vec![0.0; n],
        }
    }

    /// The attempt of size `h` was accepted: its d becomes the history.
    pub(crate) fn accept(&mut self, h: f64) {
        std::mem::swap(&mut self.previous, &mut self.current);
        self.h_previous = h;
    }

    /// The proposed next step after an accepted attempt of size `h` (> 0), aiming at the
    /// scaled error `target`; `None` before two steps are known.
    pub(crate) fn propose(&self, h: f64, w: &Weights, target: f64) -> Option<f64> {
        if self.h_previous <= 0.0 || h <= 0.0 {
            return None;
        }
        let ratio = 10f64.powf(1.0 / GRID_PER_DECADE);
        let mut x = SMALLEST * h;
        if self.predicted(h, x, w) > target {
            return Some(x);
        }
        while x * ratio <= LARGEST * h * (1.0 + 1e-12) {
            if self.predicted(h, x * ratio, w) > target {
                return Some(self.bisect(h, (x, x * ratio), w, target));
            }
            x *= ratio;
        }
        Some(x)
    }

    /// The step in `bracket` (within target at its lower end, above at its upper) where the
    /// prediction meets `target`, by bisection in log h: the proposal a continuous function of
    /// the history, not a grid point.
    fn bisect(&self, h: f64, bracket: (f64, f64), w: &Weights, target: f64) -> f64 {
        let (mut lo, mut hi) = bracket;
        for _ in 0..BISECTIONS {
            let mid = (lo * hi).sqrt();
            if self.predicted(h, mid, w) > target {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    }

    /// The scaled error predicted for a next step of size `x` after the step `h`.
    fn predicted(&self, h: f64, x: f64, w: &Weights) -> f64 {
        let n = self.current.len();
        // d(t) linear through d_prev at −h − h_prev/2 and d at −h/2 (origin t_{n+1}).
        let reach = (0.5 * (x + h)) / (0.5 * (h + self.h_previous));
        let (eq, ev) = (w.c_q * x * x * x, w.c_v * x * x);
        let mut sum = 0.0;
        for i in 0..n {
            let d = self.current[i] + (self.current[i] - self.previous[i]) * reach;
            sum += (eq * d * w.inv_scale[i]).powi(2) + (ev * d * w.inv_scale[n + i]).powi(2);
        }
        (sum / (2 * n) as f64).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One coordinate, unit weights, e_q = h³ d, no velocity term.
    fn weights(inv_scale: &[f64]) -> Weights<'_> {
        Weights {
            inv_scale,
            c_q: 1.0,
            c_v: 0.0,
        }
    }

    /// A history whose last two steps (`h_prev`, then `h`) saw d = `d_prev`, then `d`.
    fn history(d_prev: f64, h_prev: f64, d: f64) -> Centred {
        let mut c = Centred::new(1);
        c.current[0] = d_prev;
        c.accept(h_prev);
        c.current[0] = d;
        c
    }

    #[test]
    fn no_proposal_before_two_steps() {
        let c = Centred::new(1);
        assert_eq!(c.propose(1e-2, &weights(&[1.0, 1.0]), 0.5), None);
    }

    /// Constant d: the step whose error c_q x³ |d| / √2 (RMS over q and v) meets the target,
    /// x = (√2 target / d)^(1/3), to the bisection's resolution (10^(1/12))^(2^-10).
    #[test]
    fn constant_coefficient_gives_the_closed_form_step() {
        let (h, d, target) = (1e-2, 2e5, 0.729);
        let c = history(d, h, d);
        let x = c.propose(h, &weights(&[1.0, 1.0]), target).unwrap();
        let exact = (2f64.sqrt() * target / d).cbrt();
        let resolution = 10f64.powf(1.0 / GRID_PER_DECADE / 1024.0) - 1.0;
        mbsim_testkit::assert_close("x", &[x], &[exact], 0.0, 2.0 * resolution);
    }

    /// d linear in t, falling through zero: the proposal meets the target at its own
    /// midpoint's extrapolated d, which exceeds what the last step's d alone allows.
    #[test]
    fn falling_coefficient_is_extrapolated_to_the_next_midpoint() {
        let (h, target) = (1e-2, 0.729);
        // d(t) = 1e5 (1 − 20 t) with t from the end of the last step: −h/2 → 1.1e5, −3h/2 → 1.3e5.
        let d = |t: f64| 1e5 * (1.0 - 20.0 * t);
        let c = history(d(-1.5 * h), h, d(-0.5 * h));
        let x = c.propose(h, &weights(&[1.0, 1.0]), target).unwrap();
        let predicted = x.powi(3) * d(0.5 * x) / 2f64.sqrt();
        // The bisection's resolution in x (2e-4 relative), tripled by the cube, and d's change.
        mbsim_testkit::assert_close("predicted error", &[predicted], &[target], 0.0, 1e-3);
        let lagging = (2f64.sqrt() * target / d(-0.5 * h)).cbrt();
        mbsim_testkit::assert_below("the lagging rule's step", lagging, x);
    }

    /// d crossing zero within reach with a predicted error far below the target everywhere:
    /// the proposal is the grid's largest step, within one grid ratio 10^(1/12) below 10 h.
    #[test]
    fn growth_is_bounded_where_the_coefficient_vanishes() {
        let h = 1e-3;
        let c = history(2.0, h, 1.0);
        let x = c.propose(h, &weights(&[1.0, 1.0]), 0.729).unwrap();
        let ratio = 10f64.powf(1.0 / GRID_PER_DECADE);
        mbsim_testkit::assert_within("x / h", x / h, LARGEST / ratio, LARGEST * (1.0 + 1e-12));
    }
}

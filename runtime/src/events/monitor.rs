//! Event location inside the run loop: the signs of g along each accepted step, and the root
//! of the first crossing on the method's own interpolant (Illinois).
//!
//! Per accepted step [t, t_new]: g at `subsamples` equally spaced interior points (from
//! [`Stepper::interpolate`]) and at t_new (the step's state); the first sub-interval in which an
//! armed event crosses in its direction is narrowed. Between two points a g that changes sign
//! twice is missed: the sub-sampling bounds the width of such an excursion to h/(subsamples+1).
//!
//! Arming: a slot that is zero where the run starts — exactly, or because the event loop just
//! stopped on it — is disarmed until |g| exceeds 100 times its starting magnitude; the sign
//! there is its reference and that point reports no crossing.

use crate::error::{Kernel, SimError};
use crate::integrator::driver::Stepper;
use crate::system::ConstrainedSystem;

use super::{Direction, EventHit, Events};

/// Iteration limit of the Illinois method (it converges superlinearly; bisection on a failed
/// secant step guarantees the bracket halves at least every other iteration, so 200 bounds
/// any bracket of f64 times).
const MAX_ILLINOIS: usize = 200;

/// The driver's event state for one run.
pub(crate) struct Monitor {
    directions: Vec<Direction>,
    subsamples: usize,
    /// g at the last evaluated point.
    last: Vec<f64>,
    /// Scratch values.
    g: Vec<f64>,
    /// |g| a disarmed slot must exceed to be armed (`None`: armed).
    disarmed: Vec<Option<f64>>,
    /// Scratch state.
    z: Vec<f64>,
    /// The state at the located event.
    pub(crate) hit: Option<(EventHit, Vec<f64>)>,
    /// Evaluations of the event functions.
    pub(crate) evaluations: usize,
}

impl Monitor {
    /// The monitor of `events` for a run starting at (t0, z0): the slots of
    /// [`Events::signs_at_start`] start armed on their side; those of
    /// [`Events::disarmed_at_start`] start disarmed (the event loop's restart after them), as
    /// does any other slot with g(t0) = 0.
    pub(crate) fn start(
        events: &dyn Events,
        subsamples: usize,
        t0: f64,
        z0: &[f64],
    ) -> Result<Self, SimError> {
        let fired = events.disarmed_at_start();
        let signs = events.signs_at_start();
        let ne = events.event_names().len();
        let mut monitor = Self {
            directions: (0..ne).map(|i| events.event_spec(i).direction).collect(),
            subsamples,
            last: vec![0.0; ne],
            g: vec![0.0; ne],
            disarmed: vec![None; ne],
            z: vec![0.0; z0.len()],
            hit: None,
            evaluations: 0,
        };
        monitor.evaluate(events, t0, z0)?;
        monitor.last.copy_from_slice(&monitor.g);
        for (i, g) in monitor.last.iter_mut().enumerate() {
            if let Some(&(_, sign)) = signs.iter().find(|(s, _)| *s == i) {
                if *g * sign <= 0.0 {
                    *g = sign * f64::MIN_POSITIVE;
                }
            } else if *g == 0.0 || fired.contains(&i) {
                monitor.disarmed[i] = Some(100.0 * g.abs());
            }
        }
        Ok(monitor)
    }

    fn evaluate(&mut self, events: &dyn Events, t: f64, z: &[f64]) -> Result<(), SimError> {
        self.evaluations += 1;
        let (q, v) = z.split_at(z.len() / 2);
        events.events_into(t, q, v, &mut self.g);
        let names = crate::naming::EventNames {
            events: events.event_names(),
            coordinates: &[],
        };
        crate::kernels::check(&names, Kernel::EventFunctions, &self.g, (t, q, v))
    }

    /// Scan the accepted step [t, t_new] (the stepper holds its end state and interpolant);
    /// on a crossing, record the hit (time, slots, state) and return true.
    pub(crate) fn scan<S: ConstrainedSystem + ?Sized, St: Stepper<S>>(
        &mut self,
        sys: &S,
        events: &dyn Events,
        stepper: &mut St,
        t: f64,
        t_new: f64,
    ) -> Result<bool, SimError> {
        let points = self.subsamples + 1;
        let mut ta = t;
        for j in 1..=points {
            let tb = if j == points {
                t_new
            } else {
                t + (t_new - t) * (j as f64 / points as f64)
            };
            if j == points {
                self.z.copy_from_slice(stepper.state());
            } else {
                stepper.interpolate(sys, tb, &mut self.z)?;
            }
            let z = std::mem::take(&mut self.z);
            let evaluated = self.evaluate(events, tb, &z);
            self.z = z;
            evaluated?;
            if self.crossing_slots().next().is_some() {
                let h = (t_new - t).abs();
                self.locate(sys, events, stepper, (ta, tb), h)?;
                return Ok(true);
            }
            self.advance();
            ta = tb;
        }
        Ok(false)
    }

    /// Armed slots whose sign went from `last` to `g` in their direction.
    fn crossing_slots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.g.len()).filter(|&i| {
            self.disarmed[i].is_none() && self.directions[i].crosses(self.last[i], self.g[i])
        })
    }

    /// `g` becomes `last`; disarmed slots that left their zero band are armed.
    fn advance(&mut self) {
        for i in 0..self.g.len() {
            if let Some(band) = self.disarmed[i]
                && self.g[i].abs() > band
            {
                self.disarmed[i] = None;
            }
        }
        self.last.copy_from_slice(&self.g);
    }

    /// Narrow [ta, tb] (g in `last` at ta and in `g` at tb) to the earliest root.
    fn locate<S: ConstrainedSystem + ?Sized, St: Stepper<S>>(
        &mut self,
        sys: &S,
        events: &dyn Events,
        stepper: &mut St,
        (ta, tb): (f64, f64),
        h: f64,
    ) -> Result<(), SimError> {
        let tol = 4.0 * f64::EPSILON * (ta.abs().max(tb.abs()) + h);
        let crossing: Vec<usize> = self.crossing_slots().collect();
        let at_b = self.g.clone();
        let mut earliest = tb;
        for &i in &crossing {
            let root = self.illinois(
                sys,
                events,
                stepper,
                i,
                (ta, self.last[i]),
                (tb, at_b[i]),
                tol,
            )?;
            earliest = earliest.min(root);
        }
        // The state at the root, and every armed slot that has crossed by then.
        let mut z = std::mem::take(&mut self.z);
        let result = if earliest == tb {
            z.copy_from_slice(stepper.state());
            self.evaluate(events, tb, &z)
        } else {
            stepper
                .interpolate(sys, earliest, &mut z)
                .and_then(|()| self.evaluate(events, earliest, &z))
        };
        result?;
        let slots: Vec<usize> = self.crossing_slots().collect();
        let slots = if slots.is_empty() { crossing } else { slots };
        self.hit = Some((EventHit { t: earliest, slots }, z.clone()));
        self.z = z;
        Ok(())
    }

    /// The root of slot `i` in [lo, hi] by the Illinois method on the interpolant, returned on
    /// the crossed side (so g there already has its new sign), to within `tol`.
    #[allow(clippy::too_many_arguments)] // the bracket's two ends are the iteration's state
    fn illinois<S: ConstrainedSystem + ?Sized, St: Stepper<S>>(
        &mut self,
        sys: &S,
        events: &dyn Events,
        stepper: &mut St,
        i: usize,
        (mut lo, mut f_lo): (f64, f64),
        (mut hi, mut f_hi): (f64, f64),
        tol: f64,
    ) -> Result<f64, SimError> {
        let before = f_lo.signum();
        let mut side = 0_i8;
        for _ in 0..MAX_ILLINOIS {
            if (hi - lo).abs() <= tol {
                break;
            }
            let mut tau = hi - f_hi * (hi - lo) / (f_hi - f_lo);
            let margin = 0.5 * tol;
            if !tau.is_finite() || (tau - lo).abs() <= margin || (hi - tau).abs() <= margin {
                tau = 0.5 * (lo + hi);
            }
            let mut z = std::mem::take(&mut self.z);
            let result = stepper
                .interpolate(sys, tau, &mut z)
                .and_then(|()| self.evaluate(events, tau, &z));
            self.z = z;
            result?;
            let f = self.g[i];
            if f != 0.0 && f.signum() == before {
                (lo, f_lo) = (tau, f);
                if side == -1 {
                    f_hi *= 0.5;
                }
                side = -1;
            } else {
                (hi, f_hi) = (tau, f);
                if side == 1 {
                    f_lo *= 0.5;
                }
                side = 1;
            }
        }
        Ok(hi)
    }
}

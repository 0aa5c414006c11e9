//! Constant-step explicit Runge–Kutta with stabilization: the method of table reproductions
//! (\[CHIN\] Table 3.1 uses Heun's RK2 with h = 0.01, 0.001) and of convergence studies.
//!
//! Each step: the explicit stages of [`FixedStep::tableau`] on z = (q, v) with f = (v, v̇) from
//! the KKT solve, then the post-stabilization of [`crate::CommonOptions::stabilization`]. No
//! FSAL, no error control: NFCN = s·NSTEP. Step i starts at exactly t0 + i h; a span that is
//! not a whole number of steps (to 1e-9 relative) ends with one shorter step onto t_end.
//! Samples between step points come from the cubic Hermite interpolant of the step (q, v and
//! their derivatives at both ends; the end slope costs one KKT solve per step that holds a sample, counted as an output solve).
//! The maximum drift over the step points is the layer's [`crate::Stats::max_drift`]. A step
//! whose evaluation fails (a numerically singular KKT matrix at a stage next to a singular
//! position) is redone in unequal pieces inside the same grid step (`ExplicitRk::in_pieces`).

use crate::error::SimError;
use crate::integrator::controller::Uniform;
use crate::integrator::driver::{Attempt, Schedule, Stepper, StepperCounters};
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::output::Observer;
use crate::rhs::Rhs;
use crate::stabilize::{Stabilization, Stabilizer};
use crate::system::ConstrainedSystem;
use crate::tableau::ExplicitTableau;

/// A constant-step explicit Runge–Kutta method with stabilization.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedStep {
    /// The explicit method.
    pub tableau: ExplicitTableau,
    /// Step size (> 0; the direction comes from the problem).
    pub h: f64,
    /// The options every method shares.
    pub common: CommonOptions,
}

impl FixedStep {
    /// `tableau` with step `h`, PStab on every step.
    pub fn new(tableau: ExplicitTableau, h: f64) -> Self {
        Self {
            tableau,
            h,
            common: CommonOptions::default(),
        }
    }

    /// The same method with another stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self
    }
}

impl Integrator for FixedStep {
    fn name(&self) -> String {
        self.tableau.name.to_string()
    }

    fn common(&self) -> &CommonOptions {
        &self.common
    }

    fn integrate_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        let schedule = Schedule::Uniform(Uniform::over(self.h, problem)?);
        let (mut run, mut stats) = prepare(sys, &self.common, problem, None, observer)?;
        let mut stepper = ExplicitRk::new(sys, self, &problem.q0, &problem.v0);
        run.drive(&mut stepper, schedule, &mut stats)?;
        if stepper.substeps > 0 {
            stats.extra.set("substeps", stepper.substeps);
        }
        let (q, v) = stepper.z.split_at(stepper.z.len() / 2);
        Ok(run.finish(Solution {
            t: problem.t_end,
            q: q.to_vec(),
            v: v.to_vec(),
            stats,
            event: None,
        }))
    }
}

/// The explicit RK step and its Hermite interpolant, preallocated.
struct ExplicitRk {
    tableau: ExplicitTableau,
    datol: f64,
    rhs: Rhs,
    stab: Stabilizer,
    k: Vec<Vec<f64>>,
    z: Vec<f64>,
    stage: Vec<f64>,
    znew: Vec<f64>,
    /// The last accepted step [t_prev, t_prev + h_prev]: start state and both end slopes.
    z_prev: Vec<f64>,
    f_prev: Vec<f64>,
    f_end: Vec<f64>,
    f_end_ready: bool,
    t_prev: f64,
    h_prev: f64,
    /// Evaluations of the end slope for interpolation (output solves, not NFCN).
    rhs_out: Rhs,
    /// Levels of unequal splits for a failed step ([`ExplicitRk::in_pieces`]).
    max_split_depth: usize,
    /// The extra pieces the splits made.
    substeps: u64,
}

impl ExplicitRk {
    fn new<S: ConstrainedSystem + ?Sized>(sys: &S, m: &FixedStep, q0: &[f64], v0: &[f64]) -> Self {
        let dims = sys.dims();
        let len = 2 * dims.n;
        let tab = m.tableau;
        assert!(
            tab.c[0] == 0.0 && tab.a[0].is_empty(),
            "FixedStep: the first stage of an explicit tableau is f(t_n, z_n)"
        );
        let field = m.common.stabilization;
        let z: Vec<f64> = q0.iter().chain(v0).copied().collect();
        Self {
            tableau: tab,
            datol: m.common.datol,
            rhs: Rhs::new(dims, field, m.common.kkt),
            stab: Stabilizer::new(m.common.stabilization, dims)
                .with_kkt_solver(m.common.kkt)
                .with_rank_loss_guard(),
            k: vec![vec![0.0; len]; tab.stages()],
            stage: z.clone(),
            znew: z.clone(),
            z_prev: z.clone(),
            z,
            f_prev: vec![0.0; len],
            f_end: vec![0.0; len],
            f_end_ready: false,
            t_prev: 0.0,
            h_prev: 0.0,
            rhs_out: Rhs::new(dims, field, m.common.kkt),
            max_split_depth: m.common.max_failed_attempts,
            substeps: 0,
        }
    }
}

/// The first piece's share of a failed step ([`ExplicitRk::in_pieces`]).
const PIECE: f64 = 0.4;

impl ExplicitRk {
    /// One step of the tableau over [t, t + h] from `z` into `znew`, stabilized (whether the
    /// stabilization corrected it); k[0] = f(t, z).
    fn single<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<bool, SimError> {
        let (tab, len) = (&self.tableau, self.z.len());
        for i in 0..tab.stages() {
            for c in 0..len {
                let sum: f64 = tab.a[i]
                    .iter()
                    .enumerate()
                    .map(|(j, a)| a * self.k[j][c])
                    .sum();
                self.stage[c] = self.z[c] + h * sum;
            }
            self.rhs
                .eval(sys, t + tab.c[i] * h, &self.stage, h, &mut self.k[i])?;
        }
        for c in 0..len {
            self.znew[c] = self.z[c]
                + h * (0..tab.stages())
                    .map(|j| tab.b[j] * self.k[j][c])
                    .sum::<f64>();
        }
        let (q, v) = self.znew.split_at_mut(len / 2);
        self.stab.apply(sys, t + h, h, q, v, self.datol)
    }

    /// A step whose evaluation failed (a stage or its end where the KKT matrix is numerically
    /// singular, next to a singular position of the mechanism) redone as two unequal pieces,
    /// [`PIECE`] h then the rest, each split the same way again where it fails, down to
    /// `max_split_depth` levels: the stage points move off the failing one (equal halves would
    /// meet it again: RK4's middle stages lie at t + h/2, the halves' common end). The step
    /// stays one step [t, t + h] of the grid: its start, its start slope k[0] (the
    /// interpolant's) and its end are the whole step's; the extra pieces are counted
    /// (`substeps` in `Stats::extra`). A failure at the step's start or end stays a failure.
    fn in_pieces<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<bool, SimError> {
        let (start, slope) = (self.z.clone(), self.k[0].clone());
        let result = self.pieces(sys, t, h, 1);
        self.z.copy_from_slice(&start);
        self.k[0].copy_from_slice(&slope);
        result
    }

    /// [t, t + h] from `z` as two pieces (`depth` the level of this split), the end in `znew`.
    fn pieces<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        depth: usize,
    ) -> Result<bool, SimError> {
        let mut stabilized = false;
        // The second piece ends on t + h itself: the difference of two nearby times is exact
        // (Sterbenz), so `from + length` gives back the step's end.
        let (middle, end) = (t + PIECE * h, t + h);
        let halves = [(t, middle - t), (middle, end - middle)];
        for (i, (from, length)) in halves.into_iter().enumerate() {
            if i > 0 {
                // The second piece starts where the first ended.
                std::mem::swap(&mut self.z, &mut self.znew);
                self.substeps += 1;
            }
            stabilized |= match self.single(sys, from, length) {
                Ok(s) => s,
                Err(e) if e.is_retryable() && depth < self.max_split_depth => {
                    self.pieces(sys, from, length, depth + 1)?
                }
                Err(e) => return Err(e),
            };
        }
        Ok(stabilized)
    }
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for ExplicitRk {
    fn state(&self) -> &[f64] {
        &self.z
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        let stabilized = match self.single(sys, t, h) {
            Ok(stabilized) => stabilized,
            Err(e) if e.is_retryable() && self.max_split_depth > 0 => self.in_pieces(sys, t, h)?,
            Err(e) => return Err(e),
        };
        Ok(Attempt {
            error: 0.0,
            stabilized,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        std::mem::swap(&mut self.z_prev, &mut self.z);
        std::mem::swap(&mut self.z, &mut self.znew);
        self.f_prev.copy_from_slice(&self.k[0]);
        (self.t_prev, self.h_prev, self.f_end_ready) = (t, h, false);
    }

    fn interpolate(&mut self, sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        let h = self.h_prev;
        if !self.f_end_ready {
            let t_end = self.t_prev + h;
            self.rhs_out.eval(sys, t_end, &self.z, h, &mut self.f_end)?;
            self.f_end_ready = true;
        }
        let th = (t - self.t_prev) / h;
        let [h00, h10, h01, h11] = crate::dense::hermite_basis(th);
        for c in 0..out.len() {
            out[c] = h00 * self.z_prev[c]
                + h10 * h * self.f_prev[c]
                + h01 * self.z[c]
                + h11 * h * self.f_end[c];
        }
        Ok(())
    }

    fn stabilizer(&self) -> Option<&Stabilizer> {
        Some(&self.stab)
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(self.rhs.row_selection())
    }

    fn counters(&self) -> StepperCounters {
        StepperCounters {
            nfcn: self.rhs.nfcn,
            nstab: self.stab.applications,
            stabilization_time: self.stab.time,
            output_solves: self.rhs_out.nfcn,
            conditioning: self.rhs.conditioning,
        }
    }
}

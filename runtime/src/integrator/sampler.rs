//! Output scheduling and samples: which output times fall into an accepted step, and the
//! [`crate::Sample`] at each (state, v̇ and λ from a KKT solve there, the drift).
//!
//! Samples at a step point use the step's (stabilized) state; samples inside a step use the
//! method's interpolant, post-stabilized first when [`SampleKind::Projected`] is asked for.
//! A sample of [`SampleContent::State`] makes no KKT solve: its drift is measured alone (or
//! handed over, at a step point whose drift the run loop measured anyway).

use crate::baumgarte::Baumgarte;
use crate::continuous::Correction;
use crate::drift::{Drift, DriftMeter};
use crate::error::SimError;
use crate::kkt::{KktWorkspace, accelerations_into};
use crate::output::{Observer, Sample};
use crate::stabilize::{Stabilization, Stabilizer};
use crate::system::{ConstrainedSystem, Dims};

use super::common::{CommonOptions, SampleContent, SampleKind};

/// Preallocated sample evaluator and the position in the output grid.
pub(crate) struct Sampler {
    dims: Dims,
    baumgarte: Option<Baumgarte>,
    /// A continuous stabilization's correction of v̇ (samples report the field's v̇).
    continuous: Option<Correction>,
    q_dot: Vec<f64>,
    kkt: KktWorkspace,
    vdot: Vec<f64>,
    lambda: Vec<f64>,
    meter: DriftMeter,
    projector: Option<Stabilizer>,
    /// What grid samples and step-point samples carry.
    content: SampleContent,
    step_content: SampleContent,
    /// Scratch state for interpolated samples.
    pub(crate) z: Vec<f64>,
    times: Vec<f64>,
    next: usize,
    dir: f64,
    /// KKT solves (and projections) spent on samples.
    pub(crate) solves: usize,
    /// The method's own accelerations and multipliers for the next sample ([`Self::own`]).
    pub(crate) vdot_own: Vec<f64>,
    pub(crate) lambda_own: Vec<f64>,
    /// Whether the next sample reports `vdot_own` and `lambda_own` in place of the KKT
    /// solve's (reset by every emission).
    pub(crate) own: bool,
}

impl Sampler {
    /// The sampler of a run with `common`'s options on the output times `times` (ordered in
    /// the direction `dir`); its KKT solves and projections factor with `common.kkt`.
    pub(crate) fn new(dims: Dims, common: &CommonOptions, times: Vec<f64>, dir: f64) -> Self {
        let stabilization = common.stabilization;
        let project = common.samples == SampleKind::Projected && dims.constraint_rows() > 0;
        Self {
            dims,
            baumgarte: (stabilization.baumgarte().copied())
                .or_else(|| stabilization.continuous().and_then(|c| c.first_step())),
            continuous: stabilization
                .continuous()
                .map(|c| Correction::new(*c, dims)),
            q_dot: vec![0.0; dims.n],
            kkt: KktWorkspace::with_solver(dims, common.kkt),
            vdot: vec![0.0; dims.n],
            lambda: vec![0.0; dims.constraint_rows()],
            meter: DriftMeter::new(dims),
            projector: project
                .then(|| Stabilizer::new(Stabilization::PStab, dims).with_kkt_solver(common.kkt)),
            content: common.sample_content,
            step_content: common.step_content,
            z: vec![0.0; 2 * dims.n],
            times,
            next: 0,
            dir,
            solves: 0,
            vdot_own: vec![0.0; dims.n],
            lambda_own: vec![0.0; dims.constraint_rows()],
            own: false,
        }
    }

    /// Whether the grid has any output time at all.
    pub(crate) fn has_times(&self) -> bool {
        !self.times.is_empty()
    }

    /// The next output time at or before `t` (in the direction of integration, with a slack of
    /// `snap`), consumed.
    pub(crate) fn due(&mut self, t: f64, snap: f64) -> Option<f64> {
        let time = *self.times.get(self.next)?;
        (self.dir * (time - t) <= snap).then(|| {
            self.next += 1;
            time
        })
    }

    /// Report the grid sample at (t, z) to `observer`.
    pub(crate) fn emit<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        z: &[f64],
        observer: &mut O,
    ) -> Result<(), SimError> {
        self.emit_as(self.content, sys, t, z, None, observer)
    }

    /// Report the step-point sample at (t, z) to `observer`; `drift` is the drift there if
    /// the caller measured it.
    pub(crate) fn emit_step<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        z: &[f64],
        drift: Option<Drift>,
        observer: &mut O,
    ) -> Result<(), SimError> {
        self.emit_as(self.step_content, sys, t, z, drift, observer)
    }

    /// The sample of `content` at (t, z).
    fn emit_as<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        content: SampleContent,
        sys: &S,
        t: f64,
        z: &[f64],
        drift: Option<Drift>,
        observer: &mut O,
    ) -> Result<(), SimError> {
        match content {
            SampleContent::Dynamics => self.emit_dynamics(sys, t, z, observer),
            SampleContent::State => self.emit_state(sys, t, z, drift, observer),
        }
    }

    /// The sample without v̇ and λ: the drift (`drift`, or measured).
    fn emit_state<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        z: &[f64],
        drift: Option<Drift>,
        observer: &mut O,
    ) -> Result<(), SimError> {
        let (q, v) = z.split_at(self.dims.n);
        let drift = match drift {
            Some(d) => d,
            None => self.meter.measure(sys, t, q, v)?,
        };
        observer.output(&Sample {
            t,
            q,
            v,
            vdot: &[],
            lambda: &[],
            drift,
        });
        Ok(())
    }

    /// The sample with v̇ and λ from a KKT solve at (t, z).
    fn emit_dynamics<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        z: &[f64],
        observer: &mut O,
    ) -> Result<(), SimError> {
        self.solves += 1;
        let (q, v) = z.split_at(self.dims.n);
        accelerations_into(
            sys,
            t,
            q,
            v,
            self.baumgarte.as_ref(),
            &mut self.kkt,
            0.0,
            &mut self.vdot,
            &mut self.lambda,
        )?;
        if std::mem::take(&mut self.own) {
            self.vdot.copy_from_slice(&self.vdot_own);
            self.lambda.copy_from_slice(&self.lambda_own);
        }
        // `accelerations_into` left G(t, q) in the workspace.
        if let Some(correction) = &mut self.continuous {
            self.q_dot.copy_from_slice(v);
            let (q_dot, vdot) = (&mut self.q_dot, &mut self.vdot);
            correction.apply_after(sys, (t, 0.0), q, v, &mut self.kkt, q_dot, vdot)?;
        }
        let drift = self.meter.measure_with(sys, t, q, v, self.kkt.jacobian())?;
        observer.output(&Sample {
            t,
            q,
            v,
            vdot: &self.vdot,
            lambda: &self.lambda,
            drift,
        });
        Ok(())
    }

    /// Report the interpolated state in `self.z` at `t`, projected first if asked for.
    pub(crate) fn emit_interpolated<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        observer: &mut O,
    ) -> Result<(), SimError> {
        if let Some(projector) = &mut self.projector {
            self.solves += 1;
            let (q, v) = self.z.split_at_mut(self.dims.n);
            projector.apply(sys, t, 0.0, q, v, 0.0)?;
        }
        let z = std::mem::take(&mut self.z);
        let result = self.emit(sys, t, &z, observer);
        self.z = z;
        result
    }
}

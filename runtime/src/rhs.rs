//! The first-order right-hand side f(t, z) = (v, v̇) on z = (q, v), and output samples.
//!
//! Shared by the adaptive and the fixed-step integrators: [`Rhs::eval`] is one KKT solve
//! ([`crate::accelerations_into`]) with the method's γ (γ̂ under Baumgarte) and counts NFCN;
//! [`Rhs::emit`] evaluates v̇, λ and the drift at an output state and hands them to an
//! [`Observer`].

use crate::baumgarte::Baumgarte;
use crate::error::SimError;
use crate::kernels;
use crate::kkt::{KktWorkspace, accelerations_into};
use crate::output::{Observer, Sample};
use crate::stabilize::{Drift, inf_norm};
use crate::system::{ConstrainedSystem, Dims};

/// Preallocated right-hand-side evaluator.
#[derive(Clone, Debug)]
pub(crate) struct Rhs {
    pub(crate) dims: Dims,
    baumgarte: Option<Baumgarte>,
    kkt: KktWorkspace,
    lambda: Vec<f64>,
    vdot: Vec<f64>,
    /// Right-hand-side evaluations so far (NFCN).
    pub(crate) nfcn: usize,
    /// KKT solves for output samples.
    pub(crate) output_solves: usize,
}

impl Rhs {
    pub(crate) fn new(dims: Dims, baumgarte: Option<Baumgarte>) -> Self {
        Self {
            dims,
            baumgarte,
            kkt: KktWorkspace::new(dims),
            lambda: vec![0.0; dims.constraint_rows()],
            vdot: vec![0.0; dims.n],
            nfcn: 0,
            output_solves: 0,
        }
    }

    /// `f = (v, v̇(t, q, v))` for `z = (q, v)`; `h` labels errors.
    pub(crate) fn eval<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        z: &[f64],
        h: f64,
        f: &mut [f64],
    ) -> Result<(), SimError> {
        let n = self.dims.n;
        self.nfcn += 1;
        let (q, v) = z.split_at(n);
        let (fq, fv) = f.split_at_mut(n);
        fq.copy_from_slice(v);
        accelerations_into(
            sys,
            t,
            q,
            v,
            self.baumgarte.as_ref(),
            &mut self.kkt,
            h,
            fv,
            &mut self.lambda,
        )
    }

    /// Evaluate v̇, λ and the drift at (t, z) and pass the sample to `observer`.
    pub(crate) fn emit<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        z: &[f64],
        observer: &mut O,
    ) -> Result<(), SimError> {
        let (n, m) = (self.dims.n, self.dims.m);
        self.output_solves += 1;
        let (q, v) = z.split_at(n);
        let ws = &mut self.kkt;
        accelerations_into(
            sys,
            t,
            q,
            v,
            self.baumgarte.as_ref(),
            ws,
            0.0,
            &mut self.vdot,
            &mut self.lambda,
        )?;
        // `accelerations_into` left G(t, q) in ws.jac.
        kernels::phi(sys, t, q, &mut ws.phi)?;
        kernels::velocity_residual(sys, t, q, v, &ws.jac, &mut ws.tmp, &mut ws.vel_res)?;
        let drift = Drift {
            position: inf_norm(&ws.phi[..m]),
            velocity: inf_norm(&ws.vel_res),
        };
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
}

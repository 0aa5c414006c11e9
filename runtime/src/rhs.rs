//! The first-order right-hand side f(t, z) = (v, v̇) on z = (q, v), shared by the one-step
//! methods: [`Rhs::eval`] is one KKT solve ([`crate::accelerations_into`]) with the method's γ
//! (γ̂ under Baumgarte), followed under a continuous stabilization by its correction of
//! (q', v') ([`crate::continuous`]), and counts NFCN.

use crate::baumgarte::Baumgarte;
use crate::continuous::Correction;
use crate::error::SimError;
use crate::kkt::{Conditioning, KktSolver, KktWorkspace, accelerations_into};
use crate::stabilize::Stabilization;
use crate::system::{ConstrainedSystem, Dims};

/// Preallocated right-hand-side evaluator.
#[derive(Clone, Debug)]
pub(crate) struct Rhs {
    pub(crate) dims: Dims,
    baumgarte: Option<Baumgarte>,
    continuous: Option<Correction>,
    kkt: KktWorkspace,
    lambda: Vec<f64>,
    /// Right-hand-side evaluations so far (NFCN).
    pub(crate) nfcn: usize,
    /// The worst KKT pivot spread so far.
    pub(crate) conditioning: Option<Conditioning>,
}

impl Rhs {
    /// The field of `stabilization` (γ̂ of Baumgarte or of the two-step route's first step,
    /// and the continuous correction; the post-step drift controls leave the field alone).
    pub(crate) fn new(dims: Dims, stabilization: Stabilization, solver: KktSolver) -> Self {
        let continuous = stabilization.continuous().copied();
        Self {
            dims,
            baumgarte: (stabilization.baumgarte().copied())
                .or_else(|| continuous.and_then(|c| c.first_step())),
            continuous: continuous.map(|c| Correction::new(c, dims)),
            kkt: KktWorkspace::with_solver(dims, solver),
            lambda: vec![0.0; dims.constraint_rows()],
            nfcn: 0,
            conditioning: None,
        }
    }

    /// The rows left out as redundant by the dynamics' KKT solve.
    pub(crate) fn row_selection(&self) -> &crate::redundancy::RowSelection {
        self.kkt.row_selection()
    }

    /// The KKT workspace of the last evaluation: K = [M Gᵀ; G 0] factored at its point, G
    /// there (what a projection from that point reuses, [`crate::stabilize::Stabilizer`]).
    pub(crate) fn last_kkt(&mut self) -> &mut KktWorkspace {
        &mut self.kkt
    }

    /// The pivot spread of the last evaluation's KKT factorization.
    pub(crate) fn last_spread(&self) -> f64 {
        self.kkt.last_pivot_spread()
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
        )?;
        Conditioning::note(&mut self.conditioning, self.kkt.last_pivot_spread(), t);
        if let Some(correction) = &mut self.continuous {
            // `accelerations_into` left G(t, q) in the workspace.
            correction.apply_after(sys, (t, h), q, v, &mut self.kkt, fq, fv)?;
        }
        Ok(())
    }
}

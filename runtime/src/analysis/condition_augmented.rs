//! The 2-norm condition of the augmented matrix K = [M Gᵀ; G 0] without a dense SVD of order
//! n + r (issue 27): the condition the run loop prints when it names a singular configuration
//! (`singular.rs`), on models with the sparse kernel forms whose K takes the banded layout.
//!
//! K is symmetric (indefinite), so its singular values are the moduli of its eigenvalues:
//! - **σ_max** = max |λ(K)| by Lanczos on K (one sparse mat-vec over M's and G's nonzeros a
//!   step), taking the Ritz value of largest modulus;
//! - **σ_min** = 1 / max |λ(K⁻¹)| by Lanczos on K⁻¹, a step one solve with K's banded LU
//!   under the RCM ordering of its pattern (the KKT solve's [`OrderedBand`]).
//!
//! Both runs are those of `condition_sparse.rs` (full reorthogonalization, a relative Ritz
//! residual of [`super::condition_sparse::EIGEN_TOLERANCE`] = 1e-6, at most
//! [`super::condition_sparse::MAX_STEPS`] steps), so each σ is within ~1e-6 relative and the
//! condition within ~2e-6 of the SVD's; a Ritz value lies inside the spectrum, so the estimate
//! never exceeds the true condition up to the round-off of σ_min, which both it and the SVD
//! carry as an absolute ε‖K‖ (relative ε·κ: at the A02 chain's failed passage, κ ≈ 2e15, the
//! estimate 2.03e15 against the SVD's 1.88e15). The run on K takes up to [`MAX_STEPS_UP`] steps: on a
//! chain K's largest eigenvalues form a tight cluster (measured on the A02 chain in body
//! coordinates: 180 steps to the 1e-6 residual, the Ritz value settled to 1e-9 by ~110). `None`
//! — and the caller's dense SVD, exact — when K is smaller than [`MIN_ESTIMATE_ORDER`] under
//! `Auto`, keeps the dense layout under the policy, does not factor (singular to working
//! precision: an exactly zero pivot), or either run does not converge.

use super::condition_sparse::{MAX_STEPS, lanczos_max};

/// Largest Krylov dimension of the run on K itself: its largest eigenvalues come in a tight
/// cluster on a chain (the A02 chain's 81 identical bodies), where the Ritz value settles long
/// before its residual bound does (6.5e-6 after 120 steps there).
const MAX_STEPS_UP: usize = 400;
use super::statics_band::SparseJacobian;
use crate::error::SimError;
use crate::kkt::KktLayout;
use crate::kkt_layout::{KktSolver, OrderedBand, rcm_position};
use crate::system::ConstrainedSystem;

/// The order of K from which `Auto` takes the estimate: below it the dense SVD is the cheaper
/// (measured: order 81, the crank-angle A02 chain, SVD 0.9 ms against 8 ms for the Lanczos
/// runs; order 485, the chain in body coordinates, 126 ms against 72 ms; the SVD's cost grows
/// like N³, the runs' like k²·N with k ≈ 200 steps, so they cross near 300).
pub const MIN_ESTIMATE_ORDER: usize = 300;

/// K's nonzeros: (row, column, value) in the order n + r numbering, both triangles.
struct Augmented {
    order: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl Augmented {
    /// K at (t, q): M's nonzeros (the sparse forms', or a dense M gathered on its pattern) and
    /// G's twice.
    fn eval<S: ConstrainedSystem + ?Sized>(sys: &S, t: f64, q: &[f64]) -> Result<Self, SimError> {
        let n = sys.dims().n;
        let pattern = crate::sparse::mass_entries(sys, n);
        let values = if sys.has_nonzero_forms() {
            let mut values = vec![0.0; pattern.len()];
            sys.mass_nonzeros_into(t, q, &mut values);
            values
        } else {
            let mut mass = nalgebra::DMatrix::zeros(n, n);
            crate::kernels::mass(sys, t, q, &mut mass)?;
            pattern.iter().map(|&(i, j)| mass[(i, j)]).collect()
        };
        let g = SparseJacobian::eval(sys, t, q)?;
        let mut entries: Vec<(usize, usize, f64)> = (pattern.iter().zip(&values))
            .map(|(&(i, j), &x)| (i, j, x))
            .collect();
        for (&(i, j), &x) in g.entries.iter().zip(&g.values) {
            entries.push((n + i, j, x));
            entries.push((j, n + i, x));
        }
        Ok(Self {
            order: n + g.rows,
            entries,
        })
    }

    /// out = K w.
    fn times(&self, w: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        for &(i, j, x) in &self.entries {
            out[i] += x * w[j];
        }
    }

    /// K factored banded under `policy` (`None`: dense layout, or singular).
    fn factored(&self, policy: KktSolver) -> Option<OrderedBand> {
        let edges: Vec<(usize, usize)> = (self.entries.iter())
            .filter(|e| e.0 != e.1)
            .map(|e| (e.0, e.1))
            .collect();
        let (position, bandwidth) = rcm_position(self.order, &edges);
        let layout = KktLayout::choose(policy, self.order, bandwidth);
        if !matches!(layout, KktLayout::Banded { .. }) {
            return None;
        }
        let mut band = OrderedBand::new(position, bandwidth);
        for &(i, j, x) in &self.entries {
            band.add(i, j, x);
        }
        // Only an exactly zero pivot counts as singular here (the scale's n·ε threshold of
        // `BandedLu::factor` would refuse K at a singular configuration, κ ~ 1e15, exactly
        // where the condition is asked for): partial pivoting stays backward stable, so the
        // solves carry an absolute ε‖K‖ on σ_min, as the SVD does.
        band.factor_with_scale(f64::MIN_POSITIVE).ok().map(|_| band)
    }
}

/// σ_max / σ_min of [M Gᵀ; G 0] at (t, q) by the Lanczos runs of the module docs, or `None`
/// (the caller takes the dense SVD) when a kernel fails, K keeps the dense layout under
/// `policy`, does not factor, or a run does not converge.
pub(super) fn augmented_condition_banded<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    (t, q): (f64, &[f64]),
    policy: KktSolver,
) -> Option<f64> {
    let d = sys.dims();
    if policy == KktSolver::Auto && d.n + d.constraint_rows() < MIN_ESTIMATE_ORDER {
        return None;
    }
    let k = Augmented::eval(sys, t, q).ok()?;
    let mut band = k.factored(policy)?;
    let (top, _) = lanczos_max(k.order, (true, MAX_STEPS_UP), |w, out| k.times(w, out))?;
    let (inverse_top, _) = lanczos_max(k.order, (true, MAX_STEPS), |w, out| {
        out.copy_from_slice(w);
        band.solve_in_place(out);
    })?;
    (top > 0.0 && inverse_top > 0.0).then_some(top * inverse_top)
}

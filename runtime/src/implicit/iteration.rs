//! The sparse path of the implicit methods' linear algebra: the choice of it, and the iteration
//! matrix [M + cq K + cv C, Gᵀ; G, 0] (Newmark/HHT/generalized-α's Newton matrix, Radau's
//! error-estimate matrix) as a banded LU assembled from nonzeros.
//!
//! A model goes on the sparse path when it has the sparse kernel forms
//! ([`ConstrainedSystem::has_nonzero_forms`]), no nonholonomic rows (their tangent block N has
//! no stated pattern, `pattern.rs`), and the KKT policy ([`KktSolver`], `common.kkt`) picks
//! the banded layout for the method's largest system by the KKT's own rule
//! ([`KktLayout::choose`]: at most a quarter of the dense flops, at least 40 unknowns): the
//! order N = n + m matrix [W Gᵀ; G 0] under the RCM ordering of its pattern (W's = the tangent
//! pattern, which holds M's), or Radau's stage system of order 3N with its stages interleaved
//! per unknown (half-bandwidth 3b + 2, `radau/stages.rs`). Every other model keeps the dense
//! path, bit for bit as before.
//!
//! The assembly scatters M's, G's and the tangents' values through slots computed once; a
//! grown tangent pattern (a nonzero found outside it) makes a new ordering and new slots
//! ([`BandedIteration::is_current`]). Rows of G left out as redundant ([`crate::redundancy`])
//! are not assembled and their multipliers are pinned by the row's scale on the diagonal, as in
//! the dense path.

use crate::kkt_layout::{KktLayout, KktSolver, OrderedBand, rcm_position};
use crate::redundancy::RowSelection;
use crate::sparse::{SparseMatrix, jacobian_pattern, mass_entries};
use crate::system::ConstrainedSystem;

use super::pattern::{SparseTangents, TangentPattern};

/// The tangent storage of the sparse path when `sys` goes on it (module docs) for a method
/// whose largest system holds `stages` copies of [W Gᵀ; G 0] interleaved; `None` keeps the
/// dense path.
pub(crate) fn sparse_plan<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    solver: KktSolver,
    stages: usize,
) -> Option<SparseTangents> {
    let dims = sys.dims();
    if !sys.has_nonzero_forms() || dims.k > 0 || solver == KktSolver::Dense {
        return None;
    }
    let jac = jacobian_pattern(sys, dims);
    let pattern = TangentPattern::structural(dims.n, &mass_entries(sys, dims.n), &jac);
    let (_, b) = ordering(&pattern, &jac, dims.constraint_rows());
    let order = stages * (dims.n + dims.constraint_rows());
    match KktLayout::choose(solver, order, stages * b + stages - 1) {
        KktLayout::Banded { .. } => Some(SparseTangents::new(pattern)),
        KktLayout::Dense { .. } => None,
    }
}

/// The RCM ordering of [W Gᵀ; G 0] for W's pattern `pattern` (n × n, with M's) and the pattern
/// `jac` of G's `rows` rows: `position[old] = new` over the n + r unknowns, and the
/// half-bandwidth under it.
pub(crate) fn ordering(
    pattern: &TangentPattern,
    jac: &[(usize, usize)],
    rows: usize,
) -> (Vec<usize>, usize) {
    let n = pattern.n();
    let mut edges = pattern.entries().to_vec();
    edges.extend(jac.iter().map(|&(r, c)| (n + r, c)));
    rcm_position(n + rows, &edges)
}

/// [M + cq K + cv C, Gᵀ; G, 0] as a banded LU under the RCM ordering (module docs).
#[derive(Clone, Debug)]
pub(crate) struct BandedIteration {
    band: OrderedBand,
    /// The tangent pattern's generation the slots were computed for.
    generation: usize,
    mass_slots: Vec<usize>,
    tangent_slots: Vec<usize>,
    /// Each nonzero of G: its slot in the constraint rows and its mirror in Gᵀ.
    jac_slots: Vec<(usize, usize)>,
    /// The diagonal slot of each constraint row (a left-out row's pin).
    pin_slots: Vec<usize>,
}

impl BandedIteration {
    /// The layout for M's pattern of `mass`, G's of `jac` and the tangents' pattern.
    pub(crate) fn new(mass: &SparseMatrix, jac: &SparseMatrix, t: &SparseTangents) -> Self {
        let n = t.pattern.n();
        let (position, b) = ordering(&t.pattern, jac.entries(), jac.rows());
        let band = OrderedBand::new(position, b);
        let slot = |&(i, j): &(usize, usize)| band.slot(i, j);
        Self {
            generation: t.generation,
            mass_slots: mass.entries().iter().map(slot).collect(),
            tangent_slots: t.pattern.entries().iter().map(slot).collect(),
            jac_slots: (jac.entries().iter())
                .map(|&(r, c)| (band.slot(n + r, c), band.slot(c, n + r)))
                .collect(),
            pin_slots: (0..jac.rows()).map(|r| band.slot(n + r, n + r)).collect(),
            band,
        }
    }

    /// Whether the slots fit the tangents' current pattern.
    pub(crate) fn is_current(&self, t: &SparseTangents) -> bool {
        self.generation == t.generation
    }

    /// Assemble the matrix for coefficients (cq, cv) with the rows of `left_out` left out, and
    /// factor it; `Err` when singular.
    pub(crate) fn factor(
        &mut self,
        (mass, jac): (&SparseMatrix, &SparseMatrix),
        t: &SparseTangents,
        (cq, cv): (f64, f64),
        left_out: &RowSelection,
    ) -> Result<(), ()> {
        self.band.clear();
        let band = self.band.band_mut();
        for (&s, &m) in self.mass_slots.iter().zip(&mass.values) {
            band[s] += m;
        }
        for (&s, (&k, &c)) in self.tangent_slots.iter().zip(t.k.iter().zip(&t.c)) {
            band[s] += cq * k + cv * c;
        }
        for (p, (&(s, mirror), &g)) in self.jac_slots.iter().zip(&jac.values).enumerate() {
            if left_out.is_empty() || !left_out.contains(jac.entries()[p].0) {
                band[s] += g;
                band[mirror] += g;
            }
        }
        for &i in left_out.left_out() {
            band[self.pin_slots[i]] += jac.row_scale(i);
        }
        self.band.factor().map_err(|_| ())
    }

    /// Solve in place with the current factors.
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        self.band.solve_in_place(rhs);
    }

    /// The pivot spread of the current factors.
    pub(crate) fn pivot_spread(&self) -> f64 {
        self.band.pivot_spread()
    }
}

//! The banded path of the KKT solve: a reverse Cuthill–McKee ordering computed once from the
//! structural pattern, and an in-place banded LU with partial pivoting (LAPACK `dgbtf2`'s
//! algorithm and storage) on preallocated band storage.
//!
//! Mechanisms are chains and trees of bodies: ordered by RCM, the augmented matrix
//! [M Gᵀ; G 0] of a body-coordinate chain has a bandwidth of a few entries whatever its size, so
//! a factorization costs O(N·b²) instead of the dense O(N³). Partial pivoting inside the band
//! handles the zero (2,2) block and a mass matrix that is only positive definite on ker G, as
//! the dense LU does; row interchanges widen the upper band to b_l + b_u, which the storage
//! holds from the start (`dgbtrf`'s layout), so nothing is allocated after [`BandedLu::new`].

mod fixed;

/// A symmetric permutation of `0..n` that narrows the band of a matrix with pattern `edges`,
/// by reverse Cuthill–McKee from a pseudo-peripheral start in every connected component.
/// Returns `order` with `order[new] = old`.
pub fn reverse_cuthill_mckee(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let adjacency = adjacency(n, edges);
    let degree = |i: usize| adjacency[i].len();
    let mut order = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    let mut by_degree: Vec<usize> = (0..n).collect();
    by_degree.sort_by_key(|&i| (degree(i), i));
    for &seed in &by_degree {
        if placed[seed] {
            continue;
        }
        let start = pseudo_peripheral(&adjacency, seed);
        let first = order.len();
        order.push(start);
        placed[start] = true;
        let mut head = first;
        while head < order.len() {
            let node = order[head];
            head += 1;
            let mut next: Vec<usize> = adjacency[node]
                .iter()
                .copied()
                .filter(|&j| !placed[j])
                .collect();
            next.sort_by_key(|&j| (degree(j), j));
            for j in next {
                placed[j] = true;
                order.push(j);
            }
        }
    }
    order.reverse();
    order
}

/// Sorted, deduplicated neighbour lists of the symmetric pattern `edges` (diagonal dropped).
fn adjacency(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adjacency = vec![Vec::new(); n];
    for &(i, j) in edges {
        if i != j {
            adjacency[i].push(j);
            adjacency[j].push(i);
        }
    }
    for list in &mut adjacency {
        list.sort_unstable();
        list.dedup();
    }
    adjacency
}

/// The last node of a breadth-first search from `seed`, repeated while the eccentricity grows
/// (George and Liu's heuristic): a good RCM start.
fn pseudo_peripheral(adjacency: &[Vec<usize>], seed: usize) -> usize {
    let (mut node, mut depth) = farthest(adjacency, seed);
    loop {
        let (next, next_depth) = farthest(adjacency, node);
        if next_depth <= depth {
            return node;
        }
        (node, depth) = (next, next_depth);
    }
}

/// The farthest node from `from` (smallest degree among the last level) and its distance.
fn farthest(adjacency: &[Vec<usize>], from: usize) -> (usize, usize) {
    let mut level = vec![usize::MAX; adjacency.len()];
    level[from] = 0;
    let mut queue = vec![from];
    let mut head = 0;
    while head < queue.len() {
        let node = queue[head];
        head += 1;
        for &j in &adjacency[node] {
            if level[j] == usize::MAX {
                level[j] = level[node] + 1;
                queue.push(j);
            }
        }
    }
    let depth = level[*queue.last().unwrap_or(&from)];
    let best = queue
        .iter()
        .copied()
        .filter(|&i| level[i] == depth)
        .min_by_key(|&i| (adjacency[i].len(), i))
        .unwrap_or(from);
    (best, depth)
}

/// The half-bandwidth of pattern `edges` under `position[old] = new`.
pub fn bandwidth(edges: &[(usize, usize)], position: &[usize]) -> usize {
    edges
        .iter()
        .map(|&(i, j)| position[i].abs_diff(position[j]))
        .max()
        .unwrap_or(0)
}

/// An in-place banded LU factorization P A = L U with partial pivoting of an `n × n` matrix with
/// `kl` sub- and `ku` super-diagonals.
#[derive(Clone, Debug)]
pub struct BandedLu {
    n: usize,
    kl: usize,
    ku: usize,
    /// Column-major band storage, `ldab = 2 kl + ku + 1` rows: A(i, j) at row `kl + ku + i − j`
    /// of column j; the top `kl` rows take the fill of the row interchanges.
    ab: Vec<f64>,
    piv: Vec<usize>,
}

impl BandedLu {
    /// Storage for an `n × n` matrix of bandwidths `kl`, `ku`.
    pub fn new(n: usize, kl: usize, ku: usize) -> Self {
        Self {
            n,
            kl,
            ku,
            ab: vec![0.0; (2 * kl + ku + 1) * n],
            piv: vec![0; n],
        }
    }

    /// Order of the matrix.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// The lower and upper bandwidths.
    pub fn bandwidths(&self) -> (usize, usize) {
        (self.kl, self.ku)
    }

    fn ldab(&self) -> usize {
        2 * self.kl + self.ku + 1
    }

    /// Index in `ab` of A(i, j) (or of its fill), for j − kl − ku ≤ i ≤ j + kl.
    fn at(&self, i: usize, j: usize) -> usize {
        self.kl + self.ku + i - j + j * self.ldab()
    }

    /// Zero the matrix (and the fill rows) before it is filled again.
    pub fn clear(&mut self) {
        self.ab.fill(0.0);
    }

    /// Add `value` to A(i, j); the entry must lie inside the band (`assert!`).
    pub fn add(&mut self, i: usize, j: usize, value: f64) {
        assert!(
            i <= j + self.kl && j <= i + self.ku && i < self.n && j < self.n,
            "BandedLu::add: ({i}, {j}) outside the band"
        );
        let k = self.at(i, j);
        self.ab[k] += value;
    }

    /// The index in the band storage of A(i, j), which must lie inside the band (`assert!`):
    /// where a caller that fills the same pattern repeatedly writes (see [`BandedLu::band_mut`]).
    pub fn slot(&self, i: usize, j: usize) -> usize {
        assert!(
            i <= j + self.kl && j <= i + self.ku && i < self.n && j < self.n,
            "BandedLu::slot: ({i}, {j}) outside the band"
        );
        self.at(i, j)
    }

    /// The band storage, to be filled at [`BandedLu::slot`]s after [`BandedLu::clear`].
    pub fn band_mut(&mut self) -> &mut [f64] {
        &mut self.ab
    }

    /// Factor in place. On a pivot below `n ε max|a_ij|` returns `Err(column)` with the first
    /// column whose pivot is negligible (the dense LU's test); the factors are then unusable.
    pub fn factor(&mut self) -> Result<(), usize> {
        let scale = crate::lu::largest_magnitude(&self.ab);
        self.factor_with_scale(scale)
    }

    /// [`BandedLu::factor`] with `scale` = max|a_ij| of the assembled matrix given by the caller
    /// (`crate::lu::largest_magnitude` of the values it scattered: the same number as the scan
    /// over the whole band storage, whose other entries are zeros, without reading it).
    pub fn factor_with_scale(&mut self, scale: f64) -> Result<(), usize> {
        let n = self.n;
        if n > 0 && (scale.is_nan() || scale == 0.0) {
            return Err(0);
        }
        let tiny = (n.max(1) as f64) * f64::EPSILON * scale;
        fixed::with_fixed_band!(self.factor_columns(tiny))
    }

    /// The row offset (0..=below) of the largest entry on or below the diagonal of column j.
    fn pivot_in_column(&self, j: usize, below: usize) -> (usize, f64) {
        let base = self.at(j, j);
        let mut offset = 0;
        let mut best = self.ab[base].abs();
        for r in 1..=below {
            let x = self.ab[base + r].abs();
            if x > best {
                (offset, best) = (r, x);
            }
        }
        (offset, best)
    }

    /// Scale column j below the pivot and update columns j+1..=last with it. Slices instead of
    /// indexed entries (no bounds check per entry); the same operations in the same order as
    /// `a(j + r, c) -= l(j + r) · u(j, c)` entry by entry.
    fn eliminate(&mut self, j: usize, below: usize, last: usize) {
        let diag = self.at(j, j);
        let inv = 1.0 / self.ab[diag];
        for x in &mut self.ab[diag + 1..=diag + below] {
            *x *= inv;
        }
        if below == 0 {
            return;
        }
        // A(j, c) lies (c − j)(ldab − 1) entries after A(j, j): past the multipliers.
        let step = self.ldab() - 1;
        let (head, tail) = self.ab.split_at_mut(diag + below + 1);
        let multipliers = &head[diag + 1..];
        for c in j + 1..=last {
            let row = (c - j) * step - below - 1;
            let u = tail[row];
            if u != 0.0 {
                for (x, &l) in tail[row + 1..=row + below].iter_mut().zip(multipliers) {
                    *x -= l * u;
                }
            }
        }
    }

    /// max|u_jj| / min|u_jj| of the last successful [`BandedLu::factor`].
    ///
    /// The diagonal is scanned in four interleaved lanes: min and max are exact, so the result
    /// is the sequential scan's (`crate::lu::spread`), without its chain of dependent min/max
    /// (~1.5 µs at order 485, ~0.9 µs in lanes).
    pub fn pivot_spread(&self) -> f64 {
        let (mut lo, mut hi) = ([f64::INFINITY; 4], [0.0_f64; 4]);
        let diagonal = self.ab[self.kl + self.ku..].iter().step_by(self.ldab());
        for (j, u) in diagonal.take(self.n).enumerate() {
            lo[j % 4] = lo[j % 4].min(u.abs());
            hi[j % 4] = hi[j % 4].max(u.abs());
        }
        let lo = lo.into_iter().fold(f64::INFINITY, f64::min);
        let hi = hi.into_iter().fold(0.0, f64::max);
        if hi == 0.0 { 1.0 } else { hi / lo }
    }

    /// Solve A x = b and A y = c in place in one sweep over the factors: each result is bit for
    /// bit [`BandedLu::solve_in_place`]'s (the same operations on each), the factors are read
    /// once for both (a projection's position and velocity corrections).
    pub fn solve_pair_in_place(&self, b: &mut [f64], c: &mut [f64]) {
        let n = self.n;
        assert!(
            b.len() == n && c.len() == n,
            "BandedLu::solve_pair_in_place: b and c need length n"
        );
        fixed::with_fixed_band!(self.solve_pair_columns(b, c))
    }

    /// Solve Aᵀ x = b in place with the factors of [`BandedLu::factor`] (LAPACK `dgbtrs` with
    /// `trans = 'T'`): with T A = U, T = L₍ₙ₋₁₎⁻¹P₍ₙ₋₁₎ ⋯ L₀⁻¹P₀ the elimination, first Uᵀ w = b
    /// (forward, over U's columns), then x = Tᵀ w, applying L_j⁻ᵀ and P_j from j = n − 1 down.
    pub fn solve_transpose_in_place(&self, b: &mut [f64]) {
        let n = self.n;
        assert_eq!(
            b.len(),
            n,
            "BandedLu::solve_transpose_in_place: b needs length n"
        );
        let upper = self.kl + self.ku;
        for j in 0..n {
            let diag = self.at(j, j);
            let top = j.saturating_sub(upper);
            let column = &self.ab[diag - (j - top)..diag];
            let dot: f64 = b[top..j].iter().zip(column).map(|(x, u)| x * u).sum();
            b[j] = (b[j] - dot) / self.ab[diag];
        }
        for j in (0..n).rev() {
            let below = self.kl.min(n - 1 - j);
            let diag = self.at(j, j);
            let multipliers = &self.ab[diag + 1..=diag + below];
            let dot: f64 = b[j + 1..=j + below]
                .iter()
                .zip(multipliers)
                .map(|(x, l)| x * l)
                .sum();
            b[j] -= dot;
            let p = self.piv[j];
            if p != j {
                b.swap(p, j);
            }
        }
    }

    /// The row interchanges of the last successful [`BandedLu::factor`]: `piv[j]` is the row
    /// swapped with row j at step j.
    pub fn pivots(&self) -> &[usize] {
        &self.piv
    }

    /// The diagonal of U of the last successful [`BandedLu::factor`].
    pub fn pivot(&self, j: usize) -> f64 {
        self.ab[self.at(j, j)]
    }

    /// Solve A x = b in place with the factors of [`BandedLu::factor`] (slices over the band's
    /// columns; the same operations as entry by entry).
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let n = self.n;
        assert_eq!(b.len(), n, "BandedLu::solve_in_place: b needs length n");
        fixed::with_fixed_band!(self.solve_columns(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lu::DenseLu;

    /// A tridiagonal-plus-corner pattern that needs pivoting: zero diagonal entries.
    fn banded_test_matrix(n: usize) -> Vec<(usize, usize, f64)> {
        let mut entries = Vec::new();
        for i in 0..n {
            let diag = if i % 3 == 2 {
                0.0
            } else {
                2.0 + i as f64 * 0.1
            };
            entries.push((i, i, diag));
            if i + 1 < n {
                entries.push((i, i + 1, 1.0 + 0.01 * i as f64));
                entries.push((i + 1, i, -0.7 + 0.02 * i as f64));
            }
            if i + 2 < n {
                entries.push((i + 2, i, 0.3));
            }
        }
        entries
    }

    #[test]
    fn banded_lu_agrees_with_the_dense_lu() {
        let n = 17;
        let entries = banded_test_matrix(n);
        let mut banded = BandedLu::new(n, 2, 1);
        let mut dense = DenseLu::new(n);
        for &(i, j, x) in &entries {
            banded.add(i, j, x);
            dense.matrix_mut()[(i, j)] += x;
        }
        banded.factor().expect("regular");
        dense.factor().expect("regular");
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let (mut xb, mut xd) = (rhs.clone(), rhs.clone());
        banded.solve_in_place(&mut xb);
        dense.solve_in_place(&mut xd);
        // The pair solve gives each single solve's result bit for bit.
        let other: Vec<f64> = (0..n).map(|i| (i as f64 * 0.91).cos()).collect();
        let (mut pb, mut pc, mut single) = (rhs.clone(), other.clone(), other.clone());
        banded.solve_pair_in_place(&mut pb, &mut pc);
        banded.solve_in_place(&mut single);
        assert_eq!((pb, pc), (xb.clone(), single));
        for i in 0..n {
            // Both solve the same well-conditioned system with partial pivoting: agreement to
            // a few ulps of the solution's size (condition number ~10 here).
            assert!((xb[i] - xd[i]).abs() <= 1e-13 * (1.0 + xd[i].abs()), "{i}");
        }
    }

    #[test]
    fn the_transpose_solve_inverts_the_transpose() {
        let n = 17;
        let entries = banded_test_matrix(n);
        let mut banded = BandedLu::new(n, 2, 1);
        for &(i, j, x) in &entries {
            banded.add(i, j, x);
        }
        banded.factor().expect("regular");
        assert!(banded.pivots().iter().enumerate().any(|(j, &p)| p != j));
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut x = rhs.clone();
        banded.solve_transpose_in_place(&mut x);
        // Aᵀ x from the entries: the residual is round-off of the solution's size (cond ~10).
        let mut back = vec![0.0; n];
        for &(i, j, a) in &entries {
            back[j] += a * x[i];
        }
        for i in 0..n {
            assert!(
                (back[i] - rhs[i]).abs() <= 1e-13,
                "{i}: {} vs {}",
                back[i],
                rhs[i]
            );
        }
    }

    #[test]
    fn a_given_scale_factors_as_the_scan_of_the_band() {
        let n = 17;
        let entries = banded_test_matrix(n);
        let (mut scanned, mut given) = (BandedLu::new(n, 2, 1), BandedLu::new(n, 2, 1));
        for &(i, j, x) in &entries {
            scanned.add(i, j, x);
            given.add(i, j, x);
        }
        let values: Vec<f64> = entries.iter().map(|e| e.2).collect();
        scanned.factor().expect("regular");
        (given.factor_with_scale(crate::lu::largest_magnitude(&values))).expect("regular");
        assert_eq!(scanned.ab, given.ab);
        assert_eq!(scanned.piv, given.piv);
    }

    /// A deterministic band matrix of bandwidths (kl, ku) with every third diagonal entry zero
    /// (pivoting), a few structural zeros inside the band, and entries spread over magnitudes.
    fn pseudo_random_band(n: usize, kl: usize, ku: usize, seed: u64) -> BandedLu {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let mut lu = BandedLu::new(n, kl, ku);
        for j in 0..n {
            for i in j.saturating_sub(ku)..(j + kl + 1).min(n) {
                let x = next();
                let zero = (i == j && i % 3 == 2) || (x.abs() < 0.1 && i != j);
                if !zero {
                    lu.add(i, j, x * 10f64.powf(3.0 * next()));
                }
            }
        }
        lu
    }

    /// The specialised loops (`banded/fixed.rs`) against the generic ones, K = 0: factors,
    /// pivots, solves and pair solves equal bit for bit, for every specialised lower bandwidth,
    /// upper bandwidths equal to it and not, and one wider band that takes the generic loops.
    #[test]
    fn banded_lu_specialised_agrees_bit_for_bit() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for kl in 1..=fixed::FIXED_MAX + 1 {
            for ku in [kl, kl + 2, 1] {
                for (n, seed) in [(3 * (kl + ku) + 2, 7), (97, 11 + kl as u64)] {
                    let mut fast = pseudo_random_band(n, kl, ku, seed);
                    let mut generic = fast.clone();
                    let tiny = n as f64 * f64::EPSILON * crate::lu::largest_magnitude(&fast.ab);
                    let result = fast.factor();
                    assert_eq!(result, generic.factor_columns::<0>(tiny), "{n} {kl} {ku}");
                    assert_eq!(bits(&fast.ab), bits(&generic.ab), "factors {n} {kl} {ku}");
                    assert_eq!(fast.piv, generic.piv, "pivots {n} {kl} {ku}");
                    if result.is_err() {
                        continue;
                    }
                    let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
                    let other: Vec<f64> = (0..n).map(|i| (i as f64 * 0.91).cos()).collect();
                    let (mut x, mut y) = (rhs.clone(), rhs.clone());
                    fast.solve_in_place(&mut x);
                    generic.solve_columns::<0>(&mut y);
                    assert_eq!(bits(&x), bits(&y), "solve {n} {kl} {ku}");
                    let (mut b, mut c) = (rhs.clone(), other.clone());
                    let (mut b0, mut c0) = (rhs.clone(), other.clone());
                    fast.solve_pair_in_place(&mut b, &mut c);
                    generic.solve_pair_columns::<0>(&mut b0, &mut c0);
                    assert_eq!(
                        (bits(&b), bits(&c)),
                        (bits(&b0), bits(&c0)),
                        "pair {n} {kl} {ku}"
                    );
                }
            }
        }
    }

    /// A NaN below the diagonal is skipped by the pivot search and a NaN pivot stops the
    /// factorization, in the specialised loops as in the generic ones.
    #[test]
    fn banded_lu_specialised_treats_nan_as_the_generic_loops() {
        for (row, column) in [(3, 2), (2, 2)] {
            let mut fast = pseudo_random_band(12, 2, 2, 5);
            let k = fast.slot(row, column);
            fast.ab[k] = f64::NAN;
            let mut generic = fast.clone();
            let tiny = 12.0 * f64::EPSILON;
            let result = fast.factor_with_scale(1.0);
            assert_eq!(
                result,
                generic.factor_columns::<0>(tiny),
                "NaN at ({row}, {column})"
            );
            assert_eq!(fast.piv[..2], generic.piv[..2]);
        }
    }

    #[test]
    fn banded_lu_flags_a_singular_matrix() {
        let mut lu = BandedLu::new(3, 1, 1);
        lu.add(0, 0, 1.0);
        lu.add(0, 1, 2.0);
        lu.add(1, 0, 2.0);
        lu.add(1, 1, 4.0);
        lu.add(2, 2, 1.0);
        assert_eq!(lu.factor(), Err(1));
    }

    #[test]
    fn rcm_narrows_a_shuffled_path() {
        // A path 0-1-…-19 relabelled by i ↦ 7i mod 20: bandwidth 13 as labelled, 1 after RCM.
        let n = 20;
        let label = |i: usize| (7 * i) % n;
        let edges: Vec<(usize, usize)> = (0..n - 1).map(|i| (label(i), label(i + 1))).collect();
        let identity: Vec<usize> = (0..n).collect();
        assert!(bandwidth(&edges, &identity) > 10);
        let order = reverse_cuthill_mckee(n, &edges);
        let mut position = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            position[old] = new;
        }
        assert_eq!(bandwidth(&edges, &position), 1);
    }
}

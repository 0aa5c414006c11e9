//! The banded LU's hot loops with the lower bandwidth as a constant: the factorization's pivot
//! search and column update, and the solves' forward and backward sweeps, for every column
//! whose band is full (all but the last `kl`, and the first `kl + ku` of the backward sweep).
//!
//! Why: a body-coordinate chain's KKT matrix orders to a band of 5 (the A02 chain, order 485),
//! and with the band's length known only at run time the compiler keeps every inner loop as a
//! counted loop of five or ten trips with its own bookkeeping; the factorization was ~40 % of
//! an RKSTAB run on that chain and the solves ~25 %. With the length a constant the loops are
//! unrolled over fixed-size arrays. The operations and their order are exactly those of the
//! generic loops in `banded.rs` (each entry updated by the same products in the same sequence;
//! the pivot search compares in the same order), so factors and solutions are the same bit for
//! bit (`banded_lu_specialised_agrees_bit_for_bit`). Lower bandwidths 1 ..= [`FIXED_MAX`] are
//! specialised; wider bands (Radau's stage system) take the generic loops, whose trips are long
//! enough there.

use super::BandedLu;

/// The widest lower bandwidth with specialised loops.
pub(super) const FIXED_MAX: usize = 12;

// `with_fixed_band!` spells out one arm per K in 1..=FIXED_MAX: change both together.
const _: () = assert!(FIXED_MAX == 12);

/// Call `$self.$method::<K>($args)` with K = `$self.kl` when it is at most [`FIXED_MAX`], and
/// with K = 0 (the generic loops throughout) otherwise.
macro_rules! with_fixed_band {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        match $self.kl {
            1 => $self.$method::<1>($($arg),*),
            2 => $self.$method::<2>($($arg),*),
            3 => $self.$method::<3>($($arg),*),
            4 => $self.$method::<4>($($arg),*),
            5 => $self.$method::<5>($($arg),*),
            6 => $self.$method::<6>($($arg),*),
            7 => $self.$method::<7>($($arg),*),
            8 => $self.$method::<8>($($arg),*),
            9 => $self.$method::<9>($($arg),*),
            10 => $self.$method::<10>($($arg),*),
            11 => $self.$method::<11>($($arg),*),
            12 => $self.$method::<12>($($arg),*),
            _ => $self.$method::<0>($($arg),*),
        }
    };
}
pub(super) use with_fixed_band;

/// `slice[start..start + K]` as an array reference (one bounds check).
fn window<const K: usize>(slice: &[f64], start: usize) -> &[f64; K] {
    slice[start..start + K].try_into().expect("K entries")
}

/// `slice[start..start + K]` as a mutable array reference (one bounds check).
fn window_mut<const K: usize>(slice: &mut [f64], start: usize) -> &mut [f64; K] {
    (&mut slice[start..start + K])
        .try_into()
        .expect("K entries")
}

impl BandedLu {
    /// Whether column j's band below the diagonal is full and K is the lower bandwidth.
    fn full_below<const K: usize>(&self, j: usize) -> bool {
        K > 0 && j + K < self.n
    }

    /// The factorization's column loop (`BandedLu::factor_with_scale`), with K = kl's loops
    /// where column j's band is full.
    pub(super) fn factor_columns<const K: usize>(&mut self, tiny: f64) -> Result<(), usize> {
        let n = self.n;
        let mut last_touched = 0;
        for j in 0..n {
            let below = self.kl.min(n - 1 - j);
            let full = self.full_below::<K>(j);
            let (offset, best) = match full {
                true => self.pivot_in_full_column::<K>(j),
                false => self.pivot_in_column(j, below),
            };
            if best.is_nan() || best <= tiny {
                return Err(j);
            }
            self.piv[j] = j + offset;
            last_touched = last_touched.max((j + self.ku + offset).min(n - 1));
            if offset != 0 {
                self.swap_rows(j, offset, last_touched);
            }
            match full {
                true => self.eliminate_full::<K>(j, last_touched),
                false => self.eliminate(j, below, last_touched),
            }
        }
        Ok(())
    }

    /// `pivot_in_column(j, K)`'s result: the first offset of the largest magnitude, NaN below
    /// the diagonal skipped and a NaN diagonal kept (the sequential `x > best` scan's). The
    /// maximum comes from a tree of `f64::max` (exact, NaN-skipping) instead of a chain of K
    /// dependent compare-and-selects, which sat on the factorization's critical path.
    fn pivot_in_full_column<const K: usize>(&self, j: usize) -> (usize, f64) {
        let base = self.at(j, j);
        let diagonal = self.ab[base].abs();
        if diagonal.is_nan() {
            return (0, diagonal);
        }
        let column = window::<K>(&self.ab, base + 1).map(f64::abs);
        let mut tree = column;
        let mut width = K;
        while width > 1 {
            let half = width.div_ceil(2);
            for i in 0..width / 2 {
                tree[i] = tree[i].max(tree[i + half]);
            }
            width = half;
        }
        let best = diagonal.max(tree[0]);
        if best == diagonal {
            return (0, diagonal);
        }
        let offset = column.iter().position(|&x| x == best).expect("the maximum");
        (offset + 1, best)
    }

    /// `eliminate(j, K, last)`: the multipliers scaled by the same reciprocal, each entry
    /// updated by the same product.
    fn eliminate_full<const K: usize>(&mut self, j: usize, last: usize) {
        let diag = self.at(j, j);
        let inv = 1.0 / self.ab[diag];
        let multipliers = window_mut::<K>(&mut self.ab, diag + 1);
        for x in multipliers.iter_mut() {
            *x *= inv;
        }
        let multipliers = *multipliers;
        // A(j, c) lies (c − j)(ldab − 1) entries after A(j, j).
        let step = self.ldab() - 1;
        for c in j + 1..=last {
            let row = diag + (c - j) * step;
            let u = self.ab[row];
            if u != 0.0 {
                let target = window_mut::<K>(&mut self.ab, row + 1);
                for (x, l) in target.iter_mut().zip(multipliers) {
                    *x -= l * u;
                }
            }
        }
    }

    /// Row j and row j + offset exchanged in columns j..=last (in the band storage A(j, c) is
    /// every (ldab − 1)-th entry from A(j, j)).
    fn swap_rows(&mut self, j: usize, offset: usize, last: usize) {
        let step = self.ldab() - 1;
        let first = self.at(j, j);
        let rows = self.ab[first..].chunks_mut(step).take(last - j + 1);
        for row in rows {
            row.swap(0, offset);
        }
    }

    /// `solve_in_place`'s sweeps with K = kl's loops where the band is full.
    pub(super) fn solve_columns<const K: usize>(&self, b: &mut [f64]) {
        let n = self.n;
        for j in 0..n {
            let p = self.piv[j];
            if p != j {
                b.swap(p, j);
            }
            let diag = self.at(j, j);
            let bj = b[j];
            if self.full_below::<K>(j) {
                let multipliers = window::<K>(&self.ab, diag + 1);
                for (x, l) in window_mut::<K>(b, j + 1).iter_mut().zip(multipliers) {
                    *x -= l * bj;
                }
                continue;
            }
            let below = self.kl.min(n - 1 - j);
            let multipliers = &self.ab[diag + 1..=diag + below];
            for (x, &l) in b[j + 1..=j + below].iter_mut().zip(multipliers) {
                *x -= l * bj;
            }
        }
        let upper = self.kl + self.ku;
        for j in (0..n).rev() {
            let diag = self.at(j, j);
            b[j] /= self.ab[diag];
            let bj = b[j];
            if self.full_above::<K>(j) {
                // A(j − 2K..j, j), as two windows of K (the same entries, the same order).
                for half in [0, K] {
                    let column = window::<K>(&self.ab, diag - 2 * K + half);
                    let rows = window_mut::<K>(b, j - 2 * K + half);
                    for (x, u) in rows.iter_mut().zip(column) {
                        *x -= u * bj;
                    }
                }
                continue;
            }
            let top = j.saturating_sub(upper);
            let column = &self.ab[diag - (j - top)..diag];
            for (x, &u) in b[top..j].iter_mut().zip(column) {
                *x -= u * bj;
            }
        }
    }

    /// Whether the backward sweep's column j is full and K = kl = ku (its length 2K).
    fn full_above<const K: usize>(&self, j: usize) -> bool {
        K > 0 && self.ku == K && j >= 2 * K
    }

    /// `solve_pair_in_place`'s sweeps with K = kl's loops where the band is full.
    pub(super) fn solve_pair_columns<const K: usize>(&self, b: &mut [f64], c: &mut [f64]) {
        let n = self.n;
        for j in 0..n {
            let p = self.piv[j];
            if p != j {
                b.swap(p, j);
                c.swap(p, j);
            }
            let diag = self.at(j, j);
            let (bj, cj) = (b[j], c[j]);
            if self.full_below::<K>(j) {
                let multipliers = window::<K>(&self.ab, diag + 1);
                let (xs, ys) = (window_mut::<K>(b, j + 1), window_mut::<K>(c, j + 1));
                for ((x, y), l) in xs.iter_mut().zip(ys.iter_mut()).zip(multipliers) {
                    *x -= l * bj;
                    *y -= l * cj;
                }
                continue;
            }
            let below = self.kl.min(n - 1 - j);
            let multipliers = &self.ab[diag + 1..=diag + below];
            let rows = b[j + 1..=j + below]
                .iter_mut()
                .zip(&mut c[j + 1..=j + below]);
            for ((x, y), &l) in rows.zip(multipliers) {
                *x -= l * bj;
                *y -= l * cj;
            }
        }
        let upper = self.kl + self.ku;
        for j in (0..n).rev() {
            let diag = self.at(j, j);
            b[j] /= self.ab[diag];
            c[j] /= self.ab[diag];
            let (bj, cj) = (b[j], c[j]);
            if self.full_above::<K>(j) {
                for half in [0, K] {
                    let column = window::<K>(&self.ab, diag - 2 * K + half);
                    let start = j - 2 * K + half;
                    let (xs, ys) = (window_mut::<K>(b, start), window_mut::<K>(c, start));
                    for ((x, y), u) in xs.iter_mut().zip(ys.iter_mut()).zip(column) {
                        *x -= u * bj;
                        *y -= u * cj;
                    }
                }
                continue;
            }
            let top = j.saturating_sub(upper);
            let column = &self.ab[diag - (j - top)..diag];
            let rows = b[top..j].iter_mut().zip(&mut c[top..j]);
            for ((x, y), &u) in rows.zip(column) {
                *x -= u * bj;
                *y -= u * cj;
            }
        }
    }
}

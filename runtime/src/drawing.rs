//! What a model draws: named points, each a position (x, y) of a planar drawing or (x, y, z) of
//! a spatial one, computed from (t, q) and the parameters, and the segments between them (pairs
//! of point indices). Declared in the model annotation (`draw: { points: [O = (0.0, 0.0),
//! A = (l * q1.cos(), l * q1.sin())], segments: [(O, A)] }`, or 3D points `(x, y, z)` and
//! body points `at(rod, [0.0, 0.0, l])`) and emitted by the code generator; front ends
//! (`mbsim animate`) reach it through [`crate::ConstrainedSystem::as_drawing`].
//!
//! Like the kernels, [`Drawing::points_into`] writes into a caller's buffer and never allocates:
//! `out` holds `dimension · points` entries, `x₀, y₀, (z₀,) x₁, y₁, …`, in the order of
//! [`Drawing::point_names`].

/// The picture of a mechanism at a configuration.
pub trait Drawing {
    /// 2 for a planar drawing (points (x, y)), 3 for a spatial one (points (x, y, z)).
    fn dimension(&self) -> usize {
        2
    }
    /// A spatial drawing's vertical axis (0 = x, 1 = y, 2 = z; the model's `draw: { up: y, … }`),
    /// which views turn about; z unless declared.
    fn up(&self) -> usize {
        2
    }
    /// The points' names, in order (as written in the model).
    fn point_names(&self) -> &'static [&'static str];
    /// The segments to draw, as pairs of indices into [`Drawing::point_names`].
    fn segments(&self) -> &'static [(usize, usize)];
    /// The points' positions at (t, q): `out = [x₀, y₀, (z₀,) x₁, y₁, …]`, length
    /// `dimension() · point_names().len()`.
    fn points_into(&self, t: f64, q: &[f64], out: &mut [f64]);

    /// The positions as (x, y) pairs (allocating; for front ends and tests); a spatial
    /// drawing's z is dropped (see [`Drawing::points3`]).
    #[must_use = "did you mean points_into()?"]
    fn points(&self, t: f64, q: &[f64]) -> Vec<(f64, f64)> {
        self.points3(t, q).iter().map(|p| (p[0], p[1])).collect()
    }

    /// The positions as (x, y, z) (allocating); a planar drawing's points have z = 0.
    #[must_use = "did you mean points_into()?"]
    fn points3(&self, t: f64, q: &[f64]) -> Vec<[f64; 3]> {
        let dim = self.dimension();
        let mut flat = vec![0.0; dim * self.point_names().len()];
        self.points_into(t, q, &mut flat);
        flat.chunks_exact(dim)
            .map(|p| [p[0], p[1], if dim == 3 { p[2] } else { 0.0 }])
            .collect()
    }
}

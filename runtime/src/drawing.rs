//! What a planar model draws: named points, each a position (x, y) computed from (t, q) and the
//! parameters, and the segments between them (pairs of point indices). Declared in the model
//! annotation (`draw: { points: [O = (0.0, 0.0), A = (l * q1.cos(), l * q1.sin())],
//! segments: [(O, A)] }`) and emitted by the code generator; front ends (`mbsim animate`) reach
//! it through [`crate::ConstrainedSystem::as_drawing`].
//!
//! Like the kernels, [`Drawing::points_into`] writes into a caller's buffer and never allocates:
//! `out` holds `2 · points` entries, `x₀, y₀, x₁, y₁, …`, in the order of
//! [`Drawing::point_names`].

/// The picture of a planar mechanism at a configuration.
pub trait Drawing {
    /// The points' names, in order (as written in the model).
    fn point_names(&self) -> &'static [&'static str];
    /// The segments to draw, as pairs of indices into [`Drawing::point_names`].
    fn segments(&self) -> &'static [(usize, usize)];
    /// The points' positions at (t, q): `out = [x₀, y₀, x₁, y₁, …]`, length
    /// `2 · point_names().len()`.
    fn points_into(&self, t: f64, q: &[f64], out: &mut [f64]);

    /// The positions as (x, y) pairs (allocating; for front ends and tests).
    #[must_use = "did you mean points_into()?"]
    fn points(&self, t: f64, q: &[f64]) -> Vec<(f64, f64)> {
        let mut flat = vec![0.0; 2 * self.point_names().len()];
        self.points_into(t, q, &mut flat);
        flat.chunks_exact(2).map(|p| (p[0], p[1])).collect()
    }
}

//! Planar finite elements and their assembly into the constant global M and K of a
//! [`crate::structural::Structure`]: the two-node bar (axial, four translational DOFs, lumped or
//! consistent mass) and the two-node Euler–Bernoulli beam (bending, DOFs (w, ψ) at each end,
//! cubic Hermite shape functions, consistent mass). The element matrices are the textbook ones
//! (e.g. Przemieniecki, *Theory of Matrix Structural Analysis*, ch. 5 and 11); the unit tests
//! check their rigid-body modes, total mass and symmetry.

use nalgebra::{DMatrix, Matrix4, Vector4};

/// How a bar's mass is distributed to its nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MassKind {
    /// Half of ρ A L on each translational DOF of each end (diagonal M).
    Lumped,
    /// The consistent mass of linear shape functions, ρ A L / 6 · [[2, 1], [1, 2]] per direction.
    Consistent,
}

/// A planar two-node bar from `from` to `to` (coordinates in m) with axial stiffness `ea`
/// (E A, N) and mass per length `rho_a` (ρ A, kg/m). Element DOFs: (u_i, v_i, u_j, v_j).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// Start node position (x, y).
    pub from: [f64; 2],
    /// End node position (x, y).
    pub to: [f64; 2],
    /// Axial stiffness E A.
    pub ea: f64,
    /// Mass per unit length ρ A.
    pub rho_a: f64,
}

impl Bar {
    /// Length and direction cosines (c, s).
    fn geometry(&self) -> (f64, f64, f64) {
        let (dx, dy) = (self.to[0] - self.from[0], self.to[1] - self.from[1]);
        let len = dx.hypot(dy);
        (len, dx / len, dy / len)
    }

    /// Global stiffness E A / L · [n nᵀ, −n nᵀ; −n nᵀ, n nᵀ] with n = (c, s, −c, −s) folded.
    pub fn stiffness(&self) -> Matrix4<f64> {
        let (len, c, s) = self.geometry();
        let b = Vector4::new(-c, -s, c, s);
        b * b.transpose() * (self.ea / len)
    }

    /// Global mass matrix of the chosen kind (isotropic in the plane, so no rotation needed).
    pub fn mass(&self, kind: MassKind) -> Matrix4<f64> {
        let (len, _, _) = self.geometry();
        let total = self.rho_a * len;
        match kind {
            MassKind::Lumped => Matrix4::from_diagonal_element(total / 2.0),
            MassKind::Consistent => {
                let (d, o) = (total / 3.0, total / 6.0);
                Matrix4::new(
                    d, 0.0, o, 0.0, //
                    0.0, d, 0.0, o, //
                    o, 0.0, d, 0.0, //
                    0.0, o, 0.0, d,
                )
            }
        }
    }
}

/// A two-node Euler–Bernoulli beam element of length `len` in bending: flexural rigidity `ei`
/// (E I, N m²), mass per length `rho_a`. Element DOFs: (w_i, ψ_i, w_j, ψ_j), ψ = ∂w/∂x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    /// Element length.
    pub len: f64,
    /// Flexural rigidity E I.
    pub ei: f64,
    /// Mass per unit length ρ A.
    pub rho_a: f64,
}

impl Beam {
    /// The cubic-Hermite bending stiffness E I / L³ · [[12, 6L, −12, 6L], …].
    pub fn stiffness(&self) -> Matrix4<f64> {
        let l = self.len;
        let k = self.ei / l.powi(3);
        Matrix4::new(
            12.0,
            6.0 * l,
            -12.0,
            6.0 * l, //
            6.0 * l,
            4.0 * l * l,
            -6.0 * l,
            2.0 * l * l, //
            -12.0,
            -6.0 * l,
            12.0,
            -6.0 * l, //
            6.0 * l,
            2.0 * l * l,
            -6.0 * l,
            4.0 * l * l,
        ) * k
    }

    /// The consistent mass ρ A L / 420 · [[156, 22L, 54, −13L], …].
    pub fn mass(&self) -> Matrix4<f64> {
        let l = self.len;
        let m = self.rho_a * l / 420.0;
        Matrix4::new(
            156.0,
            22.0 * l,
            54.0,
            -13.0 * l, //
            22.0 * l,
            4.0 * l * l,
            13.0 * l,
            -3.0 * l * l, //
            54.0,
            13.0 * l,
            156.0,
            -22.0 * l, //
            -13.0 * l,
            -3.0 * l * l,
            -22.0 * l,
            4.0 * l * l,
        ) * m
    }

    /// The consistent load of a distributed transverse load q(x) = ρ A (x₀ + s), s ∈ [0, L]
    /// along the element whose start is at distance `x0` from the axis: ∫ N(s) ρ A (x₀ + s) ds
    /// (the inertia load of a beam rotating about the axis with unit angular acceleration).
    pub fn moment_arm_load(&self, x0: f64) -> Vector4<f64> {
        let l = self.len;
        let uniform = Vector4::new(l / 2.0, l * l / 12.0, l / 2.0, -l * l / 12.0);
        let ramp = Vector4::new(
            3.0 * l * l / 20.0,
            l.powi(3) / 30.0,
            7.0 * l * l / 20.0,
            -l.powi(3) / 20.0,
        );
        (uniform * x0 + ramp) * self.rho_a
    }
}

/// Global M and K of `n` DOFs, filled element by element. An element DOF mapped to `None` is
/// fixed (a support) and dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembly {
    /// Global mass matrix, `n × n`.
    pub mass: DMatrix<f64>,
    /// Global stiffness matrix, `n × n`.
    pub stiffness: DMatrix<f64>,
}

impl Assembly {
    /// Empty matrices for `n` DOFs.
    pub fn new(n: usize) -> Self {
        Self {
            mass: DMatrix::zeros(n, n),
            stiffness: DMatrix::zeros(n, n),
        }
    }

    /// Add an element's matrices at the global DOFs `dofs` (`None`: a fixed DOF).
    pub fn add(&mut self, dofs: [Option<usize>; 4], ke: &Matrix4<f64>, me: &Matrix4<f64>) {
        for (a, ga) in dofs.iter().enumerate() {
            for (b, gb) in dofs.iter().enumerate() {
                if let (Some(i), Some(j)) = (ga, gb) {
                    self.stiffness[(*i, *j)] += ke[(a, b)];
                    self.mass[(*i, *j)] += me[(a, b)];
                }
            }
        }
    }

    /// Add an element vector (a consistent load) at the global DOFs `dofs`.
    pub fn add_vector(out: &mut [f64], dofs: [Option<usize>; 4], fe: &Vector4<f64>) {
        for (a, g) in dofs.iter().enumerate() {
            if let Some(i) = g {
                out[*i] += fe[a];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_has_rigid_translations_and_its_mass() {
        let bar = Bar {
            from: [0.0, 0.0],
            to: [3.0, 4.0],
            ea: 2.0,
            rho_a: 1.5,
        };
        let k = bar.stiffness();
        for rigid in [
            Vector4::new(1.0, 0.0, 1.0, 0.0),
            Vector4::new(0.0, 1.0, 0.0, 1.0),
        ] {
            assert!(
                (k * rigid).norm() < 1e-15,
                "rigid translation strains the bar"
            );
        }
        for kind in [MassKind::Lumped, MassKind::Consistent] {
            let m = bar.mass(kind);
            let ux = Vector4::new(1.0, 0.0, 1.0, 0.0);
            // Kinetic energy of a unit translation is (ρ A L)/2: total mass 1.5 · 5.
            assert!(((ux.transpose() * m * ux)[0] - 7.5).abs() < 1e-14);
        }
    }

    #[test]
    fn beam_has_rigid_modes_and_its_mass() {
        let beam = Beam {
            len: 0.2,
            ei: 3.0,
            rho_a: 7.0,
        };
        let k = beam.stiffness();
        let translation = Vector4::new(1.0, 0.0, 1.0, 0.0);
        let rotation = Vector4::new(0.0, 1.0, 0.2, 1.0);
        assert!((k * translation).norm() < 1e-12);
        assert!((k * rotation).norm() < 1e-12);
        assert!((k - k.transpose()).norm() == 0.0);
        let m = beam.mass();
        let total = (translation.transpose() * m * translation)[0];
        assert!((total - 7.0 * 0.2).abs() < 1e-14);
        // The moment-arm load of a unit-ramp at x0 = 0 sums to ∫ ρ A s ds = ρ A L²/2.
        let f = beam.moment_arm_load(0.0);
        assert!((f[0] + f[2] - 7.0 * 0.02).abs() < 1e-15);
    }
}

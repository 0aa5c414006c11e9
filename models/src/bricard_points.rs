//! Bricard's mechanism (IFToMM A04) at formula level in point coordinates (García de Jalón's
//! natural coordinates): the moving joint points P1–P4 and the unit vectors u1–u4 of their
//! joint axes are the 24 coordinates; P0 = (0, 0, 0), P5 = (0, 0, ℓ) and the ground axes
//! u0 = y, u5 = x are fixed. Bar k (from P(k) to P(k+1)) carries the axes u_k and u_(k+1) at its
//! ends, which with its direction d = P(k+1) − P(k) form an orthonormal frame: the rows
//! `length` (|d|² = ℓ²), `start` (u_k · d = 0), `end` (u_(k+1) · d = 0) and `square`
//! (u_k · u_(k+1) = 0) per bar and `unit` (|u_k|² = 1) per moving axis make each bar rigid, and a
//! revolute joint is a shared point and a shared axis. 24 rows of rank 23 (one redundant, as in
//! the spatial-body form [`crate::Bricard`]): one degree of freedom.
//!
//! The joint axes are coordinates, not cross products of bar directions (u = d_k × d_(k+1)
//! normalised is singular where two bars become parallel, at t ≈ 1.3 s of the benchmark), so
//! every row stays smooth along the motion.
//!
//! A bar's points are r = (1 − ξ1) P(k) + ξ1 P(k+1) + ξ2 u_k + ξ3 u_(k+1) with ξ1 uniform on
//! [0, 1] along the bar and ξ2, ξ3 uniform on [−s/2, s/2] across its square section, so its
//! kinetic energy is exactly m/6 (|Ṗa|² + Ṗa·Ṗb + |Ṗb|²) + m s²/24 (|u̇a|² + |u̇b|²) (constant
//! mass matrix; the inertia about the centre is that of the spatial form's box,
//! [m s²/6, m(ℓ² + s²)/12, m(ℓ² + s²)/12]) and its potential m g (y_a + y_b)/2. Data as
//! [`crate::Bricard::published`]: 1 kg, 1 m, section 0.1 m, g = 9.81, released at rest.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// IFToMM A04 in point coordinates (module docs).
#[model(
    coordinates: [p1x, p1y, p1z, p2x, p2y, p2z, p3x, p3y, p3z, p4x, p4y, p4z, u1x, u1y, u1z, u2x, u2y, u2z, u3x, u3y, u3z, u4x, u4y, u4z],
    holonomic: [
        unit1 = u1x.powi(2) + u1y.powi(2) + u1z.powi(2) - 1.0,
        unit2 = u2x.powi(2) + u2y.powi(2) + u2z.powi(2) - 1.0,
        unit3 = u3x.powi(2) + u3y.powi(2) + u3z.powi(2) - 1.0,
        unit4 = u4x.powi(2) + u4y.powi(2) + u4z.powi(2) - 1.0,
        length0 = p1x.powi(2) + p1y.powi(2) + p1z.powi(2) - len.powi(2),
        start0 = p1y,
        end0 = u1x * p1x + u1y * p1y + u1z * p1z,
        square0 = u1y,
        length1 = (p2x - p1x).powi(2) + (p2y - p1y).powi(2) + (p2z - p1z).powi(2) - len.powi(2),
        start1 = u1x * (p2x - p1x) + u1y * (p2y - p1y) + u1z * (p2z - p1z),
        end1 = u2x * (p2x - p1x) + u2y * (p2y - p1y) + u2z * (p2z - p1z),
        square1 = u1x * u2x + u1y * u2y + u1z * u2z,
        length2 = (p3x - p2x).powi(2) + (p3y - p2y).powi(2) + (p3z - p2z).powi(2) - len.powi(2),
        start2 = u2x * (p3x - p2x) + u2y * (p3y - p2y) + u2z * (p3z - p2z),
        end2 = u3x * (p3x - p2x) + u3y * (p3y - p2y) + u3z * (p3z - p2z),
        square2 = u2x * u3x + u2y * u3y + u2z * u3z,
        length3 = (p4x - p3x).powi(2) + (p4y - p3y).powi(2) + (p4z - p3z).powi(2) - len.powi(2),
        start3 = u3x * (p4x - p3x) + u3y * (p4y - p3y) + u3z * (p4z - p3z),
        end3 = u4x * (p4x - p3x) + u4y * (p4y - p3y) + u4z * (p4z - p3z),
        square3 = u3x * u4x + u3y * u4y + u3z * u4z,
        length4 = (-p4x).powi(2) + (-p4y).powi(2) + (len - p4z).powi(2) - len.powi(2),
        start4 = u4x * (-p4x) + u4y * (-p4y) + u4z * (len - p4z),
        end4 = (-p4x),
        square4 = u4x,
    ],
    kinetic: m / 6.0 * (p1x_dot.powi(2) + p1y_dot.powi(2) + p1z_dot.powi(2)) + m * side.powi(2) / 24.0 * (u1x_dot.powi(2) + u1y_dot.powi(2) + u1z_dot.powi(2)) + m / 6.0 * (p1x_dot.powi(2) + p1y_dot.powi(2) + p1z_dot.powi(2) + p2x_dot.powi(2) + p2y_dot.powi(2) + p2z_dot.powi(2) + p1x_dot * p2x_dot + p1y_dot * p2y_dot + p1z_dot * p2z_dot) + m * side.powi(2) / 24.0 * (u1x_dot.powi(2) + u1y_dot.powi(2) + u1z_dot.powi(2) + u2x_dot.powi(2) + u2y_dot.powi(2) + u2z_dot.powi(2)) + m / 6.0 * (p2x_dot.powi(2) + p2y_dot.powi(2) + p2z_dot.powi(2) + p3x_dot.powi(2) + p3y_dot.powi(2) + p3z_dot.powi(2) + p2x_dot * p3x_dot + p2y_dot * p3y_dot + p2z_dot * p3z_dot) + m * side.powi(2) / 24.0 * (u2x_dot.powi(2) + u2y_dot.powi(2) + u2z_dot.powi(2) + u3x_dot.powi(2) + u3y_dot.powi(2) + u3z_dot.powi(2)) + m / 6.0 * (p3x_dot.powi(2) + p3y_dot.powi(2) + p3z_dot.powi(2) + p4x_dot.powi(2) + p4y_dot.powi(2) + p4z_dot.powi(2) + p3x_dot * p4x_dot + p3y_dot * p4y_dot + p3z_dot * p4z_dot) + m * side.powi(2) / 24.0 * (u3x_dot.powi(2) + u3y_dot.powi(2) + u3z_dot.powi(2) + u4x_dot.powi(2) + u4y_dot.powi(2) + u4z_dot.powi(2)) + m / 6.0 * (p4x_dot.powi(2) + p4y_dot.powi(2) + p4z_dot.powi(2)) + m * side.powi(2) / 24.0 * (u4x_dot.powi(2) + u4y_dot.powi(2) + u4z_dot.powi(2)),
    potential: m * g / 2.0 * (p1y) + m * g / 2.0 * (p1y + p2y) + m * g / 2.0 * (p2y + p3y) + m * g / 2.0 * (p3y + p4y) + m * g / 2.0 * (p4y),
)]
#[derive(Clone, Debug, PartialEq)]
pub struct BricardPoints {
    /// Bar mass [kg] (1).
    pub m: f64,
    /// Bar length [m] (1).
    pub len: f64,
    /// Side of the square cross-section [m] (0.1).
    pub side: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl BricardPoints {
    /// The benchmark's data.
    pub fn published() -> Self {
        Self {
            m: 1.0,
            len: 1.0,
            side: 0.1,
            g: 9.81,
        }
    }

    /// The benchmark's start at rest: P1 = (ℓ, 0, 0), P2 = (ℓ, −ℓ, 0), P3 = (ℓ, −ℓ, ℓ),
    /// P4 = (0, −ℓ, ℓ); u1 = z, u2 = x, u3 = y, u4 = z.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let l = sys.parameter("len").unwrap_or(1.0);
        let q = vec![
            l, 0.0, 0.0, l, -l, 0.0, l, -l, l, 0.0, -l, l, // P1–P4
            0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, // u1–u4
        ];
        (q, vec![0.0; 24])
    }

    /// The centre of mass of bar k (0–4) at q: the middle of its joint points.
    pub fn bar_centre(&self, q: &[f64], k: usize) -> [f64; 3] {
        let point = |j: usize| -> [f64; 3] {
            match j {
                0 => [0.0, 0.0, 0.0],
                5 => [0.0, 0.0, self.len],
                _ => [q[3 * (j - 1)], q[3 * (j - 1) + 1], q[3 * (j - 1) + 2]],
            }
        };
        let (a, b) = (point(k), point(k + 1));
        [
            0.5 * (a[0] + b[0]),
            0.5 * (a[1] + b[1]),
            0.5 * (a[2] + b[2]),
        ]
    }
}

/// [`BricardPoints`] with its redundant row deleted by hand (`square4`, u4 · u5 = 0, the row
/// `mbsim check` names redundant): 23 independent rows, the yardstick of `cargo bench -p
/// mbsim-tests --bench redundant`.
#[model(
    coordinates: [p1x, p1y, p1z, p2x, p2y, p2z, p3x, p3y, p3z, p4x, p4y, p4z, u1x, u1y, u1z, u2x, u2y, u2z, u3x, u3y, u3z, u4x, u4y, u4z],
    holonomic: [
        unit1 = u1x.powi(2) + u1y.powi(2) + u1z.powi(2) - 1.0,
        unit2 = u2x.powi(2) + u2y.powi(2) + u2z.powi(2) - 1.0,
        unit3 = u3x.powi(2) + u3y.powi(2) + u3z.powi(2) - 1.0,
        unit4 = u4x.powi(2) + u4y.powi(2) + u4z.powi(2) - 1.0,
        length0 = p1x.powi(2) + p1y.powi(2) + p1z.powi(2) - len.powi(2),
        start0 = p1y,
        end0 = u1x * p1x + u1y * p1y + u1z * p1z,
        square0 = u1y,
        length1 = (p2x - p1x).powi(2) + (p2y - p1y).powi(2) + (p2z - p1z).powi(2) - len.powi(2),
        start1 = u1x * (p2x - p1x) + u1y * (p2y - p1y) + u1z * (p2z - p1z),
        end1 = u2x * (p2x - p1x) + u2y * (p2y - p1y) + u2z * (p2z - p1z),
        square1 = u1x * u2x + u1y * u2y + u1z * u2z,
        length2 = (p3x - p2x).powi(2) + (p3y - p2y).powi(2) + (p3z - p2z).powi(2) - len.powi(2),
        start2 = u2x * (p3x - p2x) + u2y * (p3y - p2y) + u2z * (p3z - p2z),
        end2 = u3x * (p3x - p2x) + u3y * (p3y - p2y) + u3z * (p3z - p2z),
        square2 = u2x * u3x + u2y * u3y + u2z * u3z,
        length3 = (p4x - p3x).powi(2) + (p4y - p3y).powi(2) + (p4z - p3z).powi(2) - len.powi(2),
        start3 = u3x * (p4x - p3x) + u3y * (p4y - p3y) + u3z * (p4z - p3z),
        end3 = u4x * (p4x - p3x) + u4y * (p4y - p3y) + u4z * (p4z - p3z),
        square3 = u3x * u4x + u3y * u4y + u3z * u4z,
        length4 = (-p4x).powi(2) + (-p4y).powi(2) + (len - p4z).powi(2) - len.powi(2),
        start4 = u4x * (-p4x) + u4y * (-p4y) + u4z * (len - p4z),
        end4 = (-p4x),
    ],
    kinetic: m / 6.0 * (p1x_dot.powi(2) + p1y_dot.powi(2) + p1z_dot.powi(2)) + m * side.powi(2) / 24.0 * (u1x_dot.powi(2) + u1y_dot.powi(2) + u1z_dot.powi(2)) + m / 6.0 * (p1x_dot.powi(2) + p1y_dot.powi(2) + p1z_dot.powi(2) + p2x_dot.powi(2) + p2y_dot.powi(2) + p2z_dot.powi(2) + p1x_dot * p2x_dot + p1y_dot * p2y_dot + p1z_dot * p2z_dot) + m * side.powi(2) / 24.0 * (u1x_dot.powi(2) + u1y_dot.powi(2) + u1z_dot.powi(2) + u2x_dot.powi(2) + u2y_dot.powi(2) + u2z_dot.powi(2)) + m / 6.0 * (p2x_dot.powi(2) + p2y_dot.powi(2) + p2z_dot.powi(2) + p3x_dot.powi(2) + p3y_dot.powi(2) + p3z_dot.powi(2) + p2x_dot * p3x_dot + p2y_dot * p3y_dot + p2z_dot * p3z_dot) + m * side.powi(2) / 24.0 * (u2x_dot.powi(2) + u2y_dot.powi(2) + u2z_dot.powi(2) + u3x_dot.powi(2) + u3y_dot.powi(2) + u3z_dot.powi(2)) + m / 6.0 * (p3x_dot.powi(2) + p3y_dot.powi(2) + p3z_dot.powi(2) + p4x_dot.powi(2) + p4y_dot.powi(2) + p4z_dot.powi(2) + p3x_dot * p4x_dot + p3y_dot * p4y_dot + p3z_dot * p4z_dot) + m * side.powi(2) / 24.0 * (u3x_dot.powi(2) + u3y_dot.powi(2) + u3z_dot.powi(2) + u4x_dot.powi(2) + u4y_dot.powi(2) + u4z_dot.powi(2)) + m / 6.0 * (p4x_dot.powi(2) + p4y_dot.powi(2) + p4z_dot.powi(2)) + m * side.powi(2) / 24.0 * (u4x_dot.powi(2) + u4y_dot.powi(2) + u4z_dot.powi(2)),
    potential: m * g / 2.0 * (p1y) + m * g / 2.0 * (p1y + p2y) + m * g / 2.0 * (p2y + p3y) + m * g / 2.0 * (p3y + p4y) + m * g / 2.0 * (p4y),
)]
#[derive(Clone, Debug, PartialEq)]
pub struct BricardPointsReduced {
    /// Bar mass [kg] (1).
    pub m: f64,
    /// Bar length [m] (1).
    pub len: f64,
    /// Side of the square cross-section [m] (0.1).
    pub side: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl BricardPointsReduced {
    /// The data of [`BricardPoints::published`].
    pub fn published() -> Self {
        let c = BricardPoints::published();
        Self {
            m: c.m,
            len: c.len,
            side: c.side,
            g: c.g,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "bricard-points",
    title: "Bricard's mechanism (IFToMM A04) in point coordinates (24 rows, rank 23: over-constrained)",
    source: "IFToMM benchmark A04; issue 22: formula level in natural coordinates, joint axes as coordinates",
    build: || Box::new(BricardPoints::published()),
    initial: BricardPoints::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/bricard_points.rs"),
};

//! A 3D double pendulum of two slender rods in Euler parameters: rod 1 hangs from the origin by
//! a spherical joint at its upper end, rod 2 from rod 1's lower end by another, gravity −g
//! along z. Each rod's axis is its body z axis, its centre of mass at the middle.
//!
//! 14 coordinates, 2 normalization and 6 joint rows: six degrees of freedom (two of them the
//! rods' spins about their own axes, which the joints leave free). Energy and the vertical
//! angular momentum about the pivot are conserved (`tests/suite/spatial.rs`).
//!
//! \[EXT\] chosen data: rods of 1 kg, 1 m and 0.5 kg, 0.8 m, radius 0.02 m (solid cylinders:
//! transverse m (3 r² + l²)/12, axial m r²/2); released with rod 1 turned 0.6 rad about x and
//! rod 2 1.2 rad about y, rod 1 turning at 1.5 rad/s about the vertical and rod 2 at
//! (1, 0, 2) rad/s.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;
use mbsim::spatial::{BodyState, axis_angle, rotation_matrix, set_body};

/// Two rods hanging by spherical joints, Euler parameters.
#[model(
    let j1 = m1 * (3.0 * radius.powi(2) + l1.powi(2)) / 12.0,
    let j2 = m2 * (3.0 * radius.powi(2) + l2.powi(2)) / 12.0,
    bodies: [
        rod1 = body(m1, [j1, j1, m1 * radius.powi(2) / 2.0]),
        rod2 = body(m2, [j2, j2, m2 * radius.powi(2) / 2.0]),
    ],
    joints: [
        pivot = spherical(rod1, [0.0, 0.0, l1 / 2.0], ground, [0.0, 0.0, 0.0]),
        elbow = spherical(rod1, [0.0, 0.0, -l1 / 2.0], rod2, [0.0, 0.0, l2 / 2.0]),
    ],
    loads: [gravity([0.0, 0.0, -g])],
    draw: {
        points: [
            O = (0.0, 0.0, 0.0),
            E = at(rod1, [0.0, 0.0, -l1 / 2.0]),
            T = at(rod2, [0.0, 0.0, -l2 / 2.0]),
            F = (0.0, 0.0, -l1 - l2),
        ],
        segments: [(O, E), (E, T), (O, F)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SpatialDoublePendulum {
    /// Mass of rod 1 [kg].
    pub m1: f64,
    /// Mass of rod 2 [kg].
    pub m2: f64,
    /// Length of rod 1 [m].
    pub l1: f64,
    /// Length of rod 2 [m].
    pub l2: f64,
    /// Radius of both rods [m].
    pub radius: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

type V = [f64; 3];

fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn along_z(p: [f64; 4], s: f64) -> V {
    let a = rotation_matrix(p);
    [a[0][2] * s, a[1][2] * s, a[2][2] * s]
}

impl SpatialDoublePendulum {
    /// The \[EXT\] chosen data.
    pub fn chosen() -> Self {
        SpatialDoublePendulum {
            m1: 1.0,
            m2: 0.5,
            l1: 1.0,
            l2: 0.8,
            radius: 0.02,
            g: 9.81,
        }
    }

    /// The rods turned by `p1`, `p2`, turning at ω1, ω2 (world frame): a consistent state.
    pub fn state(&self, p: [[f64; 4]; 2], omega: [V; 2]) -> (Vec<f64>, Vec<f64>) {
        let r1 = along_z(p[0], -self.l1 / 2.0);
        let elbow = along_z(p[0], -self.l1);
        let r2: V = std::array::from_fn(|k| elbow[k] + along_z(p[1], -self.l2 / 2.0)[k]);
        let v1 = cross(omega[0], r1);
        let velbow = cross(omega[0], elbow);
        let arm: V = std::array::from_fn(|k| r2[k] - elbow[k]);
        let w2 = cross(omega[1], arm);
        let v2: V = std::array::from_fn(|k| velbow[k] + w2[k]);
        let (mut q, mut v) = (vec![0.0; 14], vec![0.0; 14]);
        for (name, r, pk, rdot, w) in [
            ("rod1", r1, p[0], v1, omega[0]),
            ("rod2", r2, p[1], v2, omega[1]),
        ] {
            let state = BodyState {
                r,
                p: pk,
                rdot,
                omega: w,
            };
            set_body(self, &mut q, &mut v, name, state).expect("the model's bodies");
        }
        (q, v)
    }

    /// The chosen release (see the module doc).
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut model = SpatialDoublePendulum::chosen();
        for (name, slot) in [("l1", &mut model.l1), ("l2", &mut model.l2)] {
            if let Some(x) = sys.parameter(name) {
                *slot = x;
            }
        }
        let p = [
            axis_angle([1.0, 0.0, 0.0], 0.6),
            axis_angle([0.0, 1.0, 0.0], 1.2),
        ];
        model.state(p, [[0.0, 0.0, 1.5], [1.0, 0.0, 2.0]])
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "spatial-double-pendulum",
    title: "3D double pendulum, two rods on spherical joints, Euler parameters (n = 14, m = 8)",
    source: "Haug's spatial formulation; data chosen [EXT]",
    build: || Box::new(SpatialDoublePendulum::chosen()),
    initial: SpatialDoublePendulum::initial,
    t_end: 5.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/spatial_double_pendulum.rs"),
};

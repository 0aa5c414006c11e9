//! The heavy symmetric top in Euler parameters (Haug's spatial formulation, ch. 11): one body
//! with seven coordinates (centre of mass r and p), its tip held at the origin by a spherical
//! joint, gravity −g along z. The centre of mass is `h` above the tip on the body's z axis;
//! `ja` is the transverse and `jc` the axial moment of inertia about the centre of mass.
//!
//! Three degrees of freedom; energy, the vertical angular momentum L_z and the axial spin
//! ω₃ are conserved, and the nutation cos θ(t) has a closed form in Jacobi's sn (Goldstein
//! §5.7), which `tests/suite/spatial.rs` checks together with the precession advance over a
//! nutation period and the same top in minimal (Euler-angle) coordinates.
//!
//! \[EXT\] chosen data: m = 1 kg, h = 0.5 m, ja = 0.06 kg m², jc = 0.1 kg m² (a squat top,
//! jc ≤ 2 ja as a rigid body requires), g = 9.81; released at nutation θ₀ = 30° with spin
//! φ̇₀ = 30 rad/s, no precession rate and no nutation rate (the axis starts at the top of its
//! nutation and dips).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;
use mbsim::spatial::{Axis, BodyState, euler_angles, rotation_matrix, set_body};

/// Heavy symmetric top on a fixed tip, Euler parameters.
#[model(
    bodies: [top = body(m, [ja, ja, jc])],
    joints: [tip = spherical(top, [0.0, 0.0, -h], ground, [0.0, 0.0, 0.0])],
    loads: [gravity([0.0, 0.0, -g])],
    draw: {
        points: [
            O = (0.0, 0.0, 0.0),
            C = at(top, [0.0, 0.0, 0.0]),
            A = at(top, [0.0, 0.0, h / 2.0]),
            R1 = at(top, [h / 2.0, 0.0, 0.0]),
            R2 = at(top, [0.0, h / 2.0, 0.0]),
            R3 = at(top, [-h / 2.0, 0.0, 0.0]),
            R4 = at(top, [0.0, -h / 2.0, 0.0]),
        ],
        segments: [(O, C), (C, A), (R1, R2), (R2, R3), (R3, R4), (R4, R1), (O, R1), (O, R3), (C, R2), (C, R4)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct HeavyTop {
    /// Mass [kg].
    pub m: f64,
    /// Transverse moment of inertia about the centre of mass [kg m²].
    pub ja: f64,
    /// Axial moment of inertia [kg m²].
    pub jc: f64,
    /// Tip to centre of mass [m].
    pub h: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

impl HeavyTop {
    /// The \[EXT\] chosen data.
    pub fn chosen() -> Self {
        HeavyTop {
            m: 1.0,
            ja: 0.06,
            jc: 0.1,
            h: 0.5,
            g: 9.81,
        }
    }

    /// The state at Euler angles (ψ, θ, φ) (z-x-z, body to world) and their rates, tip at the
    /// origin: r = h a₃, ω = ψ̇ e_z + θ̇ n + φ̇ a₃ (n the line of nodes), ṙ = ω × r.
    pub fn state(&self, angles: [f64; 3], rates: [f64; 3]) -> (Vec<f64>, Vec<f64>) {
        let p = euler_angles([Axis::Z, Axis::X, Axis::Z], angles);
        let a = rotation_matrix(p);
        let axis = [a[0][2], a[1][2], a[2][2]];
        let node = [angles[0].cos(), angles[0].sin(), 0.0];
        let omega: [f64; 3] = std::array::from_fn(|k| rates[1] * node[k] + rates[2] * axis[k]);
        let omega = [omega[0], omega[1], omega[2] + rates[0]];
        let r = axis.map(|x| self.h * x);
        let rdot = [
            omega[1] * r[2] - omega[2] * r[1],
            omega[2] * r[0] - omega[0] * r[2],
            omega[0] * r[1] - omega[1] * r[0],
        ];
        let (mut q, mut v) = (vec![0.0; 7], vec![0.0; 7]);
        set_body(self, &mut q, &mut v, "top", BodyState { r, p, rdot, omega })
            .expect("the model has the body `top`");
        (q, v)
    }

    /// Released at θ₀ = 30° with spin 30 rad/s.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let top = HeavyTop {
            h: sys.parameter("h").unwrap_or(0.5),
            ..HeavyTop::chosen()
        };
        top.state([0.0, std::f64::consts::FRAC_PI_6, 0.0], [0.0, 0.0, 30.0])
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "heavy-top",
    title: "heavy symmetric top on a fixed tip, Euler parameters (n = 7, m = 4)",
    source: "Haug's spatial formulation; the heavy symmetric top (Goldstein §5.7); data chosen [EXT]",
    build: || Box::new(HeavyTop::chosen()),
    initial: HeavyTop::initial,
    t_end: 2.0,
    dt_out: 0.005,
    rtol: 1e-8,
    kernels: include_str!("generated/heavy_top.rs"),
};

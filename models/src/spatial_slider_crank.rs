//! A spatial slider-crank in Euler parameters (the layout of Haug's spatial slider-crank,
//! ch. 9–11): the crank turns about the world x axis on a revolute joint at the origin, its pin
//! `rc` off the axis; the connecting rod (length `len`, along its body x axis) is held to the
//! crank pin by a spherical joint and to the slider by a universal joint (the slider's cross
//! axis is the world z axis, the rod's its body y axis, so the rod cannot spin about itself);
//! the slider moves on a translational joint along the world x axis through (0, `ey`, `ez`),
//! off the crank's plane. Gravity −g along z.
//!
//! 21 coordinates, 3 normalization rows and 5 + 3 + 4 + 5 joint rows: one degree of freedom.
//! The crank's centre of mass is on its axis; gravity works on the rod alone (the slider runs
//! level), so the crank turns over at a varying rate and the energy is conserved.
//!
//! \[EXT\] chosen data: crank 1 kg, J = (0.01, 0.005, 0.005) kg m², rc = 0.08 m; rod 0.5 kg,
//! len = 0.3 m, J = (1e-4, m len²/12, m len²/12); slider 2 kg, a 0.1 m cube; ey = 0.1 m,
//! ez = 0.12 m; the crank starts with its pin at (0, rc, 0) turning at 10 rad/s.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;
use mbsim::spatial::{BodyState, axis_angle, from_matrix, set_body};

/// Spatial slider-crank: revolute, spherical, universal and translational joints.
#[model(
    let jrod = mrod * len.powi(2) / 12.0,
    let jslider = mslider * 0.01 / 6.0,
    bodies: [
        crank = body(mcrank, [0.01, 0.005, 0.005]),
        rod = body(mrod, [1.0e-4, jrod, jrod]),
        slider = body(mslider, [jslider, jslider, jslider]),
    ],
    joints: [
        axle = revolute(ground, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], crank, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        pin = spherical(crank, [0.0, rc, 0.0], rod, [len / 2.0, 0.0, 0.0]),
        cross = universal(slider, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], rod, [-len / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        guide = translational(ground, [0.0, ey, ez], [1.0, 0.0, 0.0], slider, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ],
    loads: [gravity([0.0, 0.0, -g])],
    draw: {
        points: [
            O = (0.0, 0.0, 0.0),
            A = at(crank, [0.0, rc, 0.0]),
            B = at(rod, [-len / 2.0, 0.0, 0.0]),
            G0 = (0.0, ey, ez),
            G1 = (2.0 * len, ey, ez),
        ],
        segments: [(O, A), (A, B), (G0, G1)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SpatialSliderCrank {
    /// Crank mass [kg].
    pub mcrank: f64,
    /// Rod mass [kg].
    pub mrod: f64,
    /// Slider mass [kg].
    pub mslider: f64,
    /// Crank radius (axis to pin) [m].
    pub rc: f64,
    /// Rod length [m].
    pub len: f64,
    /// Slider line: y offset [m].
    pub ey: f64,
    /// Slider line: z offset [m].
    pub ez: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

impl SpatialSliderCrank {
    /// The \[EXT\] chosen data.
    pub fn chosen() -> Self {
        SpatialSliderCrank {
            mcrank: 1.0,
            mrod: 0.5,
            mslider: 2.0,
            rc: 0.08,
            len: 0.3,
            ey: 0.1,
            ez: 0.12,
            g: 9.81,
        }
    }

    /// The assembled configuration at crank angle `phi` (pin at (0, rc cos φ, rc sin φ)), the
    /// crank turning at `rate`: slider position from |pin − S| = len, rod frame x' = (pin −
    /// S)/len, y' ∥ z × x', slider velocity from d|pin − S|²/dt = 0; the rod's centre moves
    /// with the mean of its ends (its angular velocity is left to `initialize`).
    pub fn state(&self, phi: f64, rate: f64) -> (Vec<f64>, Vec<f64>) {
        let pin = [0.0, self.rc * phi.cos(), self.rc * phi.sin()];
        let (dy, dz) = (pin[1] - self.ey, pin[2] - self.ez);
        let xs = -(self.len.powi(2) - dy * dy - dz * dz).sqrt();
        let slider = [xs, self.ey, self.ez];
        let u: [f64; 3] = std::array::from_fn(|k| (pin[k] - slider[k]) / self.len);
        let w = [-u[1], u[0], 0.0]; // z × u
        let wl = (w[0] * w[0] + w[1] * w[1]).sqrt();
        let y = [w[0] / wl, w[1] / wl, 0.0];
        let z = [
            u[1] * y[2] - u[2] * y[1],
            u[2] * y[0] - u[0] * y[2],
            u[0] * y[1] - u[1] * y[0],
        ];
        let frame = [[u[0], y[0], z[0]], [u[1], y[1], z[1]], [u[2], y[2], z[2]]];
        let rod_p = from_matrix(frame).expect("an orthonormal right-handed frame");
        let pin_rate = [0.0, -self.rc * phi.sin() * rate, self.rc * phi.cos() * rate];
        let d: [f64; 3] = std::array::from_fn(|k| pin[k] - slider[k]);
        let xs_rate = (d[1] * pin_rate[1] + d[2] * pin_rate[2]) / d[0];
        let mid: [f64; 3] = std::array::from_fn(|k| 0.5 * (pin[k] + slider[k]));
        let mid_rate = [0.5 * xs_rate, 0.5 * pin_rate[1], 0.5 * pin_rate[2]];
        let (mut q, mut v) = (vec![0.0; 21], vec![0.0; 21]);
        let bodies = [
            (
                "crank",
                [0.0; 3],
                axis_angle([1.0, 0.0, 0.0], phi),
                [0.0; 3],
                [rate, 0.0, 0.0],
            ),
            ("rod", mid, rod_p, mid_rate, [0.0; 3]),
            (
                "slider",
                slider,
                [1.0, 0.0, 0.0, 0.0],
                [xs_rate, 0.0, 0.0],
                [0.0; 3],
            ),
        ];
        for (name, r, p, rdot, omega) in bodies {
            set_body(self, &mut q, &mut v, name, BodyState { r, p, rdot, omega })
                .expect("the model's bodies");
        }
        (q, v)
    }

    /// Crank at φ = 0 turning at 10 rad/s.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut model = SpatialSliderCrank::chosen();
        for (name, slot) in [
            ("rc", &mut model.rc),
            ("len", &mut model.len),
            ("ey", &mut model.ey),
            ("ez", &mut model.ez),
        ] {
            if let Some(x) = sys.parameter(name) {
                *slot = x;
            }
        }
        model.state(0.0, 10.0)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "spatial-slider-crank",
    title: "spatial slider-crank, revolute/spherical/universal/translational joints, Euler parameters (n = 21, m = 20)",
    source: "Haug's spatial slider-crank layout; data chosen [EXT]",
    build: || Box::new(SpatialSliderCrank::chosen()),
    initial: SpatialSliderCrank::initial,
    t_end: 2.0,
    dt_out: 0.005,
    rtol: 1e-8,
    kernels: include_str!("generated/spatial_slider_crank.rs"),
};

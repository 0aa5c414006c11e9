//! The stiff flyball governor, IFToMM multibody benchmark A05, in Euler parameters.
//!
//! Source of the data: the benchmark's published description as reproduced by MBS-BOS
//! (RehabEngGroup/MBSbenchmarksInOpenSim, `src/A05-FlyballGovernor/createModel.cpp` and
//! `modelProperties.h`, and its benchmark page): shaft and rods 1.0 × 0.01 × 0.01 m, slider a
//! 0.1 m cube, density 3000 kg/m³ (0.3 kg and 3 kg), 5 kg point masses at the rods' free ends,
//! spring-dampers K = 8e5 N/m, C = 4e4 N s/m, rest length 0.5 m, rod hinges 0.1 m apart at the
//! top of the shaft, rods 30° below the horizontal, slider at s = 0.5 m, shaft turning at
//! 2π rad/s, gravity −9.81 along z. (EXUDYN's example scales K and C by 0.005; we keep the
//! published values.)
//!
//! Bodies: the shaft (a revolute joint to the ground at its lower end, about z), the slider
//! (a translational joint along the shaft's axis: it turns with the shaft), and two rods on
//! revolute joints about y at (±xab/2, 0, len/2) of the shaft. Each rod carries its point mass
//! as one rigid body: its centre of mass is e = m_ball (len/2)/(m_rod + m_ball) from the rod's
//! middle towards the ball, and its inertia the rod's (brick, m (len² + w²)/12) moved there
//! plus the ball's m_ball (len/2 − e)². Rod axes are the bodies' z axes. A TSDA joins each
//! rod's middle to the slider's side (±cube/2, 0, 0).
//!
//! 28 coordinates, 4 normalization and 20 joint rows: four degrees of freedom (shaft angle,
//! slider height, two rod angles). The dampers make it stiff: c/m ≈ 8000 s⁻¹.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;
use mbsim::spatial::{BodyState, axis_angle, set_body};

/// IFToMM A05, the stiff flyball governor.
#[model(
    let mrb = mrod + mball,
    let e = mball * len / 2.0 / mrb,
    let jrod = mrod * (len.powi(2) + w.powi(2)) / 12.0 + mrod * e.powi(2) + mball * (len / 2.0 - e).powi(2),
    let jshaft = mshaft * (len.powi(2) + w.powi(2)) / 12.0,
    let jslider = mslider * cube.powi(2) / 6.0,
    bodies: [
        shaft = body(mshaft, [jshaft, jshaft, mshaft * w.powi(2) / 6.0]),
        slider = body(mslider, [jslider, jslider, jslider]),
        rod1 = body(mrb, [jrod, jrod, mrod * w.powi(2) / 6.0]),
        rod2 = body(mrb, [jrod, jrod, mrod * w.powi(2) / 6.0]),
    ],
    joints: [
        spin = revolute(ground, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], shaft, [0.0, 0.0, -len / 2.0], [0.0, 0.0, 1.0]),
        sleeve = translational(shaft, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], slider, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        hinge1 = revolute(shaft, [xab / 2.0, 0.0, len / 2.0], [0.0, 1.0, 0.0], rod1, [0.0, 0.0, -len / 2.0 - e], [0.0, 1.0, 0.0]),
        hinge2 = revolute(shaft, [-xab / 2.0, 0.0, len / 2.0], [0.0, 1.0, 0.0], rod2, [0.0, 0.0, -len / 2.0 - e], [0.0, 1.0, 0.0]),
    ],
    loads: [
        gravity([0.0, 0.0, -g]),
        spring1 = tsda(slider, [cube / 2.0, 0.0, 0.0], rod1, [0.0, 0.0, -e], k, c, l0, 0.0),
        spring2 = tsda(slider, [-cube / 2.0, 0.0, 0.0], rod2, [0.0, 0.0, -e], k, c, l0, 0.0),
    ],
    draw: {
        points: [
            S0 = at(shaft, [0.0, 0.0, -len / 2.0]),
            S1 = at(shaft, [0.0, 0.0, len / 2.0]),
            H1 = at(shaft, [xab / 2.0, 0.0, len / 2.0]),
            H2 = at(shaft, [-xab / 2.0, 0.0, len / 2.0]),
            B1 = at(rod1, [0.0, 0.0, len / 2.0 - e]),
            B2 = at(rod2, [0.0, 0.0, len / 2.0 - e]),
            M1 = at(rod1, [0.0, 0.0, -e]),
            M2 = at(rod2, [0.0, 0.0, -e]),
            K1 = at(slider, [cube / 2.0, 0.0, 0.0]),
            K2 = at(slider, [-cube / 2.0, 0.0, 0.0]),
            KT = at(slider, [0.0, 0.0, cube / 2.0]),
            KB = at(slider, [0.0, 0.0, -cube / 2.0]),
        ],
        segments: [(S0, S1), (H1, H2), (H1, B1), (H2, B2), (M1, K1), (M2, K2), (K1, KT), (KT, K2), (K2, KB), (KB, K1)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FlyballGovernor {
    /// Shaft mass [kg] (0.3).
    pub mshaft: f64,
    /// Slider mass [kg] (3).
    pub mslider: f64,
    /// Rod mass [kg] (0.3).
    pub mrod: f64,
    /// Point mass at each rod's end [kg] (5).
    pub mball: f64,
    /// Shaft and rod length [m] (1).
    pub len: f64,
    /// Shaft and rod cross-section side [m] (0.01).
    pub w: f64,
    /// Slider side [m] (0.1).
    pub cube: f64,
    /// Distance between the rod hinges [m] (0.1).
    pub xab: f64,
    /// Spring stiffness [N/m] (8e5).
    pub k: f64,
    /// Damping [N s/m] (4e4).
    pub c: f64,
    /// Spring rest length [m] (0.5).
    pub l0: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl FlyballGovernor {
    /// The benchmark's data.
    pub fn published() -> Self {
        FlyballGovernor {
            mshaft: 0.3,
            mslider: 3.0,
            mrod: 0.3,
            mball: 5.0,
            len: 1.0,
            w: 0.01,
            cube: 0.1,
            xab: 0.1,
            k: 8e5,
            c: 4e4,
            l0: 0.5,
            g: 9.81,
        }
    }

    /// Rods `beta` below the horizontal, slider at height `s`, everything turning at `omega`
    /// about z.
    pub fn state(&self, beta: f64, s: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let e = self.mball * self.len / 2.0 / (self.mrod + self.mball);
        let reach = self.len / 2.0 + e;
        let (cb, sb) = (beta.cos(), beta.sin());
        let turn = std::f64::consts::FRAC_PI_2 + beta; // z' turned about y to (cos β, 0, −sin β)
        let bodies = [
            ("shaft", [0.0, 0.0, self.len / 2.0], [1.0, 0.0, 0.0, 0.0]),
            ("slider", [0.0, 0.0, s], [1.0, 0.0, 0.0, 0.0]),
            (
                "rod1",
                [self.xab / 2.0 + reach * cb, 0.0, self.len - reach * sb],
                axis_angle([0.0, 1.0, 0.0], turn),
            ),
            (
                "rod2",
                [-self.xab / 2.0 - reach * cb, 0.0, self.len - reach * sb],
                axis_angle([0.0, 1.0, 0.0], -turn),
            ),
        ];
        let (mut q, mut v) = (vec![0.0; 28], vec![0.0; 28]);
        for (name, r, p) in bodies {
            let state = BodyState {
                r,
                p,
                rdot: [-omega * r[1], omega * r[0], 0.0],
                omega: [0.0, 0.0, omega],
            };
            set_body(self, &mut q, &mut v, name, state).expect("the model's bodies");
        }
        (q, v)
    }

    /// The benchmark's start: β = 30°, s = 0.5 m, 2π rad/s.
    pub fn initial(_: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        FlyballGovernor::published().state(
            std::f64::consts::FRAC_PI_6,
            0.5,
            2.0 * std::f64::consts::PI,
        )
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "flyball-governor",
    title: "IFToMM A05 stiff flyball governor, Euler parameters (n = 28, m = 24)",
    source: "IFToMM multibody benchmark A05 (data as reproduced by MBS-BOS, RehabEngGroup)",
    build: || Box::new(FlyballGovernor::published()),
    initial: FlyballGovernor::initial,
    t_end: 1.0,
    dt_out: 0.01,
    rtol: 1e-6,
    kernels: include_str!("generated/flyball_governor.rs"),
};

//! Bricard's mechanism, IFToMM multibody benchmark A04, in Euler parameters: an
//! over-constrained closed chain of five bars and six revolute joints (Grübler counts no
//! degree of freedom; the axes' arrangement leaves one).
//!
//! Source of the data: the benchmark's description as reproduced by MBS-BOS
//! (RehabEngGroup/MBSbenchmarksInOpenSim, `src/A04-BricardsMechanism/createModel.cpp`,
//! `modelProperties.h`, and its benchmark page): bars of 1 kg, 1 m, square cross-section
//! 0.1 m; gravity −9.81 along y; released at rest; 10 s. The joints are at
//! P0 = (0, 0, 0) (axis y, to the ground), P1 = (1, 0, 0) (z), P2 = (1, −1, 0) (x),
//! P3 = (1, −1, 1) (y), P4 = (0, −1, 1) (z) and P5 = (0, 0, 1) (x, to the ground); bar k runs
//! from P(k−1) to P(k) along its body x axis, its centre of mass at the middle. The joint axes
//! below are those world axes in each bar's frame at that configuration.
//!
//! 35 coordinates and 5 normalization + 30 joint rows: G has rank 34 at every regular
//! configuration, one row is redundant, which the KKT solve must be able to handle (see
//! `tests/suite/spatial.rs`).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;
use mbsim::spatial::{BodyState, axis_angle, set_body};

/// IFToMM A04, Bricard's mechanism.
#[model(
    let jt = m * (len.powi(2) + side.powi(2)) / 12.0,
    let ja = m * side.powi(2) / 6.0,
    bodies: [for i in 0..5 { bar = body(m, [ja, jt, jt]) }],
    joints: [
        hinge0 = revolute(ground, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], bar[0], [-len / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        hinge1 = revolute(bar[0], [len / 2.0, 0.0, 0.0], [0.0, 0.0, 1.0], bar[1], [-len / 2.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        hinge2 = revolute(bar[1], [len / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0], bar[2], [-len / 2.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        hinge3 = revolute(bar[2], [len / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0], bar[3], [-len / 2.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        hinge4 = revolute(bar[3], [len / 2.0, 0.0, 0.0], [0.0, 0.0, 1.0], bar[4], [-len / 2.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        hinge5 = revolute(bar[4], [len / 2.0, 0.0, 0.0], [0.0, -1.0, 0.0], ground, [0.0, 0.0, len], [1.0, 0.0, 0.0]),
    ],
    loads: [gravity([0.0, -g, 0.0])],
    draw: {
        up: y,
        points: [
            P0 = at(bar[0], [-len / 2.0, 0.0, 0.0]),
            P1 = at(bar[1], [-len / 2.0, 0.0, 0.0]),
            P2 = at(bar[2], [-len / 2.0, 0.0, 0.0]),
            P3 = at(bar[3], [-len / 2.0, 0.0, 0.0]),
            P4 = at(bar[4], [-len / 2.0, 0.0, 0.0]),
            P5 = (0.0, 0.0, len),
        ],
        segments: [(P0, P1), (P1, P2), (P2, P3), (P3, P4), (P4, P5), (P5, P0)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Bricard {
    /// Bar mass [kg] (1).
    pub m: f64,
    /// Bar length [m] (1).
    pub len: f64,
    /// Side of the square cross-section [m] (0.1).
    pub side: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl Bricard {
    /// The benchmark's data.
    pub fn published() -> Self {
        Bricard {
            m: 1.0,
            len: 1.0,
            side: 0.1,
            g: 9.81,
        }
    }

    /// The benchmark's initial configuration, at rest.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let l = sys.parameter("len").unwrap_or(1.0);
        let half = std::f64::consts::FRAC_PI_2;
        let bars = [
            ([l / 2.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
            ([l, -l / 2.0, 0.0], axis_angle([0.0, 0.0, 1.0], -half)),
            ([l, -l, l / 2.0], axis_angle([0.0, 1.0, 0.0], -half)),
            ([l / 2.0, -l, l], axis_angle([0.0, 0.0, 1.0], 2.0 * half)),
            ([0.0, -l / 2.0, l], axis_angle([0.0, 0.0, 1.0], half)),
        ];
        let (mut q, mut v) = (vec![0.0; 35], vec![0.0; 35]);
        for (k, (r, p)) in bars.into_iter().enumerate() {
            set_body(
                sys,
                &mut q,
                &mut v,
                &format!("bar[{k}]"),
                BodyState::at(r, p),
            )
            .expect("the model's bars");
        }
        (q, v)
    }
}

/// The `mbsim` catalog entry of this model (kept out of the catalog while the KKT solve
/// cannot take its redundant row; see `lib.rs`).
pub const ENTRY: ModelEntry = ModelEntry {
    name: "bricard",
    title: "IFToMM A04 Bricard mechanism, over-constrained, Euler parameters (n = 35, m = 35, 1 DOF)",
    source: "IFToMM multibody benchmark A04 (data as reproduced by MBS-BOS, RehabEngGroup)",
    build: || Box::new(Bricard::published()),
    initial: Bricard::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/bricard.rs"),
};

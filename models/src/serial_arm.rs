//! A six-joint serial arm in relative coordinates: spatial bodies placed by expressions of the
//! joint angles (`body(m, J′, position, rotation)`, `codegen/src/frontend/placed_spatial.rs`),
//! M and Q in the structured composite-rigid-body form.
//!
//! Joints (each body's rotation is its parent's times one elementary rotation): q1 turns the
//! column about the vertical z, q2 (shoulder) and q3 (elbow) pitch about the links' y axes,
//! q4 rolls the forearm about its own x axis, q5 pitches the wrist about y, q6 rolls the tool
//! about x. The column of height l[0] stands on the origin; the shoulder sits at its top,
//! offset by `e` sideways; links 2 to 5 lie along their x axes; the tool's centre of mass is
//! `d` off its roll axis, so q6 moves mass. The forearm's inertia tensor has a product of
//! inertia `pxy`, so the composite inertias are full tensors.
//!
//! Six degrees of freedom, no constraints; with gravity the only load the model states its
//! energy. `tests/suite/serial_arm.rs` checks M(q) and the bias forces against a recursive
//! Newton–Euler / composite-rigid-body computation written there, and energy conservation.
//!
//! \[EXT\] chosen data: masses 4, 3, 2, 1, 0.6, 0.3 kg; lengths 0.4, 0.6, 0.5, 0.2, 0.15,
//! 0.1 m; slender-link inertias m l²/12 across and small axial ones; e = 0.1 m, d = 0.03 m,
//! pxy = 0.002 kg m², g = 9.81; released from a bent pose with all joints turning.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A six-joint serial arm, relative joint angles.
#[model(
    coordinates: [q1, q2, q3, q4, q5, q6],
    bodies: [
        column = body(m[0], [jx[0], jy[0], jz[0]], [0.0, 0.0, l[0] / 2.0], rot_z(q1)),
        upper = body(m[1], [jx[1], jy[1], jz[1]],
            point(column, [0.0, e, l[0] / 2.0]) + orientation(column) * rot_y(q2) * [l[1] / 2.0, 0.0, 0.0],
            orientation(column) * rot_y(q2)),
        fore = body(m[2], [[jx[2], pxy, 0.0], [pxy, jy[2], 0.0], [0.0, 0.0, jz[2]]],
            point(upper, [l[1] / 2.0, 0.0, 0.0]) + orientation(upper) * rot_y(q3) * [l[2] / 2.0, 0.0, 0.0],
            orientation(upper) * rot_y(q3)),
        wrist = body(m[3], [jx[3], jy[3], jz[3]],
            point(fore, [l[2] / 2.0, 0.0, 0.0]) + orientation(fore) * rot_x(q4) * [l[3] / 2.0, 0.0, 0.0],
            orientation(fore) * rot_x(q4)),
        hand = body(m[4], [jx[4], jy[4], jz[4]],
            point(wrist, [l[3] / 2.0, 0.0, 0.0]) + orientation(wrist) * rot_y(q5) * [l[4] / 2.0, 0.0, 0.0],
            orientation(wrist) * rot_y(q5)),
        tool = body(m[5], [jx[5], jy[5], jz[5]],
            point(hand, [l[4] / 2.0, 0.0, 0.0]) + orientation(hand) * rot_x(q6) * [l[5] / 2.0, d, 0.0],
            orientation(hand) * rot_x(q6)),
    ],
    loads: [gravity([0.0, 0.0, -g])],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SerialArm {
    /// Masses of the column, upper arm, forearm, wrist, hand and tool [kg].
    pub m: [f64; 6],
    /// Lengths (the column's height, then the links along x) [m].
    pub l: [f64; 6],
    /// Principal moments about the body x axes [kg m²].
    pub jx: [f64; 6],
    /// About the body y axes [kg m²].
    pub jy: [f64; 6],
    /// About the body z axes [kg m²].
    pub jz: [f64; 6],
    /// The forearm's product of inertia J′_xy [kg m²].
    pub pxy: f64,
    /// Sideways offset of the shoulder from the column's axis [m].
    pub e: f64,
    /// The tool's centre of mass off its roll axis [m].
    pub d: f64,
    /// Gravitational acceleration [m/s²].
    pub g: f64,
}

impl SerialArm {
    /// The \[EXT\] chosen data.
    pub fn chosen() -> Self {
        let m = [4.0, 3.0, 2.0, 1.0, 0.6, 0.3];
        let l = [0.4, 0.6, 0.5, 0.2, 0.15, 0.1];
        let across: [f64; 6] = std::array::from_fn(|k| m[k] * l[k] * l[k] / 12.0);
        let axial: [f64; 6] = std::array::from_fn(|k| m[k] * 0.03 * 0.03 / 2.0);
        // The column stands along z, the other links lie along x.
        let jx = std::array::from_fn(|k| if k == 0 { across[0] } else { axial[k] });
        let jy = across;
        let jz = std::array::from_fn(|k| if k == 0 { axial[0] } else { across[k] });
        SerialArm {
            m,
            l,
            jx,
            jy,
            jz,
            pxy: 0.002,
            e: 0.1,
            d: 0.03,
            g: 9.81,
        }
    }

    /// The chosen release: a bent pose, every joint turning.
    pub fn initial(_sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        (
            vec![0.2, -0.5, 0.9, 0.3, -0.6, 0.1],
            vec![0.8, -0.5, 1.0, 2.0, -1.5, 3.0],
        )
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "serial-arm",
    title: "six-joint serial arm, spatial bodies placed by joint angles (n = 6, m = 0)",
    source: "structured composite-rigid-body form; data chosen [EXT]",
    build: || Box::new(SerialArm::chosen()),
    initial: SerialArm::initial,
    t_end: 3.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/serial_arm.rs"),
};

//! Initial states of spatial bodies: orientations as the user thinks of them (axis–angle, Euler
//! angles, a rotation matrix) turned into Euler parameters p = (e0, e1, e2, e3), angular
//! velocities into ṗ, and both written into q and v by the coordinate names of the model
//! (`<body>_x … <body>_p3`, see the model language's spatial `bodies`).
//!
//! Conventions (Haug, *Computer-Aided Kinematics and Dynamics*, ch. 9): A(p) maps body-frame
//! vectors to the world, A = E Gᵀ with G = [−e, −ẽ + e0 I], E = [−e, ẽ + e0 I]; the world
//! angular velocity is ω = 2 E ṗ, the body-frame one ω' = 2 G ṗ, and for unit p,
//! ṗ = ½ Eᵀ ω = ½ Gᵀ ω'. These helpers are plain f64 functions of the façade, not generated
//! code: an initial state is numbers, and a consistent state is then found by
//! [`crate::runtime::initialize`] as for every model.
//!
//! ```
//! use mbsim::spatial::{axis_angle, euler_angles, pdot_from_omega, rotation_matrix, Axis};
//! let p = axis_angle([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2);
//! let a = rotation_matrix(p);
//! assert!((a[1][0] - 1.0).abs() < 1e-15); // the body x axis points along world y
//! let q = euler_angles([Axis::Z, Axis::X, Axis::Z], [0.3, 0.2, 0.1]);
//! let pdot = pdot_from_omega(q, [0.0, 0.0, 5.0]);
//! assert!(q.iter().zip(&pdot).map(|(a, b)| a * b).sum::<f64>().abs() < 1e-15);
//! ```

use crate::runtime::ConstrainedSystem;

/// Euler parameters (e0, e1, e2, e3).
pub type EulerParameters = [f64; 4];

/// A coordinate axis of a rotation sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

impl Axis {
    fn unit(self) -> [f64; 3] {
        match self {
            Axis::X => [1.0, 0.0, 0.0],
            Axis::Y => [0.0, 1.0, 0.0],
            Axis::Z => [0.0, 0.0, 1.0],
        }
    }
}

/// What went wrong turning an orientation into Euler parameters or writing a body's state.
#[derive(Clone, Debug, PartialEq)]
pub enum SpatialError {
    /// The rotation axis has zero or non-finite length.
    Axis,
    /// The matrix is not a rotation (AᵀA ≠ I or det A ≠ 1 beyond the tolerance); the
    /// largest deviation.
    NotARotation(f64),
    /// The model has no spatial body of this name (its coordinates `<body>_x … <body>_p3`).
    UnknownBody(String),
    /// q or v does not have the model's length.
    Length,
}

impl std::fmt::Display for SpatialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpatialError::Axis => write!(f, "a rotation axis must be finite and non-zero"),
            SpatialError::NotARotation(d) => write!(
                f,
                "not a rotation matrix: AᵀA − I or det A − 1 is {d:e} (tolerance 1e-9)"
            ),
            SpatialError::UnknownBody(b) => write!(
                f,
                "the model has no spatial body `{b}` (coordinates `{b}_x` … `{b}_p3`)"
            ),
            SpatialError::Length => write!(f, "q and v must have the model's n entries"),
        }
    }
}

impl std::error::Error for SpatialError {}

/// The rotation by `angle` (rad, right-handed) about `axis` (any length > 0).
pub fn axis_angle(axis: [f64; 3], angle: f64) -> EulerParameters {
    try_axis_angle(axis, angle).expect("axis_angle: the axis must be finite and non-zero")
}

/// [`axis_angle`] with the zero axis as an error.
pub fn try_axis_angle(axis: [f64; 3], angle: f64) -> Result<EulerParameters, SpatialError> {
    let len = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if !(len > 0.0 && len.is_finite() && angle.is_finite()) {
        return Err(SpatialError::Axis);
    }
    let (s, c) = (0.5 * angle).sin_cos();
    Ok([c, s * axis[0] / len, s * axis[1] / len, s * axis[2] / len])
}

/// The product p ⊗ q: the rotation q (in the frame p has turned to) after p, A(p ⊗ q) =
/// A(p) A(q).
pub fn compose(p: EulerParameters, q: EulerParameters) -> EulerParameters {
    let (a0, a) = (p[0], [p[1], p[2], p[3]]);
    let (b0, b) = (q[0], [q[1], q[2], q[3]]);
    let cross = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    [
        a0 * b0 - dot,
        a0 * b[0] + b0 * a[0] + cross[0],
        a0 * b[1] + b0 * a[1] + cross[1],
        a0 * b[2] + b0 * a[2] + cross[2],
    ]
}

/// Intrinsic (body-fixed) Euler angles: turn by `angles[0]` about `axes[0]`, then by
/// `angles[1]` about the turned `axes[1]`, then by `angles[2]` about the twice-turned
/// `axes[2]`. `[Z, X, Z]` with (ψ precession, θ nutation, φ spin) is the classical sequence of
/// the top; `[Z, Y, X]` yaw, pitch, roll; `[X, Y, Z]` Bryant (Cardan) angles.
pub fn euler_angles(axes: [Axis; 3], angles: [f64; 3]) -> EulerParameters {
    let turn = |k: usize| axis_angle(axes[k].unit(), angles[k]);
    compose(compose(turn(0), turn(1)), turn(2))
}

/// A(p) = E Gᵀ (body to world; the rotation matrix for unit p).
pub fn rotation_matrix(p: EulerParameters) -> [[f64; 3]; 3] {
    let [e0, e1, e2, e3] = p;
    [
        [
            e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
            2.0 * (e1 * e2 - e0 * e3),
            2.0 * (e1 * e3 + e0 * e2),
        ],
        [
            2.0 * (e1 * e2 + e0 * e3),
            e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3,
            2.0 * (e2 * e3 - e0 * e1),
        ],
        [
            2.0 * (e1 * e3 - e0 * e2),
            2.0 * (e2 * e3 + e0 * e1),
            e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3,
        ],
    ]
}

/// The Euler parameters of a rotation matrix (body to world), with e0 ≥ 0; Shepperd's
/// method (the largest of e0², e1², e2², e3² taken from the trace and diagonal, the others
/// from the off-diagonal sums and differences), accurate for every rotation.
pub fn from_matrix(a: [[f64; 3]; 3]) -> Result<EulerParameters, SpatialError> {
    let mut worst: f64 = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let ata: f64 = (0..3).map(|k| a[k][i] * a[k][j]).sum();
            worst = worst.max((ata - f64::from(u8::from(i == j))).abs());
        }
    }
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    worst = worst.max((det - 1.0).abs());
    if worst.is_nan() || worst > 1e-9 {
        return Err(SpatialError::NotARotation(worst));
    }
    let trace = a[0][0] + a[1][1] + a[2][2];
    let squares = [
        (1.0 + trace) / 4.0,
        (1.0 + 2.0 * a[0][0] - trace) / 4.0,
        (1.0 + 2.0 * a[1][1] - trace) / 4.0,
        (1.0 + 2.0 * a[2][2] - trace) / 4.0,
    ];
    let k = (0..4)
        .max_by(|&x, &y| squares[x].total_cmp(&squares[y]))
        .expect("four entries");
    let big = squares[k].sqrt();
    let q4 = 4.0 * big;
    // 4 e0 e_i = A_kj − A_jk, 4 e_i e_j = A_ij + A_ji.
    let p = match k {
        0 => [
            big,
            (a[2][1] - a[1][2]) / q4,
            (a[0][2] - a[2][0]) / q4,
            (a[1][0] - a[0][1]) / q4,
        ],
        1 => [
            (a[2][1] - a[1][2]) / q4,
            big,
            (a[0][1] + a[1][0]) / q4,
            (a[0][2] + a[2][0]) / q4,
        ],
        2 => [
            (a[0][2] - a[2][0]) / q4,
            (a[0][1] + a[1][0]) / q4,
            big,
            (a[1][2] + a[2][1]) / q4,
        ],
        _ => [
            (a[1][0] - a[0][1]) / q4,
            (a[0][2] + a[2][0]) / q4,
            (a[1][2] + a[2][1]) / q4,
            big,
        ],
    };
    let sign = if p[0] < 0.0 { -1.0 } else { 1.0 };
    Ok(p.map(|x| sign * x))
}

/// ṗ = ½ Eᵀ ω for the world angular velocity ω (p unit; pᵀṗ = 0).
pub fn pdot_from_omega(p: EulerParameters, omega: [f64; 3]) -> [f64; 4] {
    let [e0, e1, e2, e3] = p;
    let [w1, w2, w3] = omega;
    [
        0.5 * (-e1 * w1 - e2 * w2 - e3 * w3),
        0.5 * (e0 * w1 + e3 * w2 - e2 * w3),
        0.5 * (-e3 * w1 + e0 * w2 + e1 * w3),
        0.5 * (e2 * w1 - e1 * w2 + e0 * w3),
    ]
}

/// ṗ = ½ Gᵀ ω' for the body-frame angular velocity ω' (p unit; pᵀṗ = 0).
pub fn pdot_from_body_omega(p: EulerParameters, omega: [f64; 3]) -> [f64; 4] {
    let [e0, e1, e2, e3] = p;
    let [w1, w2, w3] = omega;
    [
        0.5 * (-e1 * w1 - e2 * w2 - e3 * w3),
        0.5 * (e0 * w1 - e3 * w2 + e2 * w3),
        0.5 * (e3 * w1 + e0 * w2 - e1 * w3),
        0.5 * (-e2 * w1 + e1 * w2 + e0 * w3),
    ]
}

/// ω = 2 E ṗ, the world angular velocity.
pub fn omega(p: EulerParameters, pdot: [f64; 4]) -> [f64; 3] {
    let [e0, e1, e2, e3] = p;
    let [d0, d1, d2, d3] = pdot;
    [
        2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3),
        2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3),
        2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3),
    ]
}

/// ω' = 2 G ṗ, the body-frame angular velocity.
pub fn body_omega(p: EulerParameters, pdot: [f64; 4]) -> [f64; 3] {
    let [e0, e1, e2, e3] = p;
    let [d0, d1, d2, d3] = pdot;
    [
        2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3),
        2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3),
        2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3),
    ]
}

/// A spatial body's state as the user gives it: centre of mass, orientation, their rates
/// (ω in the world frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Centre of mass r.
    pub r: [f64; 3],
    /// Euler parameters (normalized when written).
    pub p: EulerParameters,
    /// ṙ.
    pub rdot: [f64; 3],
    /// World angular velocity ω.
    pub omega: [f64; 3],
}

impl BodyState {
    /// At rest at `r` with orientation `p`.
    pub fn at(r: [f64; 3], p: EulerParameters) -> Self {
        BodyState {
            r,
            p,
            rdot: [0.0; 3],
            omega: [0.0; 3],
        }
    }
}

/// Write body `name`'s state into q and v (by the model's coordinate names `<name>_x …
/// <name>_p3`; a family member `link[2]` is `link_x[2]` …): r, p normalized, ṙ, and
/// ṗ = ½ Eᵀ ω.
pub fn set_body(
    sys: &dyn ConstrainedSystem,
    q: &mut [f64],
    v: &mut [f64],
    name: &str,
    state: BodyState,
) -> Result<(), SpatialError> {
    let names = sys.coordinate_names();
    if q.len() != names.len() || v.len() != names.len() {
        return Err(SpatialError::Length);
    }
    let coordinate = |suffix: &str| match name.find('[') {
        Some(at) => format!("{}_{suffix}{}", &name[..at], &name[at..]),
        None => format!("{name}_{suffix}"),
    };
    let first = names
        .iter()
        .position(|n| *n == coordinate("x"))
        .ok_or_else(|| SpatialError::UnknownBody(name.to_string()))?;
    let expected = ["x", "y", "z", "p0", "p1", "p2", "p3"];
    let laid_out = expected
        .iter()
        .enumerate()
        .all(|(k, s)| names.get(first + k).is_some_and(|n| *n == coordinate(s)));
    if !laid_out {
        return Err(SpatialError::UnknownBody(name.to_string()));
    }
    let len = state.p.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(len > 0.0 && len.is_finite()) {
        return Err(SpatialError::Axis);
    }
    let p = state.p.map(|x| x / len);
    let pdot = pdot_from_omega(p, state.omega);
    q[first..first + 3].copy_from_slice(&state.r);
    q[first + 3..first + 7].copy_from_slice(&p);
    v[first..first + 3].copy_from_slice(&state.rdot);
    v[first + 3..first + 7].copy_from_slice(&pdot);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= tol, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn matrix_round_trips_through_every_branch() {
        // Rotations whose largest square is e0², e1², e2², e3² in turn (angles near π pick
        // the e_i branches).
        for (axis, angle) in [
            ([0.3, -0.2, 0.9], 0.4),
            ([1.0, 0.1, -0.2], 3.0),
            ([0.1, 1.0, 0.3], -3.1),
            ([0.2, -0.1, 1.0], 3.13),
        ] {
            let p = axis_angle(axis, angle);
            let p = if p[0] < 0.0 { p.map(|x| -x) } else { p };
            let back = from_matrix(rotation_matrix(p)).expect("a rotation");
            close(&back, &p, 1e-15);
        }
    }

    #[test]
    fn not_a_rotation_is_an_error() {
        let reflection = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];
        assert!(matches!(
            from_matrix(reflection),
            Err(SpatialError::NotARotation(_))
        ));
        assert_eq!(try_axis_angle([0.0; 3], 1.0), Err(SpatialError::Axis));
    }

    #[test]
    fn euler_angles_compose_as_matrices() {
        let (psi, theta, phi) = (0.7_f64, 0.4_f64, -1.1_f64);
        let a = rotation_matrix(euler_angles([Axis::Z, Axis::X, Axis::Z], [psi, theta, phi]));
        // The classical 3-1-3 matrix (Goldstein's Aᵀ: body to space).
        let (c1, s1, c2, s2, c3, s3) = (
            psi.cos(),
            psi.sin(),
            theta.cos(),
            theta.sin(),
            phi.cos(),
            phi.sin(),
        );
        let want = [
            [c1 * c3 - s1 * c2 * s3, -c1 * s3 - s1 * c2 * c3, s1 * s2],
            [s1 * c3 + c1 * c2 * s3, -s1 * s3 + c1 * c2 * c3, -c1 * s2],
            [s2 * s3, s2 * c3, c2],
        ];
        for r in 0..3 {
            close(&a[r], &want[r], 1e-15);
        }
    }

    #[test]
    fn angular_velocities_round_trip() {
        let p = euler_angles([Axis::X, Axis::Y, Axis::Z], [0.3, -0.5, 1.2]);
        let w = [0.4, -2.0, 1.5];
        close(&omega(p, pdot_from_omega(p, w)), &w, 1e-15);
        close(&body_omega(p, pdot_from_body_omega(p, w)), &w, 1e-15);
        // ω = A ω'.
        let wb = body_omega(p, pdot_from_omega(p, w));
        let a = rotation_matrix(p);
        let back: Vec<f64> = (0..3)
            .map(|r| (0..3).map(|c| a[r][c] * wb[c]).sum())
            .collect();
        close(&back, &w, 1e-15);
    }
}

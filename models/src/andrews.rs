//! Andrews' squeezing mechanism (\[CHIN\] §4.4.1, Tables 4.1–4.3, SEEDS-DIGEST P6): seven planar
//! rigid bodies in a closed kinematic chain, driven by a motor torque at O and a spring on
//! body 3. The thesis gives no equations; the model is the standard one of Hairer–Wanner II
//! §VII.7 and the Bari IVP test set ("andrews") \[EXT\], transcribed from the digest, with M and
//! f written out (not derived from a Lagrangian), exactly as printed there.
//!
//! q = (β, Θ, γ, Φ, δ, Ω, ε) (here `beta, theta, gamma, phi, delta, omega, epsilon`), six
//! holonomic constraints, no gravity. Masses, inertias, the motor torque and the spring data are
//! runtime parameters; the 25 geometry constants are baked (`const`, constant-folded):
//!
//! | const | value | | const | value | | const | value |
//! |---|---|---|---|---|---|---|---|
//! | xa | −0.06934 | | ya | −0.00227 | | xb | −0.03635 |
//! | yb | 0.03273 | | xc | 0.014 | | yc | 0.072 |
//! | d | 28e-3 | | da | 115e-4 | | e | 2e-2 |
//! | ea | 1421e-5 | | rr | 7e-3 | | ra | 92e-5 |
//! | ss | 35e-3 | | sa | 1874e-5 | | sb | 1043e-5 |
//! | sc | 18e-3 | | sd | 2e-2 | | ta | 2308e-5 |
//! | tb | 916e-5 | | u | 4e-2 | | ua | 1228e-5 |
//! | ub | 449e-5 | | zf | 2e-2 | | zt | 4e-2 |
//! | fa | 1421e-5 | | | | | | |
//!
//! The published consistent start is [`Andrews::Q0`] with zero velocities; the KKT solve there
//! reproduces [`Andrews::VDOT0`] and [`Andrews::LAMBDA0`] (`models/tests/suite/andrews.rs`).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Andrews' squeezing mechanism (7 coordinates, 6 holonomic constraints).
#[model(
    tangents: true,
    coordinates: [beta, theta, gamma, phi, delta, omega, epsilon],
    const xa = -0.06934, const ya = -0.00227, const xb = -0.03635, const yb = 0.03273,
    const xc = 0.014, const yc = 0.072, const d = 28e-3, const da = 115e-4, const e = 2e-2,
    const ea = 1421e-5, const rr = 7e-3, const ra = 92e-5, const ss = 35e-3,
    const sa = 1874e-5, const sb = 1043e-5, const sc = 18e-3, const sd = 2e-2,
    const ta = 2308e-5, const tb = 916e-5, const u = 4e-2, const ua = 1228e-5,
    const ub = 449e-5, const zf = 2e-2, const zt = 4e-2, const fa = 1421e-5,
    let beth = beta + theta,
    let phde = phi + delta,
    let omep = omega + epsilon,
    let ee = e - ea,
    let zz = zf - fa,
    let xd = sd * gamma.cos() + sc * gamma.sin() + xb,
    let yd = sd * gamma.sin() - sc * gamma.cos() + yb,
    let len = ((xd - xc).powi(2) + (yd - yc).powi(2)).sqrt(),
    let spring = -c0 * (len - l0) / len,
    let fx = spring * (xd - xc),
    let fy = spring * (yd - yc),
    let m11 = m1 * ra.powi(2) + m2 * (rr.powi(2) - 2.0 * da * rr * theta.cos() + da.powi(2))
        + i1 + i2,
    let m12 = m2 * (da.powi(2) - da * rr * theta.cos()) + i2,
    let m45 = m4 * (ee.powi(2) + zt * ee * phi.sin()) + i4,
    let m67 = m6 * (zz.powi(2) - u * zz * omega.sin()) + i6,
    holonomic: [
        rr * beta.cos() - d * beth.cos() - ss * gamma.sin() - xb,
        rr * beta.sin() - d * beth.sin() + ss * gamma.cos() - yb,
        rr * beta.cos() - d * beth.cos() - e * phde.sin() - zt * delta.cos() - xa,
        rr * beta.sin() - d * beth.sin() + e * phde.cos() - zt * delta.sin() - ya,
        rr * beta.cos() - d * beth.cos() - zf * omep.cos() - u * epsilon.sin() - xa,
        rr * beta.sin() - d * beth.sin() - zf * omep.sin() + u * epsilon.cos() - ya,
    ],
    mass: [
        [m11, m12, 0.0, 0.0, 0.0, 0.0, 0.0],
        [m12, m2 * da.powi(2) + i2, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, m3 * (sa.powi(2) + sb.powi(2)) + i3, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, m4 * ee.powi(2) + i4, m45, 0.0, 0.0],
        [0.0, 0.0, 0.0, m45,
            m4 * (zt.powi(2) + 2.0 * zt * ee * phi.sin() + ee.powi(2))
                + m5 * (ta.powi(2) + tb.powi(2)) + i4 + i5,
            0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, m6 * zz.powi(2) + i6, m67],
        [0.0, 0.0, 0.0, 0.0, 0.0, m67,
            m6 * (zz.powi(2) - 2.0 * u * zz * omega.sin() + u.powi(2))
                + m7 * (ua.powi(2) + ub.powi(2)) + i6 + i7],
    ],
    force: [
        mom - m2 * da * rr * theta_dot * (theta_dot + 2.0 * beta_dot) * theta.sin(),
        m2 * da * rr * beta_dot.powi(2) * theta.sin(),
        fx * (sc * gamma.cos() - sd * gamma.sin()) + fy * (sd * gamma.cos() + sc * gamma.sin()),
        m4 * zt * ee * delta_dot.powi(2) * phi.cos(),
        -m4 * zt * ee * phi_dot * (phi_dot + 2.0 * delta_dot) * phi.cos(),
        -m6 * u * zz * epsilon_dot.powi(2) * omega.cos(),
        m6 * u * zz * omega_dot * (omega_dot + 2.0 * epsilon_dot) * omega.cos(),
    ],
    draw: {
        points: [
            O = (0.0, 0.0),
            P = (rr * beta.cos(), rr * beta.sin()),
            E = (rr * beta.cos() - d * beth.cos(), rr * beta.sin() - d * beth.sin()),
            B = (xb, yb),
            D = (xd, yd),
            C = (xc, yc),
            A = (xa, ya),
            F = (xa + zt * delta.cos(), ya + zt * delta.sin()),
            G = (xa + u * epsilon.sin(), ya - u * epsilon.cos()),
        ],
        segments: [(O, P), (P, E), (B, E), (B, D), (D, E), (D, C), (A, F), (F, E), (A, G), (G, E)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Andrews {
    /// Mass of body 1 [kg] (published 0.04325).
    pub m1: f64,
    /// Mass of body 2 [kg] (published 0.00365).
    pub m2: f64,
    /// Mass of body 3 [kg] (published 0.02373).
    pub m3: f64,
    /// Mass of body 4 [kg] (published 0.00706).
    pub m4: f64,
    /// Mass of body 5 [kg] (published 0.07050).
    pub m5: f64,
    /// Mass of body 6 [kg] (published 0.00706).
    pub m6: f64,
    /// Mass of body 7 [kg] (published 0.05498).
    pub m7: f64,
    /// Central moment of inertia of body 1 [kg m²] (published 2.194e-6).
    pub i1: f64,
    /// Central moment of inertia of body 2 [kg m²] (published 4.410e-7).
    pub i2: f64,
    /// Central moment of inertia of body 3 [kg m²] (published 5.255e-6).
    pub i3: f64,
    /// Central moment of inertia of body 4 [kg m²] (published 5.667e-7).
    pub i4: f64,
    /// Central moment of inertia of body 5 [kg m²] (published 1.169e-5).
    pub i5: f64,
    /// Central moment of inertia of body 6 [kg m²] (published 5.667e-7).
    pub i6: f64,
    /// Central moment of inertia of body 7 [kg m²] (published 1.912e-5).
    pub i7: f64,
    /// Driving motor torque at O [N m] (published 0.033).
    pub mom: f64,
    /// Spring stiffness [N/m] (published 4530).
    pub c0: f64,
    /// Spring free length [m] (published 0.07785).
    pub l0: f64,
}

// The published 30-digit values are kept verbatim (provenance); rounding happens at compile time.
#[allow(clippy::excessive_precision)]
impl Andrews {
    /// The published consistent initial coordinates (Hairer–Wanner; digest P6).
    pub const Q0: [f64; 7] = [
        -0.061_713_890_014_276_449_635_894_845_800_1,
        0.0,
        0.455_279_819_163_070_380_255_912_382_449,
        0.222_668_390_165_885_884_674_473_185_609,
        0.487_364_979_543_842_550_225_598_953_530,
        -0.222_668_390_165_885_884_674_473_185_609,
        1.230_547_444_549_821_192_497_350_155_68,
    ];
    /// The published accelerations at (Q0, 0).
    pub const VDOT0: [f64; 7] = [
        14_222.443_919_954_113_870_591_162_588_7,
        -10_666.832_939_965_585_402_943_371_941_5,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    /// The published multipliers at (Q0, 0), sign convention M q̈ + Gᵀλ = f.
    pub const LAMBDA0: [f64; 6] = [
        98.566_870_396_241_089_605_765_498_217_0,
        -6.122_688_344_255_662_655_031_143_931_22,
        0.0,
        0.0,
        0.0,
        0.0,
    ];

    /// The published parameters (Hairer–Wanner II §VII.7).
    pub fn published() -> Self {
        Self {
            m1: 0.04325,
            m2: 0.00365,
            m3: 0.02373,
            m4: 0.00706,
            m5: 0.07050,
            m6: 0.00706,
            m7: 0.05498,
            i1: 2.194e-6,
            i2: 4.410e-7,
            i3: 5.255e-6,
            i4: 5.667e-7,
            i5: 1.169e-5,
            i6: 5.667e-7,
            i7: 1.912e-5,
            mom: 0.033,
            c0: 4530.0,
            l0: 0.07785,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "andrews",
    title: "Andrews' squeezing mechanism, 7 bodies (n = 7, m = 6)",
    source: "[CHIN] §4.4.1 Tables 4.1-4.3 (digest P6); data Hairer-Wanner II §VII.7 [EXT]",
    build: || Box::new(Andrews::published()),
    initial: |_| (Andrews::Q0.to_vec(), vec![0.0; 7]),
    t_end: 0.3,
    dt_out: 5e-4,
    rtol: 1e-6,
    kernels: include_str!("generated/andrews.rs"),
};

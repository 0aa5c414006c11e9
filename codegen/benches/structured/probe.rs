//! The probe of `benches/structured.rs`: built with `cargo build --release` in a scratch crate
//! beside the generated n-link pendulum in bodies (`generated.rs`, the structured M and Q), it
//! checks the generated M and Q against the yardstick below at a random state and times both.
//!
//! The yardstick is a hand-written O(n²) composite-rigid-body recursion for the same chain
//! (uniform rods, relative angles, first rod pinned at the origin, gravity −g ŷ), in planar
//! spatial vectors at the fixed origin (Featherstone, *Rigid Body Dynamics Algorithms*, ch. 6
//! CRBA and ch. 5 RNEA with q̈ = 0): joint i's column s_i = (1, p_iy, −p_ix) at its pivot p_i;
//! composite inertias Ic_i = Ic_{i+1} + I_i; M_ij = s_iᵀ Ic_j s_j (i ≤ j); velocities
//! V_i = V_{i−1} + s_i q̇_i, bias accelerations A_i = A_{i−1} + (V_{i−1} ×ₘ s_i) q̇_i, body forces
//! f_i = I_i A_i + V_i ×* I_i V_i − F_gravity, composite forces backwards, Q_i = −s_i · fc_i.
//! Prints one JSON line: n, the largest relative differences, and ns per evaluation.

#![allow(clippy::needless_range_loop)] // index loops mirror the recursion's formulas

mod generated;

use mbsim::nalgebra::DMatrix;
use mbsim::runtime::{ConstrainedSystem, DynamicsOut};
use std::hint::black_box;
use std::time::Instant;

/// A planar spatial inertia at the origin: [[a, b, c], [b, m, 0], [c, 0, m]].
#[derive(Clone, Copy, Default)]
struct Inertia {
    a: f64,
    b: f64,
    c: f64,
    m: f64,
}

impl Inertia {
    fn rod(m: f64, j: f64, cx: f64, cy: f64) -> Inertia {
        Inertia {
            a: j + m * (cx * cx + cy * cy),
            b: -m * cy,
            c: m * cx,
            m,
        }
    }
    fn plus(self, o: Inertia) -> Inertia {
        Inertia {
            a: self.a + o.a,
            b: self.b + o.b,
            c: self.c + o.c,
            m: self.m + o.m,
        }
    }
    fn times(&self, s: [f64; 3]) -> [f64; 3] {
        [
            self.a * s[0] + self.b * s[1] + self.c * s[2],
            self.b * s[0] + self.m * s[1],
            self.c * s[0] + self.m * s[2],
        ]
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scale(a: [f64; 3], k: f64) -> [f64; 3] {
    [a[0] * k, a[1] * k, a[2] * k]
}

/// (ω, v) ×ₘ (ω', v') = (0, ω' v_y − ω v'_y, ω v'_x − ω' v_x).
fn cross_motion(v: [f64; 3], s: [f64; 3]) -> [f64; 3] {
    [0.0, s[0] * v[2] - v[0] * s[2], v[0] * s[1] - s[0] * v[1]]
}

/// (ω, v) ×* (n, f) = (v_x f_y − v_y f_x, −ω f_y, ω f_x).
fn cross_force(v: [f64; 3], f: [f64; 3]) -> [f64; 3] {
    [v[1] * f[2] - v[2] * f[1], -v[0] * f[2], v[0] * f[1]]
}

/// Scratch of the yardstick, allocated once.
struct Crba {
    s: Vec<[f64; 3]>,
    inertia: Vec<Inertia>,
    composite: Vec<Inertia>,
    force: Vec<[f64; 3]>,
}

impl Crba {
    fn new(n: usize) -> Crba {
        Crba {
            s: vec![[0.0; 3]; n],
            inertia: vec![Inertia::default(); n],
            composite: vec![Inertia::default(); n],
            force: vec![[0.0; 3]; n],
        }
    }

    /// M (row-major n × n) and Q of the chain.
    #[allow(clippy::too_many_arguments)]
    fn mass_force(
        &mut self,
        (m, l, g): (&[f64], &[f64], f64),
        q: &[f64],
        v: &[f64],
        mass: &mut [f64],
        force: &mut [f64],
    ) {
        let n = q.len();
        let (mut angle, mut px, mut py) = (0.0, 0.0, 0.0);
        let (mut vel, mut acc) = ([0.0; 3], [0.0; 3]);
        for i in 0..n {
            angle += q[i];
            let (sn, cs) = angle.sin_cos();
            let s = [1.0, py, -px];
            acc = add(acc, scale(cross_motion(vel, s), v[i]));
            vel = add(vel, scale(s, v[i]));
            let (cx, cy) = (px + 0.5 * l[i] * cs, py + 0.5 * l[i] * sn);
            let inertia = Inertia::rod(m[i], m[i] * l[i] * l[i] / 12.0, cx, cy);
            let h = inertia.times(vel);
            let gravity = [-m[i] * g * cx, 0.0, -m[i] * g];
            let f = add(inertia.times(acc), cross_force(vel, h));
            self.force[i] = [f[0] - gravity[0], f[1] - gravity[1], f[2] - gravity[2]];
            self.s[i] = s;
            self.inertia[i] = inertia;
            (px, py) = (px + l[i] * cs, py + l[i] * sn);
        }
        let (mut composite, mut fc) = (Inertia::default(), [0.0; 3]);
        for j in (0..n).rev() {
            composite = composite.plus(self.inertia[j]);
            self.composite[j] = composite;
            fc = add(fc, self.force[j]);
            force[j] = -dot(self.s[j], fc);
        }
        for j in 0..n {
            let w = self.composite[j].times(self.s[j]);
            for i in 0..=j {
                let e = dot(self.s[i], w);
                mass[i * n + j] = e;
                mass[j * n + i] = e;
            }
        }
    }
}

/// A small deterministic generator (SplitMix64) for the state and parameters.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Best time per call of `a` and of `b`, in ns, over `rounds` interleaved rounds of `calls`
/// calls each: a burst of load from the rest of the machine hits both sides alike, and many
/// short rounds give a stable minimum where a few long ones do not (on this shared machine, 7
/// rounds of 2000 calls gave ratios from 1.6 to 3.2 for the same binary).
fn best_ns_interleaved(
    rounds: usize,
    calls: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (f64, f64) {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..calls {
            f();
        }
        start.elapsed().as_secs_f64() * 1e9 / calls as f64
    };
    (0..rounds).fold((f64::INFINITY, f64::INFINITY), |(best_a, best_b), _| {
        (best_a.min(time(&mut a)), best_b.min(time(&mut b)))
    })
}

fn main() {
    let mut model = generated::Model::from_parameters([1.0; generated::PARAMETERS]);
    let n = model.dims().n;
    let mut rng = Rng(20261124);
    let m: Vec<f64> = (0..n).map(|_| rng.uniform(0.5, 2.0)).collect();
    let l: Vec<f64> = (0..n).map(|_| rng.uniform(0.5, 2.0)).collect();
    let g = 9.81;
    for i in 0..n {
        model.set_parameter(&format!("m{}", i + 1), m[i]).expect("m_i");
        model.set_parameter(&format!("l{}", i + 1), l[i]).expect("l_i");
    }
    model.set_parameter("g", g).expect("g");
    let q: Vec<f64> = (0..n).map(|_| rng.uniform(-0.5, 0.5)).collect();
    let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let (mut mass, mut force) = (DMatrix::<f64>::zeros(n, n), vec![0.0; n]);
    let (mut jacobian, mut gamma) = (DMatrix::<f64>::zeros(0, n), Vec::<f64>::new());
    let mut generated = |mass: &mut DMatrix<f64>, force: &mut [f64]| {
        model.dynamics_into(
            0.0,
            black_box(&q),
            black_box(&v),
            DynamicsOut {
                mass: mass.as_view_mut(),
                force,
                jacobian: jacobian.as_view_mut(),
                gamma: &mut gamma,
            },
        );
    };
    generated(&mut mass, &mut force);
    let mut crba = Crba::new(n);
    let (mut mass_y, mut force_y) = (vec![0.0; n * n], vec![0.0; n]);
    crba.mass_force((&m, &l, g), &q, &v, &mut mass_y, &mut force_y);
    let relative = |got: &[f64], want: &[f64]| {
        let scale = want.iter().fold(1.0_f64, |s, x| s.max(x.abs()));
        got.iter()
            .zip(want)
            .map(|(a, b)| (a - b).abs() / scale)
            .fold(0.0, f64::max)
    };
    let mass_rowmajor: Vec<f64> = mass.transpose().as_slice().to_vec();
    let (dm, dq) = (relative(&mass_rowmajor, &mass_y), relative(&force, &force_y));
    let (generated_ns, crba_ns) = best_ns_interleaved(
        100,
        300,
        || generated(&mut mass, &mut force),
        || {
            crba.mass_force(
                (black_box(&m), &l, g),
                black_box(&q),
                &v,
                &mut mass_y,
                &mut force_y,
            )
        },
    );
    println!(
        "{{\"n\": {n}, \"mass_rel_diff\": {dm:e}, \"force_rel_diff\": {dq:e}, \"generated_ns\": {generated_ns:.1}, \"crba_ns\": {crba_ns:.1}}}"
    );
}

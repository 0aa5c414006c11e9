//! Spatial bodies placed by expressions of the coordinates (`body(m, J′, position, rotation)`),
//! through their compiled kernels:
//! - the six-joint serial arm's M(q) and bias forces against a recursive Newton–Euler
//!   inverse dynamics written here in f64 (world-frame vectors, joint axes and arms from the
//!   arm's description, not from the model's expressions): M's column j is τ(q, 0, e_j)
//!   without gravity, and −Q is τ(q, v, 0) with gravity, at random states;
//! - the arm's energy over a free swing under gravity;
//! - the heavy top placed by its Euler angles, `rot_z(ψ) * rot_x(θ) * rot_z(φ)`, against the
//!   same top in Euler parameters (`HeavyTop`) on a trajectory (and their energies);
//! - the 3D double pendulum placed by each rod's y-x-z angles (a two-body tree, the second rod
//!   hanging from the first by `point`) against `SpatialDoublePendulum` on a trajectory.
//!
//! The measured figures are printed (`cargo test -p mbsim-models serial_arm -- --nocapture`).

use mbsim::model;
use mbsim::spatial::{Axis, euler_angles, rotation_matrix};
use mbsim_models::{HeavyTop, SerialArm, SpatialDoublePendulum};
use mbsim_runtime::{
    ConstrainedSystem, InitOptions, Problem, Recorder, Rkstab, initialize, integrate,
};
use mbsim_testkit::{Rng, assert_entry};

type V = [f64; 3];
type M = [[f64; 3]; 3];

fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(s: f64, a: V) -> V {
    a.map(|x| s * x)
}

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn mat_vec(m: &M, x: V) -> V {
    [dot(m[0], x), dot(m[1], x), dot(m[2], x)]
}

fn mat_mul(a: &M, b: &M) -> M {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..3).map(|k| a[r][k] * b[k][c]).sum()))
}

/// The rotation by `angle` about the coordinate axis `axis`.
fn elementary(axis: usize, angle: f64) -> M {
    let (c, s) = (angle.cos(), angle.sin());
    let mut m = [[0.0; 3]; 3];
    m[axis][axis] = 1.0;
    let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
    m[i][i] = c;
    m[j][j] = c;
    m[i][j] = -s;
    m[j][i] = s;
    m
}

fn unit(axis: usize) -> V {
    let mut u = [0.0; 3];
    u[axis] = 1.0;
    u
}

/// One link of the arm as the inverse dynamics sees it: joint axis (in the parent's frame, which
/// is also the link's own axis), joint point in the parent's frame (from the parent's centre of
/// mass), centre of mass in the link's frame (from the joint), mass, inertia J′.
struct Link {
    axis: usize,
    joint: V,
    com: V,
    mass: f64,
    inertia: M,
}

/// The arm of `SerialArm`'s description (see its module doc), built from its parameters.
fn links(arm: &SerialArm) -> Vec<Link> {
    let l = arm.l;
    let axes = [2, 1, 1, 0, 1, 0];
    let joints = [
        [0.0, 0.0, 0.0],
        [0.0, arm.e, l[0] / 2.0],
        [l[1] / 2.0, 0.0, 0.0],
        [l[2] / 2.0, 0.0, 0.0],
        [l[3] / 2.0, 0.0, 0.0],
        [l[4] / 2.0, 0.0, 0.0],
    ];
    (0..6)
        .map(|k| {
            let mut inertia = [[0.0; 3]; 3];
            inertia[0][0] = arm.jx[k];
            inertia[1][1] = arm.jy[k];
            inertia[2][2] = arm.jz[k];
            if k == 2 {
                inertia[0][1] = arm.pxy;
                inertia[1][0] = arm.pxy;
            }
            let com = match k {
                0 => [0.0, 0.0, l[0] / 2.0],
                5 => [l[5] / 2.0, arm.d, 0.0],
                _ => [l[k] / 2.0, 0.0, 0.0],
            };
            Link {
                axis: axes[k],
                joint: joints[k],
                com,
                mass: arm.m[k],
                inertia,
            }
        })
        .collect()
}

/// Recursive Newton–Euler: the joint torques τ(q, q̇, q̈) with gravity g along −z (the base
/// accelerated upwards by g, Luh–Walker–Paul's trick), world-frame vectors throughout.
fn inverse_dynamics(links: &[Link], q: &[f64], qd: &[f64], qdd: &[f64], g: f64) -> Vec<f64> {
    let n = links.len();
    let identity = elementary(0, 0.0);
    let (mut rot, mut omega, mut alpha) = (identity, [0.0; 3], [0.0; 3]);
    // The parent's centre of mass and its acceleration (the ground: origin, accelerating up).
    let (mut parent_com, mut parent_acc) = ([0.0; 3], [0.0, 0.0, g]);
    let mut kin = Vec::with_capacity(n);
    for (k, link) in links.iter().enumerate() {
        let joint = add(parent_com, mat_vec(&rot, link.joint));
        // The joint point moves with the parent: a_J = a_P + α × (J − P) + ω × (ω × (J − P)).
        let arm = sub(joint, parent_com);
        let acc_joint = add(
            parent_acc,
            add(cross(alpha, arm), cross(omega, cross(omega, arm))),
        );
        rot = mat_mul(&rot, &elementary(link.axis, q[k]));
        let u = mat_vec(&rot, unit(link.axis));
        let omega_new = add(omega, scale(qd[k], u));
        alpha = add(alpha, add(scale(qdd[k], u), scale(qd[k], cross(omega, u))));
        omega = omega_new;
        let com = add(joint, mat_vec(&rot, link.com));
        let c = sub(com, joint);
        let acc_com = add(
            acc_joint,
            add(cross(alpha, c), cross(omega, cross(omega, c))),
        );
        let inertia_world = {
            let rj = mat_mul(&rot, &link.inertia);
            let rt: M = std::array::from_fn(|r| std::array::from_fn(|c| rot[c][r]));
            mat_mul(&rj, &rt)
        };
        let force = scale(link.mass, acc_com);
        let moment = add(
            mat_vec(&inertia_world, alpha),
            cross(omega, mat_vec(&inertia_world, omega)),
        );
        kin.push((u, joint, com, force, moment));
        (parent_com, parent_acc) = (com, acc_com);
    }
    // Backward: the force and moment (about the joint) the joint passes to its link.
    let mut tau = vec![0.0; n];
    let (mut f_next, mut n_next, mut joint_next) = ([0.0; 3], [0.0; 3], [0.0; 3]);
    for k in (0..n).rev() {
        let (u, joint, com, force, moment) = kin[k];
        let f = add(force, f_next);
        let mut n_k = add(moment, cross(sub(com, joint), force));
        if k + 1 < n {
            n_k = add(n_k, add(n_next, cross(sub(joint_next, joint), f_next)));
        }
        tau[k] = dot(u, n_k);
        (f_next, n_next, joint_next) = (f, n_k, joint);
    }
    tau
}

/// M(q) and Q(q, v) of a compiled model.
fn mass_and_force(sys: &dyn ConstrainedSystem, q: &[f64], v: &[f64]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let n = q.len();
    let mut m = nalgebra::DMatrix::zeros(n, n);
    sys.mass_into(0.0, q, m.as_view_mut());
    let mut f = vec![0.0; n];
    sys.force_into(0.0, q, v, &mut f);
    let rows = (0..n)
        .map(|i| (0..n).map(|j| m[(i, j)]).collect())
        .collect();
    (rows, f)
}

#[test]
fn serial_arm_matches_recursive_newton_euler() {
    let arm = SerialArm::chosen();
    let chain = links(&arm);
    let mut rng = Rng::new(2023);
    let (mut worst_m, mut worst_q) = (0.0_f64, 0.0_f64);
    for _ in 0..20 {
        let q = rng.vec(6, -std::f64::consts::PI, std::f64::consts::PI);
        let v = rng.vec(6, -3.0, 3.0);
        let (m, f) = mass_and_force(&arm, &q, &v);
        for j in 0..6 {
            let mut e = vec![0.0; 6];
            e[j] = 1.0;
            let column = inverse_dynamics(&chain, &q, &[0.0; 6], &e, 0.0);
            for i in 0..6 {
                worst_m = worst_m.max((m[i][j] - column[i]).abs());
                assert_entry("M", i * 6 + j, m[i][j], column[i], 1e-13);
            }
        }
        let bias = inverse_dynamics(&chain, &q, &v, &[0.0; 6], arm.g);
        for i in 0..6 {
            worst_q = worst_q.max((f[i] + bias[i]).abs());
            // Bias forces O(10) N m (gravity on 11 kg at 0.5 m, centripetal terms at 3 rad/s):
            // sums of ~10² terms of that size round to a few 1e-14.
            assert_entry("Q", i, f[i], -bias[i], 1e-12 * (1.0 + bias[i].abs()));
        }
    }
    eprintln!(
        "serial arm vs recursive Newton–Euler at 20 random states: max |ΔM| {worst_m:.2e}, max |ΔQ| {worst_q:.2e}"
    );
}

fn energy(sys: &dyn ConstrainedSystem, q: &[f64], v: &[f64]) -> f64 {
    let e = sys
        .as_energy()
        .expect("gravity only: the model states its energy");
    let (mut t, mut u) = ([0.0], [0.0]);
    e.kinetic_energy_into(0.0, q, v, &mut t);
    e.potential_energy_into(0.0, q, &mut u);
    t[0] + u[0]
}

fn run(sys: &dyn ConstrainedSystem, q0: &[f64], v0: &[f64], t_end: f64, rtol: f64) -> Recorder {
    let init = initialize(sys, 0.0, q0, v0, &InitOptions::default()).expect("consistent start");
    let problem = Problem::new(0.0, t_end, &init.q, &init.v).with_uniform_output(0.01);
    let method = Rkstab::new(rtol).with_atol(rtol);
    integrate(sys, &method, &problem).expect("the run").0
}

#[test]
fn serial_arm_conserves_energy() {
    let arm = SerialArm::chosen();
    let (q0, v0) = SerialArm::initial(&arm);
    let rec = run(&arm, &q0, &v0, 3.0, 1e-10);
    let e0 = energy(&arm, &rec.q[0], &rec.v[0]);
    let de = rec
        .q
        .iter()
        .zip(&rec.v)
        .map(|(q, v)| (energy(&arm, q, v) - e0).abs())
        .fold(0.0, f64::max);
    eprintln!("serial arm, free swing 3 s at rtol 1e-10: E = {e0:.6} J, max |ΔE| {de:.2e}");
    // E O(10) J; RKSTAB's global error at rtol 1e-10 over 3 s is ~1e-9 relative.
    assert_entry("energy", "max drift", de, 0.0, 1e-6);
}

/// The heavy top placed by its z-x-z Euler angles (body to world), tip at the origin.
#[model(
    coordinates: [psi, theta, phi],
    bodies: [top = body(m, [ja, ja, jc],
        rot_z(psi) * rot_x(theta) * rot_z(phi) * [0.0, 0.0, h],
        rot_z(psi) * rot_x(theta) * rot_z(phi))],
    loads: [gravity([0.0, 0.0, -g])],
)]
struct PlacedTop {
    m: f64,
    ja: f64,
    jc: f64,
    h: f64,
    g: f64,
}

#[test]
fn heavy_top_placed_agrees_with_euler_parameters() {
    let top = HeavyTop::chosen();
    let placed = PlacedTop {
        m: top.m,
        ja: top.ja,
        jc: top.jc,
        h: top.h,
        g: top.g,
    };
    let (angles, rates) = ([0.3, 0.9, -0.4], [1.5, -0.7, 12.0]);
    let (q0, v0) = top.state(angles, rates);
    let full = run(&top, &q0, &v0, 2.0, 1e-11);
    let reduced = run(&placed, &angles, &rates, 2.0, 1e-11);
    let mut worst: f64 = 0.0;
    for (qf, qr) in full.q.iter().zip(&reduced.q) {
        let a = rotation_matrix([qf[3], qf[4], qf[5], qf[6]]);
        let b = rotation_matrix(euler_angles(
            [Axis::Z, Axis::X, Axis::Z],
            [qr[0], qr[1], qr[2]],
        ));
        for (ra, rb) in a.iter().zip(&b) {
            for (x, y) in ra.iter().zip(rb) {
                worst = worst.max((x - y).abs());
            }
        }
    }
    let (e_full, e_placed) = (energy(&top, &q0, &v0), energy(&placed, &angles, &rates));
    eprintln!(
        "heavy top placed by Euler angles vs Euler parameters over 2 s: max |ΔA| {worst:.2e}; E {e_full:.12} vs {e_placed:.12}"
    );
    assert_entry("energy", 0, e_placed, e_full, 1e-12 * e_full.abs());
    // Both runs at rtol 1e-11 over 2 s with a 12 rad/s spin: each errs by ~1e-9 in the
    // rotation's entries (as the Euler-angle comparison of `spatial.rs`).
    assert_entry("rotation", "max", worst, 0.0, 1e-7);
}

/// The 3D double pendulum placed by each rod's absolute y-x-z angles (body to world
/// Ry(a) Rx(b) Rz(c), the rod along its z axis): a two-body tree whose second body hangs from
/// the first by `point`.
#[model(
    let j1 = m1 * (3.0 * radius.powi(2) + l1.powi(2)) / 12.0,
    let j2 = m2 * (3.0 * radius.powi(2) + l2.powi(2)) / 12.0,
    coordinates: [a1, b1, c1, a2, b2, c2],
    bodies: [
        rod1 = body(m1, [j1, j1, m1 * radius.powi(2) / 2.0],
            rot_y(a1) * rot_x(b1) * rot_z(c1) * [0.0, 0.0, -l1 / 2.0],
            rot_y(a1) * rot_x(b1) * rot_z(c1)),
        rod2 = body(m2, [j2, j2, m2 * radius.powi(2) / 2.0],
            point(rod1, [0.0, 0.0, -l1 / 2.0]) + rot_y(a2) * rot_x(b2) * rot_z(c2) * [0.0, 0.0, -l2 / 2.0],
            rot_y(a2) * rot_x(b2) * rot_z(c2)),
    ],
    loads: [gravity([0.0, 0.0, -g])],
)]
struct PlacedDoublePendulum {
    m1: f64,
    m2: f64,
    l1: f64,
    l2: f64,
    radius: f64,
    g: f64,
}

/// Ry(a) Rx(b) Rz(c).
fn yxz(angles: &[f64]) -> M {
    let ab = mat_mul(&elementary(1, angles[0]), &elementary(0, angles[1]));
    mat_mul(&ab, &elementary(2, angles[2]))
}

/// The angle rates of y-x-z angles turning at the world angular velocity ω: the columns of
/// ω = ȧ e_y + ḃ Ry(a) e_x + ċ Ry(a) Rx(b) e_z, solved.
fn yxz_rates(angles: [f64; 3], omega: V) -> [f64; 3] {
    let ry = elementary(1, angles[0]);
    let ryx = mat_mul(&ry, &elementary(0, angles[1]));
    let columns = [unit(1), mat_vec(&ry, unit(0)), mat_vec(&ryx, unit(2))];
    let m = nalgebra::Matrix3::from_fn(|r, c| columns[c][r]);
    let x = m
        .lu()
        .solve(&nalgebra::Vector3::from(omega))
        .expect("away from gimbal lock");
    [x[0], x[1], x[2]]
}

#[test]
fn double_pendulum_placed_agrees_with_euler_parameters() {
    let full = SpatialDoublePendulum::chosen();
    let placed = PlacedDoublePendulum {
        m1: full.m1,
        m2: full.m2,
        l1: full.l1,
        l2: full.l2,
        radius: full.radius,
        g: full.g,
    };
    // The chosen release of `SpatialDoublePendulum::initial`: rod 1 turned 0.6 rad about x,
    // rod 2 1.2 rad about y; ω₁ = (0, 0, 1.5), ω₂ = (1, 0, 2) rad/s.
    let (angles1, angles2) = ([0.0, 0.6, 0.0], [1.2, 0.0, 0.0]);
    let (w1, w2) = (
        yxz_rates(angles1, [0.0, 0.0, 1.5]),
        yxz_rates(angles2, [1.0, 0.0, 2.0]),
    );
    let q0 = [angles1, angles2].concat();
    let v0 = [w1, w2].concat();
    let (qf0, vf0) = SpatialDoublePendulum::initial(&full);
    let t_end = 2.0;
    let reference = run(&full, &qf0, &vf0, t_end, 1e-11);
    let tree = run(&placed, &q0, &v0, t_end, 1e-11);
    let mut worst: f64 = 0.0;
    for (qf, qp) in reference.q.iter().zip(&tree.q) {
        let (r1, r2) = ([qf[0], qf[1], qf[2]], [qf[7], qf[8], qf[9]]);
        let (ra, rb) = (yxz(&qp[0..3]), yxz(&qp[3..6]));
        let p1 = mat_vec(&ra, [0.0, 0.0, -full.l1 / 2.0]);
        let elbow = mat_vec(&ra, [0.0, 0.0, -full.l1]);
        let p2 = add(elbow, mat_vec(&rb, [0.0, 0.0, -full.l2 / 2.0]));
        for (x, y) in r1.iter().chain(&r2).zip(p1.iter().chain(&p2)) {
            worst = worst.max((x - y).abs());
        }
    }
    let (e_full, e_placed) = (energy(&full, &qf0, &vf0), energy(&placed, &q0, &v0));
    eprintln!(
        "3D double pendulum placed by y-x-z angles vs Euler parameters over {t_end} s: max |Δr| {worst:.2e} m; E {e_full:.12} vs {e_placed:.12}"
    );
    assert_entry("energy", 0, e_placed, e_full, 1e-12 * e_full.abs());
    // Both runs at rtol 1e-11 over 2 s (~10³ steps): each errs by ~1e-10 m (measured
    // together 7e-12 m); 1e-8 m leaves room for the swing's divergence on other platforms.
    assert_entry("centres of mass", "max", worst, 0.0, 1e-8);
}

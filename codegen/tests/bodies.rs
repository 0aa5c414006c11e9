//! Structured body dynamics (`mbsim_codegen::bodies`) against the Lagrangian derivation of the
//! same bodies (`lagrange::derive` on T = Σ ½ m |ċ|² + ½ J φ̇² with the loads as Q_nc = Σ J_bᵀ
//! (f, τ)), evaluated by the interpreter at seeded random points: the serial n-link pendulum,
//! a branched tree on a rheonomic base with velocity-dependent loads, and bodies in absolute
//! coordinates (no shared columns). Then the cost: the structured form's operation count grows
//! like n² on the chain, and a velocity in a placement is an error value.

use mbsim_codegen::bodies::{self, Bodies, BodyError, RigidBody};
use mbsim_codegen::cse::Schedule;
use mbsim_codegen::lagrange::{self, EquationsOfMotion, Lagrangian};
use mbsim_codegen::{Env, ExprId, Func, ModelBuilder, Pool, fixtures, kernels};
use mbsim_testkit::{Rng, compare};

mod common;

/// Both derivations of the same bodies, evaluated at `points` random states; M and Q agree to
/// 1e-12 of their largest entry (two exact rearrangements of the same sums, evaluated in f64:
/// the difference is rounding, a few ulps of the terms' magnitude).
fn check_against_lagrange(
    pool: &mut Pool,
    time: ExprId,
    q: &[ExprId],
    v: &[ExprId],
    bodies: &[RigidBody],
    points: usize,
) {
    let zero = pool.zero();
    let extra = vec![zero; q.len()];
    let system = Bodies {
        time,
        q,
        v,
        bodies,
        extra: &extra,
    };
    let structured = bodies::derive(pool, &system).expect("placements free of velocities");
    let (kinetic, nonconservative) = lagrangian_of(pool, time, q, v, bodies);
    let lagrangian = Lagrangian {
        time,
        q,
        v,
        kinetic,
        potential: zero,
        nonconservative: &nonconservative,
    };
    let reference = lagrange::derive(pool, &lagrangian).expect("a mechanical Lagrangian");
    let mut rng = Rng::new(20261124);
    for point in 0..points {
        let mut env = Env::new();
        for s in 0..pool.symbols().len() {
            env.set_sym(
                mbsim_codegen::SymId(s as u32),
                rng.uniform(-1.2, 1.2) + 2.0 * (s % 2) as f64,
            );
        }
        let eval = |pool: &Pool, eom: &EquationsOfMotion| {
            let mass: Vec<ExprId> = eom.mass.iter().flatten().copied().collect();
            (
                pool.eval_many(&mass, &env),
                pool.eval_many(&eom.force, &env),
            )
        };
        let (m_got, q_got) = eval(pool, &structured.eom);
        let (m_want, q_want) = eval(pool, &reference);
        compare(&format!("M at point {point}"), &m_got, &m_want, 1e-12);
        compare(&format!("Q at point {point}"), &q_got, &q_want, 1e-12);
        let t_got = pool.eval(structured.kinetic, &env);
        let t_want = pool.eval(kinetic, &env);
        compare(&format!("T at point {point}"), &[t_got], &[t_want], 1e-12);
    }
}

/// T = Σ ½ m (ẋ² + ẏ²) + ½ J φ̇² and Q_nc,j = Σ_b f_x ∂x/∂q_j + f_y ∂y/∂q_j + τ ∂φ/∂q_j.
fn lagrangian_of(
    pool: &mut Pool,
    time: ExprId,
    q: &[ExprId],
    v: &[ExprId],
    bodies: &[RigidBody],
) -> (ExprId, Vec<ExprId>) {
    let one = pool.one();
    let mut rates: Vec<(ExprId, ExprId)> = q.iter().copied().zip(v.iter().copied()).collect();
    rates.push((time, one));
    let total = pool.direction(&rates);
    let half = pool.rational(1, 2);
    let mut kinetic = Vec::new();
    let mut generalized: Vec<Vec<ExprId>> = vec![Vec::new(); q.len()];
    for b in bodies {
        let rates = b.placement.map(|e| pool.directional(e, total));
        let squares = rates.map(|r| pool.powi(r, 2));
        let speed2 = pool.add2(squares[0], squares[1]);
        kinetic.push(pool.mul(&[half, b.mass, speed2]));
        kinetic.push(pool.mul(&[half, b.inertia, squares[2]]));
        for (j, &qj) in q.iter().enumerate() {
            for k in 0..3 {
                let d = pool.diff(b.placement[k], qj);
                generalized[j].push(pool.mul2(b.load[k], d));
            }
        }
    }
    let kinetic = pool.add(&kinetic);
    let forces = generalized.iter().map(|f| pool.add(f)).collect();
    (kinetic, forces)
}

#[test]
fn n_link_pendulum_matches_lagrange() {
    for n in 1..=6 {
        let mut b = ModelBuilder::new("Chain");
        let (q, v): (Vec<ExprId>, Vec<ExprId>) =
            (1..=n).map(|i| b.coordinate(&format!("q{i}"))).unzip();
        let m: Vec<ExprId> = (1..=n).map(|i| b.parameter(&format!("m{i}"))).collect();
        let l: Vec<ExprId> = (1..=n).map(|i| b.parameter(&format!("l{i}"))).collect();
        let g = b.parameter("g");
        let time = b.time();
        let pool = b.pool();
        let (half, twelfth, zero) = (pool.rational(1, 2), pool.rational(1, 12), pool.zero());
        let (mut angle, mut jx, mut jy) = (zero, zero, zero);
        let mut bodies = Vec::new();
        for i in 0..n {
            angle = pool.add2(angle, q[i]);
            let (c, s) = (pool.func(Func::Cos, angle), pool.func(Func::Sin, angle));
            let half_l = pool.mul2(half, l[i]);
            let (hx, hy) = (pool.mul2(half_l, c), pool.mul2(half_l, s));
            let placement = [pool.add2(jx, hx), pool.add2(jy, hy), angle];
            let (lx, ly) = (pool.mul2(l[i], c), pool.mul2(l[i], s));
            (jx, jy) = (pool.add2(jx, lx), pool.add2(jy, ly));
            let l2 = pool.powi(l[i], 2);
            let weight = pool.mul2(m[i], g);
            bodies.push(RigidBody {
                name: format!("rod{i}"),
                mass: m[i],
                inertia: pool.mul(&[twelfth, m[i], l2]),
                placement,
                load: [zero, pool.neg(weight), zero],
            });
        }
        check_against_lagrange(pool, time, &q, &v, &bodies, 5);
    }
}

/// A base sliding as x0(t) = A sin(w t) carries a rod (angle a); two rods hang from the rod's
/// tip (angles b, c relative to it): a tree, rheonomic, with a damping torque −d ḃ on one
/// branch and a velocity-dependent horizontal drag −k ẋ on the other's centre.
#[test]
fn branched_rheonomic_tree_matches_lagrange() {
    let mut b = ModelBuilder::new("Tree");
    let (q, v): (Vec<ExprId>, Vec<ExprId>) =
        ["a", "b", "c"].iter().map(|s| b.coordinate(s)).unzip();
    let p: Vec<ExprId> = [
        "m1", "m2", "m3", "j1", "j2", "j3", "l", "amp", "w", "d", "k",
    ]
    .iter()
    .map(|s| b.parameter(s))
    .collect();
    let [m1, m2, m3, j1, j2, j3, l, amp, w] =
        [p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]];
    let (d, k) = (p[9], p[10]);
    let time = b.time();
    let pool = b.pool();
    let (half, zero) = (pool.rational(1, 2), pool.zero());
    let wt = pool.mul2(w, time);
    let sin_wt = pool.func(Func::Sin, wt);
    let base = pool.mul2(amp, sin_wt);
    let on = |pool: &mut Pool, x0: ExprId, y0: ExprId, angle: ExprId, len: ExprId| {
        let (c, s) = (pool.func(Func::Cos, angle), pool.func(Func::Sin, angle));
        let (dx, dy) = (pool.mul2(len, c), pool.mul2(len, s));
        [pool.add2(x0, dx), pool.add2(y0, dy)]
    };
    let half_l = pool.mul2(half, l);
    let c1 = on(pool, base, zero, q[0], half_l);
    let tip = on(pool, base, zero, q[0], l);
    let a2 = pool.add2(q[0], q[1]);
    let a3 = pool.add2(q[0], q[2]);
    let c2 = on(pool, tip[0], tip[1], a2, half_l);
    let c3 = on(pool, tip[0], tip[1], a3, half_l);
    let damping = pool.mul2(d, v[1]);
    let c3x_rate = {
        let mut rates: Vec<(ExprId, ExprId)> = q.iter().copied().zip(v.iter().copied()).collect();
        let one = pool.one();
        rates.push((time, one));
        let total = pool.direction(&rates);
        pool.directional(c3[0], total)
    };
    let drag = pool.mul2(k, c3x_rate);
    let bodies = vec![
        RigidBody {
            name: "arm".into(),
            mass: m1,
            inertia: j1,
            placement: [c1[0], c1[1], q[0]],
            load: [zero, zero, zero],
        },
        RigidBody {
            name: "left".into(),
            mass: m2,
            inertia: j2,
            placement: [c2[0], c2[1], a2],
            load: [zero, zero, pool.neg(damping)],
        },
        RigidBody {
            name: "right".into(),
            mass: m3,
            inertia: j3,
            placement: [c3[0], c3[1], a3],
            load: [pool.neg(drag), zero, zero],
        },
    ];
    check_against_lagrange(pool, time, &q, &v, &bodies, 8);
}

/// Two free bodies in absolute coordinates (x, y, φ each): every column is a unit column of its
/// own body, so M is diag(m, m, J) per body.
#[test]
fn absolute_coordinates_give_block_diagonal_mass() {
    let mut b = ModelBuilder::new("Free");
    let (q, v): (Vec<ExprId>, Vec<ExprId>) = ["x1", "y1", "p1", "x2", "y2", "p2"]
        .iter()
        .map(|s| b.coordinate(s))
        .unzip();
    let (m, j, g) = (b.parameter("m"), b.parameter("j"), b.parameter("g"));
    let time = b.time();
    let pool = b.pool();
    let zero = pool.zero();
    let weight = pool.mul2(m, g);
    let down = pool.neg(weight);
    let bodies: Vec<RigidBody> = (0..2)
        .map(|i| RigidBody {
            name: format!("b{i}"),
            mass: m,
            inertia: j,
            placement: [q[3 * i], q[3 * i + 1], q[3 * i + 2]],
            load: [zero, down, zero],
        })
        .collect();
    check_against_lagrange(pool, time, &q, &v, &bodies, 3);
}

/// The schedule of M and Q together (as the emitter plans it): on the serial chain the
/// structured form costs O(n²) (doubling n multiplies the operation count by about 4; the bound
/// 4.6 leaves room for the O(n) terms at these sizes), and it is below the Hessian form at
/// every n ≥ 10; at n = 40 it is also within 1.5× of the hand-written recursion's count
/// (n(n+1)/2 entries × 5 operations for M, ~60 per body for the positions, composites and Q).
#[test]
fn structured_cost_grows_quadratically() {
    let ops = |model: &mut mbsim_codegen::Model| {
        let k = kernels::derive(model);
        let mut roots: Vec<ExprId> = k.mass.entries.clone();
        roots.extend(&k.force);
        let schedule = match model.structured {
            true => Schedule::with_pool_subsums(&model.pool, &roots),
            false => Schedule::new(&model.pool, &roots),
        };
        schedule.op_count(&model.pool)
    };
    let mut counts = Vec::new();
    for n in [10, 20, 40] {
        let structured = ops(&mut fixtures::n_link_pendulum_bodies(n));
        let hessian = ops(&mut fixtures::n_link_pendulum(n));
        assert!(
            structured < hessian,
            "n = {n}: structured {structured} ops, Hessian form {hessian}"
        );
        counts.push(structured as f64);
    }
    for w in counts.windows(2) {
        let ratio = w[1] / w[0];
        assert!(
            ratio < 4.6,
            "ops grew by {ratio:.2} when n doubled ({counts:?})"
        );
    }
}

#[test]
fn velocity_in_placement_is_an_error() {
    let mut b = ModelBuilder::new("Bad");
    let (x, xd) = b.coordinate("x");
    let m = b.parameter("m");
    let time = b.time();
    let pool = b.pool();
    let zero = pool.zero();
    let bodies = [RigidBody {
        name: "cart".into(),
        mass: m,
        inertia: m,
        placement: [x, xd, zero],
        load: [zero; 3],
    }];
    let err = bodies::derive(
        pool,
        &Bodies {
            time,
            q: &[x],
            v: &[xd],
            bodies: &bodies,
            extra: &[zero],
        },
    )
    .unwrap_err();
    assert_eq!(
        err,
        BodyError::VelocityInPlacement {
            body: "cart".into(),
            velocity: "x_dot".into()
        }
    );
}

/// The structured M and Q of the n-link pendulum fixture against SymPy's first-principles
/// Lagrange equations (`tests/oracle/nlink.py`, 50 digits, rounded once) for n = 2 and 4 at
/// two seeded states each: 1e-12 of the largest entry (our f64 evaluation errs by a few ulps of the
/// largest term; the terms are O(10²) here). The oracle is not optional: a missing `.venv`
/// fails the test with the command that installs it.
#[test]
fn n_link_pendulum_matches_sympy() {
    for n in [2, 4] {
        let model = fixtures::n_link_pendulum_bodies(n);
        let mut rng = Rng::new(300 + n as u64);
        let params: Vec<f64> = (0..model.parameters.len())
            .map(|_| rng.uniform(0.5, 2.0))
            .collect();
        let states: Vec<(Vec<f64>, Vec<f64>)> = (0..3)
            .map(|_| (rng.vec(n, -1.5, 1.5), rng.vec(n, -1.0, 1.0)))
            .collect();
        let named: serde_json::Map<String, serde_json::Value> = model
            .parameters
            .iter()
            .zip(&params)
            .map(|(p, &x)| (p.name.clone(), serde_json::json!(x)))
            .collect();
        let points: Vec<serde_json::Value> = states
            .iter()
            .map(|(q, v)| serde_json::json!({"q": q, "v": v}))
            .collect();
        let input = serde_json::json!({"n": n, "params": named, "points": points});
        let reference = common::run_python_oracle("nlink.py", &input, &format!("nlink{n}"));
        let mass: Vec<ExprId> = model.mass.clone();
        for (k, ((q, v), want)) in states
            .iter()
            .zip(reference["points"].as_array().expect("points"))
            .enumerate()
        {
            let mut env = Env::new();
            for (c, (&qi, &vi)) in model.coordinates.iter().zip(q.iter().zip(v)) {
                env.set(&model.pool, c.q, qi);
                env.set(&model.pool, c.v, vi);
            }
            for (p, &x) in model.parameters.iter().zip(&params) {
                env.set(&model.pool, p.sym, x);
            }
            let floats = |x: &serde_json::Value| -> Vec<f64> {
                x.as_array()
                    .expect("array")
                    .iter()
                    .flat_map(|e| match e.as_array() {
                        Some(row) => row.iter().map(|y| y.as_f64().expect("number")).collect(),
                        None => vec![e.as_f64().expect("number")],
                    })
                    .collect()
            };
            let got_m = model.pool.eval_many(&mass, &env);
            let got_q = model.pool.eval_many(&model.force, &env);
            compare(
                &format!("M (n = {n}, point {k})"),
                &got_m,
                &floats(&want["mass"]),
                1e-12,
            );
            compare(
                &format!("Q (n = {n}, point {k})"),
                &got_q,
                &floats(&want["force"]),
                1e-12,
            );
        }
    }
}

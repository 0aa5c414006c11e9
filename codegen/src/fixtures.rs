//! Fixture models shared by tests and benchmarks: the closed planar n-link chain, the Andrews
//! squeezer (digest P6, data of Hairer–Wanner II §VII.7 \[EXT\]), a rheonomic two-coordinate
//! constraint, the Cartesian planar pendulum, and a chain of knife-edge skates (nonholonomic).
//!
//! They are built with the pool constructors, independently of the Python oracles
//! (`tests/oracle/kernels.py`), which define the same constraints in SymPy/SymEngine.

use crate::bodies::{Bodies, RigidBody};
use crate::lagrange::{self, Lagrangian};
use crate::model::{Model, ModelBuilder};
use crate::pool::{ExprId, Func, Pool};

/// The closed planar n-link chain: relative angles `th1..thn`, link lengths `l1..ln`, base
/// pinned at the origin, tip pinned at `(X, Y)`:
/// Φ = [Σ l_i cos a_i − X, Σ l_i sin a_i − Y] with a_i = θ1 + … + θi (m = 2).
/// Mass matrix: identity (only the constraint kernels matter for this fixture); no forces.
pub fn closed_chain(n: usize) -> Model {
    let mut b = ModelBuilder::new(&format!("ClosedChain{n}"));
    let thetas: Vec<ExprId> = (1..=n).map(|i| b.coordinate(&format!("th{i}")).0).collect();
    let lengths: Vec<ExprId> = (1..=n).map(|i| b.parameter(&format!("l{i}"))).collect();
    let (x_tip, y_tip) = (b.parameter("X"), b.parameter("Y"));
    let pool = b.pool();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let mut angle = pool.zero();
    for i in 0..n {
        angle = pool.add2(angle, thetas[i]);
        let (c, s) = (pool.func(Func::Cos, angle), pool.func(Func::Sin, angle));
        xs.push(pool.mul2(lengths[i], c));
        ys.push(pool.mul2(lengths[i], s));
    }
    let (sx, sy) = (pool.add(&xs), pool.add(&ys));
    let phi = [pool.sub(sx, x_tip), pool.sub(sy, y_tip)];
    let one = pool.one();
    let zero = pool.zero();
    b.holonomic(&phi)
        .mass_diagonal(&vec![one; n])
        .force(&vec![zero; n]);
    b.build().expect("the chain fixture is valid")
}

/// Andrews' squeezing mechanism (7 coordinates, 6 constraints), with mass matrix and forces.
pub fn andrews() -> Model {
    let mut b = ModelBuilder::new("Andrews");
    let names = ["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"];
    let (q, v): (Vec<ExprId>, Vec<ExprId>) = names.iter().map(|n| b.coordinate(n)).unzip();
    let params = [
        "m1", "m2", "m3", "m4", "m5", "m6", "m7", "I1", "I2", "I3", "I4", "I5", "I6", "I7", "xa",
        "ya", "xb", "yb", "xc", "yc", "d", "da", "e", "ea", "rr", "ra", "ss", "sa", "sb", "sc",
        "sd", "ta", "tb", "u", "ua", "ub", "zf", "zt", "fa", "mom", "c0", "l0",
    ];
    let p: Vec<ExprId> = params.iter().map(|n| b.parameter(n)).collect();
    let get = |name: &str| p[params.iter().position(|n| *n == name).expect("declared")];
    let pool = b.pool();
    let parts = AndrewsParts::new(pool, &q);
    let phi = parts.constraints(pool, &get);
    let mass = parts.mass(pool, &get);
    let force = parts.force(pool, &v, &get);
    b.holonomic(&phi).mass(mass).force(&force);
    b.build().expect("the Andrews fixture is valid")
}

/// The published Andrews parameter values (digest P6), in declaration order of [`andrews`].
pub const ANDREWS_PARAMETERS: [(&str, f64); 42] = [
    ("m1", 0.04325),
    ("m2", 0.00365),
    ("m3", 0.02373),
    ("m4", 0.00706),
    ("m5", 0.07050),
    ("m6", 0.00706),
    ("m7", 0.05498),
    ("I1", 2.194e-6),
    ("I2", 4.410e-7),
    ("I3", 5.255e-6),
    ("I4", 5.667e-7),
    ("I5", 1.169e-5),
    ("I6", 5.667e-7),
    ("I7", 1.912e-5),
    ("xa", -0.06934),
    ("ya", -0.00227),
    ("xb", -0.03635),
    ("yb", 0.03273),
    ("xc", 0.014),
    ("yc", 0.072),
    ("d", 28e-3),
    ("da", 115e-4),
    ("e", 2e-2),
    ("ea", 1421e-5),
    ("rr", 7e-3),
    ("ra", 92e-5),
    ("ss", 35e-3),
    ("sa", 1874e-5),
    ("sb", 1043e-5),
    ("sc", 18e-3),
    ("sd", 2e-2),
    ("ta", 2308e-5),
    ("tb", 916e-5),
    ("u", 4e-2),
    ("ua", 1228e-5),
    ("ub", 449e-5),
    ("zf", 2e-2),
    ("zt", 4e-2),
    ("fa", 1421e-5),
    ("mom", 0.033),
    ("c0", 4530.0),
    ("l0", 0.07785),
];

/// The published consistent initial position of Andrews (digest P6); q̇0 = 0.
// The published 30 digits are kept verbatim; f64 rounds them on read.
#[allow(clippy::excessive_precision)]
pub const ANDREWS_Q0: [f64; 7] = [
    -0.0617138900142764496358948458001,
    0.0,
    0.455279819163070380255912382449,
    0.222668390165885884674473185609,
    0.487364979543842550225598953530,
    -0.222668390165885884674473185609,
    1.23054744454982119249735015568,
];

/// Sines and cosines shared by Andrews' constraints, mass matrix and forces.
struct AndrewsParts {
    s: Vec<ExprId>,
    c: Vec<ExprId>,
    sbeth: ExprId,
    cbeth: ExprId,
    sphde: ExprId,
    cphde: ExprId,
    somep: ExprId,
    comep: ExprId,
}

impl AndrewsParts {
    fn new(pool: &mut Pool, q: &[ExprId]) -> AndrewsParts {
        let s = q.iter().map(|&x| pool.func(Func::Sin, x)).collect();
        let c = q.iter().map(|&x| pool.func(Func::Cos, x)).collect();
        let (beth, phde, omep) = (
            pool.add2(q[0], q[1]),
            pool.add2(q[3], q[4]),
            pool.add2(q[5], q[6]),
        );
        AndrewsParts {
            s,
            c,
            sbeth: pool.func(Func::Sin, beth),
            cbeth: pool.func(Func::Cos, beth),
            sphde: pool.func(Func::Sin, phde),
            cphde: pool.func(Func::Cos, phde),
            somep: pool.func(Func::Sin, omep),
            comep: pool.func(Func::Cos, omep),
        }
    }

    /// g1..g6 of digest P6.
    fn constraints(&self, pool: &mut Pool, get: &dyn Fn(&str) -> ExprId) -> Vec<ExprId> {
        let (rr, d, ss, e, zt, zf, u) = (
            get("rr"),
            get("d"),
            get("ss"),
            get("e"),
            get("zt"),
            get("zf"),
            get("u"),
        );
        let (xa, ya, xb, yb) = (get("xa"), get("ya"), get("xb"), get("yb"));
        let (s, c) = (&self.s, &self.c);
        let mut lin = |terms: &[(i64, ExprId, ExprId)], offset: ExprId| {
            let mut xs: Vec<ExprId> = terms
                .iter()
                .map(|&(sign, k, f)| {
                    let sk = pool.int(sign);
                    pool.mul(&[sk, k, f])
                })
                .collect();
            xs.push(pool.neg(offset));
            pool.add(&xs)
        };
        let base_x = [(1, rr, c[0]), (-1, d, self.cbeth)];
        let base_y = [(1, rr, s[0]), (-1, d, self.sbeth)];
        let with =
            |base: &[(i64, ExprId, ExprId)], more: &[(i64, ExprId, ExprId)]| [base, more].concat();
        vec![
            lin(&with(&base_x, &[(-1, ss, s[2])]), xb),
            lin(&with(&base_y, &[(1, ss, c[2])]), yb),
            lin(&with(&base_x, &[(-1, e, self.sphde), (-1, zt, c[4])]), xa),
            lin(&with(&base_y, &[(1, e, self.cphde), (-1, zt, s[4])]), ya),
            lin(&with(&base_x, &[(-1, zf, self.comep), (-1, u, s[6])]), xa),
            lin(&with(&base_y, &[(-1, zf, self.somep), (1, u, c[6])]), ya),
        ]
    }

    /// The symmetric mass matrix of digest P6.
    fn mass(&self, pool: &mut Pool, get: &dyn Fn(&str) -> ExprId) -> Vec<Vec<ExprId>> {
        let g = |n: &str| get(n);
        let (m1, m2, m3, m4, m5, m6, m7) = (
            g("m1"),
            g("m2"),
            g("m3"),
            g("m4"),
            g("m5"),
            g("m6"),
            g("m7"),
        );
        let (i1, i2, i3, i4, i5, i6, i7) = (
            g("I1"),
            g("I2"),
            g("I3"),
            g("I4"),
            g("I5"),
            g("I6"),
            g("I7"),
        );
        let (ra, rr, da, sa, sb, e, ea) =
            (g("ra"), g("rr"), g("da"), g("sa"), g("sb"), g("e"), g("ea"));
        let (zt, ta, tb, zf, fa, u, ua, ub) = (
            g("zt"),
            g("ta"),
            g("tb"),
            g("zf"),
            g("fa"),
            g("u"),
            g("ua"),
            g("ub"),
        );
        let (s, c) = (&self.s, &self.c);
        let sq = |pool: &mut Pool, x: ExprId| pool.powi(x, 2);
        let ee = pool.sub(e, ea); // e − ea
        let zz = pool.sub(zf, fa); // zf − fa
        let (ee2, zz2) = (sq(pool, ee), sq(pool, zz));
        // M11 = m1 ra² + m2 (rr² − 2 da rr cTheta + da²) + I1 + I2
        let (ra2, rr2, da2) = (sq(pool, ra), sq(pool, rr), sq(pool, da));
        let m2_2 = pool.int(-2);
        let cross = pool.mul(&[m2_2, da, rr, c[1]]);
        let bracket11 = pool.add(&[rr2, cross, da2]);
        let t1 = pool.mul2(m1, ra2);
        let t2 = pool.mul2(m2, bracket11);
        let m11 = pool.add(&[t1, t2, i1, i2]);
        // M12 = m2 (da² − da rr cTheta) + I2
        let darr = pool.mul(&[da, rr, c[1]]);
        let b12 = pool.sub(da2, darr);
        let t = pool.mul2(m2, b12);
        let m12 = pool.add2(t, i2);
        // M22 = m2 da² + I2
        let t = pool.mul2(m2, da2);
        let m22 = pool.add2(t, i2);
        // M33 = m3 (sa² + sb²) + I3
        let (sa2, sb2) = (sq(pool, sa), sq(pool, sb));
        let b = pool.add2(sa2, sb2);
        let t = pool.mul2(m3, b);
        let m33 = pool.add2(t, i3);
        // M44 = m4 (e − ea)² + I4
        let t = pool.mul2(m4, ee2);
        let m44 = pool.add2(t, i4);
        // M45 = m4 ((e − ea)² + zt (e − ea) sPhi) + I4
        let zes = pool.mul(&[zt, ee, s[3]]);
        let b = pool.add2(ee2, zes);
        let t = pool.mul2(m4, b);
        let m45 = pool.add2(t, i4);
        // M55 = m4 (zt² + 2 zt (e − ea) sPhi + (e − ea)²) + m5 (ta² + tb²) + I4 + I5
        let zt2 = sq(pool, zt);
        let two = pool.int(2);
        let zes2 = pool.mul2(two, zes);
        let b4 = pool.add(&[zt2, zes2, ee2]);
        let (ta2, tb2) = (sq(pool, ta), sq(pool, tb));
        let b5 = pool.add2(ta2, tb2);
        let (t4, t5) = (pool.mul2(m4, b4), pool.mul2(m5, b5));
        let m55 = pool.add(&[t4, t5, i4, i5]);
        // M66 = m6 (zf − fa)² + I6
        let t = pool.mul2(m6, zz2);
        let m66 = pool.add2(t, i6);
        // M67 = m6 ((zf − fa)² − u (zf − fa) sOmega) + I6
        let uzs = pool.mul(&[u, zz, s[5]]);
        let b = pool.sub(zz2, uzs);
        let t = pool.mul2(m6, b);
        let m67 = pool.add2(t, i6);
        // M77 = m6 ((zf − fa)² − 2 u (zf − fa) sOmega + u²) + m7 (ua² + ub²) + I6 + I7
        let uzs2 = pool.mul2(two, uzs);
        let u2 = sq(pool, u);
        let b6a = pool.sub(zz2, uzs2);
        let b6 = pool.add2(b6a, u2);
        let (ua2, ub2) = (sq(pool, ua), sq(pool, ub));
        let b7 = pool.add2(ua2, ub2);
        let (t6, t7) = (pool.mul2(m6, b6), pool.mul2(m7, b7));
        let m77 = pool.add(&[t6, t7, i6, i7]);
        let z = pool.zero();
        vec![
            vec![m11, m12, z, z, z, z, z],
            vec![m12, m22, z, z, z, z, z],
            vec![z, z, m33, z, z, z, z],
            vec![z, z, z, m44, m45, z, z],
            vec![z, z, z, m45, m55, z, z],
            vec![z, z, z, z, z, m66, m67],
            vec![z, z, z, z, z, m67, m77],
        ]
    }

    /// The force vector f of digest P6 (driving torque, spring, velocity-quadratic terms).
    fn force(&self, pool: &mut Pool, v: &[ExprId], get: &dyn Fn(&str) -> ExprId) -> Vec<ExprId> {
        let g = |n: &str| get(n);
        let (m2, m4, m6, da, rr, e, ea, zt) = (
            g("m2"),
            g("m4"),
            g("m6"),
            g("da"),
            g("rr"),
            g("e"),
            g("ea"),
            g("zt"),
        );
        let (zf, fa, u, mom, c0, l0) = (g("zf"), g("fa"), g("u"), g("mom"), g("c0"), g("l0"));
        let (xb, yb, xc, yc, sc, sd) = (g("xb"), g("yb"), g("xc"), g("yc"), g("sc"), g("sd"));
        let (s, c) = (&self.s, &self.c);
        // Spring: xd = sd cγ + sc sγ + xb, yd = sd sγ − sc cγ + yb.
        let (sdc, scs) = (pool.mul2(sd, c[2]), pool.mul2(sc, s[2]));
        let xd = pool.add(&[sdc, scs, xb]);
        let (sds, scc) = (pool.mul2(sd, s[2]), pool.mul2(sc, c[2]));
        let yd0 = pool.sub(sds, scc);
        let yd = pool.add2(yd0, yb);
        let (dx, dy) = (pool.sub(xd, xc), pool.sub(yd, yc));
        let (dx2, dy2) = (pool.powi(dx, 2), pool.powi(dy, 2));
        let len2 = pool.add2(dx2, dy2);
        let len = pool.sqrt(len2);
        // F = −c0 (L − l0) / L
        let stretch = pool.sub(len, l0);
        let num = pool.mul2(c0, stretch);
        let ratio = pool.div(num, len);
        let spring = pool.neg(ratio);
        let (fx, fy) = (pool.mul2(spring, dx), pool.mul2(spring, dy));
        let ee = pool.sub(e, ea);
        let zz = pool.sub(zf, fa);
        let two = pool.int(2);
        let m1 = pool.int(-1);
        // f1 = mom − m2 da rr Θ' (Θ' + 2 β') sΘ
        let tb = pool.mul2(two, v[0]);
        let w1 = pool.add2(v[1], tb);
        let k1 = pool.mul(&[m1, m2, da, rr, v[1], w1, s[1]]);
        let f1 = pool.add2(mom, k1);
        // f2 = m2 da rr β'² sΘ
        let b2 = pool.powi(v[0], 2);
        let f2 = pool.mul(&[m2, da, rr, b2, s[1]]);
        // f3 = fx (sc cγ − sd sγ) + fy (sd cγ + sc sγ)
        let a3 = pool.sub(scc, sds);
        let b3 = pool.add2(sdc, scs);
        let (p3, r3) = (pool.mul2(fx, a3), pool.mul2(fy, b3));
        let f3 = pool.add2(p3, r3);
        // f4 = m4 zt (e − ea) δ'² cΦ
        let d2 = pool.powi(v[4], 2);
        let f4 = pool.mul(&[m4, zt, ee, d2, c[3]]);
        // f5 = −m4 zt (e − ea) Φ' (Φ' + 2 δ') cΦ
        let td = pool.mul2(two, v[4]);
        let w5 = pool.add2(v[3], td);
        let f5 = pool.mul(&[m1, m4, zt, ee, v[3], w5, c[3]]);
        // f6 = −m6 u (zf − fa) ε'² cΩ
        let e2 = pool.powi(v[6], 2);
        let f6 = pool.mul(&[m1, m6, u, zz, e2, c[5]]);
        // f7 = m6 u (zf − fa) Ω' (Ω' + 2 ε') cΩ
        let te = pool.mul2(two, v[6]);
        let w7 = pool.add2(v[5], te);
        let f7 = pool.mul(&[m6, u, zz, v[5], w7, c[5]]);
        vec![f1, f2, f3, f4, f5, f6, f7]
    }
}

/// A rheonomic constraint pair: q = (xl, yl), yb(t) = r sin(ωt), xb(t) = √(Lb² − yb²),
/// Φ = [xb·xl + yb·yl, xl² + yl² − ell²]. Identity mass, no forces.
pub fn rheonomic() -> Model {
    let mut b = ModelBuilder::new("Rheonomic");
    let t = b.time();
    let (xl, _) = b.coordinate("xl");
    let (yl, _) = b.coordinate("yl");
    let (r, omega, lb, ell) = (
        b.parameter("r"),
        b.parameter("omega"),
        b.parameter("Lb"),
        b.parameter("ell"),
    );
    let pool = b.pool();
    let wt = pool.mul2(omega, t);
    let sin_wt = pool.func(Func::Sin, wt);
    let yb = pool.mul2(r, sin_wt);
    let (lb2, yb2) = (pool.powi(lb, 2), pool.powi(yb, 2));
    let xb2 = pool.sub(lb2, yb2);
    let xb = pool.sqrt(xb2);
    let (p1, p2) = (pool.mul2(xb, xl), pool.mul2(yb, yl));
    let phi1 = pool.add2(p1, p2);
    let (xl2, yl2, ell2) = (pool.powi(xl, 2), pool.powi(yl, 2), pool.powi(ell, 2));
    let s = pool.add2(xl2, yl2);
    let phi2 = pool.sub(s, ell2);
    let (one, zero) = (pool.one(), pool.zero());
    b.holonomic(&[phi1, phi2])
        .mass_diagonal(&[one, one])
        .force(&[zero, zero]);
    b.build().expect("the rheonomic fixture is valid")
}

/// The Cartesian planar pendulum: point mass `mass` at (x, y) on a rod of length `len`, gravity
/// `g` along −y: Φ = x² + y² − len², M = diag(mass, mass), Q = (0, −mass·g).
pub fn cartesian_pendulum() -> Model {
    let mut b = ModelBuilder::new("CartesianPendulum");
    let (x, _) = b.coordinate("x");
    let (y, _) = b.coordinate("y");
    let (mass, len, g) = (b.parameter("mass"), b.parameter("len"), b.parameter("g"));
    let pool = b.pool();
    let (x2, y2, l2) = (pool.powi(x, 2), pool.powi(y, 2), pool.powi(len, 2));
    let s = pool.add2(x2, y2);
    let phi = pool.sub(s, l2);
    let w = pool.mul2(mass, g);
    let weight = pool.neg(w);
    let zero = pool.zero();
    b.holonomic(&[phi])
        .mass_diagonal(&[mass, mass])
        .force(&[zero, weight]);
    b.build().expect("the pendulum fixture is valid")
}

/// A chain of `links` knife-edge skates in the plane (x_i, y_i, θ_i each): the first at
/// distance `len` from the origin, each at distance `len` from the previous one
/// (Φ = [x₀² + y₀² − len², (x_{i+1} − x_i)² + (y_{i+1} − y_i)² − len²]), each sliding along its
/// blade only (−sin θ_i ẋ_i + cos θ_i ẏ_i = 0, k = links), M = diag(m, m, j) per skate, gravity
/// `g` along −y. KKT order 5·links, M and G under a tenth full from 8 links on: large and sparse
/// enough for the sparse kernel forms with nonholonomic rows (`emit::nonzero_forms`).
pub fn skate_chain(links: usize) -> Model {
    let mut b = ModelBuilder::new(&format!("SkateChain{links}"));
    let skates: Vec<[(ExprId, ExprId); 3]> = (0..links)
        .map(|i| ["x", "y", "th"].map(|c| b.coordinate(&format!("{c}{i}"))))
        .collect();
    let [len, m, j, g] = ["len", "m", "j", "g"].map(|p| b.parameter(p));
    let pool = b.pool();
    let l2 = pool.powi(len, 2);
    let (mut holonomic, mut blades) = (Vec::new(), Vec::new());
    let (mut mass, mut force) = (Vec::new(), Vec::new());
    let (zero, weight) = (pool.zero(), pool.mul2(m, g));
    let weight = pool.neg(weight);
    let mut previous = (zero, zero);
    for &[(x, vx), (y, vy), (th, _)] in &skates {
        let (dx, dy) = (pool.sub(x, previous.0), pool.sub(y, previous.1));
        let (dx2, dy2) = (pool.powi(dx, 2), pool.powi(dy, 2));
        let distance = pool.add2(dx2, dy2);
        holonomic.push(pool.sub(distance, l2));
        let (s, c) = (pool.func(Func::Sin, th), pool.func(Func::Cos, th));
        let (along_x, along_y) = (pool.mul2(s, vx), pool.mul2(c, vy));
        blades.push(pool.sub(along_y, along_x));
        mass.extend([m, m, j]);
        force.extend([zero, weight, zero]);
        previous = (x, y);
    }
    b.holonomic(&holonomic)
        .nonholonomic(&blades)
        .mass_diagonal(&mass)
        .force(&force);
    b.build().expect("the skate chain fixture is valid")
}

/// A one-body model that exercises every node kind in Φ, M and Q: a bouncing point on a road
/// with a step profile (`if t > t_step`), a one-sided tyre force `max(k·(r − y), 0)`, and
/// `tan`, `exp`, `ln`, `abs`, `atan2`, `min`, `powf` in the applied force.
pub fn node_zoo() -> Model {
    let mut b = ModelBuilder::new("NodeZoo");
    let (x, vx) = b.coordinate("x");
    let (y, vy) = b.coordinate("y");
    let (k, r, step, mass) = (
        b.parameter("k"),
        b.parameter("r"),
        b.parameter("t_step"),
        b.parameter("mass"),
    );
    let t = b.time();
    let pool = b.pool();
    // Prescribed path: y − 0.1·sin(x) − (if t > t_step { 0.05 } else { 0 }) = 0.
    let later = pool.cmp(crate::pool::CmpOp::Gt, t, step);
    let (bump, zero) = (pool.rational(1, 20), pool.zero());
    let road = pool.select(later, bump, zero);
    let sx = pool.func(Func::Sin, x);
    let tenth = pool.rational(1, 10);
    let wave = pool.mul2(tenth, sx);
    let lift = pool.add2(wave, road);
    let phi = pool.sub(y, lift);
    // Tyre force max(k (r − y), 0), drag −|vx|·vx, and a zoo of smooth terms in x.
    let gap = pool.sub(r, y);
    let spring = pool.mul2(k, gap);
    let tyre = pool.max(spring, zero);
    let avx = pool.func(Func::Abs, vx);
    let drag0 = pool.mul2(avx, vx);
    let drag = pool.neg(drag0);
    let one = pool.one();
    let x2 = pool.powi(x, 2);
    let x2p1 = pool.add2(x2, one);
    let ln = pool.func(Func::Ln, x2p1);
    let half_x = pool.mul2(tenth, x);
    let tan = pool.func(Func::Tan, half_x);
    let exp = pool.func(Func::Exp, half_x);
    let angle = pool.atan2(vy, x2p1);
    let capped = pool.min(angle, one);
    let e = pool.rational(3, 2);
    let root = pool.pow(x2p1, e);
    let root_real = pool.pow(x2p1, tenth);
    let fx = pool.add(&[drag, ln, tan, capped]);
    let fy0 = pool.add(&[tyre, exp, root]);
    let fy = pool.sub(fy0, root_real);
    b.holonomic(&[phi])
        .mass_diagonal(&[mass, mass])
        .force(&[fx, fy]);
    b.build().expect("the node-zoo fixture is valid")
}

/// The planar n-link pendulum from its Lagrangian: uniform rods (masses `m1..mn`, lengths
/// `l1..ln`), relative angles `q1..qn`, the first rod pinned at the origin, gravity `g` along −y.
/// M and Q are derived by [`crate::lagrange::derive`] (the model-authoring benchmark fixture).
pub fn n_link_pendulum(n: usize) -> Model {
    let mut b = ModelBuilder::new(&format!("NLinkPendulum{n}"));
    let chain = NLink::declare(&mut b, n);
    let time = b.time();
    let pool = b.pool();
    let rates: Vec<(ExprId, ExprId)> = chain
        .q
        .iter()
        .copied()
        .zip(chain.v.iter().copied())
        .collect();
    let along_v = pool.direction(&rates);
    let twelfth = pool.rational(1, 12);
    let half = pool.rational(1, 2);
    let (mut kinetic, mut potential) = (Vec::new(), Vec::new());
    for (i, [cx, cy, angle]) in chain.placements(pool).into_iter().enumerate() {
        let (vx, vy, w) = (
            pool.directional(cx, along_v),
            pool.directional(cy, along_v),
            pool.directional(angle, along_v),
        );
        let (vx2, vy2, w2, l2) = (
            pool.powi(vx, 2),
            pool.powi(vy, 2),
            pool.powi(w, 2),
            pool.powi(chain.l[i], 2),
        );
        let speed2 = pool.add2(vx2, vy2);
        kinetic.push(pool.mul(&[half, chain.m[i], speed2]));
        kinetic.push(pool.mul(&[half, twelfth, chain.m[i], l2, w2]));
        potential.push(pool.mul(&[chain.m[i], chain.g, cy]));
    }
    let (kinetic, potential) = (pool.add(&kinetic), pool.add(&potential));
    let zero = pool.zero();
    let nonconservative = vec![zero; n];
    let lagrangian = Lagrangian {
        time,
        q: &chain.q,
        v: &chain.v,
        kinetic,
        potential,
        nonconservative: &nonconservative,
    };
    let eom = lagrange::derive(pool, &lagrangian).expect("a mechanical Lagrangian");
    b.mass(eom.mass).force(&eom.force);
    b.build().expect("the n-link pendulum is valid")
}

/// The same n-link pendulum as rigid bodies ([`crate::bodies`]): each rod placed by its centre
/// of mass and angle, gravity as a force −m g at the centre of mass; M and Q in the structured
/// (composite) form. Mathematically equal to [`n_link_pendulum`].
pub fn n_link_pendulum_bodies(n: usize) -> Model {
    let mut b = ModelBuilder::new(&format!("NLinkPendulumBodies{n}"));
    let chain = NLink::declare(&mut b, n);
    let time = b.time();
    let pool = b.pool();
    let (zero, twelfth) = (pool.zero(), pool.rational(1, 12));
    let bodies: Vec<RigidBody> = chain
        .placements(pool)
        .into_iter()
        .enumerate()
        .map(|(i, placement)| {
            let l2 = pool.powi(chain.l[i], 2);
            let weight = pool.mul(&[chain.m[i], chain.g]);
            RigidBody {
                name: format!("rod{}", i + 1),
                mass: chain.m[i],
                inertia: pool.mul(&[twelfth, chain.m[i], l2]),
                placement,
                load: [zero, pool.neg(weight), zero],
            }
        })
        .collect();
    let extra = vec![zero; n];
    let system = Bodies {
        time,
        q: &chain.q,
        v: &chain.v,
        bodies: &bodies,
        extra: &extra,
    };
    let structured = crate::bodies::derive(pool, &system).expect("placements free of velocities");
    b.mass(structured.eom.mass)
        .force(&structured.eom.force)
        .structured(true);
    b.build().expect("the n-link pendulum in bodies is valid")
}

/// The coordinates and parameters of the n-link pendulum.
struct NLink {
    q: Vec<ExprId>,
    v: Vec<ExprId>,
    m: Vec<ExprId>,
    l: Vec<ExprId>,
    g: ExprId,
}

impl NLink {
    fn declare(b: &mut ModelBuilder, n: usize) -> NLink {
        let (q, v): (Vec<ExprId>, Vec<ExprId>) =
            (1..=n).map(|i| b.coordinate(&format!("q{i}"))).unzip();
        let m: Vec<ExprId> = (1..=n).map(|i| b.parameter(&format!("m{i}"))).collect();
        let l: Vec<ExprId> = (1..=n).map(|i| b.parameter(&format!("l{i}"))).collect();
        let g = b.parameter("g");
        NLink { q, v, m, l, g }
    }

    /// Rod i's centre of mass and angle: a_i = q1 + … + q_i,
    /// c_i = Σ_{j<i} l_j e(a_j) + (l_i/2) e(a_i).
    fn placements(&self, pool: &mut Pool) -> Vec<[ExprId; 3]> {
        let half = pool.rational(1, 2);
        let (mut angle, mut jx, mut jy) = (pool.zero(), pool.zero(), pool.zero());
        let mut out = Vec::with_capacity(self.q.len());
        for i in 0..self.q.len() {
            angle = pool.add2(angle, self.q[i]);
            let (c, s) = (pool.func(Func::Cos, angle), pool.func(Func::Sin, angle));
            let half_l = pool.mul2(half, self.l[i]);
            let (hx, hy) = (pool.mul2(half_l, c), pool.mul2(half_l, s));
            out.push([pool.add2(jx, hx), pool.add2(jy, hy), angle]);
            let (lx, ly) = (pool.mul2(self.l[i], c), pool.mul2(self.l[i], s));
            (jx, jy) = (pool.add2(jx, lx), pool.add2(jy, ly));
        }
        out
    }
}

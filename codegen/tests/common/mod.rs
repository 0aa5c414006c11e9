//! Shared fixtures of the integration tests: the four models of the oracle contract (closed
//! N-link chain, Andrews squeezer, rheonomic slider, and the skate with M, Q and a nonholonomic
//! row for the tangent kernels), a seeded random-number generator,
//! numerical differentiation with derived error bounds, and the one comparison helper every
//! numerical check goes through.
//!
//! Each test binary uses only part of this module, hence the `dead_code` allowance below.
#![allow(dead_code)] // shared by several test binaries, each using a subset

use mbsim_codegen::{Env, ExprId, Model, ModelBuilder, Pool};

/// Parameter values of the Andrews squeezer, SEEDS-DIGEST P6 (Hairer–Wanner II §VII.7).
pub const ANDREWS_PARAMS: [(&str, f64); 11] = [
    ("rr", 7e-3),
    ("d", 28e-3),
    ("ss", 35e-3),
    ("xb", -0.03635),
    ("yb", 0.03273),
    ("e", 2e-2),
    ("zt", 4e-2),
    ("xa", -0.06934),
    ("ya", -0.00227),
    ("zf", 2e-2),
    ("u", 4e-2),
];

/// Consistent initial position q0 of the Andrews squeezer, SEEDS-DIGEST P6.
pub const ANDREWS_Q0: [f64; 7] = [
    -0.061_713_890_014_276_45,
    0.0,
    0.455_279_819_163_070_37,
    0.222_668_390_165_885_88,
    0.487_364_979_543_842_56,
    -0.222_668_390_165_885_88,
    1.230_547_444_549_821_2,
];

/// Identity mass matrix and zero forces: only the constraint kernels are under test.
fn finish(mut b: ModelBuilder, n: usize) -> Model {
    let one = b.pool().one();
    let zero = b.pool().zero();
    b.mass_diagonal(&vec![one; n]).force(&vec![zero; n]);
    b.build()
        .unwrap_or_else(|e| panic!("fixture model does not build: {e}"))
}

/// Closed planar N-link chain with relative angles th1..thN, lengths l1..lN and anchor (X, Y):
/// a_i = th1 + … + th_i, Φ = [Σ l_i cos a_i − X, Σ l_i sin a_i − Y]. Parameters are ordered
/// l1..lN, X, Y. Built with the pool constructors (parsing would be quadratic in the text).
pub fn chain(n: usize) -> Model {
    let mut b = ModelBuilder::new("Chain");
    let th: Vec<ExprId> = (1..=n).map(|i| b.coordinate(&format!("th{i}")).0).collect();
    let l: Vec<ExprId> = (1..=n).map(|i| b.parameter(&format!("l{i}"))).collect();
    let (x, y) = (b.parameter("X"), b.parameter("Y"));
    let p = b.pool();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let mut a = p.zero();
    for i in 0..n {
        a = p.add2(a, th[i]);
        let (c, s) = (
            p.func(mbsim_codegen::Func::Cos, a),
            p.func(mbsim_codegen::Func::Sin, a),
        );
        xs.push(p.mul2(l[i], c));
        ys.push(p.mul2(l[i], s));
    }
    let (sx, sy) = (p.add(&xs), p.add(&ys));
    let phi = [p.sub(sx, x), p.sub(sy, y)];
    b.holonomic(&phi);
    finish(b, n)
}

/// Andrews squeezer: q = (beta, Theta, gamma, Phi, delta, Omega, epsilon), the six loop
/// constraints g1..g6 of SEEDS-DIGEST P6, parameters in [`ANDREWS_PARAMS`] order. Read from
/// s-expressions through [`ModelBuilder::parse`].
pub fn andrews() -> Model {
    let mut b = ModelBuilder::new("Andrews");
    for name in ["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"] {
        b.coordinate(name);
    }
    for (name, _) in ANDREWS_PARAMS {
        b.parameter(name);
    }
    let rows = [
        "(+ (* rr (cos beta)) (- (* d (cos (+ beta Theta)))) (- (* ss (sin gamma))) (- xb))",
        "(+ (* rr (sin beta)) (- (* d (sin (+ beta Theta)))) (* ss (cos gamma)) (- yb))",
        "(+ (* rr (cos beta)) (- (* d (cos (+ beta Theta)))) (- (* e (sin (+ Phi delta)))) (- (* zt (cos delta))) (- xa))",
        "(+ (* rr (sin beta)) (- (* d (sin (+ beta Theta)))) (* e (cos (+ Phi delta))) (- (* zt (sin delta))) (- ya))",
        "(+ (* rr (cos beta)) (- (* d (cos (+ beta Theta)))) (- (* zf (cos (+ Omega epsilon)))) (- (* u (sin epsilon))) (- xa))",
        "(+ (* rr (sin beta)) (- (* d (sin (+ beta Theta)))) (- (* zf (sin (+ Omega epsilon)))) (* u (cos epsilon)) (- ya))",
    ];
    let phi: Vec<ExprId> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| b.parse(r, &format!("g{}", i + 1)))
        .collect();
    b.holonomic(&phi);
    finish(b, 7)
}

/// Rheonomic slider: q = (xl, yl), parameters (r, omega, Lb, ell); yb = r sin(omega t),
/// xb = sqrt(Lb² − yb²), Φ = [xb·xl + yb·yl, xl² + yl² − ell²].
pub fn rheonomic() -> Model {
    let mut b = ModelBuilder::new("Rheonomic");
    b.coordinate("xl");
    b.coordinate("yl");
    for name in ["r", "omega", "Lb", "ell"] {
        b.parameter(name);
    }
    let yb = "(* r (sin (* omega t)))";
    let xb = format!("(sqrt (- (^ Lb 2) (^ {yb} 2)))");
    let phi = [
        b.parse(&format!("(+ (* {xb} xl) (* {yb} yl))"), "phi[0]"),
        b.parse("(- (+ (^ xl 2) (^ yl 2)) (^ ell 2))", "phi[1]"),
    ];
    b.holonomic(&phi);
    finish(b, 2)
}

/// A skate (also in the oracle, `tests/oracle/kernels.py`): q = (x, y, th), M = diag(m, m, m (1 + sin² th)), Q depends on q and v, a rheonomic
/// holonomic row x² + y² + sin t · th − 1 and a rheonomic nonholonomic row
/// sin th · ẋ − cos th · ẏ + t · th.
pub fn skate() -> Model {
    let mut b = ModelBuilder::new("Skate");
    for name in ["x", "y", "th"] {
        b.coordinate(name);
    }
    b.parameter("m");
    b.parameter("c");
    let phi = b.parse("(+ (^ x 2) (^ y 2) (* (sin t) th) -1)", "phi");
    let nh = b.parse(
        "(+ (* (sin th) x_dot) (* -1 (cos th) y_dot) (* t th))",
        "nh",
    );
    let mass = ["m", "m", "(* m (+ 1 (^ (sin th) 2)))"].map(|s| b.parse(s, "mass"));
    let force = [
        "(* -1 c x_dot (cos th))",
        "(* -1 m (sin x) (^ y_dot 2))",
        "(* c th_dot y_dot (exp (* -1 (^ x 2))))",
    ]
    .map(|s| b.parse(s, "force"));
    b.holonomic(&[phi])
        .nonholonomic(&[nh])
        .mass_diagonal(&mass)
        .force(&force);
    b.build().expect("skate builds")
}

/// A random state of `skate()`: q, v in [−1, 1), t in [0, 2), m and c in [0.5, 1.5).
pub fn skate_state(rng: &mut Rng) -> State {
    let p = rng.vec(2, 0.5, 1.5);
    State {
        t: rng.uniform(0.0, 2.0),
        q: rng.vec(3, -1.0, 1.0),
        v: rng.vec(3, -1.0, 1.0),
        p,
    }
}

/// A numerical state of a model: time, coordinates, velocities and parameter values (in the
/// model's parameter order).
#[derive(Clone, Debug)]
pub struct State {
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// Parameters.
    pub p: Vec<f64>,
}

impl State {
    /// The evaluation environment of this state.
    pub fn env(&self, model: &Model) -> Env {
        let mut env = Env::new();
        env.set(&model.pool, model.time, self.t);
        for (i, c) in model.coordinates.iter().enumerate() {
            env.set(&model.pool, c.q, self.q[i]);
            env.set(&model.pool, c.v, self.v[i]);
        }
        for (i, p) in model.parameters.iter().enumerate() {
            env.set(&model.pool, p.sym, self.p[i]);
        }
        env
    }
}

pub use mbsim_testkit::{Rng, assert_entry};

/// A random state of `chain(n)`: angles in [−π, π), lengths in [0.5, 2), anchor in [−2, 2)²,
/// velocities in [−1, 1), time in [0, 1).
pub fn chain_state(rng: &mut Rng, n: usize) -> State {
    let mut p = rng.vec(n, 0.5, 2.0);
    p.extend(rng.vec(2, -2.0, 2.0));
    State {
        t: rng.unit(),
        q: rng.vec(n, -std::f64::consts::PI, std::f64::consts::PI),
        v: rng.vec(n, -1.0, 1.0),
        p,
    }
}

/// A random state of `andrews()`: q0 of the digest perturbed by up to ±0.1 rad, velocities in
/// [−1, 1) rad/s, the digest's parameters.
pub fn andrews_state(rng: &mut Rng) -> State {
    let q = ANDREWS_Q0
        .iter()
        .map(|&q0| q0 + rng.uniform(-0.1, 0.1))
        .collect();
    let p = ANDREWS_PARAMS.iter().map(|&(_, v)| v).collect();
    State {
        t: rng.unit(),
        q,
        v: rng.vec(7, -1.0, 1.0),
        p,
    }
}

/// A random state of `rheonomic()`: r in [0.2, 0.5), omega in [0.5, 3), Lb in [1, 2) (so
/// Lb > r and the square root stays away from zero), ell in [0.5, 1.5), q and v in [−1, 1).
pub fn rheonomic_state(rng: &mut Rng) -> State {
    let p = vec![
        rng.uniform(0.2, 0.5),
        rng.uniform(0.5, 3.0),
        rng.uniform(1.0, 2.0),
        rng.uniform(0.5, 1.5),
    ];
    State {
        t: rng.uniform(0.0, 2.0),
        q: rng.vec(2, -1.0, 1.0),
        v: rng.vec(2, -1.0, 1.0),
        p,
    }
}

/// Evaluate `roots` with one symbol overridden.
pub fn eval_with(pool: &Pool, roots: &[ExprId], env: &Env, sym: ExprId, value: f64) -> Vec<f64> {
    let mut env = env.clone();
    env.set(pool, sym, value);
    pool.eval_many(roots, &env)
}

/// Largest magnitude among the finite values of every node reachable from `roots`: a bound on
/// the size of the terms whose rounding errors add up in an evaluation (cancellation included).
pub fn magnitude(pool: &Pool, roots: &[ExprId], env: &Env) -> f64 {
    let nodes = pool.reachable(roots);
    pool.eval_many(&nodes, env)
        .into_iter()
        .filter(|x| x.is_finite())
        .fold(0.0, |m, x| m.max(x.abs()))
}

/// Absolute rounding error of one evaluation of a model's expression graph, in ulps of the
/// largest intermediate magnitude: every node adds at most half an ulp of its own size, the
/// model graphs are a handful of operations deep, and sin/cos/sqrt do not amplify absolute
/// errors. Measured deltas sit at 1–3 ulps; 8 leaves margin.
pub const EVAL_ULPS: f64 = 8.0;

/// A central finite difference with its error bound.
#[derive(Clone, Copy, Debug)]
pub struct Fd {
    /// The estimate of f'(x).
    pub value: f64,
    /// The bound on its error.
    pub tol: f64,
    /// False when the stencil straddles a kink or jump (see [`central_diff`]).
    pub smooth: bool,
}

/// f'(x) by the central difference D(h) = (f(x+h) − f(x−h)) / 2h, with h = ∛ε · scale.
///
/// Error of D(h): truncation h²/6 · f'''(ξ) plus round-off noise/h, where `noise` is the
/// absolute evaluation error of f (EVAL_ULPS · ε · the largest intermediate magnitude). The
/// step ∛ε balances the two (both ≈ ε^⅔ ≈ 4e-11 relative). The truncation term is estimated by
/// Richardson from D(2h) (error 4× larger): |D(2h) − D(h)| / 3. The bound is 4 × (that +
/// 2·noise/h): a factor 4 because both estimates are leading-order only.
///
/// Kinks and jumps (abs, min, max, select, cmp) are detected from the one-sided differences.
/// With s(h) = f(x+h) − 2f(x) + f(x−h) = h·(forward − backward difference), a smooth f gives
/// s(2h) − 4·s(h) = O(h⁴ f'''') and D(2h) − D(h) = h²f'''/2 + O(h⁴). A slope jump J at
/// distance δ from x adds J·(3|δ| − 2h) and J·|δ|/4h to them when |δ| < h, and J·(2h − |δ|)
/// and J·(2h − |δ|)/4h when h ≤ |δ| < 2h: the first vanishes only at |δ| = 2h/3, the second
/// only at δ = 0, so no kink escapes both. A jump in f adds O(jump) to s and O(jump/h) to D.
/// The stencil is declared non-smooth when s(2h) − 4·s(h) exceeds 1e-6·(1 + |f'|)·h + 12·noise,
/// or D(2h) − D(h) exceeds 1e-6·(1 + |f'|) + 2× the round-off of D; a smooth f stays below
/// unless |f'''| ≳ 5e4·(1 + |f'|) (e.g. next to a pole of tan), where the difference quotient
/// is unreliable anyway. The analytic derivative is not compared at non-smooth stencils.
pub fn central_diff(f: impl Fn(f64) -> f64, x: f64, scale: f64, noise: f64) -> Fd {
    let h = f64::EPSILON.cbrt() * scale;
    // `x ± h` is rounded; use the step actually taken.
    let (xp1, xm1, xp2, xm2) = (x + h, x - h, x + 2.0 * h, x - 2.0 * h);
    let (fp1, fm1, fp2, fm2, f0) = (f(xp1), f(xm1), f(xp2), f(xm2), f(x));
    let d1 = (fp1 - fm1) / (xp1 - xm1);
    let d2 = (fp2 - fm2) / (xp2 - xm2);
    let roundoff = 2.0 * noise / h;
    let tol = 4.0 * ((d2 - d1).abs() / 3.0 + roundoff);
    let (s1, s2) = (fp1 - 2.0 * f0 + fm1, fp2 - 2.0 * f0 + fm2);
    let allowance = 1e-6 * (1.0 + d1.abs());
    let curvature_ok = (s2 - 4.0 * s1).abs() <= allowance * h + 12.0 * noise;
    let richardson_ok = (d2 - d1).abs() <= allowance + 2.0 * roundoff;
    let finite = [fp1, fm1, fp2, fm2, f0].iter().all(|v| v.is_finite());
    Fd {
        value: d1,
        tol,
        smooth: finite && curvature_ok && richardson_ok,
    }
}

/// f''(0) of s ↦ f(s) by the 5-point stencil (−f(2h) + 16f(h) − 30f(0) + 16f(−h) − f(−2h)) / 12h².
///
/// With `rate` an upper bound on how fast f oscillates (|f⁽ᵏ⁾| ≲ rate^k · `size`, true for the
/// trigonometric models here with rate = 1 + Σ|v| + |ω|), the error is truncation
/// h⁴/90 · f⁽⁶⁾ ≲ (h·rate)⁴/90 · rate² · size plus round-off (64/12) · noise / h². With
/// h·rate = ε^⅙ the two are ≈ 4e-13 and ≈ 2e-10·(noise/ε·size) relative to rate²·size; the
/// returned tolerance is 4 × their sum.
pub fn second_diff(f: impl Fn(f64) -> f64, rate: f64, size: f64, noise: f64) -> (f64, f64) {
    let h = f64::EPSILON.powf(1.0 / 6.0) / rate;
    let value =
        (-f(2.0 * h) + 16.0 * f(h) - 30.0 * f(0.0) + 16.0 * f(-h) - f(-2.0 * h)) / (12.0 * h * h);
    let truncation = (h * rate).powi(4) / 90.0 * rate * rate * size;
    let roundoff = 64.0 / 12.0 * noise / (h * h);
    (value, 4.0 * (truncation + roundoff))
}

/// Every kernel of the table (core, tangent, energy) of `a` and `b` at five random states
/// (parameters in [0.5, 2), so lengths stay positive), entry by entry within
/// `relative` · (1 + |b's value|). Two algebraically equal models built with the same canonical
/// constructors may still sum terms in another order, so a value may differ by the rounding of
/// a reordered sum: callers derive `relative` from the size of the terms.
pub fn same_kernels(a: &mut Model, b: &mut Model, seed: u64, relative: f64) {
    assert_eq!(a.n(), b.n(), "n");
    assert_eq!(a.parameters.len(), b.parameters.len(), "parameters");
    a.tangents = true;
    b.tangents = true;
    let (ka, kb) = (
        mbsim_codegen::kernels::derive(a),
        mbsim_codegen::kernels::derive(b),
    );
    let mut rng = Rng::new(seed);
    let n = a.n();
    for _ in 0..5 {
        let state = State {
            t: rng.unit(),
            q: rng.vec(n, -2.0, 2.0),
            v: rng.vec(n, -1.0, 1.0),
            p: rng.vec(a.parameters.len(), 0.5, 2.0),
        };
        let (mut ea, mut eb) = (state.env(a), state.env(b));
        let m = a.holonomic.len() + a.nonholonomic.len();
        for (i, x) in rng.vec(m, -1.0, 1.0).into_iter().enumerate() {
            for (model, env) in [(&*a, &mut ea), (&*b, &mut eb)] {
                let lambda = model.pool.lookup_symbol(&format!("lambda[{i}]"));
                if let Some(s) = lambda {
                    env.set_sym(s, x);
                }
            }
        }
        for (i, x) in rng.vec(n, -1.0, 1.0).into_iter().enumerate() {
            for (model, env) in [(&*a, &mut ea), (&*b, &mut eb)] {
                if let Some(s) = model.pool.lookup_symbol(&format!("w[{i}]")) {
                    env.set_sym(s, x);
                }
            }
        }
        for spec in mbsim_kernel_table::KERNELS {
            let (Some(x), Some(y)) = (ka.entries(spec.id), kb.entries(spec.id)) else {
                continue;
            };
            let (vx, vy) = (a.pool.eval_many(x, &ea), b.pool.eval_many(y, &eb));
            assert_eq!(vx.len(), vy.len(), "{}: shapes", spec.name);
            for (i, (p, q)) in vx.iter().zip(&vy).enumerate() {
                assert_entry(spec.name, i, *p, *q, relative * (1.0 + q.abs()));
            }
        }
    }
}

/// How to install the Python oracles, for the failure messages.
pub const ORACLE_INSTALL: &str = "install the oracle from the workspace root with \
    `python3 -m venv .venv && .venv/bin/pip install -r tests/oracle/requirements.txt` \
    (or `cargo xtask oracle-env`, or point ORACLE_PYTHON at an interpreter that has sympy and \
    symengine)";

/// Run the oracle script `tests/oracle/<script>` on `input` (JSON in a file, JSON out in a
/// file) and return its parsed output. The interpreter is `$ORACLE_PYTHON` or the workspace's
/// `.venv/bin/python`; a missing interpreter or package fails the test with the install hint —
/// the oracle is never optional.
pub fn run_python_oracle(script: &str, input: &serde_json::Value, tag: &str) -> serde_json::Value {
    let workspace = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = std::env::var_os("ORACLE_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace.join(".venv/bin/python"));
    assert!(
        python.exists(),
        "oracle interpreter {} not found: {ORACLE_INSTALL}",
        python.display()
    );
    let stem = format!("codegen-oracle-{}-{tag}", std::process::id());
    let dir = std::env::temp_dir();
    let (in_path, out_path) = (
        dir.join(format!("{stem}-in.json")),
        dir.join(format!("{stem}-out.json")),
    );
    std::fs::write(&in_path, input.to_string()).expect("write oracle input");
    let script = workspace.join("tests/oracle").join(script);
    let output = std::process::Command::new(&python)
        .arg(&script)
        .args([&in_path, &out_path])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {ORACLE_INSTALL}", python.display()));
    let _ = std::fs::remove_file(&in_path);
    assert!(
        output.status.success(),
        "oracle {} {} failed ({}):\n{}\n{ORACLE_INSTALL}",
        python.display(),
        script.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&out_path).expect("oracle wrote its output");
    let _ = std::fs::remove_file(&out_path);
    serde_json::from_str(&text).expect("oracle output is JSON")
}

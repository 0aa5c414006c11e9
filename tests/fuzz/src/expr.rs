//! Random expressions in the models' Rust-like syntax, over the names in scope.
//!
//! Two modes: *smooth* expressions (sums, products, quotients by something bounded away from
//! zero, `sin cos atan tanh exp` of bounded arguments, integer powers) are differentiable
//! everywhere near the sampled states, so their kernels can be checked against finite
//! differences; *rough* ones add what has kinks, branch cuts or domains (`abs min max`, `if`,
//! comparisons, `sqrt ln asin acos`, `atan2 hypot powf`, `recip`, the constants `PI TAU E`,
//! `f64::` paths), for the structural part of the campaign only.

use mbsim_testkit::Rng;

/// A choice of `items` by a uniform draw.
pub fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[below(rng, items.len())]
}

/// Uniform in `0..n` (`n > 0`).
pub fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// True with probability `p`.
pub fn chance(rng: &mut Rng, p: f64) -> bool {
    rng.unit() < p
}

/// What an expression may mention.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Coordinates (and indexed members such as `th[2]`).
    pub q: Vec<String>,
    /// Velocities (`x_dot`, `th_dot[2]`); empty where velocities are not allowed.
    pub v: Vec<String>,
    /// Runtime parameters and baked constants.
    pub p: Vec<String>,
    /// Whether `t` may appear.
    pub time: bool,
    /// Only smooth operations (see the module docs).
    pub smooth: bool,
}

impl Scope {
    /// The same scope without velocities.
    pub fn without_v(&self) -> Scope {
        Scope {
            v: Vec::new(),
            ..self.clone()
        }
    }

    /// The same scope without time.
    pub fn without_t(&self) -> Scope {
        Scope {
            time: false,
            ..self.clone()
        }
    }
}

/// A literal: small integers and decimals mostly, sometimes exponents.
pub fn number(rng: &mut Rng) -> String {
    match below(rng, 6) {
        // never a literal zero: `x / 0.0` would make a "valid" model invalid (mutations add zeros)
        0 => format!("{}.0", 1 + below(rng, 4)),
        1 => format!("{:.3}", rng.uniform(0.1, 3.0)),
        2 => format!("{}", 1 + below(rng, 4)),
        3 => format!("{:.2}e-{}", rng.uniform(1.0, 9.0), 1 + below(rng, 3)),
        4 => "0.5".into(),
        _ => format!("{:.1}", rng.uniform(0.5, 2.0)),
    }
}

/// A positive literal (masses, inertias, lengths).
pub fn positive(rng: &mut Rng) -> String {
    format!("{:.3}", rng.uniform(0.2, 2.5))
}

fn leaf(rng: &mut Rng, scope: &Scope) -> String {
    let mut pools: Vec<&[String]> = Vec::new();
    for pool in [&scope.q, &scope.v, &scope.p] {
        if !pool.is_empty() {
            pools.push(pool);
        }
    }
    let k = below(rng, pools.len() + 1 + usize::from(scope.time));
    if k < pools.len() {
        pick(rng, pools[k]).clone()
    } else if k == pools.len() {
        number(rng)
    } else {
        "t".into()
    }
}

/// A random expression of depth at most `depth`.
pub fn expr(rng: &mut Rng, scope: &Scope, depth: usize) -> String {
    if depth == 0 || chance(rng, 0.25) {
        return leaf(rng, scope);
    }
    let d = depth - 1;
    let smooth_kinds = 9;
    let kinds = if scope.smooth {
        smooth_kinds
    } else {
        smooth_kinds + 10
    };
    match below(rng, kinds) {
        0 => format!("{} + {}", expr(rng, scope, d), expr(rng, scope, d)),
        1 => format!("{} - {}", expr(rng, scope, d), paren(rng, scope, d)),
        2 => format!("{} * {}", paren(rng, scope, d), paren(rng, scope, d)),
        3 => format!(
            "{} / (2.0 + {}.cos())",
            paren(rng, scope, d),
            paren(rng, scope, d)
        ),
        4 => format!(
            "{}.{}()",
            paren(rng, scope, d),
            pick(rng, &["sin", "cos", "atan"])
        ),
        5 => format!("{}.powi({})", paren(rng, scope, d), below(rng, 4)),
        6 => format!(
            "(0.3 * {}).{}()",
            paren(rng, scope, d),
            pick(rng, &["tanh", "exp"])
        ),
        7 => format!("-{}", paren(rng, scope, d)),
        8 => format!(
            "{}({})",
            pick(rng, &["sin", "cos", "f64::sin"]),
            expr(rng, scope, d)
        ),
        9 => format!("{}.abs()", paren(rng, scope, d)),
        10 => format!(
            "{}({}, {})",
            pick(rng, &["min", "max", "atan2", "hypot", "f64::max"]),
            expr(rng, scope, d),
            expr(rng, scope, d)
        ),
        11 => format!(
            "if {} {} {} {{ {} }} else {{ {} }}",
            paren(rng, scope, d),
            pick(rng, &["<", ">", "<=", ">="]),
            paren(rng, scope, d),
            expr(rng, scope, d),
            expr(rng, scope, d)
        ),
        12 => format!(
            "{}.{}()",
            paren(rng, scope, d),
            pick(
                rng,
                &["sqrt", "ln", "asin", "acos", "recip", "sinh", "cosh", "tan"]
            )
        ),
        13 => format!("{}.powf({})", paren(rng, scope, d), paren(rng, scope, d)),
        14 => pick(rng, &["PI", "TAU", "E", "std::f64::consts::PI"]).to_string(),
        15 => format!("{} / {}", paren(rng, scope, d), paren(rng, scope, d)),
        16 => format!(
            "{}.{}({})",
            paren(rng, scope, d),
            pick(rng, &["min", "max", "atan2"]),
            expr(rng, scope, d)
        ),
        17 => format!("{}.hypot({})", paren(rng, scope, d), leaf(rng, scope)),
        _ => format!("{}.exp()", paren(rng, scope, d)),
    }
}

/// An expression in parentheses unless it is a leaf.
pub fn paren(rng: &mut Rng, scope: &Scope, depth: usize) -> String {
    let e = expr(rng, scope, depth);
    if e.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '[' || c == ']')
    {
        e
    } else {
        format!("({e})")
    }
}

/// A positive smooth expression (a mass-matrix diagonal, a scale): `c + e²` or
/// `c * (1.5 + cos e)`.
pub fn positive_expr(rng: &mut Rng, scope: &Scope, depth: usize) -> String {
    let c = positive(rng);
    let e = expr(rng, scope, depth);
    if chance(rng, 0.5) {
        format!("{c} + ({e}).powi(2)")
    } else {
        format!("{c} * (1.5 + ({e}).cos())")
    }
}

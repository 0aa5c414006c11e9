//! Valid model texts built from the front end's grammar: an annotated struct as a user writes
//! it (`#[model(…)] pub struct Fuzz { pub a: f64, … }`), in one of eight shapes: explicit M and
//! Q (with holonomic and nonholonomic rows), a Lagrangian, indexed families, planar bodies with
//! joints, drivers and loads, bodies placed by expressions of q, `body_energy` terms, spatial
//! bodies in Euler parameters, spatial bodies placed by vector and rotation expressions of q,
//! and any of them with `draw` and `events`. Names are sometimes non-ASCII
//! (`θ`, `ñu`), which Rust accepts as identifiers.

use crate::expr::{Scope, below, chance, expr, number, pick, positive, positive_expr};
use mbsim_testkit::Rng;

/// The shape of a generated model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `mass` and `force` given.
    Explicit,
    /// `kinetic` and `potential`.
    Lagrangian,
    /// `const N`, `coordinates: [th[0..=N]]`, `let` families, `for` rows, `sum(for …)`.
    Family,
    /// Planar `bodies`, `joints`, `loads`.
    Planar,
    /// `body(m, j, [x, y, phi])` placed by expressions of q.
    Placed,
    /// `body_energy(m, j, [x, y, phi])` terms in `kinetic`.
    BodyEnergy,
    /// Spatial bodies (inertia tensors), spatial joints and loads.
    Spatial,
    /// `body(m, J′, position, rotation)` placed by expressions of q (vectors and rotations).
    PlacedSpatial,
}

/// Every shape, for uniform choice.
pub const SHAPES: [Shape; 8] = [
    Shape::Explicit,
    Shape::Lagrangian,
    Shape::Family,
    Shape::Planar,
    Shape::Placed,
    Shape::BodyEnergy,
    Shape::Spatial,
    Shape::PlacedSpatial,
];

/// A generated model text and what the numerical check may assume about it.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The source text (one annotated struct).
    pub text: String,
    /// Its shape.
    pub shape: Shape,
    /// Every expression is smooth near the sampled states (finite differences apply).
    pub smooth: bool,
    /// M and Q come from T and V alone (no `force`, no non-conservative load), and Lagrange's
    /// equations hold off the constraint manifold (not spatial), so Q can be checked from T, V.
    pub lagrange_exact: bool,
}

struct Builder {
    entries: Vec<String>,
    params: Vec<String>,
    arrays: Vec<(String, usize)>,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            entries: Vec::new(),
            params: Vec::new(),
            arrays: Vec::new(),
        }
    }

    fn param(&mut self, name: &str) -> String {
        if !self.params.iter().any(|p| p == name) {
            self.params.push(name.to_string());
        }
        name.to_string()
    }

    fn entry(&mut self, e: String) {
        self.entries.push(e);
    }

    fn finish(self, rng: &mut Rng) -> String {
        let sep = if chance(rng, 0.9) {
            ",\n    "
        } else {
            ";\n    "
        };
        let mut fields: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("pub {p}: f64"))
            .collect();
        fields.extend(
            self.arrays
                .iter()
                .map(|(p, n)| format!("pub {p}: [f64; {n}]")),
        );
        format!(
            "#[model(\n    {}\n)]\npub struct Fuzz {{ {} }}\n",
            self.entries.join(sep),
            fields.join(", ")
        )
    }
}

const NAMES: [&str; 10] = ["x", "y", "th", "q1", "q2", "s", "u", "w", "alpha", "zeta"];
const PARAMS: [&str; 7] = ["a", "b", "c", "kk", "ll", "mm", "rr"];

fn distinct(rng: &mut Rng, pool: &[&str], n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    while out.len() < n {
        let c = pick(rng, pool).to_string();
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn dot(name: &str) -> String {
    match name.split_once('[') {
        Some((base, rest)) => format!("{base}_dot[{rest}"),
        None => format!("{name}_dot"),
    }
}

/// A valid model of a random shape.
pub fn generate(rng: &mut Rng) -> Generated {
    let shape = *pick(rng, &SHAPES);
    generate_shape(rng, shape)
}

/// A valid model of the given shape.
pub fn generate_shape(rng: &mut Rng, shape: Shape) -> Generated {
    let smooth = chance(rng, 0.7);
    let mut b = Builder::new();
    let mut lagrange_exact = false;
    let draw_scope = match shape {
        Shape::Explicit => explicit(rng, &mut b, smooth),
        Shape::Lagrangian => {
            let (scope, exact) = lagrangian(rng, &mut b, smooth);
            lagrange_exact = exact;
            scope
        }
        Shape::Family => family(rng, &mut b, smooth),
        Shape::Planar => {
            let (scope, exact) = planar(rng, &mut b, smooth);
            lagrange_exact = exact;
            scope
        }
        Shape::Placed => placed(rng, &mut b, smooth),
        Shape::BodyEnergy => {
            lagrange_exact = true;
            body_energy(rng, &mut b, smooth)
        }
        Shape::Spatial => spatial(rng, &mut b, smooth),
        Shape::PlacedSpatial => placed_spatial(rng, &mut b, smooth),
    };
    if chance(rng, 0.3) {
        draw(rng, &mut b, &draw_scope);
    }
    if chance(rng, 0.25) {
        b.entry("tangents: true".into());
    }
    if chance(rng, 0.3) {
        events(rng, &mut b, &draw_scope);
    }
    Generated {
        text: b.finish(rng),
        shape,
        smooth,
        lagrange_exact,
    }
}

fn base_scope(rng: &mut Rng, b: &mut Builder, n: usize, smooth: bool) -> Scope {
    let q = distinct(rng, &NAMES, n);
    let count = 1 + below(rng, 3);
    let mut p: Vec<String> = distinct(rng, &PARAMS, count)
        .iter()
        .map(|p| b.param(p))
        .collect();
    b.entry(format!("coordinates: [{}]", q.join(", ")));
    if chance(rng, 0.5) {
        b.entry(format!("const g = {}", number(rng)));
        p.push("g".into());
    }
    let v = q.iter().map(|x| dot(x)).collect();
    Scope {
        q,
        v,
        p,
        time: true,
        smooth,
    }
}

fn lets(rng: &mut Rng, b: &mut Builder, scope: &mut Scope, velocities: bool) {
    for k in 0..below(rng, 3) {
        // `let` names are not symbols of the generated code: any Rust identifier.
        let name = format!("{}{k}", pick(rng, &["e", "ε", "ñu", "r_"]));
        let inner = if velocities {
            scope.clone()
        } else {
            scope.without_v()
        };
        b.entry(format!("let {name} = {}", expr(rng, &inner, 3)));
        if velocities {
            scope.p.push(name);
        } else {
            scope.q.push(name);
        }
    }
}

fn explicit(rng: &mut Rng, b: &mut Builder, smooth: bool) -> Scope {
    let n = 1 + below(rng, 3);
    let mut scope = base_scope(rng, b, n, smooth);
    let coords = scope.q.clone();
    lets(rng, b, &mut scope, false);
    let position = scope.without_v();
    let rows: Vec<String> = (0..below(rng, n))
        .map(|i| {
            let e = expr(rng, &position, 3);
            if chance(rng, 0.4) {
                format!("row{i} = {e}")
            } else {
                e
            }
        })
        .collect();
    if !rows.is_empty() || chance(rng, 0.3) {
        b.entry(format!("holonomic: [{}]", rows.join(", ")));
    }
    if n >= 2 && chance(rng, 0.25) {
        let terms: Vec<String> = coords
            .iter()
            .map(|c| format!("({}) * {}", expr(rng, &position, 2), dot(c)))
            .collect();
        b.entry(format!(
            "nonholonomic: [{} + {}]",
            terms.join(" + "),
            expr(rng, &position, 2)
        ));
    }
    let fixed = position.without_t();
    if chance(rng, 0.5) {
        let diag: Vec<String> = (0..n).map(|_| positive_expr(rng, &fixed, 2)).collect();
        b.entry(format!("mass: diag({})", diag.join(", ")));
    } else {
        let mut m = vec![vec![String::new(); n]; n];
        for i in 0..n {
            m[i][i] = format!("4.0 + {}", positive_expr(rng, &fixed, 2));
            for j in 0..i {
                let off = format!("0.3 * ({}).sin()", expr(rng, &fixed, 2));
                m[i][j] = off.clone();
                m[j][i] = off;
            }
        }
        let rows: Vec<String> = m.iter().map(|r| format!("[{}]", r.join(", "))).collect();
        b.entry(format!("mass: [{}]", rows.join(", ")));
    }
    let force: Vec<String> = (0..n).map(|_| expr(rng, &scope, 3)).collect();
    b.entry(format!("force: [{}]", force.join(", ")));
    position
}

fn lagrangian(rng: &mut Rng, b: &mut Builder, smooth: bool) -> (Scope, bool) {
    let n = 1 + below(rng, 3);
    let mut scope = base_scope(rng, b, n, smooth);
    let coords = scope.q.clone();
    lets(rng, b, &mut scope, false);
    let position = scope.without_v().without_t();
    let mut t: Vec<String> = coords
        .iter()
        .map(|c| {
            format!(
                "({}) / 2.0 * {}.powi(2)",
                positive_expr(rng, &position, 2),
                dot(c)
            )
        })
        .collect();
    if n >= 2 && chance(rng, 0.5) {
        t.push(format!(
            "0.2 * ({}).sin() * {} * {}",
            expr(rng, &position, 2),
            dot(&coords[0]),
            dot(&coords[1])
        ));
    }
    b.entry(format!("kinetic: {}", t.join(" + ")));
    b.entry(format!("potential: {}", expr(rng, &scope.without_v(), 3)));
    let rows = below(rng, n);
    if rows > 0 {
        let r: Vec<String> = (0..rows)
            .map(|_| expr(rng, &scope.without_v(), 3))
            .collect();
        b.entry(format!("holonomic: [{}]", r.join(", ")));
    }
    let with_force = chance(rng, 0.3);
    if with_force {
        let f: Vec<String> = (0..n).map(|_| expr(rng, &scope, 2)).collect();
        b.entry(format!("force: [{}]", f.join(", ")));
    }
    (scope.without_v(), !with_force)
}

fn family(rng: &mut Rng, b: &mut Builder, smooth: bool) -> Scope {
    let big_n = 1 + below(rng, 3);
    let inclusive = chance(rng, 0.5);
    let count = big_n + usize::from(inclusive);
    let range = if inclusive { "0..=N" } else { "0..N" };
    b.entry(format!("const N = {big_n}"));
    b.entry(format!("coordinates: [th[{range}]]"));
    let ll = b.param("ll");
    let array = chance(rng, 0.5);
    let mass = if array {
        b.arrays.push(("mm".into(), count));
        "mm[i]".to_string()
    } else {
        b.param("mm")
    };
    let q: Vec<String> = (0..count).map(|i| format!("th[{i}]")).collect();
    let scope = Scope {
        q: q.clone(),
        v: Vec::new(),
        p: vec![ll.clone()],
        time: false,
        smooth,
    };
    b.entry(format!(
        "let px[i in {range}] = {ll} * th[i].cos() + i * {ll}"
    ));
    b.entry(format!("let py[i in {range}] = {ll} * th[i].sin()"));
    if count >= 2 && chance(rng, 0.7) {
        b.entry(format!(
            "holonomic: [for i in 0..{} {{ link = (px[i + 1] - px[i]).powi(2) + (py[i + 1] - py[i]).powi(2) - {}.powi(2) }}]",
            count - 1,
            ll
        ));
    }
    let extra = expr(rng, &scope, 2);
    b.entry(format!(
        "kinetic: sum(for i in {range} {{ {mass} * {ll}.powi(2) / 6.0 * th_dot[i].powi(2) }})"
    ));
    b.entry(format!(
        "potential: sum(for i in {range} {{ {mass} * 9.81 * py[i] }}) + 0.1 * ({extra}).powi(2)"
    ));
    if chance(rng, 0.3) {
        b.entry(format!("force: [for i in {range} {{ -0.1 * th_dot[i] }}]"));
    }
    scope
}

fn point2(rng: &mut Rng) -> String {
    format!("[{}, {}]", number(rng), number(rng))
}

fn point3(rng: &mut Rng) -> String {
    format!("[{}, {}, {}]", number(rng), number(rng), number(rng))
}

fn driver(rng: &mut Rng) -> String {
    format!("{} * t + 0.1 * ({} * t).sin()", number(rng), number(rng))
}

fn planar(rng: &mut Rng, b: &mut Builder, smooth: bool) -> (Scope, bool) {
    let k = 1 + below(rng, 3);
    let names: Vec<String> = (0..k).map(|i| format!("b{i}")).collect();
    let bodies: Vec<String> = names
        .iter()
        .map(|n| format!("{n} = body({}, {})", positive(rng), positive(rng)))
        .collect();
    b.entry(format!("bodies: [{}]", bodies.join(", ")));
    let g = b.param("g");
    let mut frames: Vec<String> = vec!["ground".into()];
    frames.extend(names.iter().cloned());
    let mut joints = Vec::new();
    for (j, body) in names.iter().enumerate() {
        let other = frames[below(rng, j + 1)].clone();
        let joint = match below(rng, 7) {
            0 | 1 => format!(
                "revolute({other}, {}, {body}, {})",
                point2(rng),
                point2(rng)
            ),
            2 => format!(
                "translational({other}, {}, {body}, {})",
                point2(rng),
                point2(rng)
            ),
            3 => format!(
                "distance({other}, {}, {body}, {}, {})",
                point2(rng),
                point2(rng),
                positive(rng)
            ),
            4 => format!(
                "revolute_translational({other}, {}, {body}, {}, {})",
                point2(rng),
                point2(rng),
                positive(rng)
            ),
            5 => format!(
                "absolute({body}, {}, {})",
                pick(rng, &["x", "y", "phi"]),
                driver(rng)
            ),
            _ => format!("relative({other}, {body}, {})", driver(rng)),
        };
        if !joint.starts_with("relative(ground") {
            joints.push(format!("j{j} = {joint}"));
        }
    }
    if chance(rng, 0.1) {
        joints.push(format!("jf = fixed({}, ground)", names[0]));
    }
    b.entry(format!("joints: [{}]", joints.join(", ")));
    let mut loads = vec![format!("gravity([0.0, -{g}])")];
    let mut exact = true;
    let scope = Scope {
        q: Vec::new(),
        v: Vec::new(),
        p: vec![g.clone()],
        time: true,
        smooth,
    };
    for _ in 0..below(rng, 3) {
        exact = false;
        let body = pick(rng, &names).clone();
        let other = pick(rng, &frames).clone();
        loads.push(match below(rng, 4) {
            0 => format!(
                "force({body}, {}, [{}, {}])",
                point2(rng),
                expr(rng, &scope, 2),
                expr(rng, &scope, 2)
            ),
            1 => format!("torque({body}, {})", expr(rng, &scope, 2)),
            2 if other != body => format!(
                "tsda({other}, {}, {body}, {}, {}, {}, {}, {})",
                point2(rng),
                point2(rng),
                positive(rng),
                positive(rng),
                positive(rng),
                number(rng)
            ),
            3 if other != body => format!(
                "rsda({other}, {body}, {}, {}, {}, {})",
                positive(rng),
                positive(rng),
                number(rng),
                number(rng)
            ),
            _ => format!("torque({body}, {})", number(rng)),
        });
    }
    b.entry(format!("loads: [{}]", loads.join(", ")));
    let q = names
        .iter()
        .flat_map(|n| ["x", "y", "phi"].map(|c| format!("{n}_{c}")))
        .collect();
    (Scope { q, ..scope }, exact)
}

fn placed(rng: &mut Rng, b: &mut Builder, smooth: bool) -> Scope {
    let n = 1 + below(rng, 2);
    let scope = base_scope(rng, b, n, smooth);
    let position = scope.without_v().without_t();
    let bodies: Vec<String> = (0..1 + below(rng, 2))
        .map(|i| {
            format!(
                "r{i} = body({}, {}, [{}, {}, {}])",
                positive(rng),
                positive(rng),
                expr(rng, &position, 2),
                expr(rng, &position, 2),
                expr(rng, &position, 2)
            )
        })
        .collect();
    b.entry(format!("bodies: [{}]", bodies.join(", ")));
    b.entry("loads: [gravity([0.0, -9.81])]".into());
    if chance(rng, 0.3) {
        b.entry(format!("potential: {}", expr(rng, &position, 2)));
    }
    position
}

fn body_energy(rng: &mut Rng, b: &mut Builder, smooth: bool) -> Scope {
    let n = 1 + below(rng, 2);
    let scope = base_scope(rng, b, n, smooth);
    let position = scope.without_v().without_t();
    let mut terms: Vec<String> = (0..1 + below(rng, 2))
        .map(|_| {
            format!(
                "body_energy({}, {}, [{}, {}, {}])",
                positive(rng),
                positive(rng),
                expr(rng, &position, 2),
                expr(rng, &position, 2),
                expr(rng, &position, 2)
            )
        })
        .collect();
    let first = scope.q[0].clone();
    terms.push(format!("0.5 * {}.powi(2)", dot(&first)));
    b.entry(format!("kinetic: {}", terms.join(" + ")));
    b.entry(format!("potential: {}", expr(rng, &position, 2)));
    position
}

fn spatial(rng: &mut Rng, b: &mut Builder, smooth: bool) -> Scope {
    let k = 1 + below(rng, 2);
    let names: Vec<String> = (0..k).map(|i| format!("s{i}")).collect();
    let bodies: Vec<String> = names
        .iter()
        .map(|n| {
            if chance(rng, 0.8) {
                format!(
                    "{n} = body({}, [{}, {}, {}])",
                    positive(rng),
                    positive(rng),
                    positive(rng),
                    positive(rng)
                )
            } else {
                format!("{n} = body(1.0, [[2.0, 0.1, 0.0], [0.1, 1.5, 0.0], [0.0, 0.0, 1.0]])")
            }
        })
        .collect();
    b.entry(format!("bodies: [{}]", bodies.join(", ")));
    let g = b.param("g");
    let mut frames: Vec<String> = vec!["ground".into()];
    frames.extend(names.iter().cloned());
    let axis = |rng: &mut Rng| {
        pick(
            rng,
            &[
                "[1.0, 0.0, 0.0]",
                "[0.0, 1.0, 0.0]",
                "[0.0, 0.0, 1.0]",
                "[1.0, 1.0, 0.0]",
            ],
        )
        .to_string()
    };
    let mut joints = Vec::new();
    let mut hinges = Vec::new();
    for (j, body) in names.iter().enumerate() {
        let other = frames[below(rng, j + 1)].clone();
        let kind = *pick(
            rng,
            &[
                "spherical",
                "revolute",
                "universal",
                "cylindrical",
                "translational",
                "planar",
                "distance",
                "spherical_spherical",
                "fixed",
            ],
        );
        let joint = match kind {
            "spherical" => format!(
                "spherical({body}, {}, {other}, {})",
                point3(rng),
                point3(rng)
            ),
            "distance" | "spherical_spherical" => format!(
                "{kind}({body}, {}, {other}, {}, {})",
                point3(rng),
                point3(rng),
                positive(rng)
            ),
            "fixed" => format!("fixed({body}, {}, {other}, {})", point3(rng), point3(rng)),
            "universal" => format!(
                "universal({body}, {}, [1.0, 0.0, 0.0], {other}, {}, [0.0, 1.0, 0.0])",
                point3(rng),
                point3(rng)
            ),
            _ => {
                let h = axis(rng);
                format!(
                    "{kind}({body}, {}, {h}, {other}, {}, {h})",
                    point3(rng),
                    point3(rng)
                )
            }
        };
        if kind == "revolute" || kind == "cylindrical" {
            hinges.push(format!("j{j}"));
        }
        joints.push(format!("j{j} = {joint}"));
    }
    if let Some(h) = hinges.first()
        && chance(rng, 0.3)
    {
        joints.push(format!("drive = rotation({h}, {})", driver(rng)));
    }
    b.entry(format!("joints: [{}]", joints.join(", ")));
    let mut loads = vec![format!("gravity([0.0, 0.0, -{g}])")];
    let scope = Scope {
        q: Vec::new(),
        v: Vec::new(),
        p: vec![g.clone()],
        time: true,
        smooth,
    };
    for _ in 0..below(rng, 3) {
        let body = pick(rng, &names).clone();
        loads.push(match below(rng, 5) {
            0 => format!(
                "force({body}, {}, [{}, 0.0, {}])",
                point3(rng),
                expr(rng, &scope, 2),
                number(rng)
            ),
            1 => format!(
                "force_local({body}, {}, [0.0, {}, 0.0])",
                point3(rng),
                expr(rng, &scope, 2)
            ),
            2 => format!("torque({body}, [0.0, 0.0, {}])", expr(rng, &scope, 2)),
            3 => format!("torque_local({body}, [{}, 0.0, 0.0])", number(rng)),
            _ => match hinges.first() {
                Some(h) => format!(
                    "rsda({h}, {}, {}, {}, {})",
                    positive(rng),
                    positive(rng),
                    number(rng),
                    number(rng)
                ),
                None => format!(
                    "tsda(ground, {}, {body}, {}, {}, {}, {}, 0.0)",
                    point3(rng),
                    point3(rng),
                    positive(rng),
                    positive(rng),
                    positive(rng)
                ),
            },
        });
    }
    b.entry(format!("loads: [{}]", loads.join(", ")));
    let q = names
        .iter()
        .flat_map(|n| ["x", "y", "z"].map(|c| format!("{n}_{c}")))
        .collect();
    Scope { q, ..scope }
}

/// `events: [NAME = g => ACTION, …]`: one to three slots of the four actions, each as the
/// front end accepts it — stop and handler on g(t, q, v), an impact on a position g with a
/// restitution of parameters and literals, a friction slot on a v_rel linear in the velocities
/// with literal coefficients and a normal force of the state.
fn events(rng: &mut Rng, b: &mut Builder, scope: &Scope) {
    let position = Scope {
        v: Vec::new(),
        p: b.params.clone(),
        ..scope.clone()
    };
    let mut slots = Vec::new();
    for k in 0..1 + below(rng, 3) {
        let name = format!("{}{k}", pick(rng, &["hit", "é", "stop_", "ev"]));
        let direction = *pick(rng, &["rising", "falling", "both"]);
        let slot = match below(rng, 4) {
            0 => format!("{name} = {} => stop({direction})", expr(rng, scope, 2)),
            1 => format!("{name} = {} => handler({direction})", expr(rng, scope, 2)),
            2 => {
                let e = match position.p.first() {
                    Some(p) if chance(rng, 0.5) => format!("0.5 * {p}"),
                    _ => format!("{:.2}", rng.uniform(0.0, 1.0)),
                };
                format!("{name} = {} => impact({e})", expr(rng, &position, 2))
            }
            _ if !scope.v.is_empty() => {
                let v = pick(rng, &scope.v).clone();
                let coefficient = expr(rng, &position, 1);
                let offset = expr(rng, &position, 1);
                let (mu_s, mu_k) = (rng.uniform(0.3, 0.8), rng.uniform(0.1, 0.3));
                let normal = positive_expr(rng, scope, 1);
                format!(
                    "{name} = {v} * ({coefficient}) + {offset} => friction({mu_s:.2}, {mu_k:.2}, {normal})"
                )
            }
            _ => format!("{name} = {} => stop(both)", expr(rng, &position, 2)),
        };
        slots.push(slot);
    }
    b.entry(format!("events: [{}]", slots.join(", ")));
}

/// Spatial bodies placed by expressions of q: rotations from elementary and constant-axis
/// factors, later bodies hanging from earlier ones by `point` and `orientation`, with loads.
fn placed_spatial(rng: &mut Rng, b: &mut Builder, smooth: bool) -> Scope {
    let n = 1 + below(rng, 3);
    let scope = base_scope(rng, b, n, smooth);
    let position = scope.without_v().without_t();
    let rotation = |rng: &mut Rng| {
        let angle = expr(rng, &position, 2);
        match below(rng, 4) {
            0 => format!("rot_x({angle})"),
            1 => format!("rot_y({angle})"),
            2 => format!("rot_z({angle})"),
            _ => format!("rot([1.0, 1.0, 0.0], {angle})"),
        }
    };
    let count = 1 + below(rng, 3);
    let names: Vec<String> = (0..count).map(|i| format!("t{i}")).collect();
    let mut bodies = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let inertia = format!("[{}, {}, {}]", positive(rng), positive(rng), positive(rng));
        let own = rotation(rng);
        let (place, turn) = match i {
            0 => (format!("{} * {}", own, point3(rng)), own),
            _ if chance(rng, 0.3) => (
                format!(
                    "[{}, {}, {}]",
                    expr(rng, &position, 2),
                    number(rng),
                    number(rng)
                ),
                own,
            ),
            _ => {
                let parent = &names[i - 1];
                let turn = format!("orientation({parent}) * {own}");
                (
                    format!(
                        "point({parent}, {}) + {turn} * {}",
                        point3(rng),
                        point3(rng)
                    ),
                    turn,
                )
            }
        };
        bodies.push(format!(
            "{name} = body({}, {inertia}, {place}, {turn})",
            positive(rng)
        ));
    }
    b.entry(format!("bodies: [{}]", bodies.join(", ")));
    let mut loads = vec!["gravity([0.0, 0.0, -9.81])".to_string()];
    for _ in 0..below(rng, 3) {
        let body = pick(rng, &names).clone();
        loads.push(match below(rng, 4) {
            0 => format!(
                "force({body}, {}, [{}, 0.0, 1.0])",
                point3(rng),
                number(rng)
            ),
            1 => format!("torque_local({body}, [{}, 0.0, 0.0])", number(rng)),
            2 => format!("torque({body}, [0.0, {}, 0.0])", number(rng)),
            _ => format!(
                "tsda(ground, {}, {body}, {}, {}, {}, {}, 0.0)",
                point3(rng),
                point3(rng),
                positive(rng),
                positive(rng),
                positive(rng)
            ),
        });
    }
    b.entry(format!("loads: [{}]", loads.join(", ")));
    if chance(rng, 0.3) {
        b.entry(format!("potential: {}", expr(rng, &position, 2)));
    }
    position
}

fn draw(rng: &mut Rng, b: &mut Builder, scope: &Scope) {
    let scope = Scope {
        v: Vec::new(),
        ..scope.clone()
    };
    let points: Vec<String> = (0..1 + below(rng, 3))
        .map(|i| {
            format!(
                "P{i} = ({}, {})",
                expr(rng, &scope, 2),
                expr(rng, &scope, 2)
            )
        })
        .collect();
    let count = points.len();
    let segments: Vec<String> = (0..below(rng, count + 1))
        .map(|_| format!("(O, P{})", below(rng, count)))
        .collect();
    b.entry(format!(
        "draw: {{ points: [O = (0.0, 0.0), {}], segments: [{}] }}",
        points.join(", "),
        segments.join(", ")
    ));
}

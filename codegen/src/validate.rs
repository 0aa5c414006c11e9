//! Checks a [`Model`] before derivation: declared symbols only, no velocities in Φ or M,
//! nonholonomic rows linear in v, M symmetric. Each failure names the offending expression.
//! Like every pass, the node matches list every [`Node`] kind (no catch-all arm).

use crate::error::ModelError;
use crate::model::Model;
use crate::pool::{ExprId, Node, Pool, SymbolKind};

/// Validate a model whose shapes are already checked.
pub(crate) fn validate(model: &mut Model) -> Result<(), ModelError> {
    let n = model.n();
    let labelled = labelled_outputs(model);
    let flags = Flags::compute(&model.pool, &labelled);
    for (location, e) in &labelled {
        if flags.of(*e).free {
            let name =
                first_symbol(&model.pool, *e, |k| matches!(k, SymbolKind::Free)).expect("flagged");
            let expr = model.pool.to_sexpr(*e);
            return Err(ModelError::UnknownSymbol {
                location: location.clone(),
                name,
                expr,
            });
        }
        if flags.of(*e).divides_by_zero {
            let expr = model.pool.to_sexpr(*e);
            return Err(ModelError::DivisionByZero {
                location: location.clone(),
                expr,
            });
        }
    }
    for (location, e) in &labelled {
        let what = if location.starts_with("holonomic") {
            "a holonomic constraint"
        } else if location.starts_with("mass") {
            "the mass matrix"
        } else {
            continue;
        };
        if flags.of(*e).velocity {
            let velocity = first_symbol(&model.pool, *e, |k| matches!(k, SymbolKind::Velocity(_)))
                .expect("flagged");
            let expr = model.pool.to_sexpr(*e);
            return Err(ModelError::VelocityDependence {
                location: location.clone(),
                what,
                expr,
                velocity,
            });
        }
    }
    check_linear_in_velocity(model)?;
    for i in 0..n {
        for j in i + 1..n {
            let (upper, lower) = (model.mass[i * n + j], model.mass[j * n + i]);
            if upper != lower {
                let (upper, lower) = (model.pool.to_sexpr(upper), model.pool.to_sexpr(lower));
                return Err(ModelError::NotSymmetric {
                    row: i,
                    col: j,
                    upper,
                    lower,
                });
            }
        }
    }
    Ok(())
}

/// What a subexpression contains, computed once for every node reachable from the outputs.
#[derive(Clone, Copy, Default)]
struct Flag {
    free: bool,
    velocity: bool,
    divides_by_zero: bool,
}

struct Flags(Vec<Flag>);

impl Flags {
    fn compute(pool: &Pool, labelled: &[(String, ExprId)]) -> Flags {
        let roots: Vec<ExprId> = labelled.iter().map(|(_, e)| *e).collect();
        let mut flags = vec![Flag::default(); pool.len()];
        for id in pool.reachable(&roots) {
            let node = pool.node(id);
            let mut f = match node {
                Node::Sym(s) => Flag {
                    free: matches!(pool.symbol_info(*s).kind, SymbolKind::Free),
                    velocity: matches!(pool.symbol_info(*s).kind, SymbolKind::Velocity(_)),
                    divides_by_zero: false,
                },
                Node::Pow(b, e) => Flag {
                    divides_by_zero: pool.as_number(*b).is_some_and(|b| b.is_zero())
                        && pool.as_number(*e).is_some_and(|e| e.is_negative()),
                    ..Flag::default()
                },
                Node::Num(_)
                | Node::Add(_)
                | Node::Mul(_)
                | Node::Func(..)
                | Node::Atan2(..)
                | Node::Min(..)
                | Node::Max(..)
                | Node::Cmp(..)
                | Node::Select(..) => Flag::default(),
            };
            for c in crate::pool::children(node) {
                let cf = flags[c.index()];
                f.free |= cf.free;
                f.velocity |= cf.velocity;
                f.divides_by_zero |= cf.divides_by_zero;
            }
            flags[id.index()] = f;
        }
        Flags(flags)
    }

    fn of(&self, e: ExprId) -> Flag {
        self.0[e.index()]
    }
}

fn labelled_outputs(model: &Model) -> Vec<(String, ExprId)> {
    let n = model.n();
    let mut out = Vec::new();
    out.extend(
        model
            .holonomic
            .iter()
            .enumerate()
            .map(|(i, &e)| (format!("holonomic[{i}]"), e)),
    );
    out.extend(
        model
            .nonholonomic
            .iter()
            .enumerate()
            .map(|(i, &e)| (format!("nonholonomic[{i}]"), e)),
    );
    out.extend(
        model
            .mass
            .iter()
            .enumerate()
            .map(|(i, &e)| (format!("mass[{}][{}]", i / n, i % n), e)),
    );
    out.extend(
        model
            .force
            .iter()
            .enumerate()
            .map(|(i, &e)| (format!("force[{i}]"), e)),
    );
    out
}

fn check_linear_in_velocity(model: &mut Model) -> Result<(), ModelError> {
    let velocities = model.v();
    for (row, &e) in model.nonholonomic.clone().iter().enumerate() {
        for &v in &velocities {
            let d = model.pool.diff(e, v);
            if first_symbol(&model.pool, d, |k| matches!(k, SymbolKind::Velocity(_))).is_some() {
                return Err(ModelError::NotLinearInVelocity {
                    location: format!("nonholonomic[{row}]"),
                    expr: model.pool.to_sexpr(e),
                    velocity: model.pool.to_sexpr(v),
                    derivative: model.pool.to_sexpr(d),
                });
            }
        }
    }
    Ok(())
}

/// The name of the first symbol (in id order) of a kind matching `pred` that occurs in `root`.
fn first_symbol(pool: &Pool, root: ExprId, pred: impl Fn(&SymbolKind) -> bool) -> Option<String> {
    pool.reachable(&[root])
        .into_iter()
        .find_map(|id| match pool.node(id) {
            Node::Sym(s) => {
                let info = pool.symbol_info(*s);
                pred(&info.kind).then(|| info.name.clone())
            }
            Node::Num(_)
            | Node::Add(_)
            | Node::Mul(_)
            | Node::Pow(..)
            | Node::Func(..)
            | Node::Atan2(..)
            | Node::Min(..)
            | Node::Max(..)
            | Node::Cmp(..)
            | Node::Select(..) => None,
        })
}

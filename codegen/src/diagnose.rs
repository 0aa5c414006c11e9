//! Diagnostics decided at generation time, from the expressions alone (issue 12's "where it can
//! be decided symbolically"; the numerical rank at a state is the runtime's
//! `analysis::diagnostics`):
//!
//! - **repeated rows**: a constraint row equal to an earlier one, or to its negation (the same
//!   canonical expression): always linearly dependent, at every state;
//! - **structural rank** of G = [Φ_q; A]: the size of a maximum matching of rows to columns over
//!   the structural nonzeros (Hopcroft–Karp style augmenting paths). No numerical rank can
//!   exceed it, so n − structural rank bounds the degrees of freedom from below, and the rows a
//!   maximum matching leaves unmatched are dependent at every state (structurally redundant).

use crate::kernels::Kernels;
use crate::model::Model;
use crate::pool::ExprId;

/// What the generator can tell about a model's constraints without evaluating them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    /// Rows equal to an earlier row (or its negation): (earlier row's name, row's name).
    pub repeated_rows: Vec<(String, String)>,
    /// Size of a maximum matching of G's rows to its columns over the structural nonzeros.
    pub structural_rank: usize,
    /// Rows of G a maximum matching leaves unmatched (dependent at every state), by name.
    pub structurally_redundant: Vec<String>,
}

/// The generation-time diagnostics of `model` with its derived `kernels`.
pub fn diagnose(model: &Model, kernels: &Kernels) -> Diagnostics {
    let names = model.constraint_names();
    let rows: Vec<ExprId> = model
        .holonomic
        .iter()
        .chain(&model.nonholonomic)
        .copied()
        .collect();
    let g = kernels.jacobian();
    let pattern: Vec<Vec<usize>> = (0..g.rows)
        .map(|r| {
            (0..g.cols)
                .filter(|&c| !model.pool.is_zero(g.entries[r * g.cols + c]))
                .collect()
        })
        .collect();
    let matched = maximum_matching(&pattern, g.cols);
    Diagnostics {
        repeated_rows: repeated_rows(model, &rows, &names),
        structural_rank: matched.iter().filter(|m| m.is_some()).count(),
        structurally_redundant: matched
            .iter()
            .zip(&names)
            .filter(|(m, _)| m.is_none())
            .map(|(_, name)| name.clone())
            .collect(),
    }
}

/// Pairs (earlier, later) of rows whose expressions are equal or opposite: canonical forms are
/// unique, so equal rows are the same node, and an opposite row is the node of −e (built in a
/// scratch copy of the pool, which the model owns immutably here).
fn repeated_rows(model: &Model, rows: &[ExprId], names: &[String]) -> Vec<(String, String)> {
    let mut pool = model.pool.clone();
    let negated: Vec<ExprId> = rows.iter().map(|&r| pool.neg(r)).collect();
    let mut pairs = Vec::new();
    for j in 0..rows.len() {
        if let Some(i) = (0..j).find(|&i| rows[i] == rows[j] || negated[i] == rows[j]) {
            pairs.push((names[i].clone(), names[j].clone()));
        }
    }
    pairs
}

/// A maximum matching of rows to columns (`pattern[r]` lists row r's nonzero columns): for
/// each row its matched column, by augmenting paths found with a depth-first search per row
/// (O(rows · nonzeros), ample for constraint Jacobians).
pub fn maximum_matching(pattern: &[Vec<usize>], cols: usize) -> Vec<Option<usize>> {
    let mut row_of_col: Vec<Option<usize>> = vec![None; cols];
    let mut col_of_row: Vec<Option<usize>> = vec![None; pattern.len()];
    for r in 0..pattern.len() {
        let mut visited = vec![false; cols];
        augment(pattern, r, &mut visited, &mut row_of_col, &mut col_of_row);
    }
    col_of_row
}

/// Try to match row `r`, re-matching earlier rows along an alternating path (iterative DFS,
/// so deep chains do not overflow the stack).
fn augment(
    pattern: &[Vec<usize>],
    r: usize,
    visited: &mut [bool],
    row_of_col: &mut [Option<usize>],
    col_of_row: &mut [Option<usize>],
) -> bool {
    // Stack of (row, next column index to try); `via[k]` is the column that led to stack[k + 1].
    let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
    let mut via: Vec<usize> = Vec::new();
    while let Some(&mut (row, ref mut next)) = stack.last_mut() {
        let Some(&c) = pattern[row].get(*next) else {
            stack.pop();
            via.pop();
            continue;
        };
        *next += 1;
        if visited[c] {
            continue;
        }
        visited[c] = true;
        via.push(c);
        match row_of_col[c] {
            None => {
                // Flip the path: each row on the stack takes the column that follows it.
                for (k, &(row_k, _)) in stack.iter().enumerate() {
                    let col = via[k];
                    row_of_col[col] = Some(row_k);
                    col_of_row[row_k] = Some(col);
                }
                return true;
            }
            Some(other) => stack.push((other, 0)),
        }
    }
    false
}

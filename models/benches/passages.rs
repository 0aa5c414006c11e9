//! The full singular-passage matrix of issue 22, item 5 (`tests/suite/passages_matrix.rs`):
//! every method × tolerance (1e-4 … 1e-12) or constant step (1e-2 … 1e-5) × form of the IFToMM
//! A02 N-four-bar over 20 s, against the exact 1-DOF reduction.
//!
//! `cargo bench -p mbsim-models --bench passages` prints the whole table (several minutes:
//! the body form at the small constant steps dominates); arguments restrict it: any of a
//! form (`angles`, `bodies`), method names as in the table (`radau`, `hht-h`, `rk4-h`, …), a
//! parameter (`1e-8`; any tolerances or steps given replace the grid, for sweeps), `--t-end T` and `--dense` (the model's sparse kernel forms hidden: the
//! dense path, as before the sparse one), e.g.
//! `cargo bench -p mbsim-models --bench passages -- bodies rkstab 1e-10`.
//!
//! With the word `stabilizations` it prints instead RKSTAB with every drift control × rtol
//! (1e-6, 1e-8, 1e-10 unless parameters are given) × form (`passages_stabilizations.rs`);
//! stabilization names as in its table (`s-both`, `continuous-ggt`, …) restrict it, and the
//! word `guard` runs them with the singular-passage guard (`+g` in the table).

#[path = "../tests/suite/passages_matrix.rs"]
mod passages_matrix;
#[path = "../tests/suite/passages_stabilizations.rs"]
mod passages_stabilizations;

use passages_matrix::{Form, Method, T_END, header, measure, output_times, reduction};

const TOLERANCES: [f64; 9] = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12];
const STEPS: [f64; 4] = [1e-2, 1e-3, 1e-4, 1e-5];

fn key(method: Method) -> String {
    method.name().replace(" --h", "-h")
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let (mut t_end, mut dense) = (T_END, false);
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--t-end" => t_end = it.next().and_then(|s| s.parse().ok()).expect("--t-end T"),
            "--dense" => dense = true,
            _ => words.push(a.clone()),
        }
    }
    let forms: Vec<Form> = [(Form::Angles, "angles"), (Form::Bodies, "bodies")]
        .into_iter()
        .filter(|(_, w)| {
            !words.iter().any(|x| x == "angles" || x == "bodies") || words.contains(&w.to_string())
        })
        .map(|(f, _)| f)
        .collect();
    let named: Vec<Method> = Method::ALL
        .into_iter()
        .filter(|m| words.contains(&key(*m)))
        .collect();
    let methods = if named.is_empty() {
        Method::ALL.to_vec()
    } else {
        named
    };
    let params: Vec<f64> = words.iter().filter_map(|w| w.parse().ok()).collect();
    let reference = reduction(&output_times(t_end));
    println!("{}", header());
    if words.iter().any(|w| w == "stabilizations") {
        stabilization_matrix(&forms, &words, &params, t_end, &reference);
        return;
    }
    for form in forms {
        for &method in &methods {
            let grid: &[f64] = if !params.is_empty() {
                // Any tolerances or steps given, on or off the table's grid (sweeps).
                &params
            } else if method.constant_step() {
                &STEPS
            } else {
                &TOLERANCES
            };
            for &x in grid {
                let cell = measure(method, x, (form, dense), t_end, &reference);
                println!("{cell}");
            }
        }
    }
}

/// The drift controls' table (module docs).
fn stabilization_matrix(
    forms: &[Form],
    words: &[String],
    params: &[f64],
    t_end: f64,
    reference: &[f64],
) {
    let all = passages_stabilizations::stabilizations();
    let named: Vec<_> = all
        .iter()
        .filter(|s| words.iter().any(|w| w == s.name()))
        .copied()
        .collect();
    let kinds = if named.is_empty() {
        all.to_vec()
    } else {
        named
    };
    let tolerances = if params.is_empty() {
        vec![1e-6, 1e-8, 1e-10]
    } else {
        params.to_vec()
    };
    for &form in forms {
        for &kind in &kinds {
            for &rtol in &tolerances {
                let guard = words.iter().any(|w| w == "guard");
                let cell = passages_stabilizations::measure_stabilized(
                    (kind, guard),
                    rtol,
                    form,
                    t_end,
                    reference,
                );
                println!("{cell}");
            }
        }
    }
}

//! The full singular-passage matrix of issue 22, item 5 (`tests/suite/passages_matrix.rs`):
//! every method × tolerance (1e-4 … 1e-12) or constant step (1e-2 … 1e-5) × form of the IFToMM
//! A02 N-four-bar over 20 s, against the exact 1-DOF reduction.
//!
//! `cargo bench -p mbsim-models --bench passages` prints the whole table (several minutes:
//! the body form at the small constant steps dominates); arguments restrict it: any of a
//! form (`angles`, `bodies`), method names as in the table (`radau`, `hht-h`, `rk4-h`, …), a
//! parameter (`1e-8`), `--t-end T` and `--dense` (the model's sparse kernel forms hidden: the
//! dense path, as before the sparse one), e.g.
//! `cargo bench -p mbsim-models --bench passages -- bodies rkstab 1e-10`.

#[path = "../tests/suite/passages_matrix.rs"]
mod passages_matrix;

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
    for form in forms {
        for &method in &methods {
            let grid: &[f64] = if method.constant_step() {
                &STEPS
            } else {
                &TOLERANCES
            };
            for &x in grid {
                if !params.is_empty() && !params.contains(&x) {
                    continue;
                }
                let cell = measure(method, x, (form, dense), t_end, &reference);
                println!("{cell}");
            }
        }
    }
}

//! Where the A02 chain's error under a constant-step method comes from: at every output time,
//! the cranks' spread (largest minus smallest angle and angular velocity) and their mean's
//! error against the exact 1-DOF reduction (the common phase). Used to measure the body form's
//! limit (`runtime/src/stabilize/projection.rs`, "Limit: body coordinates").
//!
//! `cargo run --release -p mbsim-models --example passage_probe -- METHOD X T_END DT [angles]`,
//! METHOD a name of the matrix's table (`rk4-h`, `mampc4-h`, `dop853`, `rkstab`, …; `rk4` and
//! `mampc4` stand for the constant-step ones), X its step size or rtol.

#[path = "../tests/suite/passages_matrix.rs"]
#[allow(dead_code)] // the matrix's printing and measuring parts are the bench's
mod passages_matrix;

use mbsim_runtime::Problem;
use passages_matrix::{Form, Method, reduction};

/// (smallest, largest) of `values`.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: passage_probe METHOD X T_END DT [angles]";
    let number = |i: usize| -> f64 { args.get(i).and_then(|s| s.parse().ok()).expect(usage) };
    let name = args.first().expect(usage).as_str();
    let name = match name {
        "rk4" | "mampc4" => format!("{name} --h"),
        other => other.replace("-h", " --h"),
    };
    let method = Method::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .expect(usage);
    let (h, t_end, dt) = (number(1), number(2), number(3));
    let form = match args.get(4).map(String::as_str) {
        Some("angles") => Form::Angles,
        _ => Form::Bodies,
    };
    let (sys, q0, v0, cranks) = form.setup();
    let count = (t_end / dt).round() as usize;
    let times: Vec<f64> = (0..=count).map(|k| (k as f64 * dt).min(t_end)).collect();
    let reference = reduction(&times);
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_times(&times);
    let (rec, _) = match method.run(sys.as_ref(), &problem, h) {
        Ok(run) => run,
        Err(e) => panic!("{e}"),
    };
    println!("t theta_ref mean_error spread_angle spread_rate");
    for (k, (q, v)) in rec.q.iter().zip(&rec.v).enumerate() {
        let mean = cranks.iter().map(|&i| q[i]).sum::<f64>() / cranks.len() as f64;
        let (lo, hi) = range(cranks.iter().map(|&i| q[i]));
        let (wlo, whi) = range(cranks.iter().map(|&i| v[i]));
        println!(
            "{:.4} {:.6} {:+.3e} {:.3e} {:.3e}",
            rec.t[k],
            reference[k],
            mean - reference[k],
            hi - lo,
            whi - wlo
        );
    }
}

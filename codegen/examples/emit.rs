//! Print the generated Rust for a fixture model: `cargo run -p mbsim-codegen --example emit -- chain 3` (also `andrews`, `rheonomic`, `zoo`, `lagrange N`, `bodies N`).
use mbsim_codegen::{emit, fixtures, kernels};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut model = match args.first().map(String::as_str) {
        Some("chain") => {
            fixtures::closed_chain(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(3))
        }
        Some("andrews") => fixtures::andrews(),
        Some("rheonomic") => fixtures::rheonomic(),
        Some("zoo") => fixtures::node_zoo(),
        Some("bodies") => {
            fixtures::n_link_pendulum_bodies(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(5))
        }
        Some("lagrange") => {
            fixtures::n_link_pendulum(args.get(1).and_then(|n| n.parse().ok()).unwrap_or(5))
        }
        _ => fixtures::cartesian_pendulum(),
    };
    let kernels = kernels::derive(&mut model);
    let options = emit::EmitOptions {
        with_struct: true,
        ..Default::default()
    };
    print!("{}", emit::emit_source(&model, &kernels, &options));
}

//! Generates the fixture models' kernels with `codegen` at build time, so the emitted Rust is
//! compiled as part of the test build (the bindgen "expectations compile" discipline). Every
//! fixture but the 20-link chain and the 12-link pendulum in bodies also gets its tangent
//! kernels (`Model::tangents`), so they are compiled and compared too, including through the
//! split-kernel path.

use mbsim_codegen::{Model, emit, fixtures, kernels};
use std::path::Path;

/// A generated file's name and the fixture it comes from.
type Fixture = (&'static str, fn() -> Model);

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let models: [Fixture; 8] = [
        ("cartesian_pendulum", fixtures::cartesian_pendulum),
        ("closed_chain3", || fixtures::closed_chain(3)),
        ("closed_chain20", || fixtures::closed_chain(20)),
        ("andrews", fixtures::andrews),
        ("rheonomic", fixtures::rheonomic),
        ("node_zoo", fixtures::node_zoo),
        // 66 nonzeros below M's diagonal: the mirrored (upper triangle computed) emission.
        ("bodies12", || fixtures::n_link_pendulum_bodies(12)),
        // KKT order 40 with nonholonomic rows: the sparse forms, the dense ones scattering them.
        ("skate_chain8", || fixtures::skate_chain(8)),
    ];
    let whole = emit::EmitOptions {
        with_struct: true,
        ..emit::EmitOptions::direct_runtime()
    };
    for (file, build) in models {
        let mut model = build();
        model.tangents = !matches!(file, "closed_chain20" | "bodies12");
        let kernels = kernels::derive(&mut model);
        write(&out_dir, file, &emit::emit_source(&model, &kernels, &whole));
    }
    // Andrews again with every kernel split into parts (the large-model emission path).
    let mut model = fixtures::andrews();
    model.name = "AndrewsSplit".into();
    model.tangents = true;
    let kernels = kernels::derive(&mut model);
    let split = emit::EmitOptions {
        max_statements_per_fn: 4,
        ..whole
    };
    write(
        &out_dir,
        "andrews_split",
        &emit::emit_source(&model, &kernels, &split),
    );
    // The skate chain split too: its dense forms scatter the split sparse forms from the heap.
    let mut model = fixtures::skate_chain(8);
    model.name = "SkateChain8Split".into();
    let kernels = kernels::derive(&mut model);
    write(
        &out_dir,
        "skate_chain8_split",
        &emit::emit_source(&model, &kernels, &split),
    );
}

fn write(out_dir: &str, file: &str, source: &str) {
    std::fs::write(Path::new(out_dir).join(format!("{file}.rs")), source)
        .expect("write generated kernels");
}

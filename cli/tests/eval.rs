//! `mbsim eval <file>` and `mbsim generate <file> --out DIR [--check]` end to end on model files:
//! kernel values and the runtime's KKT solve against closed forms, tangent kernels and
//! constraint names, and the errors a user meets (which model, which value, `file:line:col`).

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn mbsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbsim"))
        .args(args)
        .output()
        .expect("mbsim runs")
}

fn models_file(name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    root.join("../models/src").join(name).display().to_string()
}

fn eval(args: &[&str]) -> Result<Value, String> {
    let out = mbsim(&[&["eval"], args].concat());
    match out.status.success() {
        true => Ok(serde_json::from_slice(&out.stdout).expect("valid JSON")),
        false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
    }
}

fn numbers(v: &Value) -> Vec<f64> {
    let array = v
        .as_array()
        .unwrap_or_else(|| panic!("{v} is not an array"));
    array.iter().map(|x| x.as_f64().expect("number")).collect()
}

const PENDULUM_PARAMS: [&str; 6] = ["--param", "m=2", "--param", "len=1", "--param", "g=9.81"];

/// Pendulum at (len, 0) moving up at unit speed, m = 2, len = 1, g = 9.81: the constraint
/// force supplies the centripetal acceleration: v̇ = (−|v|²/len, −g), and from
/// m v̇_x + 2x λ = 0, λ = m/2. Exact up to the LU's rounding of a 3×3 system with entries of
/// order 10: 1e-14. The tangent ∂(Φ_qᵀλ)/∂q = 2λ I = 2 I at that λ (Φ = x² + y² − len²).
#[test]
fn pendulum_kernels_accelerations_and_tangents() {
    let file = models_file("pendulum.rs");
    let state = [file.as_str(), "--t", "0", "--q", "1,0", "--v", "0,1"];
    let out = eval(&[&state[..], &PENDULUM_PARAMS].concat()).expect("evaluates");
    assert_eq!(out["model"], "Pendulum");
    assert_eq!(numbers(&out["phi"]), [0.0]);
    assert_eq!(numbers(&out["phi_q"][0]), [2.0, 0.0]);
    assert_eq!(numbers(&out["gamma"]), [-2.0]);
    assert_eq!(numbers(&out["force"]), [0.0, -2.0 * 9.81]);
    assert_eq!(numbers(&out["mass"][1]), [0.0, 2.0]);
    assert_eq!(out["kkt"]["status"], "solved");
    let acc = numbers(&out["accelerations"]);
    assert!(
        (acc[0] + 1.0).abs() < 1e-14 && (acc[1] + 9.81).abs() < 1e-14,
        "{acc:?}"
    );
    let lambda = numbers(&out["multipliers"]);
    assert!((lambda[0] - 1.0).abs() < 1e-14, "{lambda:?}");
    assert_eq!(out["constraint_names"][0], "rod");
    assert_eq!(out["multipliers_by_name"]["rod"], out["multipliers"][0]);
    let hessian = &out["phi_q_t_lambda_q"];
    let diagonal = [numbers(&hessian[0])[0], numbers(&hessian[1])[1]];
    assert!(
        diagonal.iter().all(|d| (d - 2.0).abs() < 1e-13),
        "{hessian}"
    );
    let given = eval(&[&state[..], &PENDULUM_PARAMS, &["--lambda", "3"]].concat()).expect("ok");
    assert_eq!(numbers(&given["phi_q_t_lambda_q"][0]), [6.0, 0.0]);
}

/// At the pivot (x = y = 0) Φ_q = 0: the runtime's KKT solve fails and says why.
#[test]
fn singular_kkt_is_reported() {
    let file = models_file("pendulum.rs");
    let state = [file.as_str(), "--t", "0", "--q", "0,0", "--v", "0,0"];
    let out = eval(&[&state[..], &PENDULUM_PARAMS].concat()).expect("evaluates");
    assert_eq!(out["kkt"]["status"], "failed");
    let reason = out["kkt"]["reason"].as_str().expect("a reason");
    assert!(reason.contains("singular"), "{reason}");
    assert!(out["accelerations"].is_null() && out["multipliers"].is_null());
}

/// A Lagrangian model prints its energies: the two-link at rest with both links horizontal
/// (q = 0) has T = 0 and V = 0 (the potential is measured from the horizontal).
#[test]
fn lagrangian_models_print_their_energies() {
    let file = models_file("two_link.rs");
    let params = [
        "--param", "m1=1", "--param", "m2=1", "--param", "l1=1", "--param", "l2=1",
    ];
    let state = [
        file.as_str(),
        "--t",
        "0",
        "--q",
        "0,0",
        "--v",
        "0,0",
        "--param",
        "b=0",
    ];
    let out = eval(&[&state[..], &params].concat()).expect("evaluates");
    assert_eq!(numbers(&out["kinetic_energy"]), [0.0]);
    assert_eq!(numbers(&out["potential_energy"]), [0.0]);
}

#[test]
fn errors_name_the_model_and_the_value() {
    let file = models_file("two_link.rs");
    let base = [file.as_str(), "--t", "0", "--q", "0.1,0.2", "--v", "0,0"];
    let err = eval(&base).expect_err("parameters missing");
    let missing = "model TwoLink: runtime parameter(s) without a value: m1, m2, l1, l2, b";
    assert!(err.contains(missing), "{err}");
    let err = eval(&[&file, "--t", "0", "--q", "0.1", "--v", "0,0"]).expect_err("short q");
    assert!(err.contains("n = 2 coordinates (theta1, theta2)"), "{err}");
    assert!(err.contains("--q has 1 values (expected 2)"), "{err}");
    let err = eval(&[&base[..], &["--param", "g=9.81"]].concat()).expect_err("baked");
    assert!(err.contains("no runtime parameter `g`"), "{err}");
    let err = eval(&[
        &file, "--model", "Nope", "--t", "0", "--q", "0,0", "--v", "0,0",
    ])
    .expect_err("unknown model");
    assert!(
        err.contains("no model `Nope` (models in this file: TwoLink)"),
        "{err}"
    );
    let err = eval(&[&file, "--t", "x"]).expect_err("bad number");
    assert!(err.contains("invalid value 'x'"), "{err}");
}

/// A user's own file, with a mistake, then fixed: errors as `file:line:col: message`; then
/// `generate <file> --out DIR` writes the expansion and `--check` accepts it, and rejects a
/// stale file.
#[test]
fn user_file_errors_and_generation() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-user-file");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let file = dir.join("spring.rs");
    let path = file.display().to_string();
    let text = "use mbsim::model;\n\n#[model(\n    coordinates: [x],\n    mass: diag(m),\n    force: [-k * x - c * x_dot.powi(3)],\n)]\npub struct Spring {\n    pub m: f64,\n    pub k: f64,\n}\n";
    std::fs::write(&file, text).expect("write");
    let err = eval(&[&path, "--t", "0", "--q", "1", "--v", "0"]).expect_err("c is unknown");
    assert!(
        err.contains(&format!("{path}:6:22: unknown identifier `c`")),
        "{err}"
    );
    let fixed = text.replace("pub k: f64,", "pub k: f64,\n    pub c: f64,");
    std::fs::write(&file, fixed).expect("write");
    let out = dir.join("generated");
    let out_s = out.display().to_string();
    assert!(
        mbsim(&["generate", &path, "--out", &out_s])
            .status
            .success()
    );
    let generated = std::fs::read_to_string(out.join("spring.rs")).expect("written");
    assert!(generated.starts_with("// @generated by"), "{generated}");
    assert!(generated.contains("ConstrainedSystem for Spring"));
    assert!(
        mbsim(&["generate", &path, "--out", &out_s, "--check"])
            .status
            .success()
    );
    std::fs::write(out.join("spring.rs"), generated + "\n").expect("make stale");
    let stale = mbsim(&["generate", &path, "--out", &out_s, "--check"]);
    assert!(!stale.status.success());
    assert!(String::from_utf8_lossy(&stale.stderr).contains("stale"));
}

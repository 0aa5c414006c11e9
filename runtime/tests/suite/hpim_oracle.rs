//! The HPIM 2^N exponential against SciPy's `expm` (Al-Mohy–Higham Padé scaling and squaring)
//! through the Python oracle `tests/oracle/expm.py`: the first-order H of the 14-DOF truss-like
//! chain and of a damped chain, for ‖Hτ‖₁ from 0.1 to 300.
//!
//! The oracle is not optional: when the interpreter (`<workspace>/.venv/bin/python`, or
//! `$ORACLE_PYTHON`) or SciPy is missing, the test fails and says how to install it.

use std::path::PathBuf;
use std::process::Command;

use mbsim_runtime::hpim::expm::expm;
use mbsim_testkit::{Rng, assert_below};
use nalgebra::DMatrix;

const INSTALL: &str = "install the oracle from the workspace root with \
    `python3 -m venv .venv && .venv/bin/pip install -r tests/oracle/requirements.txt` \
    (or point ORACLE_PYTHON at an interpreter that has scipy)";

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime sits in the workspace")
        .to_path_buf()
}

fn python() -> PathBuf {
    std::env::var_os("ORACLE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".venv/bin/python"))
}

/// SciPy's expm(H τ) for every case.
fn scipy_expm(cases: &[(DMatrix<f64>, f64)]) -> Vec<DMatrix<f64>> {
    let python = python();
    assert!(
        python.exists(),
        "oracle interpreter {} not found: {INSTALL}",
        python.display()
    );
    let mut text = String::new();
    for (h, tau) in cases {
        text += &format!("{} {tau:?}\n", h.nrows());
        for r in 0..h.nrows() {
            let row: Vec<String> = h.row(r).iter().map(|x| format!("{x:?}")).collect();
            text += &(row.join(" ") + "\n");
        }
    }
    let dir = std::env::temp_dir();
    let stem = format!("hpim-expm-{}", std::process::id());
    let (src, dst) = (
        dir.join(format!("{stem}-in.txt")),
        dir.join(format!("{stem}-out.txt")),
    );
    std::fs::write(&src, text).expect("write oracle input");
    let script = workspace().join("tests/oracle/expm.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&src)
        .arg(&dst)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; {INSTALL}", python.display()));
    let _ = std::fs::remove_file(&src);
    assert!(
        output.status.success(),
        "oracle {} failed ({}):\n{}\n{INSTALL}",
        script.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let values: Vec<f64> = std::fs::read_to_string(&dst)
        .expect("oracle wrote its output")
        .split_whitespace()
        .map(|x| x.parse().expect("a float"))
        .collect();
    let _ = std::fs::remove_file(&dst);
    let mut at = 0;
    cases
        .iter()
        .map(|(h, _)| {
            let n = h.nrows();
            let m = DMatrix::from_row_slice(n, n, &values[at..at + n * n]);
            at += n * n;
            m
        })
        .collect()
}

/// H of a fixed–free chain of `n` masses (random SPD M, K; C light or zero), first-order form.
fn chain_h(n: usize, rng: &mut Rng, damped: bool) -> DMatrix<f64> {
    let (mut minv, mut k, mut c) = (
        DMatrix::zeros(n, n),
        DMatrix::zeros(n, n),
        DMatrix::zeros(n, n),
    );
    for i in 0..n {
        minv[(i, i)] = 1.0 / rng.uniform(0.5, 2.0);
        let (ks, cs) = (
            rng.uniform(50.0, 200.0),
            if damped { rng.uniform(0.0, 0.5) } else { 0.0 },
        );
        k[(i, i)] += ks;
        c[(i, i)] += cs;
        if i > 0 {
            k[(i - 1, i - 1)] += ks;
            k[(i - 1, i)] -= ks;
            k[(i, i - 1)] -= ks;
            c[(i - 1, i - 1)] += cs;
            c[(i - 1, i)] -= cs;
            c[(i, i - 1)] -= cs;
        }
    }
    let mut h = DMatrix::zeros(2 * n, 2 * n);
    h.view_mut((0, 0), (n, n)).copy_from(&(-(&minv * &c) * 0.5));
    h.view_mut((0, n), (n, n)).copy_from(&minv);
    h.view_mut((n, 0), (n, n))
        .copy_from(&(&c * &minv * &c * 0.25 - &k));
    h.view_mut((n, n), (n, n)).copy_from(&(-(&c * &minv) * 0.5));
    h
}

#[test]
fn two_to_the_n_matches_scipy_expm() {
    let mut rng = Rng::new(29);
    let targets = [0.1, 1.0, 10.0, 100.0, 300.0];
    let mut cases = Vec::new();
    for damped in [false, true] {
        let h = chain_h(14, &mut rng, damped);
        let norm1 = (0..h.ncols())
            .map(|j| h.column(j).abs().sum())
            .fold(0.0, f64::max);
        cases.extend(targets.iter().map(|t| (h.clone(), t / norm1)));
    }
    let reference = scipy_expm(&cases);
    for ((h, tau), want) in cases.iter().zip(&reference) {
        let got = expm(h, *tau, 20);
        let rel = (&got - want).norm() / want.norm();
        let target = targets[cases.iter().position(|c| c.1 == *tau).expect("case") % 5];
        // As against Padé-13 in hpim.rs: both backward stable, ~‖Hτ‖·(N + s)·ε/4 apart at most,
        // floor 1e-13 (the target).
        let tol = (target * 30.0 * f64::EPSILON / 4.0).max(1e-13);
        println!("‖Hτ‖₁ = {target}: relative difference {rel:.2e} (tolerance {tol:.1e})");
        assert_below(&format!("2^N vs SciPy expm, ‖Hτ‖₁ = {target}"), rel, tol);
    }
}

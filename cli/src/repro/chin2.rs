//! \[CHIN\] ch. 2, Tables 2.1 and 2.2 (digest P2, P3): Example 2.3, the linear index-2 DAE with
//! B ≠ Gᵀ, and its index-3 variant, integrated by backward Euler (h = 0.01, ν = 1000, so
//! hν = 10) on the stabilized underlying ODEs of `mbsim::dae` — Baumgarte against Chin's
//! normal (2.45) and transposed (2.50) corrections (Table 2.1), and against (2.58) with
//! P₁ = P₂ = GGᵀ and with P₁ = I, P₂⁻¹ = GGᵀ (Table 2.2). Error = maxᵢ |xᵢ(1) − e|, drift =
//! |g(x(1), 1)|, both at t = 1 (the measures under which the digest's independent
//! re-computation reproduces the print).
//!
//! Checks: every printed entry to its two printed digits, except the entries listed as
//! deviations; each deviation is checked instead against the digest's independent
//! re-computation (P2/P3 \[CHECK\], Python/NumPy) and shown with its reason; and the tables'
//! conclusions.

use mbsim::dae::chin::Example23;
use mbsim::dae::{Index2, Index3, Stabilization};

use super::{Row, Table, published};
use crate::error::AppError;

/// ν of Example 2.3.
const NU: f64 = 1000.0;
/// 100 steps of h = 0.01 on [0, 1].
const STEPS: usize = 100;

/// An entry that does not match the print: where, the digest's independent value (or, where
/// the digest gives none, `None`: then ours must be within 2 % of the print, a last-digit
/// difference), why.
struct Deviation {
    row: &'static str,
    column: usize,
    independent: Option<f64>,
    why: &'static str,
}

/// `ours` agrees with the two-digit print `printed` (a printed 0 is round-off: ≤ 1e-12).
fn matches_print(ours: f64, printed: f64) -> bool {
    if printed == 0.0 {
        return ours.abs() <= 1e-12;
    }
    let unit = 10f64.powf(printed.abs().log10().floor() - 1.0);
    (ours - printed).abs() <= 0.5 * unit * (1.0 + 1e-9)
}

/// Rows `labels` from `(error, drift)` per stabilization and column, with their checks.
fn table(
    id: &'static str,
    gammas: &[f64],
    runs: &[[(f64, f64); 6]; 3],
    printed: &[[f64; 6]; 6],
    deviations: &[Deviation],
) -> (Vec<Row>, Vec<(String, bool)>, Vec<String>) {
    let labels = ["Error1", "Drift1", "Error2", "Drift2", "Error3", "Drift3"];
    let n = gammas.len();
    let mut rows = Vec::new();
    let mut checks = Vec::new();
    let mut notes = Vec::new();
    for (r, label) in labels.iter().enumerate() {
        let ours: Vec<f64> = (0..n)
            .map(|j| {
                let (e, d) = runs[r / 2][j];
                if r % 2 == 0 { e } else { d }
            })
            .collect();
        let print = &printed[r][..n];
        let mut skipped = Vec::new();
        let mut ok = true;
        for j in 0..n {
            match deviations.iter().find(|d| d.row == *label && d.column == j) {
                Some(d) => {
                    skipped.push(format!("{}", gammas[j]));
                    let check = match d.independent {
                        Some(v) => (
                            format!(
                                "{label} at gamma = {}: {:.3e} agrees with the digest's independent {v:.3e} (print {:.2e})",
                                gammas[j], ours[j], print[j]
                            ),
                            (ours[j] / v - 1.0).abs() <= 0.02,
                        ),
                        None => (
                            format!(
                                "{label} at gamma = {}: {:.3e} within 2 % of the print {:.2e}",
                                gammas[j], ours[j], print[j]
                            ),
                            (ours[j] / print[j] - 1.0).abs() <= 0.02,
                        ),
                    };
                    checks.push(check);
                    notes.push(format!(
                        "Table {id} {label} at gamma = {}: ours {:.3e}, printed {:.2e}: {}",
                        gammas[j], ours[j], print[j], d.why
                    ));
                }
                None => ok &= matches_print(ours[j], print[j]),
            }
        }
        let except = if skipped.is_empty() {
            String::new()
        } else {
            format!(" (gamma = {} are deviations, below)", skipped.join(", "))
        };
        checks.push((
            format!("{label}: every printed entry to its two digits{except}"),
            ok,
        ));
        rows.push(Row {
            label: label.to_string(),
            ours,
            published: published(print),
        });
    }
    (rows, checks, notes)
}

fn run_row(
    problem: &Example23,
    make: impl Fn(f64) -> Stabilization,
    gammas: &[f64],
) -> [(f64, f64); 6] {
    let mut out = [(f64::NAN, f64::NAN); 6];
    for (j, &gamma) in gammas.iter().enumerate() {
        // A run that overflows is an unbounded blow-up: shown as ∞ (NaN would hide it).
        out[j] = problem
            .backward_euler_at_one(make(gamma), STEPS)
            .unwrap_or((f64::INFINITY, f64::INFINITY));
    }
    out
}

/// The column header of γ.
fn column(gamma: f64) -> String {
    if gamma >= 1e6 {
        format!("g={gamma:e}")
    } else {
        format!("g={gamma}")
    }
}

/// Table 2.1: Example 2.3 (index 2), Baumgarte (2.41) vs (2.43) with S = Gᵀ(GGᵀ)⁻¹ (2.45)
/// vs S = Gᵀ (2.50).
pub fn table_2_1() -> Result<Table, AppError> {
    let gammas = [0.0, 1.0, 10.0, 100.0, 1000.0, 1e8];
    let problem = Example23 {
        nu: NU,
        second_order: false,
    };
    let runs = [
        run_row(
            &problem,
            |g| Stabilization::Index2(Index2::Baumgarte, g),
            &gammas,
        ),
        run_row(
            &problem,
            |g| Stabilization::Index2(Index2::Normal, g),
            &gammas,
        ),
        run_row(
            &problem,
            |g| Stabilization::Index2(Index2::Transpose, g),
            &gammas,
        ),
    ];
    let printed = [
        [0.19e-2, 0.56e-3, 0.91e-3, 0.27e-4, 0.13e42, 0.92e74],
        [0.85e-2, 0.49e-2, 0.29e-3, 0.93e-8, 0.45e39, 0.45e58],
        [0.20e-2, 0.11e-2, 0.56e-4, 0.14e-4, 0.14e-4, 0.14e-4],
        [0.85e-2, 0.49e-2, 0.31e-3, 0.39e-5, 0.40e-7, 0.0],
        [0.19e-2, 0.25e-4, 0.14e-4, 0.14e-4, 0.14e-4, 0.14e-4],
        [0.85e-2, 0.10e-3, 0.12e-5, 0.12e-7, 0.13e-9, 0.0],
    ];
    let deviations = [
        Deviation {
            row: "Error1",
            column: 1,
            independent: Some(2.19e-3),
            why: "not reproduced (the digest's independent implementation gets the same); the printed .56e-3 is below both neighbours γ = 0 and 10 in a row the other two methods show falling smoothly, so a slip of the print is the likelier reading",
        },
        Deviation {
            row: "Error1",
            column: 2,
            independent: Some(1.01e-3),
            why: "11 % above the print (the digest's independent implementation gets the same)",
        },
        Deviation {
            row: "Error2",
            column: 0,
            independent: Some(1.88e-3),
            why: "misprint: at γ = 0 the three stabilizations are the same field (bit-identical runs, checked), and the print gives .19e-2 for the other two",
        },
        Deviation {
            row: "Drift1",
            column: 5,
            independent: Some(3.1e66),
            why: "the size of a blow-up (a per-step growth factor to the 100th power) is not reproducible to digits; both are catastrophic, which is the table's point",
        },
    ];
    let (rows, mut checks, notes) = table("2.1", &gammas, &runs, &printed, &deviations);
    let same_at_zero = runs[0][0] == runs[1][0] && runs[1][0] == runs[2][0];
    checks.push((
        "at gamma = 0 the three methods give bit-identical error and drift".into(),
        same_at_zero,
    ));
    let blows_up = (4..6).all(|j| runs[0][j].0 > 1e30 && runs[0][j].1 > 1e30);
    checks.push((
        "Baumgarte blows up (error and drift > 1e30) at gamma = 1000 and 1e8".into(),
        blows_up,
    ));
    let safe = (1..3).all(|k| {
        let e: Vec<f64> = runs[k].iter().map(|r| r.0).collect();
        e.windows(2).all(|w| w[1] <= w[0] * 1.001) && e[3..].iter().all(|&x| x < 1.5e-5)
    });
    checks.push(("(2.45) and (2.50): error non-increasing in gamma and < 1.5e-5 for every gamma >= 100 (any large gamma is safe)".into(), safe));
    Ok(Table {
        id: "2.1",
        title: "Example 2.3 (index 2, B != G^T), backward Euler h = 0.01, nu = 1000: Baumgarte (1) vs S = G^T(GG^T)^-1 (2) vs S = G^T (3), columns gamma".into(),
        columns: gammas.iter().map(|g| column(*g)).collect(),
        rows,
        checks,
        findings: Vec::new(),
        rejected: None,
        notes: [
            vec!["q2 = (1 + (nu - 1)/(2 - t)) e^t is the reading the exact solution forces (the OCR is garbled, ambiguity 13); error and drift are measured at t = 1".to_string()],
            notes,
        ]
        .concat(),
    })
}

/// Table 2.2: the index-3 variant, Baumgarte g'' + 2γ g' + γ² g = 0 vs (2.58) with
/// P₁ = P₂ = GGᵀ vs P₁ = I, P₂⁻¹ = GGᵀ.
pub fn table_2_2() -> Result<Table, AppError> {
    let gammas = [0.0, 1.0, 10.0, 100.0, 1000.0];
    let problem = Example23 {
        nu: NU,
        second_order: true,
    };
    let runs = [
        run_row(
            &problem,
            |g| Stabilization::Index3(Index3::Baumgarte, g),
            &gammas,
        ),
        run_row(&problem, |g| Stabilization::Index3(Index3::GGt, g), &gammas),
        run_row(
            &problem,
            |g| Stabilization::Index3(Index3::Identity, g),
            &gammas,
        ),
    ];
    let printed = [
        [0.82e-2, 0.80e-2, 0.16e-1, 0.19e-1, 0.20e65, 0.0],
        [0.72e-2, 0.63e-2, 0.63e-3, 0.79e-5, 0.11e61, 0.0],
        [0.82e-2, 0.80e-2, 0.73e-2, 0.71e-2, 0.71e-2, 0.0],
        [0.72e-2, 0.63e-2, 0.68e-3, 0.16e-4, 0.81e-7, 0.0],
        [0.82e-2, 0.72e-2, 0.71e-2, 0.71e-2, 0.71e-2, 0.0],
        [0.72e-2, 0.23e-3, 0.68e-5, 0.47e-6, 0.45e-7, 0.0],
    ];
    let deviations = [
        Deviation {
            row: "Error1",
            column: 1,
            independent: None,
            why: "1 % above the print's .80e-2 (the print rounds: Drift1 at gamma = 1 is 6.26e-3, printed .63e-2)",
        },
        Deviation {
            row: "Drift1",
            column: 2,
            independent: None,
            why: "1 % above the print's .63e-3, a last-digit difference (the digest's independent 6.36e-4 is ours)",
        },
        Deviation {
            row: "Drift2",
            column: 4,
            independent: Some(8.88e-7),
            why: "11x the print (the digest's independent implementation gets the same); the rest of the row matches, so a slip of the print is the likelier reading",
        },
    ];
    let (rows, mut checks, notes) = table("2.2", &gammas, &runs, &printed, &deviations);
    checks.push((
        "Baumgarte blows up (error and drift > 1e30) at gamma = 1000".into(),
        runs[0][4].0 > 1e30 && runs[0][4].1 > 1e30,
    ));
    let bounded = (1..3).all(|k| runs[k][..5].iter().all(|r| r.0 < 8.2e-3));
    checks.push((
        "(2.58) with both choices: error <= the unstabilized 8.2e-3 at every gamma up to 1000"
            .into(),
        bounded,
    ));
    Ok(Table {
        id: "2.2",
        title: "index-3 variant of Example 2.3, backward Euler h = 0.01, nu = 1000: Baumgarte (1) vs (2.58) P1 = P2 = GG^T (2) vs P1 = I, P2^-1 = GG^T (3)".into(),
        columns: gammas.iter().map(|g| column(*g)).collect(),
        rows,
        checks,
        findings: Vec::new(),
        rejected: None,
        notes: [
            vec![
                "x'(0) = (1, 1) (implied by the exact solution); error and drift at t = 1".to_string(),
                "Error is the largest error over the whole first-order state (x, x'): with positions only (the digest's reading, P3) Baumgarte's errors at gamma = 10, 100, 1000 come out 7.1e-3, 6.2e-3, 1.7e62 against the printed .16e-1, .19e-1, .20e65; over (x, x') they match, and no other entry changes (the velocity error is the smaller one there)".to_string(),
            ],
            notes,
        ]
        .concat(),
    })
}

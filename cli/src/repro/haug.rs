//! \[HAUG\] §7.4 (digest P17): Tables 7.4.1 (Taylor polynomials of e^t), 7.4.2 (Newton
//! backward-difference extrapolation), 7.4.3 (forward Euler on x' = x) and 7.4.4/7.4.10 (the
//! Adams coefficients), plus what the Adams tables of `haug_adams.rs` share: the digit-exact
//! table builder (`digit_table`, one `Column` per printed column: every entry is compared
//! with the print to its printed decimals; misprints, ambiguities 30, 32, 34, are compared with
//! the corrected value and a note says so) and the runs on x' = x through the runtime's
//! `integrate_ode` with Haug's order ramp ([`growth`]).

use mbsim::runtime::SimError;
use mbsim::runtime::adams::coefficients::{Ratio, ab_gammas, am_gammas};
use mbsim::runtime::adams::{AdamsKind, AdamsScheme, AdamsStart, FirstOrderOde, integrate_ode};

use super::{Row, Table};
use crate::error::AppError;

/// One column of a digit-exact table: our values, the printed ones and the value each is
/// checked against (the print, or its correction).
pub(super) struct Column {
    /// Header.
    pub name: String,
    /// Decimals printed by the source, per row.
    pub decimals: Vec<i32>,
    /// Our values, one per row.
    pub ours: Vec<f64>,
    /// The source's printed values.
    pub printed: Vec<f64>,
    /// Corrections: (row, corrected value, why).
    pub corrections: Vec<(usize, f64, &'static str)>,
    /// Tolerance in units of the last printed digit (0.5: equal after rounding).
    pub units: f64,
}

impl Column {
    /// A column checked to its printed decimals (half a unit of the last digit).
    pub fn new(name: &str, decimals: i32, ours: Vec<f64>, printed: &[f64]) -> Column {
        Column {
            name: name.into(),
            decimals: vec![decimals; ours.len()],
            ours,
            printed: printed.to_vec(),
            corrections: vec![],
            units: 0.5,
        }
    }

    /// The value row `i` is checked against.
    fn reference(&self, i: usize) -> f64 {
        self.corrections
            .iter()
            .find(|c| c.0 == i)
            .map_or(self.printed[i], |c| c.1)
    }

    /// The same column with per-row decimals.
    pub fn with_decimals(mut self, decimals: &[i32]) -> Column {
        self.decimals = decimals.to_vec();
        self
    }

    /// The same column with a tolerance of `units` of the last printed digit.
    pub fn with_units(mut self, units: f64) -> Column {
        self.units = units;
        self
    }

    /// The same column with a corrected reference for row `row`.
    pub fn correct(mut self, row: usize, value: f64, why: &'static str) -> Column {
        self.corrections.push((row, value, why));
        self
    }

    /// Row `i`'s tolerance: `units` of its last printed digit, plus 1e-9 of it so that an
    /// exact half (…5 printed after rounding) is not lost to binary representation.
    fn tolerance(&self, i: usize) -> f64 {
        self.units * 10f64.powi(-self.decimals[i]) * (1.0 + 1e-9)
    }

    /// (max |ours − reference| / tolerance over the rows, the worst row's |ours − reference|).
    fn deviation(&self) -> (f64, f64) {
        (0..self.ours.len())
            .map(|i| {
                let delta = (self.ours[i] - self.reference(i)).abs();
                (delta / self.tolerance(i), delta)
            })
            .fold(
                (0.0, 0.0),
                |m, x| if x.0 > m.0 || x.0.is_nan() { x } else { m },
            )
    }
}

/// Assemble a table whose rows are `labels` and columns `cols`: rows carry our values and the
/// print, one check per column, one note per row with our values at the printed decimals and
/// one per correction.
pub(super) fn digit_table(
    id: &'static str,
    title: &str,
    labels: &[String],
    cols: Vec<Column>,
    mut notes: Vec<String>,
) -> Table {
    let rows = labels
        .iter()
        .enumerate()
        .map(|(i, label)| Row {
            label: label.clone(),
            ours: cols.iter().map(|c| c.ours[i]).collect(),
            published: cols.iter().map(|c| Some(c.printed[i])).collect(),
        })
        .collect();
    for (i, label) in labels.iter().enumerate() {
        let line: Vec<String> = cols
            .iter()
            .map(|c| format!("{}", Fixed(c.ours[i], c.decimals[i])))
            .collect();
        notes.push(format!(
            "{label}: ours at the printed decimals: {}",
            line.join("  ")
        ));
    }
    let mut checks = vec![];
    for c in &cols {
        for (i, value, why) in &c.corrections {
            notes.push(format!(
                "{} [{}]: printed {}, checked against {} ({why})",
                c.name,
                labels[*i],
                Fixed(c.printed[*i], c.decimals[*i]),
                Fixed(*value, c.decimals[*i])
            ));
        }
        let (ratio, delta) = c.deviation();
        let unit = if c.units == 0.5 {
            "equal to the reference at its printed decimals".to_string()
        } else {
            format!(
                "within {} unit(s) of the reference's last printed digit",
                c.units
            )
        };
        checks.push((
            format!(
                "{} {unit}: worst |ours - reference| = {delta:.2e} ({ratio:.2} of its tolerance)",
                c.name
            ),
            ratio <= 1.0,
        ));
    }
    Table {
        findings: Vec::new(),
        rejected: None,
        id,
        title: title.into(),
        columns: cols.iter().map(|c| c.name.clone()).collect(),
        rows,
        checks,
        notes,
    }
}

/// A value printed with a fixed number of decimals.
struct Fixed(f64, i32);

impl std::fmt::Display for Fixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let decimals = self.1.max(0) as usize;
        let text = format!("{:.*}", decimals, self.0);
        // −0.000… reads as a sign error; a value that rounds to zero prints as 0.000….
        match text.strip_prefix('-') {
            Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => f.write_str(rest),
            _ => f.write_str(&text),
        }
    }
}

/// x' = x.
struct Growth;

impl FirstOrderOde for Growth {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, _t: f64, z: &[f64], f: &mut [f64]) -> Result<(), SimError> {
        f[0] = z[0];
        Ok(())
    }
}

/// x_0 … x_steps of x' = x, x(0) = 1, by `kind` of order `k` with Haug's order ramp.
pub fn growth(kind: AdamsKind, k: usize, h: f64, steps: usize) -> Result<Vec<f64>, AppError> {
    let scheme = AdamsScheme::new(kind, k, AdamsStart::Ramp);
    let mut xs = Vec::with_capacity(steps + 1);
    integrate_ode(
        &mut Growth,
        &scheme,
        0.0,
        &[1.0],
        h,
        steps,
        &mut |_, _, z| xs.push(z[0]),
    )?;
    Ok(xs)
}

fn labels_k(n: usize) -> Vec<String> {
    (1..=n).map(|k| format!("k={k}")).collect()
}

/// Tables 7.4.4 and 7.4.10 (= \[WU\] Table 1): the Adams–Bashforth γ_k and Adams–Moulton γ*_k,
/// k = 0…5, computed as exact rationals by the generating-function recurrences and compared
/// with the printed fractions exactly (both sides are the f64 of a fraction of small integers,
/// so equal fractions give equal doubles). Haug's 95/298 is checked as 95/288 (ambiguity 30).
pub fn table_7_4_4() -> Table {
    let printed_ab = [(1, 1), (1, 2), (5, 12), (3, 8), (251, 720), (95, 298)];
    let printed_am = [(1, 1), (-1, 2), (-1, 12), (-1, 24), (-19, 720), (-3, 160)];
    let (ab, am) = (ab_gammas(6), am_gammas(6));
    let as_f64 =
        |p: &[(i128, i128)]| -> Vec<f64> { p.iter().map(|&(n, d)| n as f64 / d as f64).collect() };
    let exact = |g: &[Ratio]| -> Vec<f64> { g.iter().map(|r| r.to_f64()).collect() };
    let mut gamma = Column::new("gamma_k", 17, exact(&ab), &as_f64(&printed_ab));
    gamma = gamma.correct(
        5,
        95.0 / 288.0,
        "ambiguity 30: Haug prints 95/298; Wu's Table 1 and the integral give 95/288",
    );
    let cols = vec![
        gamma,
        Column::new("gamma*_k", 17, exact(&am), &as_f64(&printed_am)),
    ];
    let notes = (0..6)
        .map(|k| format!("k={k}: ours gamma = {}, gamma* = {} (exact)", ab[k], am[k]))
        .collect();
    digit_table(
        "7.4.4",
        "[HAUG] Tables 7.4.4 / 7.4.10 ([WU] Table 1): Adams-Bashforth and Adams-Moulton coefficients",
        &(0..6).map(|k| format!("k={k}")).collect::<Vec<_>>(),
        cols,
        notes,
    )
}

/// Table 7.4.1: the Taylor polynomial T_k of e^t about 0 and E_k = T_k − e^t at t = 0.5, 1.
pub fn table_7_4_1() -> Table {
    let taylor = |k: usize, t: f64| -> f64 {
        let mut term = 1.0;
        let mut sum = 0.0;
        for i in 0..k {
            sum += term;
            term *= t / (i + 1) as f64;
        }
        sum
    };
    let col = |t: f64, err: bool| -> Vec<f64> {
        (1..=14)
            .map(|k| taylor(k, t) - if err { t.exp() } else { 0.0 })
            .collect()
    };
    let cols = vec![
        Column::new("T_k(0.5)", 9, col(0.5, false), &TAYLOR_T05),
        Column::new("E_k(0.5)", 10, col(0.5, true), &TAYLOR_E05),
        Column::new("T_k(1)", 9, col(1.0, false), &TAYLOR_T1),
        Column::new("E_k(1)", 10, col(1.0, true), &TAYLOR_E1),
    ];
    digit_table(
        "7.4.1",
        "[HAUG] Taylor polynomials T_k of e^t about 0, E_k = T_k - e^t",
        &labels_k(14),
        cols,
        vec![
            "row 14 of E_k(0.5) is printed with 9 decimals (0.000000000); compared as 0 to 10"
                .into(),
        ],
    )
}

/// Table 7.4.2: Newton backward-difference extrapolation P_k of e^t from t_n = 1, h = 0.1
/// (nodes 1, 0.9, …): P_k(1 + s h) = Σ_{i<k} s(s+1)…(s+i−1)/i! ∇^i f_n, at s = 1, 2.
pub fn table_7_4_2() -> Table {
    let f: Vec<f64> = (0..11).map(|i| (1.0 - 0.1 * i as f64).exp()).collect();
    let nabla = backward_differences(&f);
    let newton = |k: usize, s: f64| -> f64 {
        let mut coeff = 1.0;
        let mut sum = 0.0;
        for i in 0..k {
            sum += coeff * nabla[i];
            coeff *= (s + i as f64) / (i + 1) as f64;
        }
        sum
    };
    let col = |s: f64, err: bool| -> Vec<f64> {
        let t = 1.0 + 0.1 * s;
        (1..=11)
            .map(|k| newton(k, s) - if err { t.exp() } else { 0.0 })
            .collect()
    };
    let cols = vec![
        Column::new("P_k(1.1)", 9, col(1.0, false), &NEWTON_P11),
        Column::new("E_k(1.1)", 9, col(1.0, true), &NEWTON_E11),
        Column::new("P_k(1.2)", 9, col(2.0, false), &NEWTON_P12),
        Column::new("E_k(1.2)", 9, col(2.0, true), &NEWTON_E12),
    ];
    digit_table(
        "7.4.2",
        "[HAUG] Newton backward-difference extrapolation of e^t from t_n = 1, h = 0.1",
        &labels_k(11),
        cols,
        vec![],
    )
}

/// ∇^i f_0 for i = 0 … len − 1, where `f[j]` = f_{−j} (newest first).
pub fn backward_differences(f: &[f64]) -> Vec<f64> {
    let mut work = f.to_vec();
    let mut out = Vec::with_capacity(f.len());
    for level in 0..f.len() {
        out.push(work[0]);
        for j in 0..f.len() - level - 1 {
            work[j] -= work[j + 1];
        }
    }
    out
}

/// % error 100 (e^t − x)/e^t, as Haug prints it.
pub(super) fn percent(x: f64, t: f64) -> f64 {
    100.0 * (t.exp() - x) / t.exp()
}

/// Table 7.4.3: forward Euler (AB of order 1) on x' = x with h = 0.1 and 0.01, at t = 0.1 i.
pub fn table_7_4_3() -> Result<Table, AppError> {
    let coarse = growth(AdamsKind::Ab, 1, 0.1, 10)?;
    let fine = growth(AdamsKind::Ab, 1, 0.01, 100)?;
    let t: Vec<f64> = (0..=10).map(|i| 0.1 * i as f64).collect();
    let fine_at: Vec<f64> = (0..=10).map(|i| fine[10 * i]).collect();
    let pct =
        |xs: &[f64]| -> Vec<f64> { xs.iter().zip(&t).map(|(&x, &t)| percent(x, t)).collect() };
    let cols = vec![
        Column::new("e^t", 10, t.iter().map(|t| t.exp()).collect(), &EULER_EXACT),
        Column::new("x_i h=0.1", 10, coarse.clone(), &EULER_COARSE),
        Column::new("% h=0.1", 3, pct(&coarse), &EULER_COARSE_PCT),
        Column::new("x_10i h=0.01", 10, fine_at.clone(), &EULER_FINE),
        Column::new("% h=0.01", 3, pct(&fine_at), &EULER_FINE_PCT),
    ];
    let labels: Vec<String> = (0..=10)
        .map(|i| format!("t={:.1}", 0.1 * i as f64))
        .collect();
    Ok(digit_table(
        "7.4.3",
        "[HAUG] forward Euler on x' = x, x(0) = 1 (AB order 1 of the runtime)",
        &labels,
        cols,
        vec![],
    ))
}

#[rustfmt::skip]
const TAYLOR_T05: [f64; 14] = [1.000000000, 1.500000000, 1.625000000, 1.645833333, 1.648437500, 1.648697917, 1.648719618, 1.648721168, 1.648721265, 1.648721270, 1.648721271, 1.648721271, 1.648721271, 1.648721271];
#[rustfmt::skip]
const TAYLOR_E05: [f64; 14] = [-0.6487212707, -0.1487212707, -0.0237212707, -0.0028879374, -0.0002837707, -0.0000233540, -0.0000016526, -0.0000001025, -0.0000000057, -0.0000000003, 0.0, 0.0, 0.0, 0.0];
// The source's printed digits include e itself, rounded as printed.
#[allow(clippy::approx_constant)]
#[rustfmt::skip]
const TAYLOR_T1: [f64; 14] = [1.000000000, 2.000000000, 2.500000000, 2.666666667, 2.708333333, 2.716666667, 2.718055556, 2.718253968, 2.718278770, 2.718281526, 2.718281801, 2.718281826, 2.718281828, 2.718281828];
#[rustfmt::skip]
const TAYLOR_E1: [f64; 14] = [-1.7182818285, -0.7182818285, -0.2182818285, -0.0516151618, -0.0099484951, -0.0016151618, -0.0002262729, -0.0000278602, -0.0000030586, -0.0000003029, -0.0000000273, -0.0000000023, -0.0000000002, 0.0];
// The source's printed digits include e itself, rounded as printed.
#[allow(clippy::approx_constant)]
#[rustfmt::skip]
const NEWTON_P11: [f64; 11] = [2.718281828, 2.976960546, 3.001577080, 3.003919653, 3.004142579, 3.004163793, 3.004165812, 3.004166004, 3.004166022, 3.004166024, 3.004166024];
#[rustfmt::skip]
const NEWTON_E11: [f64; 11] = [-0.285884195, -0.027205478, -0.002588944, -0.000246371, -0.000023445, -0.000002231, -0.000000212, -0.000000020, -0.000000002, 0.0, 0.0];
// The source's printed digits include e itself, rounded as printed.
#[allow(clippy::approx_constant)]
#[rustfmt::skip]
const NEWTON_P12: [f64; 11] = [2.718281828, 3.235639263, 3.309488867, 3.318859159, 3.319973785, 3.320101070, 3.320115202, 3.320116739, 3.320116903, 3.320116921, 3.320116923];
#[rustfmt::skip]
const NEWTON_E12: [f64; 11] = [-0.601835094, -0.084477660, -0.010628056, -0.001257764, -0.000143137, -0.000015852, -0.000001721, -0.000000184, -0.000000019, -0.000000002, 0.0];
// The source's printed digits include e itself, rounded as printed.
#[allow(clippy::approx_constant)]
#[rustfmt::skip]
const EULER_EXACT: [f64; 11] = [1.0000000000, 1.1051709181, 1.2214027582, 1.3498588076, 1.4918246976, 1.6487212707, 1.8221188004, 2.0137527075, 2.2255409285, 2.4596031112, 2.7182818285];
#[rustfmt::skip]
const EULER_COARSE: [f64; 11] = [1.0000000000, 1.1000000000, 1.2100000000, 1.3310000000, 1.4641000000, 1.6105100000, 1.7715610000, 1.9487171000, 2.1435888100, 2.3579476910, 2.5937424601];
#[rustfmt::skip]
const EULER_COARSE_PCT: [f64; 11] = [0.000, 0.468, 0.934, 1.397, 1.858, 2.318, 2.775, 3.230, 3.682, 4.133, 4.582];
#[rustfmt::skip]
const EULER_FINE: [f64; 11] = [1.0000000000, 1.1046221254, 1.2201900399, 1.3478489153, 1.4888637336, 1.6446318218, 1.8166966986, 2.0067633684, 2.2167152172, 2.4486326746, 2.7048138294];
#[rustfmt::skip]
const EULER_FINE_PCT: [f64; 11] = [0.000, 0.050, 0.099, 0.149, 0.198, 0.248, 0.298, 0.347, 0.397, 0.446, 0.495];

//! The axes of a sweep and the values of every run: a grid axis `NAME=FROM:TO:COUNT` (equally
//! spaced, or `NAME=FROM:TO:COUNT:log`, equally spaced in log10 — 1e4:1e7:4:log is 1e4, 1e5,
//! 1e6, 1e7, endpoints exact), a random axis `NAME=FROM:TO` (uniform, or `:log`, log-uniform)
//! drawn from a small seeded generator, and the shard a process runs.

use mbsim::runtime::ConstrainedSystem;

use super::SweepArgs;
use crate::error::AppError;

/// What a swept name sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Target {
    Parameter,
    Position(usize),
    Velocity(usize),
}

/// One axis of the sweep.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    pub(super) name: String,
    pub(super) target: Target,
    pub(super) from: f64,
    pub(super) to: f64,
    /// Grid points (0 for a random axis).
    pub(super) count: usize,
    /// Spaced (or drawn) uniformly in log10 |x| instead of x.
    pub(super) log: bool,
}

impl Axis {
    /// The point a fraction `u` ∈ [0, 1] of the way from `from` to `to`: linear (the formula
    /// of the first sweeps, unchanged), or in log10 |x| on a log axis (FROM and TO of the same
    /// sign), where u = 0 and 1 give the endpoints exactly.
    fn at(&self, u: f64) -> f64 {
        if !self.log {
            return self.from + (self.to - self.from) * u;
        }
        if u == 0.0 || u == 1.0 {
            return if u == 0.0 { self.from } else { self.to };
        }
        let (a, b) = (self.from.abs().log10(), self.to.abs().log10());
        self.from.signum() * 10f64.powf(a + (b - a) * u)
    }
}

/// The axes of `args`, each name resolved against the model.
pub(super) fn axes(args: &SweepArgs, sys: &dyn ConstrainedSystem) -> Result<Vec<Axis>, AppError> {
    if !args.grid.is_empty() && !args.random.is_empty() {
        return Err(AppError::BadValue {
            what: "--grid/--random",
            value: String::new(),
            why: "give grid axes or random axes, not both",
        });
    }
    let mut out = Vec::new();
    for text in &args.grid {
        out.push(axis(sys, "--grid", text, true)?);
    }
    for text in &args.random {
        out.push(axis(sys, "--random", text, false)?);
    }
    if out.is_empty() {
        return Err(AppError::BadValue {
            what: "--grid/--random",
            value: String::new(),
            why: "give at least one axis (e.g. --grid mom=0.03:0.04:5)",
        });
    }
    Ok(out)
}

fn axis(
    sys: &dyn ConstrainedSystem,
    what: &'static str,
    text: &str,
    grid: bool,
) -> Result<Axis, AppError> {
    let bad = |why| AppError::BadValue {
        what,
        value: text.to_string(),
        why,
    };
    let form = if grid {
        "expected NAME=FROM:TO:COUNT or NAME=FROM:TO:COUNT:log"
    } else {
        "expected NAME=FROM:TO or NAME=FROM:TO:log"
    };
    let (name, range) = text.split_once('=').ok_or_else(|| bad(form))?;
    let name = name.trim();
    let mut parts: Vec<&str> = range.split(':').map(str::trim).collect();
    let log = match parts.last() {
        Some(&"log") => true,
        Some(&"lin") => false,
        _ => {
            parts.push("lin");
            false
        }
    };
    parts.pop();
    if parts.len() != if grid { 3 } else { 2 } {
        return Err(bad(form));
    }
    let number = |s: &str| -> Result<f64, AppError> {
        let x: f64 = s.parse().map_err(|_| bad("FROM and TO must be numbers"))?;
        crate::state::finite(&format!("{what} {name}"), x)
    };
    let (from, to) = (number(parts[0])?, number(parts[1])?);
    if log && (from == 0.0 || to == 0.0 || from.signum() != to.signum()) {
        return Err(bad(
            "a log axis needs FROM and TO nonzero and of the same sign",
        ));
    }
    let count = if grid {
        let c: usize = parts[2]
            .parse()
            .map_err(|_| bad("COUNT must be a whole number"))?;
        if c == 0 || c > 1_000_000 {
            return Err(bad("COUNT must be 1 to 1 000 000"));
        }
        c
    } else {
        0
    };
    Ok(Axis {
        name: name.to_string(),
        target: target(sys, what, name)?,
        from,
        to,
        count,
        log,
    })
}

/// A parameter, a coordinate or `<coordinate>_dot`; else an error listing all three.
fn target(sys: &dyn ConstrainedSystem, what: &str, name: &str) -> Result<Target, AppError> {
    if sys.parameter_names().contains(&name) {
        return Ok(Target::Parameter);
    }
    let coords = sys.coordinate_names();
    if let Some(j) = coords.iter().position(|c| *c == name) {
        return Ok(Target::Position(j));
    }
    if let Some(j) = name
        .strip_suffix("_dot")
        .and_then(|c| coords.iter().position(|x| *x == c))
    {
        return Ok(Target::Velocity(j));
    }
    Err(AppError::UnknownCoordinate {
        what: format!("{what} (a parameter, a coordinate or <coordinate>_dot)"),
        name: name.to_string(),
        model: sys.name().to_string(),
        known: format!(
            "{}; parameters: {}",
            coords.join(", "),
            sys.parameter_names().join(", ")
        ),
    })
}

/// The number of runs of `axes` (`draws` for random axes), checked.
pub(super) fn total(draws: usize, axes: &[Axis]) -> Result<usize, AppError> {
    if axes[0].count == 0 {
        if draws == 0 || draws > 10_000_000 {
            return Err(AppError::BadValue {
                what: "--draws",
                value: draws.to_string(),
                why: "random axes need --draws N, 1 to 10 000 000",
            });
        }
        return Ok(draws);
    }
    let total: usize = axes.iter().map(|a| a.count).product();
    if total > 10_000_000 {
        return Err(AppError::BadValue {
            what: "--grid",
            value: total.to_string(),
            why: "more than 10 000 000 runs",
        });
    }
    Ok(total)
}

/// The values of run `i`: its grid point, or the `i`-th draw of the generator seeded with
/// `seed` (run i takes the draws i·A … i·A + A − 1 of the sequence, A axes; SplitMix64's
/// state after n draws is seed + n·γ, so a worker computes its runs without the others').
pub(super) fn values(seed: u64, axes: &[Axis], i: usize) -> Vec<f64> {
    if axes[0].count == 0 {
        let skipped = (i as u64).wrapping_mul(axes.len() as u64);
        let mut rng = SplitMix64(seed.wrapping_add(skipped.wrapping_mul(SplitMix64::GAMMA)));
        return axes.iter().map(|a| a.at(rng.unit())).collect();
    }
    // Last axis fastest, like nested loops written in order.
    let mut rest = i;
    let mut values = vec![0.0; axes.len()];
    for (k, a) in axes.iter().enumerate().rev() {
        let j = rest % a.count;
        rest /= a.count;
        values[k] = if a.count == 1 {
            a.from
        } else {
            a.at(j as f64 / (a.count - 1) as f64)
        };
    }
    values
}

/// `--shard I/N` as (I, N); (0, 1) without it.
pub(super) fn shard(text: Option<&str>) -> Result<(usize, usize), AppError> {
    let Some(text) = text else { return Ok((0, 1)) };
    let bad = || AppError::BadValue {
        what: "--shard",
        value: text.to_string(),
        why: "expected I/N with 0 <= I < N",
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, reproducible across
/// platforms; enough for uniform samples of a sweep.
struct SplitMix64(u64);

impl SplitMix64 {
    /// The increment of the state per draw.
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_axis(from: f64, to: f64) -> Axis {
        Axis {
            name: "x".into(),
            target: Target::Parameter,
            from,
            to,
            count: 0,
            log: false,
        }
    }

    /// Run i's draws computed directly (a worker's) equal the sequence drawn in order (the
    /// first sweeps' plan): A draws per run, run after run.
    #[test]
    fn a_run_s_draws_jump_to_the_same_values_as_the_sequence() {
        let axes = [
            random_axis(0.0, 1.0),
            random_axis(-3.0, 5.0),
            random_axis(2.0, 2.5),
        ];
        let mut rng = SplitMix64(77);
        for i in 0..500 {
            let in_order: Vec<f64> = axes.iter().map(|a| a.at(rng.unit())).collect();
            assert_eq!(values(77, &axes, i), in_order, "run {i}");
        }
    }

    #[test]
    fn grid_runs_go_last_axis_fastest() {
        let grid = |count| Axis {
            count,
            ..random_axis(0.0, 1.0)
        };
        let axes = [grid(2), grid(3)];
        let all: Vec<Vec<f64>> = (0..6).map(|i| values(0, &axes, i)).collect();
        assert_eq!(all[1], [0.0, 0.5]);
        assert_eq!(all[3], [1.0, 0.0]);
        assert_eq!(total(0, &axes).ok(), Some(6));
    }
}

//! Forward and backward Euler with constant step on a stabilized field ([`Field`]), as the
//! thesis integrates its ch. 2–3 examples (Tables 2.1, 2.2 with backward Euler, h = 0.01;
//! Example 3.1 with forward Euler).
//!
//! Backward Euler solves z₊ − zₙ − h F(t₊, z₊) = 0 by Newton's method with the Jacobian of
//! F by forward differences (column j perturbed by √ε max(1, |z_j|)), re-formed at every
//! iterate, converged when every |Δz_j| ≤ `newton_tol` (1 + |z_j|). The examples' fields are
//! linear in z, so with the exact Jacobian Newton would converge in one iteration; the
//! difference Jacobian's error (~√ε relative, times the conditioning of I − h ∂F/∂z, large at
//! hγ = 1e6 or where a run blows up) makes the contraction linear, which costs iterations
//! (measured: 4 per step on average for Table 2.1's Baumgarte at γ = 100, 5.5 at γ = 1000),
//! never the converged step.

use nalgebra::DMatrix;

use crate::dense::solve_in_place;
use crate::error::DaeError;
use crate::field::Field;
use crate::problem::SemiExplicit;

/// A Newton update that no longer contracts (at most half of the previous one's reduction)
/// and is below this scaled size is the round-off floor of the Newton matrix and ends the
/// iteration. Measured: Table 2.2's Baumgarte at γ = 100 stagnates at 4.4e-13 (cond of
/// I − h ∂F/∂z ~ 1e3 on states ~ 3).
pub const ROUND_OFF_FLOOR: f64 = 1e-10;

/// The constant-step schedule and Newton's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EulerOptions {
    /// Step size h > 0.
    pub h: f64,
    /// Number of steps (t_end = t0 + steps h).
    pub steps: usize,
    /// Newton's convergence tolerance (backward Euler only).
    pub newton_tol: f64,
    /// Newton's iteration limit (backward Euler only).
    pub max_newton: usize,
}

impl EulerOptions {
    /// `steps` steps of h; Newton to 1e-13 (1 + |z|) in at most 50 iterations (module docs:
    /// a difference Jacobian makes the contraction linear; Example 2.3's Baumgarte runs need
    /// up to 4 per step on average at γ = 100 and more where they blow up).
    pub fn new(h: f64, steps: usize) -> Self {
        Self {
            h,
            steps,
            newton_tol: 1e-13,
            max_newton: 50,
        }
    }

    fn validate(&self) -> Result<(), DaeError> {
        let bad = |option, value: f64, reason| DaeError::Invalid {
            option,
            value: value.to_string(),
            reason,
        };
        if !(self.h.is_finite() && self.h > 0.0) {
            return Err(bad("h", self.h, "must be finite and > 0"));
        }
        if !(self.newton_tol.is_finite() && self.newton_tol > 0.0) {
            return Err(bad("newton_tol", self.newton_tol, "must be finite and > 0"));
        }
        if self.max_newton == 0 {
            return Err(bad("max_newton", 0.0, "must be at least 1"));
        }
        Ok(())
    }
}

/// Every step point: t_i = t0 + i h and z_i (z_0 the initial state).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trajectory {
    /// Times.
    pub t: Vec<f64>,
    /// States.
    pub z: Vec<Vec<f64>>,
    /// Newton iterations of the implicit method, summed over the steps.
    pub newton_iterations: usize,
}

/// Forward Euler z₊ = zₙ + h F(tₙ, zₙ).
pub fn forward_euler<P: SemiExplicit + ?Sized>(
    problem: &P,
    field: &mut Field,
    t0: f64,
    z0: &[f64],
    options: &EulerOptions,
) -> Result<Trajectory, DaeError> {
    options.validate()?;
    check_len(field, z0)?;
    let mut out = Trajectory::start(t0, z0, options.steps);
    let mut slope = vec![0.0; z0.len()];
    for step in 0..options.steps {
        let (t, z) = (out.t[step], &out.z[step]);
        field.eval_into(problem, t, z, &mut slope)?;
        let next: Vec<f64> = z
            .iter()
            .zip(&slope)
            .map(|(a, s)| a + options.h * s)
            .collect();
        out.push(t0 + (step + 1) as f64 * options.h, next)?;
    }
    Ok(out)
}

/// Backward Euler z₊ = zₙ + h F(t₊, z₊) (Newton, module docs).
pub fn backward_euler<P: SemiExplicit + ?Sized>(
    problem: &P,
    field: &mut Field,
    t0: f64,
    z0: &[f64],
    options: &EulerOptions,
) -> Result<Trajectory, DaeError> {
    options.validate()?;
    check_len(field, z0)?;
    let n = z0.len();
    let mut out = Trajectory::start(t0, z0, options.steps);
    let mut newton = Newton::new(n);
    for step in 0..options.steps {
        let t1 = t0 + (step + 1) as f64 * options.h;
        let mut z = out.z[step].clone();
        let iterations = newton.solve(problem, field, t1, &out.z[step], &mut z, step, options)?;
        out.newton_iterations += iterations;
        out.push(t1, z)?;
    }
    Ok(out)
}

fn check_len(field: &Field, z0: &[f64]) -> Result<(), DaeError> {
    if z0.len() == field.len() {
        Ok(())
    } else {
        Err(DaeError::Invalid {
            option: "z0",
            value: format!("length {}", z0.len()),
            reason: "must have the field's length (nx, or 2 nx for x'' = f + B y)",
        })
    }
}

impl Trajectory {
    fn start(t0: f64, z0: &[f64], steps: usize) -> Self {
        let mut t = Vec::with_capacity(steps + 1);
        let mut z = Vec::with_capacity(steps + 1);
        t.push(t0);
        z.push(z0.to_vec());
        Self {
            t,
            z,
            newton_iterations: 0,
        }
    }

    fn push(&mut self, t: f64, z: Vec<f64>) -> Result<(), DaeError> {
        if z.iter().any(|x| !x.is_finite()) {
            return Err(DaeError::NonFinite { what: "state", t });
        }
        self.t.push(t);
        self.z.push(z);
        Ok(())
    }

    /// The last state.
    pub fn last(&self) -> &[f64] {
        self.z.last().map_or(&[], Vec::as_slice)
    }
}

/// Newton's workspace for one implicit step.
struct Newton {
    base: Vec<f64>,
    shifted: Vec<f64>,
    slope: Vec<f64>,
    matrix: DMatrix<f64>,
    update: DMatrix<f64>,
}

impl Newton {
    fn new(n: usize) -> Self {
        Self {
            base: vec![0.0; n],
            shifted: vec![0.0; n],
            slope: vec![0.0; n],
            matrix: DMatrix::zeros(n, n),
            update: DMatrix::zeros(n, 1),
        }
    }

    /// Solve R(z) = z − z_prev − h F(t1, z) = 0 from the guess in `z`; the iteration count.
    #[allow(clippy::too_many_arguments)] // the step's data and its label are all needed
    fn solve<P: SemiExplicit + ?Sized>(
        &mut self,
        problem: &P,
        field: &mut Field,
        t1: f64,
        z_prev: &[f64],
        z: &mut [f64],
        step: usize,
        options: &EulerOptions,
    ) -> Result<usize, DaeError> {
        let (n, h) = (z.len(), options.h);
        let mut last = f64::INFINITY;
        for iteration in 1..=options.max_newton {
            field.eval_into(problem, t1, z, &mut self.base)?;
            for j in 0..n {
                self.shifted.copy_from_slice(z);
                let delta = f64::EPSILON.sqrt() * 1f64.max(z[j].abs());
                self.shifted[j] += delta;
                field.eval_into(problem, t1, &self.shifted, &mut self.slope)?;
                for i in 0..n {
                    let d = (self.slope[i] - self.base[i]) / delta;
                    self.matrix[(i, j)] = f64::from(u8::from(i == j)) - h * d;
                }
            }
            for i in 0..n {
                self.update[(i, 0)] = -(z[i] - z_prev[i] - h * self.base[i]);
            }
            solve_in_place(&mut self.matrix, &mut self.update, 8.0 * f64::EPSILON).map_err(
                |pivot| DaeError::Singular {
                    what: "Newton matrix I - h dF/dz",
                    t: t1,
                    pivot,
                },
            )?;
            let mut worst: f64 = 0.0;
            for i in 0..n {
                z[i] += self.update[(i, 0)];
                worst = worst.max(self.update[(i, 0)].abs() / (1.0 + z[i].abs()));
            }
            if !worst.is_finite() {
                return Err(DaeError::NonFinite {
                    what: "Newton update",
                    t: t1,
                });
            }
            // Converged, or stagnating at the round-off floor of an ill-conditioned Newton
            // matrix (no contraction any more, update already at ROUND_OFF_FLOOR).
            let stagnates = iteration > 1 && worst >= 0.5 * last && worst <= ROUND_OFF_FLOOR;
            last = worst;
            if worst <= options.newton_tol || stagnates {
                return Ok(iteration);
            }
        }
        Err(DaeError::NewtonFailed {
            t: t1,
            step,
            iterations: options.max_newton,
            update: last,
        })
    }
}

//! Constant-step Adams methods on plain first-order ODEs z' = f(t, z): the same step as on
//! constrained systems (`engine.rs`), for scalar test problems such as \[HAUG\]'s x' = x
//! examples (Tables 7.4.6–7.4.9, 7.4.11/12, Example 7.4.5).

use crate::error::SimError;
use crate::integrator::common::positive;

use super::engine::{Engine, Field};
use super::{AdamsScheme, MAX_ORDER};

/// A first-order ODE z' = f(t, z).
pub trait FirstOrderOde {
    /// The dimension of z.
    fn dim(&self) -> usize;
    /// `f = f(t, z)`.
    fn eval(&mut self, t: f64, z: &[f64], f: &mut [f64]) -> Result<(), SimError>;
}

/// Counters of [`integrate_ode`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OdeStats {
    /// Evaluations of f (the start's included).
    pub nfcn: usize,
    /// Steps taken.
    pub nstep: usize,
}

/// Counts evaluations; no correction, plain scales.
struct Plain<'a, F: ?Sized> {
    ode: &'a mut F,
    nfcn: usize,
}

impl<F: FirstOrderOde + ?Sized> Field for Plain<'_, F> {
    fn eval(&mut self, t: f64, z: &[f64], _h: f64, f: &mut [f64]) -> Result<(), SimError> {
        self.nfcn += 1;
        self.ode.eval(t, z, f)
    }

    fn project(&mut self, _t: f64, _h: f64, _z: &mut [f64]) -> Result<bool, SimError> {
        Ok(false)
    }

    fn scale(&self, _c: usize, sk: f64) -> f64 {
        sk
    }
}

/// Integrate `ode` from (t0, z0) with `steps` constant steps of size `h` (either sign) by
/// `scheme`; `observe(i, t_i, z_i)` is called for i = 0..=steps with t_i = t0 + i h.
pub fn integrate_ode<F: FirstOrderOde + ?Sized>(
    ode: &mut F,
    scheme: &AdamsScheme,
    t0: f64,
    z0: &[f64],
    h: f64,
    steps: usize,
    observe: &mut dyn FnMut(usize, f64, &[f64]),
) -> Result<OdeStats, SimError> {
    scheme.validate()?;
    positive("|h|", h.abs())?;
    assert_eq!(
        z0.len(),
        ode.dim(),
        "integrate_ode: z0 has the wrong length"
    );
    let mut field = Plain { ode, nfcn: 0 };
    let mut engine = Engine::new(z0, MAX_ORDER + 2);
    engine.begin(&mut field, t0)?;
    observe(0, t0, &engine.z);
    for i in 0..steps {
        let slopes = engine.hist.len();
        if scheme.starting(slopes) {
            engine.runge_kutta_start(&mut field, h)?;
        } else {
            let k = scheme.order_at(slopes);
            engine.attempt(&mut field, h, k, scheme.kind.corrector_nodes(k))?;
        }
        engine.accept(h);
        // Times as t0 + i h (no accumulated sum), as the layer's uniform schedule.
        observe(i + 1, t0 + (i + 1) as f64 * h, &engine.z);
    }
    Ok(OdeStats {
        nfcn: field.nfcn,
        nstep: steps,
    })
}

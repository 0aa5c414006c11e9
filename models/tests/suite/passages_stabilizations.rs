//! The singular-passage matrix of issue 22 over RKSTAB's drift controls: DOPRI5 with each
//! stabilization (PStab, S-full, S-both, velocity-only, GGᵀ, Baumgarte, none, GCP, hybrid and
//! Chin's three continuous ones, with the CLI's default gains) × rtol × form of the IFToMM A02
//! N-four-bar over 20 s, with or without the singular-passage guard
//! (`runtime/src/stabilize/passage.rs`), against the exact 1-DOF reduction
//! (`passages_matrix.rs`: the same measures). Shared by the release slice (`passages_stabilized.rs`) and the full table
//! (`cargo bench -p mbsim-models --bench passages -- stabilizations`); no expected number
//! lives here.

use crate::passages_matrix::{Form, Measures, measure_run, write_row};
use mbsim_runtime::{
    Baumgarte, Continuous, ContinuousChoice, HybridOptions, PartitionOptions, Rkstab,
    Stabilization, integrate,
};

/// Every drift control, in the CLI's order and with its default gains (Baumgarte α = β = 10,
/// the continuous ones γ = 10, GCP and the hybrid with their default options).
pub fn stabilizations() -> [Stabilization; 12] {
    let chin = |choice| Stabilization::Continuous(Continuous::new(choice, 10.0));
    [
        Stabilization::PStab,
        Stabilization::SFull,
        Stabilization::SBoth,
        Stabilization::VelocityOnly,
        Stabilization::GGt,
        Stabilization::Baumgarte(Baumgarte {
            alpha: 10.0,
            beta: 10.0,
        }),
        Stabilization::None,
        Stabilization::Partitioned(PartitionOptions::default()),
        Stabilization::Hybrid(HybridOptions::default()),
        chin(ContinuousChoice::GGt),
        chin(ContinuousChoice::Identity),
        chin(ContinuousChoice::TwoStep),
    ]
}

/// One cell: RKSTAB with `stabilization` at `rtol` (atol = rtol / 10) on `form`.
#[derive(Clone, Debug)]
pub struct StabilizedCell {
    /// The drift control.
    pub stabilization: Stabilization,
    /// Whether the singular-passage guard was on.
    pub guard: bool,
    /// rtol.
    pub rtol: f64,
    /// The form.
    pub form: Form,
    /// The measures, or the error's text.
    pub outcome: Result<Measures, String>,
}

/// Run one cell over [0, `t_end`] against the reduction `reference` at the output times, with
/// the singular-passage guard when `guard`.
pub fn measure_stabilized(
    (stabilization, guard): (Stabilization, bool),
    rtol: f64,
    form: Form,
    t_end: f64,
    reference: &[f64],
) -> StabilizedCell {
    let mut method = Rkstab::new(rtol).with_stabilization(stabilization);
    method.passage_guard = guard;
    let outcome = measure_run((form, false), t_end, reference, |sys, problem| {
        integrate(sys, &method, problem)
    });
    StabilizedCell {
        stabilization,
        guard,
        rtol,
        form,
        outcome,
    }
}

impl std::fmt::Display for StabilizedCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lead = format!(
            "{:<22} {:<14} {:>7.0e}",
            self.form.name(),
            format!(
                "{}{}",
                self.stabilization.name(),
                if self.guard { "+g" } else { "" }
            ),
            self.rtol
        );
        write_row(f, &lead, &self.outcome)
    }
}

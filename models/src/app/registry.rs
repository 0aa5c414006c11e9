//! The models the `mbsim` command knows: name, source, default parameters, initial guess,
//! default span and the committed expansion (what `mbsim kernels` prints).
//!
//! A model's initial state is a guess that [`crate::app::simulate`] makes consistent with
//! `runtime::initialize` (so `--param` changes of lengths keep working); for the published
//! consistent starts (Andrews) the guess is already consistent and nothing moves.

use runtime::ConstrainedSystem;

use crate::{
    Andrews, CrankSliderWu, HaugPendulum, Me451Pendulum, Pendulum, RollingDisc,
    SingularSliderCrank, SliderCrankReformulated, SliderCrankTsda, TwoArmRobot, TwoLinkCase2,
};

/// Initial guess (q0, v0) for a model with its current parameters.
pub type InitialFn = fn(&dyn ConstrainedSystem) -> (Vec<f64>, Vec<f64>);

/// One model of the registry.
pub struct ModelInfo {
    /// Command-line name.
    pub name: &'static str,
    /// One-line description.
    pub title: &'static str,
    /// Where the model comes from (digest problem and source).
    pub source: &'static str,
    /// The model with its default (published or chosen) parameters.
    pub build: fn() -> Box<dyn ConstrainedSystem>,
    /// Initial guess.
    pub initial: InitialFn,
    /// Default end time.
    pub t_end: f64,
    /// Default output spacing.
    pub dt_out: f64,
    /// Default relative tolerance.
    pub rtol: f64,
    /// The committed expansion `src/generated/<model>.rs`.
    pub kernels: &'static str,
}

impl std::fmt::Debug for ModelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A parameter's current value (0 if the model lacks it; the registry only asks for its own).
fn p(sys: &dyn ConstrainedSystem, name: &str) -> f64 {
    sys.parameter(name).unwrap_or(0.0)
}

fn zeros(n: usize) -> Vec<f64> {
    vec![0.0; n]
}

/// Every model, in the order `mbsim list` shows them.
pub fn models() -> &'static [ModelInfo] {
    &MODELS
}

/// The model called `name`.
pub fn find(name: &str) -> Option<&'static ModelInfo> {
    MODELS.iter().find(|m| m.name == name)
}

/// The known names, comma separated (for error messages).
pub fn names() -> String {
    MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

static MODELS: [ModelInfo; 12] = [
    ModelInfo {
        name: "andrews",
        title: "Andrews' squeezing mechanism, 7 bodies (n = 7, m = 6)",
        source: "[CHIN] §4.4.1 Tables 4.1-4.3 (digest P6); data Hairer-Wanner II §VII.7 [EXT]",
        build: || Box::new(Andrews::published()),
        initial: |_| (Andrews::Q0.to_vec(), zeros(7)),
        t_end: 0.3,
        dt_out: 5e-4,
        rtol: 1e-6,
        kernels: include_str!("../generated/andrews.rs"),
    },
    ModelInfo {
        name: "pendulum",
        title: "Cartesian planar pendulum, point mass on a rod (n = 2, m = 1)",
        source: "the Cartesian planar pendulum (x, y), x^2 + y^2 = len^2",
        build: || {
            Box::new(Pendulum {
                m: 1.0,
                len: 1.0,
                g: 9.81,
            })
        },
        initial: |s| (vec![p(s, "len"), 0.0], zeros(2)),
        t_end: 10.0,
        dt_out: 0.01,
        rtol: 1e-8,
        kernels: include_str!("../generated/pendulum.rs"),
    },
    ModelInfo {
        name: "two-link",
        title: "two-link manipulator, case I: tip on the parabola y2 = x2^2 - b (n = 2, m = 1)",
        source: "[CHIN] §4.4.3 Table 4.6 (digest P7), Lagrangian form",
        build: || Box::new(TwoArmRobot::two_link()),
        initial: TwoArmRobot::initial,
        t_end: 10.0,
        dt_out: 0.02,
        rtol: 1e-6,
        kernels: include_str!("../generated/two_link.rs"),
    },
    ModelInfo {
        name: "two-arm-robot",
        title: "two-arm robot of Table 3.1 = manipulator case I, printed M and f (n = 2, m = 1)",
        source: "[CHIN] §3.4 Table 3.1 and §4.4.3 (digest P7)",
        build: || Box::new(TwoArmRobot::published()),
        initial: TwoArmRobot::initial,
        t_end: 10.0,
        dt_out: 0.02,
        rtol: 1e-6,
        kernels: include_str!("../generated/two_arm_robot.rs"),
    },
    ModelInfo {
        name: "two-link-case2",
        title: "two-link manipulator, case II: tip height y2 = sin^2(omega t) (n = 2, m = 1)",
        source: "[CHIN] §4.4.3 Table 4.7 (digest P7, ambiguity 17)",
        build: || Box::new(TwoLinkCase2::published()),
        initial: TwoArmRobot::initial,
        t_end: 10.0,
        dt_out: 0.02,
        rtol: 1e-5,
        kernels: include_str!("../generated/two_link_case2.rs"),
    },
    ModelInfo {
        name: "slider-crank-tsda",
        title: "slider-crank with a TSDA, 4 bodies in 12 absolute coordinates (n = 12, m = 11)",
        source: "[CHIN] §4.4.4 Table 4.8 (digest P9); masses etc. chosen [EXT]",
        build: || Box::new(SliderCrankTsda::chosen()),
        initial: SliderCrankTsda::initial,
        t_end: 0.5,
        dt_out: 0.005,
        rtol: 1e-5,
        kernels: include_str!("../generated/slider_crank_tsda.rs"),
    },
    ModelInfo {
        name: "singular-slider-crank",
        title: "singular slider-crank, G = 0 at (0, pi) (n = 2, m = 1)",
        source: "[CHIN] §4.5 eq. (4.27) (digest P10), after Petzold-Ren-Maly",
        build: || Box::new(SingularSliderCrank::published()),
        initial: SingularSliderCrank::initial,
        t_end: 3.0,
        dt_out: 0.01,
        rtol: 1e-5,
        kernels: include_str!("../generated/singular_slider_crank.rs"),
    },
    ModelInfo {
        name: "slider-crank-reformulated",
        title: "singular slider-crank reformulated: theta1 + theta2 = pi (n = 2, m = 1)",
        source: "[CHIN] §4.5 Remark 4.4 eq. (4.28) (digest P10)",
        build: || Box::new(SliderCrankReformulated::published()),
        initial: SingularSliderCrank::initial,
        t_end: 20.0,
        dt_out: 0.02,
        rtol: 1e-10,
        kernels: include_str!("../generated/slider_crank_reformulated.rs"),
    },
    ModelInfo {
        name: "rolling-disc",
        title: "rolling disc, nonholonomic (n = 5, k = 2)",
        source: "[CHIN] §4.6 (digest P11, ambiguity 24)",
        build: || {
            Box::new(RollingDisc {
                m: 1.0,
                r: 1.0,
                A: 0.25,
                C: 0.5,
                g: 9.81,
            })
        },
        initial: |_| {
            let half_pi = std::f64::consts::FRAC_PI_2;
            (
                vec![0.0, 0.0, half_pi, 0.0, 0.0],
                vec![0.0, 0.1, 0.1, -0.1, -0.1],
            )
        },
        t_end: 2.0,
        dt_out: 0.005,
        rtol: 1e-3,
        kernels: include_str!("../generated/rolling_disc.rs"),
    },
    ModelInfo {
        name: "crank-slider-wu",
        title: "Wu's crank-slider with a massless crank (n = 4, m = 3)",
        source: "[WU] Table 3 (digest P1, ambiguities 1-5)",
        build: || Box::new(CrankSliderWu::published()),
        initial: CrankSliderWu::initial,
        t_end: 10.0,
        dt_out: 0.01,
        rtol: 1e-8,
        kernels: include_str!("../generated/crank_slider_wu.rs"),
    },
    ModelInfo {
        name: "me451-pendulum",
        title: "ME451 pendulum with a rotational spring-damper-actuator (n = 3, m = 2)",
        source: "[ME451] (digest P15, ambiguity 36)",
        build: || Box::new(Me451Pendulum::published()),
        initial: Me451Pendulum::initial,
        t_end: 10.0,
        dt_out: 0.01,
        rtol: 1e-8,
        kernels: include_str!("../generated/me451_pendulum.rs"),
    },
    ModelInfo {
        name: "haug-pendulum",
        title: "Haug's pendulum body (x1, y1, phi1), l = 1 (n = 3, m = 2)",
        source: "[HAUG] Examples 7.2.1 / 7.3.1 (digest P16, ambiguity 29)",
        build: || Box::new(HaugPendulum::chosen()),
        initial: HaugPendulum::initial,
        t_end: 10.0,
        dt_out: 0.01,
        rtol: 1e-8,
        kernels: include_str!("../generated/haug_pendulum.rs"),
    },
];

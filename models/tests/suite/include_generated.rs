//! A generated file can be `include!`d, the way a user compiles the output of
//! `cargo xtask generate my_model.rs --out DIR`: every committed `src/generated/*.rs` is included
//! into its own module of this test crate and must compile (an inner `//!` doc or `#![…]` in
//! the stamp would fail with E0753). The included code is then checked to be the macro's: the
//! same sparsity constants for every model, and for the pendulum bit-identical kernel values.

use mbsim::prelude::ConstrainedSystem;

macro_rules! included {
    ($($module:ident: $model:ident;)*) => {
        $(
            // Only some items of each file are used here; generated code is lint-exempt (style
            // rule 6): it spells constants such as 2π as literals, which clippy flags when the
            // code is included rather than expanded from the macro.
            #[allow(dead_code, missing_docs, clippy::all)]
            mod $module {
                include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/generated/", stringify!($module), ".rs"));
            }
        )*
        /// The modules above, by file stem.
        const INCLUDED: &[&str] = &[$(stringify!($module)),*];

        #[test]
        fn included_files_have_the_macro_s_sparsity() {
            $(
                assert_eq!($module::$model::PHI_Q_SPARSITY, mbsim_models::$model::PHI_Q_SPARSITY, stringify!($model));
                assert_eq!($module::$model::L_SPARSITY, mbsim_models::$model::L_SPARSITY, stringify!($model));
            )*
        }
    };
}

included! {
    andrews: Andrews;
    belt_friction: BeltFriction;
    bouncing_ball: BouncingBall;
    bricard: Bricard;
    bricard_points: BricardPoints;
    bricard_points_reduced: BricardPointsReduced;
    crank_slider_wu: CrankSliderWu;
    deformable_slider_crank: DeformableSliderCrank;
    five_link: FiveLink;
    flyball_governor: FlyballGovernor;
    four_bar_chain: FourBarChain;
    four_bar_chain_bodies: FourBarChainBodies;
    four_bar_chain_driven: FourBarChainDriven;
    four_bar_chain_extra: FourBarChainExtra;
    four_bar_chain_extra_reduced: FourBarChainExtraReduced;
    four_bar_change_point: FourBarChangePoint;
    haug_pendulum: HaugPendulum;
    heavy_top: HeavyTop;
    lift_off: LiftOff;
    me451_pendulum: Me451Pendulum;
    parallelogram_lock: ParallelogramLock;
    pendulum: Pendulum;
    redundant_pendulum: RedundantPendulum;
    rigid_slider_crank_ch5: RigidSliderCrankCh5;
    rolling_disc: RollingDisc;
    serial_arm: SerialArm;
    singular_slider_crank: SingularSliderCrank;
    slewing_beam_tie: SlewingBeamTie;
    slider_crank_reformulated: SliderCrankReformulated;
    slider_crank_stop: SliderCrankStop;
    slider_crank_tsda: SliderCrankTsda;
    spatial_double_pendulum: SpatialDoublePendulum;
    spatial_slider_crank: SpatialSliderCrank;
    spring_bar: SpringBar;
    triple_crank: TripleCrank;
    triple_crank_reduced: TripleCrankReduced;
    truss14_prescribed: Truss14Prescribed;
    truss14_prescribed_twice: Truss14PrescribedTwice;
    truss14_slot: Truss14Slot;
    truss14_slot_twice: Truss14SlotTwice;
    two_arm_robot: TwoArmRobot;
    two_link: TwoLink;
    two_link_case2: TwoLinkCase2;
    two_link_case2_driven: TwoLinkCase2Driven;
    wall_pendulum: WallPendulum;
}

/// The list above covers every committed generated file (a new model must be added to it).
#[test]
fn every_generated_file_is_included() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generated");
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .expect("src/generated")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect();
    stems.sort();
    assert_eq!(stems, INCLUDED);
}

/// The included pendulum computes exactly what the macro-compiled one does (same code, so the
/// values are bit-identical, not merely close).
#[test]
fn included_pendulum_is_the_macro_s() {
    let (m, len, g) = (1.5, 0.8, 9.81);
    let included = pendulum::Pendulum { m, len, g };
    let compiled = mbsim_models::Pendulum { m, len, g };
    let (t, q, v) = (0.0, [0.6, -0.5], [0.3, 0.4]);
    let (mut a, mut b) = ([0.0; 1], [0.0; 1]);
    included.gamma_into(t, &q, &v, &mut a);
    compiled.gamma_into(t, &q, &v, &mut b);
    assert_eq!(a, b);
    let (mut fa, mut fb) = ([0.0; 2], [0.0; 2]);
    included.force_into(t, &q, &v, &mut fa);
    compiled.force_into(t, &q, &v, &mut fb);
    assert_eq!(fa, fb);
    assert_eq!(included.name(), compiled.name());
    assert_eq!(included.parameter_names(), compiled.parameter_names());
}

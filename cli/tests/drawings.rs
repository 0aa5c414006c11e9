//! The drawings the catalog's models declare agree with their constraints: at the consistent
//! initial state of every model that draws itself, the points are finite and the segments name
//! real points; and where a closed loop is drawn from one side only, the other side's link
//! length comes out right — Andrews' body 3 (|B E| = ss), body 4 (|F E| = e) and body 6
//! (|G E| = zf) with E drawn from the crank side, and the four-bar's coupler (|A B| = l2) with B
//! drawn from the rocker side. These hold only if the drawn expressions and the constraints
//! describe the same mechanism.
//!
//! Tolerance: the state is consistent to ‖Φ‖∞ ≤ 1e-12 (the initialization's default); a link
//! length from positions of size ≤ 0.1 m (Andrews) or ≤ 3 (the four-bar) is then off by at most
//! ‖Φ‖ over the length's gradient norm (≈ 1), so 1e-10 leaves two orders of margin.

use mbsim::runtime::{ConstrainedSystem, InitOptions, initialize};
use mbsim_testkit::assert_entry;

/// The drawn points by name.
type Named = Vec<(&'static str, (f64, f64))>;

fn consistent_points(name: &str) -> (Box<dyn ConstrainedSystem>, Named) {
    let entry =
        mbsim::runtime::catalog::find(mbsim_models::catalog(), name).expect("in the catalog");
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let init =
        initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default()).expect("consistent");
    let drawing = sys.as_drawing().expect("the model draws itself");
    let points = drawing.points(0.0, &init.q);
    let named = drawing.point_names().iter().copied().zip(points).collect();
    (sys, named)
}

fn distance(points: &[(&str, (f64, f64))], a: &str, b: &str) -> f64 {
    let at = |n: &str| points.iter().find(|p| p.0 == n).expect("a drawn point").1;
    let (pa, pb) = (at(a), at(b));
    (pa.0 - pb.0).hypot(pa.1 - pb.1)
}

#[test]
fn every_drawing_is_finite_with_valid_segments() {
    let mut drawn = Vec::new();
    for entry in mbsim_models::catalog() {
        let sys = (entry.build)();
        let Some(drawing) = sys.as_drawing() else {
            continue;
        };
        let (_, points) = consistent_points(entry.name);
        assert_eq!(points.len(), drawing.point_names().len(), "{}", entry.name);
        for (name, (x, y)) in &points {
            assert!(
                x.is_finite() && y.is_finite(),
                "{}: point {name} = ({x}, {y})",
                entry.name
            );
        }
        for &(a, b) in drawing.segments() {
            assert!(
                a < points.len() && b < points.len() && a != b,
                "{}",
                entry.name
            );
        }
        drawn.push(entry.name);
    }
    for name in [
        "andrews",
        "two-link",
        "two-arm-robot",
        "two-link-case2",
        "slider-crank-tsda",
        "singular-slider-crank",
        "slider-crank-reformulated",
        "crank-slider-wu",
        "rigid-slider-crank-ch5",
        "four-bar-change-point",
    ] {
        assert!(
            drawn.contains(&name),
            "{name} declares no drawing (drawn: {drawn:?})"
        );
    }
}

#[test]
fn andrews_loops_close_in_the_drawing() {
    let (_, p) = consistent_points("andrews");
    // The baked geometry of models/src/andrews.rs.
    for (a, b, length) in [("B", "E", 35e-3), ("F", "E", 2e-2), ("G", "E", 2e-2)] {
        assert_entry(
            "andrews link",
            format!("|{a}{b}|"),
            distance(&p, a, b),
            length,
            1e-10,
        );
    }
}

#[test]
fn four_bar_coupler_has_its_length() {
    let (sys, p) = consistent_points("four-bar-change-point");
    let l2 = sys.parameter("l2").expect("l2");
    assert_entry(
        "four-bar coupler",
        "|AB|",
        distance(&p, "A", "B"),
        l2,
        1e-10,
    );
}

/// The spatial models' drawings (3D, `at(body, s')` points) against their joints: at the
/// consistent initial state a point drawn on one body coincides with the joint it shares with
/// the next, so the drawn links have their lengths — Bricard's five bars (|P_k P_k+1| = 1,
/// the last one ending on the fixed P5), the governor's rods from the shaft's hinges to the
/// balls (|H B| = len), the top's tip-to-centre distance h, the double pendulum's rods, the
/// slider-crank's crank and rod with the rod's end on the guide. Same tolerance as above.
/// Two drawn points and the parameter that is the length between them.
type Link = (&'static str, &'static str, &'static str);

#[test]
fn spatial_drawings_close_their_joints() {
    let cases: [(&str, &[Link]); 5] = [
        (
            "bricard",
            &[
                ("P0", "P1", "len"),
                ("P1", "P2", "len"),
                ("P2", "P3", "len"),
                ("P3", "P4", "len"),
                ("P4", "P5", "len"),
            ],
        ),
        (
            "flyball-governor",
            &[
                ("H1", "B1", "len"),
                ("H2", "B2", "len"),
                ("S0", "S1", "len"),
            ],
        ),
        ("heavy-top", &[("O", "C", "h")]),
        (
            "spatial-double-pendulum",
            &[("O", "E", "l1"), ("E", "T", "l2")],
        ),
        (
            "spatial-slider-crank",
            &[("O", "A", "rc"), ("A", "B", "len")],
        ),
    ];
    for (model, links) in cases {
        let entry =
            mbsim::runtime::catalog::find(mbsim_models::catalog(), model).expect("in the catalog");
        let sys = (entry.build)();
        let (q0, v0) = (entry.initial)(sys.as_ref());
        let init =
            initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default()).expect("consistent");
        let drawing = sys.as_drawing().expect("the model draws itself");
        assert_eq!(drawing.dimension(), 3, "{model}");
        let points = drawing.points3(0.0, &init.q);
        let at = |n: &str| {
            let i = drawing.point_names().iter().position(|p| *p == n);
            points[i.unwrap_or_else(|| panic!("{model}: no point {n}"))]
        };
        for &(a, b, parameter) in links {
            let (pa, pb) = (at(a), at(b));
            let d = ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2) + (pa[2] - pb[2]).powi(2))
                .sqrt();
            let length = sys.parameter(parameter).expect("a parameter");
            assert_entry(model, format!("|{a}{b}|"), d, length, 1e-10);
        }
    }
    // Bricard's drawing says y is up (its gravity is along -y); the others keep z.
    let bricard =
        mbsim::runtime::catalog::find(mbsim_models::catalog(), "bricard").expect("bricard");
    assert_eq!((bricard.build)().as_drawing().map(|d| d.up()), Some(1));
}

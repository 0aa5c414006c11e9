//! The animation's view and player: the camera's presets show the axes they name (z up, and y
//! up with +z towards the viewer), the projection keeps lengths (it is a rotation), views parse
//! or are refused, and the HTML player of a spatial drawing with an event carries the drawing's
//! dimension, its vertical, the preset buttons and the event's label and time.

use mbsim_cli::animate::camera::{Camera, parse_view};
use mbsim_cli::animate::{Frames, Mark, player};

fn close(a: (f64, f64, f64), b: (f64, f64, f64)) -> bool {
    (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12 && (a.2 - b.2).abs() < 1e-12
}

#[test]
fn presets_show_the_axes_they_name() {
    let front = Camera::spatial(2, parse_view("front").unwrap());
    assert!(close(front.project([1.0, 0.0, 0.0]), (1.0, 0.0, 0.0)));
    assert!(close(front.project([0.0, 0.0, 1.0]), (0.0, 1.0, 0.0)));
    assert!(close(front.project([0.0, -1.0, 0.0]), (0.0, 0.0, 1.0)));
    let top = Camera::spatial(2, parse_view("top").unwrap());
    assert!(close(top.project([1.0, 0.0, 0.0]), (1.0, 0.0, 0.0)));
    assert!(close(top.project([0.0, 1.0, 0.0]), (0.0, 1.0, 0.0)));
    // y up: front shows x right and y up, +z towards the viewer.
    let y_up = Camera::spatial(1, parse_view("front").unwrap());
    assert!(close(y_up.project([0.0, 1.0, 0.0]), (0.0, 1.0, 0.0)));
    assert!(close(y_up.project([0.0, 0.0, 1.0]), (0.0, 0.0, 1.0)));
}

#[test]
fn projection_keeps_lengths_in_the_screen_plane() {
    let cam = Camera::spatial(2, (37.0, 21.0));
    let p = [0.3, -1.2, 0.7];
    let (r, u, d) = cam.project(p);
    let norm = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    assert!(((r * r + u * u + d * d).sqrt() - norm).abs() < 1e-12);
}

#[test]
fn views_parse_or_are_refused() {
    assert_eq!(parse_view("30, -20"), Ok((30.0, -20.0)));
    assert_eq!(parse_view("iso"), Ok((-45.0, 30.0)));
    assert!(parse_view("diagonal").is_err());
    assert!(parse_view("0,91").is_err());
    assert!(parse_view("nan,0").is_err());
}

#[test]
fn player_carries_the_spatial_view_and_the_events() {
    let frames = Frames {
        names: &["O", "A"],
        segments: &[(0, 1)],
        dimension: 3,
        up: 1,
        t: vec![0.0, 0.5, 1.0],
        points: vec![vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]; 3],
        events: vec![Mark {
            t: 0.4,
            label: "wall (impact)".to_string(),
        }],
    };
    assert_eq!(
        frames.event_frames()[0].0,
        1,
        "the frame nearest to t = 0.4"
    );
    let camera = Camera::spatial(1, parse_view("iso").unwrap());
    let page = player::page(&frames, &camera, 25, "demo<model>");
    for needle in [
        "const DIM=3, UP=1",
        "[4.000000000e-1,\"wall (impact)\"]",
        "onclick=\"preset('top')\"",
        "demo&lt;model&gt;",
    ] {
        assert!(page.contains(needle), "{needle} not in the page");
    }
    assert!(!page.contains("<script src"), "self-contained");
}

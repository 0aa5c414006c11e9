//! Indexed families compile, and the struct's array parameters are read by the kernels.
use mbsim::runtime::ConstrainedSystem;

/// A chain of K point masses on a line joined by springs, the first pinned by a constraint.
#[mbsim::model(
    const K = 3,
    coordinates: [x[0..K]],
    let stretch[i in 0..K] = if i == 0 { x[0] } else { x[i] - x[i - 1] - rest },
    holonomic: [pin = x[0]],
    mass: diag(for i in 0..K { m[i] }),
    force: [for i in 0..K {
        -k[i] * stretch[i] + if i + 1 < K { k[i + 1] * stretch[i + 1] } else { 0.0 }
    }],
)]
pub struct Springs {
    pub m: [f64; 3],
    pub k: [f64; 3],
    pub rest: f64,
}

fn main() {
    let mut s = Springs { m: [1.0, 2.0, 3.0], k: [10.0, 20.0, 30.0], rest: 1.0 };
    assert_eq!(s.coordinate_names(), &["x[0]", "x[1]", "x[2]"]);
    assert_eq!(s.parameter("k[2]"), Some(30.0));
    s.set_parameter("k[2]", 40.0).expect("an element of an array parameter");
    assert_eq!(s.k[2], 40.0);
    let mut q = [0.0; 3];
    s.force_into(0.0, &[0.0, 1.5, 2.0], &[0.0; 3], &mut q);
    // stretch = (0, 0.5, −0.5), k = (10, 20, 40):
    // Q = (−k0·0 + k1·0.5, −k1·0.5 + k2·(−0.5), −k2·(−0.5))
    assert_eq!(q, [10.0, -10.0 - 20.0, 20.0]);
}

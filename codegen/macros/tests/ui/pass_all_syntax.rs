//! Every supported construct in one model (compiles, and its kernels run).
use mbsim::runtime::ConstrainedSystem;

#[mbsim::model(
    coordinates: [x, y, z],
    const g = 9.81,
    const half_pi: f64 = PI / 2.0,
    let r = x.hypot(y),
    let k = if r > len { stiffness } else { 0.0 },
    holonomic: [x.powi(2) + y.powi(2) - len.powi(2), z - 0.5 * (t * half_pi).sin()],
    nonholonomic: [],
    mass: [[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, 1.0]],
    force: [
        -k * (r - len) * x / r + sin(x) - x.sin() + f64::cos(y) - y.cos(),
        -m * g + y.atan2(x).max(-1.0).min(1.0) + x.abs().sqrt() * y.exp() / (1.0 + x.powi(2)).ln(),
        x_dot.powf(2.0) * 0.0 + z_dot.recip() * 0.0 + r#type + y.tan() * std::f64::consts::PI
            + (0.1 * x).asin() + acos(0.1 * y) + x.atan() + f64::sinh(z) + z.cosh() + tanh(x * y),
    ],
)]
pub struct Everything {
    pub m: f64,
    pub len: f64,
    pub stiffness: f64,
    pub r#type: f64,
}

fn main() {
    let e = Everything { m: 1.0, len: 1.0, stiffness: 10.0, r#type: 2.0 };
    assert_eq!(e.dims().n, 3);
    assert_eq!(e.coordinate_names(), &["x", "y", "z"]);
    let mut phi = [0.0; 2];
    e.phi_into(0.0, &[1.0, 0.0, 0.0], &mut phi);
    assert_eq!(phi, [0.0, 0.0]);
    assert_eq!(e.parameter("type"), Some(2.0));
}

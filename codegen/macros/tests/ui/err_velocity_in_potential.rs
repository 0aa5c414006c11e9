#[mbsim::model(
    coordinates: [x],
    kinetic: m / 2.0 * x_dot.powi(2),
    potential: k / 2.0 * x.powi(2) + c * x * x_dot,
)]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
    pub c: f64,
}

fn main() {}

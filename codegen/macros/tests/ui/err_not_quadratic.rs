#[mbsim::model(
    coordinates: [x],
    kinetic: m * x_dot.powi(4),
    potential: k * x.powi(2) / 2.0,
)]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
}

fn main() {}

#[mbsim::model(
    coordinates: [x, y],
    mass: diag(m + x_dot.powi(2), m),
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

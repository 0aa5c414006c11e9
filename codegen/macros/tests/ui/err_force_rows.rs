#[mbsim::model(
    coordinates: [x, y],
    mass: diag(m, m),
    force: [0.0, -m * g, 0.0],
)]
pub struct Point {
    pub m: f64,
    pub g: f64,
}

fn main() {}

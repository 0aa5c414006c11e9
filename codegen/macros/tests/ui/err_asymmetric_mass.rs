#[mbsim::model(
    coordinates: [x, y],
    mass: [[m, c * x], [c * y, m]],
)]
pub struct Point {
    pub m: f64,
    pub c: f64,
}

fn main() {}

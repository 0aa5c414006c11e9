#[mbsim::model(
    coordinates: [x, y],
    mass: [[m, 0.0], [0.0, m], [0.0, 0.0]],
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

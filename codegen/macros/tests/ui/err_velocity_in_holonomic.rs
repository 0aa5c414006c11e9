#[mbsim::model(
    coordinates: [x, y],
    let speed = x_dot.powi(2) + y_dot.powi(2),
    holonomic: [x.powi(2) + y.powi(2) - 1.0 + 0.1 * speed],
    mass: diag(m, m),
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

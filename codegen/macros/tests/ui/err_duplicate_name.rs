#[mbsim::model(
    coordinates: [x, m],
    mass: diag(m, m),
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

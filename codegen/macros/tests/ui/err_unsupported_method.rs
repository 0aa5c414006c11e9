#[mbsim::model(
    coordinates: [x],
    mass: diag(m),
    force: [-x.cosh()],
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

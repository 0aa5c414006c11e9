#[mbsim::model(
    coordinates: [x],
    mass: diag(m),
    force: [-x.signum()],
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

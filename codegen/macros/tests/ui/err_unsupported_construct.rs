#[mbsim::model(
    coordinates: [x],
    mass: diag(m),
    force: [match x { _ => 0.0 }],
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

#[mbsim::model(
    coordinates: [x],
    mass: diag(m),
)]
pub struct Point {
    pub m: f32,
}

fn main() {}

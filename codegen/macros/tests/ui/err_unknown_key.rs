#[mbsim::model(
    coordinates: [x],
    masses: diag(m),
)]
pub struct Point {
    pub m: f64,
}

fn main() {}

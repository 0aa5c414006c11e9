#[mbsim::model(
    coordinates: [x, y],
    holonomic: [x.powi(2) + y.powi(2) - lenght.powi(2)],
    mass: diag(m, m),
)]
pub struct Pendulum {
    pub m: f64,
    pub length: f64,
}

fn main() {}

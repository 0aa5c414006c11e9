#[mbsim::model(
    coordinates: [x, y, phi],
    nonholonomic: [x_dot * phi.sin() - y_dot * phi.cos(), x_dot.powi(2) - r * phi_dot],
    mass: diag(m, m, m),
)]
pub struct Skate {
    pub m: f64,
    pub r: f64,
}

fn main() {}

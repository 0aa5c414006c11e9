#[mbsim::model(
    coordinates: [phi],
    mass: diag(m),
    force: [-k * phi.cso()],
)]
pub struct Pendulum {
    pub m: f64,
    pub k: f64,
}

fn main() {}

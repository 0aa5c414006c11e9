#[mbsim::model(
    bodies: [crank = body(m, [j, j, j])],
    joints: [
        ball = spherical(crank, [0.0, 0.0, 0.0], ground, [0.0, 0.0, 0.0]),
        motor = rotation(ball, omega * t),
    ],
)]
pub struct Crank {
    pub m: f64,
    pub j: f64,
    pub omega: f64,
}

fn main() {}

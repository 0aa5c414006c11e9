#[mbsim::model(
    const N = 3,
    coordinates: [theta[0..=N]],
    holonomic: [for i in 0..N { link = theta[i + 2] - theta[i] }],
    mass: diag(for i in 0..=N { m[i] }),
)]
pub struct Chain {
    pub m: [f64; 4],
}

fn main() {}

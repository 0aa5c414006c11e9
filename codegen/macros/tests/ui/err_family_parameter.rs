#[mbsim::model(
    coordinates: [x[0..3]],
    mass: diag(for i in 0..3 { m[i] }),
    force: [for i in 0..3 { -k[i + 1] * x[i] }],
)]
pub struct Springs {
    pub m: [f64; 3],
    pub k: [f64; 3],
}

fn main() {}

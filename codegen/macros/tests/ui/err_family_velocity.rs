#[mbsim::model(
    coordinates: [x[0..3]],
    holonomic: [for i in 0..2 { pin = x[i + 1] - x[i] * x_dot[i] }],
    mass: diag(for i in 0..3 { m[i] }),
)]
pub struct Row {
    pub m: [f64; 3],
}

fn main() {}

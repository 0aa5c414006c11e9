#[mbsim::model(
    bodies: [top = body(m, [ja, ja, jc])],
    joints: [tip = spherical(top, [0.0, -h], ground, [0.0, 0.0, 0.0])],
    loads: [gravity([0.0, 0.0, -g])],
)]
pub struct Top {
    pub m: f64,
    pub ja: f64,
    pub jc: f64,
    pub h: f64,
    pub g: f64,
}

fn main() {}

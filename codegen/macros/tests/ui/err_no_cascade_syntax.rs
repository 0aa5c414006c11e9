//! An attribute that does not even parse (a missing `,`) under `crate = path`: still one
//! error, and the placeholder names the runtime through the given path.
mod my_facade {
    pub use mbsim::*;
}

use my_facade::runtime::ConstrainedSystem;

#[my_facade::model(
    crate = my_facade,
    coordinates: [x]
    mass: diag(m),
)]
pub struct Point {
    pub m: f64,
}

fn main() {
    let p = Point { m: 1.0 };
    let _ = p.dims();
}

//! A model with a mistake gives its one located error: the struct is still used as a
//! `ConstrainedSystem` (method calls, a trait object, an inherent constant), and none of these
//! uses adds a "not implemented" error.
use mbsim::runtime::ConstrainedSystem;

#[mbsim::model(
    coordinates: [x, y],
    holonomic: [x.powi(2) + y.powi(2) - lenght.powi(2)],
    mass: diag(m, m),
)]
#[derive(Clone, Debug)]
pub struct Pendulum {
    pub m: f64,
    pub length: f64,
}

fn coordinates(sys: &dyn ConstrainedSystem) -> usize {
    sys.dims().n
}

fn main() {
    let p = Pendulum { m: 1.0, length: 1.0 };
    let boxed: Box<dyn ConstrainedSystem> = Box::new(p.clone());
    let _ = (coordinates(&p), boxed.name(), p.parameter("m"), Pendulum::PHI_Q_SPARSITY);
}

//! Project automation (`cargo xtask <task>`).
fn main() {}

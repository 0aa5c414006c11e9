//! Lagrangian derivation (model-authoring issue): M = ∂²T/∂v∂v and Q from T, V and Q_nc.

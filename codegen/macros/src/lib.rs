//! Proc-macro front end of the model-authoring issue: empty until that issue lands.

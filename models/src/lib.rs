//! Mechanisms of the sources as models (filled by the models issue).

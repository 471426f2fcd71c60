//! The crate's integration tests, one module per concern, built as one test
//! binary: each file under `tests/` used to be a binary of its own, linked
//! against every dependency and instantiating proptest and serde again, which
//! cost most of the suite's build time.

mod deadline;
mod ernemann_scaling;
mod golden_pyss;
mod greedy;
mod invariants;
mod invocation;
mod kumar_examples;
mod kumar_properties;
mod scojo_properties;
mod scojo_search;
mod scojo_worked;
mod slurm;
mod slurm_properties;

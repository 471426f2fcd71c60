//! The crate's integration tests, one module per concern, built as one test
//! binary: each file under `tests/` used to be a binary of its own, linked
//! against every dependency and instantiating proptest and serde again, which
//! cost most of the suite's build time.

mod common;
mod estimate_model;
mod format_round_trip;
mod load_and_invariants;
mod reference_traces;
mod scojo_mix;

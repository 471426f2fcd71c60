//! The crate's integration tests, one module per concern, built as one test
//! binary: each file under `tests/` used to be a binary of its own, linked
//! against every dependency and instantiating proptest and serde again, which
//! cost most of the suite's build time.

mod bad_input;
mod cli;
mod compare_plot;
mod deadlines;
mod generate;
mod greedy;
mod partial_output;
mod scojo;
mod simulate;
mod simulate_dedicated;
mod support;
mod sweep;

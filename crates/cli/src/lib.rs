//! The library behind the `schedsim` command: each subcommand is a module
//! with an argument struct (clap derive), a function that runs it and writes
//! its report to any [`Write`](std::io::Write), and a typed error. The binary
//! only parses arguments, dispatches, prints errors with their causes and
//! maps them to exit codes; `cargo xtask` and tests call the functions
//! directly.
//!
//! ```
//! use schedsim_cli::{StatsArgs, stats};
//! let dir = std::env::temp_dir().join(format!("schedsim-cli-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let file = dir.join("tiny.swf");
//! std::fs::write(&file, "; MaxProcs: 4\n\
//!     1 0 -1 100 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
//!     2 100 -1 100 2 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")?;
//! let mut report = Vec::new();
//! let result = stats(&StatsArgs::new(file), &mut report)?;
//! // load = (4*100 + 2*100) / (4 procs * 100 s span) = 600 / 400
//! assert_eq!(result.offered_load, Some(1.5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The features `sweep` and `train` (both default) add the `sweep` and
//! `train` commands' functions from schedsim-sweep and schedsim-train; the
//! `schedsim` binary needs both, and a program that only calls the other
//! commands can turn them off (`default-features = false`).
//!
//! Adding a subcommand: write `src/<name>.rs` with `<Name>Args`, a
//! `<name>(&args, &mut dyn Write) -> Result<_, <Name>Error>` function and an
//! error enum implementing [`CommandError`]; re-export them here and add one
//! variant and one match arm in `main.rs`.
#![warn(missing_docs)]

mod compare;
mod convert;
mod deadlines_command;
mod estimates;
mod generate;
mod plot_command;
mod stats;
mod validate;

use std::error::Error;
use std::fmt::Write as _;

pub use compare::{CompareArgs, CompareError, CompareOutcome, compare};
pub use convert::{ConvertArgs, ConvertError, ConvertSummary, Format, convert};
pub use deadlines_command::{DeadlinesArgs, DeadlinesError, deadlines};
pub use estimates::{
    EstimateModelChoice, EstimatesReport, TsafrirChoice, fill_estimates, parse_estimate_model,
};
pub use generate::{
    CommonArgs, CwfArgs, GenerateArgs, GenerateError, GenerateModel, GenerateOutcome, LublinArgs,
    generate,
};
pub use plot_command::{
    GANTT_DEFAULT_JOBS, GanttArgs, PlotArgs, PlotChart, PlotCommandError, gantt_window, plot,
};
pub use workload_format::{JsonLinesError, read_json_lines, write_json_lines};
// The run API lives in schedsim-run (shared with the sweeps and the Python
// package); the command's `simulate` is its `simulate`.
pub use schedsim_run::{
    Progress, SimulateArgs, SimulateError, SimulateOutcome, list_policies, simulate,
    simulate_observed,
};
// The sweeps live in schedsim-sweep.
#[cfg(feature = "sweep")]
pub use schedsim_sweep::{SweepArgs, SweepError, sweep};
// Greedy training lives in schedsim-train.
#[cfg(feature = "train")]
pub use schedsim_train::{TrainArgs, TrainError, TrainOutcome, train};
pub use stats::{Excluded, FieldUnknowns, Percentiles, Stats, StatsArgs, StatsError, stats};
pub use validate::{FileOutcome, ValidateArgs, ValidateError, validate};

impl CommandError for SimulateError {}
#[cfg(feature = "sweep")]
impl CommandError for SweepError {}
#[cfg(feature = "train")]
impl CommandError for TrainError {}

/// What every command error tells the binary besides its message.
pub trait CommandError: Error {
    /// The process exit code for this error: 1 unless a command says
    /// otherwise (2 is left to usage errors, which clap reports).
    fn exit_code(&self) -> u8 {
        1
    }
}

/// The message of `error` followed by its chain of causes, one per line:
/// `error: ...` then `  caused by: ...`.
pub fn error_report(error: &dyn Error) -> String {
    let mut report = format!("error: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        let _ = write!(report, "\n  caused by: {cause}");
        source = cause.source();
    }
    report
}

/// The message of `error` and its causes on one line, joined by `: `.
pub fn error_line(error: &dyn Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let _ = write!(line, ": {cause}");
        source = cause.source();
    }
    line
}

/// Lets every option of `command` and its subcommands that takes a value
/// parse a negative number (`--tau -1`), so that the value reaches the
/// check that explains its range instead of clap's "unexpected argument
/// '-1'" (used by `schedsim` and `cargo xtask`).
pub fn accept_negative_numbers(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            if arg.get_action().takes_values() && !arg.is_positional() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        })
        .mut_subcommands(accept_negative_numbers)
}

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

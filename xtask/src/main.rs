//! Project automation for schedsim, run as `cargo xtask <task>` (the alias
//! lives in .cargo/config.toml). rust-analyzer's xtask pattern: a plain Rust
//! binary behind a cargo alias, one module per task.
//!
//! Tasks:
//! - `bench`: the performance targets (see the `bench` module);
//! - `bench-greedy`: Greedy's speed on KTH scaled to 1,024 processors and
//!   the projected time of a full training (issue 13);
//! - `sweep SPEC`: experiment sweeps (the `schedsim-sweep` crate, the same
//!   as `schedsim sweep`, kept here as the project's entry point);
//! - `kumar-tables RESULTS.csv`: the Delayed-LOS paper's tables from sweep
//!   results (see the `kumar` module);
//! - `estimates`: estimate models against the archive traces' estimates
//!   (see the `estimates` module);
//! - `results`: regenerates the figures of docs/results (see the `results`
//!   module).

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use schedsim_run::whole_number;

mod bench;
mod bench_greedy;
mod estimates;
mod kumar;
mod results;

#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "schedsim project automation")]
struct Xtask {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Measure the issues' performance targets on the real traces
    /// (SCHEDSIM_TRACES) and print a table (`cargo xtask` builds in release
    /// mode).
    Bench {
        /// Runs per case.
        #[arg(long, default_value_t = 5, value_parser = whole_number::<usize>(1))]
        repeat: usize,
        /// Only the cases whose trace or policy contains this text (e.g.
        /// `conservative`, `RICC`).
        #[arg(long)]
        only: Option<String>,
    },
    /// Issue 13's speed targets: Greedy on KTH scaled to 1,024 processors,
    /// one simulation and simulations per second under random parameter
    /// sets, with the projected time of a full training.
    BenchGreedy {
        /// Runs of the fixed parameter set.
        #[arg(long, default_value_t = 5, value_parser = whole_number::<usize>(1))]
        repeat: usize,
        /// Random parameter sets.
        #[arg(long, default_value_t = 20, value_parser = whole_number::<usize>(0))]
        random: usize,
        /// Seed of the random parameter sets.
        #[arg(long, default_value_t = 1, value_parser = whole_number::<u64>(0))]
        seed: u64,
        /// A parameter file to time instead of f2 in FCFS order.
        #[arg(long, value_name = "FILE")]
        params: Option<std::path::PathBuf>,
    },
    /// One benchmark case in this process (used by `bench`).
    #[command(hide = true)]
    BenchCase {
        /// Index into the case list.
        index: usize,
    },
    /// Run a sweep of workloads x loads x seeds x policies from a TOML spec
    /// in parallel (resumable); --merge draws the CSV files and figures,
    /// --shard/--slurm split it over processes or a Slurm job array.
    Sweep(schedsim_sweep::SweepArgs),
    /// Print the tables of Kumar et al.'s Delayed-LOS paper (Figs. 5-11,
    /// Tables IV-VII) from the results.csv of experiments/kumar-*.toml
    /// sweeps.
    KumarTables {
        /// results.csv files written by `sweep --merge`.
        #[arg(required = true)]
        results: Vec<std::path::PathBuf>,
        /// A policy to compare Delayed-LOS / Hybrid-LOS with, as the sweep
        /// names it; repeat for several (default: los and easy, Table IV's;
        /// e.g. los-d and easy-d for Table V).
        #[arg(long = "baseline", value_name = "POLICY")]
        baselines: Vec<String>,
    },
    /// Regenerate the figures of docs/results from the sweeps in
    /// experiments/ (run or resumed, then merged) and draw the schedule
    /// figure; needs SCHEDSIM_TRACES.
    Results,
    /// Compare estimate models (exact, f-model, Tsafrir-Etsion-Feitelson
    /// under several hints) with the user estimates of the archive traces
    /// (SCHEDSIM_TRACES): Kolmogorov-Smirnov distances, as a Markdown table.
    Estimates,
}

fn main() -> ExitCode {
    let matches = schedsim_cli::accept_negative_numbers(Xtask::command()).get_matches();
    let task = match Xtask::from_arg_matches(&matches) {
        Ok(xtask) => xtask.task,
        Err(error) => error.exit(),
    };
    let result = match task {
        Task::Bench { repeat, only } => bench::run(repeat, only.as_deref()).map(|met| {
            if !met {
                eprintln!("some targets were missed");
            }
        }),
        Task::BenchCase { index } => bench::run_case(index),
        Task::BenchGreedy {
            repeat,
            random,
            seed,
            params,
        } => bench_greedy::run(repeat, random, seed, params.as_deref()),
        Task::Sweep(args) => schedsim_sweep::sweep(&args).map_err(|e| schedsim_cli::error_line(&e)),
        Task::KumarTables { results, baselines } => kumar::run(&results, &baselines),
        Task::Results => results::run(),
        Task::Estimates => estimates::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

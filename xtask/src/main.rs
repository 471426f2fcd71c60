//! Project automation for schedsim, run as `cargo xtask <task>` (the alias
//! lives in .cargo/config.toml).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;

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
        #[arg(long, default_value_t = 5)]
        repeat: usize,
    },
    /// One benchmark case in this process (used by `bench`).
    #[command(hide = true)]
    BenchCase {
        /// Index into the case list.
        index: usize,
    },
}

fn main() -> ExitCode {
    let result = match Xtask::parse().task {
        Task::Bench { repeat } => bench::run(repeat).map(|met| {
            if !met {
                eprintln!("some targets were missed");
            }
        }),
        Task::BenchCase { index } => bench::run_case(index),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

//! `cargo xtask`: project automation for schedsim (rust-analyzer's xtask
//! pattern: a plain Rust binary behind a cargo alias, one module per task).
//!
//! Tasks:
//! - `sweep SPEC`: experiment sweeps (see the `sweep` module).

mod sweep;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Project automation for schedsim.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", version, about)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run a sweep of workloads x loads x seeds x policies from a TOML spec
    /// in parallel (resumable); --merge draws the CSV files and figures,
    /// --shard/--slurm split it over processes or a Slurm job array.
    Sweep(sweep::SweepArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.task {
        Task::Sweep(args) => sweep::sweep(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

//! `schedsim`: parse arguments, dispatch to the library, report errors.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use schedsim_cli::{
    CommandError, CompareArgs, ConvertArgs, GenerateArgs, PlotArgs, SimulateArgs, StatsArgs,
    SweepArgs, TrainArgs, ValidateArgs, error_report,
};

/// Simulate and evaluate parallel job schedulers on SWF/CWF workloads.
#[derive(Debug, Parser)]
#[command(name = "schedsim", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay a workload under one or more policies, print a comparison and
    /// (with --out) write jobs.csv, schedule.swf and summary.json per policy.
    Simulate(SimulateArgs),
    /// List the policies and their options.
    Policies,
    /// Check workload files: strictly (first bad line is an error) or, with
    /// --lenient, counting bad lines by reason.
    Validate(ValidateArgs),
    /// Jobs, time span, machine size, offered load, size and run time
    /// percentiles, unknown values per field.
    Stats(StatsArgs),
    /// Convert between SWF, CWF and JSON lines (chosen by file extension).
    Convert(ConvertArgs),
    /// Write a synthetic workload: the Lublin-Feitelson model or the CWF
    /// generator of the Delayed/Hybrid-LOS paper.
    Generate(GenerateArgs),
    /// Compare two runs of the same workload (simulate --out folders): key
    /// metrics side by side and per-job differentials with batch-means
    /// confidence intervals.
    Compare(CompareArgs),
    /// SVG charts of one run: queue length, utilization and waits over time,
    /// or (plot gantt) its schedule.
    Plot(PlotArgs),
    /// Run every workload x load x seed x policy cell of a TOML spec on all
    /// cores (resumable); --merge writes results.csv, differentials.csv and
    /// the figures; --shard/--slurm split it over processes or a Slurm job
    /// array.
    Sweep(SweepArgs),
    /// Train Greedy's sorting criteria with a (mu+lambda) evolution strategy
    /// (Franke, Lepping and Schwiegelshohn) on one or more workloads
    /// (resumable); writes best.json (a greedy:params file), the
    /// per-generation log, a convergence plot and an evaluation against
    /// EASY per user group.
    Train(TrainArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &cli.command {
        Command::Simulate(args) => finish(schedsim_cli::simulate(args, &mut out).map(drop)),
        Command::Policies => finish(schedsim_cli::list_policies(&mut out)),
        Command::Validate(args) => finish(schedsim_cli::validate(args, &mut out).map(drop)),
        Command::Stats(args) => finish(schedsim_cli::stats(args, &mut out).map(drop)),
        Command::Convert(args) => finish(schedsim_cli::convert(args, &mut out).map(drop)),
        Command::Generate(args) => finish(schedsim_cli::generate(args, &mut out).map(drop)),
        Command::Compare(args) => finish(schedsim_cli::compare(args, &mut out).map(drop)),
        Command::Plot(args) => finish(schedsim_cli::plot(args, &mut out).map(drop)),
        Command::Sweep(args) => finish(schedsim_cli::sweep(args)),
        Command::Train(args) => finish(schedsim_cli::train(args, &mut out).map(drop)),
    };
    let _ = out.flush();
    result
}

/// Exit 0, or print the error with its causes and exit with its code.
fn finish<E: CommandError>(result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}", error_report(&error));
            ExitCode::from(error.exit_code())
        }
    }
}

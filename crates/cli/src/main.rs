//! `schedsim`: parse arguments, dispatch to the library, report errors.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use schedsim_cli::{
    CommandError, CompareArgs, ConvertArgs, DeadlinesArgs, GenerateArgs, PlotArgs, SimulateArgs,
    StatsArgs, SweepArgs, TrainArgs, ValidateArgs, error_report,
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
    /// Write a deadline file for `simulate --deadlines` as the QoPS paper
    /// makes them: EASY on the (load-modified) workload, then submit +
    /// max(runtime, (1 - stringency) x EASY response) for a share of the
    /// jobs and submit + max(24 h, R x runtime) for the rest.
    Deadlines(DeadlinesArgs),
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
    let matches = schedsim_cli::accept_negative_numbers(Cli::command()).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = match &cli.command {
        Command::Simulate(args) => finish(simulate_with_progress(args, &mut out)),
        Command::Policies => finish(schedsim_cli::list_policies(&mut out)),
        Command::Validate(args) => finish(schedsim_cli::validate(args, &mut out).map(drop)),
        Command::Stats(args) => finish(schedsim_cli::stats(args, &mut out).map(drop)),
        Command::Convert(args) => finish(schedsim_cli::convert(args, &mut out).map(drop)),
        Command::Generate(args) => finish(schedsim_cli::generate(args, &mut out).map(drop)),
        Command::Deadlines(args) => finish(schedsim_cli::deadlines(args, &mut out).map(drop)),
        Command::Compare(args) => finish(schedsim_cli::compare(args, &mut out).map(|outcome| {
            if args.json && !outcome.different_metrics.is_empty() {
                eprintln!(
                    "warning: the metrics settings differ ({}): the key metrics mix them; the \
                     per-job differentials use A's",
                    outcome.different_metrics.join(", ")
                );
            }
            let used = outcome.differentials;
            if used.batches < args.batches {
                eprintln!(
                    "warning: --batches {} is more than the {} jobs compared: {} batches of 1 job",
                    args.batches, used.jobs, used.batches
                );
            }
        })),
        Command::Plot(args) => finish(schedsim_cli::plot(args, &mut out).map(drop)),
        Command::Sweep(args) => finish(schedsim_cli::sweep(args)),
        Command::Train(args) => finish(schedsim_cli::train(args, &mut out).map(drop)),
    };
    let _ = out.flush();
    result
}

/// `simulate`, with a progress bar on stderr when it is a terminal and the
/// run lasts more than a second (the report itself goes to stdout).
fn simulate_with_progress(
    args: &SimulateArgs,
    out: &mut dyn Write,
) -> Result<(), schedsim_cli::SimulateError> {
    if !std::io::stderr().is_terminal() {
        return schedsim_cli::simulate(args, out).map(drop);
    }
    /// Ends the bar even if the simulation panics, so the scope can join.
    struct EndOnDrop<'a>(&'a schedsim_cli::Progress);
    impl Drop for EndOnDrop<'_> {
        fn drop(&mut self) {
            self.0.end();
        }
    }
    let progress = schedsim_cli::Progress::new();
    std::thread::scope(|scope| {
        scope.spawn(|| draw_progress(&progress));
        let _end = EndOnDrop(&progress);
        schedsim_cli::simulate_observed(args, out, &progress).map(drop)
    })
}

fn draw_progress(progress: &schedsim_cli::Progress) {
    use std::time::{Duration, Instant};
    let started = Instant::now();
    let tick = Duration::from_millis(100);
    while started.elapsed() < Duration::from_secs(1) {
        if progress.is_done() {
            return;
        }
        std::thread::sleep(tick);
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(1000),
        indicatif::ProgressDrawTarget::stderr(),
    )
    .with_elapsed(started.elapsed());
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {percent:>3}% of the arrivals simulated {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    while !progress.is_done() {
        let (ended, total) = progress.policies();
        bar.set_position((progress.fraction() * 1000.0) as u64);
        bar.set_message(if total == 0 {
            "(reading the workload)".to_owned()
        } else {
            format!("({ended} of {total} policies done)")
        });
        std::thread::sleep(tick);
    }
    bar.finish_and_clear();
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

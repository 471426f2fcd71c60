//! `schedsim train`: the settings, the training run and its files.

use std::fmt::Write as _;
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use evolution_strategy::{Bounds, Config, EvolutionStrategy, Outcome, Progress, RunOptions};
use indicatif::{ProgressBar, ProgressStyle};
use schedsim_metrics::Objective;
use schedsim_policies::GreedyParameters;
use schedsim_run::{Invoke, Overrun, SimulateArgs};
use serde::Serialize;

use crate::TrainError;
use crate::layout::ParameterLayout;
use crate::plot::convergence_svg;
use crate::workload::{Evaluation, TrainingWorkload};

/// Arguments of `schedsim train`.
#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    /// A workload to train on (SWF, plain or gzip); repeat to train on
    /// several, minimising the sum of their objectives.
    #[arg(long = "workload", short = 'w', value_name = "FILE", required = true)]
    pub workloads: Vec<PathBuf>,
    /// Workloads to evaluate the result on besides the training ones
    /// (prepared the same way; no --scale-jobs).
    #[arg(long = "evaluate-on", value_name = "FILE")]
    pub evaluate_on: Vec<PathBuf>,
    /// The output folder: best.json, generations.csv, convergence.svg,
    /// evaluation.csv, train.json and the checkpoint (a rerun with the same
    /// settings resumes from it).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,
    /// Sorting criterion per situation: one (`f2`, all situations) or three
    /// (`f1,f2,f3`: weekend, week day 8-18, week day 18-8).
    #[arg(long, value_name = "LIST", default_value = "f2")]
    pub criteria: ParameterLayout,
    /// The objective to minimise (per workload; summed over workloads).
    #[arg(long, value_name = "EXPR", default_value = "10 * AWRT1 + 4 * AWRT2")]
    pub objective: Objective,
    /// Parents (mu).
    #[arg(long, default_value_t = 15, value_parser = schedsim_run::whole_number::<usize>(1))]
    pub mu: usize,
    /// Offspring per generation (lambda).
    #[arg(long, default_value_t = 105, value_parser = schedsim_run::whole_number::<usize>(1))]
    pub lambda: usize,
    /// Generations.
    #[arg(long, default_value_t = 100, value_parser = schedsim_run::whole_number::<u32>(0))]
    pub generations: u32,
    /// Seed of the evolution strategy.
    #[arg(long, default_value_t = 1, value_parser = schedsim_run::whole_number::<u64>(0))]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = schedsim_run::whole_number::<usize>(0))]
    pub threads: Option<usize>,
    /// Skip bad lines and unsimulatable jobs (counted).
    #[arg(long)]
    pub lenient: bool,
    /// A job running past its estimate is killed at it (`kill`) or runs
    /// its recorded runtime (`extend`); user groups and AWRT use the run
    /// times as simulated.
    #[arg(long, value_enum, default_value_t = Overrun::Kill)]
    pub overrun: Overrun,
    /// Scale every workload to N processors (Ernemann et al.; a workload
    /// already on N is unchanged).
    #[arg(long, value_name = "N", value_parser = schedsim_run::whole_number_in::<u32>(1, schedsim_sim_core::MAX_PROCS.into()))]
    pub scale_to: Option<u32>,
    /// The scaling's job count per training workload, in order (e.g. 167375
    /// for KTH, Table I): sets the adjustment of each.
    #[arg(long, value_name = "J", requires = "scale_to", value_parser = schedsim_run::whole_number::<u64>(1))]
    pub scale_jobs: Vec<u64>,
    /// The scaling's adjustment where --scale-jobs is not given.
    #[arg(long, value_name = "X", requires = "scale_to", default_value_t = 1.0)]
    pub scale_adjustment: f64,
    /// Seed of the scaling's draws.
    #[arg(long, value_name = "S", requires = "scale_to", default_value_t = 0, value_parser = schedsim_run::whole_number::<u64>(0))]
    pub scale_seed: u64,
    /// When the policy is called: per timestamp, or per event (the paper's
    /// "whenever a new job is submitted or a job [...] has completed").
    #[arg(long, value_enum, default_value_t = Invoke::PerTimestamp)]
    pub invoke: Invoke,
    /// Stop after this generation, as if killed (a rerun resumes).
    #[arg(long, value_name = "G", value_parser = schedsim_run::whole_number::<u32>(0))]
    pub stop_after: Option<u32>,
}

impl TrainArgs {
    /// The paper's settings (mu 15, lambda 105, 100 generations, f2, eq. 8)
    /// on `workloads`, writing into `out`.
    pub fn new(workloads: Vec<PathBuf>, out: PathBuf) -> Self {
        Self {
            workloads,
            evaluate_on: Vec::new(),
            out,
            criteria: ParameterLayout {
                criteria: [schedsim_policies::Criterion::F2; 3],
            },
            objective: Objective::paper(),
            mu: 15,
            lambda: 105,
            generations: 100,
            seed: 1,
            threads: None,
            lenient: false,
            overrun: Overrun::Kill,
            scale_to: None,
            scale_jobs: Vec::new(),
            scale_adjustment: 1.0,
            scale_seed: 0,
            invoke: Invoke::PerTimestamp,
            stop_after: None,
        }
    }

    /// The `simulate` settings of one workload (`scale_jobs`: its job
    /// count, if any).
    pub fn simulate_args(&self, path: &Path, scale_jobs: Option<u64>) -> SimulateArgs {
        let mut args = SimulateArgs::new();
        args.workload = Some(path.to_path_buf());
        args.lenient = self.lenient;
        args.overrun = self.overrun;
        args.scale_to = self.scale_to;
        args.scale_seed = self.scale_seed;
        args.scale_adjustment = self.scale_adjustment;
        args.scale_jobs = scale_jobs;
        args.invoke = self.invoke;
        args
    }
}

/// One row of the evaluation against EASY.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluationRow {
    /// The workload.
    pub workload: String,
    /// Whether it was trained on.
    pub trained_on: bool,
    /// `easy` or `greedy`.
    pub policy: String,
    /// AWRT of groups 1-5, seconds (`None`: the group consumed nothing).
    pub awrt: Vec<Option<f64>>,
    /// UTIL, a fraction.
    pub util: Option<f64>,
    /// The objective.
    pub objective: f64,
}

/// What a training did.
#[derive(Debug, Clone)]
pub struct TrainOutcome {
    /// The evolution strategy's outcome.
    pub outcome: Outcome,
    /// The best parameters found.
    pub best: GreedyParameters,
    /// EASY and Greedy per workload.
    pub evaluation: Vec<EvaluationRow>,
    /// Simulations run in this process and their wall time, seconds.
    pub simulations: u64,
    /// Wall time of the training in this process, seconds.
    pub seconds: f64,
}

/// train.json: the settings and the result (no timing, so reruns write the
/// same bytes).
#[derive(Serialize)]
struct TrainSummary<'a> {
    tool: &'static str,
    version: &'static str,
    workloads: &'a [PathBuf],
    criteria: String,
    parameters: Vec<String>,
    objective: String,
    mu: usize,
    lambda: usize,
    generations: u32,
    seed: u64,
    overrun: Overrun,
    scale_to: Option<u32>,
    scale_jobs: &'a [u64],
    scale_adjustment: f64,
    scale_seed: u64,
    invoke: Invoke,
    generation_reached: u32,
    complete: bool,
    evaluations: u64,
    best_fitness: f64,
    best_per_workload: &'a [f64],
    best: &'a GreedyParameters,
}

/// What the fitness evaluates, kept in the checkpoint: a rerun with other
/// workloads, criteria, objective or simulation settings does not resume
/// from parents whose fitness was measured otherwise.
#[derive(Serialize)]
struct FitnessContext<'a> {
    workloads: Vec<(String, usize)>,
    criteria: String,
    objective: String,
    lenient: bool,
    overrun: Overrun,
    scale_to: Option<u32>,
    scale_jobs: &'a [u64],
    scale_adjustment: f64,
    scale_seed: u64,
    invoke: Invoke,
}

/// [`FitnessContext`] as compact JSON (the workloads with their job counts).
fn fitness_context(args: &TrainArgs, workloads: &[TrainingWorkload]) -> String {
    let context = FitnessContext {
        workloads: args
            .workloads
            .iter()
            .zip(workloads)
            .map(|(path, w)| (path.display().to_string(), w.loaded.jobs.len()))
            .collect(),
        criteria: args.criteria.to_string(),
        objective: args.objective.to_string(),
        lenient: args.lenient,
        overrun: args.overrun,
        scale_to: args.scale_to,
        scale_jobs: &args.scale_jobs,
        scale_adjustment: args.scale_adjustment,
        scale_seed: args.scale_seed,
        invoke: args.invoke,
    };
    // Strings and numbers only (paths as text: serde_json refuses a path
    // that is not UTF-8), so encoding cannot fail.
    serde_json::to_string(&context).unwrap_or_default()
}

/// The temporary file of [`write_atomic`]: named after the process, so
/// that no other process's write goes through it.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.tmp.{}", std::process::id()))
}

/// Writes `text` to `path` through a temporary file renamed over it.
fn write_atomic(path: &Path, text: &str) -> Result<(), TrainError> {
    let error = |source| TrainError::Write {
        path: path.to_path_buf(),
        source,
    };
    let temporary = temporary_path(path);
    let result = fs::write(&temporary, text).and_then(|()| fs::rename(&temporary, path));
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result.map_err(error)
}

/// Runs `schedsim train`: loads the workloads, runs the evolution strategy
/// (resuming from the checkpoint in the output folder), writes the files,
/// evaluates the best parameters against EASY and prints the table to
/// `out`.
///
/// # Errors
/// See [`TrainError`].
pub fn train(args: &TrainArgs, out: &mut dyn Write) -> Result<TrainOutcome, TrainError> {
    if !args.scale_jobs.is_empty() && args.scale_jobs.len() != args.workloads.len() {
        return Err(TrainError::ScaleJobs {
            given: args.scale_jobs.len(),
            workloads: args.workloads.len(),
        });
    }
    schedsim_run::create_folder(&args.out).map_err(|source| TrainError::Write {
        path: args.out.clone(),
        source,
    })?;
    // Before the checkpoint is read: two trainings on one folder would
    // resume from and overwrite each other's checkpoint and results.
    let _lock = crate::lock::lock_folder(&args.out)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .map_err(|e| TrainError::Threads(e.to_string()))?;
    let workloads: Vec<TrainingWorkload> = args
        .workloads
        .iter()
        .enumerate()
        .map(|(i, path)| {
            TrainingWorkload::load(&args.simulate_args(path, args.scale_jobs.get(i).copied()))
        })
        .collect::<Result<_, _>>()?;
    for workload in &workloads {
        let shares: Vec<String> = workload
            .groups()
            .shares()
            .iter()
            .map(|s| format!("{} ({:.1}%)", s.users, 100.0 * s.share))
            .collect();
        writeln!(
            out,
            "{}: {} jobs on {} processors; users per group 1-5: {}",
            workload.name,
            workload.loaded.jobs.len(),
            workload.loaded.jobs.model().procs,
            shares.join(", ")
        )
        .map_err(TrainError::Output)?;
    }

    let layout = args.criteria;
    let bounds = Bounds::from_ranges(layout.bounds())?;
    let config = Config::new()
        .with_population(args.mu, args.lambda)
        .with_generations(args.generations)
        .with_seed(args.seed);
    let strategy = EvolutionStrategy::new(config, bounds)?;
    let total = (args.mu + args.generations as usize * args.lambda) * workloads.len();
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(total as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} simulations ({eta} left) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let progress = |report: Progress<'_>| match report {
        Progress::Evaluated { .. } => bar.inc(1),
        Progress::Generation(stats) => {
            bar.set_message(format!(
                "generation {}: best {:.4e}",
                stats.generation, stats.best
            ));
        }
        _ => {}
    };
    let mut options = RunOptions::new()
        .with_checkpoint(args.out.join("checkpoint.json"))
        .with_context(fitness_context(args, &workloads))
        .with_progress(&progress);
    if let Some(generation) = args.stop_after {
        options = options.with_stop_after(generation);
    }
    let started = Instant::now();
    let outcome = pool.install(|| {
        strategy.try_minimize_sum(
            &workloads,
            |workload, x| {
                let params = layout.parameters(x)?;
                workload
                    .evaluate_greedy(&params, &args.objective)
                    .map(|e| e.objective)
                    .map_err(evolution_strategy::BoxError::from)
            },
            &options,
        )
    })?;
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    // Evaluations done here, not counting those before a resume.
    let simulations = bar.position();
    let best = layout.parameters(&outcome.best.params)?;

    let mut evaluation = Vec::new();
    let mut easy_sum = 0.0;
    let extra: Vec<TrainingWorkload> = args
        .evaluate_on
        .iter()
        .map(|path| TrainingWorkload::load(&args.simulate_args(path, None)))
        .collect::<Result<_, _>>()?;
    let all: Vec<(&TrainingWorkload, bool)> = workloads
        .iter()
        .map(|w| (w, true))
        .chain(extra.iter().map(|w| (w, false)))
        .collect();
    let results: Vec<Result<(Evaluation, Evaluation), TrainError>> = pool.install(|| {
        use rayon::prelude::*;
        all.par_iter()
            .map(|(workload, _)| {
                Ok((
                    workload.evaluate_easy(&args.objective)?,
                    workload.evaluate_greedy(&best, &args.objective)?,
                ))
            })
            .collect()
    });
    for ((workload, trained_on), result) in all.iter().zip(results) {
        let (easy, greedy) = result?;
        if *trained_on {
            easy_sum += easy.objective;
        }
        for (policy, e) in [("easy", easy), ("greedy", greedy)] {
            evaluation.push(EvaluationRow {
                workload: workload.name.clone(),
                trained_on: *trained_on,
                policy: policy.to_owned(),
                awrt: e.metrics.groups.iter().map(|g| g.awrt).collect(),
                util: e.metrics.util,
                objective: e.objective,
            });
        }
    }

    write_outputs(args, &layout, &outcome, &best, &evaluation, easy_sum)?;
    report(args, &outcome, &evaluation, seconds, simulations, out).map_err(TrainError::Output)?;
    Ok(TrainOutcome {
        outcome,
        best,
        evaluation,
        simulations,
        seconds,
    })
}

fn write_outputs(
    args: &TrainArgs,
    layout: &ParameterLayout,
    outcome: &Outcome,
    best: &GreedyParameters,
    evaluation: &[EvaluationRow],
    easy_sum: f64,
) -> Result<(), TrainError> {
    write_atomic(&args.out.join("best.json"), &pretty(best))?;

    let names = layout.names();
    let mut csv = String::from("generation,evaluations,best,mean,worst,offspring_mean,accepted");
    for name in &names {
        let _ = write!(csv, ",step.{name}");
    }
    csv.push('\n');
    for g in &outcome.history {
        let _ = write!(
            csv,
            "{},{},{},{},{},{},{}",
            g.generation,
            g.evaluations,
            g.best,
            g.mean,
            g.worst,
            g.offspring_mean.map_or(String::new(), |m| m.to_string()),
            g.accepted
        );
        for step in &g.mean_steps {
            let _ = write!(csv, ",{step}");
        }
        csv.push('\n');
    }
    write_atomic(&args.out.join("generations.csv"), &csv)?;

    let reference = (easy_sum > 0.0).then_some(("EASY", easy_sum));
    let title = format!(
        "Greedy ({}) trained by a ({}+{}) evolution strategy",
        layout, args.mu, args.lambda
    );
    let svg = convergence_svg(&outcome.history, reference, &title).map_err(TrainError::Plot)?;
    write_atomic(&args.out.join("convergence.svg"), &svg)?;

    let mut csv = String::from(
        "workload,trained_on,policy,awrt1,awrt2,awrt3,awrt4,awrt5,util,objective,objective_vs_easy\n",
    );
    for pair in evaluation.chunks(2) {
        let easy = pair[0].objective;
        for row in pair {
            let _ = write!(csv, "{},{},{}", row.workload, row.trained_on, row.policy);
            for awrt in &row.awrt {
                let _ = write!(csv, ",{}", awrt.map_or(String::new(), |a| a.to_string()));
            }
            let _ = writeln!(
                csv,
                ",{},{},{}",
                row.util.map_or(String::new(), |u| u.to_string()),
                row.objective,
                row.objective / easy - 1.0
            );
        }
    }
    write_atomic(&args.out.join("evaluation.csv"), &csv)?;

    let summary = TrainSummary {
        tool: "schedsim",
        version: env!("CARGO_PKG_VERSION"),
        workloads: &args.workloads,
        criteria: layout.to_string(),
        parameters: names,
        objective: args.objective.to_string(),
        mu: args.mu,
        lambda: args.lambda,
        generations: args.generations,
        seed: args.seed,
        overrun: args.overrun,
        scale_to: args.scale_to,
        scale_jobs: &args.scale_jobs,
        scale_adjustment: args.scale_adjustment,
        scale_seed: args.scale_seed,
        invoke: args.invoke,
        generation_reached: outcome.generation,
        complete: outcome.complete,
        evaluations: outcome.evaluations,
        best_fitness: outcome.best.fitness,
        best_per_workload: &outcome.best.cases,
        best,
    };
    write_atomic(&args.out.join("train.json"), &pretty(&summary))
}

/// Pretty JSON with a final newline.
fn pretty<T: Serialize>(value: &T) -> String {
    // These types have no maps with non-string keys, so serde_json cannot
    // fail on them.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn report(
    args: &TrainArgs,
    outcome: &Outcome,
    evaluation: &[EvaluationRow],
    seconds: f64,
    simulations: u64,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "generation {} of {} ({}), {} evaluations in all; best {} = {:.1}",
        outcome.generation,
        args.generations,
        if outcome.complete {
            "complete"
        } else {
            "stopped; rerun to resume"
        },
        outcome.evaluations,
        args.objective,
        outcome.best.fitness
    )?;
    if simulations > 0 {
        writeln!(
            out,
            "{simulations} simulations in {seconds:.1} s here: {:.2} simulations/s",
            simulations as f64 / seconds
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<44} {:<7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>12} {:>8}",
        "workload",
        "policy",
        "AWRT1",
        "AWRT2",
        "AWRT3",
        "AWRT4",
        "AWRT5",
        "UTIL",
        "objective",
        "vs EASY"
    )?;
    for pair in evaluation.chunks(2) {
        let easy = &pair[0];
        for row in pair {
            let name = if row.trained_on {
                format!("{} (trained)", row.workload)
            } else {
                row.workload.clone()
            };
            write!(out, "{name:<44} {:<7}", row.policy)?;
            for (group, awrt) in row.awrt.iter().enumerate() {
                match (awrt, easy.awrt[group]) {
                    (Some(a), Some(e)) if row.policy != "easy" => {
                        write!(out, " {:>+8.1}%", 100.0 * (a / e - 1.0))?;
                    }
                    (Some(a), _) => write!(out, " {a:>9.0}")?,
                    (None, _) => write!(out, " {:>9}", "-")?,
                }
            }
            let util = row
                .util
                .map_or("-".to_owned(), |u| format!("{:.2}%", 100.0 * u));
            writeln!(
                out,
                " {util:>7} {:>12.0} {:>+7.1}%",
                row.objective,
                100.0 * (row.objective / easy.objective - 1.0)
            )?;
        }
    }
    writeln!(
        out,
        "AWRTk in seconds for EASY, change against EASY for Greedy; UTIL as in eq. 5; files in {}",
        args.out.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_files_are_named_after_the_process() {
        assert_eq!(
            temporary_path(Path::new("out/best.json")),
            Path::new(&format!("out/.best.json.tmp.{}", std::process::id()))
        );
    }
}

//! `schedsim compare DIR_A DIR_B`: two runs of the same workload side by
//! side, and their per-job differentials with batch-means confidence
//! intervals (the "common random numbers" comparison of the LOS thesis,
//! section 4.2; see [`schedsim_metrics::compare`]).
//!
//! The folders are those `schedsim simulate --out` writes. They must be runs
//! of the same workload: the same input SHA-256, the same load change and
//! machine in summary.json, and jobs.csv rows with the same job numbers,
//! submit times and sizes in the same order. Each folder's jobs.csv rows
//! must be consistent (times from 0 to 2^62 s, the derived columns equal to
//! their differences, finite ratios; see [`RunDir::read`]) and its
//! summary.json's mean wait, mean response and makespan must be those of
//! its jobs ([`RunDir::check_metrics`]): a file changed after the run is
//! refused, naming it. Both runs must have used the same metrics settings
//! (tau, warm-up and drain of summary.json's `metrics_config`) unless
//! `--allow-different-metrics` is given; the differentials use run A's.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use schedsim_metrics::{CompareConfig, Comparison, MetricsError, compare as compare_jobs};
use serde::Serialize;

use crate::CommandError;
use schedsim_run::{RunDir, RunDirError};

/// Arguments of `schedsim compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// Run A (a `simulate --out` policy folder with jobs.csv and
    /// summary.json).
    #[arg(value_name = "DIR_A")]
    pub a: PathBuf,
    /// Run B; differentials are A - B, so positive means B is better.
    #[arg(value_name = "DIR_B")]
    pub b: PathBuf,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.90)]
    pub level: f64,
    /// Number of batches of the batch-means method.
    #[arg(long, default_value_t = 30, value_parser = schedsim_run::whole_number::<u32>(0))]
    pub batches: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Compare runs whose metrics settings (tau, warm-up, drain in
    /// summary.json's metrics_config) differ. Without it they are refused:
    /// their summary metrics side by side would not measure the same
    /// thing. With it, the per-job differentials use run A's settings and
    /// the report says the key metrics mix settings.
    #[arg(long)]
    pub allow_different_metrics: bool,
}

impl CompareArgs {
    /// Defaults (90% level, 30 batches, table) for two folders.
    pub fn new(a: PathBuf, b: PathBuf) -> Self {
        Self {
            a,
            b,
            level: 0.90,
            batches: 30,
            json: false,
            allow_different_metrics: false,
        }
    }
}

/// Why `compare` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// A run folder could not be read.
    #[error(transparent)]
    Read(#[from] RunDirError),
    /// The runs used different metrics settings (tau, warm-up, drain).
    #[error(
        "{a} and {b} were measured with different metrics settings ({differences}); their summary metrics are not comparable side by side. Run simulate again with the same --tau, --warmup and --drain, or pass --allow-different-metrics to compare them anyway (differentials then use {a}'s settings)",
        a = a.display(),
        b = b.display()
    )]
    DifferentMetrics {
        /// Run A.
        a: PathBuf,
        /// Run B.
        b: PathBuf,
        /// What differs, e.g. `tau 10 vs 600, warmup 0.0 vs 0.3`.
        differences: String,
    },
    /// The runs are of different workloads or settings.
    #[error("{a} and {b} are not runs of the same workload: {reason}", a = a.display(), b = b.display())]
    NotComparable {
        /// Run A.
        a: PathBuf,
        /// Run B.
        b: PathBuf,
        /// What differs.
        reason: String,
    },
    /// The comparison itself failed (bad level or batches).
    #[error("cannot compare the runs")]
    Metrics(#[from] MetricsError),
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl CommandError for CompareError {}

/// What `compare` found.
#[derive(Debug, Clone, Serialize)]
pub struct CompareOutcome {
    /// Run A's policy.
    pub a: String,
    /// Run B's policy.
    pub b: String,
    /// Key metrics: (name, A, B).
    pub metrics: Vec<(String, Option<f64>, Option<f64>)>,
    /// The metrics settings that differ between A and B (`tau 10 vs
    /// 600`), allowed by `--allow-different-metrics`; empty if none.
    pub different_metrics: Vec<String>,
    /// The per-job differentials, A - B.
    pub differentials: Comparison,
}

/// The metrics shown side by side: (label, path in summary.json's metrics).
const KEY_METRICS: &[(&str, &[&str])] = &[
    ("utilization", &["utilization"]),
    ("mean wait (s)", &["wait", "mean"]),
    ("p95 wait (s)", &["wait", "p95"]),
    ("mean response (s)", &["response", "mean"]),
    ("mean bounded slowdown", &["bounded_slowdown", "mean"]),
    ("max bounded slowdown", &["bounded_slowdown", "max"]),
    ("AWRT (s)", &["awrt"]),
    ("mean queue length", &["queue_length", "mean"]),
    ("max queue length", &["queue_length", "max"]),
    ("makespan (s)", &["makespan"]),
];

/// Runs `schedsim compare`.
///
/// # Errors
/// See [`CompareError`].
pub fn compare(args: &CompareArgs, out: &mut dyn Write) -> Result<CompareOutcome, CompareError> {
    let a = RunDir::read(&args.a)?;
    let b = RunDir::read(&args.b)?;
    // Rows each consistent but changed after the run, or files of two
    // runs in one folder: the summary's metrics no longer match the jobs.
    // Checked first, so such a folder is named rather than the pair.
    a.check_metrics()?;
    b.check_metrics()?;
    check_same_workload(&a, &b)?;
    let different_metrics = metrics_differences(&a, &b);
    if !different_metrics.is_empty() && !args.allow_different_metrics {
        return Err(CompareError::DifferentMetrics {
            a: a.dir.clone(),
            b: b.dir.clone(),
            differences: different_metrics.join(", "),
        });
    }
    let settings = &a.summary["metrics_config"];
    let config = CompareConfig {
        level: args.level,
        batches: args.batches,
        tau: settings["tau"].as_i64().unwrap_or(10),
        warmup: settings["warmup"].as_f64().unwrap_or(0.0),
        drain: settings["drain"].as_f64().unwrap_or(0.0),
    };
    let differentials = compare_jobs(&a.completed(), &b.completed(), &config)?;
    let metric = |run: &RunDir, path: &[&str]| {
        path.iter()
            .fold(&run.summary["metrics"], |v, key| &v[*key])
            .as_f64()
    };
    let outcome = CompareOutcome {
        a: a.policy().to_owned(),
        b: b.policy().to_owned(),
        metrics: KEY_METRICS
            .iter()
            .map(|(label, path)| ((*label).to_owned(), metric(&a, path), metric(&b, path)))
            .collect(),
        different_metrics,
        differentials,
    };
    let text = if args.json {
        let mut json = serde_json::to_string_pretty(&outcome).map_err(io::Error::other);
        if let Ok(json) = &mut json {
            json.push('\n');
        }
        json.map_err(CompareError::Output)?
    } else {
        report(&a, &b, &outcome)
    };
    out.write_all(text.as_bytes())
        .map_err(CompareError::Output)?;
    Ok(outcome)
}

/// The metrics settings of summary.json that differ between `a` and `b`,
/// as `tau 10 vs 600`. The runtime-class bounds are left out: a policy may
/// set its own (SCOJO-PECT), and they change neither the key metrics nor
/// the differentials.
fn metrics_differences(a: &RunDir, b: &RunDir) -> Vec<String> {
    ["tau", "warmup", "drain"]
        .into_iter()
        .filter_map(|key| {
            let (x, y) = (
                &a.summary["metrics_config"][key],
                &b.summary["metrics_config"][key],
            );
            (x != y).then(|| format!("{key} {x} vs {y}"))
        })
        .collect()
}

fn check_same_workload(a: &RunDir, b: &RunDir) -> Result<(), CompareError> {
    let differ = |reason: String| CompareError::NotComparable {
        a: a.dir.clone(),
        b: b.dir.clone(),
        reason,
    };
    for (what, key) in [
        ("input SHA-256", &["workload", "sha256"][..]),
        ("load change", &["load"][..]),
        ("machine", &["machine"][..]),
        ("job model", &["job_model"][..]),
    ] {
        let value = |run: &RunDir| key.iter().fold(&run.summary, |v, k| &v[*k]).clone();
        if value(a) != value(b) {
            return Err(differ(format!(
                "the {what} differs ({} vs {})",
                value(a),
                value(b)
            )));
        }
    }
    for run in [a, b] {
        if !run.rejected.is_empty() {
            return Err(differ(format!(
                "{} rejected {} jobs (e.g. job {}); a job-by-job comparison needs both runs to \
                 have run the same jobs",
                run.dir.display(),
                run.rejected.len(),
                run.rejected[0]
            )));
        }
    }
    if a.jobs.len() != b.jobs.len() {
        return Err(differ(format!(
            "{} jobs vs {} jobs",
            a.jobs.len(),
            b.jobs.len()
        )));
    }
    for (row, (x, y)) in a.jobs.iter().zip(&b.jobs).enumerate() {
        if (x.number, x.job.submit, x.job.procs) != (y.number, y.job.submit, y.job.procs) {
            return Err(differ(format!(
                "jobs.csv row {} is job {} submitted at {} on {} processors vs job {} at {} on {}",
                row + 1,
                x.number,
                x.job.submit,
                x.job.procs,
                y.number,
                y.job.submit,
                y.job.procs
            )));
        }
    }
    Ok(())
}

fn report(a: &RunDir, b: &RunDir, outcome: &CompareOutcome) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "A: {} ({})", a.dir.display(), outcome.a);
    let _ = writeln!(text, "B: {} ({})", b.dir.display(), outcome.b);
    let _ = writeln!(
        text,
        "workload: {} jobs, sha256 {}",
        a.jobs.len(),
        a.summary["workload"]["sha256"].as_str().unwrap_or("?")
    );
    if !outcome.different_metrics.is_empty() {
        let _ = writeln!(
            text,
            "note: the metrics settings differ ({}): the key metrics below mix them; the \
             per-job differentials use A's",
            outcome.different_metrics.join(", ")
        );
    }
    let _ = writeln!(text);
    let _ = writeln!(
        text,
        "{:<24} {:>14} {:>14} {:>14}",
        "metric", "A", "B", "A - B"
    );
    let show = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"));
    for (label, x, y) in &outcome.metrics {
        let diff = x.zip(*y).map(|(x, y)| x - y);
        let _ = writeln!(
            text,
            "{label:<24} {:>14} {:>14} {:>14}",
            show(*x),
            show(*y),
            show(diff)
        );
    }
    let c = &outcome.differentials;
    let _ = writeln!(text);
    // Every job is in a batch: the n mod b leftover jobs make the first
    // batches one job larger.
    let sizes = if c.larger_batches > 0 {
        format!(
            "{} batches of {} and {} of {} jobs",
            c.larger_batches,
            c.batch_size + 1,
            c.batches - c.larger_batches,
            c.batch_size
        )
    } else {
        format!("{} batches of {} jobs", c.batches, c.batch_size)
    };
    let _ = writeln!(
        text,
        "per-job differentials A - B (positive: B is better), {:.0}% CI by batch means \
         ({sizes}, {} jobs):",
        c.level * 100.0,
        c.jobs
    );
    for (label, d) in [
        ("response (s)", c.response),
        ("wait (s)", c.wait),
        ("bounded slowdown", c.bounded_slowdown),
    ] {
        let interval = match (d.low, d.high) {
            (Some(low), Some(high)) => format!("[{low:.4}, {high:.4}]"),
            _ => "(fewer than 2 batches)".to_owned(),
        };
        let verdict = match (d.low, d.high) {
            (Some(low), _) if low > 0.0 => "B better",
            (_, Some(high)) if high < 0.0 => "A better",
            (Some(_), Some(_)) => "no significant difference",
            _ => "",
        };
        let _ = writeln!(
            text,
            "  {label:<18} mean {:>14.4}  CI {interval}  {verdict}",
            d.mean
        );
    }
    text
}

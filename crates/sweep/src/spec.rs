//! The sweep spec: a TOML file naming workloads, target loads, policies
//! with parameter grids, seeds, metrics, the baseline and the output folder.
//!
//! ```toml
//! name = "kth-lookahead"
//! output = "results/kth-lookahead" # optional, relative to this file
//!                                  # (default: sweeps/NAME in the current
//!                                  # directory, or --out)
//! loads = [0.5, 0.6, 0.7, 0.8, 0.9]
//! load_method = "scale"            # scale | duplicate | expand
//! seeds = [1]                      # generated workloads, duplicate/expand
//! policies = ["easy", "los:lookahead={10,25,50}"]
//! baseline = "easy"                # differentials: baseline - policy
//! metrics = ["response.mean", "bounded_slowdown.mean", "utilization"]
//! queue_load = 0.9                 # queue length over time at this load
//! estimates = "recorded"           # recorded | exact
//! invoke = "per-timestamp"         # per-timestamp | per-event
//! event_order = "ends-first"       # ends-first | arrivals-first
//! simultaneous_ends = "separate"   # separate | together (per event)
//! suspend_overhead = 0             # seconds per suspension and per
//! resume_overhead = 0              # resumption (time-sharing policies)
//! y_scale = "auto"                 # auto | linear | log: figures of waits,
//!                                  # responses and slowdowns (auto: log
//!                                  # when the values span a decade)
//!
//! objective = "10 * AWRT1 + 4 * AWRT2" # the `groups.objective` metric
//!
//! [[workload]]
//! name = "kth"
//! file = "${SCHEDSIM_TRACES}/KTH-SP2-1996-2.1-cln.swf.gz"
//! lenient = true
//! # Ernemann scaling to 1,024 processors (`simulate --scale-to`); `jobs`
//! # sets the adjustment from a job count, else `adjustment` (default 1).
//! scale = { to = 1024, jobs = 167375, seed = 0 }
//!
//! [[workload]]
//! name = "lublin"
//! lublin = { nodes = 128, jobs = 10000, estimate_f = 3.0 }
//!
//! [[policy]]                       # the table form of a grid
//! name = "los"
//! merit = ["none", "maxjobs", "max-slowdown"]
//! lookahead = 50
//! ```
//!
//! A policy string expands every `{a,b,c}` group (cartesian product, the
//! first group varying slowest); a `[[policy]]` table expands every array
//! value the same way, options in key order. Policies are checked against
//! the registry when the spec is read. A sweep has at most [`MAX_CELLS`]
//! cells (workloads x loads x seeds x policies); larger grids are refused
//! before they are expanded. The sweep's and the workloads'
//! names, and the policies, must not be empty nor hold control characters
//! (names become folders, and appear in messages and CSV rows); the names
//! must fit a folder name (255 bytes).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use schedsim_metrics::Objective;
use schedsim_policies::{PolicySpec, build_policy};
use schedsim_run::{DeadlineParams, Ends, Estimates, Invoke, Order};

pub use super::cwf::CwfSettings;
use schedsim_sim_core::LoadMethod;
use serde::{Deserialize, Serialize};

/// Why a spec is unusable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The TOML does not parse or has unknown keys.
    #[error("{path}: {message}")]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A value is wrong.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    name: Option<String>,
    output: Option<String>,
    loads: Vec<f64>,
    #[serde(default)]
    load_method: LoadMethod,
    #[serde(default)]
    load_factor: bool,
    #[serde(default = "default_seeds")]
    seeds: Vec<u64>,
    #[serde(default)]
    policies: Vec<String>,
    #[serde(default)]
    policy: Vec<toml::Table>,
    baseline: Option<String>,
    #[serde(default)]
    metrics: Vec<String>,
    queue_load: Option<f64>,
    #[serde(default = "default_level")]
    level: f64,
    #[serde(default = "default_batches")]
    batches: u32,
    #[serde(default = "default_tau")]
    tau: i64,
    #[serde(default)]
    warmup: f64,
    #[serde(default)]
    drain: f64,
    #[serde(default)]
    overrun: Overrun,
    #[serde(default = "default_granularity")]
    granularity: u32,
    #[serde(default)]
    estimates: Estimates,
    #[serde(default)]
    invoke: Invoke,
    #[serde(default)]
    event_order: Order,
    #[serde(default)]
    simultaneous_ends: Ends,
    #[serde(default)]
    suspend_overhead: i64,
    #[serde(default)]
    resume_overhead: i64,
    #[serde(default)]
    y_scale: FigureScale,
    #[serde(default)]
    objective: Objective,
    workload: Vec<WorkloadFile>,
}

/// The `y_scale` key: the value axis of the figures of waits, responses and
/// slowdowns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FigureScale {
    /// Logarithmic when the values span more than
    /// [`AUTO_LOG_RATIO`](schedsim_run::AUTO_LOG_RATIO), else linear.
    #[default]
    Auto,
    /// Always linear.
    Linear,
    /// Always logarithmic.
    Log,
}

impl FigureScale {
    /// The chart scale.
    pub fn axis_scale(self) -> schedsim_run::AxisScale {
        match self {
            Self::Auto => schedsim_run::AxisScale::Auto,
            Self::Linear => schedsim_run::AxisScale::Linear,
            Self::Log => schedsim_run::AxisScale::Log,
        }
    }
}

fn default_seeds() -> Vec<u64> {
    vec![1]
}
fn default_level() -> f64 {
    0.90
}
fn default_batches() -> u32 {
    30
}
fn default_tau() -> i64 {
    10
}
fn default_granularity() -> u32 {
    1
}

/// What happens to a job that runs past its estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Overrun {
    /// Killed at its estimate.
    #[default]
    Kill,
    /// Runs its full runtime.
    Extend,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    name: String,
    file: Option<String>,
    #[serde(default)]
    lenient: bool,
    procs: Option<u32>,
    scale: Option<ScaleSettings>,
    first_jobs: Option<u64>,
    deadlines: Option<DeadlineParams>,
    lublin: Option<LublinSettings>,
    cwf: Option<CwfSettings>,
}

/// Ernemann et al.'s scaling of a trace to a larger machine (the
/// `simulate --scale-to` options), applied before the load change.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleSettings {
    /// Processors of the target machine.
    pub to: u32,
    /// The adjustment whose expected job count is this (else `adjustment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u64>,
    /// The factor's adjustment above to / m (default 1).
    #[serde(default = "one")]
    pub adjustment: f64,
    /// Seed of the scaling's draws (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Fraction of the jobs duplicated rather than enlarged (default 0.5).
    #[serde(default = "half")]
    pub duplicates: f64,
}

fn one() -> f64 {
    1.0
}

fn half() -> f64 {
    0.5
}

/// Settings of a generated Lublin-Feitelson workload; its load is set by
/// the generator (its target load is each sweep load).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LublinSettings {
    /// Machine size, nodes.
    pub nodes: u32,
    /// Jobs generated.
    pub jobs: usize,
    /// Batch and interactive job types (default true, the model's default).
    #[serde(default = "yes")]
    pub job_types: bool,
    /// f of the f-model estimates (requested time = runtime x U(1, f));
    /// without it the estimate is the runtime.
    pub estimate_f: Option<f64>,
}

fn yes() -> bool {
    true
}

/// Where a workload comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkloadKind {
    /// A trace file (path resolved, environment variables expanded).
    File {
        /// The file.
        path: PathBuf,
        /// Skip bad lines and unsimulatable jobs.
        lenient: bool,
        /// Machine size override.
        procs: Option<u32>,
        /// Scaling to a larger machine.
        scale: Option<ScaleSettings>,
        /// Only the first this many jobs of the trace (as the QoPS paper's
        /// 5,000-job subsets), before the load change.
        first_jobs: Option<u64>,
        /// Deadlines made per load (EASY on the load-modified trace; see
        /// `schedsim deadlines`).
        deadlines: Option<DeadlineParams>,
    },
    /// The Lublin-Feitelson generator.
    Lublin(LublinSettings),
    /// The CWF generator of Kumar et al.
    Cwf(Box<CwfSettings>),
}

/// One workload of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSpec {
    /// Its name in results and plots.
    pub name: String,
    /// Its source.
    pub kind: WorkloadKind,
}

/// A spec, validated, with paths resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The spec file.
    pub path: PathBuf,
    /// Its text, stored in the output folder.
    pub text: String,
    /// The sweep's name.
    pub name: String,
    /// The output folder the spec names (`output`, resolved against the
    /// spec's folder), if any.
    pub output: Option<PathBuf>,
    /// Target loads.
    pub loads: Vec<f64>,
    /// How file workloads reach them.
    pub load_method: LoadMethod,
    /// Loads are factors of each trace's own offered load (the QoPS
    /// paper's l), not offered loads.
    pub load_factor: bool,
    /// Seeds (replicas).
    pub seeds: Vec<u64>,
    /// Canonical policy specs, in expansion order.
    pub policies: Vec<String>,
    /// The baseline policy (canonical), if any.
    pub baseline: Option<String>,
    /// Metrics collected (paths into the run metrics).
    pub metrics: Vec<String>,
    /// The load of the queue-length-over-time plot.
    pub queue_load: Option<f64>,
    /// Confidence level of the differentials.
    pub level: f64,
    /// Batches of the batch-means method.
    pub batches: u32,
    /// Bounded-slowdown threshold.
    pub tau: i64,
    /// Warm-up fraction.
    pub warmup: f64,
    /// Drain fraction.
    pub drain: f64,
    /// Overrun rule.
    pub overrun: Overrun,
    /// Allocation granularity.
    pub granularity: u32,
    /// Where estimates come from (`estimates = "exact"`).
    pub estimates: Estimates,
    /// When the policy is called (`invoke = "per-event"`).
    pub invoke: Invoke,
    /// The order of simultaneous events (`event_order = "arrivals-first"`).
    pub event_order: Order,
    /// Seconds to suspend a job (`suspend_overhead = 60`, time-sharing
    /// policies; default 0).
    pub suspend_overhead: i64,
    /// Seconds to resume one (`resume_overhead`; default 0).
    pub resume_overhead: i64,
    /// The value axis of wait, response and slowdown figures.
    pub y_scale: FigureScale,
    /// Per event: simultaneous ends apart or together
    /// (`simultaneous_ends = "together"`).
    pub simultaneous_ends: Ends,
    /// The objective of the `groups.objective` metric (Franke et al.'s
    /// eq. 8 by default).
    pub objective: Objective,
    /// The workloads.
    pub workloads: Vec<WorkloadSpec>,
}

/// Every metric a spec may name: paths into `RunMetrics` as JSON.
pub const KNOWN_METRICS: &[&str] = &[
    "wait.mean",
    "wait.median",
    "wait.p95",
    "wait.max",
    "response.mean",
    "response.median",
    "response.p95",
    "response.max",
    "slowdown.mean",
    "slowdown.median",
    "slowdown.p95",
    "slowdown.max",
    "bounded_slowdown.mean",
    "bounded_slowdown.median",
    "bounded_slowdown.p95",
    "bounded_slowdown.max",
    "mean_based_slowdown",
    "awrt",
    "utilization",
    "makespan",
    "offered_load",
    "queue_length.mean",
    "queue_length.max",
    "queue_length.per_step_mean",
    "jobs",
    "measured_jobs",
    "groups.awrt1",
    "groups.awrt2",
    "groups.awrt3",
    "groups.awrt4",
    "groups.awrt5",
    "groups.awrt",
    "groups.util",
    "groups.objective",
    "deadlines.rejected_share",
    "deadlines.rejected_work_share",
    "deadlines.missed",
    "deadlines.user.rejected_share",
    "deadlines.user.rejected_work_share",
    "deadlines.user.missed",
    "deadlines.user.mean_response",
    "deadlines.user.mean_bounded_slowdown",
    "deadlines.artificial.rejected_share",
    "deadlines.artificial.rejected_work_share",
    "deadlines.artificial.missed",
    "deadlines.artificial.mean_response",
    "deadlines.artificial.mean_bounded_slowdown",
    "deadlines.none.mean_response",
    "deadlines.none.mean_bounded_slowdown",
    // Heterogeneous workloads (dedicated jobs): the batch and the
    // dedicated jobs apart, and the dedicated jobs' start delays.
    "batch.wait.mean",
    "batch.wait.max",
    "batch.response.mean",
    "batch.bounded_slowdown.mean",
    "batch.mean_based_slowdown",
    "batch.utilization",
    "batch.jobs",
    "dedicated.wait.mean",
    "dedicated.response.mean",
    "dedicated.bounded_slowdown.mean",
    "dedicated.mean_based_slowdown",
    "dedicated.utilization",
    "dedicated.jobs",
    "delay.mean",
    "delay.max",
    "delay.delayed",
    "delay.mean_of_delayed",
    "delay.jobs",
    "runtime_classes.short.jobs",
    "runtime_classes.short.job_share",
    "runtime_classes.short.work_share",
    "runtime_classes.short.mean_size",
    "runtime_classes.short.mean_wait",
    "runtime_classes.short.mean_response",
    "runtime_classes.short.mean_bounded_slowdown",
    "runtime_classes.medium.jobs",
    "runtime_classes.medium.job_share",
    "runtime_classes.medium.work_share",
    "runtime_classes.medium.mean_size",
    "runtime_classes.medium.mean_wait",
    "runtime_classes.medium.mean_response",
    "runtime_classes.medium.mean_bounded_slowdown",
    "runtime_classes.long.jobs",
    "runtime_classes.long.job_share",
    "runtime_classes.long.work_share",
    "runtime_classes.long.mean_size",
    "runtime_classes.long.mean_wait",
    "runtime_classes.long.mean_response",
    "runtime_classes.long.mean_bounded_slowdown",
    "counters.groups",
    "counters.groups_medium",
    "counters.groups_long",
    "counters.jobs_grouped",
    "counters.schedules_evaluated",
    "counters.level1_orders",
    "counters.search_nodes",
    "counters.nodes_pruned",
    "counters.suspensions",
    "counters.smart_starts",
    "counters.smart_resumptions",
];

/// Metrics collected when the spec names none.
pub const DEFAULT_METRICS: &[&str] = &[
    "response.mean",
    "wait.mean",
    "bounded_slowdown.mean",
    "utilization",
    "queue_length.mean",
    "awrt",
];

/// The most cells a sweep may have (workloads x loads x seeds x
/// policies), and so the most policies its grids may expand to: every cell
/// is a simulation and a file, and the cells are listed in memory before
/// any runs (ten `{...}` groups of ten choices aborted on an allocation
/// failure).
pub const MAX_CELLS: usize = 1_000_000;

impl Spec {
    /// Reads and validates a spec file.
    ///
    /// # Errors
    /// An unreadable file, bad TOML, unknown keys, or bad values (named).
    pub fn read(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path, &|name| std::env::var(name).ok())
    }

    /// Parses spec `text` read from `path` (relative paths are resolved
    /// against its folder); `env` looks up environment variables.
    ///
    /// # Errors
    /// Bad TOML, unknown keys, or bad values.
    pub fn parse(
        text: &str,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, SpecError> {
        let invalid = |message: String| SpecError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let file: SpecFile = toml::from_str(text).map_err(|e| SpecError::Toml {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let name = match file.name {
            Some(name) => {
                check_name("the sweep's `name`", &name).map_err(invalid)?;
                check_folder_name("the sweep's `name`", &name).map_err(invalid)?;
                name
            }
            None => {
                let name = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "sweep".to_owned());
                check_name("the file name (the sweep's name without `name`)", &name)
                    .map_err(invalid)?;
                name
            }
        };
        let output = match &file.output {
            Some(output) => Some(base.join(expand_env(output, env).map_err(invalid)?)),
            None => None,
        };
        if file.loads.is_empty() {
            return Err(invalid("`loads` is empty".to_owned()));
        }
        for &load in &file.loads {
            if !(load.is_finite() && load > 0.0) {
                return Err(invalid(format!("load {load} is not a positive number")));
            }
        }
        if dedup_check(file.loads.iter().map(|l| l.to_bits())).is_some() {
            return Err(invalid("`loads` repeats a value".to_owned()));
        }
        if file.seeds.is_empty() {
            return Err(invalid("`seeds` is empty".to_owned()));
        }
        if let Some(seed) = dedup_check(file.seeds.iter().copied()) {
            return Err(invalid(format!("`seeds` repeats {seed}")));
        }
        let mut policies = Vec::new();
        for text in &file.policies {
            check_name("a policy", text).map_err(invalid)?;
            policies
                .extend(expand_braces(text).map_err(|e| invalid(format!("policy `{text}`: {e}")))?);
            check_policy_count(policies.len()).map_err(invalid)?;
        }
        for (index, table) in file.policy.iter().enumerate() {
            policies.extend(
                expand_table(table)
                    .map_err(|e| invalid(format!("[[policy]] number {}: {e}", index + 1)))?,
            );
            check_policy_count(policies.len()).map_err(invalid)?;
        }
        if policies.is_empty() {
            return Err(invalid(
                "no policies: give `policies` or [[policy]] tables".to_owned(),
            ));
        }
        let mut canonical = Vec::with_capacity(policies.len());
        for text in &policies {
            // Those of [[policy]] tables, whose values were not checked.
            check_name("a policy", text).map_err(invalid)?;
            let spec: PolicySpec = text
                .parse()
                .map_err(|e| invalid(format!("policy `{text}`: {e}")))?;
            build_policy(&spec).map_err(|e| invalid(format!("policy `{text}`: {e}")))?;
            canonical.push(spec.to_string());
        }
        if let Some(policy) = dedup_check(canonical.iter().cloned()) {
            return Err(invalid(format!("policy `{policy}` appears twice")));
        }
        let baseline = match &file.baseline {
            Some(text) => {
                let spec: PolicySpec = text
                    .parse()
                    .map_err(|e| invalid(format!("baseline `{text}`: {e}")))?;
                let spec = spec.to_string();
                if !canonical.contains(&spec) {
                    return Err(invalid(format!(
                        "baseline `{spec}` is not one of the policies"
                    )));
                }
                Some(spec)
            }
            None => None,
        };
        let metrics: Vec<String> = if file.metrics.is_empty() {
            DEFAULT_METRICS.iter().map(|m| (*m).to_owned()).collect()
        } else {
            file.metrics.clone()
        };
        for metric in &metrics {
            if !KNOWN_METRICS.contains(&metric.as_str()) {
                return Err(invalid(format!(
                    "unknown metric `{metric}` (known: {})",
                    KNOWN_METRICS.join(", ")
                )));
            }
        }
        if let Some(metric) = dedup_check(metrics.iter().cloned()) {
            return Err(invalid(format!("metric `{metric}` appears twice")));
        }
        if let Some(load) = file.queue_load
            && !file.loads.contains(&load)
        {
            return Err(invalid(format!(
                "queue_load {load} is not one of the loads"
            )));
        }
        if !(file.level > 0.0 && file.level < 1.0) || file.batches == 0 {
            return Err(invalid(format!(
                "level {} must be in (0, 1) and batches {} at least 1",
                file.level, file.batches
            )));
        }
        if file.tau < 1 || file.granularity == 0 {
            return Err(invalid(format!(
                "tau ({}) and granularity ({}) must be at least 1",
                file.tau, file.granularity
            )));
        }
        let fraction = |f: f64| (0.0..1.0).contains(&f);
        if !fraction(file.warmup) || !fraction(file.drain) || file.warmup + file.drain >= 1.0 {
            return Err(invalid(format!(
                "warmup ({}) and drain ({}) must be fractions in [0, 1) adding up to less than 1",
                file.warmup, file.drain
            )));
        }
        if file.workload.is_empty() {
            return Err(invalid("no [[workload]]".to_owned()));
        }
        let mut workloads = Vec::new();
        for (index, w) in file.workload.iter().enumerate() {
            let what = format!("[[workload]] number {}: `name`", index + 1);
            check_name(&what, &w.name).map_err(invalid)?;
            check_folder_name(&what, &w.name).map_err(invalid)?;
            let kind = match (&w.file, &w.lublin) {
                (None, None) if w.cwf.is_some() && !w.lenient && w.procs.is_none() => {
                    let cwf = w.cwf.clone().unwrap_or_default();
                    cwf.validate()
                        .map_err(|e| invalid(format!("workload `{}`: {e}", w.name)))?;
                    check_generated(&w.name, "cwf", cwf.params.machine_size, cwf.jobs)
                        .map_err(invalid)?;
                    WorkloadKind::Cwf(Box::new(cwf))
                }
                _ if w.cwf.is_some() => {
                    return Err(invalid(format!(
                        "workload `{}`: cwf takes no file, lublin, procs or lenient",
                        w.name
                    )));
                }
                (Some(file), None) => {
                    if let Some(deadlines) = &w.deadlines {
                        deadlines
                            .validate()
                            .map_err(|e| invalid(format!("workload `{}`: {e}", w.name)))?;
                    }
                    if w.first_jobs == Some(0) {
                        return Err(invalid(format!(
                            "workload `{}`: first_jobs must be at least 1",
                            w.name
                        )));
                    }
                    WorkloadKind::File {
                        path: base.join(expand_env(file, env).map_err(invalid)?),
                        lenient: w.lenient,
                        procs: w.procs,
                        scale: w.scale,
                        first_jobs: w.first_jobs,
                        deadlines: w.deadlines,
                    }
                }
                (None, Some(lublin)) => {
                    if lublin.nodes == 0 || lublin.jobs < 2 {
                        return Err(invalid(format!(
                            "workload `{}`: lublin needs nodes >= 1 and jobs >= 2",
                            w.name
                        )));
                    }
                    check_generated(&w.name, "lublin", lublin.nodes, lublin.jobs)
                        .map_err(invalid)?;
                    if w.procs.is_some() || w.lenient {
                        return Err(invalid(format!(
                            "workload `{}`: procs and lenient apply to files only",
                            w.name
                        )));
                    }
                    WorkloadKind::Lublin(lublin.clone())
                }
                _ => {
                    return Err(invalid(format!(
                        "workload `{}` needs exactly one of `file`, `lublin` and `cwf`",
                        w.name
                    )));
                }
            };
            if (w.first_jobs.is_some() || w.deadlines.is_some())
                && !matches!(kind, WorkloadKind::File { .. })
            {
                return Err(invalid(format!(
                    "workload `{}`: first_jobs and deadlines apply to trace files only",
                    w.name
                )));
            }
            if w.scale.is_some() && !matches!(kind, WorkloadKind::File { .. }) {
                return Err(invalid(format!(
                    "workload `{}`: scale applies to trace files only",
                    w.name
                )));
            }
            workloads.push(WorkloadSpec {
                name: w.name.clone(),
                kind,
            });
        }
        if let Some(name) = dedup_check(workloads.iter().map(|w| w.name.clone())) {
            return Err(invalid(format!("workload name `{name}` appears twice")));
        }
        // As `cells` lists them: a file scaled to its loads has no seeds.
        let cells: u128 = workloads
            .iter()
            .map(|w| match (&w.kind, file.load_method) {
                (WorkloadKind::File { .. }, LoadMethod::Scale) => 1,
                _ => file.seeds.len() as u128,
            })
            .sum::<u128>()
            * file.loads.len() as u128
            * canonical.len() as u128;
        if cells > MAX_CELLS as u128 {
            return Err(invalid(format!(
                "{cells} cells (workloads x loads x seeds x policies) are more than a sweep may have, {MAX_CELLS}"
            )));
        }
        // Names become folder names under plots/: two that map to one
        // folder would overwrite each other's figures.
        for (i, a) in workloads.iter().enumerate() {
            if let Some(b) = workloads[..i]
                .iter()
                .find(|b| path_segment(&b.name) == path_segment(&a.name))
            {
                return Err(invalid(format!(
                    "workload names `{}` and `{}` both become the folder plots/{}",
                    b.name,
                    a.name,
                    path_segment(&a.name)
                )));
            }
        }
        Ok(Self {
            path: path.to_path_buf(),
            text: text.to_owned(),
            name,
            output,
            loads: file.loads,
            load_method: file.load_method,
            load_factor: file.load_factor,
            seeds: file.seeds,
            policies: canonical,
            baseline,
            metrics,
            queue_load: file.queue_load,
            level: file.level,
            batches: file.batches,
            tau: file.tau,
            warmup: file.warmup,
            drain: file.drain,
            overrun: file.overrun,
            granularity: file.granularity,
            estimates: file.estimates,
            invoke: file.invoke,
            event_order: file.event_order,
            simultaneous_ends: file.simultaneous_ends,
            suspend_overhead: file.suspend_overhead,
            resume_overhead: file.resume_overhead,
            y_scale: file.y_scale,
            objective: file.objective,
            workloads,
        })
    }
}

/// A name shown in messages and made a folder: not empty (nor blank) and
/// free of control characters (a newline would split a message or a CSV
/// row).
fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{what} {name:?} has a control character (U+{:04X})",
            u32::from(c)
        ));
    }
    Ok(())
}

/// Refuses a name whose folder (`sweeps/NAME`, `plots/NAME`) would be
/// longer than a file system allows, 255 bytes: a sweep with such a
/// workload ran, then failed in `--merge` after writing results.csv.
fn check_folder_name(what: &str, name: &str) -> Result<(), String> {
    let bytes = path_segment(name).len();
    if bytes > 255 {
        return Err(format!(
            "{what} makes a folder name of {bytes} bytes, more than 255"
        ));
    }
    Ok(())
}

/// A name as one safe path segment: letters, digits, `.`, `_`, `-` and
/// `+` kept, anything else (a `/`, `\`, space, `:`...) replaced by `_`, and
/// a leading `.` too (so `..` and hidden names cannot occur). Never empty.
pub(crate) fn path_segment(name: &str) -> String {
    let mut segment: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if segment.starts_with('.') || segment.is_empty() {
        segment.insert(0, '_');
    }
    segment
}

/// Refuses more policies than a sweep may have cells.
fn check_policy_count(policies: usize) -> Result<(), String> {
    if policies > MAX_CELLS {
        return Err(format!(
            "the policies expand to more than {MAX_CELLS}, the most cells a sweep may have"
        ));
    }
    Ok(())
}

/// The first value seen twice, if any.
fn dedup_check<T: Ord + Clone>(values: impl Iterator<Item = T>) -> Option<T> {
    let mut seen = BTreeSet::new();
    values.into_iter().find(|v| !seen.insert(v.clone()))
}

/// Expands `${NAME}` and `$NAME` (letters, digits, `_`).
/// A generated workload is made in memory before it is simulated: a
/// machine a simulation cannot hold, or more jobs than it can index (job
/// ids are 32-bit, as `schedsim generate` allows), is refused here, before
/// the generator allocates for them.
fn check_generated(name: &str, generator: &str, procs: u32, jobs: usize) -> Result<(), String> {
    let max_jobs = u32::MAX as usize;
    if procs > schedsim_sim_core::MAX_PROCS || jobs > max_jobs {
        return Err(format!(
            "workload `{name}`: {generator} has {procs} processors and {jobs} jobs; a simulation holds at most {} processors and {max_jobs} jobs",
            schedsim_sim_core::MAX_PROCS
        ));
    }
    Ok(())
}

fn expand_env(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced
                .find('}')
                .ok_or_else(|| format!("`{text}`: unclosed ${{"))?;
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            return Err(format!("`{text}`: `$` without a variable name"));
        }
        let value =
            env(name).ok_or_else(|| format!("`{text}`: environment variable {name} is not set"))?;
        out.push_str(&value);
        rest = tail;
    }
    out.push_str(rest);
    Ok(out)
}

/// Expands every `{a,b}` group of a policy string (cartesian product, the
/// first group varying slowest).
pub fn expand_braces(text: &str) -> Result<Vec<String>, String> {
    let Some(open) = text.find('{') else {
        if text.contains('}') {
            return Err("`}` without `{`".to_owned());
        }
        return Ok(vec![text.to_owned()]);
    };
    let close = text[open..]
        .find('}')
        .map(|i| open + i)
        .ok_or_else(|| "`{` without `}`".to_owned())?;
    let inner = &text[open + 1..close];
    if inner.contains('{') {
        return Err("nested `{`".to_owned());
    }
    let choices: Vec<&str> = inner.split(',').map(str::trim).collect();
    if choices.iter().any(|c| c.is_empty()) {
        return Err(format!("empty choice in `{{{inner}}}`"));
    }
    let rests = expand_braces(&text[close + 1..])?;
    if choices.len().saturating_mul(rests.len()) > MAX_CELLS {
        return Err(format!(
            "its `{{...}}` groups expand to more than {MAX_CELLS} policies, the most cells a sweep may have"
        ));
    }
    let mut out = Vec::with_capacity(choices.len() * rests.len());
    for choice in choices {
        for rest in &rests {
            out.push(format!("{}{choice}{rest}", &text[..open]));
        }
    }
    Ok(out)
}

/// Expands a `[[policy]]` table: `name` plus options whose array values
/// are grids (keys in alphabetical order, the first varying slowest).
fn expand_table(table: &toml::Table) -> Result<Vec<String>, String> {
    let name = table
        .get("name")
        .and_then(toml::Value::as_str)
        .ok_or_else(|| "needs `name = \"POLICY\"`".to_owned())?;
    let mut specs = vec![name.to_owned()];
    let mut first = true;
    for (key, value) in table.iter().filter(|(k, _)| *k != "name") {
        let values: Vec<String> = match value {
            toml::Value::Array(items) => items
                .iter()
                .map(|v| scalar(key, v))
                .collect::<Result<_, _>>()?,
            other => vec![scalar(key, other)?],
        };
        if values.is_empty() {
            return Err(format!("`{key}` is an empty list"));
        }
        if specs.len().saturating_mul(values.len()) > MAX_CELLS {
            return Err(format!(
                "its lists expand to more than {MAX_CELLS} policies, the most cells a sweep may have"
            ));
        }
        let separator = if first { ':' } else { ',' };
        first = false;
        specs = specs
            .iter()
            .flat_map(|spec| {
                values.iter().map(move |v| {
                    let mut s = spec.clone();
                    let _ = write!(s, "{separator}{key}={v}");
                    s
                })
            })
            .collect();
    }
    Ok(specs)
}

fn scalar(key: &str, value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        _ => Err(format!(
            "`{key}`: values must be strings, numbers or booleans"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TRACES").then(|| "/data/traces".to_owned())
    }

    fn parse(text: &str) -> Result<Spec, String> {
        Spec::parse(text, Path::new("/exp/sweep.toml"), &env).map_err(|e| e.to_string())
    }

    const MINIMAL: &str = r#"
loads = [0.5, 0.7]
policies = ["easy", "{fcfs,conservative}:order={fcfs,sjf}"]
baseline = "easy"
[[workload]]
name = "kth"
file = "${TRACES}/kth.swf.gz"
lenient = true
"#;

    #[test]
    fn braces_expand_first_group_slowest() {
        let spec = parse(MINIMAL).unwrap();
        assert_eq!(
            spec.policies,
            [
                "easy",
                "fcfs:order=fcfs",
                "fcfs:order=sjf",
                "conservative:order=fcfs",
                "conservative:order=sjf"
            ]
        );
        // Defaults and resolved paths.
        assert_eq!(spec.name, "sweep");
        assert_eq!(spec.output, None);
        assert_eq!(spec.seeds, [1]);
        assert_eq!(spec.metrics.len(), DEFAULT_METRICS.len());
        assert_eq!((spec.level, spec.batches, spec.tau), (0.9, 30, 10));
        assert_eq!(
            spec.workloads[0].kind,
            WorkloadKind::File {
                path: PathBuf::from("/data/traces/kth.swf.gz"),
                lenient: true,
                procs: None,
                scale: None,
                first_jobs: None,
                deadlines: None,
            }
        );
        assert_eq!(
            expand_braces("a:x={1,2},y={3,4}").unwrap(),
            ["a:x=1,y=3", "a:x=1,y=4", "a:x=2,y=3", "a:x=2,y=4"]
        );
    }

    #[test]
    fn grids_beyond_the_cell_limit_are_refused_before_they_are_listed() {
        // Nine groups of ten choices: 10^9 policies, which were listed in
        // memory until the allocation failed.
        let group = format!(
            "{{{}}}",
            (1..=10)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let huge = format!("los:lookahead={}", group.repeat(9));
        let text = format!(
            "loads = [0.5]\npolicies = [\"{huge}\"]\n[[workload]]\nname = \"w\"\nfile = \"w.swf\"\n"
        );
        let error = parse(&text).unwrap_err();
        assert!(
            error.ends_with(
                "its `{...}` groups expand to more than 1000000 policies, the most cells a sweep may have"
            ),
            "{error}"
        );
        // The table form: 7 keys of 10 values.
        let mut text = String::from("loads = [0.5]\n[[policy]]\nname = \"los\"\n");
        for key in ["a", "b", "c", "d", "e", "f", "g"] {
            text.push_str(&format!("{key} = [1,2,3,4,5,6,7,8,9,10]\n"));
        }
        text.push_str("[[workload]]\nname = \"w\"\nfile = \"w.swf\"\n");
        let error = parse(&text).unwrap_err();
        assert!(
            error.ends_with(
                "[[policy]] number 1: its lists expand to more than 1000000 policies, the most cells a sweep may have"
            ),
            "{error}"
        );
        // Few policies, but workloads x loads x seeds x policies beyond.
        let loads: Vec<String> = (1..=1000)
            .map(|i| format!("{}", f64::from(i) / 1000.0))
            .collect();
        let seeds: Vec<String> = (1..=1001).map(|i| i.to_string()).collect();
        let text = format!(
            "loads = [{}]\nseeds = [{}]\npolicies = [\"easy\"]\n[[workload]]\nname = \"g\"\nlublin = {{ nodes = 8, jobs = 10 }}\n",
            loads.join(","),
            seeds.join(",")
        );
        let error = parse(&text).unwrap_err();
        assert!(
            error.ends_with(
                "1001000 cells (workloads x loads x seeds x policies) are more than a sweep may have, 1000000"
            ),
            "{error}"
        );
        // One seed fewer is within the limit.
        let text = text.replace(",1001]", "]");
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn policy_tables_are_grids() {
        let text = r#"
loads = [0.5]
output = "results"
[[policy]]
name = "backfill"
depth = [0, 2]
order = ["fcfs", "saf"]
[[workload]]
name = "gen"
lublin = { nodes = 64, jobs = 100 }
"#;
        let spec = parse(text).unwrap();
        // Keys in alphabetical order: depth varies slowest.
        assert_eq!(
            spec.policies,
            [
                "backfill:depth=0,order=fcfs",
                "backfill:depth=0,order=saf",
                "backfill:depth=2,order=fcfs",
                "backfill:depth=2,order=saf"
            ]
        );
        assert_eq!(spec.output.as_deref(), Some(Path::new("/exp/results")));
        assert_eq!(
            spec.workloads[0].kind,
            WorkloadKind::Lublin(LublinSettings {
                nodes: 64,
                jobs: 100,
                job_types: true,
                estimate_f: None
            })
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let with = |from: &str, to: &str| parse(&MINIMAL.replace(from, to)).unwrap_err();
        assert_eq!(
            with("${TRACES}", "${NOPE}"),
            "/exp/sweep.toml: `${NOPE}/kth.swf.gz`: environment variable NOPE is not set"
        );
        assert_eq!(
            with("baseline = \"easy\"", "baseline = \"los\""),
            "/exp/sweep.toml: baseline `los` is not one of the policies"
        );
        assert!(
            with("\"easy\",", "\"easy\", \"eazy\",")
                .starts_with("/exp/sweep.toml: policy `eazy`: unknown policy `eazy`")
        );
        assert_eq!(
            with("\"easy\",", "\"easy\", \"fcfs:order=sjf\","),
            "/exp/sweep.toml: policy `fcfs:order=sjf` appears twice"
        );
        assert_eq!(
            with("{fcfs,conservative}", "{fcfs,,conservative}"),
            "/exp/sweep.toml: policy `{fcfs,,conservative}:order={fcfs,sjf}`: empty choice in `{fcfs,,conservative}`"
        );
        assert!(with("loads", "lodes").contains("unknown field `lodes`"));
        assert_eq!(
            with("[0.5, 0.7]", "[0.5, 0.5]"),
            "/exp/sweep.toml: `loads` repeats a value"
        );
        assert!(
            parse(&format!("metrics = [\"speed\"]\n{MINIMAL}"))
                .unwrap_err()
                .starts_with("/exp/sweep.toml: unknown metric `speed` (known: wait.mean,")
        );
        assert_eq!(
            parse(&format!("warmup = 0.6\ndrain = 0.5\n{MINIMAL}")).unwrap_err(),
            "/exp/sweep.toml: warmup (0.6) and drain (0.5) must be fractions in [0, 1) adding up to less than 1"
        );
        assert_eq!(
            with("file = \"${TRACES}/kth.swf.gz\"", ""),
            "/exp/sweep.toml: workload `kth` needs exactly one of `file`, `lublin` and `cwf`"
        );
        // Empty names (the folder `_`) and control characters (a newline
        // printed as is) are refused, naming the entry.
        assert_eq!(
            parse(&format!("name = \"\"\n{MINIMAL}")).unwrap_err(),
            "/exp/sweep.toml: the sweep's `name` is empty"
        );
        assert_eq!(
            parse(&format!("name = \"v\\nx\"\n{MINIMAL}")).unwrap_err(),
            "/exp/sweep.toml: the sweep's `name` \"v\\nx\" has a control character (U+000A)"
        );
        assert_eq!(
            with("name = \"kth\"", "name = \" \""),
            "/exp/sweep.toml: [[workload]] number 1: `name` is empty"
        );
        assert_eq!(
            with("name = \"kth\"", "name = \"k\\u0000\""),
            "/exp/sweep.toml: [[workload]] number 1: `name` \"k\\0\" has a control character (U+0000)"
        );
        assert_eq!(
            with("\"easy\",", "\"easy\", \"fcfs\\t\","),
            "/exp/sweep.toml: a policy \"fcfs\\t\" has a control character (U+0009)"
        );
        assert_eq!(
            parse(&format!(
                "{MINIMAL}[[policy]]\nname = \"los\"\nmerit = \"none\\r\"\n"
            ))
            .unwrap_err(),
            "/exp/sweep.toml: a policy \"los:merit=none\\r\" has a control character (U+000D)"
        );
        // Names become folders (sweeps/NAME, plots/NAME): one longer than
        // a file system allows failed only in --merge, after results.csv.
        let long = "x".repeat(256);
        assert_eq!(
            with("name = \"kth\"", &format!("name = \"{long}\"")),
            "/exp/sweep.toml: [[workload]] number 1: `name` makes a folder name of 256 bytes, more than 255"
        );
        assert_eq!(
            parse(&format!("name = \".{}\"\n{MINIMAL}", "x".repeat(254))).unwrap_err(),
            "/exp/sweep.toml: the sweep's `name` makes a folder name of 256 bytes, more than 255"
        );
        // 255 characters of two bytes each: 255 `_` in the folder's name.
        let wide = MINIMAL.replace("name = \"kth\"", &format!("name = \"{}\"", "é".repeat(255)));
        assert!(parse(&wide).is_ok());
        // Generated workloads are made in memory: refused before the
        // generator allocates for them.
        let file = "file = \"${TRACES}/kth.swf.gz\"\nlenient = true";
        assert_eq!(
            with(file, "lublin = { nodes = 64, jobs = 100000000000 }"),
            "/exp/sweep.toml: workload `kth`: lublin has 64 processors and 100000000000 jobs; a \
             simulation holds at most 16777216 processors and 4294967295 jobs"
        );
        assert!(
            with(
                file,
                "cwf = { jobs = 10, params = { machine_size = 33554432 } }"
            )
            .contains("cwf has 33554432 processors and 10 jobs")
        );
    }
}

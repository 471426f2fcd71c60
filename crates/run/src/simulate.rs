//! `schedsim simulate`: replay a workload under one or more policies, print
//! a comparison, and write per-policy results.
//!
//! Output per policy in `DIR/POLICY/` (POLICY is the spec with `:`, `,` and
//! `/` turned into `_`):
//! - `jobs.csv`: one row per simulated job in arrival order, with every
//!   column of Batsim's jobs.csv, in its order (`job_id`, `workload_name`,
//!   `profile`, `submission_time`, `requested_number_of_resources`,
//!   `requested_time`, `success`, `final_state`, `starting_time`,
//!   `execution_time`, `finish_time`, `waiting_time`, `turnaround_time`,
//!   `stretch`, `allocated_resources`, `consumed_energy`, `metadata`), plus
//!   `bounded_slowdown`. `workload_name` is the workload file's name without
//!   its extensions (`builtin` for the built-in workload), so evalys names a
//!   job `workload_name!job_id`; `profile` is `delay` (every job holds its
//!   processors for a time, Batsim's delay profile); `consumed_energy` is
//!   -1 (no energy model, as Batsim writes it); `metadata` is empty. Times
//!   are seconds from the log's time 0; summary.json gives the log's
//!   `unix_start_time` and time zone, which evalys's `plot_load` and
//!   `plot_free_resources` take to show dates. `final_state` is
//!   Batsim's: `COMPLETED_SUCCESSFULLY`, `COMPLETED_WALLTIME_REACHED`
//!   (killed at its estimate), `COMPLETED_KILLED` (ended by an RT command)
//!   or `REJECTED` (never ran: its times and allocation are empty, its
//!   metrics left out of summary.json's and counted apart in `run_stats`);
//!   `success` is 1 for `COMPLETED_SUCCESSFULLY`. A suspended job's row
//!   spans its first start to its final end; `stretch` is turnaround /
//!   max(execution, 1); `allocated_resources` is the processor interval
//!   set, e.g. `0-3 8-11`.
//! - `segments.csv`, only when a job was suspended: one row per run
//!   segment (`job_id`, `job_index` = the job's row in jobs.csv from 0,
//!   `segment` from 0, `start`, `end`, `allocated_resources`), each from a
//!   start or resumption to an end or suspension, switch overheads
//!   included.
//! - `schedule.swf`: the input records (after `--load`) in input order
//!   with wait time (field 3), run time (field 4), allocated processors
//!   (field 5) and status (field 11: 1 completed, 0 killed at its estimate
//!   or by a command, 5 rejected, with no wait, run time or processors) as
//!   simulated; records dropped in lenient mode are left out; CWF command
//!   lines are kept. The header's MaxJobs and MaxRecords count this file's
//!   jobs and records, its EndTime is the schedule's last end in the log's
//!   calendar, and a note says which fields are as simulated, what was left
//!   out and how the load was changed.
//! - `summary.json`: the run metrics, the normalization counts, the full
//!   configuration, the tool version and the input's SHA-256, and
//!   `warnings`: more than 5% of the jobs killed at their estimate (name
//!   `--overrun extend`), or a machine saturated (utilization under 90% of
//!   the offered load of the same jobs: the run outlasted the arrivals, and
//!   the metrics then depend on the trace's length). The warnings are
//!   printed too. It holds no timing, so two runs write byte-identical
//!   files. For a workload with
//!   dedicated jobs (CWF requested start times) it adds `split`: the batch
//!   and the dedicated jobs' metrics apart and the dedicated jobs' delays
//!   (see `schedsim_metrics::summarize_split`).

use std::fmt::Write as _;
use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicI64;
use std::time::{Duration, Instant};

use crate::deadlines::{DeadlineReport, deadline_report};
use crate::progress::Progress;
use crate::stream;

use crate::groups::{GroupReport, ObjectiveValue, group_report};
use crate::input::{WorkloadFileError, WorkloadInput, open_workload};
use lublin_model::{CwfParams, EstimateParams, LublinGenerator, LublinParams};
use schedsim_metrics::{
    ClassBounds, CompletedJob, CompletedJobTable, GroupError, MetricsConfig, MetricsError,
    Objective, RunMetrics, SplitMetrics, job_metrics, summarize_split, summarize_table,
};
use schedsim_policies::{
    PolicySpec, SharesFile, SlurmConf, SlurmConfError, SpecError, build_policy,
    runtime_class_bounds,
};
use schedsim_sim_core::{
    Calendar, CalendarError, CommandRejection, DeadlineFileError, Deadlines, Decisions,
    EstimateSource, EventOrder, FinalState, Invocation, Job, JobId, JobModel, JobModelError,
    JobSet, LoadChange, LoadError, LoadMethod, Normalization, OverrunRule, ScaleError, ScaleReport,
    Schedule, SimError, SimOptions, Simulation, SimultaneousEnds, Strictness, SwitchOverhead,
    change_load, offered_load, simulate_with,
};
use serde::Serialize;
use sha2::{Digest, Sha256};
use workload_format::{
    Header, HeaderError, JobStatus, PackedRecords, ReadError, ReadOptions, ReadSummary, Record,
    Workload, WriteError, Writer, field_name, is_json_lines_path, workload_to_string,
};

/// The policies run when none is named.
pub const DEFAULT_POLICIES: &[&str] = &["fcfs", "easy", "conservative"];

/// Arguments of `schedsim simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The workload (.swf, .cwf, .jsonl as `convert` writes it, or a Batsim
    /// .json workload, plain or gzip; JSON lines are read strictly, even
    /// with --lenient).
    /// Without it a built-in Lublin-Feitelson workload is generated (its
    /// parameters are printed).
    #[arg(long, short = 'w', value_name = "FILE")]
    pub workload: Option<PathBuf>,
    /// Processors of the machine (default: the header's MaxProcs, else
    /// MaxNodes).
    #[arg(long, value_name = "N", value_parser = crate::whole_number_in::<u32>(1, schedsim_sim_core::MAX_PROCS.into()))]
    pub procs: Option<u32>,
    /// Allocation granularity: jobs occupy multiples of this many
    /// processors (e.g. 32 on a BlueGene/P).
    #[arg(long, value_name = "G", default_value_t = 1, value_parser = crate::whole_number::<u32>(1))]
    pub granularity: u32,
    /// A policy, `NAME[:key=value,...]`; repeat to compare several
    /// (default: fcfs, easy, conservative). `schedsim policies` lists them.
    #[arg(long = "policy", short = 'p', value_name = "SPEC")]
    pub policies: Vec<String>,
    /// Write per-policy results (jobs.csv, schedule.swf, summary.json) into
    /// DIR/POLICY/.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Skip bad lines and unsimulatable jobs (counted) instead of stopping
    /// at the first.
    #[arg(long)]
    pub lenient: bool,
    /// What happens to a job whose runtime exceeds its estimate: `kill` it
    /// at the estimate, or `extend` it to its full runtime.
    #[arg(long, value_enum, default_value_t = Overrun::Kill)]
    pub overrun: Overrun,
    /// Bounded-slowdown threshold, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = crate::whole_number_in::<i64>(i128::MIN, i128::MAX))]
    pub tau: i64,
    /// Fraction of the first jobs left out of per-job statistics.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    pub warmup: f64,
    /// Fraction of the last jobs left out of per-job statistics.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    pub drain: f64,
    /// Print the comparison as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Change the workload's offered load to L before simulating (see
    /// --load-method); summary.json records the target and the load
    /// reached.
    #[arg(long, value_name = "L", value_parser = positive_number)]
    pub load: Option<f64>,
    /// Instead of --load, multiply the workload's offered load by F (the
    /// QoPS paper's load factor l, 1.0-1.6: with duplication, l = 1.2 adds
    /// copies of 20% of the jobs).
    #[arg(long, value_name = "F", conflicts_with = "load", value_parser = positive_number)]
    pub load_factor: Option<f64>,
    /// How --load changes the load: `scale` multiplies the arrival times
    /// (LOS thesis), `duplicate` adds copies of random jobs at random times,
    /// `expand` stretches random jobs (QoPS paper).
    #[arg(long, value_name = "METHOD", default_value_t = LoadMethod::Scale)]
    pub load_method: LoadMethod,
    /// Seed of the random picks of `duplicate` and `expand`.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = crate::whole_number::<u64>(0))]
    pub load_seed: u64,
    /// Keep at most N elastic control commands (CWF ET/RT/EP/RP lines) per
    /// job, in time order; later ones are dropped and counted.
    #[arg(long, value_name = "N", value_parser = crate::whole_number::<u32>(0))]
    pub max_commands_per_job: Option<u32>,
    /// Where runtime estimates come from: the workload's requested times
    /// (`recorded`), or the runtimes themselves (`exact`, as the QoPS and
    /// SCOJO-PECT papers assume).
    #[arg(long, value_enum, default_value_t = Estimates::Recorded)]
    pub estimates: Estimates,
    /// Deadlines of the jobs, a CSV file `job_number,deadline_after_submit,kind`
    /// (kind `user` or `artificial`); duplicates made by `--load-method
    /// duplicate` inherit their original's.
    #[arg(long, value_name = "FILE")]
    pub deadlines: Option<PathBuf>,
    /// When the policy is called: once per timestamp after all its events
    /// (`per-timestamp`), or after every single arrival or termination
    /// (`per-event`, as the LOS thesis and pyss do).
    #[arg(long, value_enum, default_value_t = Invoke::PerTimestamp)]
    pub invoke: Invoke,
    /// The order of simultaneous events: job ends before arrivals, or
    /// arrivals first (pyss).
    #[arg(long, value_enum, default_value_t = Order::EndsFirst)]
    pub event_order: Order,
    /// With `--invoke per-event`: jobs ending at the same second are
    /// `separate` events, or one event (`together`, as pyss effectively
    /// treats them).
    #[arg(long, value_enum, default_value_t = Ends::Separate)]
    pub simultaneous_ends: Ends,
    /// Seconds a suspension takes (the job holds its processors and makes
    /// no progress), for policies that suspend jobs.
    #[arg(long, value_name = "SECONDS", default_value_t = 0, value_parser = crate::whole_number_in::<i64>(0, 1 << 40))]
    pub suspend_overhead: i64,
    /// Seconds a resumption takes before the job runs again.
    #[arg(long, value_name = "SECONDS", default_value_t = 0, value_parser = crate::whole_number_in::<i64>(0, 1 << 40))]
    pub resume_overhead: i64,
    /// The log's time 0 in seconds since the Unix epoch, for policies that
    /// depend on local time (default: the header's UnixStartTime, else 0).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true,
          value_parser = crate::whole_number_in::<i64>(i128::MIN, i128::MAX))]
    pub epoch: Option<i64>,
    /// The log's time zone, an IANA name such as Europe/Stockholm (default:
    /// the header's TimeZoneString, else its fixed TimeZone offset, else
    /// UTC).
    #[arg(long, value_name = "ZONE")]
    pub time_zone: Option<String>,
    /// Scale the trace to a machine of N processors before simulating
    /// (Ernemann, Song and Yahyapour: a fraction of the jobs duplicated,
    /// the rest enlarged, by N / the trace's processors x
    /// --scale-adjustment; see `schedsim_sim_core::scale_machine`). Applied
    /// before --load; summary.json records what was done.
    #[arg(long, value_name = "N", value_parser = crate::whole_number_in::<u32>(1, schedsim_sim_core::MAX_PROCS.into()))]
    pub scale_to: Option<u32>,
    /// Seed of --scale-to's draws (which jobs are duplicated, extra copies).
    #[arg(long, requires = "scale_to", value_name = "S", default_value_t = 0, value_parser = crate::whole_number::<u64>(0))]
    pub scale_seed: u64,
    /// --scale-to's factor is N / m x this (at least 1; Ernemann et al.
    /// found values above 1 keep the trace's scheduling behaviour).
    #[arg(long, requires = "scale_to", value_name = "X", default_value_t = 1.0)]
    pub scale_adjustment: f64,
    /// Instead of --scale-adjustment, the adjustment whose expected job
    /// count is J (e.g. 167375 for KTH, Table I of the Greedy-ES paper).
    #[arg(long, value_name = "J", conflicts_with = "scale_adjustment", requires = "scale_to",
          value_parser = crate::whole_number::<u64>(1))]
    pub scale_jobs: Option<u64>,
    /// Fraction of the jobs --scale-to duplicates rather than enlarges.
    #[arg(long, requires = "scale_to", value_name = "P", default_value_t = 0.5)]
    pub scale_duplicates: f64,
    /// The objective reported for workloads with users: a weighted sum of
    /// AWRT1..AWRT5 (per user group), AWRT and UTIL (Franke et al., eq. 8).
    #[arg(long, value_name = "EXPR", default_value = "10 * AWRT1 + 4 * AWRT2")]
    pub objective: Objective,
    /// A slurm.conf for the Slurm policies (`slurm-backfill`, and `fcfs`,
    /// `easy`, `backfill` with `order=multifactor`): its PriorityWeight*,
    /// PriorityMaxAge, PriorityDecayHalfLife, PriorityCalcPeriod,
    /// PriorityFavorSmall, PriorityFlags and SchedulerParameters bf_* keys
    /// (each such policy gets `conf=FILE` unless it names one); keys not
    /// modelled are reported as warnings. Without --policy, runs
    /// `slurm-backfill`.
    #[arg(long, value_name = "FILE")]
    pub slurm_conf: Option<PathBuf>,
    /// The fair-share shares of accounts and users and the partition and
    /// QOS priorities for the Slurm policies (`shares=FILE`; see
    /// `schedsim_policies::SharesFile`).
    #[arg(long, value_name = "FILE")]
    pub slurm_shares: Option<PathBuf>,
}

/// A clap value parser for a finite number above 0 (`--load`,
/// `--load-factor`, the generators' means): a negative or infinite one is
/// refused as given, before anything is computed from it.
pub fn positive_number(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err("expected a positive number".to_owned()),
    }
}

impl SimulateArgs {
    /// Defaults: the built-in workload, the default policies, no output
    /// folder.
    pub fn new() -> Self {
        Self {
            workload: None,
            procs: None,
            granularity: 1,
            policies: Vec::new(),
            out: None,
            lenient: false,
            overrun: Overrun::Kill,
            tau: 10,
            warmup: 0.0,
            drain: 0.0,
            json: false,
            load: None,
            load_factor: None,
            load_method: LoadMethod::Scale,
            load_seed: 1,
            max_commands_per_job: None,
            estimates: Estimates::Recorded,
            deadlines: None,
            invoke: Invoke::PerTimestamp,
            event_order: Order::EndsFirst,
            simultaneous_ends: Ends::Separate,
            suspend_overhead: 0,
            resume_overhead: 0,
            epoch: None,
            time_zone: None,
            scale_to: None,
            scale_seed: 0,
            scale_adjustment: 1.0,
            scale_jobs: None,
            scale_duplicates: 0.5,
            objective: Objective::paper(),
            slurm_conf: None,
            slurm_shares: None,
        }
    }

    /// How the simulator runs the policies (`--invoke`, `--event-order`,
    /// `--simultaneous-ends`, the switch overheads).
    pub fn sim_options(&self) -> SimOptions {
        SimOptions::default()
            .with_invocation(match self.invoke {
                Invoke::PerTimestamp => Invocation::PerTimestamp,
                Invoke::PerEvent => Invocation::PerEvent,
            })
            .with_event_order(match self.event_order {
                Order::EndsFirst => EventOrder::EndsFirst,
                Order::ArrivalsFirst => EventOrder::ArrivalsFirst,
            })
            .with_simultaneous_ends(match self.simultaneous_ends {
                Ends::Separate => SimultaneousEnds::Separate,
                Ends::Together => SimultaneousEnds::Together,
            })
            .with_switch_overhead(SwitchOverhead {
                suspend: self.suspend_overhead,
                resume: self.resume_overhead,
            })
    }
}

impl Default for SimulateArgs {
    fn default() -> Self {
        Self::new()
    }
}

/// `--overrun`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Overrun {
    /// Kill the job at its estimate.
    Kill,
    /// Let the job run its full recorded runtime.
    Extend,
}

/// `--estimates`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Estimates {
    #[default]
    /// The requested time (SWF field 9), the runtime when unknown.
    Recorded,
    /// The runtime itself.
    Exact,
}

/// `--invoke`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Invoke {
    #[default]
    /// Once per timestamp, after all its events.
    PerTimestamp,
    /// After every single event.
    PerEvent,
}

/// `--event-order`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    #[default]
    /// Job ends, then arrivals.
    EndsFirst,
    /// Arrivals, then job ends.
    ArrivalsFirst,
}

/// `--simultaneous-ends`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Ends {
    #[default]
    /// Each end is an event.
    Separate,
    /// The ends of one second are one event.
    Together,
}

/// "MaxProcs is 0 and MaxNodes is absent": why neither header key gives a
/// machine size (absent, zero or not a number).
fn machine_size_keys(header: &Header) -> String {
    let describe = |key: &str| match header.get(key) {
        None => format!("{key} is absent"),
        Some(value) => format!("{key} is {value:?}"),
    };
    format!("{} and {}", describe("MaxProcs"), describe("MaxNodes"))
}

/// What the reader rounded: "4 float values rounded to integers (field 2
/// (submit time): 2, ...)", or `None` when every value was whole.
/// `schedsim validate` and the run's notes print it.
pub fn rounded_values(summary: &ReadSummary) -> Option<String> {
    if summary.rounded_total() == 0 {
        return None;
    }
    let fields: Vec<String> = (1..=21)
        .filter(|&f| summary.rounded_in(f) > 0)
        .map(|f| format!("field {f} ({}): {}", field_name(f), summary.rounded_in(f)))
        .collect();
    Some(format!(
        "{} float values rounded to integers ({})",
        summary.rounded_total(),
        fields.join(", ")
    ))
}

/// The warnings about an input file that `simulate`, `validate`, `stats`
/// and `convert` give alike, in this order: a Batsim JSON workload's jobs
/// numbered 1..n because its ids are not unique non-negative integers
/// (naming the first offending id), `record_warnings` (those of
/// [`repeated_job_numbers`] and [`EarlyRequestedStarts`], for the commands
/// that check), each header key given twice with different values, and a
/// file from which no job record was read.
pub fn input_warnings(
    summary: &ReadSummary,
    record_warnings: impl IntoIterator<Item = String>,
    header: &Header,
) -> Vec<String> {
    renumbered_ids(summary)
        .into_iter()
        .chain(record_warnings)
        .chain(conflicting_header_keys(header))
        .chain(no_records(summary))
        .collect()
}

/// An empty file, one of comments alone, or one whose every job line was
/// skipped reads as a workload of no job: a run of it "succeeds" with
/// nothing in it.
fn no_records(summary: &ReadSummary) -> Option<String> {
    if summary.records > 0 {
        return None;
    }
    let lines = summary.lines;
    let skipped = match summary.skipped_lines {
        0 => String::new(),
        n => format!(", {n} skipped"),
    };
    Some(format!(
        "warning: no job record was read ({lines} {}: {} comments, {} blank{skipped})",
        if lines == 1 { "line" } else { "lines" },
        summary.comment_lines,
        summary.blank_lines,
    ))
}

/// CWF elastic control commands that `simulate` refuses (and `--lenient`
/// drops), found a record at a time for `validate`, which checks the
/// format and streams: a command for no earlier job line, without a time,
/// before its job's submission, or with an amount unknown or 0 (as
/// sim-core's job set resolves them, against the latest earlier job line
/// with the number).
#[derive(Debug, Clone, Default)]
pub struct UnusableCommands {
    /// Job number -> submit time of the latest job line with it (CWF job
    /// lines only: SWF files have no commands).
    submits: std::collections::BTreeMap<u64, u64>,
    counts: std::collections::BTreeMap<CommandRejection, u64>,
    /// The first one: (1-based record, job number).
    first: Option<(usize, u64)>,
}

impl UnusableCommands {
    /// Checks `record`, the `index`-th (0-based) of its file.
    pub fn check(&mut self, index: usize, record: &Record) {
        let Some(cwf) = record.cwf else { return };
        if !record.is_command() {
            if let Some(submit) = record.submit_time {
                self.submits.insert(record.job_number, submit);
            }
            return;
        }
        let reason = match (self.submits.get(&record.job_number), record.submit_time) {
            (None, _) => CommandRejection::UnknownJob,
            (Some(_), None) => CommandRejection::NoTime,
            (Some(&submit), Some(time)) if time < submit => CommandRejection::BeforeSubmission,
            _ if cwf.amount.is_none_or(|amount| amount == 0) => CommandRejection::NoAmount,
            _ => return,
        };
        *self.counts.entry(reason).or_default() += 1;
        self.first.get_or_insert((index + 1, record.job_number));
    }

    /// The warning, if any command was counted.
    pub fn warning(&self) -> Option<String> {
        let (record, job) = self.first?;
        let total: u64 = self.counts.values().sum();
        let reasons: Vec<String> = self
            .counts
            .iter()
            .map(|(reason, count)| format!("{count}: {}", reason.describe()))
            .collect();
        Some(format!(
            "warning: {} that simulate refuses and simulate --lenient drops ({}); first: \
             record {record}, for job {job}",
            plural(total, "elastic command"),
            reasons.join("; ")
        ))
    }
}

/// Dedicated jobs (CWF field 19) that ask to start before they are
/// submitted, counted a record at a time (`validate` streams): the papers
/// are silent on them; such a job cannot start before its submission, so
/// its delay, counted from the requested start, includes the difference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EarlyRequestedStarts {
    count: u64,
    /// The first one: (job number, requested start, submit time).
    first: Option<(u64, u64, u64)>,
}

impl EarlyRequestedStarts {
    /// Counts `record` if it is a job asking to start before its submission.
    pub fn check(&mut self, record: &Record) {
        if record.is_command() {
            return;
        }
        if let (Some(requested), Some(submit)) = (record.requested_start_time(), record.submit_time)
            && requested < submit
        {
            self.count += 1;
            self.first
                .get_or_insert((record.job_number, requested, submit));
        }
    }

    /// The count of `records`.
    pub fn of<R: std::borrow::Borrow<Record>>(records: impl Iterator<Item = R>) -> Self {
        let mut early = Self::default();
        records.for_each(|record| early.check(record.borrow()));
        early
    }

    /// The warning, if any job was counted.
    pub fn warning(&self) -> Option<String> {
        let (job, requested, submit) = self.first?;
        Some(format!(
            "warning: {} {} to start before {} submitted (e.g. job {job}: requested start \
             {requested} s, submitted at {submit} s); a job starts at its submission at the \
             earliest, so its delay, counted from the requested start, includes the difference",
            plural(self.count, "dedicated job"),
            if self.count == 1 { "asks" } else { "ask" },
            if self.count == 1 { "it is" } else { "they are" },
        ))
    }
}

/// The warning that Batsim ids were replaced by 1..n, if they were.
fn renumbered_ids(summary: &ReadSummary) -> Option<String> {
    summary.renumbered.as_ref().map(|reason| {
        format!(
            "warning: the Batsim ids are not unique non-negative integers ({reason}): jobs \
             numbered 1..{} in submission order",
            summary.records
        )
    })
}

/// The warning for job numbers given to more than one job, from each
/// job's (number, 0-based record index) in any order; `None` if every
/// number is used once. `schedsim validate` and the run's notes print it.
pub fn repeated_job_numbers<I>(numbers: I) -> Option<String>
where
    I: Iterator<Item = (u64, usize)> + Clone,
{
    // Logs are usually numbered in increasing order: then nothing is
    // collected or sorted.
    if numbers
        .clone()
        .zip(numbers.clone().skip(1))
        .all(|(a, b)| a.0 < b.0)
    {
        return None;
    }
    let mut numbers: Vec<(u64, usize)> = numbers.collect();
    numbers.sort_unstable();
    let repeated: Vec<&[(u64, usize)]> = numbers
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|group| group.len() > 1)
        .collect();
    let first = repeated.first()?;
    let extra: usize = repeated.iter().map(|group| group.len() - 1).sum();
    Some(format!(
        "warning: {} given to more than one job ({}); e.g. job {} at records {}; \
         results name jobs by number, so renumber the input",
        plural(repeated.len() as u64, "job number"),
        plural(extra as u64, "extra job"),
        first[0].0,
        first
            .iter()
            .map(|(_, index)| (index + 1).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// [`repeated_job_numbers`] of records in memory, in record order (CWF
/// commands are not jobs): `simulate`, `convert` and `validate` of
/// Batsim's JSON.
pub fn repeated_job_numbers_in<R>(records: impl Iterator<Item = R> + Clone) -> Option<String>
where
    R: std::borrow::Borrow<Record>,
{
    repeated_job_numbers(
        records
            .enumerate()
            .filter(|(_, record)| !record.borrow().is_command())
            .map(|(index, record)| (record.borrow().job_number, index)),
    )
}

/// What a user should know about the input before reading the results:
/// the lines lenient mode skipped or kept with a warning (by reason, with
/// the first example), Batsim ids replaced by numbers, job numbers given to more than one job (results name
/// jobs by number), and header keys given twice with different values (the
/// first one is used).
pub fn workload_notes(loaded: &LoadedWorkload) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(read) = &loaded.read_summary
        && !read.issues.is_empty()
    {
        let reasons: Vec<String> = read
            .issues
            .iter()
            .map(|(reason, count)| format!("{count} {}", reason.description()))
            .collect();
        let first = read
            .examples
            .first()
            .map(|issue| format!("; first: line {}: {}", issue.line, issue.error))
            .unwrap_or_default();
        notes.push(format!(
            "read: {} skipped ({}){first}",
            plural(read.skipped_lines, "line"),
            reasons.join(", ")
        ));
    }
    if let Some(rounded) = loaded.read_summary.as_ref().and_then(rounded_values) {
        notes.push(format!("read: {rounded}"));
    }
    let generated = ReadSummary::default();
    // Decoding every record again cost LANL 2.6% of a whole EASY run's
    // instructions: only a workload with dedicated jobs is looked at.
    let early_starts = (loaded.jobs.normalization().dedicated > 0)
        .then(|| EarlyRequestedStarts::of(loaded.records.iter()).warning())
        .flatten();
    // Likewise the check for repeated numbers, which walks the records
    // twice, is needed only when the numbers do not simply increase.
    let repeated_numbers = if loaded.records.job_numbers_increase() {
        None
    } else {
        repeated_job_numbers_in(loaded.records.iter())
    };
    let record_warnings = repeated_numbers.into_iter().chain(early_starts);
    notes.extend(input_warnings(
        loaded.read_summary.as_ref().unwrap_or(&generated),
        record_warnings,
        &loaded.header,
    ));
    notes
}

/// A warning for each header key given more than once with different
/// values (`; MaxProcs: 8` then `; MaxProcs: 16`), except the keys the SWF
/// definition lets repeat (Note, Queue, Partition, Information,
/// Conversion): the typed accessors use the first.
fn conflicting_header_keys(header: &Header) -> Vec<String> {
    let mut notes = Vec::new();
    let mut keys: Vec<String> = header
        .entries()
        .map(|(key, _)| key.to_ascii_lowercase())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    for key in keys {
        let values: Vec<&str> = header.get_all(&key).collect();
        let mut distinct = values.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() > 1 && !REPEATABLE_HEADER_KEYS.contains(&key.as_str()) {
            let written = header
                .entries()
                .find(|(k, _)| k.eq_ignore_ascii_case(&key))
                .map_or(key.as_str(), |(k, _)| k);
            notes.push(format!(
                "warning: header key {written} is given {} times with different values ({}); \
                 the first is used",
                values.len(),
                values
                    .iter()
                    .map(|v| format!("{v:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    notes
}

/// `count` and `noun`, the noun with an `s` unless the count is 1: "1
/// line", "2 lines" (for nouns that take an `s`), as the commands' reports
/// count things.
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Header keys the SWF definition lets repeat (lower case).
const REPEATABLE_HEADER_KEYS: &[&str] =
    &["note", "queue", "partition", "information", "conversion"];

/// The `--lenient` hint, for the errors it can help with (a bad job or
/// command, not a machine that cannot exist).
fn lenient_hint(error: &JobModelError) -> &'static str {
    match error {
        JobModelError::Rejected { .. } | JobModelError::BadCommand { .. } => {
            " (use --lenient to drop such jobs and count them)"
        }
        _ => "",
    }
}

/// Why `simulate` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimulateError {
    /// The workload could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A Batsim JSON workload could not be read.
    #[error(transparent)]
    Batsim(#[from] workload_format::BatsimError),
    /// A JSON lines workload (as `schedsim convert` writes) could not be
    /// read.
    #[error(transparent)]
    JsonLines(#[from] workload_format::JsonLinesError),
    /// The workload file could not be hashed.
    #[error("cannot read {path}")]
    Hash {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The workload is a pipe, a device or standard input: it would be
    /// read twice at once (for its hash and for its jobs), each reader
    /// getting part of it.
    #[error(
        "{} is {what}, not a regular file: the workload is read twice (for its SHA-256 \
         and for its jobs), which {what} cannot be; save it to a file and give that",
        path.display()
    )]
    NotRegularFile {
        /// The path given.
        path: PathBuf,
        /// What it is, e.g. "a pipe (FIFO)".
        what: &'static str,
    },
    /// The run folder to replace holds files `simulate` does not write.
    #[error(
        "{} holds files that are not a run's ({names}): a new run replaces the folder whole, \
         so move them or give another --out",
        dir.display()
    )]
    ForeignFiles {
        /// The run folder.
        dir: PathBuf,
        /// The other entries, sorted and joined by ", ".
        names: String,
    },
    /// The machine size is not known.
    #[error("the machine size is unknown: in the header of {path}, {found}; give --procs")]
    NoMachineSize {
        /// The workload.
        path: PathBuf,
        /// What the header says of MaxProcs and MaxNodes, e.g. "MaxProcs
        /// is 0 and MaxNodes is absent".
        found: String,
    },
    /// A processor count does not fit.
    #[error("the machine size {0} is too large (at most {max} processors)", max = schedsim_sim_core::MAX_PROCS)]
    MachineTooLarge(u64),
    /// The header's machine size (MaxProcs, else MaxNodes) is more than a
    /// simulation can hold ([`schedsim_sim_core::MAX_PROCS`]).
    #[error(
        "{}{}: header {key}: {value} processors are more than the {max} a simulation can hold; \
         give --procs (1 to {max})",
        path.display(),
        line.map_or_else(String::new, |l| format!(":{l}")),
        max = schedsim_sim_core::MAX_PROCS
    )]
    HeaderMachineTooLarge {
        /// The workload.
        path: PathBuf,
        /// The header line, when the file could be read again to find it.
        line: Option<u64>,
        /// `MaxProcs` or `MaxNodes`.
        key: &'static str,
        /// Its value.
        value: u64,
    },
    /// A header line could not be built.
    #[error("cannot build the SWF header")]
    Header(#[from] HeaderError),
    /// A policy spec is wrong.
    #[error("bad --policy")]
    Spec(#[from] SpecError),
    /// The slurm.conf or shares file cannot be used.
    #[error("cannot use --slurm-conf / --slurm-shares")]
    SlurmConf(#[from] SlurmConfError),
    /// --slurm-conf or --slurm-shares was given but no policy reads it.
    #[error(
        "{0} was given but no policy uses it (slurm-backfill, or fcfs/easy/backfill with order=multifactor)"
    )]
    SlurmFileUnused(&'static str),
    /// Two --policy values name the same policy with the same options.
    #[error("policy `{0}` is given twice (compare different policies or options)")]
    DuplicatePolicy(String),
    /// A policy's output folder would be another's, or is too long a name.
    #[error("policy `{spec}` cannot be written: {problem} (give the file another name or path)")]
    FolderName {
        /// The policy spec as given.
        spec: String,
        /// What is wrong with its folder.
        problem: String,
    },
    /// The records cannot be simulated on this machine.
    #[error("cannot simulate this workload{hint}", hint = lenient_hint(.0))]
    JobModel(#[from] JobModelError),
    /// The built-in generator failed.
    #[error("cannot generate the built-in workload: {0}")]
    Generator(String),
    /// A policy made an invalid decision.
    #[error("the simulation failed")]
    Simulation(#[from] SimError),
    /// The trace could not be scaled.
    #[error("cannot scale the trace (--scale-to)")]
    Scale(#[from] ScaleError),
    /// The user groups could not be computed.
    #[error("cannot compute the user groups")]
    Groups(#[from] GroupError),
    /// The load could not be changed.
    #[error("cannot change the offered load (--load or --load-factor)")]
    Load(#[from] LoadError),
    /// The deadline file could not be read.
    #[error("cannot read the deadlines (--deadlines)")]
    Deadlines(#[from] DeadlineFileError),
    /// The log's calendar (header or --epoch/--time-zone) is unusable.
    #[error(
        "cannot build the log's calendar (the header's UnixStartTime, TimeZoneString or TimeZone, or --epoch and --time-zone)"
    )]
    Calendar(#[from] CalendarError),
    /// Metrics could not be computed.
    #[error("bad metrics settings")]
    Metrics(#[from] MetricsError),
    /// An output file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// schedule.swf could not be written.
    #[error("cannot write {path}")]
    WriteSwf {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: WriteError,
    },
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl From<WorkloadFileError> for SimulateError {
    fn from(error: WorkloadFileError) -> Self {
        match error {
            WorkloadFileError::Read(error) => error.into(),
            WorkloadFileError::Batsim(error) => error.into(),
            WorkloadFileError::JsonLines(error) => error.into(),
        }
    }
}

/// Where the workload came from.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WorkloadSource {
    /// A file.
    File {
        /// Its path as given.
        path: PathBuf,
        /// SHA-256 of the file's bytes as stored (compressed if gzip).
        sha256: String,
    },
    /// The built-in generated workload.
    Builtin {
        /// The generator.
        model: String,
        /// Jobs generated.
        jobs: usize,
        /// Generator seed.
        seed: u64,
        /// Every model parameter.
        params: Box<LublinParams>,
        /// SHA-256 of the generated workload written as canonical SWF.
        sha256: String,
    },
    /// A workload of the CWF generator of Kumar et al. (`cargo xtask
    /// sweep` builds them).
    Cwf {
        /// Jobs generated.
        jobs: usize,
        /// Generator seed.
        seed: u64,
        /// Every generator parameter.
        params: Box<CwfParams>,
    },
}

/// The built-in workload: the Lublin-Feitelson model on 128 nodes.
pub const BUILTIN_NODES: u32 = 128;
/// Jobs in the built-in workload.
pub const BUILTIN_JOBS: usize = 10_000;
/// Seed of the built-in workload.
pub const BUILTIN_SEED: u64 = 1;
/// Offered load of the built-in workload.
pub const BUILTIN_LOAD: f64 = 0.7;
/// The f of the built-in workload's f-model estimates.
pub const BUILTIN_ESTIMATE_F: f64 = 3.0;

/// A workload read or generated and normalized for one machine.
#[derive(Debug, Clone)]
pub struct LoadedWorkload {
    /// Where it came from.
    pub source: WorkloadSource,
    /// The header (after `--scale-to`, which sets the machine size).
    pub header: Header,
    /// The records after `--scale-to` and `--load`, in input order, packed
    /// (a tenth of the memory of `Record`s); `schedule.swf` is written from
    /// them. Comment lines between records are not kept.
    pub records: PackedRecords,
    /// What the reader counted.
    pub read_summary: Option<ReadSummary>,
    /// The load change applied (`--load`), if any.
    pub load_change: Option<LoadChange>,
    /// The machine scaling applied (`--scale-to`), if any.
    pub scale: Option<ScaleReport>,
    /// The jobs, normalized.
    pub jobs: JobSet,
}

/// The built-in workload's generator parameters.
pub fn builtin_params() -> LublinParams {
    LublinParams::for_machine(BUILTIN_NODES)
        .load(BUILTIN_LOAD)
        .estimate(EstimateParams::f_model(BUILTIN_ESTIMATE_F))
}

/// Reads the workload file or generates the built-in one, and normalizes
/// its jobs for the machine.
///
/// # Errors
/// An unreadable or (strict) invalid file, an unknown machine size, or
/// (strict) a job that cannot be simulated.
pub fn load_workload(args: &SimulateArgs) -> Result<LoadedWorkload, SimulateError> {
    match &args.workload {
        Some(path) => {
            check_rereadable(path)?;
            let options = ReadOptions::lenient_if(args.lenient);
            std::thread::scope(|scope| {
                // The hash on one helper thread, the parsing on another,
                // while this one normalizes the records parsed so far
                // (see the `stream` module).
                let hash = scope.spawn(|| sha256_file(path));
                let mut reader = match open_workload(path, &options) {
                    // An SWF or CWF file is parsed in batches and packed as
                    // it is normalized: the records are never all held as
                    // `Record`s.
                    Ok(WorkloadInput::Stream(reader)) => *reader,
                    Ok(WorkloadInput::Whole(workload)) => {
                        let source = WorkloadSource::File {
                            path: path.clone(),
                            sha256: joined(hash)?,
                        };
                        let summary = workload.summary.clone();
                        return prepare_workload(args, source, *workload, Some(summary));
                    }
                    Err(error) => {
                        joined(hash)?;
                        return Err(error.into());
                    }
                };
                let header = reader.header().clone();
                let (feeder, mut streamed) = stream::channel();
                let parser =
                    scope.spawn(move || feeder.feed(&mut reader).map(|()| reader.into_parts().1));
                let prepared = prepare(
                    args,
                    // The hash is filled in below.
                    WorkloadSource::File {
                        path: path.clone(),
                        sha256: String::new(),
                    },
                    header,
                    Records::Streamed(&mut streamed),
                    None,
                );
                // The parser reads on alone (for its errors) if the
                // normalization stopped early.
                drop(streamed);
                let read = joined(parser);
                // Errors in the order in which reading the whole file
                // first, then normalizing it, would meet them.
                let sha256 = joined(hash)?;
                let summary = read?;
                let mut loaded = prepared?;
                if let WorkloadSource::File { sha256: hash, .. } = &mut loaded.source {
                    *hash = sha256;
                }
                loaded.read_summary = Some(summary);
                Ok(loaded)
            })
        }
        None => {
            let (source, workload, read_summary) = read_workload(args)?;
            prepare_workload(args, source, workload, read_summary)
        }
    }
}

/// The 1-based line of the first header entry `key` of a workload file
/// (read again, for an error message; line 1 for JSON lines, whose header
/// is one object), or `None` when it cannot be found.
fn header_line(path: &Path, key: &str) -> Option<u64> {
    if is_json_lines_path(path) {
        return Some(1);
    }
    let input = workload_format::open_input(path).ok()?;
    for (index, line) in BufRead::split(input, b'\n').enumerate() {
        let line = line.ok()?;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_start_matches('\u{feff}').trim();
        if text.is_empty() {
            continue;
        }
        // The header ends at the first line that is not a comment.
        let comment = text.strip_prefix(';')?;
        if comment
            .split_once(':')
            .is_some_and(|(written, _)| written.trim().eq_ignore_ascii_case(key))
        {
            return Some(index as u64 + 1);
        }
    }
    None
}

/// Reads the workload file (or generates the built-in one) without
/// normalizing it: the first half of [`load_workload`], for callers that
/// prepare one workload several ways (`cargo xtask sweep`).
///
/// # Errors
/// An unreadable or (strict) invalid file.
pub fn read_workload(
    args: &SimulateArgs,
) -> Result<(WorkloadSource, Workload, Option<ReadSummary>), SimulateError> {
    Ok(match &args.workload {
        Some(path) => {
            check_rereadable(path)?;
            let options = ReadOptions::lenient_if(args.lenient);
            let sha256 = sha256_file(path)?;
            let workload = open_workload(path, &options)?.into_workload()?;
            let summary = workload.summary.clone();
            let source = WorkloadSource::File {
                path: path.clone(),
                sha256,
            };
            (source, workload, Some(summary))
        }
        None => {
            let params = builtin_params();
            let generator = LublinGenerator::new(params.clone(), BUILTIN_SEED)
                .map_err(|e| SimulateError::Generator(e.to_string()))?;
            let generated = generator.generate_detailed(BUILTIN_JOBS);
            let mut header = generator.header(&generated)?;
            header.add(
                "Note",
                format!(
                    "schedsim built-in workload: Lublin-Feitelson model, {BUILTIN_JOBS} jobs, \
                     {BUILTIN_NODES} nodes, offered load {BUILTIN_LOAD}, f-model estimates \
                     (f = {BUILTIN_ESTIMATE_F}), seed {BUILTIN_SEED}"
                ),
            )?;
            let workload = Workload::new(header, generated.records);
            let text = workload_to_string(&workload).map_err(|source| SimulateError::WriteSwf {
                path: PathBuf::from("<built-in workload>"),
                source,
            })?;
            let source = WorkloadSource::Builtin {
                model: "lublin-feitelson".to_owned(),
                jobs: BUILTIN_JOBS,
                seed: BUILTIN_SEED,
                params: Box::new(params),
                sha256: hex(&Sha256::digest(text.as_bytes())),
            };
            (source, workload, None)
        }
    })
}

/// The second half of [`load_workload`]: finds the machine size, applies
/// `--load` and normalizes the jobs.
///
/// # Errors
/// An unknown machine size, a load that cannot be changed, or (strict) a
/// job that cannot be simulated.
pub fn prepare_workload(
    args: &SimulateArgs,
    source: WorkloadSource,
    workload: Workload,
    read_summary: Option<ReadSummary>,
) -> Result<LoadedWorkload, SimulateError> {
    prepare(
        args,
        source,
        workload.header,
        Records::Plain(workload.records),
        read_summary,
    )
}

/// [`prepare_workload`] for records already packed (a streamed read or a
/// streamed generator): they are unpacked only if `--scale-to` or `--load`
/// changes them.
///
/// # Errors
/// As [`prepare_workload`].
pub fn prepare_packed(
    args: &SimulateArgs,
    source: WorkloadSource,
    header: Header,
    records: PackedRecords,
    read_summary: Option<ReadSummary>,
) -> Result<LoadedWorkload, SimulateError> {
    prepare(args, source, header, Records::Packed(records), read_summary)
}

/// Records as they come to [`prepare`].
enum Records<'s> {
    Plain(Vec<Record>),
    Packed(PackedRecords),
    /// Parsed on another thread as they are needed.
    Streamed(&'s mut stream::Streamed),
}

/// Records kept as they came, for [`JobSet::from_records`].
enum Kept<'s> {
    Packed(PackedRecords),
    Streamed(&'s mut stream::Streamed),
}

fn prepare(
    args: &SimulateArgs,
    source: WorkloadSource,
    header: Header,
    records: Records<'_>,
    read_summary: Option<ReadSummary>,
) -> Result<LoadedWorkload, SimulateError> {
    let procs = match args.procs {
        Some(procs) => u64::from(procs),
        None => header
            .max_procs()
            .filter(|&p| p > 0)
            .or(header.max_nodes().filter(|&n| n > 0))
            .ok_or_else(|| SimulateError::NoMachineSize {
                path: args.workload.clone().unwrap_or_default(),
                found: machine_size_keys(&header),
            })?,
    };
    // A machine size from the header is the file's fault: name its line.
    // (With --scale-to the trace's machine is only the source of the
    // scaling, checked there.)
    if args.procs.is_none()
        && args.scale_to.is_none()
        && procs > u64::from(schedsim_sim_core::MAX_PROCS)
    {
        let path = args.workload.clone().unwrap_or_default();
        let key = if header.max_procs().is_some_and(|p| p > 0) {
            "MaxProcs"
        } else {
            "MaxNodes"
        };
        return Err(SimulateError::HeaderMachineTooLarge {
            line: header_line(&path, key),
            path,
            key,
            value: procs,
        });
    }
    let changes = args.scale_to.is_some() || args.load.is_some() || args.load_factor.is_some();
    let (mut workload, kept) = match records {
        Records::Packed(packed) if !changes => (
            Workload::new(header, Vec::new()),
            Some(Kept::Packed(packed)),
        ),
        Records::Streamed(streamed) if !changes => (
            Workload::new(header, Vec::new()),
            Some(Kept::Streamed(streamed)),
        ),
        Records::Packed(packed) => (Workload::new(header, packed.to_vec()), None),
        Records::Streamed(streamed) => {
            streamed.stop_packing();
            (Workload::new(header, streamed.collect()), None)
        }
        Records::Plain(records) => (Workload::new(header, records), None),
    };
    let scale = crate::groups::scale_workload(args, &mut workload, procs)?;
    let procs = scale.map_or(procs, |s| s.scaling.target_procs);
    let procs = u32::try_from(procs).map_err(|_| SimulateError::MachineTooLarge(procs))?;
    let target = match (args.load, args.load_factor) {
        (Some(target), _) => Some(target),
        (None, Some(factor)) => Some(
            factor
                * offered_load(&workload.records, procs)
                    .ok_or(LoadError::NoLoad)?
                    .load,
        ),
        (None, None) => None,
    };
    let load_change = match target {
        Some(target) => {
            let (records, change) = change_load(
                &workload.records,
                procs,
                target,
                args.load_method,
                args.load_seed,
            )?;
            workload.records = records;
            Some(change)
        }
        None => None,
    };
    let mut model = JobModel::new(procs);
    model.granularity = args.granularity;
    model.overrun = match args.overrun {
        Overrun::Kill => OverrunRule::Kill,
        Overrun::Extend => OverrunRule::Extend,
    };
    model.strictness = if args.lenient {
        Strictness::Lenient
    } else {
        Strictness::Strict
    };
    model.max_commands_per_job = args.max_commands_per_job;
    model.estimates = match args.estimates {
        Estimates::Recorded => EstimateSource::Recorded,
        Estimates::Exact => EstimateSource::Exact,
    };
    let (mut jobs, records) = match kept {
        Some(Kept::Packed(packed)) => (JobSet::from_records(&packed, &model)?, packed),
        Some(Kept::Streamed(streamed)) => {
            // Packed as they are normalized.
            let jobs = JobSet::from_records(&mut *streamed, &model)?;
            let mut packed = streamed.take_packed();
            packed.shrink_to_fit();
            (jobs, packed)
        }
        None => {
            let jobs = JobSet::from_records(&workload.records, &model)?;
            let mut packed: PackedRecords =
                std::mem::take(&mut workload.records).into_iter().collect();
            packed.shrink_to_fit();
            (jobs, packed)
        }
    };
    jobs = jobs.with_calendar(calendar(args, &workload)?);
    if let Some(path) = &args.deadlines {
        let mut deadlines = Deadlines::read(path)?;
        if let Some(change) = &load_change {
            deadlines.extend_to_duplicates(&change.duplicates);
        }
        jobs = jobs.with_deadlines(&deadlines)?;
    }
    Ok(LoadedWorkload {
        source,
        header: workload.header,
        records,
        read_summary,
        load_change,
        scale,
        jobs,
    })
}

/// The log's calendar: `--epoch` and `--time-zone` where given, else the
/// header's UnixStartTime and TimeZoneString (or fixed TimeZone), else
/// epoch 0 in UTC (generated workloads).
fn calendar(args: &SimulateArgs, workload: &Workload) -> Result<Calendar, SimulateError> {
    if let Some(zone) = &args.time_zone {
        // The header's zone is not used: it need not be valid.
        let epoch = args
            .epoch
            .or(workload.header.unix_start_time())
            .unwrap_or(0);
        return Ok(Calendar::new(epoch, zone)?);
    }
    let header = Calendar::from_header(&workload.header)?;
    let epoch = args
        .epoch
        .or(header.as_ref().map(Calendar::epoch))
        .unwrap_or(0);
    Ok(match header {
        Some(header) if args.epoch.is_none() => header,
        Some(header) => Calendar::new(epoch, header.zone()).or_else(|_| {
            // A fixed-offset header zone has no IANA name: keep its offset.
            Calendar::fixed(epoch, header.offset(0))
        })?,
        None => Calendar::utc(epoch),
    })
}

/// One policy's run.
#[derive(Debug, Clone)]
pub struct PolicyRun {
    /// The policy spec as given.
    pub spec: PolicySpec,
    /// The policy's canonical name.
    pub name: String,
    /// The schedule.
    pub schedule: Schedule,
    /// Its metrics.
    pub metrics: RunMetrics,
    /// Batch and dedicated jobs apart, if the workload has dedicated jobs.
    pub split: Option<SplitMetrics>,
    /// Wall-clock time of the simulation (not written to files).
    pub elapsed: Duration,
    /// What a user should know about this run (see [`run_warnings`]).
    pub warnings: Vec<String>,
    /// The policy's own counters ([`Policy::counters`](schedsim_sim_core::Policy::counters): an optimiser's
    /// search effort, groups formed), in the order it lists them; empty for
    /// most policies.
    pub counters: Vec<(String, u64)>,
    /// User groups, per-group AWRT and UTIL (Franke et al.), for workloads
    /// whose jobs name users.
    pub groups: Option<GroupReport>,
    /// Rejections and deadline misses (Islam et al.), for workloads with
    /// deadlines or runs that rejected jobs.
    pub deadlines: Option<DeadlineReport>,
}

/// Share of the jobs killed at their estimate above which a run warns.
pub const KILLED_WARNING_SHARE: f64 = 0.05;
/// A run warns of saturation when its utilization is below this share of
/// the offered load of the same jobs...
pub const SATURATION_WARNING_RATIO: f64 = 0.9;
/// ... and jobs still started after the last arrival for more than this
/// share of the arrivals' span: a long job alone at the end lowers the
/// utilization too, but leaves no queue behind the arrivals.
pub const SATURATION_WARNING_BACKLOG: f64 = 0.1;

/// Warnings about a run: many jobs killed at their estimate (more than
/// [`KILLED_WARNING_SHARE`] of those that ran), or a saturated machine
/// (utilization below [`SATURATION_WARNING_RATIO`] times the offered load,
/// and jobs starting after the last arrival for more than
/// [`SATURATION_WARNING_BACKLOG`] of the arrivals' span: the queue outlasted
/// the arrivals, so the metrics depend on the trace's length).
pub fn run_warnings(jobs: &JobSet, schedule: &Schedule, metrics: &RunMetrics) -> Vec<String> {
    let mut warnings = Vec::new();
    let (mut ran, mut killed) = (0_usize, 0_usize);
    // Of the jobs that ran: (first submit, last submit, last start).
    let mut span = None;
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let state = schedule.final_state(id);
        if state == FinalState::CompletedWalltimeReached {
            killed += 1;
        }
        if state.ran() {
            ran += 1;
            let (submit, start) = (job.submit, schedule.start(id));
            let (first, last, latest) = span.unwrap_or((submit, submit, start));
            span = Some((first.min(submit), last.max(submit), latest.max(start)));
        }
    }
    if ran > 0 && killed as f64 > KILLED_WARNING_SHARE * ran as f64 {
        warnings.push(format!(
            "{killed} of {ran} jobs ({:.1}%) ran past their estimate and were killed at it, \
             so part of the recorded work was not simulated; `--overrun extend` lets them run \
             their recorded runtime",
            100.0 * killed as f64 / ran as f64
        ));
    }
    let backlog = span.is_some_and(|(first, last, start)| {
        (start - last) as f64 > SATURATION_WARNING_BACKLOG * (last - first) as f64
    });
    if let Some(offered) = metrics.offered_load
        && metrics.utilization < SATURATION_WARNING_RATIO * offered
        && backlog
    {
        warnings.push(format!(
            "the machine is saturated: utilization {:.3} against an offered load of {offered:.3} \
             for the same jobs; the queue outlasted the arrivals, so waits and slowdowns grow \
             with the trace's length",
            metrics.utilization
        ));
    }
    warnings
}

/// The metrics settings of a simulate call.
pub fn metrics_config(args: &SimulateArgs, procs: u32) -> MetricsConfig {
    MetricsConfig {
        machine_procs: procs,
        tau: args.tau,
        warmup: args.warmup,
        drain: args.drain,
        runtime_classes: ClassBounds::default(),
    }
}

/// `config` with the runtime classes of the policy `spec` (SCOJO-PECT's
/// `short-below` and `medium-below`; the defaults for other policies).
pub fn with_policy_classes(config: &MetricsConfig, spec: &PolicySpec) -> MetricsConfig {
    let mut config = *config;
    if let Some((short_below, medium_below)) = runtime_class_bounds(spec) {
        config.runtime_classes = ClassBounds::new(short_below, medium_below);
    }
    config
}

/// The jobs that ran, in arrival order, for the metrics crate: rejected
/// jobs are left out (they are counted in the schedule's
/// [`RunStats`](schedsim_sim_core::RunStats)).
pub fn completed_jobs(jobs: &JobSet, schedule: &Schedule) -> Vec<CompletedJob> {
    // Sized once: a filter's collect would grow the vector by doubling.
    let mut completed = Vec::with_capacity(jobs.len());
    completed.extend(jobs.jobs().iter().enumerate().filter_map(|(index, job)| {
        let id = JobId(index as u32);
        schedule
            .final_state(id)
            .ran()
            .then(|| completed_job(job, schedule, id, jobs.calendar()))
    }));
    completed
}

/// The jobs that ran, as [`completed_jobs`] lists them, built one at a
/// time for [`summarize_table`] (without the local submit time, which the
/// summary does not read).
struct RanJobs<'a> {
    jobs: &'a JobSet,
    schedule: &'a Schedule,
    /// The indices of the jobs that ran, if some did not (else all did).
    ran: Option<Vec<u32>>,
}

impl<'a> RanJobs<'a> {
    fn new(jobs: &'a JobSet, schedule: &'a Schedule) -> Self {
        let ran = |index: usize| schedule.final_state(JobId(index as u32)).ran();
        let ran = if (0..jobs.len()).all(ran) {
            None
        } else {
            Some(
                (0..jobs.len())
                    .filter(|&index| ran(index))
                    .map(|index| index as u32)
                    .collect(),
            )
        };
        Self {
            jobs,
            schedule,
            ran,
        }
    }

    /// The job set's index of the table's job `index`.
    fn job_index(&self, index: usize) -> usize {
        self.ran.as_ref().map_or(index, |ran| ran[index] as usize)
    }
}

impl CompletedJobTable for RanJobs<'_> {
    fn len(&self) -> usize {
        self.ran.as_ref().map_or(self.jobs.len(), Vec::len)
    }

    fn job(&self, index: usize) -> CompletedJob {
        let index = self.job_index(index);
        let id = JobId(index as u32);
        completed_job(&self.jobs.jobs()[index], self.schedule, id, None)
    }

    fn submit(&self, index: usize) -> i64 {
        self.jobs.jobs()[self.job_index(index)].submit
    }
}

/// One job as it ran.
fn completed_job(
    job: &Job,
    schedule: &Schedule,
    id: JobId,
    jobs_calendar: Option<&Calendar>,
) -> CompletedJob {
    let mut completed =
        CompletedJob::new(job.submit, schedule.start(id), schedule.end(id), job.size)
            .with_work(job.runtime);
    if schedule.has_suspensions() {
        completed = completed.with_suspended(schedule.suspended_time(id), schedule.suspensions(id));
    }
    if let Some(user) = job.user() {
        completed = completed.with_user(user);
    }
    if let Some(group) = job.group() {
        completed = completed.with_group(group);
    }
    if let Some(calendar) = jobs_calendar {
        let local = calendar.local(job.submit);
        completed = completed.with_local_submit(local.weekday, local.hour);
    }
    completed
}

/// Simulates one policy on the loaded jobs and computes its metrics.
///
/// # Errors
/// A bad spec, an invalid decision by the policy, or bad metric settings.
pub fn run_policy(
    jobs: &JobSet,
    spec: &PolicySpec,
    config: &MetricsConfig,
) -> Result<PolicyRun, SimulateError> {
    run_policy_with(jobs, spec, config, &SimOptions::default())
}

/// [`run_policy`] with explicit simulation options.
///
/// # Errors
/// As [`run_policy`].
pub fn run_policy_with(
    jobs: &JobSet,
    spec: &PolicySpec,
    config: &MetricsConfig,
    options: &SimOptions,
) -> Result<PolicyRun, SimulateError> {
    let policy = build_policy(spec)?;
    run_policy_clocked(
        jobs,
        PolicyHandle::Owned(policy),
        spec.clone(),
        config,
        options,
        None,
    )
}

/// From this many jobs, a run's group report is computed on a second thread
/// beside its metrics (below, a thread costs more than it saves).
const SIDE_BY_SIDE_FROM: usize = 20_000;

/// The policy of a run: owned ones are dropped, with their per-job
/// state, before the metrics are computed.
enum PolicyHandle<'p> {
    Owned(Box<dyn schedsim_sim_core::Policy>),
    Borrowed(&'p mut dyn schedsim_sim_core::Policy),
}

impl PolicyHandle<'_> {
    fn get(&mut self) -> &mut dyn schedsim_sim_core::Policy {
        match self {
            Self::Owned(policy) => &mut **policy,
            Self::Borrowed(policy) => &mut **policy,
        }
    }
}

/// [`run_policy_with`] for a policy object built elsewhere (a policy of
/// your own, or one written in Python); `spec` is what summary.json names
/// it by.
///
/// # Errors
/// As [`run_policy`], except a bad spec.
pub fn run_policy_object(
    jobs: &JobSet,
    policy: &mut dyn schedsim_sim_core::Policy,
    spec: PolicySpec,
    config: &MetricsConfig,
    options: &SimOptions,
) -> Result<PolicyRun, SimulateError> {
    run_policy_clocked(
        jobs,
        PolicyHandle::Borrowed(policy),
        spec,
        config,
        options,
        None,
    )
}

/// [`run_policy_object`], publishing the simulated time to `clock` now and
/// then.
fn run_policy_clocked(
    jobs: &JobSet,
    mut handle: PolicyHandle<'_>,
    spec: PolicySpec,
    config: &MetricsConfig,
    options: &SimOptions,
    clock: Option<&AtomicI64>,
) -> Result<PolicyRun, SimulateError> {
    let policy = handle.get();
    let started = Instant::now();
    let schedule = match clock {
        None => simulate_with(jobs, policy, options)?,
        Some(clock) => {
            // simulate_with's loop, publishing the time every 4,096 steps
            // (a relaxed store: nothing here waits for the reader).
            let mut simulation =
                Simulation::new(jobs, options, policy.name(), policy.capabilities());
            let mut decisions = Decisions::new();
            let mut steps: u32 = 0;
            while simulation.advance() {
                steps = steps.wrapping_add(1);
                if steps.is_multiple_of(4096) {
                    clock.store(simulation.now(), std::sync::atomic::Ordering::Relaxed);
                }
                decisions.clear();
                policy.schedule(&simulation.view(), &mut decisions);
                simulation.apply(&decisions)?;
            }
            simulation.finish()?
        }
    };
    let elapsed = started.elapsed();
    let counters = policy
        .counters()
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
    let name = policy.name().to_owned();
    drop(handle);
    let config = &with_policy_classes(config, &spec);
    // The metrics and the group report read the jobs from the job set and
    // the schedule: no copy of 80 bytes a job (the peak of a run of
    // millions of jobs). The split report, for workloads with dedicated
    // jobs, takes the copy.
    let ran = RanJobs::new(jobs, &schedule);
    // The group report needs little memory and nothing of the metrics: on
    // a long run, it is computed on a second thread beside them.
    let (metrics, groups) = if jobs.len() >= SIDE_BY_SIDE_FROM {
        std::thread::scope(|scope| {
            let groups = scope.spawn(|| group_report(jobs, &ran));
            (summarize_table(&ran, config), joined(groups))
        })
    } else {
        (summarize_table(&ran, config), group_report(jobs, &ran))
    };
    let metrics = metrics?;
    let split = if jobs.normalization().dedicated > 0 {
        let completed = completed_jobs(jobs, &schedule);
        let requested: Vec<Option<i64>> = jobs
            .jobs()
            .iter()
            .enumerate()
            .filter(|&(index, _)| schedule.final_state(JobId(index as u32)).ran())
            .map(|(_, j)| j.requested_start)
            .collect();
        Some(summarize_split(&completed, &requested, config)?)
    } else {
        None
    };
    let warnings = run_warnings(jobs, &schedule, &metrics);
    let groups = groups?;
    let deadlines = deadline_report(jobs, &schedule, config.tau);
    Ok(PolicyRun {
        spec,
        name,
        schedule,
        metrics,
        split,
        elapsed,
        warnings,
        counters,
        groups,
        deadlines,
    })
}

/// What `simulate` did.
#[derive(Debug, Clone)]
pub struct SimulateOutcome {
    /// The workload.
    pub loaded: LoadedWorkload,
    /// One run per policy, in the order given.
    pub runs: Vec<PolicyRun>,
}

/// Runs `schedsim simulate`: loads the workload, runs every policy (in
/// parallel threads; results do not depend on it), writes the output
/// folders if asked, and prints the comparison to `out`.
///
/// # Errors
/// See [`SimulateError`].
pub fn simulate(
    args: &SimulateArgs,
    out: &mut dyn Write,
) -> Result<SimulateOutcome, SimulateError> {
    simulate_observed(args, out, &Progress::new())
}

/// [`simulate`], reporting how far it has got in `progress` (read it from
/// another thread, e.g. to draw a progress bar); `progress` says it is done
/// when this returns, whatever the outcome.
///
/// # Errors
/// See [`SimulateError`].
pub fn simulate_observed(
    args: &SimulateArgs,
    out: &mut dyn Write,
    progress: &Progress,
) -> Result<SimulateOutcome, SimulateError> {
    let outcome = simulate_inner(args, out, progress);
    progress.end();
    outcome
}

fn simulate_inner(
    args: &SimulateArgs,
    out: &mut dyn Write,
    progress: &Progress,
) -> Result<SimulateOutcome, SimulateError> {
    let names: Vec<&str> = if !args.policies.is_empty() {
        args.policies.iter().map(String::as_str).collect()
    } else if args.slurm_conf.is_some() || args.slurm_shares.is_some() {
        vec!["slurm-backfill"]
    } else {
        DEFAULT_POLICIES.to_vec()
    };
    let mut specs = names
        .iter()
        .map(|name| name.parse::<PolicySpec>())
        .collect::<Result<Vec<_>, _>>()?;
    let slurm_warnings = apply_slurm_files(args, &mut specs)?;
    // Fail on a bad spec before reading a large workload. Two specs that
    // name the same policy (by its canonical name, so `easy` and
    // `easy:order=fcfs` are one) would race for one output folder.
    let mut canonical = specs
        .iter()
        .map(|spec| build_policy(spec).map(|policy| policy.name().to_owned()))
        .collect::<Result<Vec<_>, _>>()?;
    canonical.sort_unstable();
    if let Some(pair) = canonical.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(SimulateError::DuplicatePolicy(pair[0].clone()));
    }
    if args.out.is_some() {
        check_folder_names(&specs)?;
    }
    let loaded = load_workload(args)?;
    let config = metrics_config(args, loaded.jobs.model().procs);
    let options = args.sim_options();
    let submits = loaded.jobs.jobs().iter().map(|job| job.submit);
    let first = submits.clone().min().unwrap_or(0);
    let last = submits.max().unwrap_or(0);
    let clocks = progress.begin(first, last, specs.len());
    let runs = std::thread::scope(|scope| {
        let handles: Vec<_> = specs
            .iter()
            .zip(&clocks)
            .map(|(spec, clock)| {
                scope.spawn(|| {
                    let policy = build_policy(spec)?;
                    let run = run_policy_clocked(
                        &loaded.jobs,
                        PolicyHandle::Owned(policy),
                        spec.clone(),
                        &config,
                        &options,
                        Some(clock),
                    );
                    Progress::end_run(clock);
                    run
                })
            })
            .collect();
        handles
            .into_iter()
            .map(joined)
            .collect::<Result<Vec<_>, _>>()
    })?;
    let mut runs = runs;
    for run in &mut runs {
        if uses_slurm_files(&run.spec) {
            run.warnings.extend(slurm_warnings.iter().cloned());
        }
    }
    if let Some(dir) = &args.out {
        for run in &runs {
            write_run(&dir.join(run.spec.dir_name()), args, &loaded, run)?;
        }
    }
    report(args, &loaded, &runs, out).map_err(SimulateError::Output)?;
    Ok(SimulateOutcome { loaded, runs })
}

/// Refuses, before anything runs, policies whose output folders would be
/// one (`conf=a/b.conf` and `conf=a_b.conf` both become `..._a_b.conf`)
/// or a name too long for a file system (255 bytes).
fn check_folder_names(specs: &[PolicySpec]) -> Result<(), SimulateError> {
    let mut folders: Vec<(String, String)> = specs
        .iter()
        .map(|spec| (spec.dir_name(), spec.to_string()))
        .collect();
    if let Some((folder, spec)) = folders.iter().find(|(folder, _)| folder.len() > 255) {
        return Err(SimulateError::FolderName {
            spec: spec.clone(),
            problem: format!("its folder name is {} bytes, more than 255", folder.len()),
        });
    }
    folders.sort_unstable();
    if let Some(pair) = folders.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(SimulateError::FolderName {
            spec: pair[1].1.clone(),
            problem: format!(
                "its output folder `{}` is also that of `{}`",
                pair[1].0, pair[0].1
            ),
        });
    }
    Ok(())
}

/// Whether a spec is a Slurm policy: `slurm-backfill`, or an order
/// `multifactor`.
fn uses_slurm_files(spec: &PolicySpec) -> bool {
    spec.name == "slurm-backfill"
        || spec
            .options
            .iter()
            .any(|(key, value)| key == "order" && value == "multifactor")
}

/// Gives `--slurm-conf` and `--slurm-shares` to the Slurm policies that do
/// not name their own files, and returns the warnings about the
/// slurm.conf: the keys it does not model, and classic fair-share standing
/// in for Fair Tree.
///
/// # Errors
/// A file cannot be read or has a bad line, or no policy uses it.
pub fn apply_slurm_files(
    args: &SimulateArgs,
    specs: &mut [PolicySpec],
) -> Result<Vec<String>, SimulateError> {
    let mut warnings = Vec::new();
    for (flag, key, path) in [
        ("--slurm-conf", "conf", &args.slurm_conf),
        ("--slurm-shares", "shares", &args.slurm_shares),
    ] {
        let Some(path) = path else { continue };
        if key == "conf" {
            let conf = SlurmConf::from_file(path)?;
            warnings.extend(conf.fair_tree_warning());
            warnings.extend(conf.warnings.iter().cloned());
        } else {
            SharesFile::from_file(path)?;
        }
        let mut used = false;
        for spec in specs.iter_mut().filter(|spec| uses_slurm_files(spec)) {
            used = true;
            if !spec.options.iter().any(|(k, _)| k == key) {
                spec.options
                    .push((key.to_owned(), path.display().to_string()));
            }
        }
        if !used {
            return Err(SimulateError::SlurmFileUnused(flag));
        }
    }
    Ok(warnings)
}

/// Everything `summary.json` holds.
#[derive(Debug, Serialize)]
struct RunSummary<'a> {
    tool: &'static str,
    version: &'static str,
    policy: String,
    policy_name: &'a str,
    workload: &'a WorkloadSource,
    machine: Machine,
    job_model: JobModelSummary,
    /// How the policy was called and the switch overheads.
    simulation: SimOptions,
    metrics_config: &'a MetricsConfig,
    normalization: &'a Normalization,
    read: Option<ReadCounts>,
    load: Option<&'a LoadChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<&'a ScaleReport>,
    metrics: &'a RunMetrics,
    /// User groups and their metrics (workloads with users).
    #[serde(skip_serializing_if = "Option::is_none")]
    user_groups: Option<&'a GroupReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    objective: Option<ObjectiveValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    split: Option<&'a SplitMetrics>,
    /// Rejections and deadline misses.
    #[serde(skip_serializing_if = "Option::is_none")]
    deadlines: Option<&'a DeadlineReport>,
    /// What the simulator counted (commands applied or ignored, dedicated
    /// jobs run as batch jobs, ...).
    run_stats: &'a schedsim_sim_core::RunStats,
    /// See [`run_warnings`].
    warnings: &'a [String],
    /// The policy's own counters, if it keeps any.
    #[serde(skip_serializing_if = "PolicyCounters::is_empty")]
    policy_counters: PolicyCounters<'a>,
    /// The log's time 0 in seconds since the Unix epoch and its time zone
    /// (the calendar policies saw), for tools that show dates (evalys's
    /// `UnixStartTime`).
    #[serde(skip_serializing_if = "Option::is_none")]
    unix_start_time: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_zone: Option<&'a str>,
}

/// A policy's counters as a JSON object, in the policy's order.
#[derive(Debug)]
struct PolicyCounters<'a>(&'a [(String, u64)]);

impl PolicyCounters<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for PolicyCounters<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

#[derive(Debug, Serialize)]
struct Machine {
    procs: u32,
    granularity: u32,
}

#[derive(Debug, Serialize)]
struct JobModelSummary {
    overrun: Overrun,
    lenient: bool,
    estimates: Estimates,
    #[serde(skip_serializing_if = "Option::is_none")]
    deadlines: Option<PathBuf>,
}

/// The reader's counts, without its examples.
#[derive(Debug, Serialize)]
struct ReadCounts {
    lines: u64,
    records: u64,
    blank_lines: u64,
    skipped_lines: u64,
    rounded_values: u64,
}

/// Writes jobs.csv, schedule.swf and summary.json (and segments.csv when
/// a job was suspended) of one run as the folder `dir`, replacing an
/// earlier run there.
///
/// The files are written into a hidden folder beside `dir`
/// (`.NAME.tmp-PID`), which is then renamed to `dir`; an earlier run there
/// is first renamed aside and removed. So `dir` holds one whole run, the
/// old or the new, or nothing for an instant, even if the process is killed
/// or another writes the same folder at once: a folder replaced file by
/// file could hold the new jobs.csv beside the old summary.json. A folder
/// holding files `simulate` does not write is refused rather than removed.
///
/// # Errors
/// A file or folder that cannot be written or renamed, or `dir` holding
/// other files than a run's.
pub fn write_run(
    dir: &Path,
    args: &SimulateArgs,
    loaded: &LoadedWorkload,
    run: &PolicyRun,
) -> Result<(), SimulateError> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        let source = io::Error::new(io::ErrorKind::InvalidInput, "a run folder needs a name");
        return Err(write_error(dir)(source));
    };
    // `out/easy` has the parent `out`; `easy` alone has the parent "".
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    create_folder(parent).map_err(write_error(parent))?;
    check_run_folder(dir)?;
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let sequence = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let hidden = |kind: &str| {
        let mut hidden = std::ffi::OsString::from(".");
        hidden.push(name);
        // Unique among hosts sharing the folder, processes and threads.
        hidden.push(format!(
            ".{kind}-{}-{}-{sequence}",
            host_name(),
            std::process::id()
        ));
        parent.join(hidden)
    };
    remove_dead_writers_folders(parent, name);
    let staging = hidden("tmp");
    fs::create_dir(&staging).map_err(write_error(&staging))?;
    let written = write_run_files(&staging, args, loaded, run)
        .and_then(|()| replace_folder(&staging, dir, &hidden).map_err(write_error(dir)));
    if written.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    written
}

/// This host's name as it goes into file names (`/` and `.` made `-`),
/// `host` if unknown: the hidden run folders', the sweep's temporary cell
/// files' and the names lock files give their holders.
pub fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().replace(['/', '.'], "-"))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_owned())
}

/// Removes the hidden folders of run `name` that a killed writer on this
/// host left beside it (`.NAME.tmp-HOST-PID-N`, its new run, and
/// `.NAME.oldK-HOST-PID-N`, an earlier run it was removing): each can be
/// as large as a run. Only where `/proc` tells a live process from a dead
/// one; a folder of another host, or of a live process, is left alone.
fn remove_dead_writers_folders(parent: &Path, name: &std::ffi::OsStr) {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let host = host_name();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        // KIND-HOST-PID-N, where the host may hold dashes.
        let mut tail = rest.rsplitn(3, '-');
        let (Some(sequence), Some(pid), Some(kind_host)) = (tail.next(), tail.next(), tail.next())
        else {
            continue;
        };
        let Some((kind, writer_host)) = kind_host.split_once('-') else {
            continue;
        };
        let is_kind = kind == "tmp"
            || kind
                .strip_prefix("old")
                .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        let numbers = sequence.parse::<u64>().is_ok() && pid.parse::<u32>().is_ok();
        if is_kind && numbers && writer_host == host && !proc.join(pid).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// The error of writing `path`, for `map_err`.
fn write_error(path: &Path) -> impl FnOnce(io::Error) -> SimulateError + use<> {
    let path = path.to_path_buf();
    move |source| SimulateError::Write { path, source }
}

/// What `simulate` writes in a run folder, and `plot` beside them.
const RUN_FOLDER_ENTRIES: [&str; 5] = [
    "jobs.csv",
    "segments.csv",
    "schedule.swf",
    "summary.json",
    "plots",
];

/// Refuses to replace a folder holding more than a run: its other files
/// would be removed with the earlier run.
fn check_run_folder(dir: &Path) -> Result<(), SimulateError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        // A file where the folder goes, or an unreadable folder: the
        // rename below names it.
        Err(_) => return Ok(()),
    };
    let mut foreign: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| SimulateError::Write {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // Temporary files of an earlier version's killed run.
        let known = RUN_FOLDER_ENTRIES
            .iter()
            .any(|own| name == *own || name.starts_with(&format!("{own}.tmp-")));
        if !known {
            foreign.push(name);
        }
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort_unstable();
    Err(SimulateError::ForeignFiles {
        dir: dir.to_path_buf(),
        names: foreign.join(", "),
    })
}

/// Renames the finished folder `staging` to `dir`, moving a folder already
/// there aside (`hidden("old")`) and removing it after. Another process
/// may put its own run at `dir` in between: it is moved aside in turn, a
/// few times at most.
fn replace_folder(staging: &Path, dir: &Path, hidden: &dyn Fn(&str) -> PathBuf) -> io::Result<()> {
    let mut aside = Vec::new();
    let result = loop {
        match fs::rename(staging, dir) {
            Ok(()) => break Ok(()),
            // Renaming a folder onto a folder that is not empty fails.
            Err(error) if dir.is_dir() && aside.len() < 8 => {
                let old = hidden(&format!("old{}", aside.len()));
                match fs::rename(dir, &old) {
                    Ok(()) => aside.push(old),
                    // Another process moved it first.
                    Err(moved) if moved.kind() == io::ErrorKind::NotFound => {}
                    Err(_) => break Err(error),
                }
            }
            Err(_) if dir.exists() && !dir.is_dir() => {
                break Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is not a folder", dir.display()),
                ));
            }
            Err(error) => break Err(error),
        }
    };
    for old in aside {
        let _ = fs::remove_dir_all(old);
    }
    result
}

/// The files of [`write_run`], written into the new folder `dir`.
fn write_run_files(
    dir: &Path,
    args: &SimulateArgs,
    loaded: &LoadedWorkload,
    run: &PolicyRun,
) -> Result<(), SimulateError> {
    let config = metrics_config(args, loaded.jobs.model().procs);
    let path = dir.join("jobs.csv");
    write_atomically_with(&path, |file| {
        write_jobs_csv(file, loaded, &run.schedule, config.tau)
    })
    .map_err(write_error(&path))?;
    if run.schedule.has_suspensions() {
        let path = dir.join("segments.csv");
        write_atomically(&path, segments_csv(loaded, &run.schedule).as_bytes())
            .map_err(write_error(&path))?;
    }
    let path = dir.join("schedule.swf");
    write_atomically_with(&path, |file| write_schedule_swf(file, loaded, run))
        .map_err(|error: ScheduleSwfError| error.at(&path))?;
    let path = dir.join("summary.json");
    let json = summary_json(args, loaded, run).map_err(|e| SimulateError::Write {
        path: path.clone(),
        source: e.into(),
    })?;
    write_atomically(&path, json.as_bytes()).map_err(write_error(&path))?;
    Ok(())
}

/// Creates the folder `path` and its parents, as `fs::create_dir_all` does,
/// but a file where the folder or one of its parents goes is named ("X is
/// not a folder"), where `create_dir_all` says only "File exists" or "Not
/// a directory".
pub fn create_folder(path: &Path) -> io::Result<()> {
    fs::create_dir_all(path).map_err(|error| {
        let file = match error.kind() {
            io::ErrorKind::AlreadyExists => Some(path),
            io::ErrorKind::NotADirectory => path.ancestors().skip(1).find(|a| a.is_file()),
            _ => None,
        };
        match file {
            Some(file) => io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a folder", file.display()),
            ),
            None => error,
        }
    })
}

/// Writes `bytes` to `path` through a temporary name in the same folder
/// and a rename: `path` holds the old content or the new, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// [`write_atomically`] for content written as it is made: `write` fills a
/// buffered temporary file in the same folder, which is renamed to `path`
/// once it is complete, so the whole content is never held in memory and
/// `path` still holds the old content or the new, never a part. On an
/// error the temporary file is removed.
pub fn write_atomically_with<F, E>(path: &Path, write: F) -> Result<(), E>
where
    F: FnOnce(&mut io::BufWriter<fs::File>) -> Result<(), E>,
    E: From<io::Error>,
{
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp-{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let result = (|| {
        let file = fs::File::create(&temporary)?;
        let mut buffered = io::BufWriter::with_capacity(OUTPUT_BUFFER_BYTES, file);
        write(&mut buffered)?;
        buffered
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        fs::rename(&temporary, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Write buffer of the output files.
const OUTPUT_BUFFER_BYTES: usize = 256 * 1024;

/// The text of a run's summary.json (pretty JSON, ending with a newline).
///
/// # Errors
/// Serialization failure (a non-finite number cannot be one: they are
/// written as null).
pub fn summary_json(
    args: &SimulateArgs,
    loaded: &LoadedWorkload,
    run: &PolicyRun,
) -> Result<String, serde_json::Error> {
    let config = with_policy_classes(&metrics_config(args, loaded.jobs.model().procs), &run.spec);
    let summary = RunSummary {
        tool: "schedsim",
        version: env!("CARGO_PKG_VERSION"),
        policy: run.spec.to_string(),
        policy_name: &run.name,
        workload: &loaded.source,
        machine: Machine {
            procs: loaded.jobs.model().procs,
            granularity: loaded.jobs.model().granularity,
        },
        job_model: JobModelSummary {
            overrun: args.overrun,
            lenient: args.lenient,
            estimates: args.estimates,
            deadlines: args.deadlines.clone(),
        },
        simulation: args.sim_options(),
        metrics_config: &config,
        normalization: loaded.jobs.normalization(),
        read: loaded.read_summary.as_ref().map(|s| ReadCounts {
            lines: s.lines,
            records: s.records,
            blank_lines: s.blank_lines,
            skipped_lines: s.skipped_lines,
            rounded_values: s.rounded.iter().sum(),
        }),
        load: loaded.load_change.as_ref(),
        scale: loaded.scale.as_ref(),
        metrics: &run.metrics,
        user_groups: run.groups.as_ref(),
        deadlines: run.deadlines.as_ref(),
        objective: run
            .groups
            .as_ref()
            .map(|groups| ObjectiveValue::of(&args.objective, groups)),
        split: run.split.as_ref(),
        run_stats: run.schedule.stats(),
        warnings: &run.warnings,
        policy_counters: PolicyCounters(&run.counters),
        unix_start_time: loaded.jobs.calendar().map(Calendar::epoch),
        time_zone: loaded.jobs.calendar().map(Calendar::zone),
    };
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    Ok(json)
}

/// jobs.csv in Batsim's layout (see the module docs).
pub fn jobs_csv(loaded: &LoadedWorkload, schedule: &Schedule, tau: i64) -> String {
    let mut bytes = Vec::new();
    // Writing to a vector cannot fail.
    let _ = write_jobs_csv(&mut bytes, loaded, schedule, tau);
    // Every piece is UTF-8 (numbers, ASCII names, the cleaned workload
    // name).
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`jobs_csv`] written to `out` a line at a time, never held whole.
///
/// # Errors
/// Those of `out`.
pub fn write_jobs_csv(
    out: &mut impl Write,
    loaded: &LoadedWorkload,
    schedule: &Schedule,
    tau: i64,
) -> io::Result<()> {
    out.write_all(
        b"job_id,workload_name,profile,submission_time,requested_number_of_resources,\
         requested_time,success,final_state,starting_time,execution_time,finish_time,\
         waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata,\
         bounded_slowdown\n",
    )?;
    let workload_name = workload_name(&loaded.source);
    let mut csv = String::with_capacity(256);
    for (index, job) in loaded.jobs.jobs().iter().enumerate() {
        csv.clear();
        let id = JobId(index as u32);
        let state = schedule.final_state(id);
        let _ = write!(
            csv,
            "{},{workload_name},delay,{},{},{},{},{},",
            job.number,
            job.submit,
            job.requested_size,
            job.estimate,
            u8::from(state == FinalState::CompletedSuccessfully),
            state.as_str(),
        );
        if !state.ran() {
            // Never ran: no times, no allocation, no metrics.
            csv.push_str(",,,,,,,-1,,\n");
            out.write_all(csv.as_bytes())?;
            continue;
        }
        let (start, finish) = (schedule.start(id), schedule.end(id));
        let metrics = job_metrics(&completed_job(job, schedule, id, None), tau);
        let _ = write!(
            csv,
            "{},{},{},{},{},{},",
            start,
            finish - start,
            finish,
            metrics.wait,
            metrics.response,
            metrics.slowdown,
        );
        push_allocation(&mut csv, schedule, id);
        let _ = writeln!(csv, ",-1,,{}", metrics.bounded_slowdown);
        out.write_all(csv.as_bytes())?;
    }
    Ok(())
}

/// jobs.csv's `workload_name`: the workload file's name without its
/// format's extension and `.gz` (in any case), with the characters CSV and
/// evalys give a meaning (`,`, `!`, quotes, whitespace) replaced by `_`.
fn workload_name(source: &WorkloadSource) -> String {
    let name = match source {
        WorkloadSource::File { path, .. } => {
            let file = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let plain = workload_format::without_gz(&file);
            match plain.rsplit_once('.') {
                Some((stem, extension))
                    if ["swf", "cwf", "json", "jsonl"]
                        .iter()
                        .any(|known| extension.eq_ignore_ascii_case(known)) =>
                {
                    stem.to_owned()
                }
                _ => plain.to_owned(),
            }
        }
        WorkloadSource::Builtin { .. } => "builtin".to_owned(),
        WorkloadSource::Cwf { .. } => "cwf".to_owned(),
    };
    let clean: String = name
        .chars()
        .map(|c| {
            if c == ',' || c == '!' || c == '"' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if clean.is_empty() {
        "w0".to_owned()
    } else {
        clean
    }
}

/// `allocated_resources`: the job's processor ranges, space-separated.
fn push_allocation(csv: &mut String, schedule: &Schedule, id: JobId) {
    for (i, range) in schedule.allocation(id).iter().enumerate() {
        if i > 0 {
            csv.push(' ');
        }
        let _ = write!(csv, "{range}");
    }
}

/// segments.csv (see the module docs): every run segment of every job that
/// ran.
pub fn segments_csv(loaded: &LoadedWorkload, schedule: &Schedule) -> String {
    let mut csv = String::from("job_id,job_index,segment,start,end,allocated_resources\n");
    for (index, job) in loaded.jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        for (segment, span) in schedule.segments(id).enumerate() {
            let _ = write!(
                csv,
                "{},{index},{segment},{},{},",
                job.number, span.start, span.end
            );
            push_allocation(&mut csv, schedule, id);
            csv.push('\n');
        }
    }
    csv
}

/// Why schedule.swf could not be made.
#[derive(Debug)]
enum ScheduleSwfError {
    Header(HeaderError),
    Write(WriteError),
}

impl From<HeaderError> for ScheduleSwfError {
    fn from(error: HeaderError) -> Self {
        Self::Header(error)
    }
}

impl From<WriteError> for ScheduleSwfError {
    fn from(error: WriteError) -> Self {
        Self::Write(error)
    }
}

impl From<io::Error> for ScheduleSwfError {
    fn from(error: io::Error) -> Self {
        Self::Write(WriteError::Io { source: error })
    }
}

impl ScheduleSwfError {
    /// As `write_run` reports it.
    fn at(self, path: &Path) -> SimulateError {
        match self {
            Self::Header(error) => SimulateError::from(error),
            Self::Write(WriteError::Io { source }) => SimulateError::Write {
                path: path.to_path_buf(),
                source,
            },
            Self::Write(source) => SimulateError::WriteSwf {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// The header of schedule.swf: the input's, with this file's counts, the
/// schedule's end and a note on what was simulated.
fn schedule_swf_header(loaded: &LoadedWorkload, run: &PolicyRun) -> Result<Header, HeaderError> {
    let mut header = loaded.header.clone();
    let dropped = loaded.jobs.normalization().dropped_total();
    // The counts of this file, not of the log it came from: every job (ran
    // or rejected) and every command line.
    let jobs = loaded.jobs.len();
    let commands = loaded.records.command_count();
    header.set("MaxJobs", jobs)?;
    header.set("MaxRecords", jobs + commands)?;
    // Time 0 (StartTime) is the same after any load change; the end is the
    // last end of this schedule, in the log's calendar.
    if let (Some(calendar), Some(_)) = (loaded.jobs.calendar(), header.end_time()) {
        let last = run
            .schedule
            .ends()
            .iter()
            .copied()
            .filter(|&end| end != Schedule::NOT_RUN)
            .max();
        if let Some(last) = last {
            header.set("EndTime", calendar.format(last))?;
        }
    }
    let load = match &loaded.load_change {
        None => String::new(),
        Some(change) => format!(
            "; the offered load was changed from {:.4} to {:.4} by {} ({})",
            change.original_load,
            change.achieved_load,
            change.method,
            match change.method {
                LoadMethod::Scale => "field 2 and CWF field 19 multiplied by the same factor",
                LoadMethod::Duplicate =>
                    "copies of random jobs added with new job numbers and field 2",
                LoadMethod::Expand => "fields 4 and 9 of random jobs multiplied",
            }
        ),
    };
    header.push_text(&format!(
        "schedsim {}: simulated with policy {} on {} processors (granularity {}); \
         fields 3 (wait), 4 (run time), 5 (allocated processors) and 11 (status: 1 completed, \
         0 killed, 5 rejected) are as simulated; {dropped} jobs that could not be simulated \
         are left out{load}",
        env!("CARGO_PKG_VERSION"),
        run.name,
        loaded.jobs.model().procs,
        loaded.jobs.model().granularity,
    ))?;
    Ok(header)
}

/// schedule.swf (see the module docs): the input records with the
/// simulated wait, run time, allocation and status, streamed to `out`
/// record by record from the packed input.
fn write_schedule_swf(
    out: &mut impl Write,
    loaded: &LoadedWorkload,
    run: &PolicyRun,
) -> Result<(), ScheduleSwfError> {
    let header = schedule_swf_header(loaded, run)?;
    // The job of each record, `NO_JOB` for none.
    const NO_JOB: u32 = u32::MAX;
    let mut job_of_record: Vec<u32> = vec![NO_JOB; loaded.records.len()];
    for (index, job) in loaded.jobs.jobs().iter().enumerate() {
        job_of_record[job.record_index as usize] = index as u32;
    }
    let mut writer = Writer::new(out);
    writer.write_header(&header)?;
    for (record, &job) in loaded.records.iter().zip(&job_of_record) {
        if job == NO_JOB {
            // Dropped in lenient mode, unless a command line.
            if record.is_command() {
                writer.write_record(&record)?;
            }
            continue;
        }
        let id = JobId(job);
        let state = run.schedule.final_state(id);
        let record = if state.ran() {
            let job = loaded.jobs.job(id);
            let (start, end) = (run.schedule.start(id), run.schedule.end(id));
            let as_field = |value: i64| u64::try_from(value).ok();
            let status = match state {
                FinalState::CompletedSuccessfully => JobStatus::Completed,
                // Killed at its estimate or by a command: SWF's "failed".
                _ => JobStatus::Failed,
            };
            Record {
                wait_time: as_field(start - job.submit),
                run_time: as_field(end - start),
                allocated_processors: Some(u64::from(job.size)),
                status: Some(status),
                ..record
            }
        } else {
            // Rejected: never ran. SWF's "cancelled" status, with no wait,
            // run time or processors.
            Record {
                wait_time: None,
                run_time: None,
                allocated_processors: None,
                status: Some(JobStatus::Cancelled),
                ..record
            }
        };
        writer.write_record(&record)?;
    }
    writer.finish()?;
    Ok(())
}

/// schedule.swf's text (tests).
#[cfg(test)]
fn schedule_swf(loaded: &LoadedWorkload, run: &PolicyRun) -> String {
    let mut bytes = Vec::new();
    write_schedule_swf(&mut bytes, loaded, run).unwrap();
    String::from_utf8(bytes).unwrap()
}

/// The comparison of the runs, as a table or JSON.
fn report(
    args: &SimulateArgs,
    loaded: &LoadedWorkload,
    runs: &[PolicyRun],
    out: &mut dyn Write,
) -> io::Result<()> {
    if args.json {
        #[derive(Serialize)]
        struct Row<'a> {
            policy: String,
            metrics: &'a RunMetrics,
            #[serde(skip_serializing_if = "Option::is_none")]
            split: Option<&'a SplitMetrics>,
            #[serde(skip_serializing_if = "Option::is_none")]
            user_groups: Option<&'a GroupReport>,
            #[serde(skip_serializing_if = "Option::is_none")]
            objective: Option<ObjectiveValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            deadlines: Option<&'a DeadlineReport>,
        }
        let rows: Vec<Row<'_>> = runs
            .iter()
            .map(|run| Row {
                policy: run.spec.to_string(),
                metrics: &run.metrics,
                split: run.split.as_ref(),
                user_groups: run.groups.as_ref(),
                objective: run
                    .groups
                    .as_ref()
                    .map(|groups| ObjectiveValue::of(&args.objective, groups)),
                deadlines: run.deadlines.as_ref(),
            })
            .collect();
        let json = serde_json::to_string_pretty(&rows).map_err(io::Error::other)?;
        return writeln!(out, "{json}");
    }
    let model = loaded.jobs.model();
    match &loaded.source {
        WorkloadSource::File { path, .. } => writeln!(out, "workload: {}", path.display())?,
        WorkloadSource::Builtin { jobs, seed, .. } => writeln!(
            out,
            "workload: built-in Lublin-Feitelson model ({jobs} jobs, {BUILTIN_NODES} nodes, \
             offered load {BUILTIN_LOAD}, f-model estimates with f = {BUILTIN_ESTIMATE_F}, \
             seed {seed}); give --workload FILE for your own"
        )?,
        WorkloadSource::Cwf { jobs, seed, .. } => writeln!(
            out,
            "workload: the CWF generator of Kumar et al. ({jobs} jobs, seed {seed})"
        )?,
    }
    if let Some(scale) = &loaded.scale {
        writeln!(
            out,
            "scaled: {} to {} processors, factor {:.4} ({:.4} x {:.4}), {} jobs enlarged, {} duplicated into {} more: {} records",
            scale.scaling.source_procs,
            scale.scaling.target_procs,
            scale.factor,
            scale.exact_factor,
            scale.factor / scale.exact_factor,
            scale.enlarged,
            scale.duplicated,
            scale.copies_added,
            scale.records_out
        )?;
    }
    if let Some(change) = &loaded.load_change {
        writeln!(
            out,
            "load: {} to {} (offered load {:.4} before, {:.4} reached)",
            change.method, change.target, change.original_load, change.achieved_load
        )?;
    }
    let n = loaded.jobs.normalization();
    writeln!(
        out,
        "machine: {} processors (granularity {}); {} jobs simulated, {}, {} estimates from runtime, {} killed at estimate",
        model.procs,
        model.granularity,
        n.jobs,
        dropped_jobs(n),
        n.estimate_from_runtime,
        n.killed_at_estimate,
    )?;
    if let Some(line) = deadline_matches(args, n) {
        writeln!(out, "{line}")?;
    }
    crate::simulate_split::report_commands(n, out)?;
    for line in workload_notes(loaded) {
        writeln!(out, "{line}")?;
    }
    if args.simultaneous_ends == Ends::Together && args.invoke == Invoke::PerTimestamp {
        writeln!(
            out,
            "warning: --simultaneous-ends together changes nothing without --invoke per-event \
             (a call per timestamp already sees every end of its second)"
        )?;
    }
    writeln!(out)?;
    let width = runs
        .iter()
        .map(|run| run.spec.to_string().len())
        .max()
        .unwrap_or(0)
        .max("policy".len());
    writeln!(
        out,
        "{:<width$} {:>6} {:>10} {:>10} {:>9} {:>9} {:>7} {:>10} {:>7} {:>8}",
        "policy",
        "util",
        "mean wait",
        "p95 wait",
        "mean bsld",
        "max bsld",
        "msld",
        "AWRT",
        "queue",
        "time"
    )?;
    // A metric without jobs to measure (all dropped or rejected) is `-`,
    // as in summary.json's null, not 0.
    let cell = |value: Option<f64>, width: usize, decimals: usize| {
        value.map_or_else(
            || format!("{:>width$}", "-"),
            |v| format!("{v:>width$.decimals$}"),
        )
    };
    for run in runs {
        let m = &run.metrics;
        writeln!(
            out,
            "{:<width$} {:>6.3} {} {} {} {} {} {} {:>7.1} {:>7.3}s",
            run.spec.to_string(),
            m.utilization,
            cell(m.wait.map(|s| s.mean), 10, 0),
            cell(m.wait.map(|s| s.p95), 10, 0),
            cell(m.bounded_slowdown.map(|s| s.mean), 9, 2),
            cell(m.bounded_slowdown.map(|s| s.max), 9, 1),
            cell(m.mean_based_slowdown, 7, 2),
            cell(m.awrt, 10, 0),
            m.queue_length.mean,
            run.elapsed.as_secs_f64(),
        )?;
    }
    crate::simulate_split::report_split(runs, width, out)?;
    crate::groups::report_groups(args, runs, width, out)?;
    report_deadlines(runs, out)?;
    report_lifecycle(runs, out)?;
    report_runtime_classes(runs, out)?;
    writeln!(out)?;
    writeln!(
        out,
        "util = utilization; waits in seconds; bsld = bounded slowdown (tau {} s); msld = \
         (mean wait + mean runtime) / mean runtime, the slowdown of Kumar et al.; AWRT = \
         response weighted by size x runtime; queue = time-weighted mean queue length",
        args.tau
    )?;
    if let Some(dir) = &args.out {
        writeln!(out, "results written to {}/POLICY/", dir.display())?;
    }
    Ok(())
}

/// The dropped jobs (--lenient) with their reasons, as summary.json has
/// them: `4 dropped (3 no runtime, 1 no size)`, or `0 dropped`.
fn dropped_jobs(n: &Normalization) -> String {
    let total = n.dropped_total();
    if total == 0 {
        return "0 dropped".to_owned();
    }
    let reasons: Vec<String> = n
        .dropped
        .iter()
        .filter(|&(_, &count)| count > 0)
        .map(|(reason, count)| format!("{count} {}", reason.short()))
        .collect();
    format!("{total} dropped ({})", reasons.join(", "))
}

/// With --deadlines: how many jobs got one, and the file's entries that
/// name no job of the workload (ignored; counted in summary.json too).
fn deadline_matches(args: &SimulateArgs, n: &Normalization) -> Option<String> {
    args.deadlines.as_ref()?;
    let mut line = format!("deadlines: {} with one", plural(n.deadlines, "job"));
    if n.deadlines_unmatched > 0 {
        let _ = write!(
            line,
            "; {} for no job of the workload (ignored)",
            plural(n.deadlines_unmatched, "deadline")
        );
    }
    Some(line)
}

/// Admission and deadlines per run (Islam et al.'s figures), when any run
/// has deadlines or rejected jobs.
fn report_deadlines(runs: &[PolicyRun], out: &mut dyn Write) -> io::Result<()> {
    if runs.iter().all(|run| run.deadlines.is_none()) {
        return Ok(());
    }
    let width = runs
        .iter()
        .map(|run| run.spec.to_string().len())
        .max()
        .unwrap_or(0)
        .max("policy".len());
    writeln!(out)?;
    writeln!(
        out,
        "{:<width$} {:>11} {:>10} {:>7}  per kind: jobs rejected missed mean-response mean-bsld",
        "policy", "unadmitted", "unadm.work", "missed"
    )?;
    for run in runs {
        let Some(report) = &run.deadlines else {
            continue;
        };
        let kinds: Vec<String> = report
            .kinds
            .iter()
            .map(|k| {
                format!(
                    "{} {} {} {} {:.0} {:.2}",
                    k.kind,
                    k.jobs,
                    k.rejected,
                    k.missed,
                    k.mean_response.unwrap_or(0.0),
                    k.mean_bounded_slowdown.unwrap_or(0.0)
                )
            })
            .collect();
        writeln!(
            out,
            "{:<width$} {:>10.2}% {:>9.2}% {:>7}  {}",
            run.spec.to_string(),
            100.0 * report.rejected_share,
            100.0 * report.rejected_work_share,
            report.missed,
            kinds.join("; ")
        )?;
    }
    writeln!(
        out,
        "unadmitted = rejected jobs, unadm.work = their processor-seconds, in % of all; missed = jobs that ran past their deadline"
    )
}

/// Rejections, suspensions and warnings, for the runs that had any.
fn report_lifecycle(runs: &[PolicyRun], out: &mut dyn Write) -> io::Result<()> {
    for run in runs {
        for warning in &run.warnings {
            writeln!(out, "warning: {}: {warning}", run.spec)?;
        }
        let stats = run.schedule.stats();
        if stats.rejected_jobs > 0 {
            writeln!(
                out,
                "{}: {} jobs rejected ({} processor-seconds); their metrics are left out",
                run.spec, stats.rejected_jobs, stats.rejected_work
            )?;
        }
        if stats.suspensions > 0 {
            writeln!(
                out,
                "{}: {} suspensions, {} resumptions",
                run.spec, stats.suspensions, stats.resumes
            )?;
        }
    }
    Ok(())
}

/// Per runtime class (SCOJO-PECT's classes) and the group search's
/// counters, when a SCOJO-PECT policy ran.
fn report_runtime_classes(runs: &[PolicyRun], out: &mut dyn Write) -> io::Result<()> {
    let Some(bounds) = runs.iter().find_map(|r| runtime_class_bounds(&r.spec)) else {
        return Ok(());
    };
    writeln!(
        out,
        "per runtime class (short < {} s, medium < {} s, long; of SCOJO-PECT's spec): jobs, mean bounded slowdown, response and wait (s)",
        bounds.0, bounds.1
    )?;
    for run in runs {
        let classes = &run.metrics.runtime_classes;
        let mut line = format!("{}:", run.spec);
        for (name, stats) in [
            ("short", classes.short),
            ("medium", classes.medium),
            ("long", classes.long),
        ] {
            if let Some(c) = stats {
                let _ = write!(
                    line,
                    " {name} {} / {:.2} / {:.0} / {:.0};",
                    c.jobs, c.mean_bounded_slowdown, c.mean_response, c.mean_wait
                );
            }
        }
        writeln!(out, "{}", line.trim_end_matches(';'))?;
        let count = |name: &str| {
            run.counters
                .iter()
                .find(|(n, _)| n == name)
                .map(|&(_, v)| v)
        };
        if let (Some(groups), Some(grouped), Some(schedules), Some(nodes), Some(pruned)) = (
            count("groups"),
            count("jobs_grouped"),
            count("schedules_evaluated"),
            count("search_nodes"),
            count("nodes_pruned"),
        ) {
            writeln!(
                out,
                "{}: {groups} groups, {grouped} jobs in groups, {schedules} schedules evaluated, {nodes} search nodes, {pruned} pruned",
                run.spec
            )?;
        }
    }
    Ok(())
}

/// What a scoped thread returned; its panic, if it panicked, goes on in
/// this thread.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Refuses a workload that cannot be read twice: a pipe (`<(...)`,
/// `/dev/stdin` fed by one), a device, a socket, or `-` for standard
/// input. A path that does not exist or is a folder is left to the reader,
/// whose messages say so.
fn check_rereadable(path: &Path) -> Result<(), SimulateError> {
    let refuse = |what| {
        Err(SimulateError::NotRegularFile {
            path: path.to_path_buf(),
            what,
        })
    };
    let Ok(metadata) = fs::metadata(path) else {
        return if path.as_os_str() == "-" {
            refuse("standard input")
        } else {
            Ok(())
        };
    };
    let kind = metadata.file_type();
    if kind.is_file() || kind.is_dir() {
        return Ok(());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return refuse("a pipe (FIFO)");
        }
        if kind.is_char_device() {
            return refuse("a character device");
        }
        if kind.is_block_device() {
            return refuse("a block device");
        }
        if kind.is_socket() {
            return refuse("a socket");
        }
    }
    refuse("neither a file nor a folder")
}

fn sha256_file(path: &Path) -> Result<String, SimulateError> {
    let mut file = fs::File::open(path).map_err(|source| SimulateError::Hash {
        path: path.to_path_buf(),
        source,
    })?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read =
            io::Read::read(&mut file, &mut buffer).map_err(|source| SimulateError::Hash {
                path: path.to_path_buf(),
                source,
            })?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Writes the policy catalogue (`schedsim policies`).
///
/// # Errors
/// The output cannot be written.
pub fn list_policies(out: &mut dyn Write) -> Result<(), SimulateError> {
    let mut text = String::new();
    for info in schedsim_policies::POLICIES {
        let _ = writeln!(text, "{:<14} {}", info.name, info.summary);
        for (option, meaning) in info.options {
            let _ = writeln!(text, "{:<14}   {option}: {meaning}", "");
        }
    }
    let _ = writeln!(
        text,
        "\nA policy is named NAME[:key=value,...], e.g. --policy easy:order=sjf."
    );
    out.write_all(text.as_bytes())
        .map_err(SimulateError::Output)
}

#[cfg(test)]
mod tests {
    use schedsim_sim_core::{Decisions, Policy, View};

    use super::*;
    use schedsim_metrics::summarize;

    #[test]
    fn a_file_is_read_and_normalized_side_by_side_with_errors_in_reading_order() {
        // Written here, then loaded as `simulate -w` loads it: the records
        // parsed on a helper thread, normalized as they come.
        let dir = std::env::temp_dir().join(format!("schedsim-stream-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let line = |number: usize, size: u32| {
            format!("{number} {number} -1 60 {size} -1 -1 {size} 120 -1 1 1 1 -1 1 -1 -1 -1\n")
        };
        let write = |name: &str, header: &str, lines: &[String]| {
            let path = dir.join(name);
            fs::write(&path, format!("{header}{}", lines.concat())).unwrap();
            SimulateArgs {
                workload: Some(path),
                ..SimulateArgs::new()
            }
        };
        let good: Vec<String> = (1..=2_000).map(|n| line(n, 1 + (n % 8) as u32)).collect();
        let args = write("good.swf", "; MaxProcs: 8\n", &good);
        let loaded = load_workload(&args).unwrap();
        assert_eq!(loaded.jobs.len(), 2_000);
        assert_eq!(loaded.records.len(), 2_000);
        assert_eq!(loaded.read_summary.as_ref().unwrap().records, 2_000);
        let WorkloadSource::File { sha256, .. } = &loaded.source else {
            panic!("not a file source")
        };
        assert_eq!(
            sha256,
            &hex(&Sha256::digest(fs::read(args.workload.unwrap()).unwrap()))
        );

        // Strict: a job of 9 processors on 8 cannot be simulated (record
        // 1,500), and line 1,900 (header + 1,898 records + this one) is not
        // a record. Reading the whole file first met the bad line first.
        // The message with its sources, as the command prints it.
        let chain = |error: SimulateError| {
            let mut text = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                text.push_str(&format!(": {cause}"));
                source = cause.source();
            }
            text
        };
        let mut bad = good.clone();
        bad[1_499] = line(1_500, 9);
        bad[1_898] = "not a record\n".to_owned();
        let error = chain(load_workload(&write("bad.swf", "; MaxProcs: 8\n", &bad)).unwrap_err());
        assert!(error.contains("bad.swf:1900:"), "{error}");
        // Without the bad line, the job is the error.
        bad[1_898] = line(1_899, 1);
        let error = chain(load_workload(&write("big.swf", "; MaxProcs: 8\n", &bad)).unwrap_err());
        assert!(error.contains("1500"), "{error}");
        // No machine size is known before any record is normalized; the
        // bad line still comes first.
        bad[1_898] = "not a record\n".to_owned();
        let error = chain(load_workload(&write("nosize.swf", "", &bad)).unwrap_err());
        assert!(error.contains("nosize.swf:1899:"), "{error}");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// An empty file reads as a workload of no job: every command that
    /// reads one says so.
    #[test]
    fn a_file_without_records_is_warned_of() {
        let mut summary = ReadSummary::default();
        let header = Header::default();
        summary.lines = 3;
        summary.comment_lines = 2;
        summary.blank_lines = 1;
        assert_eq!(
            input_warnings(&summary, None, &header),
            ["warning: no job record was read (3 lines: 2 comments, 1 blank)"]
        );
        summary.lines = 5;
        summary.skipped_lines = 2;
        assert_eq!(
            input_warnings(&summary, None, &header),
            ["warning: no job record was read (5 lines: 2 comments, 1 blank, 2 skipped)"]
        );
        summary.records = 1;
        assert!(input_warnings(&summary, None, &header).is_empty());
    }

    /// A rerun replaces the run folder whole: no file of the earlier run
    /// is left beside the new ones, nothing is left beside the folder, and
    /// a folder holding other files is refused untouched.
    #[test]
    fn a_run_folder_is_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("schedsim-runfolder-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let workload = dir.join("w.swf");
        let write_workload = |run_time: u32| {
            let lines: String = (1..=20)
                .map(|n| format!("{n} {n} -1 {run_time} 4 -1 -1 4 120 -1 1 1 1 -1 1 -1 -1 -1\n"))
                .collect();
            fs::write(&workload, format!("; MaxProcs: 8\n{lines}")).unwrap();
        };
        write_workload(60);
        let mut args = SimulateArgs::new();
        args.workload = Some(workload.clone());
        args.out = Some(dir.join("out"));
        args.policies = vec!["easy".into()];
        simulate(&args, &mut Vec::new()).unwrap();
        let easy = dir.join("out").join("easy");
        let first = fs::read(easy.join("summary.json")).unwrap();
        // An earlier run's segments.csv and plots, which the new run does
        // not write, must not be read as its own.
        fs::write(easy.join("segments.csv"), "stale").unwrap();
        fs::create_dir(easy.join("plots")).unwrap();
        fs::write(easy.join("plots").join("waits.svg"), "<svg/>").unwrap();
        let names = |folder: &Path| {
            let mut names: Vec<String> = fs::read_dir(folder)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort_unstable();
            names
        };
        write_workload(90);
        simulate(&args, &mut Vec::new()).unwrap();
        assert_eq!(names(&easy), ["jobs.csv", "schedule.swf", "summary.json"]);
        let second = fs::read(easy.join("summary.json")).unwrap();
        assert_ne!(
            first, second,
            "the second run's summary replaced the first's"
        );
        assert_eq!(
            names(&dir.join("out")),
            ["easy"],
            "no staging or old folder left"
        );
        // What killed writers leave: on this host, a dead process's new run
        // and old run are removed by the next write of `easy`; a live
        // process's (this one's, sequence 999), another host's and another
        // run's are not.
        let out = dir.join("out");
        let host = host_name();
        let dead = u32::MAX; // above any pid Linux hands out (2^22)
        let me = std::process::id();
        let left = [
            format!(".easy.tmp-{host}-{dead}-0"),
            format!(".easy.old0-{host}-{dead}-3"),
        ];
        let kept = [
            format!(".easy.tmp-{host}-{me}-999"),
            format!(".easy.tmp-other-host-{dead}-0"),
            format!(".fcfs.tmp-{host}-{dead}-0"),
            format!(".easy.x.tmp-{host}-{dead}-0"),
        ];
        for name in left.iter().chain(&kept) {
            fs::create_dir(out.join(name)).unwrap();
            fs::write(out.join(name).join("jobs.csv"), "").unwrap();
        }
        simulate(&args, &mut Vec::new()).unwrap();
        let mut expected: Vec<String> = kept.to_vec();
        expected.push("easy".to_owned());
        if !Path::new("/proc/self").exists() {
            expected.extend(left.iter().cloned());
        }
        expected.sort_unstable();
        assert_eq!(names(&out), expected);
        for name in &kept {
            fs::remove_dir_all(out.join(name)).unwrap();
        }
        // A file of the user's would be removed with the run: refused, and
        // the folder is left as it was.
        fs::write(easy.join("notes.txt"), "mine").unwrap();
        let error = simulate(&args, &mut Vec::new()).unwrap_err().to_string();
        assert!(
            error.ends_with("holds files that are not a run's (notes.txt): a new run replaces the folder whole, so move them or give another --out"),
            "{error}"
        );
        assert_eq!(fs::read(easy.join("summary.json")).unwrap(), second);
        // A file where the folder goes is named, and nothing is left.
        fs::remove_dir_all(&easy).unwrap();
        fs::write(&easy, "a file").unwrap();
        let error = simulate(&args, &mut Vec::new()).unwrap_err();
        let cause = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(
            cause,
            Some(format!("{} is not a folder", easy.display())),
            "{error}"
        );
        assert_eq!(names(&dir.join("out")), ["easy"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A pipe read by the hash and the parser at once split its bytes
    /// between them: a file whose 64 KiB boundary fell on a line ran 0 jobs
    /// with exit 0. Such inputs are refused before either reads.
    #[test]
    fn a_pipe_or_standard_input_is_refused_before_any_read() {
        let refused = |path: &str| {
            let args = SimulateArgs {
                workload: Some(PathBuf::from(path)),
                ..SimulateArgs::new()
            };
            let load = load_workload(&args).map(|_| ()).unwrap_err().to_string();
            let read = read_workload(&args).map(|_| ()).unwrap_err().to_string();
            assert_eq!(load, read);
            load
        };
        let error = refused("-");
        assert!(
            error.starts_with("- is standard input, not a regular file"),
            "{error}"
        );
        // /dev/null is a character device: refused rather than read as an
        // empty workload.
        if Path::new("/dev/null").exists() {
            let error = refused("/dev/null");
            assert!(error.contains("is a character device"), "{error}");
        }
        let dir = std::env::temp_dir().join(format!("schedsim-fifo-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("w.swf");
        // No writer ever opens it: a read would block, so the test also
        // shows nothing opens it before refusing.
        match std::process::Command::new("mkfifo").arg(&fifo).status() {
            Ok(status) if status.success() => {
                let error = refused(fifo.to_str().unwrap());
                assert!(
                    error.contains("w.swf is a pipe (FIFO), not a regular file"),
                    "{error}"
                );
                assert!(
                    error.ends_with("save it to a file and give that"),
                    "{error}"
                );
            }
            _ => eprintln!("skipped the FIFO case: mkfifo is not available"),
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_writes_replace_and_leave_no_temporary() {
        let dir = std::env::temp_dir().join(format!("schedsim-atomic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("jobs.csv");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["jobs.csv"]);
        // A folder in the way: the write fails and nothing is left behind.
        fs::create_dir_all(dir.join("summary.json")).unwrap();
        assert!(write_atomically(&dir.join("summary.json"), b"{}").is_err());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Rejects job 3, suspends job 1 at 10 and resumes it at 30; FCFS
    /// otherwise (but it starts nothing at 10 and 30).
    struct Lifecycle;

    impl Policy for Lifecycle {
        fn name(&self) -> &str {
            "lifecycle"
        }

        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            match view.now() {
                10 => {
                    decisions.suspend(JobId(0));
                    decisions.wake_at(30);
                }
                30 => decisions.resume(JobId(0)),
                _ => {}
            }
            for &id in view.queue() {
                if view.job(id).number == 3 {
                    decisions.reject(id, "no deadline can be met");
                } else if ![10, 30].contains(&view.now()) && view.job(id).size <= view.free() {
                    decisions.start(id);
                }
            }
        }
    }

    fn record(number: u64, submit: u64, size: u64, runtime: u64) -> Record {
        Record {
            submit_time: Some(submit),
            run_time: Some(runtime),
            requested_processors: Some(size),
            requested_time: Some(runtime),
            ..Record::unknown(number)
        }
    }

    /// `records` on a machine of `procs` processors, loaded as the file
    /// `name` would be.
    fn load(name: &str, procs: u32, records: Vec<Record>) -> LoadedWorkload {
        let mut header = Header::new();
        header.add("MaxProcs", procs.to_string()).unwrap();
        let mut args = SimulateArgs::new();
        args.workload = Some(PathBuf::from(name));
        let source = WorkloadSource::File {
            path: PathBuf::from(name),
            sha256: String::new(),
        };
        prepare_workload(&args, source, Workload::new(header, records), None).unwrap()
    }

    /// The run's metrics and group report, read from the job set and the
    /// schedule one job at a time, equal those of the copied jobs, bit for
    /// bit, with users, jobs out of number order and overlapping waits.
    #[test]
    fn metrics_from_the_schedule_equal_metrics_from_a_copy() {
        let records: Vec<Record> = (0..60u64)
            .map(|n| Record {
                user_id: Some(n % 7),
                requested_time: Some(100 + n * 13 % 400),
                ..record(1000 - n, n * 17 / 3, 1 + n * 5 % 8, 10 + n * 37 % 300)
            })
            .collect();
        let loaded = load("users.swf", 8, records);
        let config = MetricsConfig::new(8);
        let run = run_policy(&loaded.jobs, &"easy".parse().unwrap(), &config).unwrap();
        let completed = completed_jobs(&loaded.jobs, &run.schedule);
        let copied = summarize(&completed, &config).unwrap();
        assert_eq!(run.metrics, copied);
        assert!(run.metrics.wait.is_some_and(|wait| wait.mean > 0.0));
        let groups = group_report(&loaded.jobs, &completed[..]).unwrap();
        assert!(groups.is_some());
        assert_eq!(run.groups, groups);
    }

    #[test]
    fn rejected_and_suspended_jobs_in_the_outputs() {
        // 4 processors. Job 1 (4 procs, 50 s) runs 0..10, is suspended at 10
        // (no overhead) and resumed at 30: 30..70. Job 2 (2 procs, 20 s)
        // arrives at 10 and waits (the policy starts nothing at 10), starts
        // at 70. Job 3 is rejected at 5.
        let loaded = load(
            "test.swf",
            4,
            vec![
                record(1, 0, 4, 50),
                record(3, 5, 1, 10),
                record(2, 10, 2, 20),
            ],
        );
        let schedule = simulate_with(&loaded.jobs, &mut Lifecycle, &SimOptions::default()).unwrap();
        let jobs = jobs_csv(&loaded, &schedule, 10);
        let rows: Vec<&str> = jobs.lines().collect();
        // Job 1: 0..70 as one row (execution 70 of wall time, 40 of it
        // running), response 70 / runtime 50 held = stretch 1.4.
        assert_eq!(
            rows[1],
            "1,test,delay,0,4,50,1,COMPLETED_SUCCESSFULLY,0,70,70,0,70,1.4,0-3,-1,,1.4"
        );
        assert_eq!(rows[2], "3,test,delay,5,1,10,0,REJECTED,,,,,,,,-1,,");
        assert_eq!(
            rows[3],
            "2,test,delay,10,2,20,1,COMPLETED_SUCCESSFULLY,70,20,90,60,80,4,0-1,-1,,4"
        );
        // schedule.swf: job 3 rejected (status 5, no wait, run time or
        // processors); job 1 completed (status 1) with its 70 s of wall time.
        let run = PolicyRun {
            spec: "fcfs".parse().unwrap(),
            name: "lifecycle".to_owned(),
            metrics: summarize(
                &completed_jobs(&loaded.jobs, &schedule),
                &MetricsConfig::new(4),
            )
            .unwrap(),
            schedule: schedule.clone(),
            split: None,
            elapsed: Duration::ZERO,
            warnings: Vec::new(),
            counters: Vec::new(),
            groups: None,
            deadlines: None,
        };
        let swf = schedule_swf(&loaded, &run);
        assert!(swf.contains("; MaxJobs: 3\n; MaxRecords: 3\n"), "{swf}");
        assert!(swf.contains("\n3 5 -1 -1 -1 -1 -1 1 10 -1 5 "), "{swf}");
        assert!(swf.contains("\n1 0 0 70 4 -1 -1 4 50 -1 1 "), "{swf}");
        assert_eq!(
            segments_csv(&loaded, &schedule),
            "job_id,job_index,segment,start,end,allocated_resources\n\
             1,0,0,0,10,0-3\n1,0,1,30,70,0-3\n2,2,0,70,90,0-1\n"
        );
        // The rejected job is out of the metrics.
        let completed = completed_jobs(&loaded.jobs, &schedule);
        assert_eq!(completed.len(), 2);
        assert_eq!((completed[0].suspended, completed[0].suspensions), (20, 1));
    }

    /// `count` jobs of 1 processor submitted `gap` seconds apart, each
    /// working `work` s with estimate `estimate`, under FCFS on 1 processor.
    fn warnings_of(count: u64, gap: u64, work: u64, estimate: u64) -> Vec<String> {
        fcfs_warnings(
            (0..count)
                .map(|n| Record {
                    requested_time: Some(estimate),
                    ..record(n + 1, n * gap, 1, work)
                })
                .collect(),
        )
    }

    /// The warnings of FCFS on 1 processor.
    fn fcfs_warnings(records: Vec<Record>) -> Vec<String> {
        let loaded = load("w.swf", 1, records);
        let run = run_policy(
            &loaded.jobs,
            &"fcfs".parse().unwrap(),
            &MetricsConfig::new(1),
        )
        .unwrap();
        run.warnings
    }

    #[test]
    fn warnings_for_killed_jobs_and_saturation() {
        // 10 jobs of 10 s, 20 s apart: offered load 100 / (1 x 180) = 0.556,
        // utilization 100 / (1 x 190) = 0.526 >= 0.9 x 0.556: no warning.
        assert!(warnings_of(10, 20, 10, 10).is_empty());
        // 5 s apart: offered load 100 / 45 = 2.22, utilization 100 / 100 =
        // 1.0 < 0.9 x 2.22, and the last job starts at 90, 45 s after the
        // last arrival (100% of the 45 s span > 10%): saturated.
        let saturated = warnings_of(10, 5, 10, 10);
        assert_eq!(saturated.len(), 1);
        assert!(saturated[0].starts_with(
            "the machine is saturated: utilization 1.000 against an offered load of 2.222"
        ));
        // Work 20 s, estimate 10 s: every job killed at its estimate (100% >
        // 5%); 40 s apart, not saturated.
        let killed = warnings_of(10, 40, 20, 10);
        assert_eq!(killed.len(), 1);
        assert!(
            killed[0].starts_with("10 of 10 jobs (100.0%) ran past their estimate"),
            "{killed:?}"
        );
        assert!(killed[0].contains("--overrun extend"));
        // Killed at 10 s, 5 s apart, as the saturated run: both, the killed
        // jobs first.
        let both = warnings_of(10, 5, 20, 10);
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(both[0].starts_with("10 of 10 jobs (100.0%)"), "{both:?}");
        assert!(both[1].starts_with("the machine is saturated"), "{both:?}");
    }

    #[test]
    fn workload_names_drop_the_format_extension_in_any_case() {
        let name = |file: &str| {
            workload_name(&WorkloadSource::File {
                path: PathBuf::from("traces").join(file),
                sha256: String::new(),
            })
        };
        assert_eq!(name("KTH.swf.gz"), "KTH");
        assert_eq!(name("KTH.SWF.GZ"), "KTH");
        assert_eq!(name("w.jsonl"), "w");
        assert_eq!(name("w.Json"), "w");
        // Only the last extension is the format's.
        assert_eq!(name("w.json.swf"), "w.json");
        assert_eq!(name("w.txt"), "w.txt");
        assert_eq!(name("a b,c.cwf"), "a_b_c");
    }

    #[test]
    fn the_console_names_drop_reasons_and_deadlines_for_no_job() {
        let dir = std::env::temp_dir().join(format!("schedsim-drops-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        // Jobs 1 and 2 are kept; 3 and 4 have no runtime (field 4 = -1),
        // 5 no size (fields 5 and 8 = -1): 3 dropped (1 no size, 2 no
        // runtime: the reasons in Rejection's order).
        let line = |number: u32, run: i64, size: i64| {
            format!("{number} {number} -1 {run} {size} -1 -1 {size} 100 -1 1 1 1 -1 1 -1 -1 -1\n")
        };
        let workload = dir.join("w.swf");
        fs::write(
            &workload,
            format!(
                "; MaxProcs: 4\n{}{}{}{}{}",
                line(1, 10, 1),
                line(2, 10, 2),
                line(3, -1, 1),
                line(4, -1, 1),
                line(5, 10, -1)
            ),
        )
        .unwrap();
        // A deadline for job 1 and one for job 99999, not in the workload.
        let deadlines = dir.join("d.csv");
        fs::write(
            &deadlines,
            "job_number,deadline_after_submit,kind\n1,100,user\n99999,100,user\n",
        )
        .unwrap();
        let mut args = SimulateArgs {
            workload: Some(workload),
            policies: vec!["easy".into()],
            lenient: true,
            deadlines: Some(deadlines),
            ..SimulateArgs::new()
        };
        let console = |args: &SimulateArgs| {
            let mut out = Vec::new();
            simulate(args, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let text = console(&args);
        assert!(
            text.contains("2 jobs simulated, 3 dropped (1 no size, 2 no runtime), "),
            "{text}"
        );
        assert!(
            text.contains(
                "\ndeadlines: 1 job with one; 1 deadline for no job of the workload (ignored)\n"
            ),
            "{text}"
        );
        // Without the deadline file: no deadline line; nothing dropped
        // without the bad records reads `0 dropped`.
        args.deadlines = None;
        assert!(!console(&args).contains("deadlines:"));
        fs::write(
            args.workload.as_ref().unwrap(),
            format!("; MaxProcs: 4\n{}", line(1, 10, 1)),
        )
        .unwrap();
        assert!(console(&args).contains("1 jobs simulated, 0 dropped, "));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_long_last_job_is_no_saturation() {
        // 10 jobs 20 s apart, the last one working 1,000 s: offered load
        // (9 x 10 + 1,000) / (1 x 180) = 6.06, utilization 1,090 / 1,180 =
        // 0.92 < 0.9 x 6.06, but every job starts on arrival (the last at
        // 180, 0 s after the last arrival): no queue outlasted the arrivals.
        let records: Vec<Record> = (0..10)
            .map(|n| {
                let work = if n == 9 { 1000 } else { 10 };
                Record {
                    requested_time: Some(work),
                    ..record(n + 1, n * 20, 1, work)
                }
            })
            .collect();
        let warnings = fcfs_warnings(records);
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}

#[cfg(test)]
mod slurm_tests {
    use super::*;

    #[test]
    fn slurm_files_go_to_the_slurm_policies_with_their_warnings() {
        let dir = std::env::temp_dir().join(format!("schedsim-slurm-conf-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let conf = dir.join("slurm.conf");
        fs::write(
            &conf,
            "PriorityWeightFairshare=100\nPriorityWeightAge=10\nNodeName=a CPUs=4\n",
        )
        .unwrap();
        let mut args = SimulateArgs::new();
        args.slurm_conf = Some(conf.clone());
        args.policies = vec!["easy".into(), "easy:order=multifactor".into()];
        let mut specs: Vec<PolicySpec> = args.policies.iter().map(|p| p.parse().unwrap()).collect();
        let warnings = apply_slurm_files(&args, &mut specs).unwrap();
        assert_eq!(specs[0].to_string(), "easy");
        assert_eq!(
            specs[1].to_string(),
            format!("easy:order=multifactor,conf={}", conf.display())
        );
        // Fair-share without NO_FAIR_TREE: the loud warning first, then the
        // key not modelled.
        assert_eq!(warnings.len(), 2);
        assert!(warnings[0].contains("CLASSIC"), "{warnings:?}");
        assert!(warnings[1].ends_with(":3: NodeName ignored (not modelled by the simulation)"));
        // A run: the built-in workload under both.
        let outcome = simulate(&args, &mut Vec::new()).unwrap();
        assert!(
            outcome.runs[0]
                .warnings
                .iter()
                .all(|w| !w.contains("CLASSIC"))
        );
        assert!(
            outcome.runs[1]
                .warnings
                .iter()
                .any(|w| w.contains("CLASSIC"))
        );
        // No Slurm policy: the file would be silently unused.
        args.policies = vec!["easy".into()];
        let error = simulate(&args, &mut Vec::new()).unwrap_err();
        assert!(matches!(
            error,
            SimulateError::SlurmFileUnused("--slurm-conf")
        ));
        // A bad value names file, line, key and value.
        fs::write(&conf, "PriorityWeightAge=-1\n").unwrap();
        args.policies = vec!["slurm-backfill".into()];
        let error = simulate(&args, &mut Vec::new()).unwrap_err();
        let SimulateError::SlurmConf(source) = error else {
            panic!("{error}");
        };
        assert_eq!(
            source.to_string(),
            format!(
                "{}:1: PriorityWeightAge=-1: out of range: 0 to 4294967295",
                conf.display()
            )
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}

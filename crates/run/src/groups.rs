//! User groups, per-group AWRT, UTIL and the objective of Franke, Lepping
//! and Schwiegelshohn ("Greedy scheduling with complex objectives",
//! CI-Sched 2007, section IV) for a run, and the Ernemann scaling of a trace
//! to a larger machine (`--scale-to`).

use std::io::{self, Write};

use schedsim_metrics::{
    CompletedJobTable, GroupError, GroupMetrics, GroupRule, GroupShare, Objective, UserGroups,
    group_metrics_table,
};
use schedsim_sim_core::{JobSet, MachineScaling, ScaleReport, scale_machine};
use serde::Serialize;
use workload_format::Workload;

use crate::simulate::{PolicyRun, SimulateArgs, SimulateError};

/// A run's user groups and their metrics (summary.json's `user_groups`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupReport {
    /// Each group's users, jobs and share of the work (Table II), from the
    /// whole workload: run time as simulated (after the overrun rule) x
    /// processors, the same table the `greedy` policy uses.
    pub shares: Vec<GroupShare>,
    /// Per-group AWRT (eq. 7), AWRT (eq. 6) and UTIL (eq. 5) of the
    /// schedule, over every job that ran.
    pub metrics: GroupMetrics,
}

/// The objective's value for a run (summary.json's `objective`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectiveValue {
    /// The expression, e.g. `10 * AWRT1 + 4 * AWRT2`.
    pub expression: String,
    /// Its value; `None` when a metric it uses is undefined.
    pub value: Option<f64>,
    /// Why it is undefined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
}

impl ObjectiveValue {
    /// `objective` evaluated on `groups`.
    pub fn of(objective: &Objective, groups: &GroupReport) -> Self {
        let (value, undefined) = match objective.evaluate(&groups.metrics) {
            Ok(value) => (Some(value), None),
            Err(error) => (None, Some(error.to_string())),
        };
        Self {
            expression: objective.to_string(),
            value,
            undefined,
        }
    }
}

/// The user -> group table (Table II) of a job set: each user's share of
/// `sum runtime x size`; `None` when no job names a user (generated
/// workloads).
///
/// # Errors
/// Work beyond 64 bits.
pub fn user_groups(jobs: &JobSet) -> Result<Option<UserGroups>, GroupError> {
    if jobs.jobs().iter().all(|job| job.user().is_none()) {
        return Ok(None);
    }
    let work = jobs
        .jobs()
        .iter()
        .map(|job| (job.user(), job.runtime.max(0) as u64, job.size));
    UserGroups::from_work(work, &GroupRule::paper()).map(Some)
}

/// The group report of a schedule's completed jobs, or `None` when the
/// workload has no users.
///
/// # Errors
/// Inconsistent jobs or work beyond 64 bits.
pub fn group_report<T: CompletedJobTable + ?Sized>(
    jobs: &JobSet,
    completed: &T,
) -> Result<Option<GroupReport>, GroupError> {
    let Some(table) = user_groups(jobs)? else {
        return Ok(None);
    };
    let metrics = group_metrics_table(completed, &table, jobs.model().procs)?;
    Ok(Some(GroupReport {
        shares: table.shares(),
        metrics,
    }))
}

/// `--scale-to`: the records scaled from `procs` to the target machine
/// (Ernemann et al.; see [`schedsim_sim_core::scale_machine`]), the header's
/// MaxProcs and MaxNodes set to it. `None` without `--scale-to`.
///
/// # Errors
/// Bad settings (a target below the trace's machine, an adjustment below
/// 1, a job count `--scale-jobs` cannot reach).
pub(crate) fn scale_workload(
    args: &SimulateArgs,
    workload: &mut Workload,
    procs: u64,
) -> Result<Option<ScaleReport>, SimulateError> {
    let Some(target) = args.scale_to else {
        return Ok(None);
    };
    let mut scaling = MachineScaling::new(procs, u64::from(target))
        .with_seed(args.scale_seed)
        .with_duplicate_fraction(args.scale_duplicates)
        .with_adjustment(args.scale_adjustment);
    if let Some(jobs) = args.scale_jobs {
        scaling = scaling.with_adjustment(scaling.adjustment_for_jobs(&workload.records, jobs)?);
    }
    let (records, report) = scale_machine(&workload.records, &scaling)?;
    workload.records = records;
    workload.header.set("MaxProcs", target)?;
    if workload.header.get("MaxNodes").is_some() {
        workload.header.set("MaxNodes", target)?;
    }
    Ok(Some(report))
}

/// The per-group table of `simulate`'s report: users per group and each
/// run's AWRT_1..5, UTIL and objective.
pub(crate) fn report_groups(
    args: &SimulateArgs,
    runs: &[PolicyRun],
    width: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some(first) = runs.iter().find_map(|run| run.groups.as_ref()) else {
        return Ok(());
    };
    writeln!(out)?;
    let users: Vec<String> = first.shares.iter().map(|s| s.users.to_string()).collect();
    let shares: Vec<String> = first
        .shares
        .iter()
        .map(|s| format!("{:.1}%", 100.0 * s.share))
        .collect();
    writeln!(
        out,
        "user groups (Franke et al., Table II): users {} ; work {}",
        users.join("/"),
        shares.join("/")
    )?;
    write!(out, "{:<width$}", "policy")?;
    for share in &first.shares {
        write!(out, " {:>9}", format!("AWRT{}", share.group))?;
    }
    writeln!(out, " {:>6} {:>12}", "UTIL", "objective")?;
    // Why an objective is `-`, with the policies it is `-` for, in the
    // runs' order: an objective naming a group the workload does not have
    // would otherwise be `-` without a word.
    let mut undefined: Vec<(String, Vec<String>)> = Vec::new();
    for run in runs {
        let Some(groups) = &run.groups else { continue };
        write!(out, "{:<width$}", run.spec.to_string())?;
        for stats in &groups.metrics.groups {
            match stats.awrt {
                Some(awrt) => write!(out, " {awrt:>9.0}")?,
                None => write!(out, " {:>9}", "-")?,
            }
        }
        let util = groups
            .metrics
            .util
            .map_or("-".to_owned(), |u| format!("{:.2}%", 100.0 * u));
        let value = ObjectiveValue::of(&args.objective, groups);
        if let Some(why) = value.undefined {
            match undefined.iter_mut().find(|(known, _)| *known == why) {
                Some((_, policies)) => policies.push(run.spec.to_string()),
                None => undefined.push((why, vec![run.spec.to_string()])),
            }
        }
        let objective = value.value.map_or("-".to_owned(), |v| format!("{v:.0}"));
        writeln!(out, " {util:>6} {objective:>12}")?;
    }
    for (why, policies) in &undefined {
        writeln!(
            out,
            "objective undefined for {}: {why}",
            policies.join(", ")
        )?;
    }
    writeln!(
        out,
        "AWRTk = response weighted by size x runtime over group k's jobs (eq. 7), seconds; UTIL = \
         work / (procs x (last end - first start)) (eq. 5); objective = {}",
        args.objective
    )
}

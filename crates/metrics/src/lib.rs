//! Scheduling metrics for parallel job schedules: per job (wait, response,
//! slowdown, bounded slowdown) and per run (their distributions,
//! utilization, makespan, offered load, AWRT, queue length over time, and a
//! breakdown by runtime and size class).
//!
//! The input is plain data, [`CompletedJob`] (submit, start, finish,
//! processors), so the crate serves any scheduler's output, a simulator's
//! or a real system's log. [`summarize_table`] computes the same metrics
//! from jobs built one at a time ([`CompletedJobTable`]), so that a
//! simulator with millions of jobs needs no copy of them.
//!
//! ```
//! use schedsim_metrics::{CompletedJob, MetricsConfig, summarize};
//!
//! // A 4-processor machine. Job A: 2 processors, submitted at 0, runs
//! // 0..10. Job B: 4 processors, submitted at 0, waits for A, runs 10..20.
//! let jobs = [
//!     CompletedJob::new(0, 0, 10, 2),
//!     CompletedJob::new(0, 10, 20, 4),
//! ];
//! let run = summarize(&jobs, &MetricsConfig::new(4))?;
//! // Waits 0 and 10: mean 5.
//! assert_eq!(run.wait.unwrap().mean, 5.0);
//! // Utilization = (2*10 + 4*10) / (makespan 20 * 4 processors) = 0.75.
//! assert_eq!(run.utilization, 0.75);
//! # Ok::<(), schedsim_metrics::MetricsError>(())
//! ```
//!
//! Definitions (LOS thesis section 1.1 unless noted):
//! - wait = start - submit; response = finish - submit; runtime = finish -
//!   start - time suspended (a time-sharing policy's job holds its
//!   processors only between suspensions);
//! - slowdown = response / max(runtime, 1 s) (the 1 s floor keeps jobs
//!   of zero runtime finite);
//! - bounded slowdown = max(response / max(runtime, tau), 1), tau = 10 s by
//!   default;
//! - utilization = sum(procs x runtime) / (makespan x N), makespan = last
//!   finish - first submit;
//! - offered load = sum(procs x runtime) / (N x span), span = last submit -
//!   first submit (the convention of the whole workspace: scaling all
//!   arrival times by f divides it by exactly f);
//! - AWRT = sum(procs x runtime x response) / sum(procs x runtime)
//!   (response weighted by resource consumption, as in Schwiegelshohn and
//!   Yahyapour);
//! - queue length q(t) = jobs submitted but not started at t, after all
//!   submissions and starts of instant t; its time-weighted mean is taken
//!   over [first submit, last finish];
//! - percentiles use the nearest-rank method: the p-th percentile of n
//!   sorted values is the value of rank ceil(p x n); the median is the 50th
//!   percentile;
//! - mean-based slowdown = (mean wait + mean runtime) / mean runtime, the
//!   definition of Kumar et al. (Delayed-LOS paper), reported next to ours;
//! - for workloads with dedicated jobs (a requested start time, CWF field
//!   19): the delay of a dedicated job = max(0, start - requested start),
//!   summarized by [`summarize_split`] as its mean, its maximum and the
//!   number of jobs delayed, next to the metrics of the batch and the
//!   dedicated jobs apart.
//!
//! User groups (Franke, Lepping and Schwiegelshohn, CI-Sched 2007, section
//! IV): [`UserGroups`] puts each user in a group by its share of the total
//! resource consumption (sum of run time x processors; Table II: above 8%,
//! 2-8%, 1-2%, 0.1-1%, below 0.1%, boundaries in [`GroupRule::paper`]);
//! [`group_metrics`] gives AWRT per group (eq. 7, weighted by resource
//! consumption), AWRT (eq. 6) and UTIL from the first start to the last end
//! (eq. 5) over [`CompletedJob`]s with a user (or a table of them,
//! [`group_metrics_table`]); an [`Objective`] such as the paper's
//! `10 * AWRT1 + 4 * AWRT2` (eq. 8) is parsed from text and evaluated on them.
//!
//! Warm-up and drain: [`MetricsConfig::warmup`] and
//! [`MetricsConfig::drain`] exclude the first and last fractions of jobs (in
//! submit order) from the per-job statistics (wait, response, slowdowns,
//! AWRT, classes), where the machine is filling up or emptying. Utilization,
//! makespan, offered load and queue length always cover every job.
#![warn(missing_docs)]

mod compare;
mod dedicated;
mod groups;
mod objective;
mod radix;
mod summary;

pub use compare::{CompareConfig, Comparison, Differential, compare};
pub use dedicated::{DedicatedDelay, SplitMetrics, summarize_split};
pub use groups::{
    GroupError, GroupMetrics, GroupRule, GroupShare, GroupStats, Threshold, UserGroups, UserShare,
    group_metrics, group_metrics_table,
};
pub use objective::{Objective, ObjectiveError, ObjectiveMetric};
pub use summary::{
    ClassBounds, ClassStats, CompletedJob, CompletedJobTable, JobMetrics, MetricsConfig,
    MetricsError, QueueLength, RunMetrics, RuntimeClass, RuntimeClassStats, RuntimeClasses,
    SizeClass, Summary, SuspensionStats, TIME_LIMIT, job_metrics, summarize, summarize_table,
};

/// Compiles and runs the README's example as a doctest, so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

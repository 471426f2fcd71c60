//! Run schedsim simulations from a program: the one library API that the
//! `schedsim` command, the sweeps (`schedsim-sweep`) and the Python package
//! share.
//!
//! A run is: load a workload (a SWF/CWF file, the built-in Lublin-Feitelson
//! workload, or records you generated) and prepare it for a machine
//! ([`load_workload`], [`prepare_workload`], [`prepare_packed`]: load
//! change, estimates, deadlines, the log's calendar; the records are kept
//! packed, [`PackedRecords`](workload_format::PackedRecords), for
//! schedule.swf), run policies on it ([`run_policy_with`]:
//! the schedule, its metrics and warnings), and write a run folder
//! ([`write_run`]: jobs.csv in Batsim's layout, schedule.swf, summary.json,
//! segments.csv, each streamed to a temporary name and renamed) that
//! [`RunDir`] reads back. [`simulate`] does all of it and
//! prints the comparison table, as `schedsim simulate` does. The settings
//! are [`SimulateArgs`], the command's own arguments.
//!
//! ```
//! use schedsim_run::{SimulateArgs, load_workload, metrics_config, run_policy_with};
//!
//! let dir = std::env::temp_dir().join(format!("schedsim-run-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let file = dir.join("tiny.swf");
//! // 4 processors: job 1 takes 2 for 100 s, job 2 all 4 for 100 s.
//! std::fs::write(&file, "; MaxProcs: 4\n\
//!     1 0 -1 100 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
//!     2 5 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n")?;
//! let mut args = SimulateArgs::new();
//! args.workload = Some(file);
//! let loaded = load_workload(&args)?;
//! let config = metrics_config(&args, loaded.jobs.model().procs);
//! let run = run_policy_with(&loaded.jobs, &"easy".parse()?, &config, &args.sim_options())?;
//! // Job 2 waits for job 1: (0 + 95) / 2.
//! assert_eq!(run.metrics.wait.unwrap().mean, 47.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The charts ([`line_chart`], [`gantt`], [`run_curves`]) are SVG drawn with
//! plotters into strings, so the same run always writes the same bytes.
#![warn(missing_docs)]

mod deadlines;
mod figure;
mod file_lock;
mod groups;
mod input;
mod plot;
mod progress;
mod run_dir;
mod simulate;
mod simulate_split;
mod stream;
mod whole_number;

pub use deadlines::{
    DeadlineKindReport, DeadlineMakeError, DeadlineParams, DeadlineReport, deadline_report,
    deadlines_csv, make_deadlines,
};
pub use figure::{AUTO_LOG_RATIO, AxisScale, AxisUnit, FIGURE_WIDTH, Marker, PALETTE, SeriesLook};
pub use file_lock::{FileLock, LockAttempt, lock_file, lock_holder, try_lock_file};
pub use groups::{GroupReport, ObjectiveValue, group_report, user_groups};
pub use input::{WorkloadFileError, WorkloadInput, is_batsim_json, open_workload};
pub use plot::{
    BUCKETS, GanttColor, LineChart, PlotError, Series, SeriesStyle, gantt, line_chart,
    queue_length_series, run_curves, started_out_of_order, utilization_series, wait_cdf,
};
pub use progress::Progress;
pub use run_dir::{RunDir, RunDirError, RunJob};
pub use simulate::{
    BUILTIN_ESTIMATE_F, BUILTIN_JOBS, BUILTIN_LOAD, BUILTIN_NODES, BUILTIN_SEED, DEFAULT_POLICIES,
    EarlyRequestedStarts, Ends, Estimates, Invoke, KILLED_WARNING_SHARE, LoadedWorkload, Order,
    Overrun, PolicyRun, SATURATION_WARNING_BACKLOG, SATURATION_WARNING_RATIO, SimulateArgs,
    SimulateError, SimulateOutcome, UnusableCommands, WorkloadSource, apply_slurm_files,
    builtin_params, completed_jobs, create_folder, host_name, input_warnings, jobs_csv,
    list_policies, load_workload, metrics_config, plural, positive_number, prepare_packed,
    prepare_workload, read_workload, repeated_job_numbers, repeated_job_numbers_in, rounded_values,
    run_policy, run_policy_object, run_policy_with, run_warnings, segments_csv, simulate,
    simulate_observed, summary_json, workload_notes, write_atomically, write_atomically_with,
    write_jobs_csv, write_run,
};
pub use whole_number::{Whole, whole_number, whole_number_in};

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

//! The discrete-event core of schedsim: a machine of N processors, rigid
//! jobs normalized from SWF/CWF records, an event loop, and the interface
//! through which scheduling policies decide what starts.
//!
//! Time is integer seconds ([`Time`]). Events are ordered by (time, kind,
//! sequence number): at one timestamp, job ends are applied before arrivals
//! (see [`EventKind`]), then the [`Policy`] is called once with a read-only
//! [`View`] and returns [`Decisions`], which the core validates: a decision
//! that starts an unknown or running job or over-allocates the machine is
//! an error, never silently ignored.
//!
//! ```
//! use schedsim_sim_core::{Decisions, Job, JobId, JobModel, JobSet, Policy, View, simulate};
//!
//! /// First come, first served: start queue-head jobs while they fit.
//! struct Fcfs;
//!
//! impl Policy for Fcfs {
//!     fn name(&self) -> &str {
//!         "fcfs"
//!     }
//!
//!     fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
//!         let mut free = view.free();
//!         for &id in view.queue() {
//!             let size = view.job(id).size;
//!             if size > free {
//!                 break;
//!             }
//!             free -= size;
//!             decisions.start(id);
//!         }
//!     }
//! }
//!
//! let job = |number, submit, size, runtime| Job::new(number, submit, size, runtime, runtime);
//! // A 4-processor machine; job 2 needs 3 processors and waits for job 1.
//! let jobs = JobSet::from_jobs(
//!     vec![job(1, 0, 2, 10), job(2, 5, 3, 10), job(3, 6, 1, 1)],
//!     &JobModel::new(4),
//! )?;
//! let schedule = simulate(&jobs, &mut Fcfs)?;
//! assert_eq!(schedule.start(JobId(1)), 10);
//! // FCFS: job 3 fits at 6 but waits behind job 2.
//! assert_eq!(schedule.start(JobId(2)), 10);
//! assert_eq!(schedule.allocation(JobId(1))[0].to_string(), "0-2");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Jobs come from workload records through a [`JobModel`] whose
//! normalization rules (size, estimate, runtime beyond the estimate,
//! invalid jobs) are documented there and counted in [`Normalization`].
//! Before that, [`change_load`] can bring the records to a target offered
//! load ([`offered_load`]) by scaling arrival times (LOS thesis) or adding
//! seeded duplicates or expansions of random jobs (QoPS paper); see
//! [`LoadMethod`].
//!
//! Beyond rigid batch jobs, the Cloud Workload Format (CWF) adds dedicated
//! jobs, which must start at a requested time, and elastic control commands
//! (ET/RT) that change a job's kill-by time while it waits or runs. A policy
//! opts in through [`Policy::capabilities`]; otherwise dedicated jobs are
//! scheduled as batch jobs and commands are ignored, both counted in
//! [`RunStats`].
//!
//! ## The job lifecycle
//!
//! A job arrives, waits, and then either runs or is rejected
//! ([`Decisions::reject`]: admission control, as in QoPS). A running job
//! can be suspended ([`Decisions::suspend`]) and resumed
//! ([`Decisions::resume`]) on exactly the processors it had, paying a
//! [`SwitchOverhead`] each way (time sharing, as in SCOJO-PECT); a job can
//! also be started on processors the policy names ([`Decisions::start_on`]).
//! [`JobState`] names every state; the [`View`] shows which processors are
//! free and which a suspended job needs. A job's estimate counts run time,
//! not wall time, and elastic commands change both its kill-by time and its
//! work (see [`simulate_with`]'s docs). The [`Schedule`] keeps each job's run
//! [`Segment`]s and its Batsim [`FinalState`].
//!
//! Jobs carry their workload attributes (user, group, executable, queue,
//! partition) and an optional [`Deadline`] held relative to the submit
//! time, read from a side file ([`Deadlines`]) so SWF and CWF stay
//! standard.
//!
//! ## Driving the loop yourself
//!
//! [`simulate`] and [`simulate_with`] run a [`Policy`] to the end. A driver
//! outside Rust's trait (a Python policy, a reinforcement-learning
//! environment) uses [`Simulation`]: advance to the next decision point,
//! look at the view, apply decisions. [`SimOptions`] choose when the policy
//! is called ([`Invocation`]: once per timestamp, or after every event as
//! the LOS thesis and pyss do) and how simultaneous events are ordered.
#![warn(missing_docs)]

mod calendar;
mod deadline;
mod engine;
mod error;
mod fit_index;
mod job;
mod load;
mod machine;
mod policy;
mod profile;
mod scale_machine;
mod state;

pub use calendar::{Calendar, CalendarError, LocalTime};
pub use deadline::{DEADLINES_HEADER, DeadlineFileError, Deadlines};
pub use engine::{
    EventKind, EventOrder, FinalState, Invocation, RejectedJob, RunStats, Schedule, Segment,
    Segments, SimOptions, Simulation, SimultaneousEnds, SwitchOverhead, simulate, simulate_with,
};
pub use error::{JobModelError, SimError};
pub use job::{
    Change, CommandRejection, Deadline, DeadlineKind, ElasticCommand, EstimateSource, Job, JobId,
    JobModel, JobSet, Normalization, OverrunRule, Rejection, Strictness,
};
pub use load::{
    LoadChange, LoadError, LoadMethod, MAX_LOAD_PICKS, OfferedLoad, change_load, offered_load,
};
pub use machine::ProcRange;
pub use policy::{Action, Capabilities, Decisions, Policy, RunningJob, View, ViewStorage};
pub use profile::{AvailabilityProfile, Checkpoint, ProfileError};
pub use scale_machine::{
    Calibration, CalibrationError, MAX_SCALED_RECORDS, MachineScaling, ScaleError, ScaleReport,
    calibrate_adjustment, scale_machine,
};
pub use state::JobState;

/// Simulated time: integer seconds since the workload's start.
pub type Time = i64;

/// The largest time, in seconds, a workload may hold: 2^53 s (about 285
/// million years; see [`workload_format::MAX_TIME`]). Workload readers
/// refuse larger times, and hand-made jobs are checked against it.
pub const MAX_TIME: Time = 1 << 53;

/// The latest a workload's jobs may end if run one after another: 2^60 s.
/// A job set whose last submission (or requested start) plus every job's
/// longer of runtime and estimate plus every ET extension passes it is
/// refused ([`JobModelError::TooLong`]), since one value below
/// [`MAX_TIME`] each does not keep their sum in 64 bits (1,024 jobs of
/// 2^53 s in a row end past 2^63).
pub const MAX_SERIAL_END: Time = 1 << 60;

/// The latest time a simulation may reach: 2^62 s. A start, resumption,
/// suspension or wake-up that would end or fire later stops the run with
/// [`SimError::BeyondTimeLimit`] (a policy that idles the machine, or time
/// sharing with long switch overheads, can pass [`MAX_SERIAL_END`]). With
/// times below it, a policy can add an estimate and a sum of estimates
/// bounded by [`MAX_SERIAL_END`] without overflow.
pub const TIME_LIMIT: Time = 1 << 62;

/// The most processors a machine may have: 2^24 = 16,777,216, more than
/// any machine counted in cores has today (Fugaku: 7.6 million). The
/// machine keeps a bit per block of processors (SCOJO-PECT several such
/// sets, and the fit index of waiting jobs marks "none" with `u32::MAX`),
/// so a larger machine is refused ([`JobModelError::TooManyProcessors`])
/// before anything is allocated.
pub const MAX_PROCS: u32 = 1 << 24;

/// The most suspensions in a row a job may have without running a second
/// in between: the next is [`SimError::NoProgress`], since a policy that
/// suspends a job as soon as each resume overhead ends would never finish.
pub const MAX_IDLE_SUSPENSIONS: u32 = 1000;

/// A xorshift generator for the unit tests' random operations:
/// `next(bound)` is below `bound`.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |bound| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    }
}

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

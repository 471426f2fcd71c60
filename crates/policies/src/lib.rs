//! Parallel job scheduling policies for the schedsim simulator.
//!
//! Every policy implements [`schedsim_sim_core::Policy`]: it looks at a
//! read-only view of the machine and the queue and decides which jobs start.
//! Backfilling is one mechanism, [`Backfill`], with two settings: a
//! [`QueueOrder`] and a reservation [`Depth`]. FCFS is depth 0, EASY depth
//! 1 (appendix A.1 of the LOS thesis), conservative depth all (appendix
//! A.2). [`Los`] is the Lookahead Optimizing Scheduler of the same thesis
//! (chapter 3), packing jobs with the dynamic programmes of [`knapsack_dp`].
//! Policies are usually built from a spec string such as `easy:order=sjf`
//! or `los:merit=max-slowdown` with [`build_policy`]; [`POLICIES`] lists
//! them all. The twelve algorithms of Kumar, Shae and Jamjoom's Table III
//! (batch and dedicated jobs, runtime elasticity) are described
//! [below](#heterogeneous-workloads-and-elasticity-kumar-et-al).
//!
//! ```
//! use schedsim_policies::{PolicySpec, build_policy};
//! use schedsim_sim_core::{Job, JobId, JobModel, JobSet, simulate};
//!
//! let job = |number, submit, size, estimate| Job::new(number, submit, size, estimate, estimate);
//! // 10 processors. Job 1 takes 6 until 100; job 2 needs 8 and must wait;
//! // job 3 (4 processors, 50 s) ends before job 2 could start: EASY
//! // backfills it at 2, FCFS makes it wait behind job 2.
//! let jobs = JobSet::from_jobs(
//!     vec![job(1, 0, 6, 100), job(2, 1, 8, 10), job(3, 2, 4, 50)],
//!     &JobModel::new(10),
//! )?;
//! let mut easy = build_policy(&"easy".parse::<PolicySpec>()?)?;
//! assert_eq!(simulate(&jobs, &mut easy)?.start(JobId(2)), 2);
//! let mut fcfs = build_policy(&"fcfs".parse::<PolicySpec>()?)?;
//! assert_eq!(simulate(&jobs, &mut fcfs)?.start(JobId(2)), 110);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Heterogeneous workloads and elasticity (Kumar et al.)
//!
//! Kumar, Shae and Jamjoom ("Scheduling Batch and Heterogeneous Jobs with
//! Runtime Elasticity in a Parallel Processing Environment") add dedicated
//! jobs, which ask to start at a given time (CWF field 19), and elastic
//! control commands (ET/RT, CWF field 20) to the batch model. All twelve
//! algorithms of their Table III are here, by spec name:
//!
//! | | batch, no ECC | batch + ECC | heterogeneous, no ECC | heterogeneous + ECC |
//! |---|---|---|---|---|
//! | EASY | `easy` | `easy-e` | `easy-d` ([`EasyD`]) | `easy-de` |
//! | LOS | `los` | `los-e` | `los-d` ([`LosD`]) | `los-de` |
//! | Delayed-LOS | `delayed-los` ([`DelayedLos`]) | `delayed-los-e` | `hybrid-los` ([`HybridLos`]) | `hybrid-los-e` |
//!
//! *Heterogeneous* policies declare
//! [`Capabilities::dedicated_jobs`](schedsim_sim_core::Capabilities): the
//! simulator keeps dedicated jobs in their own queue, never lets them start
//! early, and calls the policy at each requested start. Batch policies run
//! dedicated jobs as batch jobs (counted). The *-E* variants declare the ECC
//! processor ([`Elastic`] wraps EASY and LOS): the simulator applies ET/RT
//! commands to estimates and running jobs' ends; otherwise they are ignored
//! (counted). Options: `cs` (the maximum skip count C_s, default
//! [`DEFAULT_SKIP_THRESHOLD`] = 7), `lookahead` (default 50), `merit` and
//! `traceback` for the Delayed/Hybrid-LOS family, e.g.
//! `hybrid-los-e:cs=8,lookahead=25`; the LOS options for `los-*`.
//!
//! **Delayed-LOS** (Algorithm 1) runs Basic_DP over the queue while the
//! head fits and has been skipped fewer than C_s times, else starts the
//! head; a head that does not fit gets a freeze (its shadow time) and
//! Reservation_DP packs around it. **Hybrid-LOS** (Algorithms 2 and 3)
//! freezes the processors of the earliest waiting dedicated start for the
//! batch DP and moves a due dedicated job to the batch head with scount =
//! C_s. Where the paper is ambiguous (one action per cycle, line 34's head
//! that does not fit, the candidates of the DPs, the strict `<` of the
//! freezes, skip counts per job, ties in the active list), the choices are
//! documented on [`DelayedLos`] and [`HybridLos`] and tested.
//!
//! **EASY-D and LOS-D** (the paper gives no pseudo-code) hold reservations
//! for dedicated jobs, remade at every call: in a profile of free
//! processors built from the running jobs' expected ends, every waiting
//! dedicated job, in arrival order, reserves its processors for its whole
//! estimate at the earliest time not before its requested start (nor now)
//! at which they are free given the reservations before it; a reservation
//! at now starts the job. Batch jobs then run EASY or LOS *inside that
//! profile*: heads start while they fit it for their whole estimate, the
//! first that does not reserves its earliest fit (its shadow time), EASY
//! backfills only jobs that fit the profile, and LOS's DP set is checked
//! job by job against the profile before starting. So no batch job ever
//! overlaps a dedicated reservation, and with exact estimates every
//! dedicated job starts exactly at the time reserved when it arrived: its
//! requested start whenever the processors are free then. Without
//! dedicated jobs EASY-D is EASY and LOS-D is LOS, schedule for schedule.
//!
//! The paper's motivating example (its Fig. 2): 10 free processors, jobs of
//! 7, 4 and 6 processors queued in that order. LOS starts the head, 7;
//! Delayed-LOS skips it and starts 4 and 6, using all 10.
//!
//! ```
//! use schedsim_policies::{PolicySpec, build_policy};
//! use schedsim_sim_core::{Job, JobModel, JobSet, simulate};
//!
//! let job = |number, size| Job::new(number, 0, size, 100, 100);
//! let jobs = JobSet::from_jobs(vec![job(1, 7), job(2, 4), job(3, 6)], &JobModel::new(10))?;
//! let mut los = build_policy(&"los".parse::<PolicySpec>()?)?;
//! assert_eq!(simulate(&jobs, &mut los)?.starts(), [0, 100, 100]);
//! let mut delayed = build_policy(&"delayed-los".parse::<PolicySpec>()?)?;
//! assert_eq!(simulate(&jobs, &mut delayed)?.starts(), [100, 0, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Greedy with trained sorting criteria
//!
//! The sorting criteria f1-f4 of Franke, Lepping and Schwiegelshohn
//! ("Greedy scheduling with complex objectives", section III-A) are
//! [`SortingCriterion`]s over [`GreedyJob`]s (user group, submission,
//! estimate, size), one per [`Situation`] in a [`GreedyParameters`] file;
//! [`GreedyQueue`] gives the top job quickly. [`Greedy`] is the policy
//! (re-sorted at every submission and completion, started from the top
//! while jobs fit, no backfilling), by spec `greedy:params=FILE`; `schedsim
//! train` writes such files.
#![warn(missing_docs)]

mod backfill;
mod conservative;
mod deadline;
mod dedicated;
mod delayed_los;
mod elastic;
mod error;
mod greedy;
mod greedy_policy;
mod kinetic;
mod los;
mod number;
mod order;
mod pack;
mod profile;
mod scojo;
mod shadow;
mod slurm;
mod spec;
mod spec_kumar;

pub use backfill::{Backfill, Depth};
pub use deadline::{
    Acceptance, Admission, AdmissionCounters, DeadlineAdmission, Heuristic, MAX_BACKTRACKS, MAX_K,
    MrtConfig, MsbConfig, MsbCost, MsbOrder, NewJob, OnFailure, PlanJob, QopsConfig, Reservation,
    mrt, msb, qops, qops_options,
};
pub use dedicated::{DedicatedMode, EasyD, LosD};
pub use delayed_los::{DEFAULT_SKIP_THRESHOLD, DelayedLos, DelayedLosConfig, HybridLos};
pub use elastic::Elastic;
pub use error::SpecError;
pub use greedy::{
    Criterion, CriterionParams, GreedyError, GreedyJob, GreedyParameters, GreedyQueue, Situation,
    SortingCriterion, USER_GROUPS,
};
pub use greedy_policy::Greedy;
pub use los::{
    DEFAULT_LOOKAHEAD, HeadRule, Los, LosConfig, LosMerit, LosVariant, TracebackOrder, Window,
};
pub use order::QueueOrder;
pub use scojo::{
    GroupParams, JobClass, MAX_SEARCH_NODES, NODES_PER_SCHEDULE, OptimiserConfig, Rounding,
    ScojoConfig, ScojoCounters, ScojoPect, SearchConfig, SearchCounters, SearchInput, SearchJob,
    SearchOrder, SearchOutcome, Selection, SliceEnd, Tail, WorkCriterion, search_group,
};
pub use shadow::{Shadow, Starts, shadow};
pub use slurm::{
    BackfillConf, Factors, Multifactor, MultifactorConfig, PriorityConf, PriorityFlags, SharesFile,
    SlurmBackfill, SlurmConf, SlurmConfError,
};
pub use spec::{POLICIES, PolicyInfo, PolicySpec, build_policy, runtime_class_bounds};

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

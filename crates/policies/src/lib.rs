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
//! them all.
//!
//! ```
//! use schedsim_policies::{PolicySpec, build_policy};
//! use schedsim_sim_core::{Job, JobId, JobModel, JobSet, simulate};
//!
//! let job = |number, submit, size, estimate| Job {
//!     number,
//!     record_index: number as u32,
//!     submit,
//!     size,
//!     requested_size: size,
//!     estimate,
//!     runtime: estimate,
//!     requested_start: None,
//! };
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
#![warn(missing_docs)]

mod backfill;
mod error;
mod los;
mod order;
mod profile;
mod shadow;
mod spec;

pub use backfill::{Backfill, Depth};
pub use error::SpecError;
pub use los::{DEFAULT_LOOKAHEAD, Los, LosConfig, LosMerit, LosVariant, TracebackOrder};
pub use order::QueueOrder;
pub use shadow::{Shadow, Starts, shadow};
pub use spec::{POLICIES, PolicyInfo, PolicySpec, build_policy};

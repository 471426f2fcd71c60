//! Training Greedy scheduling's sorting criteria with a (mu+lambda)
//! evolution strategy, after Franke, Lepping and Schwiegelshohn ("Greedy
//! scheduling with complex objectives", CI-Sched 2007): `schedsim train`.
//!
//! An individual is one sorting criterion per scheduling situation
//! (weekend, week day 8-18, week day 18-8) with its parameters, 33 to 36
//! numbers in the paper's bounds ([`ParameterLayout`]); its fitness is the
//! objective (default `10 * AWRT1 + 4 * AWRT2`, eq. 8) of the Greedy
//! schedule of each training workload, summed over the workloads
//! (multiple-workload training, section IV-D). The strategy is the
//! `evolution-strategy` crate's: mu = 15, lambda = 105, 100 generations,
//! one self-adapted step size per parameter, discrete recombination of the
//! object parameters over all parents and intermediate recombination of two
//! parents' step sizes, clamping at the bounds, seeded, a checkpoint per
//! generation, candidates evaluated on all cores.
//!
//! [`train`] writes into its output folder:
//! - `best.json`: the best parameters, a Greedy parameter file
//!   (`schedsim simulate -p greedy:params=best.json`);
//! - `generations.csv`: per generation the parents' best, mean and worst
//!   fitness, the offspring's mean, how many offspring became parents, and
//!   the parents' mean step size per parameter;
//! - `convergence.svg`: best and mean against the generation, with EASY's
//!   objective as a dashed line;
//! - `evaluation.csv`: EASY and Greedy per workload, AWRT per user group,
//!   UTIL, the objective and its change against EASY (the paper's Table III
//!   and Figs. 2-3);
//! - `train.json`: the settings and the result;
//! - `checkpoint.json`: the strategy's state; rerunning the same command
//!   resumes from it to the same result, and a larger `--generations`
//!   extends a finished run; it records the workloads (paths and job
//!   counts), criteria, objective and simulation settings, and a rerun
//!   with others is refused rather than resumed;
//! - `.lock`: held while a training runs, so that a second training on the
//!   same folder is refused (naming the holder's pid and host) instead of
//!   mixing its files into the first one's; the operating system drops it
//!   when the process ends, killed or not.
//!
//! **The paper's "twelve systems".** Section IV-C trains "all combinations
//! of the four sorting criteria with the three scheduling situations [...]
//! twelve different systems and finally for each situation, we select the
//! system that performs best", yet speaks of 36 object parameters per
//! individual, one criterion per situation. We read one training as one
//! choice of criteria ([`ParameterLayout`], `--criteria f1,f2,f3`), and the
//! twelve systems as the trainings over the choices; the paper reports that
//! f2 won in every situation, so the default is f2 everywhere (36
//! parameters).
//!
//! Independent restarts (`--seed`) or workloads are independent processes
//! with their own output folders, so a Slurm job array runs them as it runs
//! sweep shards (e.g. `--seed $SLURM_ARRAY_TASK_ID --out runs/$SLURM_ARRAY_TASK_ID`).
//!
//! ```
//! use schedsim_train::{ParameterLayout, random_parameters};
//!
//! // 36 parameters with f2 in every situation, in the paper's bounds.
//! let layout: ParameterLayout = "f2".parse()?;
//! assert_eq!(layout.bounds()[0], (0.0, 1.0)); // weekend.a
//! assert_eq!(layout.bounds()[7], (0.0, 5.0)); // weekend.K1
//! let sets = random_parameters(3, 1);
//! assert_eq!(sets.len(), 3);
//! assert!(sets.iter().all(|(layout, _)| layout.len() >= 33));
//! # Ok::<(), schedsim_train::LayoutError>(())
//! ```
#![warn(missing_docs)]

mod bench;
mod layout;
mod lock;
mod plot;
mod train;
mod workload;

pub use bench::{BenchReport, bench, median, random_parameters};
pub use layout::{LayoutError, ParameterLayout, SITUATIONS};
pub use plot::convergence_svg;
pub use train::{EvaluationRow, TrainArgs, TrainOutcome, train};
pub use workload::{Evaluation, TrainingWorkload};

use std::path::PathBuf;

/// Why a training failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrainError {
    /// A workload could not be loaded.
    #[error("cannot load the workload {workload}")]
    Load {
        /// The workload's path as given (`builtin` for the built-in one).
        workload: String,
        /// The cause (boxed: it is large, and every result carries the
        /// error's size).
        #[source]
        source: Box<schedsim_run::SimulateError>,
    },
    /// A workload's jobs name no user, so there are no user groups.
    #[error("workload {0}: no job names a user (SWF field 12), so there are no user groups")]
    NoUsers(String),
    /// The user groups could not be computed.
    #[error("workload {workload}: cannot compute the user groups")]
    Groups {
        /// The workload.
        workload: String,
        /// The cause.
        #[source]
        source: schedsim_metrics::GroupError,
    },
    /// A simulation or its objective failed.
    #[error("workload {workload}: evaluation failed")]
    Evaluation {
        /// The workload.
        workload: String,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// `--scale-jobs` given for some workloads only.
    #[error(
        "--scale-jobs given {given} times for {workloads} training workloads: give it for each or for none"
    )]
    ScaleJobs {
        /// Values given.
        given: usize,
        /// Training workloads.
        workloads: usize,
    },
    /// The evolution strategy failed (settings, checkpoint, evaluation).
    #[error("the evolution strategy failed")]
    Strategy(#[from] evolution_strategy::Error),
    /// A parameter vector is not a valid parameter set.
    #[error("bad parameter vector")]
    Parameters(#[from] schedsim_policies::GreedyError),
    /// The thread pool could not be built.
    #[error("cannot start the worker threads: {0}")]
    Threads(String),
    /// The convergence plot could not be drawn.
    #[error("cannot draw the convergence plot: {0}")]
    Plot(String),
    /// An output file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Another training holds the output folder.
    #[error(
        "another train is running in {folder} ({holder} holds {lock}); wait for it to finish or give another --out"
    )]
    Busy {
        /// The output folder.
        folder: PathBuf,
        /// Its lock file.
        lock: PathBuf,
        /// Who holds it, as it signed the lock file (pid and host).
        holder: String,
    },
    /// The output folder's lock could not be created or taken.
    #[error("cannot lock {path}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] std::io::Error),
}

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

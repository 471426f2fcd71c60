//! `schedsim deadlines`: the deadline side file of a workload as the QoPS
//! paper makes it (EASY on the load-modified trace, then stringency, a
//! share of user deadlines and artificial ones), for `simulate --deadlines`.

use std::io::{self, Write};
use std::path::PathBuf;

use schedsim_run::{
    DeadlineMakeError, DeadlineParams, Estimates, Overrun, SimulateArgs, SimulateError,
    deadlines_csv, load_workload, make_deadlines, write_atomically,
};
use schedsim_sim_core::{DeadlineKind, LoadMethod};

use crate::CommandError;

/// Arguments of `schedsim deadlines`.
#[derive(Debug, Clone, clap::Args)]
pub struct DeadlinesArgs {
    /// The workload (.swf, .cwf or Batsim .json, plain or gzip).
    #[arg(long, short = 'w', value_name = "FILE")]
    pub workload: PathBuf,
    /// Processors of the machine (default: the header's MaxProcs).
    #[arg(long, value_name = "N", value_parser = schedsim_run::whole_number_in::<u32>(1, schedsim_sim_core::MAX_PROCS.into()))]
    pub procs: Option<u32>,
    /// Skip bad lines and unsimulatable jobs (counted).
    #[arg(long)]
    pub lenient: bool,
    /// Runtime estimates of the EASY run: as recorded, or exact (the
    /// paper's assumption; give the same to `simulate`).
    #[arg(long, value_enum, default_value_t = Estimates::Recorded)]
    pub estimates: Estimates,
    /// A job past its estimate is killed (`kill`) or runs on (`extend`).
    #[arg(long, value_enum, default_value_t = Overrun::Kill)]
    pub overrun: Overrun,
    /// The offered load to reach first; give `simulate` the same --load
    /// (or --load-factor), --load-method and --load-seed so the job numbers
    /// of the copies match.
    #[arg(long, value_name = "L")]
    pub load: Option<f64>,
    /// Instead of --load, multiply the offered load by F (the paper's load
    /// factor l).
    #[arg(long, value_name = "F", conflicts_with = "load")]
    pub load_factor: Option<f64>,
    /// How --load changes the load.
    #[arg(long, value_name = "METHOD", default_value_t = LoadMethod::Duplicate)]
    pub load_method: LoadMethod,
    /// Seed of the load change's picks.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = schedsim_run::whole_number::<u64>(0))]
    pub load_seed: u64,
    /// Stringency s in [0, 1): deadline = submit + max(runtime, (1 - s) x
    /// EASY response).
    #[arg(long, value_name = "S")]
    pub stringency: f64,
    /// Share of jobs with user deadlines; the others get artificial ones.
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub fraction: f64,
    /// R of the artificial deadlines: submit + max(24 h, R x runtime).
    #[arg(long, value_name = "R", default_value_t = 5.0)]
    pub ratio: f64,
    /// Seed of the choice of user-deadline jobs.
    #[arg(long, value_name = "SEED", default_value_t = 1, value_parser = schedsim_run::whole_number::<u64>(0))]
    pub seed: u64,
    /// The deadline file to write (CSV: job_number,deadline_after_submit,kind).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: PathBuf,
}

/// Why `schedsim deadlines` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeadlinesError {
    /// The workload could not be loaded.
    #[error(transparent)]
    Load(#[from] SimulateError),
    /// The deadlines could not be made.
    #[error(transparent)]
    Make(#[from] DeadlineMakeError),
    /// The file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The report could not be printed.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl CommandError for DeadlinesError {}

/// Runs `schedsim deadlines`; returns the deadlines written.
///
/// # Errors
/// See [`DeadlinesError`].
pub fn deadlines(
    args: &DeadlinesArgs,
    out: &mut dyn Write,
) -> Result<schedsim_sim_core::Deadlines, DeadlinesError> {
    let params = DeadlineParams::new(args.stringency).mixed(args.fraction, args.ratio, args.seed);
    params.validate()?;
    let mut simulate = SimulateArgs::new();
    simulate.workload = Some(args.workload.clone());
    simulate.procs = args.procs;
    simulate.lenient = args.lenient;
    simulate.estimates = args.estimates;
    simulate.overrun = args.overrun;
    simulate.load = args.load;
    simulate.load_factor = args.load_factor;
    simulate.load_method = args.load_method;
    simulate.load_seed = args.load_seed;
    let loaded = load_workload(&simulate)?;
    let made = make_deadlines(&loaded.jobs, &params, &simulate.sim_options())?;
    write_atomically(&args.out, deadlines_csv(&made).as_bytes()).map_err(|source| {
        DeadlinesError::Write {
            path: args.out.clone(),
            source,
        }
    })?;
    let users = made
        .iter()
        .filter(|(_, d)| d.kind == DeadlineKind::User)
        .count();
    let load = loaded.load_change.as_ref().map_or(String::new(), |change| {
        format!(
            " after {} to load {:.4} ({:.4} reached)",
            change.method, change.target, change.achieved_load
        )
    });
    writeln!(
        out,
        "wrote {}: {} deadlines from EASY on {} jobs{load}: {users} user (stringency {}), {} artificial (R = {})",
        args.out.display(),
        made.len(),
        loaded.jobs.len(),
        args.stringency,
        made.len() - users,
        args.ratio
    )
    .map_err(DeadlinesError::Output)?;
    Ok(made)
}

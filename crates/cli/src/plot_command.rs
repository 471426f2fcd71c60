//! `schedsim plot RUN_DIR` (queue length, utilization and wait charts of
//! one run) and `schedsim plot gantt RUN_DIR` (its schedule as a Gantt
//! chart).

use std::io::{self, Write};
use std::path::PathBuf;

use crate::CommandError;
use schedsim_run::{GanttColor, PlotError, gantt, run_curves};
use schedsim_run::{RunDir, RunDirError};
use schedsim_sim_core::TIME_LIMIT;

/// Jobs in the default Gantt window.
pub const GANTT_DEFAULT_JOBS: usize = 300;

/// Arguments of `schedsim plot`.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PlotArgs {
    /// A chart other than the per-run curves.
    #[command(subcommand)]
    pub chart: Option<PlotChart>,
    /// The run folder (`simulate --out DIR` writes DIR/POLICY/).
    #[arg(value_name = "RUN_DIR")]
    pub run: Option<PathBuf>,
    /// Folder for the SVG files (default: RUN_DIR/plots).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `schedsim plot` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum PlotChart {
    /// The schedule as a Gantt chart: processors x time, one rectangle per
    /// job and allocated processor interval.
    Gantt(GanttArgs),
}

/// Arguments of `schedsim plot gantt`.
#[derive(Debug, Clone, clap::Args)]
pub struct GanttArgs {
    /// The run folder.
    #[arg(value_name = "RUN_DIR")]
    pub run: PathBuf,
    /// Window start, seconds from 0 to 2^62 (default: the first start).
    #[arg(long, value_name = "T", value_parser = schedsim_run::whole_number_in::<i64>(0, TIME_LIMIT.into()))]
    pub from: Option<i64>,
    /// Window end, seconds from 0 to 2^62 (default: the window holds the
    /// first 300 job starts after --from).
    #[arg(long, value_name = "T", value_parser = schedsim_run::whole_number_in::<i64>(0, TIME_LIMIT.into()))]
    pub to: Option<i64>,
    /// Colour by start order (backfilled jobs stand out) or runtime class.
    #[arg(long, value_enum, default_value_t = GanttColor::Order)]
    pub color: GanttColor,
    /// The SVG file (default: RUN_DIR/plots/gantt.svg).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Why `plot` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotCommandError {
    /// No run folder was named.
    #[error("name a run folder: schedsim plot RUN_DIR or schedsim plot gantt RUN_DIR")]
    NoRun,
    /// The run folder could not be read.
    #[error(transparent)]
    Read(#[from] RunDirError),
    /// A chart could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl CommandError for PlotCommandError {}

/// Runs `schedsim plot`; returns the files written.
///
/// # Errors
/// See [`PlotCommandError`].
pub fn plot(args: &PlotArgs, out: &mut dyn Write) -> Result<Vec<PathBuf>, PlotCommandError> {
    let written = match &args.chart {
        Some(PlotChart::Gantt(g)) => {
            let run = RunDir::read(&g.run)?;
            // A folder whose files come from two runs would be drawn as one.
            run.check_metrics()?;
            let (from, to) = gantt_window(&run, g.from, g.to);
            let path = g
                .out
                .clone()
                .unwrap_or_else(|| g.run.join("plots").join("gantt.svg"));
            let jobs = gantt(&run, from, to, g.color, &path)?;
            writeln!(out, "{}: {jobs} jobs in [{from}, {to}] s", path.display())
                .map_err(PlotCommandError::Output)?;
            if jobs == 0 {
                // An empty chart is easy to take for a broken one: say
                // where the jobs are.
                let first = run.jobs.iter().map(|j| j.job.start).min();
                let last = run.jobs.iter().map(|j| j.job.finish).max();
                let span = match first.zip(last) {
                    Some((first, last)) => format!("its jobs run from {first} to {last} s"),
                    None => "it holds no job that ran".to_owned(),
                };
                writeln!(
                    out,
                    "warning: no job runs in [{from}, {to}] s, so the chart is empty; {span}"
                )
                .map_err(PlotCommandError::Output)?;
            }
            vec![path]
        }
        None => {
            let dir = args.run.as_ref().ok_or(PlotCommandError::NoRun)?;
            let run = RunDir::read(dir)?;
            run.check_metrics()?;
            let target = args.out.clone().unwrap_or_else(|| dir.join("plots"));
            let written = run_curves(&run, &target)?;
            for path in &written {
                writeln!(out, "{}", path.display()).map_err(PlotCommandError::Output)?;
            }
            written
        }
    };
    Ok(written)
}

/// The Gantt window: `from` defaults to the first start, `to` to the start
/// of the [`GANTT_DEFAULT_JOBS`]-th job starting at or after `from` (or the
/// last finish).
pub fn gantt_window(run: &RunDir, from: Option<i64>, to: Option<i64>) -> (i64, i64) {
    let mut starts: Vec<i64> = run.jobs.iter().map(|j| j.job.start).collect();
    starts.sort_unstable();
    let from = from.unwrap_or_else(|| starts.first().copied().unwrap_or(0));
    let to = to.unwrap_or_else(|| {
        let later: Vec<i64> = starts.iter().copied().filter(|&s| s >= from).collect();
        match later.get(GANTT_DEFAULT_JOBS) {
            Some(&t) if t > from => t,
            _ => run
                .jobs
                .iter()
                .map(|j| j.job.finish)
                .max()
                .unwrap_or(from)
                .max(from.saturating_add(1)),
        }
    });
    (from, to)
}

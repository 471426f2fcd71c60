//! Running the cells of a sweep (or of one shard) in parallel, skipping the
//! finished ones.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use indicatif::{ProgressBar, ProgressStyle};
use lublin_model::{EstimateParams, LublinGenerator, LublinParams};
use rayon::prelude::*;
use schedsim_run::{
    LoadedWorkload, Overrun as CliOverrun, SimulateArgs, WorkloadSource, completed_jobs,
    make_deadlines, metrics_config, prepare_workload, read_workload, run_policy_with,
};

use crate::error_line;
use schedsim_policies::PolicySpec;
use schedsim_sim_core::offered_load;
use workload_format::{Header, ReadSummary, Workload};

use super::cell::{Cell, CellResult, CompactJobs, write_atomic};
use super::spec::{Overrun, Spec, WorkloadKind};

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunReport {
    /// Cells in this shard.
    pub cells: usize,
    /// Cells already finished before the run.
    pub skipped: usize,
    /// Cells run now.
    pub ran: usize,
    /// Of those, cells whose result file was there but not trusted (it did
    /// not parse, held another cell, or did not match its digest), run
    /// again.
    pub untrusted: usize,
}

/// A cell's result file as the run finds it.
enum CellFile {
    Missing,
    Finished,
    /// There, but not a result of this cell: why.
    Untrusted(String),
}

/// Reads a cell's result file: it counts as finished only if it parses as a
/// cell result whose hash and configuration are this cell's and whose
/// content matches its digest. An empty or truncated file (a copy
/// interrupted outside schedsim's atomic writes, a full disk) or one
/// edited by hand must not pass for a result.
fn cell_file(cells_dir: &Path, cell: &Cell) -> CellFile {
    let path = cells_dir.join(format!("{}.json", cell.hash));
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CellFile::Missing,
        Err(e) => return CellFile::Untrusted(format!("cannot read it: {e}")),
    };
    match CellResult::trusted(&bytes, cell) {
        Ok(_) => CellFile::Finished,
        Err(why) => CellFile::Untrusted(why),
    }
}

/// Keeps the records up to the `first`-th job (commands of kept jobs
/// included, as they come in time order after their job).
fn keep_first_jobs(records: &mut Vec<workload_format::Record>, first: u64) {
    let mut jobs = 0;
    let cut = records
        .iter()
        .position(|record| {
            if record.is_command() {
                return false;
            }
            jobs += 1;
            jobs > first
        })
        .unwrap_or(records.len());
    records.truncate(cut);
}

/// The settings of `schedsim simulate` for a workload of the spec.
fn simulate_args(spec: &Spec, kind: &WorkloadKind) -> SimulateArgs {
    let mut args = SimulateArgs::new();
    args.granularity = spec.granularity;
    args.overrun = match spec.overrun {
        Overrun::Kill => CliOverrun::Kill,
        Overrun::Extend => CliOverrun::Extend,
    };
    args.tau = spec.tau;
    args.warmup = spec.warmup;
    args.drain = spec.drain;
    args.load_method = spec.load_method;
    args.estimates = spec.estimates;
    args.invoke = spec.invoke;
    args.event_order = spec.event_order;
    args.simultaneous_ends = spec.simultaneous_ends;
    args.suspend_overhead = spec.suspend_overhead;
    args.resume_overhead = spec.resume_overhead;
    match kind {
        WorkloadKind::File {
            path,
            lenient,
            procs,
            scale,
            ..
        } => {
            args.workload = Some(path.clone());
            args.lenient = *lenient;
            args.procs = *procs;
            if let Some(scale) = scale {
                args.scale_to = Some(scale.to);
                args.scale_jobs = scale.jobs;
                args.scale_adjustment = scale.adjustment;
                args.scale_seed = scale.seed;
                args.scale_duplicates = scale.duplicates;
            }
        }
        WorkloadKind::Lublin(settings) => args.procs = Some(settings.nodes),
        WorkloadKind::Cwf(settings) => args.procs = Some(settings.params.machine_size),
    }
    args
}

type ReadTrace = (WorkloadSource, Workload, Option<ReadSummary>);

/// Workload instances by (workload, load, seed), each built once.
type Instances = BTreeMap<(usize, usize, Option<u64>), OnceLock<Result<LoadedWorkload, String>>>;

/// Builds the workload a cell runs on: the trace with its load changed, or
/// a generated workload at the cell's load.
fn instance(spec: &Spec, cell: &Cell, trace: Option<&ReadTrace>) -> Result<LoadedWorkload, String> {
    let workload = &spec.workloads[cell.workload];
    let mut args = simulate_args(spec, &workload.kind);
    let load = cell.config.load;
    match (&workload.kind, trace) {
        (
            WorkloadKind::File {
                first_jobs,
                deadlines,
                ..
            },
            Some((source, records, summary)),
        ) => {
            if cell.config.load_factor {
                args.load_factor = Some(load);
            } else {
                args.load = Some(load);
            }
            args.load_seed = cell.config.seed.unwrap_or(1);
            let mut records = records.clone();
            if let Some(first) = *first_jobs {
                keep_first_jobs(&mut records.records, first);
            }
            let mut loaded = prepare_workload(&args, source.clone(), records, summary.clone())
                .map_err(|e| error_line(&e))?;
            if let Some(params) = deadlines {
                let made = make_deadlines(&loaded.jobs, params, &args.sim_options())
                    .map_err(|e| error_line(&e))?;
                loaded.jobs = loaded
                    .jobs
                    .with_deadlines(&made)
                    .map_err(|e| error_line(&e))?;
            }
            Ok(loaded)
        }
        (WorkloadKind::Lublin(settings), _) => {
            let seed = cell.config.seed.unwrap_or(1);
            let mut params = LublinParams::for_machine(settings.nodes)
                .load(load)
                .job_types(settings.job_types);
            if let Some(f) = settings.estimate_f {
                params = params.estimate(EstimateParams::f_model(f));
            }
            let generator =
                LublinGenerator::new(params.clone(), seed).map_err(|e| e.to_string())?;
            let records = generator.generate(settings.jobs);
            let mut header = Header::new();
            let set = |header: &mut Header, key: &str| {
                header
                    .set(key, u64::from(settings.nodes))
                    .map_err(|e| e.to_string())
            };
            set(&mut header, "MaxNodes")?;
            set(&mut header, "MaxProcs")?;
            let source = WorkloadSource::Builtin {
                model: "lublin-feitelson".to_owned(),
                jobs: settings.jobs,
                seed,
                params: Box::new(params),
                sha256: String::new(),
            };
            prepare_workload(&args, source, Workload::new(header, records), None)
                .map_err(|e| error_line(&e))
        }
        (WorkloadKind::Cwf(settings), _) => {
            super::cwf::instance(settings, &args, load, cell.config.seed.unwrap_or(1))
        }
        (WorkloadKind::File { path, .. }, None) => Err(format!("{} was not read", path.display())),
    }
}

/// Runs one cell and writes its result file.
fn run_cell(
    spec: &Spec,
    cell: &Cell,
    loaded: &LoadedWorkload,
    cells_dir: &Path,
) -> Result<(), String> {
    let policy: PolicySpec = cell.config.policy.parse().map_err(|e| format!("{e}"))?;
    let args = simulate_args(spec, &spec.workloads[cell.workload].kind);
    let config = metrics_config(&args, loaded.jobs.model().procs);
    let run = run_policy_with(&loaded.jobs, &policy, &config, &args.sim_options())
        .map_err(|e| error_line(&e))?;
    let jobs = completed_jobs(&loaded.jobs, &run.schedule);
    let mut result = CellResult {
        hash: cell.hash.clone(),
        digest: String::new(),
        config: cell.config.clone(),
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        policy_name: run.name.clone(),
        load_change: loaded.load_change.clone(),
        offered_load: offered_load(&loaded.records, loaded.jobs.model().procs).map(|l| l.load),
        dropped_jobs: loaded.jobs.normalization().dropped_total(),
        metrics: run.metrics,
        groups: run.groups.map(|g| g.metrics),
        deadlines: run.deadlines,
        split: run.split,
        counters: run.counters.clone(),
        jobs: CompactJobs::pack(&jobs),
    };
    let mut json = result.seal().map_err(|e| e.to_string())?;
    json.push(b'\n');
    write_atomic(cells_dir, &format!("{}.json", cell.hash), &json)
        .map_err(|e| format!("cannot write {}: {e}", cells_dir.display()))?;
    Ok(())
}

/// Runs the cells of `shard` (index, count) that have no result file yet,
/// on `threads` threads (0: all cores).
///
/// # Errors
/// Unreadable workloads or failed cells (the others are still written).
pub fn run(
    spec: &Spec,
    cells: &[Cell],
    out: &Path,
    shard: (usize, usize),
    threads: usize,
    progress: bool,
) -> Result<RunReport, String> {
    let cells_dir = out.join("cells");
    schedsim_run::create_folder(&cells_dir)
        .map_err(|e| format!("cannot create {}: {e}", cells_dir.display()))?;
    let mine: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.index % shard.1 == shard.0)
        .collect();
    let states: Vec<CellFile> = mine.par_iter().map(|c| cell_file(&cells_dir, c)).collect();
    let mut pending: Vec<&Cell> = Vec::new();
    let mut untrusted = 0;
    for (cell, state) in mine.iter().zip(states) {
        match state {
            CellFile::Finished => {}
            CellFile::Missing => pending.push(cell),
            CellFile::Untrusted(why) => {
                eprintln!(
                    "warning: cells/{}.json ({}): {why}; running the cell again",
                    cell.hash,
                    cell.config.describe()
                );
                untrusted += 1;
                pending.push(cell);
            }
        }
    }
    let report = RunReport {
        cells: mine.len(),
        skipped: mine.len() - pending.len(),
        ran: pending.len(),
        untrusted,
    };
    if pending.is_empty() {
        return Ok(report);
    }
    // Each trace is read once; each (workload, load, seed) instance is built
    // once, by the first cell that needs it.
    let mut traces: BTreeMap<usize, ReadTrace> = BTreeMap::new();
    for cell in &pending {
        let workload = &spec.workloads[cell.workload];
        if matches!(workload.kind, WorkloadKind::File { .. })
            && !traces.contains_key(&cell.workload)
        {
            let args = simulate_args(spec, &workload.kind);
            let trace = read_workload(&args)
                .map_err(|e| format!("workload `{}`: {}", workload.name, error_line(&e)))?;
            traces.insert(cell.workload, trace);
        }
    }
    let mut instances: Instances = BTreeMap::new();
    for cell in &pending {
        instances.entry(cell.instance()).or_default();
    }
    let bar = if progress {
        ProgressBar::new(pending.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} cells ({eta} left) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let errors: Vec<String> = pool.install(|| {
        pending
            .par_iter()
            .filter_map(|cell| {
                let loaded = instances[&cell.instance()]
                    .get_or_init(|| instance(spec, cell, traces.get(&cell.workload)));
                let result = loaded
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|loaded| run_cell(spec, cell, loaded, &cells_dir));
                bar.inc(1);
                result
                    .err()
                    .map(|e| format!("cell {} ({}): {e}", cell.hash, cell.config.describe()))
            })
            .collect()
    });
    bar.finish_and_clear();
    if errors.is_empty() {
        Ok(report)
    } else {
        Err(format!(
            "{} of {} cells failed:\n  {}",
            errors.len(),
            pending.len(),
            errors.join("\n  ")
        ))
    }
}

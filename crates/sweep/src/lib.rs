//! Experiment sweeps for schedsim (`schedsim sweep SPEC`, also `cargo
//! xtask sweep` in the repository): run every (workload, load, seed, policy)
//! cell of a TOML spec in parallel, one result file per cell, resumable;
//! `--merge` collects them into CSV files and SVG figures; `--shard i/n`
//! runs a part; `--slurm` writes a job-array script running the parts.
//!
//! ```no_run
//! use schedsim_sweep::{SweepArgs, sweep};
//! // Runs the cells of the spec (resuming), then merges them.
//! let mut args = SweepArgs::new("experiments/kth-lookahead.toml");
//! sweep(&args)?;
//! args.merge = true;
//! sweep(&args)?;
//! # Ok::<(), schedsim_sweep::SweepError>(())
//! ```
//!
//! The output folder is `--out`, else the spec's `output` (relative to the
//! spec file), else `sweeps/NAME` under the current directory.
//!
//! Files in the output folder:
//! - `spec.toml` (the spec as given) and `sweep.json` (tool version, spec
//!   SHA-256, cell count), written by every run;
//! - `cells/HASH.json`: one finished cell (its configuration, metrics and
//!   compact per-job results), written atomically; HASH is the first 16
//!   hex digits of the SHA-256 of the cell's canonical configuration, so a
//!   rerun skips finished cells and a killed sweep resumes with nothing
//!   lost or duplicated;
//! - after `--merge`: `results.csv` (one row per cell and metric),
//!   `differentials.csv` (per-job differences against the baseline with
//!   batch-means intervals), `plots/`;
//! - after `--slurm`: `sweep.sbatch`, and `slurm/` for the tasks' logs;
//! - `.lock-shard-I-of-N` and `.lock`: the locks of the runs and merges.
//!   Shards of one `--shard I/N` count run side by side; a run refuses
//!   while the same shard, or a shard of another count (an unsharded run is
//!   shard 0/1), is running, and a merge refuses while any shard is
//!   running. The operating system drops a lock when its process ends,
//!   killed or not; the file names the last holder's pid and host.

mod cell;
mod cwf;
mod lock;
mod merge;
mod run;
mod slurm;
mod spec;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use sha2::{Digest, Sha256};

use cell::{cells, source_keys, write_atomic};
use slurm::SlurmSettings;
pub use spec::{Spec, SpecError};

/// Why a sweep failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The spec cannot be read or is invalid.
    #[error("cannot use the sweep spec {path}")]
    Spec {
        /// The spec file.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: SpecError,
    },
    /// The options contradict each other.
    #[error("{0}")]
    Usage(String),
    /// A workload, a cell, the merge or an output file failed; the message
    /// names it and the cause.
    #[error("{0}")]
    Failed(String),
    /// Another sweep holds a lock of the output folder that this run or
    /// merge needs.
    #[error("{what} in {folder} ({holder} holds {lock}); {advice}")]
    Locked {
        /// What is refused and why.
        what: String,
        /// The output folder.
        folder: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// Who holds it, as it signed the lock file (pid and host).
        holder: String,
        /// What to do.
        advice: &'static str,
    },
    /// A file or folder of the sweep cannot be created, locked, read or
    /// written.
    #[error("cannot {action} {path}")]
    Io {
        /// What failed: `create`, `lock`, `read`, `write`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl From<String> for SweepError {
    fn from(message: String) -> Self {
        Self::Failed(message)
    }
}

/// The message of an error and its causes on one line, joined by `: `.
pub(crate) fn error_line(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        line.push_str(": ");
        line.push_str(&cause.to_string());
        source = cause.source();
    }
    line
}

/// Arguments of `schedsim sweep` (and `cargo xtask sweep`).
#[derive(Debug, Clone, clap::Args)]
pub struct SweepArgs {
    /// The sweep spec (TOML; see experiments/ for examples).
    pub spec: PathBuf,
    /// Output folder (default: the spec's `output`, relative to the spec,
    /// else sweeps/NAME under the current directory).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Collect the finished cells into results.csv, differentials.csv and
    /// plots/ instead of running.
    #[arg(long)]
    pub merge: bool,
    /// Run only the cells whose index % N == I (cells are in a stable order).
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Write an sbatch job-array script (OUT/sweep.sbatch), one array task
    /// per shard, instead of running.
    #[arg(long)]
    pub slurm: bool,
    /// Array tasks (shards) of --slurm.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = schedsim_run::whole_number::<usize>(1))]
    pub shards: usize,
    /// CPUs (threads) per array task of --slurm.
    #[arg(long, value_name = "C", default_value_t = 1, value_parser = schedsim_run::whole_number::<usize>(1))]
    pub cpus_per_task: usize,
    /// An extra #SBATCH line for --slurm, e.g. --sbatch-option=--partition=short.
    #[arg(long = "sbatch-option", value_name = "OPTION")]
    pub sbatch_options: Vec<String>,
    /// The program the array tasks run (default: this program).
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Threads (default 0: all cores).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = schedsim_run::whole_number::<usize>(0))]
    pub threads: usize,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

impl SweepArgs {
    /// Running `spec` with every option at its default: all cells not yet
    /// finished, on all cores, with a progress bar on a terminal.
    pub fn new(spec: impl Into<PathBuf>) -> Self {
        Self {
            spec: spec.into(),
            out: None,
            merge: false,
            shard: None,
            slurm: false,
            shards: 4,
            cpus_per_task: 1,
            sbatch_options: Vec::new(),
            binary: None,
            threads: 0,
            quiet: false,
        }
    }
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not I/N"))?;
    let (i, n): (usize, usize) = (
        i.trim()
            .parse()
            .map_err(|_| format!("`{i}` is not a number"))?,
        n.trim()
            .parse()
            .map_err(|_| format!("`{n}` is not a number"))?,
    );
    if n == 0 || i >= n {
        return Err(format!("shard {i}/{n}: need 0 <= I < N"));
    }
    Ok((i, n))
}

#[derive(Serialize)]
struct SweepInfo<'a> {
    tool: &'static str,
    version: &'static str,
    name: &'a str,
    spec_sha256: String,
    cells: usize,
}

/// Prints a line to stdout; a closed pipe (`| head`) is not an error.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

fn absolute(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    })
}

/// Where a sweep without `--out` or `output` writes: `sweeps/NAME`, the
/// name made one path segment (a name like `../x` or `/tmp/x` stays
/// inside `sweeps/`).
fn default_output(name: &str) -> PathBuf {
    PathBuf::from("sweeps").join(spec::path_segment(name))
}

/// Runs a sweep (see the crate docs): the cells, `--merge`, or `--slurm`.
///
/// # Errors
/// A bad spec, contradictory options, unreadable workloads, failed cells,
/// or unwritable files.
pub fn sweep(args: &SweepArgs) -> Result<(), SweepError> {
    let spec = Spec::read(&args.spec).map_err(|source| SweepError::Spec {
        path: args.spec.clone(),
        source,
    })?;
    let out = match (&args.out, &spec.output) {
        (Some(out), _) => out.clone(),
        (None, Some(output)) => output.clone(),
        (None, None) => default_output(&spec.name),
    };
    schedsim_run::create_folder(&out)
        .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    if args.slurm {
        if args.shards == 0 || args.cpus_per_task == 0 {
            return Err(SweepError::Usage(
                "--shards and --cpus-per-task must be at least 1".to_owned(),
            ));
        }
        let binary = match &args.binary {
            Some(binary) => binary.clone(),
            None => {
                std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?
            }
        };
        schedsim_run::create_folder(&out.join("slurm"))
            .map_err(|e| format!("cannot create {}/slurm: {e}", out.display()))?;
        // One segment: no newline can add a line to the script.
        let text = slurm::script(
            &spec::path_segment(&spec.name),
            &absolute(&binary),
            &absolute(&args.spec),
            &absolute(&out),
            &SlurmSettings {
                shards: args.shards,
                cpus_per_task: args.cpus_per_task,
                options: args.sbatch_options.clone(),
            },
        );
        let path =
            write_atomic(&out, "sweep.sbatch", text.as_bytes()).map_err(|e| e.to_string())?;
        say!(
            "wrote {}: submit it with `sbatch {}`, then merge with `schedsim sweep {} --out {} --merge`",
            path.display(),
            path.display(),
            args.spec.display(),
            out.display()
        );
        return Ok(());
    }
    let sources = source_keys(&spec)?;
    let cells = cells(&spec, &sources);
    if args.merge {
        let started = Instant::now();
        let _lock = lock::lock_merge(&out)?;
        let report = merge::merge(&spec, &cells, &out)?;
        say!(
            "merged {} cells into {} in {:.1} s ({} stray temporary files removed, {} result files of other specs left alone, {} figures of earlier merges removed):",
            report.cells,
            out.display(),
            started.elapsed().as_secs_f64(),
            report.temp_removed,
            report.foreign,
            report.stale_figures_removed
        );
        for file in &report.written {
            say!("  {file}");
        }
        return Ok(());
    }
    let info = SweepInfo {
        tool: "schedsim sweep",
        version: env!("CARGO_PKG_VERSION"),
        name: &spec.name,
        spec_sha256: cell::hex(&Sha256::digest(spec.text.as_bytes())),
        cells: cells.len(),
    };
    let mut json = serde_json::to_string_pretty(&info).map_err(|e| e.to_string())?;
    json.push('\n');
    let shard = args.shard.unwrap_or((0, 1));
    // Before any write: a refused run must leave the running one's files.
    let _lock = lock::lock_shard(&out, shard)?;
    write_atomic(&out, "spec.toml", spec.text.as_bytes()).map_err(|e| e.to_string())?;
    write_atomic(&out, "sweep.json", json.as_bytes()).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let report = run::run(&spec, &cells, &out, shard, args.threads, !args.quiet)?;
    say!(
        "{}: {} cells (shard {}/{}): {} already finished, {} run ({} of them again: untrusted files) in {:.1} s; results in {}/cells",
        spec.name,
        report.cells,
        shard.0,
        shard.1,
        report.skipped,
        report.ran,
        report.untrusted,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder with `tiny.swf` (40 jobs on 8 processors) and `sweep.toml`
    /// (one load, one policy: one cell).
    fn setup(test: &str) -> (PathBuf, SweepArgs) {
        let dir =
            std::env::temp_dir().join(format!("schedsim-sweep-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let mut swf = String::from("; MaxProcs: 8\n");
        for job in 1..=40 {
            let size = 1 + job % 8;
            let runtime = 100 + 37 * (job % 11);
            swf.push_str(&format!(
                "{job} {} -1 {runtime} {size} -1 -1 {size} {} -1 1 1 1 -1 1 -1 -1 -1\n",
                60 * job,
                2 * runtime
            ));
        }
        fs::write(dir.join("tiny.swf"), swf).unwrap();
        fs::write(
            dir.join("sweep.toml"),
            "name = \"tiny\"\nloads = [0.8]\npolicies = [\"easy\"]\nmetrics = [\"wait.mean\"]\n\n[[workload]]\nname = \"tiny\"\nfile = \"tiny.swf\"\n",
        )
        .unwrap();
        let mut args = SweepArgs::new(dir.join("sweep.toml"));
        args.out = Some(dir.join("out"));
        args.threads = 1;
        args.quiet = true;
        (dir, args)
    }

    fn out(args: &SweepArgs) -> PathBuf {
        args.out.clone().unwrap()
    }

    #[test]
    fn a_merge_leaves_a_running_sweep_and_its_temporary_files_alone() {
        let (dir, mut args) = setup("merge-running");
        let cells = out(&args).join("cells");
        fs::create_dir_all(&cells).unwrap();
        let shard = lock::lock_shard(&out(&args), (1, 2)).unwrap();
        let in_flight = cells.join(".0123456789abcdef.json.tmp.host.1.0");
        fs::write(&in_flight, "{").unwrap();
        args.merge = true;
        let error = sweep(&args).unwrap_err().to_string();
        assert!(
            error.contains("cannot merge while a sweep is running shard 1/2")
                && error.contains(".lock-shard-1-of-2"),
            "{error}"
        );
        assert!(in_flight.exists());
        drop(shard);
        // Once no shard runs, a killed run's temporary file goes, but not
        // one that a live process of this host is still writing.
        let live = cells.join(format!(
            ".fedcba9876543210.json.tmp.{}.{}.0",
            schedsim_run::host_name(),
            std::process::id()
        ));
        fs::write(&live, "{").unwrap();
        let error = sweep(&args).unwrap_err().to_string();
        assert!(error.contains("cells are not finished"), "{error}");
        assert!(!in_flight.exists());
        assert!(live.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_refused_sweep_leaves_the_running_sweeps_files() {
        let (dir, args) = setup("refused");
        let out = out(&args);
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("spec.toml"), "the running sweep's spec").unwrap();
        fs::write(out.join("sweep.json"), "the running sweep's info").unwrap();
        let running = lock::lock_shard(&out, (0, 1)).unwrap();
        let error = sweep(&args).unwrap_err().to_string();
        assert!(
            error.contains("another sweep is running shard 0/1"),
            "{error}"
        );
        assert_eq!(
            fs::read_to_string(out.join("spec.toml")).unwrap(),
            "the running sweep's spec"
        );
        assert_eq!(
            fs::read_to_string(out.join("sweep.json")).unwrap(),
            "the running sweep's info"
        );
        drop(running);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unsharded_sweep_refuses_beside_a_shard() {
        let (dir, args) = setup("sharding");
        fs::create_dir_all(out(&args)).unwrap();
        let shard = lock::lock_shard(&out(&args), (0, 2)).unwrap();
        let error = sweep(&args).unwrap_err().to_string();
        assert!(
            error.contains("a sweep of another sharding is running shard 0/2"),
            "{error}"
        );
        assert!(!out(&args).join("cells").exists());
        drop(shard);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_merge_that_cannot_write_names_the_file() {
        let (dir, mut args) = setup("merge-write");
        sweep(&args).unwrap();
        // A folder where results.csv goes: the rename over it fails.
        fs::create_dir_all(out(&args).join("results.csv/x")).unwrap();
        args.merge = true;
        let error = sweep(&args).unwrap_err();
        let line = error_line(&error);
        assert!(
            line.starts_with(&format!(
                "cannot write {}",
                out(&args).join("results.csv").display()
            )),
            "{line}"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_sweep_name_stays_inside_the_sweeps_folder() {
        // `/` and a leading `.` become `_`: one segment under sweeps/.
        assert_eq!(default_output("kth"), Path::new("sweeps/kth"));
        assert_eq!(
            default_output("../../ESCAPED"),
            Path::new("sweeps/_.._.._ESCAPED")
        );
        assert_eq!(default_output("/tmp/ABS"), Path::new("sweeps/_tmp_ABS"));
        assert_eq!(default_output(".."), Path::new("sweeps/_.."));
    }
}

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

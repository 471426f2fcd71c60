//! `cargo xtask results`: regenerates the figures of docs/results that
//! docs/RESULTS.md shows, from the sweeps in experiments/ (run, resumed if
//! they already ran, merged) and one schedule drawn as a Gantt chart.
//!
//! The sweeps read the real traces from `$SCHEDSIM_TRACES`; their output
//! goes under `sweeps/` as with `cargo xtask sweep`, and only the figures
//! named in [`FIGURES`] are copied into docs/results.

use std::fs;
use std::path::{Path, PathBuf};

use schedsim_run::{GanttColor, RunDir, SimulateArgs, gantt, simulate};
use schedsim_sweep::{SweepArgs, sweep};

/// The sweeps the figures come from, in the order they run.
const SWEEPS: [&str; 9] = [
    "kth-easy-vs-los",
    "kth-merit",
    "kth-lookahead",
    "lublin-load",
    "kumar-fig7",
    "kumar-fig9",
    "kumar-fig10-dedicated",
    "kumar-fig11",
    "qops-all-deadlines",
];

/// (sweep, figure in its plots/ folder, name in docs/results).
const FIGURES: [(&str, &str, &str); 26] = [
    (
        "qops-all-deadlines",
        "sdsc-s0.2/deadlines_rejected_share.svg",
        "qops-sdsc-s0.2-unadmitted-jobs.svg",
    ),
    (
        "qops-all-deadlines",
        "sdsc-s0.2/deadlines_rejected_work_share.svg",
        "qops-sdsc-s0.2-unadmitted-work.svg",
    ),
    (
        "qops-all-deadlines",
        "sdsc-s0.2/utilization.svg",
        "qops-sdsc-s0.2-utilization.svg",
    ),
    (
        "kth-easy-vs-los",
        "kth/utilization.svg",
        "fig4.1-kth-utilization.svg",
    ),
    (
        "kth-easy-vs-los",
        "kth/diff_response.svg",
        "fig4.2-kth-diff-response-easy-los50.svg",
    ),
    (
        "kth-easy-vs-los",
        "kth/diff_bounded_slowdown.svg",
        "fig4.3-kth-diff-bsld-easy-los50.svg",
    ),
    (
        "kth-merit",
        "kth/diff_bounded_slowdown.svg",
        "fig4.4-4.6-kth-diff-bsld-merits.svg",
    ),
    (
        "kth-lookahead",
        "kth/diff_bounded_slowdown.svg",
        "fig4.7-kth-diff-bsld-easy-los-variants.svg",
    ),
    (
        "kth-lookahead",
        "kth/diff_response.svg",
        "fig4.8-kth-diff-response-easy-los-variants.svg",
    ),
    (
        "kth-lookahead",
        "kth/response_mean.svg",
        "fig4.9-kth-lookahead-response.svg",
    ),
    (
        "kth-lookahead",
        "kth/bounded_slowdown_mean.svg",
        "fig4.10-kth-lookahead-bsld.svg",
    ),
    (
        "kth-lookahead",
        "kth/wait_mean.svg",
        "fig4.11-kth-lookahead-wait.svg",
    ),
    (
        "kth-easy-vs-los",
        "kth/queue_length_mean.svg",
        "fig4.12-kth-mean-queue.svg",
    ),
    (
        "kth-easy-vs-los",
        "kth/queue_0.95.svg",
        "fig4.15-kth-queue-over-time-0.95.svg",
    ),
    (
        "lublin-load",
        "lublin128/utilization.svg",
        "lublin128-utilization.svg",
    ),
    (
        "lublin-load",
        "lublin128/response_mean.svg",
        "lublin128-response.svg",
    ),
    (
        "lublin-load",
        "lublin128/diff_bounded_slowdown.svg",
        "lublin128-diff-bsld.svg",
    ),
    (
        "kumar-fig7",
        "cwf500-ps0.2/wait_mean.svg",
        "kumar-fig7-cwf500-ps0.2-wait_mean.svg",
    ),
    (
        "kumar-fig7",
        "cwf10k-ps0.2/wait_mean.svg",
        "kumar-fig7-cwf10k-ps0.2-wait_mean.svg",
    ),
    (
        "kumar-fig7",
        "cwf500-ps0.2/utilization.svg",
        "kumar-fig7-cwf500-ps0.2-utilization.svg",
    ),
    (
        "kumar-fig7",
        "cwf10k-ps0.2/utilization.svg",
        "kumar-fig7-cwf10k-ps0.2-utilization.svg",
    ),
    (
        "kumar-fig9",
        "cwf500-pd0.5-ps0.2/wait_mean.svg",
        "kumar-fig9-cwf500-pd0.5-ps0.2-wait_mean.svg",
    ),
    (
        "kumar-fig11",
        "cwf500-pd0.5-ps0.5/wait_mean.svg",
        "kumar-fig11-cwf500-pd0.5-ps0.5-wait_mean.svg",
    ),
    (
        "kumar-fig10-dedicated",
        "cwf500-pd0.9/wait_mean.svg",
        "kumar-fig10-cwf500-pd0.9-wait_mean.svg",
    ),
    (
        "kumar-fig10-dedicated",
        "cwf500-pd0.9/utilization.svg",
        "kumar-fig10-cwf500-pd0.9-utilization.svg",
    ),
    (
        "kumar-fig10-dedicated",
        "cwf500-pd0.9/batch_wait_mean.svg",
        "kumar-fig10-cwf500-pd0.9-batch_wait_mean.svg",
    ),
];

/// The Gantt chart of docs/RESULTS.md: LOS (lookahead 50) on KTH at load
/// 0.9, the 300 job starts from t = 5,000,000 s.
const GANTT_FROM: i64 = 5_000_000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Runs and merges the sweeps, copies their figures and draws the Gantt
/// chart.
pub fn run() -> Result<(), String> {
    let traces = std::env::var_os("SCHEDSIM_TRACES").ok_or(
        "set SCHEDSIM_TRACES to the folder of the Parallel Workloads Archive traces \
         (the KTH sweeps read KTH-SP2-1996-2.1-cln.swf.gz from it)",
    )?;
    let root = root();
    let results = root.join("docs").join("results");
    for name in SWEEPS {
        let spec = root.join("experiments").join(format!("{name}.toml"));
        let mut args = SweepArgs::new(&spec);
        args.out = Some(root.join("sweeps").join(name));
        args.quiet = true;
        eprintln!("sweep {name}");
        sweep(&args).map_err(|e| schedsim_cli::error_line(&e))?;
        args.merge = true;
        sweep(&args).map_err(|e| schedsim_cli::error_line(&e))?;
    }
    for (name, figure, target) in FIGURES {
        let from = root.join("sweeps").join(name).join("plots").join(figure);
        copy(&from, &results.join(target))?;
    }
    let run_dir = root.join("sweeps").join("gantt-kth-los50-0.9");
    let mut args = SimulateArgs::new();
    args.workload = Some(Path::new(&traces).join("KTH-SP2-1996-2.1-cln.swf.gz"));
    args.lenient = true;
    args.load = Some(0.9);
    args.policies = vec!["los:lookahead=50".to_owned()];
    args.out = Some(run_dir.clone());
    simulate(&args, &mut std::io::sink()).map_err(|e| schedsim_cli::error_line(&e))?;
    let run = RunDir::read(&run_dir.join("los_lookahead=50"))
        .map_err(|e| schedsim_cli::error_line(&e))?;
    let (from, to) = schedsim_cli::gantt_window(&run, Some(GANTT_FROM), None);
    let target = results.join("gantt-kth-los50-0.9.svg");
    gantt(&run, from, to, GanttColor::Order, &target).map_err(|e| schedsim_cli::error_line(&e))?;
    eprintln!(
        "{} figures in {}",
        FIGURES.len() + 1,
        results.strip_prefix(&root).unwrap_or(&results).display()
    );
    Ok(())
}

/// Copies through a temporary name, so docs/results never holds half a
/// figure.
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    let temporary = to.with_extension("svg.tmp");
    fs::copy(from, &temporary)
        .and_then(|_| fs::rename(&temporary, to))
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

//! `cargo xtask bench`: the performance targets of the issues, measured on
//! the real traces and printed as a table.
//!
//! Each case runs in a fresh child process (this binary with `bench-case`),
//! so its peak resident memory is its own: the child reads the trace (.gz),
//! normalizes it, simulates one policy, computes the metrics, and prints
//! its wall time and peak RSS (`VmHWM` from /proc/self/status). Every case
//! runs several times; the table shows the fastest and the median run. Build
//! in release mode (`cargo xtask bench` does) on a quiet machine: the
//! figures are wall-clock times.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use schedsim_cli::{SimulateArgs, load_workload, metrics_config, run_policy};

/// One performance target.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The issue that sets the target.
    pub issue: u32,
    /// Trace file name in SCHEDSIM_TRACES.
    pub trace: &'static str,
    /// Policy spec.
    pub policy: &'static str,
    /// Target wall time, seconds (read + normalize + simulate + metrics).
    pub seconds: f64,
    /// Target peak resident memory, MB, if any.
    pub rss_mb: Option<f64>,
}

/// The targets of issues 3 and 4.
pub const CASES: &[Case] = &[
    Case {
        issue: 3,
        trace: "LANL-CM5-1994-4.1-cln.swf.gz",
        policy: "fcfs",
        seconds: 0.3,
        rss_mb: None,
    },
    Case {
        issue: 3,
        trace: "LANL-CM5-1994-4.1-cln.swf.gz",
        policy: "easy",
        seconds: 0.3,
        rss_mb: None,
    },
    Case {
        issue: 3,
        trace: "LANL-CM5-1994-4.1-cln.swf.gz",
        policy: "conservative",
        seconds: 1.0,
        rss_mb: None,
    },
    Case {
        issue: 3,
        trace: "RICC-2010-2.swf.gz",
        policy: "easy",
        seconds: 1.5,
        rss_mb: Some(300.0),
    },
    Case {
        issue: 4,
        trace: "KTH-SP2-1996-2.1-cln.swf.gz",
        policy: "los:merit=max-slowdown",
        seconds: 0.5,
        rss_mb: None,
    },
    Case {
        issue: 4,
        trace: "LANL-CM5-1994-4.1-cln.swf.gz",
        policy: "los:merit=max-slowdown",
        seconds: 5.0,
        rss_mb: None,
    },
];

/// What one child run measured.
#[derive(Debug, Clone, Copy)]
struct Measurement {
    seconds: f64,
    rss_mb: f64,
}

/// Runs every case `repeat` times in child processes and prints the table.
/// Returns whether every target was met.
///
/// # Errors
/// SCHEDSIM_TRACES is unset, or a child fails.
pub fn run(repeat: usize) -> Result<bool, String> {
    let traces = std::env::var_os("SCHEDSIM_TRACES")
        .map(PathBuf::from)
        .ok_or("SCHEDSIM_TRACES is not set: point it at the folder of the PWA traces")?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    println!(
        "{:<6} {:<30} {:<24} {:>8} {:>9} {:>9} {:>9} {:>8}  verdict",
        "issue", "trace", "policy", "target", "fastest", "median", "peak RSS", "target"
    );
    let mut all_met = true;
    for (index, case) in CASES.iter().enumerate() {
        let mut runs = Vec::with_capacity(repeat);
        for _ in 0..repeat.max(1) {
            let output = Command::new(&exe)
                .args(["bench-case", &index.to_string()])
                .env("SCHEDSIM_TRACES", &traces)
                .output()
                .map_err(|e| format!("cannot run a benchmark child: {e}"))?;
            if !output.status.success() {
                return Err(format!(
                    "case {} ({} on {}) failed: {}",
                    index,
                    case.policy,
                    case.trace,
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
            runs.push(parse_measurement(&String::from_utf8_lossy(&output.stdout))?);
        }
        runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let fastest = runs[0];
        let median = runs[runs.len() / 2];
        let peak = runs.iter().map(|m| m.rss_mb).fold(0.0, f64::max);
        let met = median.seconds <= case.seconds && case.rss_mb.is_none_or(|limit| peak <= limit);
        all_met &= met;
        println!(
            "{:<6} {:<30} {:<24} {:>7.2}s {:>8.3}s {:>8.3}s {:>7.0}MB {:>8}  {}",
            case.issue,
            case.trace,
            case.policy,
            case.seconds,
            fastest.seconds,
            median.seconds,
            peak,
            case.rss_mb
                .map_or("-".to_owned(), |mb| format!("{mb:.0}MB")),
            if met { "met" } else { "MISSED" }
        );
    }
    println!(
        "\nwall time of read (.gz) + normalize + simulate + metrics in one process; {} runs per case; \
         load average now: {}",
        repeat.max(1),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    Ok(all_met)
}

fn parse_measurement(text: &str) -> Result<Measurement, String> {
    let mut fields = text.split_whitespace();
    let mut next = || -> Result<f64, String> {
        fields
            .next()
            .and_then(|field| field.parse().ok())
            .ok_or_else(|| format!("unexpected benchmark child output: {text:?}"))
    };
    Ok(Measurement {
        seconds: next()?,
        rss_mb: next()?,
    })
}

/// The child side: runs case `index` once and prints `seconds rss_mb`.
///
/// # Errors
/// An unknown case, a missing trace, or a failed simulation.
pub fn run_case(index: usize) -> Result<(), String> {
    let case = CASES
        .get(index)
        .ok_or_else(|| format!("no benchmark case {index}"))?;
    let traces = std::env::var_os("SCHEDSIM_TRACES")
        .map(PathBuf::from)
        .ok_or("SCHEDSIM_TRACES is not set")?;
    let started = Instant::now();
    let args = SimulateArgs {
        workload: Some(traces.join(case.trace)),
        // Real traces hold jobs that cannot be simulated (no size); they are
        // dropped and counted, as a user would run them.
        lenient: true,
        ..SimulateArgs::new()
    };
    let loaded = load_workload(&args).map_err(|e| e.to_string())?;
    let config = metrics_config(&args, loaded.jobs.model().procs);
    let spec = case.policy.parse().map_err(|e| format!("{e}"))?;
    let run = run_policy(&loaded.jobs, &spec, &config).map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    // Keep the result alive until the measurement is taken.
    std::hint::black_box(&run);
    println!("{seconds} {}", peak_rss_mb());
    Ok(())
}

/// Peak resident set size of this process, MB (Linux; 0 elsewhere).
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmHWM:"))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

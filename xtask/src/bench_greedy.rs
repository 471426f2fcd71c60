//! `cargo xtask bench-greedy`: the speed targets of issue 13 on KTH scaled
//! to 1,024 processors (about 167k jobs, Table I's count): one Greedy
//! simulation (target 0.3 s) and simulations per second under random
//! parameter sets, with the projected time of the paper's full training
//! (15 + 100 x 105 = 10,515 simulations; target 60 minutes on 2 cores).
//!
//! Times are simulation plus the group metrics and objective, as one
//! training evaluation; the workload is read and scaled once, before.

use std::path::{Path, PathBuf};

use schedsim_policies::GreedyParameters;
use schedsim_run::SimulateArgs;
use schedsim_train::{TrainingWorkload, bench, median};

/// The paper's simulations for one training: 15 initial parents and 100
/// generations of 105 offspring.
const FULL_TRAINING: f64 = 15.0 + 100.0 * 105.0;

/// f2 with w_i = 1, a = 1, b = K_i = 0 in all situations: FCFS's order.
const FCFS_PARAMS: &str = r#"{"criterion":"f2","a":1,"b":0,"w":[1,1,1,1,1],"k":[0,0,0,0,0]}"#;

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Runs the benchmark and prints its figures.
///
/// # Errors
/// SCHEDSIM_TRACES unset, an unreadable parameter file, or a failed run.
pub fn run(repeat: usize, random: usize, seed: u64, params: Option<&Path>) -> Result<(), String> {
    let traces = std::env::var_os("SCHEDSIM_TRACES")
        .map(PathBuf::from)
        .ok_or("SCHEDSIM_TRACES is not set")?;
    let mut args = SimulateArgs::new();
    args.workload = Some(traces.join("KTH-SP2-1996-2.1-cln.swf.gz"));
    args.lenient = true;
    args.scale_to = Some(1024);
    args.scale_jobs = Some(167_375);
    let workload = TrainingWorkload::load(&args).map_err(|e| schedsim_cli::error_line(&e))?;
    let (fixed_name, fixed): (String, GreedyParameters) = match params {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let params =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            (path.display().to_string(), params)
        }
        None => {
            let text = format!(
                r#"{{"weekend":{FCFS_PARAMS},"weekday_day":{FCFS_PARAMS},"weekday_night":{FCFS_PARAMS}}}"#
            );
            let params = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            ("f2 in FCFS order".to_owned(), params)
        }
    };
    println!(
        "KTH scaled to 1,024 processors: {} jobs; load average before: {}",
        workload.loaded.jobs.len(),
        load_average()
    );
    let report = bench(&workload, &fixed, repeat.max(1), random, seed)
        .map_err(|e| schedsim_cli::error_line(&e))?;
    let fixed_median = median(&report.fixed);
    let fastest = report.fixed.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "Greedy ({fixed_name}): median {fixed_median:.3} s, fastest {fastest:.3} s over {} runs \
         (target 0.3 s: {})",
        report.fixed.len(),
        if fixed_median <= 0.3 { "met" } else { "MISSED" }
    );
    if !report.random.is_empty() {
        let times: Vec<f64> = report.random.iter().map(|r| r.1).collect();
        let slowest = report
            .random
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(layout, t)| format!("{t:.3} s ({layout})"))
            .unwrap_or_default();
        println!(
            "{} random parameter sets (criteria f1-f4 per situation, seed {seed}): median {:.3} s, \
             slowest {slowest}; {:.2} simulations/s on one thread",
            times.len(),
            median(&times),
            times.len() as f64 / times.iter().sum::<f64>()
        );
        let threads = rayon::current_num_threads();
        println!(
            "the same on {threads} threads: {:.2} simulations/s; the paper's full training \
             (10,515 simulations) would take {:.1} minutes (target 60)",
            report.parallel_rate,
            FULL_TRAINING / report.parallel_rate / 60.0
        );
    }
    println!("load average after: {}", load_average());
    Ok(())
}

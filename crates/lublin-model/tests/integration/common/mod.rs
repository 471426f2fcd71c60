//! Test helpers: reading the reference traces (the KS test is the
//! crate's own `ks_two_sample`).
#![allow(dead_code)]

use std::path::PathBuf;

pub use lublin_model::ks_two_sample;

/// The traces folder from `SCHEDSIM_TRACES`, or `None` after printing why
/// the test is skipped.
pub fn traces_dir() -> Option<PathBuf> {
    match std::env::var_os("SCHEDSIM_TRACES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            println!("skipped: SCHEDSIM_TRACES not set");
            None
        }
    }
}

/// One job of a trace: submit time, runtime, size, queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job {
    pub submit: u64,
    pub runtime: u64,
    pub size: u64,
    /// Field 15: 1 batch, 0 interactive.
    pub queue: u64,
}

/// Reads a (gzipped) SWF trace strictly with workload-format and keeps
/// fields 2, 4, 5 and 15, which every line of the reference traces has.
pub fn read_trace(path: &std::path::Path) -> Vec<Job> {
    let workload = workload_format::read_path(path, &workload_format::ReadOptions::strict())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    workload
        .records
        .iter()
        .map(|r| {
            let field = |value: Option<u64>, name: &str| {
                value.unwrap_or_else(|| {
                    panic!("{}: job {}: no {name}", path.display(), r.job_number)
                })
            };
            Job {
                submit: field(r.submit_time, "submit time"),
                runtime: field(r.run_time, "run time"),
                size: field(r.allocated_processors, "allocated processors"),
                queue: field(r.queue_number, "queue"),
            }
        })
        .collect()
}

//! Arbitrary bytes as a workload on a 64-processor machine, read and
//! normalized leniently, then simulated under policies of every engine
//! (scan, profile, conservative reservations, the LOS programme, elastic
//! commands), with jobs killed at or running past their estimates: no
//! panic, and no run that ends in an error the engine could have avoided.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedsim_policies::{PolicySpec, build_policy};
use schedsim_sim_core::{JobModel, JobSet, OverrunRule, Strictness, simulate};
use workload_format::{ReadOptions, read_from};

const POLICIES: &[&str] = &[
    "fcfs",
    "easy",
    "conservative",
    "backfill:depth=3",
    "easy:order=sjf",
    "los",
    "hybrid-los-e",
    "easy-d",
];

/// The most seconds of overrun (runtime past estimate, summed over the
/// jobs) simulated under [`OverrunRule::Extend`].
const MAX_FUZZED_OVERRUNS: i64 = 3_600;

fuzz_target!(|bytes: &[u8]| {
    let Ok(workload) = read_from(bytes, "fuzz.swf", &ReadOptions::lenient()) else {
        return;
    };
    for overrun in [OverrunRule::Kill, OverrunRule::Extend] {
        let mut model = JobModel::new(64);
        model.overrun = overrun;
        model.strictness = Strictness::Lenient;
        let Ok(jobs) = JobSet::from_records(&workload.records, &model) else {
            return;
        };
        // Conservative backfilling runs once a second while a job runs past
        // its estimate (such a job is expected to end a second from now,
        // and a reservation then is a promise it keeps): a fuzzed overrun
        // of 10^9 s is hours of simulation, not a finding. An hour of
        // overruns in all still covers the engine's and the policies'
        // overrun paths.
        let overruns = jobs.jobs().iter().fold(0i64, |total, job| {
            total.saturating_add(job.runtime.saturating_sub(job.estimate).max(0))
        });
        if overrun == OverrunRule::Extend && overruns > MAX_FUZZED_OVERRUNS {
            continue;
        }
        for name in POLICIES {
            let spec: PolicySpec = name.parse().expect("known spec");
            let mut policy = build_policy(&spec).expect("known policy");
            // The engine checks every decision (capacity, start after
            // submit, each job once); a policy bug is an Err or a panic,
            // and both are findings.
            if let Err(error) = simulate(&jobs, &mut *policy) {
                panic!("{name} ({overrun:?}): {error}");
            }
        }
    }
});

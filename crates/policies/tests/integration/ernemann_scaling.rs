//! Ernemann et al.'s adjusted scaling factor, calibrated with EASY on the
//! real KTH trace (needs SCHEDSIM_TRACES): the adjustment at which EASY's
//! AWRT on the trace scaled to 1,024 processors equals EASY's AWRT on the
//! original 100 processors lands the job count on Table I of the Greedy-ES
//! paper (167,375), which the paper got from the same procedure.

use std::path::PathBuf;

use schedsim_policies::{PolicySpec, build_policy};
use schedsim_sim_core::{
    JobId, JobModel, JobSet, MachineScaling, Strictness, calibrate_adjustment, scale_machine,
    simulate,
};
use workload_format::{ReadOptions, Record, read_path};

/// AWRT (response weighted by size x run time) of EASY on `procs`
/// processors; jobs that cannot be simulated are dropped (KTH has one
/// without a size).
fn easy_awrt(records: &[Record], procs: u32) -> f64 {
    let mut model = JobModel::new(procs);
    model.strictness = Strictness::Lenient;
    let jobs = JobSet::from_records(records, &model).unwrap();
    let mut easy = build_policy(&"easy".parse::<PolicySpec>().unwrap()).unwrap();
    let schedule = simulate(&jobs, &mut *easy).unwrap();
    let (mut work, mut weighted) = (0.0, 0.0);
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let area = f64::from(job.size) * (schedule.end(id) - schedule.start(id)) as f64;
        work += area;
        weighted += area * (schedule.end(id) - job.submit) as f64;
    }
    weighted / work
}

#[test]
fn kth_calibrated_by_easy_lands_on_table_1() {
    let Some(dir) = std::env::var_os("SCHEDSIM_TRACES") else {
        println!("skipped: SCHEDSIM_TRACES not set");
        return;
    };
    let path = PathBuf::from(dir).join("KTH-SP2-1996-2.1-cln.swf.gz");
    let kth = read_path(&path, &ReadOptions::strict()).unwrap().records;
    // EASY on KTH's 100 processors: AWRT 75,583 s. At the exact factor
    // (adjustment 1) the scaled trace gives about 69,000-70,000 s: the
    // larger machine packs better, as Ernemann et al. found.
    let target = easy_awrt(&kth, 100);
    assert!((target - 75_583.0).abs() < 1.0, "{target}");
    // Two seeds, one thread each; 7 halvings of [1, 1.3] after its ends.
    let counts: Vec<(u64, f64, usize)> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|seed| {
                let kth = &kth;
                scope.spawn(move || {
                    let scaling = MachineScaling::new(100, 1024).with_seed(seed);
                    let calibration =
                        calibrate_adjustment(kth, &scaling, target, 1.3, 7, |scaled| {
                            Ok(easy_awrt(scaled, 1024))
                        })
                        .unwrap();
                    assert!(calibration.bracketed);
                    let (scaled, _) =
                        scale_machine(kth, &scaling.with_adjustment(calibration.adjustment))
                            .unwrap();
                    (seed, calibration.adjustment, scaled.len())
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    // Seeds 0-3 calibrate to adjustments 1.047-1.056 and 166,767-168,262
    // jobs (-0.36% to +0.53% of Table I).
    for (seed, adjustment, jobs) in counts {
        assert!(
            (1.03..1.08).contains(&adjustment),
            "seed {seed}: {adjustment}"
        );
        let off = jobs as f64 / 167_375.0 - 1.0;
        assert!(off.abs() < 0.01, "seed {seed}: {jobs} jobs ({off:+.4})");
    }
}

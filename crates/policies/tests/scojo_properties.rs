//! SCOJO-PECT's invariants on random workloads (proptest), with the
//! thesis's switch overheads: every run ends without a refused decision
//! (the engine checks capacity, that a job resumes on exactly its
//! processors, and that nothing starts before it arrives); every job runs
//! to its end; its run segments do not overlap and hold its processors for
//! its runtime plus one suspend and one resume overhead per suspension; and
//! the optimiser's searches stay within their budgets.

use proptest::prelude::*;
use schedsim_policies::{PolicySpec, build_policy};
use schedsim_sim_core::{
    FinalState, Job, JobId, JobModel, JobSet, SimOptions, SwitchOverhead, simulate_with,
};

/// Suspend and resume overheads of the runs (the thesis uses 60 s each;
/// unequal here so that a mix-up shows).
const SUSPEND: i64 = 60;
const RESUME: i64 = 40;

prop_compose! {
    /// Up to 30 jobs on 16 processors: sizes 1-16; runtimes short (under
    /// 10 min), medium (under 3 h) or long; exact estimates; submits in the
    /// first 4 hours.
    fn workload()(specs in proptest::collection::vec(
        (0i64..14_400, 1u32..=16, 0u8..3, 1i64..600), 1..30)) -> JobSet {
        let mut specs = specs;
        specs.sort_by_key(|s| s.0);
        let jobs = specs
            .iter()
            .enumerate()
            .map(|(i, &(submit, size, class, seed))| {
                let runtime = match class {
                    0 => seed,              // short: 1-599 s
                    1 => 600 + seed * 17,   // medium: 617-10,783 s
                    _ => 10_800 + seed * 60, // long: 3 h to 13 h
                };
                Job::new(i as u64 + 1, submit, size, runtime, runtime)
            })
            .collect();
        JobSet::from_jobs(jobs, &JobModel::new(16)).unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn segments_add_up_and_every_job_ends(jobs in workload()) {
        let options = SimOptions::default().with_switch_overhead(SwitchOverhead {
            suspend: SUSPEND,
            resume: RESUME,
        });
        // A short cycle so that slices end often, and small groups so that
        // the optimiser forms some. (With `smart=off` the short slice, 4.5 s
        // of 900, is shorter than the overheads: see the test below.)
        for spec in [
            "scojo-pect:cycle=900",
            "scojo-pect-opt:cycle=900,long-min-jobs=2,medium-min-jobs=2,long-size-factor=0.5,medium-size-factor=0.5,budget=200",
        ] {
            let mut policy = build_policy(&spec.parse::<PolicySpec>().unwrap()).unwrap();
            let schedule = simulate_with(&jobs, &mut *policy, &options)
                .unwrap_or_else(|e| panic!("{spec}: {e}"));
            for (index, job) in jobs.jobs().iter().enumerate() {
                let id = JobId(index as u32);
                prop_assert_eq!(schedule.final_state(id), FinalState::CompletedSuccessfully,
                    "{}: job {}", spec, job.number);
                prop_assert!(schedule.start(id) >= job.submit);
                let segments: Vec<_> = schedule.segments(id).collect();
                for pair in segments.windows(2) {
                    prop_assert!(pair[0].end <= pair[1].start, "{}: job {} segments overlap", spec, job.number);
                }
                let held: i64 = segments.iter().map(|s| s.end - s.start).sum();
                let suspensions = i64::from(schedule.suspensions(id));
                prop_assert_eq!(suspensions as usize + 1, segments.len());
                prop_assert_eq!(
                    held,
                    job.runtime + suspensions * (SUSPEND + RESUME),
                    "{}: job {} held its processors {} s for {} s of work and {} suspensions",
                    spec, job.number, held, job.runtime, suspensions
                );
            }
            // At most `budget` schedules per group searched.
            let counters = policy.counters();
            let count = |name: &str| counters.iter().find(|(n, _)| *n == name).map(|&(_, v)| v);
            if let (Some(groups), Some(schedules)) = (count("groups"), count("schedules_evaluated")) {
                prop_assert!(schedules <= 200 * groups, "{spec}: {schedules} schedules for {groups} groups");
            }
        }
    }
}

/// With smart backfilling off, a class whose slice is no longer than a
/// suspension plus a resumption would never progress (the run never ended
/// before this check): the policy stops with a message instead. Cycle 900
/// s: the short slice is 900 x (1 - 0.73 - 0.265) = 4.5 s (5 s in whole
/// seconds), below 60 + 40 s.
/// With the overheads at 0 the same run ends.
#[test]
fn a_slice_shorter_than_the_switch_overheads_is_refused() {
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 4, 20_000, 20_000),
            Job::new(2, 10, 4, 100, 100),
        ],
        &JobModel::new(16),
    )
    .unwrap();
    let spec: PolicySpec = "scojo-pect:cycle=900,smart=off".parse().unwrap();
    let overheads = SimOptions::default().with_switch_overhead(SwitchOverhead {
        suspend: SUSPEND,
        resume: RESUME,
    });
    let error = simulate_with(&jobs, &mut *build_policy(&spec).unwrap(), &overheads)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("job 2 is short and its slice lasts 5 s, no longer than a suspension and a resumption (100 s)"),
        "{error}"
    );
    let schedule = simulate_with(
        &jobs,
        &mut *build_policy(&spec).unwrap(),
        &SimOptions::default(),
    )
    .unwrap();
    assert_eq!(
        schedule.final_state(JobId(1)),
        FinalState::CompletedSuccessfully
    );
}

//! SCOJO-PECT's invariants on random workloads (proptest), with the
//! thesis's switch overheads: every run ends without a refused decision
//! (the engine checks capacity, that a job resumes on exactly its
//! processors, and that nothing starts before it arrives); every job runs
//! to its end; its run segments do not overlap and hold its processors for
//! its runtime plus one suspend and one resume overhead per suspension; and
//! the optimiser's searches stay within their budgets.

use proptest::prelude::*;
use schedsim_policies::{
    OptimiserConfig, PolicySpec, ScojoConfig, ScojoPect, SliceEnd, build_policy,
};
use schedsim_sim_core::{
    Decisions, FinalState, Job, JobId, JobModel, JobSet, Policy, SimOptions, SwitchOverhead, View,
    simulate_with,
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
            "scojo-pect-opt:cycle=900,long-min-jobs=2,medium-min-jobs=2,long-size-factor=0.5,medium-size-factor=0.5,budget=200,dynamic-fit=on,slice-end=all",
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
/// With the overheads at 0 the same run ends, and so it does with a
/// minimum slice longer than the overheads.
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
    // min-slice (ours) lengthens the 5 s short slice to 200 s (the cycle
    // to 1,095 s): the run ends with the overheads, and the short job runs
    // in its slice of 200 s after its resumption.
    let spec: PolicySpec = "scojo-pect:cycle=900,smart=off,min-slice=200"
        .parse()
        .unwrap();
    let schedule = simulate_with(&jobs, &mut *build_policy(&spec).unwrap(), &overheads).unwrap();
    for id in [JobId(0), JobId(1)] {
        assert_eq!(schedule.final_state(id), FinalState::CompletedSuccessfully);
    }
}

prop_compose! {
    /// A cycle of 3,000-6,000 s with long, medium and short shares of at
    /// least 20% each (every slice at least 600 s, well above the switch
    /// overheads), and one runtime per class.
    fn shares()(
        cycle in 3_000i64..6_000,
        long in 0.3f64..0.5,
        medium in 0.2f64..0.3,
        short_runtime in 60i64..600,
        medium_runtime in 600i64..10_800,
        long_runtime in 10_800i64..40_000,
        overhead in prop_oneof![Just(0i64), Just(60)],
    ) -> (i64, f64, f64, [i64; 3], i64) {
        (cycle, long, medium, [short_runtime, medium_runtime, long_runtime], overhead)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Class shares: with every class always waiting (full-machine jobs of
    /// all three classes submitted at 0, more work than the window holds),
    /// the machine is never idle and over five cycles each class holds it
    /// for its configured share of the time within one of its slices
    /// (exactly, in whole slices, without overheads; with 60 s each way a
    /// class's suspension runs 60 s into the next slice).
    #[test]
    fn class_shares_match_the_configured_ones((cycle, long, medium, runtimes, overhead) in shares()) {
        let window = 5 * cycle;
        let mut jobs = Vec::new();
        for &runtime in &runtimes {
            // More work than the window: each class's backlog outlasts it.
            for _ in 0..(window / runtime + 2) {
                let number = jobs.len() as u64 + 1;
                jobs.push(Job::new(number, 0, 4, runtime, runtime));
            }
        }
        let jobs = JobSet::from_jobs(jobs, &JobModel::new(4)).unwrap();
        let spec: PolicySpec = format!("scojo-pect:cycle={cycle},long-share={long},medium-share={medium}")
            .parse()
            .unwrap();
        let policy = build_policy(&spec).unwrap();
        let options = SimOptions::default().with_switch_overhead(SwitchOverhead {
            suspend: overhead,
            resume: overhead,
        });
        let mut policy = policy;
        let schedule = simulate_with(&jobs, &mut *policy, &options).unwrap();
        // The slices as the policy cuts them (whole seconds).
        let long_slice = (long * cycle as f64).floor() as i64;
        let medium_slice = (medium * cycle as f64).floor() as i64;
        let short_slice = cycle - long_slice - medium_slice;
        let mut held = [0i64; 3];
        for (index, job) in jobs.jobs().iter().enumerate() {
            let class = runtimes.iter().position(|&r| r == job.runtime).unwrap();
            for segment in schedule.segments(JobId(index as u32)) {
                let (from, to) = (segment.start.max(0), segment.end.min(window));
                if to > from {
                    held[class] += to - from;
                }
            }
        }
        // Never idle: the classes hold the machine the whole window.
        prop_assert_eq!(held.iter().sum::<i64>(), window, "{:?}", held);
        for (class, slice) in [short_slice, medium_slice, long_slice].into_iter().enumerate() {
            let expected = 5 * slice;
            prop_assert!(
                (held[class] - expected).abs() <= slice,
                "class {} held {} s of {} s, expected {} (slice {} s)",
                class, held[class], window, expected, slice
            );
            if overhead == 0 {
                prop_assert_eq!(held[class], expected);
            }
        }
    }
}

/// A bad pair of options is reported by the one the spec set.
#[test]
fn a_bad_pair_names_the_option_given() {
    for (spec, named) in [
        ("scojo-pect-opt:long-min-jobs=40", "`long-min-jobs` = `40`"),
        (
            "scojo-pect-opt:medium-max-jobs=5",
            "`medium-max-jobs` = `5`",
        ),
        ("scojo-pect-opt:min-util=2", "`min-util` = `2`"),
        ("scojo-pect:min-slice=5000", "`min-slice` = `5000`"),
        // Level 1 permuting no job.
        ("scojo-pect-opt:max-wide=0", "`max-wide` = `0`"),
    ] {
        let error = build_policy(&spec.parse::<PolicySpec>().unwrap())
            .err()
            .unwrap_or_else(|| panic!("{spec} was accepted"))
            .to_string();
        assert!(error.contains(named), "{spec}: {error}");
    }
}

/// SCOJO-PECT woken at every slice end while anything is in the system,
/// as it woke itself before it learned to skip the slice ends that change
/// nothing (`ScojoPect`'s quiet stretches).
struct EverySliceEnd(ScojoPect);

impl Policy for EverySliceEnd {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.0.schedule(view, decisions);
        let busy = !view.queue().is_empty()
            || !view.suspended().is_empty()
            || view.running().len() > 0
            || !decisions.is_empty();
        if let (true, Some((_, end))) = (busy, self.0.current_slice()) {
            decisions.wake_at(end);
        }
    }
}

prop_compose! {
    /// Up to 20 jobs on 16 processors, sparse enough that the machine often
    /// runs jobs with none waiting; estimates up to three times the
    /// runtime, so that jobs end early without a call of the policy. The
    /// first job arrives at 0, which starts the slice clock (cycle 900 s:
    /// long 657 s, short 5 s, medium 238 s), and some arrive on a slice
    /// end (k x 900, + 657 or + 662), where a skipped stretch meets a
    /// slice end that acts.
    fn sparse_workload()(specs in proptest::collection::vec(
        (0i64..40_000, proptest::option::of((0i64..45, 0usize..3)),
         1u32..=16, 0u8..3, 1i64..600, 1i64..=3), 1..20)) -> JobSet {
        let mut specs: Vec<_> = specs
            .into_iter()
            .map(|(submit, aligned, size, class, seed, over)| {
                let submit = match aligned {
                    Some((cycle, slice)) => cycle * 900 + [0, 657, 662][slice],
                    None => submit,
                };
                (submit, size, class, seed, over)
            })
            .collect();
        specs[0].0 = 0;
        specs.sort_by_key(|s| s.0);
        let jobs = specs
            .iter()
            .enumerate()
            .map(|(i, &(submit, size, class, seed, over))| {
                let runtime = match class {
                    0 => seed,
                    1 => 600 + seed * 17,
                    _ => 10_800 + seed * 60,
                };
                Job::new(i as u64 + 1, submit, size, runtime * over, runtime)
            })
            .collect();
        JobSet::from_jobs(jobs, &JobModel::new(16)).unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Without switch overheads, a slice end while nothing waits or is
    /// suspended suspends and resumes the running jobs in one instant,
    /// which is dropped: the policy skips such slice ends. Woken at every
    /// one of them anyway, it makes the same schedule and counts the same
    /// suspensions, resumptions and smart backfills.
    #[test]
    fn skipped_quiet_slice_ends_change_nothing(jobs in sparse_workload()) {
        let mut optimiser = OptimiserConfig::default();
        for group in [&mut optimiser.long, &mut optimiser.medium] {
            group.min_jobs = 2;
            group.size_factor = 0.5;
        }
        optimiser.search.budget = 100;
        for (slice_end, smart, optimiser) in [
            (SliceEnd::Class, true, None),
            (SliceEnd::All, true, None),
            // Without smart backfilling a slice end suspends for real.
            (SliceEnd::Class, false, None),
            (SliceEnd::Class, true, Some(optimiser)),
        ] {
            let mut config = ScojoConfig::default();
            config.cycle = 900;
            config.slice_end = slice_end;
            config.smart_backfill = smart;
            config.optimiser = optimiser;
            let mut skipping = ScojoPect::new(config, "skipping");
            let mut woken = EverySliceEnd(ScojoPect::new(config, "woken"));
            let options = SimOptions::default();
            let skipped = simulate_with(&jobs, &mut skipping, &options).unwrap();
            let every = simulate_with(&jobs, &mut woken, &options).unwrap();
            for index in 0..jobs.len() {
                let id = JobId(index as u32);
                prop_assert_eq!(skipped.final_state(id), every.final_state(id));
                prop_assert_eq!(
                    skipped.segments(id).collect::<Vec<_>>(),
                    every.segments(id).collect::<Vec<_>>(),
                    "{:?} smart {} optimiser {}: job {}", slice_end, smart, optimiser.is_some(), index + 1
                );
            }
            // Slices are counted up to each run's last call, which differ.
            let (mut a, mut b) = (skipping.counts(), woken.0.counts());
            (a.slices, b.slices) = (0, 0);
            prop_assert_eq!(a, b);
            prop_assert!(
                skipped.stats().policy_calls <= every.stats().policy_calls,
                "{} calls skipping, {} woken", skipped.stats().policy_calls, every.stats().policy_calls
            );
        }
    }
}

/// A job of 2^52 s (4.5 x 10^15) alone on the machine: the policy used to
/// wake at each of its 3.75 x 10^12 slice ends (a cycle of 3,600 s has
/// three). Now the first quiet slice end is the last call.
#[test]
fn a_lone_long_job_is_not_woken_at_every_slice_end() {
    let runtime = 1i64 << 52;
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 4, runtime, runtime),
            Job::new(2, 10, 4, 100, 100),
        ],
        &JobModel::new(16),
    )
    .unwrap();
    let mut policy = ScojoPect::new(ScojoConfig::default(), "scojo-pect");
    let schedule = simulate_with(&jobs, &mut policy, &SimOptions::default()).unwrap();
    // Job 1 starts at 0 and job 2 at its arrival (10 s); neither is
    // suspended.
    assert_eq!(schedule.start(JobId(0)), 0);
    assert_eq!(schedule.end(JobId(0)), runtime);
    assert_eq!(schedule.start(JobId(1)), 10);
    assert_eq!(schedule.suspensions(JobId(0)), 0);
    // Calls: at 0 and 10 s the arrivals start; job 2's end at 110 s calls
    // nothing (nothing waits); at the long slice's end (2,628 s: 0.73 x
    // 3,600, floored) job 1 is suspended and resumed in one instant, which
    // changes nothing: that call is quiet and the last.
    assert_eq!(
        schedule.stats().policy_calls,
        3,
        "{} calls",
        schedule.stats().policy_calls
    );
}

//! Properties of the algorithms of Kumar et al. over random CWF-like
//! workloads: batch and dedicated jobs, elastic control commands.
//!
//! - every schedule is feasible and deterministic;
//! - without dedicated jobs EASY-D is EASY, LOS-D is LOS and Hybrid-LOS is
//!   Delayed-LOS (with or without the ECC processor);
//! - Delayed-LOS skips a head that fits at most C_s times;
//! - EASY-D and LOS-D start every dedicated job exactly when capacity
//!   allows, Hybrid-LOS under the conditions stated below.

use std::collections::BTreeMap;

use lublin_model::{CwfGenerator, CwfParams};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schedsim_policies::{
    Backfill, DedicatedMode, DelayedLos, DelayedLosConfig, EasyD, HeadRule, HybridLos, Los,
    LosConfig, LosD, LosMerit, LosVariant, PolicySpec, TracebackOrder, build_policy,
};
use schedsim_sim_core::{
    Change, Decisions, ElasticCommand, Job, JobId, JobModel, JobSet, Policy, Schedule, Time, View,
    simulate,
};

const PROCS: u32 = 16;

/// Random CWF-like jobs on 16 processors: with `exact` estimates equal
/// runtimes, else they are up to 40 s longer; one job in `dedicated_one_in`
/// (none if 0) asks to start 0-60 s after its submission; with `commands`
/// up to 8 ET/RT commands of 1-50 s arrive 0-60 s after their job.
fn workload(exact: bool, dedicated_one_in: u8, commands: bool) -> impl Strategy<Value = JobSet> {
    let job = (
        0..150i64,
        1..=PROCS,
        1..40i64,
        0..40i64,
        0..dedicated_one_in.max(1),
        0..60i64,
    );
    let command = (0..28usize, 0..60i64, any::<bool>(), 1..50i64);
    let max_commands = if commands { 8 } else { 0 };
    (
        prop::collection::vec(job, 1..28),
        prop::collection::vec(command, 0..=max_commands),
    )
        .prop_map(move |(specs, commands)| {
            let jobs: Vec<Job> = specs
                .into_iter()
                .enumerate()
                .map(|(i, (submit, size, runtime, slack, kind, delay))| {
                    let estimate = if exact { runtime } else { runtime + slack };
                    let job = Job::new(i as u64, submit, size, estimate, runtime);
                    if dedicated_one_in > 0 && kind == 0 {
                        job.with_requested_start(submit + delay)
                    } else {
                        job
                    }
                })
                .collect();
            let set = JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap();
            let commands = commands
                .into_iter()
                .filter(|&(job, ..)| job < set.len())
                .map(|(job, offset, extend, amount)| ElasticCommand {
                    time: set.jobs()[job].submit + offset,
                    job: JobId(job as u32),
                    change: if extend {
                        Change::ExtendTime(amount)
                    } else {
                        Change::ReduceTime(amount)
                    },
                })
                .collect();
            set.with_commands(commands).unwrap()
        })
}

/// Every policy of Table III but plain EASY and LOS, with some settings.
fn kumar_specs() -> Vec<&'static str> {
    vec![
        "easy-e",
        "easy-d",
        "easy-de",
        "los-e",
        "los-d",
        "los-de",
        "los-d:lookahead=3,merit=max-slowdown",
        "easy-d:dedicated=head",
        "easy-de:dedicated=head-all",
        "los-d:dedicated=head",
        "los-de:dedicated=head-all",
        "los-d:dedicated=head-all,lookahead=3",
        "easy-d:dedicated=head-literal",
        "los-de:dedicated=head-literal",
        "delayed-los",
        "delayed-los:cs=0",
        "delayed-los:cs=1,lookahead=3",
        "delayed-los-e:cs=2,merit=maxjobs",
        "hybrid-los",
        "hybrid-los:cs=0",
        "hybrid-los:cs=1,lookahead=3,traceback=selected-first",
        "hybrid-los-e",
        "hybrid-los-e:cs=2,merit=max-slowdown",
    ]
}

fn build(spec: &str) -> Box<dyn Policy + Send> {
    build_policy(&spec.parse::<PolicySpec>().unwrap()).unwrap()
}

/// Checks, independently of the simulator, that no job starts before its
/// submission nor (with a policy that handles dedicated jobs) before its
/// requested start, that it runs its runtime unless a command changed it,
/// and that processors in use never exceed the machine.
fn check_feasible(
    jobs: &JobSet,
    schedule: &Schedule,
    dedicated_handled: bool,
) -> Result<(), String> {
    let mut changes: Vec<(Time, i64)> = Vec::new();
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let (start, end) = (schedule.start(id), schedule.end(id));
        if start < job.submit {
            return Err(format!(
                "job {index} starts at {start} before its submission {}",
                job.submit
            ));
        }
        if let Some(requested) = job
            .requested_start
            .filter(|&r| dedicated_handled && start < r)
        {
            return Err(format!(
                "dedicated job {index} starts at {start} before its requested start {requested}"
            ));
        }
        let commanded = jobs.commands().iter().any(|command| command.job == id);
        if end < start || (!commanded && end != start + job.runtime) {
            return Err(format!(
                "job {index} runs [{start}, {end}) with runtime {}",
                job.runtime
            ));
        }
        let allocated: u32 = schedule.allocation(id).iter().map(|r| r.len()).sum();
        if allocated != job.size {
            return Err(format!(
                "job {index} got {allocated} processors, needs {}",
                job.size
            ));
        }
        changes.push((start, i64::from(job.size)));
        changes.push((end, -i64::from(job.size)));
    }
    // Ends before starts at equal times: processors freed at t are free at t.
    changes.sort_unstable();
    let mut in_use = 0;
    for (time, delta) in changes {
        in_use += delta;
        if in_use > i64::from(jobs.model().procs) {
            return Err(format!("{in_use} processors in use at {time}"));
        }
    }
    Ok(())
}

/// Hybrid-LOS's guarantee (see the property below): the dedicated jobs
/// that are the only dedicated job waiting from their submission to their
/// requested start, and for which the jobs running at their submission and
/// expected to run until the requested start or later leave enough
/// processors.
fn lone_dedicated_jobs_with_room(jobs: &JobSet, schedule: &Schedule) -> Vec<usize> {
    let start_of = |index: usize| schedule.start(JobId(index as u32));
    let end_of = |index: usize| schedule.end(JobId(index as u32));
    let mut found = Vec::new();
    for (d, job) in jobs.jobs().iter().enumerate() {
        let Some(requested) = job.requested_start else {
            continue;
        };
        // Another dedicated job waits at some instant of [submit, requested]
        // if it is submitted by `requested` and starts at `submit` or later.
        let alone = jobs.jobs().iter().enumerate().all(|(other, other_job)| {
            other == d
                || other_job.requested_start.is_none()
                || other_job.submit > requested
                || start_of(other) < job.submit
        });
        let busy_at_requested: u32 = jobs
            .jobs()
            .iter()
            .enumerate()
            .filter(|&(other, _)| {
                other != d
                    && start_of(other) < job.submit
                    && end_of(other) > job.submit
                    && end_of(other) >= requested
            })
            .map(|(_, other_job)| other_job.size)
            .sum();
        if alone && busy_at_requested + job.size <= PROCS {
            found.push(d);
        }
    }
    found
}

/// Wraps Delayed-LOS and counts, for every job, the calls in which it was
/// the queue head, fitted the free processors, and was not started.
struct SkipRecorder<P> {
    inner: P,
    skips: BTreeMap<JobId, u32>,
}

impl<P: Policy> Policy for SkipRecorder<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> schedsim_sim_core::Capabilities {
        self.inner.capabilities()
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.inner.schedule(view, decisions);
        if let Some(&head) = view.queue().first()
            && view.job(head).size <= view.free()
            && !decisions.starts().contains(&head)
        {
            *self.skips.entry(head).or_default() += 1;
        }
    }
}

/// The earliest time, not before `from`, at which `size` processors are
/// free for `duration` given busy `intervals` ([start, end), processors):
/// `from` itself or the end of an interval.
fn earliest_fit(intervals: &[(Time, Time, u32)], from: Time, size: u32, duration: Time) -> Time {
    let used_at = |t: Time| -> u32 {
        intervals
            .iter()
            .filter(|&&(start, end, _)| start <= t && t < end)
            .map(|&(_, _, procs)| procs)
            .sum()
    };
    let fits_at = |anchor: Time| {
        // Usage only rises at interval starts: check the anchor and every
        // start inside the window.
        std::iter::once(anchor)
            .chain(
                intervals
                    .iter()
                    .map(|&(start, _, _)| start)
                    .filter(|&start| anchor < start && start < anchor + duration),
            )
            .all(|t| used_at(t) + size <= PROCS)
    };
    let mut anchors: Vec<Time> = std::iter::once(from)
        .chain(
            intervals
                .iter()
                .map(|&(_, end, _)| end)
                .filter(|&end| end > from),
        )
        .collect();
    anchors.sort_unstable();
    anchors
        .into_iter()
        .find(|&anchor| fits_at(anchor))
        .expect("everything ends")
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_schedule_is_feasible_and_deterministic(jobs in workload(false, 3, true)) {
        for spec in kumar_specs() {
            let mut policy = build(spec);
            let dedicated = policy.capabilities().dedicated_jobs;
            let schedule = simulate(&jobs, &mut policy).unwrap();
            check_feasible(&jobs, &schedule, dedicated).map_err(TestCaseError::fail)?;
            let again = simulate(&jobs, &mut build(spec)).unwrap();
            prop_assert_eq!(schedule.starts(), again.starts(), "{}", spec);
            prop_assert_eq!(schedule.ends(), again.ends(), "{}", spec);
        }
    }

    #[test]
    fn without_dedicated_jobs_the_d_variants_are_the_batch_policies(
        jobs in workload(false, 0, true),
    ) {
        // EASY-D is EASY and LOS-D is LOS (every variant), as their docs
        // argue; Hybrid-LOS is Delayed-LOS (Algorithm 2, lines 3-4); with
        // and without the ECC processor.
        for elastic in [false, true] {
            let mut easy = schedsim_policies::Elastic::new(Backfill::easy(), "easy-e");
            let easy = if elastic {
                simulate(&jobs, &mut easy).unwrap()
            } else {
                simulate(&jobs, &mut Backfill::easy()).unwrap()
            };
            for mode in DedicatedMode::ALL {
                let easy_d = simulate(&jobs, &mut EasyD::new(elastic).with_dedicated(mode)).unwrap();
                prop_assert_eq!(easy.starts(), easy_d.starts(), "{}", mode);
            }
            for variant in [LosVariant::Reservation, LosVariant::Basic] {
                for merit in [LosMerit::None, LosMerit::MaxSlowdown] {
                    for traceback in [TracebackOrder::BypassedFirst, TracebackOrder::SelectedFirst] {
                        for lookahead in [2, 50] {
                            let config = LosConfig::new(variant, merit, traceback, lookahead);
                            // LOS-D starts batch heads while they fit (the
                            // all-fitting rule), as Kumar et al.'s LOS-D does.
                            let batch = config.with_head(HeadRule::AllFitting);
                            let los = if elastic {
                                simulate(&jobs, &mut schedsim_policies::Elastic::new(Los::new(batch), "los-e")).unwrap()
                            } else {
                                simulate(&jobs, &mut Los::new(batch)).unwrap()
                            };
                            let los_d = simulate(&jobs, &mut LosD::new(config, elastic)).unwrap();
                            prop_assert_eq!(los.starts(), los_d.starts(), "{}", config);
                            if variant == LosVariant::Reservation && merit == LosMerit::None {
                                for mode in [DedicatedMode::Head, DedicatedMode::HeadLiteral, DedicatedMode::HeadAll] {
                                    let mut policy = LosD::new(config, elastic).with_dedicated(mode);
                                    let los_d = simulate(&jobs, &mut policy).unwrap();
                                    prop_assert_eq!(los.starts(), los_d.starts(), "{} {}", config, mode);
                                }
                            }
                        }
                    }
                }
            }
            for skip_threshold in [0, 1, 7] {
                let config = DelayedLosConfig { skip_threshold, elastic, ..DelayedLosConfig::default() };
                let delayed = simulate(&jobs, &mut DelayedLos::new(config)).unwrap();
                let hybrid = simulate(&jobs, &mut HybridLos::new(config)).unwrap();
                prop_assert_eq!(delayed.starts(), hybrid.starts(), "cs {}", skip_threshold);
            }
        }
    }

    #[test]
    fn delayed_los_skips_a_fitting_head_at_most_cs_times(
        jobs in workload(false, 0, true),
        skip_threshold in 0u32..5,
        lookahead in prop::sample::select(vec![1usize, 3, 50]),
    ) {
        // A head that fits is skipped only while its scount < C_s (line 6),
        // and each skip raises it; at C_s it starts the next time it fits
        // (lines 3-5). So no job is the fitting, unstarted head of more than
        // C_s calls.
        let config = DelayedLosConfig { skip_threshold, lookahead, elastic: true, ..DelayedLosConfig::default() };
        let mut recorder = SkipRecorder { inner: DelayedLos::new(config), skips: BTreeMap::new() };
        simulate(&jobs, &mut recorder).unwrap();
        for (&id, &skips) in &recorder.skips {
            prop_assert!(skips <= skip_threshold, "job {:?} skipped {} times, C_s = {}", id, skips, skip_threshold);
            prop_assert!(recorder.inner.skip_count(id) <= skip_threshold);
        }
    }

    #[test]
    fn easy_d_and_los_d_start_dedicated_jobs_when_capacity_allows(jobs in workload(true, 3, false)) {
        // With exact estimates and no commands, a dedicated job D starts at
        // the earliest time T >= max(requested start, submit) at which its
        // processors are free for its whole runtime given (a) the jobs
        // running when it arrived and (b) the dedicated jobs that arrived
        // before it and were still waiting: "capacity allows" an on-time
        // start exactly when T is the requested start. Later arrivals,
        // batch or dedicated, never take its processors. T is computed here
        // from the final schedule, without the policy's profile.
        for spec in ["easy-d", "los-d", "los-d:lookahead=3,merit=maxjobs", "easy-de", "los-de"] {
            let schedule = simulate(&jobs, &mut build(spec)).unwrap();
            for (d, job) in jobs.jobs().iter().enumerate() {
                let Some(requested) = job.requested_start else { continue };
                let mut busy = Vec::new();
                for (other, other_job) in jobs.jobs().iter().enumerate() {
                    let id = JobId(other as u32);
                    let (start, end) = (schedule.start(id), schedule.end(id));
                    let running = start < job.submit && end > job.submit;
                    let reserved_before = other < d
                        && other_job.requested_start.is_some()
                        && start >= job.submit;
                    if other != d && (running || reserved_before) {
                        busy.push((start, end, other_job.size));
                    }
                }
                let expected = earliest_fit(&busy, requested.max(job.submit), job.size, job.estimate);
                prop_assert_eq!(schedule.start(JobId(d as u32)), expected, "{}: dedicated job {}", spec, d);
            }
        }
    }

    #[test]
    fn hybrid_los_starts_a_lone_dedicated_job_on_time_when_capacity_allows(
        jobs in workload(true, 6, false),
    ) {
        // What Hybrid-LOS guarantees (its tests show that it can delay a job
        // EASY-D starts on time, through lines 34-36 and through dedicated
        // jobs other than the first). With exact estimates, no commands and
        // no forced batch-head starts (C_s larger than any skip count), a
        // dedicated job D that is the only dedicated job waiting from its
        // submission to its requested start r starts exactly at r if, when
        // it arrives, the jobs running then that are expected to run until r
        // or later leave it enough processors. Why: every batch job started
        // while D waits respects D's freeze (its size is frozen unless it
        // ends before r), so the processors busy at r never exceed M minus
        // D's size; at r D moves to the batch head and starts.
        let config = DelayedLosConfig { skip_threshold: u32::MAX, ..DelayedLosConfig::default() };
        let schedule = simulate(&jobs, &mut HybridLos::new(config)).unwrap();
        for d in lone_dedicated_jobs_with_room(&jobs, &schedule) {
            prop_assert_eq!(
                schedule.start(JobId(d as u32)),
                jobs.jobs()[d].requested_start.unwrap(),
                "dedicated job {}", d
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn with_the_papers_mechanism_a_lone_dedicated_job_starts_on_time_when_capacity_allows(
        jobs in workload(true, 6, false),
    ) {
        // EASY-D and LOS-D with `dedicated=head` / `head-all` protect the
        // earliest requested start as Hybrid-LOS does, and have no forced
        // batch-head start: with exact estimates and no commands, a
        // dedicated job D that is the only dedicated job waiting from its
        // submission to its requested start r starts exactly at r if the
        // jobs running at its submission and expected to run until r or
        // later leave it enough processors. Every batch job started while
        // D waits fits the profile holding D's freeze, so at r D is moved
        // to the batch head and fits. (Capacity and start >= submit are
        // checked for these specs by the first property.)
        for spec in [
            "easy-d:dedicated=head",
            "easy-d:dedicated=head-all",
            "los-d:dedicated=head",
            "los-d:dedicated=head-all,lookahead=3",
            "easy-d:dedicated=head-literal",
            "los-d:dedicated=head-literal",
        ] {
            let schedule = simulate(&jobs, &mut build(spec)).unwrap();
            for d in lone_dedicated_jobs_with_room(&jobs, &schedule) {
                prop_assert_eq!(
                    schedule.start(JobId(d as u32)),
                    jobs.jobs()[d].requested_start.unwrap(),
                    "{}: dedicated job {}", spec, d
                );
            }
        }
    }
}

#[test]
fn the_hybrid_conditions_are_met_often() {
    // The property above only checks dedicated jobs that meet its
    // conditions; make sure random workloads give many such jobs, so it
    // cannot pass vacuously. Fixed seeds: deterministic.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let strategy = workload(true, 6, false);
    let config = DelayedLosConfig {
        skip_threshold: u32::MAX,
        ..DelayedLosConfig::default()
    };
    let (mut dedicated, mut met) = (0, 0);
    for _ in 0..50 {
        let jobs = strategy.new_tree(&mut runner).unwrap().current();
        let schedule = simulate(&jobs, &mut HybridLos::new(config)).unwrap();
        dedicated += jobs.normalization().dedicated;
        met += lone_dedicated_jobs_with_room(&jobs, &schedule).len() as u64;
    }
    // One in six of ~14 jobs per workload are dedicated; the machine is
    // often too busy or another dedicated job waits, but a fifth or so meet
    // the conditions (27 of 125 with this seed).
    assert!(dedicated > 80, "{dedicated} dedicated jobs");
    assert!(
        met >= 20 && met * 6 > dedicated,
        "{met} of {dedicated} meet the conditions"
    );
}

#[test]
fn all_twelve_policies_run_the_papers_cwf_workloads() {
    // The CWF generator of the paper (320 processors in blocks of 32,
    // P_D = 0.5, ET with P_E = 0.2 and RT with P_R = 0.1) at load 0.9:
    // every policy of Table III gives a feasible schedule, the same twice.
    for seed in 1..=3 {
        let records = CwfGenerator::new(CwfParams::default().load(0.9), seed)
            .unwrap()
            .generate(300);
        let mut model = JobModel::new(320);
        model.granularity = 32;
        let jobs = JobSet::from_records(&records, &model).unwrap();
        assert!(!jobs.commands().is_empty());
        for spec in [
            "easy",
            "easy-d",
            "easy-e",
            "easy-de",
            "los",
            "los-d",
            "los-e",
            "los-de",
            "delayed-los",
            "hybrid-los",
            "delayed-los-e",
            "hybrid-los-e",
        ] {
            let mut policy = build(spec);
            let dedicated = policy.capabilities().dedicated_jobs;
            let schedule = simulate(&jobs, &mut policy).unwrap();
            check_feasible(&jobs, &schedule, dedicated)
                .unwrap_or_else(|error| panic!("{spec}, seed {seed}: {error}"));
            let again = simulate(&jobs, &mut build(spec)).unwrap();
            assert_eq!(schedule.starts(), again.starts(), "{spec}, seed {seed}");
            if dedicated {
                assert_eq!(schedule.stats().dedicated_as_batch, 0);
            } else {
                assert!(schedule.stats().dedicated_as_batch > 0);
            }
        }
    }
}

//! Property tests over random small workloads: what every schedule must
//! satisfy, and the guarantees of EASY and conservative backfilling.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schedsim_policies::{
    Backfill, DEFAULT_LOOKAHEAD, Depth, Los, LosConfig, LosMerit, LosVariant, QueueOrder,
    TracebackOrder,
};
use schedsim_sim_core::{
    Decisions, Job, JobId, JobModel, JobSet, OverrunRule, Policy, Schedule, Time, View, simulate,
};

const PROCS: u32 = 16;

/// Random jobs on a 16-processor machine. With `exact`, estimates equal
/// runtimes; otherwise estimates are up to 3x the runtime.
fn workload(exact: bool) -> impl Strategy<Value = JobSet> {
    prop::collection::vec((0..120i64, 1..=PROCS, 0..40i64, 0..80i64), 1..28).prop_map(
        move |specs| {
            let jobs = specs
                .into_iter()
                .enumerate()
                .map(|(i, (submit, size, runtime, slack))| {
                    // Exact estimates need runtimes of at least 1 s, the
                    // smallest estimate.
                    let runtime = if exact { runtime.max(1) } else { runtime };
                    let estimate = if exact { runtime } else { runtime + slack };
                    Job::new(i as u64, submit, size, estimate.max(1), runtime)
                })
                .collect();
            JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap()
        },
    )
}

/// Arrays of 1-12 like jobs (one submit time, size and estimate; runtimes
/// up to the estimate) on the 16-processor machine.
fn job_arrays() -> impl Strategy<Value = JobSet> {
    // Few sizes and estimates, close submits: like runs meet.
    let estimate = prop::sample::select(vec![10i64, 20, 40]);
    let array = (
        0..60i64,
        1..=3u32,
        estimate,
        1..=12usize,
        prop::collection::vec(0..=100i64, 12),
    );
    prop::collection::vec(array, 1..8).prop_map(|arrays| {
        let mut specs: Vec<(i64, u32, i64, i64)> = Vec::new();
        for (submit, size, estimate, count, percents) in arrays {
            for percent in percents.into_iter().take(count) {
                specs.push((submit, size, estimate, estimate * percent / 100));
            }
        }
        job_set(specs, &JobModel::new(PROCS))
    })
}

/// Jobs from (submit, size, estimate, runtime), numbered in submit order.
fn job_set(mut specs: Vec<(i64, u32, i64, i64)>, model: &JobModel) -> JobSet {
    specs.sort_by_key(|spec| spec.0);
    let jobs = specs
        .into_iter()
        .enumerate()
        .map(|(i, (submit, size, estimate, runtime))| {
            Job::new(i as u64, submit, size, estimate, runtime)
        })
        .collect();
    JobSet::from_jobs(jobs, model).unwrap()
}

/// Larger workloads on the 16-processor machine: job arrays of a few
/// shapes mixed with single jobs of any shape, submits in bursts, runtimes
/// up to twice the estimate (killed at the estimate, or extended past it
/// when `extend`).
fn mixed_workload(extend: bool) -> impl Strategy<Value = JobSet> {
    let array = (
        0..400i64,
        prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        prop::sample::select(vec![15i64, 30, 60, 300]),
        1..=10usize,
        prop::collection::vec(0..=200i64, 10),
    );
    let single = (0..400i64, 1..=PROCS, 1..200i64, 0..=200i64);
    (
        prop::collection::vec(array, 1..10),
        prop::collection::vec(single, 0..40),
    )
        .prop_map(move |(arrays, singles)| {
            let mut specs: Vec<(i64, u32, i64, i64)> = Vec::new();
            for (submit, size, estimate, count, percents) in arrays {
                for percent in percents.into_iter().take(count) {
                    specs.push((submit, size, estimate, estimate * percent / 100));
                }
            }
            for (submit, size, estimate, percent) in singles {
                specs.push((submit, size, estimate, estimate * percent / 100));
            }
            let mut model = JobModel::new(PROCS);
            if extend {
                model.overrun = OverrunRule::Extend;
            }
            job_set(specs, &model)
        })
}

/// A queue of large jobs behind a long one, and small jobs that mostly
/// end early: settled queues whose early ends raise only small sizes.
fn settling_workload() -> impl Strategy<Value = JobSet> {
    let large = (1..6i64, 9..=PROCS, 50..200i64, 0..=100i64);
    let small = (0..1500i64, 1..=3u32, 10..300i64, 0..=100i64);
    (
        12..=15u32,
        prop::collection::vec(large, 4..20),
        prop::collection::vec(small, 5..30),
    )
        .prop_map(|(background, large, small)| {
            let mut specs = vec![(0, background, 2000, 2000)];
            for (submit, size, estimate, percent) in large.into_iter().chain(small) {
                specs.push((submit, size, estimate, estimate * percent / 100));
            }
            job_set(specs, &JobModel::new(PROCS))
        })
}

fn all_policies() -> Vec<Box<dyn Policy>> {
    let mut policies: Vec<Box<dyn Policy>> = Vec::new();
    for order in QueueOrder::ALL {
        for depth in [Depth::Jobs(0), Depth::Jobs(1), Depth::Jobs(3), Depth::All] {
            policies.push(Box::new(Backfill::new(order, depth)));
        }
    }
    for config in los_configs() {
        policies.push(Box::new(Los::new(config)));
    }
    policies
}

/// LOS in every variant, merit and traceback order, with a short and the
/// default lookahead.
fn los_configs() -> Vec<LosConfig> {
    let mut configs = Vec::new();
    for variant in [LosVariant::Reservation, LosVariant::Basic] {
        for merit in [LosMerit::None, LosMerit::MaxJobs, LosMerit::MaxSlowdown] {
            for traceback in [TracebackOrder::BypassedFirst, TracebackOrder::SelectedFirst] {
                for lookahead in [3, DEFAULT_LOOKAHEAD] {
                    configs.push(LosConfig::new(variant, merit, traceback, lookahead));
                }
            }
        }
    }
    configs
}

/// Checks, independently of the simulator, that no job starts before it is
/// submitted, ends at start + runtime, and that processors in use never
/// exceed the machine.
fn check_feasible(jobs: &JobSet, schedule: &Schedule) -> Result<(), TestCaseError> {
    let mut changes: Vec<(Time, i64)> = Vec::new();
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let (start, end) = (schedule.start(id), schedule.end(id));
        prop_assert!(
            start >= job.submit,
            "job {index} starts at {start} before its submit time {}",
            job.submit
        );
        prop_assert_eq!(end, start + job.runtime);
        let allocated: u32 = schedule.allocation(id).iter().map(|r| r.len()).sum();
        prop_assert_eq!(allocated, job.size);
        changes.push((start, i64::from(job.size)));
        changes.push((end, -i64::from(job.size)));
    }
    // Ends before starts at equal times: processors freed at t are free at t.
    changes.sort_by_key(|&(time, delta)| (time, delta));
    let mut in_use = 0;
    for (time, delta) in changes {
        in_use += delta;
        prop_assert!(
            in_use <= i64::from(PROCS),
            "{in_use} processors in use at {time}"
        );
    }
    Ok(())
}

/// Wraps a policy and records, for every job, the first start time it was
/// promised: the shadow time computed independently (by brute force) when
/// the job first waits at the head of the queue, or, for conservative
/// backfilling, the first reservation the policy reports.
struct Recorder<P> {
    inner: P,
    promise: Promise,
    promised: BTreeMap<JobId, Time>,
}

#[derive(Clone, Copy)]
enum Promise {
    HeadShadow,
    Reservation,
}

impl<P> Recorder<P> {
    fn new(inner: P, promise: Promise) -> Self {
        Self {
            inner,
            promise,
            promised: BTreeMap::new(),
        }
    }
}

/// Policies whose reservations can be read back.
trait Reserving {
    fn reservation(&self, id: JobId) -> Option<Time>;
}

impl Reserving for Backfill {
    fn reservation(&self, id: JobId) -> Option<Time> {
        Backfill::reservation(self, id)
    }
}

impl Reserving for Los {
    fn reservation(&self, _: JobId) -> Option<Time> {
        None
    }
}

impl<P: Policy + Reserving> Policy for Recorder<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.inner.schedule(view, decisions);
        let started = decisions.starts();
        let waiting: Vec<JobId> = view
            .queue()
            .iter()
            .copied()
            .filter(|id| !started.contains(id))
            .collect();
        match self.promise {
            Promise::HeadShadow => {
                let Some(&head) = waiting.first() else { return };
                if self.promised.contains_key(&head) {
                    return;
                }
                // Shadow time by brute force: the first expected end at
                // which the processors of the jobs still running cover the
                // head's size.
                let mut ends: Vec<(Time, u32)> = view
                    .running()
                    .map(|job| (job.expected_end, job.size))
                    .chain(
                        started
                            .iter()
                            .map(|&id| (view.now() + view.estimate(id), view.job(id).size)),
                    )
                    .collect();
                ends.sort_unstable();
                let busy_after = |t: Time| -> u32 {
                    ends.iter()
                        .filter(|&&(end, _)| end > t)
                        .map(|&(_, size)| size)
                        .sum()
                };
                let size = view.job(head).size;
                let shadow = ends
                    .iter()
                    .map(|&(end, _)| end)
                    .find(|&t| view.procs() - busy_after(t) >= size)
                    .expect("the head fits once everything has ended");
                self.promised.insert(head, shadow);
            }
            Promise::Reservation => {
                for id in waiting {
                    if let Some(at) = self.inner.reservation(id) {
                        self.promised.entry(id).or_insert(at);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_schedule_is_feasible(jobs in workload(false)) {
        for mut policy in all_policies() {
            let schedule = simulate(&jobs, &mut policy).unwrap();
            check_feasible(&jobs, &schedule)?;
        }
    }

    #[test]
    fn fcfs_starts_jobs_in_arrival_order(jobs in workload(false)) {
        let schedule = simulate(&jobs, &mut Backfill::fcfs()).unwrap();
        prop_assert!(schedule.starts().windows(2).all(|w| w[0] <= w[1]), "{:?}", schedule.starts());
    }

    #[test]
    fn easy_starts_the_head_by_its_shadow_time(jobs in workload(true)) {
        let mut recorder = Recorder::new(Backfill::easy(), Promise::HeadShadow);
        let schedule = simulate(&jobs, &mut recorder).unwrap();
        for (&id, &shadow) in &recorder.promised {
            prop_assert!(schedule.start(id) <= shadow, "job {:?} started at {} after its shadow time {}", id, schedule.start(id), shadow);
        }
    }

    #[test]
    fn los_starts_the_head_by_its_shadow_time(jobs in workload(true)) {
        // LOS never lets the packed jobs delay the reserved head (section
        // 3.2.1), in every variant.
        for config in los_configs() {
            let mut recorder = Recorder::new(Los::new(config), Promise::HeadShadow);
            let schedule = simulate(&jobs, &mut recorder).unwrap();
            for (&id, &shadow) in &recorder.promised {
                prop_assert!(schedule.start(id) <= shadow, "{}: job {:?} started at {} after its shadow time {}", config, id, schedule.start(id), shadow);
            }
        }
    }

    #[test]
    fn conservative_never_starts_a_job_after_its_first_reservation(
        jobs in workload(true),
        inexact in workload(false),
    ) {
        for (exact, jobs) in [(true, jobs), (false, inexact)] {
            for order in QueueOrder::ALL {
                let mut recorder = Recorder::new(Backfill::new(order, Depth::All), Promise::Reservation);
                let schedule = simulate(&jobs, &mut recorder).unwrap();
                for (&id, &reserved) in &recorder.promised {
                    let start = schedule.start(id);
                    prop_assert!(start <= reserved, "{:?}: job {:?} started at {} after its reservation {}", order, id, start, reserved);
                    // With exact estimates nothing ends early, so nothing is
                    // compressed: every job starts exactly when reserved.
                    prop_assert!(!exact || start == reserved, "{:?}: job {:?} started at {} before its reservation {}", order, id, start, reserved);
                }
            }
        }
    }

    /// Job arrays (runs of like jobs submitted together, ending early by
    /// different amounts): deciding a run by its first job gives the
    /// schedule of examining every job.
    #[test]
    fn conservative_decides_job_arrays_as_each_job(jobs in job_arrays()) {
        let mut arrays = Backfill::new(QueueOrder::Fcfs, Depth::All);
        let fast = simulate(&jobs, &mut arrays).unwrap();
        let mut each = Backfill::new(QueueOrder::Fcfs, Depth::All).without_job_arrays();
        let slow = simulate(&jobs, &mut each).unwrap();
        prop_assert_eq!(fast.starts(), slow.starts());
        check_feasible(&jobs, &fast)?;
    }

    #[test]
    fn the_easy_scan_equals_the_depth_1_profile(jobs in workload(false)) {
        for order in QueueOrder::ALL {
            let scan = simulate(&jobs, &mut Backfill::new(order, Depth::Jobs(1))).unwrap();
            let profile = simulate(&jobs, &mut Backfill::new(order, Depth::Jobs(1)).with_profile_engine()).unwrap();
            prop_assert_eq!(scan.starts(), profile.starts(), "order {:?}", order);
        }
    }
}

#[test]
fn compression_decides_a_job_array_by_its_first_job() {
    // 16 processors. Job 0 (16 processors, estimate 100) runs from 0 and
    // ends at 10. Jobs 1-8 (4 processors, estimate 50) arrive at 1 and are
    // reserved at 100 (1-4) and 150 (5-8). At 10 compression slides 1-4 to
    // 10 and 5-8 to 60, one by one (each moves); 5-8 now form a run at 60.
    // Job 1 runs only 10 s: at 20 its 4 processors come back over [20, 60).
    // Job 5, first of the run, slides to 20; job 6 cannot move (nothing is
    // free before 60 any more), and jobs 7 and 8 ask the same question: they
    // are decided with it, unexamined. 6-8 start at 60, when 2-4 end.
    let mut jobs = vec![Job::new(0, 0, 16, 100, 10)];
    for number in 1..=8 {
        let runtime = if number == 1 { 10 } else { 50 };
        jobs.push(Job::new(number, 1, 4, 50, runtime));
    }
    let jobs = JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap();
    let mut policy = Backfill::new(QueueOrder::Fcfs, Depth::All);
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 10, 10, 10, 10, 20, 60, 60, 60]);
    assert_eq!(counter(&policy, "compression_skips"), Some(2));
}

#[test]
fn compression_moves_the_jobs_of_a_run_that_follow_its_first_job_at_once() {
    // 16 processors. Job 0 (16 processors, estimate 100) runs from 0 and
    // ends at 10. Job 1 (4 processors, estimate 50) arrives at 0 and is
    // reserved at 100; jobs 2-5 (alike) arrive at 1: 2-4 join it at 100
    // (a run of four, 16 processors over [100, 150)) and job 5 goes to 150.
    // At 10 job 1 slides to 10. The fewest free over its new window before
    // its old reservation, [10, 60), is 16: room for 16 / 4 = 4 jobs, so
    // 2-4 follow it in the same move. Job 5 then slides to 60 (16 free over
    // [60, 150), nothing over [10, 60)).
    let mut jobs = vec![Job::new(0, 0, 16, 100, 10), Job::new(1, 0, 4, 50, 50)];
    for number in 2..=5 {
        jobs.push(Job::new(number, 1, 4, 50, 50));
    }
    let jobs = JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap();
    let mut policy = Backfill::new(QueueOrder::Fcfs, Depth::All);
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 10, 10, 10, 10, 60]);
    // Jobs 1 and 5 examined and moved, 2-4 moved with job 1.
    assert_eq!(counter(&policy, "compression_visits"), Some(2));
    assert_eq!(counter(&policy, "compression_moves"), Some(5));
    assert_eq!(counter(&policy, "compression_moves_together"), Some(3));
    // Examining every job gives the same schedule, with no job moved along.
    let mut each = Backfill::new(QueueOrder::Fcfs, Depth::All).without_job_arrays();
    assert_eq!(
        simulate(&jobs, &mut each).unwrap().starts(),
        schedule.starts()
    );
}

/// A policy counter by name.
fn counter(policy: &Backfill, wanted: &str) -> Option<u64> {
    policy
        .counters()
        .into_iter()
        .find(|&(name, _)| name == wanted)
        .map(|(_, count)| count)
}

/// Conservative backfilling in arrival order on `jobs` (16 processors):
/// the start times, and the policy for its counters.
fn conservative_fcfs(jobs: Vec<Job>) -> (Vec<Time>, Backfill) {
    let jobs = JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap();
    let mut policy = Backfill::new(QueueOrder::Fcfs, Depth::All);
    let starts = simulate(&jobs, &mut policy).unwrap().starts().to_vec();
    (starts, policy)
}

#[test]
fn an_early_end_that_raises_no_waiting_size_after_a_compression_that_moved_nothing_walks_no_queue()
{
    // 16 processors. Job 0 (15 processors, estimate 1000) runs over
    // [0, 1000); job 1 (16 processors) arrives at 1 and is reserved at
    // 1000. Job 2 (1 processor, estimate 40) starts at 2 on the one free,
    // planned to end at 42; job 3 (1 processor, estimate 10) arrives at 3
    // and is reserved at 42.
    // - Job 2 ends at 7: [7, 42) rises to 1 free, before job 3's
    //   reservation. Compression 1 slides job 3 to 7, where it starts.
    // - Job 4 (1 processor, estimate 20) starts at 20 (job 3 ran [7, 17))
    //   and ends at 25: [25, 40) rises to 1 free, and no job of 1
    //   processor waits. But the last compression moved a job, whose old
    //   slot may have opened room for a job before it in the queue:
    //   compression 2 walks the queue (job 1 cannot move; nothing moves).
    // - Job 5 (alike) starts at 30 and ends at 35: again only 1 processor
    //   is raised, and now the last compression moved nothing. No waiting
    //   job has a window it did not have then: no walk.
    let jobs = vec![
        Job::new(0, 0, 15, 1000, 1000),
        Job::new(1, 1, 16, 100, 100),
        Job::new(2, 2, 1, 40, 5),
        Job::new(3, 3, 1, 10, 10),
        Job::new(4, 20, 1, 20, 5),
        Job::new(5, 30, 1, 20, 5),
    ];
    let (starts, policy) = conservative_fcfs(jobs);
    assert_eq!(starts, [0, 1000, 2, 7, 20, 30]);
    assert_eq!(counter(&policy, "compressions"), Some(2));
    assert_eq!(counter(&policy, "compression_moves"), Some(1));
    assert_eq!(counter(&policy, "compressions_settled"), Some(1));
}

#[test]
fn an_early_end_that_raises_a_waiting_size_before_its_reservation_is_compressed() {
    // 16 processors. Job 0 (15 processors, estimate 1000) runs over
    // [0, 1000) and leaves no job waiting; job 1 (16 processors) arrives
    // at 1 and is reserved at 1000.
    // - Job 2 (1 processor, estimate 20) starts at 2 and ends at 7: only
    //   1 processor is raised and none waits. No walk.
    // - Job 3 (1 processor, estimate 40) starts at 10, planned to end at
    //   50; job 4 (1 processor, estimate 10) arrives at 11 and is reserved
    //   at 50. Job 3 ends at 15: [15, 50) rises to 1 free, before job 4's
    //   reservation, so the queue is compressed and job 4 slides to 15.
    let jobs = vec![
        Job::new(0, 0, 15, 1000, 1000),
        Job::new(1, 1, 16, 100, 100),
        Job::new(2, 2, 1, 20, 5),
        Job::new(3, 10, 1, 40, 5),
        Job::new(4, 11, 1, 10, 10),
    ];
    let (starts, policy) = conservative_fcfs(jobs);
    assert_eq!(starts, [0, 1000, 2, 10, 15]);
    assert_eq!(counter(&policy, "compressions"), Some(1));
    assert_eq!(counter(&policy, "compressions_settled"), Some(1));
}

#[test]
fn a_settled_queue_looks_only_at_the_runs_of_the_sizes_a_gain_raised() {
    // 16 processors. Job 0 (15 processors, estimate 1000) runs over
    // [0, 1000) and leaves no job waiting. Jobs 1-8 (16 processors,
    // estimate 100) arrive at 1 and are reserved at 1000, 1100, ..., 1700;
    // job 9 (1 processor, estimate 5000) arrives at 2 and fits only from
    // 1800 on. Nothing has moved since the queue was empty: it is settled.
    // - Job 10 (1 processor, estimate 20) starts at 3 and ends at 8: [8, 23)
    //   rises to 1 free, which raises size 1, before job 9's reservation.
    //   Of the nine runs only job 9 is of that size (1 x 4 <= 9): nothing
    //   is free just before 1800 and no window of 5000 s ends by then, so
    //   it is passed over in O(1) and the other eight are not looked at.
    // - Job 11 (alike) starts at 30 and ends at 35: the same, one run.
    // - Job 12 (1 processor, estimate 40) starts at 50, planned to end at
    //   90; job 13 (1 processor, estimate 10) arrives at 51 and is reserved
    //   at 90. Job 12 ends at 55: [55, 90) rises to 1 free. The runs of
    //   size 1 are jobs 9 and 13 (2 x 4 <= 10): job 9 is passed over again;
    //   job 13 has room just before it, so the walk starts there and slides
    //   it to 55.
    let mut jobs = vec![Job::new(0, 0, 15, 1000, 1000)];
    for number in 1..=8 {
        jobs.push(Job::new(number, 1, 16, 100, 100));
    }
    jobs.extend([
        Job::new(9, 2, 1, 5000, 5000),
        Job::new(10, 3, 1, 20, 5),
        Job::new(11, 30, 1, 20, 5),
        Job::new(12, 50, 1, 40, 5),
        Job::new(13, 51, 1, 10, 10),
    ]);
    let (starts, policy) = conservative_fcfs(jobs);
    assert_eq!(
        starts,
        [
            0, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 3, 30, 50, 55
        ]
    );
    assert_eq!(counter(&policy, "compressions"), Some(3));
    // Job 9 three times; a walk over the queue would pass over 9 + 9 + 9.
    assert_eq!(counter(&policy, "compression_clean_skips"), Some(3));
    assert_eq!(counter(&policy, "compression_visits"), Some(1));
    assert_eq!(counter(&policy, "compression_moves"), Some(1));
}

proptest! {
    // Each case simulates a few hundred jobs with brute-force checks in
    // debug builds: fewer cases.
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    /// Conservative backfilling on larger mixed workloads, jobs killed at
    /// their estimate or running past it, and on queues that settle: debug
    /// builds check every reservation compression skips or moves against a
    /// brute-force search of its earliest anchor (the shortcuts: room just
    /// before a reservation, the shape floors, job arrays, settled queues
    /// and their raised sizes), and every followed
    /// profile against a rebuilt one; the simulator accepts every start
    /// (capacity, submit times), and job arrays, and profiles laid out
    /// again often, give the schedule of examining every job.
    ///
    /// One test per kind of workload, so that the three (the slowest of
    /// the suite) run side by side.
    #[test]
    fn conservative_shortcuts_hold_with_jobs_killed_at_their_estimate(
        jobs in mixed_workload(false),
    ) {
        check_conservative_shortcuts(&jobs)?;
    }

    #[test]
    fn conservative_shortcuts_hold_with_jobs_running_past_their_estimate(
        jobs in mixed_workload(true),
    ) {
        check_conservative_shortcuts(&jobs)?;
    }

    #[test]
    fn conservative_shortcuts_hold_on_settling_queues(jobs in settling_workload()) {
        check_conservative_shortcuts(&jobs)?;
    }
}

/// The body of the three tests above.
fn check_conservative_shortcuts(jobs: &JobSet) -> Result<(), TestCaseError> {
    simulate(
        jobs,
        &mut Backfill::new(QueueOrder::ShortestFirst, Depth::All),
    )
    .unwrap();
    let arrays = simulate(jobs, &mut Backfill::new(QueueOrder::Fcfs, Depth::All)).unwrap();
    let each = simulate(
        jobs,
        &mut Backfill::new(QueueOrder::Fcfs, Depth::All).without_job_arrays(),
    )
    .unwrap();
    prop_assert_eq!(arrays.starts(), each.starts());
    let relaid = simulate(
        jobs,
        &mut Backfill::new(QueueOrder::Fcfs, Depth::All).with_frequent_relayouts(),
    )
    .unwrap();
    prop_assert_eq!(arrays.starts(), relaid.starts());
    Ok(())
}

/// Eight workloads of `strategy`, the same on every run.
fn fixed_workloads(strategy: impl Strategy<Value = JobSet>) -> Vec<JobSet> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    (0..8)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

/// Profiles laid out again in time order give the same schedules, and on
/// a few fixed mixed workloads they are laid out again (so the proptest
/// above compares something).
#[test]
fn frequent_relayouts_change_no_schedule() {
    let mut relayouts = 0;
    for jobs in fixed_workloads(mixed_workload(false)) {
        let plain = simulate(&jobs, &mut Backfill::new(QueueOrder::Fcfs, Depth::All)).unwrap();
        let mut often = Backfill::new(QueueOrder::Fcfs, Depth::All).with_frequent_relayouts();
        assert_eq!(
            simulate(&jobs, &mut often).unwrap().starts(),
            plain.starts()
        );
        relayouts += counter(&often, "profile_relayouts").unwrap_or(0);
    }
    assert!(relayouts > 0, "no relayout on eight mixed workloads");
}

/// Settling workloads look at the raised sizes' runs alone, so the
/// proptest above checks that path too.
#[test]
fn settling_workloads_look_at_the_raised_sizes_alone() {
    let mut raised_only = 0;
    for jobs in fixed_workloads(settling_workload()) {
        let mut policy = Backfill::new(QueueOrder::Fcfs, Depth::All);
        simulate(&jobs, &mut policy).unwrap();
        raised_only += counter(&policy, "compressions_raised_sizes_only").unwrap_or(0);
    }
    assert!(
        raised_only > 0,
        "no settled queue looked at its raised sizes alone"
    );
}

/// On a few fixed mixed workloads some early ends skip compression as
/// settled, so the proptest above (whose debug builds check each such
/// skip against a brute-force search for every waiting job) checks it.
#[test]
fn mixed_workloads_have_settled_early_ends() {
    let mut settled = 0;
    for jobs in fixed_workloads(mixed_workload(false)) {
        let mut policy = Backfill::new(QueueOrder::Fcfs, Depth::All);
        simulate(&jobs, &mut policy).unwrap();
        settled += counter(&policy, "compressions_settled").unwrap_or(0);
    }
    assert!(settled > 0, "no settled early end on eight mixed workloads");
}

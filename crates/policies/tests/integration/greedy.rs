//! The Greedy sorting criteria (Franke, Lepping and Schwiegelshohn, section
//! III-A) and their queue.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::path::{Path, PathBuf};

use schedsim_metrics::{GroupRule, UserGroups};
use schedsim_policies::{
    Criterion, CriterionParams, GreedyJob, GreedyParameters, GreedyQueue, PolicySpec,
    SortingCriterion, build_policy,
};
use schedsim_sim_core::{
    Calendar, Decisions, Invocation, Job, JobId, JobModel, JobSet, Policy, SimOptions, View,
    simulate, simulate_with,
};

const PROCS: u32 = 16;

/// f2 with w_i = 1, a = 1, b = 0, K_i = 0.
fn f2_fcfs() -> SortingCriterion {
    let params = CriterionParams {
        a: 1.0,
        b: 0.0,
        w: [1.0; 5],
        k: [0.0; 5],
    };
    SortingCriterion::new(Criterion::F2, params).unwrap()
}

/// A parameter file with `criterion` in all three situations, written
/// once per process.
fn params_file(name: &str, criterion: SortingCriterion) -> PathBuf {
    let params = GreedyParameters {
        weekend: criterion,
        weekday_day: criterion,
        weekday_night: criterion,
    };
    params_file_of(name, &params)
}

fn params_file_of(name: &str, params: &GreedyParameters) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedsim-greedy-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string(params).unwrap()).unwrap();
    path
}

/// The registered policy, `greedy:params=FILE`.
fn greedy(path: &Path) -> Box<dyn Policy + Send> {
    let spec: PolicySpec = format!("greedy:params={}", path.display()).parse().unwrap();
    build_policy(&spec).unwrap()
}

fn workload() -> impl Strategy<Value = JobSet> {
    prop::collection::vec((0..200i64, 1..=PROCS, 1..60i64, 0..60i64), 1..40).prop_map(|specs| {
        let jobs = specs
            .into_iter()
            .enumerate()
            .map(|(i, (submit, size, runtime, slack))| {
                // Seven users, so that the jobs fall in several groups.
                Job::new(i as u64, submit, size, runtime + slack, runtime).with_user(i as u32 % 7)
            })
            .collect();
        JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap()
    })
}

/// Greedy written as the paper says it, for comparison: at every call,
/// score every waiting job, sort them all (score descending, submission,
/// id) and start from the top while jobs fit. One criterion for all
/// situations; job i's user is i % 7, and the groups come from the
/// workload as the policy's do.
struct SortEverything {
    criterion: SortingCriterion,
    groups: Vec<usize>,
}

impl Policy for SortEverything {
    fn name(&self) -> &str {
        "sort-everything"
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let mut queue = GreedyQueue::new(self.criterion);
        for &id in view.queue() {
            let job = view.job(id);
            let group = self.groups[id.index()];
            queue.insert(
                id,
                GreedyJob::new(group, job.submit, job.estimate, job.size).unwrap(),
            );
        }
        let mut free = view.free();
        for id in queue.ordered(view.now()) {
            let size = view.job(id).size;
            if size > free {
                break;
            }
            free -= size;
            decisions.start(id);
        }
    }
}

/// Table II groups of the jobs (user = i % 7), from runtime x size.
fn table_groups(jobs: &JobSet) -> Vec<usize> {
    let work = jobs
        .jobs()
        .iter()
        .map(|j| (j.user(), j.runtime as u64, j.size));
    let table = UserGroups::from_work(work, &GroupRule::paper()).unwrap();
    jobs.jobs()
        .iter()
        .map(|j| table.group_of(j.user().unwrap()).unwrap())
        .collect()
}

/// Any criterion with parameters drawn inside the paper's bounds.
fn criterion() -> impl Strategy<Value = SortingCriterion> {
    (0..4usize, prop::collection::vec(0.0..=1.0f64, 12)).prop_map(|(which, unit)| {
        let criterion = Criterion::ALL[which];
        let values: Vec<f64> = criterion
            .bounds()
            .iter()
            .zip(&unit)
            .map(|(&(lower, upper), u)| lower + u * (upper - lower))
            .collect();
        SortingCriterion::from_vector(criterion, &values).unwrap()
    })
}

/// Waiting jobs: (group, submit, estimate, size).
fn waiting() -> impl Strategy<Value = Vec<(usize, i64, i64, u32)>> {
    prop::collection::vec((1..=5usize, 0..1000i64, 0..5000i64, 0..300u32), 0..40)
}

fn queue_of(criterion: SortingCriterion, jobs: &[(usize, i64, i64, u32)]) -> GreedyQueue {
    let mut queue = GreedyQueue::new(criterion);
    for (i, &(group, submit, estimate, size)) in jobs.iter().enumerate() {
        queue.insert(
            JobId(i as u32),
            GreedyJob::new(group, submit, estimate, size).unwrap(),
        );
    }
    queue
}

/// The queue's picks, one after the other, until it is empty.
fn picks(mut queue: GreedyQueue, now: i64) -> Vec<JobId> {
    let mut order = Vec::new();
    while let Some(id) = queue.top(now) {
        assert!(queue.remove(id));
        order.push(id);
    }
    order
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    /// With w_i = 1, a = 1, b = K_i = 0, f2(j, t) = sum_i rho_i(j) * 1 *
    /// (0 + 1 * (t - r_j) + 0 * p_j m_j) = t - r_j, since rho_i(j) is 1 for
    /// the job's own group only. Descending t - r_j is ascending r_j, and
    /// ties go by submission then id: arrival order, FCFS's queue. Starting
    /// from the top while jobs fit is FCFS without backfilling, so the
    /// schedules are equal, whatever the groups and situations, under both
    /// invocation modes.
    #[test]
    fn f2_with_unit_weights_is_fcfs(jobs in workload(), per_event in any::<bool>()) {
        let options = SimOptions::default().with_invocation(if per_event {
            Invocation::PerEvent
        } else {
            Invocation::PerTimestamp
        });
        let path = params_file("f2-fcfs", f2_fcfs());
        let greedy = simulate_with(&jobs, &mut greedy(&path), &options).unwrap();
        let mut fcfs = build_policy(&"fcfs".parse::<PolicySpec>().unwrap()).unwrap();
        let fcfs = simulate_with(&jobs, &mut fcfs, &options).unwrap();
        prop_assert_eq!(greedy.starts(), fcfs.starts());
    }

    /// The registered policy (per-situation queues kept between calls, f2/f4
    /// group heads, the f1/f3 kinetic tournament) starts exactly the jobs
    /// that sorting every waiting job at every call starts, for any
    /// criterion.
    #[test]
    fn greedy_equals_sorting_everything_at_every_call(
        jobs in workload(),
        criterion in criterion(),
        per_event in any::<bool>(),
    ) {
        let options = SimOptions::default().with_invocation(if per_event {
            Invocation::PerEvent
        } else {
            Invocation::PerTimestamp
        });
        let path = params_file(&format!("any-{}", std::thread::current().name().unwrap_or("main").replace("::", "-")), criterion);
        let fast = simulate_with(&jobs, &mut greedy(&path), &options).unwrap();
        let mut naive = SortEverything { criterion, groups: table_groups(&jobs) };
        let naive = simulate_with(&jobs, &mut naive, &options).unwrap();
        prop_assert_eq!(fast.starts(), naive.starts());
    }

    /// The queue's top, pick after pick, is the full sort by (score
    /// descending, submission, id) at that time, for every criterion,
    /// including after removals and a change of criterion.
    #[test]
    fn top_follows_the_full_sort(
        first in criterion(),
        second in criterion(),
        jobs in waiting(),
        now in 1000..100_000i64,
        removed in prop::collection::vec(any::<bool>(), 40),
    ) {
        let mut queue = queue_of(first, &jobs);
        prop_assert_eq!(picks(queue.clone(), now), queue.ordered(now));
        for (i, &gone) in removed.iter().enumerate().take(jobs.len()) {
            if gone {
                prop_assert!(queue.remove(JobId(i as u32)));
            }
        }
        prop_assert_eq!(picks(queue.clone(), now), queue.ordered(now));
        queue.set_criterion(second);
        let expected = queue.ordered(now);
        // The naive sort, written out: scores from the criterion itself.
        let mut naive: Vec<(f64, i64, JobId)> = expected
            .iter()
            .map(|&id| {
                let (group, submit, estimate, size) = jobs[id.index()];
                let job = GreedyJob::new(group, submit, estimate, size).unwrap();
                (second.score(&job, now), submit, id)
            })
            .collect();
        naive.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let naive: Vec<JobId> = naive.into_iter().map(|(_, _, id)| id).collect();
        prop_assert_eq!(&expected, &naive);
        prop_assert_eq!(picks(queue, now), expected);
    }
}

#[test]
fn criteria_by_hand() {
    // A job of group 2, submitted at 100, estimate 50, 4 processors; t =
    // 300 (wait 200). w_2 = 0.5, K_2 = 2, a = 0.25, b = 0.1.
    let params = CriterionParams {
        a: 0.25,
        b: 0.1,
        w: [1.0, 0.5, 1.0, 1.0, 1.0],
        k: [0.0, 2.0, 0.0, 0.0, 0.0],
    };
    let job = GreedyJob::new(2, 100, 50, 4).unwrap();
    let score = |criterion, params| {
        SortingCriterion::new(criterion, params)
            .unwrap()
            .score(&job, 300)
    };
    // f1 = 0.5 (2 + 0.25 * 200 / 50 + 0.1 * 50 / 4) = 0.5 (2 + 1 + 1.25) = 2.125.
    assert_eq!(score(Criterion::F1, params), 2.125);
    // f2 = 0.5 (2 + 0.25 * 200 + 0.1 * 50 * 4) = 0.5 (2 + 50 + 20) = 36.
    assert_eq!(score(Criterion::F2, params), 36.0);
    // f3 (no b) = 0.5 (2 + 0.25 * 200 / (50 * 4)) = 0.5 * 2.25 = 1.125.
    let no_b = CriterionParams { b: 0.0, ..params };
    assert_eq!(score(Criterion::F3, no_b), 1.125);
    // f4 = 0.5 (2 + 0.25 * 200 + 0.1 * 50 / 4) = 0.5 (2 + 50 + 1.25) = 26.625.
    assert_eq!(score(Criterion::F4, params), 26.625);
}

/// The shrunk case of `greedy_equals_sorting_everything_at_every_call`
/// kept in greedy.proptest-regressions (one call per timestamp): f3 with
/// only group 1 weighted, and two group-1 jobs whose scores become equal,
/// as real numbers, at the very second the machine frees up.
#[test]
fn equal_f3_scores_go_by_submission() {
    let criterion = SortingCriterion::new(
        Criterion::F3,
        CriterionParams {
            a: 0.5264271495939606,
            b: 0.0,
            w: [0.18931377678474398, 0.0, 0.0, 0.0, 0.0],
            k: [4.629659526637308, 0.0, 0.0, 0.0, 0.0],
        },
    )
    .unwrap();
    // Jobs 0-24 as (submit, size, estimate, runtime), user = number % 7 as
    // in `workload()`; 16 processors.
    let spec = |n: u64| match n {
        0 => (10, 16, 10, 8),
        1 => (1, 1, 53, 53),
        10 => (0, 8, 25, 25),
        23 => (54, 1, 1, 1),
        24 => (32, 2, 40, 19),
        _ => (0, 1, 1, 1),
    };
    let jobs: Vec<Job> = (0..25u64)
        .map(|n| {
            let (submit, size, estimate, runtime) = spec(n);
            Job::new(n, submit, size, estimate, runtime).with_user(n as u32 % 7)
        })
        .collect();
    let jobs = JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap();
    // Work (runtime x size) per user: user 3 has 1 + 200 + 1 + 38 = 240
    // of 440, user 0 3 + 128 = 131, user 1 3 + 53 = 56, each above 8%:
    // group 1. Users 2, 4, 5 and 6 have 3 or 4 (0.1% to 1%): group 4,
    // whose w_4 = 0 makes every score 0.
    let groups = table_groups(&jobs);
    let number = |index: usize| jobs.jobs()[index].number;
    let group_of = |n: u64| groups[(0..groups.len()).find(|&i| number(i) == n).unwrap()];
    assert_eq!((group_of(0), group_of(1), group_of(24)), (1, 1, 1));
    assert_eq!((group_of(2), group_of(23), group_of(4)), (4, 4, 4));
    // t = 0: every group-1 job scores w_1 K_1 (no wait yet), so they go
    // by id: numbers 3, 7, 8, 10 (8 processors), 14, 15, 17, 21 and 22,
    // exactly 16 processors. t = 1: the 1-second jobs end, job 1 (group 1)
    // starts, then group 4 by id while 7 processors last; t = 2 the rest.
    // Job 0 (16 processors, submitted at 10) then waits for job 10 (until
    // 25) and job 1 (until 54); job 24 (2 processors, submitted at 32)
    // waits behind it, as Greedy does not backfill.
    //
    // t = 54: the machine is free, and f3 = w_1 (K_1 + a (t - r_j) /
    // (p_j m_j)) gives job 0: (54 - 10) / (10 x 16) = 44 / 160 = 0.275 and
    // job 24: (54 - 32) / (40 x 2) = 22 / 80 = 0.275. Equal scores go by
    // submission: job 0 (10) before job 24 (32), so job 0 starts at 54 and
    // takes all 16 processors; jobs 24 and 23 (score 0, submitted at 54)
    // start at 62 when it ends. (The distributed form `w_1 K_1 - slope r_j
    // + slope t` put job 24 one ulp above job 0; and the parameter file,
    // read without serde_json's float_roundtrip, gave w_1 one ulp lower,
    // so the registered policy and the full sort disagreed.)
    let f3 = |n: u64| {
        let (submit, size, estimate, _) = spec(n);
        let job = GreedyJob::new(1, submit, estimate, size).unwrap();
        criterion.score(&job, 54)
    };
    assert_eq!(f3(0), f3(24));
    let expected: Vec<i64> = (0..jobs.jobs().len())
        .map(|i| match number(i) {
            3 | 7 | 8 | 10 | 14 | 15 | 17 | 21 | 22 => 0,
            1..=12 => 1,
            0 => 54,
            23 | 24 => 62,
            _ => 2,
        })
        .collect();
    // The registered policy reads the criterion back from a file.
    let path = params_file("equal-f3-scores", criterion);
    let options = SimOptions::default().with_invocation(Invocation::PerTimestamp);
    let fast = simulate_with(&jobs, &mut greedy(&path), &options).unwrap();
    let mut naive = SortEverything { criterion, groups };
    let naive = simulate_with(&jobs, &mut naive, &options).unwrap();
    assert_eq!(fast.starts(), expected);
    assert_eq!(naive.starts(), expected);
}

#[test]
fn greedy_stops_at_the_first_job_that_does_not_fit() {
    // f2-FCFS order: job 0 (8 processors), job 1 (2), both waiting; 4 free.
    // Job 0 does not fit, so nothing starts, although job 1 would fit.
    let mut queue = GreedyQueue::new(f2_fcfs());
    queue.insert(JobId(0), GreedyJob::new(1, 0, 10, 8).unwrap());
    queue.insert(JobId(1), GreedyJob::new(4, 5, 10, 2).unwrap());
    let size = |id: JobId| [8, 2][id.index()];
    assert_eq!(queue.pop_if_fits(10, 4, size), None);
    assert_eq!(queue.len(), 2);
    assert_eq!(queue.pop_if_fits(10, 10, size), Some(JobId(0)));
    assert_eq!(queue.pop_if_fits(10, 2, size), Some(JobId(1)));
    assert!(queue.is_empty());
}

/// A workload whose time 0 is Friday 1996-09-27 16:00 UTC, for the
/// situations: weekday 8-18 until 7200 s, weekday 18-8 until 28,800 s
/// (Saturday 00:00), then the weekend.
fn friday_jobs(jobs: Vec<Job>) -> JobSet {
    // 1996-09-27 16:00:00 UTC = 843,840,000 s after the Unix epoch.
    JobSet::from_jobs(jobs, &JobModel::new(10))
        .unwrap()
        .with_calendar(Calendar::utc(843_840_000))
}

#[test]
fn each_situation_uses_its_own_criterion() {
    // Weekday day: f2 with a = 0, b = 1, w = 1, K = 0 scores p_j m_j: the
    // largest area first. Weekday night and weekend: f2-FCFS (oldest first).
    let largest = SortingCriterion::new(
        Criterion::F2,
        CriterionParams {
            a: 0.0,
            b: 1.0,
            w: [1.0; 5],
            k: [0.0; 5],
        },
    )
    .unwrap();
    let path = params_file_of(
        "situations",
        &GreedyParameters {
            weekend: f2_fcfs(),
            weekday_day: largest,
            weekday_night: f2_fcfs(),
        },
    );
    // A 10-processor blocker runs [0, 1000) (day), [8000, 9000) (from
    // 18:13, night) and [30,000, 31,000) (from Saturday 00:20). Behind each
    // wait an old job (2 processors x 100 s) and a young one (9 x 100 s),
    // which cannot run together: the order decides which starts first.
    let job = |n, submit, size, runtime| Job::new(n, submit, size, runtime, runtime);
    let mut jobs = Vec::new();
    for (block, start) in [0i64, 8000, 30_000].into_iter().enumerate() {
        let n = 3 * block as u64;
        jobs.push(job(n, start, 10, 1000));
        jobs.push(job(n + 1, start + 10, 2, 100)); // old, area 200
        jobs.push(job(n + 2, start + 20, 9, 100)); // young, area 900
    }
    let jobs = friday_jobs(jobs);
    let schedule = simulate(&jobs, &mut greedy(&path)).unwrap();
    let starts = schedule.starts();
    // Day (blocker ends at 1000, Friday 16:16): the larger area first, 9
    // processors [1000, 1100), then the 2-processor job at 1100.
    assert_eq!(&starts[0..3], [0, 1100, 1000]);
    // Night (ends at 9000, Friday 18:30): oldest first.
    assert_eq!(&starts[3..6], [8000, 9000, 9100]);
    // Weekend (ends at 31,000, Saturday 00:36): oldest first.
    assert_eq!(&starts[6..9], [30_000, 31_000, 31_100]);
}

#[test]
fn spec_errors_name_the_file() {
    let build = |text: &str| build_policy(&text.parse::<PolicySpec>().unwrap()).map(|_| ());
    assert_eq!(
        build("greedy").unwrap_err().to_string(),
        "policy `greedy` needs option `params`"
    );
    let missing = build("greedy:params=/nonexistent/p.json")
        .unwrap_err()
        .to_string();
    assert!(
        missing.starts_with("parameter file /nonexistent/p.json: "),
        "{missing}"
    );
    let dir = std::env::temp_dir().join(format!("schedsim-greedy-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    let f2 = r#"{"criterion":"f2","a":1,"b":0,"w":[1,1,1,1,1],"k":[0,0,0,0,9]}"#;
    std::fs::write(
        &bad,
        format!(r#"{{"weekend":{f2},"weekday_day":{f2},"weekday_night":{f2}}}"#),
    )
    .unwrap();
    let error = build(&format!("greedy:params={}", bad.display()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("parameter K5 is 9"), "{error}");
}

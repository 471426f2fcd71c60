//! The Greedy sorting criteria (Franke, Lepping and Schwiegelshohn, section
//! III-A) and their queue.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schedsim_policies::{
    Criterion, CriterionParams, GreedyJob, GreedyQueue, PolicySpec, SortingCriterion, build_policy,
};
use schedsim_sim_core::{Decisions, Job, JobId, JobModel, JobSet, Policy, View, simulate};

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

/// Greedy without backfilling under one criterion, the queue rebuilt at
/// every call (the policy proper, with situations, needs the log's
/// calendar). Job i belongs to user group 1 + i % 5.
struct Greedy(SortingCriterion);

impl Policy for Greedy {
    fn name(&self) -> &str {
        "greedy-test"
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let mut queue = GreedyQueue::new(self.0);
        for &id in view.queue() {
            let job = view.job(id);
            let group = 1 + id.index() % 5;
            queue.insert(
                id,
                GreedyJob::new(group, job.submit, job.estimate, job.size).unwrap(),
            );
        }
        let mut free = view.free();
        while let Some(id) = queue.pop_if_fits(view.now(), free, |id| view.job(id).size) {
            free -= view.job(id).size;
            decisions.start(id);
        }
    }
}

fn workload() -> impl Strategy<Value = JobSet> {
    prop::collection::vec((0..200i64, 1..=PROCS, 1..60i64, 0..60i64), 1..40).prop_map(|specs| {
        let jobs = specs
            .into_iter()
            .enumerate()
            .map(|(i, (submit, size, runtime, slack))| {
                Job::new(i as u64, submit, size, runtime + slack, runtime)
            })
            .collect();
        JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap()
    })
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
    /// schedules are equal, whatever the groups.
    #[test]
    fn f2_with_unit_weights_is_fcfs(jobs in workload()) {
        let greedy = simulate(&jobs, &mut Greedy(f2_fcfs())).unwrap();
        let mut fcfs = build_policy(&"fcfs".parse::<PolicySpec>().unwrap()).unwrap();
        let fcfs = simulate(&jobs, &mut fcfs).unwrap();
        prop_assert_eq!(greedy.starts(), fcfs.starts());
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

//! The event loop: ordering at equal times, decision validation, and the
//! schedule it records.

use schedsim_sim_core::{
    Decisions, Job, JobId, JobModel, JobSet, OverrunRule, Policy, SimError, Time, View, simulate,
};

fn job(number: u64, submit: Time, size: u32, estimate: Time, runtime: Time) -> Job {
    Job::new(number, submit, size, estimate, runtime)
}

/// Starts queue-head jobs while they fit, and records what it saw.
#[derive(Default)]
struct Fcfs {
    calls: Vec<(Time, u32, Vec<u64>, Vec<u64>)>,
}

impl Policy for Fcfs {
    fn name(&self) -> &str {
        "test-fcfs"
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let numbers = |ids: &[JobId]| ids.iter().map(|&id| view.job(id).number).collect();
        self.calls.push((
            view.now(),
            view.free(),
            numbers(view.arrived()),
            numbers(view.ended()),
        ));
        let mut free = view.free();
        for &id in view.queue() {
            let size = view.job(id).size;
            if size > free {
                break;
            }
            free -= size;
            decisions.start(id);
        }
    }
}

#[test]
fn ends_are_applied_before_arrivals_and_the_policy_is_called_once_per_timestamp() {
    // 4 processors. Job 1 (4 procs) runs 0..10. Jobs 2 and 3 arrive at 10,
    // exactly when job 1 ends: the policy is called once at 10 and already
    // sees the 4 freed processors, so both start at 10.
    let jobs = JobSet::from_jobs(
        vec![
            job(1, 0, 4, 10, 10),
            job(2, 10, 2, 5, 5),
            job(3, 10, 2, 5, 5),
        ],
        &JobModel::new(4),
    )
    .unwrap();
    let mut policy = Fcfs::default();
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 10, 10]);
    assert_eq!(schedule.ends(), [10, 15, 15]);
    assert_eq!(
        policy.calls,
        [
            (0, 4, vec![1], vec![]),
            // One call at 10, after both the end of 1 and the arrivals.
            (10, 4, vec![2, 3], vec![1]),
        ]
    );
    // Lowest free processors first.
    let ranges = |id| {
        schedule
            .allocation(JobId(id))
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(ranges(0), ["0-3"]);
    assert_eq!(ranges(1), ["0-1"]);
    assert_eq!(ranges(2), ["2-3"]);
    // Events: 3 arrivals + 3 ends; timestamps 0, 10, 15.
    assert_eq!(schedule.stats().events, 6);
    assert_eq!(schedule.stats().timestamps, 3);
    assert_eq!(schedule.stats().policy_calls, 2);
}

#[test]
fn zero_runtime_jobs_end_at_their_start_and_the_policy_runs_again() {
    // Job 1 (2 procs, runtime 0) and job 2 (2 procs) on 2 processors, both
    // at 0: job 1 starts and ends at 0, then job 2 starts at 0 too.
    let jobs = JobSet::from_jobs(
        vec![job(1, 0, 2, 1, 0), job(2, 0, 2, 5, 5)],
        &JobModel::new(2),
    )
    .unwrap();
    let mut policy = Fcfs::default();
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 0]);
    assert_eq!(schedule.ends(), [0, 5]);
    assert_eq!(policy.calls.len(), 2);
}

#[test]
fn killed_and_extended_jobs_end_at_their_runtime() {
    // The job model already cut the runtime under the kill rule; the core
    // ends every job at start + runtime.
    let record = workload_format::Record {
        submit_time: Some(0),
        run_time: Some(100),
        requested_processors: Some(1),
        requested_time: Some(60),
        ..workload_format::Record::unknown(1)
    };
    let mut model = JobModel::new(1);
    let killed = JobSet::from_records([&record], &model).unwrap();
    assert_eq!(
        simulate(&killed, &mut Fcfs::default())
            .unwrap()
            .end(JobId(0)),
        60
    );
    model.overrun = OverrunRule::Extend;
    let extended = JobSet::from_records([&record], &model).unwrap();
    assert_eq!(
        simulate(&extended, &mut Fcfs::default())
            .unwrap()
            .end(JobId(0)),
        100
    );
}

#[test]
fn running_jobs_past_their_estimate_are_expected_to_end_now() {
    // Extend rule: job 1 has estimate 10 but runs 30. At time 20 (arrival of
    // job 2) the view must report its expected end as 21 (the soonest it can
    // still end), not 10.
    struct Probe(Vec<Time>);
    impl Policy for Probe {
        fn name(&self) -> &str {
            "probe"
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            self.0.extend(view.running().map(|r| r.expected_end));
            if let Some(&head) = view.queue().first()
                && view.job(head).size <= view.free()
            {
                decisions.start(head);
            }
        }
    }
    let mut model = JobModel::new(1);
    model.overrun = OverrunRule::Extend;
    let jobs = JobSet::from_jobs(vec![job(1, 0, 1, 10, 30), job(2, 20, 1, 5, 5)], &model).unwrap();
    let mut probe = Probe(Vec::new());
    let schedule = simulate(&jobs, &mut probe).unwrap();
    // Calls at 0 (nothing running), 20 (job 1 past its estimate) and 30
    // (job 1 has ended).
    assert_eq!(probe.0, [21]);
    assert_eq!(schedule.starts(), [0, 30]);
}

struct Scripted(Vec<(Time, Vec<u32>, Vec<Time>)>);

impl Policy for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        for (at, starts, wakes) in &self.0 {
            if *at == view.now() {
                starts.iter().for_each(|&id| decisions.start(JobId(id)));
                wakes.iter().for_each(|&t| decisions.wake_at(t));
            }
        }
    }
}

#[test]
fn invalid_decisions_are_errors() {
    let jobs = JobSet::from_jobs(
        vec![
            job(1, 0, 3, 10, 10),
            job(2, 0, 2, 10, 10),
            job(3, 50, 1, 1, 1),
        ],
        &JobModel::new(4),
    )
    .unwrap();
    // 3 + 2 processors on a 4-processor machine.
    let err = simulate(&jobs, &mut Scripted(vec![(0, vec![0, 1], vec![])])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy scripted started job 2 (JobId(1)) needing 2 processors at time 0, but only 1 are free"
    );
    // Starting the same job twice.
    let err = simulate(&jobs, &mut Scripted(vec![(0, vec![0, 0], vec![])])).unwrap_err();
    assert!(matches!(err, SimError::NotWaiting { job: JobId(0), .. }));
    // Starting a job that has not arrived yet.
    let err = simulate(&jobs, &mut Scripted(vec![(0, vec![2], vec![])])).unwrap_err();
    assert!(matches!(err, SimError::NotWaiting { job: JobId(2), .. }));
    // An unknown job id.
    let err = simulate(&jobs, &mut Scripted(vec![(0, vec![9], vec![])])).unwrap_err();
    assert!(matches!(err, SimError::NotWaiting { job: JobId(9), .. }));
    assert_eq!(
        err.to_string(),
        "policy scripted started job ? (JobId(9)) at time 0, but that job is not waiting (no such job)"
    );
    // A wake-up in the past.
    let err = simulate(&jobs, &mut Scripted(vec![(0, vec![], vec![-1])])).unwrap_err();
    assert!(matches!(err, SimError::WakeInPast { wake: -1, .. }));
}

#[test]
fn a_policy_that_never_starts_jobs_stalls_with_an_error() {
    let jobs = JobSet::from_jobs(vec![job(1, 0, 1, 10, 10)], &JobModel::new(4)).unwrap();
    let err = simulate(&jobs, &mut Scripted(vec![])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy scripted left 1 jobs waiting and 0 suspended at time 0 with no event pending"
    );
}

#[test]
fn wakeups_call_the_policy_at_the_requested_time() {
    // Nothing happens between 0 and 50, but the policy asked to be woken at
    // 7 and starts the job then.
    let jobs = JobSet::from_jobs(vec![job(1, 0, 1, 10, 10)], &JobModel::new(4)).unwrap();
    let schedule = simulate(
        &jobs,
        &mut Scripted(vec![(0, vec![], vec![7, 7]), (7, vec![0], vec![])]),
    )
    .unwrap();
    assert_eq!(schedule.start(JobId(0)), 7);
    // 1 arrival, 1 wake-up event (the two requests for 7 are one event),
    // 1 end.
    assert_eq!(schedule.stats().events, 3);
}

#[test]
fn a_policy_that_gives_up_stops_the_run_with_its_reason() {
    struct Quitter;
    impl Policy for Quitter {
        fn name(&self) -> &str {
            "quitter"
        }
        fn schedule(&mut self, _: &View<'_>, decisions: &mut Decisions) {
            decisions.fail("table too large");
        }
    }
    let jobs = JobSet::from_jobs(vec![job(1, 3, 1, 10, 10)], &JobModel::new(4)).unwrap();
    let err = simulate(&jobs, &mut Quitter).unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy quitter failed at time 3: table too large"
    );
}

/// FCFS over the batch queue, plus: dedicated jobs start when due and fit.
struct Elastic {
    capabilities: schedsim_sim_core::Capabilities,
}

impl Elastic {
    fn new(elastic_commands: bool, dedicated_jobs: bool) -> Self {
        Self {
            capabilities: {
                let mut capabilities = schedsim_sim_core::Capabilities::default();
                capabilities.dedicated_jobs = dedicated_jobs;
                capabilities.elastic_commands = elastic_commands;
                capabilities
            },
        }
    }
}

impl Policy for Elastic {
    fn name(&self) -> &str {
        "elastic"
    }
    fn capabilities(&self) -> schedsim_sim_core::Capabilities {
        self.capabilities
    }
    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let mut free = view.free();
        for &id in view.dedicated() {
            let job = view.job(id);
            if job.requested_start.is_some_and(|r| r <= view.now()) && job.size <= free {
                free -= job.size;
                decisions.start(id);
            }
        }
        for &id in view.queue() {
            let size = view.job(id).size;
            if size > free {
                break;
            }
            free -= size;
            decisions.start(id);
        }
    }
}

fn with(
    jobs: Vec<Job>,
    model: &JobModel,
    commands: &[(Time, u32, schedsim_sim_core::Change)],
) -> JobSet {
    let commands = commands
        .iter()
        .map(|&(time, job, change)| schedsim_sim_core::ElasticCommand {
            time,
            job: JobId(job),
            change,
        })
        .collect();
    JobSet::from_jobs(jobs, model)
        .unwrap()
        .with_commands(commands)
        .unwrap()
}

#[test]
fn elastic_commands_change_estimates_and_ends_by_hand() {
    use schedsim_sim_core::Change::{ExtendProcessors, ExtendTime, ReduceTime};
    let model = JobModel::new(4);
    // A: 4 procs, estimate 100, works 100, runs 0..100. B: 4 procs,
    // estimate 50, works 80, queued at 10: the kill rule would end it 50 s
    // after its start. ET +40 at 20, while B waits: estimate 50 + 40 = 90
    // and work 80 + 40 = 120, so B runs min(120, 90) = 90 s: 100..190,
    // killed at its (extended) kill-by time.
    // Built from records so that B keeps its recorded runtime (80) apart
    // from its estimate (50).
    let records = [
        workload_format::Record {
            submit_time: Some(0),
            run_time: Some(100),
            requested_processors: Some(4),
            requested_time: Some(100),
            ..workload_format::Record::unknown(1)
        },
        workload_format::Record {
            submit_time: Some(10),
            run_time: Some(80),
            requested_processors: Some(4),
            requested_time: Some(50),
            ..workload_format::Record::unknown(2)
        },
    ];
    let jobs_with_work = JobSet::from_records(&records, &model).unwrap();
    assert_eq!(jobs_with_work.work(JobId(1)), 80);
    let set = jobs_with_work
        .with_commands(vec![schedsim_sim_core::ElasticCommand {
            time: 20,
            job: JobId(1),
            change: ExtendTime(40),
        }])
        .unwrap();
    let schedule = simulate(&set, &mut Elastic::new(true, false)).unwrap();
    assert_eq!(
        (schedule.start(JobId(1)), schedule.end(JobId(1))),
        (100, 190)
    );
    assert_eq!(
        schedule.final_state(JobId(1)),
        schedsim_sim_core::FinalState::CompletedWalltimeReached
    );
    assert_eq!(schedule.stats().commands_applied, 1);
    // Without the ECC processor the command is ignored: B is killed at its
    // estimate, 100 + 50 = 150.
    let schedule = simulate(&set, &mut Elastic::new(false, false)).unwrap();
    assert_eq!(schedule.end(JobId(1)), 150);
    assert_eq!(schedule.stats().commands_ignored, 1);

    // RT on a running job: A (0..100) reduced by 30 at 10 ends at 70.
    let set = with(
        vec![job(1, 0, 4, 100, 100)],
        &model,
        &[(10, 0, ReduceTime(30))],
    );
    assert_eq!(
        simulate(&set, &mut Elastic::new(true, false))
            .unwrap()
            .end(JobId(0)),
        70
    );
    // Reduced by 95 at 10: the new limit, 5 s, is below the 10 s it has run:
    // it ends at once, at 10.
    let set = with(
        vec![job(1, 0, 4, 100, 100)],
        &model,
        &[(10, 0, ReduceTime(95))],
    );
    let schedule = simulate(&set, &mut Elastic::new(true, false)).unwrap();
    assert_eq!(schedule.end(JobId(0)), 10);
    assert_eq!(schedule.stats().commands_ending_jobs, 1);
    // A command after the job ended does nothing, and is counted.
    let set = with(
        vec![job(1, 0, 4, 100, 100)],
        &model,
        &[(150, 0, ExtendTime(30))],
    );
    let schedule = simulate(&set, &mut Elastic::new(true, false)).unwrap();
    assert_eq!(schedule.end(JobId(0)), 100);
    assert_eq!(schedule.stats().commands_after_end, 1);
    // Processor commands are rejected and counted.
    let set = with(
        vec![job(1, 0, 4, 100, 100)],
        &model,
        &[(10, 0, ExtendProcessors(2))],
    );
    let schedule = simulate(&set, &mut Elastic::new(true, false)).unwrap();
    assert_eq!(schedule.stats().processor_commands_rejected, 1);
}

#[test]
fn elastic_commands_with_killing_and_extending() {
    use schedsim_sim_core::Change::{ExtendTime, ReduceTime};
    let record = workload_format::Record {
        submit_time: Some(0),
        run_time: Some(150),
        requested_processors: Some(1),
        requested_time: Some(100),
        ..workload_format::Record::unknown(1)
    };
    // Kill rule: works 150, estimate 100: killed at 100. ET +30 at 50: the
    // limit becomes 130 and the work 180, so it is killed at min(180, 130)
    // = 130 instead.
    let mut model = JobModel::new(1);
    let set = JobSet::from_records([&record], &model)
        .unwrap()
        .with_commands(vec![schedsim_sim_core::ElasticCommand {
            time: 50,
            job: JobId(0),
            change: ExtendTime(30),
        }])
        .unwrap();
    assert_eq!(
        simulate(&set, &mut Elastic::new(true, false))
            .unwrap()
            .end(JobId(0)),
        130
    );
    // Extend rule: it runs its 150 s whatever the estimate, but RT 60 at 50
    // (limit 40 <= 50 s already run) ends it at 50.
    model.overrun = OverrunRule::Extend;
    let set = JobSet::from_records([&record], &model)
        .unwrap()
        .with_commands(vec![schedsim_sim_core::ElasticCommand {
            time: 50,
            job: JobId(0),
            change: ReduceTime(60),
        }])
        .unwrap();
    assert_eq!(
        simulate(&set, &mut Elastic::new(true, false))
            .unwrap()
            .end(JobId(0)),
        50
    );
}

#[test]
fn dedicated_jobs_start_at_their_requested_time() {
    let model = JobModel::new(4);
    let mut dedicated = job(1, 0, 2, 10, 10);
    dedicated.requested_start = Some(50);
    let jobs = JobSet::from_jobs(vec![dedicated, job(2, 0, 2, 10, 10)], &model).unwrap();
    // A policy that handles dedicated jobs: woken at 50, starts it then.
    let schedule = simulate(&jobs, &mut Elastic::new(false, true)).unwrap();
    assert_eq!(schedule.starts(), [50, 0]);
    // A batch-only policy runs it as a batch job at once, and says so.
    let schedule = simulate(&jobs, &mut Elastic::new(false, false)).unwrap();
    assert_eq!(schedule.starts(), [0, 0]);
    assert_eq!(schedule.stats().dedicated_as_batch, 1);
    // Starting it before 50 is an error.
    struct Eager;
    impl Policy for Eager {
        fn name(&self) -> &str {
            "eager"
        }
        fn capabilities(&self) -> schedsim_sim_core::Capabilities {
            schedsim_sim_core::Capabilities::default().with_dedicated_jobs()
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            view.dedicated().iter().for_each(|&id| decisions.start(id));
            view.queue().iter().for_each(|&id| decisions.start(id));
        }
    }
    let err = simulate(&jobs, &mut Eager).unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy eager started dedicated job 1 (JobId(0)) at time 0, before its requested start 50"
    );
}

#[test]
fn times_stay_far_from_overflow() {
    use schedsim_sim_core::{JobModelError, MAX_SERIAL_END, MAX_TIME, TIME_LIMIT};
    // 128 jobs of 2^53 s in a row end at 2^7 x 2^53 = 2^60: accepted;
    // one more second of runtime is refused.
    let at_limit: Vec<_> = (0..128)
        .map(|n| job(n + 1, 0, 1, MAX_TIME, MAX_TIME))
        .collect();
    assert!(JobSet::from_jobs(at_limit.clone(), &JobModel::new(1)).is_ok());
    let mut over = at_limit;
    over.push(job(129, 0, 1, 1, 1));
    let err = JobSet::from_jobs(over, &JobModel::new(1)).unwrap_err();
    assert_eq!(
        err,
        JobModelError::TooLong {
            end: MAX_SERIAL_END as u128 + 1
        }
    );
    // A policy that waits until just before 2^62 s and then starts a job of
    // 10 s: the job would end 5 s past the limit.
    let jobs = JobSet::from_jobs(vec![job(1, 0, 1, 10, 10)], &JobModel::new(4)).unwrap();
    let late = TIME_LIMIT - 5;
    let err = simulate(
        &jobs,
        &mut Scripted(vec![(0, vec![], vec![late]), (late, vec![0], vec![])]),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "policy scripted at time {late}: job 1 would end at {} s, past the 2^62 s a simulation can reach",
            TIME_LIMIT + 5
        )
    );
    // A wake-up past the limit.
    let err = simulate(
        &jobs,
        &mut Scripted(vec![(0, vec![], vec![TIME_LIMIT + 1])]),
    )
    .unwrap_err();
    assert!(
        matches!(err, SimError::BeyondTimeLimit { at, .. } if at == i128::from(TIME_LIMIT) + 1)
    );
}

//! The job lifecycle beyond "start and run to the end": rejection,
//! suspension and resumption on the same processors with switch overheads,
//! starts on given processors, elastic commands that lengthen jobs, the
//! steppable engine, and per-event invocation.

use schedsim_sim_core::{
    Capabilities, Change, Decisions, ElasticCommand, EventOrder, FinalState, Invocation, Job,
    JobId, JobModel, JobSet, JobState, Policy, ProcRange, Segment, SimError, SimOptions,
    Simulation, SimultaneousEnds, SwitchOverhead, Time, View, simulate, simulate_with,
};

fn set(procs: u32, jobs: Vec<Job>) -> JobSet {
    JobSet::from_jobs(jobs, &JobModel::new(procs)).unwrap()
}

fn range(first: u32, last: u32) -> ProcRange {
    ProcRange { first, last }
}

/// A policy driven by a script: at time t (first call at t only), these
/// actions.
struct Script {
    steps: Vec<(Time, Vec<Act>)>,
    wakeups: Vec<Time>,
}

#[derive(Clone)]
enum Act {
    Start(u32),
    StartOn(u32, Vec<ProcRange>),
    Reject(u32),
    Suspend(u32),
    Resume(u32),
}

impl Script {
    fn new(steps: Vec<(Time, Vec<Act>)>) -> Self {
        // Wake up at every scripted time so the script runs even when
        // nothing else happens then.
        let wakeups = steps.iter().map(|(t, _)| *t).collect();
        Self { steps, wakeups }
    }
}

impl Policy for Script {
    fn name(&self) -> &str {
        "script"
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        for &t in &self.wakeups {
            if t > view.now() {
                decisions.wake_at(t);
            }
        }
        let Some(position) = self.steps.iter().position(|(t, _)| *t == view.now()) else {
            return;
        };
        let (_, acts) = self.steps.remove(position);
        for act in acts {
            match act {
                Act::Start(id) => decisions.start(JobId(id)),
                Act::StartOn(id, ranges) => decisions.start_on(JobId(id), &ranges),
                Act::Reject(id) => decisions.reject(JobId(id), "scripted"),
                Act::Suspend(id) => decisions.suspend(JobId(id)),
                Act::Resume(id) => decisions.resume(JobId(id)),
            }
        }
    }
}

fn segments(schedule: &schedsim_sim_core::Schedule, id: u32) -> Vec<(Time, Time)> {
    schedule
        .segments(JobId(id))
        .map(|Segment { start, end }| (start, end))
        .collect()
}

#[test]
fn a_policy_that_rejects_every_job_finishes() {
    struct RejectAll;
    impl Policy for RejectAll {
        fn name(&self) -> &str {
            "reject-all"
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            for &id in view.queue() {
                decisions.reject(id, "no room");
            }
        }
    }
    let jobs = set(
        4,
        vec![Job::new(1, 0, 2, 10, 10), Job::new(2, 5, 4, 100, 50)],
    );
    let schedule = simulate(&jobs, &mut RejectAll).unwrap();
    for id in [JobId(0), JobId(1)] {
        assert_eq!(schedule.final_state(id), FinalState::Rejected);
        assert_eq!(schedule.start(id), schedsim_sim_core::Schedule::NOT_RUN);
        assert_eq!(schedule.segments(id).len(), 0);
    }
    let stats = schedule.stats();
    assert_eq!(stats.rejected_jobs, 2);
    // 2 x 10 + 4 x 50 processor-seconds.
    assert_eq!(stats.rejected_work, 220);
    assert_eq!(schedule.rejected()[1].time, 5);
    assert_eq!(schedule.rejected()[1].reason, "no room");
    // A rejected job cannot be started afterwards.
    let jobs = set(4, vec![Job::new(1, 0, 2, 10, 10)]);
    let err = simulate(
        &jobs,
        &mut Script::new(vec![(0, vec![Act::Reject(0), Act::Start(0)])]),
    )
    .unwrap_err();
    assert!(matches!(err, SimError::NotWaiting { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "policy script started job 1 (JobId(0)) at time 0, but that job is not waiting (it was rejected)"
    );
    // Rejecting it twice says so: the message said "started" before.
    let err = simulate(
        &jobs,
        &mut Script::new(vec![(0, vec![Act::Reject(0), Act::Reject(0)])]),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy script rejected job 1 (JobId(0)) at time 0, but that job is not waiting (it was rejected)"
    );
}

#[test]
fn suspension_and_resumption_with_switch_overheads_by_hand() {
    // 4 processors, overheads 5 s to suspend and 3 s to resume.
    // A (4 procs, works 100) starts at 0 and is suspended at 40: it has run
    // 40 s, keeps 60 s of work, and holds its processors until 40 + 5 = 45.
    // B (4 procs, works 20) arrives at 40, starts at 45 (when A's
    // processors are released), ends at 65.
    // A resumes at 65 on processors 0-3: the overhead holds them 65..68,
    // then it runs its remaining 60 s: ends at 128.
    // A's segments: [0, 45) and [65, 128); 45 + 63 = 108 = 100 work + 5 + 3.
    let jobs = set(
        4,
        vec![Job::new(1, 0, 4, 200, 100), Job::new(2, 40, 4, 50, 20)],
    );
    let options = SimOptions::default().with_switch_overhead(SwitchOverhead {
        suspend: 5,
        resume: 3,
    });
    let mut script = Script::new(vec![
        (0, vec![Act::Start(0)]),
        (40, vec![Act::Suspend(0)]),
        (45, vec![Act::Start(1)]),
        (65, vec![Act::Resume(0)]),
    ]);
    let schedule = simulate_with(&jobs, &mut script, &options).unwrap();
    assert_eq!(segments(&schedule, 0), [(0, 45), (65, 128)]);
    assert_eq!(segments(&schedule, 1), [(45, 65)]);
    assert_eq!((schedule.start(JobId(0)), schedule.end(JobId(0))), (0, 128));
    assert_eq!(schedule.allocation(JobId(0)), [range(0, 3)]);
    assert_eq!(schedule.suspensions(JobId(0)), 1);
    // 128 - 0 wall time, 108 held: 20 s suspended (45..65).
    assert_eq!(schedule.suspended_time(JobId(0)), 20);
    assert_eq!(
        schedule.final_state(JobId(0)),
        FinalState::CompletedSuccessfully
    );
    assert_eq!(
        (schedule.stats().suspensions, schedule.stats().resumes),
        (1, 1)
    );
}

#[test]
fn resume_needs_its_own_processors_and_suspending_the_collider_first_works() {
    // 4 processors. A (2 procs) starts on 2-3 at 0 and is suspended at 10.
    // B (2 procs) starts at 10 on the lowest free processors, 0-1; C (2
    // procs) is started on 2-3 by hand at 10 too.
    // At 20, resuming A collides with C: an error.
    let jobs = set(
        4,
        vec![
            Job::new(1, 0, 2, 100, 100),
            Job::new(2, 0, 2, 100, 100),
            Job::new(3, 0, 2, 100, 100),
        ],
    );
    let script = || {
        vec![
            (0, vec![Act::StartOn(0, vec![range(2, 3)])]),
            (
                10,
                vec![
                    Act::Suspend(0),
                    Act::Start(1),
                    Act::StartOn(2, vec![range(2, 3)]),
                ],
            ),
        ]
    };
    let mut colliding = script();
    colliding.push((20, vec![Act::Resume(0)]));
    let err = simulate(&jobs, &mut Script::new(colliding)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy script at time 20: job 1 (JobId(0)): some of its processors are busy"
    );
    // Suspending C first, in the same decision list, frees 2-3 for A:
    // A has run 10 s and resumes at 20, ends at 20 + 90 = 110; C has run 10
    // s, is resumed at 110 and ends at 110 + 90 = 200.
    let mut swapping = script();
    swapping.push((20, vec![Act::Suspend(2), Act::Resume(0)]));
    swapping.push((110, vec![Act::Resume(2)]));
    let schedule = simulate(&jobs, &mut Script::new(swapping)).unwrap();
    assert_eq!(segments(&schedule, 0), [(0, 10), (20, 110)]);
    assert_eq!(segments(&schedule, 2), [(10, 20), (110, 200)]);
    assert_eq!(schedule.allocation(JobId(0)), schedule.allocation(JobId(2)));
    assert_eq!(schedule.allocation(JobId(1)), [range(0, 1)]);
}

#[test]
fn refused_decisions_name_the_problem() {
    let jobs = set(
        4,
        vec![Job::new(1, 0, 2, 100, 100), Job::new(2, 0, 2, 100, 100)],
    );
    let message = |acts: Vec<Act>| {
        simulate(&jobs, &mut Script::new(vec![(0, acts)]))
            .unwrap_err()
            .to_string()
    };
    assert!(
        message(vec![Act::StartOn(0, vec![range(0, 2)])])
            .ends_with("the ranges do not hold exactly the job's size")
    );
    assert!(
        message(vec![Act::StartOn(0, vec![range(3, 4)])])
            .ends_with("a range is empty or outside the machine")
    );
    assert!(
        message(vec![Act::Start(0), Act::StartOn(1, vec![range(1, 2)])])
            .ends_with("some of the processors asked for are busy")
    );
    assert!(message(vec![Act::Suspend(0)]).ends_with("only a running job can be suspended"));
    assert!(message(vec![Act::Resume(0)]).ends_with("only a suspended job can be resumed"));
    // With a suspend overhead the job holds its processors until it has
    // passed: resuming it before is refused.
    let options = SimOptions::default().with_switch_overhead(SwitchOverhead {
        suspend: 10,
        resume: 0,
    });
    let err = simulate_with(
        &jobs,
        &mut Script::new(vec![
            (0, vec![Act::Start(0)]),
            (5, vec![Act::Suspend(0)]),
            (6, vec![Act::Resume(0)]),
        ]),
        &options,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("the job is still in its suspend overhead and holds its processors")
    );
}

#[test]
fn a_run_cannot_end_with_suspended_jobs() {
    let jobs = set(4, vec![Job::new(1, 0, 2, 100, 100)]);
    let err = simulate(
        &jobs,
        &mut Script::new(vec![(0, vec![Act::Start(0)]), (10, vec![Act::Suspend(0)])]),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "policy script left 0 jobs waiting and 1 suspended at time 10 with no event pending"
    );
}

#[test]
fn the_view_shows_processors_and_suspended_jobs() {
    struct Inspect(Vec<String>);
    impl Policy for Inspect {
        fn name(&self) -> &str {
            "inspect"
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            let free: Vec<String> = view.free_processors().map(|r| r.to_string()).collect();
            self.0.push(format!(
                "t={} free={:?} suspended={:?}",
                view.now(),
                free,
                view.suspended()
            ));
            match view.now() {
                0 => {
                    decisions.start_on(JobId(0), &[range(1, 2)]);
                    decisions.wake_at(30);
                }
                30 => {
                    assert_eq!(view.state(JobId(0)), JobState::Running);
                    assert_eq!(
                        (view.run_time(JobId(0)), view.remaining_estimate(JobId(0))),
                        (30, 70)
                    );
                    decisions.suspend(JobId(0));
                    decisions.wake_at(40);
                }
                40 => {
                    assert_eq!(view.state(JobId(0)), JobState::Suspended);
                    assert_eq!(view.allocation(JobId(0)), [range(1, 2)]);
                    assert_eq!(view.remaining_estimate(JobId(0)), 70);
                    assert!(view.is_free(view.allocation(JobId(0))));
                    decisions.resume(JobId(0));
                }
                _ => {}
            }
        }
    }
    // A job of 2 on 4 processors: estimate 100, works 60.
    let jobs = set(4, vec![Job::new(1, 0, 2, 100, 60)]);
    let mut policy = Inspect(Vec::new());
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(
        policy.0,
        [
            "t=0 free=[\"0-3\"] suspended=[]",
            "t=30 free=[\"0\", \"3\"] suspended=[]",
            "t=40 free=[\"0-3\"] suspended=[JobId(0)]",
        ]
    );
    // 30 s run, then the remaining 30 s from 40: ends at 70.
    assert_eq!(segments(&schedule, 0), [(0, 30), (40, 70)]);
}

/// Runs one 100 s job on 1 processor from 0 with these commands, under an
/// ECC-processing FCFS.
fn with_commands(estimate: Time, commands: &[(Time, Change)]) -> schedsim_sim_core::Schedule {
    struct Ecc;
    impl Policy for Ecc {
        fn name(&self) -> &str {
            "ecc"
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default().with_elastic_commands()
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            for &id in view.queue() {
                decisions.start(id);
            }
        }
    }
    let jobs = set(1, vec![Job::new(1, 0, 1, estimate, 100)])
        .with_commands(
            commands
                .iter()
                .map(|&(time, change)| ElasticCommand {
                    time,
                    job: JobId(0),
                    change,
                })
                .collect(),
        )
        .unwrap();
    simulate(&jobs, &mut Ecc).unwrap()
}

#[test]
fn elastic_commands_lengthen_and_shorten_jobs() {
    use Change::{ExtendTime, ReduceTime};
    // A 100 s job started at 0 with estimate 200: ET 50 at 20 makes its work
    // 150 and its kill-by 250, which does not bind: it ends at 150.
    let schedule = with_commands(200, &[(20, ExtendTime(50))]);
    assert_eq!(schedule.end(JobId(0)), 150);
    assert_eq!(
        schedule.final_state(JobId(0)),
        FinalState::CompletedSuccessfully
    );
    // Estimate 100, ET 50 at 20, RT 60 at 30: kill-by 100 + 50 - 60 = 90 <
    // work 150: it ends at 90, killed by the reduction (without it, it would
    // have run to min(150, 150) = 150).
    let schedule = with_commands(100, &[(20, ExtendTime(50)), (30, ReduceTime(60))]);
    assert_eq!(schedule.end(JobId(0)), 90);
    assert_eq!(schedule.final_state(JobId(0)), FinalState::CompletedKilled);
    // Estimate 80 (killed at 80 without commands): WALLTIME_REACHED.
    let schedule = with_commands(80, &[]);
    assert_eq!(schedule.end(JobId(0)), 80);
    assert_eq!(
        schedule.final_state(JobId(0)),
        FinalState::CompletedWalltimeReached
    );
    // Estimate 80, ET 10 at 5: work 110, kill-by 90: still the walltime.
    let schedule = with_commands(80, &[(5, ExtendTime(10))]);
    assert_eq!(schedule.end(JobId(0)), 90);
    assert_eq!(
        schedule.final_state(JobId(0)),
        FinalState::CompletedWalltimeReached
    );
    // Estimate 300, RT 150 at 10: kill-by 150 > work 100: no effect.
    let schedule = with_commands(300, &[(10, ReduceTime(150))]);
    assert_eq!(schedule.end(JobId(0)), 100);
    assert_eq!(
        schedule.final_state(JobId(0)),
        FinalState::CompletedSuccessfully
    );
    // Commands at 0 apply before the policy runs, while the job waits: an
    // RT of 500 would leave estimate 300 - 500 < 1 s; a waiting job's
    // estimate stays at least 1 s, so it runs 1 s and is killed.
    let schedule = with_commands(300, &[(0, ReduceTime(500))]);
    assert_eq!(schedule.end(JobId(0)), 1);
    assert_eq!(schedule.final_state(JobId(0)), FinalState::CompletedKilled);
    // RT 290 at 20 on estimate 300: kill-by 10 <= the 20 s run: ends at 20.
    let schedule = with_commands(300, &[(20, ReduceTime(290))]);
    assert_eq!(schedule.end(JobId(0)), 20);
    assert_eq!(schedule.final_state(JobId(0)), FinalState::CompletedKilled);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// A job started at 0 ends at start + min(work + sum(ET), kill-by),
        /// kill-by = start + e + sum(ET) - sum(RT), or at the command that
        /// brings the kill-by to or below the time it has run.
        #[test]
        fn a_job_ends_at_the_elastic_formula(
            estimate in 1i64..300,
            // From 1 s on: at 0 the job still waits when commands apply (a
            // waiting job's estimate never drops below 1 s; see below).
            commands in proptest::collection::vec((1i64..250, any::<bool>(), 1i64..120), 0..5),
        ) {
            let mut commands: Vec<(Time, Change)> = commands
                .into_iter()
                .map(|(t, extend, amount)| {
                    (t, if extend { Change::ExtendTime(amount) } else { Change::ReduceTime(amount) })
                })
                .collect();
            commands.sort_by_key(|c| c.0);
            let schedule = with_commands(estimate, &commands);
            // Replay the formula, command by command, while the job runs.
            let (mut work, mut limit) = (100i64, estimate);
            let mut expected = None;
            for &(t, change) in &commands {
                let end = work.min(limit);
                if t >= end {
                    break;
                }
                match change {
                    Change::ExtendTime(x) => { work += x; limit += x; }
                    Change::ReduceTime(x) => limit -= x,
                    _ => unreachable!(),
                }
                if limit <= t {
                    expected = Some(t);
                    break;
                }
            }
            let expected = expected.unwrap_or(work.min(limit));
            prop_assert_eq!(schedule.end(JobId(0)), expected);
        }
    }
}

/// Records each call (time, arrived, ended numbers) and runs FCFS.
#[derive(Default)]
struct Recorder {
    calls: Vec<(Time, Vec<u64>, Vec<u64>)>,
}

impl Policy for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let numbers = |ids: &[JobId]| ids.iter().map(|&id| view.job(id).number).collect();
        self.calls
            .push((view.now(), numbers(view.arrived()), numbers(view.ended())));
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
fn per_event_invocation_calls_the_policy_after_each_event_in_the_chosen_order() {
    // 4 processors. J1 (4 procs) runs 0..10. J2 (2 procs) arrives at 5 and
    // waits. J3 (2 procs) arrives at 10, when J1 ends. J4 (1 proc, 0 s of
    // work) arrives at 20 and ends at once.
    let jobs = set(
        4,
        vec![
            Job::new(1, 0, 4, 10, 10),
            Job::new(2, 5, 2, 5, 5),
            Job::new(3, 10, 2, 5, 5),
            Job::new(4, 20, 1, 1, 0),
        ],
    );
    let run = |invocation, order| {
        let mut policy = Recorder::default();
        let options = SimOptions::default()
            .with_invocation(invocation)
            .with_event_order(order);
        let schedule = simulate_with(&jobs, &mut policy, &options).unwrap();
        assert_eq!(schedule.starts(), [0, 10, 10, 20]);
        policy.calls
    };
    let call = |t: Time, arrived: &[u64], ended: &[u64]| (t, arrived.to_vec(), ended.to_vec());
    // Per timestamp: one call at 10 sees J3's arrival and J1's end. J4's
    // end at 20 comes with an empty queue: no call.
    assert_eq!(
        run(Invocation::PerTimestamp, EventOrder::EndsFirst),
        [
            call(0, &[1], &[]),
            call(5, &[2], &[]),
            call(10, &[3], &[1]),
            call(20, &[4], &[]),
        ]
    );
    // Per event, ends first: J1's end (J2 starts), then J3's arrival (J3
    // starts).
    assert_eq!(
        run(Invocation::PerEvent, EventOrder::EndsFirst),
        [
            call(0, &[1], &[]),
            call(5, &[2], &[]),
            call(10, &[], &[1]),
            call(10, &[3], &[]),
            call(20, &[4], &[]),
        ]
    );
    // Per event, arrivals first (pyss): J3's arrival is seen while J1 still
    // runs (nothing fits), then J1's end starts J2 and J3.
    assert_eq!(
        run(Invocation::PerEvent, EventOrder::ArrivalsFirst),
        [
            call(0, &[1], &[]),
            call(5, &[2], &[]),
            call(10, &[3], &[]),
            call(10, &[], &[1]),
            call(20, &[4], &[]),
        ]
    );
}

#[test]
fn simultaneous_ends_are_separate_events_or_one() {
    // 4 processors. J1 and J2 (2 procs each) run 0..10; J3 (4 procs)
    // arrives at 1 and waits for both.
    let jobs = set(
        4,
        vec![
            Job::new(1, 0, 2, 10, 10),
            Job::new(2, 0, 2, 10, 10),
            Job::new(3, 1, 4, 5, 5),
        ],
    );
    let calls = |ends| {
        let mut policy = Recorder::default();
        let options = SimOptions::default()
            .with_invocation(Invocation::PerEvent)
            .with_simultaneous_ends(ends);
        simulate_with(&jobs, &mut policy, &options).unwrap();
        policy.calls
    };
    // Separate: a call after J1's end (2 processors free: J3 waits), then
    // after J2's (J3 starts).
    let separate = calls(SimultaneousEnds::Separate);
    assert_eq!(
        separate[separate.len() - 2..],
        [(10, vec![], vec![1]), (10, vec![], vec![2])]
    );
    // Together: one call sees both ends.
    let together = calls(SimultaneousEnds::Together);
    assert_eq!(together[together.len() - 1], (10, vec![], vec![1, 2]));
}

#[test]
fn the_steppable_engine_is_the_simulate_loop() {
    let jobs = set(
        4,
        (0..40)
            .map(|i| {
                Job::new(
                    i,
                    i as Time * 3,
                    1 + (i % 4) as u32,
                    20,
                    5 + (i as Time * 7) % 20,
                )
            })
            .collect(),
    );
    for invocation in [Invocation::PerTimestamp, Invocation::PerEvent] {
        let options = SimOptions::default().with_invocation(invocation);
        let expected = simulate_with(&jobs, &mut Recorder::default(), &options).unwrap();
        let mut policy = Recorder::default();
        let mut simulation = Simulation::new(&jobs, &options, policy.name(), policy.capabilities());
        let mut decisions = Decisions::new();
        let mut steps = 0;
        while simulation.advance() {
            steps += 1;
            decisions.clear();
            policy.schedule(&simulation.view(), &mut decisions);
            simulation.apply(&decisions).unwrap();
        }
        assert_eq!(simulation.stats().policy_calls, steps);
        assert_eq!(simulation.finish().unwrap(), expected);
    }
    // Finishing early is an error, not a silently partial schedule.
    let mut simulation =
        Simulation::new(&jobs, &SimOptions::default(), "x", Capabilities::default());
    assert!(simulation.advance());
    assert!(matches!(
        simulation.finish(),
        Err(SimError::RunNotOver { .. })
    ));
}

// The documented panics (`# Panics`) of reading a job that is not in the
// workload: one job, so JobId(99) is out of range.
#[test]
#[should_panic(expected = "index out of bounds")]
fn a_schedule_panics_on_an_unknown_job() {
    let jobs = set(4, vec![Job::new(1, 0, 2, 10, 10)]);
    let schedule = simulate(&jobs, &mut Script::new(vec![(0, vec![Act::Start(0)])])).unwrap();
    let _ = schedule.start(JobId(99));
}

#[test]
#[should_panic(expected = "index out of bounds")]
fn a_view_panics_on_an_unknown_job() {
    let jobs = set(4, vec![Job::new(1, 0, 2, 10, 10)]);
    let mut simulation =
        Simulation::new(&jobs, &SimOptions::default(), "x", Capabilities::default());
    assert!(simulation.advance());
    let _ = simulation.view().estimate(JobId(999));
}

#[test]
fn decisions_before_the_first_advance_say_no_time_has_passed() {
    // The engine's time is Time::MIN until the first advance; the errors
    // used to print it: "at time -9223372036854775808".
    let jobs = set(4, vec![Job::new(1, 5, 2, 10, 10)]);
    let mut simulation =
        Simulation::new(&jobs, &SimOptions::default(), "x", Capabilities::default());
    let mut decisions = Decisions::new();
    decisions.start(JobId(0));
    let error = simulation.apply(&decisions).unwrap_err();
    assert!(matches!(
        error,
        SimError::NotWaiting {
            time: Time::MIN,
            ..
        }
    ));
    let message = error.to_string();
    assert!(
        message.contains("before the first event (no time advanced yet)"),
        "{message}"
    );
    assert!(!message.contains(&Time::MIN.to_string()), "{message}");
    // Finished before any advance: the same wording.
    let simulation = Simulation::new(&jobs, &SimOptions::default(), "x", Capabilities::default());
    assert_eq!(
        simulation.finish().unwrap_err().to_string(),
        "the run of policy x was finished before the first event (no time advanced yet) with events left"
    );
    // Once advanced (to the arrival at 5), the time is printed as ever.
    let mut simulation =
        Simulation::new(&jobs, &SimOptions::default(), "x", Capabilities::default());
    assert!(simulation.advance());
    let mut twice = Decisions::new();
    twice.start(JobId(0));
    twice.start(JobId(0));
    assert!(
        simulation
            .apply(&twice)
            .unwrap_err()
            .to_string()
            .contains(" at time 5, ")
    );
}

#[test]
fn a_duplicated_job_keeps_its_user_and_deadline() {
    use schedsim_sim_core::{Deadline, DeadlineKind, Deadlines, LoadMethod, change_load};
    use workload_format::Record;
    // Ten jobs of user 7 (job numbers 1-10), each 1 processor for 10 s,
    // submitted 10 s apart on a 1-processor machine: load 100 / 90.
    let records: Vec<Record> = (1..=10)
        .map(|n| Record {
            submit_time: Some(10 * (n - 1)),
            run_time: Some(10),
            requested_processors: Some(1),
            requested_time: Some(10),
            user_id: Some(7),
            ..Record::unknown(n)
        })
        .collect();
    let mut deadlines = Deadlines::new();
    for n in 1..=10 {
        deadlines.insert(n, Deadline::new(100 + n as Time, DeadlineKind::User));
    }
    // Raise the load by half: round(0.5 x 10) = 5 duplicates, numbered 11-15.
    let (changed, change) =
        change_load(&records, 1, 1.5 * 100.0 / 90.0, LoadMethod::Duplicate, 3).unwrap();
    assert_eq!(change.duplicates.len(), 5);
    deadlines.extend_to_duplicates(&change.duplicates);
    let jobs = JobSet::from_records(&changed, &JobModel::new(1))
        .unwrap()
        .with_deadlines(&deadlines)
        .unwrap();
    assert_eq!(jobs.normalization().deadlines, 15);
    for &(copy, original) in &change.duplicates {
        let job = jobs.jobs().iter().find(|j| j.number == copy).unwrap();
        // The copy's relative deadline is its original's, 100 + number.
        assert_eq!(
            job.deadline(),
            Some(Deadline::new(100 + original as Time, DeadlineKind::User))
        );
        assert_eq!(job.user(), Some(7));
        assert_eq!(
            job.absolute_deadline(),
            Some(job.submit + 100 + original as Time)
        );
    }
}

#[test]
fn the_view_tells_the_policy_the_switch_overheads_and_counters_default_to_none() {
    // A policy that records the overheads its views show.
    struct Recorder(Vec<SwitchOverhead>);
    impl Policy for Recorder {
        fn name(&self) -> &str {
            "recorder"
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            self.0.push(view.switch_overhead());
            for &id in view.queue() {
                decisions.start(id);
            }
        }
    }
    let jobs = set(4, vec![Job::new(1, 0, 2, 10, 10)]);
    let overhead = SwitchOverhead {
        suspend: 60,
        resume: 30,
    };
    let mut recorder = Recorder(Vec::new());
    simulate_with(
        &jobs,
        &mut recorder,
        &SimOptions::default().with_switch_overhead(overhead),
    )
    .unwrap();
    assert_eq!(recorder.0, [overhead]);
    // Without options the overheads are 0; a hand-made view says 0 unless
    // told otherwise.
    let mut recorder = Recorder(Vec::new());
    simulate(&jobs, &mut recorder).unwrap();
    assert_eq!(recorder.0, [SwitchOverhead::default()]);
    let mut storage = schedsim_sim_core::ViewStorage::default();
    let view = View::new(0, 4, jobs.jobs(), &[], &[], &mut storage);
    assert_eq!(view.switch_overhead(), SwitchOverhead::default());
    assert_eq!(
        view.with_switch_overhead(overhead).switch_overhead(),
        overhead
    );
    // A policy reports no counters unless it keeps some.
    assert!(recorder.counters().is_empty());
}

#[test]
fn a_job_suspended_whenever_its_resume_overhead_ends_is_an_error_not_a_loop() {
    // Resume overhead 2 s, no suspend overhead. The policy starts job 7 at
    // 0 and suspends it at 1 (1 s of work done); a second after each
    // suspension it resumes the job, and suspends it as soon as it may, 2 s
    // later, when the overhead is just over: the job never runs again.
    // Each such suspension is idle; the 1,000th stops the run.
    struct Treadmill;
    impl Policy for Treadmill {
        fn name(&self) -> &str {
            "treadmill"
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            let job = JobId(0);
            match view.state(job) {
                JobState::Waiting => {
                    decisions.start(job);
                    decisions.wake_at(1);
                }
                JobState::Suspended => {
                    decisions.resume(job);
                    decisions.wake_at(view.now() + 2);
                }
                JobState::Running => {
                    decisions.suspend(job);
                    decisions.wake_at(view.now() + 1);
                }
                _ => {}
            }
        }
    }
    let jobs = set(4, vec![Job::new(7, 0, 4, 100, 100)]);
    let options = SimOptions::default().with_switch_overhead(SwitchOverhead {
        suspend: 0,
        resume: 2,
    });
    let error = simulate_with(&jobs, &mut Treadmill, &options).unwrap_err();
    // Suspensions at 1 (work done), then every 3 s (resumed a second
    // later, suspended 2 s after that) at 4, 7, ...: the 1,000th idle one
    // at 1 + 3 x 1000 = 3001.
    assert_eq!(
        error,
        SimError::NoProgress {
            policy: "treadmill".to_owned(),
            number: 7,
            suspensions: 1000,
            time: 3001,
        }
    );
    assert!(error.to_string().starts_with(
        "policy treadmill suspended job 7 1000 times in a row by time 3001 without letting it run"
    ));
}

#[test]
fn a_command_that_moves_an_end_past_the_time_limit_stops_the_run() {
    use schedsim_sim_core::TIME_LIMIT;
    // The policy waits until 100 s before 2^62 and starts the job (work
    // 100, estimate 200): it would end exactly at the limit. An ET of 1,000
    // s at limit - 50 makes its work 1,100 and kill-by 1,200: it would end
    // at limit - 100 + 1,100 = limit + 1,000.
    struct Late;
    impl Policy for Late {
        fn name(&self) -> &str {
            "late"
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default().with_elastic_commands()
        }
        fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
            if view.now() == TIME_LIMIT - 100 {
                decisions.start(JobId(0));
            } else {
                decisions.wake_at(TIME_LIMIT - 100);
            }
        }
    }
    let jobs = set(1, vec![Job::new(1, 0, 1, 200, 100)])
        .with_commands(vec![ElasticCommand {
            time: TIME_LIMIT - 50,
            job: JobId(0),
            change: Change::ExtendTime(1000),
        }])
        .unwrap();
    let err = simulate(&jobs, &mut Late).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "policy late at time {}: job 1 would end at {} s, past the 2^62 s a simulation can reach",
            TIME_LIMIT - 50,
            TIME_LIMIT + 1000
        )
    );
}

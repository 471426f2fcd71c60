//! Invariants of the job lifecycle under a random policy that starts (on
//! the lowest processors or on chosen ones), rejects, suspends and resumes
//! jobs, in both invocation modes and event orders, with switch overheads.

use proptest::prelude::*;
use schedsim_sim_core::{
    Decisions, EventOrder, FinalState, Invocation, Job, JobId, JobModel, JobSet, JobState, Policy,
    ProcRange, Schedule, SimOptions, SwitchOverhead, Time, View, simulate_with,
};

/// Random decisions from a seeded generator; after `chaos_calls` calls it
/// only resumes and starts, so every run ends.
struct Chaos {
    state: u64,
    calls: u32,
    chaos_calls: u32,
}

impl Chaos {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

impl Policy for Chaos {
    fn name(&self) -> &str {
        "chaos"
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.calls += 1;
        let chaotic = self.calls <= self.chaos_calls;
        // Processors free as this call's decisions are applied, in order.
        let mut free: Vec<bool> = vec![false; view.procs() as usize];
        for range in view.free_processors() {
            for p in range.first..=range.last {
                free[p as usize] = true;
            }
        }
        let granularity = view.granularity() as usize;
        let take = |free: &mut [bool], ranges: &[ProcRange]| {
            for range in ranges {
                for p in range.first..=range.last {
                    free[p as usize] = false;
                }
            }
        };
        // Resume suspended jobs whose processors are free.
        for &id in view.suspended() {
            let allocation = view.allocation(id);
            let all_free = allocation
                .iter()
                .all(|r| (r.first..=r.last).all(|p| free[p as usize]));
            if view.state(id) == JobState::Suspended && all_free && (!chaotic || self.chance(60)) {
                decisions.resume(id);
                take(&mut free, allocation);
            }
        }
        // While jobs are suspended and calm, start nothing new: the
        // suspended ones must get their processors back.
        if !chaotic && !view.suspended().is_empty() {
            return;
        }
        if chaotic {
            for job in view.running() {
                if view.state(job.id) == JobState::Running && self.chance(15) {
                    decisions.suspend(job.id);
                }
            }
        }
        for &id in view.queue() {
            if chaotic && self.chance(10) {
                decisions.reject(id, "chaos");
                continue;
            }
            let size = view.job(id).size as usize;
            let blocks: Vec<usize> = (0..free.len() / granularity)
                .filter(|&b| free[b * granularity])
                .collect();
            if blocks.len() * granularity < size {
                continue;
            }
            // Either the lowest free blocks (the engine's choice) or the
            // highest ones, by hand.
            if self.chance(50) {
                let ranges: Vec<ProcRange> = blocks[blocks.len() - size / granularity..]
                    .iter()
                    .map(|&b| ProcRange {
                        first: (b * granularity) as u32,
                        last: ((b + 1) * granularity - 1) as u32,
                    })
                    .collect();
                decisions.start_on(id, &ranges);
                take(&mut free, &ranges);
            } else {
                let ranges: Vec<ProcRange> = blocks[..size / granularity]
                    .iter()
                    .map(|&b| ProcRange {
                        first: (b * granularity) as u32,
                        last: ((b + 1) * granularity - 1) as u32,
                    })
                    .collect();
                decisions.start(id);
                take(&mut free, &ranges);
            }
        }
        if chaotic {
            decisions.wake_at(view.now() + 1 + (self.next() % 7) as Time);
        }
    }
}

fn workload() -> impl Strategy<Value = (u32, Vec<Job>)> {
    (prop_oneof![Just(1u32), Just(2)], 1usize..20).prop_flat_map(|(granularity, n)| {
        proptest::collection::vec((0i64..60, 1u32..=4, 1i64..40, 0i64..40), n).prop_map(
            move |specs| {
                let jobs = specs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (submit, blocks, estimate, runtime))| {
                        Job::new(
                            i as u64 + 1,
                            submit,
                            blocks * granularity,
                            estimate,
                            runtime.min(estimate),
                        )
                    })
                    .collect();
                (granularity, jobs)
            },
        )
    })
}

fn options() -> impl Strategy<Value = SimOptions> {
    (any::<bool>(), any::<bool>(), 0i64..4, 0i64..4).prop_map(
        |(per_event, arrivals_first, suspend, resume)| {
            SimOptions::default()
                .with_invocation(if per_event {
                    Invocation::PerEvent
                } else {
                    Invocation::PerTimestamp
                })
                .with_event_order(if arrivals_first {
                    EventOrder::ArrivalsFirst
                } else {
                    EventOrder::EndsFirst
                })
                .with_switch_overhead(SwitchOverhead { suspend, resume })
        },
    )
}

fn check(
    jobs: &JobSet,
    schedule: &Schedule,
    overhead: SwitchOverhead,
) -> Result<(), TestCaseError> {
    let procs = jobs.model().procs;
    let mut rejected = 0;
    // Every processor's busy intervals, to check exclusivity.
    let mut busy: Vec<Vec<(Time, Time, u32)>> = vec![Vec::new(); procs as usize];
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let segments: Vec<_> = schedule.segments(id).collect();
        if schedule.final_state(id) == FinalState::Rejected {
            rejected += 1;
            prop_assert!(segments.is_empty(), "job {} rejected but ran", job.number);
            prop_assert!(schedule.allocation(id).is_empty());
            continue;
        }
        // Ran exactly once: first start, final end, in order.
        prop_assert!(!segments.is_empty());
        prop_assert!(
            schedule.start(id) >= job.submit,
            "started before submission"
        );
        prop_assert_eq!(segments[0].start, schedule.start(id));
        prop_assert_eq!(segments[segments.len() - 1].end, schedule.end(id));
        for pair in segments.windows(2) {
            prop_assert!(
                pair[0].end <= pair[1].start,
                "segments overlap: {:?}",
                segments
            );
        }
        // Held time = run time + an overhead per suspension and resumption.
        let held: Time = segments.iter().map(|s| s.end - s.start).sum();
        let switches = segments.len() as Time - 1;
        prop_assert_eq!(
            held,
            job.runtime + switches * (overhead.suspend + overhead.resume),
            "job {} segments {:?}",
            job.number,
            segments
        );
        prop_assert_eq!(
            schedule.allocation(id).iter().map(|r| r.len()).sum::<u32>(),
            job.size
        );
        for range in schedule.allocation(id) {
            for p in range.first..=range.last {
                for s in &segments {
                    busy[p as usize].push((s.start, s.end, index as u32));
                }
            }
        }
    }
    // No processor is used by two jobs at once (so capacity holds too).
    for (p, intervals) in busy.iter_mut().enumerate() {
        intervals.sort_unstable();
        for pair in intervals.windows(2) {
            prop_assert!(
                pair[0].1 <= pair[1].0,
                "processor {} used by jobs {} and {} at once: {:?}",
                p,
                pair[0].2,
                pair[1].2,
                pair
            );
        }
    }
    prop_assert_eq!(schedule.stats().rejected_jobs, rejected);
    prop_assert_eq!(schedule.rejected().len() as u64, rejected);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lifecycle_invariants_hold_under_a_random_policy(
        (granularity, jobs) in workload(),
        options in options(),
        seed in any::<u64>(),
        chaos_calls in 0u32..30,
    ) {
        let mut model = JobModel::new(8);
        model.granularity = granularity;
        let set = JobSet::from_jobs(jobs, &model).unwrap();
        let run = || {
            let mut policy = Chaos { state: seed, calls: 0, chaos_calls };
            simulate_with(&set, &mut policy, &options)
        };
        let schedule = run().map_err(|e| TestCaseError::fail(e.to_string()))?;
        check(&set, &schedule, options.switch_overhead)?;
        // Deterministic: the same input and seed give the same schedule.
        prop_assert_eq!(run().unwrap(), schedule);
    }
}

/// The random policy really exercises the lifecycle (so the property above
/// can fail): on a fixed workload it suspends, resumes, rejects and starts
/// on chosen processors, and every invariant still holds.
#[test]
fn the_random_policy_exercises_every_transition() {
    let jobs: Vec<Job> = (0..30)
        .map(|i| {
            Job::new(
                i + 1,
                (i as Time) * 3,
                1 + (i % 4) as u32,
                30,
                10 + (i as Time * 7) % 20,
            )
        })
        .collect();
    let set = JobSet::from_jobs(jobs, &JobModel::new(8)).unwrap();
    let options = SimOptions::default().with_switch_overhead(SwitchOverhead {
        suspend: 2,
        resume: 1,
    });
    let mut policy = Chaos {
        state: 42,
        calls: 0,
        chaos_calls: 40,
    };
    let schedule = simulate_with(&set, &mut policy, &options).unwrap();
    let stats = schedule.stats();
    assert!(
        stats.suspensions > 0 && stats.resumes > 0 && stats.rejected_jobs > 0,
        "{stats:?}"
    );
    assert!(schedule.has_suspensions());
    check(&set, &schedule, options.switch_overhead).unwrap();
}

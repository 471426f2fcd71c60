use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use crate::Time;
use crate::error::SimError;
use crate::fit_index::FitIndex;
use crate::job::{JobId, JobSet};
use crate::machine::{Machine, ProcRange};
use crate::policy::{Decisions, NOT_STARTED, Policy, RunningEntry, View};

/// Kinds of events, in the order they are applied when they share a
/// timestamp. Job ends come first so that processors freed at time `t` are
/// free for jobs arriving at `t`; arrivals come before the policy's own
/// wake-ups so that a woken policy sees everything that happened at `t`.
///
/// Later extensions (dedicated-job due times, elastic control commands,
/// preemption) add kinds here, each with its documented place in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A running job finished (or was killed at its estimate).
    JobEnd,
    /// A job was submitted.
    Arrival,
    /// A wake-up the policy asked for.
    Wakeup,
}

/// Counters of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStats {
    /// Events applied (ends, arrivals, wake-ups).
    pub events: u64,
    /// Distinct timestamps at which events happened.
    pub timestamps: u64,
    /// Calls to the policy.
    pub policy_calls: u64,
}

/// The result of a simulation: when each job started and ended, and on
/// which processors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    policy: String,
    starts: Vec<Time>,
    ends: Vec<Time>,
    /// Job i ran on `ranges[spans[i].0..spans[i].1]`.
    spans: Vec<(u32, u32)>,
    ranges: Vec<ProcRange>,
    stats: RunStats,
}

impl Schedule {
    /// The policy's name.
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// When the job started.
    pub fn start(&self, id: JobId) -> Time {
        self.starts[id.index()]
    }

    /// When the job ended.
    pub fn end(&self, id: JobId) -> Time {
        self.ends[id.index()]
    }

    /// Start times, indexed by [`JobId`].
    pub fn starts(&self) -> &[Time] {
        &self.starts
    }

    /// End times, indexed by [`JobId`].
    pub fn ends(&self) -> &[Time] {
        &self.ends
    }

    /// The processors the job ran on, lowest first.
    pub fn allocation(&self, id: JobId) -> &[ProcRange] {
        let (from, to) = self.spans[id.index()];
        &self.ranges[from as usize..to as usize]
    }

    /// Counters of the run.
    pub fn stats(&self) -> &RunStats {
        &self.stats
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JobState {
    NotArrived,
    Waiting,
    Running,
    Done,
}

/// Replays `jobs` on their machine under `policy`.
///
/// Time advances from event to event. At each timestamp all events are
/// applied first, in [`EventKind`] order (ties within a kind: job ends by
/// start order, arrivals by arrival order), and only then is the policy
/// called, once, if jobs are waiting. Calling it once per timestamp rather
/// than per event means a policy never decides on a half-updated state
/// (e.g. a job ending and another arriving in the same second), and the
/// result does not depend on how simultaneous events happen to be ordered.
/// A job started with a runtime of 0 ends at the same timestamp; the policy
/// is then called again at that timestamp.
///
/// # Errors
/// A decision that starts a job that is not waiting or that needs more
/// processors than are free, a wake-up in the past, or a run in which jobs
/// wait on an idle machine with nothing left to happen.
pub fn simulate<P: Policy + ?Sized>(jobs: &JobSet, policy: &mut P) -> Result<Schedule, SimError> {
    Engine::new(jobs).run(policy)
}

struct Engine<'a> {
    jobs: &'a JobSet,
    machine: Machine,
    state: Vec<JobState>,
    estimates: Vec<Time>,
    starts: Vec<Time>,
    ends: Vec<Time>,
    /// Start order of each running job, the tie-breaker of `running`.
    sequences: Vec<u64>,
    spans: Vec<(u32, u32)>,
    ranges: Vec<ProcRange>,
    queue: Vec<JobId>,
    /// Sizes of the waiting jobs, for [`View::next_fitting`].
    fit: FitIndex,
    running: Vec<RunningEntry>,
    /// Actual ends: (time, start sequence, job).
    end_events: BinaryHeap<Reverse<(Time, u64, JobId)>>,
    wakeups: BinaryHeap<Reverse<Time>>,
    next_arrival: usize,
    sequence: u64,
    arrived: Vec<JobId>,
    ended: Vec<JobId>,
    stats: RunStats,
}

impl<'a> Engine<'a> {
    fn new(jobs: &'a JobSet) -> Self {
        let n = jobs.len();
        let model = jobs.model();
        Self {
            jobs,
            machine: Machine::new(model.procs, model.granularity),
            state: vec![JobState::NotArrived; n],
            estimates: jobs.jobs().iter().map(|job| job.estimate).collect(),
            starts: vec![NOT_STARTED; n],
            ends: vec![NOT_STARTED; n],
            sequences: vec![0; n],
            spans: vec![(0, 0); n],
            ranges: Vec::with_capacity(n),
            queue: Vec::new(),
            fit: FitIndex::new(n),
            running: Vec::new(),
            end_events: BinaryHeap::new(),
            wakeups: BinaryHeap::new(),
            next_arrival: 0,
            sequence: 0,
            arrived: Vec::new(),
            ended: Vec::new(),
            stats: RunStats::default(),
        }
    }

    fn next_time(&self) -> Option<Time> {
        let end = self.end_events.peek().map(|Reverse((t, _, _))| *t);
        let arrival = self
            .jobs
            .jobs()
            .get(self.next_arrival)
            .map(|job| job.submit);
        let wakeup = self.wakeups.peek().map(|Reverse(t)| *t);
        [end, arrival, wakeup].into_iter().flatten().min()
    }

    fn run<P: Policy + ?Sized>(mut self, policy: &mut P) -> Result<Schedule, SimError> {
        let mut decisions = Decisions::new();
        let mut now = Time::MIN;
        while let Some(t) = self.next_time() {
            if t != now {
                self.stats.timestamps += 1;
                now = t;
            }
            self.arrived.clear();
            self.ended.clear();
            while let Some(&Reverse((end, _, id))) = self.end_events.peek() {
                if end != t {
                    break;
                }
                self.end_events.pop();
                self.finish(id, t);
            }
            while let Some(job) = self.jobs.jobs().get(self.next_arrival) {
                if job.submit != t {
                    break;
                }
                let id = JobId(self.next_arrival as u32);
                self.state[id.index()] = JobState::Waiting;
                self.queue.push(id);
                self.fit
                    .insert(id.index(), job.size, self.estimates[id.index()]);
                self.arrived.push(id);
                self.next_arrival += 1;
                self.stats.events += 1;
            }
            while self.wakeups.peek() == Some(&Reverse(t)) {
                self.wakeups.pop();
                self.stats.events += 1;
            }
            if self.queue.is_empty() {
                continue;
            }
            decisions.clear();
            let view = View::from_parts(
                t,
                self.machine.procs(),
                self.machine.free(),
                self.jobs.jobs(),
                &self.estimates,
                &self.starts,
                &self.queue,
                &self.fit,
                &self.running,
                &self.arrived,
                &self.ended,
            );
            policy.schedule(&view, &mut decisions);
            self.stats.policy_calls += 1;
            self.apply(policy.name(), t, &decisions)?;
        }
        if !self.queue.is_empty() {
            return Err(SimError::Stalled {
                policy: policy.name().to_owned(),
                waiting: self.queue.len(),
                time: now,
            });
        }
        Ok(Schedule {
            policy: policy.name().to_owned(),
            starts: self.starts,
            ends: self.ends,
            spans: self.spans,
            ranges: self.ranges,
            stats: self.stats,
        })
    }

    fn finish(&mut self, id: JobId, t: Time) {
        let index = id.index();
        self.state[index] = JobState::Done;
        self.ends[index] = t;
        let key = (
            self.starts[index] + self.estimates[index],
            self.sequences[index],
        );
        if let Ok(position) = self
            .running
            .binary_search_by(|entry| (entry.estimated_end, entry.sequence).cmp(&key))
        {
            self.running.remove(position);
        }
        let (from, to) = self.spans[index];
        self.machine
            .release(&self.ranges[from as usize..to as usize]);
        self.ended.push(id);
        self.stats.events += 1;
    }

    fn apply(&mut self, policy: &str, t: Time, decisions: &Decisions) -> Result<(), SimError> {
        if let Some(reason) = decisions.failure() {
            return Err(SimError::PolicyFailed {
                policy: policy.to_owned(),
                reason: reason.to_owned(),
                time: t,
            });
        }
        for &at in decisions.wakeups() {
            if at < t {
                return Err(SimError::WakeInPast {
                    policy: policy.to_owned(),
                    wake: at,
                    time: t,
                });
            }
            // A wake-up at `t` itself would loop forever; the policy has
            // just been called at `t`.
            if at > t {
                self.wakeups.push(Reverse(at));
            }
        }
        if decisions.starts().is_empty() {
            return Ok(());
        }
        for &id in decisions.starts() {
            if self.state.get(id.index()) != Some(&JobState::Waiting) {
                return Err(SimError::NotWaiting {
                    policy: policy.to_owned(),
                    job: id,
                    time: t,
                });
            }
            let job = self.jobs.job(id);
            if job.size > self.machine.free() {
                return Err(SimError::OverAllocation {
                    policy: policy.to_owned(),
                    job: id,
                    size: job.size,
                    free: self.machine.free(),
                    time: t,
                });
            }
            let index = id.index();
            self.state[index] = JobState::Running;
            self.fit.remove(index);
            self.starts[index] = t;
            let from = self.ranges.len() as u32;
            self.machine.allocate(job.size, &mut self.ranges);
            self.spans[index] = (from, self.ranges.len() as u32);
            let sequence = self.sequence;
            self.sequence += 1;
            self.sequences[index] = sequence;
            let entry = RunningEntry {
                estimated_end: t + self.estimates[index],
                sequence,
                id,
                size: job.size,
                start: t,
            };
            let position = self.running.partition_point(|e| e < &entry);
            self.running.insert(position, entry);
            self.end_events
                .push(Reverse((t + job.runtime, sequence, id)));
        }
        // The queue is sorted by job id (arrival order): a few started jobs
        // are removed by binary search, many in one pass.
        if decisions.starts().len() <= 8 {
            for id in decisions.starts() {
                if let Ok(position) = self.queue.binary_search(id) {
                    self.queue.remove(position);
                }
            }
        } else {
            let state = &self.state;
            self.queue
                .retain(|id| state[id.index()] == JobState::Waiting);
        }
        Ok(())
    }
}

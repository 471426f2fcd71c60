use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use crate::Time;
use crate::error::SimError;
use crate::fit_index::FitIndex;
use crate::job::{Change, JobId, JobSet, OverrunRule};
use crate::machine::{Machine, ProcRange};
use crate::policy::{Capabilities, Decisions, NOT_STARTED, Policy, RunningEntry, View};

/// Kinds of events, in the order they are applied when they share a
/// timestamp:
/// 1. job ends, so that processors freed at time `t` are free at `t`;
/// 2. arrivals, so that a command at `t` can name a job submitted at `t`;
/// 3. elastic control commands (only for policies with an ECC processor,
///    see [`Capabilities`](crate::Capabilities)); a time reduction that ends
///    a running job ends it here, at `t`;
/// 4. wake-ups: those the policy asked for and, for policies that handle
///    dedicated jobs, the requested start times of waiting dedicated jobs.
///
/// Then the policy is called once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// A running job finished (or was killed at its estimate).
    JobEnd,
    /// A job was submitted.
    Arrival,
    /// An elastic control command (CWF ET/RT/EP/RP).
    Command,
    /// A wake-up the policy asked for, or a dedicated job's requested start.
    Wakeup,
}

/// Counters of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStats {
    /// Events applied (ends, arrivals, commands, wake-ups).
    pub events: u64,
    /// Distinct timestamps at which events happened.
    pub timestamps: u64,
    /// Calls to the policy.
    pub policy_calls: u64,
    /// Time commands (ET/RT) applied.
    pub commands_applied: u64,
    /// Commands ignored because the policy has no ECC processor.
    pub commands_ignored: u64,
    /// Commands that arrived after their job had ended (no effect).
    pub commands_after_end: u64,
    /// Processor commands (EP/RP) rejected: no policy here can resize a
    /// job.
    pub processor_commands_rejected: u64,
    /// Time reductions that ended a running job at once (reduced below its
    /// elapsed time).
    pub commands_ending_jobs: u64,
    /// Dedicated jobs (with a requested start) scheduled as batch jobs
    /// because the policy does not handle dedicated jobs.
    pub dedicated_as_batch: u64,
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
    Engine::new(jobs, policy.capabilities()).run(policy)
}

struct Engine<'a> {
    jobs: &'a JobSet,
    capabilities: Capabilities,
    machine: Machine,
    state: Vec<JobState>,
    estimates: Vec<Time>,
    starts: Vec<Time>,
    ends: Vec<Time>,
    /// Start order of each running job, the tie-breaker of `running`.
    sequences: Vec<u64>,
    spans: Vec<(u32, u32)>,
    ranges: Vec<ProcRange>,
    /// Waiting batch jobs, in arrival (= id) order.
    queue: Vec<JobId>,
    /// Waiting dedicated jobs, by (requested start, id).
    dedicated: Vec<JobId>,
    /// Sizes and estimates of the waiting batch jobs, for
    /// [`View::next_candidate`].
    fit: FitIndex,
    running: Vec<RunningEntry>,
    /// When each running job will end; an entry of `end_events` that no
    /// longer matches is stale (a command moved the end).
    end_at: Vec<Time>,
    /// Actual ends: (time, start sequence, job).
    end_events: BinaryHeap<Reverse<(Time, u64, JobId)>>,
    wakeups: BinaryHeap<Reverse<Time>>,
    next_arrival: usize,
    next_command: usize,
    sequence: u64,
    arrived: Vec<JobId>,
    ended: Vec<JobId>,
    stats: RunStats,
}

impl<'a> Engine<'a> {
    fn new(jobs: &'a JobSet, capabilities: Capabilities) -> Self {
        let n = jobs.len();
        let model = jobs.model();
        Self {
            jobs,
            capabilities,
            machine: Machine::new(model.procs, model.granularity),
            state: vec![JobState::NotArrived; n],
            estimates: jobs.jobs().iter().map(|job| job.estimate).collect(),
            starts: vec![NOT_STARTED; n],
            ends: vec![NOT_STARTED; n],
            sequences: vec![0; n],
            spans: vec![(0, 0); n],
            ranges: Vec::with_capacity(n),
            queue: Vec::new(),
            dedicated: Vec::new(),
            fit: FitIndex::new(n),
            running: Vec::new(),
            end_at: vec![NOT_STARTED; n],
            end_events: BinaryHeap::new(),
            wakeups: BinaryHeap::new(),
            next_arrival: 0,
            next_command: 0,
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
        let command = self.jobs.commands().get(self.next_command).map(|c| c.time);
        let wakeup = self.wakeups.peek().map(|Reverse(t)| *t);
        [end, arrival, command, wakeup].into_iter().flatten().min()
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
            self.end_jobs_at(t);
            self.arrive_at(t);
            self.apply_commands_at(t);
            // Time reductions may have ended jobs at `t`.
            self.end_jobs_at(t);
            while self.wakeups.peek() == Some(&Reverse(t)) {
                self.wakeups.pop();
                self.stats.events += 1;
            }
            if self.queue.is_empty() && self.dedicated.is_empty() {
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
                &self.dedicated,
                &self.fit,
                &self.running,
                &self.arrived,
                &self.ended,
            );
            policy.schedule(&view, &mut decisions);
            self.stats.policy_calls += 1;
            self.apply(policy.name(), t, &decisions)?;
        }
        let waiting = self.queue.len() + self.dedicated.len();
        if waiting > 0 {
            return Err(SimError::Stalled {
                policy: policy.name().to_owned(),
                waiting,
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

    /// Ends the running jobs whose (current) end is `t`.
    fn end_jobs_at(&mut self, t: Time) {
        while let Some(&Reverse((end, _, id))) = self.end_events.peek() {
            if end != t {
                break;
            }
            self.end_events.pop();
            // Skip entries a command has made stale.
            if self.state[id.index()] == JobState::Running && self.end_at[id.index()] == t {
                self.finish(id, t);
            }
        }
    }

    /// Queues the jobs submitted at `t`.
    fn arrive_at(&mut self, t: Time) {
        while let Some(job) = self.jobs.jobs().get(self.next_arrival) {
            if job.submit != t {
                break;
            }
            let id = JobId(self.next_arrival as u32);
            self.state[id.index()] = JobState::Waiting;
            match job.requested_start {
                Some(requested) if self.capabilities.dedicated_jobs => {
                    let key = (requested, id);
                    let position = self.dedicated.partition_point(|&other| {
                        (self.jobs.job(other).requested_start, other) < (Some(key.0), key.1)
                    });
                    self.dedicated.insert(position, id);
                    // The policy must be called when the start is due.
                    if requested > t {
                        self.wakeups.push(Reverse(requested));
                    }
                }
                requested => {
                    if requested.is_some() {
                        self.stats.dedicated_as_batch += 1;
                    }
                    self.queue.push(id);
                    self.fit
                        .insert(id.index(), job.size, self.estimates[id.index()]);
                }
            }
            self.arrived.push(id);
            self.next_arrival += 1;
            self.stats.events += 1;
        }
    }

    /// Applies the elastic control commands of time `t`.
    ///
    /// ET adds to the job's estimate (its kill-by time relative to its
    /// start), RT subtracts from it. A waiting job's estimate never drops
    /// below 1 s. A running job's end is recomputed: under the kill rule it
    /// ends at start + min(recorded runtime, estimate); under the extend rule
    /// at start + recorded runtime; and in both, a reduction to or below the
    /// time it has already run ends it now.
    fn apply_commands_at(&mut self, t: Time) {
        while let Some(&command) = self.jobs.commands().get(self.next_command) {
            if command.time != t {
                break;
            }
            self.next_command += 1;
            self.stats.events += 1;
            let seconds = match command.change {
                Change::ExtendTime(seconds) => seconds,
                Change::ReduceTime(seconds) => -seconds,
                Change::ExtendProcessors(_) | Change::ReduceProcessors(_) => {
                    self.stats.processor_commands_rejected += 1;
                    continue;
                }
            };
            if !self.capabilities.elastic_commands {
                self.stats.commands_ignored += 1;
                continue;
            }
            let index = command.job.index();
            match self.state[index] {
                JobState::NotArrived | JobState::Done => self.stats.commands_after_end += 1,
                JobState::Waiting => {
                    self.estimates[index] = (self.estimates[index] + seconds).max(1);
                    if self.fit_holds(command.job) {
                        self.fit.insert(
                            index,
                            self.jobs.job(command.job).size,
                            self.estimates[index],
                        );
                    }
                    self.stats.commands_applied += 1;
                }
                JobState::Running => {
                    self.stats.commands_applied += 1;
                    let start = self.starts[index];
                    let old_key = (start + self.estimates[index], self.sequences[index]);
                    let limit = self.estimates[index] + seconds;
                    let end = if start + limit <= t {
                        self.stats.commands_ending_jobs += 1;
                        t
                    } else {
                        match self.jobs.model().overrun {
                            OverrunRule::Kill => start + self.jobs.work(command.job).min(limit),
                            OverrunRule::Extend => start + self.jobs.work(command.job),
                        }
                    };
                    self.estimates[index] = limit.max(t - start).max(1);
                    // Re-sort the running entry under its new estimated end.
                    if let Ok(position) = self
                        .running
                        .binary_search_by(|e| (e.estimated_end, e.sequence).cmp(&old_key))
                    {
                        let mut entry = self.running.remove(position);
                        entry.estimated_end = start + self.estimates[index];
                        let position = self.running.partition_point(|e| e < &entry);
                        self.running.insert(position, entry);
                    }
                    if end != self.end_at[index] {
                        self.end_at[index] = end;
                        self.end_events
                            .push(Reverse((end, self.sequences[index], command.job)));
                    }
                }
            }
        }
    }

    /// Whether a waiting job is in the batch queue (and so in `fit`).
    fn fit_holds(&self, id: JobId) -> bool {
        self.jobs.job(id).requested_start.is_none() || !self.capabilities.dedicated_jobs
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
            let dedicated = !self.fit_holds(id);
            if let Some(requested) = job.requested_start.filter(|&r| dedicated && r > t) {
                return Err(SimError::DedicatedTooEarly {
                    policy: policy.to_owned(),
                    job: id,
                    requested,
                    time: t,
                });
            }
            let index = id.index();
            self.state[index] = JobState::Running;
            if dedicated {
                if let Some(position) = self.dedicated.iter().position(|&other| other == id) {
                    self.dedicated.remove(position);
                }
            } else {
                self.fit.remove(index);
            }
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
            // The estimate may have changed while the job waited.
            let end = match self.jobs.model().overrun {
                OverrunRule::Kill => t + self.jobs.work(id).min(self.estimates[index]),
                OverrunRule::Extend => t + self.jobs.work(id),
            };
            self.end_at[index] = end;
            self.end_events.push(Reverse((end, sequence, id)));
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

//! The simulation state that policies see through a [`View`](crate::View):
//! jobs' lifecycle states, the machine, the queues and the running list. The
//! engine owns and mutates it; a hand-made view builds one for tests.

use crate::Time;
use crate::fit_index::FitIndex;
use crate::job::{Job, JobId};
use crate::machine::{Machine, ProcRange};

/// Start time of a job that has not started.
pub(crate) const NOT_STARTED: Time = Time::MIN;

/// Where a job is in its life.
///
/// ```text
/// NotArrived ─► Waiting ─► Running ─► Done
///                  │         ▲   │ suspend
///                  ▼         │   ▼
///               Rejected  Resuming  Suspending ─► Suspended
///                            ▲                        │ resume
///                            └────────────────────────┘
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum JobState {
    /// Not submitted yet.
    NotArrived,
    /// In the batch queue or the dedicated queue.
    Waiting,
    /// Holding processors and making progress.
    Running,
    /// Resumed, holding its processors during the resume overhead before it
    /// makes progress again (it cannot be suspended until then).
    Resuming,
    /// Suspended, still holding its processors during the suspend overhead.
    Suspending,
    /// Suspended: no processors, its remaining work kept; can be resumed on
    /// exactly the processors it had.
    Suspended,
    /// Ended (completed, killed at its estimate or by a command).
    Done,
    /// Rejected by the policy: never runs.
    Rejected,
}

/// Per-job dynamic data. One vector of these (not one vector per field)
/// keeps a job's data on one cache line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JobRun {
    /// Run time the job may use in all (its estimate plus ET minus RT), at
    /// least 1 s while it waits.
    pub(crate) limit: Time,
    /// First start, or [`NOT_STARTED`].
    pub(crate) start: Time,
    /// While running: when its current end event fires; once done: its end.
    pub(crate) end: Time,
    /// Run time used in earlier segments (suspended jobs).
    pub(crate) used: Time,
    /// Wall time from which the current segment makes progress (its start
    /// plus the resume overhead).
    pub(crate) progress_from: Time,
    /// Wall time the current segment (or the suspend overhead) began.
    pub(crate) segment_start: Time,
    /// Start sequence of the current segment: the tie-breaker of `running`.
    pub(crate) sequence: u64,
    /// Its processors: `ranges[span.0..span.1]`.
    pub(crate) span: (u32, u32),
    pub(crate) state: JobState,
    /// It was suspended at least once, so its segments are recorded.
    pub(crate) split: bool,
}

/// One entry of the running list, ordered by expected end then start
/// sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RunningEntry {
    pub(crate) expected_end: Time,
    pub(crate) sequence: u64,
    pub(crate) id: JobId,
    pub(crate) size: u32,
    pub(crate) start: Time,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct SimState {
    pub(crate) machine: Machine,
    pub(crate) runs: Vec<JobRun>,
    pub(crate) ranges: Vec<ProcRange>,
    /// Waiting batch jobs, in arrival (= id) order.
    pub(crate) queue: Vec<JobId>,
    /// Waiting dedicated jobs, by (requested start, id).
    pub(crate) dedicated: Vec<JobId>,
    /// Suspended (and suspending) jobs, by id.
    pub(crate) suspended: Vec<JobId>,
    /// Sizes and estimates of the waiting batch jobs.
    pub(crate) fit: FitIndex,
    pub(crate) running: Vec<RunningEntry>,
    pub(crate) arrived: Vec<JobId>,
    pub(crate) ended: Vec<JobId>,
}

impl SimState {
    pub(crate) fn new(jobs: &[Job], procs: u32, granularity: u32) -> Self {
        Self {
            machine: Machine::new(procs, granularity),
            runs: jobs
                .iter()
                .map(|job| JobRun {
                    limit: job.estimate,
                    start: NOT_STARTED,
                    end: NOT_STARTED,
                    used: 0,
                    progress_from: NOT_STARTED,
                    segment_start: NOT_STARTED,
                    sequence: 0,
                    span: (0, 0),
                    state: JobState::NotArrived,
                    split: false,
                })
                .collect(),
            ranges: Vec::with_capacity(jobs.len()),
            queue: Vec::new(),
            dedicated: Vec::new(),
            suspended: Vec::new(),
            fit: FitIndex::new(jobs.len()),
            running: Vec::new(),
            arrived: Vec::new(),
            ended: Vec::new(),
        }
    }

    pub(crate) fn run(&self, id: JobId) -> &JobRun {
        &self.runs[id.index()]
    }

    pub(crate) fn allocation(&self, id: JobId) -> &[ProcRange] {
        let (from, to) = self.runs[id.index()].span;
        &self.ranges[from as usize..to as usize]
    }

    /// Run time a running job has made by `now` (0 during the resume
    /// overhead), plus that of its earlier segments.
    pub(crate) fn run_time(&self, id: JobId, now: Time) -> Time {
        let run = self.run(id);
        match run.state {
            JobState::Running => run.used + (now - run.progress_from).max(0),
            _ => run.used,
        }
    }

    /// The position of a running job in `running`.
    pub(crate) fn running_position(&self, id: JobId) -> Option<usize> {
        let run = self.run(id);
        let key = (run.progress_from + (run.limit - run.used), run.sequence);
        self.running
            .binary_search_by(|entry| (entry.expected_end, entry.sequence).cmp(&key))
            .ok()
    }

    /// Inserts a running entry in order.
    pub(crate) fn insert_running(&mut self, entry: RunningEntry) {
        let position = self.running.partition_point(|e| e < &entry);
        self.running.insert(position, entry);
    }
}

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
    /// Start sequence of the current segment: the tie-breaker of `running`.
    pub(crate) sequence: u64,
    /// Its processors: `ranges[span.0..span.1]`.
    pub(crate) span: (u32, u32),
    pub(crate) state: JobState,
    /// Once suspended: its index in [`SimState::splits`] (its segments are
    /// then recorded); [`NOT_SPLIT`] before. Only such jobs need the
    /// fields of a [`SplitRun`], so the others do not carry them.
    pub(crate) split: u32,
}

/// [`JobRun::split`] of a job never suspended.
pub(crate) const NOT_SPLIT: u32 = u32::MAX;

impl JobRun {
    /// It was suspended at least once.
    pub(crate) fn is_split(&self) -> bool {
        self.split != NOT_SPLIT
    }
}

/// What a job that was suspended at least once needs beyond [`JobRun`].
/// A job never suspended has no used time before its one segment, which
/// starts (and makes progress) at its start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SplitRun {
    /// Run time used in earlier segments.
    pub(crate) used: Time,
    /// Wall time from which the current segment makes progress (its start
    /// plus the resume overhead).
    pub(crate) progress_from: Time,
    /// Wall time the current segment (or the suspend overhead) began.
    pub(crate) segment_start: Time,
    /// Suspensions in a row that found no run time used since the one
    /// before ([`crate::MAX_IDLE_SUSPENSIONS`]).
    pub(crate) idle_suspensions: u32,
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

impl RunningEntry {
    fn key(&self) -> (Time, u64) {
        (self.expected_end, self.sequence)
    }
}

/// The running jobs by expected end, then start sequence (each key once).
/// Most jobs end before their estimate, so an end leaves from anywhere in
/// the order: far from the back it leaves a gap (an entry of size 0),
/// found by binary search and closed when gaps outnumber the jobs (a
/// sorted vector shifted thousands of entries per end on a large
/// machine). A start, usually expected to end after most, goes in near
/// the back.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunningList {
    entries: Vec<RunningEntry>,
    live: usize,
}

/// Ends this close to the back shift the entries after them instead of
/// leaving a gap.
const SHIFT_AT_MOST: usize = 32;

impl RunningList {
    /// The running jobs in order.
    pub(crate) fn iter(&self) -> LiveEntries<'_> {
        LiveEntries {
            entries: self.entries.iter(),
            left: self.live,
        }
    }

    /// Adds a running job (a gap with its key takes it).
    pub(crate) fn insert(&mut self, entry: RunningEntry) {
        debug_assert!(entry.size > 0, "a running job of no processors");
        let key = entry.key();
        let position = self.entries.partition_point(|other| other.key() < key);
        match self.entries.get_mut(position) {
            Some(slot) if slot.key() == key => {
                debug_assert_eq!(slot.size, 0, "two running entries with one key");
                *slot = entry;
            }
            _ => self.entries.insert(position, entry),
        }
        self.live += 1;
    }

    /// Takes the running job with this key out, if there is one.
    pub(crate) fn remove(&mut self, key: (Time, u64)) -> Option<RunningEntry> {
        let position = self
            .entries
            .binary_search_by(|other| other.key().cmp(&key))
            .ok()?;
        let entry = self.entries[position];
        if entry.size == 0 {
            return None;
        }
        self.live -= 1;
        if self.entries.len() - position <= SHIFT_AT_MOST {
            self.entries.remove(position);
        } else {
            self.entries[position].size = 0;
            if self.entries.len() > 2 * self.live + 64 {
                self.entries.retain(|other| other.size > 0);
            }
        }
        Some(entry)
    }
}

/// The running jobs of a [`RunningList`], in order, gaps skipped.
#[derive(Debug, Clone)]
pub(crate) struct LiveEntries<'a> {
    entries: std::slice::Iter<'a, RunningEntry>,
    left: usize,
}

impl<'a> Iterator for LiveEntries<'a> {
    type Item = &'a RunningEntry;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let entry = self.entries.by_ref().find(|entry| entry.size > 0)?;
        self.left -= 1;
        Some(entry)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for LiveEntries<'_> {}

/// The waiting batch jobs in arrival (= id) order, with the jobs that
/// left from its front cut off by an offset rather than moved: a start near
/// the head of a long queue (every FCFS start, most EASY starts) shifts the
/// few jobs ahead of it by one instead of the whole queue behind it, so a
/// queue of 100,000 jobs costs no more per start than a short one.
#[derive(Debug, Clone, Default)]
pub(crate) struct ArrivalQueue {
    /// `ids[head..]` is the queue; `ids[..head]` are stale.
    ids: Vec<JobId>,
    head: usize,
}

impl ArrivalQueue {
    pub(crate) fn as_slice(&self) -> &[JobId] {
        &self.ids[self.head..]
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len() - self.head
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a job that arrived after every job in the queue.
    pub(crate) fn push(&mut self, id: JobId) {
        debug_assert!(self.ids.last().is_none_or(|&last| last < id));
        self.ids.push(id);
    }

    pub(crate) fn contains(&self, id: JobId) -> bool {
        self.as_slice().binary_search(&id).is_ok()
    }

    /// Removes `id` if queued, moving whichever side of it is shorter.
    pub(crate) fn remove(&mut self, id: JobId) {
        let Ok(position) = self.as_slice().binary_search(&id) else {
            return;
        };
        let at = self.head + position;
        if position < self.len() / 2 {
            self.ids.copy_within(self.head..at, self.head + 1);
            self.head += 1;
            // Keep the stale prefix at most as long as the queue itself.
            if self.head > 64 && self.head > self.len() {
                self.ids.drain(..self.head);
                self.head = 0;
            }
        } else {
            self.ids.remove(at);
        }
    }

    /// Removes the queued jobs among `leaving` (sorted here), in one pass
    /// over the queue's front up to the last of them: the jobs ahead are
    /// shifted towards the back and the head moves up, so the cost is the
    /// position of the deepest leaving job, not the queue's length.
    pub(crate) fn remove_all(&mut self, leaving: &mut [JobId]) {
        leaving.sort_unstable();
        let queue = self.as_slice();
        let Some(&deepest) = leaving.last() else {
            return;
        };
        // Queue positions [0, end) hold every leaving job.
        let end = match queue.binary_search(&deepest) {
            Ok(position) => position + 1,
            Err(position) => position,
        };
        let (window_start, window_end) = (self.head, self.head + end);
        // Walk the window from its back, writing the kept jobs to its back.
        let mut write = window_end;
        let mut next_leaving = leaving.len();
        for read in (window_start..window_end).rev() {
            let id = self.ids[read];
            while next_leaving > 0 && leaving[next_leaving - 1] > id {
                next_leaving -= 1;
            }
            if next_leaving > 0 && leaving[next_leaving - 1] == id {
                next_leaving -= 1;
                continue;
            }
            write -= 1;
            self.ids[write] = id;
        }
        self.head = write;
        if self.head > 64 && self.head > self.len() {
            self.ids.drain(..self.head);
            self.head = 0;
        }
    }

    /// Keeps the jobs for which `keep` holds.
    #[cfg(test)]
    pub(crate) fn retain(&mut self, keep: impl FnMut(&JobId) -> bool) {
        self.ids.drain(..self.head);
        self.head = 0;
        self.ids.retain(keep);
    }

    /// A queue holding `ids` as given (views built by hand for tests).
    pub(crate) fn from_ids(ids: &[JobId]) -> Self {
        Self {
            ids: ids.to_vec(),
            head: 0,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct SimState {
    pub(crate) machine: Machine,
    pub(crate) runs: Vec<JobRun>,
    /// The split fields of the jobs suspended at least once.
    pub(crate) splits: Vec<SplitRun>,
    pub(crate) ranges: Vec<ProcRange>,
    /// Waiting batch jobs, in arrival (= id) order.
    pub(crate) queue: ArrivalQueue,
    /// Waiting dedicated jobs, by (requested start, id).
    pub(crate) dedicated: Vec<JobId>,
    /// Suspended (and suspending) jobs, by id.
    pub(crate) suspended: Vec<JobId>,
    /// Sizes and estimates of the waiting batch jobs, built from the queue
    /// the first time a policy asks [`View::next_candidate`](crate::View::next_candidate)
    /// and kept up to date from then on: policies that never ask (FCFS)
    /// never pay its memory (24 bytes a leaf, a leaf per job rounded up
    /// to a power of two, and half a byte per leaf and size class).
    fit: std::sync::OnceLock<FitIndex>,
    pub(crate) running: RunningList,
    pub(crate) arrived: Vec<JobId>,
    pub(crate) ended: Vec<JobId>,
    /// Elastic commands that changed an estimate so far.
    pub(crate) estimate_changes: u64,
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
                    sequence: 0,
                    span: (0, 0),
                    state: JobState::NotArrived,
                    split: NOT_SPLIT,
                })
                .collect(),
            splits: Vec::new(),
            ranges: Vec::with_capacity(jobs.len()),
            queue: ArrivalQueue::default(),
            dedicated: Vec::new(),
            suspended: Vec::new(),
            fit: std::sync::OnceLock::new(),
            running: RunningList::default(),
            arrived: Vec::new(),
            ended: Vec::new(),
            estimate_changes: 0,
        }
    }

    /// Marks a batch job as waiting with this size and estimate in the fit
    /// index, if it is built (it is built from the queue otherwise).
    pub(crate) fn fit_insert(&mut self, id: JobId, size: u32, estimate: Time) {
        if let Some(fit) = self.fit.get_mut() {
            fit.insert(id.index(), size, estimate);
        }
    }

    /// Marks a batch job as no longer waiting in the fit index, if built.
    pub(crate) fn fit_remove(&mut self, id: JobId) {
        if let Some(fit) = self.fit.get_mut() {
            fit.remove(id.index());
        }
    }

    /// The fit index of the waiting batch jobs (the queue, with their
    /// current limits), built on first use.
    pub(crate) fn fit(&self, jobs: &[Job]) -> &FitIndex {
        self.fit.get_or_init(|| {
            FitIndex::build(
                self.runs.len(),
                self.machine.procs(),
                self.queue
                    .as_slice()
                    .iter()
                    .map(|&id| (id.index(), jobs[id.index()].size, self.run(id).limit)),
            )
        })
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
            JobState::Running => self.used(id) + (now - self.progress_from(id)).max(0),
            _ => self.used(id),
        }
    }

    /// Run time used before the current segment (all of it once done).
    pub(crate) fn used(&self, id: JobId) -> Time {
        let run = self.run(id);
        if run.is_split() {
            self.splits[run.split as usize].used
        } else if run.state == JobState::Done {
            // Its one segment: from its start to its end.
            (run.end - run.start).max(0)
        } else {
            0
        }
    }

    /// When the current segment makes progress from.
    pub(crate) fn progress_from(&self, id: JobId) -> Time {
        let run = self.run(id);
        if run.is_split() {
            self.splits[run.split as usize].progress_from
        } else {
            run.start
        }
    }

    /// When the current segment (or the suspend overhead) began.
    pub(crate) fn segment_start(&self, id: JobId) -> Time {
        let run = self.run(id);
        if run.is_split() {
            self.splits[run.split as usize].segment_start
        } else {
            run.start
        }
    }

    /// The split fields of a job, made from its one segment so far on its
    /// first suspension.
    pub(crate) fn split_mut(&mut self, id: JobId) -> &mut SplitRun {
        if !self.runs[id.index()].is_split() {
            let entry = SplitRun {
                used: self.used(id),
                progress_from: self.progress_from(id),
                segment_start: self.segment_start(id),
                idle_suspensions: 0,
            };
            self.runs[id.index()].split = self.splits.len() as u32;
            self.splits.push(entry);
        }
        let index = self.runs[id.index()].split as usize;
        &mut self.splits[index]
    }

    /// Takes a running job out of `running`, if it is there.
    pub(crate) fn remove_running(&mut self, id: JobId) -> Option<RunningEntry> {
        let run = self.run(id);
        let key = (
            self.progress_from(id) + (run.limit - self.used(id)),
            run.sequence,
        );
        self.running.remove(key)
    }

    /// Puts a running entry in `running`.
    pub(crate) fn insert_running(&mut self, entry: RunningEntry) {
        self.running.insert(entry);
    }
}

#[cfg(test)]
mod tests {
    /// The per-job run record stays at 48 bytes (the 5M-job memory budget
    /// of docs/ARCHITECTURE.md counts on it).
    #[test]
    fn a_job_run_is_48_bytes() {
        assert_eq!(size_of::<JobRun>(), 48);
    }

    use super::*;

    /// Inserts and removes anywhere (gaps far from the back, shifts near
    /// it, gaps taken again by their key, gaps closed) list the running
    /// jobs as a sorted vector of them does.
    #[test]
    fn the_running_list_equals_a_sorted_vector() {
        let mut next = crate::xorshift(0x853c_49e6_748f_ea9b_u64);
        let mut list = RunningList::default();
        let mut reference: Vec<RunningEntry> = Vec::new();
        for step in 0..20_000u64 {
            if reference.is_empty() || next(3) != 0 {
                // Few distinct ends and sequences: keys come back after
                // their job left, onto its gap.
                let entry = RunningEntry {
                    expected_end: next(50) as Time,
                    sequence: next(200),
                    id: JobId(step as u32),
                    size: 1 + next(8) as u32,
                    start: 0,
                };
                if reference.iter().any(|other| other.key() == entry.key()) {
                    continue;
                }
                list.insert(entry);
                let at = reference.partition_point(|other| other.key() < entry.key());
                reference.insert(at, entry);
            } else {
                let gone = reference.remove(next(reference.len() as u64) as usize);
                assert_eq!(list.remove(gone.key()), Some(gone));
                assert_eq!(list.remove(gone.key()), None, "removed twice");
            }
            let listed: Vec<RunningEntry> = list.iter().copied().collect();
            assert_eq!(list.iter().len(), reference.len());
            assert_eq!(listed, reference, "after {step} changes");
        }
        // Then every job ends, in any order: the gaps are closed on the way.
        while !reference.is_empty() {
            let gone = reference.remove(next(reference.len() as u64) as usize);
            assert_eq!(list.remove(gone.key()), Some(gone));
            assert!(list.entries.len() <= 2 * reference.len() + 64 + 1);
        }
        assert_eq!(list.iter().next(), None);
    }
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any mix of arrivals and removals (by id, anywhere, or many at
        /// once) leaves the queue equal to a plain vector doing the same.
        #[test]
        fn arrival_queue_equals_a_vector(ops in proptest::collection::vec((0u8..4, 0u32..64), 1..300)) {
            let mut queue = ArrivalQueue::default();
            let mut model: Vec<JobId> = Vec::new();
            let mut next = 0u32;
            for (op, value) in ops {
                match op {
                    0 | 1 => {
                        queue.push(JobId(next));
                        model.push(JobId(next));
                        next += 1;
                    }
                    2 => {
                        // Remove the value-th waiting job, or an absent id.
                        let id = model.get(value as usize).copied().unwrap_or(JobId(next + value));
                        queue.remove(id);
                        model.retain(|&x| x != id);
                    }
                    _ if value % 2 == 0 => {
                        queue.retain(|id| id.0 % (value + 2) != 0);
                        model.retain(|id| id.0 % (value + 2) != 0);
                    }
                    _ => {
                        // Every third waiting job from the value-th on,
                        // plus an absent id, in reverse order.
                        let mut leaving: Vec<JobId> = model
                            .iter()
                            .skip(value as usize % 8)
                            .step_by(3)
                            .copied()
                            .chain([JobId(next + 5)])
                            .rev()
                            .collect();
                        model.retain(|id| !leaving.contains(id));
                        queue.remove_all(&mut leaving);
                    }
                }
                prop_assert_eq!(queue.as_slice(), &model[..]);
                prop_assert_eq!(queue.len(), model.len());
                for id in &model {
                    prop_assert!(queue.contains(*id));
                }
            }
        }
    }
}

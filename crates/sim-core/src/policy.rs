use crate::Time;
use crate::fit_index::{FitIndex, FitQuery};
use crate::job::{Job, JobId};

/// Start time of a job that has not started.
pub(crate) const NOT_STARTED: Time = Time::MIN;

/// A scheduling policy: given a read-only view of the machine and queue,
/// it decides which waiting jobs start now.
///
/// The simulator calls [`schedule`](Self::schedule) once per simulated
/// timestamp at which something happened (after all events of that
/// timestamp are applied) and the queue is not empty, then validates and
/// applies the decisions. Policies never touch the simulator's state, so a
/// policy can be tested by building a [`View`] by hand
/// ([`View::new`]) and inspecting its [`Decisions`].
pub trait Policy {
    /// A short name for reports and error messages, e.g. `easy`.
    fn name(&self) -> &str;

    /// Decide what starts at `view.now()`. Decisions are appended to
    /// `decisions`, which the simulator clears before each call.
    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions);

    /// What the policy handles beyond batch jobs. By default nothing: CWF
    /// dedicated jobs are then scheduled as batch jobs and elastic control
    /// commands are ignored, both counted in [`RunStats`](crate::RunStats).
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
}

/// What a policy handles beyond rigid batch jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// Dedicated jobs (CWF field 19): they wait in [`View::dedicated`], not
    /// in the batch queue, may not start before their requested start time,
    /// and the simulator calls the policy at each requested start time.
    pub dedicated_jobs: bool,
    /// Elastic control commands (CWF ET/RT): the simulator changes the
    /// named job's estimate and, if it runs, its end (the "ECC processor"
    /// of Kumar et al.). Processor commands (EP/RP) are always rejected and
    /// counted: no policy here can resize a running job.
    pub elastic_commands: bool,
}

impl<P: Policy + ?Sized> Policy for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        (**self).schedule(view, decisions);
    }

    fn capabilities(&self) -> Capabilities {
        (**self).capabilities()
    }
}

/// A running job as policies see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningJob {
    /// The job.
    pub id: JobId,
    /// Processors it occupies.
    pub size: u32,
    /// When it started.
    pub start: Time,
    /// When the scheduler expects it to end: start + current estimate. A job
    /// that has already run to or past its estimate (possible only under
    /// [`OverrunRule::Extend`](crate::OverrunRule::Extend)) is expected to
    /// end at the earliest instant it still can, `now + 1`: it holds its
    /// processors at `now`, so nothing may be planned on them before then.
    pub expected_end: Time,
}

/// One entry of the simulator's running list, ordered by estimated end then
/// start sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RunningEntry {
    pub(crate) estimated_end: Time,
    pub(crate) sequence: u64,
    pub(crate) id: JobId,
    pub(crate) size: u32,
    pub(crate) start: Time,
}

/// What a policy may look at: the current time, the machine, the waiting
/// queue and the running jobs. Borrowed from the simulator for one call.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    now: Time,
    procs: u32,
    free: u32,
    jobs: &'a [Job],
    estimates: &'a [Time],
    starts: &'a [Time],
    queue: &'a [JobId],
    dedicated: &'a [JobId],
    fit: &'a FitIndex,
    running: &'a [RunningEntry],
    arrived: &'a [JobId],
    ended: &'a [JobId],
}

impl<'a> View<'a> {
    /// A view over explicit state, for testing policies without the event
    /// loop. `running` lists `(job, start time)`; sizes and estimates come
    /// from `jobs`, and free processors are `procs` minus the running sizes.
    ///
    /// # Panics
    /// If the running jobs need more than `procs` processors or an id is out
    /// of range: test input is expected to be consistent.
    pub fn new(
        now: Time,
        procs: u32,
        jobs: &'a [Job],
        queue: &'a [JobId],
        running: &[(JobId, Time)],
        storage: &'a mut ViewStorage,
    ) -> Self {
        storage.estimates = jobs.iter().map(|job| job.estimate).collect();
        storage.starts = vec![NOT_STARTED; jobs.len()];
        storage.fit = FitIndex::new(jobs.len());
        for &id in queue {
            storage
                .fit
                .insert(id.index(), jobs[id.index()].size, jobs[id.index()].estimate);
        }
        for &(id, start) in running {
            storage.starts[id.index()] = start;
        }
        storage.running = running
            .iter()
            .enumerate()
            .map(|(sequence, &(id, start))| RunningEntry {
                estimated_end: start + jobs[id.index()].estimate,
                sequence: sequence as u64,
                id,
                size: jobs[id.index()].size,
                start,
            })
            .collect();
        storage.running.sort_unstable();
        let used: u32 = storage.running.iter().map(|entry| entry.size).sum();
        let free = procs
            .checked_sub(used)
            .expect("running jobs exceed the machine");
        Self::from_parts(
            now,
            procs,
            free,
            jobs,
            &storage.estimates,
            &storage.starts,
            queue,
            &[],
            &storage.fit,
            &storage.running,
            &[],
            &[],
        )
    }

    /// The same view with these waiting dedicated jobs (for testing
    /// policies that handle them).
    pub fn with_dedicated(mut self, dedicated: &'a [JobId]) -> Self {
        self.dedicated = dedicated;
        self
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        now: Time,
        procs: u32,
        free: u32,
        jobs: &'a [Job],
        estimates: &'a [Time],
        starts: &'a [Time],
        queue: &'a [JobId],
        dedicated: &'a [JobId],
        fit: &'a FitIndex,
        running: &'a [RunningEntry],
        arrived: &'a [JobId],
        ended: &'a [JobId],
    ) -> Self {
        Self {
            now,
            procs,
            free,
            jobs,
            estimates,
            starts,
            queue,
            dedicated,
            fit,
            running,
            arrived,
            ended,
        }
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Processors in the machine.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// Processors free right now.
    pub fn free(&self) -> u32 {
        self.free
    }

    /// Static information about a job.
    pub fn job(&self, id: JobId) -> &'a Job {
        &self.jobs[id.index()]
    }

    /// All jobs of the workload, indexed by [`JobId`].
    pub fn jobs(&self) -> &'a [Job] {
        self.jobs
    }

    /// The job's current runtime estimate (its kill-by time relative to its
    /// start), seconds.
    pub fn estimate(&self, id: JobId) -> Time {
        self.estimates[id.index()]
    }

    /// When the job started, if it has (running or ended jobs).
    pub fn started_at(&self, id: JobId) -> Option<Time> {
        let start = self.starts[id.index()];
        (start != NOT_STARTED).then_some(start)
    }

    /// Waiting jobs in arrival order (submit time, then input order).
    pub fn queue(&self) -> &'a [JobId] {
        self.queue
    }

    /// Waiting dedicated jobs by requested start time (ties by arrival),
    /// for policies that handle them (see [`Capabilities`]); otherwise
    /// empty, dedicated jobs being in [`queue`](Self::queue).
    pub fn dedicated(&self) -> &'a [JobId] {
        self.dedicated
    }

    /// The first waiting job in arrival order whose id is at least `from`,
    /// that needs at most `free` processors, and that either has an
    /// estimate of at most `max_estimate` or needs at most `small`
    /// processors: EASY's backfilling test (ends by the shadow time, or fits
    /// in the extra processors). Pass `Time::MAX` as `max_estimate` to ask
    /// only for a size. Costs about O(log n) however long the queue is, so
    /// a backfilling scan can skip the jobs that cannot start. Jobs the
    /// policy has decided to start in this call still count as waiting.
    pub fn next_candidate(
        &self,
        from: JobId,
        free: u32,
        max_estimate: Time,
        small: u32,
    ) -> Option<JobId> {
        let query = FitQuery {
            free,
            max_estimate,
            small,
        };
        self.fit
            .first_match(from.index(), query)
            .map(|index| JobId(index as u32))
    }

    /// Running jobs ordered by expected end, ties by start order.
    pub fn running(&self) -> impl ExactSizeIterator<Item = RunningJob> + 'a {
        let now = self.now;
        self.running.iter().map(move |entry| RunningJob {
            id: entry.id,
            size: entry.size,
            start: entry.start,
            expected_end: entry.estimated_end.max(now + 1),
        })
    }

    /// Jobs that arrived at this timestamp (also in [`queue`](Self::queue)).
    pub fn arrived(&self) -> &'a [JobId] {
        self.arrived
    }

    /// Jobs that ended at this timestamp.
    pub fn ended(&self) -> &'a [JobId] {
        self.ended
    }
}

/// Owned buffers behind a hand-made [`View`] (see [`View::new`]).
#[derive(Debug, Default)]
pub struct ViewStorage {
    estimates: Vec<Time>,
    starts: Vec<Time>,
    fit: FitIndex,
    running: Vec<RunningEntry>,
}

/// What a policy decided at one timestamp.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Decisions {
    starts: Vec<JobId>,
    wakeups: Vec<Time>,
    failure: Option<String>,
}

impl Decisions {
    /// Empty decisions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start a waiting job now.
    pub fn start(&mut self, id: JobId) {
        self.starts.push(id);
    }

    /// Ask to be called again at time `at` even if nothing else happens then.
    pub fn wake_at(&mut self, at: Time) {
        self.wakeups.push(at);
    }

    /// Give up: the policy cannot decide (e.g. its optimiser ran out of
    /// memory). The simulation stops with [`SimError::PolicyFailed`]
    /// carrying `reason`, rather than continuing with a silently different
    /// policy.
    ///
    /// [`SimError::PolicyFailed`]: crate::SimError::PolicyFailed
    pub fn fail(&mut self, reason: impl Into<String>) {
        self.failure = Some(reason.into());
    }

    /// Why the policy gave up, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Jobs to start, in decision order.
    pub fn starts(&self) -> &[JobId] {
        &self.starts
    }

    /// Requested wake-up times.
    pub fn wakeups(&self) -> &[Time] {
        &self.wakeups
    }

    /// Forget all decisions (the simulator does this before each call).
    pub fn clear(&mut self) {
        self.starts.clear();
        self.wakeups.clear();
        self.failure = None;
    }
}

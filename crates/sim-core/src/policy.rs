use crate::Time;
use crate::calendar::Calendar;
use crate::engine::SwitchOverhead;
use crate::fit_index::FitQuery;
use crate::job::{Job, JobId};
use crate::machine::ProcRange;
use crate::state::{JobState, NOT_STARTED, RunningEntry, SimState};

/// A scheduling policy: given a read-only view of the machine and queue,
/// it decides which waiting jobs start now.
///
/// The simulator calls [`schedule`](Self::schedule) at each decision point
/// (by default once per simulated timestamp at which something happened,
/// after all events of that timestamp are applied; or after every single
/// event, see [`Invocation`](crate::Invocation)) while jobs wait or are
/// suspended, and whenever a wake-up it asked for (or a dedicated job's
/// requested start) fires; then it validates and applies the decisions. Policies never touch the simulator's state, so a
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

    /// Counters the policy keeps about its own work (an optimiser's
    /// schedules evaluated and nodes pruned, groups formed, ...), reported
    /// with the run's results (`policy_counters` in summary.json). Names are
    /// stable snake_case; by default there are none.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// What a policy handles beyond rigid batch jobs.
///
/// ```
/// use schedsim_sim_core::Capabilities;
/// let caps = Capabilities::default().with_dedicated_jobs().with_elastic_commands();
/// assert!(caps.dedicated_jobs && caps.elastic_commands);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
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

impl Capabilities {
    /// The same, handling dedicated jobs.
    pub fn with_dedicated_jobs(mut self) -> Self {
        self.dedicated_jobs = true;
        self
    }

    /// The same, handling elastic time commands.
    pub fn with_elastic_commands(mut self) -> Self {
        self.elastic_commands = true;
        self
    }
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

    fn counters(&self) -> Vec<(&'static str, u64)> {
        (**self).counters()
    }
}

/// A running job as policies see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningJob {
    /// The job.
    pub id: JobId,
    /// Processors it occupies.
    pub size: u32,
    /// When it first started.
    pub start: Time,
    /// When the scheduler expects it to end: the start of its current run
    /// segment (after any resume overhead) plus the run time its estimate
    /// still allows. A job that has already run to or past its estimate
    /// (possible only under [`OverrunRule::Extend`](crate::OverrunRule::Extend))
    /// is expected to end at the earliest instant it still can, `now + 1`:
    /// it holds its processors at `now`, so nothing may be planned on them
    /// before then.
    pub expected_end: Time,
}

/// What a policy may look at: the current time, the machine, the waiting
/// queue, the running and suspended jobs. Borrowed from the simulator for
/// one call.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    now: Time,
    jobs: &'a [Job],
    state: &'a SimState,
    /// `state.dedicated`, or the list given to a hand-made view.
    dedicated: &'a [JobId],
    calendar: Option<&'a Calendar>,
    switch_overhead: SwitchOverhead,
}

impl<'a> View<'a> {
    /// A view over explicit state, for testing policies without the event
    /// loop. `running` lists `(job, start time)`; sizes and estimates come
    /// from `jobs`, processors are given to the running jobs lowest first in
    /// the order listed, and free processors are the rest.
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
        let mut state = SimState::new(jobs, procs, 1);
        // The fit index is built from the queue when first asked.
        for &id in queue {
            state.runs[id.index()].state = JobState::Waiting;
        }
        state.queue = crate::state::ArrivalQueue::from_ids(queue);
        for (sequence, &(id, start)) in running.iter().enumerate() {
            let size = jobs[id.index()].size;
            assert!(
                size <= state.machine.free(),
                "running jobs exceed the machine"
            );
            let from = state.ranges.len() as u32;
            state.machine.allocate(size, &mut state.ranges);
            let run = &mut state.runs[id.index()];
            run.state = JobState::Running;
            run.start = start;
            run.sequence = sequence as u64;
            run.span = (from, state.ranges.len() as u32);
            let entry = RunningEntry {
                expected_end: start + run.limit,
                sequence: sequence as u64,
                id,
                size,
                start,
            };
            state.insert_running(entry);
        }
        storage.state = state;
        Self::from_state(now, jobs, &storage.state)
    }

    /// The same view with these waiting dedicated jobs (for testing
    /// policies that handle them); their [`state`](Self::state) is
    /// [`JobState::Waiting`].
    pub fn with_dedicated(mut self, dedicated: &'a [JobId]) -> Self {
        self.dedicated = dedicated;
        self
    }

    pub(crate) fn from_state(now: Time, jobs: &'a [Job], state: &'a SimState) -> Self {
        Self {
            now,
            jobs,
            state,
            dedicated: &state.dedicated,
            calendar: None,
            switch_overhead: SwitchOverhead::default(),
        }
    }

    /// The same view with these switch overheads (the engine gives its
    /// [`SimOptions`](crate::SimOptions)'; for hand-made views in tests).
    pub fn with_switch_overhead(mut self, overhead: SwitchOverhead) -> Self {
        self.switch_overhead = overhead;
        self
    }

    /// What suspending and resuming a job costs in this run, so that a
    /// time-sharing policy can plan around it: a job it suspends at `t`
    /// frees its processors at `t + suspend`, one it resumes at `t` makes
    /// progress (and can be suspended again) from `t + resume`.
    pub fn switch_overhead(&self) -> SwitchOverhead {
        self.switch_overhead
    }

    /// The same view with the log's calendar (the engine gives the
    /// [`JobSet`](crate::JobSet)'s; for hand-made views in tests).
    pub fn with_calendar(mut self, calendar: &'a Calendar) -> Self {
        self.calendar = Some(calendar);
        self
    }

    /// The log's calendar, if the workload has one: the local date and time
    /// of any instant (`view.calendar()?.local(view.now())`).
    pub fn calendar(&self) -> Option<&'a Calendar> {
        self.calendar
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Processors in the machine.
    pub fn procs(&self) -> u32 {
        self.state.machine.procs()
    }

    /// The allocation granularity: jobs occupy whole blocks of this many
    /// processors.
    pub fn granularity(&self) -> u32 {
        self.state.machine.granularity()
    }

    /// Processors free right now.
    pub fn free(&self) -> u32 {
        self.state.machine.free()
    }

    /// Static information about a job.
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn job(&self, id: JobId) -> &'a Job {
        &self.jobs[id.index()]
    }

    /// All jobs of the workload, indexed by [`JobId`].
    pub fn jobs(&self) -> &'a [Job] {
        self.jobs
    }

    /// Where the job is in its life.
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn state(&self, id: JobId) -> JobState {
        let run = self.state.run(id);
        match run.state {
            // Only a hand-made view lists dedicated jobs the state does not
            // know as waiting.
            JobState::NotArrived if self.dedicated.contains(&id) => JobState::Waiting,
            // The engine keeps a resuming job as running with a later
            // progress start.
            JobState::Running if self.state.progress_from(id) > self.now => JobState::Resuming,
            state => state,
        }
    }

    /// The job's current runtime estimate: the run time it may use in all
    /// (its estimate plus elastic extensions minus reductions), seconds.
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn estimate(&self, id: JobId) -> Time {
        self.state.run(id).limit
    }

    /// Run time the job has made so far (0 before it starts; suspended
    /// jobs keep theirs; the switch overheads do not count).
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn run_time(&self, id: JobId) -> Time {
        self.state.run_time(id, self.now)
    }

    /// The run time the job's estimate still allows: [`estimate`](Self::estimate)
    /// minus [`run_time`](Self::run_time), at least 0. For a suspended job,
    /// how long it is expected to run once resumed (after the resume
    /// overhead).
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn remaining_estimate(&self, id: JobId) -> Time {
        (self.estimate(id) - self.run_time(id)).max(0)
    }

    /// When the job first started, if it has (running, suspended or ended
    /// jobs).
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn started_at(&self, id: JobId) -> Option<Time> {
        let start = self.state.run(id).start;
        (start != NOT_STARTED).then_some(start)
    }

    /// Waiting jobs in arrival order (submit time, then input order).
    pub fn queue(&self) -> &'a [JobId] {
        self.state.queue.as_slice()
    }

    /// Waiting dedicated jobs by requested start time (ties by arrival),
    /// for policies that handle them (see [`Capabilities`]); otherwise
    /// empty, dedicated jobs being in [`queue`](Self::queue).
    pub fn dedicated(&self) -> &'a [JobId] {
        self.dedicated
    }

    /// Suspended jobs (including those still in their suspend overhead,
    /// [`JobState::Suspending`]), by id.
    pub fn suspended(&self) -> &'a [JobId] {
        &self.state.suspended
    }

    /// The processors a running or suspended job holds or held (a
    /// suspended job is resumed on exactly these); empty for other jobs.
    ///
    /// # Panics
    /// If `id` is not a job of the workload (`id.index() >= jobs().len()`).
    pub fn allocation(&self, id: JobId) -> &'a [ProcRange] {
        match self.state(id) {
            JobState::Running | JobState::Resuming | JobState::Suspending | JobState::Suspended => {
                self.state.allocation(id)
            }
            _ => &[],
        }
    }

    /// The free processors as ranges, lowest first.
    pub fn free_processors(&self) -> impl Iterator<Item = ProcRange> + 'a {
        self.state.machine.free_ranges()
    }

    /// Whether every processor of `ranges` is free now.
    pub fn is_free(&self, ranges: &[ProcRange]) -> bool {
        self.state.machine.is_free(ranges)
    }

    /// The first waiting job in arrival order whose id is at least `from`,
    /// that needs at most `free` processors, and that either has an
    /// estimate of at most `max_estimate` or needs at most `small`
    /// processors: EASY's backfilling test (ends by the shadow time, or fits
    /// in the extra processors). Pass `Time::MAX` as `max_estimate` to ask
    /// only for a size. A backfilling scan so skips the jobs that cannot
    /// start: a query visits O(log n) nodes of the index (each checking at
    /// most one minimum per power-of-two size class), however long the
    /// queue is, unless many waiting jobs share the size class of `free`
    /// (sizes in `(2^(k-1), 2^k]` around it) and only the wider of them
    /// are short enough: those still make it search in vain. Jobs the
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
        self.state
            .fit(self.jobs)
            .first_match(from.index(), query)
            .map(|index| JobId(index as u32))
    }

    /// Running jobs ordered by expected end, ties by start order.
    pub fn running(&self) -> impl ExactSizeIterator<Item = RunningJob> + 'a {
        let now = self.now;
        self.state.running.iter().map(move |entry| RunningJob {
            id: entry.id,
            size: entry.size,
            start: entry.start,
            expected_end: entry.expected_end.max(now + 1),
        })
    }

    /// Jobs that arrived at this decision point (also in [`queue`](Self::queue)).
    pub fn arrived(&self) -> &'a [JobId] {
        &self.state.arrived
    }

    /// Jobs that ended at this decision point.
    pub fn ended(&self) -> &'a [JobId] {
        &self.state.ended
    }

    /// How many elastic commands have changed an estimate since the run
    /// began. A policy that keeps plans across calls compares it between
    /// calls: while it stays the same, no estimate (and no running job's
    /// expected end) has changed but by the jobs' own progress.
    pub fn estimate_changes(&self) -> u64 {
        self.state.estimate_changes
    }
}

/// Owned buffers behind a hand-made [`View`] (see [`View::new`]).
#[derive(Debug, Default)]
pub struct ViewStorage {
    state: SimState,
}

/// One decision, as [`Decisions::actions`] lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action<'a> {
    /// Start a waiting job now on the lowest free processors.
    Start(JobId),
    /// Start a waiting job now on exactly these processors.
    StartOn(JobId, &'a [ProcRange]),
    /// Reject a waiting job for good, with a reason.
    Reject(JobId, &'a str),
    /// Suspend a running job.
    Suspend(JobId),
    /// Resume a suspended job on the processors it had.
    Resume(JobId),
}

/// How an action is stored: processors and reasons live in side buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    Start(JobId),
    StartOn(JobId, u32, u32),
    Reject(JobId, u32, u32),
    Suspend(JobId),
    Resume(JobId),
}

/// What a policy decided at one decision point. The simulator applies the
/// actions in the order they were given (so a policy that resumes a job
/// suspends the jobs on its processors first, in the same list), then
/// records the wake-ups.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Decisions {
    actions: Vec<Stored>,
    starts: Vec<JobId>,
    processors: Vec<ProcRange>,
    reasons: String,
    wakeups: Vec<Time>,
    failure: Option<String>,
}

impl Decisions {
    /// Empty decisions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Start a waiting job now on the lowest-numbered free processors.
    pub fn start(&mut self, id: JobId) {
        self.actions.push(Stored::Start(id));
        self.starts.push(id);
    }

    /// Start a waiting job now on exactly these processors: whole
    /// allocation blocks, not overlapping, free, and as many as the job's
    /// size.
    pub fn start_on(&mut self, id: JobId, processors: &[ProcRange]) {
        let from = self.processors.len() as u32;
        self.processors.extend_from_slice(processors);
        self.actions
            .push(Stored::StartOn(id, from, self.processors.len() as u32));
        self.starts.push(id);
    }

    /// Reject a waiting job: it leaves the queue for good and never runs
    /// (admission control). The reason is reported with the job.
    pub fn reject(&mut self, id: JobId, reason: &str) {
        let from = self.reasons.len() as u32;
        self.reasons.push_str(reason);
        self.actions
            .push(Stored::Reject(id, from, self.reasons.len() as u32));
    }

    /// Suspend a running job: it stops making progress now, keeps its
    /// remaining work, and frees its processors once the suspend overhead
    /// has passed (see [`SwitchOverhead`](crate::SwitchOverhead)).
    pub fn suspend(&mut self, id: JobId) {
        self.actions.push(Stored::Suspend(id));
    }

    /// Resume a suspended job on exactly the processors it had (all must be
    /// free: suspend the jobs on them first). It makes progress again after
    /// the resume overhead.
    pub fn resume(&mut self, id: JobId) {
        self.actions.push(Stored::Resume(id));
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

    /// Jobs to start (by [`start`](Self::start) or
    /// [`start_on`](Self::start_on)), in decision order.
    pub fn starts(&self) -> &[JobId] {
        &self.starts
    }

    /// Every action, in decision order.
    pub fn actions(&self) -> impl ExactSizeIterator<Item = Action<'_>> + '_ {
        self.actions.iter().map(|&stored| match stored {
            Stored::Start(id) => Action::Start(id),
            Stored::StartOn(id, from, to) => {
                Action::StartOn(id, &self.processors[from as usize..to as usize])
            }
            Stored::Reject(id, from, to) => {
                Action::Reject(id, &self.reasons[from as usize..to as usize])
            }
            Stored::Suspend(id) => Action::Suspend(id),
            Stored::Resume(id) => Action::Resume(id),
        })
    }

    /// Whether there is no action (wake-ups aside).
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Requested wake-up times.
    pub fn wakeups(&self) -> &[Time] {
        &self.wakeups
    }

    /// Forget all decisions (the simulator does this before each call).
    pub fn clear(&mut self) {
        self.actions.clear();
        self.starts.clear();
        self.processors.clear();
        self.reasons.clear();
        self.wakeups.clear();
        self.failure = None;
    }
}

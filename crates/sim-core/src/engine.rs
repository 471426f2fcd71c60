use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use serde::{Deserialize, Serialize};

use crate::Time;
use crate::error::SimError;
use crate::job::{Change, JobId, JobSet, OverrunRule};
use crate::machine::ProcRange;
use crate::policy::{Action, Capabilities, Decisions, Policy, View};
use crate::state::{JobState, NOT_STARTED, RunningEntry, SimState};

/// Kinds of events. At one timestamp they are applied in this order under
/// [`EventOrder::EndsFirst`] (the default); [`EventOrder::ArrivalsFirst`]
/// swaps the first two:
/// 1. job ends, and processors released at the end of a suspend overhead,
///    so that processors freed at time `t` are free at `t` (ties by start
///    order);
/// 2. arrivals, so that a command at `t` can name a job submitted at `t`
///    (ties by arrival order);
/// 3. elastic control commands (only for policies with an ECC processor,
///    see [`Capabilities`](crate::Capabilities)); a time reduction that ends
///    a running job ends it here, at `t`;
/// 4. wake-ups: those the policy asked for and, for policies that handle
///    dedicated jobs, the requested start times of waiting dedicated jobs
///    (all wake-ups of one timestamp are one event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum EventKind {
    /// A running job finished (or was killed at its estimate), or a
    /// suspended job's processors were released after the suspend overhead.
    JobEnd,
    /// A job was submitted.
    Arrival,
    /// An elastic control command (CWF ET/RT/EP/RP).
    Command,
    /// A wake-up the policy asked for, or a dedicated job's requested start.
    Wakeup,
}

/// When the simulator calls the policy.
///
/// In both modes the policy is called only at a decision point where jobs
/// wait (in the batch or the dedicated queue) or are suspended, or where a
/// wake-up fired; the run ends when no event is left, and it is an error
/// ([`SimError::Stalled`]) if jobs still wait or are suspended then. How
/// each kind of event is handled:
///
/// | event | per timestamp | per event |
/// |---|---|---|
/// | job ends (and the release of a suspended job's processors after its suspend overhead) | all of the timestamp, before the call | one call after each end, or after all ends of the second ([`SimultaneousEnds`]) |
/// | arrivals | all of the timestamp, before the call | one call after each arrival, in input order |
/// | elastic commands (ET/RT) | after the ends and arrivals of the timestamp; an RT that ends a job ends it then | one call after each command |
/// | wake-ups, dedicated jobs' requested starts | all wake-ups of the timestamp are one event | the same: one event per timestamp, last of its second |
/// | a job started with no work | ends at the same timestamp: the policy is called again at that timestamp | its end is the next event of that second (before the second's remaining arrivals under [`EventOrder::EndsFirst`], after them under [`EventOrder::ArrivalsFirst`]) |
/// | only suspended jobs left | the policy is called at each decision point, so it can resume them | the same |
///
/// The order of the kinds at one second is [`EventOrder`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Invocation {
    /// Once per timestamp at which something happened, after all its events
    /// are applied: a policy never decides on a half-updated state (a job
    /// ending and another arriving in the same second), and the result does
    /// not depend on how simultaneous events happen to be ordered.
    #[default]
    PerTimestamp,
    /// After every single event (one arrival, one end, one command, or the
    /// wake-ups of one timestamp), in [`EventOrder`]: how the LOS thesis
    /// (section 4.1, appendix A) and pyss run their schedulers.
    PerEvent,
}

impl Invocation {
    /// The name used on the command line: `per-timestamp` or `per-event`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PerTimestamp => "per-timestamp",
            Self::PerEvent => "per-event",
        }
    }
}

/// How events of one timestamp are ordered (see [`EventKind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventOrder {
    /// Job ends, then arrivals, commands, wake-ups.
    #[default]
    EndsFirst,
    /// Arrivals, then job ends, commands, wake-ups: pyss's order. With
    /// [`Invocation::PerEvent`] the policy then sees each arrival before the
    /// ends of the same second are applied.
    ArrivalsFirst,
}

impl EventOrder {
    /// The name used on the command line: `ends-first` or `arrivals-first`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EndsFirst => "ends-first",
            Self::ArrivalsFirst => "arrivals-first",
        }
    }

    /// The kinds in the order they are applied at one timestamp.
    fn kinds(self) -> [EventKind; 4] {
        match self {
            Self::EndsFirst => [
                EventKind::JobEnd,
                EventKind::Arrival,
                EventKind::Command,
                EventKind::Wakeup,
            ],
            Self::ArrivalsFirst => [
                EventKind::Arrival,
                EventKind::JobEnd,
                EventKind::Command,
                EventKind::Wakeup,
            ],
        }
    }

    /// The rank of a kind at equal times (lower first).
    fn rank(self, kind: EventKind) -> u8 {
        match (self, kind) {
            (Self::EndsFirst, EventKind::JobEnd) | (Self::ArrivalsFirst, EventKind::Arrival) => 0,
            (Self::EndsFirst, EventKind::Arrival) | (Self::ArrivalsFirst, EventKind::JobEnd) => 1,
            (_, EventKind::Command) => 2,
            (_, EventKind::Wakeup) => 3,
        }
    }
}

/// How [`Invocation::PerEvent`] treats several jobs ending at the same
/// instant (jobs killed at their estimates often do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SimultaneousEnds {
    /// Each end is an event of its own: the policy is called after each
    /// single termination, as the LOS thesis words it ("on each arrival or
    /// termination event"). While the others of that instant are not yet
    /// applied, their jobs still hold their processors, and the view expects
    /// them to end one second later (see [`RunningJob::expected_end`](crate::RunningJob)).
    #[default]
    Separate,
    /// All ends of one instant are one event: the policy sees every
    /// processor freed at that instant, as a simulator that plans with
    /// processor counts (pyss) effectively does.
    Together,
}

impl SimultaneousEnds {
    /// The name used on the command line: `separate` or `together`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Separate => "separate",
            Self::Together => "together",
        }
    }
}

/// The cost of suspending and resuming a job (SCOJO-PECT: 60 s to write a
/// job's memory to disk and read it back).
///
/// During the suspend overhead the job keeps its processors and makes no
/// progress; they are free once it has passed. During the resume overhead
/// the job holds its processors again and makes no progress yet. The run
/// time a job's estimate allows counts progress only, not overheads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
pub struct SwitchOverhead {
    /// Seconds per suspension.
    pub suspend: Time,
    /// Seconds per resumption.
    pub resume: Time,
}

/// How the simulator runs a policy. `SimOptions::default()` is today's
/// behaviour: the policy is called once per timestamp, ends before
/// arrivals, no switch overhead.
///
/// ```
/// use schedsim_sim_core::{EventOrder, Invocation, SimOptions, SwitchOverhead};
/// let options = SimOptions::default()
///     .with_invocation(Invocation::PerEvent)
///     .with_event_order(EventOrder::ArrivalsFirst)
///     .with_switch_overhead(SwitchOverhead { suspend: 60, resume: 60 });
/// assert_eq!(options.invocation, Invocation::PerEvent);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SimOptions {
    /// When the policy is called.
    pub invocation: Invocation,
    /// The order of simultaneous events.
    pub event_order: EventOrder,
    /// The cost of suspending and resuming jobs.
    pub switch_overhead: SwitchOverhead,
    /// Whether jobs ending at the same instant are one event or several
    /// ([`Invocation::PerEvent`] only).
    pub simultaneous_ends: SimultaneousEnds,
}

impl SimOptions {
    /// The same options with another invocation.
    pub fn with_invocation(mut self, invocation: Invocation) -> Self {
        self.invocation = invocation;
        self
    }

    /// The same options with another event order.
    pub fn with_event_order(mut self, event_order: EventOrder) -> Self {
        self.event_order = event_order;
        self
    }

    /// The same options with another treatment of simultaneous ends.
    pub fn with_simultaneous_ends(mut self, simultaneous_ends: SimultaneousEnds) -> Self {
        self.simultaneous_ends = simultaneous_ends;
        self
    }

    /// The same options with another switch overhead.
    pub fn with_switch_overhead(mut self, switch_overhead: SwitchOverhead) -> Self {
        self.switch_overhead = switch_overhead;
        self
    }
}

/// Counters of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunStats {
    /// Events applied (ends, releases, arrivals, commands, wake-ups).
    pub events: u64,
    /// Distinct timestamps at which events happened.
    pub timestamps: u64,
    /// Calls to the policy.
    pub policy_calls: u64,
    /// Time commands (ET/RT) applied.
    pub commands_applied: u64,
    /// Commands ignored because the policy has no ECC processor.
    pub commands_ignored: u64,
    /// Commands that arrived after their job had ended or was rejected (no
    /// effect).
    pub commands_after_end: u64,
    /// Processor commands (EP/RP) rejected: no policy here can resize a
    /// job.
    pub processor_commands_rejected: u64,
    /// Time reductions that ended a job at once (reduced to or below the
    /// run time it had made).
    pub commands_ending_jobs: u64,
    /// Dedicated jobs (with a requested start) scheduled as batch jobs
    /// because the policy does not handle dedicated jobs.
    pub dedicated_as_batch: u64,
    /// Jobs the policy rejected.
    #[serde(default)]
    pub rejected_jobs: u64,
    /// Processor-seconds of the rejected jobs (size x runtime; saturating).
    #[serde(default)]
    pub rejected_work: u64,
    /// Suspensions applied.
    #[serde(default)]
    pub suspensions: u64,
    /// Resumptions applied.
    #[serde(default)]
    pub resumes: u64,
}

/// How a job's life ended, with Batsim's names (`final_state` in its
/// jobs.csv).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum FinalState {
    /// It ran all its work.
    CompletedSuccessfully,
    /// It was killed when its run time reached its estimate (walltime).
    CompletedWalltimeReached,
    /// A time-reduction command (RT) ended it: at once, or at a kill-by time
    /// the reduction moved before the end of its work.
    CompletedKilled,
    /// The policy rejected it; it never ran.
    Rejected,
}

impl FinalState {
    /// Batsim's name, e.g. `COMPLETED_SUCCESSFULLY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CompletedSuccessfully => "COMPLETED_SUCCESSFULLY",
            Self::CompletedWalltimeReached => "COMPLETED_WALLTIME_REACHED",
            Self::CompletedKilled => "COMPLETED_KILLED",
            Self::Rejected => "REJECTED",
        }
    }

    /// Whether the job ran (every state but [`Rejected`](Self::Rejected)).
    pub fn ran(self) -> bool {
        self != Self::Rejected
    }
}

/// One stretch of wall time during which a job held its processors: from a
/// start or resumption (including the resume overhead) to its end or the
/// end of a suspend overhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Segment {
    /// When it took its processors.
    pub start: Time,
    /// When it released them.
    pub end: Time,
}

/// A job the policy rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RejectedJob {
    /// The job.
    pub id: JobId,
    /// When it was rejected.
    pub time: Time,
    /// The policy's reason.
    pub reason: String,
}

/// The result of a simulation: when each job started and ended, on which
/// processors, in which run segments, and how its life ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    policy: String,
    starts: Vec<Time>,
    ends: Vec<Time>,
    /// Job i ran on `ranges[spans[i].0..spans[i].1]`.
    spans: Vec<(u32, u32)>,
    ranges: Vec<ProcRange>,
    final_states: Vec<FinalState>,
    /// Segments of the jobs that were suspended at least once, by (job,
    /// start); other jobs have the one segment (start, end).
    split: Vec<(JobId, Segment)>,
    rejected: Vec<RejectedJob>,
    stats: RunStats,
}

impl Schedule {
    /// The start and end of a job that never ran ([`FinalState::Rejected`]).
    pub const NOT_RUN: Time = NOT_STARTED;

    /// The policy's name.
    pub fn policy(&self) -> &str {
        &self.policy
    }

    /// When the job first started ([`NOT_RUN`](Self::NOT_RUN) if rejected).
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn start(&self, id: JobId) -> Time {
        self.starts[id.index()]
    }

    /// When the job ended ([`NOT_RUN`](Self::NOT_RUN) if rejected).
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn end(&self, id: JobId) -> Time {
        self.ends[id.index()]
    }

    /// First start times, indexed by [`JobId`].
    pub fn starts(&self) -> &[Time] {
        &self.starts
    }

    /// End times, indexed by [`JobId`].
    pub fn ends(&self) -> &[Time] {
        &self.ends
    }

    /// The processors the job ran on, lowest first (every segment uses
    /// them); empty if it was rejected.
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn allocation(&self, id: JobId) -> &[ProcRange] {
        let (from, to) = self.spans[id.index()];
        &self.ranges[from as usize..to as usize]
    }

    /// How the job's life ended.
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn final_state(&self, id: JobId) -> FinalState {
        self.final_states[id.index()]
    }

    /// The job's run segments in time order: one for a job never
    /// suspended, none for a rejected job.
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn segments(&self, id: JobId) -> Segments<'_> {
        let from = self.split.partition_point(|(job, _)| *job < id);
        let to = from + self.split[from..].partition_point(|(job, _)| *job == id);
        if to > from {
            Segments::Split(self.split[from..to].iter())
        } else if self.final_state(id).ran() {
            Segments::Whole(Some(Segment {
                start: self.start(id),
                end: self.end(id),
            }))
        } else {
            Segments::Whole(None)
        }
    }

    /// Times the job was suspended.
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn suspensions(&self, id: JobId) -> u32 {
        (self.segments(id).len() as u32).saturating_sub(1)
    }

    /// Wall time between the job's first start and its end during which it
    /// held no processors.
    ///
    /// # Panics
    /// If `id` is not a job of the simulated workload (`id.index() >= starts().len()`).
    pub fn suspended_time(&self, id: JobId) -> Time {
        if !self.final_state(id).ran() {
            return 0;
        }
        let held: Time = self.segments(id).map(|s| s.end - s.start).sum();
        (self.end(id) - self.start(id) - held).max(0)
    }

    /// Whether any job was suspended.
    pub fn has_suspensions(&self) -> bool {
        !self.split.is_empty()
    }

    /// The rejected jobs in rejection order.
    pub fn rejected(&self) -> &[RejectedJob] {
        &self.rejected
    }

    /// Counters of the run.
    pub fn stats(&self) -> &RunStats {
        &self.stats
    }
}

/// The run segments of one job ([`Schedule::segments`]).
#[derive(Debug, Clone)]
pub enum Segments<'a> {
    /// A job never suspended: its one segment (none if rejected).
    Whole(Option<Segment>),
    /// A job suspended at least once.
    Split(std::slice::Iter<'a, (JobId, Segment)>),
}

impl Iterator for Segments<'_> {
    type Item = Segment;

    fn next(&mut self) -> Option<Segment> {
        match self {
            Self::Whole(segment) => segment.take(),
            Self::Split(iter) => iter.next().map(|&(_, segment)| segment),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            Self::Whole(segment) => usize::from(segment.is_some()),
            Self::Split(iter) => iter.len(),
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for Segments<'_> {}

/// Replays `jobs` on their machine under `policy` with the default
/// [`SimOptions`]: the policy is called once per timestamp.
///
/// Time advances from event to event. At each timestamp all events are
/// applied first, in [`EventKind`] order, and only then is the policy
/// called, once, if jobs are waiting or suspended or a wake-up fired. A job started with a
/// runtime of 0 ends at the same timestamp; the policy is then called again
/// at that timestamp.
///
/// # Errors
/// A decision the simulator refuses (see [`SimError`]), or a run that ends
/// with jobs waiting or suspended and nothing left to happen.
pub fn simulate<P: Policy + ?Sized>(jobs: &JobSet, policy: &mut P) -> Result<Schedule, SimError> {
    simulate_with(jobs, policy, &SimOptions::default())
}

/// Replays `jobs` under `policy` with explicit [`SimOptions`]: a loop over
/// a [`Simulation`].
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with<P: Policy + ?Sized>(
    jobs: &JobSet,
    policy: &mut P,
    options: &SimOptions,
) -> Result<Schedule, SimError> {
    let mut simulation = Simulation::new(jobs, options, policy.name(), policy.capabilities());
    let mut decisions = Decisions::new();
    while simulation.advance() {
        decisions.clear();
        policy.schedule(&simulation.view(), &mut decisions);
        simulation.apply(&decisions)?;
    }
    simulation.finish()
}

/// The event loop as an object, for drivers outside Rust's
/// [`Policy`] trait (a Python policy, a reinforcement-learning
/// environment): [`advance`](Self::advance) to the next decision point,
/// look at the [`view`](Self::view), [`apply`](Self::apply) decisions,
/// and [`finish`](Self::finish) once `advance` returns false.
/// [`simulate_with`] is exactly this loop.
///
/// ```
/// use schedsim_sim_core::{Capabilities, Decisions, Job, JobModel, JobSet, SimOptions, Simulation};
/// let jobs = JobSet::from_jobs(
///     vec![Job::new(1, 0, 2, 10, 10), Job::new(2, 5, 2, 10, 10)],
///     &JobModel::new(2),
/// )?;
/// let mut sim = Simulation::new(&jobs, &SimOptions::default(), "by-hand", Capabilities::default());
/// let mut decisions = Decisions::new();
/// while sim.advance() {
///     let view = sim.view();
///     decisions.clear();
///     // Start the queue's head when it fits.
///     if let Some(&head) = view.queue().first() {
///         if view.job(head).size <= view.free() {
///             decisions.start(head);
///         }
///     }
///     sim.apply(&decisions)?;
/// }
/// let schedule = sim.finish()?;
/// // Job 2 waits for job 1's two processors: 0..10, then 10..20.
/// assert_eq!(schedule.starts(), [0, 10]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Simulation<'a> {
    jobs: &'a JobSet,
    options: SimOptions,
    capabilities: Capabilities,
    policy: String,
    state: SimState,
    /// Ends and releases: (time, segment sequence, job). An entry is stale,
    /// and skipped, unless the job is still running (or suspending) with
    /// this end time and sequence.
    machine_events: BinaryHeap<Reverse<(Time, u64, JobId)>>,
    wakeups: BinaryHeap<Reverse<Time>>,
    next_arrival: usize,
    next_command: usize,
    sequence: u64,
    now: Time,
    /// ET and RT seconds applied per job (elastic commands only).
    commands: BTreeMap<JobId, CommandTotals>,
    final_states: Vec<FinalState>,
    split: Vec<(JobId, Segment)>,
    rejected: Vec<RejectedJob>,
    /// Jobs leaving the batch queue in the current `apply`.
    leaving_queue: Vec<JobId>,
    /// A wake-up fired at this decision point: the policy is called even
    /// if no job waits (a time-slicing policy suspends running jobs then).
    woken: bool,
    /// An end entry may have gone stale (a command moved an end, a job was
    /// suspended or killed): the heap's top must be checked before its time
    /// is trusted. Never set in runs without commands or suspensions, which
    /// then pay nothing for it.
    maybe_stale: bool,
    /// An error found while applying events (a command moved an end past
    /// [`TIME_LIMIT`](crate::TIME_LIMIT)), returned by the next `apply` or
    /// by `finish`.
    deferred: Option<SimError>,
    stats: RunStats,
}

/// Spare processor ranges kept before a start (a start usually takes one
/// or two).
const RANGES_HEADROOM: usize = 64;

#[derive(Debug, Clone, Copy, Default)]
struct CommandTotals {
    extended: Time,
    reduced: Time,
    ended_by_command: bool,
}

impl<'a> Simulation<'a> {
    /// A simulation of `jobs` for a policy named `policy` (used in error
    /// messages and the schedule) with these capabilities.
    pub fn new(
        jobs: &'a JobSet,
        options: &SimOptions,
        policy: &str,
        capabilities: Capabilities,
    ) -> Self {
        let model = jobs.model();
        Self {
            jobs,
            options: *options,
            capabilities,
            policy: policy.to_owned(),
            state: SimState::new(jobs.jobs(), model.procs, model.granularity),
            machine_events: BinaryHeap::new(),
            wakeups: BinaryHeap::new(),
            next_arrival: 0,
            next_command: 0,
            sequence: 0,
            now: Time::MIN,
            commands: BTreeMap::new(),
            final_states: vec![FinalState::CompletedSuccessfully; jobs.len()],
            split: Vec::new(),
            rejected: Vec::new(),
            leaving_queue: Vec::new(),
            woken: false,
            maybe_stale: false,
            deferred: None,
            stats: RunStats::default(),
        }
    }

    /// The current simulated time (`Time::MIN` before the first event).
    pub fn now(&self) -> Time {
        self.now
    }

    /// The jobs being simulated.
    pub fn jobs(&self) -> &'a JobSet {
        self.jobs
    }

    /// What the policy may look at now.
    pub fn view(&self) -> View<'_> {
        let view = View::from_state(self.now, self.jobs.jobs(), &self.state)
            .with_switch_overhead(self.options.switch_overhead);
        match self.jobs.calendar() {
            Some(calendar) => view.with_calendar(calendar),
            None => view,
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> &RunStats {
        &self.stats
    }

    /// Applies events up to the next decision point and returns true, or
    /// returns false when no event is left (then call
    /// [`finish`](Self::finish)). A decision point is reached after the
    /// events of one timestamp ([`Invocation::PerTimestamp`]) or after one
    /// event ([`Invocation::PerEvent`]) while jobs wait or are suspended, or
    /// when a wake-up fires.
    /// Calling `advance` again without [`apply`](Self::apply) means "no
    /// decision".
    pub fn advance(&mut self) -> bool {
        loop {
            if self.maybe_stale {
                self.drop_stale_machine_events();
            }
            let per_event = self.options.invocation == Invocation::PerEvent;
            // Per timestamp only the time matters, which is cheaper to find.
            let next = if per_event {
                self.next_event()
            } else {
                self.next_time().map(|t| (t, EventKind::JobEnd))
            };
            let Some((t, kind)) = next else {
                return false;
            };
            if t != self.now {
                self.stats.timestamps += 1;
                self.now = t;
            }
            self.state.arrived.clear();
            self.state.ended.clear();
            self.woken = false;
            match self.options.invocation {
                Invocation::PerTimestamp => {
                    for kind in self.options.event_order.kinds() {
                        self.apply_events(t, kind, usize::MAX);
                    }
                }
                Invocation::PerEvent => {
                    let ends = match self.options.simultaneous_ends {
                        SimultaneousEnds::Separate => 1,
                        SimultaneousEnds::Together => usize::MAX,
                    };
                    self.apply_events(t, kind, ends);
                }
            }
            let state = &self.state;
            let idle =
                state.queue.is_empty() && state.dedicated.is_empty() && state.suspended.is_empty();
            if !idle || self.woken {
                self.stats.policy_calls += 1;
                return true;
            }
        }
    }

    /// Validates and applies the policy's decisions at the current decision
    /// point, in the order given.
    ///
    /// # Errors
    /// The first decision the simulator refuses (see [`SimError`]); the
    /// simulation must not be continued after an error.
    pub fn apply(&mut self, decisions: &Decisions) -> Result<(), SimError> {
        if let Some(error) = self.deferred.take() {
            return Err(error);
        }
        if let Some(reason) = decisions.failure() {
            return Err(SimError::PolicyFailed {
                policy: self.policy.clone(),
                reason: reason.to_owned(),
                time: self.now,
            });
        }
        let t = self.now;
        for &at in decisions.wakeups() {
            if at < t {
                return Err(SimError::WakeInPast {
                    policy: self.policy.clone(),
                    wake: at,
                    time: t,
                });
            }
            if at > crate::TIME_LIMIT {
                return Err(SimError::BeyondTimeLimit {
                    policy: self.policy.clone(),
                    what: "it asked to be woken".to_owned(),
                    at: i128::from(at),
                    time: t,
                });
            }
            // A wake-up at `t` itself would loop forever; the policy has
            // just been called at `t`.
            if at > t {
                self.wakeups.push(Reverse(at));
            }
        }
        if decisions.is_empty() {
            return Ok(());
        }
        self.leaving_queue.clear();
        let mut result = Ok(());
        for action in decisions.actions() {
            result = match action {
                Action::Start(id) => self.start(id, None),
                Action::StartOn(id, processors) => self.start(id, Some(processors)),
                Action::Reject(id, reason) => self.reject(id, reason),
                Action::Suspend(id) => self.suspend(id),
                Action::Resume(id) => self.resume(id),
            };
            if result.is_err() {
                break;
            }
        }
        self.compact_queue();
        result
    }

    /// The schedule, once [`advance`](Self::advance) has returned false.
    ///
    /// # Errors
    /// [`SimError::RunNotOver`] if events are left;
    /// [`SimError::Stalled`] if jobs still wait or are suspended.
    pub fn finish(mut self) -> Result<Schedule, SimError> {
        if let Some(error) = self.deferred.take() {
            return Err(error);
        }
        self.drop_stale_machine_events();
        if self.next_event().is_some() {
            return Err(SimError::RunNotOver {
                policy: self.policy,
                time: self.now,
            });
        }
        let waiting = self.state.queue.len() + self.state.dedicated.len();
        let suspended = self.state.suspended.len();
        if waiting + suspended > 0 {
            return Err(SimError::Stalled {
                policy: self.policy,
                waiting,
                suspended,
                time: self.now,
            });
        }
        // Only the per-job runs and the ranges go into the schedule: the
        // rest (fit index, machine, queues) is freed before it is built.
        let SimState {
            mut runs,
            mut ranges,
            ..
        } = std::mem::take(&mut self.state);
        ranges.shrink_to_fit();
        let ran = |i: usize| self.final_states[i].ran();
        self.split
            .sort_unstable_by_key(|&(job, segment)| (job, segment.start));
        // The schedule's vectors are filled from the back in chunks while
        // the runs shrink behind: fresh zeroed memory is not resident until
        // written and a shrunk vector gives its tail back, so the runs (72
        // bytes a job) and the schedule's copy (24) are never both whole.
        let jobs = runs.len();
        let mut starts: Vec<Time> = vec![0; jobs];
        let mut ends: Vec<Time> = vec![0; jobs];
        let mut spans: Vec<(u32, u32)> = vec![(0, 0); jobs];
        let chunk = (jobs / 16).max(1 << 16);
        while !runs.is_empty() {
            let from = runs.len().saturating_sub(chunk);
            for (i, run) in runs.iter().enumerate().skip(from) {
                starts[i] = run.start;
                ends[i] = if ran(i) { run.end } else { NOT_STARTED };
                spans[i] = run.span;
            }
            runs.truncate(from);
            runs.shrink_to_fit();
        }
        Ok(Schedule {
            starts,
            ends,
            spans,
            ranges,
            final_states: self.final_states,
            split: self.split,
            rejected: self.rejected,
            stats: self.stats,
            policy: self.policy,
        })
    }

    /// The next event's time.
    fn next_time(&self) -> Option<Time> {
        let end = self.machine_events.peek().map(|Reverse((t, _, _))| *t);
        let arrival = self
            .jobs
            .jobs()
            .get(self.next_arrival)
            .map(|job| job.submit);
        let command = self.jobs.commands().get(self.next_command).map(|c| c.time);
        let wakeup = self.wakeups.peek().map(|Reverse(t)| *t);
        [end, arrival, command, wakeup].into_iter().flatten().min()
    }

    /// The next event's time and kind, in [`EventOrder`].
    fn next_event(&self) -> Option<(Time, EventKind)> {
        let order = self.options.event_order;
        let end = self
            .machine_events
            .peek()
            .map(|Reverse((t, _, _))| (*t, EventKind::JobEnd));
        let arrival = self
            .jobs
            .jobs()
            .get(self.next_arrival)
            .map(|job| (job.submit, EventKind::Arrival));
        let command = self
            .jobs
            .commands()
            .get(self.next_command)
            .map(|c| (c.time, EventKind::Command));
        let wakeup = self
            .wakeups
            .peek()
            .map(|Reverse(t)| (*t, EventKind::Wakeup));
        [end, arrival, command, wakeup]
            .into_iter()
            .flatten()
            .min_by_key(|&(t, kind)| (t, order.rank(kind)))
    }

    /// Applies the events of `kind` at `t`: all of them, or (per event) one
    /// arrival or command, the wake-ups of `t`, and at most `ends` ends.
    // Inlined: called four times per timestamp, its frame cost more than its
    // work on traces where most kinds have no event at a given second.
    #[inline(always)]
    fn apply_events(&mut self, t: Time, kind: EventKind, ends: usize) {
        let per_event = self.options.invocation == Invocation::PerEvent;
        match kind {
            EventKind::JobEnd => self.end_jobs_at(t, ends),
            EventKind::Arrival => {
                while self
                    .jobs
                    .jobs()
                    .get(self.next_arrival)
                    .map(|job| job.submit)
                    == Some(t)
                {
                    self.arrive();
                    if per_event {
                        break;
                    }
                }
            }
            EventKind::Command => {
                while self.jobs.commands().get(self.next_command).map(|c| c.time) == Some(t) {
                    self.apply_command();
                    if per_event {
                        break;
                    }
                }
            }
            EventKind::Wakeup => {
                if self.wakeups.peek() == Some(&Reverse(t)) {
                    while self.wakeups.peek() == Some(&Reverse(t)) {
                        self.wakeups.pop();
                    }
                    self.stats.events += 1;
                    self.woken = true;
                }
            }
        }
    }

    /// Ends (or releases after a suspend overhead) at most `limit` jobs
    /// whose end is `t`, skipping stale entries.
    fn end_jobs_at(&mut self, t: Time, limit: usize) {
        let mut applied = 0;
        while applied < limit {
            let Some(&Reverse((time, sequence, id))) = self.machine_events.peek() else {
                break;
            };
            if time != t {
                break;
            }
            self.machine_events.pop();
            let run = self.state.run(id);
            if run.end != t || run.sequence != sequence {
                continue;
            }
            match run.state {
                JobState::Running => self.finish_job(id, t),
                JobState::Suspending => self.release(id),
                _ => continue,
            }
            self.stats.events += 1;
            applied += 1;
        }
    }

    /// Pops end entries that a command, a suspension or an earlier end made
    /// stale, so that the heap's top is a real event.
    fn drop_stale_machine_events(&mut self) {
        while let Some(&Reverse((t, sequence, id))) = self.machine_events.peek() {
            let run = self.state.run(id);
            let live = matches!(run.state, JobState::Running | JobState::Suspending)
                && run.end == t
                && run.sequence == sequence;
            if live {
                break;
            }
            self.machine_events.pop();
        }
    }

    /// Queues the next arriving job.
    fn arrive(&mut self) {
        let id = JobId(self.next_arrival as u32);
        self.next_arrival += 1;
        self.stats.events += 1;
        let job = self.jobs.job(id);
        self.state.runs[id.index()].state = JobState::Waiting;
        match job.requested_start {
            Some(requested) if self.capabilities.dedicated_jobs => {
                let jobs = self.jobs;
                let position = self.state.dedicated.partition_point(|&other| {
                    (jobs.job(other).requested_start, other) < (Some(requested), id)
                });
                self.state.dedicated.insert(position, id);
                // The policy must be called when the start is due.
                if requested > self.now {
                    self.wakeups.push(Reverse(requested));
                }
            }
            requested => {
                if requested.is_some() {
                    self.stats.dedicated_as_batch += 1;
                }
                self.state.queue.push(id);
                let limit = self.state.run(id).limit;
                self.state.fit_insert(id, job.size, limit);
            }
        }
        self.state.arrived.push(id);
    }

    /// The job's work: its recorded runtime plus its time extensions.
    fn work(&self, id: JobId) -> Time {
        let work = self.jobs.work(id);
        if self.commands.is_empty() {
            return work;
        }
        let extended = self.commands.get(&id).map_or(0, |c| c.extended);
        work.saturating_add(extended)
    }

    /// When a job that makes progress from `progress_from` on ends: after
    /// its work, or at its kill-by time (its limit) under the kill rule.
    fn end_of(&self, id: JobId) -> Time {
        let run = self.state.run(id);
        let work = self.work(id);
        let total = match self.jobs.model().overrun {
            OverrunRule::Kill => work.min(run.limit),
            OverrunRule::Extend => work,
        };
        self.state
            .progress_from(id)
            .saturating_add(total - self.state.used(id))
    }

    /// Refuses an end, release or resumption at `at` (saturated, so any
    /// overflow shows as `Time::MAX`) past [`TIME_LIMIT`](crate::TIME_LIMIT).
    fn check_limit(&self, id: JobId, what: &str, at: Time) -> Result<(), SimError> {
        if at <= crate::TIME_LIMIT {
            return Ok(());
        }
        Err(SimError::BeyondTimeLimit {
            policy: self.policy.clone(),
            what: format!("job {} would {what}", self.jobs.job(id).number),
            at: i128::from(at),
            time: self.now,
        })
    }

    /// Applies the next elastic control command.
    ///
    /// With work w, estimate e and the commands applied so far, a job's
    /// kill-by time is start + e + sum(ET) - sum(RT) and it ends at start +
    /// min(w + sum(ET), kill-by) (Kumar et al.: ECCs "result in changes to
    /// kill-by time and thus the actual job execution time"); start and
    /// kill-by count run time, so a suspended job's overheads and pauses do
    /// not use up its estimate. Under [`OverrunRule::Extend`] the job runs
    /// w + sum(ET) whatever its kill-by time. A reduction to or below the
    /// run time a job has made ends it at once. A waiting job's estimate
    /// never drops below 1 s.
    fn apply_command(&mut self) {
        let command = self.jobs.commands()[self.next_command];
        self.next_command += 1;
        self.stats.events += 1;
        let (extend, reduce) = match command.change {
            Change::ExtendTime(seconds) => (seconds, 0),
            Change::ReduceTime(seconds) => (0, seconds),
            Change::ExtendProcessors(_) | Change::ReduceProcessors(_) => {
                self.stats.processor_commands_rejected += 1;
                return;
            }
        };
        if !self.capabilities.elastic_commands {
            self.stats.commands_ignored += 1;
            return;
        }
        let id = command.job;
        let state = self.state.run(id).state;
        if matches!(
            state,
            JobState::NotArrived | JobState::Done | JobState::Rejected
        ) {
            self.stats.commands_after_end += 1;
            return;
        }
        self.stats.commands_applied += 1;
        self.state.estimate_changes += 1;
        // A running or suspended job's end entry may be superseded.
        self.maybe_stale = true;
        let totals = self.commands.entry(id).or_default();
        totals.extended = totals.extended.saturating_add(extend);
        totals.reduced = totals.reduced.saturating_add(reduce);
        let now = self.now;
        let run_time = self.state.run_time(id, now);
        // Out of the running list under its old expected end; back in below
        // if it keeps running.
        let running_entry = self.state.remove_running(id);
        let run = &mut self.state.runs[id.index()];
        let limit = run.limit.saturating_add(extend).saturating_sub(reduce);
        match state {
            JobState::Waiting => {
                run.limit = limit.max(1);
                if self.state.queue.contains(id) {
                    let size = self.jobs.job(id).size;
                    let limit = self.state.runs[id.index()].limit;
                    self.state.fit_insert(id, size, limit);
                }
            }
            _ if limit <= run_time => {
                run.limit = limit.max(run_time);
                self.stats.commands_ending_jobs += 1;
                if let Some(totals) = self.commands.get_mut(&id) {
                    totals.ended_by_command = true;
                }
                match state {
                    JobState::Running => self.finish_job(id, now),
                    _ => self.kill_suspended(id),
                }
            }
            JobState::Running => {
                run.limit = limit;
                if let Some(mut entry) = running_entry {
                    entry.expected_end =
                        self.state.progress_from(id) + (limit - self.state.used(id));
                    self.state.insert_running(entry);
                }
                let end = self.end_of(id);
                if self.deferred.is_none() {
                    self.deferred = self.check_limit(id, "end", end).err();
                }
                let run = &mut self.state.runs[id.index()];
                if end != run.end {
                    run.end = end;
                    self.machine_events.push(Reverse((end, run.sequence, id)));
                }
            }
            _ => run.limit = limit,
        }
    }

    /// A suspended (or suspending) job whose estimate a command has used up:
    /// it ends now; a suspend overhead in progress is cut short (a killed
    /// job need not be saved).
    fn kill_suspended(&mut self, id: JobId) {
        let now = self.now;
        if self.state.run(id).state == JobState::Suspending {
            // Its last segment was recorded to end with the overhead.
            if let Some((_, segment)) = self.split.iter_mut().rev().find(|(job, _)| *job == id) {
                segment.end = now;
            }
            let (from, to) = self.state.run(id).span;
            self.state
                .machine
                .release(&self.state.ranges[from as usize..to as usize]);
        }
        self.remove_suspended(id);
        let run = &mut self.state.runs[id.index()];
        run.state = JobState::Done;
        run.end = now;
        self.final_states[id.index()] = FinalState::CompletedKilled;
        self.state.ended.push(id);
    }

    fn remove_suspended(&mut self, id: JobId) {
        if let Ok(position) = self.state.suspended.binary_search(&id) {
            self.state.suspended.remove(position);
        }
    }

    /// Ends a running job at `t`.
    fn finish_job(&mut self, id: JobId, t: Time) {
        self.state.remove_running(id);
        let run_time = self.state.run_time(id, t);
        let segment_start = self.state.segment_start(id);
        if self.state.run(id).is_split() {
            self.state.split_mut(id).used = run_time;
        }
        let run = &mut self.state.runs[id.index()];
        run.state = JobState::Done;
        run.end = t;
        let (from, to) = run.span;
        self.state
            .machine
            .release(&self.state.ranges[from as usize..to as usize]);
        if run.is_split() {
            self.split.push((
                id,
                Segment {
                    start: segment_start,
                    end: t,
                },
            ));
        }
        self.final_states[id.index()] = self.classify(id, run_time);
        self.state.ended.push(id);
    }

    /// How a job that made `run_time` seconds of progress ended.
    fn classify(&self, id: JobId, run_time: Time) -> FinalState {
        let totals = if self.commands.is_empty() {
            CommandTotals::default()
        } else {
            self.commands.get(&id).copied().unwrap_or_default()
        };
        if totals.ended_by_command {
            return FinalState::CompletedKilled;
        }
        let work = self.work(id);
        if run_time >= work {
            return FinalState::CompletedSuccessfully;
        }
        // Killed at its limit: by the reductions if, without them, it would
        // have run longer.
        let limit_without_reductions = self.state.run(id).limit.saturating_add(totals.reduced);
        if totals.reduced > 0 && run_time < work.min(limit_without_reductions) {
            FinalState::CompletedKilled
        } else {
            FinalState::CompletedWalltimeReached
        }
    }

    /// Frees a suspended job's processors at the end of its suspend overhead.
    fn release(&mut self, id: JobId) {
        let run = &mut self.state.runs[id.index()];
        run.state = JobState::Suspended;
        let (from, to) = run.span;
        self.state
            .machine
            .release(&self.state.ranges[from as usize..to as usize]);
    }

    fn refuse(&self, id: JobId, problem: &'static str) -> SimError {
        SimError::Refused {
            policy: self.policy.clone(),
            job: id,
            number: self.jobs.jobs().get(id.index()).map(|job| job.number),
            problem,
            time: self.now,
        }
    }

    /// The error for a start or rejection of a job that is not waiting,
    /// saying where the job is instead.
    fn not_waiting(&self, action: &'static str, id: JobId) -> SimError {
        let status = match self.state_of(id) {
            None => "no such job",
            Some(JobState::NotArrived) => "it has not arrived yet",
            Some(JobState::Waiting) => "it is waiting",
            Some(JobState::Running | JobState::Resuming) => "it is running",
            Some(JobState::Suspending | JobState::Suspended) => "it is suspended",
            Some(JobState::Done) => "it has ended",
            Some(JobState::Rejected) => "it was rejected",
        };
        SimError::NotWaiting {
            policy: self.policy.clone(),
            action,
            job: id,
            status,
            number: self.jobs.jobs().get(id.index()).map(|job| job.number),
            time: self.now,
        }
    }

    fn state_of(&self, id: JobId) -> Option<JobState> {
        self.state.runs.get(id.index()).map(|run| run.state)
    }

    fn start(&mut self, id: JobId, processors: Option<&[ProcRange]>) -> Result<(), SimError> {
        let t = self.now;
        if self.state_of(id) != Some(JobState::Waiting) {
            return Err(self.not_waiting("started", id));
        }
        let job = self.jobs.job(id);
        let free = self.state.machine.free();
        if job.size > free {
            return Err(SimError::OverAllocation {
                policy: self.policy.clone(),
                job: id,
                number: job.number,
                size: job.size,
                free,
                time: t,
            });
        }
        let dedicated = job.requested_start.is_some() && self.capabilities.dedicated_jobs;
        if let Some(requested) = job.requested_start.filter(|&r| dedicated && r > t) {
            return Err(SimError::DedicatedTooEarly {
                policy: self.policy.clone(),
                job: id,
                number: job.number,
                requested,
                time: t,
            });
        }
        if let Some(processors) = processors {
            if let Err(problem) = self.state.machine.check_ranges(processors, job.size) {
                return Err(self.refuse(id, problem));
            }
            if !self.state.machine.is_free(processors) {
                return Err(self.refuse(id, "some of the processors asked for are busy"));
            }
        }
        if dedicated {
            if let Some(position) = self.state.dedicated.iter().position(|&other| other == id) {
                self.state.dedicated.remove(position);
            }
        } else {
            self.state.fit_remove(id);
            self.leaving_queue.push(id);
        }
        // The ranges of every start are kept for the schedule: grow them by
        // a quarter rather than doubling, so that at most a fifth of the
        // vector is spare (millions of jobs).
        let ranges = &mut self.state.ranges;
        if ranges.capacity() - ranges.len() < RANGES_HEADROOM {
            ranges.reserve_exact(ranges.len() / 4 + RANGES_HEADROOM);
        }
        let from = self.state.ranges.len() as u32;
        match processors {
            None => self
                .state
                .machine
                .allocate(job.size, &mut self.state.ranges),
            Some(processors) => self
                .state
                .machine
                .allocate_exact(processors, &mut self.state.ranges),
        }
        let sequence = self.next_sequence();
        let run = &mut self.state.runs[id.index()];
        run.state = JobState::Running;
        run.start = t;
        run.sequence = sequence;
        run.span = (from, self.state.ranges.len() as u32);
        let entry = RunningEntry {
            expected_end: t.saturating_add(run.limit),
            sequence,
            id,
            size: job.size,
            start: t,
        };
        self.state.insert_running(entry);
        let end = self.end_of(id);
        self.check_limit(id, "end", end)?;
        self.state.runs[id.index()].end = end;
        self.machine_events.push(Reverse((end, sequence, id)));
        Ok(())
    }

    fn next_sequence(&mut self) -> u64 {
        let sequence = self.sequence;
        self.sequence += 1;
        sequence
    }

    fn reject(&mut self, id: JobId, reason: &str) -> Result<(), SimError> {
        if self.state_of(id) != Some(JobState::Waiting) {
            return Err(self.not_waiting("rejected", id));
        }
        let job = self.jobs.job(id);
        if job.requested_start.is_some() && self.capabilities.dedicated_jobs {
            if let Some(position) = self.state.dedicated.iter().position(|&other| other == id) {
                self.state.dedicated.remove(position);
            }
        } else {
            self.state.fit_remove(id);
            self.leaving_queue.push(id);
        }
        self.state.runs[id.index()].state = JobState::Rejected;
        self.final_states[id.index()] = FinalState::Rejected;
        self.stats.rejected_jobs += 1;
        let work = u64::from(job.size).saturating_mul(u64::try_from(job.runtime).unwrap_or(0));
        self.stats.rejected_work = self.stats.rejected_work.saturating_add(work);
        self.rejected.push(RejectedJob {
            id,
            time: self.now,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    fn suspend(&mut self, id: JobId) -> Result<(), SimError> {
        if self.state_of(id) != Some(JobState::Running) {
            return Err(self.refuse(id, "only a running job can be suspended"));
        }
        let now = self.now;
        self.maybe_stale = true;
        if self.state.progress_from(id) > now {
            return Err(self.refuse(
                id,
                "the job is still in its resume overhead and cannot be suspended before it runs",
            ));
        }
        self.state.remove_running(id);
        let run_time = self.state.run_time(id, now);
        let overhead = self.options.switch_overhead.suspend;
        let release = now.saturating_add(overhead);
        self.check_limit(id, "release its processors", release)?;
        let sequence = self.next_sequence();
        let segment = Segment {
            start: self.state.segment_start(id),
            end: release,
        };
        let split = self.state.split_mut(id);
        // A policy that suspends a job each time its resume overhead ends
        // would loop forever, a segment more each time.
        split.idle_suspensions = if run_time == split.used {
            split.idle_suspensions + 1
        } else {
            0
        };
        if split.idle_suspensions >= crate::MAX_IDLE_SUSPENSIONS {
            return Err(SimError::NoProgress {
                policy: self.policy.clone(),
                number: self.jobs.job(id).number,
                suspensions: split.idle_suspensions,
                time: now,
            });
        }
        split.used = run_time;
        let run = &mut self.state.runs[id.index()];
        run.sequence = sequence;
        run.end = release;
        self.split.push((id, segment));
        let position = self.state.suspended.partition_point(|&other| other < id);
        self.state.suspended.insert(position, id);
        self.stats.suspensions += 1;
        if overhead > 0 {
            self.state.runs[id.index()].state = JobState::Suspending;
            self.machine_events.push(Reverse((release, sequence, id)));
        } else {
            self.release(id);
        }
        Ok(())
    }

    fn resume(&mut self, id: JobId) -> Result<(), SimError> {
        match self.state_of(id) {
            Some(JobState::Suspended) => {}
            Some(JobState::Suspending) => {
                return Err(self.refuse(
                    id,
                    "the job is still in its suspend overhead and holds its processors",
                ));
            }
            _ => return Err(self.refuse(id, "only a suspended job can be resumed")),
        }
        let now = self.now;
        let (from, to) = self.state.run(id).span;
        let ranges = &self.state.ranges[from as usize..to as usize];
        if !self.state.machine.is_free(ranges) {
            return Err(self.refuse(id, "some of its processors are busy"));
        }
        self.state.machine.occupy(ranges);
        self.remove_suspended(id);
        let sequence = self.next_sequence();
        let size = self.jobs.job(id).size;
        let progress_from = now.saturating_add(self.options.switch_overhead.resume);
        let split = self.state.split_mut(id);
        split.segment_start = now;
        split.progress_from = progress_from;
        let used = split.used;
        let run = &mut self.state.runs[id.index()];
        run.state = JobState::Running;
        run.sequence = sequence;
        let entry = RunningEntry {
            expected_end: progress_from.saturating_add(run.limit - used),
            sequence,
            id,
            size,
            start: run.start,
        };
        self.state.insert_running(entry);
        let end = self.end_of(id);
        self.check_limit(id, "end", end)?;
        self.state.runs[id.index()].end = end;
        self.machine_events.push(Reverse((end, sequence, id)));
        self.stats.resumes += 1;
        Ok(())
    }

    /// Removes the jobs started or rejected in this `apply` from the batch
    /// queue (see [`ArrivalQueue`](crate::state::ArrivalQueue)).
    fn compact_queue(&mut self) {
        let queue = &mut self.state.queue;
        // A few leaving jobs (a start and some backfills, anywhere in the
        // queue) each move the shorter side of the queue; a burst (many
        // starts when a wide job ends) is removed in one pass.
        if self.leaving_queue.len() <= 8 {
            for &id in &self.leaving_queue {
                queue.remove(id);
            }
        } else {
            queue.remove_all(&mut self.leaving_queue);
        }
        self.leaving_queue.clear();
    }
}

//! EASY-D and LOS-D: EASY and LOS scheduling batch jobs around dedicated
//! jobs (Kumar et al., section V), with several mechanisms for the
//! dedicated jobs ([`DedicatedMode`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use schedsim_sim_core::{Capabilities, Decisions, JobId, Policy, Time, View};

use crate::los::{LosConfig, LosVariant};
use crate::pack::{Dp, Packer};
use crate::profile::Profile;

/// How EASY-D and LOS-D handle the waiting dedicated jobs (spec option
/// `dedicated`).
///
/// The paper describes EASY-D and LOS-D in one sentence: "we append the
/// EASY and LOS algorithms with the dedicated job queue and name these new
/// algorithms as EASY-D and LOS-D. EASY-D and LOS-D schedule batch jobs
/// around the rigid dedicated jobs whose start times are fixed or
/// modifiable through ECCs" (section V). The only mechanism it spells out
/// for a dedicated job queue is Hybrid-LOS's (Algorithms 2 and 3): "if the
/// first dedicated job's requested start time has reached, it is moved to
/// the head of batch queue to be scheduled in the next scheduling cycle
/// (lines 6-7). If the first dedicated job's requested start time has not
/// yet reached, then 'freeze end time' and 'freeze end capacity' [...] are
/// computed (lines 8-15) for scheduling batch jobs around the dedicated
/// jobs". [`HeadLiteral`](Self::HeadLiteral) transfers that mechanism to
/// EASY and LOS to the letter (the literal reading: EASY-D, LOS-D and
/// Hybrid-LOS then treat dedicated jobs alike); [`Head`](Self::Head) does
/// so with one move at a time (the paper-like reading, which leaves
/// out lines 39-41); [`HeadAll`](Self::HeadAll) moves every due job at
/// once (ours). [`Profile`](Self::Profile), this crate's first reading and
/// the default (the paper does not clearly say otherwise), reserves every
/// waiting dedicated job, which is close to conservative backfilling for
/// dedicated jobs. docs/RESULTS.md reports Figs. 9-11 under each: the
/// paper's ranking holds with the `head` readings, not with `profile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DedicatedMode {
    /// Every waiting dedicated job, in arrival order, reserves its
    /// processors in a profile for its whole estimate at the earliest time
    /// not before its requested start at which they are free; a reservation
    /// at now starts the job (`dedicated=profile`, the default; not in the
    /// paper).
    #[default]
    Profile,
    /// Algorithms 2 and 3 with EASY or LOS in place of Delayed-LOS
    /// (`dedicated=head`, the paper-like reading): a due dedicated job is
    /// moved to the head of the batch queue, one at a time (the next due
    /// one moves once the moved one has started), where it starts as soon
    /// as it fits the free processors and, while it does not, holds the
    /// batch head's reservation; only the earliest requested start of the
    /// dedicated jobs still waiting (with every dedicated job requested for
    /// that same instant) is protected, and only while it is not yet due.
    /// Algorithm 2's lines 39-41 also move a due job while the machine is
    /// full, in front of a moved job still waiting (Hybrid-LOS does); here
    /// a job moves only when no moved job waits, so moved jobs start in
    /// requested-start order ([`HeadLiteral`](Self::HeadLiteral) follows
    /// those lines).
    Head,
    /// As [`Head`](Self::Head), plus Algorithm 2's lines 39-41 to the
    /// letter (`dedicated=head-literal`): when a call leaves no processor
    /// free, one more due dedicated job is moved, to the head of the batch
    /// queue, in front of the moved ones still waiting ("add w^b to head of
    /// W^b", Algorithm 3), as Hybrid-LOS does. The moved jobs behind the
    /// head are then candidates like batch jobs.
    HeadLiteral,
    /// As [`Head`](Self::Head), but every due dedicated job is moved at
    /// once, in requested-start order, ahead of the batch jobs
    /// (`dedicated=head-all`, not in the paper): the due jobs behind a
    /// moved one that does not fit may be backfilled (EASY-D) or packed
    /// (LOS-D) like batch jobs, and the protected start is the earliest
    /// one not yet due.
    HeadAll,
}

impl DedicatedMode {
    /// Every mode, the default first.
    pub const ALL: [Self; 4] = [Self::Profile, Self::Head, Self::HeadLiteral, Self::HeadAll];

    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Profile => "profile",
            Self::Head => "head",
            Self::HeadLiteral => "head-literal",
            Self::HeadAll => "head-all",
        }
    }

    /// Parses a spec name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|mode| mode.name() == name)
    }
}

impl fmt::Display for DedicatedMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A batch-queue head that does not fit now, reserved in the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Blocked {
    /// The moved dedicated job at this position of the moved list; the
    /// moved jobs after it and the whole batch queue are candidates.
    Moved { position: usize, anchor: Time },
    /// The batch job at this position of the batch queue; the jobs after
    /// it are candidates.
    Batch { position: usize, anchor: Time },
}

impl Blocked {
    fn anchor(self) -> Time {
        match self {
            Self::Moved { anchor, .. } | Self::Batch { anchor, .. } => anchor,
        }
    }
}

/// The dedicated jobs' part of a call, remade at every call: a profile of
/// free processors over time built from the processors free now and the
/// running jobs' expected ends, plus the reservations of the mode.
#[derive(Debug, Default)]
struct Reservations {
    mode: DedicatedMode,
    profile: Profile,
    order: Vec<JobId>,
    wake_requested: Option<Time>,
    /// `head` modes: dedicated jobs moved to the batch head, front first.
    /// They stay in `view.dedicated()` until they start.
    moved: Vec<JobId>,
}

impl Reservations {
    fn new(mode: DedicatedMode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// Resets the profile, then handles the dedicated jobs of the mode:
    /// returns the processors still free now and, in the `head` modes, a
    /// moved dedicated job that does not fit.
    fn plan(&mut self, view: &View<'_>, decisions: &mut Decisions) -> (u32, Option<Blocked>) {
        let now = view.now();
        self.profile.reset(
            now,
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        );
        match self.mode {
            DedicatedMode::Profile => (self.reserve_dedicated(view, decisions), None),
            DedicatedMode::Head | DedicatedMode::HeadLiteral | DedicatedMode::HeadAll => {
                self.move_and_freeze(view, decisions)
            }
        }
    }

    /// `dedicated=profile`: reserves every waiting dedicated job, starts
    /// those due now, and returns the processors still free now.
    ///
    /// Every waiting dedicated job, in arrival order (ties by input order),
    /// reserves its processors for its whole (current) estimate at the
    /// earliest time, not before its requested start nor before now, at
    /// which they are free in the profile, given the reservations made
    /// before it. A reservation at now starts the job: a due dedicated job
    /// starts as soon as it fits.
    ///
    /// Arrival order rather than requested-start order makes a reservation
    /// a promise: a dedicated job submitted later never takes the
    /// processors reserved for one submitted earlier, so with exact
    /// estimates every dedicated job starts exactly at the time reserved
    /// when it arrived — its requested start if the processors were free
    /// then, else the earliest time they were (the delay the paper calls
    /// unavoidable).
    fn reserve_dedicated(&mut self, view: &View<'_>, decisions: &mut Decisions) -> u32 {
        let now = view.now();
        self.order.clear();
        self.order.extend_from_slice(view.dedicated());
        self.order.sort_unstable();
        let mut free = view.free();
        let mut next = None::<Time>;
        for &id in &self.order {
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            let from = view.job(id).requested_start.unwrap_or(now).max(now);
            // Never `None`: the profile ends with the whole machine free.
            let Some(anchor) = self.profile.earliest_start_from(from, size, estimate) else {
                continue;
            };
            self.profile.reserve(anchor, anchor + estimate, size);
            if anchor == now {
                decisions.start(id);
                free -= size;
            } else {
                next = Some(next.map_or(anchor, |t: Time| t.min(anchor)));
            }
        }
        // Reservation times are requested starts (the simulator wakes the
        // policy then) or expected ends; waking at the earliest one as well
        // keeps "starts as soon as it fits" true whatever the estimates do.
        if let Some(at) = next
            && self.wake_requested != Some(at)
        {
            decisions.wake_at(at);
            self.wake_requested = Some(at);
        }
        free
    }

    /// `dedicated=head` and `head-all` (Algorithms 2 and 3 around EASY or
    /// LOS): moves due dedicated jobs to the batch head and starts them
    /// while they fit; reserves the first that does not at the earliest
    /// time it fits; then freezes the earliest requested start of the
    /// dedicated jobs still waiting, if it is not due.
    fn move_and_freeze(
        &mut self,
        view: &View<'_>,
        decisions: &mut Decisions,
    ) -> (u32, Option<Blocked>) {
        let now = view.now();
        let dedicated = view.dedicated();
        let waiting = |id: JobId| {
            let key = (requested_start(view, id), id);
            dedicated
                .binary_search_by(|&other| (requested_start(view, other), other).cmp(&key))
                .is_ok()
        };
        // Moved jobs that have started are gone from W^d.
        self.moved.retain(|&id| waiting(id));
        // W^d: the waiting dedicated jobs not moved, by requested start
        // (the simulator's order; ties by arrival).
        self.order.clear();
        self.order.extend(
            dedicated
                .iter()
                .copied()
                .filter(|id| !self.moved.contains(id)),
        );
        let mut next_unmoved = 0;
        if self.mode == DedicatedMode::HeadAll {
            // Every due job, in requested-start order.
            while let Some(&id) = self.order.get(next_unmoved)
                && requested_start(view, id) <= now
            {
                self.moved.push(id);
                next_unmoved += 1;
            }
        }
        let mut free = view.free();
        let mut blocked = None;
        let mut position = 0;
        loop {
            if position == self.moved.len() {
                // `head`: the next due job moves once the moved ones have
                // started (Algorithm 2 lines 6-7, one move per cycle).
                match self.order.get(next_unmoved) {
                    Some(&id)
                        if self.mode != DedicatedMode::HeadAll
                            && requested_start(view, id) <= now =>
                    {
                        self.moved.push(id);
                        next_unmoved += 1;
                    }
                    _ => break,
                }
            }
            let id = self.moved[position];
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if size <= free {
                // A moved job has scount = C_s: it starts as soon as it
                // fits (lines 35-37), whatever a later freeze asks.
                self.profile.reserve(now, now + estimate, size);
                decisions.start(id);
                free -= size;
                position += 1;
                continue;
            }
            // It holds the batch head's reservation (our reading of lines
            // 35-37 for a head that does not fit, as Hybrid-LOS's).
            if let Some(anchor) = self.profile.earliest_start(size, estimate) {
                self.profile.reserve(anchor, anchor + estimate, size);
                blocked = Some(Blocked::Moved { position, anchor });
            }
            break;
        }
        // Started moved jobs leave the list; a blocked one is now its front.
        self.moved.drain(..position);
        if let Some(Blocked::Moved { anchor, .. }) = blocked {
            blocked = Some(Blocked::Moved {
                position: 0,
                anchor,
            });
        }
        self.freeze(view, next_unmoved);
        (free, blocked)
    }

    /// Algorithm 2 lines 8-30: if the first dedicated job still in W^d is
    /// not due, the dedicated jobs requested for that same instant are
    /// reserved together at the earliest time not before it at which all
    /// of them fit (their requested start when "there is enough capacity
    /// for all", lines 16-22; else when the running jobs leave it, lines
    /// 24-26), each for its own estimate. Batch jobs are then placed around
    /// that reservation only.
    fn freeze(&mut self, view: &View<'_>, first: usize) {
        let now = view.now();
        let Some(&head) = self.order.get(first) else {
            return;
        };
        let start = requested_start(view, head);
        if start <= now {
            // Lines 6-7 apply to a due job, not the freeze.
            return;
        }
        let group = self.order[first..]
            .iter()
            .copied()
            .take_while(|&id| requested_start(view, id) == start);
        let (total, longest) = group.clone().fold((0u32, 0), |(total, longest), id| {
            (
                total.saturating_add(view.job(id).size),
                longest.max(view.estimate(id)),
            )
        });
        match self.profile.earliest_start_from(start, total, longest) {
            Some(anchor) => {
                for id in group {
                    let estimate = view.estimate(id);
                    self.profile
                        .reserve(anchor, anchor + estimate, view.job(id).size);
                }
            }
            None => {
                // Together they need more than the machine: each is
                // reserved on its own, in order.
                let ids: Vec<JobId> = group.collect();
                for id in ids {
                    let (size, estimate) = (view.job(id).size, view.estimate(id));
                    if let Some(anchor) = self.profile.earliest_start_from(start, size, estimate) {
                        self.profile.reserve(anchor, anchor + estimate, size);
                    }
                }
            }
        }
    }

    /// `dedicated=head-literal`, at the end of a call that leaves `free`
    /// processors: with none free, Algorithm 2's lines 39-41 move the first
    /// due dedicated job still in W^d to the head of the batch queue, in
    /// front of the moved ones (one move per call, a call being a cycle).
    fn after_starts(&mut self, view: &View<'_>, free: u32) {
        if self.mode != DedicatedMode::HeadLiteral || free > 0 {
            return;
        }
        let now = view.now();
        let moved = &self.moved;
        let next = view
            .dedicated()
            .iter()
            .copied()
            .find(|id| !moved.contains(id))
            .filter(|&id| requested_start(view, id) <= now);
        if let Some(id) = next {
            self.moved.insert(0, id);
        }
    }

    /// [`plan`](Self::plan), then, unless a moved dedicated job is blocked,
    /// [`start_heads`](Self::start_heads): the processors free now and the
    /// job that blocks the queue, or `Err(free)` when nothing does (no
    /// backfilling to do).
    fn plan_and_start_heads(
        &mut self,
        view: &View<'_>,
        decisions: &mut Decisions,
    ) -> Result<(u32, Blocked), u32> {
        let (mut free, blocked) = self.plan(view, decisions);
        match blocked.or_else(|| self.start_heads(view, &mut free, decisions)) {
            Some(blocked) => Ok((free, blocked)),
            None => Err(free),
        }
    }

    /// Starts batch queue heads while they fit the profile for their whole
    /// estimate now; returns the first one that does not, with its anchor
    /// (reserved in the profile).
    fn start_heads(
        &mut self,
        view: &View<'_>,
        free: &mut u32,
        decisions: &mut Decisions,
    ) -> Option<Blocked> {
        let now = view.now();
        let queue = view.queue();
        for (position, &id) in queue.iter().enumerate() {
            if *free == 0 {
                return None;
            }
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            let anchor = self.profile.earliest_start(size, estimate)?;
            self.profile.reserve(anchor, anchor + estimate, size);
            if anchor != now {
                return Some(Blocked::Batch { position, anchor });
            }
            decisions.start(id);
            *free -= size;
        }
        None
    }

    /// The moved jobs behind a blocked moved job (`head-all` only), which
    /// come before the batch queue among the candidates.
    fn moved_candidates(&self, blocked: Blocked) -> &[JobId] {
        match blocked {
            Blocked::Moved { position, .. } => &self.moved[position + 1..],
            Blocked::Batch { .. } => &[],
        }
    }

    /// The first batch job that may be a candidate.
    fn first_batch_candidate(view: &View<'_>, blocked: Blocked) -> Option<JobId> {
        match blocked {
            Blocked::Moved { .. } => view.queue().first().copied(),
            Blocked::Batch { position, .. } => Some(JobId(view.queue()[position].0 + 1)),
        }
    }
}

/// A dedicated job's requested start (dedicated jobs always have one).
fn requested_start(view: &View<'_>, id: JobId) -> Time {
    view.job(id).requested_start.unwrap_or(Time::MIN)
}

/// `base` (`easy-d`, `los-d`, ...) with `dedicated=MODE` added to its
/// options when the mode is not the default.
fn with_mode(base: String, mode: DedicatedMode) -> String {
    if mode == DedicatedMode::default() {
        return base;
    }
    let separator = if base.contains(':') { ',' } else { ':' };
    format!("{base}{separator}dedicated={}", mode.name())
}

/// EASY-D (`easy-d`, `easy-de`): EASY backfilling around dedicated jobs.
///
/// With `dedicated=profile` (the default, [`DedicatedMode::Profile`]):
/// 1. The dedicated jobs' reservations are made (see below) and those due
///    now that fit start.
/// 2. Batch jobs, in arrival order, start while they fit the profile for
///    their whole estimate from now (with no dedicated job this is "while
///    they fit the free processors").
/// 3. The first batch job that does not reserves its processors at the
///    earliest time they are free in the profile for its whole estimate
///    (EASY's shadow time when no dedicated job waits).
/// 4. Every later batch job starts if it fits the profile (now, for its
///    whole estimate) with these reservations in place; each start is added
///    to the profile.
///
/// So no batch job ever overlaps a dedicated job's reservation or the
/// blocked head's. Without dedicated jobs the schedule equals EASY's (the
/// tests check it).
///
/// Dedicated reservations: a profile of free processors is built from the
/// running jobs' expected ends; each waiting dedicated job in arrival order
/// reserves its processors for its estimate at the earliest time not before
/// max(requested start, now) at which they are free, given the earlier
/// reservations; a reservation at now starts the job. Arrival order makes
/// reservations promises: with exact estimates a dedicated job starts
/// exactly at the time reserved when it arrived, which is its requested
/// start whenever the processors are free then.
///
/// With `dedicated=head`, `head-literal` or `head-all` (Kumar et al.'s
/// Algorithms 2 and 3 around EASY; [`DedicatedMode::Head`]):
/// 1. "If the first dedicated job's requested start time has reached, it is
///    moved to the head of batch queue" (Algorithm 3). A moved job starts
///    as soon as it fits the free processors (its `scount` is C_s, lines
///    35-37); `head` then moves the next due one, `head-all` has moved
///    every due one at once; `head-literal` also moves one more when a
///    call ends with no processor free (lines 39-41), in front. The first moved job that does not fit is the
///    blocked head: it reserves its processors at the earliest time they
///    are free.
/// 2. If the first dedicated job left in the dedicated queue is not due,
///    the dedicated jobs requested for its start are reserved there, or
///    where they first fit after it (the freeze of lines 8-30). No other
///    dedicated job is protected.
/// 3. With no blocked moved job, steps 2-4 above run on the batch queue
///    with this profile; otherwise the moved jobs behind the blocked one
///    (`head-all`) and then every batch job are backfilled: each starts if
///    it fits the profile now for its whole estimate.
///
/// The profile is the one of the freeze: a job that ends exactly at the
/// freeze end time is free then (the paper's strict `t + dur < fret_d`
/// counts it as running; here the freeze is a reservation). A dedicated
/// job later than the first may find its processors taken, and a moved job
/// that does not fit holds the head; both delays are the paper's design.
#[derive(Debug)]
pub struct EasyD {
    name: String,
    elastic: bool,
    reservations: Reservations,
}

impl EasyD {
    /// EASY-D, or EASY-DE with the ECC processor (`elastic`), with the
    /// default `dedicated=profile`.
    pub fn new(elastic: bool) -> Self {
        Self {
            name: if elastic { "easy-de" } else { "easy-d" }.to_owned(),
            elastic,
            reservations: Reservations::default(),
        }
    }

    /// The same policy with dedicated-job mechanism `mode`.
    #[must_use]
    pub fn with_dedicated(self, mode: DedicatedMode) -> Self {
        let base = if self.elastic { "easy-de" } else { "easy-d" };
        Self {
            name: with_mode(base.to_owned(), mode),
            reservations: Reservations::new(mode),
            ..self
        }
    }

    /// The dedicated-job mechanism.
    pub fn dedicated(&self) -> DedicatedMode {
        self.reservations.mode
    }
}

impl Policy for EasyD {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> Capabilities {
        let mut capabilities = Capabilities::default().with_dedicated_jobs();
        capabilities.elastic_commands = self.elastic;
        capabilities
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let free = self.backfill(view, decisions);
        self.reservations.after_starts(view, free);
    }
}

impl EasyD {
    /// One call of EASY-D; returns the processors left free.
    fn backfill(&mut self, view: &View<'_>, decisions: &mut Decisions) -> u32 {
        let now = view.now();
        let reservations = &mut self.reservations;
        let (mut free, blocked) = match reservations.plan_and_start_heads(view, decisions) {
            Ok(planned) => planned,
            Err(free) => return free,
        };
        let moved = reservations.moved_candidates(blocked).len();
        for index in reservations.moved.len() - moved..reservations.moved.len() {
            let id = reservations.moved[index];
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if size <= free && reservations.profile.fits(now, size, estimate) {
                reservations.profile.reserve(now, now + estimate, size);
                decisions.start(id);
                free -= size;
            }
        }
        let Some(mut from) = Reservations::first_batch_candidate(view, blocked) else {
            return free;
        };
        let profile = &mut reservations.profile;
        while free > 0 {
            let Some(id) = view.next_candidate(from, free, Time::MAX, 0) else {
                break;
            };
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if profile.fits(now, size, estimate) {
                profile.reserve(now, now + estimate, size);
                decisions.start(id);
                free -= size;
            }
            from = JobId(id.0 + 1);
        }
        free
    }
}

/// LOS-D (`los-d`, `los-de`): LOS packing batch jobs around dedicated jobs.
///
/// With `dedicated=profile` (the default):
/// 1. The dedicated jobs' reservations are made as for [`EasyD`] and those
///    due now that fit start.
/// 2. Batch heads start while they fit the profile for their whole estimate.
/// 3. The first batch job that does not reserves its processors at the
///    earliest time they are free in the profile for its whole estimate:
///    that is the shadow time; the processors still free in the profile at
///    that instant are the extra processors.
/// 4. The window is LOS's: the next `lookahead` waiting jobs that fit the
///    free processors. Each job's shadow size is 0 if `t + estimate <=
///    shadow` and its size otherwise. Jobs of the window that do not fit
///    the profile on their own (they would overlap a reservation) are not
///    offered to the DP.
/// 5. Reservation_DP (or Basic_DP for the `basic` variant, with the merit
///    and traceback options of LOS) selects a set; each selected job is
///    checked against the profile in queue order and starts only if it
///    still fits there for its whole estimate (the DP sees only "now" and
///    "at the shadow time", while a dedicated reservation may lie anywhere).
///
/// So no batch job ever overlaps a dedicated reservation or the blocked
/// head's. Without dedicated jobs every job of step 4 fits on its own
/// exactly when the DP could select it and every DP set passes step 5, so
/// the schedule equals LOS's (the tests check it).
///
/// With `dedicated=head` or `head-all`, steps 1-2 of [`EasyD`]'s `head`
/// mechanism replace step 1: due dedicated jobs are moved to the batch head
/// and start while they fit, the first that does not holds the reservation
/// (its earliest start is the shadow time), and only the earliest requested
/// start not yet due is frozen. The window then holds the moved jobs behind
/// the blocked one (`head-all`) before the batch jobs.
#[derive(Debug)]
pub struct LosD {
    name: String,
    config: LosConfig,
    elastic: bool,
    reservations: Reservations,
    packer: Packer,
}

impl LosD {
    /// LOS-D with these LOS settings, or LOS-DE with the ECC processor
    /// (`elastic`), with the default `dedicated=profile`.
    pub fn new(config: LosConfig, elastic: bool) -> Self {
        Self {
            name: Self::spec(config, elastic, DedicatedMode::default()),
            config,
            elastic,
            reservations: Reservations::default(),
            packer: Packer::default(),
        }
    }

    /// The same policy with dedicated-job mechanism `mode`.
    #[must_use]
    pub fn with_dedicated(self, mode: DedicatedMode) -> Self {
        Self {
            name: Self::spec(self.config, self.elastic, mode),
            reservations: Reservations::new(mode),
            ..self
        }
    }

    fn spec(config: LosConfig, elastic: bool, mode: DedicatedMode) -> String {
        let base = config.to_string();
        let suffix = if elastic { "-de" } else { "-d" };
        // `los` or `los-basic`, then the options.
        let name = match base.split_once(':') {
            Some((policy, options)) => format!("{policy}{suffix}:{options}"),
            None => format!("{base}{suffix}"),
        };
        with_mode(name, mode)
    }

    /// The LOS settings.
    pub fn config(&self) -> LosConfig {
        self.config
    }

    /// The dedicated-job mechanism.
    pub fn dedicated(&self) -> DedicatedMode {
        self.reservations.mode
    }
}

impl Policy for LosD {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> Capabilities {
        let mut capabilities = Capabilities::default().with_dedicated_jobs();
        capabilities.elastic_commands = self.elastic;
        capabilities
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let free = self.pack(view, decisions);
        self.reservations.after_starts(view, free);
    }
}

impl LosD {
    /// One call of LOS-D; returns the processors left free.
    fn pack(&mut self, view: &View<'_>, decisions: &mut Decisions) -> u32 {
        let now = view.now();
        let reservations = &mut self.reservations;
        let (mut free, blocked) = match reservations.plan_and_start_heads(view, decisions) {
            Ok(planned) => planned,
            Err(free) => return free,
        };
        let shadow = blocked.anchor();
        let profile = &reservations.profile;
        let extra = profile.free_at(shadow);
        self.packer.clear();
        let mut window = 0;
        for &id in reservations.moved_candidates(blocked) {
            if window == self.config.lookahead {
                break;
            }
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if size > free {
                continue;
            }
            window += 1;
            if profile.fits(now, size, estimate) {
                let ends_by_shadow = now + estimate <= shadow;
                self.packer
                    .push(view, id, ends_by_shadow, self.config.merit);
            }
        }
        if let Some(mut from) = Reservations::first_batch_candidate(view, blocked) {
            while window < self.config.lookahead {
                let Some(id) = view.next_candidate(from, free, Time::MAX, 0) else {
                    break;
                };
                from = JobId(id.0 + 1);
                window += 1;
                let (size, estimate) = (view.job(id).size, view.estimate(id));
                if !profile.fits(now, size, estimate) {
                    continue;
                }
                let ends_by_shadow = now + estimate <= shadow;
                self.packer
                    .push(view, id, ends_by_shadow, self.config.merit);
            }
        }
        let dp = match self.config.variant {
            LosVariant::Reservation => Dp::Reservation { extra },
            LosVariant::Basic => Dp::BasicEndingByFreeze,
        };
        let selected = match self
            .packer
            .solve(dp, free, self.config.merit, self.config.traceback)
        {
            Ok(selected) => selected,
            Err(error) => {
                decisions.fail(format!(
                    "{}: the LOS dynamic programme failed: {error}",
                    self.name
                ));
                return free;
            }
        };
        let profile = &mut reservations.profile;
        for &id in selected {
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if profile.fits(now, size, estimate) {
                profile.reserve(now, now + estimate, size);
                decisions.start(id);
                free -= size;
            }
        }
        free
    }
}

use std::fmt;

use serde::{Deserialize, Serialize};

use schedsim_sim_core::{Decisions, JobId, Policy, Time, View};

use crate::conservative::Conservative;
use crate::order::{QueueOrder, SortedQueue};
use crate::profile::Profile;
use crate::shadow::{Shadow, Starts};
use crate::slurm::{Multifactor, MultifactorConfig};

/// How many waiting jobs hold a reservation (Maui's RESERVATIONDEPTH).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Depth {
    /// The first `k` jobs in queue order that cannot start get a
    /// reservation; other jobs may start only if they delay none of them.
    /// `0` means no backfilling at all: the scan stops at the first job that
    /// does not fit. `1` is EASY.
    Jobs(u32),
    /// Every waiting job holds a reservation: conservative backfilling.
    All,
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Jobs(k) => write!(f, "{k}"),
            Self::All => f.write_str("all"),
        }
    }
}

/// Backfilling with a queue order and a reservation depth: FCFS (depth 0),
/// EASY (depth 1), depth-k, and conservative (depth all) are one mechanism.
///
/// At every call the waiting jobs are taken in [`QueueOrder`]:
/// - **Depth 0** starts jobs while they fit and stops at the first one that
///   does not: plain FCFS (or SJF, LJF... without backfilling).
/// - **Depth 1 (EASY)** follows appendix A.1 of the LOS thesis: jobs start
///   while they fit; for the first one that does not, the shadow time and
///   extra processors are computed from the running jobs (including those
///   started in this call) ordered by expected end ([`crate::shadow`]); every
///   later job in queue order starts if it fits in the free processors and
///   either ends by the shadow time or fits in the extra processors (which
///   it then uses up). Recomputing shadow and extra after each backfilled
///   job, as A.1 does, gives the same result as this single pass: a job
///   that ends by the shadow time changes neither, and one that does not
///   only lowers the extra processors by its size.
/// - **Depth k** keeps a profile of future free processors (the running
///   jobs' expected ends). Each job in queue order is placed at its earliest
///   anchor (appendix A.2, step 1); it starts if that is now; otherwise the
///   first `k` such jobs reserve their anchor in the profile and the rest are
///   skipped. Reservations are recomputed at every call (Maui's
///   CURRENTHIGHEST), so for FCFS order depth 1 here equals EASY.
/// - **Depth all (conservative)** follows appendix A.2: every job gets a
///   reservation at its anchor when it arrives, and keeps it. When a job
///   ends before its expected end, the schedule is *compressed*: the
///   reserved jobs are taken in queue order and each one is removed from the
///   profile and placed again at its earliest anchor, with all other
///   reservations in place. Its old slot is still free, so it never moves
///   later. Jobs whose reservation time has come start, and the policy asks
///   to be woken at the next reservation time. A job that runs past
///   its estimate (possible only when jobs are not killed at their
///   estimate) can make a reservation infeasible; such a job is placed again
///   like a new arrival, the only case in which a reservation moves later.
///   The engine expects a job past its estimate to end a second from now,
///   so a waiting job reserved then wakes the policy every second while
///   the overrun lasts: a call per second of overrun.
#[derive(Debug, Clone)]
pub struct Backfill {
    name: String,
    order: QueueOrder,
    depth: Depth,
    engine: Engine,
    ordered: Vec<JobId>,
    /// Static orders (sjf, ssf, ljf, saf), kept sorted across calls.
    sorted: SortedQueue,
    /// Jobs started in this call.
    started: Starts,
    profile: Profile,
    /// Depth 1 and k: the reservations made in the last call. Empty at
    /// depth 0, which never reserves.
    reservations: Vec<Option<Time>>,
    reserved_last_call: Vec<JobId>,
    /// Order `multifactor`: the priority engine.
    multifactor: Option<Box<Multifactor>>,
    /// Order `multifactor`: the last recalculation wake-up asked for.
    period_wake: Time,
    /// The jobs started in the last call (they left the sorted queue).
    last_starts: Vec<JobId>,
    /// Depth all: the conservative engine.
    conservative: Option<Box<Conservative>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    /// Depth 0 and 1: a scan of the queue and at most one shadow time.
    Scan,
    /// Depth k >= 2, or any depth when forced for testing: a profile.
    Profile,
    /// Depth all: persistent reservations in a profile.
    Conservative,
}

impl Backfill {
    /// A backfilling policy with the given order and depth. Its name is the
    /// canonical spec, e.g. `easy`, `conservative:order=sjf`,
    /// `backfill:depth=3`.
    pub fn new(order: QueueOrder, depth: Depth) -> Self {
        let engine = match depth {
            Depth::Jobs(0 | 1) => Engine::Scan,
            Depth::Jobs(_) => Engine::Profile,
            Depth::All => Engine::Conservative,
        };
        let base = match depth {
            Depth::Jobs(0) => "fcfs".to_owned(),
            Depth::Jobs(1) => "easy".to_owned(),
            Depth::All => "conservative".to_owned(),
            Depth::Jobs(k) => format!("backfill:depth={k}"),
        };
        let name = match (order, base.contains(':')) {
            (QueueOrder::Fcfs, _) => base,
            (order, true) => format!("{base},order={}", order.name()),
            (order, false) => format!("{base}:order={}", order.name()),
        };
        Self {
            name,
            order,
            depth,
            engine,
            ordered: Vec::new(),
            sorted: SortedQueue::default(),
            started: Starts::default(),
            profile: Profile::default(),
            reservations: Vec::new(),
            reserved_last_call: Vec::new(),
            multifactor: (order == QueueOrder::Multifactor)
                .then(|| Box::new(Multifactor::new(MultifactorConfig::default()))),
            period_wake: Time::MIN,
            last_starts: Vec::new(),
            conservative: (engine == Engine::Conservative)
                .then(|| Box::new(Conservative::new(order))),
        }
    }

    /// The same policy ordering the queue by Slurm's multifactor priority
    /// with this configuration (order `multifactor`), re-sorted every
    /// PriorityCalcPeriod; the policy asks to be called at each period
    /// while jobs wait and their priorities change with time. Meant for
    /// FCFS, EASY and depth-k: conservative backfilling keeps reservations
    /// made under older priorities.
    #[must_use]
    pub fn with_multifactor(self, config: MultifactorConfig) -> Self {
        let mut policy = if self.order == QueueOrder::Multifactor {
            self
        } else {
            Self::new(QueueOrder::Multifactor, self.depth)
        };
        policy.multifactor = Some(Box::new(Multifactor::new(config)));
        policy
    }

    /// The same policy under another name (a spec naming its
    /// configuration files, so that two configurations compare apart).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The multifactor priority engine (order `multifactor`).
    pub fn multifactor(&self) -> Option<&Multifactor> {
        self.multifactor.as_deref()
    }

    /// FCFS: arrival order, no backfilling.
    pub fn fcfs() -> Self {
        Self::new(QueueOrder::Fcfs, Depth::Jobs(0))
    }

    /// EASY backfilling: arrival order, one reservation.
    pub fn easy() -> Self {
        Self::new(QueueOrder::Fcfs, Depth::Jobs(1))
    }

    /// Conservative backfilling: arrival order, a reservation for every job.
    pub fn conservative() -> Self {
        Self::new(QueueOrder::Fcfs, Depth::All)
    }

    /// The same policy computed with the general profile mechanism instead
    /// of the EASY scan. Slower; the two must give identical schedules,
    /// which the tests check.
    #[doc(hidden)]
    pub fn with_profile_engine(mut self) -> Self {
        if self.engine == Engine::Scan && self.depth != Depth::Jobs(0) {
            self.engine = Engine::Profile;
        }
        self
    }

    /// Conservative backfilling that examines every waiting job at each
    /// compression instead of deciding a run of like jobs (a job array) by
    /// its first one. Slower; the two must give identical schedules, which
    /// the tests check.
    #[doc(hidden)]
    pub fn without_job_arrays(mut self) -> Self {
        if let Some(conservative) = &mut self.conservative {
            conservative.without_job_arrays();
        }
        self
    }

    /// Conservative backfilling that lays its profile out again in time
    /// order as soon as a few steps have come and gone, instead of when
    /// it pays on large workloads. The schedules must be identical, which
    /// the tests check.
    #[doc(hidden)]
    pub fn with_frequent_relayouts(mut self) -> Self {
        if let Some(conservative) = &mut self.conservative {
            conservative.frequent_relayouts();
        }
        self
    }

    /// The queue order.
    pub fn order(&self) -> QueueOrder {
        self.order
    }

    /// The reservation depth.
    pub fn depth(&self) -> Depth {
        self.depth
    }

    /// The start time reserved for a waiting job after the last call, if it
    /// holds a reservation (for EASY: the shadow time of the blocked job).
    pub fn reservation(&self, id: JobId) -> Option<Time> {
        match &self.conservative {
            Some(conservative) => conservative.reservation(id),
            None => self.reservations.get(id.index()).copied().flatten(),
        }
    }

    fn clear_call_reservations(&mut self) {
        for id in self.reserved_last_call.drain(..) {
            self.reservations[id.index()] = None;
        }
    }

    fn reserve_for_call(&mut self, id: JobId, at: Time) {
        self.reservations[id.index()] = Some(at);
        self.reserved_last_call.push(id);
    }

    /// Depth 0 and 1 (appendix A.1).
    fn schedule_scan(&mut self, view: &View<'_>, queue: &[JobId], decisions: &mut Decisions) {
        let mut free = view.free();
        let position = self.started.start_heads(view, queue, &mut free, decisions);
        if position == queue.len() || free == 0 || self.depth == Depth::Jobs(0) {
            return;
        }
        let head = queue[position];
        // The head never fits only if it is larger than the machine, which
        // the job model rules out.
        let Some(mut reservation) = self.started.shadow(view, free, view.job(head).size) else {
            return;
        };
        self.reserve_for_call(head, reservation.time);
        if self.order == QueueOrder::Fcfs {
            // Arrival order is id order: jump from one job that fits in the
            // free processors to the next instead of visiting every job.
            let mut from = JobId(head.0 + 1);
            while free > 0 {
                let max_estimate = reservation.time - view.now();
                let Some(id) = view.next_candidate(from, free, max_estimate, reservation.extra)
                else {
                    break;
                };
                self.backfill(view, id, &mut free, &mut reservation, decisions);
                from = JobId(id.0 + 1);
            }
        } else {
            let mut index = position + 1;
            while index < queue.len() && free > 0 {
                let id = queue[index];
                let size = view.job(id).size;
                match self.order {
                    // Sorted by estimate: past the first job that does not
                    // end by the shadow time, only the extra processors are
                    // left to use.
                    QueueOrder::ShortestFirst
                        if view.now() + view.estimate(id) > reservation.time
                            && reservation.extra == 0 =>
                    {
                        break;
                    }
                    // Sorted by size: the rest are at least as large.
                    QueueOrder::SmallestFirst if size > free => break,
                    // Sorted by decreasing size: jump to the first that fits.
                    QueueOrder::LargestFirst if size > free => {
                        index += queue[index..].partition_point(|&id| view.job(id).size > free);
                        continue;
                    }
                    _ => {}
                }
                if size <= free {
                    self.backfill(view, id, &mut free, &mut reservation, decisions);
                }
                index += 1;
            }
        }
    }

    /// Starts `id` (which fits in `free`) if it ends by the shadow time or
    /// fits in the extra processors, which it then uses up.
    fn backfill(
        &mut self,
        view: &View<'_>,
        id: JobId,
        free: &mut u32,
        reservation: &mut Shadow,
        decisions: &mut Decisions,
    ) {
        let size = view.job(id).size;
        if view.now() + view.estimate(id) <= reservation.time {
            self.started.start(view, id, decisions);
            *free -= size;
        } else if size <= reservation.extra {
            self.started.start(view, id, decisions);
            *free -= size;
            reservation.extra -= size;
        }
    }

    /// Depth k, recomputed at every call.
    fn schedule_profile(&mut self, view: &View<'_>, queue: &[JobId], decisions: &mut Decisions) {
        let now = view.now();
        let limit = match self.depth {
            Depth::Jobs(k) => k,
            Depth::All => u32::MAX,
        };
        self.profile.reset(
            now,
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        );
        let mut reserved = 0;
        let mut free = view.free();
        let mut position = 0;
        while position < queue.len() {
            let id = queue[position];
            position += 1;
            if free == 0 && reserved == limit {
                return;
            }
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            let Some(anchor) = self.profile.earliest_start(size, estimate) else {
                continue;
            };
            if anchor == now {
                self.profile.reserve(now, now + estimate, size);
                self.started.start(view, id, decisions);
                free -= size;
            } else if reserved < limit {
                self.profile.reserve(anchor, anchor + estimate, size);
                self.reserve_for_call(id, anchor);
                reserved += 1;
                if reserved == limit && self.order == QueueOrder::Fcfs {
                    break;
                }
            }
        }
        if position == queue.len() || self.order != QueueOrder::Fcfs {
            return;
        }
        // Every reservation is made: the rest of the queue can only start
        // now, which needs at most `free` processors. Arrival order is id
        // order, so jump from one such job to the next instead of visiting
        // every job (the same jobs, in the same order, as the loop above).
        let mut from = JobId(queue[position - 1].0 + 1);
        // A job that starts now needs its size free until its estimate
        // ends: all of `free` if it ends by the profile's first drop, at
        // most what is left after the drop if it runs past it. The fit
        // index skips every job that fails both (the exact check below
        // still decides). The drop moves only when a job starts.
        let (mut drop_at, mut after_drop) = self.profile.first_drop();
        while free > 0 {
            let max_estimate = drop_at.saturating_sub(now);
            let Some(id) = view.next_candidate(from, free, max_estimate, after_drop) else {
                break;
            };
            from = JobId(id.0 + 1);
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if self.profile.earliest_start(size, estimate) == Some(now) {
                self.profile.reserve(now, now + estimate, size);
                self.started.start(view, id, decisions);
                free -= size;
                (drop_at, after_drop) = self.profile.first_drop();
            }
        }
    }
}

impl Policy for Backfill {
    fn name(&self) -> &str {
        &self.name
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.conservative
            .as_ref()
            .map_or_else(Vec::new, |conservative| conservative.counters())
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        // Depth 0 (FCFS) never reserves: no per-job table (16 bytes a job;
        // `reservation` answers `None` beyond its end).
        if matches!(self.engine, Engine::Scan | Engine::Profile)
            && self.depth != Depth::Jobs(0)
            && self.reservations.len() < view.jobs().len()
        {
            self.reservations.resize(view.jobs().len(), None);
        }
        // Arrival order needs no copy of the queue.
        let mut ordered = std::mem::take(&mut self.ordered);
        let mut sorted = std::mem::take(&mut self.sorted);
        let queue = if self.order == QueueOrder::Fcfs {
            view.queue()
        } else if let Some(multifactor) = &mut self.multifactor {
            multifactor.advance(view);
            multifactor.arrange(view, &mut ordered);
            &ordered
        } else {
            sorted.arrange(self.order, view, &self.last_starts)
        };
        self.started.clear();
        match self.engine {
            Engine::Scan => {
                self.clear_call_reservations();
                self.schedule_scan(view, queue, decisions);
            }
            Engine::Profile => {
                self.clear_call_reservations();
                self.schedule_profile(view, queue, decisions);
            }
            Engine::Conservative => {
                if let Some(conservative) = &mut self.conservative {
                    conservative.schedule(view, queue, decisions);
                }
            }
        }
        if let Some(multifactor) = &mut self.multifactor {
            multifactor.note_starts(view, decisions.starts());
            if multifactor.time_dependent() && decisions.starts().len() < queue.len() {
                let wake = multifactor.next_period(view.now());
                if wake != self.period_wake {
                    decisions.wake_at(wake);
                    self.period_wake = wake;
                }
            }
        }
        self.ordered = ordered;
        self.sorted = sorted;
        self.last_starts.clear();
        self.last_starts.extend_from_slice(decisions.starts());
    }
}

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

use serde::{Deserialize, Serialize};

use schedsim_sim_core::{Decisions, JobId, Policy, Time, View};

use crate::order::{QueueOrder, SortedQueue};
use crate::profile::{Profile, RoomBefore};
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
    /// Conservative: the reserved start of each waiting job, by job id.
    /// Depth 1 and k: the reservations made in the last call. Empty at
    /// depth 0, which never reserves.
    reservations: Vec<Option<Time>>,
    reserved_last_call: Vec<JobId>,
    /// Conservative: the last wake-up time asked for, to ask only once.
    wake_requested: Time,
    /// Order `multifactor`: the priority engine.
    multifactor: Option<Box<Multifactor>>,
    /// Order `multifactor`: the last recalculation wake-up asked for.
    period_wake: Time,
    /// Conservative: what lets the profile follow the events.
    conservative: ConservativeState,
    /// Conservative: how much work compression did.
    conservative_counters: ConservativeCounters,
    /// The jobs started in the last call (they left the sorted queue).
    last_starts: Vec<JobId>,
    /// Conservative: full windows found since compression last moved a job.
    windows: WindowMemo,
    /// Conservative (static orders): the reservations by time.
    by_time: ReservationTimes,
    /// Conservative, arrival order: job arrays. For the first job of a
    /// run of consecutive waiting jobs with one reservation time, size and
    /// estimate, the last job of the run (every other job: itself).
    /// Compression decides a run by its first job when that one stays: the
    /// others ask the same question of the same profile.
    run_end: Vec<JobId>,
    /// The first job of the last run (where an arrival may join).
    last_run: Option<JobId>,
    /// Whether compression decides runs by their first job (the tests
    /// compare with deciding every job).
    job_arrays: bool,
    /// Conservative: waiting jobs that no anchor fitted.
    unplaced: Vec<JobId>,
    /// Conservative: buffers for the jobs placed and started in a call.
    placing: Vec<JobId>,
    starting: Vec<JobId>,
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
            wake_requested: Time::MIN,
            multifactor: (order == QueueOrder::Multifactor)
                .then(|| Box::new(Multifactor::new(MultifactorConfig::default()))),
            period_wake: Time::MIN,
            conservative: ConservativeState::default(),
            conservative_counters: ConservativeCounters::default(),
            last_starts: Vec::new(),
            windows: WindowMemo::default(),
            by_time: ReservationTimes::default(),
            run_end: Vec::new(),
            last_run: None,
            job_arrays: true,
            unplaced: Vec::new(),
            placing: Vec::new(),
            starting: Vec::new(),
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
        self.job_arrays = false;
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
        self.reservations.get(id.index()).copied().flatten()
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

    /// Depth all: persistent reservations with compression (appendix A.2).
    ///
    /// The profile persists between calls and follows the events: time
    /// moves its start, a job ending before its estimate gives its
    /// processors back from now to its planned end (and triggers a
    /// compression), starts and arrivals change nothing or one reservation.
    /// It is rebuilt from the running jobs and the held reservations (as
    /// the thesis describes each call) only when the events cannot be
    /// followed: the first call, a job running past its estimate, an
    /// elastic command, a reserved job leaving the queue unstarted, or an
    /// empty queue (the simulator does not call an idle policy, so ends go
    /// unseen). In
    /// debug builds every followed profile is checked against a rebuilt one.
    ///
    /// Compression visits the queue in order. A job with room just before
    /// its reservation slides back: every anchor in the run of room that
    /// ends at its reservation fits it (its own slot covers the rest of its
    /// window), so it goes to the run's start or to an earlier whole window
    /// ([`Profile::room_since`]). Any other job moves to the earliest whole
    /// window before its reservation, if there is one. Whole windows depend
    /// only on the profile, the job's size and its estimate: [`WindowMemo`]
    /// keeps what the searches found by shape, across moves (a move can
    /// only open windows that reach where it gave processors back), and a
    /// search resumes where the last one of its shape, or of a smaller
    /// shape, stopped. Job arrays of one shape cost one search, and the
    /// room before a reservation time is looked up once between moves.
    /// As no window reaches a reservation time without room just before
    /// it, a search first measures the runs of room backwards from the
    /// step already found there, and searches forward only when one is
    /// long enough ([`Profile::earliest_full_start_below`]).
    /// In arrival order, a run of consecutive jobs with one reservation
    /// time, size and estimate (a job array, gathered by compression or
    /// placed together) is decided by its first job. When that one stays,
    /// the others would ask the same question of the same profile
    /// (`compression_skips` counts them; on full RICC they are 601 M of
    /// 743 M). When it moves, the next jobs of the run follow it as far as
    /// the fewest processors free over the part of its new window before
    /// the old reservation allow, in one profile change
    /// (`compression_moves_together`; 19.7 M of RICC's 57.0 M moves): a
    /// follower asks only about times before the reservation, where the
    /// moves so far took processors and gave none back, so an anchor that
    /// was no window for the first job is none for it, and the first
    /// job's anchor stays one while that many processors are left.
    /// The profile keeps its steps in chunks of at most 32, held inline,
    /// with their least and most free processors: a search skips chunks
    /// without room, and a move changes only the steps between its old and
    /// new slots ([`Profile::shift`]), inserting and removing inside one
    /// chunk. A compression costs a lookup per run of waiting jobs (two
    /// binary searches and the memo), searches for the shapes the moves
    /// disturb, and O(log steps + steps moved over + 32) per run that
    /// moves: still O(queue) per compression, not O((1 + moved) log n).
    /// The counters (`compression_visits`, `compression_searches`,
    /// `compression_moves`) show the three terms. The rest of a call
    /// costs O((arrivals + starts) log queue) under static orders: the
    /// jobs to place are the arrivals, and the jobs due are found by time
    /// ([`ReservationTimes`]).
    fn schedule_conservative(
        &mut self,
        view: &View<'_>,
        queue: &[JobId],
        decisions: &mut Decisions,
    ) {
        let now = view.now();
        // Static orders rank every waiting job, so the jobs to place and to
        // start are found from the events instead of a pass over the queue;
        // multifactor priorities move between calls, and its calls scan.
        let ranked = self.order != QueueOrder::Multifactor;
        let order = self.order;
        let rank = move |id: JobId| (order.key(view, id).unwrap_or(0), id);
        debug_assert!(
            !ranked || queue.windows(2).all(|pair| rank(pair[0]) < rank(pair[1])),
            "conservative: the queue is not in its order's rank"
        );
        let in_queue = |id: &JobId| {
            queue
                .binary_search_by_key(&rank(*id), |&other| rank(other))
                .is_ok()
        };
        // The queue holds the last call's jobs that did not start and this
        // call's arrivals, unless a job left it unstarted (then the profile
        // is rebuilt from the queue).
        let queue_kept = if ranked {
            queue.len()
                == self.conservative.queue_len
                    + view.arrived().iter().filter(|id| in_queue(id)).count()
        } else {
            let held = queue
                .iter()
                .filter(|id| self.reservations[id.index()].is_some())
                .count();
            held == self.conservative.held
        };
        // The running job that ends first is the one past its estimate, if
        // any is: its expected end then moves with every call.
        let overrun = view.running().next().is_some_and(|job| {
            view.started_at(job.id)
                .is_some_and(|start| start + view.estimate(job.id) <= now)
        });
        let follow = self.conservative.followed
            && !overrun
            && queue_kept
            && view.estimate_changes() == self.conservative.estimate_changes;
        let mut compress = false;
        if follow {
            self.profile.advance(now);
            for &id in view.ended() {
                let Some(start) = view.started_at(id) else {
                    continue;
                };
                let planned_end = start + view.estimate(id);
                if now < planned_end {
                    self.profile.release(now, planned_end, view.job(id).size);
                    compress = true;
                }
            }
            #[cfg(debug_assertions)]
            {
                let mut rebuilt = self.profile.clone();
                let compress_rebuilt =
                    Self::rebuild_profile(&mut self.reservations, view, queue, &mut rebuilt);
                assert!(
                    rebuilt == self.profile && compress_rebuilt == compress,
                    "conservative: the followed profile differs from a rebuilt one at {now}: {:?} vs {:?}, compress {compress} vs {compress_rebuilt}",
                    self.profile,
                    rebuilt
                );
            }
        } else {
            self.conservative_counters.rebuilds += 1;
            compress =
                Self::rebuild_profile(&mut self.reservations, view, queue, &mut self.profile);
            // Reservations may have been dropped: runs start over.
            for &id in queue {
                self.run_end[id.index()] = id;
            }
            self.last_run = None;
        }
        let runs = self.order == QueueOrder::Fcfs && self.job_arrays;
        if compress {
            self.conservative_counters.compressions += 1;
            self.windows.clear();
            let mut room_looked_up = None;
            let mut position = 0;
            // The run just decided: its first job and the reservation time,
            // size and estimate its jobs share now.
            let mut previous: Option<(JobId, Time, u32, Time)> = None;
            while position < queue.len() {
                let id = queue[position];
                position += 1;
                let Some(at) = self.reservations[id.index()] else {
                    previous = None;
                    continue;
                };
                self.conservative_counters.visited += 1;
                let (size, estimate) = (view.job(id).size, view.estimate(id));
                // Job arrays reserve many jobs at one time: the room before
                // it is looked up once between two moves.
                let room_before = match room_looked_up {
                    Some((time, room)) if time == at => room,
                    _ => {
                        let room = self.profile.room_before(at);
                        room_looked_up = Some((at, room));
                        room
                    }
                };
                // A job with room just before its reservation slides back
                // to the start of that room, or to an earlier whole window;
                // any other job can only move to a whole window.
                let anchor = if room_before.free >= size {
                    let (room_since, dip) = self.profile.room_since(size, room_before);
                    let window = self.windows.full_start_before(
                        &self.profile,
                        &mut self.conservative_counters.searched,
                        (size, estimate),
                        room_since,
                        dip,
                    );
                    Some(window.unwrap_or(room_since))
                } else {
                    self.windows.full_start_before(
                        &self.profile,
                        &mut self.conservative_counters.searched,
                        (size, estimate),
                        at,
                        room_before,
                    )
                };
                debug_assert_eq!(
                    anchor,
                    self.profile.earliest_start_before(size, estimate, at),
                    "conservative: the shortcut and the search disagree for job {id:?}"
                );
                let run_end = if runs { self.run_end[id.index()] } else { id };
                let mut own_end = run_end;
                if let Some(anchor) = anchor {
                    // The jobs of the run that follow it there, moved at
                    // once: as many as the room over the new window before
                    // the old reservation holds (see this function's docs).
                    let followers = if run_end == id {
                        0
                    } else {
                        let rest = run_rest(&queue[position..], run_end);
                        let room = self.profile.min_free(anchor, (anchor + estimate).min(at));
                        room.checked_div(size)
                            .map_or(rest, |fit| rest.min(fit.saturating_sub(1) as usize))
                    };
                    #[cfg(debug_assertions)]
                    self.check_followers(
                        view,
                        &queue[position..],
                        (id, run_end),
                        at,
                        anchor,
                        followers,
                    );
                    let moving = &queue[position - 1..position + followers];
                    self.conservative_counters.moved += moving.len() as u64;
                    self.conservative_counters.moved_together += followers as u64;
                    // At most `room` processors: no overflow.
                    self.profile
                        .shift(at, anchor, estimate, size * moving.len() as u32);
                    for &job in moving {
                        self.by_time.note(job, anchor, ranked);
                        self.reservations[job.index()] = Some(anchor);
                    }
                    self.windows.moved(at, anchor, estimate);
                    room_looked_up = None;
                    position += followers;
                    let last_moved = queue[position - 1];
                    if run_end != last_moved {
                        // The rest of the run is a run of its own.
                        let next = queue[position];
                        self.run_end[next.index()] = run_end;
                        self.run_end[id.index()] = last_moved;
                        if self.last_run == Some(id) {
                            self.last_run = Some(next);
                        }
                        own_end = last_moved;
                    }
                } else if run_end != id {
                    // The rest of the run stays too: same question, same
                    // profile.
                    let rest = run_rest(&queue[position..], run_end);
                    #[cfg(debug_assertions)]
                    for &other in &queue[position..position + rest] {
                        debug_assert_eq!(
                            (
                                self.reservations[other.index()],
                                view.job(other).size,
                                view.estimate(other)
                            ),
                            (Some(at), size, estimate),
                            "conservative: job {other:?} is not like the first of its run {id:?}"
                        );
                    }
                    self.conservative_counters.skipped += rest as u64;
                    position += rest;
                }
                if runs {
                    // Compression gathers job arrays at one time: a run
                    // like the one before it joins it.
                    let shape = (anchor.unwrap_or(at), size, estimate);
                    match previous {
                        Some((head, time, size, estimate)) if (time, size, estimate) == shape => {
                            self.run_end[head.index()] = own_end;
                            self.run_end[id.index()] = id;
                            if self.last_run == Some(id) {
                                self.last_run = Some(head);
                            }
                        }
                        _ => previous = Some((id, shape.0, shape.1, shape.2)),
                    }
                }
            }
        }
        // New arrivals (and displaced jobs) take the earliest anchor left,
        // in queue order. Following the events, the jobs without a
        // reservation are this call's arrivals and those no anchor fitted
        // last time.
        let mut placing = std::mem::take(&mut self.placing);
        placing.clear();
        if ranked && follow {
            placing.append(&mut self.unplaced);
            placing.extend(view.arrived().iter().copied().filter(in_queue));
            placing.sort_unstable_by_key(|&id| rank(id));
        } else {
            placing.extend(
                queue
                    .iter()
                    .copied()
                    .filter(|id| self.reservations[id.index()].is_none()),
            );
        }
        self.unplaced.clear();
        for &id in &placing {
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if let Some(anchor) = self.profile.earliest_start(size, estimate) {
                self.profile.reserve(anchor, anchor + estimate, size);
                self.by_time.note(id, anchor, ranked);
                self.reservations[id.index()] = Some(anchor);
                if runs {
                    self.join_run(view, queue, id, follow);
                }
            } else {
                self.unplaced.push(id);
            }
        }
        self.placing = placing;
        // Jobs whose reservation time has come start, in queue order.
        let mut starting = std::mem::take(&mut self.starting);
        starting.clear();
        let next_start = if ranked {
            if !follow {
                // Jobs that left the queue unstarted keep their entries:
                // take only the queue's.
                self.by_time.refill(queue, &self.reservations);
            }
            let next = self
                .by_time
                .pop_due(now, &mut self.reservations, &mut starting);
            starting.sort_unstable_by_key(|&id| rank(id));
            next
        } else {
            let mut next = Time::MAX;
            for &id in queue {
                match self.reservations[id.index()] {
                    Some(at) if at == now => starting.push(id),
                    Some(at) => next = next.min(at),
                    None => {}
                }
            }
            next
        };
        for &id in &starting {
            self.reservations[id.index()] = None;
            decisions.start(id);
        }
        // Stale entries past twice the queue: start over (amortized).
        if ranked && self.by_time.len() > 2 * queue.len() + 1024 {
            self.by_time.refill(queue, &self.reservations);
        }
        let waiting = queue.len() - starting.len();
        self.starting = starting;
        // While a job runs past its estimate its expected end moves every
        // call; with no job left waiting the simulator skips the calls (and
        // their ends) until the next arrival: rebuild next time in both
        // cases.
        self.conservative = ConservativeState {
            followed: !overrun && waiting > 0,
            held: waiting - self.unplaced.len(),
            queue_len: waiting,
            estimate_changes: view.estimate_changes(),
        };
        // A reservation is a promise to start at that time. Usually a job
        // ends then anyway, but after a compression a reservation can sit at
        // a time when nothing happens (e.g. the planned end of a job that
        // has since moved earlier): make sure the policy runs then.
        if next_start != Time::MAX && next_start != self.wake_requested {
            decisions.wake_at(next_start);
            self.wake_requested = next_start;
        }
    }

    /// Debug builds: the `followers` jobs after `id` (the first of a run
    /// reserved at `at` that ends with `run_end`, about to move to
    /// `anchor`) would each move to `anchor` when examined one by one, and
    /// the next one of the run would not.
    #[cfg(debug_assertions)]
    fn check_followers(
        &self,
        view: &View<'_>,
        rest: &[JobId],
        (id, run_end): (JobId, JobId),
        at: Time,
        anchor: Time,
        followers: usize,
    ) {
        if run_end == id {
            return;
        }
        let (size, estimate) = (view.job(id).size, view.estimate(id));
        let mut profile = self.profile.clone();
        profile.shift(at, anchor, estimate, size);
        for (index, &other) in rest
            .iter()
            .take_while(|&&other| other <= run_end)
            .enumerate()
        {
            let found = profile.earliest_start_before(size, estimate, at);
            if index == followers {
                assert_ne!(
                    found,
                    Some(anchor),
                    "conservative: job {other:?} follows {id:?}"
                );
                break;
            }
            assert_eq!(
                found,
                Some(anchor),
                "conservative: job {other:?} does not follow {id:?}"
            );
            profile.shift(at, anchor, estimate, size);
        }
    }

    /// Arrival order: `id` was just placed; it joins the last run if it
    /// arrived right after that run's last job with the same reservation
    /// time, size and estimate, or starts a run. Only arrivals (placed
    /// while following the events) join: they come after every waiting
    /// job.
    fn join_run(&mut self, view: &View<'_>, queue: &[JobId], id: JobId, follow: bool) {
        self.run_end[id.index()] = id;
        let joined = follow
            && self.last_run.is_some_and(|head| {
                let last = self.run_end[head.index()];
                let position = queue.partition_point(|&other| other < id);
                position > 0
                    && queue[position - 1] == last
                    && self.reservations[last.index()] == self.reservations[id.index()]
                    && view.job(last).size == view.job(id).size
                    && view.estimate(last) == view.estimate(id)
            });
        match self.last_run {
            Some(head) if joined => self.run_end[head.index()] = id,
            _ => self.last_run = Some(id),
        }
    }

    /// The profile of the thesis's description, built from scratch: the
    /// running jobs' expected ends, then the held reservations in queue
    /// order (a reservation that no longer fits, which only a job running
    /// past its estimate can cause, is dropped and its job placed again).
    /// Returns whether to compress: capacity came back before it was
    /// expected, or a reservation was dropped. (An associated function, so
    /// that the policy's own profile is rebuilt in place, its buffers
    /// reused.)
    fn rebuild_profile(
        reservations: &mut [Option<Time>],
        view: &View<'_>,
        queue: &[JobId],
        profile: &mut Profile,
    ) -> bool {
        let now = view.now();
        profile.reset(
            now,
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        );
        let mut compress = view.ended().iter().any(|&id| {
            view.started_at(id)
                .is_some_and(|start| now < start + view.estimate(id))
        });
        for &id in queue {
            let Some(at) = reservations[id.index()] else {
                continue;
            };
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if profile.fits(at, size, estimate) {
                profile.reserve(at, at + estimate, size);
            } else {
                reservations[id.index()] = None;
                compress = true;
            }
        }
        compress
    }
}

/// How many of `rest` (waiting jobs in arrival order, right after the first
/// job of a run) belong to the run that ends with `run_end`: a galloping
/// search, as runs are short next to the queue.
fn run_rest(rest: &[JobId], run_end: JobId) -> usize {
    let mut bound = 1;
    while bound <= rest.len() && rest[bound - 1] <= run_end {
        bound *= 2;
    }
    let from = bound / 2;
    let to = bound.min(rest.len());
    from + rest[from..to].partition_point(|&other| other <= run_end)
}

/// What compression has learnt of whole windows, by size and estimate:
/// job arrays put many jobs of one shape in a row. The profile changes
/// between questions only by moves, which [`moved`](Self::moved) tells the
/// memo: a move takes processors earlier and gives them back later, so
/// what the memo knows stays true up to where the returned processors could
/// open a new window.
#[derive(Debug, Clone, Default)]
struct WindowMemo {
    entries: [WindowEntry; WINDOW_MEMO_ENTRIES],
    len: usize,
    /// The entry to replace next when all are used.
    next: usize,
}

/// Shapes remembered; past this many, the oldest goes.
const WINDOW_MEMO_ENTRIES: usize = 8;

#[derive(Debug, Clone, Copy, Default)]
struct WindowEntry {
    size: u32,
    duration: Time,
    /// The earliest whole window, if known...
    earliest: Option<Time>,
    /// ... else no whole window starts before this time.
    none_before: Time,
}

impl WindowMemo {
    fn clear(&mut self) {
        self.len = 0;
        self.next = 0;
    }

    /// The earliest anchor before `limit` where `size` processors stay free
    /// for all of `duration`, remembered or searched (counting searches).
    /// A search starts where what is known ends: after the last time known
    /// to start no window of this shape, or of a smaller one (a window for
    /// this shape is one for every smaller size and duration). `before`
    /// is what is free just before `limit`.
    fn full_start_before(
        &mut self,
        profile: &Profile,
        searches: &mut u64,
        (size, duration): (u32, Time),
        limit: Time,
        before: RoomBefore,
    ) -> Option<Time> {
        let entries = &mut self.entries[..self.len];
        if let Some(entry) = entries
            .iter_mut()
            .find(|entry| entry.size == size && entry.duration == duration)
        {
            if let Some(time) = entry.earliest {
                return Some(time).filter(|&time| time < limit);
            }
            if limit <= entry.none_before {
                return None;
            }
            *searches += 1;
            entry.earliest =
                profile.earliest_full_start_below(size, duration, entry.none_before, limit, before);
            entry.none_before = limit;
            return entry.earliest;
        }
        let known = entries
            .iter()
            .filter(|entry| entry.size <= size && entry.duration <= duration)
            .map(|entry| entry.earliest.unwrap_or(entry.none_before))
            .max()
            .unwrap_or(Time::MIN);
        let earliest = if limit <= known {
            None
        } else {
            *searches += 1;
            profile.earliest_full_start_below(size, duration, known, limit, before)
        };
        let entry = WindowEntry {
            size,
            duration,
            earliest,
            none_before: limit.max(known),
        };
        if self.len < WINDOW_MEMO_ENTRIES {
            self.entries[self.len] = entry;
            self.len += 1;
        } else {
            self.entries[self.next] = entry;
            self.next = (self.next + 1) % WINDOW_MEMO_ENTRIES;
        }
        earliest
    }

    /// A job of `size` processors for `duration` moved from `from` to the
    /// earlier `to`: the profile lost processors over
    /// `[to, min(from, to + duration))` and gained them over
    /// `[max(from, to + duration), from + duration)`. Windows that did not
    /// exist can only be new ones that reach into the gain; a window that
    /// overlaps the loss may be gone.
    fn moved(&mut self, from: Time, to: Time, duration: Time) {
        let lost = (to, from.min(to + duration));
        let gained_from = from.max(to + duration);
        for entry in &mut self.entries[..self.len] {
            // New windows of this shape start after this.
            let new_after = gained_from.saturating_sub(entry.duration);
            match entry.earliest {
                Some(time) => {
                    let still_there = time + entry.duration <= lost.0 || time >= lost.1;
                    if still_there && time <= new_after {
                        continue;
                    }
                    entry.earliest = None;
                    entry.none_before = if still_there {
                        new_after + 1
                    } else {
                        time.min(new_after + 1)
                    };
                }
                None => entry.none_before = entry.none_before.min(new_after + 1),
            }
        }
    }
}

/// The reservations of waiting jobs by time, for the jobs due now and the
/// next wake-up without a pass over the queue. Entries are only added: one
/// whose job has since moved or started is stale and dropped when it
/// surfaces (a job's entry is current while its reservation equals it).
#[derive(Debug, Clone, Default)]
struct ReservationTimes {
    heap: BinaryHeap<Reverse<(Time, JobId)>>,
}

impl ReservationTimes {
    /// Records that `id` now holds a reservation at `at` (if `enabled`: the
    /// static orders).
    fn note(&mut self, id: JobId, at: Time, enabled: bool) {
        if enabled {
            self.heap.push(Reverse((at, id)));
        }
    }

    /// Entries, current and stale.
    fn len(&self) -> usize {
        self.heap.len()
    }

    /// Starts over from the reservations of the jobs in `queue`.
    fn refill(&mut self, queue: &[JobId], reservations: &[Option<Time>]) {
        let entries = queue
            .iter()
            .filter_map(|&id| reservations[id.index()].map(|at| Reverse((at, id))));
        self.heap = entries.collect();
    }

    /// Moves the jobs reserved at `now` (none is earlier) into `due`,
    /// clearing their reservations, and returns the next reservation time
    /// (`Time::MAX` if none).
    fn pop_due(
        &mut self,
        now: Time,
        reservations: &mut [Option<Time>],
        due: &mut Vec<JobId>,
    ) -> Time {
        while let Some(&Reverse((at, id))) = self.heap.peek() {
            if reservations[id.index()] != Some(at) {
                self.heap.pop();
                continue;
            }
            if at > now {
                return at;
            }
            debug_assert_eq!(at, now, "conservative: job {id:?} missed its reservation");
            self.heap.pop();
            reservations[id.index()] = None;
            due.push(id);
        }
        Time::MAX
    }
}

/// What conservative backfilling keeps between calls to follow the events
/// in its profile instead of rebuilding it.
#[derive(Debug, Clone, Copy, Default)]
struct ConservativeState {
    /// The profile matches the last call's plan and the next call will see
    /// every end since (false at first, while a job runs past its
    /// estimate, and when no job is left waiting).
    followed: bool,
    /// Reservations held by queued jobs after the last call.
    held: usize,
    /// Jobs left waiting after the last call.
    queue_len: usize,
    /// [`View::estimate_changes`] at the last call.
    estimate_changes: u64,
}

/// Conservative backfilling's work, reported as policy counters: a
/// compression costs a visit per waiting job and a profile update per
/// job that moves (the complexity the docs of `schedule_conservative`
/// state).
#[derive(Debug, Clone, Copy, Default)]
struct ConservativeCounters {
    /// Calls whose profile was built from scratch.
    rebuilds: u64,
    /// Calls that compressed the schedule.
    compressions: u64,
    /// Reservations examined by compressions.
    visited: u64,
    /// Profile searches they made: for a whole window of a shape not seen
    /// since the last move, or for how far a job with room just before its
    /// reservation slides back; the other examinations were answered by an
    /// earlier search since the last move.
    searched: u64,
    /// Reservations moved earlier by compressions.
    moved: u64,
    /// Of those, the jobs of a run moved with its first job.
    moved_together: u64,
    /// Reservations decided with the first job of their run (job arrays)
    /// without being examined.
    skipped: u64,
}

impl Policy for Backfill {
    fn name(&self) -> &str {
        &self.name
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        if self.engine != Engine::Conservative {
            return Vec::new();
        }
        let counters = self.conservative_counters;
        vec![
            ("profile_rebuilds", counters.rebuilds),
            ("compressions", counters.compressions),
            ("compression_visits", counters.visited),
            ("compression_searches", counters.searched),
            ("compression_moves", counters.moved),
            ("compression_moves_together", counters.moved_together),
            ("compression_skips", counters.skipped),
        ]
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        // Depth 0 (FCFS) never reserves: no per-job table (16 bytes a job;
        // `reservation` answers `None` beyond its end).
        if self.depth != Depth::Jobs(0) && self.reservations.len() < view.jobs().len() {
            self.reservations.resize(view.jobs().len(), None);
        }
        if self.engine == Engine::Conservative && self.run_end.len() < view.jobs().len() {
            let known = self.run_end.len();
            self.run_end
                .extend((known..view.jobs().len()).map(|index| JobId(index as u32)));
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
            Engine::Conservative => self.schedule_conservative(view, queue, decisions),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The galloping search counts what a binary search counts.
        #[test]
        fn run_rest_counts_the_run(ids in proptest::collection::btree_set(0u32..400, 0..60), end in 0u32..420) {
            let rest: Vec<JobId> = ids.into_iter().map(JobId).collect();
            let expected = rest.partition_point(|&other| other <= JobId(end));
            prop_assert_eq!(run_rest(&rest, JobId(end)), expected);
        }

        /// The memo answers every sequence of questions as a fresh search
        /// would, shapes repeated, limits rising and falling, more shapes
        /// than it holds, with compression's moves (a reservation to its
        /// earliest anchor before it) between the questions.
        #[test]
        fn window_memo_equals_searching(
            free_now in 0u32..30,
            ends in proptest::collection::vec((1i64..600, 1u32..4), 0..60),
            reservations in proptest::collection::vec((0i64..800, 1i64..60, 1u32..5), 0..80),
            questions in proptest::collection::vec((1u32..8, 1i64..12, 0i64..900, 0usize..60), 1..60),
        ) {
            let (mut profile, mut held) = Profile::with_reservations(free_now, &ends, &reservations);
            let mut memo = WindowMemo::default();
            let mut searches = 0;
            for &(size, shape, limit, pick) in &questions {
                // 11 durations: more shapes than the memo's 8 entries.
                let duration = shape * 10;
                let before = profile.room_before(limit);
                let remembered = memo.full_start_before(&profile, &mut searches, (size, duration), limit, before);
                let searched = profile.earliest_full_start_before(size, duration, limit);
                prop_assert_eq!(remembered, searched);
                // Then the picked reservation moves, if it can.
                if let Some(&(at, length, size)) = held.get(pick)
                    && let Some(anchor) = profile.earliest_start_before(size, length, at)
                {
                    profile.shift(at, anchor, length, size);
                    memo.moved(at, anchor, length);
                    held[pick].0 = anchor;
                }
            }
            prop_assert!(searches <= questions.len() as u64);
        }
    }
}

//! Conservative backfilling's engine (LOS thesis, appendix A.2): every
//! waiting job holds a reservation at its anchor, kept in a profile that
//! follows the events, and the schedule is compressed whenever a job ends
//! before its estimate.
//!
//! Cost of an early end: a walk over the runs of waiting jobs in queue
//! order, O(1) for a run that cannot move; for each run moved, the steps
//! of the profile between its old and new start and end; for each gain
//! (the early end, each move's old slot), per size it raised, the run of
//! room around it and that size's shapes up to the first too long for it;
//! for each search, the block bounds from the shape's floor on. That is
//! O(runs + steps walked) per early end, not O((1 + moved) log n): see
//! docs/RESULTS.md for the counters on RICC, for an index of the runs
//! able to move that was measured and cost more than the walk it saved,
//! and for a workload where the walk is quadratic (`cargo xtask bench`'s
//! `unmovable:JOBS`: each early end moves one job, behind JOBS + 1 runs that
//! cannot).
//! A settled queue is walked less: after a compression that moved nothing
//! (or a call that left no job waiting) no waiting job can move, and an
//! early end can open a window only for the sizes its gains raise (some
//! instant, before a reservation of the size, from fewer free processors
//! than the size to at least it). If they raise none, it costs its gain
//! alone (`compressions_settled`); if their jobs are at most a quarter of
//! the queue, only their runs are looked at until one cannot be passed over
//! in O(1), where the walk starts (`compressions_raised_sizes_only`).

mod floors;
mod sizes;
mod timeline;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use schedsim_sim_core::{Decisions, JobId, JobState, Time, View};

use crate::order::QueueOrder;
use floors::ShapeFloors;
use sizes::BySize;
use timeline::{Step, Timeline};

/// The engine of [`crate::Backfill`] at depth all. See
/// [`schedule`](Self::schedule).
#[derive(Debug, Clone)]
pub(crate) struct Conservative {
    order: QueueOrder,
    /// Whether compression decides runs by their first job (the tests
    /// compare with deciding every job).
    job_arrays: bool,
    timeline: Timeline,
    /// The reserved start of each waiting job, by job id.
    reservations: Vec<Option<Time>>,
    /// Arrival order, job arrays: by job id, for the first job of a run of
    /// consecutive waiting jobs with one reservation time, size and
    /// estimate, the run (every other job: a run of itself, unused).
    /// Compression decides a run by its first job.
    runs: Vec<Run>,
    /// The first job of the last run (where an arrival may join).
    last_run: Option<JobId>,
    /// Per job shape: when no whole window starts before.
    floors: ShapeFloors,
    /// Static orders: the reservations by time.
    by_time: ReservationTimes,
    state: FollowState,
    counters: Counters,
    /// The last wake-up time asked for, to ask only once.
    wake_requested: Time,
    /// Waiting jobs that no anchor fitted.
    unplaced: Vec<JobId>,
    /// The jobs placed with a reservation, by size (those since started
    /// are dropped now and then): what a settled queue's compression
    /// looks at.
    placed_by_size: PlacedBySize,
    /// Buffer for the runs (queue position, first job) a settled
    /// compression looks at.
    candidates: Vec<(usize, JobId)>,
    /// Buffers for the jobs placed and started in a call.
    placing: Vec<JobId>,
    starting: Vec<JobId>,
    /// After a call that left no job waiting, the jobs running: those
    /// done by the next call ended in between, unseen.
    idle_running: Vec<JobId>,
}

/// A run of like jobs, held by its first job.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// The run's last job.
    end: JobId,
    /// The steps of the timeline where the run's reservation starts and
    /// ends, pinned by the run (`None` for a job that leads no run).
    steps: Option<(Step, Step)>,
    /// The jobs' size and estimate ([`ShapeFloors`]).
    shape: u32,
}

/// What conservative backfilling keeps between calls to follow the events
/// in its profile instead of rebuilding it.
#[derive(Debug, Clone, Copy, Default)]
struct FollowState {
    /// The profile matches the last call's plan (false at first and while
    /// a job runs past its estimate).
    followed: bool,
    /// The last call left no job waiting: the simulator skipped the calls
    /// at the ends since, which are found from the jobs running then.
    idle: bool,
    /// Reservations held by queued jobs after the last call.
    held: usize,
    /// Jobs left waiting after the last call.
    queue_len: usize,
    /// [`View::estimate_changes`] at the last call.
    estimate_changes: u64,
    /// No waiting job could move to an earlier anchor after the last
    /// call: its compression moved nothing, or there was none to do.
    settled: bool,
}

/// Conservative backfilling's work, reported as policy counters.
#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    /// Calls whose profile was built from scratch.
    rebuilds: u64,
    /// Calls that compressed the schedule.
    compressions: u64,
    /// Runs of waiting jobs examined by compressions (they could move).
    visited: u64,
    /// Runs found unable to move in O(1): no room just before them, and
    /// reserved too early for a whole window from their shape's floor on.
    clean: u64,
    /// Searches for a whole window.
    searched: u64,
    /// Timelines laid out again in time order.
    relayouts: u64,
    /// Reservations moved earlier by compressions.
    moved: u64,
    /// Of those, the jobs of a run moved with its first job.
    moved_together: u64,
    /// Reservations decided with the first job of their run (job arrays)
    /// without being looked at.
    skipped: u64,
    /// Early ends that needed no compression: nothing could move before
    /// them and their gains raised no instant to a waiting size.
    settled: u64,
    /// Compressions of a settled queue that looked first at the runs of
    /// the sizes raised alone.
    raised_only: u64,
}

impl Conservative {
    pub(crate) fn new(order: QueueOrder) -> Self {
        Self {
            order,
            job_arrays: true,
            timeline: Timeline::default(),
            reservations: Vec::new(),
            runs: Vec::new(),
            last_run: None,
            floors: ShapeFloors::default(),
            by_time: ReservationTimes::default(),
            state: FollowState::default(),
            counters: Counters::default(),
            wake_requested: Time::MIN,
            unplaced: Vec::new(),
            placed_by_size: PlacedBySize::default(),
            candidates: Vec::new(),
            placing: Vec::new(),
            starting: Vec::new(),
            idle_running: Vec::new(),
        }
    }

    /// Decides every job by itself instead of by the first job of its run.
    pub(crate) fn without_job_arrays(&mut self) {
        self.job_arrays = false;
    }

    /// Lays the timeline out again as soon as a few steps have come and
    /// gone (the tests' small timelines would otherwise never be).
    pub(crate) fn frequent_relayouts(&mut self) {
        self.timeline.set_slack(0);
    }

    /// The start reserved for a waiting job.
    pub(crate) fn reservation(&self, id: JobId) -> Option<Time> {
        self.reservations.get(id.index()).copied().flatten()
    }

    /// The counters, named.
    pub(crate) fn counters(&self) -> Vec<(&'static str, u64)> {
        let counters = self.counters;
        vec![
            ("profile_rebuilds", counters.rebuilds),
            ("compressions", counters.compressions),
            ("compression_visits", counters.visited),
            ("compression_clean_skips", counters.clean),
            ("compression_searches", counters.searched),
            ("profile_relayouts", counters.relayouts),
            ("compression_moves", counters.moved),
            ("compression_moves_together", counters.moved_together),
            ("compression_skips", counters.skipped),
            ("compressions_settled", counters.settled),
            ("compressions_raised_sizes_only", counters.raised_only),
        ]
    }

    /// One call, `queue` in the order's rank (see the crate's
    /// [`crate::Backfill`] docs for the algorithm).
    pub(crate) fn schedule(&mut self, view: &View<'_>, queue: &[JobId], decisions: &mut Decisions) {
        let jobs = view.jobs().len();
        if self.reservations.len() < jobs {
            self.reservations.resize(jobs, None);
            let known = self.runs.len();
            self.runs.extend((known..jobs).map(|index| Run {
                end: JobId(index as u32),
                steps: None,
                shape: 0,
            }));
        }
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
                == self.state.queue_len + view.arrived().iter().filter(|id| in_queue(id)).count()
        } else {
            let held = queue
                .iter()
                .filter(|id| self.reservations[id.index()].is_some())
                .count();
            held == self.state.held
        };
        // The running job that ends first is the one past its estimate, if
        // any is: its expected end then moves with every call.
        let overrun = view.running().next().is_some_and(|job| {
            view.started_at(job.id)
                .is_some_and(|start| start + view.estimate(job.id) <= now)
        });
        let follow = self.state.followed
            && !overrun
            && queue_kept
            && view.estimate_changes() == self.state.estimate_changes;
        let mut compress = false;
        self.floors.next_call();
        if follow {
            self.timeline.advance(now);
            let ended = if self.state.idle {
                // Every end since the last call: the jobs running then
                // that are done now.
                self.idle_running
                    .retain(|&id| view.state(id) == JobState::Done);
                &self.idle_running[..]
            } else {
                view.ended()
            };
            for &id in ended {
                let Some(planned_end) = ended_early(view, id) else {
                    continue;
                };
                let floors = &mut self.floors;
                self.timeline
                    .release_until(planned_end, view.job(id).size, |timeline, gain| {
                        floors.gained(timeline, gain);
                    });
                // After a call that left no job waiting no reservation is
                // held, and a rebuild would compress (to no effect) for an
                // end at this call only.
                compress |= !self.state.idle || view.ended().contains(&id);
            }
            #[cfg(debug_assertions)]
            {
                let (rebuilt, compress_rebuilt) = self.rebuilt(view, queue);
                assert!(
                    rebuilt == self.timeline && compress_rebuilt == compress,
                    "conservative: the followed profile differs from a rebuilt one at {now}: {:?} vs {:?}, compress {compress} vs {compress_rebuilt}",
                    self.timeline.merged_steps().collect::<Vec<_>>(),
                    rebuilt.merged_steps().collect::<Vec<_>>()
                );
            }
        } else {
            self.counters.rebuilds += 1;
            compress = self.rebuild(view, queue);
        }
        // Whether a gain of this call raised an instant to a waiting size.
        let raised = !self.floors.raised().is_empty();
        let runs = self.order == QueueOrder::Fcfs && self.job_arrays;
        // After a compression that moved nothing, no waiting job could
        // move: placements and starts only take room. Gains that raised
        // no instant to a waiting size gave no job of a waiting size a
        // window it lacked, so none can move still and the walk over the
        // queue is skipped (O(1) instead of O(runs) for such an end).
        let was_settled = follow && self.state.settled;
        let mut settled = was_settled && !raised;
        if compress {
            // Settled before the gains: until a job moves, only jobs of a
            // size they raised can. When those are few next to the queue,
            // the walk starts at the first of their runs not passed over
            // in O(1), if any.
            let from = if settled {
                self.counters.settled += 1;
                None
            } else if was_settled && ranked && self.settled_candidates(queue, &rank) {
                self.counters.raised_only += 1;
                self.first_candidate_to_examine()
            } else {
                Some(0)
            };
            #[cfg(debug_assertions)]
            self.assert_none_can_move(view, &queue[..from.unwrap_or(queue.len())]);
            if let Some(from) = from {
                let moved = self.counters.moved;
                self.compress(queue, runs, from);
                settled = self.counters.moved == moved;
            } else if !settled {
                // Every run of a raised size was passed over.
                self.counters.compressions += 1;
                settled = true;
            }
        }
        self.place(view, queue, follow, runs, &in_queue, &rank);
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
            self.floors.remove(self.runs[id.index()].shape);
            // Its reservation becomes the running job's: the steps stay,
            // unpinned.
            if let Some((start, end)) = self.steps_of(id) {
                self.runs[id.index()].steps = None;
                self.timeline.unpin(start);
                self.timeline.unpin(end);
            }
            decisions.start(id);
        }
        // Stale entries past twice the queue: start over (amortized).
        if ranked && self.by_time.len() > 2 * queue.len() + 1024 {
            self.by_time.refill(queue, &self.reservations);
        }
        let waiting = queue.len() - starting.len();
        self.starting = starting;
        // While a job runs past its estimate its expected end moves every
        // call: rebuild next time. With no job left waiting the simulator
        // skips the calls (and their ends) until the next arrival: the
        // jobs running now that are gone by then are the ends missed.
        self.idle_running.clear();
        if waiting == 0 {
            self.idle_running.extend(
                view.running()
                    .map(|job| job.id)
                    .chain(self.starting.iter().copied()),
            );
        }
        self.state = FollowState {
            followed: !overrun,
            idle: waiting == 0,
            held: waiting - self.unplaced.len(),
            queue_len: waiting,
            estimate_changes: view.estimate_changes(),
            // With no job waiting there is nothing to move.
            settled: settled || waiting == 0,
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

    /// New arrivals (and displaced jobs) take the earliest anchor left,
    /// in queue order. Following the events, the jobs without a
    /// reservation are this call's arrivals and those no anchor fitted
    /// last time.
    fn place(
        &mut self,
        view: &View<'_>,
        queue: &[JobId],
        follow: bool,
        runs: bool,
        in_queue: &dyn Fn(&JobId) -> bool,
        rank: &dyn Fn(JobId) -> (i128, JobId),
    ) {
        let ranked = self.order != QueueOrder::Multifactor;
        self.relayout_if_scattered(queue);
        self.timeline.tighten();
        let mut placing = std::mem::take(&mut self.placing);
        placing.clear();
        if ranked && follow {
            placing.append(&mut self.unplaced);
            placing.extend(view.arrived().iter().copied().filter(|id| in_queue(id)));
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
            // No window of this shape starts before the floor of a waiting
            // shape no larger and no longer: the search starts there.
            let from = self
                .floors
                .lower_bound(size, estimate)
                .max(self.timeline.start());
            let found =
                self.timeline
                    .earliest_start_from(self.timeline.locate(from), from, size, estimate);
            debug_assert_eq!(
                found.map(|(time, _)| time),
                self.timeline
                    .earliest_start(size, estimate)
                    .map(|(time, _)| time),
                "conservative: job {id:?} placed after its earliest anchor"
            );
            let Some((anchor, holding)) = found else {
                self.unplaced.push(id);
                continue;
            };
            self.reservations[id.index()] = Some(anchor);
            self.by_time.note(id, anchor, ranked);
            let shape = self.floors.shape(size, estimate);
            self.floors.add(shape, anchor);
            self.placed_by_size
                .push(id, size, self.floors.jobs_of(size), &self.reservations);
            // Its earliest whole window: none before it.
            self.floors.searched(shape, anchor);
            // The first job of a run is pinned; one that joins a run adds
            // to its steps.
            let joined = runs && self.join_run(view, queue, id, follow);
            let steps = self
                .timeline
                .reserve(holding, anchor, estimate, size, !joined);
            self.runs[id.index()] = Run {
                end: id,
                steps: (!joined).then_some(steps),
                shape,
            };
        }
        self.placing = placing;
    }

    /// The runs of the sizes this call's gains raised, in queue order, into
    /// `self.candidates`; false (look at every run) when their jobs are
    /// more than a quarter of the queue.
    fn settled_candidates(
        &mut self,
        queue: &[JobId],
        rank: &dyn Fn(JobId) -> (i128, JobId),
    ) -> bool {
        let raised = self.floors.raised();
        let jobs: usize = raised
            .iter()
            .map(|&size| self.floors.jobs_of(size) as usize)
            .sum();
        if jobs.saturating_mul(4) > queue.len() {
            return false;
        }
        self.candidates.clear();
        for &size in raised {
            for &id in self.placed_by_size.of(size) {
                // Only a run's first job holds steps; the rest are decided
                // with it (same size: it is here too).
                if self.reservations[id.index()].is_none() || self.runs[id.index()].steps.is_none()
                {
                    continue;
                }
                if let Ok(position) = queue.binary_search_by_key(&rank(id), |&other| rank(other)) {
                    self.candidates.push((position, id));
                }
            }
        }
        self.candidates.sort_unstable();
        self.candidates.dedup();
        true
    }

    /// Of `self.candidates`, the first run that cannot be passed over in
    /// O(1) (as compression would), counting those passed over.
    fn first_candidate_to_examine(&mut self) -> Option<usize> {
        for &(position, id) in &self.candidates {
            let run = self.runs[id.index()];
            let Some((start, _)) = run.steps else {
                continue;
            };
            if !self.look_at(run.shape, start).stays() {
                return Some(position);
            }
            self.counters.clean += 1;
        }
        None
    }

    /// What compression reads of the run of `shape` reserved from step
    /// `start` to tell in O(1) whether it can move.
    #[inline(always)]
    fn look_at(&self, shape: u32, start: Step) -> RunLook {
        let (size, estimate) = self.floors.size_and_duration(shape);
        // What is free just before the reservation (none at the start).
        let room = self
            .timeline
            .prev(start)
            .map_or(0, |before| self.timeline.free(before));
        RunLook {
            at: self.timeline.time(start),
            size,
            estimate,
            slides: room >= size,
            floor: self.floors.floor(shape),
        }
    }

    /// One compression from queue position `from` on (the runs before it
    /// cannot move): the runs of waiting jobs in queue order, each moved to
    /// its earliest anchor (see [`crate::Backfill`]).
    fn compress(&mut self, queue: &[JobId], runs: bool, from: usize) {
        let ranked = self.order != QueueOrder::Multifactor;
        self.counters.compressions += 1;
        self.relayout_if_scattered(queue);
        self.timeline.tighten();
        let mut position = from;
        // The run just decided: its first job and the reservation time,
        // size and estimate its jobs share now.
        let mut previous: Option<(JobId, Time, u32)> = None;
        while position < queue.len() {
            let id = queue[position];
            position += 1;
            // Every job met holds no reservation or leads a run (the rest
            // of a run is passed over with its first job), whose steps
            // say when it is reserved.
            let run = self.runs[id.index()];
            let Some((start, end)) = run.steps else {
                debug_assert_eq!(self.reservations[id.index()], None);
                previous = None;
                continue;
            };
            let look = self.look_at(run.shape, start);
            let RunLook {
                at,
                size,
                estimate,
                slides,
                floor,
            } = look;
            debug_assert_eq!(self.reservations[id.index()], Some(at));
            let anchor = if look.stays() {
                self.counters.clean += 1;
                debug_assert_eq!(
                    self.earliest_start_before(size, estimate, at),
                    None,
                    "conservative: job {id:?} was skipped but can move"
                );
                None
            } else {
                self.counters.visited += 1;
                // A job with room just before its reservation slides back
                // to the start of that room, or to an earlier whole window;
                // any other job can only move to a whole window. A whole
                // window before a limit ends by it (fewer are free just
                // before the limit, in step `below`).
                let (slide, limit, below) = if slides {
                    let (since, holding, dip) = self.timeline.room_since(start, size);
                    (Some((since, holding)), since, dip)
                } else {
                    (None, at, self.timeline.prev(start))
                };
                let window = match below {
                    Some(below) if look.window_before(limit) => {
                        self.counters.searched += 1;
                        let window = self
                            .timeline
                            .earliest_window_below(below, floor, size, estimate);
                        let limit = window.map_or(limit, |(time, _)| time);
                        self.floors.searched(run.shape, limit);
                        window
                    }
                    _ => None,
                };
                let anchor = window.or(slide);
                debug_assert_eq!(
                    anchor.map(|(time, _)| time),
                    self.earliest_start_before(size, estimate, at),
                    "conservative: the shortcut and the search disagree for job {id:?}"
                );
                anchor
            };
            let run_end = if runs { run.end } else { id };
            let mut own_end = run_end;
            if let Some((anchor, holding)) = anchor {
                // The jobs of the run that follow it there, moved at
                // once: as many as the room over the new window before
                // the old reservation holds (see the docs).
                let rest = if run_end == id {
                    0
                } else {
                    run_rest(&queue[position..], run_end)
                };
                let followers = if rest == 0 {
                    0
                } else {
                    let room = self.timeline.min_free(holding, (anchor + estimate).min(at));
                    room.checked_div(size)
                        .map_or(rest, |fit| rest.min(fit.saturating_sub(1) as usize))
                };
                #[cfg(debug_assertions)]
                self.check_followers((size, estimate), at, anchor, followers, rest > followers);
                let moving = &queue[position - 1..position + followers];
                self.counters.moved += moving.len() as u64;
                self.counters.moved_together += followers as u64;
                let last_moved = queue[position - 1 + followers];
                // The rest of the run, if any, stays: a run of its own,
                // holding the old steps.
                let stays = (run_end != last_moved).then(|| queue[position + followers]);
                // At most `room` processors: no overflow.
                let weight = size * moving.len() as u32;
                let floors = &mut self.floors;
                let steps = self.timeline.shift(
                    (start, end),
                    holding,
                    anchor,
                    weight,
                    stays.is_some(),
                    |timeline, gain| floors.gained(timeline, gain),
                );
                for &job in moving {
                    self.by_time.note(job, anchor, ranked);
                    self.reservations[job.index()] = Some(anchor);
                }
                position += followers;
                self.runs[id.index()].steps = Some(steps);
                if let Some(next) = stays {
                    // To be examined next.
                    self.runs[next.index()] = Run {
                        end: run_end,
                        steps: Some((start, end)),
                        shape: run.shape,
                    };
                    self.runs[id.index()].end = last_moved;
                    if self.last_run == Some(id) {
                        self.last_run = Some(next);
                    }
                    own_end = last_moved;
                }
            } else if run_end != id {
                // The rest of the run stays too: same question, same
                // profile.
                let rest = run_rest(&queue[position..], run_end);
                self.counters.skipped += rest as u64;
                position += rest;
            }
            if runs {
                // Compression gathers job arrays at one time: a run
                // like the one before it joins it.
                let time = anchor.map_or(at, |(time, _)| time);
                match previous {
                    Some((head, other, shape)) if (other, shape) == (time, run.shape) => {
                        self.runs[head.index()].end = own_end;
                        self.runs[id.index()].end = id;
                        if self.last_run == Some(id) {
                            self.last_run = Some(head);
                        }
                        // The same steps, pinned once by the joined run.
                        if let Some((start, end)) = self.steps_of(id) {
                            self.runs[id.index()].steps = None;
                            self.timeline.unpin(start);
                            self.timeline.unpin(end);
                        }
                    }
                    _ => previous = Some((id, time, run.shape)),
                }
            }
        }
    }

    /// Lays the timeline out again in time order once its steps have
    /// come and gone enough to scatter it over memory (walks along it then
    /// read memory in a row), and gives the runs of `queue` (every job
    /// holding steps) their new handles.
    fn relayout_if_scattered(&mut self, queue: &[JobId]) {
        if !self.timeline.scattered() {
            return;
        }
        self.counters.relayouts += 1;
        self.timeline.relayout();
        for &id in queue {
            if let Some((start, end)) = self.runs[id.index()].steps {
                self.runs[id.index()].steps =
                    Some((self.timeline.relocated(start), self.timeline.relocated(end)));
            }
        }
    }

    /// The steps `id`'s run holds.
    fn steps_of(&self, id: JobId) -> Option<(Step, Step)> {
        self.runs[id.index()].steps
    }

    /// Arrival order: `id` was just placed; it joins the last run if it
    /// arrived right after that run's last job with the same reservation
    /// time, size and estimate, or starts a run. Only arrivals (placed
    /// while following the events) join: they come after every waiting
    /// job. Returns whether it joined.
    fn join_run(&mut self, view: &View<'_>, queue: &[JobId], id: JobId, follow: bool) -> bool {
        let joined = follow
            && self.last_run.is_some_and(|head| {
                let last = self.runs[head.index()].end;
                let position = queue.partition_point(|&other| other < id);
                position > 0
                    && queue[position - 1] == last
                    && self.reservations[last.index()] == self.reservations[id.index()]
                    && view.job(last).size == view.job(id).size
                    && view.estimate(last) == view.estimate(id)
            });
        match self.last_run {
            Some(head) if joined => self.runs[head.index()].end = id,
            _ => self.last_run = Some(id),
        }
        joined
    }

    /// Builds the profile of the thesis's description from scratch: the
    /// running jobs' expected ends, then the held reservations in queue
    /// order (a reservation that no longer fits, which only a job running
    /// past its estimate can cause, is dropped and its job placed again).
    /// Every job left reserved is a run of its own, and what was known of
    /// windows is forgotten. Returns whether to compress: capacity came
    /// back before it was expected, or a reservation was dropped.
    fn rebuild(&mut self, view: &View<'_>, queue: &[JobId]) -> bool {
        let now = view.now();
        self.timeline.reset(
            now,
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        );
        self.floors.clear();
        self.placed_by_size.clear();
        self.last_run = None;
        let mut compress = view
            .ended()
            .iter()
            .any(|&id| ended_early(view, id).is_some());
        for &id in queue {
            self.runs[id.index()].end = id;
            self.runs[id.index()].steps = None;
            let Some(at) = self.reservations[id.index()] else {
                continue;
            };
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if self.timeline.fits(at, size, estimate) {
                let holding = self.timeline.locate(at);
                let steps = self.timeline.reserve(holding, at, estimate, size, true);
                let shape = self.floors.shape(size, estimate);
                self.floors.add(shape, at);
                self.placed_by_size
                    .push(id, size, self.floors.jobs_of(size), &self.reservations);
                self.runs[id.index()].steps = Some(steps);
                self.runs[id.index()].shape = shape;
            } else {
                self.reservations[id.index()] = None;
                compress = true;
            }
        }
        compress
    }

    /// Debug builds: the profile rebuilt from scratch, and whether that
    /// would compress.
    #[cfg(debug_assertions)]
    fn rebuilt(&self, view: &View<'_>, queue: &[JobId]) -> (Timeline, bool) {
        let now = view.now();
        let mut timeline = Timeline::default();
        timeline.reset(
            now,
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        );
        let compress = view
            .ended()
            .iter()
            .any(|&id| ended_early(view, id).is_some());
        for &id in queue {
            if let Some(at) = self.reservations[id.index()] {
                let (size, estimate) = (view.job(id).size, view.estimate(id));
                let holding = timeline.locate(at);
                timeline.reserve(holding, at, estimate, size, false);
            }
        }
        (timeline, compress)
    }

    /// Debug builds: no job of `jobs` can move to an earlier anchor.
    #[cfg(debug_assertions)]
    fn assert_none_can_move(&self, view: &View<'_>, jobs: &[JobId]) {
        for &id in jobs {
            if let Some(at) = self.reservations[id.index()] {
                let (size, estimate) = (view.job(id).size, view.estimate(id));
                assert_eq!(
                    self.earliest_start_before(size, estimate, at),
                    None,
                    "conservative: job {id:?} was passed over in a settled queue but can move"
                );
            }
        }
    }

    /// The earliest anchor before `at` of a job of `size` for `estimate`
    /// reserved at `at`, by brute force over the steps with its
    /// reservation given back: what compression's shortcuts must find
    /// (debug builds check it).
    fn earliest_start_before(&self, size: u32, estimate: Time, at: Time) -> Option<Time> {
        let mut steps: Vec<(Time, u32)> = self.timeline.merged_steps().collect();
        add_over(&mut steps, at, at + estimate.max(1), i64::from(size));
        earliest_fit(&steps, size, estimate).filter(|&time| time < at)
    }

    /// Debug builds: the `followers` jobs after the first of a run of
    /// `size` for `estimate` reserved at `at`, about to move to `anchor`,
    /// would each move to `anchor` when examined one by one, and the next
    /// one of the run (`more`) would not.
    #[cfg(debug_assertions)]
    fn check_followers(
        &self,
        (size, estimate): (u32, Time),
        at: Time,
        anchor: Time,
        followers: usize,
        more: bool,
    ) {
        let mut steps: Vec<(Time, u32)> = self.timeline.merged_steps().collect();
        let duration = estimate.max(1);
        let shift = |steps: &mut Vec<(Time, u32)>| {
            add_over(steps, at, at + duration, i64::from(size));
            add_over(steps, anchor, anchor + duration, -i64::from(size));
        };
        shift(&mut steps);
        for index in 0..=followers {
            if index == followers && !more {
                break;
            }
            let mut released = steps.clone();
            add_over(&mut released, at, at + duration, i64::from(size));
            let found = earliest_fit(&released, size, estimate).filter(|&time| time < at);
            if index == followers {
                assert_ne!(found, Some(anchor), "conservative: one more follows");
            } else {
                assert_eq!(
                    found,
                    Some(anchor),
                    "conservative: follower {index} does not follow"
                );
                shift(&mut steps);
            }
        }
    }
}

/// Adds `delta` over `[from, to)` to `steps` (`(time, free)` from each time
/// on), for the brute-force checks.
fn add_over(steps: &mut Vec<(Time, u32)>, from: Time, to: Time, delta: i64) {
    for cut in [from, to] {
        let index = steps.partition_point(|&(time, _)| time <= cut);
        if index > 0 && steps[index - 1].0 != cut {
            let free = steps[index - 1].1;
            steps.insert(index, (cut, free));
        }
    }
    for step in steps.iter_mut() {
        if step.0 >= from && step.0 < to {
            step.1 = (i64::from(step.1) + delta) as u32;
        }
    }
}

/// The earliest time from the first step's at which `size` stay free for
/// `estimate` (at least 1 s), by brute force.
fn earliest_fit(steps: &[(Time, u32)], size: u32, estimate: Time) -> Option<Time> {
    let duration = estimate.max(1);
    steps.iter().enumerate().find_map(|(index, &(time, _))| {
        let end = time.checked_add(duration)?;
        steps[index..]
            .iter()
            .take_while(|&&(other, _)| other < end)
            .all(|&(_, free)| free >= size)
            .then_some(time)
    })
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

/// For a job that has ended, the end its estimate planned, if that is
/// still to come: its reservation's rest is given back.
fn ended_early(view: &View<'_>, id: JobId) -> Option<Time> {
    let planned_end = view.started_at(id)? + view.estimate(id);
    (view.now() < planned_end).then_some(planned_end)
}

/// A run waiting for compression, as [`Conservative::look_at`] reads it.
#[derive(Debug, Clone, Copy)]
struct RunLook {
    /// Its reservation.
    at: Time,
    size: u32,
    estimate: Time,
    /// Its size is free just before its reservation: it slides back.
    slides: bool,
    /// Its shape's floor: no whole window starts before.
    floor: Time,
}

impl RunLook {
    /// Whether a whole window of its shape could end by `limit` (none
    /// starts before the floor).
    fn window_before(&self, limit: Time) -> bool {
        limit.saturating_sub(self.estimate.max(1)) >= self.floor
    }

    /// It cannot move: no room just before it, and reserved too early for
    /// a whole window from its shape's floor on.
    fn stays(&self) -> bool {
        !self.slides && !self.window_before(self.at)
    }
}

/// The jobs placed with a reservation, by size, in the order placed.
/// Entries of jobs since started stay until a size's list holds twice its
/// waiting jobs (then they are dropped: amortized O(1) a placement).
#[derive(Debug, Clone, Default)]
struct PlacedBySize {
    lists: BySize<Vec<JobId>>,
    /// The sizes whose lists are not empty, for [`Self::clear`].
    listed: Vec<u32>,
}

impl PlacedBySize {
    /// `id`, of `size` processors, was placed; `waiting` jobs of the size
    /// hold a reservation now, itself included.
    fn push(&mut self, id: JobId, size: u32, waiting: u32, reservations: &[Option<Time>]) {
        let list = self.lists.entry(size);
        if list.is_empty() {
            self.listed.push(size);
        }
        list.push(id);
        if list.len() >= 2 * waiting as usize + 8 {
            list.retain(|other| reservations[other.index()].is_some());
        }
    }

    /// The jobs of `size` placed since the last clear (some since started).
    fn of(&self, size: u32) -> &[JobId] {
        self.lists.get(size).map_or(&[], Vec::as_slice)
    }

    /// Forgets every job (the profile is rebuilt).
    fn clear(&mut self) {
        for size in self.listed.drain(..) {
            self.lists[size].clear();
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
    }
}

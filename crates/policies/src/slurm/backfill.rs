//! `slurm-backfill`: Slurm's main scheduler plus its backfill plugin.

use schedsim_sim_core::{Decisions, JobId, Policy, Time, View};

use super::conf::BackfillConf;
use super::multifactor::{Multifactor, MultifactorConfig};
use crate::profile::Profile;

/// Slurm's scheduling as sched/backfill does it, with multifactor
/// priorities ([`Multifactor`]):
///
/// - **The main scheduler** runs at every event (submission, completion)
///   and at every priority recalculation: it takes the waiting jobs by
///   priority and starts them while they fit, stopping at the first that
///   does not (Slurm blocks the partition then; there is one partition
///   here).
/// - **The backfill scheduler** runs every `bf_interval` seconds (at the
///   multiples of it, when something changed since its last cycle: a job
///   arrived, ended or started, or priorities were recomputed; otherwise
///   the cycle would find the same plan). It builds a plan of free
///   processors over time from the running jobs' expected ends, takes at
///   most `bf_max_job_test` waiting jobs by priority and, for each, starts
///   it if it fits now for its whole time limit, or else reserves its
///   earliest fit in the plan, so that no lower-priority job may delay it
///   (Slurm reserves for every job it tests by default,
///   `bf_job_part_count_reserve=0`). A job whose earliest start lies beyond
///   `bf_window` gets no reservation. At most `bf_max_job_start` jobs start
///   per cycle (0: no limit).
///
/// Simplifications, all deliberate:
/// - Processors, not nodes: the plan counts free processors (Slurm's
///   select/cons_tres with CR_CPU on one node behaves so; on many nodes
///   Slurm plans node by node).
/// - Times in the plan are on `bf_resolution` boundaries: the processors of
///   a running job come back at the first boundary at or after its
///   expected end, a job started now holds its processors until the
///   boundary after its limit, and a job that cannot start now is planned
///   at the earliest boundary from which it fits for its limit rounded up
///   to the resolution (Slurm rounds reservation starts down and ends up).
/// - A cycle takes no time: no `bf_yield_interval`, `bf_max_time`,
///   `bf_continue`; the main scheduler's rate limits (`sched_min_interval`,
///   `defer`, `default_queue_depth`) and its periodic runs every
///   `sched_interval` without any change are not modelled (they change
///   nothing when nothing happened).
/// - One partition, no per-user or per-partition limits (`bf_max_job_user`
///   and friends), no advanced reservations, no preemption, no job arrays
///   or heterogeneous jobs, every job eligible at submission.
#[derive(Debug, Clone)]
pub struct SlurmBackfill {
    name: String,
    priority: Multifactor,
    conf: BackfillConf,
    ordered: Vec<JobId>,
    profile: Profile,
    /// Something changed since the last backfill cycle.
    dirty: bool,
    wake_requested: Time,
    /// The reservations of the last cycle: (job, planned start).
    reservations: Vec<(JobId, Time)>,
    cycles: u64,
    main_starts: u64,
    backfill_starts: u64,
}

impl SlurmBackfill {
    /// The policy with these priority and backfill settings.
    pub fn new(priority: MultifactorConfig, conf: BackfillConf) -> Self {
        Self {
            name: "slurm-backfill".to_owned(),
            priority: Multifactor::new(priority),
            conf,
            ordered: Vec::new(),
            profile: Profile::default(),
            dirty: true,
            wake_requested: Time::MIN,
            reservations: Vec::new(),
            cycles: 0,
            main_starts: 0,
            backfill_starts: 0,
        }
    }

    /// The same policy under another name (its spec).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The priority engine.
    pub fn multifactor(&self) -> &Multifactor {
        &self.priority
    }

    /// The reservations the last backfill cycle made: (job, planned start),
    /// in priority order.
    pub fn reservations(&self) -> &[(JobId, Time)] {
        &self.reservations
    }

    fn round_up(&self, time: Time) -> Time {
        let resolution = self.conf.resolution;
        time.div_euclid(resolution) * resolution
            + if time.rem_euclid(resolution) == 0 {
                0
            } else {
                resolution
            }
    }

    /// One backfill cycle over `queue` (the jobs the main scheduler did not
    /// start, by priority), with `started` just started by it.
    fn backfill(
        &mut self,
        view: &View<'_>,
        queue: &[JobId],
        started: &[JobId],
        free: u32,
        decisions: &mut Decisions,
    ) {
        let now = view.now();
        let resolution = self.conf.resolution;
        let ends: Vec<(Time, u32)> = view
            .running()
            .map(|job| (self.round_up(job.expected_end), job.size))
            .chain(
                started
                    .iter()
                    .map(|&id| (self.round_up(now + view.estimate(id)), view.job(id).size)),
            )
            .collect();
        self.profile.reset(now, free, ends.into_iter());
        self.reservations.clear();
        self.cycles += 1;
        let first_boundary = (now.div_euclid(resolution) + 1) * resolution;
        let horizon = now.saturating_add(self.conf.window);
        let mut starts = 0u32;
        for &id in queue.iter().take(self.conf.max_job_test as usize) {
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            let hold = self.round_up(now + estimate) - now;
            if self.profile.fits(now, size, hold) {
                self.profile.reserve(now, now + hold, size);
                decisions.start(id);
                self.backfill_starts += 1;
                starts += 1;
                if self.conf.max_job_start > 0 && starts >= self.conf.max_job_start {
                    break;
                }
                continue;
            }
            let duration = self.round_up(estimate.max(1));
            let Some(at) = self
                .profile
                .earliest_start_from(first_boundary, size, duration)
            else {
                continue;
            };
            if at > horizon {
                continue;
            }
            self.profile.reserve(at, at + duration, size);
            self.reservations.push((id, at));
        }
    }

    fn next_cycle(&self, now: Time) -> Time {
        let interval = self.conf.interval;
        (now.div_euclid(interval) + 1) * interval
    }
}

impl Policy for SlurmBackfill {
    fn name(&self) -> &str {
        &self.name
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let now = view.now();
        let recomputed = self.priority.advance(view);
        if recomputed || !view.arrived().is_empty() || !view.ended().is_empty() {
            self.dirty = true;
        }
        let mut ordered = std::mem::take(&mut self.ordered);
        self.priority.arrange(view, &mut ordered);
        // The main scheduler: by priority while jobs fit.
        let mut free = view.free();
        let mut position = 0;
        for &id in &ordered {
            let size = view.job(id).size;
            if size > free {
                break;
            }
            decisions.start(id);
            free -= size;
            position += 1;
        }
        self.main_starts += position as u64;
        if position > 0 {
            self.dirty = true;
        }
        if position < ordered.len() && self.dirty && now.rem_euclid(self.conf.interval) == 0 {
            let started = ordered[..position].to_vec();
            self.backfill(view, &ordered[position..], &started, free, decisions);
            self.dirty = false;
        }
        self.priority.note_starts(view, decisions.starts());
        if decisions.starts().len() < ordered.len() {
            let mut wake = Time::MAX;
            if self.dirty {
                wake = wake.min(self.next_cycle(now));
            }
            if self.priority.time_dependent() {
                wake = wake.min(self.priority.next_period(now));
            }
            if wake != Time::MAX && wake != self.wake_requested {
                decisions.wake_at(wake);
                self.wake_requested = wake;
            }
        }
        self.ordered = ordered;
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("backfill_cycles", self.cycles),
            ("main_scheduler_starts", self.main_starts),
            ("backfill_starts", self.backfill_starts),
            ("priority_recalculations", self.priority.recomputations()),
        ]
    }
}

//! EASY-D and LOS-D: EASY and LOS scheduling batch jobs around reservations
//! held for dedicated jobs (Kumar et al., section V).

use schedsim_sim_core::{Capabilities, Decisions, JobId, Policy, Time, View};

use crate::los::{LosConfig, LosVariant};
use crate::pack::{Dp, Packer};
use crate::profile::Profile;

/// The reservations of the waiting dedicated jobs, remade at every call.
///
/// A profile of free processors over time is built from the processors
/// free now and the running jobs' expected ends. Then every waiting
/// dedicated job, in arrival order (ties by input order), reserves its
/// processors for its whole (current) estimate at the earliest time, not
/// before its requested start nor before now, at which they are free in the
/// profile, given the reservations made before it. A reservation at now
/// starts the job: a due dedicated job starts as soon as it fits.
///
/// Arrival order rather than requested-start order makes a reservation a
/// promise: a dedicated job submitted later never takes the processors
/// reserved for one submitted earlier, so with exact estimates every
/// dedicated job starts exactly at the time reserved when it arrived — its
/// requested start if the processors were free then, else the earliest time
/// they were (the delay the paper calls unavoidable).
#[derive(Debug, Default)]
struct Reservations {
    profile: Profile,
    order: Vec<JobId>,
    wake_requested: Option<Time>,
}

impl Reservations {
    /// Resets the profile, reserves every waiting dedicated job, starts
    /// those due now, and returns the processors still free now.
    fn reserve_dedicated(&mut self, view: &View<'_>, decisions: &mut Decisions) -> u32 {
        let now = view.now();
        self.profile.reset(
            now,
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        );
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

    /// Starts batch queue heads while they fit the profile for their whole
    /// estimate now; returns the first one that does not, with its anchor
    /// (reserved in the profile).
    fn start_heads(
        &mut self,
        view: &View<'_>,
        free: &mut u32,
        decisions: &mut Decisions,
    ) -> Option<(usize, Time)> {
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
                return Some((position, anchor));
            }
            decisions.start(id);
            *free -= size;
        }
        None
    }
}

/// EASY-D (`easy-d`, `easy-de`): EASY backfilling around the reservations
/// of dedicated jobs.
///
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
#[derive(Debug)]
pub struct EasyD {
    name: String,
    elastic: bool,
    reservations: Reservations,
}

impl EasyD {
    /// EASY-D, or EASY-DE with the ECC processor (`elastic`).
    pub fn new(elastic: bool) -> Self {
        Self {
            name: if elastic { "easy-de" } else { "easy-d" }.to_owned(),
            elastic,
            reservations: Reservations::default(),
        }
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
        let now = view.now();
        let mut free = self.reservations.reserve_dedicated(view, decisions);
        let Some((position, _)) = self.reservations.start_heads(view, &mut free, decisions) else {
            return;
        };
        let profile = &mut self.reservations.profile;
        let mut from = JobId(view.queue()[position].0 + 1);
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
    }
}

/// LOS-D (`los-d`, `los-de`): LOS packing batch jobs around the
/// reservations of dedicated jobs.
///
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
    /// (`elastic`).
    pub fn new(config: LosConfig, elastic: bool) -> Self {
        let base = config.to_string();
        let suffix = if elastic { "-de" } else { "-d" };
        // `los` or `los-basic`, then the options.
        let name = match base.split_once(':') {
            Some((policy, options)) => format!("{policy}{suffix}:{options}"),
            None => format!("{base}{suffix}"),
        };
        Self {
            name,
            config,
            elastic,
            reservations: Reservations::default(),
            packer: Packer::default(),
        }
    }

    /// The LOS settings.
    pub fn config(&self) -> LosConfig {
        self.config
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
        let now = view.now();
        let mut free = self.reservations.reserve_dedicated(view, decisions);
        let Some((position, shadow)) = self.reservations.start_heads(view, &mut free, decisions)
        else {
            return;
        };
        let profile = &mut self.reservations.profile;
        let extra = profile.free_at(shadow);
        self.packer.clear();
        let mut from = JobId(view.queue()[position].0 + 1);
        let mut window = 0;
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
                return;
            }
        };
        for &id in selected {
            let (size, estimate) = (view.job(id).size, view.estimate(id));
            if profile.fits(now, size, estimate) {
                profile.reserve(now, now + estimate, size);
                decisions.start(id);
            }
        }
    }
}

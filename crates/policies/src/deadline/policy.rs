//! The admission tests as a [`Policy`]: decide at each arrival, then run
//! the plan.

use schedsim_sim_core::{AvailabilityProfile, Decisions, JobId, JobState, Policy, Time, View};

use super::plan::{
    AdmissionCounters, MrtConfig, MsbConfig, PlanJob, QopsConfig, Reservation, mrt, msb, qops,
};

/// Which admission test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// QoPS (Fig. 3).
    Qops(QopsConfig),
    /// The modified slack-based algorithm (Fig. 1).
    Msb(MsbConfig),
    /// The modified real-time algorithm (Fig. 2).
    Mrt(MrtConfig),
}

/// Deadline admission control (Islam, Balaji, Sadayappan and Panda):
/// every arriving job is admitted only if a plan exists in which it and
/// every admitted job end by their deadlines; otherwise it is rejected at
/// once and the plan is kept. Admitted jobs hold reservations and start at
/// them. Decisions are made only at arrival: a rejection is final, an
/// admission a promise.
///
/// Simple rules first: a job wider than the machine, or whose deadline is
/// before its submit time plus its estimate, is rejected without a search;
/// a job without a deadline has an infinite one. The plan is not compressed
/// when a job ends before its estimate (the paper assumes exact estimates,
/// `--estimates exact`, under which this never happens); a job whose
/// reserved start passes while its processors are still busy (only if jobs
/// run past their estimates, `--overrun extend`) is placed again at its
/// earliest fit, late.
#[derive(Debug, Clone)]
pub struct DeadlineAdmission {
    name: String,
    admission: Admission,
    /// The admitted jobs that have not started, in scheduled order.
    plan: Vec<Reservation>,
    counters: AdmissionCounters,
    admitted: u64,
    rejected: u64,
}

impl DeadlineAdmission {
    /// A policy named `name` (its canonical spec) using `admission`.
    pub fn new(name: impl Into<String>, admission: Admission) -> Self {
        Self {
            name: name.into(),
            admission,
            plan: Vec::new(),
            counters: AdmissionCounters::default(),
            admitted: 0,
            rejected: 0,
        }
    }

    /// The admission test and its settings.
    pub fn admission(&self) -> Admission {
        self.admission
    }

    fn plan_job(view: &View<'_>, id: JobId) -> PlanJob {
        let job = view.job(id);
        PlanJob {
            id,
            submit: job.submit,
            size: job.size,
            estimate: view.estimate(id),
            deadline: job.absolute_deadline().unwrap_or(Time::MAX),
        }
    }

    /// The plan's reservations checked against the machine as it is now:
    /// kept where they still fit, placed again where not (see the type's
    /// docs). Returns the running jobs' profile.
    fn refresh(&mut self, view: &View<'_>) -> AvailabilityProfile {
        let base = AvailabilityProfile::from_view(view);
        let now = view.now();
        let mut profile = base.clone();
        for reservation in &mut self.plan {
            let job = reservation.job;
            if reservation.start < now || !profile.fits(reservation.start, job.size, job.estimate) {
                reservation.start = profile
                    .earliest_fit(now, job.size, job.estimate)
                    .unwrap_or(Time::MAX);
            }
            if reservation.start != Time::MAX {
                let _ = profile.reserve(reservation.start, job.estimate, job.size);
            }
        }
        base
    }
}

impl Policy for DeadlineAdmission {
    fn name(&self) -> &str {
        &self.name
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let now = view.now();
        self.plan
            .retain(|r| view.state(r.job.id) == JobState::Waiting);
        let base = self.refresh(view);
        for &id in view.arrived() {
            if view.state(id) != JobState::Waiting {
                continue;
            }
            let job = Self::plan_job(view, id);
            if job.size > view.procs() {
                decisions.reject(id, "wider than the machine");
                self.rejected += 1;
                continue;
            }
            if job.deadline < job.submit.saturating_add(job.estimate) {
                decisions.reject(id, "deadline before submit time + estimate");
                self.rejected += 1;
                continue;
            }
            let counters = &mut self.counters;
            let plan = match &self.admission {
                Admission::Qops(config) => qops(&base, now, &self.plan, job, config, counters),
                Admission::Msb(config) => msb(&base, now, &self.plan, job, config, counters),
                Admission::Mrt(config) => mrt(&base, now, &self.plan, job, config, counters),
            };
            match plan {
                Some(plan) => {
                    self.plan = plan;
                    self.admitted += 1;
                }
                None => {
                    decisions.reject(id, "no plan meets every deadline");
                    self.rejected += 1;
                }
            }
        }
        // Run the plan: start what is due (if its processors are free: a
        // job running past its estimate can hold them), wake up for the
        // next reserved start.
        let mut free = view.free();
        let mut next = Time::MAX;
        for reservation in &self.plan {
            if reservation.start <= now && reservation.job.size <= free {
                decisions.start(reservation.job.id);
                free -= reservation.job.size;
            } else if reservation.start > now {
                next = next.min(reservation.start);
            }
        }
        if next != Time::MAX {
            decisions.wake_at(next);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("admitted", self.admitted),
            ("rejected", self.rejected),
            ("options_tried", self.counters.options),
            ("placements", self.counters.placements),
            ("violations", self.counters.violations),
            ("backtracks", self.counters.backtracks),
        ]
    }
}

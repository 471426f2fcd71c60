//! The three admission tests of Islam et al.'s QoPS paper on a plan of
//! reservations, apart from the event loop: each takes the machine's
//! availability without the waiting jobs (the running jobs only), the
//! admitted jobs with their reserved starts in scheduled order, and the new
//! job, and returns the new plan or `None` (reject the new job, keep the
//! old plan). A job *meets its deadline* when its reserved start plus its
//! estimate is at most its deadline; placing a job means reserving it at
//! the earliest time at or after now at which it fits, around every
//! reservation already placed (conservative placement).

use std::collections::VecDeque;

use schedsim_sim_core::{AvailabilityProfile, JobId, Time};

/// A job as the admission tests see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanJob {
    /// The job.
    pub id: JobId,
    /// When it was submitted.
    pub submit: Time,
    /// Processors.
    pub size: u32,
    /// Its estimate, the time it holds its processors.
    pub estimate: Time,
    /// The absolute deadline (`Time::MAX` for a job without one).
    pub deadline: Time,
}

impl PlanJob {
    fn meets(&self, start: Time) -> bool {
        start.saturating_add(self.estimate) <= self.deadline
    }
}

/// An admitted job and its reserved start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    /// The job.
    pub job: PlanJob,
    /// Its reserved start.
    pub start: Time,
}

/// The order of the temporary list: earliest deadline first, or least
/// laxity (deadline minus estimate) first; ties by job id (arrival).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Heuristic {
    /// Earliest deadline first (the default; the paper names both).
    #[default]
    Edf,
    /// Least laxity first.
    Llf,
}

impl Heuristic {
    fn sort(self, jobs: &mut [PlanJob]) {
        match self {
            Self::Edf => jobs.sort_unstable_by_key(|j| (j.deadline, j.id)),
            Self::Llf => {
                jobs.sort_unstable_by_key(|j| (j.deadline.saturating_sub(j.estimate), j.id));
            }
        }
    }
}

/// Where QoPS puts the new job in an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NewJob {
    /// Reserved right after the kept jobs, before the temporary list (the
    /// prose of section 3: "We then create a reservation for the newly
    /// arrived job, and finally generate reservations for the remaining").
    #[default]
    First,
    /// Sorted into the temporary list with the others (Fig. 3, which
    /// removes the waiting jobs into the list and never names the new job).
    Sorted,
}

/// What QoPS does when an option fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnFailure {
    /// Try the next option; reject when all have failed (the prose: "it is
    /// given log2(N) points in time where its insertion ... is attempted").
    #[default]
    NextOption,
    /// Reject at once (Fig. 3, step A.5: "Job is rejected; break").
    Reject,
}

/// QoPS's acceptance test after the list is placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Acceptance {
    /// At most K violations (the prose: altering the schedule "is allowed
    /// at most K times").
    #[default]
    AtMostK,
    /// Fewer than K violations (Fig. 3, step B: "if (violation count <
    /// K-Factor)").
    FewerThanK,
}

/// The largest K-factor a spec may give. Each violation re-sorts and
/// re-places the rest of the plan, so one admission costs up to K plan
/// placements per insertion option. On the 1000-job fixture with exact
/// estimates K = 10^5 took 12.5 s with `new-job=sorted` (so K = 10,000
/// about a second), and K = 10^7 did not end within 20 s.
pub const MAX_K: u32 = 10_000;

/// The largest Bmax a spec may give. Each backtrack re-checks every
/// unscheduled job, so one admission costs up to Bmax x plan placements.
/// On the 1000-job fixture Bmax = 10^7 took 4.4 s (so 1,000,000 about
/// half a second), and 2^32 - 1 did not end within 20 s.
pub const MAX_BACKTRACKS: u32 = 1_000_000;

/// QoPS's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct QopsConfig {
    /// The K-factor: reorderings allowed per option (the paper leaves it
    /// open; default 5).
    pub k: u32,
    /// The temporary list's order.
    pub heuristic: Heuristic,
    /// Where the new job goes.
    pub new_job: NewJob,
    /// What a failed option does.
    pub on_failure: OnFailure,
    /// The acceptance test.
    pub acceptance: Acceptance,
}

impl Default for QopsConfig {
    fn default() -> Self {
        Self {
            k: 5,
            heuristic: Heuristic::Edf,
            new_job: NewJob::First,
            on_failure: OnFailure::NextOption,
            acceptance: Acceptance::AtMostK,
        }
    }
}

/// The order MSB re-places the jobs behind the insertion point in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MsbOrder {
    /// Their order in the current schedule (Fig. 1, step C.c: "in Ascending
    /// Scheduled Time (AST) order").
    #[default]
    Scheduled,
    /// The heuristic's order (the prose: "the jobs currently present in the
    /// schedule are arranged in an order decided by a heuristic function").
    Heuristic,
}

/// MSB's cost of a feasible schedule (the paper: "a pre-decided cost
/// function", never given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MsbCost {
    /// The total wait of the planned jobs, sum of (start - submit).
    #[default]
    TotalWait,
    /// The last planned end.
    LastEnd,
}

/// MSB's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct MsbConfig {
    /// Re-placement order.
    pub order: MsbOrder,
    /// The cost function.
    pub cost: MsbCost,
    /// The heuristic, when `order` is [`MsbOrder::Heuristic`].
    pub heuristic: Heuristic,
}

/// MRT's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MrtConfig {
    /// The most backtracks before the new job is rejected (Bmax; the paper
    /// leaves it open; default 100).
    pub max_backtracks: u32,
    /// The order of the sorted set.
    pub heuristic: Heuristic,
}

impl Default for MrtConfig {
    fn default() -> Self {
        Self {
            max_backtracks: 100,
            heuristic: Heuristic::Edf,
        }
    }
}

/// Work done by the admission tests, for the run's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AdmissionCounters {
    /// Jobs placed (earliest-fit searches), all tests included.
    pub placements: u64,
    /// QoPS: options tried; MSB: insertion points tried.
    pub options: u64,
    /// QoPS: deadline violations met (each a reordering or a failure).
    pub violations: u64,
    /// MRT: backtracks.
    pub backtracks: u64,
}

/// A plan being built on a copy of the running jobs' profile.
struct Builder {
    profile: AvailabilityProfile,
    now: Time,
    schedule: Vec<Reservation>,
}

impl Builder {
    fn new(base: &AvailabilityProfile, now: Time) -> Self {
        Self {
            profile: base.clone(),
            now,
            schedule: Vec::new(),
        }
    }

    /// Keeps an admitted job at its reserved start (where it fits, as it
    /// does in a plan the tests made; otherwise at its earliest fit).
    fn keep(&mut self, reservation: Reservation, counters: &mut AdmissionCounters) {
        let job = reservation.job;
        if reservation.start >= self.now
            && self.profile.fits(reservation.start, job.size, job.estimate)
        {
            let _ = self
                .profile
                .reserve(reservation.start, job.estimate, job.size);
            self.schedule.push(reservation);
        } else {
            self.place(job, counters);
        }
    }

    /// Places a job at its earliest fit; returns its start (`Time::MAX` if
    /// it can never fit, which the simple rules exclude).
    fn place(&mut self, job: PlanJob, counters: &mut AdmissionCounters) -> Time {
        counters.placements += 1;
        let start = self
            .profile
            .earliest_fit(self.now, job.size, job.estimate)
            .unwrap_or(Time::MAX);
        if start != Time::MAX {
            let _ = self.profile.reserve(start, job.estimate, job.size);
        }
        self.schedule.push(Reservation { job, start });
        start
    }

    /// Removes the reservations from `position` on, newest first, and
    /// returns their jobs in schedule order.
    fn remove_from(&mut self, position: usize) -> Vec<PlanJob> {
        let removed: Vec<Reservation> = self.schedule.drain(position..).collect();
        for r in removed.iter().rev() {
            if r.start != Time::MAX {
                let _ = self.profile.release(r.start, r.job.estimate, r.job.size);
            }
        }
        removed.into_iter().map(|r| r.job).collect()
    }
}

/// QoPS's insertion options for a plan of `n` jobs: positions 0, n/2,
/// 3n/4, 7n/8, ... (rounded down, distinct, below n; just 0 for an empty
/// plan).
pub fn qops_options(n: usize) -> Vec<usize> {
    let mut options = vec![0];
    let mut denominator: usize = 2;
    while n > 0 && *options.last().unwrap_or(&0) < n - 1 {
        // floor(n * (denominator - 1) / denominator), without overflow for
        // any plan that fits in memory.
        let position = n - n.div_ceil(denominator);
        if position > *options.last().unwrap_or(&0) {
            options.push(position.min(n - 1));
        }
        match denominator.checked_mul(2) {
            Some(next) if next <= 2 * n.next_power_of_two() => denominator = next,
            _ => break,
        }
    }
    options
}

/// QoPS (Fig. 3 and section 3): for each option p, keep the first p
/// reservations, reserve the new job (see [`NewJob`]), then place the
/// temporary list (the other jobs, in heuristic order); when a job misses
/// its deadline at position T, count a violation, and unless the count
/// passes K, take positions (p + T) / 2 .. T back into the list, re-sort
/// it and put the missed job at its head.
pub fn qops(
    base: &AvailabilityProfile,
    now: Time,
    plan: &[Reservation],
    new: PlanJob,
    config: &QopsConfig,
    counters: &mut AdmissionCounters,
) -> Option<Vec<Reservation>> {
    for p in qops_options(plan.len()) {
        counters.options += 1;
        let mut builder = Builder::new(base, now);
        for &reservation in &plan[..p] {
            builder.keep(reservation, counters);
        }
        let mut list: Vec<PlanJob> = plan[p..].iter().map(|r| r.job).collect();
        match config.new_job {
            NewJob::First => {
                // Nothing placed after it can move it: a miss here fails
                // the option whatever the list does.
                if !new.meets(builder.place(new, counters)) {
                    counters.violations += 1;
                    if config.on_failure == OnFailure::Reject {
                        return None;
                    }
                    continue;
                }
            }
            NewJob::Sorted => list.push(new),
        }
        config.heuristic.sort(&mut list);
        let mut list: VecDeque<PlanJob> = list.into();
        let mut violations = 0u32;
        let mut failed = false;
        while let Some(job) = list.pop_front() {
            let start = builder.place(job, counters);
            if job.meets(start) {
                continue;
            }
            violations += 1;
            counters.violations += 1;
            if violations > config.k {
                failed = true;
                break;
            }
            let at = builder.schedule.len() - 1;
            let back = builder.remove_from(p + (at - p) / 2);
            let mut rest: Vec<PlanJob> = back
                .into_iter()
                .filter(|j| j.id != job.id)
                .chain(list.drain(..))
                .collect();
            config.heuristic.sort(&mut rest);
            list.push_back(job);
            list.extend(rest);
        }
        let accepted = !failed
            && match config.acceptance {
                Acceptance::AtMostK => violations <= config.k,
                Acceptance::FewerThanK => violations < config.k,
            };
        if accepted {
            return Some(builder.schedule);
        }
        if config.on_failure == OnFailure::Reject {
            return None;
        }
    }
    None
}

/// MSB (Fig. 1): for every insertion point i = 0..=N, keep the first i
/// reservations, place the new job, re-place the others (see
/// [`MsbOrder`]); a schedule with a miss costs infinity; the cheapest
/// feasible schedule (the first of equal cost) is admitted.
pub fn msb(
    base: &AvailabilityProfile,
    now: Time,
    plan: &[Reservation],
    new: PlanJob,
    config: &MsbConfig,
    counters: &mut AdmissionCounters,
) -> Option<Vec<Reservation>> {
    let mut cheapest: Option<(i128, Vec<Reservation>)> = None;
    for i in 0..=plan.len() {
        counters.options += 1;
        let mut builder = Builder::new(base, now);
        for &reservation in &plan[..i] {
            builder.keep(reservation, counters);
        }
        if !new.meets(builder.place(new, counters)) {
            continue;
        }
        let mut rest: Vec<PlanJob> = plan[i..].iter().map(|r| r.job).collect();
        if config.order == MsbOrder::Heuristic {
            config.heuristic.sort(&mut rest);
        }
        let feasible = rest
            .into_iter()
            .all(|job| job.meets(builder.place(job, counters)));
        if !feasible {
            continue;
        }
        let price = match config.cost {
            MsbCost::TotalWait => builder
                .schedule
                .iter()
                .map(|r| i128::from(r.start) - i128::from(r.job.submit))
                .sum(),
            MsbCost::LastEnd => builder
                .schedule
                .iter()
                .map(|r| i128::from(r.start) + i128::from(r.job.estimate))
                .max()
                .unwrap_or(0),
        };
        if cheapest.as_ref().is_none_or(|(best, _)| price < *best) {
            cheapest = Some((price, builder.schedule));
        }
    }
    cheapest.map(|(_, schedule)| schedule)
}

/// MRT (Fig. 2): the admitted jobs and the new one sorted by the
/// heuristic, scheduled depth first from an empty plan. A job extends the
/// partial schedule if the result is *strongly feasible*: every placed job
/// meets its deadline and each unscheduled job, placed next, would meet
/// its own. A candidate that does not is a backtrack: the search goes on
/// with the next candidate at that depth, and back to the previous depth
/// when none is left; past `max_backtracks` the new job is rejected.
pub fn mrt(
    base: &AvailabilityProfile,
    now: Time,
    plan: &[Reservation],
    new: PlanJob,
    config: &MrtConfig,
    counters: &mut AdmissionCounters,
) -> Option<Vec<Reservation>> {
    let mut remaining: Vec<PlanJob> = plan.iter().map(|r| r.job).chain([new]).collect();
    config.heuristic.sort(&mut remaining);
    let mut search = Mrt {
        builder: Builder::new(base, now),
        backtracks: 0,
        max_backtracks: config.max_backtracks,
        counters,
    };
    search.builder.profile.commit();
    let found = search.extend(&mut remaining);
    search.counters.backtracks += u64::from(search.backtracks);
    found.then_some(search.builder.schedule)
}

struct Mrt<'a> {
    builder: Builder,
    backtracks: u32,
    max_backtracks: u32,
    counters: &'a mut AdmissionCounters,
}

impl Mrt<'_> {
    /// Extends the partial schedule by every job of `remaining` (heuristic
    /// order); false when the search failed or ran out of backtracks.
    fn extend(&mut self, remaining: &mut Vec<PlanJob>) -> bool {
        if remaining.is_empty() {
            return true;
        }
        for index in 0..remaining.len() {
            let candidate = remaining.remove(index);
            let before = self.builder.profile.checkpoint();
            let start = self.builder.place(candidate, self.counters);
            if candidate.meets(start) && self.others_still_fit(remaining) {
                if self.extend(remaining) {
                    return true;
                }
                if self.backtracks > self.max_backtracks {
                    return false;
                }
            }
            self.builder.schedule.pop();
            self.builder.profile.rollback(before);
            remaining.insert(index, candidate);
            self.backtracks += 1;
            if self.backtracks > self.max_backtracks {
                return false;
            }
        }
        false
    }

    /// Whether each job of `remaining`, placed next on its own, meets its
    /// deadline.
    fn others_still_fit(&mut self, remaining: &[PlanJob]) -> bool {
        remaining.iter().all(|&job| {
            self.counters.placements += 1;
            self.builder
                .profile
                .earliest_fit(self.builder.now, job.size, job.estimate)
                .is_some_and(|start| job.meets(start))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u32, size: u32, estimate: Time, deadline: Time) -> PlanJob {
        PlanJob {
            id: JobId(id),
            submit: 0,
            size,
            estimate,
            deadline,
        }
    }

    fn starts(plan: &[Reservation]) -> Vec<(u32, Time)> {
        plan.iter().map(|r| (r.job.id.0, r.start)).collect()
    }

    /// The hand case: 10 processors, every job 10 wide, the machine
    /// busy until t = 100. Admitted: A (runtime 100, d = 400) reserved
    /// 100-200 and C (runtime 50, d = 260) reserved 200-250. At t = 2, B
    /// arrives (runtime 50, d = 210).
    fn hand_case() -> (AvailabilityProfile, Vec<Reservation>, PlanJob) {
        let base = AvailabilityProfile::new(10, 2, 0, [(100, 10)]);
        let a = job(0, 10, 100, 400);
        let c = job(2, 10, 50, 260);
        let plan = vec![
            Reservation { job: a, start: 100 },
            Reservation { job: c, start: 200 },
        ];
        (base, plan, job(1, 10, 50, 210))
    }

    #[test]
    fn msb_rejects_the_hand_case_in_scheduled_order() {
        let (base, plan, b) = hand_case();
        let mut counters = AdmissionCounters::default();
        // i = 0: B 100-150 (ends by 210), then A 150-250 (by 400), C
        // 250-300: misses 260. i = 1: A 100-200, B 200-250: misses 210.
        // i = 2: A 100-200, C 200-250, B 250-300: misses 210. No feasible
        // insertion point: reject.
        assert_eq!(
            msb(&base, 2, &plan, b, &MsbConfig::default(), &mut counters),
            None
        );
        assert_eq!(counters.options, 3);
        // Re-placing in EDF order instead (the prose's reading): i = 0
        // gives B 100-150, C 150-200, A 200-300, all on time (total wait
        // from the submits at 0: 100 + 150 + 200 = 450); i = 1 and 2 still
        // miss B's deadline, so i = 0 is admitted.
        let config = MsbConfig {
            order: MsbOrder::Heuristic,
            ..MsbConfig::default()
        };
        let admitted = msb(&base, 2, &plan, b, &config, &mut counters).unwrap();
        assert_eq!(starts(&admitted), [(1, 100), (2, 150), (0, 200)]);
    }

    #[test]
    fn qops_option_zero_and_mrt_admit_the_hand_case() {
        let (base, plan, b) = hand_case();
        let mut counters = AdmissionCounters::default();
        // Option 0: B reserved first at 100-150; the list [A, C] in EDF
        // order is C (260), A (400): C 150-200, A 200-300. No violation.
        let admitted = qops(&base, 2, &plan, b, &QopsConfig::default(), &mut counters).unwrap();
        assert_eq!(starts(&admitted), [(1, 100), (2, 150), (0, 200)]);
        assert_eq!(counters.violations, 0);
        // MRT: {A, B, C} in EDF order is B (210), C (260), A (400); each
        // prefix is strongly feasible: B 100-150, C 150-200, A 200-300.
        let admitted = mrt(&base, 2, &plan, b, &MrtConfig::default(), &mut counters).unwrap();
        assert_eq!(starts(&admitted), [(1, 100), (2, 150), (0, 200)]);
        assert_eq!(counters.backtracks, 0);
    }

    #[test]
    fn qops_readings_that_differ() {
        // 10 processors, idle from t = 0; every job 10 wide. Admitted: X
        // (runtime 10, d = 100) at 0-10. New: Y (runtime 10, d = 15).
        let base = AvailabilityProfile::new(10, 0, 10, []);
        let plan = vec![Reservation {
            job: job(0, 10, 10, 100),
            start: 0,
        }];
        let y = job(1, 10, 10, 15);
        let mut counters = AdmissionCounters::default();
        // First (the prose): option 0 reserves Y at 0-10, then X at 10-20.
        let first = qops(&base, 0, &plan, y, &QopsConfig::default(), &mut counters).unwrap();
        assert_eq!(starts(&first), [(1, 0), (0, 10)]);
        // Sorted into the list (Fig. 3): EDF puts Y (15) before X (100):
        // the same plan here...
        let sorted = QopsConfig {
            new_job: NewJob::Sorted,
            ..QopsConfig::default()
        };
        assert_eq!(
            starts(&qops(&base, 0, &plan, y, &sorted, &mut counters).unwrap()),
            [(1, 0), (0, 10)]
        );
        // ...but with LLF and a long X the readings part: X (runtime 80, d
        // = 100, laxity 20) and Y (runtime 10, d = 45, laxity 35). Sorted,
        // LLF puts X first: X 0-80, Y 80-90 misses 45 (violation 1); the
        // positions (0 + 1) / 2 = 0 .. 1 go back, Y at the head: Y 0-10,
        // X 10-90: on time, 1 violation, admitted with K >= 1; with K = 0
        // the option fails and there is no other (N = 1): rejected. First
        // places Y at 0-10 with no violation whatever K.
        let plan = vec![Reservation {
            job: job(0, 10, 80, 100),
            start: 0,
        }];
        let y = job(1, 10, 10, 45);
        let llf = |new_job, k| QopsConfig {
            k,
            heuristic: Heuristic::Llf,
            new_job,
            ..QopsConfig::default()
        };
        assert_eq!(
            starts(&qops(&base, 0, &plan, y, &llf(NewJob::Sorted, 1), &mut counters).unwrap()),
            [(1, 0), (0, 10)]
        );
        assert_eq!(
            qops(&base, 0, &plan, y, &llf(NewJob::Sorted, 0), &mut counters),
            None
        );
        assert!(qops(&base, 0, &plan, y, &llf(NewJob::First, 0), &mut counters).is_some());
        // Fig. 3's "VC < K" rejects the one-violation plan that "at most
        // K" admits with K = 1.
        let strict = QopsConfig {
            acceptance: Acceptance::FewerThanK,
            ..llf(NewJob::Sorted, 1)
        };
        assert_eq!(qops(&base, 0, &plan, y, &strict, &mut counters), None);
    }

    #[test]
    fn qops_next_option_or_reject_at_once() {
        // 10 processors idle from 0, jobs 10 wide. Plan: P (runtime 10, d =
        // 10) at 0-10, Q (runtime 10, d = 1000) at 10-20. New: R (runtime
        // 10, d = 20). Options for N = 2: 0 and 1. Option 0 (R first): R
        // 0-10, then EDF [P, Q]: P 10-20 misses 10; K = 0: fails. Option 1
        // keeps P at 0-10, R 10-20 (on time), Q 20-30: admitted. Rejecting
        // at the first failed option (Fig. 3's "break") rejects R.
        let base = AvailabilityProfile::new(10, 0, 10, []);
        let plan = vec![
            Reservation {
                job: job(0, 10, 10, 10),
                start: 0,
            },
            Reservation {
                job: job(1, 10, 10, 1000),
                start: 10,
            },
        ];
        let r = job(2, 10, 10, 20);
        let mut counters = AdmissionCounters::default();
        let next = QopsConfig {
            k: 0,
            ..QopsConfig::default()
        };
        assert_eq!(
            starts(&qops(&base, 0, &plan, r, &next, &mut counters).unwrap()),
            [(0, 0), (2, 10), (1, 20)]
        );
        let at_once = QopsConfig {
            on_failure: OnFailure::Reject,
            ..next
        };
        assert_eq!(qops(&base, 0, &plan, r, &at_once, &mut counters), None);
    }

    #[test]
    fn option_positions() {
        assert_eq!(qops_options(0), [0]);
        assert_eq!(qops_options(1), [0]);
        assert_eq!(qops_options(2), [0, 1]);
        // 0, 4/2 = 2, 3*4/4 = 3.
        assert_eq!(qops_options(4), [0, 2, 3]);
        // 0, floor(5/2) = 2, floor(15/4) = 3, floor(35/8) = 4.
        assert_eq!(qops_options(5), [0, 2, 3, 4]);
        // 0, 8, 12, 14, 15.
        assert_eq!(qops_options(16), [0, 8, 12, 14, 15]);
    }

    #[test]
    fn mrt_backtracks_and_gives_up() {
        // 10 processors idle from 0, jobs 10 wide, all submitted at 0. EDF
        // order: U (runtime 30, d = 40), V (runtime 5, d = 41), W (runtime
        // 5, d = 50). U first: U 0-30 leaves V 30-35 on time and W 30-35
        // on time: strongly feasible. Then V 30-35, W 35-40: on time. No
        // backtrack.
        let base = AvailabilityProfile::new(10, 0, 10, []);
        let u = job(0, 10, 30, 40);
        let v = job(1, 10, 5, 41);
        let w = job(2, 10, 5, 50);
        let plan = vec![
            Reservation { job: u, start: 0 },
            Reservation { job: v, start: 30 },
        ];
        let mut counters = AdmissionCounters::default();
        let admitted = mrt(&base, 0, &plan, w, &MrtConfig::default(), &mut counters).unwrap();
        assert_eq!(starts(&admitted), [(0, 0), (1, 30), (2, 35)]);
        // X (runtime 10, d = 12) cannot be met after anything: the EDF
        // order X, U, V, W starts X 0-10; U 10-40 on time; V 40-45 misses
        // 41, so U's prefix [X, U] is not strongly feasible (backtrack 1);
        // V then W at depth 1 fail too... every order fails, within 100
        // backtracks: rejected, and with Bmax = 0 after the first.
        let x = job(3, 10, 10, 12);
        let plan3 = vec![
            Reservation { job: u, start: 0 },
            Reservation { job: v, start: 30 },
            Reservation { job: w, start: 35 },
        ];
        let mut counters = AdmissionCounters::default();
        assert_eq!(
            mrt(&base, 0, &plan3, x, &MrtConfig::default(), &mut counters),
            None
        );
        assert!(counters.backtracks >= 1);
        let mut once = AdmissionCounters::default();
        let config = MrtConfig {
            max_backtracks: 0,
            ..MrtConfig::default()
        };
        assert_eq!(mrt(&base, 0, &plan3, x, &config, &mut once), None);
        assert_eq!(once.backtracks, 1);
    }
}

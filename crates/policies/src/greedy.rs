//! The sorting criteria of Greedy scheduling with complex objectives
//! (Franke, Lepping and Schwiegelshohn, CI-Sched 2007, section III-A), and
//! a queue that finds the top job under them quickly.
//!
//! The paper's Greedy: "jobs are inserted into the waiting queue after
//! release as usual. Then the waiting queue is ordered using a sorting
//! criterion with dynamic components. Finally, the job at the top of the
//! queue is scheduled as in the FCFS algorithm" (section III), i.e. started
//! while it fits, no backfilling; the sorting "is repeated whenever a new
//! job is submitted or a job in the current schedule has completed". The
//! criterion depends on the scheduling situation: weekends, week days
//! 8 am-6 pm, week days 6 pm-8 am.
//!
//! The four criteria, for job j of user group i (1-5) at time t, with
//! submission r_j, estimate p̄_j and processors m_j:
//!
//! ```text
//! f1(j, t) = w_i (K_i + a (t - r_j) / p̄_j + b p̄_j / m_j)
//! f2(j, t) = w_i (K_i + a (t - r_j)       + b p̄_j m_j)
//! f3(j, t) = w_i (K_i + a (t - r_j) / (p̄_j m_j))
//! f4(j, t) = w_i (K_i + a (t - r_j)       + b p̄_j / m_j)
//! ```
//!
//! (the paper writes each as a sum over the groups with an indicator
//! ρ_i(j), which selects the job's own group). Bounds (section IV-C): w_i,
//! a, b in [0, 1], K_i in [0, 5]. Higher scores go first; equal scores go
//! by submission, then by job id.
//!
//! **Parameter count.** The text says the criteria have "12 static
//! parameters (a, b, {w_i, K_i})" and that "between 33 and 36 parameters
//! are required for a scheduler as sorting criterion f2(j, t) does not
//! require parameter w_i". Three situations with 12 parameters each make
//! 36; a criterion without the five w_i would allow as few as 3 x 7 = 21.
//! The range 33-36 adds up only if one criterion lacks exactly one
//! parameter, and the formulas show which: f3 has no b. We follow the
//! formulas: f1, f2 and f4 take 12 parameters, f3 takes 11 (a criterion of
//! f3 with b other than 0 is an error, never silently ignored).
//!
//! **Speed.** f2 and f4 are `w_i (K_i - a r_j + b g_j) + w_i a t`: a fixed
//! key per job plus a slope shared by its whole group, so each group's
//! order never changes while jobs wait, and [`GreedyQueue`] keeps one
//! ordered set per group and compares only the five group heads (the
//! scores of f2 and f4 are computed in this split form everywhere, so the
//! queue and [`SortingCriterion::score`] agree to the last bit). f1 and f3
//! divide the wait by the job's own estimate (and size): jobs overtake one
//! another as they wait. Their scores are lines in t, and the queue follows
//! the highest with a kinetic tournament (`crate::kinetic`): a pick costs
//! O(log n) per overtaking since the last pick instead of a scan of the
//! queue. The scores are computed as the formulas read, the wait divided
//! by p̄_j (f3: p̄_j m_j) first, never as `intercept + slope t`: jobs of a
//! group whose waits stand in the same ratio to their estimates (areas)
//! have equal scores, and they must tie to the last bit so that the
//! tie rule (submission, then id) orders them, not a rounding.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use schedsim_sim_core::{JobId, Time};

use crate::kinetic::{Growth, Tournament};
use serde::{Deserialize, Serialize};

/// The number of user groups the criteria weigh (the paper's Table II).
pub const USER_GROUPS: usize = 5;

/// One of the four sorting criteria.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Criterion {
    /// w_i (K_i + a (t - r_j) / p̄_j + b p̄_j / m_j).
    F1,
    /// w_i (K_i + a (t - r_j) + b p̄_j m_j).
    F2,
    /// w_i (K_i + a (t - r_j) / (p̄_j m_j)); no b.
    F3,
    /// w_i (K_i + a (t - r_j) + b p̄_j / m_j).
    F4,
}

impl Criterion {
    /// All four, in order.
    pub const ALL: [Criterion; 4] = [Self::F1, Self::F2, Self::F3, Self::F4];

    /// Whether it has the parameter b (all but f3).
    pub fn has_b(self) -> bool {
        self != Self::F3
    }

    /// Its number of parameters: 12, or 11 for f3.
    pub fn parameter_count(self) -> usize {
        1 + usize::from(self.has_b()) + 2 * USER_GROUPS
    }

    /// The bounds of its parameter vector ([`SortingCriterion::to_vector`]
    /// order): a, b (not f3), w_1..w_5 in [0, 1]; K_1..K_5 in [0, 5].
    pub fn bounds(self) -> Vec<(f64, f64)> {
        let mut bounds = vec![(0.0, 1.0); 1 + usize::from(self.has_b()) + USER_GROUPS];
        bounds.extend([(0.0, K_MAX); USER_GROUPS]);
        bounds
    }

    /// Whether a group's jobs keep their relative order while they wait
    /// (f2 and f4).
    fn group_order_is_fixed(self) -> bool {
        matches!(self, Self::F2 | Self::F4)
    }
}

/// The upper bound of K_i (section IV-C).
const K_MAX: f64 = 5.0;

/// The parameters of a criterion, as written in a parameter file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CriterionParams {
    /// Weight of the wait time, in [0, 1].
    pub a: f64,
    /// Weight of the estimate/size term, in [0, 1]; must be 0 for f3.
    #[serde(default)]
    pub b: f64,
    /// Weight w_i of user group i (index i - 1), each in [0, 1].
    pub w: [f64; USER_GROUPS],
    /// Offset K_i of user group i (index i - 1), each in [0, 5].
    pub k: [f64; USER_GROUPS],
}

/// Why a criterion's parameters are not usable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GreedyError {
    /// A parameter is outside its bounds (or not finite).
    #[error(
        "criterion {criterion:?}: parameter {name} is {}, expected a value in [{lower}, {upper}]",
        workload_format::readable_number(*value)
    )]
    OutOfBounds {
        /// The criterion.
        criterion: Criterion,
        /// The parameter, e.g. `w3`.
        name: String,
        /// Its value.
        value: f64,
        /// Lower bound.
        lower: f64,
        /// Upper bound.
        upper: f64,
    },
    /// f3 given a b other than 0.
    #[error("criterion F3 has no parameter b, but b is {}", workload_format::readable_number(*.0))]
    BForF3(f64),
    /// A parameter vector of the wrong length.
    #[error("criterion {criterion:?} takes {expected} parameters, not {found}")]
    VectorLength {
        /// The criterion.
        criterion: Criterion,
        /// Its parameter count.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A user group outside 1-5.
    #[error("user group {0} does not exist, expected 1 to 5")]
    BadGroup(usize),
}

/// A criterion with checked parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawCriterion", into = "RawCriterion")]
pub struct SortingCriterion {
    criterion: Criterion,
    params: CriterionParams,
}

/// The file form of a [`SortingCriterion`]: `{"criterion": "f2", "a": ..,
/// "b": .., "w": [..], "k": [..]}`.
#[derive(Serialize, Deserialize)]
struct RawCriterion {
    criterion: Criterion,
    #[serde(flatten)]
    params: CriterionParams,
}

impl TryFrom<RawCriterion> for SortingCriterion {
    type Error = GreedyError;

    fn try_from(raw: RawCriterion) -> Result<Self, GreedyError> {
        Self::new(raw.criterion, raw.params)
    }
}

impl From<SortingCriterion> for RawCriterion {
    fn from(criterion: SortingCriterion) -> Self {
        Self {
            criterion: criterion.criterion,
            params: criterion.params,
        }
    }
}

/// A waiting job as the criteria see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreedyJob {
    /// Its user group, 1-5.
    group: u8,
    /// Submission r_j.
    pub submit: Time,
    /// Estimate p̄_j (taken as at least 1 s).
    pub estimate: Time,
    /// Processors m_j (taken as at least 1).
    pub size: u32,
}

impl GreedyJob {
    /// A job of user group `group` (1-5).
    ///
    /// # Errors
    /// A group outside 1-5.
    pub fn new(group: usize, submit: Time, estimate: Time, size: u32) -> Result<Self, GreedyError> {
        if !(1..=USER_GROUPS).contains(&group) {
            return Err(GreedyError::BadGroup(group));
        }
        Ok(Self {
            group: group as u8,
            submit,
            estimate,
            size,
        })
    }

    /// Its user group, 1-5.
    pub fn group(&self) -> usize {
        usize::from(self.group)
    }

    fn estimate(&self) -> f64 {
        self.estimate.max(1) as f64
    }

    fn size(&self) -> f64 {
        f64::from(self.size.max(1))
    }
}

impl SortingCriterion {
    /// A criterion with `params`, checked against the paper's bounds.
    ///
    /// # Errors
    /// A parameter out of bounds or not finite, or b other than 0 for f3.
    pub fn new(criterion: Criterion, params: CriterionParams) -> Result<Self, GreedyError> {
        if criterion == Criterion::F3 && params.b != 0.0 {
            return Err(GreedyError::BForF3(params.b));
        }
        let check = |name: String, value: f64, upper: f64| {
            if (0.0..=upper).contains(&value) {
                Ok(())
            } else {
                Err(GreedyError::OutOfBounds {
                    criterion,
                    name,
                    value,
                    lower: 0.0,
                    upper,
                })
            }
        };
        check("a".into(), params.a, 1.0)?;
        check("b".into(), params.b, 1.0)?;
        for i in 0..USER_GROUPS {
            check(format!("w{}", i + 1), params.w[i], 1.0)?;
            check(format!("K{}", i + 1), params.k[i], K_MAX)?;
        }
        Ok(Self { criterion, params })
    }

    /// A criterion from a parameter vector in [`Criterion::bounds`] order
    /// (a, b unless f3, w_1..w_5, K_1..K_5): an evolution strategy's
    /// individual.
    ///
    /// # Errors
    /// A vector of the wrong length or a value out of bounds.
    pub fn from_vector(criterion: Criterion, values: &[f64]) -> Result<Self, GreedyError> {
        if values.len() != criterion.parameter_count() {
            return Err(GreedyError::VectorLength {
                criterion,
                expected: criterion.parameter_count(),
                found: values.len(),
            });
        }
        let (b, rest) = if criterion.has_b() {
            (values[1], &values[2..])
        } else {
            (0.0, &values[1..])
        };
        let mut params = CriterionParams {
            a: values[0],
            b,
            w: [0.0; USER_GROUPS],
            k: [0.0; USER_GROUPS],
        };
        params.w.copy_from_slice(&rest[..USER_GROUPS]);
        params.k.copy_from_slice(&rest[USER_GROUPS..]);
        Self::new(criterion, params)
    }

    /// The parameter vector (see [`SortingCriterion::from_vector`]).
    pub fn to_vector(&self) -> Vec<f64> {
        let p = &self.params;
        let mut values = vec![p.a];
        if self.criterion.has_b() {
            values.push(p.b);
        }
        values.extend(p.w);
        values.extend(p.k);
        values
    }

    /// Which criterion.
    pub fn criterion(&self) -> Criterion {
        self.criterion
    }

    /// Its parameters.
    pub fn params(&self) -> &CriterionParams {
        &self.params
    }

    /// The score of `job` at time `now` (higher goes first).
    pub fn score(&self, job: &GreedyJob, now: Time) -> f64 {
        if self.criterion.group_order_is_fixed() {
            self.fixed_key(job) + self.slope(job.group()) * now as f64
        } else {
            self.growth(job).at(now - job.submit)
        }
    }

    /// f1, f3: the score as a function of the wait, `w_i (base + a (t -
    /// r_j) / divisor)`, with base `K_i + b (p̄_j / m_j)` and divisor p̄_j
    /// (f3: base K_i, divisor p̄_j m_j). [`Growth::at`] divides the wait
    /// first, so that equal scores in the paper's arithmetic are equal f64
    /// (see the module docs); the queue follows it as a line in t
    /// (`crate::kinetic`).
    fn growth(&self, job: &GreedyJob) -> Growth {
        let p = &self.params;
        let i = job.group() - 1;
        let (base, divisor) = match self.criterion {
            Criterion::F1 => (p.k[i] + p.b * (job.estimate() / job.size()), job.estimate()),
            _ => (p.k[i], job.estimate() * job.size()),
        };
        Growth {
            w: p.w[i],
            base,
            a: p.a,
            divisor,
        }
    }

    /// f2, f4: w_i (K_i - a r_j + b g_j), the part of the score that does
    /// not change with time.
    fn fixed_key(&self, job: &GreedyJob) -> f64 {
        let p = &self.params;
        let i = job.group() - 1;
        let g = match self.criterion {
            Criterion::F2 => job.estimate() * job.size(),
            _ => job.estimate() / job.size(),
        };
        p.w[i] * (p.k[i] - p.a * job.submit as f64 + p.b * g)
    }

    /// f2, f4: w_i a, how fast the scores of group `group` grow.
    fn slope(&self, group: usize) -> f64 {
        self.params.w[group - 1] * self.params.a
    }
}

/// Higher score first, then earlier submission, then smaller id.
fn before(a: (f64, Time, JobId), b: (f64, Time, JobId)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// An f64 ordered by `total_cmp`, descending (for the per-group sets).
#[derive(Debug, Clone, Copy)]
struct Descending(f64);

impl PartialEq for Descending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Descending {}

impl PartialOrd for Descending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Descending {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0)
    }
}

/// The waiting jobs under one criterion, with fast access to the top.
///
/// ```
/// use schedsim_policies::{Criterion, CriterionParams, GreedyJob, GreedyQueue, SortingCriterion};
/// use schedsim_sim_core::JobId;
///
/// // f2 with w_i = 1, a = 1, b = K_i = 0 scores t - r_j: the oldest first.
/// let params = CriterionParams { a: 1.0, b: 0.0, w: [1.0; 5], k: [0.0; 5] };
/// let mut queue = GreedyQueue::new(SortingCriterion::new(Criterion::F2, params)?);
/// queue.insert(JobId(0), GreedyJob::new(3, 20, 100, 4)?);
/// queue.insert(JobId(1), GreedyJob::new(1, 10, 50, 8)?);
/// assert_eq!(queue.top(30), Some(JobId(1)));
/// // Greedy without backfilling: start the top while it fits.
/// assert_eq!(queue.pop_if_fits(30, 8, |id| [4, 8][id.index()]), Some(JobId(1)));
/// assert_eq!(queue.pop_if_fits(30, 0, |id| [4, 8][id.index()]), None);
/// # Ok::<(), schedsim_policies::GreedyError>(())
/// ```
#[derive(Debug, Clone)]
pub struct GreedyQueue {
    criterion: SortingCriterion,
    /// The waiting jobs, densely (f1 and f3 scan them all per pick).
    entries: Vec<(JobId, GreedyJob)>,
    /// f1, f3: the jobs' scores, lines in t, in a kinetic tournament.
    lines: Tournament,
    /// Per job index, its place in `entries` (`ABSENT` if not waiting).
    position: Vec<u32>,
    /// f2, f4: per group, (fixed key descending, submit, id).
    groups: [BTreeSet<(Descending, Time, JobId)>; USER_GROUPS],
}

/// A job not in [`GreedyQueue::entries`].
const ABSENT: u32 = u32::MAX;

impl GreedyQueue {
    /// An empty queue under `criterion`.
    pub fn new(criterion: SortingCriterion) -> Self {
        Self {
            criterion,
            entries: Vec::new(),
            lines: Tournament::default(),
            position: Vec::new(),
            groups: Default::default(),
        }
    }

    /// The criterion.
    pub fn criterion(&self) -> &SortingCriterion {
        &self.criterion
    }

    /// Switches to another criterion (a new scheduling situation); the
    /// per-group order is rebuilt.
    pub fn set_criterion(&mut self, criterion: SortingCriterion) {
        if criterion == self.criterion {
            return;
        }
        self.criterion = criterion;
        self.groups = Default::default();
        self.lines.clear();
        for &(id, job) in &self.entries {
            if criterion.criterion.group_order_is_fixed() {
                let entry = (Descending(criterion.fixed_key(&job)), job.submit, id);
                self.groups[job.group() - 1].insert(entry);
            } else {
                self.lines.insert(id, criterion.growth(&job), job.submit);
            }
        }
    }

    /// Waiting jobs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no job waits.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `id` waits in the queue.
    pub fn contains(&self, id: JobId) -> bool {
        self.position.get(id.index()).is_some_and(|&p| p != ABSENT)
    }

    /// Removes every job.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.lines.clear();
        self.position.clear();
        self.groups = Default::default();
    }

    /// Adds a waiting job (replacing one with the same id).
    pub fn insert(&mut self, id: JobId, job: GreedyJob) {
        self.remove(id);
        if self.criterion.criterion.group_order_is_fixed() {
            self.groups[job.group() - 1].insert(self.group_entry(id, &job));
        } else {
            self.lines
                .insert(id, self.criterion.growth(&job), job.submit);
        }
        if self.position.len() <= id.index() {
            self.position.resize(id.index() + 1, ABSENT);
        }
        self.position[id.index()] = self.entries.len() as u32;
        self.entries.push((id, job));
    }

    /// Removes a job (started, say); false if it was not waiting.
    pub fn remove(&mut self, id: JobId) -> bool {
        if !self.contains(id) {
            return false;
        }
        let place = self.position[id.index()] as usize;
        self.position[id.index()] = ABSENT;
        let (_, job) = self.entries.swap_remove(place);
        if let Some(&(moved, _)) = self.entries.get(place) {
            self.position[moved.index()] = place as u32;
        }
        if self.criterion.criterion.group_order_is_fixed() {
            let entry = self.group_entry(id, &job);
            self.groups[job.group() - 1].remove(&entry);
        } else {
            self.lines.remove(id);
        }
        true
    }

    /// The top job at time `now`: highest score, then earliest submission,
    /// then smallest id. f2, f4: the best of the five group heads; f1, f3:
    /// the kinetic tournament's winner (a query earlier than the last one
    /// rebuilds it).
    pub fn top(&mut self, now: Time) -> Option<JobId> {
        if !self.criterion.criterion.group_order_is_fixed() {
            return self.lines.top(now);
        }
        let best = |best: Option<(f64, Time, JobId)>, (id, job): (JobId, &GreedyJob)| {
            let candidate = (self.criterion.score(job, now), job.submit, id);
            match best {
                Some(b) if before(b, candidate) != Ordering::Greater => Some(b),
                _ => Some(candidate),
            }
        };
        self.groups
            .iter()
            .filter_map(|set| set.first())
            .map(|&(_, _, id)| (id, &self.entries[self.position[id.index()] as usize].1))
            .fold(None, best)
            .map(|(_, _, id)| id)
    }

    /// Greedy's step: the top job at `now` if its size (from `size_of`) is
    /// at most `free`, removed from the queue; `None` if the queue is empty
    /// or the top job does not fit (Greedy then waits: no backfilling).
    pub fn pop_if_fits(
        &mut self,
        now: Time,
        free: u32,
        size_of: impl Fn(JobId) -> u32,
    ) -> Option<JobId> {
        let top = self.top(now)?;
        if size_of(top) > free {
            return None;
        }
        self.remove(top);
        Some(top)
    }

    /// All waiting jobs in order at `now` (a full sort: for reports and
    /// tests; Greedy itself needs only [`GreedyQueue::top`]).
    pub fn ordered(&self, now: Time) -> Vec<JobId> {
        let mut all: Vec<(f64, Time, JobId)> = self
            .entries
            .iter()
            .map(|&(id, ref job)| (self.criterion.score(job, now), job.submit, id))
            .collect();
        all.sort_by(|&a, &b| before(a, b));
        all.into_iter().map(|(_, _, id)| id).collect()
    }

    fn group_entry(&self, id: JobId, job: &GreedyJob) -> (Descending, Time, JobId) {
        (Descending(self.criterion.fixed_key(job)), job.submit, id)
    }
}

/// The scheduling situations of section III-A, by the local time of the
/// log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Situation {
    /// Saturday and Sunday, all day.
    Weekend,
    /// Monday to Friday, 8:00 to before 18:00 ("between 8 am and 6 pm").
    WeekdayDay,
    /// Monday to Friday, 18:00 to before 8:00 of the same day's morning.
    WeekdayNight,
}

impl Situation {
    /// The situation at local `weekday` (1 = Monday .. 7 = Sunday) and
    /// `hour` (0-23). A weekday's night is split at midnight: Friday 23:00
    /// is a weekday night, Saturday 01:00 the weekend, Monday 01:00 a
    /// weekday night.
    pub fn of(weekday: u8, hour: u8) -> Self {
        if weekday >= 6 {
            Self::Weekend
        } else if (8..18).contains(&hour) {
            Self::WeekdayDay
        } else {
            Self::WeekdayNight
        }
    }
}

/// One criterion per situation: a trained Greedy scheduler's parameter
/// file (JSON: `{"weekend": {...}, "weekday_day": {...},
/// "weekday_night": {...}}`, each as in [`SortingCriterion`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GreedyParameters {
    /// Weekends.
    pub weekend: SortingCriterion,
    /// Week days 8:00-18:00.
    pub weekday_day: SortingCriterion,
    /// Week days 18:00-8:00.
    pub weekday_night: SortingCriterion,
}

impl GreedyParameters {
    /// The criterion of `situation`.
    pub fn criterion(&self, situation: Situation) -> &SortingCriterion {
        match situation {
            Situation::Weekend => &self.weekend,
            Situation::WeekdayDay => &self.weekday_day,
            Situation::WeekdayNight => &self.weekday_night,
        }
    }

    /// The number of parameters: 36, less one per f3 (33 to 36).
    pub fn parameter_count(&self) -> usize {
        [self.weekend, self.weekday_day, self.weekday_night]
            .iter()
            .map(|c| c.criterion.parameter_count())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> CriterionParams {
        CriterionParams {
            a: 0.5,
            b: 0.25,
            w: [1.0, 0.8, 0.6, 0.4, 0.2],
            k: [5.0, 4.0, 3.0, 2.0, 1.0],
        }
    }

    #[test]
    fn parameter_counts_add_up_to_33_to_36() {
        // a, b, w_1..w_5, K_1..K_5 = 12; f3 has no b: 11.
        let counts: Vec<usize> = Criterion::ALL.iter().map(|c| c.parameter_count()).collect();
        assert_eq!(counts, [12, 12, 11, 12]);
        let f2 = SortingCriterion::new(Criterion::F2, params()).unwrap();
        let f3 =
            SortingCriterion::new(Criterion::F3, CriterionParams { b: 0.0, ..params() }).unwrap();
        let all_f2 = GreedyParameters {
            weekend: f2,
            weekday_day: f2,
            weekday_night: f2,
        };
        let all_f3 = GreedyParameters {
            weekend: f3,
            weekday_day: f3,
            weekday_night: f3,
        };
        assert_eq!(
            (all_f2.parameter_count(), all_f3.parameter_count()),
            (36, 33)
        );
    }

    #[test]
    fn vectors_round_trip_in_bounds_order() {
        let f1 = SortingCriterion::new(Criterion::F1, params()).unwrap();
        let vector = f1.to_vector();
        assert_eq!(
            vector,
            [0.5, 0.25, 1.0, 0.8, 0.6, 0.4, 0.2, 5.0, 4.0, 3.0, 2.0, 1.0]
        );
        assert_eq!(
            SortingCriterion::from_vector(Criterion::F1, &vector),
            Ok(f1)
        );
        // f3: the same without b.
        let f3 =
            SortingCriterion::from_vector(Criterion::F3, &[&vector[..1], &vector[2..]].concat())
                .unwrap();
        assert_eq!(f3.params().b, 0.0);
        assert_eq!(f3.to_vector().len(), 11);
        let bounds = Criterion::F3.bounds();
        assert_eq!(bounds.len(), 11);
        assert_eq!(
            (bounds[0], bounds[6], bounds[10]),
            ((0.0, 1.0), (0.0, 5.0), (0.0, 5.0))
        );
        assert_eq!(
            SortingCriterion::from_vector(Criterion::F2, &vector[..11]),
            Err(GreedyError::VectorLength {
                criterion: Criterion::F2,
                expected: 12,
                found: 11
            })
        );
    }

    #[test]
    fn out_of_bounds_parameters_are_named() {
        let mut bad = params();
        bad.w[2] = 1.5;
        assert_eq!(
            SortingCriterion::new(Criterion::F2, bad)
                .unwrap_err()
                .to_string(),
            "criterion F2: parameter w3 is 1.5, expected a value in [0, 1]"
        );
        let mut bad = params();
        bad.k[0] = f64::NAN;
        assert!(matches!(
            SortingCriterion::new(Criterion::F4, bad),
            Err(GreedyError::OutOfBounds { ref name, .. }) if name == "K1"
        ));
        assert_eq!(
            SortingCriterion::new(Criterion::F3, params()),
            Err(GreedyError::BForF3(0.25))
        );
        assert_eq!(GreedyJob::new(6, 0, 1, 1), Err(GreedyError::BadGroup(6)));
        assert_eq!(GreedyJob::new(0, 0, 1, 1), Err(GreedyError::BadGroup(0)));
    }

    /// A parameter of 1e308 was written out in 309 digits.
    #[test]
    fn huge_parameters_are_written_short() {
        let params = CriterionParams {
            a: 1e308,
            b: 0.0,
            w: [1.0; USER_GROUPS],
            k: [0.0; USER_GROUPS],
        };
        let error = SortingCriterion::new(Criterion::F1, params).unwrap_err();
        assert_eq!(
            error.to_string(),
            "criterion F1: parameter a is 1e308, expected a value in [0, 1]"
        );
        assert_eq!(
            GreedyError::BForF3(1e-300).to_string(),
            "criterion F3 has no parameter b, but b is 1e-300"
        );
    }

    #[test]
    fn situations_by_local_time() {
        // Monday..Friday = 1..5, Saturday 6, Sunday 7.
        assert_eq!(Situation::of(1, 7), Situation::WeekdayNight); // Monday 07:xx
        assert_eq!(Situation::of(1, 8), Situation::WeekdayDay); // 8 am
        assert_eq!(Situation::of(5, 17), Situation::WeekdayDay); // Friday 17:xx
        assert_eq!(Situation::of(5, 18), Situation::WeekdayNight); // 6 pm
        assert_eq!(Situation::of(5, 23), Situation::WeekdayNight);
        assert_eq!(Situation::of(6, 12), Situation::Weekend);
        assert_eq!(Situation::of(7, 23), Situation::Weekend);
    }

    #[test]
    fn parameter_files_are_json() {
        let f2 = SortingCriterion::new(Criterion::F2, params()).unwrap();
        let f3 =
            SortingCriterion::new(Criterion::F3, CriterionParams { b: 0.0, ..params() }).unwrap();
        let file = GreedyParameters {
            weekend: f3,
            weekday_day: f2,
            weekday_night: f2,
        };
        let json = serde_json::to_string(&file).unwrap();
        assert!(json.starts_with(r#"{"weekend":{"criterion":"f3","a":0.5,"b":0.0,"w":[1.0,"#));
        assert_eq!(
            serde_json::from_str::<GreedyParameters>(&json).unwrap(),
            file
        );
        assert_eq!(file.criterion(Situation::Weekend), &f3);
        // Bounds are checked on reading, and b may be left out for f3.
        let bad = r#"{"criterion":"f2","a":2,"b":0,"w":[1,1,1,1,1],"k":[0,0,0,0,0]}"#;
        let error = serde_json::from_str::<SortingCriterion>(bad).unwrap_err();
        assert!(error.to_string().contains("parameter a is 2"), "{error}");
        let no_b = r#"{"criterion":"f3","a":1,"w":[1,1,1,1,1],"k":[0,0,0,0,0]}"#;
        assert!(serde_json::from_str::<SortingCriterion>(no_b).is_ok());
    }

    /// f3 with only group 1 weighted: the parameters of the proptest case
    /// kept in tests/integration/greedy.proptest-regressions.
    fn shrunk_f3() -> SortingCriterion {
        SortingCriterion::new(
            Criterion::F3,
            CriterionParams {
                a: 0.5264271495939606,
                b: 0.0,
                w: [0.18931377678474398, 0.0, 0.0, 0.0, 0.0],
                k: [4.629659526637308, 0.0, 0.0, 0.0, 0.0],
            },
        )
        .unwrap()
    }

    #[test]
    fn parameter_files_read_back_the_very_values_written() {
        // serde_json's default float parser reads 0.18931377678474398 (the
        // shortest text of that f64) one ulp low, as 0.189313776784744;
        // the crate turns on float_roundtrip, so a policy built from a
        // parameter file runs with exactly the parameters written.
        let f3 = shrunk_f3();
        let w = f3.params().w[0];
        let json = serde_json::to_string(&f3).unwrap();
        assert!(json.contains("0.18931377678474398"), "{json}");
        let back: SortingCriterion = serde_json::from_str(&json).unwrap();
        assert_eq!(back.params().w[0].to_bits(), w.to_bits());
        assert_eq!(back, f3);
    }

    #[test]
    fn equal_f1_and_f3_scores_tie_to_the_last_bit() {
        // f3 in group 1: w_1 (K_1 + a (t - r) / (p m)). At t = 54, job A
        // (r = 10, p = 10, m = 16) has waited 44 / 160 and job B (r = 32,
        // p = 40, m = 2) 22 / 80: both 0.275, equal scores, so A (earlier
        // submission) goes first. Written as a line, `w_1 K_1 - slope r +
        // slope t`, B came out one ulp higher.
        let criterion = shrunk_f3();
        let a = GreedyJob::new(1, 10, 10, 16).unwrap();
        let b = GreedyJob::new(1, 32, 40, 2).unwrap();
        assert_eq!(criterion.score(&a, 54), criterion.score(&b, 54));
        assert!(criterion.score(&a, 53) > criterion.score(&b, 53));
        assert!(criterion.score(&a, 55) < criterion.score(&b, 55));
        let mut queue = GreedyQueue::new(criterion);
        // B has the smaller id: only the submission puts A first at 54.
        queue.insert(JobId(1), a);
        queue.insert(JobId(0), b);
        assert_eq!(queue.top(10), Some(JobId(1)));
        assert_eq!(queue.top(32), Some(JobId(1)));
        assert_eq!(queue.top(54), Some(JobId(1)));
        assert_eq!(queue.ordered(54), [JobId(1), JobId(0)]);
        assert_eq!(queue.top(55), Some(JobId(0)));
        // f1 in the same way: w_1 (K_1 + a (t - r) / p + b p / m), with
        // equal p / m (4 / 2 and 2 / 1) and, at t = 54, waits 44 / 4 and
        // 22 / 2, both 11.
        let f1 = SortingCriterion::new(
            Criterion::F1,
            CriterionParams {
                b: 0.3,
                ..*criterion.params()
            },
        )
        .unwrap();
        let c = GreedyJob::new(1, 10, 4, 2).unwrap();
        let d = GreedyJob::new(1, 32, 2, 1).unwrap();
        assert_eq!(f1.score(&c, 54), f1.score(&d, 54));
        let mut queue = GreedyQueue::new(f1);
        queue.insert(JobId(1), c);
        queue.insert(JobId(0), d);
        assert_eq!(queue.top(32), Some(JobId(1)));
        assert_eq!(queue.top(54), Some(JobId(1)));
        assert_eq!(queue.top(55), Some(JobId(0)));
    }

    #[test]
    fn f2_and_f4_scores_grow_by_the_group_slope() {
        // Within a group, f2/f4 scores rise by w_i a per second, so their
        // order is fixed: score(t + 100) - score(t) = 0.8 * 0.5 * 100 = 40.
        let f4 = SortingCriterion::new(Criterion::F4, params()).unwrap();
        let job = GreedyJob::new(2, 0, 100, 8).unwrap();
        assert!((f4.score(&job, 600) - f4.score(&job, 500) - 40.0).abs() < 1e-9);
        // f4 = w_2 (K_2 + a t + b p / m) = 0.8 (4 + 0.5 * 500 + 0.25 * 100 / 8)
        // = 0.8 (4 + 250 + 3.125) = 205.7.
        assert!((f4.score(&job, 500) - 205.7).abs() < 1e-9);
    }
}

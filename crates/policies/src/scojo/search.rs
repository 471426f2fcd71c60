//! The search for a group's job order (thesis sections 6.4, 6.5, 7.3, 7.4):
//! level 1 tries every order of the long-wide jobs, level 2 searches
//! permutations of the group (split into sub-groups when it is of the
//! maximum size) in discrepancy order from the largest-slowdown-first
//! heuristic, with branch and bound on total bounded slowdown,
//! force-shifting into earlier holes and a best-of-three selection.
//!
//! Every order is scheduled virtually, in the "optimisation frame" where
//! the group's class has the machine to itself: each job in turn at its
//! earliest fit in an [`AvailabilityProfile`] that starts from the running
//! jobs (conservative backfilling in the order's priority). A job's
//! virtual response time is stretched by its class's share of the cycle
//! (section 7: "(virtual current time + j.getRemainingRuntime() - actual
//! current time)/0.73"), and its bounded slowdown is
//! max(response / max(runtime, BOUND), 1), rounded up unless
//! [`Rounding::Real`].

use schedsim_sim_core::{AvailabilityProfile, JobId, Time};

use super::config::{Rounding, SearchConfig, SearchOrder, Selection};

/// A job of a group, as the search sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchJob {
    /// The job.
    pub id: JobId,
    /// When it was submitted.
    pub submit: Time,
    /// Processors it needs.
    pub size: u32,
    /// Its runtime (estimate), seconds.
    pub runtime: Time,
    /// Whether it is long-wide (a candidate for level 1).
    pub wide: bool,
}

/// What the search works on.
#[derive(Debug, Clone, Copy)]
pub struct SearchInput<'a> {
    /// The real current time: virtual schedules start here.
    pub now: Time,
    /// The class's share of the cycle: virtual waits are divided by it.
    pub share: f64,
    /// Free processors over time before the group: the running jobs (and
    /// anything else the group must not use).
    pub base: &'a AvailabilityProfile,
    /// The group, in queue order.
    pub jobs: &'a [SearchJob],
    /// The class's maximum group size: a group this large is split into
    /// sub-groups for level 2.
    pub max_group: usize,
}

/// What a search did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchCounters {
    /// Complete orders virtually scheduled and evaluated (level 1, level 2
    /// and force-shifted orders): never more than the budget.
    pub schedules: u64,
    /// Orders level 1 accounted for: evaluated, or cut off in a pruned
    /// subtree (k! for k long-wide jobs when the budget allows).
    pub level1_orders: u64,
    /// Search-tree nodes: jobs placed in a virtual schedule.
    pub nodes: u64,
    /// Nodes whose subtree branch and bound cut off.
    pub pruned: u64,
    /// Force-shifted orders evaluated.
    pub shifted: u64,
    /// Searches that stopped because the budget was used up.
    pub budget_exhausted: u64,
    /// Searches that stopped because their node budget was used up (see
    /// [`NODES_PER_SCHEDULE`]).
    pub node_budget_exhausted: u64,
}

/// Search-tree nodes allowed per schedule of the budget. The thesis bounds
/// the schedules evaluated (10,000 per group); with branch and bound most
/// paths are cut before they become schedules, and the discrepancy passes
/// over a group of 20-30 jobs can then visit factorially many nodes without
/// spending any budget. Bounding the nodes as well (an addition of ours)
/// keeps every search finite: at most `budget x 50` placements. The default
/// of [`SearchConfig::nodes_per_schedule`](super::SearchConfig) (option
/// `nodes`).
pub const NODES_PER_SCHEDULE: u64 = 50;

/// The most placements a spec may allow one group's search, `budget x
/// nodes`: 10^7, twenty times the default 10,000 x 50. On the 1000-job
/// fixture `budget=1000000` (5 x 10^7 placements) took 8.6 s for its one
/// group, so 10^7 is about two seconds; `budget=4294967295` did not end
/// within 20 s.
pub const MAX_SEARCH_NODES: u64 = 10_000_000;

impl SearchCounters {
    /// Adds another search's counters.
    pub fn add(&mut self, other: &Self) {
        self.schedules += other.schedules;
        self.level1_orders += other.level1_orders;
        self.nodes += other.nodes;
        self.pruned += other.pruned;
        self.shifted += other.shifted;
        self.budget_exhausted += other.budget_exhausted;
        self.node_budget_exhausted += other.node_budget_exhausted;
    }
}

/// The order chosen for a group and its virtual schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    /// Indices into the input's jobs, in plan order.
    pub order: Vec<usize>,
    /// Virtual start of each job (by input index) when the order is
    /// scheduled on the base profile.
    pub starts: Vec<Time>,
    /// Total bounded slowdown of the order.
    pub total_bsld: f64,
    /// What the search did.
    pub counters: SearchCounters,
}

/// One evaluated schedule kept among the best.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    total: f64,
    order: Vec<usize>,
    /// Last virtual finish minus now.
    makespan: Time,
    utilization: f64,
    mean_response: f64,
}

/// The best `k` candidates by total, ties to the first found.
#[derive(Debug, Clone, Default)]
struct Best {
    k: usize,
    list: Vec<Candidate>,
}

impl Best {
    fn new(k: usize) -> Self {
        Self {
            k,
            list: Vec::with_capacity(k + 1),
        }
    }

    /// The total a new schedule must beat to be kept, once `k` are kept.
    fn threshold(&self) -> Option<f64> {
        (self.list.len() >= self.k).then(|| self.list[self.k - 1].total)
    }

    fn offer(&mut self, candidate: Candidate) {
        if self.threshold().is_some_and(|t| !beats(candidate.total, t)) {
            return;
        }
        let position = self
            .list
            .partition_point(|c| !beats(candidate.total, c.total));
        self.list.insert(position, candidate);
        self.list.truncate(self.k);
    }
}

/// Relative tolerance under which two totals tie. Totals are sums of
/// bounded slowdowns in path order, so two orders with the same total can
/// differ in the last bit (unrounded slowdowns); without a tolerance the
/// pruned and the unpruned search could break such a tie differently (the
/// proptest that they agree found one).
const TIE: f64 = 1e-9;

/// Whether `total` is better than `threshold` by more than a tie.
fn beats(total: f64, threshold: f64) -> bool {
    total < threshold - TIE * threshold.abs().max(1.0)
}

/// Searches the best order of a group (see the module docs). The result
/// is deterministic: ties are broken by the order in which schedules are
/// found, which depends only on the input.
pub fn search_group(input: &SearchInput<'_>, config: &SearchConfig) -> SearchOutcome {
    let mut searcher = Searcher::new(input, config);
    let initial = searcher.initial_order();
    let order = if config.level2 {
        searcher.level2(&initial)
    } else {
        initial
    };
    let mut profile = input.base.clone();
    let mut starts = vec![input.now; input.jobs.len()];
    let mut total = 0.0;
    for &j in &order {
        let start = place(&mut profile, input.now, &input.jobs[j]);
        starts[j] = start;
        total += searcher.bsld(j, start);
    }
    SearchOutcome {
        order,
        starts,
        total_bsld: total,
        counters: searcher.counters,
    }
}

/// Places a job at its earliest fit from `now` and returns its start (a
/// job larger than the machine, which the job model rules out, is left
/// out at `now`).
fn place(profile: &mut AvailabilityProfile, now: Time, job: &SearchJob) -> Time {
    let duration = job.runtime.max(1);
    match profile.earliest_fit(now, job.size, duration) {
        Some(start) => {
            // Cannot fail: earliest_fit found the room.
            let _ = profile.reserve(start, duration, job.size);
            start
        }
        None => now,
    }
}

/// How the permutation tree is walked in one pass.
#[derive(Debug, Clone, Copy)]
enum Pass {
    /// Every child.
    All,
    /// Exactly this many discrepancies on the path (LDS iteration).
    Exactly(usize),
    /// The deepest discrepancy at this depth (DDS iteration `depth + 1`);
    /// `None`: the heuristic path only.
    DeepestAt(Option<usize>),
}

struct Searcher<'a> {
    input: &'a SearchInput<'a>,
    config: &'a SearchConfig,
    /// Lower bound of each job's bounded slowdown: started now.
    lower: Vec<f64>,
    counters: SearchCounters,
    budget_left: u64,
    /// Placements left in the current chunk's search.
    nodes_left: u64,
    // The walk's state.
    profile: AvailabilityProfile,
    /// Jobs not yet placed, heuristic order (indices into input.jobs).
    remaining: Vec<usize>,
    path: Vec<usize>,
    starts: Vec<Time>,
    best: Best,
    stopped: bool,
    /// What the objective and statistics cover: the jobs being permuted.
    objective_jobs: usize,
    /// Level 2: the profile with the fixed prefix placed (for shifts).
    chunk_base: Option<AvailabilityProfile>,
    /// Makespan and response sum of the fixed prefix.
    prefix_makespan: Time,
    level1: bool,
}

impl<'a> Searcher<'a> {
    fn new(input: &'a SearchInput<'a>, config: &'a SearchConfig) -> Self {
        let mut searcher = Self {
            input,
            config,
            lower: Vec::with_capacity(input.jobs.len()),
            counters: SearchCounters::default(),
            budget_left: config.budget,
            nodes_left: 0,
            profile: input.base.clone(),
            remaining: Vec::new(),
            path: Vec::new(),
            starts: vec![input.now; input.jobs.len()],
            best: Best::new(1),
            stopped: false,
            objective_jobs: 0,
            chunk_base: None,
            prefix_makespan: 0,
            level1: false,
        };
        searcher.lower = (0..input.jobs.len())
            .map(|j| searcher.bsld(j, input.now))
            .collect();
        searcher
    }

    /// Virtual response time of job `j` started at `start`.
    fn response(&self, j: usize, start: Time) -> f64 {
        let job = &self.input.jobs[j];
        let now = self.input.now;
        let ahead = (start + job.runtime - now) as f64 / self.input.share;
        (now - job.submit) as f64 + ahead
    }

    fn bsld(&self, j: usize, start: Time) -> f64 {
        let job = &self.input.jobs[j];
        let value = (self.response(j, start) / job.runtime.max(self.config.bound) as f64).max(1.0);
        match self.config.rounding {
            Rounding::Ceil => value.ceil(),
            Rounding::Real => value,
        }
    }

    /// The largest-slowdown-first key: the unrounded bounded slowdown if
    /// the job started now.
    fn lsf_key(&self, j: usize) -> f64 {
        let job = &self.input.jobs[j];
        (self.response(j, self.input.now) / job.runtime.max(self.config.bound) as f64).max(1.0)
    }

    /// `jobs` in largest-slowdown-first order, ties by submit time then
    /// input order.
    fn lsf(&self, jobs: &mut [usize]) {
        let keys: Vec<f64> = (0..self.input.jobs.len())
            .map(|j| self.lsf_key(j))
            .collect();
        jobs.sort_by(|&a, &b| {
            keys[b]
                .total_cmp(&keys[a])
                .then(self.input.jobs[a].submit.cmp(&self.input.jobs[b].submit))
                .then(a.cmp(&b))
        });
    }

    /// Level 1 and the heuristic: the largest-slowdown-first order in
    /// which the long-wide jobs keep the best relative order level 1 found
    /// (Fig. 11: "Virtually schedule the next long-wide job from the best
    /// schedule", then "heuristic.getNextJob()").
    fn initial_order(&mut self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.input.jobs.len()).collect();
        self.lsf(&mut order);
        let mut wide: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&j| self.input.jobs[j].wide)
            .collect();
        if !self.config.level1 || wide.len() < self.config.min_wide {
            return order;
        }
        // The most slowed-down long-wide jobs, in LSF order already.
        wide.truncate(self.config.max_wide);
        let best = self.level1(&wide);
        let mut next_wide = best.iter();
        order
            .iter()
            .map(|&j| {
                if wide.contains(&j) {
                    *next_wide.next().unwrap_or(&j)
                } else {
                    j
                }
            })
            .collect()
    }

    /// Every order of the long-wide jobs alone on the base profile; the
    /// lowest total bounded slowdown wins (ties: the first in
    /// lexicographic order of the LSF order's positions).
    fn level1(&mut self, wide: &[usize]) -> Vec<usize> {
        self.level1 = true;
        self.profile = self.input.base.clone();
        self.remaining = wide.to_vec();
        self.path.clear();
        self.best = Best::new(1);
        self.objective_jobs = wide.len();
        self.chunk_base = None;
        self.prefix_makespan = 0;
        self.stopped = false;
        // Level 1 spends the group's budget, and its node budget likewise
        // (it once started with none left and never ran).
        self.nodes_left = self
            .budget_left
            .saturating_mul(self.config.nodes_per_schedule);
        self.walk(Pass::All, 0.0, 0, 0.0);
        self.level1 = false;
        self.best
            .list
            .first()
            .map_or_else(|| wide.to_vec(), |c| c.order.clone())
    }

    /// Level 2: the initial order split into sub-groups, each searched in
    /// turn after the best orders of those before it.
    fn level2(&mut self, initial: &[usize]) -> Vec<usize> {
        let n = initial.len();
        let chunks = if n >= self.input.max_group && n > self.config.split {
            n.div_ceil(self.config.split)
        } else {
            1
        };
        let mut fixed: Vec<usize> = Vec::with_capacity(n);
        let mut base = self.input.base.clone();
        let mut prefix_makespan: Time = 0;
        let mut from = 0;
        for chunk in 0..chunks {
            // Sizes as equal as possible, the larger first.
            let size = n / chunks + usize::from(chunk < n % chunks);
            let jobs = &initial[from..from + size];
            from += size;
            let budget = self.budget_left / (chunks - chunk) as u64;
            let chosen = self.search_chunk(jobs, &base, prefix_makespan, budget);
            for &j in &chosen {
                let start = place(&mut base, self.input.now, &self.input.jobs[j]);
                prefix_makespan =
                    prefix_makespan.max(start + self.input.jobs[j].runtime - self.input.now);
            }
            fixed.extend(chosen);
        }
        fixed
    }

    /// Searches the orders of `jobs` after a fixed prefix (already in
    /// `base`) with at most `budget` schedules, and returns the one the
    /// selection rule picks.
    fn search_chunk(
        &mut self,
        jobs: &[usize],
        base: &AvailabilityProfile,
        prefix_makespan: Time,
        budget: u64,
    ) -> Vec<usize> {
        let k = match self.config.selection {
            Selection::MinBsld => 1,
            Selection::Tolerant | Selection::Literal => 3,
        };
        self.best = Best::new(k);
        self.profile = base.clone();
        self.chunk_base = (self.config.shift > 0.0).then(|| base.clone());
        self.prefix_makespan = prefix_makespan;
        self.objective_jobs = jobs.len();
        self.stopped = false;
        let spent_before = self.budget_left;
        // The budget of this chunk only: what is left over goes on.
        let rest = self.budget_left - budget.min(self.budget_left);
        self.budget_left = budget.min(self.budget_left);
        self.nodes_left = self
            .budget_left
            .saturating_mul(self.config.nodes_per_schedule);
        let n = jobs.len();
        let passes: Vec<Pass> = match self.config.order {
            SearchOrder::Dfs => vec![Pass::All],
            SearchOrder::Lds => (0..n.max(1)).map(Pass::Exactly).collect(),
            SearchOrder::Dds => std::iter::once(Pass::DeepestAt(None))
                .chain((0..n.saturating_sub(1)).map(|d| Pass::DeepestAt(Some(d))))
                .collect(),
        };
        for pass in passes {
            if self.stopped {
                break;
            }
            self.remaining = jobs.to_vec();
            self.path.clear();
            self.walk(pass, 0.0, 0, 0.0);
        }
        self.budget_left += rest;
        debug_assert!(self.budget_left <= spent_before);
        select(&self.best.list, self.config).map_or_else(|| jobs.to_vec(), |c| c.order.clone())
    }

    /// The depth-first walk below the current path. `partial` is the total
    /// bounded slowdown of the permuted jobs placed so far, `makespan` the
    /// latest finish (minus now) and `responses` their response sum.
    fn walk(&mut self, pass: Pass, partial: f64, makespan: Time, responses: f64) {
        let m = self.remaining.len();
        if m == 0 {
            self.leaf(partial, makespan, responses);
            return;
        }
        let depth = self.path.len();
        for child in 0..m {
            if self.stopped {
                return;
            }
            let (allowed, discrepancy) = match pass {
                Pass::All => (true, pass),
                Pass::Exactly(d) => {
                    if child == 0 {
                        // The rest of the path must still hold d: at most
                        // m - 2 discrepancies fit below (the last job has
                        // one choice).
                        (d <= m.saturating_sub(2), Pass::Exactly(d))
                    } else {
                        // One discrepancy here; the rest must fit below.
                        (
                            d >= 1 && d - 1 <= (m - 1).saturating_sub(1),
                            Pass::Exactly(d.saturating_sub(1)),
                        )
                    }
                }
                Pass::DeepestAt(deepest) => {
                    let ok = match deepest {
                        None => child == 0,
                        Some(at) if depth < at => true,
                        Some(at) if depth == at => child > 0,
                        Some(_) => child == 0,
                    };
                    (ok, pass)
                }
            };
            if !allowed {
                continue;
            }
            if self.nodes_left == 0 {
                self.stopped = true;
                self.counters.node_budget_exhausted += 1;
                return;
            }
            self.nodes_left -= 1;
            let j = self.remaining.remove(child);
            let checkpoint = self.profile.checkpoint();
            let start = place(&mut self.profile, self.input.now, &self.input.jobs[j]);
            self.counters.nodes += 1;
            self.starts[j] = start;
            let cost = self.bsld(j, start);
            let partial = partial + cost;
            let finish = start + self.input.jobs[j].runtime - self.input.now;
            let responses = responses + self.response(j, start);
            let bound_exceeded = self.config.branch_and_bound
                && self.best.threshold().is_some_and(|threshold| {
                    let rest: f64 = self.remaining.iter().map(|&r| self.lower[r]).sum();
                    !beats(partial + rest, threshold)
                });
            if bound_exceeded {
                self.counters.pruned += 1;
                if self.level1 {
                    self.counters.level1_orders += factorial(self.remaining.len());
                }
            } else {
                self.path.push(j);
                self.walk(discrepancy, partial, makespan.max(finish), responses);
                self.path.pop();
            }
            self.profile.rollback(checkpoint);
            self.remaining.insert(child, j);
        }
    }

    /// A complete order: counted, kept if among the best, then
    /// force-shifted.
    fn leaf(&mut self, total: f64, makespan: Time, responses: f64) {
        if self.budget_left == 0 {
            self.stopped = true;
            self.counters.budget_exhausted += 1;
            return;
        }
        self.budget_left -= 1;
        self.counters.schedules += 1;
        if self.level1 {
            self.counters.level1_orders += 1;
        }
        if self
            .best
            .threshold()
            .is_none_or(|threshold| beats(total, threshold))
        {
            let candidate = self.candidate(total, makespan, responses);
            self.best.offer(candidate);
        }
        if !self.level1 && self.config.shift > 0.0 {
            self.force_shift();
        }
    }

    fn candidate(&self, total: f64, makespan: Time, responses: f64) -> Candidate {
        let makespan = makespan.max(self.prefix_makespan).max(1);
        Candidate {
            total,
            order: self.path.clone(),
            makespan,
            utilization: utilization(&self.profile, self.input.now, makespan),
            mean_response: responses / self.objective_jobs.max(1) as f64,
        }
    }

    /// Section 6.5: a job whose runtime is at most `shift` times an earlier
    /// hole's length (a hole where its processors are free but too briefly)
    /// is moved before the jobs that start in or after the hole, pushing
    /// them later; the new order is scheduled and evaluated, and shifting
    /// restarts on it ("restarts loop with the new shifted order"), each
    /// job at most once per chain.
    fn force_shift(&mut self) {
        let Some(base) = &self.chunk_base else {
            return;
        };
        let base = base.clone();
        let Some((mut order, mut job)) = find_shift(
            self.input,
            self.config.shift,
            &self.path,
            &self.starts,
            &mut self.profile,
            &[],
        ) else {
            return;
        };
        let mut moved = vec![false; self.input.jobs.len()];
        let mut starts = self.starts.clone();
        loop {
            if self.budget_left == 0 {
                self.stopped = true;
                self.counters.budget_exhausted += 1;
                return;
            }
            moved[job] = true;
            // Schedule the shifted order from the chunk's base.
            let mut profile = base.clone();
            let (mut total, mut makespan, mut responses) = (0.0, 0, 0.0);
            for &j in &order {
                let start = place(&mut profile, self.input.now, &self.input.jobs[j]);
                self.counters.nodes += 1;
                starts[j] = start;
                total += self.bsld(j, start);
                makespan = makespan.max(start + self.input.jobs[j].runtime - self.input.now);
                responses += self.response(j, start);
            }
            self.budget_left -= 1;
            self.counters.schedules += 1;
            self.counters.shifted += 1;
            if self
                .best
                .threshold()
                .is_none_or(|threshold| beats(total, threshold))
            {
                let makespan = makespan.max(self.prefix_makespan).max(1);
                self.best.offer(Candidate {
                    total,
                    order: order.clone(),
                    makespan,
                    utilization: utilization(&profile, self.input.now, makespan),
                    mean_response: responses / self.objective_jobs.max(1) as f64,
                });
            }
            match find_shift(
                self.input,
                self.config.shift,
                &order,
                &starts,
                &mut profile,
                &moved,
            ) {
                Some((next, next_job)) => (order, job) = (next, next_job),
                None => return,
            }
        }
    }
}

/// The first job of `order` (after the first, not in `moved`) that can be
/// force-shifted: a hole of the schedule without it starts before its
/// start, is at least runtime / `ratio` long, and some job before it in
/// the order starts in or after the hole. Returns the shifted order (the
/// job just before the first such job) and the job. `starts` are by job
/// index; `profile` holds the whole schedule and is left as it was.
fn find_shift(
    input: &SearchInput<'_>,
    ratio: f64,
    order: &[usize],
    starts: &[Time],
    profile: &mut AvailabilityProfile,
    moved: &[bool],
) -> Option<(Vec<usize>, usize)> {
    let now = input.now;
    for position in 1..order.len() {
        let j = order[position];
        if moved.get(j).copied().unwrap_or(false) {
            continue;
        }
        let job = &input.jobs[j];
        let start = starts[j];
        if start <= now {
            continue;
        }
        let duration = job.runtime.max(1);
        // The schedule without the job.
        let checkpoint = profile.checkpoint();
        let _ = profile.release(start, duration, job.size);
        let hole = first_hole(profile, now, job.size);
        profile.rollback(checkpoint);
        let Some((from, to)) = hole else { continue };
        if from >= start || (duration as f64) > ratio * (to - from) as f64 {
            continue;
        }
        // Jobs before it in the order that start in or after the hole.
        let Some(first) = (0..position).find(|&p| starts[order[p]] >= from) else {
            continue;
        };
        let mut shifted = order.to_vec();
        shifted.remove(position);
        shifted.insert(first, j);
        return Some((shifted, j));
    }
    None
}

/// The first interval from `now` during which at least `size` processors
/// are free: (start, end), the end `Time::MAX` if it never closes.
fn first_hole(profile: &AvailabilityProfile, now: Time, size: u32) -> Option<(Time, Time)> {
    let mut start = None;
    for (time, free) in profile.steps() {
        let time = time.max(now);
        match start {
            None if free >= size => start = Some(time),
            Some(from) if free < size => return Some((from, time)),
            _ => {}
        }
    }
    start.map(|from| (from, Time::MAX))
}

/// Busy share of the machine over [now, now + makespan) in a profile.
fn utilization(profile: &AvailabilityProfile, now: Time, makespan: Time) -> f64 {
    let end = now + makespan;
    let capacity = f64::from(profile.capacity());
    let mut free_area = 0.0;
    let mut steps = profile.steps().peekable();
    while let Some((time, free)) = steps.next() {
        let from = time.max(now);
        let to = steps.peek().map_or(end, |&(next, _)| next.min(end));
        if to > from {
            free_area += f64::from(free) * (to - from) as f64;
        }
        if to >= end {
            break;
        }
    }
    1.0 - free_area / (capacity * makespan as f64)
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

/// The best-of-three rule (see [`Selection`]): the first candidate chosen
/// against every other, else the best by total bounded slowdown.
fn select<'c>(candidates: &'c [Candidate], config: &SearchConfig) -> Option<&'c Candidate> {
    let chosen_against = |a: &Candidate, b: &Candidate| {
        let (ma, mb) = (a.makespan as f64, b.makespan as f64);
        let makespan = match config.selection {
            Selection::Literal => ma > config.alpha * mb,
            Selection::Tolerant | Selection::MinBsld => ma < config.alpha * mb,
        };
        makespan
            && a.utilization > config.beta * b.utilization
            && a.mean_response < config.gamma * b.mean_response
    };
    if config.selection == Selection::MinBsld {
        return candidates.first();
    }
    candidates
        .iter()
        .enumerate()
        .find(|&(i, a)| {
            candidates
                .iter()
                .enumerate()
                .all(|(j, b)| i == j || chosen_against(a, b))
        })
        .map(|(_, c)| c)
        .or_else(|| candidates.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u32, submit: Time, size: u32, runtime: Time) -> SearchJob {
        SearchJob {
            id: JobId(id),
            submit,
            size,
            runtime,
            wide: false,
        }
    }

    #[test]
    fn bounded_slowdown_stretches_the_virtual_wait_by_the_share() {
        // now = 1000, share 0.5. A job submitted at 400, runtime 300,
        // started virtually at 1100: response = (1000 - 400) + (1100 + 300
        // - 1000) / 0.5 = 600 + 800 = 1400; BSLD = 1400 / max(300, 600) =
        // 2.33, rounded up to 3 (or 2.33 unrounded).
        let base = AvailabilityProfile::new(10, 1000, 10, []);
        let jobs = [job(0, 400, 4, 300)];
        let input = SearchInput {
            now: 1000,
            share: 0.5,
            base: &base,
            jobs: &jobs,
            max_group: 30,
        };
        let config = SearchConfig::default();
        let searcher = Searcher::new(&input, &config);
        assert_eq!(searcher.response(0, 1100), 1400.0);
        assert_eq!(searcher.bsld(0, 1100), 3.0);
        let real = SearchConfig {
            rounding: Rounding::Real,
            ..config
        };
        let searcher = Searcher::new(&input, &real);
        assert!((searcher.bsld(0, 1100) - 1400.0 / 600.0).abs() < 1e-12);
        // Started now: (600 + 300 / 0.5) / 600 = 2.
        assert_eq!(searcher.lower[0], 2.0);
    }

    #[test]
    fn holes_and_utilization_by_hand() {
        // 10 processors from 0: 4 free until 10, 10 free from 10; 6 taken
        // over [20, 30).
        let mut profile = AvailabilityProfile::new(10, 0, 4, [(10, 6)]);
        profile.reserve(20, 10, 6).unwrap();
        // 5 processors: free from 10 until 20 (only 4 in [20, 30)).
        assert_eq!(first_hole(&profile, 0, 5), Some((10, 20)));
        assert_eq!(first_hole(&profile, 0, 4), Some((0, Time::MAX)));
        // Over [0, 30): free area 4*10 + 10*10 + 4*10 = 180 of 300: busy 0.4.
        assert!((utilization(&profile, 0, 30) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn the_three_best_and_the_selection_rules() {
        let candidate = |total, makespan, utilization, mean_response| Candidate {
            total,
            order: vec![],
            makespan,
            utilization,
            mean_response,
        };
        let mut best = Best::new(3);
        for total in [5.0, 3.0, 4.0, 3.0, 6.0] {
            best.offer(candidate(total, 100, 0.9, 100.0));
        }
        // Ties keep the first found: 3, 3 (second), 4.
        let totals: Vec<f64> = best.list.iter().map(|c| c.total).collect();
        assert_eq!(totals, [3.0, 3.0, 4.0]);
        // a: best slowdown but 20% longer makespan than b: the tolerant
        // rule (M_a < 1.1 M_b fails) picks b, which is within the factors
        // of a (100 < 1.1 * 120, 0.9 > 0.95 * 0.9, 100 < 1.1 * 100).
        let a = candidate(3.0, 120, 0.9, 100.0);
        let b = candidate(4.0, 100, 0.9, 100.0);
        let list = [a.clone(), b.clone()];
        let tolerant = SearchConfig::default();
        assert_eq!(select(&list, &tolerant), Some(&b));
        // The literal rule wants a's makespan above 1.1 x b's: 120 > 110,
        // so a is chosen.
        let literal = SearchConfig {
            selection: Selection::Literal,
            ..tolerant
        };
        assert_eq!(select(&list, &literal), Some(&a));
        let plain = SearchConfig {
            selection: Selection::MinBsld,
            ..tolerant
        };
        assert_eq!(select(&list, &plain), Some(&a));
    }
}

//! Delayed-LOS (Algorithm 1) and Hybrid-LOS (Algorithms 2 and 3) of Kumar,
//! Shae and Jamjoom, "Scheduling Batch and Heterogeneous Jobs with Runtime
//! Elasticity in a Parallel Processing Environment".

use serde::{Deserialize, Serialize};

use schedsim_sim_core::{Capabilities, Decisions, JobId, Policy, Time, View};

use crate::los::{DEFAULT_LOOKAHEAD, LosMerit, TracebackOrder};
use crate::pack::{Dp, Packer};
use crate::shadow::Starts;

/// The default maximum skip count C_s. The paper finds Delayed-LOS best at
/// C_s = 7 or 8 for P_S = 0.5 (its Fig. 5) and insensitive above 3 for
/// P_S = 0.8 (Fig. 6); 7 is the lower of the two best values.
pub const DEFAULT_SKIP_THRESHOLD: u32 = 7;

/// The settings of [`DelayedLos`] and [`HybridLos`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DelayedLosConfig {
    /// C_s: how many scheduling cycles the queue head may be skipped by
    /// Basic_DP before it is started as soon as it fits (spec option `cs`).
    pub skip_threshold: u32,
    /// The LOS lookahead C: how many waiting jobs that fit the free
    /// processors the DP examines (spec option `lookahead`); 0 counts as 1,
    /// so that a head that fits is always a candidate.
    pub lookahead: usize,
    /// Tie-breaking merit of the DP (the paper uses none).
    pub merit: LosMerit,
    /// Traceback order of the DP (the paper's LOS: bypassed-first).
    pub traceback: TracebackOrder,
    /// The ECC processor (the -E variants): elastic control commands change
    /// estimates and ends while jobs wait or run.
    pub elastic: bool,
}

impl Default for DelayedLosConfig {
    fn default() -> Self {
        Self {
            skip_threshold: DEFAULT_SKIP_THRESHOLD,
            lookahead: DEFAULT_LOOKAHEAD,
            merit: LosMerit::None,
            traceback: TracebackOrder::BypassedFirst,
            elastic: false,
        }
    }
}

impl DelayedLosConfig {
    /// The canonical spec for policy `base` (`delayed-los` or `hybrid-los`):
    /// `-e` when elastic, then the options that differ from the defaults,
    /// e.g. `hybrid-los-e:cs=8,lookahead=25`.
    fn spec(&self, base: &str) -> String {
        let defaults = Self::default();
        let mut name = base.to_owned();
        if self.elastic {
            name.push_str("-e");
        }
        let mut options = Vec::new();
        if self.skip_threshold != defaults.skip_threshold {
            options.push(format!("cs={}", self.skip_threshold));
        }
        if self.merit != defaults.merit {
            options.push(format!("merit={}", self.merit.name()));
        }
        if self.traceback != defaults.traceback {
            options.push(format!("traceback={}", self.traceback.name()));
        }
        if self.lookahead != defaults.lookahead {
            options.push(format!("lookahead={}", self.lookahead));
        }
        if !options.is_empty() {
            name.push(':');
            name.push_str(&options.join(","));
        }
        name
    }
}

/// Delayed-LOS (`delayed-los`, `delayed-los-e`): LOS that may skip a queue
/// head which fits, up to C_s times, to pack the machine better
/// (Algorithm 1 of Kumar et al.; batch jobs only).
///
/// Each pass, with `m` processors free and the first waiting job (the head)
/// needing `num`:
/// 1. `num <= m` and the head's skip count `scount >= C_s`: the head starts
///    (lines 3-5).
/// 2. `num <= m` and `scount < C_s`: Basic_DP (LOS thesis Algorithm 1, no
///    reservation: every candidate is eligible) selects the set S that uses
///    the most of the `m` processors; S starts, and if the head is not in S
///    its skip count goes up (lines 6-11).
/// 3. `num > m`: the freeze end time `fret_b` and capacity `frec_b` of the
///    head are its shadow time and extra processors (lines 13-15); every
///    candidate's frozen size `frenum` is 0 if `t + dur < fret_b` and its
///    size otherwise (line 16), and Reservation_DP with capacity `m` now and
///    `frec_b` at the freeze end time selects S_f, which starts (17-20).
///
/// Decisions the paper leaves open, and how they are made here (each one is
/// tested):
/// - **Cycles.** The paper's scheduler takes one of these actions per
///   scheduling cycle, one cycle per event. The simulator calls a policy
///   once per timestamp, so a call runs passes until one starts nothing:
///   after the head starts (step 1) or S starts (step 2), the next pass
///   sees the new head and the processors left, instead of leaving them
///   idle until an unrelated event. A call is one scheduling cycle for the
///   skip count: a job's `scount` rises at most once per call.
/// - **Skip count per job.** `scount` belongs to the job (the paper's tuple
///   `w_i^b = (num, dur, arr, scount)`): it starts at 0 and only rises while
///   the job is the head. A job pushed back from the head (by Hybrid-LOS's
///   move of a dedicated job) keeps its count.
/// - **Candidates.** The DPs see the whole batch queue in order, head
///   included, minus the jobs larger than `m` (line 16's `num <= m`; they
///   cannot start), limited to the first `lookahead` of those (LOS thesis
///   section 3.5.1; default 50, as Kumar et al. cite).
/// - **Strict `<`.** A job is frozen at its size unless `t + dur < fret`:
///   one that would end exactly at the freeze end time counts as still
///   running then, as the paper writes it. The LOS thesis (and [`crate::Los`])
///   uses `t + time <= shadow`.
/// - **Freeze end capacity and ties.** `frec_b = m + sum(a_1..a_s) - num`
///   depends on how the active list orders jobs with equal residual times,
///   which the paper leaves open; every job ending at `fret_b` is counted
///   free then, as EASY and LOS do here ([`crate::shadow`]), which makes
///   the value order-independent.
#[derive(Debug)]
pub struct DelayedLos {
    name: String,
    core: Core,
}

impl DelayedLos {
    /// A Delayed-LOS policy with these settings.
    pub fn new(config: DelayedLosConfig) -> Self {
        Self {
            name: config.spec("delayed-los"),
            core: Core::new(config),
        }
    }

    /// The settings.
    pub fn config(&self) -> DelayedLosConfig {
        self.core.config
    }

    /// How many scheduling cycles the job has been skipped while it was the
    /// head (its `scount`).
    pub fn skip_count(&self, id: JobId) -> u32 {
        self.core.skips.get(id.index()).copied().unwrap_or(0)
    }
}

impl Policy for DelayedLos {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> Capabilities {
        let mut capabilities = Capabilities::default();
        capabilities.elastic_commands = self.core.config.elastic;
        capabilities
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.core.run(view, decisions, Kind::Delayed, &self.name);
    }
}

/// Hybrid-LOS (`hybrid-los`, `hybrid-los-e`): Delayed-LOS for batch jobs
/// plus dedicated jobs that must start at a requested time (Algorithms 2 and
/// 3 of Kumar et al.).
///
/// Each pass, with `m` processors free, the batch head `w_1^b` and the
/// waiting dedicated job with the earliest requested start `w_1^d`:
/// - no dedicated job waits: a [`DelayedLos`] pass (lines 3-4);
/// - `m > 0`, a batch job waits, `scount < C_s`:
///   - `w_1^d` is due (`start <= t`): it moves to the head of the batch queue
///     with `scount = C_s` (Algorithm 3, lines 6-7), so it starts as soon as
///     it fits;
///   - otherwise the freeze end time is its requested start and the freeze
///     end capacity is `M` minus the active jobs expected to run until then
///     or later (`t + res >= start`, lines 9-15). If the dedicated jobs
///     requested for that same instant fit (`tot_start_num <= frec_d`) they
///     are taken off it (16-18); if not, the freeze moves to when they fit
///     counting from now, as for a blocked batch head (24-26). Each batch
///     job is frozen at its size unless `t + dur < fret_d`, Reservation_DP
///     selects S_f, which starts, and the batch head's `scount` rises if it
///     is not in S_f (19-22, 27-30);
/// - `m > 0`, a batch job waits, `scount >= C_s`: the batch head starts
///   (lines 34-36);
/// - otherwise (`m = 0` or no batch job): a due `w_1^d` moves to the batch
///   head (39-41).
///
/// Decisions beyond those of [`DelayedLos`] (cycles, skip counts,
/// candidates, strict `<`, ties):
/// - **Lines 34-36 when the head does not fit.** The paper starts the head
///   without checking that it fits. Here it starts if it fits; if not, it
///   gets a reservation exactly as Delayed-LOS gives a blocked head (Algorithm
///   1 lines 12-20): the freeze end time is its shadow time and
///   Reservation_DP packs the free processors around it. This is also what
///   Algorithm 2 does through line 4 when the dedicated queue is empty, so a
///   moved dedicated job is treated the same whether or not other dedicated
///   jobs wait.
/// - **Moves and cycles.** After a move with processors free the next pass
///   runs at once, so a due dedicated job that fits starts at its requested
///   time rather than at the next event ("to be scheduled in the next
///   scheduling cycle"). A move with no processor free (lines 39-41) ends
///   the call: one such move per cycle, as in the paper.
/// - **Moved jobs go to the head**, as Algorithm 3 says: a job moved while
///   an earlier moved one still waits (possible only when the machine is
///   full, lines 39-41) goes in front of it.
/// - **Freeze at the requested start.** An active job expected to end
///   exactly at the requested start counts as still running then (line 11's
///   `start <= t + a_s.res`), consistent with the strict `<` for batch
///   jobs.
/// - **Dedicated jobs that together need more than the machine** at one
///   requested start cannot fit (line 24 has no `s`); the freeze is then at
///   the last active job's expected end (now if none) with no capacity, so
///   only batch jobs ending before it start, until the dedicated jobs are
///   due and move to the batch head one by one.
///
/// **What is guaranteed.** Only the earliest waiting dedicated start is
/// protected (the paper's design), so Hybrid-LOS can delay a dedicated job
/// that [`EasyD`](crate::EasyD) would start on time: a batch job started
/// now may still run when a later dedicated job is due; a batch head
/// started by lines 34-36 may take a due dedicated job's processors; a
/// moved dedicated job that does not fit holds the batch head and keeps the
/// next due ones from moving. What holds (and is tested on random
/// workloads): with exact estimates, no elastic commands and no forced
/// batch-head start (C_s above every skip count), a dedicated job that is
/// the only dedicated job waiting from its submission to its requested
/// start `r` starts exactly at `r` if, at its submission, the jobs running
/// and expected to run until `r` or later leave it enough processors:
/// every batch job started meanwhile respects its freeze.
#[derive(Debug)]
pub struct HybridLos {
    name: String,
    core: Core,
}

impl HybridLos {
    /// A Hybrid-LOS policy with these settings.
    pub fn new(config: DelayedLosConfig) -> Self {
        Self {
            name: config.spec("hybrid-los"),
            core: Core::new(config),
        }
    }

    /// The settings.
    pub fn config(&self) -> DelayedLosConfig {
        self.core.config
    }

    /// The job's skip count `scount` (a moved dedicated job's is C_s).
    pub fn skip_count(&self, id: JobId) -> u32 {
        self.core.skips.get(id.index()).copied().unwrap_or(0)
    }
}

impl Policy for HybridLos {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> Capabilities {
        let mut capabilities = Capabilities::default().with_dedicated_jobs();
        capabilities.elastic_commands = self.core.config.elastic;
        capabilities
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.core.run(view, decisions, Kind::Hybrid, &self.name);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Delayed,
    Hybrid,
}

/// What one pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Started at least one job.
    Started,
    /// Moved a due dedicated job to the batch head.
    Moved,
    /// Nothing.
    Idle,
}

/// The freeze of one DP call: (freeze end time, freeze end capacity).
type Freeze = (Time, u32);

/// The state both policies share.
#[derive(Debug)]
struct Core {
    config: DelayedLosConfig,
    packer: Packer,
    /// scount of each job, by id.
    skips: Vec<u32>,
    /// The call in which each job's scount last rose (0: never).
    skipped_in: Vec<u64>,
    /// The call in which each job was started (0: not started).
    started_in: Vec<u64>,
    /// Calls so far; the current one.
    call: u64,
    /// Jobs started in this call (they are active jobs for the freezes).
    started: Starts,
    /// Processors free now, after this call's starts.
    free: u32,
    /// Every job of `view.queue()` before this position has started in
    /// this call.
    cursor: usize,
    /// Hybrid-LOS: dedicated jobs moved to the batch head, the front last.
    moved: Vec<JobId>,
    is_moved: Vec<bool>,
    selected: Vec<JobId>,
}

impl Core {
    fn new(config: DelayedLosConfig) -> Self {
        Self {
            config,
            packer: Packer::default(),
            skips: Vec::new(),
            skipped_in: Vec::new(),
            started_in: Vec::new(),
            call: 0,
            started: Starts::default(),
            free: 0,
            cursor: 0,
            moved: Vec::new(),
            is_moved: Vec::new(),
            selected: Vec::new(),
        }
    }

    /// One call: passes until one starts nothing (see the policies' docs).
    fn run(&mut self, view: &View<'_>, decisions: &mut Decisions, kind: Kind, name: &str) {
        let jobs = view.jobs().len();
        if self.skips.len() < jobs {
            self.skips.resize(jobs, 0);
            self.skipped_in.resize(jobs, 0);
            self.started_in.resize(jobs, 0);
            self.is_moved.resize(jobs, false);
        }
        self.call += 1;
        self.started.clear();
        self.free = view.free();
        self.cursor = 0;
        loop {
            let pass = match kind {
                Kind::Delayed => self.delayed_pass(view, decisions),
                Kind::Hybrid => self.hybrid_pass(view, decisions),
            };
            match pass {
                Ok(Pass::Started) => {}
                Ok(Pass::Moved) if self.free > 0 => {}
                Ok(Pass::Moved | Pass::Idle) => break,
                Err(error) => {
                    decisions.fail(format!("{name}: the dynamic programme failed: {error}"));
                    break;
                }
            }
        }
    }

    /// The head of the batch queue: the front moved dedicated job, else the
    /// first waiting batch job not started in this call.
    fn head(&mut self, view: &View<'_>) -> Option<JobId> {
        if let Some(&id) = self.moved.last() {
            return Some(id);
        }
        let queue = view.queue();
        while let Some(&id) = queue.get(self.cursor) {
            if self.started_in[id.index()] != self.call {
                return Some(id);
            }
            self.cursor += 1;
        }
        None
    }

    fn start(&mut self, view: &View<'_>, id: JobId, decisions: &mut Decisions) {
        self.started.start(view, id, decisions);
        self.started_in[id.index()] = self.call;
        self.free -= view.job(id).size;
        if self.is_moved[id.index()] {
            self.is_moved[id.index()] = false;
            self.moved.retain(|&other| other != id);
        }
    }

    /// The head was not selected in this cycle: its scount rises, at most
    /// once per call.
    fn skip(&mut self, head: JobId) {
        if self.skipped_in[head.index()] != self.call {
            self.skipped_in[head.index()] = self.call;
            self.skips[head.index()] += 1;
        }
    }

    /// Algorithm 1, one pass.
    fn delayed_pass(
        &mut self,
        view: &View<'_>,
        decisions: &mut Decisions,
    ) -> Result<Pass, knapsack_dp::Error> {
        let m = self.free;
        let Some(head) = self.head(view) else {
            return Ok(Pass::Idle);
        };
        if m == 0 {
            return Ok(Pass::Idle);
        }
        if view.job(head).size > m {
            return self.reserve_head(view, decisions, head, m);
        }
        if self.skips[head.index()] >= self.config.skip_threshold {
            // Lines 3-5.
            self.start(view, head, decisions);
            return Ok(Pass::Started);
        }
        // Lines 6-11. The head fits and is the first candidate, so Basic_DP
        // starts something; the check keeps the loop finite regardless.
        let before = self.free;
        let head_selected = self.pack(view, decisions, m, None)?;
        if !head_selected {
            self.skip(head);
        }
        Ok(if self.free < before {
            Pass::Started
        } else {
            Pass::Idle
        })
    }

    /// Algorithm 1 lines 12-20: a head that does not fit in `m` gets a
    /// freeze at its shadow time; Reservation_DP packs around it.
    fn reserve_head(
        &mut self,
        view: &View<'_>,
        decisions: &mut Decisions,
        head: JobId,
        m: u32,
    ) -> Result<Pass, knapsack_dp::Error> {
        // Never `None`: a job fits once every active job has ended.
        let Some(shadow) = self.started.shadow(view, m, view.job(head).size) else {
            return Ok(Pass::Idle);
        };
        let before = self.free;
        self.pack(view, decisions, m, Some((shadow.time, shadow.extra)))?;
        Ok(if self.free < before {
            Pass::Started
        } else {
            Pass::Idle
        })
    }

    /// Algorithm 2, one pass.
    fn hybrid_pass(
        &mut self,
        view: &View<'_>,
        decisions: &mut Decisions,
    ) -> Result<Pass, knapsack_dp::Error> {
        let now = view.now();
        let m = self.free;
        let head = self.head(view);
        let first_dedicated = view
            .dedicated()
            .iter()
            .copied()
            .find(|&id| self.in_dedicated_queue(id));
        match (head, first_dedicated) {
            // Lines 3-4.
            (Some(_), None) if m > 0 => self.delayed_pass(view, decisions),
            (Some(head), Some(dedicated)) if m > 0 => {
                if self.skips[head.index()] < self.config.skip_threshold {
                    if requested_start(view, dedicated) <= now {
                        // Lines 6-7.
                        self.move_to_head(dedicated);
                        return Ok(Pass::Moved);
                    }
                    // Lines 8-33.
                    let freeze = self.dedicated_freeze(view, dedicated, m);
                    let before = self.free;
                    let head_selected = self.pack(view, decisions, m, Some(freeze))?;
                    if !head_selected {
                        self.skip(head);
                    }
                    Ok(if self.free < before {
                        Pass::Started
                    } else {
                        Pass::Idle
                    })
                } else if view.job(head).size <= m {
                    // Lines 34-36.
                    self.start(view, head, decisions);
                    Ok(Pass::Started)
                } else {
                    self.reserve_head(view, decisions, head, m)
                }
            }
            // Lines 39-42 (m = 0 or no batch job).
            (_, Some(dedicated)) if requested_start(view, dedicated) <= now => {
                self.move_to_head(dedicated);
                Ok(Pass::Moved)
            }
            _ => Ok(Pass::Idle),
        }
    }

    /// Whether a job of `view.dedicated()` is still in W^d: not moved to
    /// the batch head, and not started in this call (the view is taken
    /// before the call's decisions).
    fn in_dedicated_queue(&self, id: JobId) -> bool {
        !self.is_moved[id.index()] && self.started_in[id.index()] != self.call
    }

    /// Algorithm 3: the dedicated job becomes the batch head with scount =
    /// C_s.
    fn move_to_head(&mut self, id: JobId) {
        self.is_moved[id.index()] = true;
        self.moved.push(id);
        self.skips[id.index()] = self.config.skip_threshold;
    }

    /// Algorithm 2 lines 9-15 and 24-26: the freeze for the dedicated jobs
    /// requested at the earliest requested start, and what is left of it
    /// for batch jobs.
    fn dedicated_freeze(&self, view: &View<'_>, first: JobId, m: u32) -> Freeze {
        let start = requested_start(view, first);
        let active = || {
            view.running()
                .map(|job| (job.expected_end, job.size))
                .chain(self.started.ends().iter().copied())
        };
        // Lines 10-15: an active job still holds its processors at `start`
        // if `start <= t + res`.
        let busy: u32 = active()
            .filter(|&(end, _)| end >= start)
            .map(|(_, size)| size)
            .sum();
        let capacity = view.procs() - busy;
        // Line 16: the dedicated jobs requested for that same instant.
        let group: u32 = view
            .dedicated()
            .iter()
            .filter(|&&id| self.in_dedicated_queue(id))
            .take_while(|&&id| requested_start(view, id) == start)
            .map(|&id| view.job(id).size)
            .sum();
        if group <= capacity {
            // Lines 17-18.
            return (start, capacity - group);
        }
        // Lines 24-26: when the group fits, counting from now (group >
        // capacity >= m, so it does not fit now).
        match self.started.shadow(view, m, group) {
            Some(shadow) => (shadow.time, shadow.extra),
            None => {
                let last_end = active().map(|(end, _)| end).max();
                (last_end.unwrap_or(view.now()), 0)
            }
        }
    }

    /// Collects the candidates (the batch queue in order, moved dedicated
    /// jobs first, jobs larger than `m` left out, at most `lookahead`), runs
    /// Basic_DP (no freeze) or Reservation_DP (a freeze), and starts the
    /// selected jobs. Returns whether the head was among them.
    fn pack(
        &mut self,
        view: &View<'_>,
        decisions: &mut Decisions,
        m: u32,
        freeze: Option<Freeze>,
    ) -> Result<bool, knapsack_dp::Error> {
        let now = view.now();
        let head = self.head(view);
        let limit = self.config.lookahead.max(1);
        let merit = self.config.merit;
        self.packer.clear();
        // Strict `<`: a job ending exactly at the freeze end time is still
        // running then. Without a freeze every job "ends by" it.
        let ends_by_freeze = |view: &View<'_>, id: JobId| {
            freeze.is_none_or(|(end, _)| now + view.estimate(id) < end)
        };
        for index in (0..self.moved.len()).rev() {
            let id = self.moved[index];
            if self.packer.len() < limit && view.job(id).size <= m {
                self.packer.push(view, id, ends_by_freeze(view, id), merit);
            }
        }
        if let Some(&first) = view.queue().get(self.cursor) {
            let mut from = first;
            while self.packer.len() < limit {
                let Some(id) = view.next_candidate(from, m, Time::MAX, 0) else {
                    break;
                };
                from = JobId(id.0 + 1);
                if self.started_in[id.index()] != self.call {
                    self.packer.push(view, id, ends_by_freeze(view, id), merit);
                }
            }
        }
        let dp = match freeze {
            None => Dp::BasicAll,
            Some((_, capacity)) => Dp::Reservation { extra: capacity },
        };
        let selected = self.packer.solve(dp, m, merit, self.config.traceback)?;
        self.selected.clear();
        self.selected.extend_from_slice(selected);
        let mut head_selected = false;
        for index in 0..self.selected.len() {
            let id = self.selected[index];
            head_selected |= Some(id) == head;
            self.start(view, id, decisions);
        }
        Ok(head_selected)
    }
}

/// A dedicated job's requested start (dedicated jobs always have one).
fn requested_start(view: &View<'_>, id: JobId) -> Time {
    view.job(id).requested_start.unwrap_or(Time::MIN)
}

//! Every constant of SCOJO-PECT and its group optimiser, with the thesis's
//! values as defaults, and the readings chosen where the thesis is
//! contradictory or silent.

use std::fmt;

use schedsim_sim_core::{MAX_TIME, Time};

/// A job's runtime class. Jobs are classified once, when they arrive, by
/// the runtime the scheduler knows (their estimate: the thesis assumes
/// exact runtimes, section 5: "Actual job runtime information is available
/// during job submission").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobClass {
    /// Under [`ScojoConfig::short_below`] (10 minutes).
    Short,
    /// From there to under [`ScojoConfig::medium_below`] (3 hours).
    Medium,
    /// The rest.
    Long,
}

impl JobClass {
    /// The three classes, shortest first (the thesis's smart-backfilling
    /// order: "sorted by increasing runtime class").
    pub const ALL: [Self; 3] = [Self::Short, Self::Medium, Self::Long];

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// `short`, `medium` or `long`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Short => "short",
            Self::Medium => "medium",
            Self::Long => "long",
        }
    }
}

impl fmt::Display for JobClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which running jobs are suspended when a slice ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliceEnd {
    /// Only the jobs of the slice's class (section 4's bullet: "strictly
    /// controlled preemption to disk for jobs in select long-slices"; the
    /// issue's reading). Jobs of other classes smart-backfilled into the
    /// slice keep running until their own slice ends or a resuming job of
    /// the new slice needs their processors. The default.
    Class,
    /// Every running job, except those of the next slice's class
    /// (section 4: "When the allotted time slice gets over, the jobs move to
    /// disk"; the Table 1 narrative, in which the medium job 3 backfilled
    /// into a long slice is no longer running in the short slice that
    /// follows). Smart backfilling may resume them where they do not
    /// collide: at once when switching costs nothing (the suspension and
    /// resumption are then dropped and they run on), otherwise at a later
    /// event, once their suspension has released their processors.
    All,
}

/// How the size of a group's work is tested (section 7.2 against 6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkCriterion {
    /// Section 7.2: "the ratio of total accumulated work to the machine
    /// size should be greater than the product of lambda (constant) and
    /// average runtime": sum(size x runtime) / machine > lambda x R. The
    /// default.
    Work,
    /// Section 6.1: "The ideal average runtime of the grouped jobs is lower
    /// than a factor times the set runtime": mean runtime < lambda x R.
    MeanRuntime,
}

/// The order in which the level-2 search generates permutations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SearchOrder {
    /// Limited discrepancy search: iteration d visits, depth first, every
    /// order with exactly d discrepancies (a discrepancy is a choice other
    /// than the heuristic's next job). The default.
    Lds,
    /// Depth-bounded discrepancy search: iteration i visits the orders
    /// whose deepest discrepancy is at depth i - 1.
    Dds,
    /// Plain depth-first order, the thesis's permutation generator
    /// (section 6.4.2: its discrepancy counts run 0, 1, 1, 2, 1, 2, ...).
    Dfs,
}

/// How the bounded slowdown of a job is rounded (section 5.1.5's formula,
/// "Bounded Slowdown = Ceil(Max(Response time/Max(Runtime,BOUND)),1)").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Rounded up to an integer, as printed ("Ceil would return the nearest
    /// integer greater than equal to the argument"). The default.
    Ceil,
    /// Not rounded (the usual definition).
    Real,
}

/// How one of the three best schedules is chosen (section 6.4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Selection {
    /// Schedule a (the lower total bounded slowdown) is chosen against b
    /// if M_a < alpha M_b and U_a > beta U_b and RT_a < gamma RT_b: the
    /// printed rule with its makespan comparison turned around, so that a
    /// is kept unless it is more than 10% worse in makespan or response or
    /// 5% worse in utilization. The chosen schedule is the first (by total
    /// bounded slowdown) chosen against each of the others; if none is,
    /// the best by bounded slowdown. The default.
    Tolerant,
    /// The rule as printed: "(M_a > alpha M_b) && (U_a > beta U_b) &&
    /// (AvgRT_a < gamma AvgRT_b)", applied as in `Tolerant`.
    Literal,
    /// The lowest total bounded slowdown, no second criterion.
    MinBsld,
}

/// What happens to the group's jobs planned to end after the group's
/// finish time (section 6.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tail {
    /// They leave the plan when it is made and are scheduled as ordinary
    /// waiting jobs (they may join the next group). The default.
    Release,
    /// They stay in the plan; the finish time only ends the group.
    Keep,
}

/// The group constants of one class (Table 4, sections 7.2 and 7.3).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct GroupParams {
    /// A group forms only with at least this many waiting jobs of the class
    /// (long 5, medium 10).
    pub min_jobs: usize,
    /// At most this many jobs join a group (long 30, medium 20: Fig. 15's
    /// L30 M20).
    pub max_jobs: usize,
    /// Their total size must exceed this many machines (long 2, medium 1.5).
    pub size_factor: f64,
    /// lambda of the work criterion (long 1, medium 2).
    pub lambda: f64,
    /// The "average runtime" R of the work criterion, seconds (long 15000,
    /// medium 800).
    pub mean_runtime: Time,
    /// A job is long-wide if it needs at least this fraction of the machine
    /// (long 1/4, medium 1/10)...
    pub wide_size: f64,
    /// ... and runs at least this long, seconds (long 15000, medium 800).
    pub wide_runtime: Time,
}

impl GroupParams {
    /// Table 4's long-group constants.
    pub const LONG: Self = Self {
        min_jobs: 5,
        max_jobs: 30,
        size_factor: 2.0,
        lambda: 1.0,
        mean_runtime: 15_000,
        wide_size: 0.25,
        wide_runtime: 15_000,
    };

    /// Table 4's medium-group constants.
    pub const MEDIUM: Self = Self {
        min_jobs: 10,
        max_jobs: 20,
        size_factor: 1.5,
        lambda: 2.0,
        mean_runtime: 800,
        wide_size: 0.1,
        wide_runtime: 800,
    };
}

/// The search of one group (sections 6.4, 6.5, 7.3, 7.4).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SearchConfig {
    /// Schedules (complete orders virtually scheduled, level 1 and level 2
    /// and force-shifted ones) evaluated per group at most: 10,000 (section
    /// 7.3: "The permutation generator is allowed to loop for a maximum of
    /// 10000 iterations").
    pub budget: u64,
    /// Search-tree nodes (placements) allowed per schedule of the budget
    /// (ours; default [`NODES_PER_SCHEDULE`](super::NODES_PER_SCHEDULE),
    /// 50): every search ends within `budget x nodes_per_schedule`
    /// placements.
    pub nodes_per_schedule: u64,
    /// Level 1 runs with at least this many long-wide jobs (Table 4: 3;
    /// section 7.3 says "greater than 3", i.e. 4).
    pub min_wide: usize,
    /// Level 1 permutes at most this many long-wide jobs (6).
    pub max_wide: usize,
    /// Whether level 1 runs.
    pub level1: bool,
    /// Whether level 2 runs (the thesis's Fig. 27 compares without it).
    pub level2: bool,
    /// A group of the class's maximum size is split equally into sub-groups
    /// of at most this many jobs for level 2 (the count is not stated;
    /// default 10: Table 2's largest tabulated tree).
    pub split: usize,
    /// Level 2's permutation order.
    pub order: SearchOrder,
    /// Branch and bound on total bounded slowdown.
    pub branch_and_bound: bool,
    /// BOUND of the bounded slowdown, seconds (section 7.4: 600).
    pub bound: Time,
    /// Rounding of the bounded slowdown.
    pub rounding: Rounding,
    /// Force-shifting threshold: a job is shifted into an earlier hole if
    /// its runtime is at most this times the hole's length (1.5); 0 turns
    /// force-shifting off.
    pub shift: f64,
    /// The best-of-3 rule.
    pub selection: Selection,
    /// alpha (makespan factor, 1.1).
    pub alpha: f64,
    /// beta (utilization factor, 0.95).
    pub beta: f64,
    /// gamma (response factor, 1.1).
    pub gamma: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            budget: 10_000,
            nodes_per_schedule: super::search::NODES_PER_SCHEDULE,
            min_wide: 3,
            max_wide: 6,
            level1: true,
            level2: true,
            split: 10,
            order: SearchOrder::Lds,
            branch_and_bound: true,
            bound: 600,
            rounding: Rounding::Ceil,
            shift: 1.5,
            selection: Selection::Tolerant,
            alpha: 1.1,
            beta: 0.95,
            gamma: 1.1,
        }
    }
}

/// The group optimiser of `scojo-pect-opt` (sections 6 and 7).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct OptimiserConfig {
    /// Long-group constants.
    pub long: GroupParams,
    /// Medium-group constants.
    pub medium: GroupParams,
    /// Which work criterion.
    pub work_criterion: WorkCriterion,
    /// The search.
    pub search: SearchConfig,
    /// delta of the group finish time (Fig. 8: "allowing small variations
    /// in utilization"; not given: 0.1).
    pub delta: f64,
    /// minUtil of the group finish time (not given: 0.75).
    pub min_util: f64,
    /// The plan's jobs after the group finish time.
    pub tail: Tail,
    /// Backfilling upon dynamic submission (section 6.6.2).
    pub dynamic_backfill: bool,
    /// Backfill an arrival upon submission only if it ends before the
    /// current slice does. Section 6.6.2: "Dynamic jobs are guaranteed to
    /// run within the group only until the end of slice or until it
    /// finishes (whichever happens first). In the former case, the job
    /// would finish earlier and gets preempted to its respective
    /// preemption queue." Literally (false, the default) such a job runs
    /// to the slice's end and is suspended there if unfinished; the
    /// sentence "the job would finish earlier" also reads as: only jobs
    /// that finish within the slice are started (true), so none is
    /// suspended. A short job suspended on its processors can wait long:
    /// it returns only on those processors.
    pub dynamic_fit: bool,
}

impl Default for OptimiserConfig {
    fn default() -> Self {
        Self {
            long: GroupParams::LONG,
            medium: GroupParams::MEDIUM,
            work_criterion: WorkCriterion::Work,
            search: SearchConfig::default(),
            delta: 0.1,
            min_util: 0.75,
            tail: Tail::Release,
            dynamic_backfill: true,
            dynamic_fit: false,
        }
    }
}

/// SCOJO-PECT's settings (section 4 and Table 4).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ScojoConfig {
    /// Jobs below this runtime are short, seconds (section 7 and Table 4:
    /// "runtime < 10 min"; Table 4's medium row says "60 sec < runtime",
    /// which a user can choose with 60).
    pub short_below: Time,
    /// Jobs below this runtime (and not short) are medium; the rest long,
    /// seconds (3 hours; section 7's "less than eight hours" for long jobs
    /// would leave longer jobs without a class, so it is not used).
    pub medium_below: Time,
    /// Length of one cycle of the long, short and medium slices, seconds.
    /// The thesis takes it from Esbaugh and Sodan and does not state it;
    /// the default, 3600, is our choice (see the crate docs).
    pub cycle: Time,
    /// Every slice longer than 0 lasts at least this long, seconds; the
    /// cycle then grows by what is added (default 0: the shares as given).
    /// Ours, not the thesis's: with smart backfilling off and the thesis's
    /// 60 s switch overheads, the short slice of 0.5% of any cycle under
    /// 6.7 hours is no longer than a suspension plus a resumption, and its
    /// jobs would never progress (the policy refuses such a run).
    pub min_slice: Time,
    /// Share of the cycle for the long slice (Table 4: 73%).
    pub long_share: f64,
    /// Share for the medium slice (26.5%); the short slice has the rest.
    pub medium_share: f64,
    /// Which jobs are suspended at a slice's end.
    pub slice_end: SliceEnd,
    /// Smart backfilling of other classes' suspended and waiting jobs
    /// (section 9.4 compares without it).
    pub smart_backfill: bool,
    /// The group optimiser, for `scojo-pect-opt`.
    pub optimiser: Option<OptimiserConfig>,
}

impl Default for ScojoConfig {
    fn default() -> Self {
        Self {
            short_below: 600,
            medium_below: 3 * 3600,
            cycle: 3600,
            min_slice: 0,
            long_share: 0.73,
            medium_share: 0.265,
            slice_end: SliceEnd::Class,
            smart_backfill: true,
            optimiser: None,
        }
    }
}

impl ScojoConfig {
    /// The class of a job with this (estimated) runtime.
    pub fn class_of(&self, runtime: Time) -> JobClass {
        if runtime < self.short_below {
            JobClass::Short
        } else if runtime < self.medium_below {
            JobClass::Medium
        } else {
            JobClass::Long
        }
    }

    /// The slices of one cycle in order, long, short, medium (the order of
    /// the thesis's Fig. 3 narrative), with their lengths in seconds:
    /// floor(share x cycle) for long and medium, the rest for short, each
    /// slice longer than 0 raised to [`min_slice`](Self::min_slice). A
    /// slice of length 0 is skipped.
    pub fn slices(&self) -> [(JobClass, Time); 3] {
        let cycle = self.cycle as f64;
        let long = (self.long_share * cycle).floor() as Time;
        let medium = (self.medium_share * cycle).floor() as Time;
        let short = self.cycle - long - medium;
        let raise = |length: Time| {
            if length > 0 {
                length.max(self.min_slice)
            } else {
                0
            }
        };
        [
            (JobClass::Long, raise(long)),
            (JobClass::Short, raise(short)),
            (JobClass::Medium, raise(medium)),
        ]
    }

    /// The fraction of the machine's time a class's slices get (of the
    /// cycle as [`min_slice`](Self::min_slice) makes it).
    pub fn share(&self, class: JobClass) -> f64 {
        let slices = self.slices();
        let length = slices
            .iter()
            .find(|(c, _)| *c == class)
            .map_or(0, |&(_, l)| l);
        let cycle: Time = slices.iter().map(|&(_, l)| l).sum();
        length as f64 / cycle.max(1) as f64
    }

    /// Checks the values; the message names the first bad one.
    pub(crate) fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.short_below < 1 || self.medium_below <= self.short_below {
            return Err((
                "short-below",
                "1 <= short-below < medium-below (seconds)".to_owned(),
            ));
        }
        // Workload times stop at 2^53 s; so do these, which are added to
        // simulated times.
        if self.medium_below > MAX_TIME {
            return Err((
                "medium-below",
                "short-below < medium-below <= 2^53 (seconds)".to_owned(),
            ));
        }
        if !(3..=MAX_TIME).contains(&self.cycle) {
            return Err(("cycle", "3 <= cycle <= 2^53 (seconds)".to_owned()));
        }
        if self.min_slice < 0 || self.min_slice > self.cycle {
            return Err(("min-slice", "0 <= min-slice <= cycle (seconds)".to_owned()));
        }
        let share_ok = |s: f64| s.is_finite() && (0.0..=1.0).contains(&s);
        if !share_ok(self.long_share)
            || !share_ok(self.medium_share)
            || self.long_share + self.medium_share > 1.0
        {
            return Err((
                "long-share",
                "shares in [0, 1] adding up to at most 1".to_owned(),
            ));
        }
        if self.slices().iter().all(|&(_, length)| length == 0) {
            return Err(("cycle", "at least one slice longer than 0 s".to_owned()));
        }
        if let Some(optimiser) = &self.optimiser {
            for (name, group) in [("long", optimiser.long), ("medium", optimiser.medium)] {
                if group.min_jobs < 1 || group.max_jobs < group.min_jobs {
                    return Err((
                        if name == "long" {
                            "long-max-jobs"
                        } else {
                            "medium-max-jobs"
                        },
                        "1 <= min-jobs <= max-jobs".to_owned(),
                    ));
                }
            }
            let search = optimiser.search;
            if !(1..=8).contains(&search.max_wide) || search.min_wide < 1 {
                return Err((
                    "max-wide",
                    "1 <= min-wide, 1 <= max-wide <= 8 (level 1 tries max-wide! orders)".to_owned(),
                ));
            }
            if search.split < 2 || search.bound < 1 {
                return Err((
                    "split",
                    "sub-groups of at least 2 jobs and a bound of at least 1 s".to_owned(),
                ));
            }
            if search
                .budget
                .checked_mul(search.nodes_per_schedule)
                .is_none_or(|nodes| nodes > super::search::MAX_SEARCH_NODES)
            {
                return Err((
                    "budget",
                    format!(
                        "budget x nodes at most {}, the placements one group's search may make",
                        super::search::MAX_SEARCH_NODES
                    ),
                ));
            }
            if !(0.0..=1.0).contains(&optimiser.delta) || !(0.0..=1.0).contains(&optimiser.min_util)
            {
                return Err(("delta", "delta and min-util in [0, 1]".to_owned()));
            }
        }
        Ok(())
    }
}

use std::fmt;

use serde::{Deserialize, Serialize};

use schedsim_sim_core::{Decisions, JobId, Policy, Time, View};

use crate::pack::{Dp, Packer};
use crate::shadow::Starts;

/// How LOS breaks ties among job sets of equal utilization (LOS thesis
/// section 3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LosMerit {
    /// No merit (Algorithm 3): ties are left to the traceback order.
    #[default]
    None,
    /// Start as many jobs as possible (Algorithm 6).
    MaxJobs,
    /// Start the set with the largest total slowdown, a waiting job's
    /// slowdown being (t - arrival + estimate) / estimate (Algorithm 7).
    MaxSlowdown,
}

impl LosMerit {
    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::MaxJobs => "maxjobs",
            Self::MaxSlowdown => "max-slowdown",
        }
    }

    /// Parses a spec name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::None, Self::MaxJobs, Self::MaxSlowdown]
            .into_iter()
            .find(|merit| merit.name() == name)
    }
}

/// Which DP LOS runs behind a blocked queue head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LosVariant {
    /// The full algorithm (section 3.3, Reservation_DP): jobs may also use
    /// the processors left over at the shadow time.
    #[default]
    Reservation,
    /// The basic algorithm (section 3.2, Basic_DP): only jobs that end by
    /// the shadow time are candidates.
    Basic,
}

/// The settings of an [`Los`] policy (build with [`LosConfig::new`]; new
/// settings get defaults, so code written today keeps compiling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LosConfig {
    /// Reservation_DP or Basic_DP.
    pub variant: LosVariant,
    /// Tie-breaking merit.
    pub merit: LosMerit,
    /// Traceback order among tied sets: bypassed-first (Algorithm 4) or
    /// selected-first (Algorithm 5).
    pub traceback: TracebackOrder,
    /// The lookahead C: how many waiting jobs (that fit the free
    /// processors) the DP examines.
    pub lookahead: usize,
}

impl LosConfig {
    /// The settings of a LOS policy with this variant, merit, traceback
    /// order and lookahead C.
    pub fn new(
        variant: LosVariant,
        merit: LosMerit,
        traceback: TracebackOrder,
        lookahead: usize,
    ) -> Self {
        Self {
            variant,
            merit,
            traceback,
            lookahead,
        }
    }
}

/// Traceback order (a serde-friendly mirror of [`knapsack_dp::Traceback`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TracebackOrder {
    /// Where both markers are set, bypass: prefers jobs nearer the head.
    #[default]
    BypassedFirst,
    /// Where the selected marker is set, select: prefers jobs nearer the
    /// tail.
    SelectedFirst,
}

impl TracebackOrder {
    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Self::BypassedFirst => "bypassed-first",
            Self::SelectedFirst => "selected-first",
        }
    }

    /// Parses a spec name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::BypassedFirst, Self::SelectedFirst]
            .into_iter()
            .find(|order| order.name() == name)
    }
}

/// The default lookahead, as in the thesis' experiments.
pub const DEFAULT_LOOKAHEAD: usize = 50;

impl Default for LosConfig {
    fn default() -> Self {
        Self {
            variant: LosVariant::Reservation,
            merit: LosMerit::None,
            traceback: TracebackOrder::BypassedFirst,
            lookahead: DEFAULT_LOOKAHEAD,
        }
    }
}

impl fmt::Display for LosConfig {
    /// The canonical spec: `los` or `los-basic`, then the options that
    /// differ from the defaults, e.g. `los:merit=max-slowdown,lookahead=25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let defaults = Self::default();
        f.write_str(match self.variant {
            LosVariant::Reservation => "los",
            LosVariant::Basic => "los-basic",
        })?;
        let mut separator = ':';
        let mut option = |f: &mut fmt::Formatter<'_>, text: String| {
            let result = write!(f, "{separator}{text}");
            separator = ',';
            result
        };
        if self.merit != defaults.merit {
            option(f, format!("merit={}", self.merit.name()))?;
        }
        if self.traceback != defaults.traceback {
            option(f, format!("traceback={}", self.traceback.name()))?;
        }
        if self.lookahead != defaults.lookahead {
            option(f, format!("lookahead={}", self.lookahead))?;
        }
        Ok(())
    }
}

/// LOS, the Lookahead Optimizing Scheduler (Shmueli and Feitelson; LOS
/// thesis chapter 3).
///
/// At every call, in arrival order:
/// 1. Queue-head jobs start while they fit (section 3.2.1).
/// 2. For the first job that does not fit, the shadow time and the extra
///    processors (shadow free capacity) are computed from the running jobs
///    (including those just started) ordered by expected end, exactly as
///    for EASY ([`crate::shadow`]; jobs ending at the shadow instant all
///    count towards the extra processors).
/// 3. The candidates are the next `lookahead` waiting jobs that fit the
///    free processors `n` (larger jobs are dropped first and do not count,
///    as in the thesis' Table 3.8). Each job's shadow size is 0 if
///    `t + estimate <= shadow` and its size otherwise (section 3.3.1).
/// 4. Reservation_DP (Algorithm 3, or 6 / 7 with a merit; traceback
///    Algorithm 4 or 5) selects the set that maximizes the processors used
///    now without using more than `extra` processors at the shadow time;
///    those jobs start. `los-basic` runs Basic_DP (Algorithms 1 and 2)
///    instead: only candidates that end by the shadow time.
///
/// The DP comes from the [`knapsack_dp`] crate; its solver is kept across
/// calls so a call allocates nothing once warmed up.
#[derive(Debug)]
pub struct Los {
    name: String,
    config: LosConfig,
    /// Jobs started in this call.
    started: Starts,
    packer: Packer,
}

impl Los {
    /// An LOS policy with these settings.
    pub fn new(config: LosConfig) -> Self {
        Self {
            name: config.to_string(),
            config,
            started: Starts::default(),
            packer: Packer::default(),
        }
    }

    /// The settings.
    pub fn config(&self) -> LosConfig {
        self.config
    }
}

impl Policy for Los {
    fn name(&self) -> &str {
        &self.name
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        let now = view.now();
        let queue = view.queue();
        let mut free = view.free();
        self.started.clear();
        let position = self.started.start_heads(view, queue, &mut free, decisions);
        if position == queue.len() || free == 0 || self.config.lookahead == 0 {
            return;
        }
        let head = queue[position];
        let Some(reservation) = self.started.shadow(view, free, view.job(head).size) else {
            return;
        };

        // The next `lookahead` waiting jobs that fit in `free` (the queue is
        // in id order, so the index jumps straight to them).
        self.packer.clear();
        let mut from = JobId(head.0 + 1);
        while self.packer.len() < self.config.lookahead {
            let Some(id) = view.next_candidate(from, free, Time::MAX, 0) else {
                break;
            };
            let ends_by_shadow = now + view.estimate(id) <= reservation.time;
            self.packer
                .push(view, id, ends_by_shadow, self.config.merit);
            from = JobId(id.0 + 1);
        }
        let dp = match self.config.variant {
            LosVariant::Reservation => Dp::Reservation {
                extra: reservation.extra,
            },
            LosVariant::Basic => Dp::BasicEndingByFreeze,
        };
        match self
            .packer
            .solve(dp, free, self.config.merit, self.config.traceback)
        {
            Ok(selected) => selected.iter().for_each(|&id| decisions.start(id)),
            Err(error) => decisions.fail(format!("the LOS dynamic programme failed: {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim_sim_core::{Job, ViewStorage};

    fn job(number: u64, submit: Time, size: u32, estimate: Time) -> Job {
        Job::new(number, submit, size, estimate, estimate)
    }

    /// The thesis' running example (figures 3.1-3.6): N = 10 at t = 25, one
    /// running job of size 5 with 3 s left (rj1); waiting wj1..wj5 of sizes
    /// 7, 2, 1, 2, 3 and estimates 4, 2, 6, 4, 5.
    fn thesis_state() -> Vec<Job> {
        vec![
            job(0, 0, 5, 6), // rj1: started at 22, ends at 28
            job(1, 1, 7, 4),
            job(2, 2, 2, 2),
            job(3, 3, 1, 6),
            job(4, 4, 2, 4),
            job(5, 5, 3, 5),
        ]
    }

    fn decide(config: LosConfig) -> Vec<u64> {
        let jobs = thesis_state();
        let queue: Vec<JobId> = (1..=5).map(JobId).collect();
        let mut storage = ViewStorage::default();
        let view = View::new(25, 10, &jobs, &queue, &[(JobId(0), 22)], &mut storage);
        let mut decisions = Decisions::new();
        Los::new(config).schedule(&view, &mut decisions);
        assert_eq!(decisions.failure(), None);
        decisions
            .starts()
            .iter()
            .map(|&id| jobs[id.index()].number)
            .collect()
    }

    #[test]
    fn thesis_example_bypassed_first_starts_wj2_wj3_wj4() {
        // Section 3.3.4: shadow 28, extra 3; both {wj2, wj3, wj4} and {wj2,
        // wj5} use all 5 free processors; bypassed-first picks the former.
        assert_eq!(decide(LosConfig::default()), [2, 3, 4]);
    }

    #[test]
    fn thesis_example_selected_first_starts_wj2_wj5() {
        // Section 3.4, Algorithm 5.
        let config = LosConfig {
            traceback: TracebackOrder::SelectedFirst,
            ..LosConfig::default()
        };
        assert_eq!(decide(config), [2, 5]);
    }

    #[test]
    fn thesis_example_basic_dp_starts_only_wj2() {
        // Section 3.2: only wj2 (ends at 27 <= 28) may run; util 2.
        let config = LosConfig {
            variant: LosVariant::Basic,
            ..LosConfig::default()
        };
        assert_eq!(decide(config), [2]);
    }

    #[test]
    fn thesis_example_lookahead_3_keeps_the_same_schedule() {
        // Section 3.5.1: with C = 3 the candidates are wj2, wj3, wj4 (wj1 is
        // too large and does not count) and the schedule is unchanged.
        let config = LosConfig {
            lookahead: 3,
            ..LosConfig::default()
        };
        assert_eq!(decide(config), [2, 3, 4]);
        // With C = 1 only wj2 is examined.
        let config = LosConfig {
            lookahead: 1,
            ..LosConfig::default()
        };
        assert_eq!(decide(config), [2]);
    }

    #[test]
    fn maxjobs_prefers_three_jobs_over_two() {
        // Both sets use 5 processors and 3 extra; maxjobs picks the set with
        // more jobs even under selected-first.
        let config = LosConfig {
            merit: LosMerit::MaxJobs,
            traceback: TracebackOrder::SelectedFirst,
            ..LosConfig::default()
        };
        assert_eq!(decide(config), [2, 3, 4]);
    }

    #[test]
    fn max_slowdown_prefers_the_larger_total_slowdown() {
        // At t = 25: wj3 (submit 3, est 6): (22 + 6) / 6 = 4.667; wj4 (submit
        // 4, est 4): (21 + 4) / 4 = 6.25; wj5 (submit 5, est 5): (20 + 5) / 5
        // = 5; wj2 is in both sets. {wj3, wj4}: 10.92 > {wj5}: 5, so
        // max-slowdown picks wj2, wj3, wj4 even under selected-first.
        let config = LosConfig {
            merit: LosMerit::MaxSlowdown,
            traceback: TracebackOrder::SelectedFirst,
            ..LosConfig::default()
        };
        assert_eq!(decide(config), [2, 3, 4]);
    }

    #[test]
    fn heads_that_fit_start_first() {
        // 10 free processors: wj1 (7) fits and starts; then wj2 (2) fits too
        // and starts; wj3 (1) as well: free 0 after 7 + 2 + 1.
        let jobs = thesis_state();
        let queue: Vec<JobId> = (1..=5).map(JobId).collect();
        let mut storage = ViewStorage::default();
        let view = View::new(25, 10, &jobs, &queue, &[], &mut storage);
        let mut decisions = Decisions::new();
        Los::new(LosConfig::default()).schedule(&view, &mut decisions);
        assert_eq!(decisions.starts(), [JobId(1), JobId(2), JobId(3)]);
    }

    #[test]
    fn canonical_names() {
        assert_eq!(LosConfig::default().to_string(), "los");
        let config = LosConfig {
            variant: LosVariant::Basic,
            merit: LosMerit::MaxSlowdown,
            traceback: TracebackOrder::SelectedFirst,
            lookahead: 25,
        };
        assert_eq!(
            config.to_string(),
            "los-basic:merit=max-slowdown,traceback=selected-first,lookahead=25"
        );
    }
}

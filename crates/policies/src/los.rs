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
    /// Start the set with the smallest total slowdown (section 3.4: "total
    /// jobs slowdown with the purpose of maximizing or minimizing that
    /// factor").
    MinSlowdown,
    /// Start the set with the largest total response time, a waiting job's
    /// response being t - arrival + estimate (section 3.4: "the total jobs
    /// response time with the purpose of choosing S' with the maximal or
    /// minimal total response time").
    MaxResponse,
    /// Start the set with the smallest total response time (section 3.4).
    MinResponse,
}

impl LosMerit {
    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::MaxJobs => "maxjobs",
            Self::MaxSlowdown => "max-slowdown",
            Self::MinSlowdown => "min-slowdown",
            Self::MaxResponse => "max-response",
            Self::MinResponse => "min-response",
        }
    }

    /// Every merit, in the thesis' order.
    pub const ALL: [Self; 6] = [
        Self::None,
        Self::MaxJobs,
        Self::MaxSlowdown,
        Self::MinSlowdown,
        Self::MaxResponse,
        Self::MinResponse,
    ];

    /// Parses a spec name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|merit| merit.name() == name)
    }
}

/// What LOS does with a queue head that fits the free processors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeadRule {
    /// The thesis (section 3.2.1 and the introduction): "LOS starts by
    /// examining only the first waiting job. If it fits within the machine's
    /// free capacity it is immediately started"; then "we set shadow to
    /// infinity if wj_1 can be started at t. In this case every produced
    /// schedule is safe": the DP packs the rest of the queue with no
    /// reservation. The literal reading and the default (`head=thesis`).
    #[default]
    Thesis,
    /// Start queue heads while they fit, in order, then reserve for the
    /// first that does not (EASY's head rule; this crate's LOS before the
    /// thesis' rule was made the default) (`head=all-fitting`).
    AllFitting,
}

impl HeadRule {
    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Thesis => "thesis",
            Self::AllFitting => "all-fitting",
        }
    }

    /// Parses a spec name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Thesis, Self::AllFitting]
            .into_iter()
            .find(|rule| rule.name() == name)
    }
}

/// Which waiting jobs fill LOS's lookahead window of C jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Window {
    /// The first C waiting jobs that fit the free processors (section
    /// 3.5.1: jobs larger than n are excluded, then "including only the
    /// first C waiting jobs"). The literal reading and the default
    /// (`window=fit`).
    #[default]
    Fit,
    /// The first C waiting jobs that could be picked: they fit the free
    /// processors and either end by the shadow time or fit in the extra
    /// processors (`window=pickable`). With a long queue the literal window
    /// can fill with jobs that cannot start while pickable ones wait
    /// behind it.
    Pickable,
}

impl Window {
    /// The spec name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fit => "fit",
            Self::Pickable => "pickable",
        }
    }

    /// Parses a spec name.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Fit, Self::Pickable]
            .into_iter()
            .find(|window| window.name() == name)
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
    /// What happens to a queue head that fits.
    pub head: HeadRule,
    /// Which jobs fill the lookahead window.
    pub window: Window,
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
            head: HeadRule::default(),
            window: Window::default(),
        }
    }

    /// The same settings with head rule `head`.
    #[must_use]
    pub fn with_head(mut self, head: HeadRule) -> Self {
        self.head = head;
        self
    }

    /// The same settings with lookahead window `window`.
    #[must_use]
    pub fn with_window(mut self, window: Window) -> Self {
        self.window = window;
        self
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
            head: HeadRule::Thesis,
            window: Window::Fit,
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
        if self.head != defaults.head {
            option(f, format!("head={}", self.head.name()))?;
        }
        if self.window != defaults.window {
            option(f, format!("window={}", self.window.name()))?;
        }
        Ok(())
    }
}

/// LOS, the Lookahead Optimizing Scheduler (Shmueli and Feitelson; LOS
/// thesis chapter 3).
///
/// At every call, in arrival order:
/// 1. The head (section 3.2.1): "The algorithm begins by trying to start
///    the first waiting job. If wj_1.size <= n, it is removed from the
///    waiting queue, added to the running jobs list and starts executing";
///    then "we set shadow to infinity if wj_1 can be started at t": every
///    remaining job may start (shadow size 0) and only the free processors
///    bound the DP ([`HeadRule::Thesis`], the default). With
///    [`HeadRule::AllFitting`], heads start while they fit and the first
///    that does not is the one reserved for.
/// 2. Otherwise "the algorithm calculates the shadow time at which wj_1 can
///    begin its execution" and the extra processors (shadow free capacity)
///    from the running jobs (including those just started) ordered by
///    expected end, exactly as for EASY ([`crate::shadow`]; jobs ending at
///    the shadow instant all count towards the extra processors).
/// 3. The candidates are the next `lookahead` waiting jobs that fit the
///    free processors `n` (larger jobs are dropped first and do not count,
///    as in the thesis' Table 3.8; [`Window::Pickable`] also drops those
///    that neither end by the shadow time nor fit in the extra
///    processors). Each job's shadow size is 0 if `t + estimate <= shadow`
///    and its size otherwise (section 3.3.1).
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
        let Some(&first) = queue.first() else {
            return;
        };
        // (shadow time, extra processors), or None for an infinite shadow.
        let (reserved, shadow) = match self.config.head {
            HeadRule::Thesis if view.job(first).size <= free => {
                self.started.start(view, first, decisions);
                free -= view.job(first).size;
                (first, None)
            }
            HeadRule::Thesis => {
                let Some(reservation) = self.started.shadow(view, free, view.job(first).size)
                else {
                    return;
                };
                (first, Some(reservation))
            }
            HeadRule::AllFitting => {
                let position = self.started.start_heads(view, queue, &mut free, decisions);
                let Some(&head) = queue.get(position) else {
                    return;
                };
                let Some(reservation) = self.started.shadow(view, free, view.job(head).size) else {
                    return;
                };
                (head, Some(reservation))
            }
        };
        if free == 0 || self.config.lookahead == 0 {
            return;
        }
        let (shadow_time, extra) = shadow.map_or((Time::MAX, free), |r| (r.time, r.extra));
        // The window's test: fits `free` and, for `pickable`, ends by the
        // shadow time or fits in `extra`.
        let (max_estimate, small) = match self.config.window {
            Window::Fit => (Time::MAX, 0),
            Window::Pickable => (shadow_time.saturating_sub(now), extra),
        };

        // The next `lookahead` waiting jobs of the window (the queue is in
        // id order, so the index jumps straight to them).
        self.packer.clear();
        let mut from = JobId(reserved.0 + 1);
        while self.packer.len() < self.config.lookahead {
            let Some(id) = view.next_candidate(from, free, max_estimate, small) else {
                break;
            };
            let ends_by_shadow = now.saturating_add(view.estimate(id)) <= shadow_time;
            self.packer
                .push(view, id, ends_by_shadow, self.config.merit);
            from = JobId(id.0 + 1);
        }
        let dp = match self.config.variant {
            LosVariant::Reservation => Dp::Reservation { extra },
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
    fn all_fitting_heads_start_in_order() {
        // head=all-fitting, 10 free processors: wj1 (7) fits and starts;
        // then wj2 (2) fits too and starts; wj3 (1) as well: free 0 after
        // 7 + 2 + 1.
        let jobs = thesis_state();
        let queue: Vec<JobId> = (1..=5).map(JobId).collect();
        let mut storage = ViewStorage::default();
        let view = View::new(25, 10, &jobs, &queue, &[], &mut storage);
        let mut decisions = Decisions::new();
        Los::new(LosConfig::default().with_head(HeadRule::AllFitting))
            .schedule(&view, &mut decisions);
        assert_eq!(decisions.starts(), [JobId(1), JobId(2), JobId(3)]);
    }

    /// Runs one LOS call on `jobs` (all waiting but those in `running`,
    /// given with their start times) at time `now` on 10 processors.
    fn starts(config: LosConfig, jobs: &[Job], running: &[(JobId, Time)], now: Time) -> Vec<u64> {
        let queue: Vec<JobId> = (0..jobs.len() as u32)
            .map(JobId)
            .filter(|id| running.iter().all(|r| r.0 != *id))
            .collect();
        let mut storage = ViewStorage::default();
        let view = View::new(now, 10, jobs, &queue, running, &mut storage);
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
    fn thesis_head_rule_packs_the_rest_without_a_reservation() {
        // 10 free processors; A (4), B (5), C (6) wait, long estimates.
        let jobs = [job(1, 0, 4, 10), job(2, 0, 5, 100), job(3, 0, 6, 100)];
        // Thesis: A fits and starts (6 free). Shadow is infinite, so the DP
        // packs B and C into 6 processors with no reservation: {C} uses 6,
        // {B} only 5, {B, C} needs 11: C starts, B waits.
        assert_eq!(starts(LosConfig::default(), &jobs, &[], 0), [1, 3]);
        // All-fitting: A starts, then B fits (5 <= 6) and starts; C (6 > 1)
        // is the head reserved for, nothing else waits.
        let all = LosConfig::default().with_head(HeadRule::AllFitting);
        assert_eq!(starts(all, &jobs, &[], 0), [1, 2]);
    }

    #[test]
    fn window_fit_or_pickable() {
        // R (8 processors) runs until 100; 2 free. H (10) waits: shadow 100,
        // extra 10 - 10 = 0. J1 (2, estimate 200) fits the free processors
        // but neither ends by 100 nor fits in 0 extra; J2 (1, estimate 50)
        // ends by 100.
        let jobs = [
            job(0, 0, 8, 100),
            job(1, 0, 10, 50),
            job(2, 0, 2, 200),
            job(3, 0, 1, 50),
        ];
        let running = [(JobId(0), 0)];
        let one = |window| {
            let mut config = LosConfig::default().with_window(window);
            config.lookahead = 1;
            starts(config, &jobs, &running, 0)
        };
        // fit (literal): the window of one holds J1, which cannot be picked.
        assert_eq!(one(Window::Fit), Vec::<u64>::new());
        // pickable: the window skips J1 and holds J2, which starts.
        assert_eq!(one(Window::Pickable), [3]);
    }

    #[test]
    fn minimizing_merits_pick_the_other_set() {
        // The thesis example's two 5-processor sets: {wj2, wj3, wj4} and
        // {wj2, wj5}. At t = 25, slowdowns wj3 4.667 + wj4 6.25 = 10.92
        // against wj5 5; responses (t - arrival + estimate) wj3 28 + wj4 25
        // = 53 against wj5 25.
        let with = |merit| LosConfig {
            merit,
            ..LosConfig::default()
        };
        assert_eq!(decide(with(LosMerit::MinSlowdown)), [2, 5]);
        assert_eq!(decide(with(LosMerit::MinResponse)), [2, 5]);
        assert_eq!(decide(with(LosMerit::MaxResponse)), [2, 3, 4]);
        let by_name: Vec<&str> = LosMerit::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(
            by_name,
            [
                "none",
                "maxjobs",
                "max-slowdown",
                "min-slowdown",
                "max-response",
                "min-response"
            ]
        );
    }

    #[test]
    fn canonical_names() {
        assert_eq!(LosConfig::default().to_string(), "los");
        let config = LosConfig::new(
            LosVariant::Basic,
            LosMerit::MaxSlowdown,
            TracebackOrder::SelectedFirst,
            25,
        )
        .with_head(HeadRule::AllFitting)
        .with_window(Window::Pickable);
        assert_eq!(
            config.to_string(),
            "los-basic:merit=max-slowdown,traceback=selected-first,lookahead=25,\
             head=all-fitting,window=pickable"
        );
    }
}

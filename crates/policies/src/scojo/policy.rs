//! The SCOJO-PECT policy: slices, suspensions, resumptions, EASY within a
//! class, smart backfilling, and the groups of the optimiser.

use schedsim_sim_core::{
    AvailabilityProfile, Decisions, JobId, JobState, Policy, ProcRange, SwitchOverhead, Time, View,
};

use super::config::{JobClass, ScojoConfig, SliceEnd, Tail};
use super::group::{PlannedJob, finish_time, forms_group};
use super::procset::ProcSet;
use super::search::{SearchCounters, SearchInput, SearchJob, search_group};

/// What the policy counted (see [`ScojoPect::counters`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScojoCounters {
    /// Slices begun, up to the policy's last call (the engine calls it
    /// while jobs wait or are suspended, at arrivals and at the slice ends
    /// it asks for; it asks for none while nothing waits or is suspended
    /// and switching is free, since those slice ends change nothing).
    pub slices: u64,
    /// Suspensions the policy decided.
    pub suspensions: u64,
    /// Resumptions the policy decided.
    pub resumptions: u64,
    /// Suspended jobs of other classes resumed by smart backfilling (not
    /// counting a job suspended and resumed in the same instant without
    /// switch overheads, which goes on running: neither is emitted).
    pub smart_resumptions: u64,
    /// Waiting jobs of other classes started by smart backfilling.
    pub smart_starts: u64,
    /// Medium groups formed.
    pub groups_medium: u64,
    /// Long groups formed.
    pub groups_long: u64,
    /// Jobs that joined a group.
    pub jobs_grouped: u64,
    /// Jobs left out of a plan because they end after the group's finish
    /// time ([`Tail::Release`]), or still unstarted when the group ended.
    pub jobs_released: u64,
    /// Arrivals started by backfilling upon dynamic submission.
    pub dynamic_backfills: u64,
    /// Plan jobs started in another class's slice.
    pub plan_backfills: u64,
    /// The searches' counters, summed over the groups.
    pub search: SearchCounters,
}

/// One job as the policy tracks it.
#[derive(Debug, Clone, Copy)]
struct JobInfo {
    class: JobClass,
    /// In its class queue, not started.
    waiting: bool,
    /// In a group's plan.
    in_group: bool,
    /// Started by dynamic backfilling: suspended when its slice ends.
    dynamic: bool,
    /// Suspended in the current call.
    suspended_now: bool,
    suspended_at: Time,
    resumed_at: Time,
}

/// A group of one class: its plan order and finish time.
#[derive(Debug, Clone)]
struct Group {
    /// Unstarted plan jobs, in plan order.
    jobs: Vec<JobId>,
    /// Real time at which the group ends (virtual finish stretched by the
    /// class's share).
    finish: Time,
}

/// A decision kept until the end of the call, so that a suspension undone
/// in the same instant (no overheads) can be dropped.
#[derive(Debug, Clone)]
enum Act {
    Suspend(JobId),
    /// A resumption, and whether smart backfilling made it.
    Resume(JobId, bool),
    StartOn(JobId, Vec<ProcRange>),
}

/// SCOJO-PECT (Esbaugh and Sodan's coarse-grain time sharing, thesis
/// section 4) and, with an [`OptimiserConfig`](super::OptimiserConfig), its dynamic group
/// optimiser (sections 6 and 7): a cycle of class slices, suspending each
/// slice's jobs at its end and resuming them on the same processors at the
/// class's next slice, with smart backfilling of the other classes' jobs;
/// the optimiser plans groups of waiting long or medium jobs by a bounded
/// search. The crate's README and `schedsim policies` list the options.
#[derive(Debug, Clone)]
pub struct ScojoPect {
    name: String,
    config: ScojoConfig,
    /// The cycle's slices with length > 0.
    slices: Vec<(JobClass, Time)>,
    /// Index of the current slice in `slices`, and its end; `None` before
    /// the first call.
    clock: Option<(usize, Time)>,
    /// The last call decided nothing and asked for no wake-up at its
    /// slice's end: nothing waits or is suspended, switching is free and
    /// smart backfilling on, so each slice end until the next call (an
    /// arrival or an end) would suspend and resume the same jobs in one
    /// instant, which is dropped. The next call passes those slice ends
    /// without acting (a job of 2^52 s would otherwise wake the policy
    /// some 10^12 times).
    quiet: bool,
    jobs: Vec<JobInfo>,
    queues: [Vec<JobId>; 3],
    /// Jobs to suspend once their resume overhead has passed.
    pending_suspend: Vec<JobId>,
    groups: [Option<Group>; 3],
    counters: ScojoCounters,
    // Per-call state.
    overhead: SwitchOverhead,
    granularity: u32,
    blocks: u32,
    free: ProcSet,
    suspended_sets: [ProcSet; 3],
    any_suspended: ProcSet,
    protected: ProcSet,
    scratch: ProcSet,
    ranges: Vec<ProcRange>,
    /// Processors coming back: (time, processors, the job holding them),
    /// for profiles.
    returns: Vec<(Time, u32, JobId)>,
    acts: Vec<Act>,
    wakeups: Vec<Time>,
}

/// EASY's reservation for the current slice's blocked head.
#[derive(Debug, Clone, Copy)]
struct Shadow {
    time: Time,
    extra: u32,
}

impl ScojoPect {
    /// The policy with these settings, named `name` (its canonical spec).
    pub fn new(config: ScojoConfig, name: impl Into<String>) -> Self {
        let slices = config
            .slices()
            .into_iter()
            .filter(|&(_, length)| length > 0)
            .collect();
        let empty = ProcSet::default;
        Self {
            name: name.into(),
            config,
            slices,
            clock: None,
            quiet: false,
            jobs: Vec::new(),
            queues: Default::default(),
            pending_suspend: Vec::new(),
            groups: Default::default(),
            counters: ScojoCounters::default(),
            overhead: SwitchOverhead::default(),
            granularity: 1,
            blocks: 0,
            free: empty(),
            suspended_sets: Default::default(),
            any_suspended: empty(),
            protected: empty(),
            scratch: empty(),
            ranges: Vec::new(),
            returns: Vec::new(),
            acts: Vec::new(),
            wakeups: Vec::new(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &ScojoConfig {
        &self.config
    }

    /// What the policy has counted so far.
    pub fn counts(&self) -> ScojoCounters {
        self.counters
    }

    /// The class of the current slice and the slice's end (`None` before
    /// the first call).
    pub fn current_slice(&self) -> Option<(JobClass, Time)> {
        self.clock.map(|(index, end)| (self.slices[index].0, end))
    }

    fn info(&self, id: JobId) -> &JobInfo {
        &self.jobs[id.index()]
    }

    fn info_mut(&mut self, id: JobId) -> &mut JobInfo {
        &mut self.jobs[id.index()]
    }

    fn blocks_of(&self, size: u32) -> u32 {
        size / self.granularity
    }

    /// Advances the slice clock to `now`; returns the classes of the slices
    /// that ended (in order), empty if none did.
    fn advance_clock(&mut self, now: Time) -> Vec<JobClass> {
        let Some(mut clock) = self.clock else {
            self.clock = Some((0, now + self.slices[0].1));
            self.counters.slices += 1;
            return Vec::new();
        };
        let cycle: Time = self.slices.iter().map(|&(_, l)| l).sum();
        if std::mem::take(&mut self.quiet) {
            // The slice ends before now, which the last call skipped: as
            // calls at each they would have changed nothing.
            clock = self.pass_slice_ends(clock, now, cycle, None);
        }
        let mut ended = Vec::new();
        self.clock = Some(self.pass_slice_ends(clock, now + 1, cycle, Some(&mut ended)));
        ended
    }

    /// Moves the slice clock `(index, end)` past every slice end before
    /// `until`, counting the slices; `ended` gets the classes of the slices
    /// passed, once each. Whole cycles are skipped at once: a long idle
    /// stretch, or quiet slice ends, may span billions of them.
    fn pass_slice_ends(
        &mut self,
        (mut index, mut end): (usize, Time),
        until: Time,
        cycle: Time,
        mut ended: Option<&mut Vec<JobClass>>,
    ) -> (usize, Time) {
        if until > end + cycle {
            let skipped = (until - end - 1) / cycle;
            end += skipped * cycle;
            self.counters.slices += skipped as u64 * self.slices.len() as u64;
            if let Some(ended) = ended.as_deref_mut() {
                ended.extend(self.slices.iter().map(|&(c, _)| c));
            }
        }
        while end < until {
            if let Some(ended) = ended.as_deref_mut()
                && !ended.contains(&self.slices[index].0)
            {
                ended.push(self.slices[index].0);
            }
            index = (index + 1) % self.slices.len();
            end += self.slices[index].1;
            self.counters.slices += 1;
        }
        (index, end)
    }

    /// Builds the call's processor sets from the view.
    fn read_machine(&mut self, view: &View<'_>) {
        self.granularity = view.granularity().max(1);
        self.blocks = view.procs() / self.granularity;
        let blocks = self.blocks;
        for set in [
            &mut self.free,
            &mut self.any_suspended,
            &mut self.protected,
            &mut self.scratch,
        ]
        .into_iter()
        .chain(self.suspended_sets.iter_mut())
        {
            set.reset(blocks);
        }
        self.ranges.clear();
        self.ranges.extend(view.free_processors());
        self.free.add_ranges(&self.ranges, self.granularity);
        for &id in view.suspended() {
            let class = self.info(id).class;
            self.suspended_sets[class.index()].add_ranges(view.allocation(id), self.granularity);
            self.any_suspended
                .add_ranges(view.allocation(id), self.granularity);
        }
    }

    /// The processors a job of `class` may start on now.
    fn allowed(&self, class: JobClass) -> u32 {
        self.free
            .count_without([&self.suspended_sets[class.index()], &self.protected])
            * self.granularity
    }

    fn suspend(&mut self, view: &View<'_>, id: JobId) {
        let info = self.info_mut(id);
        if info.suspended_now {
            return;
        }
        info.suspended_now = true;
        info.dynamic = false;
        info.suspended_at = view.now();
        let class = info.class;
        self.acts.push(Act::Suspend(id));
        self.counters.suspensions += 1;
        self.scratch.clear();
        self.scratch
            .add_ranges(view.allocation(id), self.granularity);
        self.suspended_sets[class.index()].union_with(&self.scratch);
        self.any_suspended.union_with(&self.scratch);
        let size = view.job(id).size;
        // Its processors come back after the suspend overhead (at once
        // without one), not at its expected end.
        self.returns.retain(|&(_, _, job)| job != id);
        if self.overhead.suspend == 0 {
            self.free.union_with(&self.scratch);
        } else {
            self.returns
                .push((view.now() + self.overhead.suspend, size, id));
        }
    }

    /// Resumes a suspended job on its processors; `smart` when smart
    /// backfilling resumes it in another class's slice.
    fn resume(&mut self, view: &View<'_>, id: JobId, smart: bool) {
        self.scratch.clear();
        self.scratch
            .add_ranges(view.allocation(id), self.granularity);
        self.free.remove(&self.scratch);
        let now = view.now();
        self.info_mut(id).resumed_at = now;
        self.acts.push(Act::Resume(id, smart));
        self.counters.resumptions += 1;
        if smart {
            self.counters.smart_resumptions += 1;
        }
        let end = now + self.overhead.resume + view.remaining_estimate(id);
        self.returns.retain(|&(_, _, job)| job != id);
        self.returns.push((end, view.job(id).size, id));
    }

    /// Starts a waiting job of `class` on the lowest allowed processors,
    /// avoiding those any suspended job needs back while others remain.
    fn start(&mut self, view: &View<'_>, id: JobId, class: JobClass) -> bool {
        let blocks = self.blocks_of(view.job(id).size);
        let mut chosen = ProcSet::empty(self.blocks);
        let excluded = [&self.suspended_sets[class.index()], &self.protected];
        if !self
            .free
            .take_lowest(blocks, excluded, &self.any_suspended, &mut chosen)
        {
            return false;
        }
        self.free.remove(&chosen);
        chosen.ranges(self.granularity, &mut self.ranges);
        self.acts.push(Act::StartOn(id, self.ranges.clone()));
        let info = self.info_mut(id);
        info.waiting = false;
        self.returns
            .push((view.now() + view.estimate(id), view.job(id).size, id));
        true
    }

    /// A profile of free processors from now: the machine after this
    /// call's decisions so far, processors coming back as `returns` says.
    fn profile(&self, view: &View<'_>) -> AvailabilityProfile {
        AvailabilityProfile::new(
            view.procs(),
            view.now(),
            self.free.count() * self.granularity,
            self.returns.iter().map(|&(time, size, _)| (time, size)),
        )
    }

    /// EASY's shadow time and extra processors for a head of `size`.
    fn shadow(&self, view: &View<'_>, size: u32) -> Option<Shadow> {
        let profile = self.profile(view);
        let time = profile.earliest_fit(view.now(), size, 0)?;
        Some(Shadow {
            time,
            extra: profile.free_at(time).saturating_sub(size),
        })
    }

    /// Whether a job of `size` that would hold its processors until `end`
    /// leaves the shadow reservation alone (ends by the shadow time, or
    /// fits in the extra processors, which it then uses).
    fn passes(shadow: &mut Option<Shadow>, end: Time, size: u32) -> bool {
        match shadow {
            None => true,
            Some(s) if end <= s.time => true,
            Some(s) if size <= s.extra => {
                s.extra -= size;
                true
            }
            Some(_) => false,
        }
    }
}

impl Policy for ScojoPect {
    fn name(&self) -> &str {
        &self.name
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        if self.slices.is_empty() {
            decisions.fail("SCOJO-PECT needs at least one slice longer than 0 s");
            return;
        }
        let now = view.now();
        if self.jobs.len() < view.jobs().len() {
            self.jobs.resize(
                view.jobs().len(),
                JobInfo {
                    class: JobClass::Short,
                    waiting: false,
                    in_group: false,
                    dynamic: false,
                    suspended_now: false,
                    suspended_at: Time::MIN,
                    resumed_at: Time::MIN,
                },
            );
        }
        self.overhead = view.switch_overhead();
        for &id in view.arrived() {
            let class = self.config.class_of(view.estimate(id));
            // Without smart backfilling a class runs only in its own slice.
            // A slice no longer than a suspension (the processors it waits
            // for) plus a resumption gives its jobs no time to progress
            // before they are suspended again: the run would never end.
            if !self.config.smart_backfill {
                let switch = self.overhead.suspend.saturating_add(self.overhead.resume);
                let length = self
                    .slices
                    .iter()
                    .find(|&&(c, _)| c == class)
                    .map_or(0, |&(_, length)| length);
                if switch > 0 && length <= switch {
                    decisions.fail(format!(
                        "job {} is {} and its slice lasts {length} s, no longer than a suspension and a resumption ({switch} s): with smart backfilling off it would never progress; lengthen the cycle, the class's share or min-slice, or turn smart backfilling on",
                        view.job(id).number,
                        class.name()
                    ));
                    return;
                }
            }
            let info = self.info_mut(id);
            info.class = class;
            info.waiting = true;
            self.queues[class.index()].push(id);
        }
        for queue in &mut self.queues {
            let jobs = &self.jobs;
            queue.retain(|id| jobs[id.index()].waiting);
        }
        let ended = self.advance_clock(now);
        let Some((class, slice_end)) = self.current_slice() else {
            return;
        };
        self.read_machine(view);
        self.acts.clear();
        self.wakeups.clear();
        self.returns.clear();
        self.returns
            .extend(view.running().map(|r| (r.expected_end, r.size, r.id)));
        for &id in view.suspended() {
            if view.state(id) == JobState::Suspending {
                let release = self.info(id).suspended_at + self.overhead.suspend;
                self.returns.push((release.max(now), view.job(id).size, id));
            }
        }

        self.end_groups(view, class);
        self.slice_end_suspensions(view, class, &ended);
        self.resume_own(view, class);
        if self.config.optimiser.is_some() {
            self.form_group(view, class);
        }
        let in_group = self.groups[class.index()].is_some();
        if in_group {
            self.schedule_in_group(view, class, slice_end);
        } else {
            let mut shadow = self.easy(view, class);
            if self.config.smart_backfill {
                self.smart_backfill(view, class, &mut shadow);
            }
        }

        // Emit, dropping a suspension undone in the same instant when
        // switching costs nothing.
        let free_switch = self.overhead == SwitchOverhead::default();
        let acts = std::mem::take(&mut self.acts);
        let mut emitted = 0;
        for (index, act) in acts.iter().enumerate() {
            match act {
                Act::Suspend(id)
                    if free_switch
                        && acts[index + 1..]
                            .iter()
                            .any(|a| matches!(a, Act::Resume(other, _) if other == id)) =>
                {
                    self.counters.suspensions -= 1;
                }
                Act::Resume(id, smart)
                    if free_switch
                        && acts[..index]
                            .iter()
                            .any(|a| matches!(a, Act::Suspend(other) if other == id)) =>
                {
                    self.counters.resumptions -= 1;
                    if *smart {
                        self.counters.smart_resumptions -= 1;
                    }
                }
                Act::Suspend(id) => {
                    decisions.suspend(*id);
                    emitted += 1;
                }
                Act::Resume(id, _) => {
                    decisions.resume(*id);
                    emitted += 1;
                }
                Act::StartOn(id, ranges) => {
                    decisions.start_on(*id, ranges);
                    emitted += 1;
                }
            }
        }
        self.acts = acts;
        for &id in view.suspended() {
            self.jobs[id.index()].suspended_now = false;
        }
        for act in &self.acts {
            if let Act::Suspend(id) = act {
                self.jobs[id.index()].suspended_now = false;
            }
        }

        // Wake-ups: the slice's end while anything is in the system (unless
        // the slice ends to come change nothing, see `quiet`), the end of
        // resume overheads of jobs to suspend.
        let busy = !view.queue().is_empty()
            || !view.suspended().is_empty()
            || view.running().len() > 0
            || !self.acts.is_empty();
        self.quiet = busy
            && free_switch
            && self.config.smart_backfill
            && emitted == 0
            && view.queue().is_empty()
            && view.suspended().is_empty()
            && self.groups.iter().all(Option::is_none)
            && self.pending_suspend.is_empty()
            && self.wakeups.is_empty();
        if busy && !self.quiet {
            decisions.wake_at(slice_end);
        }
        for &at in &self.wakeups {
            if at > now {
                decisions.wake_at(at);
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        let mut list = vec![
            ("slices", c.slices),
            ("suspensions", c.suspensions),
            ("resumptions", c.resumptions),
            ("smart_resumptions", c.smart_resumptions),
            ("smart_starts", c.smart_starts),
        ];
        if self.config.optimiser.is_some() {
            list.extend([
                ("groups", c.groups_medium + c.groups_long),
                ("groups_medium", c.groups_medium),
                ("groups_long", c.groups_long),
                ("jobs_grouped", c.jobs_grouped),
                ("jobs_released", c.jobs_released),
                ("dynamic_backfills", c.dynamic_backfills),
                ("plan_backfills", c.plan_backfills),
                ("schedules_evaluated", c.search.schedules),
                ("level1_orders", c.search.level1_orders),
                ("search_nodes", c.search.nodes),
                ("nodes_pruned", c.search.pruned),
                ("force_shifts", c.search.shifted),
                ("budget_exhausted", c.search.budget_exhausted),
                ("node_budget_exhausted", c.search.node_budget_exhausted),
            ]);
        }
        list
    }
}

impl ScojoPect {
    /// Suspends what the slice end suspends (see [`SliceEnd`]), and jobs
    /// whose suspension had to wait for their resume overhead.
    fn slice_end_suspensions(&mut self, view: &View<'_>, class: JobClass, ended: &[JobClass]) {
        let mut to_suspend: Vec<JobId> = Vec::new();
        if !ended.is_empty() {
            for running in view.running() {
                let info = self.info(running.id);
                let suspend = info.class != class
                    && (info.dynamic
                        || match self.config.slice_end {
                            SliceEnd::Class => ended.contains(&info.class),
                            SliceEnd::All => true,
                        });
                if suspend {
                    to_suspend.push(running.id);
                }
            }
        }
        let pending = std::mem::take(&mut self.pending_suspend);
        for id in pending {
            if matches!(view.state(id), JobState::Running | JobState::Resuming)
                && self.info(id).class != class
                && !to_suspend.contains(&id)
            {
                to_suspend.push(id);
            }
        }
        for id in to_suspend {
            self.suspend_when_possible(view, id);
        }
    }

    /// Suspends a running job now, or once its resume overhead has passed.
    fn suspend_when_possible(&mut self, view: &View<'_>, id: JobId) -> bool {
        match view.state(id) {
            JobState::Running => {
                self.suspend(view, id);
                true
            }
            JobState::Resuming => {
                self.pending_suspend.push(id);
                self.wakeups
                    .push(self.info(id).resumed_at + self.overhead.resume);
                false
            }
            _ => false,
        }
    }

    /// Resumes the slice's class's suspended jobs on their processors,
    /// suspending the other classes' jobs in the way. A job that cannot be
    /// resumed yet (its processors are still held through a suspend or
    /// resume overhead) keeps them protected from other starts.
    fn resume_own(&mut self, view: &View<'_>, class: JobClass) {
        let own: Vec<JobId> = view
            .suspended()
            .iter()
            .copied()
            .filter(|&id| self.info(id).class == class)
            .collect();
        for id in own {
            let mut needed = ProcSet::empty(self.blocks);
            needed.add_ranges(view.allocation(id), self.granularity);
            if view.state(id) == JobState::Suspended && !needed.is_subset(&self.free) {
                let colliders: Vec<JobId> = view
                    .running()
                    .filter(|r| !self.info(r.id).suspended_now)
                    .filter(|r| needed.intersects_ranges(view.allocation(r.id), self.granularity))
                    .map(|r| r.id)
                    .collect();
                for collider in colliders {
                    if self.info(collider).class != class {
                        self.suspend_when_possible(view, collider);
                    }
                }
            }
            if view.state(id) == JobState::Suspended && needed.is_subset(&self.free) {
                self.resume(view, id, false);
            } else {
                self.protected.union_with(&needed);
            }
        }
    }

    /// FCFS with EASY backfilling over the slice's class queue; returns the
    /// reservation of the blocked head, if any.
    fn easy(&mut self, view: &View<'_>, class: JobClass) -> Option<Shadow> {
        let mut shadow: Option<Shadow> = None;
        for k in 0..self.queues[class.index()].len() {
            let id = self.queues[class.index()][k];
            let info = self.info(id);
            if !info.waiting || info.in_group {
                continue;
            }
            let size = view.job(id).size;
            let allowed = self.allowed(class);
            match shadow {
                None => {
                    if allowed >= size {
                        self.start(view, id, class);
                    } else {
                        shadow = self.shadow(view, size);
                        if shadow.is_none() {
                            break;
                        }
                    }
                }
                Some(_) => {
                    if allowed == 0 {
                        break;
                    }
                    if allowed >= size
                        && Self::passes(&mut shadow, view.now() + view.estimate(id), size)
                    {
                        self.start(view, id, class);
                    }
                }
            }
        }
        shadow
    }

    /// Smart backfilling (Fig. 6, outside a group): other classes'
    /// suspended jobs on their own processors, the other classes' plan
    /// jobs, then their waiting jobs, shortest class first, where they
    /// leave the slice's reservation alone.
    fn smart_backfill(&mut self, view: &View<'_>, class: JobClass, shadow: &mut Option<Shadow>) {
        let now = view.now();
        for other in JobClass::ALL {
            if other == class {
                continue;
            }
            for id in self.resumable(view, other) {
                let mut needed = ProcSet::empty(self.blocks);
                needed.add_ranges(view.allocation(id), self.granularity);
                let end = now + self.overhead.resume + view.remaining_estimate(id);
                if needed.is_subset(&self.free)
                    && !needed.intersects(&self.protected)
                    && Self::passes(shadow, end, view.job(id).size)
                {
                    self.resume(view, id, true);
                }
            }
        }
        for other in JobClass::ALL {
            if other == class {
                continue;
            }
            if let Some(group) = &self.groups[other.index()] {
                for id in group.jobs.clone() {
                    let size = view.job(id).size;
                    if self.info(id).waiting
                        && self.allowed(other) >= size
                        && Self::passes(shadow, now + view.estimate(id), size)
                        && self.start(view, id, other)
                    {
                        self.counters.plan_backfills += 1;
                    }
                }
                self.drop_started_plan_jobs(other);
            }
        }
        for other in JobClass::ALL {
            if other == class {
                continue;
            }
            for k in 0..self.queues[other.index()].len() {
                let id = self.queues[other.index()][k];
                let info = self.info(id);
                if !info.waiting || info.in_group {
                    continue;
                }
                let size = view.job(id).size;
                let allowed = self.allowed(other);
                if allowed == 0 {
                    break;
                }
                if allowed >= size
                    && Self::passes(shadow, now + view.estimate(id), size)
                    && self.start(view, id, other)
                {
                    self.counters.smart_starts += 1;
                }
            }
        }
    }

    /// The suspended jobs of `class` smart backfilling may resume: those
    /// suspended before this call, and, when switching costs nothing,
    /// those this call suspends (the pair is then dropped: they run on,
    /// see [`SliceEnd::All`]).
    fn resumable(&self, view: &View<'_>, class: JobClass) -> Vec<JobId> {
        let mut jobs: Vec<JobId> = view
            .suspended()
            .iter()
            .copied()
            .filter(|&id| self.info(id).class == class && view.state(id) == JobState::Suspended)
            .collect();
        if self.overhead == SwitchOverhead::default() {
            jobs.extend(self.acts.iter().filter_map(|act| match act {
                Act::Suspend(id) if self.info(*id).class == class => Some(*id),
                _ => None,
            }));
        }
        jobs
    }

    fn drop_started_plan_jobs(&mut self, class: JobClass) {
        let jobs = &self.jobs;
        if let Some(group) = &mut self.groups[class.index()] {
            group.jobs.retain(|id| jobs[id.index()].waiting);
        }
    }

    /// Ends the groups whose plan is empty, and the slice's group once a
    /// job ends at or after its finish time (the unstarted plan jobs go
    /// back to the queue).
    fn end_groups(&mut self, view: &View<'_>, class: JobClass) {
        for index in 0..3 {
            self.drop_started_plan_jobs(JobClass::ALL[index]);
            let Some(group) = &self.groups[index] else {
                continue;
            };
            let finished = JobClass::ALL[index] == class
                && !view.ended().is_empty()
                && view.now() >= group.finish;
            if (group.jobs.is_empty() || finished)
                && let Some(group) = self.groups[index].take()
            {
                for id in group.jobs {
                    self.jobs[id.index()].in_group = false;
                    self.counters.jobs_released += 1;
                }
            }
        }
    }

    /// Forms a group of the slice's class if none is active and the
    /// criteria hold, and plans it.
    fn form_group(&mut self, view: &View<'_>, class: JobClass) {
        let Some(optimiser) = self.config.optimiser else {
            return;
        };
        let params = match class {
            JobClass::Short => return,
            JobClass::Medium => optimiser.medium,
            JobClass::Long => optimiser.long,
        };
        if self.groups[class.index()].is_some() {
            return;
        }
        let candidates: Vec<JobId> = self.queues[class.index()]
            .iter()
            .copied()
            .filter(|&id| self.info(id).waiting && !self.info(id).in_group)
            .take(params.max_jobs)
            .collect();
        let offered: Vec<(u32, Time)> = candidates
            .iter()
            .map(|&id| (view.job(id).size, view.estimate(id)))
            .collect();
        let machine = view.procs();
        if !forms_group(&params, optimiser.work_criterion, machine, &offered) {
            return;
        }
        let now = view.now();
        // The virtual frame: the running jobs, and the class's suspended
        // jobs not yet resumed run again from now.
        let mut base = self.profile(view);
        for &id in view.suspended() {
            if self.info(id).class == class {
                let duration = self.overhead.resume + view.remaining_estimate(id).max(1);
                let size = view.job(id).size;
                if let Some(at) = base.earliest_fit(now, size, duration) {
                    let _ = base.reserve(at, duration, size);
                }
            }
        }
        let wide_size = params.wide_size * f64::from(machine);
        let jobs: Vec<SearchJob> = candidates
            .iter()
            .map(|&id| {
                let job = view.job(id);
                let runtime = view.estimate(id);
                SearchJob {
                    id,
                    submit: job.submit,
                    size: job.size,
                    runtime,
                    wide: f64::from(job.size) >= wide_size && runtime >= params.wide_runtime,
                }
            })
            .collect();
        let share = self.config.share(class).max(f64::MIN_POSITIVE);
        let input = SearchInput {
            now,
            share,
            base: &base,
            jobs: &jobs,
            max_group: params.max_jobs,
        };
        let outcome = search_group(&input, &optimiser.search);
        self.counters.search.add(&outcome.counters);
        // Fig. 8 on the chosen plan, with the running jobs.
        let mut planned: Vec<PlannedJob> = view
            .running()
            .map(|r| PlannedJob {
                start: now,
                finish: r.expected_end,
                size: r.size,
                planned: false,
            })
            .collect();
        planned.extend(outcome.order.iter().map(|&j| PlannedJob {
            start: outcome.starts[j],
            finish: outcome.starts[j] + jobs[j].runtime,
            size: jobs[j].size,
            planned: true,
        }));
        let finish = finish_time(
            now,
            machine,
            &planned,
            params.min_jobs,
            optimiser.delta,
            optimiser.min_util,
        );
        let mut plan = Vec::with_capacity(jobs.len());
        for &j in &outcome.order {
            let keep =
                optimiser.tail == Tail::Keep || outcome.starts[j] + jobs[j].runtime <= finish;
            if keep {
                plan.push(jobs[j].id);
            } else {
                self.counters.jobs_released += 1;
            }
        }
        if plan.is_empty() {
            return;
        }
        for &id in &plan {
            self.info_mut(id).in_group = true;
        }
        self.counters.jobs_grouped += plan.len() as u64;
        match class {
            JobClass::Medium => self.counters.groups_medium += 1,
            _ => self.counters.groups_long += 1,
        }
        let real_finish = now + ((finish - now) as f64 / share).ceil() as Time;
        self.groups[class.index()] = Some(Group {
            jobs: plan,
            finish: real_finish,
        });
    }

    /// Scheduling inside a group (Fig. 6, first branch): the plan is
    /// recalculated (its jobs placed in plan order at their earliest fit
    /// given the running jobs, conservative backfilling), due plan jobs
    /// start, then other waiting jobs of the class, arrivals (dynamic
    /// backfilling, until the slice ends), other classes' suspended jobs,
    /// plan jobs and waiting jobs, each only where it does not conflict
    /// with the plan.
    fn schedule_in_group(&mut self, view: &View<'_>, class: JobClass, slice_end: Time) {
        let now = view.now();
        let Some(optimiser) = self.config.optimiser else {
            return;
        };
        let mut profile = self.profile(view);
        // The class's jobs whose resumption waits keep their room.
        for &id in view.suspended() {
            if self.info(id).class == class && view.state(id) != JobState::Running {
                let duration = self.overhead.resume + view.remaining_estimate(id).max(1);
                let size = view.job(id).size;
                if let Some(at) = profile.earliest_fit(now, size, duration) {
                    let _ = profile.reserve(at, duration, size);
                }
            }
        }
        let plan = self.groups[class.index()]
            .as_ref()
            .map(|g| g.jobs.clone())
            .unwrap_or_default();
        let mut blocked = false;
        let mut next_plan_start: Option<Time> = None;
        for id in plan {
            let size = view.job(id).size;
            let duration = view.estimate(id).max(1);
            let Some(at) = profile.earliest_fit(now, size, duration) else {
                continue;
            };
            let _ = profile.reserve(at, duration, size);
            if at == now && !blocked {
                if self.allowed(class) >= size && self.start(view, id, class) {
                    continue;
                }
                blocked = true;
            } else if at > now {
                next_plan_start = Some(next_plan_start.map_or(at, |t: Time| t.min(at)));
            }
        }
        self.drop_started_plan_jobs(class);
        if let Some(at) = next_plan_start {
            self.wakeups.push(at);
        }
        // Waiting jobs of the class outside the plan.
        for k in 0..self.queues[class.index()].len() {
            let id = self.queues[class.index()][k];
            let info = self.info(id);
            if !info.waiting || info.in_group {
                continue;
            }
            self.start_if_fits(view, &mut profile, id, view.estimate(id));
        }
        // Backfilling upon dynamic submission: until the slice ends.
        if optimiser.dynamic_backfill {
            for &id in view.arrived() {
                let info = *self.info(id);
                if !info.waiting || info.in_group {
                    continue;
                }
                if optimiser.dynamic_fit && now + view.estimate(id) > slice_end {
                    continue;
                }
                let duration = view.estimate(id).min(slice_end - now);
                if self.start_if_fits(view, &mut profile, id, duration) {
                    self.counters.dynamic_backfills += 1;
                    if info.class != class {
                        self.info_mut(id).dynamic = true;
                    }
                }
            }
        }
        if !self.config.smart_backfill {
            return;
        }
        for other in JobClass::ALL {
            if other == class {
                continue;
            }
            for id in self.resumable(view, other) {
                let mut needed = ProcSet::empty(self.blocks);
                needed.add_ranges(view.allocation(id), self.granularity);
                let duration = self.overhead.resume + view.remaining_estimate(id).max(1);
                let size = view.job(id).size;
                if needed.is_subset(&self.free)
                    && !needed.intersects(&self.protected)
                    && profile.fits(now, size, duration)
                {
                    let _ = profile.reserve(now, duration, size);
                    self.resume(view, id, true);
                }
            }
        }
        for other in JobClass::ALL {
            if other == class {
                continue;
            }
            if let Some(group) = &self.groups[other.index()] {
                for id in group.jobs.clone() {
                    if self.info(id).waiting
                        && self.start_if_fits(view, &mut profile, id, view.estimate(id))
                    {
                        self.counters.plan_backfills += 1;
                    }
                }
                self.drop_started_plan_jobs(other);
            }
        }
        for other in JobClass::ALL {
            if other == class {
                continue;
            }
            for k in 0..self.queues[other.index()].len() {
                let id = self.queues[other.index()][k];
                let info = self.info(id);
                if !info.waiting || info.in_group {
                    continue;
                }
                if self.allowed(other) == 0 {
                    break;
                }
                if self.start_if_fits(view, &mut profile, id, view.estimate(id)) {
                    self.counters.smart_starts += 1;
                }
            }
        }
    }

    /// Starts a waiting job now if it fits in the processors it may use
    /// and in the plan's profile for `duration`; reserves it there.
    fn start_if_fits(
        &mut self,
        view: &View<'_>,
        profile: &mut AvailabilityProfile,
        id: JobId,
        duration: Time,
    ) -> bool {
        let class = self.info(id).class;
        let size = view.job(id).size;
        let duration = duration.max(1);
        if self.allowed(class) < size || !profile.fits(view.now(), size, duration) {
            return false;
        }
        if !self.start(view, id, class) {
            return false;
        }
        let _ = profile.reserve(view.now(), duration, size);
        true
    }
}

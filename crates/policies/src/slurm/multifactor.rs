//! Slurm's priority/multifactor plugin: job priorities from age,
//! fair-share, job size, partition and QOS, recomputed every
//! PriorityCalcPeriod.

use std::cmp::Reverse;

use schedsim_sim_core::{JobId, JobState, Time, View};

use super::conf::PriorityConf;
use super::shares::{ROOT, SharesFile, Tree};

/// Everything the multifactor priority needs: the slurm.conf settings, the
/// associations' shares and the partition and QOS priorities, and how many
/// processors make a node.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct MultifactorConfig {
    /// The PriorityWeight*, PriorityMaxAge, PriorityDecayHalfLife,
    /// PriorityCalcPeriod, PriorityFavorSmall and PriorityFlags settings.
    pub priority: PriorityConf,
    /// Shares, partition and QOS priorities.
    pub shares: SharesFile,
    /// Processors per node, for the node half of the job size factor
    /// (default 1: every processor is a node).
    pub cpus_per_node: u32,
}

impl MultifactorConfig {
    /// A configuration from its parts (cpus per node 1).
    pub fn new(priority: PriorityConf, shares: SharesFile) -> Self {
        Self {
            priority,
            shares,
            cpus_per_node: 1,
        }
    }

    /// The same with this many processors per node.
    #[must_use]
    pub fn with_cpus_per_node(mut self, cpus: u32) -> Self {
        self.cpus_per_node = cpus.max(1);
        self
    }
}

/// The five factors of a job's priority, each in [0, 1] (the partition and
/// QOS factors may exceed 1 only with the NO_NORMAL_* flags).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Factors {
    /// Age: time waiting over PriorityMaxAge, at most 1.
    pub age: f64,
    /// Fair-share: 2^(-(effective usage / normalized shares) / dampening).
    pub fairshare: f64,
    /// Job size.
    pub job_size: f64,
    /// Partition: its PriorityJobFactor over the highest.
    pub partition: f64,
    /// QOS: its priority over the highest.
    pub qos: f64,
}

/// Slurm's multifactor job priority over a simulation: usage accounting
/// with decay, the fair-share tree, and the priorities of waiting jobs as
/// Slurm holds them (set at submission, recomputed at every calc period).
///
/// The calc periods are the multiples of PriorityCalcPeriod of simulated
/// time (Slurm's decay thread runs every period from the controller's
/// start). At each one, as in `_decay_thread`: usage is decayed by
/// `decay_factor^period` with Slurm's `decay_factor = 1 - 0.693 /
/// half_life`, running jobs add `delta * decay_factor^delta * cpus` for
/// the `delta` seconds they ran since the last period, and every waiting
/// job's priority is recomputed. A job that ends adds its last slice at its
/// end (`priority_p_job_end`). Between periods priorities do not change,
/// except that a new job gets its priority at submission (age 0).
#[derive(Debug, Clone)]
pub struct Multifactor {
    config: MultifactorConfig,
    decay_factor: f64,
    tree: Option<Tree>,
    /// Per job: its user's association.
    job_assoc: Vec<u32>,
    /// Raw usage per association divided by `scale` (decay multiplies
    /// `scale` only).
    usage: Vec<f64>,
    scale: f64,
    /// Every usage is 0 (none charged yet, or all decayed below the
    /// smallest float).
    usage_is_zero: bool,
    /// The last calc period processed (Slurm's g_last_ran).
    last_tick: Time,
    /// Jobs charged while they run: (job, start, processors).
    running: Vec<(JobId, Time, u32)>,
    /// Per job: its current priority; 0 before it has one.
    priority: Vec<u32>,
    part_max: u32,
    qos_max: u32,
    recomputations: u64,
}

impl Multifactor {
    /// The priority engine for a configuration.
    pub fn new(config: MultifactorConfig) -> Self {
        let half_life = config.priority.decay_half_life;
        let decay_factor = if half_life > 0 {
            1.0 - 0.693 / half_life as f64
        } else {
            1.0
        };
        let part_max = config
            .shares
            .partitions
            .values()
            .copied()
            .max()
            .unwrap_or(0);
        let qos_max = config.shares.qos.values().copied().max().unwrap_or(0);
        Self {
            config,
            decay_factor,
            tree: None,
            job_assoc: Vec::new(),
            usage: Vec::new(),
            scale: 1.0,
            usage_is_zero: true,
            last_tick: Time::MIN,
            running: Vec::new(),
            priority: Vec::new(),
            part_max,
            qos_max,
            recomputations: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &MultifactorConfig {
        &self.config
    }

    /// Users of the workload that the shares file did not place (each got
    /// an association under root with 1 share); known after the first
    /// call.
    pub fn defaulted_users(&self) -> usize {
        self.tree.as_ref().map_or(0, |tree| tree.defaulted)
    }

    /// How many times the waiting jobs' priorities were recomputed.
    pub fn recomputations(&self) -> u64 {
        self.recomputations
    }

    fn init(&mut self, view: &View<'_>) {
        let jobs = view.jobs();
        let users = jobs.iter().map(|job| job.user().unwrap_or(u32::MAX));
        let tree = Tree::build(&self.config.shares, users);
        self.job_assoc = jobs
            .iter()
            .map(|job| tree.users[&job.user().unwrap_or(u32::MAX)] as u32)
            .collect();
        self.usage = vec![0.0; tree.nodes.len()];
        self.priority = vec![0; jobs.len()];
        self.tree = Some(tree);
        let period = self.config.priority.calc_period;
        self.last_tick = view.now().div_euclid(period) * period;
    }

    /// Brings usage and priorities to `view.now()`: the calc periods passed
    /// since the last call, the jobs that ended, the priorities of new
    /// jobs. Returns whether the waiting jobs' priorities were recomputed.
    pub fn advance(&mut self, view: &View<'_>) -> bool {
        if self.tree.is_none() {
            self.init(view);
        }
        if self.priority.len() < view.jobs().len() {
            self.priority.resize(view.jobs().len(), 0);
        }
        let now = view.now();
        let period = self.config.priority.calc_period;
        // The end of each job that has ended since the last call.
        let mut ends: Vec<(Time, usize)> = Vec::new();
        for (index, &(id, start, _)) in self.running.iter().enumerate() {
            if matches!(view.state(id), JobState::Done) {
                ends.push((start + view.run_time(id), index));
            }
        }
        ends.sort_unstable();
        let mut ended = vec![false; self.running.len()];
        let mut next_end = 0;
        let mut ticked = false;
        while self.last_tick + period <= now {
            if next_end == self.running.len() && (self.usage_is_zero || self.decay_factor == 1.0) {
                // Nothing runs and nothing is left to decay: the periods up
                // to now change no usage, so they pass at once (a long idle
                // gap would otherwise take one step per period). The scale
                // of zero usage restarts at 1, as the walk's renormalization
                // would set it.
                self.last_tick += (now - self.last_tick) / period * period;
                if self.decay_factor != 1.0 {
                    self.scale = 1.0;
                }
                ticked = true;
                break;
            }
            let tick = self.last_tick + period;
            while next_end < ends.len() && ends[next_end].0 <= tick {
                let (end, index) = ends[next_end];
                self.charge(index, end);
                ended[index] = true;
                next_end += 1;
            }
            self.decay(period);
            let mut index = 0;
            while index < ended.len() {
                if !ended[index] {
                    self.charge(index, tick);
                }
                index += 1;
            }
            self.last_tick = tick;
            ticked = true;
        }
        for &(end, index) in &ends[next_end..] {
            self.charge(index, end);
            ended[index] = true;
        }
        if !ends.is_empty() {
            let mut index = 0;
            self.running.retain(|_| {
                index += 1;
                !ended[index - 1]
            });
        }
        // Recompute at the last period only: earlier values are never seen.
        let time_dependent = self.config.priority.time_dependent();
        for &id in view.queue() {
            if self.priority[id.index()] == 0 || (ticked && time_dependent) {
                let at = if self.priority[id.index()] == 0 {
                    now
                } else {
                    self.last_tick
                };
                self.priority[id.index()] = self.compute(view, id, at);
            }
        }
        if ticked && time_dependent {
            self.recomputations += 1;
        }
        ticked && time_dependent
    }

    /// Records jobs started now, to charge their usage.
    pub fn note_starts(&mut self, view: &View<'_>, started: &[JobId]) {
        for &id in started {
            self.running.push((id, view.now(), view.job(id).size));
        }
    }

    /// The next calc period after `now`.
    pub fn next_period(&self, now: Time) -> Time {
        let period = self.config.priority.calc_period;
        (now.div_euclid(period) + 1) * period
    }

    /// Whether priorities change while jobs wait.
    pub fn time_dependent(&self) -> bool {
        self.config.priority.time_dependent()
    }

    /// A job's current priority (0 if it has none yet).
    pub fn priority(&self, id: JobId) -> u32 {
        self.priority.get(id.index()).copied().unwrap_or(0)
    }

    /// Fills `out` with the waiting jobs by priority, highest first, ties by
    /// arrival (Slurm: priority, then job id).
    pub fn arrange(&self, view: &View<'_>, out: &mut Vec<JobId>) {
        out.clear();
        out.extend_from_slice(view.queue());
        out.sort_unstable_by_key(|&id| (Reverse(self.priority(id)), id));
    }

    fn decay(&mut self, seconds: Time) {
        if self.decay_factor == 1.0 {
            return;
        }
        let real_decay = self
            .decay_factor
            .powf(seconds as f64)
            .max(f64::MIN_POSITIVE);
        self.scale *= real_decay;
        if self.scale < 1e-150 {
            for usage in &mut self.usage {
                *usage *= self.scale;
            }
            self.scale = 1.0;
            self.usage_is_zero = self.usage.iter().all(|&usage| usage == 0.0);
        }
    }

    /// Adds the usage of running job `index` from the last period (or its
    /// start) to `until`: `delta * decay_factor^delta * cpus`, to its user
    /// and every parent up to root (`_apply_new_usage`).
    fn charge(&mut self, index: usize, until: Time) {
        let (id, start, size) = self.running[index];
        let delta = (until - start.max(self.last_tick)).max(0) as f64;
        if delta == 0.0 {
            return;
        }
        let amount = delta * self.decay_factor.powf(delta) * f64::from(size) / self.scale;
        let Some(tree) = &self.tree else { return };
        self.usage_is_zero = false;
        let mut node = self.job_assoc[id.index()] as usize;
        loop {
            self.usage[node] += amount;
            if node == ROOT {
                break;
            }
            node = tree.nodes[node].parent;
        }
    }

    /// A user's raw usage (decayed processor-seconds, Slurm's
    /// `usage_raw`) as of the last call; `None` before the first call or
    /// for a user the workload does not have.
    pub fn user_usage(&self, user: u32) -> Option<f64> {
        let tree = self.tree.as_ref()?;
        Some(self.usage[*tree.users.get(&user)?] * self.scale)
    }

    /// A user's fair-share factor as of the last call (see
    /// [`user_usage`](Self::user_usage)).
    pub fn user_fairshare(&self, user: u32) -> Option<f64> {
        let tree = self.tree.as_ref()?;
        Some(self.fairshare_factor(*tree.users.get(&user)?))
    }

    /// The effective usage of an association, classic algorithm
    /// (`_set_usage_efctv`): `UE = UA + (UE_parent - UA) * S / S_siblings`,
    /// with `UA` the usage normalized by root's; children of root have
    /// `UE = UA`.
    fn effective_usage(&self, tree: &Tree, node: usize) -> f64 {
        let root = self.usage[ROOT];
        let normalized = if root > 0.0 {
            (self.usage[node] / root).min(1.0)
        } else {
            0.0
        };
        let association = &tree.nodes[node];
        if association.parent == ROOT {
            return normalized;
        }
        let parent = self.effective_usage(tree, association.parent);
        if association.level_shares == 0 {
            return parent;
        }
        normalized
            + (parent - normalized) * f64::from(association.shares)
                / association.level_shares as f64
    }

    /// The fair-share factor of a user's association:
    /// `2^(-(UE / S) / FairShareDampeningFactor)`, 0 without shares.
    pub(crate) fn fairshare_factor(&self, user_association: usize) -> f64 {
        let Some(tree) = &self.tree else { return 1.0 };
        let shares = tree.nodes[user_association].shares_norm;
        if shares <= 0.0 {
            return 0.0;
        }
        let usage = self.effective_usage(tree, user_association);
        let damp = f64::from(self.config.priority.dampening_factor);
        (-(usage / shares) / damp).exp2()
    }

    /// The factors of a job at time `at` (`set_priority_factors`).
    pub fn factors(&self, view: &View<'_>, id: JobId, at: Time) -> Factors {
        let conf = &self.config.priority;
        let job = view.job(id);
        let mut factors = Factors::default();
        if conf.weight_age > 0 {
            let waited = (at - job.submit).max(0);
            factors.age = if waited < conf.max_age {
                waited as f64 / conf.max_age as f64
            } else {
                1.0
            };
        }
        if conf.weight_fairshare > 0 {
            if self.tree.is_some() {
                factors.fairshare = self.fairshare_factor(self.job_assoc[id.index()] as usize);
            } else {
                factors.fairshare = 1.0;
            }
        }
        if conf.weight_job_size > 0 {
            factors.job_size = self.size_factor(view, id);
        }
        if conf.weight_partition > 0
            && let Some(&factor) = job
                .partition()
                .and_then(|p| self.config.shares.partitions.get(&p))
            && factor > 0
        {
            factors.partition = if conf.flags.no_normal_part {
                f64::from(factor)
            } else {
                f64::from(factor) / f64::from(self.part_max)
            };
        }
        if conf.weight_qos > 0
            && let Some(&priority) = job.queue().and_then(|q| self.config.shares.qos.get(&q))
            && priority > 0
        {
            factors.qos = if conf.flags.no_normal_qos {
                f64::from(priority)
            } else {
                f64::from(priority) / f64::from(self.qos_max)
            };
        }
        factors
    }

    /// The job size factor (`set_priority_factors`): with N nodes of the
    /// machine and C processors, a job of n nodes (its processors over the
    /// processors per node, rounded up) and c processors has
    /// `(n/N + c/C) / 2`, or with PriorityFavorSmall `((N-n)/N + (C-c)/C) /
    /// 2`; with SMALL_RELATIVE_TO_TIME `max(n*C/N, c) / limit / C` (limit
    /// in minutes), or 1 minus that when favouring small jobs.
    fn size_factor(&self, view: &View<'_>, id: JobId) -> f64 {
        let conf = &self.config.priority;
        let cpus_per_node = u64::from(self.config.cpus_per_node.max(1));
        let procs = u64::from(view.procs());
        let size = u64::from(view.job(id).size);
        let nodes = procs.div_ceil(cpus_per_node).max(1) as f64;
        let min_nodes = size.div_ceil(cpus_per_node).max(1) as f64;
        let (cluster_cpus, cpus) = (procs as f64, size as f64);
        let factor = if conf.flags.small_relative_to_time {
            let limit_minutes = (view.estimate(id).max(0) as u64).div_ceil(60).max(1) as f64;
            let relative =
                (min_nodes * cluster_cpus / nodes).max(cpus) / limit_minutes / cluster_cpus;
            if conf.favor_small {
                1.0 - relative
            } else {
                relative
            }
        } else if conf.favor_small {
            ((nodes - min_nodes) / nodes + (cluster_cpus - cpus) / cluster_cpus) / 2.0
        } else {
            (min_nodes / nodes + cpus / cluster_cpus) / 2.0
        };
        factor.clamp(0.0, 1.0)
    }

    /// The priority of a job at time `at` (`_get_priority_internal`): the
    /// weighted factors summed in Slurm's order, at least 1, truncated to
    /// an integer.
    pub fn compute(&self, view: &View<'_>, id: JobId, at: Time) -> u32 {
        let conf = &self.config.priority;
        let f = self.factors(view, id, at);
        let priority = f.age * f64::from(conf.weight_age)
            + f.fairshare * f64::from(conf.weight_fairshare)
            + f.job_size * f64::from(conf.weight_job_size)
            + f.partition * f64::from(conf.weight_partition)
            + f.qos * f64::from(conf.weight_qos);
        // Slurm: below 1 is 1 (0 means held); at most 2^32 - 1.
        priority.clamp(1.0, f64::from(u32::MAX)) as u32
    }
}

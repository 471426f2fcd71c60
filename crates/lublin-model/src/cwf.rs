//! The CWF workload generator of the Delayed/Hybrid-LOS paper (section IV-D):
//! the Lublin model with block sizes, dedicated jobs and elastic control
//! commands.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};
use workload_format::{CwfFields, JobStatus, Record, RequestType};

use crate::cycle::{ArrivalStream, DailyCycle, Walk, walk};
use crate::dist::{Gamma, exponential};
use crate::error::ParamsError;
use crate::estimate::EstimateParams;
use crate::load::{find_scale, load_from};
use crate::lublin::{Generated, GeneratedSummary, RuntimeModel};
use crate::params::{
    ArrivalParams, ClassParams, RuntimeParams, check_log_runtime_cap, check_positive,
    check_probability, check_target_load, validate_arrival, validate_runtime,
};
use crate::rng::{Aspect, StreamClass, stream, unit};

/// A closed range of block counts, drawn as `round(uniform(low, high))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockRange {
    /// Lower end of the uniform draw, in blocks.
    pub low: f64,
    /// Upper end of the uniform draw, in blocks.
    pub high: f64,
}

impl BlockRange {
    /// The paper's small jobs: `round(U(1, 3))` blocks ("uniformly sampling
    /// from the interval \[1,3\] and multiplying the rounded sampled value
    /// by 32"); mean 2 blocks.
    pub const PAPER_SMALL: Self = Self::new(1.0, 3.0);
    /// The paper's large jobs: `round(U(4, 10))` blocks ("either 128,
    /// 160,..., or 320 processors"); mean 7 blocks. With [`PAPER_SMALL`](Self::PAPER_SMALL) the
    /// mean size is 192, 144 and 96 processors at P_S = 0.2, 0.5 and 0.8,
    /// 3-7% above the paper's reported 180.84, 139.35 and 89.72.
    pub const PAPER_LARGE: Self = Self::new(4.0, 10.0);
    /// Large jobs of `round(U(4, 9))` blocks, mean 6.5 (not in the paper):
    /// the mean sizes become 179.2, 136 and 92.8 processors at P_S = 0.2,
    /// 0.5 and 0.8, within 3.5% of the paper's reported means (its three
    /// values do not fit any one pair of small and large means exactly:
    /// they imply a large mean of about 208 processors, 6.5 blocks, from
    /// P_S = 0.2 and 0.5).
    pub const MEAN_MATCHED_LARGE: Self = Self::new(4.0, 9.0);

    /// The range `round(U(low, high))`.
    pub const fn new(low: f64, high: f64) -> Self {
        Self { low, high }
    }

    /// The expected number of blocks of `round(U(low, high))` (rounding
    /// half up): each whole `k` weighs the length of `[k - 0.5, k + 0.5)`
    /// inside `[low, high]`. `low` itself when `low == high`.
    pub fn mean_blocks(&self) -> f64 {
        let width = self.high - self.low;
        if width <= 0.0 || !width.is_finite() {
            return (self.low + 0.5).floor();
        }
        let first = (self.low + 0.5).floor() as i64;
        let last = (self.high + 0.5).floor() as i64;
        (first..=last)
            .map(|k| {
                let k = k as f64;
                let covered = (k + 0.5).min(self.high) - (k - 0.5).max(self.low);
                k * covered.max(0.0) / width
            })
            .sum()
    }
}

/// Which number the runtime model's `p = pa * s + pb` takes as the size `s`.
/// The paper says "the job size" without a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeUnit {
    /// `s` in processors (32..=320). The literal reading, and what the
    /// reference code the generator extends does with the size it draws:
    /// with the typeless `pa = -0.0054, pb = 0.78`, `p` is 0.607 for 32
    /// processors, 0.089 for 128 and 0 from 160 up, so large jobs always take
    /// the long gamma component. The default.
    Processors,
    /// `s` in allocation blocks (1..=10): `p` stays between 0.726 and 0.775,
    /// i.e. the 128-node model's correlation for small jobs.
    Blocks,
}

/// The distribution of an ET/RT amount. The paper says only "exponential".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CommandAmount {
    /// Exponential with a fixed mean, in seconds.
    Seconds {
        /// Mean amount, seconds.
        mean: f64,
    },
    /// Exponential with mean `mean_fraction * requested time` of the job.
    Relative {
        /// Mean amount as a fraction of the job's requested time.
        mean_fraction: f64,
    },
}

/// When an ET/RT command is issued. The paper does not say.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CommandTime {
    /// Uniformly within the job's estimated lifetime as seen at submission:
    /// in `[submit + 1, start + requested time]`, `start` being the requested
    /// start of a dedicated job and the submit time of a batch job. The
    /// default.
    WithinLifetime,
    /// `submit + max(1, round(Exp(mean)))` seconds.
    AfterSubmit {
        /// Mean delay after the submission, seconds.
        mean: f64,
    },
}

/// How far an RT command may reduce the requested time. The paper does not
/// say whether a reduction can go below the job's runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReduceFloor {
    /// Down to 1 s: the reduction may cut below the runtime (in the paper's
    /// model an ECC changes the job's actual execution time). The default.
    OneSecond,
    /// Down to the runtime: only the over-estimate can be taken back. With
    /// exact estimates no RT command is then ever written.
    Runtime,
}

/// Parameters of the CWF generator. [`Default`] gives the paper's values where
/// it states them; every other choice is documented on its field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CwfParams {
    /// Processors of the machine (paper: 320).
    pub machine_size: u32,
    /// Processors per allocation block (paper: 32, a BlueGene/P node card).
    pub block_size: u32,
    /// P_S: probability of a small job (the paper varies it; default 0.5, the
    /// value of its figures 5, 8 and 11).
    pub small_prob: f64,
    /// Small jobs: `round(U(1, 3))` blocks (paper). Rounding makes the end
    /// values half as likely as the middle ones: 1, 2, 3 blocks with
    /// probabilities 1/4, 1/2, 1/4.
    pub small_blocks: BlockRange,
    /// Large jobs: `round(U(4, 10))` blocks (paper): 4 and 10 with 1/12 each,
    /// 5..=9 with 1/6 each. [`BlockRange::MEAN_MATCHED_LARGE`] (4-9 blocks)
    /// matches the paper's reported mean sizes better.
    pub large_blocks: BlockRange,
    /// Runtime model (paper table I: the typeless Lublin values).
    pub runtime: RuntimeParams,
    /// The unit of `s` in `p = pa * s + pb` (default: processors).
    pub runtime_size_unit: SizeUnit,
    /// Redraw a log runtime while above this (not in the paper; the
    /// reference generator's 12 is kept).
    pub max_log_runtime: f64,
    /// Arrival process (paper table II; `barr` is varied in [0.4101, 0.6101]
    /// for load, default its midpoint 0.5101).
    pub arrival: ArrivalParams,
    /// Redraw a log inter-arrival draw while above this (reference: 13).
    pub max_log_interarrival: f64,
    /// Offered load to reach by scaling the inter-arrival times instead of
    /// tuning `barr` by hand; `None` keeps the arrival process as set.
    pub target_load: Option<f64>,
    /// The requested time (field 9) of every job (default exact).
    pub estimate: EstimateParams,
    /// P_D: probability of a dedicated job (the paper varies it; default
    /// 0.5, the value of its figure 11).
    pub dedicated_prob: f64,
    /// Mean of the exponential delay from submission to the requested start
    /// of a dedicated job, seconds (not in the paper; default 3600).
    pub start_delay_mean: f64,
    /// P_E: probability that a job gets an ET command (paper: 0.2).
    pub extend_prob: f64,
    /// P_R: probability that a job gets an RT command (paper: 0.1).
    pub reduce_prob: f64,
    /// `false` (default): ET and RT are decided independently, so a job can
    /// get both. `true`: one draw decides ET (P_E), RT (P_R) or neither, and
    /// `P_E + P_R` must not exceed 1.
    pub exclusive_commands: bool,
    /// ET amount (default: exponential, mean half the requested time).
    pub extend_amount: CommandAmount,
    /// RT amount (default: exponential, mean a quarter of the requested
    /// time), capped by `reduce_floor`.
    pub reduce_amount: CommandAmount,
    /// How far an RT may go (default: down to 1 s). The cap is taken from
    /// the requested time at submission, so it holds in any order of ET/RT.
    pub reduce_floor: ReduceFloor,
    /// When commands are issued (default: within the estimated lifetime).
    pub command_time: CommandTime,
}

impl Default for CwfParams {
    fn default() -> Self {
        Self {
            machine_size: 320,
            block_size: 32,
            small_prob: 0.5,
            small_blocks: BlockRange::PAPER_SMALL,
            large_blocks: BlockRange::PAPER_LARGE,
            runtime: ClassParams::TYPELESS.runtime,
            runtime_size_unit: SizeUnit::Processors,
            max_log_runtime: 12.0,
            arrival: ArrivalParams {
                aarr: 13.2303,
                barr: 0.5101,
                anum: 15.1737,
                bnum: 0.9631,
                arar: 1.0225,
            },
            max_log_interarrival: 13.0,
            target_load: None,
            estimate: EstimateParams::EXACT,
            dedicated_prob: 0.5,
            start_delay_mean: 3600.0,
            extend_prob: 0.2,
            reduce_prob: 0.1,
            exclusive_commands: false,
            extend_amount: CommandAmount::Relative { mean_fraction: 0.5 },
            reduce_amount: CommandAmount::Relative {
                mean_fraction: 0.25,
            },
            reduce_floor: ReduceFloor::OneSecond,
            command_time: CommandTime::WithinLifetime,
        }
    }
}

impl CwfParams {
    /// Sets the target offered load.
    #[must_use]
    pub fn load(mut self, target: f64) -> Self {
        self.target_load = Some(target);
        self
    }

    /// Checks every parameter; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if self.block_size == 0 {
            return Err(ParamsError::new("block_size", 0.0, "at least 1"));
        }
        if self.machine_size < self.block_size {
            return Err(ParamsError::new(
                "machine_size",
                f64::from(self.machine_size),
                "at least one block",
            ));
        }
        check_probability("small_prob", self.small_prob)?;
        let blocks = f64::from(self.machine_size / self.block_size);
        for (name, r) in [
            ("small_blocks", self.small_blocks),
            ("large_blocks", self.large_blocks),
        ] {
            // round(U(low, high)) must give 1..=machine blocks.
            if !(0.5..=r.high).contains(&r.low) {
                return Err(ParamsError::new(
                    &format!("{name}.low"),
                    r.low,
                    "at least 0.5 and at most high",
                ));
            }
            if !(r.high.is_finite() && r.high < blocks + 0.5) {
                return Err(ParamsError::new(
                    &format!("{name}.high"),
                    r.high,
                    "below the machine's block count + 0.5",
                ));
            }
        }
        check_log_runtime_cap(self.max_log_runtime)?;
        check_positive("max_log_interarrival", self.max_log_interarrival)?;
        validate_runtime("cwf", &self.runtime, self.max_log_runtime)?;
        validate_arrival("cwf", &self.arrival, self.max_log_interarrival)?;
        if let Some(load) = self.target_load {
            check_target_load("target_load", load)?;
        }
        self.estimate.validate("estimate")?;
        check_probability("dedicated_prob", self.dedicated_prob)?;
        check_mean_seconds("start_delay_mean", self.start_delay_mean)?;
        check_probability("extend_prob", self.extend_prob)?;
        check_probability("reduce_prob", self.reduce_prob)?;
        if self.exclusive_commands && self.extend_prob + self.reduce_prob > 1.0 {
            return Err(ParamsError::new(
                "reduce_prob",
                self.reduce_prob,
                "at most 1 - extend_prob with exclusive commands",
            ));
        }
        for (name, amount) in [
            ("extend_amount", self.extend_amount),
            ("reduce_amount", self.reduce_amount),
        ] {
            match amount {
                CommandAmount::Seconds { mean } => {
                    check_mean_seconds(&format!("{name}.mean"), mean)?;
                }
                CommandAmount::Relative { mean_fraction } => {
                    check_positive(&format!("{name}.mean_fraction"), mean_fraction)?;
                    if mean_fraction > MAX_MEAN_FRACTION {
                        return Err(ParamsError::new(
                            &format!("{name}.mean_fraction"),
                            mean_fraction,
                            "at most 1000",
                        ));
                    }
                }
            }
        }
        if let CommandTime::AfterSubmit { mean } = self.command_time {
            check_mean_seconds("command_time.mean", mean)?;
        }
        Ok(())
    }
}

/// The largest mean, in seconds, of an exponentially drawn delay or
/// amount: about 32 years. A draw beyond 2^53 s (the simulator's time
/// limit) would be 9 million means out, which does not happen.
const MAX_MEAN_SECONDS: f64 = 1e9;

/// The largest mean extension or reduction relative to the runtime.
const MAX_MEAN_FRACTION: f64 = 1e3;

fn check_mean_seconds(name: &str, mean: f64) -> Result<(), ParamsError> {
    check_positive(name, mean)?;
    if mean <= MAX_MEAN_SECONDS {
        Ok(())
    } else {
        Err(ParamsError::new(name, mean, "at most 1e9 seconds"))
    }
}

/// One command of a job, relative to its submission.
#[derive(Debug, Clone, Copy)]
struct Command {
    kind: RequestType,
    /// Seconds after the submission, at least 1.
    offset: u64,
    amount: u64,
}

/// Everything drawn for one job, independent of when it arrives.
#[derive(Debug, Clone, Copy)]
struct CwfJob {
    size: u32,
    runtime: u32,
    requested: u64,
    /// Requested start - submit, for dedicated jobs.
    start_delay: Option<u64>,
    extend: Option<Command>,
    reduce: Option<Command>,
}

/// The CWF generator: validated parameters and a seed.
///
/// ```
/// use lublin_model::{CwfGenerator, CwfParams};
///
/// let generator = CwfGenerator::new(CwfParams::default().load(0.9), 7)?;
/// let lines = generator.generate(1000);
/// // 1000 submissions plus about 0.2 * 1000 ET and 0.1 * 1000 RT commands.
/// let submissions = lines.iter().filter(|r| !r.is_command()).count();
/// assert_eq!(submissions, 1000);
/// assert!(lines.len() > 1200);
/// assert!(lines.iter().all(|r| r.allocated_processors.is_none_or(|p| p % 32 == 0)));
/// # Ok::<(), lublin_model::ParamsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CwfGenerator {
    params: CwfParams,
    seed: u64,
    runtime: RuntimeModel,
}

impl CwfGenerator {
    /// Validates `params` (see [`CwfParams::validate`]).
    pub fn new(params: CwfParams, seed: u64) -> Result<Self, ParamsError> {
        params.validate()?;
        let runtime = RuntimeModel::new(&params.runtime, params.max_log_runtime);
        Ok(Self {
            params,
            seed,
            runtime,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &CwfParams {
        &self.params
    }

    /// The master seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// `n_jobs` submissions (job numbers 1..=n in submit order) and their
    /// commands, sorted by time; at equal times submissions come before
    /// commands, then lower job numbers, then ET before RT.
    pub fn generate(&self, n_jobs: usize) -> Vec<Record> {
        self.collect(self.records(n_jobs), n_jobs)
    }

    /// Like [`CwfGenerator::generate`], also telling the arrival scale and
    /// the offered load (of the submissions' runtimes; commands do not count).
    pub fn generate_detailed(&self, n_jobs: usize) -> Generated {
        let iter = self.records(n_jobs);
        let arrival_scale = iter.arrival_scale();
        let records = self.collect(iter, n_jobs);
        let offered_load = crate::load::offered_load(&records, u64::from(self.params.machine_size));
        Generated {
            records,
            arrival_scale,
            offered_load,
        }
    }

    /// Collects into a vector sized for the expected number of commands, so
    /// it is allocated once.
    fn collect(&self, iter: CwfRecords<'_>, n_jobs: usize) -> Vec<Record> {
        let p = &self.params;
        let commands = (p.extend_prob + p.reduce_prob) * n_jobs as f64 * 1.05;
        let mut records = Vec::with_capacity(n_jobs + commands as usize + 64);
        records.extend(iter);
        records
    }

    /// The same lines as [`CwfGenerator::generate`], one at a time, so a
    /// large workload can be written out without holding it in memory. With
    /// a target load the search for the arrival scale runs here, first, and
    /// holds up to 24 bytes a job (see [`crate::MAX_HELD_JOBS`]).
    pub fn records(&self, n_jobs: usize) -> CwfRecords<'_> {
        let p = &self.params;
        let a = &p.arrival;
        let caching = p.target_load.is_some() && n_jobs >= 2;
        let rng = stream(self.seed, Aspect::Arrivals, StreamClass::Cwf, 0);
        let gamma = Gamma::new(a.aarr * a.arar, a.barr);
        let cycle = DailyCycle::new(a.anum, a.bnum);
        let mut streams = [ArrivalStream::new(
            cycle,
            gamma,
            p.max_log_interarrival,
            rng,
            caching,
        )];

        let machine = u64::from(p.machine_size);
        // Sizes and runtimes the load search draws, kept for the output.
        let mut drawn = Vec::new();
        let arrival_scale = match p.target_load {
            Some(target) if caching => {
                // One stream: every walk emits all jobs, so the work is fixed
                // and only the span moves with the scale.
                drawn = (0..n_jobs as u64)
                    .map(|k| self.size_and_runtime(k))
                    .collect();
                let work: f64 = drawn
                    .iter()
                    .map(|&(size, runtime)| f64::from(size) * f64::from(runtime))
                    .sum();
                find_scale(target, |scale| {
                    let (mut first, mut last) = (0, 0);
                    walk(&mut streams, scale, n_jobs, |_, k, time| {
                        if k == 0 {
                            first = time;
                        }
                        last = time;
                    });
                    load_from(work, first, last, machine)
                })
            }
            _ => 1.0,
        };
        streams[0].stop_caching();
        CwfRecords {
            generator: self,
            streams,
            walk: Walk::new(arrival_scale, n_jobs),
            arrival_scale,
            drawn,
            next_submission: None,
            pending: BinaryHeap::new(),
        }
    }

    /// Size (processors) and runtime of the `k`-th job.
    fn size_and_runtime(&self, k: u64) -> (u32, u32) {
        let p = &self.params;
        let mut rng = stream(self.seed, Aspect::Size, StreamClass::Cwf, k);
        let range = if unit(&mut rng) < p.small_prob {
            p.small_blocks
        } else {
            p.large_blocks
        };
        // low >= 0.5, so truncating x + 0.5 rounds half up.
        let blocks = (range.low + unit(&mut rng) * (range.high - range.low) + 0.5) as u32;
        let size = (blocks * p.block_size).min(p.machine_size);
        let s = match p.runtime_size_unit {
            SizeUnit::Processors => f64::from(size),
            SizeUnit::Blocks => f64::from(blocks),
        };
        (
            size,
            self.runtime.runtime(self.seed, StreamClass::Cwf, k, s),
        )
    }

    /// Everything about the `k`-th job, each aspect from its own stream.
    /// `drawn` is the job's size and runtime when the load search already
    /// drew them.
    fn job(&self, k: u64, drawn: Option<(u32, u32)>) -> CwfJob {
        let p = &self.params;
        let key = |aspect| stream(self.seed, aspect, StreamClass::Cwf, k);
        let (size, runtime) = drawn.unwrap_or_else(|| self.size_and_runtime(k));
        let requested = p
            .estimate
            .estimate(u64::from(runtime), &mut key(Aspect::Estimate));

        let mut rng = key(Aspect::Kind);
        let start_delay = (unit(&mut rng) < p.dedicated_prob)
            .then(|| exponential(&mut rng, p.start_delay_mean).round() as u64);
        // Commands fall in [submit + 1, start + requested]; the lifetime seen
        // from the submission is the start delay plus the requested time.
        let lifetime = start_delay.unwrap_or(0).saturating_add(requested);

        let mut ext_rng = key(Aspect::Extend);
        let mut red_rng = key(Aspect::Reduce);
        let u_extend = unit(&mut ext_rng);
        let u_reduce = unit(&mut red_rng);
        let (do_extend, do_reduce) = if p.exclusive_commands {
            (
                u_extend < p.extend_prob,
                u_extend >= p.extend_prob && u_extend < p.extend_prob + p.reduce_prob,
            )
        } else {
            (u_extend < p.extend_prob, u_reduce < p.reduce_prob)
        };
        let extend = do_extend.then(|| {
            let amount = self.amount(&mut ext_rng, p.extend_amount, requested);
            Command {
                kind: RequestType::ExtendTime,
                offset: self.offset(&mut ext_rng, lifetime),
                amount,
            }
        });
        let reduce = if do_reduce {
            let most = match p.reduce_floor {
                ReduceFloor::OneSecond => requested - 1,
                ReduceFloor::Runtime => requested.saturating_sub(u64::from(runtime)),
            };
            let amount = self
                .amount(&mut red_rng, p.reduce_amount, requested)
                .min(most);
            let offset = self.offset(&mut red_rng, lifetime);
            // Nothing left to reduce: no command rather than a zero amount.
            (amount > 0).then_some(Command {
                kind: RequestType::ReduceTime,
                offset,
                amount,
            })
        } else {
            None
        };
        CwfJob {
            size,
            runtime,
            requested,
            start_delay,
            extend,
            reduce,
        }
    }

    /// An exponential amount in whole seconds, at least 1.
    fn amount(&self, rng: &mut rand_pcg::Pcg64, amount: CommandAmount, requested: u64) -> u64 {
        let mean = match amount {
            CommandAmount::Seconds { mean } => mean,
            CommandAmount::Relative { mean_fraction } => mean_fraction * requested as f64,
        };
        (exponential(rng, mean).round() as u64).max(1)
    }

    /// Seconds from submission to a command, at least 1.
    fn offset(&self, rng: &mut rand_pcg::Pcg64, lifetime: u64) -> u64 {
        match self.params.command_time {
            // 1 + floor(U * L), U in [0, 1): uniform on 1..=L.
            CommandTime::WithinLifetime => (unit(rng) * lifetime as f64) as u64 + 1,
            CommandTime::AfterSubmit { mean } => (exponential(rng, mean).round() as u64).max(1),
        }
    }
}

/// The lines of a [`CwfGenerator`], in order (see [`CwfGenerator::records`]).
///
/// Commands are issued after their submission, so a min-heap of the pending
/// ones merges them in as the walk goes: a command is written once it is
/// strictly earlier than the next submission (at equal times the submission
/// goes first). Heap order: (time, job number, ET before RT), the documented
/// tie order. A clone continues from the same point with the same lines,
/// without redoing the arrival-scale search.
#[derive(Debug, Clone)]
pub struct CwfRecords<'g> {
    generator: &'g CwfGenerator,
    streams: [ArrivalStream; 1],
    walk: Walk,
    arrival_scale: f64,
    /// Sizes and runtimes drawn by the load search, by job index.
    drawn: Vec<(u32, u32)>,
    /// The next submission from the walk: (job index, submit time).
    next_submission: Option<(usize, u64)>,
    pending: BinaryHeap<Reverse<PendingCommand>>,
}

impl CwfRecords<'_> {
    /// The factor on every inter-arrival draw (1 without a target load).
    pub fn arrival_scale(&self) -> f64 {
        self.arrival_scale
    }

    /// Draws the remaining lines and tallies them (see
    /// [`GeneratedSummary`]); on a fresh iterator, the same summary as
    /// [`Generated::summary`] of `generate_detailed`.
    pub fn summary(self) -> GeneratedSummary {
        let (scale, machine) = (self.arrival_scale, self.generator.params.machine_size);
        GeneratedSummary::tally(self, scale, machine)
    }
}

impl Iterator for CwfRecords<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if self.next_submission.is_none() {
            self.next_submission = self.walk.step(&mut self.streams).map(|(_, k, t)| (k, t));
        }
        let command_first = match (self.next_submission, self.pending.peek()) {
            (Some((_, t)), Some(Reverse(c))) => c.0 < t,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if command_first {
            return self.pending.pop().map(|Reverse(c)| command_record(c));
        }
        let (k, time) = self.next_submission.take()?;
        let job = self.generator.job(k as u64, self.drawn.get(k).copied());
        let number = k as u64 + 1;
        for c in [job.extend, job.reduce].into_iter().flatten() {
            self.pending.push(Reverse((
                time.saturating_add(c.offset),
                number,
                c.kind,
                c.amount,
            )));
        }
        Some(Record {
            submit_time: Some(time),
            run_time: Some(u64::from(job.runtime)),
            allocated_processors: Some(u64::from(job.size)),
            requested_processors: Some(u64::from(job.size)),
            requested_time: Some(job.requested),
            status: Some(JobStatus::Completed),
            cwf: Some(CwfFields {
                requested_start_time: job.start_delay.map(|d| time.saturating_add(d)),
                request_type: RequestType::Submit,
                amount: None,
            }),
            ..Record::unknown(number)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let queued = usize::from(self.next_submission.is_some());
        (self.walk.remaining() + queued + self.pending.len(), None)
    }
}

impl std::iter::FusedIterator for CwfRecords<'_> {}

/// A pending command: (time, job number, kind, amount).
type PendingCommand = (u64, u64, RequestType, u64);

fn command_record((time, number, kind, amount): PendingCommand) -> Record {
    Record {
        submit_time: Some(time),
        cwf: Some(CwfFields {
            requested_start_time: None,
            request_type: kind,
            amount: Some(amount),
        }),
        ..Record::unknown(number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offered_load;

    fn submissions(records: &[Record]) -> impl Iterator<Item = &Record> {
        records.iter().filter(|r| !r.is_command())
    }

    #[test]
    fn sizes_are_block_multiples_with_the_rounding_weights() {
        let n = 60_000;
        let g = CwfGenerator::new(CwfParams::default(), 1).unwrap();
        let records = g.generate(n);
        let mut counts = [0usize; 11];
        for r in submissions(&records) {
            let size = r.allocated_processors.unwrap();
            assert_eq!(size % 32, 0);
            counts[(size / 32) as usize] += 1;
        }
        // P_S = 0.5: blocks 1 and 3 get 0.5 * 1/4 = 0.125, block 2 0.25,
        // blocks 4 and 10 get 0.5 * 1/12 = 0.0417, 5..=9 0.5 * 1/6 = 0.0833.
        // Standard error at most sqrt(0.25 / 60000) = 0.002; bound 0.01 = 5 SE.
        let expected = [
            0.0,
            0.125,
            0.25,
            0.125,
            1.0 / 24.0,
            1.0 / 12.0,
            1.0 / 12.0,
            1.0 / 12.0,
            1.0 / 12.0,
            1.0 / 12.0,
            1.0 / 24.0,
        ];
        for (b, (&c, &e)) in counts.iter().zip(&expected).enumerate() {
            let f = c as f64 / n as f64;
            assert!((f - e).abs() < 0.01, "{b} blocks: {f} vs {e}");
        }
        // Mean size: 0.5 * 64 + 0.5 * 224 = 144 processors. (The paper
        // reports 139.35 for P_S = 0.5, about 3% less; it does not say how it
        // was measured.) Size sd ~ 90, so SE ~ 0.4; bound 2 = 5 SE.
        let mean = submissions(&records)
            .map(|r| r.allocated_processors.unwrap() as f64)
            .sum::<f64>()
            / n as f64;
        assert!((mean - 144.0).abs() < 2.0, "mean size {mean}");
    }

    #[test]
    fn mean_sizes_of_the_block_ranges() {
        // round(U(1, 3)): 1, 2, 3 with 1/4, 1/2, 1/4: mean 2. round(U(4,
        // 10)): mean 7; round(U(4, 9)): 4 and 9 with 1/10, 5..=8 with 1/5:
        // 0.1 * (4 + 9) + 0.2 * (5 + 6 + 7 + 8) = 1.3 + 5.2 = 6.5. Uneven ends: round(U(1, 2.5)) gives 1
        // on [1, 1.5) (1/3) and 2 on [1.5, 2.5] (2/3): 5/3.
        assert_eq!(BlockRange::PAPER_SMALL.mean_blocks(), 2.0);
        assert_eq!(BlockRange::PAPER_LARGE.mean_blocks(), 7.0);
        assert!((BlockRange::MEAN_MATCHED_LARGE.mean_blocks() - 6.5).abs() < 1e-12);
        assert!((BlockRange::new(1.0, 2.5).mean_blocks() - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(BlockRange::new(4.0, 4.0).mean_blocks(), 4.0);
        // Expected mean sizes, 32 processors a block, against the paper's
        // 180.84 / 139.35 / 89.72 at P_S = 0.2 / 0.5 / 0.8: the paper's
        // ranges give 192 / 144 / 96, 4-9 large blocks 179.2 / 136 / 92.8.
        let expected = |small_prob: f64, large: BlockRange| {
            32.0 * (small_prob * BlockRange::PAPER_SMALL.mean_blocks()
                + (1.0 - small_prob) * large.mean_blocks())
        };
        let paper = [(0.2, 180.84), (0.5, 139.35), (0.8, 89.72)];
        for ((small_prob, reported), (default, matched)) in
            paper
                .into_iter()
                .zip([(192.0, 179.2), (144.0, 136.0), (96.0, 92.8)])
        {
            assert!((expected(small_prob, BlockRange::PAPER_LARGE) - default).abs() < 1e-9);
            let mean = expected(small_prob, BlockRange::MEAN_MATCHED_LARGE);
            assert!((mean - matched).abs() < 1e-9);
            // 4-9 blocks is within 3.5% of every reported mean; the
            // paper's ranges are 3-7% above them.
            assert!((mean - reported).abs() / reported < 0.035, "{small_prob}");
            assert!(default > reported * 1.03, "{small_prob}");
        }
        // Generated workloads follow: 20,000 jobs at P_S = 0.2 with 4-9
        // large blocks average 179.2 processors (size sd ~ 75, SE ~ 0.5;
        // bound 2.5 = 5 SE).
        let mut p = CwfParams::default();
        p.small_prob = 0.2;
        p.dedicated_prob = 0.0;
        p.extend_prob = 0.0;
        p.reduce_prob = 0.0;
        p.large_blocks = BlockRange::MEAN_MATCHED_LARGE;
        let n = 20_000;
        let records = CwfGenerator::new(p, 11).unwrap().generate(n);
        let mean = submissions(&records)
            .map(|r| r.allocated_processors.unwrap() as f64)
            .sum::<f64>()
            / n as f64;
        assert!((mean - 179.2).abs() < 2.5, "mean size {mean}");
    }

    #[test]
    fn size_unit_changes_the_runtime_mix() {
        // With s in processors every large job (>= 160 processors) has p = 0
        // and takes gamma(312, 0.03) (log runtime mean 9.36, sd 0.53, so
        // runtime above e^7 = 1097 s with probability ~1 - 1e-5). With s in
        // blocks p >= 0.726 and most large jobs take gamma(4.2, 0.94) (mean
        // 3.9): far more short large jobs.
        let short_large = |unit| {
            let params = CwfParams {
                runtime_size_unit: unit,
                small_prob: 0.0,
                ..CwfParams::default()
            };
            let records = CwfGenerator::new(params, 2).unwrap().generate(5000);
            submissions(&records)
                .filter(|r| r.allocated_processors.unwrap() >= 160 && r.run_time.unwrap() < 1097)
                .count()
        };
        assert!(short_large(SizeUnit::Processors) <= 2);
        assert!(short_large(SizeUnit::Blocks) > 2000);
    }

    #[test]
    fn lines_are_sorted_and_commands_follow_their_job() {
        let g = CwfGenerator::new(CwfParams::default(), 3).unwrap();
        let records = g.generate(5000);
        let key = |r: &Record| {
            (
                r.submit_time.unwrap(),
                r.is_command(),
                r.job_number,
                r.request_type(),
            )
        };
        assert!(records.windows(2).all(|w| key(&w[0]) <= key(&w[1])));
        let mut submit = vec![None; 5001];
        let mut requested = vec![0; 5001];
        let mut start = vec![None; 5001];
        let (mut et, mut rt, mut dedicated) = (0, 0, 0);
        for r in &records {
            let n = r.job_number as usize;
            let cwf = r.cwf.unwrap();
            match cwf.request_type {
                RequestType::Submit => {
                    submit[n] = r.submit_time;
                    requested[n] = r.requested_time.unwrap();
                    assert_eq!(r.requested_time, r.run_time, "exact estimates by default");
                    start[n] = cwf.requested_start_time;
                    if let Some(s) = cwf.requested_start_time {
                        assert!(Some(s) >= submit[n]);
                        dedicated += 1;
                    }
                }
                kind => {
                    // The submission came first, and the command falls in
                    // [submit + 1, start + requested].
                    let t = r.submit_time.unwrap();
                    let s = submit[n].expect("the submission comes before its commands");
                    let end = start[n].unwrap_or(s) + requested[n];
                    assert!(t > s && t <= end, "job {n}: {t} not in ({s}, {end}]");
                    let amount = cwf.amount.unwrap();
                    assert!(amount >= 1);
                    match kind {
                        RequestType::ExtendTime => et += 1,
                        RequestType::ReduceTime => {
                            assert!(amount < requested[n], "RT keeps at least 1 s");
                            rt += 1;
                        }
                        _ => unreachable!("only ET and RT are generated"),
                    }
                    assert_eq!(r.run_time, None);
                }
            }
        }
        // Binomial(5000, p): 0.2 -> 1000 +- 28, 0.1 -> 500 +- 21, 0.5 ->
        // 2500 +- 35; bounds at about 5 SE. (RT commands are dropped only
        // when requested = 1 s, which needs exp(h) < 2: gamma(4.2, 0.94)
        // below ln 2, probability ~5e-4.)
        assert!((et as i64 - 1000).abs() < 140, "ET {et}");
        assert!((rt as i64 - 500).abs() < 105, "RT {rt}");
        assert!(
            (dedicated as i64 - 2500).abs() < 175,
            "dedicated {dedicated}"
        );
    }

    #[test]
    fn exclusive_commands_never_share_a_job() {
        let params = CwfParams {
            exclusive_commands: true,
            extend_prob: 0.5,
            reduce_prob: 0.5,
            ..CwfParams::default()
        };
        let records = CwfGenerator::new(params, 4).unwrap().generate(2000);
        let mut per_job = vec![0; 2001];
        for r in records.iter().filter(|r| r.is_command()) {
            per_job[r.job_number as usize] += 1;
        }
        assert!(per_job.iter().all(|&c| c <= 1));
        // P_E + P_R = 1: every job gets exactly one (RT can only be dropped
        // for 1-second jobs, see above).
        assert!(per_job[1..].iter().filter(|&&c| c == 1).count() >= 1990);
        let bad = CwfParams {
            exclusive_commands: true,
            extend_prob: 0.7,
            reduce_prob: 0.5,
            ..CwfParams::default()
        };
        assert!(CwfGenerator::new(bad, 0).is_err());
    }

    #[test]
    fn runtime_floor_leaves_exact_estimates_unreduced() {
        let params = CwfParams {
            reduce_floor: ReduceFloor::Runtime,
            ..CwfParams::default()
        };
        let records = CwfGenerator::new(params, 5).unwrap().generate(2000);
        assert!(
            !records
                .iter()
                .any(|r| r.request_type() == RequestType::ReduceTime)
        );
        // With over-estimates (f = 3) reductions come back, never below the runtime.
        let params = CwfParams {
            reduce_floor: ReduceFloor::Runtime,
            estimate: EstimateParams::f_model(3.0),
            ..CwfParams::default()
        };
        let records = CwfGenerator::new(params, 5).unwrap().generate(2000);
        let mut slack = vec![0; 2001];
        for r in &records {
            if r.is_command() {
                if r.request_type() == RequestType::ReduceTime {
                    assert!(r.cwf.unwrap().amount.unwrap() <= slack[r.job_number as usize]);
                }
            } else {
                slack[r.job_number as usize] = r.requested_time.unwrap() - r.run_time.unwrap();
            }
        }
        assert!(
            records
                .iter()
                .any(|r| r.request_type() == RequestType::ReduceTime)
        );
    }

    #[test]
    fn barr_and_target_load_move_the_load() {
        // A larger barr stretches the log inter-arrival gamma: sparser
        // arrivals, lower load (the paper's knob).
        let load_at = |barr| {
            let mut params = CwfParams::default();
            params.arrival.barr = barr;
            let out = CwfGenerator::new(params, 6)
                .unwrap()
                .generate_detailed(5000);
            out.offered_load.unwrap()
        };
        assert!(load_at(0.4101) > load_at(0.5101));
        assert!(load_at(0.5101) > load_at(0.6101));
        for target in [0.5, 0.9] {
            let out = CwfGenerator::new(CwfParams::default().load(target), 6)
                .unwrap()
                .generate_detailed(10_000);
            let load = offered_load(&out.records, 320).unwrap();
            assert!(
                (load - target).abs() / target < 0.02,
                "load {load} for {target}"
            );
        }
    }

    #[test]
    fn streaming_gives_the_same_lines() {
        let g = CwfGenerator::new(CwfParams::default().load(0.8), 22).unwrap();
        let streamed: Vec<Record> = g.records(3000).collect();
        let detailed = g.generate_detailed(3000);
        assert_eq!(streamed, detailed.records);
        assert_eq!(g.records(3000).arrival_scale(), detailed.arrival_scale);
        let mut iter = g.records(10);
        assert_eq!(iter.size_hint().0, 10);
        assert!(iter.by_ref().count() >= 10);
        assert_eq!(iter.next(), None);
    }

    #[test]
    fn same_seed_same_lines() {
        let g = CwfGenerator::new(CwfParams::default(), 9).unwrap();
        assert_eq!(g.generate(1000), g.generate(1000));
        let h = CwfGenerator::new(CwfParams::default(), 10).unwrap();
        assert_ne!(g.generate(1000), h.generate(1000));
    }

    #[test]
    fn validation_rejects_bad_ranges() {
        let mut p = CwfParams::default();
        p.large_blocks.high = 11.0; // 11 blocks = 352 > 320 processors
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .contains("large_blocks.high")
        );
        let mut p = CwfParams::default();
        p.small_blocks.low = 0.2; // round could give 0 blocks
        assert!(p.validate().is_err());
        let p = CwfParams {
            dedicated_prob: -0.1,
            ..CwfParams::default()
        };
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .contains("dedicated_prob")
        );
        let p = CwfParams {
            extend_amount: CommandAmount::Seconds { mean: 0.0 },
            ..CwfParams::default()
        };
        assert!(p.validate().is_err());
        CwfParams::default().validate().unwrap();
    }

    #[test]
    fn extreme_means_are_refused_and_the_largest_allowed_stay_in_range() {
        let largest = CwfParams {
            dedicated_prob: 1.0,
            start_delay_mean: 1e9,
            extend_prob: 1.0,
            extend_amount: CommandAmount::Seconds { mean: 1e9 },
            command_time: CommandTime::AfterSubmit { mean: 1e9 },
            estimate: EstimateParams::f_model(1000.0).rounded(),
            ..CwfParams::default()
        };
        let lines = CwfGenerator::new(largest.clone(), 1).unwrap().generate(50);
        assert_eq!(lines.iter().filter(|r| !r.is_command()).count(), 50);
        // Every time and amount written is inside the readers' 2^53 s.
        let limit = 1u64 << 53;
        for line in &lines {
            let cwf = line.cwf.as_ref().unwrap();
            for value in [
                line.submit_time,
                line.run_time,
                line.requested_time,
                cwf.requested_start_time,
                cwf.amount,
            ]
            .into_iter()
            .flatten()
            {
                assert!(value < limit, "{value} in {line:?}");
            }
        }
        for (params, name) in [
            (
                CwfParams {
                    start_delay_mean: 1e300,
                    ..largest.clone()
                },
                "start_delay_mean",
            ),
            (
                CwfParams {
                    extend_amount: CommandAmount::Seconds { mean: 1.1e9 },
                    ..largest.clone()
                },
                "extend_amount.mean",
            ),
            (
                CwfParams {
                    command_time: CommandTime::AfterSubmit { mean: 1e300 },
                    ..largest.clone()
                },
                "command_time.mean",
            ),
            (
                CwfParams {
                    estimate: EstimateParams::f_model(1e300),
                    ..largest.clone()
                },
                "estimate.f",
            ),
        ] {
            let error = params.validate().unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("parameter {name} is ")),
                "{error}"
            );
        }
    }

    #[test]
    fn params_round_trip_through_json() {
        let p = CwfParams {
            command_time: CommandTime::AfterSubmit { mean: 600.0 },
            extend_amount: CommandAmount::Seconds { mean: 1800.0 },
            ..CwfParams::default().load(0.7)
        };
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<CwfParams>(&json).unwrap(), p);
    }
}

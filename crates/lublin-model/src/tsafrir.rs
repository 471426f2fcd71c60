//! The Tsafrir-Etsion-Feitelson model of user runtime estimates.
//!
//! D. Tsafrir, Y. Etsion and D. G. Feitelson, "Modeling User Runtime
//! Estimates", JSSPP 2005. Users do not estimate a job by multiplying its
//! runtime by a factor (the f-model): they pick one of a few round values,
//! most often the system's maximum. The model therefore generates the
//! *histogram* of estimates of a whole workload and then hands the
//! estimates out to its jobs:
//!
//! 1. **Bin count.** The number of distinct estimates `K` grows with the
//!    number of jobs `N`: piecewise-linear through (0, 0), (20, 10),
//!    (200, 20), (1,000, 35), (10,000, 90), (70,000, 340), (250,000, 565) and
//!    565 beyond (the default), or the power law `K = 0.653566 N^0.547761`.
//! 2. **Head: the 20 most popular estimates.** Their times are the maximum,
//!    the 15 values found among the top 20 of all four traces the authors
//!    studied (5, 10, 15, 20, 30 min, 1, 2, 3, 4, 5, 6, 8, 10, 12, 18 h) that
//!    are below it, and then multiples of 200 h, 100 h, 50 h, 10 h, 5 h, 2 h,
//!    1 h, 20 min, 10 min and 5 min counted down from the maximum until there
//!    are 20. Their shares: popularity rank `r = 2..20` gets
//!    `14.0491 e^(-0.177531 r) + 0.462513` percent, rank 1 gets the rest of
//!    89% (the head's total), about 21.8%.
//! 3. **Which head time gets which rank.** The maximum is the most popular.
//!    For the others the paper's table of the four traces (time rank to
//!    popularity rank) drives a random draw: going up the time ranks, a
//!    popularity rank that none of the traces placed at a later time rank is
//!    due and taken (the most popular due one first); otherwise the rank is
//!    drawn from those the traces used at this or an earlier time rank, the
//!    smaller of two draws, which favours popular ranks.
//! 4. **Tail: the other `K - 20` estimates.** Their times follow
//!    `time(x) = max (a - 1) x / (a - x)` at relative time ranks
//!    `x = i / (K - 20)`, `a = 1 + 12.1039 K^-0.6026`, rounded to a minute
//!    (moved by up to 30 s to avoid a time already taken); their shares
//!    follow `795.6 r^-2.267` for ranks `r = 21, 22, ...`, scaled to 11%, and
//!    are matched to the times at random.
//! 5. **Jobs per bin.** Shares become whole job counts (at least one job per
//!    bin), adjusted to sum to `N`: proportionally, then one job at a time
//!    from the largest bins.
//! 6. **Assignment.** Jobs are taken from the longest to the shortest; each
//!    gets an estimate drawn uniformly among the remaining ones that are at
//!    least its runtime. Estimates never fall below runtimes; if the
//!    histogram cannot cover the runtimes (many jobs near a too-small
//!    maximum) that is an error naming the rank that fails.
//!
//! Known popular bins of a site can be passed as [`EstimateHint`]s (time and
//! share of jobs, at most 20, the maximum among them if its share is known):
//! they replace the default head times nearest to them (never the maximum)
//! and the default shares nearest to theirs; the other head shares are
//! scaled so the head keeps its 89%.
//!
//! Where we depart from the authors' implementation (the model is in the
//! paper; these are details of its code): when the maximum is so small that
//! fewer than 20 head times exist, popularity ranks beyond the head's size
//! are never drawn; with fewer bins than head times the head alone carries
//! all jobs; a runtime above the maximum is an error unless
//! [`OverMaximum::Truncate`] is chosen (the authors truncate with a
//! warning); random draws come from this crate's PCG-64 streams.

use std::collections::BTreeSet;

use rand_pcg::Pcg64;
use workload_format::{Record, RequestType};

use crate::error::ParamsError;
use crate::params::check_positive;
use crate::rng::{Aspect, StreamClass, stream, unit};

const MINUTE: u64 = 60;
const HOUR: u64 = 3_600;

/// How many estimates make the head of the distribution.
const HEAD_BINS: usize = 20;

/// The 15 estimates found among the 20 most popular of all four traces
/// (SDSC, CTC, KTH, Blue), in the paper's order.
const JOINT_ESTIMATES: [u64; 15] = [
    5 * MINUTE,
    15 * MINUTE,
    10 * MINUTE,
    20 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    5 * HOUR,
    6 * HOUR,
    8 * HOUR,
    10 * HOUR,
    12 * HOUR,
    18 * HOUR,
];

/// Round steps that complete the head, counted down from the maximum.
const ROUND_STEPS: [u64; 10] = [
    200 * HOUR,
    100 * HOUR,
    50 * HOUR,
    10 * HOUR,
    5 * HOUR,
    2 * HOUR,
    HOUR,
    20 * MINUTE,
    10 * MINUTE,
    5 * MINUTE,
];

/// The popularity rank (1 = most popular) of the head estimate with time
/// rank `row` (0 = the maximum, then ascending times) in each of the four
/// traces: SDSC, CTC, KTH (4 h maximum), Blue.
const TIME_RANK_TO_POPULARITY: [[u8; 4]; HEAD_BINS] = [
    [3, 1, 1, 1],
    [1, 3, 4, 6],
    [4, 4, 10, 5],
    [17, 2, 14, 3],
    [13, 12, 20, 7],
    [7, 9, 2, 2],
    [8, 8, 3, 18],
    [18, 18, 7, 19],
    [2, 6, 12, 4],
    [6, 7, 6, 11],
    [16, 11, 19, 20],
    [10, 20, 5, 9],
    [5, 16, 18, 10],
    [15, 5, 16, 14],
    [14, 14, 9, 13],
    [19, 13, 17, 16],
    [11, 10, 15, 15],
    [12, 15, 13, 17],
    [9, 17, 8, 8],
    [20, 19, 11, 12],
];

/// Points (jobs, bins) of the default, piecewise-linear bin-count model.
const BIN_COUNT_POINTS: [(u64, u64); 7] = [
    (0, 0),
    (20, 10),
    (200, 20),
    (1_000, 35),
    (10_000, 90),
    (70_000, 340),
    (250_000, 565),
];

/// Offsets tried, in order, when a tail time collides with one already taken.
const TAIL_OFFSETS: [i64; 7] = [0, 30, -30, 20, -20, 10, -10];

/// The largest maximum estimate accepted: 10,000 days, far beyond any site
/// limit, and small enough that no arithmetic on it can overflow.
pub const MAX_ESTIMATE_LIMIT: u64 = 10_000 * 24 * HOUR;

/// How many distinct estimates (bins) a workload of `N` jobs has.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum BinCount {
    /// The paper's piecewise-linear model (the default).
    Linear,
    /// `K = round(a N^b)`; the paper fits `a = 0.653566`, `b = 0.547761`.
    Power {
        /// The factor.
        a: f64,
        /// The exponent.
        b: f64,
    },
    /// Exactly this many bins.
    Fixed(u32),
}

/// What to do with a job whose runtime exceeds the maximum estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OverMaximum {
    /// Refuse: [`EstimateModelError::RuntimeAboveMaximum`] (the default).
    Error,
    /// Cut the runtime to the maximum, as a scheduler kills a job at its
    /// limit (the authors' choice), and count it.
    Truncate,
}

/// A known popular estimate of the modelled site: its time and the share of
/// jobs that use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimateHint {
    /// The estimate, seconds (at most the maximum estimate).
    pub time: u64,
    /// The share of jobs using it, in (0, 1].
    pub share: f64,
}

/// The model's parameters, with the paper's values by default.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TsafrirParams {
    /// The largest estimate the site allows, seconds (at least one hour).
    pub max_estimate: u64,
    /// Known popular estimates (at most 20, distinct times).
    pub hints: Vec<EstimateHint>,
    /// How many distinct estimates.
    pub bin_count: BinCount,
    /// `(a, b, c)` of a head share `a e^(b r) + c` percent for popularity
    /// rank `r` in 2..=20: (14.0491, -0.177531, 0.462513).
    pub head_shape: [f64; 3],
    /// The share of jobs using one of the 20 head estimates: 0.89.
    pub head_share: f64,
    /// `(a, b)` of a tail share `a r^b` for popularity rank `r` >= 21
    /// (scaled to `1 - head_share`): (795.6, -2.267).
    pub tail_shape: [f64; 2],
    /// `a` of the tail times `(a - 1) x / (a - x)`; `None` (the default)
    /// takes the paper's `1 + 12.1039 K^-0.6026`.
    pub time_shape: Option<f64>,
    /// Runtimes above the maximum: an error (default) or truncated.
    pub over_maximum: OverMaximum,
}

impl TsafrirParams {
    /// The paper's model for a site whose largest estimate is
    /// `max_estimate` seconds.
    pub fn new(max_estimate: u64) -> Self {
        Self {
            max_estimate,
            hints: Vec::new(),
            bin_count: BinCount::Linear,
            head_shape: [14.0491, -0.177531, 0.462513],
            head_share: 0.89,
            tail_shape: [795.6, -2.267],
            time_shape: None,
            over_maximum: OverMaximum::Error,
        }
    }

    /// Adds a known popular estimate.
    #[must_use]
    pub fn hint(mut self, time: u64, share: f64) -> Self {
        self.hints.push(EstimateHint { time, share });
        self
    }

    /// Truncates runtimes above the maximum instead of refusing them.
    #[must_use]
    pub fn truncate_runtimes(mut self) -> Self {
        self.over_maximum = OverMaximum::Truncate;
        self
    }

    /// Checks every parameter.
    ///
    /// # Errors
    /// The first parameter out of its range.
    pub fn validate(&self) -> Result<(), EstimateModelError> {
        if !(HOUR..=MAX_ESTIMATE_LIMIT).contains(&self.max_estimate) {
            return Err(EstimateModelError::MaximumOutOfRange(self.max_estimate));
        }
        if self.hints.len() > HEAD_BINS {
            return Err(EstimateModelError::TooManyHints(self.hints.len()));
        }
        let mut times = BTreeSet::new();
        let mut total = 0.0;
        for hint in &self.hints {
            if hint.time == 0 || hint.time > self.max_estimate {
                return Err(EstimateModelError::HintOutOfRange {
                    time: hint.time,
                    max: self.max_estimate,
                });
            }
            if !times.insert(hint.time) {
                return Err(EstimateModelError::DuplicateHint(hint.time));
            }
            if !(hint.share.is_finite() && hint.share > 0.0 && hint.share <= 1.0) {
                return Err(ParamsError::new("hint share", hint.share, "in (0, 1]").into());
            }
            total += hint.share;
        }
        if total > 1.0 + 1e-9 {
            return Err(ParamsError::new("sum of hint shares", total, "at most 1").into());
        }
        match self.bin_count {
            BinCount::Linear => {}
            BinCount::Power { a, b } => {
                check_positive("bin_count.a", a)?;
                if !(b.is_finite() && (0.0..=1.0).contains(&b)) {
                    return Err(ParamsError::new("bin_count.b", b, "in [0, 1]").into());
                }
            }
            BinCount::Fixed(k) => {
                if k == 0 || (k as usize) < self.hints.len() {
                    return Err(ParamsError::new(
                        "bin_count",
                        f64::from(k),
                        "at least 1 and at least the number of hints",
                    )
                    .into());
                }
            }
        }
        check_positive("head_shape.a", self.head_shape[0])?;
        if !(self.head_shape[1].is_finite() && self.head_shape[1] < 0.0) {
            return Err(ParamsError::new("head_shape.b", self.head_shape[1], "below 0").into());
        }
        if !(self.head_shape[2].is_finite() && self.head_shape[2] >= 0.0) {
            return Err(ParamsError::new("head_shape.c", self.head_shape[2], "at least 0").into());
        }
        if !(self.head_share.is_finite() && self.head_share > 0.0 && self.head_share < 1.0) {
            return Err(ParamsError::new("head_share", self.head_share, "in (0, 1)").into());
        }
        check_positive("tail_shape.a", self.tail_shape[0])?;
        if !(self.tail_shape[1].is_finite() && self.tail_shape[1] < 0.0) {
            return Err(ParamsError::new("tail_shape.b", self.tail_shape[1], "below 0").into());
        }
        if let Some(a) = self.time_shape
            && !(a.is_finite() && a > 1.0)
        {
            return Err(ParamsError::new("time_shape", a, "above 1").into());
        }
        // The default head must leave rank 1 a positive share.
        let rest: f64 = (2..=HEAD_BINS).map(|r| self.head_rank_share(r)).sum();
        if rest >= self.head_share * 100.0 {
            return Err(ParamsError::new(
                "head_share",
                self.head_share,
                "above the shares of popularity ranks 2-20",
            )
            .into());
        }
        Ok(())
    }

    /// The default share (percent) of head popularity rank `rank` >= 2.
    fn head_rank_share(&self, rank: usize) -> f64 {
        let [a, b, c] = self.head_shape;
        a * (b * rank as f64).exp() + c
    }

    /// The number of bins for `jobs` jobs.
    fn bins_for(&self, jobs: u64) -> usize {
        let k = match self.bin_count {
            BinCount::Fixed(k) => k as usize,
            BinCount::Power { a, b } => {
                let k = (a * (jobs as f64).powf(b)).round();
                // jobs <= u64::MAX and b <= 1 keep k finite; clamp the cast.
                k.clamp(1.0, 1e9) as usize
            }
            BinCount::Linear => {
                let points = BIN_COUNT_POINTS;
                let last = points[points.len() - 1];
                if jobs >= last.0 {
                    last.1 as usize
                } else {
                    let i = points
                        .iter()
                        .position(|&(n, _)| jobs <= n)
                        .unwrap_or(1)
                        .max(1);
                    let (x0, y0) = points[i - 1];
                    let (x1, y1) = points[i];
                    let slope = (y1 - y0) as f64 / (x1 - x0) as f64;
                    y0 as usize + ((jobs - x0) as f64 * slope).round() as usize
                }
            }
        };
        k.max(self.hints.len()).max(1)
    }
}

/// One bin of an estimate histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct EstimateBin {
    /// The estimate, seconds.
    pub time: u64,
    /// How many jobs use it.
    pub jobs: u64,
}

/// Estimates for a list of runtimes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelledEstimates {
    /// One estimate per runtime, in the input order.
    pub estimates: Vec<u64>,
    /// Runtimes cut to the maximum ([`OverMaximum::Truncate`]).
    pub truncated: u64,
}

/// Why the model could not produce estimates.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EstimateModelError {
    /// A numeric parameter is out of range.
    #[error(transparent)]
    Params(#[from] ParamsError),
    /// The maximum estimate is below one hour or absurdly large.
    #[error("the maximum estimate is {0} s, expected 3600 s (one hour) to {MAX_ESTIMATE_LIMIT} s")]
    MaximumOutOfRange(u64),
    /// More than 20 hints.
    #[error("{0} estimate hints given, at most 20 (the head of the distribution) allowed")]
    TooManyHints(usize),
    /// A hint's time is 0 or above the maximum.
    #[error("estimate hint {time} s is outside 1 s to the maximum estimate {max} s")]
    HintOutOfRange {
        /// The hint's time.
        time: u64,
        /// The maximum estimate.
        max: u64,
    },
    /// Two hints for one time.
    #[error("estimate hint {0} s is given twice")]
    DuplicateHint(u64),
    /// No jobs to model.
    #[error("no jobs to give estimates to")]
    NoJobs,
    /// The hinted shares leave fewer jobs than the hinted bins need.
    #[error("the estimate hints claim {hinted} jobs of {jobs}")]
    HintsExceedJobs {
        /// Jobs the hints claim.
        hinted: u64,
        /// Jobs in the workload.
        jobs: u64,
    },
    /// Some runtimes exceed the maximum estimate.
    #[error(
        "{count} jobs run longer than the maximum estimate {max} s (the longest {longest} s); \
         raise the maximum or truncate those runtimes"
    )]
    RuntimeAboveMaximum {
        /// How many jobs.
        count: u64,
        /// The longest runtime.
        longest: u64,
        /// The maximum estimate.
        max: u64,
    },
    /// The histogram has too few large estimates for the long jobs.
    #[error(
        "the estimates cannot cover the runtimes: the job of runtime rank {rank} runs {runtime} s \
         but the estimate of that rank is {estimate} s; raise the maximum estimate or hint a \
         larger share for it"
    )]
    Infeasible {
        /// 1-based rank, from the longest job.
        rank: usize,
        /// That job's runtime.
        runtime: u64,
        /// The estimate of the same rank, from the largest.
        estimate: u64,
    },
}

/// The estimate histogram of `jobs` jobs: bins sorted by time, job counts
/// summing to `jobs`. Deterministic for a seed.
///
/// # Errors
/// Invalid parameters, no jobs, or hints claiming more jobs than there are.
pub fn tsafrir_histogram(
    params: &TsafrirParams,
    jobs: u64,
    seed: u64,
) -> Result<Vec<EstimateBin>, EstimateModelError> {
    params.validate()?;
    if jobs == 0 {
        return Err(EstimateModelError::NoJobs);
    }
    let mut rng = stream(seed, Aspect::EstimateModel, StreamClass::Typeless, 0);
    let bins = params.bins_for(jobs);
    let head = Head::build(params, &mut rng);
    let mut shares: Vec<(u64, f64)> = head.times.iter().copied().zip(head.shares).collect();
    let tail_bins = bins.saturating_sub(head.times.len());
    let taken: BTreeSet<u64> = head.times.iter().copied().collect();
    let tail_times = tail_times(params, bins, tail_bins, &taken);
    if tail_times.is_empty() {
        // Too few bins for a tail: the head carries every job.
        let total: f64 = shares.iter().map(|s| s.1).sum();
        for s in &mut shares {
            s.1 *= 100.0 / total;
        }
    } else {
        let mut tail_shares = tail_shares(params, tail_times.len());
        shuffle(&mut tail_shares, &mut rng);
        shares.extend(tail_times.into_iter().zip(tail_shares));
    }
    shares.sort_by_key(|s| s.0);
    job_counts(params, &shares, jobs)
}

/// Estimates for `runtimes` (seconds) from the model: the histogram of
/// `runtimes.len()` jobs, then the assignment from the longest job down.
///
/// # Errors
/// Those of [`tsafrir_histogram`], a runtime above the maximum (unless
/// truncated), or a histogram that cannot cover the runtimes.
pub fn tsafrir_estimates(
    params: &TsafrirParams,
    runtimes: &[u64],
    seed: u64,
) -> Result<ModelledEstimates, EstimateModelError> {
    let max = params.max_estimate;
    let over: Vec<u64> = runtimes.iter().copied().filter(|&r| r > max).collect();
    let truncated = over.len() as u64;
    if truncated > 0 && params.over_maximum == OverMaximum::Error {
        return Err(EstimateModelError::RuntimeAboveMaximum {
            count: truncated,
            longest: over.iter().copied().max().unwrap_or(max),
            max,
        });
    }
    let histogram = tsafrir_histogram(params, runtimes.len() as u64, seed)?;
    let estimates = assign(&histogram, runtimes, max, seed)?;
    Ok(ModelledEstimates {
        estimates,
        truncated,
    })
}

/// What [`tsafrir_records`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TsafrirReport {
    /// Jobs that got a modelled estimate.
    pub assigned: u64,
    /// Jobs left alone because their runtime is unknown.
    pub unknown_runtime: u64,
    /// Runtimes cut to the maximum ([`OverMaximum::Truncate`]).
    pub truncated: u64,
}

/// Replaces the requested time (field 9) of every job of `records` that has
/// a known runtime with an estimate from the model; CWF command lines and
/// jobs of unknown runtime are left alone. With [`OverMaximum::Truncate`]
/// the run time of a job above the maximum becomes the maximum.
///
/// # Errors
/// As [`tsafrir_estimates`].
pub fn tsafrir_records(
    records: &mut [Record],
    params: &TsafrirParams,
    seed: u64,
) -> Result<TsafrirReport, EstimateModelError> {
    let is_job = |r: &Record| r.cwf.is_none_or(|c| c.request_type == RequestType::Submit);
    let mut runtimes = Vec::new();
    let mut unknown_runtime = 0;
    for r in records.iter().filter(|r| is_job(r)) {
        match r.run_time {
            Some(t) => runtimes.push(t),
            None => unknown_runtime += 1,
        }
    }
    let modelled = tsafrir_estimates(params, &runtimes, seed)?;
    let mut estimates = modelled.estimates.into_iter();
    for r in records.iter_mut().filter(|r| is_job(r)) {
        if let Some(t) = r.run_time {
            let estimate = estimates.next().unwrap_or(t);
            r.run_time = Some(t.min(params.max_estimate));
            r.requested_time = Some(estimate);
        }
    }
    Ok(TsafrirReport {
        assigned: runtimes.len() as u64,
        unknown_runtime,
        truncated: modelled.truncated,
    })
}

/// The head: its times (index 0 the maximum, then ascending) and the share
/// (percent) of each.
struct Head {
    times: Vec<u64>,
    shares: Vec<f64>,
}

impl Head {
    fn build(params: &TsafrirParams, rng: &mut Pcg64) -> Self {
        let times = merge_hint_times(params, &default_head_times(params.max_estimate));
        let n = times.len();
        // Shares by popularity rank (index 0 = rank 1), and which hint owns
        // which rank.
        let (by_rank, hint_rank) = rank_shares(params, n);
        // Time index -> popularity rank fixed by the hints.
        let mut fixed = vec![None; n];
        for (h, hint) in params.hints.iter().enumerate() {
            if let Some(t) = times.iter().position(|&t| t == hint.time) {
                fixed[t] = Some(hint_rank[h]);
            }
        }
        let ranks = map_time_ranks(&fixed, rng);
        let shares = ranks.iter().map(|&r| by_rank[r - 1]).collect();
        Self { times, shares }
    }
}

/// The default head times: the maximum first, then ascending.
fn default_head_times(max: u64) -> Vec<u64> {
    let mut times = vec![max];
    times.extend(JOINT_ESTIMATES.iter().copied().filter(|&t| t < max));
    for step in ROUND_STEPS {
        let mut t = max / step * step;
        while t > 0 && times.len() < HEAD_BINS {
            if !times.contains(&t) {
                times.push(t);
            }
            t -= step;
        }
        if times.len() == HEAD_BINS {
            break;
        }
    }
    times[1..].sort_unstable();
    times
}

/// Merges the hints' times into the default head: a hint whose time is not
/// there replaces the nearest default time (round values before the 15 joint
/// ones, never the maximum) while the head would exceed 20 times.
fn merge_hint_times(params: &TsafrirParams, defaults: &[u64]) -> Vec<u64> {
    let new: BTreeSet<u64> = params
        .hints
        .iter()
        .map(|h| h.time)
        .filter(|t| !defaults.contains(t))
        .collect();
    let need = (defaults.len() + new.len()).saturating_sub(HEAD_BINS);
    let mut replaced: Vec<(u64, u64)> = Vec::new(); // (default, hint)
    for joint in [false, true] {
        // (distance, hint, default), nearest first; ties by hint then default.
        let mut pairs: Vec<(u64, u64, u64)> = new
            .iter()
            .flat_map(|&h| {
                defaults[1..]
                    .iter()
                    .filter(move |d| JOINT_ESTIMATES.contains(d) == joint)
                    .map(move |&d| (h.abs_diff(d), h, d))
            })
            .collect();
        pairs.sort_unstable();
        for (_, h, d) in pairs {
            if replaced.len() == need {
                break;
            }
            if replaced.iter().any(|&(rd, rh)| rd == d || rh == h) {
                continue;
            }
            replaced.push((d, h));
        }
    }
    let mut times: Vec<u64> = defaults
        .iter()
        .map(|&d| replaced.iter().find(|r| r.0 == d).map_or(d, |r| r.1))
        .collect();
    times.extend(new.iter().filter(|&&h| !replaced.iter().any(|r| r.1 == h)));
    times[1..].sort_unstable();
    times
}

/// The head shares (percent) by popularity rank, sorted from the most
/// popular, and the rank (1-based) each hint holds.
fn rank_shares(params: &TsafrirParams, n: usize) -> (Vec<f64>, Vec<usize>) {
    let head_total = params.head_share * 100.0;
    let max = params.max_estimate;
    let max_hint = params.hints.iter().find(|h| h.time == max);
    // Defaults: rank 1 takes what ranks 2..n leave of the head; a hint for
    // the maximum fixes rank 1 instead and the others are scaled.
    let mut slots: Vec<f64> = (1..=n)
        .map(|r| {
            if r == 1 {
                0.0
            } else {
                params.head_rank_share(r)
            }
        })
        .collect();
    let rest: f64 = slots.iter().sum();
    match max_hint {
        None => slots[0] = head_total - rest,
        Some(h) => {
            slots[0] = h.share * 100.0;
            let f = (head_total - slots[0]).max(0.0) / rest;
            for s in &mut slots[1..] {
                *s *= f;
            }
        }
    }
    slots.sort_by(|a, b| b.total_cmp(a));
    // Each hint, largest share first, takes the slot nearest its share;
    // slot 0 only for the maximum.
    let mut order: Vec<usize> = (0..params.hints.len()).collect();
    order.sort_by(|&a, &b| {
        params.hints[b]
            .share
            .total_cmp(&params.hints[a].share)
            .then(params.hints[a].time.cmp(&params.hints[b].time))
    });
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for &h in &order {
        let share = params.hints[h].share * 100.0;
        let is_max = params.hints[h].time == max;
        let slot = (0..n)
            .filter(|&s| owner[s].is_none() && (s != 0 || is_max))
            .min_by(|&a, &b| {
                (slots[a] - share)
                    .abs()
                    .total_cmp(&(slots[b] - share).abs())
            });
        if let Some(s) = slot {
            owner[s] = Some(h);
            slots[s] = share;
        }
    }
    // The other slots share what the hints leave of the head.
    let hinted: f64 = (0..n)
        .filter(|&s| owner[s].is_some())
        .map(|s| slots[s])
        .sum();
    let free: f64 = (0..n)
        .filter(|&s| owner[s].is_none())
        .map(|s| slots[s])
        .sum();
    let f = if hinted < head_total && free > 0.0 {
        (head_total - hinted) / free
    } else {
        0.0
    };
    for s in 0..n {
        if owner[s].is_none() {
            slots[s] *= f;
        }
    }
    // Popularity follows share again (slot 0 stays: it is the maximum's
    // unless a hint says otherwise); stable, so ties keep their order.
    let mut index: Vec<usize> = (0..n).collect();
    index[1..].sort_by(|&a, &b| slots[b].total_cmp(&slots[a]));
    let by_rank: Vec<f64> = index.iter().map(|&s| slots[s]).collect();
    let mut hint_rank = vec![0; params.hints.len()];
    for (rank0, &s) in index.iter().enumerate() {
        if let Some(h) = owner[s] {
            hint_rank[h] = rank0 + 1;
        }
    }
    (by_rank, hint_rank)
}

/// Maps each head time rank (0 = the maximum) to a popularity rank, as the
/// four traces of the paper's table suggest; `fixed` holds the ranks the
/// hints impose.
fn map_time_ranks(fixed: &[Option<usize>], rng: &mut Pcg64) -> Vec<usize> {
    let n = fixed.len();
    let reserved: BTreeSet<usize> = fixed.iter().flatten().copied().collect();
    // The last time rank at which any trace placed each popularity rank.
    let mut due_by = [0usize; HEAD_BINS + 1];
    for (row, ranks) in TIME_RANK_TO_POPULARITY.iter().enumerate() {
        for &r in ranks {
            due_by[r as usize] = due_by[r as usize].max(row);
        }
    }
    let mut chosen = BTreeSet::new();
    let mut pool: Vec<usize> = Vec::new();
    let mut mapping = Vec::with_capacity(n);
    let free = |r: usize, chosen: &BTreeSet<usize>| {
        r <= n && !chosen.contains(&r) && !reserved.contains(&r)
    };
    for (row, &fix) in fixed.iter().enumerate() {
        pool.extend(
            TIME_RANK_TO_POPULARITY[row]
                .iter()
                .map(|&r| r as usize)
                .filter(|&r| free(r, &chosen)),
        );
        let rank = fix
            .or_else(|| {
                (row == 0)
                    .then(|| (1..=n).find(|&r| free(r, &chosen)))
                    .flatten()
            })
            .or_else(|| (1..=n).find(|&r| due_by[r] <= row && free(r, &chosen)))
            .or_else(|| {
                // The smaller of two draws from the pool favours popular ranks.
                (!pool.is_empty()).then(|| {
                    let a = pool[pick(rng, pool.len())];
                    let b = pool[pick(rng, pool.len())];
                    a.min(b)
                })
            })
            .or_else(|| (1..=n).find(|&r| free(r, &chosen)))
            .unwrap_or(1);
        chosen.insert(rank);
        pool.retain(|&r| r != rank);
        mapping.push(rank);
    }
    mapping
}

/// The tail's times: `tail_bins` of them from the time model, skipping any
/// that cannot avoid a collision; ascending.
fn tail_times(
    params: &TsafrirParams,
    bins: usize,
    tail_bins: usize,
    taken: &BTreeSet<u64>,
) -> Vec<u64> {
    let max = params.max_estimate;
    let a = params
        .time_shape
        .unwrap_or_else(|| 1.0 + 12.1039 * (bins as f64).powf(-0.6026));
    let mut tail = BTreeSet::new();
    for i in 1..=tail_bins {
        let x = i as f64 / tail_bins as f64;
        let y = (a - 1.0) * x / (a - x);
        // y <= 1, so the product stays below the maximum estimate limit.
        let minutes = (y * max as f64 / 60.0).round() as i64;
        let base = minutes * 60;
        for offset in TAIL_OFFSETS {
            let t = base + offset;
            if t > 0 && (t as u64) < max && !taken.contains(&(t as u64)) && tail.insert(t as u64) {
                break;
            }
        }
    }
    tail.into_iter().collect()
}

/// Shares (percent) of `count` tail bins, largest first, summing to the
/// tail's share.
fn tail_shares(params: &TsafrirParams, count: usize) -> Vec<f64> {
    let [a, b] = params.tail_shape;
    let raw: Vec<f64> = (0..count)
        .map(|i| a * ((HEAD_BINS + 1 + i) as f64).powf(b))
        .collect();
    let total: f64 = raw.iter().sum();
    let f = (1.0 - params.head_share) * 100.0 / total;
    raw.into_iter().map(|s| s * f).collect()
}

/// Job counts per bin from the shares: hinted bins get their share of the
/// jobs, the others at least one; then the others are adjusted until the
/// counts sum to `jobs` (proportionally, then one at a time, then down to
/// one, then to zero), largest bins first. Bins left empty are dropped.
fn job_counts(
    params: &TsafrirParams,
    shares: &[(u64, f64)],
    jobs: u64,
) -> Result<Vec<EstimateBin>, EstimateModelError> {
    let hinted = |t: u64| params.hints.iter().find(|h| h.time == t);
    let mut counts: Vec<(u64, u64, bool)> = shares
        .iter()
        .map(|&(time, share)| match hinted(time) {
            Some(h) => (time, (h.share * jobs as f64).round() as u64, true),
            None => (
                time,
                ((share / 100.0 * jobs as f64).round() as u64).max(1),
                false,
            ),
        })
        .collect();
    let claimed: u64 = counts.iter().filter(|c| c.2).map(|c| c.1).sum();
    if claimed > jobs {
        return Err(EstimateModelError::HintsExceedJobs {
            hinted: claimed,
            jobs,
        });
    }
    for attempt in 0..4 {
        let total: u64 = counts.iter().map(|c| c.1).sum();
        if total == jobs {
            break;
        }
        let adding = total < jobs;
        let mut left = total.abs_diff(jobs);
        let free: u64 = counts.iter().filter(|c| !c.2).map(|c| c.1).sum();
        let fraction = left as f64 / free.max(1) as f64;
        let mut order: Vec<usize> = (0..counts.len())
            .filter(|&i| !counts[i].2 && counts[i].1 > 0)
            .collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(counts[i].1), counts[i].0));
        for i in order {
            let n = counts[i].1;
            let mut step = match attempt {
                0 => (fraction * n as f64).ceil() as u64,
                1 => 1,
                2 => n - 1,
                _ => n,
            };
            if !adding {
                step = step.min(n);
                if step == n && attempt < 3 {
                    step -= 1;
                }
            }
            step = step.min(left);
            if adding {
                counts[i].1 += step;
            } else {
                counts[i].1 -= step;
            }
            left -= step;
            if left == 0 {
                break;
            }
        }
    }
    let total: u64 = counts.iter().map(|c| c.1).sum();
    if total != jobs {
        // Only hints can leave no room: every free bin was emptied.
        return Err(EstimateModelError::HintsExceedJobs {
            hinted: claimed,
            jobs,
        });
    }
    Ok(counts
        .into_iter()
        .filter(|c| c.1 > 0)
        .map(|(time, jobs, _)| EstimateBin { time, jobs })
        .collect())
}

/// Hands the histogram's estimates to the jobs, longest job first: each
/// draws uniformly among the remaining estimates that are at least its
/// (possibly truncated) runtime.
fn assign(
    histogram: &[EstimateBin],
    runtimes: &[u64],
    max: u64,
    seed: u64,
) -> Result<Vec<u64>, EstimateModelError> {
    let mut pool: Vec<u64> = Vec::with_capacity(runtimes.len());
    for bin in histogram.iter().rev() {
        pool.extend(std::iter::repeat_n(bin.time, bin.jobs as usize));
    }
    // Longest first; equal runtimes in input order, for determinism.
    let mut order: Vec<usize> = (0..runtimes.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(runtimes[i].min(max)), i));
    for (k, &i) in order.iter().enumerate() {
        let runtime = runtimes[i].min(max);
        if runtime > pool[k] {
            return Err(EstimateModelError::Infeasible {
                rank: k + 1,
                runtime,
                estimate: pool[k],
            });
        }
    }
    let mut rng = stream(seed, Aspect::EstimateModel, StreamClass::Typeless, 1);
    let mut estimates = vec![0; runtimes.len()];
    let mut hi = 0;
    for (j, &i) in order.iter().enumerate() {
        let runtime = runtimes[i].min(max);
        hi = hi.max(j);
        // Positions j..=hi hold estimates >= this runtime: those after j
        // were >= the previous (longer) job's runtime or are untouched
        // sorted values checked here.
        while hi + 1 < pool.len() && pool[hi + 1] >= runtime {
            hi += 1;
        }
        let k = j + pick(&mut rng, hi - j + 1);
        pool.swap(j, k);
        estimates[i] = pool[j];
    }
    Ok(estimates)
}

/// A uniform index below `len` (> 0).
fn pick(rng: &mut Pcg64, len: usize) -> usize {
    ((unit(rng) * len as f64) as usize).min(len - 1)
}

/// Fisher-Yates.
fn shuffle<T>(items: &mut [T], rng: &mut Pcg64) {
    for i in (1..items.len()).rev() {
        items.swap(i, pick(rng, i + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const H: u64 = HOUR;
    const M: u64 = MINUTE;

    #[test]
    fn head_times_for_an_18_hour_maximum() {
        // 18 h first; the 14 joint values below it; then the round steps
        // counted down from 18 h: 10 h steps give 10 h (already there), 5 h
        // steps 15 h (new, 16th) and 10 h, 5 h (there); 2 h steps 16 h and
        // 14 h (17th, 18th); 1 h steps 17 h and 13 h (19th, 20th).
        let times = default_head_times(18 * H);
        assert_eq!(
            times,
            vec![
                18 * H,
                5 * M,
                10 * M,
                15 * M,
                20 * M,
                30 * M,
                H,
                2 * H,
                3 * H,
                4 * H,
                5 * H,
                6 * H,
                8 * H,
                10 * H,
                12 * H,
                13 * H,
                14 * H,
                15 * H,
                16 * H,
                17 * H,
            ]
        );
    }

    #[test]
    fn head_times_for_a_one_hour_maximum_are_fewer_than_twenty() {
        // Joint values below 1 h: 5, 15, 10, 20, 30 min; 20-minute steps
        // add 40 min; 10-minute steps 50 min; 5-minute steps 55, 45, 35 and
        // 25 min: 1 + 5 + 1 + 1 + 4 = 12 times.
        let times = default_head_times(H);
        assert_eq!(times.len(), 12);
        assert_eq!(times[0], H);
        assert_eq!(
            times[1..],
            [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55].map(|m| m * M)
        );
    }

    #[test]
    fn bin_counts_follow_the_linear_model() {
        let p = TsafrirParams::new(18 * H);
        // On the points themselves.
        assert_eq!(p.bins_for(20), 10);
        assert_eq!(p.bins_for(10_000), 90);
        // 100 jobs: 10 + 80 x (20 - 10) / (200 - 20) = 10 + 4.44 -> 14.
        assert_eq!(p.bins_for(100), 14);
        // KTH's 28,476 jobs: 90 + 18,476 x 250 / 60,000 = 90 + 76.98 -> 167.
        assert_eq!(p.bins_for(28_476), 167);
        // Beyond the last point the count stays at 565.
        assert_eq!(p.bins_for(1_000_000), 565);
        // The power model: 0.653566 x 10,000^0.547761 = 0.653566 x 155.0 -> 101.
        let power = TsafrirParams {
            bin_count: BinCount::Power {
                a: 0.653566,
                b: 0.547761,
            },
            ..TsafrirParams::new(18 * H)
        };
        assert_eq!(power.bins_for(10_000), 101);
    }

    #[test]
    fn head_shares_give_the_maximum_about_22_percent() {
        // Ranks 2..20: sum of 14.0491 e^(-0.177531 r) + 0.462513
        //   = 14.0491 x q^2 (1 - q^19) / (1 - q) + 19 x 0.462513, q = e^-0.177531
        //   = 14.0491 x 4.1625 + 8.7877 = 67.27; rank 1 = 89 - 67.27 = 21.73%.
        let p = TsafrirParams::new(18 * H);
        let (by_rank, _) = rank_shares(&p, 20);
        assert!((by_rank[0] - 21.73).abs() < 0.01, "{}", by_rank[0]);
        // Rank 2: 14.0491 x e^-0.355062 + 0.462513 = 9.8470 + 0.4625 = 10.31.
        assert!((by_rank[1] - 10.31).abs() < 0.01, "{}", by_rank[1]);
        assert!((by_rank.iter().sum::<f64>() - 89.0).abs() < 1e-9);
        assert!(by_rank.windows(2).all(|w| w[0] >= w[1]));
    }

    #[test]
    fn histogram_without_hints_has_the_papers_shape() {
        let p = TsafrirParams::new(18 * H);
        let n = 10_000;
        let h = tsafrir_histogram(&p, n, 7).unwrap();
        assert_eq!(h.iter().map(|b| b.jobs).sum::<u64>(), n);
        // 90 bins (the linear model at 10,000 jobs), unless a tail time
        // could not avoid a collision.
        assert!((85..=90).contains(&h.len()), "{}", h.len());
        assert!(h.windows(2).all(|w| w[0].time < w[1].time));
        assert!(h.iter().all(|b| b.time <= 18 * H && b.jobs >= 1));
        // The maximum is the most popular estimate, with about 21.8% (the
        // one-job floors of the tail bins take a little from everyone).
        let max = h.last().unwrap();
        assert_eq!(max.time, 18 * H);
        assert!(h.iter().all(|b| b.jobs <= max.jobs));
        assert!((2_050..=2_200).contains(&max.jobs), "{}", max.jobs);
        // The 20 head times hold about 89% of the jobs.
        let head = default_head_times(18 * H);
        let in_head: u64 = h
            .iter()
            .filter(|b| head.contains(&b.time))
            .map(|b| b.jobs)
            .sum();
        assert!((8_800..=9_000).contains(&in_head), "{in_head}");
        // Deterministic per seed; another seed maps the head differently.
        assert_eq!(tsafrir_histogram(&p, n, 7).unwrap(), h);
        assert_ne!(tsafrir_histogram(&p, n, 8).unwrap(), h);
    }

    #[test]
    fn hints_fix_their_bins() {
        // The maximum used by 30% of the jobs, and 7 h (not a default head
        // time) by 5%: 3,000 and 500 jobs of 10,000.
        let p = TsafrirParams::new(18 * H)
            .hint(18 * H, 0.3)
            .hint(7 * H, 0.05);
        let h = tsafrir_histogram(&p, 10_000, 1).unwrap();
        let jobs = |t| h.iter().find(|b| b.time == t).map(|b| b.jobs);
        assert_eq!(jobs(18 * H), Some(3_000));
        assert_eq!(jobs(7 * H), Some(500));
        // 7 h replaced the nearest round value of the default head (17 h,
        // 16 h, 15 h, 14 h and 13 h are the round ones; 8 h and 6 h are
        // joint): 13 h is 6 h away, the nearest round value.
        let head = merge_hint_times(&p, &default_head_times(18 * H));
        assert!(head.contains(&(7 * H)) && !head.contains(&(13 * H)));
        assert_eq!(head.len(), 20);
    }

    #[test]
    fn estimates_cover_runtimes_and_follow_the_histogram() {
        let p = TsafrirParams::new(18 * H);
        // Mostly short jobs, up to 2.8 h: (0..1000)^2 / 100 + 1 seconds.
        let runtimes: Vec<u64> = (0..5_000u64)
            .map(|i| ((i * 7_919) % 1_000).pow(2) / 100 + 1)
            .collect();
        let out = tsafrir_estimates(&p, &runtimes, 3).unwrap();
        assert!(runtimes.iter().zip(&out.estimates).all(|(r, e)| e >= r));
        let mut got = out.estimates.clone();
        got.sort_unstable();
        let mut want: Vec<u64> = tsafrir_histogram(&p, 5_000, 3)
            .unwrap()
            .iter()
            .flat_map(|b| std::iter::repeat_n(b.time, b.jobs as usize))
            .collect();
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(tsafrir_estimates(&p, &runtimes, 3).unwrap(), out);
    }

    #[test]
    fn long_jobs_beyond_the_maximum_are_refused_or_truncated() {
        let p = TsafrirParams::new(H);
        let runtimes = [10, 2 * H, 3 * H];
        assert_eq!(
            tsafrir_estimates(&p, &runtimes, 1),
            Err(EstimateModelError::RuntimeAboveMaximum {
                count: 2,
                longest: 3 * H,
                max: H
            })
        );
        // Truncated, the two long jobs run 1 h; with three jobs the
        // histogram has 3 bins... but only one of them can be the maximum,
        // so the second-longest job (rank 2) finds no estimate >= 1 h.
        let err = tsafrir_estimates(&p.clone().truncate_runtimes(), &runtimes, 1).unwrap_err();
        assert!(
            matches!(err, EstimateModelError::Infeasible { rank: 2, .. }),
            "{err}"
        );
        // Hinting that two of the three jobs use the maximum makes it work.
        let hinted = p.truncate_runtimes().hint(H, 0.67);
        let out = tsafrir_estimates(&hinted, &runtimes, 1).unwrap();
        assert_eq!(out.truncated, 2);
        assert_eq!(&out.estimates[1..], &[H, H]);
    }

    #[test]
    fn records_get_estimates_and_commands_are_left_alone() {
        let mut records: Vec<Record> = (1..=50)
            .map(|i| {
                let mut r = Record::unknown(i);
                r.submit_time = Some(i * 10);
                r.run_time = (i != 7).then_some(i * 60);
                r
            })
            .collect();
        let report = tsafrir_records(&mut records, &TsafrirParams::new(4 * H), 5).unwrap();
        assert_eq!((report.assigned, report.unknown_runtime), (49, 1));
        assert_eq!(records[6].requested_time, None);
        for r in records.iter().filter(|r| r.run_time.is_some()) {
            assert!(r.requested_time.unwrap() >= r.run_time.unwrap());
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |p: TsafrirParams| p.validate().unwrap_err().to_string();
        assert_eq!(
            bad(TsafrirParams::new(600)),
            "the maximum estimate is 600 s, expected 3600 s (one hour) to 864000000 s"
        );
        assert_eq!(
            bad(TsafrirParams::new(H).hint(2 * H, 0.1)),
            "estimate hint 7200 s is outside 1 s to the maximum estimate 3600 s"
        );
        assert_eq!(
            bad(TsafrirParams::new(H).hint(60, 0.1).hint(60, 0.2)),
            "estimate hint 60 s is given twice"
        );
        assert_eq!(
            bad(TsafrirParams::new(H).hint(60, 0.7).hint(120, 0.7)),
            "parameter sum of hint shares is 1.4, expected at most 1"
        );
        assert_eq!(
            tsafrir_histogram(&TsafrirParams::new(H), 0, 1),
            Err(EstimateModelError::NoJobs)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn assignment_is_feasible_exactly_when_the_ranks_allow(
            max_hours in 1u64..60,
            runtimes in proptest::collection::vec(1u64..200_000, 1..400),
            hint in proptest::option::of((1u64..=100, 0.01f64..0.6)),
            seed in 0u64..1_000,
        ) {
            let max = max_hours * H;
            let mut p = TsafrirParams::new(max).truncate_runtimes();
            if let Some((percent, share)) = hint {
                p = p.hint((max * percent / 100).max(1), share);
            }
            let histogram = match tsafrir_histogram(&p, runtimes.len() as u64, seed) {
                Ok(h) => h,
                Err(EstimateModelError::HintsExceedJobs { .. }) => return Ok(()),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            prop_assert_eq!(histogram.iter().map(|b| b.jobs).sum::<u64>(), runtimes.len() as u64);
            prop_assert!(histogram.iter().all(|b| b.time >= 1 && b.time <= max));
            // Feasible iff the k-th largest estimate covers the k-th longest
            // (truncated) runtime for every k.
            let mut pool: Vec<u64> = histogram
                .iter()
                .flat_map(|b| std::iter::repeat_n(b.time, b.jobs as usize))
                .collect();
            pool.sort_unstable_by(|a, b| b.cmp(a));
            let mut sorted: Vec<u64> = runtimes.iter().map(|&r| r.min(max)).collect();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let feasible = sorted.iter().zip(&pool).all(|(r, e)| r <= e);
            match tsafrir_estimates(&p, &runtimes, seed) {
                Ok(out) => {
                    prop_assert!(feasible);
                    for (r, e) in runtimes.iter().zip(&out.estimates) {
                        prop_assert!(*e >= (*r).min(max));
                    }
                    let mut got = out.estimates.clone();
                    got.sort_unstable_by(|a, b| b.cmp(a));
                    prop_assert_eq!(got, pool);
                }
                Err(EstimateModelError::Infeasible { .. }) => prop_assert!(!feasible),
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            }
        }
    }
}

//! Offered load of a workload, and three ways to change it to a target.
//!
//! The conventions are the workspace's (`schedsim stats` prints the same
//! number):
//! - a record counts if it is a submission (not a CWF command) with a known
//!   submit time (field 2), a known runtime (field 4) and a size; size =
//!   requested processors (field 8) if known and positive, else allocated
//!   processors (field 5) if known and positive; other records are left out
//!   of the load (the simulator rejects them too);
//! - span = last submit - first submit over the counted records;
//! - offered load = sum(size x runtime) / (procs x span).
//!
//! The methods, all working on [`Record`]s before normalization:
//! - [`LoadMethod::Scale`] (LOS thesis, section 4.1): every arrival time is
//!   multiplied by `f = current / target` ("if the offered load in the CTC
//!   log is 0.60, then by multiplying each job's arrival time by 0.60 a new
//!   log is generated with a load of 1.0"). Absolute times are multiplied,
//!   as the thesis says, so the span and the load change by exactly `f`
//!   before rounding. CWF requested start times (field 19) and command
//!   times (field 2 of ET/RT/EP/RP lines) are multiplied by the same `f`, so
//!   dedicated jobs and commands keep their place relative to the arrivals.
//!   Every scaled time is rounded to the nearest integer second (halves away
//!   from zero); the load actually reached is measured after rounding and
//!   reported ([`LoadChange::achieved_load`]). The method needs no seed.
//! - [`LoadMethod::Duplicate`] (QoPS paper, section 4.2): "with l = 1.2,
//!   20% of the original jobs are picked, and duplicates are introduced into
//!   the trace at random points in time". The load factor is `l = target /
//!   current`; `round((l - 1) x n)` duplicates are added, n the counted
//!   records. Choices where the paper is silent: the picked jobs are the
//!   first ones of a seeded random permutation of the counted records
//!   (without replacement); past `l = 2` a fresh permutation starts for each
//!   further round, so a job is duplicated at most once per round; a
//!   duplicate's arrival time is uniform over the integer seconds of
//!   `[first submit, last submit]`, so the span (and hence the load
//!   denominator) does not change; the duplicate is the record with a new
//!   job number (after the largest existing one, in the order drawn), the
//!   new submit time, a requested start time (CWF) moved by the same shift,
//!   and no dependency (fields 17 and 18 unknown); CWF commands of the
//!   original are not copied. Duplicates are appended after the original
//!   records; the simulator orders jobs by submit time. The paper's
//!   incremental property holds: "the workload for a load of 1.6 would
//!   include all the jobs in the trace for load 1.4, with the same arrival
//!   times for the common jobs" (the picks and the arrival times come from
//!   two seeded streams consumed in duplicate order, whatever the target).
//!   Because picks are counted in jobs, not in work, the load reached
//!   differs from the target by the picked jobs' deviation from the mean
//!   work; it is measured and reported.
//! - [`LoadMethod::Expand`] (QoPS paper, section 4.2): the paper names "job
//!   expansion" as the second way to raise the load but does not describe
//!   it. Our reading, the counterpart of duplication: the same seeded picks
//!   (same count, same permutation stream), but instead of a copy at a
//!   random time each picked job is stretched by its own length: its
//!   runtime (field 4) and requested time (field 9, when known) are
//!   multiplied by `1 + k`, k the number of times it was picked. Arrivals
//!   and sizes are unchanged, and the expected added work equals
//!   duplication's.
//!
//! Duplication and expansion only add work: a target below the current
//! load is an error for them.

use rand_pcg::Pcg64;
use rand_pcg::rand_core::Rng;
use serde::{Deserialize, Serialize};
use workload_format::Record;

use crate::TIME_LIMIT;

/// How the load is changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadMethod {
    /// Multiply every arrival time (LOS thesis, section 4.1).
    #[default]
    Scale,
    /// Add duplicates of random jobs at random times (QoPS, section 4.2).
    Duplicate,
    /// Stretch the runtimes of random jobs (QoPS, section 4.2; our reading).
    Expand,
}

impl std::str::FromStr for LoadMethod {
    type Err = LoadError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "scale" => Ok(Self::Scale),
            "duplicate" => Ok(Self::Duplicate),
            "expand" => Ok(Self::Expand),
            _ => Err(LoadError::UnknownMethod(name.to_owned())),
        }
    }
}

impl std::fmt::Display for LoadMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl LoadMethod {
    /// The name used in specs and files: `scale`, `duplicate`, `expand`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Scale => "scale",
            Self::Duplicate => "duplicate",
            Self::Expand => "expand",
        }
    }
}

/// The offered load of a workload and what it is made of.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OfferedLoad {
    /// sum(size x runtime) / (procs x span).
    pub load: f64,
    /// sum(size x runtime), processor-seconds.
    pub work: u128,
    /// Last submit - first submit, seconds.
    pub span: u64,
    /// Records counted.
    pub jobs: u64,
}

/// What a load change did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LoadChange {
    /// The method.
    pub method: LoadMethod,
    /// The load asked for.
    pub target: f64,
    /// The seed of the random picks (duplicate and expand only).
    pub seed: Option<u64>,
    /// The load before.
    pub original_load: f64,
    /// The load after (measured on the changed records).
    pub achieved_load: f64,
    /// Scale: the factor on arrival times (current / target). Duplicate and
    /// expand: the load factor l = target / current.
    pub factor: f64,
    /// Duplicates added (duplicate) or picks applied (expand); 0 for scale.
    pub picks: u64,
    /// Duplicate method: `(new job number, original job number)` of each
    /// duplicate, in the order added, so that attributes kept beside the
    /// workload (deadlines) can follow the copies
    /// ([`Deadlines::extend_to_duplicates`](crate::Deadlines::extend_to_duplicates)).
    /// Empty for the other methods. Not written to reports.
    #[serde(skip)]
    pub duplicates: Vec<(u64, u64)>,
}

/// The most copies (`duplicate`) or stretches (`expand`) a load change
/// makes: ten million, about 2 GB of records, far beyond any experiment in
/// the papers (the QoPS paper raises the load by at most 1.6 times).
pub const MAX_LOAD_PICKS: u64 = 10_000_000;

/// Why the load could not be changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A method name that is not `scale`, `duplicate` or `expand`.
    #[error("unknown load method `{0}` (known: scale, duplicate, expand)")]
    UnknownMethod(String),
    /// The target is not a positive finite number.
    #[error("the target load must be a positive number, not {0}")]
    BadTarget(f64),
    /// The workload has no measurable load.
    #[error(
        "the workload has no offered load to change: it needs a machine size and at least two jobs with size, runtime and submit time at different times"
    )]
    NoLoad,
    /// Scaling the arrival times to the target leaves every arrival in
    /// one second, where no load can be measured.
    #[error(
        "scaling the arrival times to load {} puts all of them in one second (their span of {span} s times {current:.4} / {}); scale makes loads up to about {most:.0} here: choose a lower target",
        readable(*target),
        readable(*target)
    )]
    ArrivalsCollapse {
        /// The target.
        target: f64,
        /// The current load.
        current: f64,
        /// The current span of the arrivals, in seconds.
        span: u64,
        /// The current load times the span: the target that keeps the
        /// scaled span at about one second.
        most: f64,
    },
    /// Duplication and expansion can only add work.
    #[error("{method} can only raise the load: the target {} is below the current {}", readable(*target), readable(*current), method = method.as_str())]
    BelowCurrent {
        /// The method.
        method: LoadMethod,
        /// The target.
        target: f64,
        /// The current load.
        current: f64,
    },
    /// Duplication or expansion would need more random picks than
    /// [`MAX_LOAD_PICKS`] (refused before anything is allocated).
    #[error(
        "{method} to load {} from {current:.4} needs {} picks (copies or stretches), more than the limit of {limit}; raise the load less or use --load-method scale",
        readable(*target),
        if picks.is_finite() { readable(*picks) } else { "more than 1e308".to_owned() },
        method = method.as_str(),
        limit = MAX_LOAD_PICKS
    )]
    TooManyPicks {
        /// The method.
        method: LoadMethod,
        /// The target.
        target: f64,
        /// The current load.
        current: f64,
        /// Picks it would need.
        picks: f64,
    },
    /// Scaling the arrivals to a target this small would move the latest
    /// one beyond [`TIME_LIMIT`].
    #[error(
        "scale to load {}: job {job_number}'s time would become {} s, beyond the largest time, 2^62 s; the smallest load this workload can be scaled to is {}",
        readable(*target),
        readable(*value),
        readable(*smallest)
    )]
    TargetTooLow {
        /// The target.
        target: f64,
        /// The job with the latest time.
        job_number: u64,
        /// Its scaled time.
        value: f64,
        /// The smallest target that keeps it within the limit (rounded up
        /// to three significant digits).
        smallest: f64,
    },
    /// A changed time or runtime is beyond [`TIME_LIMIT`].
    #[error(
        "job {job_number}: the changed time {} s is beyond the largest time, 2^62 s",
        readable(*value)
    )]
    OutOfRange {
        /// The job number.
        job_number: u64,
        /// The value that does not fit.
        value: f64,
    },
}

/// A number as a message shows it ([`workload_format::readable_number`]):
/// in short scientific notation when very large or small.
fn readable(value: f64) -> String {
    workload_format::readable_number(value)
}

/// The size the load counts: requested processors if known and positive,
/// else allocated processors if known and positive.
pub(crate) fn size_of(record: &Record) -> Option<u64> {
    record
        .requested_processors
        .filter(|&p| p > 0)
        .or(record.allocated_processors.filter(|&p| p > 0))
}

/// Whether a record counts in the load, with its (submit, size, runtime).
fn counted(record: &Record) -> Option<(u64, u64, u64)> {
    if record.is_command() {
        return None;
    }
    Some((record.submit_time?, size_of(record)?, record.run_time?))
}

/// The offered load of `records` on `procs` processors (conventions in the
/// module docs); `None` if `procs` is 0, no record counts or the span is 0.
/// `records` is a slice or any iterator of records or references to them
/// (e.g. a [`PackedRecords`](workload_format::PackedRecords)' iterator).
pub fn offered_load<I>(records: I, procs: u32) -> Option<OfferedLoad>
where
    I: IntoIterator,
    I::Item: std::borrow::Borrow<Record>,
{
    use std::borrow::Borrow;
    let (mut work, mut jobs) = (0u128, 0u64);
    let (mut first, mut last) = (u64::MAX, 0u64);
    for (submit, size, runtime) in records.into_iter().filter_map(|r| counted(r.borrow())) {
        work += u128::from(size) * u128::from(runtime);
        jobs += 1;
        first = first.min(submit);
        last = last.max(submit);
    }
    if procs == 0 || jobs == 0 || last <= first {
        return None;
    }
    let span = last - first;
    // Precision: work and procs * span are exact integers; one rounding each.
    let load = work as f64 / (u128::from(procs) * u128::from(span)) as f64;
    Some(OfferedLoad {
        load,
        work,
        span,
        jobs,
    })
}

/// Changes the offered load of `records` on `procs` processors to `target`
/// with `method` (see the module docs; `seed` drives the random picks of
/// duplicate and expand and is ignored by scale). Returns the new records
/// and what was done.
///
/// ```
/// use schedsim_sim_core::{LoadMethod, change_load, offered_load};
/// use workload_format::Record;
///
/// let job = |n, submit, size, runtime| {
///     let mut r = Record::unknown(n);
///     (r.submit_time, r.allocated_processors, r.run_time) = (Some(submit), Some(size), Some(runtime));
///     r
/// };
/// // Work 2*100 + 2*100 = 400 on 4 processors over a span of 200 s: 0.5.
/// let records = [job(1, 0, 2, 100), job(2, 200, 2, 100)];
/// assert_eq!(offered_load(&records, 4).unwrap().load, 0.5);
/// // To reach 1.0 the arrival times are multiplied by 0.5 / 1.0.
/// let (scaled, change) = change_load(&records, 4, 1.0, LoadMethod::Scale, 0)?;
/// assert_eq!(scaled[1].submit_time, Some(100));
/// assert_eq!(change.achieved_load, 1.0);
/// # Ok::<(), schedsim_sim_core::LoadError>(())
/// ```
///
/// # Errors
/// A target that is not positive and finite, a workload without offered
/// load, a duplicate/expand target below the current load, or a changed
/// value out of range.
pub fn change_load(
    records: &[Record],
    procs: u32,
    target: f64,
    method: LoadMethod,
    seed: u64,
) -> Result<(Vec<Record>, LoadChange), LoadError> {
    if !(target.is_finite() && target > 0.0) {
        return Err(LoadError::BadTarget(target));
    }
    let current = offered_load(records, procs).ok_or(LoadError::NoLoad)?;
    let mut duplicates = Vec::new();
    let (changed, factor, picks) = match method {
        LoadMethod::Scale => {
            let factor = current.load / target;
            check_scaled_latest(records, factor, target, current.load)?;
            (scale(records, factor)?, factor, 0)
        }
        LoadMethod::Duplicate | LoadMethod::Expand => {
            if target < current.load {
                return Err(LoadError::BelowCurrent {
                    method,
                    target,
                    current: current.load,
                });
            }
            let factor = target / current.load;
            let picks = ((factor - 1.0) * current.jobs as f64).round();
            if picks.is_nan() || picks > MAX_LOAD_PICKS as f64 {
                return Err(LoadError::TooManyPicks {
                    method,
                    target,
                    current: current.load,
                    picks,
                });
            }
            let picks = picks as u64;
            let changed = if method == LoadMethod::Duplicate {
                let (changed, pairs) = duplicate(records, picks, seed)?;
                duplicates = pairs;
                changed
            } else {
                expand(records, picks, seed)?
            };
            (changed, factor, picks)
        }
    };
    let achieved = offered_load(&changed, procs).ok_or(LoadError::ArrivalsCollapse {
        target,
        current: current.load,
        span: current.span,
        most: current.load * current.span as f64,
    })?;
    Ok((
        changed,
        LoadChange {
            method,
            target,
            seed: (method != LoadMethod::Scale).then_some(seed),
            original_load: current.load,
            achieved_load: achieved.load,
            factor,
            picks,
            duplicates,
        },
    ))
}

/// Refuses a scaling that would move the latest time (submit or requested
/// start) beyond [`TIME_LIMIT`], with the smallest target that would not.
fn check_scaled_latest(
    records: &[Record],
    factor: f64,
    target: f64,
    current: f64,
) -> Result<(), LoadError> {
    let latest = records
        .iter()
        .flat_map(|r| {
            let start = r.cwf.as_ref().and_then(|c| c.requested_start_time);
            [r.submit_time, start]
                .into_iter()
                .flatten()
                .map(move |t| (t, r.job_number))
        })
        .max_by_key(|&(t, _)| t);
    let Some((time, job_number)) = latest else {
        return Ok(());
    };
    let value = (time as f64 * factor).round();
    if value <= TIME_LIMIT as f64 {
        return Ok(());
    }
    Err(LoadError::TargetTooLow {
        target,
        job_number,
        value,
        smallest: round_up_3(current * time as f64 / TIME_LIMIT as f64),
    })
}

/// `value` rounded up to three significant digits (a little above it, so
/// that the number shown is accepted despite float rounding).
fn round_up_3(value: f64) -> f64 {
    let value = value * (1.0 + 1e-9);
    let exponent = value.log10().floor() as i32 - 2;
    let digits = (value / 10f64.powi(exponent)).ceil();
    // Read back from text: the nearest float to e.g. 4.88e-17, which
    // prints as written.
    format!("{digits}e{exponent}").parse().unwrap_or(value)
}

/// `value * factor` rounded to the nearest second, if it is within
/// [`TIME_LIMIT`].
fn scaled_time(value: u64, factor: f64, job_number: u64) -> Result<u64, LoadError> {
    let scaled = (value as f64 * factor).round();
    if scaled.is_finite() && scaled >= 0.0 && scaled <= TIME_LIMIT as f64 {
        Ok(scaled as u64)
    } else {
        Err(LoadError::OutOfRange {
            job_number,
            value: scaled,
        })
    }
}

fn scale(records: &[Record], factor: f64) -> Result<Vec<Record>, LoadError> {
    records
        .iter()
        .map(|record| {
            let mut out = record.clone();
            if let Some(submit) = record.submit_time {
                out.submit_time = Some(scaled_time(submit, factor, record.job_number)?);
            }
            if let Some(cwf) = out.cwf.as_mut()
                && let Some(start) = cwf.requested_start_time
            {
                cwf.requested_start_time = Some(scaled_time(start, factor, record.job_number)?);
            }
            Ok(out)
        })
        .collect()
}

/// The seeded streams of the picks and of the duplicates' arrival times.
/// The stream constants are part of the output's definition: never change
/// them.
fn streams(seed: u64) -> (Pcg64, Pcg64) {
    let state = (u128::from(mix64(seed ^ 0x6c6f_6164_2d70_6963)) << 64) | u128::from(mix64(seed));
    (
        Pcg64::new(state, 0x5069_636b_7300_0001),
        Pcg64::new(state ^ 0x5a5a, 0x5469_6d65_7300_0003),
    )
}

/// SplitMix64's finaliser.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform draw in `0..n` (n >= 1) by the multiply-high method (bias below
/// n / 2^64, far below anything measurable here).
fn below(rng: &mut Pcg64, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// The indices (into `records`) of the first `picks` picks: rounds of a
/// seeded Fisher-Yates permutation of the counted records.
fn pick_indices(records: &[Record], picks: u64, rng: &mut Pcg64) -> Vec<usize> {
    let eligible: Vec<usize> = (0..records.len())
        .filter(|&i| counted(&records[i]).is_some())
        .collect();
    let mut chosen = Vec::with_capacity(picks as usize);
    while (chosen.len() as u64) < picks {
        let mut round = eligible.clone();
        // Fisher-Yates from the front, so each round's prefix is drawn first.
        for i in 0..round.len() {
            let j = i + below(rng, (round.len() - i) as u64) as usize;
            round.swap(i, j);
        }
        let wanted = (picks - chosen.len() as u64).min(round.len() as u64) as usize;
        chosen.extend_from_slice(&round[..wanted]);
    }
    chosen
}

/// `(new job number, original job number)` of each duplicate.
type DuplicatePairs = Vec<(u64, u64)>;

/// The records with the duplicates appended, and each duplicate's numbers.
fn duplicate(
    records: &[Record],
    picks: u64,
    seed: u64,
) -> Result<(Vec<Record>, DuplicatePairs), LoadError> {
    let (mut pick_rng, mut time_rng) = streams(seed);
    let chosen = pick_indices(records, picks, &mut pick_rng);
    let (first, last) = records
        .iter()
        .filter_map(counted)
        .fold((u64::MAX, 0), |(f, l), (submit, _, _)| {
            (f.min(submit), l.max(submit))
        });
    let mut next_number = records.iter().map(|r| r.job_number).max().unwrap_or(0);
    let mut out = records.to_vec();
    out.reserve(chosen.len());
    let mut pairs = Vec::with_capacity(chosen.len());
    for index in chosen {
        let original = &records[index];
        let submit = first + below(&mut time_rng, last - first + 1);
        next_number += 1;
        let mut copy = original.clone();
        copy.job_number = next_number;
        copy.submit_time = Some(submit);
        copy.preceding_job_number = None;
        copy.think_time = None;
        if let Some(cwf) = copy.cwf.as_mut()
            && let (Some(start), Some(old)) = (cwf.requested_start_time, original.submit_time)
        {
            // Keep the requested start's offset from the submit time.
            let moved = i128::from(start) + i128::from(submit) - i128::from(old);
            cwf.requested_start_time =
                Some(u64::try_from(moved).map_err(|_| LoadError::OutOfRange {
                    job_number: original.job_number,
                    value: moved as f64,
                })?);
        }
        pairs.push((copy.job_number, original.job_number));
        out.push(copy);
    }
    Ok((out, pairs))
}

fn expand(records: &[Record], picks: u64, seed: u64) -> Result<Vec<Record>, LoadError> {
    let (mut pick_rng, _) = streams(seed);
    let mut times_picked = vec![0u64; records.len()];
    for index in pick_indices(records, picks, &mut pick_rng) {
        times_picked[index] += 1;
    }
    let mut out = records.to_vec();
    for (record, &k) in out.iter_mut().zip(&times_picked) {
        if k == 0 {
            continue;
        }
        let stretch = |value: u64| {
            value
                .checked_mul(k + 1)
                .filter(|&v| v <= TIME_LIMIT as u64)
                .ok_or(LoadError::OutOfRange {
                    job_number: record.job_number,
                    value: value as f64 * (k + 1) as f64,
                })
        };
        record.run_time = record.run_time.map(stretch).transpose()?;
        record.requested_time = record.requested_time.map(stretch).transpose()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use workload_format::{CwfFields, RequestType};

    fn job(number: u64, submit: Option<u64>, size: (u64, u64), runtime: Option<u64>) -> Record {
        let mut r = Record::unknown(number);
        r.submit_time = submit;
        r.requested_processors = Some(size.0);
        r.allocated_processors = Some(size.1);
        r.run_time = runtime;
        r
    }

    /// Four processors. A: requested 2, 100 s at 0. B: only allocated 4,
    /// 50 s at 100. C: requested 0 (unknown), allocated 1, 200 s at 200.
    /// D: no runtime (left out) at 300. E: no submit time (left out).
    fn workload() -> Vec<Record> {
        vec![
            job(1, Some(0), (2, 0), Some(100)),
            job(2, Some(100), (0, 4), Some(50)),
            job(3, Some(200), (0, 1), Some(200)),
            job(4, Some(300), (1, 1), None),
            job(5, None, (1, 1), Some(10)),
        ]
    }

    #[test]
    fn offered_load_by_hand() {
        // Work 2*100 + 4*50 + 1*200 = 600; span 200 - 0 (D and E left out);
        // 600 / (4 * 200) = 0.75.
        let load = offered_load(workload(), 4).unwrap();
        assert_eq!(
            load,
            OfferedLoad {
                load: 0.75,
                work: 600,
                span: 200,
                jobs: 3
            }
        );
        assert_eq!(offered_load(workload(), 0), None);
        assert_eq!(offered_load(&workload()[..1], 4), None);
    }

    #[test]
    fn scaling_multiplies_every_time_and_rounds() {
        // Target 0.5: f = 0.75 / 0.5 = 1.5. Submits 0, 150, 300, D 450;
        // span 300: 600 / (4 * 300) = 0.5 exactly.
        let (scaled, change) = change_load(&workload(), 4, 0.5, LoadMethod::Scale, 9).unwrap();
        let submits: Vec<_> = scaled.iter().map(|r| r.submit_time).collect();
        assert_eq!(
            submits,
            [Some(0), Some(150), Some(300), Some(450), None],
            "E keeps its unknown submit time"
        );
        assert_eq!((change.factor, change.achieved_load), (1.5, 0.5));
        assert_eq!(change.seed, None);
        // Target 0.9: f = 0.75 / 0.9 = 0.8333: 100 f = 83.33 -> 83, 200 f =
        // 166.67 -> 167 (nearest second). Span 167: 600 / 668 = 0.898204.
        let (scaled, change) = change_load(&workload(), 4, 0.9, LoadMethod::Scale, 0).unwrap();
        assert_eq!(scaled[1].submit_time, Some(83));
        assert_eq!(scaled[2].submit_time, Some(167));
        assert_eq!(scaled[3].submit_time, Some(250));
        assert!((change.achieved_load - 600.0 / 668.0).abs() < 1e-15);
    }

    #[test]
    fn scaling_moves_cwf_times_with_the_arrivals() {
        // A dedicated job asking to start at 400 and an ET command at 150:
        // with f = 1.5 they become 600 and 225.
        let mut records = workload();
        records[0].cwf = Some(CwfFields {
            requested_start_time: Some(400),
            request_type: RequestType::Submit,
            amount: None,
        });
        let mut command = Record::unknown(1);
        command.submit_time = Some(150);
        command.cwf = Some(CwfFields {
            requested_start_time: None,
            request_type: RequestType::ExtendTime,
            amount: Some(60),
        });
        records.push(command);
        let (scaled, change) = change_load(&records, 4, 0.5, LoadMethod::Scale, 0).unwrap();
        assert_eq!(scaled[0].requested_start_time(), Some(600));
        assert_eq!(scaled[5].submit_time, Some(225));
        // The command is not a job: the load is unchanged by it.
        assert_eq!(change.achieved_load, 0.5);
    }

    /// n jobs on 10 processors, one per 10 s, each 1 processor x 10 s:
    /// work 10n, span 10(n - 1).
    fn uniform(n: u64) -> Vec<Record> {
        (0..n)
            .map(|i| job(i + 1, Some(10 * i), (1, 1), Some(10)))
            .collect()
    }

    #[test]
    fn duplication_adds_picked_jobs_inside_the_span() {
        // 101 jobs: work 1010, span 1000, load 1010 / (10 * 1000) = 0.101.
        // Target 0.1212 = 1.2 x: round(0.2 * 101) = round(20.2) = 20
        // duplicates; all jobs have equal work, so the load reached is
        // 121 * 10 / (10 * 1000) = 0.121 (the count is rounded).
        let records = uniform(101);
        let (changed, change) =
            change_load(&records, 10, 0.1212, LoadMethod::Duplicate, 7).unwrap();
        assert_eq!(change.picks, 20);
        assert_eq!(changed.len(), 121);
        assert!((change.achieved_load - 0.121).abs() < 1e-12);
        assert!((change.factor - 1.2).abs() < 1e-12);
        let copies = &changed[101..];
        // New numbers after the largest (101), in order.
        assert_eq!(copies[0].job_number, 102);
        assert_eq!(copies[19].job_number, 121);
        assert!(copies.iter().all(|r| r.submit_time.unwrap() <= 1000));
        // Without replacement within a round: 20 distinct originals (their
        // runtimes are equal, so compare via the original numbers recovered
        // from the pick stream).
        let mut rng = streams(7).0;
        let mut picked = pick_indices(&records, 20, &mut rng);
        picked.sort_unstable();
        picked.dedup();
        assert_eq!(picked.len(), 20);
    }

    #[test]
    fn duplicates_keep_their_attributes_and_name_their_original() {
        let records: Vec<Record> = uniform(101)
            .into_iter()
            .map(|mut r| {
                r.user_id = Some(r.job_number % 7);
                r.group_id = Some(3);
                r
            })
            .collect();
        let (changed, change) =
            change_load(&records, 10, 0.1212, LoadMethod::Duplicate, 7).unwrap();
        assert_eq!(change.duplicates.len(), 20);
        for (copy, &(number, original)) in changed[101..].iter().zip(&change.duplicates) {
            assert_eq!(copy.job_number, number);
            let original = &records[(original - 1) as usize];
            // Same user, group, size and runtime; another time and number.
            assert_eq!(copy.user_id, original.user_id);
            assert_eq!(copy.group_id, Some(3));
            assert_eq!(copy.run_time, original.run_time);
        }
        // Scaling and expansion add no job.
        let (_, scaled) = change_load(&records, 10, 0.2, LoadMethod::Scale, 7).unwrap();
        assert!(scaled.duplicates.is_empty());
    }

    #[test]
    fn duplication_is_incremental_and_seeded() {
        // The paper: the trace for a higher load holds every job of the
        // lower one at the same arrival time.
        let records = uniform(101);
        let low = change_load(&records, 10, 0.101 * 1.4, LoadMethod::Duplicate, 3)
            .unwrap()
            .0;
        let high = change_load(&records, 10, 0.101 * 1.6, LoadMethod::Duplicate, 3)
            .unwrap()
            .0;
        // round(0.4 * 101) = 40, round(0.6 * 101) = 61 duplicates.
        assert_eq!((low.len(), high.len()), (141, 162));
        assert_eq!(low[..], high[..141]);
        let other = change_load(&records, 10, 0.101 * 1.4, LoadMethod::Duplicate, 4)
            .unwrap()
            .0;
        assert_ne!(low, other, "another seed draws other picks");
        // Past l = 2 a second round starts: 2.5 x gives round(1.5 * 101) =
        // 152 duplicates (151.5 rounded half away from zero): all 101 jobs
        // once, then 51 of a new permutation. Load 253 * 10 / 10000.
        let (twice, change) =
            change_load(&records, 10, 0.101 * 2.5, LoadMethod::Duplicate, 3).unwrap();
        assert_eq!((twice.len(), change.picks), (253, 152));
        assert!((change.achieved_load - 0.253).abs() < 1e-12);
    }

    #[test]
    fn expansion_stretches_picked_jobs() {
        // Same 101 jobs, 1.2 x: 20 picks, each picked job runs 20 s instead
        // of 10 (requested time too): work 1010 + 20 * 10 = 1210, load 0.121.
        let mut records = uniform(101);
        for r in &mut records {
            r.requested_time = Some(15);
        }
        let (changed, change) = change_load(&records, 10, 0.1212, LoadMethod::Expand, 7).unwrap();
        assert_eq!(changed.len(), 101);
        let stretched: Vec<&Record> = changed.iter().filter(|r| r.run_time == Some(20)).collect();
        assert_eq!(stretched.len(), 20);
        assert!(stretched.iter().all(|r| r.requested_time == Some(30)));
        assert!((change.achieved_load - 0.121).abs() < 1e-12);
        // The picks are those of the pick stream (the one duplication uses).
        let mut rng = streams(7).0;
        let mut picked: Vec<u64> = pick_indices(&records, 20, &mut rng)
            .into_iter()
            .map(|i| records[i].job_number)
            .collect();
        picked.sort_unstable();
        let expanded: Vec<u64> = stretched.iter().map(|r| r.job_number).collect();
        assert_eq!(picked, expanded);
    }

    #[test]
    fn bad_targets_are_errors() {
        assert_eq!(
            change_load(&workload(), 4, 0.0, LoadMethod::Scale, 0).unwrap_err(),
            LoadError::BadTarget(0.0)
        );
        assert!(matches!(
            change_load(&workload(), 4, f64::NAN, LoadMethod::Scale, 0),
            Err(LoadError::BadTarget(_))
        ));
        assert_eq!(
            change_load(&workload(), 4, 0.5, LoadMethod::Duplicate, 0)
                .unwrap_err()
                .to_string(),
            "duplicate can only raise the load: the target 0.5 is below the current 0.75"
        );
        assert_eq!(
            change_load(&workload()[..1], 4, 0.5, LoadMethod::Scale, 0).unwrap_err(),
            LoadError::NoLoad
        );
        // Load 0.75 over a span of 200 s to 1000: the arrivals, at 0, 100
        // and 200 s times 0.75 / 1000, all round to 0 s. Load 150 (0.75 x
        // 200) keeps the span at about a second.
        assert_eq!(
            change_load(&workload(), 4, 1000.0, LoadMethod::Scale, 0)
                .unwrap_err()
                .to_string(),
            "scaling the arrival times to load 1000 puts all of them in one second (their span \
             of 200 s times 0.7500 / 1000); scale makes loads up to about 150 here: choose a \
             lower target"
        );
        assert_eq!("expand".parse::<LoadMethod>(), Ok(LoadMethod::Expand));
        assert_eq!(
            "double".parse::<LoadMethod>().unwrap_err().to_string(),
            "unknown load method `double` (known: scale, duplicate, expand)"
        );
        // Load 0.75 to 1e-30: the latest submission, job 4 at 300 s, would
        // move to 300 x 0.75 / 1e-30 = 2.25e32 s. The smallest target is
        // 0.75 x 300 / 2^62 = 4.8789e-17, shown rounded up: 4.88e-17,
        // which moves it to 225 / 4.88e-17 = 4.6107e18 s <= 2^62.
        assert_eq!(
            change_load(&workload(), 4, 1e-30, LoadMethod::Scale, 0)
                .unwrap_err()
                .to_string(),
            "scale to load 1e-30: job 4's time would become 2.25e32 s, beyond the largest \
             time, 2^62 s; the smallest load this workload can be scaled to is 4.88e-17"
        );
        let (scaled, _) = change_load(&workload(), 4, 4.88e-17, LoadMethod::Scale, 0).unwrap();
        let latest = scaled[3].submit_time.unwrap();
        assert!(
            latest <= TIME_LIMIT as u64 && latest > TIME_LIMIT as u64 / 100 * 99,
            "{latest}"
        );
        assert!(matches!(
            change_load(&workload(), 4, 4.87e-17, LoadMethod::Scale, 0),
            Err(LoadError::TargetTooLow { .. })
        ));
        // Load 0.75 over 3 jobs to 1e7: (1e7 / 0.75 - 1) * 3 = 4e7 - 3
        // picks, above the 1e7 limit: refused before allocating them.
        for method in [LoadMethod::Duplicate, LoadMethod::Expand] {
            assert_eq!(
                change_load(&workload(), 4, 1e7, method, 0).unwrap_err(),
                LoadError::TooManyPicks {
                    method,
                    target: 1e7,
                    current: 0.75,
                    picks: 39_999_997.0
                }
            );
        }
    }
}

//! Scaling a workload to a larger machine by enlarging and duplicating jobs,
//! after Ernemann, Song and Yahyapour ("Scaling of workload traces", JSSPP
//! 2003, LNCS 2862), as Franke, Lepping and Schwiegelshohn use it to bring
//! six traces to 1,024 processors (CI-Sched 2007, Table I).
//!
//! What is known of the method (only the paper's abstract and introduction
//! could be read): jobs of a trace from a machine of m processors are
//! "enlarged and/or duplicated" for a machine of m' processors; strategies
//! scaling the number of copies and/or the job size were compared by the
//! scheduling results of common algorithms, which proved sensitive to the
//! changes; "the best results had been achieved by adjusting the scaling
//! factors to be higher than the precise relation" m'/m.
//!
//! Our reading, every choice a parameter ([`MachineScaling`]):
//! - the exact factor is `f = m' / m`, the factor used `F = f * adjustment`
//!   (adjustment >= 1 by default 1; Ernemann et al.'s finding is that a
//!   value above 1 keeps the original's scheduling behaviour, so it is
//!   meant to be calibrated: see [`MachineScaling::adjustment_for_jobs`]);
//! - a fraction `p` (default 0.5) of the jobs is *duplicated*: `round(p n)`
//!   of the n scalable jobs, chosen by a seeded permutation; the others are
//!   *enlarged* (an exact number rather than a coin per job keeps the job
//!   count from varying with the seed: a coin per job would move KTH's count
//!   by 0.5% per standard deviation):
//!   - duplicated: it is replaced by `k` identical jobs, `k = floor(F)`
//!     plus one more with probability `F - floor(F)` (so the mean is `F`),
//!     all submitted at the original's time; the copies keep every field of
//!     the original (user, group, estimate, dependencies...) but get new job
//!     numbers after the largest existing one, in record order, and follow
//!     their original in the output;
//!   - enlarged: its allocated (field 5) and requested (field 8) processors
//!     are multiplied by `F`, rounded to the nearest integer (halves up) and
//!     capped at `m'` (a job of the whole old machine becomes one of the
//!     whole new machine); run time, estimate and per-processor fields
//!     (CPU time, memory) are unchanged;
//! - either way a job's work grows by `F` on average, so the offered load
//!   of the new machine equals the old one's times the adjustment, and each
//!   user's share of the work (the Greedy-ES user groups) is kept up to the
//!   randomness of the draws;
//! - records without a size (fields 5 and 8 unknown or 0) or without a run
//!   time, and CWF commands, are copied unchanged (counted in the report);
//!   commands stay with their original job, copies get none;
//! - a trace whose machine already has `m'` processors is returned
//!   unchanged whatever the adjustment: there is no size change to
//!   compensate;
//! - which jobs are duplicated depends on the seed and `p` only (a larger
//!   `p` duplicates a superset), and a duplicated job's extra-copy draw
//!   comes from a stream keyed by (seed, its record index), so changing the
//!   factor changes each job's copy count or size monotonically and nothing
//!   else ("common random numbers": calibrating the adjustment by bisection
//!   sees a smooth response).
//!
//! Calibration ([`calibrate_adjustment`]): the adjustment at which a
//! scheduling result of the scaled trace (we use EASY's AWRT, since a
//! larger machine packs the same jobs better) equals the original's. On KTH
//! (100 -> 1,024 processors, EASY's AWRT 75,583 s) the exact factor gives
//! 160,035 jobs and an AWRT of 69,000-70,000 s; the calibrated adjustments
//! of seeds 0-3 are 1.047-1.056, giving 166,767-168,262 jobs, within 0.6%
//! of Table I's 167,375, which the paper obtained with Ernemann et al.'s
//! procedure (policies' test `ernemann_scaling`). Without calibration, the
//! count Table I gives for a trace fixes the adjustment
//! ([`MachineScaling::adjustment_for_jobs`]; KTH: 1.0504).
//!
//! The header (MaxProcs, MaxNodes) is the caller's to update.

use rand_pcg::Pcg64;
use rand_pcg::rand_core::Rng;
use serde::{Deserialize, Serialize};
use workload_format::{Record, RequestType};

/// How to scale a workload to a larger machine (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MachineScaling {
    /// Processors of the machine the trace was recorded on (m).
    pub source_procs: u64,
    /// Processors of the machine to scale to (m').
    pub target_procs: u64,
    /// The factor used is `target / source * adjustment`. Default 1.
    pub adjustment: f64,
    /// Fraction of the jobs duplicated rather than enlarged. Default 0.5.
    pub duplicate_fraction: f64,
    /// Seed of the per-job draws. Default 0.
    pub seed: u64,
}

impl MachineScaling {
    /// Scaling from `source_procs` to `target_procs` processors with the
    /// defaults (adjustment 1, duplicated fraction 0.5, seed 0).
    pub fn new(source_procs: u64, target_procs: u64) -> Self {
        Self {
            source_procs,
            target_procs,
            adjustment: 1.0,
            duplicate_fraction: 0.5,
            seed: 0,
        }
    }

    /// Sets the adjustment of the factor.
    #[must_use]
    pub fn with_adjustment(mut self, adjustment: f64) -> Self {
        self.adjustment = adjustment;
        self
    }

    /// Sets the fraction of the jobs duplicated rather than enlarged.
    #[must_use]
    pub fn with_duplicate_fraction(mut self, fraction: f64) -> Self {
        self.duplicate_fraction = fraction;
        self
    }

    /// Sets the seed.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// m' / m.
    pub fn exact_factor(&self) -> f64 {
        self.target_procs as f64 / self.source_procs as f64
    }

    /// The factor used: m' / m x adjustment, or 1 when m' = m.
    pub fn factor(&self) -> f64 {
        if self.target_procs == self.source_procs {
            1.0
        } else {
            self.exact_factor() * self.adjustment
        }
    }

    /// The adjustment whose expected number of output records is
    /// `target_jobs` for these records: each of the `d = round(p n)`
    /// duplicated jobs yields F records on average and every other record
    /// one, so `target = records + d (F - 1)`. Table I of the Greedy-ES
    /// paper gives such counts (KTH: 167,375).
    ///
    /// # Errors
    /// Bad settings, a target the records cannot reach (fewer jobs than
    /// they have, or more with no job duplicated), or a trace already on
    /// the target machine.
    pub fn adjustment_for_jobs(
        &self,
        records: &[Record],
        target_jobs: u64,
    ) -> Result<f64, ScaleError> {
        self.check()?;
        if self.target_procs == self.source_procs {
            return Err(ScaleError::NothingToAdjust);
        }
        let scalable = records
            .iter()
            .filter(|r| scalable_size(r).is_some())
            .count();
        let duplicated = self.duplicated_count(scalable) as f64;
        let extra = target_jobs as f64 - records.len() as f64;
        if duplicated == 0.0 || extra < 0.0 {
            return Err(ScaleError::UnreachableJobCount {
                target: target_jobs,
                records: records.len() as u64,
            });
        }
        Ok((1.0 + extra / duplicated) / self.exact_factor())
    }

    /// How many of `scalable` jobs are duplicated: round(p n), halves up.
    fn duplicated_count(&self, scalable: usize) -> usize {
        ((self.duplicate_fraction * scalable as f64).round() as usize).min(scalable)
    }

    fn check(&self) -> Result<(), ScaleError> {
        if self.source_procs == 0 || self.target_procs < self.source_procs {
            return Err(ScaleError::BadMachines {
                from: self.source_procs,
                to: self.target_procs,
            });
        }
        if !(self.adjustment.is_finite() && self.adjustment >= 1.0) {
            return Err(ScaleError::BadAdjustment(self.adjustment));
        }
        if !(0.0..=1.0).contains(&self.duplicate_fraction) {
            return Err(ScaleError::BadFraction(self.duplicate_fraction));
        }
        Ok(())
    }
}

/// The result of [`calibrate_adjustment`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Calibration {
    /// The adjustment chosen: of those tried, the one whose behaviour came
    /// closest to the target.
    pub adjustment: f64,
    /// Its behaviour.
    pub behaviour: f64,
    /// Whether the target lies between the behaviours at 1 and at the
    /// largest adjustment allowed (otherwise the nearer end is chosen).
    pub bracketed: bool,
    /// Every (adjustment, behaviour) evaluated, in order.
    pub trials: Vec<(f64, f64)>,
}

/// Why a calibration failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CalibrationError {
    /// The scaling itself failed.
    #[error(transparent)]
    Scale(#[from] ScaleError),
    /// The largest adjustment is below 1 or not finite, or the target is not
    /// finite.
    #[error(
        "calibration needs a finite target and a largest adjustment of at least 1, not {target} and {max_adjustment}"
    )]
    BadRange {
        /// The target behaviour.
        target: f64,
        /// The largest adjustment allowed.
        max_adjustment: f64,
    },
    /// Measuring the behaviour of a scaled workload failed.
    #[error("measuring the scaled workload's behaviour at adjustment {adjustment} failed")]
    Behaviour {
        /// The adjustment tried.
        adjustment: f64,
        /// The error of the measurement.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// Ernemann et al.'s adjustment: the factor above m'/m at which the scaled
/// workload behaves like the original. `behaviour` measures a scaled
/// workload (e.g. the AWRT of an EASY schedule of it on m' processors) and
/// must grow with the adjustment (more work on the same span: AWRT, waits
/// and utilization do); `target` is the original's value (e.g. the AWRT of
/// EASY on the original machine). Bisection over [1, `max_adjustment`] with
/// `iterations` halvings after the two ends; the draws are the same for
/// every trial (same seed), so the behaviour responds to the adjustment
/// alone.
///
/// # Errors
/// Bad settings or range, or a failed measurement.
pub fn calibrate_adjustment<F>(
    records: &[Record],
    scaling: &MachineScaling,
    target: f64,
    max_adjustment: f64,
    iterations: u32,
    mut behaviour: F,
) -> Result<Calibration, CalibrationError>
where
    F: FnMut(&[Record]) -> Result<f64, Box<dyn std::error::Error + Send + Sync>>,
{
    if !(target.is_finite() && max_adjustment.is_finite() && max_adjustment >= 1.0) {
        return Err(CalibrationError::BadRange {
            target,
            max_adjustment,
        });
    }
    let mut trials = Vec::new();
    let mut measure = |adjustment: f64| -> Result<f64, CalibrationError> {
        let (scaled, _) = scale_machine(records, &scaling.with_adjustment(adjustment))?;
        let value = behaviour(&scaled)
            .map_err(|source| CalibrationError::Behaviour { adjustment, source })?;
        trials.push((adjustment, value));
        Ok(value)
    };
    let (mut low, mut high) = (1.0, max_adjustment);
    let (low_value, high_value) = (measure(low)?, measure(high)?);
    let bracketed = low_value <= target && target <= high_value;
    if bracketed {
        for _ in 0..iterations {
            let middle = 0.5 * (low + high);
            if measure(middle)? < target {
                low = middle;
            } else {
                high = middle;
            }
        }
    }
    let (adjustment, behaviour) = trials
        .iter()
        .copied()
        .min_by(|a, b| {
            (a.1 - target)
                .abs()
                .total_cmp(&(b.1 - target).abs())
                .then(a.0.total_cmp(&b.0))
        })
        .unwrap_or((1.0, low_value));
    Ok(Calibration {
        adjustment,
        behaviour,
        bracketed,
        trials,
    })
}

/// What a scaling did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScaleReport {
    /// The settings used.
    pub scaling: MachineScaling,
    /// m' / m.
    pub exact_factor: f64,
    /// The factor used (m' / m x adjustment; 1 when m' = m).
    pub factor: f64,
    /// Records in.
    pub records_in: u64,
    /// Records out.
    pub records_out: u64,
    /// Jobs enlarged.
    pub enlarged: u64,
    /// Enlarged jobs whose size was capped at m'.
    pub capped: u64,
    /// Jobs duplicated (each counted once).
    pub duplicated: u64,
    /// Copies added (a job duplicated into k jobs adds k - 1).
    pub copies_added: u64,
    /// Records copied unchanged: no size or run time, or a CWF command.
    pub unchanged: u64,
    /// sum(size x run time) before, processor-seconds.
    pub work_in: u128,
    /// sum(size x run time) after.
    pub work_out: u128,
}

/// Why a workload could not be scaled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScaleError {
    /// The source machine has no processors or is larger than the target.
    #[error(
        "cannot scale a machine of {from} processors to {to}: the target must be at least the source, and the source at least 1"
    )]
    BadMachines {
        /// m.
        from: u64,
        /// m'.
        to: u64,
    },
    /// The adjustment is not a finite number of at least 1.
    #[error("the scaling adjustment must be a finite number of at least 1, not {0}")]
    BadAdjustment(f64),
    /// The duplicated fraction is not in [0, 1].
    #[error("the fraction of duplicated jobs must be in [0, 1], not {0}")]
    BadFraction(f64),
    /// No adjustment gives the job count asked for.
    #[error("no adjustment turns {records} records into {target} jobs")]
    UnreachableJobCount {
        /// The count asked for.
        target: u64,
        /// The records given.
        records: u64,
    },
    /// The trace is already on the target machine.
    #[error(
        "the trace already has the target machine size: it is not scaled, so there is nothing to adjust"
    )]
    NothingToAdjust,
    /// The scaled trace would hold more than [`MAX_SCALED_RECORDS`]
    /// records (found before any is copied).
    #[error(
        "scaling to {to} processors would make {records} records from {from}, more than the limit of {}; scale to a smaller machine, lower the adjustment or duplicate fewer jobs",
        MAX_SCALED_RECORDS
    )]
    TooManyRecords {
        /// Records given.
        from: u64,
        /// The target machine's processors.
        to: u64,
        /// Records the scaling would make (saturating at `u64::MAX`).
        records: u64,
    },
    /// A new job number does not fit in 64 bits.
    #[error("job numbers run out of 64 bits while numbering the copies of job {job_number}")]
    JobNumberOverflow {
        /// The job being duplicated.
        job_number: u64,
    },
}

/// The workload scaled to a larger machine, and what was done (see the
/// module docs for the method).
///
/// ```
/// use schedsim_sim_core::{MachineScaling, scale_machine};
/// use workload_format::read_from;
///
/// let swf = "\
/// 1 0 0 100 8 -1 -1 8 200 -1 1 7 1 -1 1 -1 -1 -1
/// 2 5 0 50 16 -1 -1 16 60 -1 1 9 1 -1 1 -1 -1 -1
/// ";
/// let records = read_from(swf.as_bytes(), "tiny.swf", &Default::default())?.records;
/// // From 16 to 64 processors: factor 4. Fraction 1: every job is duplicated.
/// let scaling = MachineScaling::new(16, 64).with_duplicate_fraction(1.0);
/// let (scaled, report) = scale_machine(&records, &scaling)?;
/// assert_eq!((report.records_in, report.records_out), (2, 8));
/// // Copies keep the user (field 12) and get numbers after the largest, 2.
/// assert_eq!(scaled[1].job_number, 3);
/// assert_eq!(scaled[1].user_id, Some(7));
/// // Fraction 0: every job is enlarged, 8 -> 32 and 16 -> 64 processors.
/// let scaling = MachineScaling::new(16, 64).with_duplicate_fraction(0.0);
/// let (scaled, _) = scale_machine(&records, &scaling)?;
/// assert_eq!(scaled[1].requested_processors, Some(64));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Bad settings (source 0 or above the target, adjustment below 1 or not
/// finite, duplicated fraction outside [0, 1]) or job numbers beyond 64 bits.
pub fn scale_machine(
    records: &[Record],
    scaling: &MachineScaling,
) -> Result<(Vec<Record>, ScaleReport), ScaleError> {
    scaling.check()?;
    let factor = scaling.factor();
    let mut report = ScaleReport {
        scaling: *scaling,
        exact_factor: scaling.exact_factor(),
        factor,
        records_in: records.len() as u64,
        records_out: 0,
        enlarged: 0,
        capped: 0,
        duplicated: 0,
        copies_added: 0,
        unchanged: 0,
        work_in: total_work(records),
        work_out: 0,
    };
    if scaling.target_procs == scaling.source_procs {
        report.records_out = report.records_in;
        report.unchanged = report.records_in;
        report.work_out = report.work_in;
        return Ok((records.to_vec(), report));
    }

    let whole = factor.floor();
    let fraction = factor - whole;
    let duplicated = duplicated_jobs(records, scaling);
    // Each record's copies come from its own stream, so they are counted
    // here exactly, before anything is allocated.
    let copies_of = |index: usize| {
        let extra_copy = unit(&mut job_stream(scaling.seed, index as u64)) < fraction;
        (whole as u64).saturating_add(u64::from(extra_copy))
    };
    let records_out = (0..records.len())
        .filter(|&index| duplicated[index])
        .fold(records.len() as u64, |total, index| {
            total.saturating_add(copies_of(index) - 1)
        });
    if records_out > MAX_SCALED_RECORDS {
        return Err(ScaleError::TooManyRecords {
            from: records.len() as u64,
            to: scaling.target_procs,
            records: records_out,
        });
    }
    let mut next_number = records.iter().map(|r| r.job_number).max().unwrap_or(0);
    let mut out = Vec::with_capacity(records_out as usize);
    for (index, record) in records.iter().enumerate() {
        if scalable_size(record).is_none() {
            report.unchanged += 1;
            out.push(record.clone());
            continue;
        }
        if duplicated[index] {
            let copies = copies_of(index);
            report.duplicated += 1;
            report.copies_added += copies - 1;
            out.push(record.clone());
            for _ in 1..copies {
                next_number = next_number
                    .checked_add(1)
                    .ok_or(ScaleError::JobNumberOverflow {
                        job_number: record.job_number,
                    })?;
                let mut copy = record.clone();
                copy.job_number = next_number;
                out.push(copy);
            }
        } else {
            report.enlarged += 1;
            let mut enlarged = record.clone();
            let mut capped = false;
            for field in [
                &mut enlarged.allocated_processors,
                &mut enlarged.requested_processors,
            ] {
                if let Some(size) = field.filter(|&s| s > 0) {
                    let scaled = (size as f64 * factor).round() as u64;
                    capped |= scaled > scaling.target_procs;
                    *field = Some(scaled.min(scaling.target_procs));
                }
            }
            report.capped += u64::from(capped);
            out.push(enlarged);
        }
    }
    report.records_out = out.len() as u64;
    report.work_out = total_work(&out);
    Ok((out, report))
}

/// The most records [`scale_machine`] makes: ten million, as many as
/// `--load` may add ([`MAX_LOAD_PICKS`](crate::MAX_LOAD_PICKS)); a larger
/// request (a tiny trace scaled to a huge machine) is refused before any
/// record is copied.
pub const MAX_SCALED_RECORDS: u64 = 10_000_000;

/// Whether each record is duplicated: the first round(p n) scalable
/// records of a seeded Fisher-Yates permutation.
fn duplicated_jobs(records: &[Record], scaling: &MachineScaling) -> Vec<bool> {
    let mut scalable: Vec<usize> = (0..records.len())
        .filter(|&i| scalable_size(&records[i]).is_some())
        .collect();
    let count = scaling.duplicated_count(scalable.len());
    let mut rng = job_stream(scaling.seed, u64::MAX);
    // Fisher-Yates from the front: the prefix is drawn first, so a larger p
    // extends the same prefix.
    for i in 0..count {
        let j = i + below(&mut rng, (scalable.len() - i) as u64) as usize;
        scalable.swap(i, j);
    }
    let mut duplicated = vec![false; records.len()];
    for &index in &scalable[..count] {
        duplicated[index] = true;
    }
    duplicated
}

/// A uniform draw in `0..n` (n >= 1), multiply-high (bias below n / 2^64).
fn below(rng: &mut Pcg64, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// The size of a record that can be scaled: a submission with a known run
/// time and a size (requested processors if known and positive, else
/// allocated), the workspace's convention.
fn scalable_size(record: &Record) -> Option<u64> {
    let command = record
        .cwf
        .is_some_and(|c| c.request_type != RequestType::Submit);
    if command || record.run_time.is_none() {
        return None;
    }
    record
        .requested_processors
        .filter(|&p| p > 0)
        .or(record.allocated_processors.filter(|&p| p > 0))
}

fn total_work(records: &[Record]) -> u128 {
    records
        .iter()
        .filter_map(|r| Some(u128::from(scalable_size(r)?) * u128::from(r.run_time?)))
        .sum()
}

/// SplitMix64's finaliser.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The draws of record `index` (`u64::MAX`: the permutation choosing the
/// duplicated jobs). The constants are part of the output's definition:
/// never change them.
fn job_stream(seed: u64, index: u64) -> Pcg64 {
    let h = mix64(mix64(seed ^ 0x5ca1_e0f0_0000_0001) ^ index);
    let state = (u128::from(mix64(h ^ 0x0123_4567_89ab_cdef)) << 64) | u128::from(mix64(h ^ 1));
    let increment = (u128::from(mix64(h ^ 2)) << 64) | u128::from(mix64(h ^ 3));
    Pcg64::new(state, increment)
}

/// A uniform draw in [0, 1) with 53 random bits.
fn unit(rng: &mut Pcg64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use workload_format::{CwfFields, JobStatus};

    /// A submitted job: `size` processors (allocated and requested), run
    /// time 100, user `user`.
    fn job(number: u64, submit: u64, size: u64, user: u64) -> Record {
        Record {
            job_number: number,
            submit_time: Some(submit),
            wait_time: None,
            run_time: Some(100),
            allocated_processors: Some(size),
            average_cpu_time: None,
            used_memory: None,
            requested_processors: Some(size),
            requested_time: Some(200),
            requested_memory: None,
            status: Some(JobStatus::Completed),
            user_id: Some(user),
            group_id: Some(1),
            executable_number: None,
            queue_number: None,
            partition_number: None,
            preceding_job_number: Some(number.saturating_sub(1)),
            think_time: None,
            cwf: None,
        }
    }

    fn workload(n: u64) -> Vec<Record> {
        (0..n)
            .map(|i| job(10 + i, i * 7, 1 + i % 4, i % 5))
            .collect()
    }

    #[test]
    fn duplicates_are_copies_with_new_numbers() {
        // 16 -> 64 processors: F = 4, all jobs duplicated: 4 records each.
        let records = [job(5, 0, 2, 7), job(9, 3, 16, 8)];
        let scaling = MachineScaling::new(16, 64).with_duplicate_fraction(1.0);
        let (scaled, report) = scale_machine(&records, &scaling).unwrap();
        let numbers: Vec<u64> = scaled.iter().map(|r| r.job_number).collect();
        // Copies follow their original, numbered after the largest (9).
        assert_eq!(numbers, [5, 10, 11, 12, 9, 13, 14, 15]);
        for copy in &scaled[1..4] {
            let mut renumbered = copy.clone();
            renumbered.job_number = 5;
            assert_eq!(renumbered, records[0]);
        }
        assert_eq!(
            (report.duplicated, report.copies_added, report.enlarged),
            (2, 6, 0)
        );
        // Work: (2 + 16) * 100 = 1800 before, 4 times that after.
        assert_eq!((report.work_in, report.work_out), (1800, 7200));
    }

    #[test]
    fn enlarged_jobs_are_rounded_and_capped() {
        // 4 -> 10 processors: F = 2.5. Size 1 -> 2.5 -> 3 (halves up),
        // 3 -> 7.5 -> 8, 4 -> 10.
        let records = [job(1, 0, 1, 1), job(2, 0, 3, 1), job(3, 0, 4, 1)];
        let scaling = MachineScaling::new(4, 10).with_duplicate_fraction(0.0);
        let (scaled, report) = scale_machine(&records, &scaling).unwrap();
        let sizes: Vec<_> = scaled
            .iter()
            .map(|r| (r.allocated_processors, r.requested_processors, r.run_time))
            .collect();
        assert_eq!(
            sizes,
            [
                (Some(3), Some(3), Some(100)),
                (Some(8), Some(8), Some(100)),
                (Some(10), Some(10), Some(100))
            ]
        );
        assert_eq!((report.enlarged, report.capped), (3, 0));
        // Adjustment 1.2: F = 3; 4 -> 12, capped at 10.
        let (scaled, report) = scale_machine(&records, &scaling.with_adjustment(1.2)).unwrap();
        assert_eq!(scaled[2].requested_processors, Some(10));
        assert_eq!(report.capped, 1);
    }

    #[test]
    fn extra_copies_average_the_fraction() {
        // 4 -> 10: F = 2.5, every job duplicated into 2 or 3 records, 3 with
        // probability 0.5. 2,000 jobs: 5,000 records expected, sd
        // sqrt(2000 / 4) = 22; the bound 100 is 4.5 sd.
        let records = workload(2000);
        let scaling = MachineScaling::new(4, 10).with_duplicate_fraction(1.0);
        let (scaled, _) = scale_machine(&records, &scaling).unwrap();
        assert!(scaled.len().abs_diff(5000) < 100, "{}", scaled.len());
    }

    #[test]
    fn the_duplicated_fraction_is_exact() {
        // 1,001 jobs, p = 0.3: round(300.3) = 300 duplicated, for any seed.
        let records = workload(1001);
        for seed in 0..5 {
            let scaling = MachineScaling::new(10, 40)
                .with_duplicate_fraction(0.3)
                .with_seed(seed);
            let (_, report) = scale_machine(&records, &scaling).unwrap();
            assert_eq!((report.duplicated, report.enlarged), (300, 701));
            // F = 4 is whole: exactly 3 copies added per duplicated job.
            assert_eq!(report.copies_added, 900);
        }
    }

    #[test]
    fn seeded_and_monotone_in_the_factor() {
        let records = workload(300);
        let scaling = MachineScaling::new(8, 20).with_seed(3);
        let (a, _) = scale_machine(&records, &scaling).unwrap();
        assert_eq!(a, scale_machine(&records, &scaling).unwrap().0);
        assert_ne!(a, scale_machine(&records, &scaling.with_seed(4)).unwrap().0);
        // Raising the adjustment never removes a copy nor shrinks a job:
        // every job's records are a superset, each at least as large.
        let per_job = |scaled: &[Record]| {
            let mut sizes = vec![Vec::new(); records.len()];
            let mut owner = 0;
            for record in scaled {
                if let Some(i) = records
                    .iter()
                    .position(|r| r.job_number == record.job_number)
                {
                    owner = i;
                }
                sizes[owner].push(record.requested_processors.unwrap());
            }
            sizes
        };
        let mut previous = per_job(&a);
        for adjustment in [1.1, 1.3, 1.6] {
            let (scaled, _) =
                scale_machine(&records, &scaling.with_adjustment(adjustment)).unwrap();
            let current = per_job(&scaled);
            for (before, after) in previous.iter().zip(&current) {
                assert!(after.len() >= before.len());
                assert!(after[0] >= before[0]);
            }
            previous = current;
        }
    }

    #[test]
    fn a_scaling_past_the_record_limit_is_refused_before_copying() {
        // 10 records, 1 -> 2,000,000 processors, all duplicated: F = 2e6,
        // so 10 x 2,000,000 = 20,000,000 records, twice the limit.
        let records = workload(10);
        let scaling = MachineScaling::new(1, 2_000_000).with_duplicate_fraction(1.0);
        assert_eq!(
            scale_machine(&records, &scaling).unwrap_err().to_string(),
            "scaling to 2000000 processors would make 20000000 records from 10, more than the \
             limit of 10000000; scale to a smaller machine, lower the adjustment or duplicate \
             fewer jobs"
        );
        // Half of them duplicated: 5 x 2,000,000 + 5 = 10,000,005, just over.
        let half = scaling.with_duplicate_fraction(0.5);
        assert!(matches!(
            scale_machine(&records, &half),
            Err(ScaleError::TooManyRecords {
                records: 10_000_005,
                ..
            })
        ));
        // 1 -> 1,000,000 with one job in ten duplicated: 1 x 1e6 + 9 records.
        let (scaled, report) = scale_machine(
            &records,
            &MachineScaling::new(1, 1_000_000).with_duplicate_fraction(0.1),
        )
        .unwrap();
        assert_eq!((scaled.len(), report.records_out), (1_000_009, 1_000_009));
    }

    #[test]
    fn same_machine_and_unscalable_records_are_unchanged() {
        let records = workload(20);
        let scaling = MachineScaling::new(64, 64).with_adjustment(1.5);
        let (scaled, report) = scale_machine(&records, &scaling).unwrap();
        assert_eq!(
            (scaled, report.factor, report.unchanged),
            (records, 1.0, 20)
        );

        let mut no_size = job(1, 0, 0, 1);
        no_size.requested_processors = None;
        let mut no_runtime = job(2, 0, 4, 1);
        no_runtime.run_time = None;
        let mut command = job(1, 50, 4, 1);
        command.cwf = Some(CwfFields {
            requested_start_time: None,
            request_type: RequestType::ExtendTime,
            amount: Some(60),
        });
        let records = [no_size, no_runtime, command];
        let (scaled, report) = scale_machine(&records, &MachineScaling::new(4, 16)).unwrap();
        assert_eq!(scaled, records);
        assert_eq!(report.unchanged, 3);
    }

    #[test]
    fn adjustment_for_a_job_count_by_hand() {
        // 100 scalable jobs + 1 without size; p = 0.5: 50 duplicated.
        // Target 601 records: 601 = 101 + 50 (F - 1)  =>  F = 11; from 10 to
        // 100 processors (f = 10) the adjustment is 1.1.
        let mut records = workload(100);
        let mut no_size = job(1, 0, 0, 1);
        no_size.requested_processors = None;
        records.push(no_size);
        let scaling = MachineScaling::new(10, 100);
        let adjustment = scaling.adjustment_for_jobs(&records, 601).unwrap();
        assert!((adjustment - 1.1).abs() < 1e-12);
        // F = 11 is whole: exactly 601 records.
        let (scaled, _) = scale_machine(&records, &scaling.with_adjustment(adjustment)).unwrap();
        assert_eq!(scaled.len(), 601);
        assert!(matches!(
            scaling.adjustment_for_jobs(&records, 50),
            Err(ScaleError::UnreachableJobCount { .. })
        ));
        assert_eq!(
            MachineScaling::new(10, 10).adjustment_for_jobs(&records, 601),
            Err(ScaleError::NothingToAdjust)
        );
    }

    #[test]
    fn calibration_finds_the_adjustment_of_a_target() {
        // Behaviour = the record count, which grows with the adjustment.
        // 200 jobs, 100 duplicated, 10 -> 20 processors: records = 200 +
        // 100 (F - 1) on average. Target 400: F = 3, adjustment 1.5.
        let records = workload(200);
        let scaling = MachineScaling::new(10, 20);
        let count = |scaled: &[Record]| Ok(scaled.len() as f64);
        let calibration = calibrate_adjustment(&records, &scaling, 400.0, 2.0, 12, count).unwrap();
        assert!(calibration.bracketed);
        assert!(
            (calibration.adjustment - 1.5).abs() < 0.02,
            "{calibration:?}"
        );
        assert!((calibration.behaviour - 400.0).abs() <= 5.0);
        // 2 ends + 12 halvings.
        assert_eq!(calibration.trials.len(), 14);
        // A target beyond reach: the nearer end, not bracketed.
        let calibration = calibrate_adjustment(&records, &scaling, 1e6, 2.0, 12, count).unwrap();
        assert_eq!(
            (calibration.bracketed, calibration.adjustment),
            (false, 2.0)
        );
        // A failing measurement names the adjustment.
        let error = calibrate_adjustment(&records, &scaling, 400.0, 2.0, 3, |_| {
            Err("no simulation".into())
        })
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "measuring the scaled workload's behaviour at adjustment 1 failed"
        );
    }

    #[test]
    fn bad_settings_are_errors() {
        let records = workload(3);
        let error = |scaling: MachineScaling| scale_machine(&records, &scaling).unwrap_err();
        assert_eq!(
            error(MachineScaling::new(64, 32)).to_string(),
            "cannot scale a machine of 64 processors to 32: the target must be at least the source, and the source at least 1"
        );
        assert_eq!(
            error(MachineScaling::new(0, 32)),
            ScaleError::BadMachines { from: 0, to: 32 }
        );
        assert_eq!(
            error(MachineScaling::new(8, 32).with_adjustment(0.9)),
            ScaleError::BadAdjustment(0.9)
        );
        assert_eq!(
            error(MachineScaling::new(8, 32).with_duplicate_fraction(1.5)).to_string(),
            "the fraction of duplicated jobs must be in [0, 1], not 1.5"
        );
        let mut last = job(u64::MAX, 0, 1, 1);
        last.preceding_job_number = None;
        let scaling = MachineScaling::new(1, 4).with_duplicate_fraction(1.0);
        assert_eq!(
            scale_machine(&[last], &scaling).unwrap_err(),
            ScaleError::JobNumberOverflow {
                job_number: u64::MAX
            }
        );
    }
}

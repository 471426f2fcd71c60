use serde::{Deserialize, Serialize};

use crate::summary::{
    CompletedJob, MetricsConfig, MetricsError, RunMetrics, check_job_on, check_settings,
    check_time, measured_jobs, summarize,
};

/// How late dedicated jobs started (jobs that ask to start at a given time,
/// CWF field 19): the delay of a job is `max(0, start - requested start)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DedicatedDelay {
    /// Dedicated jobs measured (after warm-up and drain).
    pub jobs: u64,
    /// Jobs that started after their requested start.
    pub delayed: u64,
    /// Jobs that started before their requested start: only a policy that
    /// ignores requested starts (one that runs dedicated jobs as batch
    /// jobs) does that. Their delay counts as 0.
    pub early: u64,
    /// Mean delay over all measured dedicated jobs, seconds (on-time jobs
    /// count as 0).
    pub mean: f64,
    /// Mean delay over the delayed jobs only, seconds; `None` if none was.
    pub mean_of_delayed: Option<f64>,
    /// Largest delay, seconds.
    pub max: i64,
}

/// Metrics of a heterogeneous run: batch and dedicated jobs apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitMetrics {
    /// The batch jobs' metrics; `None` if there are none.
    pub batch: Option<RunMetrics>,
    /// The dedicated jobs' metrics; `None` if there are none.
    pub dedicated: Option<RunMetrics>,
    /// How late the dedicated jobs started; `None` if there are none.
    pub delay: Option<DedicatedDelay>,
}

/// Splits a run into its batch jobs (no requested start) and its dedicated
/// jobs (`requested_starts[i]` is `Some`) and summarizes each part as
/// [`summarize`] does, with these differences: utilization is the part's
/// share of the whole machine over the whole run's makespan (so the parts'
/// utilizations add up to the run's), and the makespan is the whole run's;
/// warm-up and drain exclude the first and last fractions of each part (in
/// submit order). The dedicated jobs' [`DedicatedDelay`] covers the same
/// measured dedicated jobs.
///
/// ```
/// use schedsim_metrics::{CompletedJob, MetricsConfig, summarize_split};
///
/// // A 4-processor machine. A batch job runs 0..10; a dedicated job asked
/// // to start at 5 and started at 10, 5 s late.
/// let jobs = [
///     CompletedJob::new(0, 0, 10, 4),
///     CompletedJob::new(1, 10, 20, 2),
/// ];
/// let split = summarize_split(&jobs, &[None, Some(5)], &MetricsConfig::new(4))?;
/// let delay = split.delay.unwrap();
/// assert_eq!((delay.delayed, delay.mean, delay.max), (1, 5.0, 5));
/// // Utilization shares of the 20 s x 4 processors: 40 / 80 and 20 / 80.
/// assert_eq!(split.batch.unwrap().utilization, 0.5);
/// assert_eq!(split.dedicated.unwrap().utilization, 0.25);
/// # Ok::<(), schedsim_metrics::MetricsError>(())
/// ```
///
/// # Errors
/// As [`summarize`], and [`MetricsError::LengthMismatch`] if the two slices
/// differ in length.
pub fn summarize_split(
    jobs: &[CompletedJob],
    requested_starts: &[Option<i64>],
    config: &MetricsConfig,
) -> Result<SplitMetrics, MetricsError> {
    if jobs.len() != requested_starts.len() {
        return Err(MetricsError::LengthMismatch {
            jobs: jobs.len(),
            requested_starts: requested_starts.len(),
        });
    }
    if config.machine_procs == 0 {
        return Err(MetricsError::NoProcessors);
    }
    check_settings(config.tau, config.warmup, config.drain)?;
    for (index, (job, requested)) in jobs.iter().zip(requested_starts).enumerate() {
        check_job_on(index, job, config.machine_procs)?;
        if let Some(requested) = *requested {
            check_time(index, "requested start", requested)?;
        }
    }
    let first_submit = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last_finish = jobs.iter().map(|j| j.finish).max().unwrap_or(0);
    let makespan = last_finish - first_submit;
    let part = |dedicated: bool| -> Result<Option<RunMetrics>, MetricsError> {
        let members: Vec<CompletedJob> = jobs
            .iter()
            .zip(requested_starts)
            .filter(|(_, requested)| requested.is_some() == dedicated)
            .map(|(job, _)| *job)
            .collect();
        if members.is_empty() {
            return Ok(None);
        }
        let mut metrics = summarize(&members, config)?;
        let area: f64 = members
            .iter()
            .map(|job| f64::from(job.procs) * job.runtime() as f64)
            .sum();
        metrics.makespan = makespan;
        metrics.utilization = if makespan > 0 {
            area / (makespan as f64 * f64::from(config.machine_procs))
        } else {
            0.0
        };
        Ok(Some(metrics))
    };
    let dedicated: Vec<(CompletedJob, i64)> = jobs
        .iter()
        .zip(requested_starts)
        .filter_map(|(job, requested)| requested.map(|r| (*job, r)))
        .collect();
    Ok(SplitMetrics {
        batch: part(false)?,
        dedicated: part(true)?,
        delay: dedicated_delay(&dedicated, config.warmup, config.drain),
    })
}

/// The delay summary of `(job, requested start)` pairs, over the measured
/// ones; `None` if there are none.
fn dedicated_delay(
    jobs: &[(CompletedJob, i64)],
    warmup: f64,
    drain: f64,
) -> Option<DedicatedDelay> {
    let plain: Vec<CompletedJob> = jobs.iter().map(|(job, _)| *job).collect();
    let measured = measured_jobs(plain.as_slice(), warmup, drain);
    if measured.is_empty() {
        return None;
    }
    let (mut delayed, mut early, mut total, mut max) = (0u64, 0u64, 0i128, 0i64);
    for &index in &measured {
        let (job, requested) = jobs[index];
        let lateness = job.start - requested;
        if lateness > 0 {
            delayed += 1;
            // Each lateness is below 2^62, but their sum need not be.
            total += i128::from(lateness);
            max = max.max(lateness);
        } else if lateness < 0 {
            early += 1;
        }
    }
    Some(DedicatedDelay {
        jobs: measured.len() as u64,
        delayed,
        early,
        mean: total as f64 / measured.len() as f64,
        mean_of_delayed: (delayed > 0).then(|| total as f64 / delayed as f64),
        max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: i64, start: i64, finish: i64, procs: u32) -> CompletedJob {
        CompletedJob::new(submit, start, finish, procs)
    }

    #[test]
    fn delays_by_hand() {
        // Dedicated jobs requested at 10, 20, 30, 40: started at 10 (on
        // time), 25 (5 late), 45 (15 late) and 35 (5 early: a batch-only
        // policy). Delays 0, 5, 15, 0: mean 20 / 4 = 5; of the delayed, 20 /
        // 2 = 10; max 15. A batch job (no request) is not counted.
        let jobs = [
            job(0, 10, 20, 1),
            job(0, 25, 30, 1),
            job(0, 45, 50, 1),
            job(0, 35, 40, 1),
            job(0, 0, 100, 1),
        ];
        let requested = [Some(10), Some(20), Some(30), Some(40), None];
        let split = summarize_split(&jobs, &requested, &MetricsConfig::new(4)).unwrap();
        assert_eq!(
            split.delay,
            Some(DedicatedDelay {
                jobs: 4,
                delayed: 2,
                early: 1,
                mean: 5.0,
                mean_of_delayed: Some(10.0),
                max: 15,
            })
        );
        // Batch: one job of 100 s on 1 of 4 processors over the run's
        // makespan 100: 0.25. Dedicated: 10 + 5 + 5 + 5 = 25 processor-s:
        // 25 / 400.
        assert_eq!(split.batch.as_ref().unwrap().utilization, 0.25);
        assert_eq!(split.dedicated.as_ref().unwrap().utilization, 25.0 / 400.0);
        assert_eq!(split.dedicated.as_ref().unwrap().makespan, 100);
        // Dedicated waits 10, 25, 45, 35: mean 28.75.
        assert_eq!(split.dedicated.unwrap().wait.unwrap().mean, 28.75);
    }

    #[test]
    fn warmup_applies_to_each_part_and_empty_parts_are_none() {
        // Four dedicated jobs submitted at 0, 1, 2, 3; a warm-up of 0.25
        // leaves out the first (submitted at 0), 20 s late; the others are
        // on time.
        let jobs = [
            job(0, 30, 31, 1),
            job(1, 11, 12, 1),
            job(2, 12, 13, 1),
            job(3, 13, 14, 1),
        ];
        let requested = [Some(10), Some(11), Some(12), Some(13)];
        let mut config = MetricsConfig::new(2);
        config.warmup = 0.25;
        let split = summarize_split(&jobs, &requested, &config).unwrap();
        let delay = split.delay.unwrap();
        assert_eq!((delay.jobs, delay.delayed, delay.max), (3, 0, 0));
        assert_eq!(delay.mean_of_delayed, None);
        assert!(split.batch.is_none());
        assert_eq!(
            summarize_split(&jobs, &requested[..3], &config).unwrap_err(),
            MetricsError::LengthMismatch {
                jobs: 4,
                requested_starts: 3
            }
        );
    }
}

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::summary::{
    CompletedJob, MetricsError, check_job, check_settings, job_metrics, measured_jobs,
};

/// How to compare two runs of the same workload.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareConfig {
    /// Confidence level of the intervals, in (0, 1); default 0.90 as in the
    /// LOS thesis.
    pub level: f64,
    /// Number of batches for the batch-means method; default 30.
    pub batches: u32,
    /// The bounded-slowdown threshold tau, seconds (default 10).
    pub tau: i64,
    /// Fraction of the first jobs (submit order) left out, in [0, 1).
    pub warmup: f64,
    /// Fraction of the last jobs left out, in [0, 1).
    pub drain: f64,
}

impl Default for CompareConfig {
    fn default() -> Self {
        Self {
            level: 0.90,
            batches: 30,
            tau: 10,
            warmup: 0.0,
            drain: 0.0,
        }
    }
}

/// The mean per-job difference of one metric with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Differential {
    /// Mean of the per-job differences (A - B) over the batched jobs.
    pub mean: f64,
    /// Half-width of the confidence interval; `None` with fewer than 2
    /// batches.
    pub half_width: Option<f64>,
    /// Lower end of the interval.
    pub low: Option<f64>,
    /// Upper end of the interval.
    pub high: Option<f64>,
}

/// The per-job differential comparison of run A against run B.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Jobs compared (after warm-up and drain).
    pub jobs: u64,
    /// Batches used.
    pub batches: u32,
    /// Jobs per batch: the smaller batches' size when `jobs` is not a
    /// multiple of `batches` (see `larger_batches`).
    pub batch_size: u64,
    /// Batches of `batch_size + 1` jobs: the first `jobs mod batches`
    /// batches take one job more, so that every measured job is in a
    /// batch.
    #[serde(default)]
    pub larger_batches: u32,
    /// Confidence level.
    pub level: f64,
    /// Response time, A - B, seconds: positive means B is faster.
    pub response: Differential,
    /// Wait time, A - B, seconds.
    pub wait: Differential,
    /// Bounded slowdown, A - B.
    pub bounded_slowdown: Differential,
}

/// Compares two runs of the same workload job by job, with the "common
/// random numbers" technique of the LOS thesis (section 4.2): for every job
/// the difference of its response time (wait, bounded slowdown) under A and
/// under B, then a confidence interval on the mean difference by batch
/// means.
///
/// Batch means: the measured jobs, in submit order, are cut into `b =
/// batches` consecutive batches; no job is left out. With `n = m * b + r`
/// jobs (`r < b`), the first `r` batches hold `m + 1` jobs and the others
/// `m`; with fewer jobs than batches, every job is its own batch. The
/// estimate is the mean of all `n` differences, `y`; the batch means `y_i`
/// (of `n_i` jobs) are treated as independent normal samples, and the
/// interval is y +- t(b-1, (1+level)/2) * sqrt(v), with the variance of
/// the mean of unequal batches (the ratio estimator of cluster sampling)
/// v = sum((n_i / (n / b))^2 * (y_i - y)^2) / (b * (b - 1)). When `b`
/// divides `n` this is the textbook s^2 / b, s the sample standard
/// deviation of the batch means. Batches of consecutive jobs absorb most
/// of the autocorrelation between neighbouring jobs; 30 batches is the
/// usual choice (Law and Kelton).
///
/// # Errors
/// Runs of different workloads (lengths, submit times or sizes differ),
/// bad settings, or inconsistent jobs (as [`crate::summarize`] checks them,
/// times in `0..=`[`TIME_LIMIT`](crate::TIME_LIMIT) included).
pub fn compare(
    a: &[CompletedJob],
    b: &[CompletedJob],
    config: &CompareConfig,
) -> Result<Comparison, MetricsError> {
    if !(config.level > 0.0 && config.level < 1.0) || config.batches == 0 {
        return Err(MetricsError::BadComparison {
            level: config.level,
            batches: config.batches,
        });
    }
    check_settings(config.tau, config.warmup, config.drain)?;
    if a.len() != b.len() {
        return Err(MetricsError::DifferentWorkloads {
            index: a.len().min(b.len()),
        });
    }
    for (index, (x, y)) in a.iter().zip(b).enumerate() {
        if x.submit != y.submit || x.procs != y.procs {
            return Err(MetricsError::DifferentWorkloads { index });
        }
        check_job(index, x)?;
        check_job(index, y)?;
    }
    let measured = measured_jobs(a, config.warmup, config.drain);

    let n = measured.len();
    let batches = n.min(config.batches as usize);
    // No batches only without jobs.
    let batch_size = n.checked_div(batches).unwrap_or(0);
    let larger = n.checked_rem(batches).unwrap_or(0);
    // The first `larger` batches take one job more: every job counts.
    let lengths: Vec<usize> = (0..batches)
        .map(|index| batch_size + usize::from(index < larger))
        .collect();
    let differences = |metric: fn(&CompletedJob, i64) -> f64| -> Vec<f64> {
        measured
            .iter()
            .map(|&i| metric(&a[i], config.tau) - metric(&b[i], config.tau))
            .collect()
    };
    let response = |job: &CompletedJob, tau| job_metrics(job, tau).response as f64;
    let wait = |job: &CompletedJob, tau| job_metrics(job, tau).wait as f64;
    let bsld = |job: &CompletedJob, tau| job_metrics(job, tau).bounded_slowdown;
    Ok(Comparison {
        jobs: n as u64,
        batches: batches as u32,
        batch_size: batch_size as u64,
        larger_batches: larger as u32,
        level: config.level,
        response: batch_means(&differences(response), &lengths, config.level),
        wait: batch_means(&differences(wait), &lengths, config.level),
        bounded_slowdown: batch_means(&differences(bsld), &lengths, config.level),
    })
}

/// Mean and confidence interval of `values` cut into consecutive batches
/// of the given `lengths` (which sum to values.len()).
fn batch_means(values: &[f64], lengths: &[usize], level: f64) -> Differential {
    if values.is_empty() {
        return Differential {
            mean: 0.0,
            half_width: None,
            low: None,
            high: None,
        };
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let mut rest = values;
    let means: Vec<(f64, f64)> = lengths
        .iter()
        .map(|&length| {
            let (batch, after) = rest.split_at(length.min(rest.len()));
            rest = after;
            let size = batch.len() as f64;
            (size, batch.iter().sum::<f64>() / size.max(1.0))
        })
        .collect();
    if means.len() < 2 {
        return Differential {
            mean,
            half_width: None,
            low: None,
            high: None,
        };
    }
    let b = means.len() as f64;
    let average_size = n / b;
    let variance = means
        .iter()
        .map(|&(size, m)| (size / average_size).powi(2) * (m - mean).powi(2))
        .sum::<f64>()
        / (b * (b - 1.0));
    let t = StudentsT::new(0.0, 1.0, b - 1.0)
        .map(|dist| dist.inverse_cdf((1.0 + level) / 2.0))
        .unwrap_or(f64::NAN);
    let half = t * variance.sqrt();
    Differential {
        mean,
        half_width: Some(half),
        low: Some(mean - half),
        high: Some(mean + half),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: i64, start: i64, finish: i64) -> CompletedJob {
        CompletedJob::new(submit, start, finish, 1)
    }

    #[test]
    fn batch_means_by_hand() {
        // Six jobs, all submitted at their index, run 1 s. Under A they wait
        // 1..=6 s, under B not at all: response differences 1, 2, ..., 6.
        let a: Vec<CompletedJob> = (0..6).map(|i| job(i, i + i + 1, i + i + 2)).collect();
        let b: Vec<CompletedJob> = (0..6).map(|i| job(i, i, i + 1)).collect();
        let config = CompareConfig {
            batches: 3,
            ..CompareConfig::default()
        };
        let c = compare(&a, &b, &config).unwrap();
        assert_eq!((c.jobs, c.batches, c.batch_size), (6, 3, 2));
        // Batch means (1+2)/2 = 1.5, 3.5, 5.5; mean 3.5; sample variance
        // ((-2)^2 + 0 + 2^2) / 2 = 4, s = 2. t(2 df, 0.95) = 2.919986;
        // half-width = 2.919986 * 2 / sqrt(3) = 3.371710.
        assert!((c.response.mean - 3.5).abs() < 1e-12);
        let half = c.response.half_width.unwrap();
        assert!((half - 3.371_710).abs() < 1e-5, "{half}");
        assert!((c.response.low.unwrap() - (3.5 - half)).abs() < 1e-12);
        // Same differences for wait.
        assert!((c.wait.mean - 3.5).abs() < 1e-12);
        // Bounded slowdown, tau 10: A's responses 2..=7 over max(1, 10) give
        // 0.2..0.7, all raised to 1; B's are 1: differences all 0.
        assert_eq!(c.bounded_slowdown.mean, 0.0);
        assert_eq!(c.bounded_slowdown.half_width, Some(0.0));
    }

    #[test]
    fn leftover_jobs_are_spread_over_the_batches_and_level_matters() {
        // 7 jobs, 3 batches: m = 2, r = 1: batches of 3, 2 and 2 jobs; none
        // is left out. Response differences 1..=7 (A waits i + 1 s, B not).
        let a: Vec<CompletedJob> = (0..7).map(|i| job(i, i + i + 1, i + i + 2)).collect();
        let b: Vec<CompletedJob> = (0..7).map(|i| job(i, i, i + 1)).collect();
        let at = |level| {
            compare(
                &a,
                &b,
                &CompareConfig {
                    batches: 3,
                    level,
                    ..CompareConfig::default()
                },
            )
            .unwrap()
        };
        let c90 = at(0.90);
        assert_eq!(
            (c90.jobs, c90.batches, c90.batch_size, c90.larger_batches),
            (7, 3, 2, 1)
        );
        // Mean of all 7: 28 / 7 = 4 (dropping job 7 would give 3.5).
        assert!((c90.response.mean - 4.0).abs() < 1e-12);
        // Batch means 2, 4.5, 6.5; average size 7/3; weights (n_i / (7/3))^2
        // = 81/49, 36/49, 36/49; deviations from 4: -2, 0.5, 2.5.
        // v = (81*4 + 36*0.25 + 36*6.25) / 49 / (3 * 2) = 558 / 294
        // = 1.897959, sqrt 1.377664; t(2 df, 0.95) = 2.919986: half-width
        // 4.022761.
        let half = c90.response.half_width.unwrap();
        assert!((half - 4.022_761).abs() < 1e-5, "{half}");
        // A 95% interval is wider: t(2 df, 0.975) = 4.302653: 5.927612.
        let c95 = at(0.95);
        let half = c95.response.half_width.unwrap();
        assert!((half - 5.927_612).abs() < 1e-5, "{half}");
    }

    #[test]
    fn the_last_jobs_count() {
        // 176 jobs, 30 batches (the adversarial case): 176 = 5 * 30 + 26,
        // so 26 batches of 6 (jobs 0..=155) and 4 of 5. Only jobs 169 and
        // 170 (indices 168, 169, in batch 29 of 5 jobs, 166..=170) differ,
        // by 100 s each: the mean is
        // 200 / 176 = 1.136364, not 0 as when the last 26 jobs were
        // dropped.
        let b: Vec<CompletedJob> = (0..176).map(|i| job(i, i, i + 1)).collect();
        let mut a = b.clone();
        for i in [168, 169] {
            a[i] = job(i as i64, i as i64 + 100, i as i64 + 101);
        }
        let c = compare(&a, &b, &CompareConfig::default()).unwrap();
        assert_eq!(
            (c.jobs, c.batches, c.batch_size, c.larger_batches),
            (176, 30, 5, 26)
        );
        assert!((c.response.mean - 200.0 / 176.0).abs() < 1e-12);
        // Batch 29 (5 jobs, 2 of them +100) has mean 40; the 29 others 0.
        // Average size 176/30; a batch of 5 weighs (5 / (176/30))^2 =
        // (150/176)^2 = 0.726369, one of 6 (180/176)^2 = 1.045971.
        // v = (0.726369 * (40 - 1.136364)^2 + 3 * 0.726369 * 1.136364^2 +
        // 26 * 1.045971 * 1.136364^2) / (30 * 29).
        let small = (150.0f64 / 176.0).powi(2);
        let large = (180.0f64 / 176.0).powi(2);
        let mean: f64 = 200.0 / 176.0;
        let v = (small * (40.0 - mean).powi(2)
            + 3.0 * small * mean * mean
            + 26.0 * large * mean * mean)
            / (30.0 * 29.0);
        // t(29 df, 0.95) = 1.699127.
        let expected = 1.699_127 * v.sqrt();
        let half = c.response.half_width.unwrap();
        assert!((half - expected).abs() < 1e-5, "{half} vs {expected}");
        // The interval is not [0, 0]: the difference is seen.
        assert!(c.response.high.unwrap() > 0.0);
    }

    #[test]
    fn different_workloads_are_refused() {
        let a = [job(0, 0, 1), job(1, 1, 2)];
        let b = [job(0, 0, 1), job(2, 2, 3)];
        assert_eq!(
            compare(&a, &b, &CompareConfig::default()).unwrap_err(),
            MetricsError::DifferentWorkloads { index: 1 }
        );
        assert!(compare(&a, &a[..1], &CompareConfig::default()).is_err());
    }
}

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
    /// Jobs per batch.
    pub batch_size: u64,
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
/// Batch means: the measured jobs, in submit order, are cut into
/// `batches` consecutive batches of `m = floor(n / batches)` jobs (the last
/// `n mod batches` jobs are left out so all batches are equal); with fewer
/// jobs than batches, every job is its own batch. The batch means are
/// treated as independent normal samples: the interval is mean +- t(b-1,
/// (1+level)/2) * s / sqrt(b), s the sample standard deviation of the b
/// batch means. Batches of consecutive jobs absorb most of the
/// autocorrelation between neighbouring jobs; 30 batches is the usual
/// choice (Law and Kelton).
///
/// # Errors
/// Runs of different workloads (lengths, submit times or sizes differ),
/// bad settings, or inconsistent jobs.
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
    let (batches, batch_size) = if n < config.batches as usize {
        (n, 1)
    } else {
        (config.batches as usize, n / config.batches as usize)
    };
    let differences = |metric: fn(&CompletedJob, i64) -> f64| -> Vec<f64> {
        measured
            .iter()
            .take(batches * batch_size)
            .map(|&i| metric(&a[i], config.tau) - metric(&b[i], config.tau))
            .collect()
    };
    let response = |job: &CompletedJob, tau| job_metrics(job, tau).response as f64;
    let wait = |job: &CompletedJob, tau| job_metrics(job, tau).wait as f64;
    let bsld = |job: &CompletedJob, tau| job_metrics(job, tau).bounded_slowdown;
    Ok(Comparison {
        jobs: (batches * batch_size) as u64,
        batches: batches as u32,
        batch_size: batch_size as u64,
        level: config.level,
        response: batch_means(&differences(response), batch_size, config.level),
        wait: batch_means(&differences(wait), batch_size, config.level),
        bounded_slowdown: batch_means(&differences(bsld), batch_size, config.level),
    })
}

/// Mean and confidence interval of `values` cut into batches of
/// `batch_size` (values.len() is a multiple of it).
fn batch_means(values: &[f64], batch_size: usize, level: f64) -> Differential {
    if values.is_empty() {
        return Differential {
            mean: 0.0,
            half_width: None,
            low: None,
            high: None,
        };
    }
    let means: Vec<f64> = values
        .chunks(batch_size)
        .map(|batch| batch.iter().sum::<f64>() / batch.len() as f64)
        .collect();
    let b = means.len() as f64;
    let mean = means.iter().sum::<f64>() / b;
    if means.len() < 2 {
        return Differential {
            mean,
            half_width: None,
            low: None,
            high: None,
        };
    }
    let variance = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (b - 1.0);
    let t = StudentsT::new(0.0, 1.0, b - 1.0)
        .map(|dist| dist.inverse_cdf((1.0 + level) / 2.0))
        .unwrap_or(f64::NAN);
    let half = t * (variance / b).sqrt();
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
    fn leftover_jobs_are_left_out_and_level_matters() {
        // 7 jobs, 3 batches: m = 2, the 7th job is left out.
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
        assert_eq!(c90.jobs, 6);
        assert!((c90.response.mean - 3.5).abs() < 1e-12);
        // A 95% interval is wider: t(2 df, 0.975) = 4.302653.
        let c95 = at(0.95);
        assert!((c95.response.half_width.unwrap() - 4.302_653 * 2.0 / 3f64.sqrt()).abs() < 1e-5);
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

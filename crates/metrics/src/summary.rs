use serde::{Deserialize, Serialize};

/// The latest time, in seconds, that the metrics accept (2^62 s): every
/// submit, start and finish time of a [`CompletedJob`], and every requested
/// start of [`crate::summarize_split`], must be in `0..=TIME_LIMIT`, else
/// the computation fails with [`MetricsError::TimeOutOfRange`].
///
/// It is the bound of the simulator (`schedsim_sim_core::TIME_LIMIT`),
/// kept here as its own constant so that this crate depends on no other
/// schedsim crate. Within it, the difference of two times (a wait, a
/// response, a makespan) cannot overflow an `i64`.
pub const TIME_LIMIT: i64 = 1 << 62;

/// A job as it ran: the only input the metrics need.
///
/// Built with [`CompletedJob::new`]; the optional data (time spent
/// suspended, the user and group, the local time of the submission) are
/// set with the `with_*` methods. Jobs that never ran (rejected by an
/// admission policy) are not completed jobs: report them apart.
///
/// ```
/// use schedsim_metrics::CompletedJob;
/// // Submitted at 0, first started at 10, ended at 100 after 30 s
/// // suspended: it held its processors for 100 - 10 - 30 = 60 s.
/// let job = CompletedJob::new(0, 10, 100, 4).with_suspended(30, 1).with_user(7);
/// assert_eq!(job.runtime(), 60);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletedJob {
    /// Submit time, seconds.
    pub submit: i64,
    /// (First) start time, seconds.
    pub start: i64,
    /// Finish time, seconds.
    pub finish: i64,
    /// Processors it occupied.
    pub procs: u32,
    /// Wall time between start and finish during which it was suspended
    /// and held no processors, seconds.
    pub suspended: i64,
    /// Times it was suspended.
    pub suspensions: u32,
    /// The user (SWF field 12), if known.
    pub user: Option<u32>,
    /// The group (SWF field 13), if known.
    pub group: Option<u32>,
    /// Local day of week (1 = Monday .. 7 = Sunday) and hour (0-23) of the
    /// submission, if the workload has a calendar.
    pub local_submit: Option<(u8, u8)>,
    /// Its runtime as the workload records it (its work, without the switch
    /// overheads a suspended job's [`runtime`](Self::runtime) includes), if
    /// known: what [`RunMetrics::runtime_classes`] classifies by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<i64>,
}

impl CompletedJob {
    /// A job submitted at `submit` that ran from `start` to `finish` on
    /// `procs` processors, never suspended, with no user or calendar data.
    pub fn new(submit: i64, start: i64, finish: i64, procs: u32) -> Self {
        Self {
            submit,
            start,
            finish,
            procs,
            suspended: 0,
            suspensions: 0,
            user: None,
            group: None,
            local_submit: None,
            work: None,
        }
    }

    /// The same job with its recorded runtime (see [`work`](Self::work)).
    pub fn with_work(mut self, work: i64) -> Self {
        self.work = Some(work);
        self
    }

    /// The same job, suspended `suspensions` times for `suspended` seconds
    /// in all.
    pub fn with_suspended(mut self, suspended: i64, suspensions: u32) -> Self {
        self.suspended = suspended;
        self.suspensions = suspensions;
        self
    }

    /// The same job with a user.
    pub fn with_user(mut self, user: u32) -> Self {
        self.user = Some(user);
        self
    }

    /// The same job with a group.
    pub fn with_group(mut self, group: u32) -> Self {
        self.group = Some(group);
        self
    }

    /// The same job with the local day of week (1 = Monday .. 7 = Sunday)
    /// and hour of its submission.
    pub fn with_local_submit(mut self, weekday: u8, hour: u8) -> Self {
        self.local_submit = Some((weekday, hour));
        self
    }

    /// Time it held its processors: finish - start - suspended (for a job
    /// suspended and resumed, this includes the switch overheads).
    ///
    /// Exact for times in `0..=`[`TIME_LIMIT`], which the metrics check;
    /// beyond, the result saturates at the `i64` bounds instead of
    /// overflowing.
    pub fn runtime(&self) -> i64 {
        self.finish
            .saturating_sub(self.start)
            .saturating_sub(self.suspended)
    }
}

/// How to compute the run metrics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MetricsConfig {
    /// Processors in the machine (N).
    pub machine_procs: u32,
    /// The bounded-slowdown threshold tau, seconds (default 10, as in the
    /// LOS thesis).
    pub tau: i64,
    /// Fraction of the first jobs (submit order) left out of per-job
    /// statistics, in [0, 1).
    pub warmup: f64,
    /// Fraction of the last jobs left out of per-job statistics, in [0, 1).
    pub drain: f64,
    /// The bounds of [`RunMetrics::runtime_classes`].
    #[serde(default)]
    pub runtime_classes: ClassBounds,
}

/// The runtime classes of [`RunMetrics::runtime_classes`]: short below
/// `short_below` seconds, medium below `medium_below`, long from there
/// (SCOJO-PECT's classes; by default 10 minutes and 3 hours, as its
/// `short-below` and `medium-below` options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClassBounds {
    /// Short jobs run less than this, seconds.
    pub short_below: i64,
    /// Medium jobs less than this, seconds.
    pub medium_below: i64,
}

impl ClassBounds {
    /// Short below `short_below`, medium below `medium_below` seconds.
    pub fn new(short_below: i64, medium_below: i64) -> Self {
        Self {
            short_below,
            medium_below,
        }
    }

    fn index(&self, runtime: i64) -> usize {
        if runtime < self.short_below {
            0
        } else if runtime < self.medium_below {
            1
        } else {
            2
        }
    }
}

impl Default for ClassBounds {
    fn default() -> Self {
        Self::new(600, 3 * 3600)
    }
}

impl MetricsConfig {
    /// Defaults for a machine of `machine_procs` processors: tau = 10 s, no
    /// warm-up or drain exclusion.
    pub fn new(machine_procs: u32) -> Self {
        Self {
            machine_procs,
            tau: 10,
            warmup: 0.0,
            drain: 0.0,
            runtime_classes: ClassBounds::default(),
        }
    }
}

/// Why metrics could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// The machine has no processors.
    #[error("the machine has no processors")]
    NoProcessors,
    /// tau must be at least 1 s.
    #[error("the bounded-slowdown threshold tau must be at least 1 s, not {0}")]
    BadTau(i64),
    /// The warm-up and drain fractions must be in [0, 1) and leave jobs.
    #[error(
        "warm-up {warmup:?} and drain {drain:?} must be fractions in [0, 1) that add up to less than 1"
    )]
    BadExclusion {
        /// The warm-up fraction.
        warmup: f64,
        /// The drain fraction.
        drain: f64,
    },
    /// The two runs compared are not of the same workload.
    #[error(
        "the runs are not of the same workload: job {index} differs in submit time or size, or one run has fewer jobs"
    )]
    DifferentWorkloads {
        /// The first job that differs.
        index: usize,
    },
    /// The confidence level or batch count is unusable.
    #[error("confidence level {level} must be in (0, 1) and batches ({batches}) at least 1")]
    BadComparison {
        /// The level asked for.
        level: f64,
        /// The batch count asked for.
        batches: u32,
    },
    /// The jobs and their requested starts ([`crate::summarize_split`])
    /// differ in number.
    #[error("{jobs} jobs but {requested_starts} requested start times")]
    LengthMismatch {
        /// Jobs given.
        jobs: usize,
        /// Requested starts given.
        requested_starts: usize,
    },
    /// A job starts before it is submitted or finishes before it starts.
    #[error("job {index} has inconsistent times: submit {submit}, start {start}, finish {finish}")]
    InconsistentJob {
        /// Its position in the input.
        index: usize,
        /// Submit time.
        submit: i64,
        /// Start time.
        start: i64,
        /// Finish time.
        finish: i64,
    },
    /// A time of a job is outside `0..=`[`TIME_LIMIT`].
    #[error("job {index} has {field} time {value} s, outside 0..=2^62 s")]
    TimeOutOfRange {
        /// The job's position in the input.
        index: usize,
        /// Which time: `submit`, `start`, `finish` or `requested start`.
        field: &'static str,
        /// The value given.
        value: i64,
    },
    /// A job occupied more processors than the machine has.
    #[error("job {index} occupied {procs} processors, more than the machine's {machine_procs}")]
    JobTooWide {
        /// The job's position in the input.
        index: usize,
        /// Processors it occupied.
        procs: u32,
        /// Processors in the machine.
        machine_procs: u32,
    },
    /// A job's suspended time is negative or exceeds its span from start
    /// to finish.
    #[error(
        "job {index} was suspended for {suspended} s, which is not within its span of {span} s from start to finish"
    )]
    BadSuspension {
        /// The job's position in the input.
        index: usize,
        /// Its suspended time, seconds.
        suspended: i64,
        /// finish - start, seconds.
        span: i64,
    },
}

/// The metrics of one job.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JobMetrics {
    /// start - submit.
    pub wait: i64,
    /// finish - submit.
    pub response: i64,
    /// response / max(runtime, 1).
    pub slowdown: f64,
    /// max(response / max(runtime, tau), 1).
    pub bounded_slowdown: f64,
}

/// The metrics of one job with bounded-slowdown threshold `tau`.
///
/// Exact for a job whose times are in `0..=`[`TIME_LIMIT`] (which
/// [`summarize`] checks and this function does not: it cannot fail);
/// beyond, differences saturate at the `i64` bounds.
pub fn job_metrics(job: &CompletedJob, tau: i64) -> JobMetrics {
    let response = job.finish.saturating_sub(job.submit);
    let runtime = job.runtime();
    JobMetrics {
        wait: job.start.saturating_sub(job.submit),
        response,
        slowdown: response as f64 / runtime.max(1) as f64,
        bounded_slowdown: (response as f64 / runtime.max(tau) as f64).max(1.0),
    }
}

/// Mean, median, 95th percentile and maximum of a set of values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Arithmetic mean.
    pub mean: f64,
    /// 50th percentile (nearest rank).
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Maximum.
    pub max: f64,
}

impl Summary {
    /// Summarizes `values` (reordered in place); `None` if empty.
    fn of(values: &mut [f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        crate::radix::sort_f64(values);
        let percentile = |p: f64| {
            let rank = (p * values.len() as f64).ceil() as usize;
            values[rank.clamp(1, values.len()) - 1]
        };
        Some(Self {
            mean: values.iter().sum::<f64>() / values.len() as f64,
            median: percentile(0.5),
            p95: percentile(0.95),
            max: values[values.len() - 1],
        })
    }
}

/// Runtime classes of the breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeClass {
    /// Under 10 minutes.
    Short,
    /// From 10 minutes to under 3 hours.
    Medium,
    /// 3 hours or more.
    Long,
}

impl RuntimeClass {
    /// The class of a runtime in seconds.
    pub fn of(runtime: i64) -> Self {
        if runtime < 600 {
            Self::Short
        } else if runtime < 3 * 3600 {
            Self::Medium
        } else {
            Self::Long
        }
    }
}

/// Size classes of the breakdown, relative to the machine size N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeClass {
    /// Under 10% of N.
    Narrow,
    /// From 10% to under 50% of N.
    Medium,
    /// 50% of N or more.
    Wide,
}

impl SizeClass {
    /// The class of a job of `procs` processors on a machine of `machine`.
    pub fn of(procs: u32, machine: u32) -> Self {
        // Integer comparisons: procs / machine < 0.1  <=>  10 procs < machine.
        let (procs, machine) = (u64::from(procs), u64::from(machine));
        if 10 * procs < machine {
            Self::Narrow
        } else if 2 * procs < machine {
            Self::Medium
        } else {
            Self::Wide
        }
    }
}

/// Statistics of one runtime x size class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassStats {
    /// Runtime class.
    pub runtime: RuntimeClass,
    /// Size class.
    pub size: SizeClass,
    /// Jobs in the class.
    pub jobs: u64,
    /// Mean wait, seconds.
    pub mean_wait: f64,
    /// Mean response time, seconds.
    pub mean_response: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
}

/// Statistics of the measured jobs of one runtime class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RuntimeClassStats {
    /// Jobs in the class.
    pub jobs: u64,
    /// Their share of the measured jobs.
    pub job_share: f64,
    /// Their share of the measured jobs' work (processors x recorded
    /// runtime).
    pub work_share: f64,
    /// Mean size, processors.
    pub mean_size: f64,
    /// Mean wait, seconds.
    pub mean_wait: f64,
    /// Mean response time, seconds.
    pub mean_response: f64,
    /// Mean bounded slowdown, max(response / max(runtime, tau), 1) with
    /// the recorded runtime ([`CompletedJob::work`], else the time it held
    /// its processors), as SCOJO-PECT's thesis defines it (section 5.1.5,
    /// unrounded).
    pub mean_bounded_slowdown: f64,
}

/// [`RuntimeClassStats`] of the short, medium and long jobs (`None`: no
/// measured job in the class).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RuntimeClasses {
    /// Short jobs.
    pub short: Option<RuntimeClassStats>,
    /// Medium jobs.
    pub medium: Option<RuntimeClassStats>,
    /// Long jobs.
    pub long: Option<RuntimeClassStats>,
}

/// The runtime-class breakdown of the measured jobs.
fn runtime_classes(
    jobs: impl Iterator<Item = CompletedJob>,
    bounds: &ClassBounds,
    tau: i64,
) -> RuntimeClasses {
    #[derive(Default, Clone, Copy)]
    struct Sum {
        jobs: u64,
        work: f64,
        size: f64,
        wait: f64,
        response: f64,
        bsld: f64,
    }
    let mut sums = [Sum::default(); 3];
    let mut total_work = 0.0;
    let mut count: usize = 0;
    for job in jobs {
        count += 1;
        let work = job.work.unwrap_or_else(|| job.runtime());
        let area = f64::from(job.procs) * work as f64;
        total_work += area;
        let sum = &mut sums[bounds.index(work)];
        let response = (job.finish - job.submit) as f64;
        sum.jobs += 1;
        sum.work += area;
        sum.size += f64::from(job.procs);
        sum.wait += (job.start - job.submit) as f64;
        sum.response += response;
        sum.bsld += (response / work.max(tau) as f64).max(1.0);
    }
    let total = count as f64;
    let stats = |s: Sum| {
        (s.jobs > 0).then(|| {
            let n = s.jobs as f64;
            RuntimeClassStats {
                jobs: s.jobs,
                job_share: n / total,
                work_share: if total_work > 0.0 {
                    s.work / total_work
                } else {
                    0.0
                },
                mean_size: s.size / n,
                mean_wait: s.wait / n,
                mean_response: s.response / n,
                mean_bounded_slowdown: s.bsld / n,
            }
        })
    };
    RuntimeClasses {
        short: stats(sums[0]),
        medium: stats(sums[1]),
        long: stats(sums[2]),
    }
}

/// Queue length over time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct QueueLength {
    /// Time-weighted mean over [first submit, last finish].
    pub mean: f64,
    /// Maximum.
    pub max: u64,
    /// Mean over scheduling steps: the instants with an arrival or a
    /// termination, each counted once, the length measured after the
    /// step's starts (the LOS thesis' Figs. 4.12-4.15 record it per
    /// step). Long idle or busy stretches weigh one step each, unlike
    /// [`mean`](Self::mean).
    pub per_step_mean: f64,
}

/// The metrics of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunMetrics {
    /// Jobs in the run.
    pub jobs: u64,
    /// Jobs in the per-job statistics (after warm-up and drain).
    pub measured_jobs: u64,
    /// Wait times, seconds.
    pub wait: Option<Summary>,
    /// Response times, seconds.
    pub response: Option<Summary>,
    /// Slowdowns.
    pub slowdown: Option<Summary>,
    /// Bounded slowdowns.
    pub bounded_slowdown: Option<Summary>,
    /// (mean wait + mean runtime) / mean runtime, as Kumar et al. define
    /// slowdown; `None` if no measured job ran for any time.
    pub mean_based_slowdown: Option<f64>,
    /// Average weighted response time, seconds; `None` if no measured job
    /// consumed any processor time.
    pub awrt: Option<f64>,
    /// Utilization, in [0, 1].
    pub utilization: f64,
    /// Last finish - first submit, seconds.
    pub makespan: i64,
    /// Offered load; `None` if all jobs were submitted at one instant.
    pub offered_load: Option<f64>,
    /// Queue length over time.
    pub queue_length: QueueLength,
    /// Breakdown by runtime x size class (classes with jobs only, in
    /// runtime then size order).
    pub classes: Vec<ClassStats>,
    /// Breakdown by runtime class alone, with the configured bounds
    /// ([`MetricsConfig::runtime_classes`]) and the jobs' recorded
    /// runtimes ([`CompletedJob::work`], else their runtime).
    #[serde(default)]
    pub runtime_classes: RuntimeClasses,
    /// Suspensions of the measured jobs; `None` if none was suspended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspension: Option<SuspensionStats>,
}

/// How much the measured jobs were suspended (time-sharing policies).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SuspensionStats {
    /// Jobs suspended at least once.
    pub jobs: u64,
    /// Suspensions in all.
    pub suspensions: u64,
    /// Time the suspended jobs spent suspended, seconds.
    pub suspended_time: Summary,
}

/// Completed jobs read one at a time by index: a slice of
/// [`CompletedJob`]s, or a table that builds each job on demand from a
/// simulator's own per-job data, so that the metrics of millions of jobs
/// need no copy of them ([`summarize_table`]).
pub trait CompletedJobTable {
    /// How many jobs.
    fn len(&self) -> usize;
    /// Job `index` (`index < len()`).
    fn job(&self, index: usize) -> CompletedJob;
    /// The submit time of job `index`, as [`job`](Self::job) gives it:
    /// the metrics read submit times in many passes, and a table that
    /// builds its jobs can answer this one cheaper.
    fn submit(&self, index: usize) -> i64 {
        self.job(index).submit
    }
    /// Whether there are no jobs.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl CompletedJobTable for [CompletedJob] {
    fn len(&self) -> usize {
        <[CompletedJob]>::len(self)
    }

    fn job(&self, index: usize) -> CompletedJob {
        self[index]
    }
}

/// From `SIDE_BY_SIDE.start` jobs and below its end, [`summarize_table`]
/// computes the queue length on a second thread while it sorts the per-job
/// lists: below, a thread costs more than it saves; above, both sets of
/// sort buffers at once would raise a long run's peak memory.
const SIDE_BY_SIDE: std::ops::Range<usize> = 20_000..1_000_000;

/// Computes the metrics of a run (definitions in the crate docs).
///
/// # Errors
/// A machine without processors, tau below 1, bad warm-up/drain fractions,
/// a job with a time outside `0..=`[`TIME_LIMIT`]
/// ([`MetricsError::TimeOutOfRange`]), one wider than the machine
/// ([`MetricsError::JobTooWide`]), one that starts before its submission
/// or ends before its start ([`MetricsError::InconsistentJob`]), or one
/// suspended longer than it lasted ([`MetricsError::BadSuspension`]).
pub fn summarize(
    jobs: &[CompletedJob],
    config: &MetricsConfig,
) -> Result<RunMetrics, MetricsError> {
    summarize_table(jobs, config)
}

/// [`summarize`] over jobs read one at a time (the same metrics, bit for
/// bit, as over a slice of the same jobs). The table is read several times
/// in index order and in submit order; it should be cheap to read. On long
/// runs (20,000 jobs to a million), two of those passes run on a second
/// thread: hence `Sync`.
///
/// # Errors
/// As [`summarize`].
pub fn summarize_table<T: CompletedJobTable + Sync + ?Sized>(
    jobs: &T,
    config: &MetricsConfig,
) -> Result<RunMetrics, MetricsError> {
    summarize_threaded(jobs, config, SIDE_BY_SIDE.contains(&jobs.len()))
}

/// [`summarize_table`], with the queue length on a second thread if
/// `side_by_side`.
fn summarize_threaded<T: CompletedJobTable + Sync + ?Sized>(
    jobs: &T,
    config: &MetricsConfig,
    side_by_side: bool,
) -> Result<RunMetrics, MetricsError> {
    let all = || (0..jobs.len()).map(|index| jobs.job(index));
    if config.machine_procs == 0 {
        return Err(MetricsError::NoProcessors);
    }
    check_settings(config.tau, config.warmup, config.drain)?;
    let n = config.machine_procs;
    let area = |job: &CompletedJob| f64::from(job.procs) * job.runtime() as f64;
    // One pass over all jobs (the area summed in index order, as ever).
    let mut total_area = 0.0;
    let (mut first_submit, mut last_submit, mut last_finish) = (i64::MAX, i64::MIN, i64::MIN);
    for (index, job) in all().enumerate() {
        check_job_on(index, &job, n)?;
        total_area += area(&job);
        first_submit = first_submit.min(job.submit);
        last_submit = last_submit.max(job.submit);
        last_finish = last_finish.max(job.finish);
    }
    if jobs.is_empty() {
        (first_submit, last_submit, last_finish) = (0, 0, 0);
    }
    let makespan = last_finish - first_submit;
    let utilization = if makespan > 0 {
        total_area / (makespan as f64 * f64::from(n))
    } else {
        0.0
    };
    let span = last_submit - first_submit;
    let offered_load = (span > 0).then(|| total_area / (f64::from(n) * span as f64));

    // Per-job statistics over the measured jobs, in submit order. A job's
    // metrics are recomputed in each pass rather than stored (cheap, and
    // the same values in the same order); a list per metric, one at a time.
    let lists = || {
        let measured = measured_jobs(jobs, config.warmup, config.drain);
        let values = |f: &dyn Fn(&JobMetrics) -> f64| {
            let mut v: Vec<f64> = measured
                .iter()
                .map(|&i| f(&job_metrics(&jobs.job(i), config.tau)))
                .collect();
            Summary::of(&mut v)
        };
        let lists = (
            values(&|m| m.wait as f64),
            values(&|m| m.response as f64),
            values(&|m| m.slowdown),
            values(&|m| m.bounded_slowdown),
        );
        (measured, lists)
    };
    // The queue length and the lists are independent: side by side on two
    // threads (see SIDE_BY_SIDE), else the queue length first, so that its
    // sort buffers never coexist with the measured jobs' ones (a run of
    // millions of jobs holds one list at the peak).
    let (queue_length, (measured, (wait, response, slowdown, bounded_slowdown))) = if side_by_side {
        std::thread::scope(|scope| {
            let queue = scope.spawn(|| queue_length(jobs, first_submit, last_finish));
            let lists = lists();
            let queue = queue
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (queue, lists)
        })
    } else {
        let queue = queue_length(jobs, first_submit, last_finish);
        (queue, lists())
    };

    // Then one pass over the measured jobs, in submit order, for the
    // sums: each adds its values in that order, as a pass of its own
    // would (the same values, bit for bit).
    let count = measured.len() as f64;
    let (mut runtime_sum, mut measured_area, mut weighted_response) = (0.0f64, 0.0f64, 0.0f64);
    let mut suspended_times: Vec<f64> = Vec::new();
    let mut suspensions = 0u64;
    // Each class's sums (runtime class x 3 + size class) add its members.
    let mut sums = [(0u64, 0.0f64, 0.0f64, 0.0f64); 9];
    for &i in &measured {
        let job = jobs.job(i);
        let m = job_metrics(&job, config.tau);
        runtime_sum += job.runtime() as f64;
        measured_area += area(&job);
        weighted_response += area(&job) * m.response as f64;
        if job.suspensions > 0 {
            suspended_times.push(job.suspended as f64);
        }
        suspensions += u64::from(job.suspensions);
        let runtime = match RuntimeClass::of(job.runtime()) {
            RuntimeClass::Short => 0,
            RuntimeClass::Medium => 1,
            RuntimeClass::Long => 2,
        };
        let size = match SizeClass::of(job.procs, n) {
            SizeClass::Narrow => 0,
            SizeClass::Medium => 1,
            SizeClass::Wide => 2,
        };
        let sum = &mut sums[runtime * 3 + size];
        sum.0 += 1;
        sum.1 += m.wait as f64;
        sum.2 += m.response as f64;
        sum.3 += m.bounded_slowdown;
    }

    let measured_jobs = || measured.iter().map(|&i| jobs.job(i));
    let mean_runtime = runtime_sum / count;
    let mean_based_slowdown =
        (mean_runtime > 0.0).then(|| (wait.map_or(0.0, |w| w.mean) + mean_runtime) / mean_runtime);
    let awrt = (measured_area > 0.0).then(|| weighted_response / measured_area);
    let suspension = Summary::of(&mut suspended_times).map(|suspended_time| SuspensionStats {
        jobs: suspended_times.len() as u64,
        suspensions,
        suspended_time,
    });

    let mut classes = Vec::new();
    for (r, runtime_class) in [
        RuntimeClass::Short,
        RuntimeClass::Medium,
        RuntimeClass::Long,
    ]
    .into_iter()
    .enumerate()
    {
        for (z, size_class) in [SizeClass::Narrow, SizeClass::Medium, SizeClass::Wide]
            .into_iter()
            .enumerate()
        {
            let (count, wait, response, bounded_slowdown) = sums[r * 3 + z];
            if count == 0 {
                continue;
            }
            let k = count as f64;
            classes.push(ClassStats {
                runtime: runtime_class,
                size: size_class,
                jobs: count,
                mean_wait: wait / k,
                mean_response: response / k,
                mean_bounded_slowdown: bounded_slowdown / k,
            });
        }
    }

    Ok(RunMetrics {
        jobs: jobs.len() as u64,
        measured_jobs: measured.len() as u64,
        wait,
        response,
        slowdown,
        bounded_slowdown,
        mean_based_slowdown,
        awrt,
        utilization,
        makespan,
        offered_load,
        queue_length,
        classes,
        runtime_classes: runtime_classes(measured_jobs(), &config.runtime_classes, config.tau),
        suspension,
    })
}

/// Checks tau (at least 1 s) and the warm-up and drain fractions (in
/// [0, 1), together below 1).
pub(crate) fn check_settings(tau: i64, warmup: f64, drain: f64) -> Result<(), MetricsError> {
    if tau < 1 {
        return Err(MetricsError::BadTau(tau));
    }
    let fraction_ok = |f: f64| (0.0..1.0).contains(&f);
    if !fraction_ok(warmup) || !fraction_ok(drain) || warmup + drain >= 1.0 {
        return Err(MetricsError::BadExclusion { warmup, drain });
    }
    Ok(())
}

/// A job's times must be in `0..=TIME_LIMIT` (so that the differences the
/// metrics take cannot overflow), and it must not start before its
/// submission, end before its start, or be suspended longer than it lasted.
pub(crate) fn check_job(index: usize, job: &CompletedJob) -> Result<(), MetricsError> {
    check_time(index, "submit", job.submit)?;
    check_time(index, "start", job.start)?;
    check_time(index, "finish", job.finish)?;
    if job.start < job.submit || job.finish < job.start {
        return Err(MetricsError::InconsistentJob {
            index,
            submit: job.submit,
            start: job.start,
            finish: job.finish,
        });
    }
    // Both times are in range and ordered: no overflow.
    let span = job.finish - job.start;
    if !(0..=span).contains(&job.suspended) {
        return Err(MetricsError::BadSuspension {
            index,
            suspended: job.suspended,
            span,
        });
    }
    Ok(())
}

/// [`check_job`], and the job must fit in a machine of `machine_procs`
/// processors (a wider one would push utilization past 1).
pub(crate) fn check_job_on(
    index: usize,
    job: &CompletedJob,
    machine_procs: u32,
) -> Result<(), MetricsError> {
    check_job(index, job)?;
    if job.procs > machine_procs {
        return Err(MetricsError::JobTooWide {
            index,
            procs: job.procs,
            machine_procs,
        });
    }
    Ok(())
}

/// A time of job `index` must be in `0..=TIME_LIMIT`.
pub(crate) fn check_time(
    index: usize,
    field: &'static str,
    value: i64,
) -> Result<(), MetricsError> {
    if (0..=TIME_LIMIT).contains(&value) {
        Ok(())
    } else {
        Err(MetricsError::TimeOutOfRange {
            index,
            field,
            value,
        })
    }
}

/// Indices of the jobs kept for per-job statistics, in submit order (ties
/// by index): all but the first `warmup` and last `drain` fractions.
pub(crate) fn measured_jobs<T: CompletedJobTable + ?Sized>(
    jobs: &T,
    warmup: f64,
    drain: f64,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    // Usually in submit order already (a simulator's arrival order).
    if !(0..jobs.len()).map(|i| jobs.submit(i)).is_sorted() {
        order.sort_by_key(|&i| (jobs.submit(i), i));
    }
    let skip_first = (warmup * jobs.len() as f64).floor() as usize;
    let skip_last = (drain * jobs.len() as f64).floor() as usize;
    order.truncate(jobs.len() - skip_last);
    order.drain(..skip_first);
    order
}

/// Time-weighted mean and maximum of the number of jobs submitted but not
/// yet started, over [from, to].
fn queue_length<T: CompletedJobTable + ?Sized>(jobs: &T, from: i64, to: i64) -> QueueLength {
    let all = || (0..jobs.len()).map(|index| jobs.job(index));
    // Submissions (+1) and starts (-1), each sorted, merged in time order.
    // Jobs usually come in submit order (a simulator's arrival order): then
    // their submit times are read in place, not copied (8 bytes a job less
    // at the metrics' peak).
    let in_order = (0..jobs.len()).map(|index| jobs.submit(index)).is_sorted();
    let mut copied: Vec<i64> = if in_order {
        Vec::new()
    } else {
        all().map(|j| j.submit).collect()
    };
    crate::radix::sort_i64(&mut copied);
    let submits = Submits {
        jobs,
        copied: &copied,
        in_order,
    };
    let mut starts: Vec<i64> = all().map(|j| j.start).collect();
    crate::radix::sort_i64(&mut starts);
    let (mut length, mut max, mut weighted) = (0i64, 0i64, 0f64);
    let (mut s, mut e) = (0, 0);
    let next_time = |s: usize, e: usize| match (submits.get(s), starts.get(e)) {
        (Some(a), Some(&b)) => Some(a.min(b)),
        (a, b) => a.or(b.copied()),
    };
    while let Some(time) = next_time(s, e) {
        // Apply every change of this instant before measuring.
        while submits.get(s) == Some(time) {
            length += 1;
            s += 1;
        }
        while starts.get(e) == Some(&time) {
            length -= 1;
            e += 1;
        }
        max = max.max(length);
        let next = next_time(s, e).unwrap_or(to);
        weighted += length as f64 * (next - time) as f64;
    }
    let per_step_mean = per_step_mean(jobs, submits, &starts);
    drop((copied, starts));
    let duration = to - from;
    QueueLength {
        mean: if duration > 0 {
            weighted / duration as f64
        } else {
            0.0
        },
        max: max as u64,
        per_step_mean,
    }
}

/// The jobs' submit times in sorted order: the jobs' own if they are in
/// submit order, else a sorted copy.
struct Submits<'a, T: CompletedJobTable + ?Sized> {
    jobs: &'a T,
    copied: &'a [i64],
    in_order: bool,
}

impl<T: CompletedJobTable + ?Sized> Clone for Submits<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: CompletedJobTable + ?Sized> Copy for Submits<'_, T> {}

impl<T: CompletedJobTable + ?Sized> Submits<'_, T> {
    fn get(&self, index: usize) -> Option<i64> {
        if self.in_order {
            (index < self.jobs.len()).then(|| self.jobs.submit(index))
        } else {
            self.copied.get(index).copied()
        }
    }

    fn len(&self) -> usize {
        if self.in_order {
            self.jobs.len()
        } else {
            self.copied.len()
        }
    }
}

/// The queue length after each scheduling step (each distinct arrival or
/// termination instant), averaged over the steps; `submits` and `starts`
/// are the jobs' submit and start times, sorted.
fn per_step_mean<T: CompletedJobTable + ?Sized>(
    jobs: &T,
    submits: Submits<'_, T>,
    starts: &[i64],
) -> f64 {
    let mut finishes: Vec<i64> = (0..jobs.len()).map(|i| jobs.job(i).finish).collect();
    crate::radix::sort_i64(&mut finishes);
    // The steps: the distinct values of submits and finishes, merged.
    let (mut a, mut b) = (0, 0);
    let mut next_step = || -> Option<i64> {
        let step = match (submits.get(a), finishes.get(b)) {
            (Some(x), Some(&y)) => x.min(y),
            (x, y) => x.or(y.copied())?,
        };
        while submits.get(a) == Some(step) {
            a += 1;
        }
        while finishes.get(b) == Some(&step) {
            b += 1;
        }
        Some(step)
    };
    let (mut submitted, mut started, mut total, mut steps) = (0usize, 0usize, 0u64, 0u64);
    while let Some(step) = next_step() {
        steps += 1;
        while submitted < submits.len() && submits.get(submitted).is_some_and(|t| t <= step) {
            submitted += 1;
        }
        while started < starts.len() && starts[started] <= step {
            started += 1;
        }
        total += (submitted - started) as u64;
    }
    if steps == 0 {
        return 0.0;
    }
    total as f64 / steps as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: i64, start: i64, finish: i64, procs: u32) -> CompletedJob {
        CompletedJob::new(submit, start, finish, procs)
    }

    #[test]
    fn thesis_table_1_1() {
        // LOS thesis, figure 1.2 / table 1.1: N = 5, four jobs arriving at 0.
        // j1: 3 procs 0..2, j2: 2 procs 0..4, j3: 4 procs 4..6, j4: 3 procs 6..8.
        let jobs = [
            job(0, 0, 2, 3),
            job(0, 0, 4, 2),
            job(0, 4, 6, 4),
            job(0, 6, 8, 3),
        ];
        let run = summarize(&jobs, &MetricsConfig::new(5)).unwrap();
        // Utilization = (3*2 + 2*4 + 4*2 + 3*2) / (8 * 5) = 28 / 40 = 0.70.
        assert!((run.utilization - 0.70).abs() < 1e-12);
        assert_eq!(run.makespan, 8);
        // Table 1.1: responses 2, 4, 6, 8; waits 0, 0, 4, 6; slowdowns 1, 1, 3, 4.
        let wait = run.wait.unwrap();
        assert_eq!(wait.mean, 2.5); // (0 + 0 + 4 + 6) / 4
        assert_eq!(wait.max, 6.0);
        // Nearest rank: median = rank ceil(0.5 * 4) = 2 -> 0; p95 = rank 4 -> 6.
        assert_eq!((wait.median, wait.p95), (0.0, 6.0));
        let slowdown = run.slowdown.unwrap();
        assert_eq!(slowdown.mean, 2.25); // (1 + 1 + 3 + 4) / 4
        // All submitted at once: no span, no offered load.
        assert_eq!(run.offered_load, None);
    }

    #[test]
    fn bounded_slowdown_and_awrt_by_hand() {
        // tau = 10. Job A: runtime 2, response 32 -> 32 / max(2, 10) = 3.2.
        // Job B: runtime 100, response 100 -> max(1, 1) = 1.
        // Job C: runtime 5, response 5 -> 5 / 10 = 0.5, bounded below by 1.
        let jobs = [job(0, 30, 32, 1), job(10, 10, 110, 4), job(20, 20, 25, 2)];
        let run = summarize(&jobs, &MetricsConfig::new(8)).unwrap();
        let bsld = run.bounded_slowdown.unwrap();
        assert!((bsld.mean - (3.2 + 1.0 + 1.0) / 3.0).abs() < 1e-12);
        assert_eq!(bsld.max, 3.2);
        // AWRT: areas 1*2 = 2, 4*100 = 400, 2*5 = 10; responses 32, 100, 5.
        // (2*32 + 400*100 + 10*5) / (2 + 400 + 10) = 40114 / 412.
        assert!((run.awrt.unwrap() - 40114.0 / 412.0).abs() < 1e-9);
        // Offered load: area 412 / (8 procs * span (20 - 0)) = 2.575.
        assert!((run.offered_load.unwrap() - 412.0 / 160.0).abs() < 1e-12);
        // Mean-based slowdown: mean wait (30 + 0 + 0) / 3 = 10, mean runtime
        // (2 + 100 + 5) / 3 = 35.67: (10 + 35.67) / 35.67 = 137 / 107.
        assert!((run.mean_based_slowdown.unwrap() - 137.0 / 107.0).abs() < 1e-12);
    }

    #[test]
    fn side_by_side_threads_give_the_same_metrics() {
        // 30,000 jobs (inside SIDE_BY_SIDE), out of submit order, with
        // waits, runtimes and sizes from a linear congruential sequence.
        let mut seed = 1u64;
        let mut next = |bound: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % bound
        };
        let jobs: Vec<CompletedJob> = (0..30_000)
            .map(|_| {
                let submit = next(10_000_000) as i64;
                let start = submit + next(50_000) as i64;
                let finish = start + 1 + next(200_000) as i64;
                job(submit, start, finish, 1 + next(128) as u32)
            })
            .collect();
        assert!(SIDE_BY_SIDE.contains(&jobs.len()));
        let config = MetricsConfig::new(128);
        let threaded = summarize_threaded(jobs.as_slice(), &config, true).unwrap();
        let alone = summarize_threaded(jobs.as_slice(), &config, false).unwrap();
        // Debug prints every float exactly: the same text, the same bits.
        assert_eq!(format!("{threaded:?}"), format!("{alone:?}"));
        assert_eq!(
            format!("{:?}", summarize(&jobs, &config).unwrap()),
            format!("{alone:?}")
        );
    }

    #[test]
    fn queue_length_is_time_weighted() {
        // Job A waits 0..10, job B waits 5..10, job C arrives and starts at 10
        // (never counted). Queue: 1 on [0,5), 2 on [5,10), 0 on [10,20].
        // Mean over [0, 20] = (1*5 + 2*5) / 20 = 0.75; max 2.
        let jobs = [job(0, 10, 20, 1), job(5, 10, 20, 1), job(10, 10, 11, 1)];
        let run = summarize(&jobs, &MetricsConfig::new(4)).unwrap();
        assert_eq!((run.queue_length.mean, run.queue_length.max), (0.75, 2));
        // Steps (arrivals and terminations): 0, 5, 10, 11, 20. Waiting after
        // each: 1, 2, 0, 0, 0: (1 + 2) / 5 = 0.6.
        assert_eq!(run.queue_length.per_step_mean, 0.6);
        // Out of submit order (the submit times are then copied and
        // sorted): the same queue.
        let reversed = [jobs[2], jobs[1], jobs[0]];
        let run = summarize(&reversed, &MetricsConfig::new(4)).unwrap();
        assert_eq!((run.queue_length.mean, run.queue_length.max), (0.75, 2));
        assert_eq!(run.queue_length.per_step_mean, 0.6);
    }

    #[test]
    fn classes_and_exclusions() {
        // N = 100. Short narrow (60 s, 5 procs), medium medium (1 h, 20),
        // long wide (5 h, 60).
        let jobs = [
            job(0, 0, 60, 5),
            job(1, 1, 3601, 20),
            job(2, 2, 2 + 5 * 3600, 60),
            job(3, 100, 160, 5),
        ];
        let run = summarize(&jobs, &MetricsConfig::new(100)).unwrap();
        let keys: Vec<(RuntimeClass, SizeClass, u64)> = run
            .classes
            .iter()
            .map(|c| (c.runtime, c.size, c.jobs))
            .collect();
        assert_eq!(
            keys,
            [
                (RuntimeClass::Short, SizeClass::Narrow, 2),
                (RuntimeClass::Medium, SizeClass::Medium, 1),
                (RuntimeClass::Long, SizeClass::Wide, 1),
            ]
        );
        // The two short narrow jobs waited 0 and 97: mean 48.5.
        assert_eq!(run.classes[0].mean_wait, 48.5);
        // Warm-up 0.25 of 4 jobs = 1 job, drain 0.25 = 1 job: jobs 2 and 3
        // (submitted at 1 and 2) remain, both with wait 0.
        let mut config = MetricsConfig::new(100);
        config.warmup = 0.25;
        config.drain = 0.25;
        let run = summarize(&jobs, &config).unwrap();
        assert_eq!(run.measured_jobs, 2);
        assert_eq!(run.wait.unwrap().max, 0.0);
        // Utilization still covers all four jobs.
        assert_eq!(run.jobs, 4);
    }

    #[test]
    fn bad_input_is_an_error() {
        let config = MetricsConfig::new(4);
        assert!(matches!(
            summarize(&[job(5, 4, 6, 1)], &config),
            Err(MetricsError::InconsistentJob { index: 0, .. })
        ));
        let mut bad = config;
        bad.warmup = 0.6;
        bad.drain = 0.4;
        assert!(matches!(
            summarize(&[], &bad),
            Err(MetricsError::BadExclusion { .. })
        ));
        bad = config;
        bad.tau = 0;
        assert_eq!(
            summarize(&[], &bad).unwrap_err().to_string(),
            "the bounded-slowdown threshold tau must be at least 1 s, not 0"
        );
    }

    #[test]
    fn times_outside_the_limit_are_an_error_naming_job_and_field() {
        let config = MetricsConfig::new(4);
        // i64::MIN as a submit time: the makespan last finish - first
        // submit = 10 - i64::MIN overflowed (a panic in debug, a negative
        // makespan of -9223372036854775798 in release).
        let error = summarize(&[job(i64::MIN, 0, 10, 1)], &config).unwrap_err();
        assert_eq!(
            error,
            MetricsError::TimeOutOfRange {
                index: 0,
                field: "submit",
                value: i64::MIN,
            }
        );
        assert_eq!(
            error.to_string(),
            "job 0 has submit time -9223372036854775808 s, outside 0..=2^62 s"
        );
        // Consistent times (submit = start <= finish) whose span 2^62 -
        // (-2^62) = 2^63 does not fit an i64: refused for the range, not
        // called inconsistent.
        let wide = [job(0, 0, 10, 1), job(-(1 << 62), -(1 << 62), 1 << 62, 1)];
        assert_eq!(
            summarize(&wide, &config).unwrap_err(),
            MetricsError::TimeOutOfRange {
                index: 1,
                field: "submit",
                value: -(1 << 62),
            }
        );
        let late = [job(0, 0, TIME_LIMIT + 1, 1)];
        assert!(matches!(
            summarize(&late, &config),
            Err(MetricsError::TimeOutOfRange {
                field: "finish",
                ..
            })
        ));
        // The limit itself is fine: one job on all 4 processors from 0 to
        // 2^62: makespan 2^62, utilization 4 x 2^62 / (2^62 x 4) = 1.
        let run = summarize(&[job(0, 0, TIME_LIMIT, 4)], &config).unwrap();
        assert_eq!((run.makespan, run.utilization), (TIME_LIMIT, 1.0));
        // compare checks the same range.
        let bad = [job(0, -1, 10, 1)];
        assert!(matches!(
            crate::compare(&bad, &bad, &crate::CompareConfig::default()),
            Err(MetricsError::TimeOutOfRange { field: "start", .. })
        ));
    }

    #[test]
    fn a_job_wider_than_the_machine_is_an_error() {
        // 9 processors on a machine of 4: it used to count 9 x 10 = 90
        // processor-seconds of the 10 x 4 = 40 available, utilization 2.25.
        let error = summarize(&[job(0, 0, 10, 9)], &MetricsConfig::new(4)).unwrap_err();
        assert_eq!(
            error,
            MetricsError::JobTooWide {
                index: 0,
                procs: 9,
                machine_procs: 4,
            }
        );
        assert_eq!(
            error.to_string(),
            "job 0 occupied 9 processors, more than the machine's 4"
        );
        // Exactly the machine is fine: 4 x 10 / (10 x 4) = 1.
        let run = summarize(&[job(0, 0, 10, 4)], &MetricsConfig::new(4)).unwrap();
        assert_eq!(run.utilization, 1.0);
        // summarize_split refuses it as well, and a requested start out of
        // range.
        assert!(matches!(
            crate::summarize_split(&[job(0, 0, 10, 9)], &[None], &MetricsConfig::new(4)),
            Err(MetricsError::JobTooWide { .. })
        ));
        assert_eq!(
            crate::summarize_split(&[job(0, 0, 10, 1)], &[Some(-5)], &MetricsConfig::new(4)),
            Err(MetricsError::TimeOutOfRange {
                index: 0,
                field: "requested start",
                value: -5,
            })
        );
    }

    #[test]
    fn a_suspension_longer_than_the_span_says_so() {
        // Started at 0, finished at 10: a span of 10 s cannot hold 100 s of
        // suspension.
        let bad = [job(0, 0, 10, 1).with_suspended(100, 1)];
        let error = summarize(&bad, &MetricsConfig::new(4)).unwrap_err();
        assert_eq!(
            error,
            MetricsError::BadSuspension {
                index: 0,
                suspended: 100,
                span: 10,
            }
        );
        assert_eq!(
            error.to_string(),
            "job 0 was suspended for 100 s, which is not within its span of 10 s from start to finish"
        );
        let negative = [job(0, 0, 10, 1).with_suspended(-1, 1)];
        assert!(matches!(
            summarize(&negative, &MetricsConfig::new(4)),
            Err(MetricsError::BadSuspension { suspended: -1, .. })
        ));
    }

    #[test]
    fn unchecked_job_metrics_saturate_instead_of_overflowing() {
        // job_metrics cannot fail: far outside the range, i64::MAX - i64::MIN
        // saturates at i64::MAX rather than panicking or wrapping negative.
        let m = job_metrics(&job(i64::MIN, 0, i64::MAX, 1), 10);
        assert_eq!((m.wait, m.response), (i64::MAX, i64::MAX));
        assert_eq!(job(0, i64::MIN, i64::MAX, 1).runtime(), i64::MAX);
    }

    #[test]
    fn no_jobs_is_fine() {
        let run = summarize(&[], &MetricsConfig::new(4)).unwrap();
        assert_eq!(
            (run.jobs, run.wait, run.awrt, run.utilization),
            (0, None, None, 0.0)
        );
    }

    #[test]
    fn suspended_jobs_hold_processors_only_between_suspensions() {
        // 2 processors. A (2 procs) submitted at 0 runs 0..10, is suspended
        // 10..30 and runs again 30..40: finish 40, suspended 20 s, it held
        // its processors 40 - 0 - 20 = 20 s. B (2 procs) runs 10..30 in the
        // gap.
        let jobs = [
            CompletedJob::new(0, 0, 40, 2).with_suspended(20, 1),
            CompletedJob::new(5, 10, 30, 2),
        ];
        let run = summarize(&jobs, &MetricsConfig::new(2)).unwrap();
        // Busy 2 x 20 + 2 x 20 = 80 processor-seconds of 2 x 40 = 80: 1.0.
        assert_eq!(run.utilization, 1.0);
        // A's slowdown: response 40 / runtime 20 = 2.
        assert_eq!(run.slowdown.unwrap().max, 2.0);
        let suspension = run.suspension.unwrap();
        assert_eq!((suspension.jobs, suspension.suspensions), (1, 1));
        assert_eq!(suspension.suspended_time.mean, 20.0);
        // A job suspended longer than it lasted is inconsistent.
        let bad = [CompletedJob::new(0, 0, 10, 1).with_suspended(11, 1)];
        assert!(summarize(&bad, &MetricsConfig::new(2)).is_err());
        // Without suspensions there is no suspension block.
        let plain = summarize(&jobs[1..], &MetricsConfig::new(2)).unwrap();
        assert!(plain.suspension.is_none());
    }

    #[test]
    fn runtime_classes_by_hand() {
        // Bounds 10 s and 100 s, tau 10, N = 4.
        // a: short, work 5 s on 1 proc, submit 0, start 5, end 10:
        //    wait 5, response 10, bsld max(10 / max(5, 10), 1) = 1.
        // b: medium, work 50 s on 2 procs, suspended 20 s with 10 s of
        //    overheads (held 60 s), submit 0, start 0, end 80: wait 0,
        //    response 80, bsld 80 / 50 = 1.6 (by its work, not the 60 s it
        //    held the processors).
        // c: long, work 200 s on 4 procs, submit 10, start 30, end 230:
        //    wait 20, response 220, bsld 1.1.
        // Work 5 + 100 + 800 = 905 processor-seconds.
        let jobs = [
            job(0, 5, 10, 1).with_work(5),
            job(0, 0, 80, 2).with_suspended(20, 1).with_work(50),
            job(10, 30, 230, 4).with_work(200),
        ];
        let mut config = MetricsConfig::new(4);
        config.runtime_classes = ClassBounds::new(10, 100);
        let classes = summarize(&jobs, &config).unwrap().runtime_classes;
        let medium = classes.medium.unwrap();
        assert_eq!(medium.jobs, 1);
        assert!((medium.mean_bounded_slowdown - 1.6).abs() < 1e-12);
        assert!((medium.work_share - 100.0 / 905.0).abs() < 1e-12);
        assert_eq!(medium.mean_response, 80.0);
        let short = classes.short.unwrap();
        assert_eq!((short.mean_wait, short.mean_bounded_slowdown), (5.0, 1.0));
        let long = classes.long.unwrap();
        assert!((long.mean_bounded_slowdown - 1.1).abs() < 1e-12);
        assert!((long.job_share - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(long.mean_size, 4.0);
        // Without recorded runtimes the held time classifies: b held 60 s.
        let plain: Vec<CompletedJob> = jobs
            .iter()
            .map(|j| {
                CompletedJob::new(j.submit, j.start, j.finish, j.procs)
                    .with_suspended(j.suspended, j.suspensions)
            })
            .collect();
        let classes = summarize(&plain, &config).unwrap().runtime_classes;
        assert!((classes.medium.unwrap().mean_bounded_slowdown - 80.0 / 60.0).abs() < 1e-12);
    }
}

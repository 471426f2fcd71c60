use std::borrow::Borrow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use workload_format::{Record, RequestType};

use crate::calendar::Calendar;
use crate::deadline::Deadlines;
use crate::error::JobModelError;
use crate::{MAX_SERIAL_END, MAX_TIME, Time};

/// Index of a job in a [`JobSet`] (jobs are numbered in arrival order from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JobId(pub u32);

impl JobId {
    /// The position of the job in [`JobSet::jobs`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A rigid job as the simulator sees it, after normalization.
///
/// Built by [`JobSet::from_records`] or by hand with [`Job::new`] and the
/// `with_*` builders. Its attributes from the workload (user, group,
/// executable, queue, partition: SWF fields 12-16) and an optional
/// [`Deadline`] are kept compactly (small integer ids, no strings) and read
/// through accessors, so that a million jobs stay cheap to hold.
///
/// ```
/// use schedsim_sim_core::{Deadline, DeadlineKind, Job};
/// let job = Job::new(7, 100, 4, 3600, 1800)
///     .with_user(12)
///     .with_deadline(Deadline::new(7200, DeadlineKind::User));
/// assert_eq!((job.user(), job.group()), (Some(12), None));
/// assert_eq!(job.absolute_deadline(), Some(100 + 7200));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Job {
    /// The job number from the workload (SWF field 1); not necessarily unique
    /// or dense.
    pub number: u64,
    /// Submit (arrival) time, seconds.
    pub submit: Time,
    /// The user's runtime estimate (kill-by time relative to the start),
    /// seconds, at least 1.
    pub estimate: Time,
    /// How long the job will actually run once started, seconds, after the
    /// [`OverrunRule`] was applied.
    pub runtime: Time,
    /// Requested start time of a dedicated (CWF) job; `None` for batch jobs.
    pub requested_start: Option<Time>,
    /// Index of the record this job came from, in input order.
    pub record_index: u32,
    /// Processors the job occupies: its requested size rounded up to the
    /// machine's allocation granularity.
    pub size: u32,
    /// Processors the job asked for (before rounding to the granularity).
    pub requested_size: u32,
    attributes: Attributes,
}

/// SWF fields 12-16 (`UNKNOWN` when -1) and the deadline, packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Attributes {
    user: u32,
    group: u32,
    executable: u32,
    queue: u32,
    partition: u32,
    deadline: Option<Deadline>,
}

/// The stored value of an unknown attribute. Ids from the workload at or
/// above it are counted and dropped ([`Normalization::attributes_out_of_range`]).
const UNKNOWN: u32 = u32::MAX;

impl Attributes {
    const NONE: Self = Self {
        user: UNKNOWN,
        group: UNKNOWN,
        executable: UNKNOWN,
        queue: UNKNOWN,
        partition: UNKNOWN,
        deadline: None,
    };
}

fn known(value: u32) -> Option<u32> {
    (value != UNKNOWN).then_some(value)
}

/// A job's deadline, held relative to its submit time so that load changes
/// (scaled arrivals, duplicates) keep it meaningful.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Deadline {
    /// Seconds after the submit time by which the job must have ended.
    pub after_submit: Time,
    /// Who set it.
    pub kind: DeadlineKind,
}

impl Deadline {
    /// A deadline `after_submit` seconds after the job's submission.
    pub fn new(after_submit: Time, kind: DeadlineKind) -> Self {
        Self { after_submit, kind }
    }
}

/// Who set a deadline. The QoPS paper mixes jobs whose users give a deadline
/// with jobs that get a loose artificial one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeadlineKind {
    /// The user asked for it.
    User,
    /// Made up for a job without a user deadline (e.g. submit + max(24 h,
    /// R x runtime) in the QoPS paper).
    Artificial,
}

impl DeadlineKind {
    /// The name used in files: `user` or `artificial`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Artificial => "artificial",
        }
    }
}

impl Job {
    /// A batch job of `size` processors submitted at `submit` with the given
    /// estimate and runtime; the requested size is `size`, the record index
    /// is the low 32 bits of the number, and it has no attributes.
    pub fn new(number: u64, submit: Time, size: u32, estimate: Time, runtime: Time) -> Self {
        Self {
            number,
            submit,
            estimate,
            runtime,
            requested_start: None,
            record_index: number as u32,
            size,
            requested_size: size,
            attributes: Attributes::NONE,
        }
    }

    /// The same job as a dedicated (CWF) job that may not start before
    /// `start`.
    pub fn with_requested_start(mut self, start: Time) -> Self {
        self.requested_start = Some(start);
        self
    }

    /// The same job with another requested size (before rounding).
    pub fn with_requested_size(mut self, requested_size: u32) -> Self {
        self.requested_size = requested_size;
        self
    }

    /// The same job with another record index.
    pub fn with_record_index(mut self, record_index: u32) -> Self {
        self.record_index = record_index;
        self
    }

    /// The same job with a user id (SWF field 12). `u32::MAX` means unknown.
    pub fn with_user(mut self, user: u32) -> Self {
        self.attributes.user = user;
        self
    }

    /// The same job with a group id (SWF field 13).
    pub fn with_group(mut self, group: u32) -> Self {
        self.attributes.group = group;
        self
    }

    /// The same job with an executable (application) number (SWF field 14).
    pub fn with_executable(mut self, executable: u32) -> Self {
        self.attributes.executable = executable;
        self
    }

    /// The same job with a queue number (SWF field 15).
    pub fn with_queue(mut self, queue: u32) -> Self {
        self.attributes.queue = queue;
        self
    }

    /// The same job with a partition number (SWF field 16).
    pub fn with_partition(mut self, partition: u32) -> Self {
        self.attributes.partition = partition;
        self
    }

    /// The same job with a deadline.
    pub fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.attributes.deadline = Some(deadline);
        self
    }

    /// The same job without a deadline.
    pub fn without_deadline(mut self) -> Self {
        self.attributes.deadline = None;
        self
    }

    /// The user id (SWF field 12), if known.
    pub fn user(&self) -> Option<u32> {
        known(self.attributes.user)
    }

    /// The group id (SWF field 13), if known.
    pub fn group(&self) -> Option<u32> {
        known(self.attributes.group)
    }

    /// The executable (application) number (SWF field 14), if known.
    pub fn executable(&self) -> Option<u32> {
        known(self.attributes.executable)
    }

    /// The queue number (SWF field 15), if known.
    pub fn queue(&self) -> Option<u32> {
        known(self.attributes.queue)
    }

    /// The partition number (SWF field 16), if known.
    pub fn partition(&self) -> Option<u32> {
        known(self.attributes.partition)
    }

    /// The deadline, relative to the submit time.
    pub fn deadline(&self) -> Option<Deadline> {
        self.attributes.deadline
    }

    /// The deadline as an absolute time (submit + relative deadline,
    /// saturating).
    pub fn absolute_deadline(&self) -> Option<Time> {
        self.attributes
            .deadline
            .map(|d| self.submit.saturating_add(d.after_submit))
    }
}

/// Where a job's runtime estimate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EstimateSource {
    /// The user's requested time (SWF field 9); the runtime when unknown.
    #[default]
    Recorded,
    /// The recorded runtime itself (at least 1 s): perfect estimates, as the
    /// QoPS and SCOJO-PECT papers assume.
    Exact,
}

impl EstimateSource {
    /// The name used on the command line: `recorded` or `exact`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Recorded => "recorded",
            Self::Exact => "exact",
        }
    }
}

/// What happens to a job whose recorded runtime exceeds its estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverrunRule {
    /// The job is killed when its estimate runs out, as production batch
    /// systems do: its simulated runtime is the estimate.
    #[default]
    Kill,
    /// The job runs for its full recorded runtime. Schedulers then see a job
    /// that is past its estimated end; they treat it as ending "now".
    Extend,
}

/// Whether invalid jobs stop the load or are dropped and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strictness {
    /// The first job that cannot be simulated is an error.
    #[default]
    Strict,
    /// Jobs that cannot be simulated are dropped and counted by reason.
    Lenient,
}

/// How workload records become simulated jobs.
///
/// The rules, each counted in [`Normalization`]:
/// - size = requested processors (field 8) if known and positive, else
///   allocated processors (field 5) if known and positive, else the job is
///   rejected (`no_size`); then rounded up to a multiple of the granularity;
///   a job larger than the machine is rejected (`too_large`);
/// - runtime = field 4; unknown runtime is rejected (`no_runtime`); a runtime
///   of 0 is kept (the job occupies its processors for no time);
/// - estimate = requested time (field 9) if known and positive, else the
///   runtime (`estimate_from_runtime`); with [`EstimateSource::Exact`] it is
///   always the runtime; raised to at least 1 s so that slowdown-style
///   ratios stay finite (`estimate_raised_to_one`);
/// - runtime > estimate is resolved by the [`OverrunRule`]
///   (`killed_at_estimate` or `overran_estimate`);
/// - an unknown submit time is rejected (`no_submit_time`);
/// - user, group, executable, queue and partition (fields 12-16) are kept
///   as small integer ids; an id of 2^32 - 1 or more is dropped (the
///   attribute becomes unknown) and counted (`attributes_out_of_range`).
///
/// Jobs are then ordered by submit time, ties kept in input order.
///
/// CWF elastic control commands (ET/RT/EP/RP lines) become
/// [`ElasticCommand`]s for the most recent earlier job line (in input order)
/// with the same job number. A command is rejected (strict) or dropped and
/// counted (lenient) if that job does not exist or was dropped, if its time
/// (field 2) is unknown or before the job's submission, or if its amount
/// (field 21) is unknown or 0. Commands beyond
/// [`max_commands_per_job`](Self::max_commands_per_job) are always dropped
/// and counted (`over_limit`): the limit is a setting, not an input error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JobModel {
    /// Processors in the machine.
    pub procs: u32,
    /// Allocation granularity: jobs occupy multiples of this many processors.
    pub granularity: u32,
    /// What happens when a job runs past its estimate.
    pub overrun: OverrunRule,
    /// Whether invalid jobs are errors or counted drops.
    pub strictness: Strictness,
    /// At most this many elastic control commands per job are kept (in
    /// time order); later ones are dropped and counted. `None`: no limit.
    pub max_commands_per_job: Option<u32>,
    /// Where estimates come from.
    #[serde(default)]
    pub estimates: EstimateSource,
}

impl JobModel {
    /// Checks the machine: at least one processor and at most
    /// [`MAX_PROCS`](crate::MAX_PROCS), and a granularity that divides the
    /// processor count.
    ///
    /// # Errors
    /// [`JobModelError::NoProcessors`], [`JobModelError::TooManyProcessors`]
    /// or [`JobModelError::BadGranularity`].
    pub fn validate(&self) -> Result<(), JobModelError> {
        if self.procs == 0 {
            return Err(JobModelError::NoProcessors);
        }
        if self.procs > crate::MAX_PROCS {
            return Err(JobModelError::TooManyProcessors { procs: self.procs });
        }
        if self.granularity == 0 || !self.procs.is_multiple_of(self.granularity) {
            return Err(JobModelError::BadGranularity {
                procs: self.procs,
                granularity: self.granularity,
            });
        }
        Ok(())
    }

    /// A model for a machine of `procs` processors, granularity 1, the
    /// default (`kill`) overrun rule, recorded estimates, strict.
    pub fn new(procs: u32) -> Self {
        Self {
            procs,
            granularity: 1,
            overrun: OverrunRule::default(),
            strictness: Strictness::default(),
            max_commands_per_job: None,
            estimates: EstimateSource::default(),
        }
    }
}

/// Why a record could not become a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// Neither requested nor allocated processors are known and positive.
    NoSize,
    /// The runtime (field 4) is unknown.
    NoRuntime,
    /// The submit time (field 2) is unknown.
    NoSubmitTime,
    /// The job needs more processors than the machine has.
    TooLarge,
}

impl Rejection {
    /// A short lowercase description, as used in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::NoSize => "neither requested nor allocated processors are known",
            Self::NoRuntime => "the run time is unknown",
            Self::NoSubmitTime => "the submit time is unknown",
            Self::TooLarge => "it needs more processors than the machine has",
        }
    }

    /// A few words for a count, as `simulate`'s summary gives it: `3 no
    /// runtime`.
    pub fn short(self) -> &'static str {
        match self {
            Self::NoSize => "no size",
            Self::NoRuntime => "no runtime",
            Self::NoSubmitTime => "no submit time",
            Self::TooLarge => "larger than the machine",
        }
    }
}

/// Why a CWF elastic control command was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandRejection {
    /// No earlier job line has this job number, or that job was dropped.
    UnknownJob,
    /// The command's time (field 2) is unknown.
    NoTime,
    /// The command comes before the job's submission.
    BeforeSubmission,
    /// The amount (field 21) is unknown or 0.
    NoAmount,
    /// The job already has the maximum number of commands.
    OverLimit,
}

impl CommandRejection {
    /// A short lowercase description, as used in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::UnknownJob => "no earlier job line has this job number, or that job was dropped",
            Self::NoTime => "its time is unknown",
            Self::BeforeSubmission => "it comes before the job's submission",
            Self::NoAmount => "its amount is unknown or 0",
            Self::OverLimit => "the job already has the maximum number of commands",
        }
    }
}

/// What an elastic control command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// ET: extend the kill-by time by this many seconds.
    ExtendTime(Time),
    /// RT: reduce the kill-by time by this many seconds.
    ReduceTime(Time),
    /// EP: add this many processors.
    ExtendProcessors(u32),
    /// RP: remove this many processors.
    ReduceProcessors(u32),
}

/// A CWF elastic control command, resolved to its job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ElasticCommand {
    /// When it arrives (CWF field 2).
    pub time: Time,
    /// The job it changes.
    pub job: JobId,
    /// The change.
    pub change: Change,
}

/// Counts of every normalization the job model applied. Nothing is changed
/// or dropped without being counted here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Normalization {
    /// Records read (job submissions only; CWF commands are counted apart).
    pub records: u64,
    /// Jobs kept for simulation.
    pub jobs: u64,
    /// Jobs dropped (lenient mode), by reason.
    pub dropped: BTreeMap<Rejection, u64>,
    /// Jobs whose size came from the allocated processors (field 5) because
    /// the requested processors (field 8) were unknown.
    pub size_from_allocated: u64,
    /// Jobs whose size was rounded up to the allocation granularity.
    pub size_rounded_up: u64,
    /// Jobs whose estimate is their runtime because the requested time was
    /// unknown.
    pub estimate_from_runtime: u64,
    /// Jobs whose estimate was 0 and was raised to 1 s.
    pub estimate_raised_to_one: u64,
    /// Jobs with a recorded runtime of 0 (kept).
    pub zero_runtime: u64,
    /// Jobs whose runtime exceeded the estimate and were cut at the estimate
    /// ([`OverrunRule::Kill`]).
    pub killed_at_estimate: u64,
    /// Jobs whose runtime exceeds the estimate and that run to the end
    /// ([`OverrunRule::Extend`]).
    pub overran_estimate: u64,
    /// CWF elastic control commands in the input (ET/RT/EP/RP lines).
    pub commands: u64,
    /// Commands kept.
    pub commands_kept: u64,
    /// Commands dropped, by reason.
    pub commands_dropped: BTreeMap<CommandRejection, u64>,
    /// Jobs with a requested start time (dedicated CWF jobs).
    pub dedicated: u64,
    /// Attribute ids (SWF fields 12-16) too large to keep, dropped (the
    /// attribute becomes unknown).
    #[serde(default)]
    pub attributes_out_of_range: u64,
    /// Jobs that got a deadline from a deadline file
    /// ([`JobSet::with_deadlines`]).
    #[serde(default)]
    pub deadlines: u64,
    /// Entries of the deadline file that name no job of the workload.
    #[serde(default)]
    pub deadlines_unmatched: u64,
}

impl Normalization {
    /// Total number of dropped jobs.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }
}

/// The jobs of a workload, normalized for one machine, in arrival order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSet {
    jobs: Vec<Job>,
    /// The log's calendar, for policies that depend on local time.
    #[serde(skip)]
    calendar: Option<Calendar>,
    /// The recorded runtime of each job, before the overrun rule: how long
    /// the job would run if nothing killed it.
    work: Vec<Time>,
    commands: Vec<ElasticCommand>,
    model: JobModel,
    normalization: Normalization,
}

impl JobSet {
    /// Normalizes workload records into jobs (see [`JobModel`] for the
    /// rules). CWF elastic control commands are counted and otherwise left
    /// out. `records` is a slice of records or any iterator of records or
    /// references to them, read once (e.g. a
    /// [`PackedRecords`](workload_format::PackedRecords)' iterator, so that
    /// a large trace is never held as `Record`s); only the command lines
    /// are kept while the jobs are built. Jobs out of submit order are
    /// sorted in place.
    ///
    /// # Errors
    /// An invalid machine (0 processors, granularity 0 or not dividing the
    /// processor count), in strict mode the first record that cannot be
    /// simulated, or [`JobModelError::TooLong`].
    pub fn from_records<I>(records: I, model: &JobModel) -> Result<Self, JobModelError>
    where
        I: IntoIterator,
        I::Item: Borrow<Record>,
    {
        model.validate()?;
        let mut normalization = Normalization::default();
        let mut jobs = Vec::new();
        let mut work = Vec::new();
        // Lines dropped, as (job number, input index): with the jobs' own
        // numbers and record indices, they find the latest job line of a
        // command's job number (commands are rare; nothing per job is kept
        // for them).
        let mut dropped_lines: Vec<(u64, usize)> = Vec::new();
        let mut pending: Vec<(usize, Record)> = Vec::new();
        let records = records.into_iter();
        // Sized once when the count is known (a slice, packed records):
        // growing by doubling would hold up to twice the jobs' memory.
        let (expected, _) = records.size_hint();
        jobs.reserve_exact(expected);
        work.reserve_exact(expected);
        for (index, record) in records.enumerate() {
            let record = record.borrow();
            if record.is_command() {
                normalization.commands += 1;
                pending.push((index, record.clone()));
                continue;
            }
            normalization.records += 1;
            match normalize(record, index, model, &mut normalization) {
                Ok((job, recorded)) => {
                    jobs.push(job);
                    work.push(recorded);
                }
                Err(reason) => {
                    dropped_lines.push((record.job_number, index));
                    match model.strictness {
                        Strictness::Strict => {
                            let detail = match reason {
                                Rejection::TooLarge => format!(
                                    " ({} processors on a machine of {})",
                                    crate::load::size_of(record).unwrap_or(0),
                                    model.procs
                                ),
                                _ => String::new(),
                            };
                            return Err(JobModelError::Rejected {
                                job_number: record.job_number,
                                record_index: index,
                                reason,
                                detail,
                            });
                        }
                        Strictness::Lenient => {
                            *normalization.dropped.entry(reason).or_default() += 1;
                        }
                    }
                }
            }
        }
        // The latest job line before each command with its job number, as
        // an index into `jobs` (`None` if that line was dropped).
        let latest: Vec<Option<usize>> = if pending.is_empty() {
            Vec::new()
        } else {
            // (number, input index, job): sorted, a binary search finds the
            // last line of a number before an index.
            let mut lines: Vec<(u64, usize, Option<usize>)> = jobs
                .iter()
                .enumerate()
                .map(|(i, job)| (job.number, job.record_index as usize, Some(i)))
                .chain(
                    dropped_lines
                        .iter()
                        .map(|&(number, index)| (number, index, None)),
                )
                .collect();
            lines.sort_unstable();
            pending
                .iter()
                .map(|(index, record)| {
                    let after = lines.partition_point(|&(number, line, _)| {
                        (number, line) < (record.job_number, *index)
                    });
                    after
                        .checked_sub(1)
                        .map(|i| lines[i])
                        .filter(|&(number, _, _)| number == record.job_number)
                        .and_then(|(_, _, job)| job)
                })
                .collect()
        };
        drop(dropped_lines);
        // Stable: equal submit times keep input order. Job ids are positions
        // in this order. Logs are nearly always in submit order already.
        let sorted = jobs.is_sorted_by_key(|job| job.submit);
        let order: Vec<u32> = if sorted {
            Vec::new()
        } else {
            // Fits: a job set holds fewer than 2^32 jobs (JobId is a u32).
            #[allow(clippy::cast_possible_truncation)]
            let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
            order.sort_by_key(|&i| (jobs[i as usize].submit, i));
            order
        };
        let mut position_of: Vec<u32> = Vec::new();
        if !sorted && !pending.is_empty() {
            position_of = vec![0; jobs.len()];
            for (position, &i) in order.iter().enumerate() {
                // As above: below the job count.
                #[allow(clippy::cast_possible_truncation)]
                let position = position as u32;
                position_of[i as usize] = position;
            }
        }
        let mut commands = Vec::new();
        for ((index, record), job) in pending.iter().zip(&latest) {
            // Fits: positions are below the job count, itself below 2^32.
            #[allow(clippy::cast_possible_truncation)]
            let id = job.map(|i| JobId(if sorted { i as u32 } else { position_of[i] }));
            match resolve_command(record, id.zip(job.map(|i| &jobs[i]))) {
                Ok(command) => commands.push(command),
                Err(reason) => match model.strictness {
                    Strictness::Strict => {
                        return Err(JobModelError::BadCommand {
                            job_number: record.job_number,
                            record_index: *index,
                            reason,
                        });
                    }
                    Strictness::Lenient => {
                        *normalization.commands_dropped.entry(reason).or_default() += 1;
                    }
                },
            }
        }
        drop(position_of);
        // Time order, ties in input order (the sort is stable).
        commands.sort_by_key(|command: &ElasticCommand| command.time);
        if let Some(limit) = model.max_commands_per_job {
            let mut per_job: BTreeMap<JobId, u32> = BTreeMap::new();
            commands.retain(|command| {
                let count = per_job.entry(command.job).or_default();
                *count += 1;
                *count <= limit
            });
        }
        let over_limit = normalization.commands
            - normalization.commands_dropped.values().sum::<u64>()
            - commands.len() as u64;
        if over_limit > 0 {
            normalization
                .commands_dropped
                .insert(CommandRejection::OverLimit, over_limit);
        }
        normalization.commands_kept = commands.len() as u64;
        if !sorted {
            // In place, so that the jobs are never held twice.
            permute(&mut jobs, &mut work, order);
        }
        jobs.shrink_to_fit();
        work.shrink_to_fit();
        normalization.jobs = jobs.len() as u64;
        normalization.dedicated = jobs
            .iter()
            .filter(|job| job.requested_start.is_some())
            .count() as u64;
        check_serial_end(&jobs, &commands)?;
        Ok(Self {
            jobs,
            calendar: None,
            work,
            commands,
            model: model.clone(),
            normalization,
        })
    }

    /// Builds a job set from jobs made by hand (tests, generators). Jobs are
    /// sorted by submit time, ties in the given order.
    ///
    /// # Errors
    /// An invalid machine, or a job that is empty, larger than the machine,
    /// not a multiple of the granularity, or has a negative time or an
    /// estimate below 1; [`JobModelError::TooLong`].
    pub fn from_jobs(mut jobs: Vec<Job>, model: &JobModel) -> Result<Self, JobModelError> {
        model.validate()?;
        for job in &jobs {
            let time = |t: Time| (0..=MAX_TIME).contains(&t);
            let valid = job.size > 0
                && job.size <= model.procs
                && job.size.is_multiple_of(model.granularity)
                && time(job.submit)
                && time(job.runtime)
                && job.estimate >= 1
                && time(job.estimate)
                && job.requested_start.is_none_or(time);
            if !valid {
                return Err(JobModelError::InvalidJob {
                    job_number: job.number,
                });
            }
        }
        check_serial_end(&jobs, &[])?;
        jobs.sort_by_key(|job| job.submit);
        let normalization = Normalization {
            records: jobs.len() as u64,
            jobs: jobs.len() as u64,
            dedicated: jobs
                .iter()
                .filter(|job| job.requested_start.is_some())
                .count() as u64,
            ..Normalization::default()
        };
        Ok(Self {
            work: jobs.iter().map(|job| job.runtime).collect(),
            calendar: None,
            jobs,
            commands: Vec::new(),
            model: model.clone(),
            normalization,
        })
    }

    /// Adds elastic control commands made by hand (tests). They are sorted
    /// by time, ties in the given order.
    ///
    /// # Errors
    /// A command for an unknown job, before its job's submission, or with a
    /// zero amount; [`JobModelError::TooLong`] with its extensions.
    pub fn with_commands(
        mut self,
        mut commands: Vec<ElasticCommand>,
    ) -> Result<Self, JobModelError> {
        for (index, command) in commands.iter().enumerate() {
            let Some(job) = self.jobs.get(command.job.index()) else {
                return Err(JobModelError::BadCommand {
                    job_number: u64::from(command.job.0),
                    record_index: index,
                    reason: CommandRejection::UnknownJob,
                });
            };
            let zero = matches!(
                command.change,
                Change::ExtendTime(0)
                    | Change::ReduceTime(0)
                    | Change::ExtendProcessors(0)
                    | Change::ReduceProcessors(0)
            );
            let reason = if command.time < job.submit {
                Some(CommandRejection::BeforeSubmission)
            } else if zero {
                Some(CommandRejection::NoAmount)
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(JobModelError::BadCommand {
                    job_number: job.number,
                    record_index: index,
                    reason,
                });
            }
        }
        check_serial_end(&self.jobs, &commands)?;
        commands.sort_by_key(|command| command.time);
        self.normalization.commands += commands.len() as u64;
        self.normalization.commands_kept += commands.len() as u64;
        self.commands = commands;
        Ok(self)
    }

    /// Gives each job whose number is in `deadlines` that deadline (replacing
    /// any it had) and counts the entries that match no job
    /// ([`Normalization::deadlines`], [`Normalization::deadlines_unmatched`]).
    ///
    /// # Errors
    /// [`JobModelError::AmbiguousDeadline`] if a job number with a deadline
    /// belongs to more than one job of the workload (deadlines are keyed by
    /// job number).
    pub fn with_deadlines(mut self, deadlines: &Deadlines) -> Result<Self, JobModelError> {
        let mut jobs_per_number: BTreeMap<u64, u32> = BTreeMap::new();
        for job in &self.jobs {
            if deadlines.get(job.number).is_some() {
                *jobs_per_number.entry(job.number).or_default() += 1;
            }
        }
        if let Some((&job_number, &jobs)) = jobs_per_number.iter().find(|(_, n)| **n > 1) {
            return Err(JobModelError::AmbiguousDeadline { job_number, jobs });
        }
        for job in &mut self.jobs {
            if let Some(deadline) = deadlines.get(job.number) {
                job.attributes.deadline = Some(deadline);
            }
        }
        self.normalization.deadlines = jobs_per_number.len() as u64;
        self.normalization.deadlines_unmatched = (deadlines.len() - jobs_per_number.len()) as u64;
        Ok(self)
    }

    /// The same jobs with the log's calendar (see [`Calendar`]), which the
    /// [`View`](crate::View) shows policies.
    pub fn with_calendar(mut self, calendar: Calendar) -> Self {
        self.calendar = Some(calendar);
        self
    }

    /// The log's calendar, if one was given.
    pub fn calendar(&self) -> Option<&Calendar> {
        self.calendar.as_ref()
    }

    /// The jobs in arrival order; [`JobId`] `i` is `jobs()[i]`.
    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The job with the given id.
    ///
    /// # Panics
    /// If `id` is not a job of this set (`id.index() >= len()`).
    pub fn job(&self, id: JobId) -> &Job {
        &self.jobs[id.index()]
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The recorded runtime of a job before the overrun rule: how long it
    /// runs unless killed at its (possibly changed) estimate.
    ///
    /// # Panics
    /// If `id` is not a job of this set (`id.index() >= len()`).
    pub fn work(&self, id: JobId) -> Time {
        self.work[id.index()]
    }

    /// The elastic control commands, in time order.
    pub fn commands(&self) -> &[ElasticCommand] {
        &self.commands
    }

    /// The model the jobs were normalized with.
    pub fn model(&self) -> &JobModel {
        &self.model
    }

    /// What normalization did.
    pub fn normalization(&self) -> &Normalization {
        &self.normalization
    }
}

/// A job and its recorded runtime (before the overrun rule).
fn normalize(
    record: &Record,
    index: usize,
    model: &JobModel,
    counts: &mut Normalization,
) -> Result<(Job, Time), Rejection> {
    let submit = record.submit_time.ok_or(Rejection::NoSubmitTime)?;
    let recorded_runtime = record.run_time.ok_or(Rejection::NoRuntime)?;
    let requested_size = match (record.requested_processors, record.allocated_processors) {
        (Some(requested), _) if requested > 0 => requested,
        (_, Some(allocated)) if allocated > 0 => {
            counts.size_from_allocated += 1;
            allocated
        }
        _ => return Err(Rejection::NoSize),
    };
    if requested_size > u64::from(model.procs) {
        return Err(Rejection::TooLarge);
    }
    // Fits in u32: bounded by procs above.
    let requested_size = requested_size as u32;
    let size = requested_size.div_ceil(model.granularity) * model.granularity;
    if size != requested_size {
        counts.size_rounded_up += 1;
    }
    let to_time = |value: u64| Time::try_from(value).unwrap_or(Time::MAX);
    let submit = to_time(submit);
    let recorded = to_time(recorded_runtime);
    let mut runtime = recorded;
    if runtime == 0 {
        counts.zero_runtime += 1;
    }
    let mut estimate = match (model.estimates, record.requested_time) {
        (EstimateSource::Exact, _) => runtime,
        (EstimateSource::Recorded, Some(requested)) if requested > 0 => to_time(requested),
        (EstimateSource::Recorded, _) => {
            counts.estimate_from_runtime += 1;
            runtime
        }
    };
    if estimate < 1 {
        counts.estimate_raised_to_one += 1;
        estimate = 1;
    }
    if runtime > estimate {
        match model.overrun {
            OverrunRule::Kill => {
                counts.killed_at_estimate += 1;
                runtime = estimate;
            }
            OverrunRule::Extend => counts.overran_estimate += 1,
        }
    }
    let mut out_of_range = false;
    let mut id = |value: Option<u64>| match value {
        None => UNKNOWN,
        Some(v) => u32::try_from(v)
            .ok()
            .filter(|&v| v != UNKNOWN)
            .unwrap_or_else(|| {
                out_of_range = true;
                UNKNOWN
            }),
    };
    let attributes = Attributes {
        user: id(record.user_id),
        group: id(record.group_id),
        executable: id(record.executable_number),
        queue: id(record.queue_number),
        partition: id(record.partition_number),
        deadline: None,
    };
    if out_of_range {
        counts.attributes_out_of_range += 1;
    }
    let job = Job {
        number: record.job_number,
        record_index: u32::try_from(index).unwrap_or(u32::MAX),
        submit,
        size,
        requested_size,
        estimate,
        runtime,
        requested_start: record.requested_start_time().map(to_time),
        attributes,
    };
    Ok((job, recorded))
}

/// A command line and the job it refers to (its id and data), if any.
/// Puts `jobs` and `work` in `order` (`order[k]` is the index of the
/// element that goes to position k) in place, following the permutation's
/// cycles; `order` is consumed as the marks.
fn permute(jobs: &mut [Job], work: &mut [Time], mut order: Vec<u32>) {
    const DONE: u32 = u32::MAX;
    for start in 0..order.len() {
        if order[start] == DONE {
            continue;
        }
        // Rotate the cycle through `start`: position k takes the element
        // at order[k].
        let mut k = start;
        loop {
            let from = order[k] as usize;
            order[k] = DONE;
            if from == start {
                break;
            }
            jobs.swap(k, from);
            work.swap(k, from);
            k = from;
        }
    }
}

fn resolve_command(
    record: &Record,
    job: Option<(JobId, &Job)>,
) -> Result<ElasticCommand, CommandRejection> {
    let (id, job) = job.ok_or(CommandRejection::UnknownJob)?;
    let time = record.submit_time.ok_or(CommandRejection::NoTime)?;
    let time = Time::try_from(time).unwrap_or(Time::MAX);
    if time < job.submit {
        return Err(CommandRejection::BeforeSubmission);
    }
    let amount = record
        .cwf
        .and_then(|cwf| cwf.amount)
        .filter(|&amount| amount > 0)
        .ok_or(CommandRejection::NoAmount)?;
    let seconds = Time::try_from(amount).unwrap_or(Time::MAX);
    let processors = u32::try_from(amount).unwrap_or(u32::MAX);
    let change = match record.request_type() {
        RequestType::ExtendTime => Change::ExtendTime(seconds),
        RequestType::ReduceTime => Change::ReduceTime(seconds),
        RequestType::ExtendProcessors => Change::ExtendProcessors(processors),
        RequestType::ReduceProcessors => Change::ReduceProcessors(processors),
        // Only command lines reach here.
        RequestType::Submit => return Err(CommandRejection::UnknownJob),
    };
    Ok(ElasticCommand {
        time,
        job: id,
        change,
    })
}

/// Refuses a job set whose jobs, run one after another from its last
/// submission or requested start, each for the longer of its runtime and
/// estimate plus its ET extensions, would end past [`MAX_SERIAL_END`]:
/// every work-conserving schedule ends by then, and a policy can add up
/// estimates of waiting jobs without overflow.
fn check_serial_end(jobs: &[Job], commands: &[ElasticCommand]) -> Result<(), JobModelError> {
    let last_start = jobs
        .iter()
        .map(|job| job.submit.max(job.requested_start.unwrap_or(0)))
        .max()
        .unwrap_or(0);
    let work: u128 = jobs
        .iter()
        .map(|job| job.runtime.max(job.estimate).unsigned_abs() as u128)
        .sum();
    let extensions: u128 = commands
        .iter()
        .map(|command| match command.change {
            Change::ExtendTime(amount) => amount.unsigned_abs() as u128,
            _ => 0,
        })
        .sum();
    let end = last_start.unsigned_abs() as u128 + work + extensions;
    if end > MAX_SERIAL_END as u128 {
        return Err(JobModelError::TooLong { end });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        number: u64,
        submit: u64,
        run: i64,
        alloc: i64,
        req_procs: i64,
        req_time: i64,
    ) -> Record {
        let known = |v: i64| u64::try_from(v).ok();
        Record {
            submit_time: Some(submit),
            run_time: known(run),
            allocated_processors: known(alloc),
            requested_processors: known(req_procs),
            requested_time: known(req_time),
            ..Record::unknown(number)
        }
    }

    #[test]
    fn normalization_rules_are_applied_and_counted() {
        let records = [
            // Requested size and time known: taken as they are.
            record(1, 10, 50, 4, 8, 100),
            // No requested processors: size from allocated; no requested
            // time: estimate = runtime = 30.
            record(2, 5, 30, 6, -1, -1),
            // Runtime 200 > estimate 100: killed at 100.
            record(3, 20, 200, 2, 2, 100),
            // Runtime 0 and no estimate: estimate raised to 1.
            record(4, 20, 0, 1, -1, -1),
        ];
        let mut model = JobModel::new(16);
        model.granularity = 4;
        let set = JobSet::from_records(&records, &model).unwrap();
        let numbers: Vec<u64> = set.jobs().iter().map(|j| j.number).collect();
        // Sorted by submit time 5, 10, 20, 20 (ties in input order).
        assert_eq!(numbers, [2, 1, 3, 4]);
        let by_number = |n: u64| set.jobs().iter().find(|j| j.number == n).unwrap();
        assert_eq!(
            (
                by_number(1).size,
                by_number(1).estimate,
                by_number(1).runtime
            ),
            (8, 100, 50)
        );
        // 6 processors round up to 8 on a granularity of 4.
        assert_eq!((by_number(2).requested_size, by_number(2).size), (6, 8));
        assert_eq!((by_number(2).estimate, by_number(2).runtime), (30, 30));
        assert_eq!((by_number(3).estimate, by_number(3).runtime), (100, 100));
        // 1 processor rounds up to 4.
        assert_eq!(
            (
                by_number(4).size,
                by_number(4).estimate,
                by_number(4).runtime
            ),
            (4, 1, 0)
        );
        let n = set.normalization();
        assert_eq!(n.records, 4);
        assert_eq!(n.jobs, 4);
        // Jobs 2 and 4 have no requested processors.
        assert_eq!(n.size_from_allocated, 2);
        // Jobs 2 (6 -> 8), 3 (2 -> 4) and 4 (1 -> 4).
        assert_eq!(n.size_rounded_up, 3);
        assert_eq!(n.estimate_from_runtime, 2);
        assert_eq!(n.estimate_raised_to_one, 1);
        assert_eq!(n.zero_runtime, 1);
        assert_eq!(n.killed_at_estimate, 1);
        assert_eq!(n.overran_estimate, 0);
    }

    #[test]
    fn extend_rule_keeps_the_recorded_runtime() {
        let records = [record(3, 20, 200, 2, 2, 100)];
        let mut model = JobModel::new(16);
        model.overrun = OverrunRule::Extend;
        let set = JobSet::from_records(&records, &model).unwrap();
        assert_eq!((set.jobs()[0].estimate, set.jobs()[0].runtime), (100, 200));
        assert_eq!(set.normalization().overran_estimate, 1);
    }

    #[test]
    fn strict_mode_names_the_first_bad_job() {
        let records = [record(7, 0, 10, 1, 1, 10), record(8, 0, -1, 1, 1, 10)];
        let err = JobSet::from_records(&records, &JobModel::new(4)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "job 8 (record 2) cannot be simulated: the run time is unknown"
        );
    }

    #[test]
    fn lenient_mode_drops_and_counts_by_reason() {
        let records = [
            record(1, 0, -1, 1, 1, 10),   // no runtime
            record(2, 0, 10, -1, -1, 10), // no size
            record(3, 0, 10, 0, 0, 10),   // zero size counts as unknown
            record(4, 0, 10, 9, 9, 10),   // larger than the 8-processor machine
            record(5, 0, 10, 2, 2, 10),   // fine
        ];
        let mut model = JobModel::new(8);
        model.strictness = Strictness::Lenient;
        let set = JobSet::from_records(&records, &model).unwrap();
        assert_eq!(set.len(), 1);
        let n = set.normalization();
        assert_eq!(n.dropped.get(&Rejection::NoRuntime), Some(&1));
        assert_eq!(n.dropped.get(&Rejection::NoSize), Some(&2));
        assert_eq!(n.dropped.get(&Rejection::TooLarge), Some(&1));
        assert_eq!(n.dropped_total(), 4);
    }

    fn command(number: u64, time: i64, kind: RequestType, amount: i64) -> Record {
        Record {
            submit_time: u64::try_from(time).ok(),
            cwf: Some(workload_format::CwfFields {
                requested_start_time: None,
                request_type: kind,
                amount: u64::try_from(amount).ok(),
            }),
            ..Record::unknown(number)
        }
    }

    #[test]
    fn jobs_out_of_submit_order_are_sorted_in_place_and_commands_follow() {
        // Submit times 30, 10, 20, 10 (stable: the two 10s keep their
        // order), a dropped line (size 0) with number 9, and commands for
        // jobs 2, 9 (dropped: unknown) and 4.
        let records = [
            record(1, 30, 50, 1, 1, 100),
            record(2, 10, 60, 2, 2, 100),
            record(3, 20, 70, 3, 3, 100),
            record(9, 0, 10, 0, 0, 100),
            record(4, 10, 80, 4, 4, 100),
            command(2, 40, RequestType::ExtendTime, 5),
            command(9, 40, RequestType::ExtendTime, 5),
            command(4, 41, RequestType::ReduceTime, 7),
        ];
        let mut model = JobModel::new(4);
        model.strictness = Strictness::Lenient;
        for packed in [false, true] {
            let set = if packed {
                let packed: workload_format::PackedRecords = records.iter().collect();
                JobSet::from_records(&packed, &model).unwrap()
            } else {
                JobSet::from_records(&records, &model).unwrap()
            };
            let order: Vec<(u64, Time, Time, u32)> = set
                .jobs()
                .iter()
                .map(|j| (j.number, j.submit, set.work(j_id(&set, j)), j.record_index))
                .collect();
            assert_eq!(
                order,
                [
                    (2, 10, 60, 1),
                    (4, 10, 80, 4),
                    (3, 20, 70, 2),
                    (1, 30, 50, 0)
                ]
            );
            let commands: Vec<(Time, u32, Change)> = set
                .commands()
                .iter()
                .map(|c| (c.time, c.job.0, c.change))
                .collect();
            assert_eq!(
                commands,
                [
                    (40, 0, Change::ExtendTime(5)),
                    (41, 1, Change::ReduceTime(7))
                ]
            );
            assert_eq!(
                set.normalization()
                    .commands_dropped
                    .get(&CommandRejection::UnknownJob),
                Some(&1)
            );
        }
    }

    fn j_id(set: &JobSet, job: &Job) -> JobId {
        let index = set
            .jobs()
            .iter()
            .position(|j| std::ptr::eq(j, job))
            .unwrap();
        JobId(index as u32)
    }

    #[test]
    fn commands_resolve_to_the_latest_earlier_job_line() {
        let records = [
            record(1, 0, 50, 1, 1, 100),
            command(1, 10, RequestType::ExtendTime, 30),
            record(2, 5, 50, 1, 1, 100),
            // Job 1 again (a later line with the same number): later
            // commands refer to it.
            record(1, 20, 50, 1, 1, 100),
            command(1, 25, RequestType::ReduceTime, 10),
            // Before job 2's submission (5)? No: at 4 it is before it.
            command(2, 4, RequestType::ExtendTime, 10),
            command(3, 30, RequestType::ExtendTime, 10), // no job 3
            command(2, 30, RequestType::ExtendTime, -1), // no amount
            command(2, 31, RequestType::ExtendProcessors, 2),
        ];
        let mut model = JobModel::new(4);
        model.strictness = Strictness::Lenient;
        let set = JobSet::from_records(&records, &model).unwrap();
        // Jobs by submit time: 1 (0), 2 (5), 1' (20).
        let commands: Vec<(Time, u32, Change)> = set
            .commands()
            .iter()
            .map(|c| (c.time, c.job.0, c.change))
            .collect();
        assert_eq!(
            commands,
            [
                (10, 0, Change::ExtendTime(30)),
                (25, 2, Change::ReduceTime(10)),
                (31, 1, Change::ExtendProcessors(2)),
            ]
        );
        let n = set.normalization();
        assert_eq!((n.commands, n.commands_kept), (6, 3));
        assert_eq!(
            n.commands_dropped.get(&CommandRejection::BeforeSubmission),
            Some(&1)
        );
        assert_eq!(
            n.commands_dropped.get(&CommandRejection::UnknownJob),
            Some(&1)
        );
        assert_eq!(
            n.commands_dropped.get(&CommandRejection::NoAmount),
            Some(&1)
        );
        // Strict mode stops at the first bad command.
        model.strictness = Strictness::Strict;
        let err = JobSet::from_records(&records, &model).unwrap_err();
        assert_eq!(
            err.to_string(),
            "command for job 2 (record 6) cannot be applied: it comes before the job's submission"
        );
        // With at most one command per job, a second ET for job 2 (at 41,
        // after one at 40) is dropped as over the limit.
        let mut more = records[..5].to_vec();
        more.push(command(2, 40, RequestType::ExtendTime, 5));
        more.push(command(2, 41, RequestType::ExtendTime, 5));
        model.max_commands_per_job = Some(1);
        let set = JobSet::from_records(&more, &model).unwrap();
        assert_eq!(set.commands().len(), 3);
        assert_eq!(
            set.normalization()
                .commands_dropped
                .get(&CommandRejection::OverLimit),
            Some(&1)
        );
    }

    #[test]
    fn bad_machines_are_errors() {
        assert!(matches!(
            JobSet::from_records(&[], &JobModel::new(0)),
            Err(JobModelError::NoProcessors)
        ));
        let mut model = JobModel::new(100);
        model.granularity = 32;
        assert!(matches!(
            JobSet::from_records(&[], &model),
            Err(JobModelError::BadGranularity { .. })
        ));
        // 2^24 processors is the largest machine; one more is refused.
        assert!(JobSet::from_records(&[], &JobModel::new(1 << 24)).is_ok());
        let error = JobSet::from_records(&[], &JobModel::new((1 << 24) + 1)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the machine's 16777217 processors are more than the 16777216 a simulation can hold"
        );
    }
}

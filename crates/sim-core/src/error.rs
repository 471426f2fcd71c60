use crate::job::{CommandRejection, Rejection};
use crate::{JobId, Time};

/// Why workload records could not become a [`JobSet`](crate::JobSet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JobModelError {
    /// The machine has no processors.
    #[error("the machine has no processors")]
    NoProcessors,
    /// The machine has more processors than [`MAX_PROCS`](crate::MAX_PROCS).
    #[error(
        "the machine's {procs} processors are more than the {} a simulation can hold",
        crate::MAX_PROCS
    )]
    TooManyProcessors {
        /// Processors in the machine.
        procs: u32,
    },
    /// The allocation granularity is 0 or does not divide the processor count.
    #[error(
        "allocation granularity {granularity} does not divide the {procs} processors of the machine"
    )]
    BadGranularity {
        /// Processors in the machine.
        procs: u32,
        /// The granularity asked for.
        granularity: u32,
    },
    /// Strict mode: a record cannot be simulated.
    #[error("job {job_number} (record {}) cannot be simulated: {}{detail}", record_index + 1, reason.describe())]
    Rejected {
        /// The job number (SWF field 1).
        job_number: u64,
        /// 0-based index of the record in the input (messages print it 1-based).
        record_index: usize,
        /// What is wrong with it.
        reason: Rejection,
        /// The values at fault, as printed after the reason (e.g. ` (128
        /// processors on a machine of 64)`), or empty.
        detail: String,
    },
    /// Strict mode: an elastic control command cannot be applied.
    #[error("command for job {job_number} (record {}) cannot be applied: {}", record_index + 1, reason.describe())]
    BadCommand {
        /// The job number it names.
        job_number: u64,
        /// 0-based index of the record (or of the hand-made command).
        record_index: usize,
        /// What is wrong with it.
        reason: CommandRejection,
    },
    /// A job number with a deadline belongs to several jobs.
    #[error(
        "job number {job_number} belongs to {jobs} jobs of the workload, so its deadline is ambiguous (deadlines are keyed by job number)"
    )]
    AmbiguousDeadline {
        /// The job number.
        job_number: u64,
        /// How many jobs have it.
        jobs: u32,
    },
    /// The jobs run one after another would end past
    /// [`MAX_SERIAL_END`](crate::MAX_SERIAL_END).
    #[error(
        "the workload is too long to simulate: its jobs run one after another from its last submission (each for the longer of its runtime and estimate, plus its time extensions) would end at {end} s, past 2^60 s"
    )]
    TooLong {
        /// When they would end, in seconds.
        end: u128,
    },
    /// A hand-made job is inconsistent with the machine.
    #[error(
        "job {job_number} is invalid for this machine (empty, too large, not a multiple of the granularity, a time negative or beyond 2^53 s, or an estimate below 1 s)"
    )]
    InvalidJob {
        /// The job number.
        job_number: u64,
    },
}

/// The time of a [`SimError`] as its message gives it: `at time T`, or, for
/// `Time::MIN` (a [`Simulation`](crate::Simulation)'s time before its
/// first [`advance`](crate::Simulation::advance)), that no time has passed:
/// that sentinel printed as a number reads as a real, absurd time.
struct AtTime(Time);

impl std::fmt::Display for AtTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == Time::MIN {
            f.write_str("before the first event (no time advanced yet)")
        } else {
            write!(f, "at time {}", self.0)
        }
    }
}

/// A scheduling decision that the simulator refused, or a run that cannot
/// finish. These are bugs in a policy, surfaced rather than ignored.
///
/// A `time` of `Time::MIN` means the [`Simulation`](crate::Simulation) was
/// not yet [advanced](crate::Simulation::advance) to its first event; the
/// message then says so instead of printing that number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The policy started or rejected a job that is not waiting (unknown,
    /// already running or finished, or started twice in one step).
    #[error("policy {policy} {action} job {} ({job:?}) {}, but that job is not waiting ({status})", number.map_or_else(|| "?".to_owned(), |n| n.to_string()), AtTime(*time))]
    NotWaiting {
        /// The policy's name.
        policy: String,
        /// What the policy did: `started` or `rejected`.
        action: &'static str,
        /// The job.
        job: JobId,
        /// Where the job is instead: `it has not arrived yet`, `it is
        /// running`, `it has ended`, `it was rejected`, `no such job`, ...
        status: &'static str,
        /// Its number in the workload, if the id is valid.
        number: Option<u64>,
        /// Simulated time of the decision.
        time: Time,
    },
    /// The policy started jobs that need more processors than are free.
    #[error(
        "policy {policy} started job {number} ({job:?}) needing {size} processors {}, but only {free} are free",
        AtTime(*time)
    )]
    OverAllocation {
        /// The policy's name.
        policy: String,
        /// The job that did not fit.
        job: JobId,
        /// Its number in the workload.
        number: u64,
        /// Its size.
        size: u32,
        /// Free processors at that point.
        free: u32,
        /// Simulated time of the decision.
        time: Time,
    },
    /// The policy started a dedicated job before its requested start time.
    #[error(
        "policy {policy} started dedicated job {number} ({job:?}) {}, before its requested start {requested}",
        AtTime(*time)
    )]
    DedicatedTooEarly {
        /// The policy's name.
        policy: String,
        /// The job.
        job: JobId,
        /// Its number in the workload.
        number: u64,
        /// Its requested start.
        requested: Time,
        /// Simulated time of the decision.
        time: Time,
    },
    /// A start, resumption or suspension would end, or a wake-up fire,
    /// past [`TIME_LIMIT`](crate::TIME_LIMIT).
    #[error(
        "policy {policy} {}: {what} at {at} s, past the 2^62 s a simulation can reach",
        AtTime(*time)
    )]
    BeyondTimeLimit {
        /// The policy's name.
        policy: String,
        /// What would happen then, e.g. "job 12 would end".
        what: String,
        /// When, in seconds.
        at: i128,
        /// Simulated time of the decision.
        time: Time,
    },
    /// The policy asked to be woken up in the past.
    #[error("policy {policy} asked to be woken at {wake}, before the current time {time}")]
    WakeInPast {
        /// The policy's name.
        policy: String,
        /// The requested time.
        wake: Time,
        /// Simulated time of the request.
        time: Time,
    },
    /// The policy gave up (see [`Decisions::fail`](crate::Decisions::fail)).
    #[error("policy {policy} failed {}: {reason}", AtTime(*time))]
    PolicyFailed {
        /// The policy's name.
        policy: String,
        /// Its reason.
        reason: String,
        /// Simulated time.
        time: Time,
    },
    /// Jobs are waiting or suspended and no event is pending: the policy
    /// will never start or resume them.
    #[error(
        "policy {policy} left {waiting} jobs waiting and {suspended} suspended {} with no event pending",
        AtTime(*time)
    )]
    Stalled {
        /// The policy's name.
        policy: String,
        /// Jobs still waiting.
        waiting: usize,
        /// Jobs still suspended.
        suspended: usize,
        /// Simulated time when the run stalled.
        time: Time,
    },
    /// A decision on a job that the job's state or the machine does not
    /// allow (start on given processors, suspend, resume).
    #[error("policy {policy} {}: job {} ({job:?}): {problem}", AtTime(*time), number.map_or_else(|| "?".to_owned(), |n| n.to_string()))]
    Refused {
        /// The policy's name.
        policy: String,
        /// The job.
        job: JobId,
        /// Its number in the workload, if the id is valid.
        number: Option<u64>,
        /// What is wrong.
        problem: &'static str,
        /// Simulated time of the decision.
        time: Time,
    },
    /// The policy suspended a job [`MAX_IDLE_SUSPENSIONS`](crate::MAX_IDLE_SUSPENSIONS)
    /// times in a row without the job running a second in between (each
    /// suspension as its resume overhead ended): it would never finish.
    #[error(
        "policy {policy} suspended job {number} {suspensions} times in a row by time {time} without letting it run: each resumption's overhead lasts until the next suspension, so it would never finish (lower --resume-overhead or give the job longer turns)"
    )]
    NoProgress {
        /// The policy's name.
        policy: String,
        /// The job's number (SWF field 1).
        number: u64,
        /// Suspensions in a row without progress.
        suspensions: u32,
        /// Simulated time of the last one.
        time: Time,
    },
    /// [`Simulation::finish`](crate::Simulation::finish) was called while
    /// events were left.
    #[error("the run of policy {policy} was finished {} with events left", AtTime(*time))]
    RunNotOver {
        /// The policy's name.
        policy: String,
        /// Simulated time.
        time: Time,
    },
}

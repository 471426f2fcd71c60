//! Batsim's JSON workloads (feature `batsim`): read into a [`Workload`] and
//! written from one.
//!
//! Batsim's layout (its documentation, "Workload"): an object with
//! `nb_res` (the machine's resources), `jobs` (each with `id`, `subtime`,
//! `res`, `profile` and optionally `walltime`) and `profiles` (by name,
//! each with a `type`). Only delay profiles say how long a job runs without
//! a platform model, so they are what a job-level simulator can replay:
//! `delay` (Batsim 4) or `DelayProfile` (later releases), and sequences of
//! delays (`composed` / `SequentialCompositionProfile`: the sum of `seq`
//! times `repeat`). Other types (parallel tasks, SMPI traces...) need
//! SimGrid; strict reading refuses them, lenient reading skips their jobs
//! and counts them.
//!
//! Mapping to SWF fields: `id` -> job number (when every id is a
//! non-negative integer or a string of one, and they are unique; otherwise
//! the jobs are numbered 1..n in submission order and
//! [`BatsimSummary::renumbered`] says so, with the first offending id in
//! [`ReadSummary::renumbered`](crate::ReadSummary::renumbered)), `subtime` -> submit time,
//! `res` -> requested and allocated processors, the profile's delay -> run
//! time, `walltime` -> requested time (absent or `-1`: unknown), `nb_res`
//! -> `MaxProcs`. Times are seconds as floats in Batsim; they are rounded
//! to whole seconds (counted per field in [`ReadSummary::rounded`]). Jobs
//! are put in submission order (ties: file order).
//!
//! Writing does the reverse for submissions with a known submit time, run
//! time and size: ids are the job numbers as strings (Batsim's documented
//! type), one `delay` profile per distinct run time, shared by the jobs,
//! and `walltime` when the requested time is known. Fields Batsim has no
//! place for (user, group, queue, partition, memory, wait time, status)
//! are not written.
//!
//! ```
//! use workload_format::{read_batsim_json, workload_to_batsim_json};
//!
//! let json = r#"{
//!   "nb_res": 4,
//!   "jobs": [
//!     {"id": "a", "subtime": 10, "walltime": 100, "res": 2, "profile": "p"},
//!     {"id": "b", "subtime": 0.4, "res": 4, "profile": "p"}
//!   ],
//!   "profiles": {"p": {"type": "delay", "delay": 20.25}}
//! }"#;
//! let (workload, summary) = read_batsim_json(json, "w.json", false)?;
//! // Ids are not numbers: jobs are numbered in submission order.
//! assert!(summary.renumbered);
//! let first = &workload.records[0];
//! assert_eq!((first.job_number, first.submit_time, first.run_time), (1, Some(0), Some(20)));
//! assert_eq!(workload.header.max_procs(), Some(4));
//! let text = workload_to_batsim_json(&workload)?;
//! assert!(text.contains(r#""profile":"delay20""#));
//! # Ok::<(), workload_format::BatsimError>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::header::Header;
use crate::read::open_input;
use crate::record::Record;
use crate::workload::Workload;
use crate::{MAX_TIME, ReadError, readable_number};

/// Why a Batsim workload could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatsimError {
    /// The file could not be opened or read.
    #[error("cannot read {source_name}")]
    Read {
        /// The file.
        source_name: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// The file could not be opened.
    #[error(transparent)]
    Open(#[from] ReadError),
    /// The text is not JSON.
    #[error("{source_name}:{line}:{column}: not valid JSON")]
    Json {
        /// The file.
        source_name: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// serde_json's complaint.
        #[source]
        source: serde_json::Error,
    },
    /// The top level lacks a field or has a wrong one.
    #[error("{source_name}: {message}")]
    Layout {
        /// The file.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A job cannot be read (strict mode; lenient mode skips and counts).
    #[error("{source_name}: jobs[{index}] (id {id}): {message}")]
    Job {
        /// The file.
        source_name: String,
        /// 0-based position in `jobs`.
        index: usize,
        /// Its `id` as written.
        id: String,
        /// What is wrong, naming the field and value.
        message: String,
    },
    /// The output file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A record cannot be written as a Batsim job.
    #[error("job {job_number}: {message}")]
    Unwritable {
        /// The SWF job number.
        job_number: u64,
        /// What is missing.
        message: String,
    },
}

/// What reading a Batsim workload saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatsimSummary {
    /// Jobs in the file.
    pub jobs: u64,
    /// Jobs skipped in lenient mode, by reason (e.g. `profile type
    /// parallel_homogeneous`).
    pub skipped: BTreeMap<String, u64>,
    /// The ids were not unique non-negative integers: jobs were numbered
    /// 1..n in submission order (the workload's
    /// [`ReadSummary::renumbered`](crate::ReadSummary::renumbered) says
    /// why).
    pub renumbered: bool,
}

impl BatsimSummary {
    /// Jobs skipped in lenient mode.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// Reads a Batsim JSON workload file (plain or gzip-compressed).
///
/// # Errors
/// See [`read_batsim_json`]; also an unreadable file.
pub fn read_batsim_path(
    path: impl AsRef<Path>,
    lenient: bool,
) -> Result<(Workload, BatsimSummary), BatsimError> {
    let path = path.as_ref();
    let source_name = path.display().to_string();
    let mut text = String::new();
    open_input(path)?
        .read_to_string(&mut text)
        .map_err(|source| BatsimError::Read {
            source_name: source_name.clone(),
            source,
        })?;
    read_batsim_json(&text, &source_name, lenient)
}

/// How long a profile runs, if it is made of delays.
enum Runtime {
    Seconds(f64),
    Unsupported(String),
}

fn profile_runtime(
    profiles: &serde_json::Map<String, Value>,
    name: &str,
    depth: usize,
) -> Result<Runtime, String> {
    // Sequences nest; a cycle would recurse forever.
    if depth > 64 {
        return Err(format!(
            "profile `{name}`: sequences nested deeper than 64 (a cycle?)"
        ));
    }
    let profile = profiles
        .get(name)
        .ok_or_else(|| format!("profile `{name}` is not in `profiles`"))?;
    let kind = profile
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("profile `{name}` has no string `type`"))?;
    match kind {
        "delay" | "DelayProfile" => {
            let delay = profile
                .get("delay")
                .and_then(Value::as_f64)
                .ok_or_else(|| format!("profile `{name}`: `delay` is not a number"))?;
            if !(delay >= 0.0 && delay.is_finite()) {
                return Err(format!(
                    "profile `{name}`: delay {} is not >= 0",
                    readable_number(delay)
                ));
            }
            Ok(Runtime::Seconds(delay))
        }
        "composed" | "SequentialCompositionProfile" => {
            let repeat = match profile.get("repeat") {
                None => 1,
                Some(v) => v
                    .as_u64()
                    .filter(|&r| r >= 1)
                    .ok_or_else(|| format!("profile `{name}`: repeat {v} is not >= 1"))?,
            };
            let seq = profile
                .get("seq")
                .and_then(Value::as_array)
                .ok_or_else(|| format!("profile `{name}`: `seq` is not an array"))?;
            let mut total = 0.0;
            for step in seq {
                let step = step
                    .as_str()
                    .ok_or_else(|| format!("profile `{name}`: seq entry {step} is not a name"))?;
                match profile_runtime(profiles, step, depth + 1)? {
                    Runtime::Seconds(s) => total += s,
                    unsupported => return Ok(unsupported),
                }
            }
            Ok(Runtime::Seconds(total * repeat as f64))
        }
        other => Ok(Runtime::Unsupported(other.to_owned())),
    }
}

/// Whole seconds from a Batsim float, counting a rounding in `rounded`.
fn seconds(value: f64, rounded: &mut u64) -> Result<u64, String> {
    if !(value >= 0.0 && value.is_finite()) {
        return Err(format!("{} is not a time >= 0", readable_number(value)));
    }
    let whole = value.round();
    if whole != value {
        *rounded += 1;
    }
    if whole > MAX_TIME as f64 {
        return Err(format!(
            "{} exceeds the largest time, 2^53 s",
            readable_number(value)
        ));
    }
    Ok(whole as u64)
}

/// One job as read, before numbering.
struct ReadJob {
    index: usize,
    id: Option<u64>,
    record: Record,
}

/// Reads a Batsim JSON workload from text; `source_name` names it in
/// errors. Lenient mode skips jobs it cannot replay (counted by reason in
/// the summary) instead of failing.
///
/// # Errors
/// Not JSON; no `jobs` array, `profiles` object or positive `nb_res`; in
/// strict mode, a job with a missing or invalid field (named with its
/// value) or a profile that is not made of delays.
pub fn read_batsim_json(
    text: &str,
    source_name: &str,
    lenient: bool,
) -> Result<(Workload, BatsimSummary), BatsimError> {
    let root = crate::strict_json::from_str(text).map_err(|source| BatsimError::Json {
        source_name: source_name.to_owned(),
        line: source.line(),
        column: source.column(),
        source,
    })?;
    let layout = |message: &str| BatsimError::Layout {
        source_name: source_name.to_owned(),
        message: message.to_owned(),
    };
    let nb_res = root
        .get("nb_res")
        .and_then(Value::as_u64)
        .filter(|&n| n > 0)
        .ok_or_else(|| layout("`nb_res` is missing or not a positive integer"))?;
    let jobs = root
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or_else(|| layout("`jobs` is missing or not an array"))?;
    let empty = serde_json::Map::new();
    let profiles = match root.get("profiles") {
        Some(Value::Object(map)) => map,
        None if jobs.is_empty() => &empty,
        _ => return Err(layout("`profiles` is missing or not an object")),
    };
    let mut summary = BatsimSummary {
        jobs: jobs.len() as u64,
        ..BatsimSummary::default()
    };
    let mut rounded = [0u64; 21];
    let mut read = Vec::with_capacity(jobs.len());
    for (index, job) in jobs.iter().enumerate() {
        let id_text = job
            .get("id")
            .map_or_else(|| "?".to_owned(), |v| v.to_string());
        let fail = |message: String| BatsimError::Job {
            source_name: source_name.to_owned(),
            index,
            id: id_text.clone(),
            message,
        };
        match read_job(job, profiles, &mut rounded) {
            Ok((id, record)) => read.push(ReadJob { index, id, record }),
            Err(JobProblem::Invalid(message)) if !lenient => return Err(fail(message)),
            Err(JobProblem::Unsupported(kind)) if !lenient => {
                return Err(fail(format!(
                    "profile type `{kind}` needs a platform model (only delay profiles and \
                     sequences of them give a run time); read leniently to skip such jobs"
                )));
            }
            Err(JobProblem::Invalid(message)) => {
                let reason = message.split(':').next().unwrap_or("invalid").to_owned();
                *summary.skipped.entry(reason).or_default() += 1;
            }
            Err(JobProblem::Unsupported(kind)) => {
                *summary
                    .skipped
                    .entry(format!("profile type {kind}"))
                    .or_default() += 1;
            }
        }
    }
    let renumbered = renumbering_reason(&read, jobs);
    summary.renumbered = renumbered.is_some();
    // Submission order; ties keep file order.
    read.sort_by_key(|j| (j.record.submit_time, j.index));
    let mut records = Vec::with_capacity(read.len());
    for (position, job) in read.into_iter().enumerate() {
        let mut record = job.record;
        record.job_number = if summary.renumbered {
            position as u64 + 1
        } else {
            job.id.unwrap_or_default()
        };
        records.push(record);
    }
    let mut header = Header::new();
    let note = format!("converted from the Batsim JSON workload {source_name}");
    let header_error = |e: crate::HeaderError| layout(&e.to_string());
    header.set("MaxJobs", records.len()).map_err(header_error)?;
    header
        .set("MaxRecords", records.len())
        .map_err(header_error)?;
    header.set("MaxProcs", nb_res).map_err(header_error)?;
    header.add("Note", note).map_err(header_error)?;
    let mut workload = Workload::new(header, records);
    workload.summary.records = workload.records.len() as u64;
    workload.summary.skipped_lines = summary.skipped_total();
    workload.summary.rounded = rounded;
    workload.summary.renumbered = renumbered;
    Ok((workload, summary))
}

/// Why the jobs kept cannot be numbered by their ids (in file order): the
/// first id that is not a non-negative integer, or the first one repeated;
/// `None` when the ids can be the job numbers.
fn renumbering_reason(read: &[ReadJob], jobs: &[Value]) -> Option<String> {
    let written = |index: usize| {
        jobs[index]
            .get("id")
            .map_or_else(String::new, Value::to_string)
    };
    let mut seen = BTreeMap::new();
    for job in read {
        let Some(id) = job.id else {
            return Some(format!(
                "id {} (jobs[{}]) is not a non-negative integer",
                written(job.index),
                job.index
            ));
        };
        if let Some(first) = seen.insert(id, job.index) {
            return Some(format!(
                "id {id} is given to jobs[{first}] and jobs[{}]",
                job.index
            ));
        }
    }
    None
}

enum JobProblem {
    Invalid(String),
    Unsupported(String),
}

fn read_job(
    job: &Value,
    profiles: &serde_json::Map<String, Value>,
    rounded: &mut [u64; 21],
) -> Result<(Option<u64>, Record), JobProblem> {
    let invalid = JobProblem::Invalid;
    let id = match job.get("id") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse::<u64>().ok(),
        Some(other) => return Err(invalid(format!("id: {other} is not a string or number"))),
        None => return Err(invalid("id: missing".to_owned())),
    };
    let number = |field: &str| -> Result<f64, JobProblem> {
        job.get(field)
            .ok_or_else(|| invalid(format!("{field}: missing")))?
            .as_f64()
            .ok_or_else(|| invalid(format!("{field}: {} is not a number", job[field])))
    };
    let subtime = number("subtime")?;
    let submit = seconds(subtime, &mut rounded[1]).map_err(|e| invalid(format!("subtime: {e}")))?;
    let res = job
        .get("res")
        .ok_or_else(|| invalid("res: missing".to_owned()))?;
    let res = res
        .as_u64()
        .filter(|&r| r > 0)
        .ok_or_else(|| invalid(format!("res: {res} is not a positive integer")))?;
    let walltime = match job.get("walltime") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(-1.0) => None,
            Some(w) if w > 0.0 => {
                Some(seconds(w, &mut rounded[8]).map_err(|e| invalid(format!("walltime: {e}")))?)
            }
            _ => return Err(invalid(format!("walltime: {v} is not > 0 or -1"))),
        },
    };
    let profile = job
        .get("profile")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("profile: missing or not a string".to_owned()))?;
    let runtime = match profile_runtime(profiles, profile, 0).map_err(invalid)? {
        Runtime::Seconds(s) => {
            seconds(s, &mut rounded[3]).map_err(|e| invalid(format!("delay: {e}")))?
        }
        Runtime::Unsupported(kind) => return Err(JobProblem::Unsupported(kind)),
    };
    let mut record = Record::unknown(0);
    record.submit_time = Some(submit);
    record.run_time = Some(runtime);
    record.allocated_processors = Some(res);
    record.requested_processors = Some(res);
    record.requested_time = walltime;
    Ok((id, record))
}

/// Why a record cannot be a job of Batsim's JSON, in the order
/// [`workload_to_batsim_json`] checks (a caller can refuse or leave out
/// such jobs before writing, as `schedsim convert --lenient` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum BatsimUnwritable {
    /// A CWF elastic control command (ET/RT/EP/RP line).
    Command,
    /// No submit time (field 2 is -1).
    NoSubmitTime,
    /// No run time (field 4 is -1): no delay profile.
    NoRunTime,
    /// Neither requested (field 8) nor allocated (field 5) processors, or 0.
    NoProcessorCount,
}

impl BatsimUnwritable {
    /// The first reason `record` cannot be written, or `None`.
    pub fn of(record: &Record) -> Option<Self> {
        batsim_job(record).err()
    }

    /// The reason in a few words, e.g. "no processor count".
    pub fn reason(self) -> &'static str {
        match self {
            Self::Command => "a CWF elastic control command has no Batsim equivalent",
            Self::NoSubmitTime => "no submit time",
            Self::NoRunTime => "no run time, so no delay profile (Batsim needs one per job)",
            Self::NoProcessorCount => "no processor count",
        }
    }
}

/// The submit time, run time and processors (requested, else allocated,
/// if more than 0) of the Batsim job `record` makes, or why it makes none.
fn batsim_job(record: &Record) -> Result<(u64, u64, u64), BatsimUnwritable> {
    if record.is_command() {
        return Err(BatsimUnwritable::Command);
    }
    let submit = record.submit_time.ok_or(BatsimUnwritable::NoSubmitTime)?;
    let runtime = record.run_time.ok_or(BatsimUnwritable::NoRunTime)?;
    let res = record
        .requested_processors
        .or(record.allocated_processors)
        .filter(|&r| r > 0)
        .ok_or(BatsimUnwritable::NoProcessorCount)?;
    Ok((submit, runtime, res))
}

/// Writes `workload` as a Batsim JSON workload: one job per line, profiles
/// sorted by name, so the same workload gives the same bytes.
///
/// # Errors
/// An elastic control command (CWF ET/RT/EP/RP line), or a job without a
/// submit time, run time or size.
pub fn workload_to_batsim_json(workload: &Workload) -> Result<String, BatsimError> {
    let nb_res = workload
        .header
        .max_procs()
        .or_else(|| workload.header.max_nodes())
        .filter(|&n| n > 0)
        .or_else(|| {
            workload
                .records
                .iter()
                .filter_map(|r| r.requested_processors.or(r.allocated_processors))
                .max()
        })
        .unwrap_or(1);
    let mut jobs = String::new();
    let mut delays = BTreeSet::new();
    for (position, record) in workload.records.iter().enumerate() {
        let (submit, runtime, res) =
            batsim_job(record).map_err(|problem| BatsimError::Unwritable {
                job_number: record.job_number,
                message: problem.reason().to_owned(),
            })?;
        delays.insert(runtime);
        let walltime = record
            .requested_time
            .map(|w| format!(",\"walltime\":{w}"))
            .unwrap_or_default();
        let separator = if position + 1 == workload.records.len() {
            ""
        } else {
            ","
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            jobs,
            "    {{\"id\":\"{}\",\"subtime\":{submit}{walltime},\"res\":{res},\"profile\":\"delay{runtime}\"}}{separator}",
            record.job_number
        );
    }
    let mut profiles = String::new();
    // Numeric order of run times (BTreeSet of u64), one line each.
    for (position, runtime) in delays.iter().enumerate() {
        let separator = if position + 1 == delays.len() {
            ""
        } else {
            ","
        };
        let _ = writeln!(
            profiles,
            "    \"delay{runtime}\": {{\"type\":\"delay\",\"delay\":{runtime}}}{separator}"
        );
    }
    Ok(format!(
        "{{\n  \"nb_res\": {nb_res},\n  \"jobs\": [\n{jobs}  ],\n  \"profiles\": {{\n{profiles}  }}\n}}\n"
    ))
}

/// Writes `workload` as a Batsim JSON file through a temporary name
/// (`path` is complete or absent, never half written).
///
/// # Errors
/// See [`workload_to_batsim_json`]; also an unwritable file.
pub fn write_batsim_path(workload: &Workload, path: impl AsRef<Path>) -> Result<(), BatsimError> {
    let path = path.as_ref();
    let text = workload_to_batsim_json(workload)?;
    let fail = |source| BatsimError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut temporary: PathBuf = path.to_path_buf();
    temporary
        .as_mut_os_string()
        .push(format!(".tmp-{}", std::process::id()));
    let written = std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(fail)
}

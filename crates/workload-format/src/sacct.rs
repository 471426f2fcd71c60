//! Slurm accounting (`sacct --parsable2`) into SWF (feature `sacct`).
//!
//! The input is what this command prints (one line per job allocation,
//! `|`-separated, a header line naming the fields):
//!
//! ```text
//! sacct -a -X -P --starttime 2026-01-01 --endtime 2026-02-01 \
//!   -o JobIDRaw,Submit,Start,End,State,ExitCode,AllocCPUS,ReqCPUS,NNodes,Timelimit,ReqMem,User,Group,Account,Partition,QOS,JobName
//! ```
//!
//! `-a` all users, `-X` allocations only (no job steps), `-P` parsable
//! without a trailing `|`. Fields are found by the header's names, in any
//! order; `JobIDRaw` (or `JobID`), `Submit`, `Start`, `End` and `AllocCPUS`
//! (or `NCPUS`) are required, the others fill SWF fields when present.
//! Timestamps are read in the time zone given (sacct prints the local
//! time of the machine it runs on; `TZ=UTC sacct ...` prints UTC). A local
//! time shown twice (the hour repeated when daylight saving time ends)
//! takes the reading that keeps start after submission and end after
//! start; one the clocks skipped is an error. Every line must have as many
//! fields as the header: sacct cannot quote a `|` inside a value.
//!
//! SWF fields: job number `JobIDRaw`; submit time relative to the first
//! submission (the header's `UnixStartTime` is that instant); wait `Start -
//! Submit`; run time `End - Start`; allocated processors `AllocCPUS`;
//! requested processors `ReqCPUS`; requested time `Timelimit` (`UNLIMITED`
//! and `Partition_Limit` are unknown); requested memory `ReqMem` in KB per
//! processor (`c` suffix: per CPU; `n` or none: per node, divided by
//! `AllocCPUS / NNodes`); status 1 for COMPLETED, 0 for FAILED, TIMEOUT,
//! NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL and DEADLINE, 5 for
//! CANCELLED (also "CANCELLED by 1234"), unknown (-1) for Slurm's other
//! states (PENDING, RUNNING, REQUEUED, RESIZING, REVOKED, SUSPENDED) and
//! an empty State; any other State is refused (lenient mode: kept with
//! status -1 and counted in [`SacctSummary::unknown_states`]); user, group, queue (`QOS`),
//! partition and executable (`JobName`) as numbers 1, 2, ... in order of
//! first appearance, the names kept in [`SacctMapping`]. Jobs cancelled
//! before they started (no `Start`) keep wait and run time unknown. Jobs
//! still pending or running (no `End`) are left out and counted.
//!
//! A header naming a field twice is refused (which column would be meant?).
//! Timestamps must lie within what the time library holds, about years
//! -9999 to 9999 (exactly -009999-01-02T01:59:59 to 9999-12-30T22:00:00
//! UTC).

use std::collections::BTreeMap;
use std::io::BufRead;

use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};

use crate::header::Header;
use crate::record::{JobStatus, Record};
use crate::workload::Workload;
use crate::{HeaderError, MAX_TIME};

/// Why accounting output could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SacctError {
    /// The input could not be read.
    #[error("cannot read {source_name}")]
    Read {
        /// The input's name.
        source_name: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The header line lacks a required field.
    #[error(
        "{source_name}:1: the header has no {field} field (run sacct -P -o JobIDRaw,Submit,Start,End,AllocCPUS,...)"
    )]
    MissingField {
        /// The input's name.
        source_name: String,
        /// The field, as sacct names it.
        field: &'static str,
    },
    /// The header line names a field twice.
    #[error("{source_name}:1: the header names {field} twice (columns {first} and {second})")]
    RepeatedField {
        /// The input's name.
        source_name: String,
        /// The field as written the second time.
        field: String,
        /// 1-based column of its first occurrence.
        first: usize,
        /// 1-based column of the second.
        second: usize,
    },
    /// A time zone name is not in the time zone database.
    #[error("unknown time zone `{0}`")]
    UnknownZone(String),
    /// A line is invalid (strict mode; lenient mode skips and counts).
    #[error("{source_name}:{line}: {field} `{value}`: {message}")]
    Line {
        /// The input's name.
        source_name: String,
        /// 1-based line number.
        line: u64,
        /// The sacct field.
        field: String,
        /// Its value.
        value: String,
        /// What is wrong.
        message: String,
    },
    /// The SWF header could not be built.
    #[error("cannot build the SWF header")]
    Header(#[from] HeaderError),
}

/// The names behind the numbers given to users, groups, queues (QOS),
/// partitions, executables (job names) and accounts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SacctMapping {
    /// Per SWF field (`user`, `group`, `queue`, `partition`, `executable`),
    /// the names in number order: the name of number `i + 1` is at `i`.
    pub fields: BTreeMap<&'static str, Vec<String>>,
}

impl SacctMapping {
    /// (field, number, name) rows in field then number order.
    pub fn rows(&self) -> impl Iterator<Item = (&'static str, u64, &str)> + '_ {
        self.fields.iter().flat_map(|(field, names)| {
            names
                .iter()
                .enumerate()
                .map(move |(i, name)| (*field, i as u64 + 1, name.as_str()))
        })
    }

    fn number(&mut self, field: &'static str, name: &str) -> Option<u64> {
        if name.is_empty() {
            return None;
        }
        let names = self.fields.entry(field).or_default();
        let index = match names.iter().position(|n| n == name) {
            Some(index) => index,
            None => {
                names.push(name.to_owned());
                names.len() - 1
            }
        };
        Some(index as u64 + 1)
    }
}

/// What the import saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SacctSummary {
    /// Data lines read.
    pub lines: u64,
    /// Jobs still pending or running (no end time), left out.
    pub unfinished: u64,
    /// Jobs cancelled before they started (kept, times unknown).
    pub never_started: u64,
    /// Lines skipped in lenient mode.
    pub skipped: u64,
    /// Lenient mode: jobs kept with status unknown (-1) because their
    /// State is not one of Slurm's (strict mode refuses them).
    pub unknown_states: u64,
    /// The first of those: (1-based line, State as written).
    pub first_unknown_state: Option<(u64, String)>,
}

/// An imported accounting file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SacctImport {
    /// The jobs as SWF, in submission order (ties: job number).
    pub workload: Workload,
    /// The names behind the numbers.
    pub mapping: SacctMapping,
    /// Counts.
    pub summary: SacctSummary,
}

/// How to read the accounting output.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SacctOptions {
    /// The IANA time zone of the timestamps (default `UTC`).
    pub time_zone: String,
    /// Skip bad lines (counted) instead of failing.
    pub lenient: bool,
    /// The machine's processors, written as `MaxProcs` (sacct does not
    /// know the cluster's size).
    pub procs: Option<u64>,
}

impl Default for SacctOptions {
    fn default() -> Self {
        Self {
            time_zone: "UTC".to_owned(),
            lenient: false,
            procs: None,
        }
    }
}

impl SacctOptions {
    /// Strict reading of UTC timestamps, machine size unknown.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Column positions of the fields used.
struct Columns {
    /// Fields in the header: every line must have as many.
    count: usize,
    id: usize,
    submit: usize,
    start: usize,
    end: usize,
    alloc_cpus: usize,
    optional: BTreeMap<&'static str, usize>,
}

const OPTIONAL: [&str; 11] = [
    "State",
    "ReqCPUS",
    "NNodes",
    "Timelimit",
    "ReqMem",
    "User",
    "Group",
    "Account",
    "Partition",
    "QOS",
    "JobName",
];

impl Columns {
    fn new(header: &str, source_name: &str) -> Result<Self, SacctError> {
        let names: Vec<&str> = header.split('|').map(str::trim).collect();
        for (second, name) in names.iter().enumerate() {
            if let Some(first) = names[..second]
                .iter()
                .position(|n| n.eq_ignore_ascii_case(name))
            {
                return Err(SacctError::RepeatedField {
                    source_name: source_name.to_owned(),
                    field: (*name).to_owned(),
                    first: first + 1,
                    second: second + 1,
                });
            }
        }
        let find = |wanted: &[&'static str]| {
            wanted.iter().find_map(|w| {
                names
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(w))
                    .map(|p| (p, *w))
            })
        };
        let required = |wanted: &[&'static str]| {
            find(wanted)
                .map(|(p, _)| p)
                .ok_or(SacctError::MissingField {
                    source_name: source_name.to_owned(),
                    field: wanted[0],
                })
        };
        let mut optional = BTreeMap::new();
        for field in OPTIONAL {
            if let Some((position, _)) = find(&[field]) {
                optional.insert(field, position);
            }
        }
        Ok(Self {
            count: names.len(),
            id: required(&["JobIDRaw", "JobID"])?,
            submit: required(&["Submit"])?,
            start: required(&["Start"])?,
            end: required(&["End"])?,
            alloc_cpus: required(&["AllocCPUS", "NCPUS"])?,
            optional,
        })
    }
}

/// One line's problem: (field, value, message).
type Problem = (String, String, String);

fn problem(field: &str, value: &str, message: impl Into<String>) -> Problem {
    (field.to_owned(), value.to_owned(), message.into())
}

/// A sacct timestamp as seconds since the Unix epoch: the earlier and the
/// later reading of a local time the clocks showed twice (the hour when
/// daylight saving time ends), equal otherwise; `None` for
/// `Unknown`/`None`/empty. A local time the clocks skipped is an error:
/// sacct never prints one, so the time zone is not the log's.
fn timestamp(value: &str, zone: &TimeZone, field: &str) -> Result<Option<(i64, i64)>, Problem> {
    match value {
        "" | "Unknown" | "None" => Ok(None),
        _ => {
            let civil: DateTime = value
                .parse()
                .map_err(|_| problem(field, value, "not a time like 2026-11-24T22:10:05"))?;
            let ambiguous = zone.to_ambiguous_timestamp(civil);
            if let AmbiguousOffset::Gap { .. } = ambiguous.offset() {
                return Err(problem(
                    field,
                    value,
                    format!(
                        "no such local time in {} (its clocks skip it when daylight saving time \
                         begins): is --time-zone the log's?",
                        zone.iana_name().unwrap_or("this time zone")
                    ),
                ));
            }
            // Beyond jiff's range (years near -9999 or 9999).
            let reading = |t: Result<jiff::Timestamp, jiff::Error>| {
                t.map(|t| t.as_second()).map_err(|_| {
                    problem(
                        field,
                        value,
                        format!(
                            "outside the times that can be read, {EARLIEST_TIME} to \
                             {LATEST_TIME} UTC"
                        ),
                    )
                })
            };
            Ok(Some((
                reading(ambiguous.earlier())?,
                reading(ambiguous.later())?,
            )))
        }
    }
}

/// The reading of a repeated local time that keeps it at or after `after`
/// (the earlier one when both do): a job started at 02:50 and ended at
/// 02:10 of the repeated hour ran 20 minutes, not -40.
fn at_or_after((earlier, later): (i64, i64), after: i64) -> i64 {
    if earlier >= after { earlier } else { later }
}

/// `[days-]hours:minutes:seconds`, `minutes:seconds` or `minutes`, as
/// sacct prints `Timelimit`; `None` for no limit.
fn duration(value: &str, field: &str) -> Result<Option<u64>, Problem> {
    let bad = || problem(field, value, "not a duration like 1-00:00:00");
    match value {
        "" | "UNLIMITED" | "Partition_Limit" | "INVALID" | "Unknown" => return Ok(None),
        _ => {}
    }
    let (days, rest) = match value.split_once('-') {
        Some((d, rest)) => (d.parse::<u64>().map_err(|_| bad())?, rest),
        None => (0, value),
    };
    let parts: Vec<u64> = rest
        .split(':')
        .map(|p| p.parse::<u64>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let (h, m, s) = match (parts.as_slice(), value.contains('-')) {
        ([h, m, s], _) => (*h, *m, *s),
        ([h, m], true) => (*h, *m, 0),
        ([m, s], false) => (0, *m, *s),
        ([h], true) => (*h, 0, 0),
        ([m], false) => (0, *m, 0),
        _ => return Err(bad()),
    };
    let total = days
        .checked_mul(86400)
        .and_then(|d| d.checked_add(h.checked_mul(3600)?))
        .and_then(|t| t.checked_add(m.checked_mul(60)?))
        .and_then(|t| t.checked_add(s))
        .filter(|&t| t <= MAX_TIME)
        .ok_or_else(|| problem(field, value, "too long"))?;
    Ok(Some(total))
}

/// The most memory per processor a record holds, in KB: 2^53, beyond which
/// an `f64` (the unit conversions) no longer counts every kilobyte.
const MAX_MEMORY_KB: u64 = 1 << 53;

/// `ReqMem` in KB per processor: `4000M`, `4G`, `500Mc` (per CPU), `2Gn`
/// (per node).
fn memory_per_processor(
    value: &str,
    cpus: u64,
    nodes: Option<u64>,
) -> Result<Option<u64>, Problem> {
    if value.is_empty() || value == "0" {
        return Ok(None);
    }
    let bad = || problem("ReqMem", value, "not a memory size like 4000M or 2Gc");
    let (number, per_cpu) = match value.strip_suffix('c') {
        Some(rest) => (rest, true),
        None => (value.strip_suffix('n').unwrap_or(value), false),
    };
    let split = number
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(number.len());
    let (digits, unit) = number.split_at(split);
    let amount: f64 = digits.parse().map_err(|_| bad())?;
    let kb = amount
        * match unit {
            "K" | "" => 1.0,
            "M" => 1024.0,
            "G" => 1024.0 * 1024.0,
            "T" => 1024.0 * 1024.0 * 1024.0,
            _ => return Err(bad()),
        };
    let per_processor = if per_cpu {
        kb
    } else {
        // Per node: spread over the processors of one node.
        match nodes {
            Some(n) if n > 0 && cpus > 0 => kb * n as f64 / cpus as f64,
            _ => return Ok(None),
        }
    };
    if per_processor.round() > MAX_MEMORY_KB as f64 {
        return Err(problem(
            "ReqMem",
            value,
            format!("more than {MAX_MEMORY_KB} KB (2^53) per processor"),
        ));
    }
    Ok(Some(per_processor.round() as u64))
}

/// The earliest timestamp that can be read (jiff's `Timestamp::MIN`).
const EARLIEST_TIME: &str = "-009999-01-02T01:59:59";
/// The latest timestamp that can be read (jiff's `Timestamp::MAX`).
const LATEST_TIME: &str = "9999-12-30T22:00:00";

/// Slurm's job states (sacct's JOB STATE CODES), as sacct prints them,
/// with their SWF status (`None`: unknown, -1).
const STATES: [(&str, Option<JobStatus>); 15] = [
    ("BOOT_FAIL", Some(JobStatus::Failed)),
    ("CANCELLED", Some(JobStatus::Cancelled)),
    ("COMPLETED", Some(JobStatus::Completed)),
    ("DEADLINE", Some(JobStatus::Failed)),
    ("FAILED", Some(JobStatus::Failed)),
    ("NODE_FAIL", Some(JobStatus::Failed)),
    ("OUT_OF_MEMORY", Some(JobStatus::Failed)),
    ("PENDING", None),
    ("PREEMPTED", Some(JobStatus::Failed)),
    ("RUNNING", None),
    ("REQUEUED", None),
    ("RESIZING", None),
    ("REVOKED", None),
    ("SUSPENDED", None),
    ("TIMEOUT", Some(JobStatus::Failed)),
];

/// The SWF status of a State (`Ok(None)`: unknown, -1), or `Err` for a
/// State that is not Slurm's.
fn status(value: &str) -> Result<Option<JobStatus>, Problem> {
    // "CANCELLED by 1234": the state is the first word.
    let Some(state) = value.split_whitespace().next() else {
        return Ok(None);
    };
    match STATES.iter().find(|(name, _)| *name == state) {
        Some(&(_, status)) => Ok(status),
        None => Err(problem(
            "State",
            value,
            format!(
                "not a Slurm job state (one of {}); read leniently to keep the job with \
                 status unknown (-1)",
                STATES.map(|(name, _)| name).join(", ")
            ),
        )),
    }
}

/// One accounting line, before times are made relative.
struct Row {
    number: u64,
    submit: i64,
    start: Option<i64>,
    end: i64,
    record: Record,
}

/// Imports `sacct --parsable2` output; `source_name` names it in errors.
///
/// # Errors
/// Unreadable input, a header without a required field, an unknown time
/// zone, or (strict) a line with a bad value, named by line, field and
/// value.
pub fn import_sacct(
    input: impl BufRead,
    source_name: &str,
    options: &SacctOptions,
) -> Result<SacctImport, SacctError> {
    let zone = TimeZone::get(&options.time_zone)
        .map_err(|_| SacctError::UnknownZone(options.time_zone.clone()))?;
    let mut lines = input.lines();
    let read_error = |source| SacctError::Read {
        source_name: source_name.to_owned(),
        source,
    };
    let header = match lines.next() {
        Some(line) => line.map_err(read_error)?,
        None => String::new(),
    };
    let columns = Columns::new(&header, source_name)?;
    let mut mapping = SacctMapping::default();
    let mut summary = SacctSummary::default();
    let mut rows = Vec::new();
    for (index, line) in lines.enumerate() {
        let line = line.map_err(read_error)?;
        if line.trim().is_empty() {
            continue;
        }
        summary.lines += 1;
        let line_number = index as u64 + 2;
        match parse_row(
            &line,
            line_number,
            &columns,
            &zone,
            options.lenient,
            &mut mapping,
            &mut summary,
        ) {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => {}
            Err((field, value, message)) => {
                if options.lenient {
                    summary.skipped += 1;
                } else {
                    return Err(SacctError::Line {
                        source_name: source_name.to_owned(),
                        line: line_number,
                        field,
                        value,
                        message,
                    });
                }
            }
        }
    }
    rows.sort_by_key(|r| (r.submit, r.number));
    let first = rows.first().map_or(0, |r| r.submit);
    let last_end = rows.iter().map(|r| r.end).max().unwrap_or(first);
    let mut records = Vec::with_capacity(rows.len());
    for row in rows {
        let mut record = row.record;
        // Submit >= first by the sort; start >= submit was checked.
        record.submit_time = Some((row.submit - first) as u64);
        record.wait_time = row.start.map(|s| (s - row.submit) as u64);
        record.run_time = row.start.map(|s| (row.end - s) as u64);
        records.push(record);
    }
    let mut header = Header::new();
    header.set("Version", "2.2")?;
    header.set("Computer", "a Slurm cluster (sacct import)")?;
    header.set("UnixStartTime", first)?;
    header.set("TimeZoneString", &options.time_zone)?;
    let format = |t: i64| {
        jiff::Timestamp::from_second(t)
            .map(|t| {
                t.to_zoned(zone.clone())
                    .strftime("%a %b %e %H:%M:%S %Z %Y")
                    .to_string()
            })
            .unwrap_or_default()
    };
    header.set("StartTime", format(first))?;
    header.set("EndTime", format(last_end))?;
    header.set("MaxJobs", records.len())?;
    header.set("MaxRecords", records.len())?;
    if let Some(procs) = options.procs {
        header.set("MaxProcs", procs)?;
    }
    for (field, key) in [("queue", "Queues"), ("partition", "Partitions")] {
        if let Some(names) = mapping.fields.get(field) {
            let text: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{}={n}", i + 1))
                .collect();
            header.set(key, text.join(" "))?;
        }
    }
    header.add(
        "Note",
        format!(
            "imported from Slurm accounting (sacct) {source_name}; user, group, queue (QOS), \
             partition and executable (job name) numbers are listed in the mapping beside this file"
        ),
    )?;
    Ok(SacctImport {
        workload: Workload::new(header, records),
        mapping,
        summary,
    })
}

fn parse_row(
    line: &str,
    line_number: u64,
    columns: &Columns,
    zone: &TimeZone,
    lenient: bool,
    mapping: &mut SacctMapping,
    summary: &mut SacctSummary,
) -> Result<Option<Row>, Problem> {
    let fields: Vec<&str> = line.split('|').collect();
    if fields.len() != columns.count {
        // sacct --parsable2 cannot quote a `|` inside a value (a job name,
        // say), so the fields after it would shift silently.
        return Err(problem(
            "line",
            line,
            format!(
                "{} fields where the header has {} (a `|` inside a value? sacct cannot quote it)",
                fields.len(),
                columns.count
            ),
        ));
    }
    let get = |position: usize, name: &str| -> Result<&str, Problem> {
        fields
            .get(position)
            .map(|f| f.trim())
            .ok_or_else(|| problem(name, "", format!("missing ({} fields)", fields.len())))
    };
    let optional = |name: &'static str| -> &str {
        columns
            .optional
            .get(name)
            .and_then(|&p| fields.get(p))
            .map_or("", |f| f.trim())
    };
    let id = get(columns.id, "JobIDRaw")?;
    let number: u64 = id.parse().map_err(|_| {
        problem(
            "JobIDRaw",
            id,
            "not a job number (a job step? pass -X to sacct)",
        )
    })?;
    let submit = timestamp(get(columns.submit, "Submit")?, zone, "Submit")?
        .ok_or_else(|| problem("Submit", "Unknown", "every job has a submit time"))?
        .0;
    let start_text = get(columns.start, "Start")?;
    let start = timestamp(start_text, zone, "Start")?.map(|start| at_or_after(start, submit));
    let Some(end) = timestamp(get(columns.end, "End")?, zone, "End")? else {
        summary.unfinished += 1;
        return Ok(None);
    };
    let end = at_or_after(end, start.unwrap_or(submit));
    if let Some(start) = start {
        if start < submit {
            return Err(problem("Start", start_text, "before the submit time"));
        }
        if end < start {
            return Err(problem(
                "End",
                get(columns.end, "End")?,
                "before the start time",
            ));
        }
    } else {
        summary.never_started += 1;
    }
    let cpus_text = get(columns.alloc_cpus, "AllocCPUS")?;
    let cpus: u64 = cpus_text
        .parse()
        .map_err(|_| problem("AllocCPUS", cpus_text, "not a number"))?;
    let mut record = Record::unknown(number);
    record.allocated_processors = Some(cpus).filter(|_| start.is_some());
    let requested = optional("ReqCPUS");
    record.requested_processors = if requested.is_empty() {
        Some(cpus)
    } else {
        Some(
            requested
                .parse()
                .map_err(|_| problem("ReqCPUS", requested, "not a number"))?,
        )
    };
    record.requested_time = duration(optional("Timelimit"), "Timelimit")?;
    let nodes = optional("NNodes").parse().ok();
    record.requested_memory = memory_per_processor(optional("ReqMem"), cpus, nodes)?;
    record.status = match status(optional("State")) {
        Ok(status) => status,
        Err(_) if lenient => {
            summary.unknown_states += 1;
            summary
                .first_unknown_state
                .get_or_insert_with(|| (line_number, optional("State").to_owned()));
            None
        }
        Err(problem) => return Err(problem),
    };
    record.user_id = mapping.number("user", optional("User"));
    record.group_id = mapping.number("group", optional("Group"));
    record.queue_number = mapping.number("queue", optional("QOS"));
    record.partition_number = mapping.number("partition", optional("Partition"));
    record.executable_number = mapping.number("executable", optional("JobName"));
    mapping.number("account", optional("Account"));
    Ok(Some(Row {
        number,
        submit,
        start,
        end,
        record,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_sacct_prints_them() {
        let d = |v| duration(v, "Timelimit").unwrap();
        assert_eq!(d("00:10:00"), Some(600));
        assert_eq!(d("1-02:03:04"), Some(86400 + 7200 + 180 + 4));
        assert_eq!(d("2-12"), Some(2 * 86400 + 12 * 3600));
        assert_eq!(d("45"), Some(45 * 60));
        assert_eq!(d("05:30"), Some(330));
        assert_eq!(d("UNLIMITED"), None);
        assert_eq!(d("Partition_Limit"), None);
        assert!(duration("1:2:3:4", "Timelimit").is_err());
    }

    #[test]
    fn memory_per_processor_by_suffix() {
        // 500 MB per CPU = 512,000 KB.
        assert_eq!(
            memory_per_processor("500Mc", 4, None).unwrap(),
            Some(512_000)
        );
        // 4 GB per node, 2 nodes, 8 CPUs: 4 CPUs per node, 1 GB each.
        assert_eq!(
            memory_per_processor("4G", 8, Some(2)).unwrap(),
            Some(1_048_576)
        );
        assert_eq!(memory_per_processor("4Gn", 8, None).unwrap(), None);
        assert!(memory_per_processor("4X", 8, Some(1)).is_err());
    }

    #[test]
    fn states_map_to_swf_status() {
        let status = |v| status(v).unwrap();
        assert_eq!(status("COMPLETED"), Some(JobStatus::Completed));
        assert_eq!(status("CANCELLED by 0"), Some(JobStatus::Cancelled));
        assert_eq!(status("TIMEOUT"), Some(JobStatus::Failed));
        assert_eq!(status("RUNNING"), None);
        assert_eq!(status(""), None);
        assert!(super::status("WEIRD").is_err());
        // Slurm prints states in capitals.
        assert!(super::status("completed").is_err());
    }

    #[test]
    fn the_readable_range_is_jiffs() {
        // Whole seconds of jiff's Timestamp::MIN and MAX:
        // -377705023201 and 253402207200 (its error message's range).
        let second = |t: &str| {
            let civil: DateTime = t.parse().unwrap();
            civil
                .to_zoned(TimeZone::UTC)
                .unwrap()
                .timestamp()
                .as_second()
        };
        assert_eq!(second(EARLIEST_TIME), jiff::Timestamp::MIN.as_second());
        assert_eq!(second(LATEST_TIME), jiff::Timestamp::MAX.as_second());
        assert_eq!(second(LATEST_TIME), 253_402_207_200);
        // One second later cannot be read.
        let utc = TimeZone::UTC;
        assert!(timestamp("9999-12-30T22:00:00", &utc, "End").is_ok());
        let (field, value, message) = timestamp("9999-12-30T22:00:01", &utc, "End").unwrap_err();
        assert_eq!(
            (field.as_str(), value.as_str()),
            ("End", "9999-12-30T22:00:01")
        );
        assert_eq!(
            message,
            "outside the times that can be read, -009999-01-02T01:59:59 to \
             9999-12-30T22:00:00 UTC"
        );
    }
}

//! `schedsim stats FILE`: what a workload holds, and its offered load.
//!
//! Conventions (the simulator uses the same ones):
//! - size = requested processors (field 8) if known and positive, else
//!   allocated processors (field 5) if known and positive; runtime = field 4
//!   (run time);
//! - jobs without a size, runtime or submit time are left out of the load,
//!   the span and the percentiles, and counted (the simulator rejects them);
//! - span = last submit time - first submit time over the jobs (so
//!   multiplying every arrival time by f divides the load by f);
//! - offered load = sum(size * runtime) / (procs * span), with procs =
//!   `--procs` if given, else the header's MaxProcs, else MaxNodes;
//! - percentiles are nearest-rank: the p-th percentile of n sorted values is
//!   the value at 1-based rank ceil(p * n / 100);
//! - CWF elastic control commands (ET/RT/EP/RP lines) are not jobs: they are
//!   counted apart and left out of everything else.

use std::io::{self, Write};
use std::path::PathBuf;

use schedsim_run::{WorkloadFileError, WorkloadInput};
use serde::Serialize;
use workload_format::{FIELD_NAMES, ReadError, ReadOptions, Record};

use crate::CommandError;

/// Arguments of `schedsim stats`.
#[derive(Debug, Clone, clap::Args)]
pub struct StatsArgs {
    /// The workload file (.swf, .cwf, .jsonl as `convert` writes it, or
    /// Batsim .json, plain or gzip-compressed; JSON lines are read
    /// strictly, even with --lenient).
    pub file: PathBuf,
    /// Processors of the machine for the offered load (default: the header's
    /// MaxProcs, else MaxNodes).
    #[arg(long, value_name = "N", value_parser = schedsim_run::whole_number::<u64>(1))]
    pub procs: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Skip bad lines (counted) instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
}

impl StatsArgs {
    /// Text statistics of `file` with the machine size from its header.
    pub fn new(file: PathBuf) -> Self {
        Self {
            file,
            procs: None,
            json: false,
            lenient: false,
        }
    }
}

/// Why `stats` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// The file could not be read, or holds a bad line or job (for SWF,
    /// CWF and Batsim's JSON, in strict mode only).
    #[error(transparent)]
    Read(#[from] WorkloadFileError),
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl CommandError for StatsError {}

/// Nearest-rank percentiles of a set of values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    /// How many values.
    pub count: u64,
    /// Smallest value.
    pub min: u64,
    /// 25th percentile.
    pub p25: u64,
    /// Median.
    pub p50: u64,
    /// 75th percentile.
    pub p75: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest value.
    pub max: u64,
}

impl Percentiles {
    /// Percentiles of `values` (sorted here); `None` when empty.
    pub fn of(values: &mut [u64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        values.sort_unstable();
        let n = values.len();
        let at = |p: usize| {
            // Rank ceil(p * n / 100), at least 1.
            let rank = (p * n).div_ceil(100).max(1);
            values[rank - 1]
        };
        Some(Self {
            count: n as u64,
            min: values[0],
            p25: at(25),
            p50: at(50),
            p75: at(75),
            p90: at(90),
            p99: at(99),
            max: values[n - 1],
        })
    }
}

/// Jobs left out of the load and percentiles, by reason (a job can have
/// several reasons, so these may add up to more than `total`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Excluded {
    /// Jobs left out.
    pub total: u64,
    /// No size: neither requested (field 8) nor allocated (field 5)
    /// processors are known and positive.
    pub unknown_size: u64,
    /// Run time unknown.
    pub unknown_run_time: u64,
    /// Submit time unknown.
    pub unknown_submit_time: u64,
}

/// How many records have `-1` in one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldUnknowns {
    /// The 1-based field number.
    pub field: usize,
    /// The field's name.
    pub name: &'static str,
    /// Records with the field unknown (for fields 19-21: among CWF lines).
    pub unknown: u64,
}

/// The statistics `stats` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Stats {
    /// The file as given.
    pub file: String,
    /// Data lines read.
    pub records: u64,
    /// Job submissions (SWF lines and CWF `S` lines).
    pub jobs: u64,
    /// CWF elastic control commands (ET/RT/EP/RP), not counted as jobs.
    pub commands: u64,
    /// Earliest job submit time.
    pub first_submit: Option<u64>,
    /// Latest job submit time.
    pub last_submit: Option<u64>,
    /// `last_submit - first_submit`, seconds.
    pub span: Option<u64>,
    /// The header's MaxProcs.
    pub max_procs: Option<u64>,
    /// The header's MaxNodes.
    pub max_nodes: Option<u64>,
    /// Processors used for the load.
    pub procs: Option<u64>,
    /// Where `procs` came from: `--procs`, `MaxProcs` or `MaxNodes`.
    pub procs_from: Option<&'static str>,
    /// sum(size * runtime) / (procs * span).
    pub offered_load: Option<f64>,
    /// Why the load is missing, when it is.
    pub offered_load_unavailable: Option<String>,
    /// Jobs in the load and percentiles.
    pub jobs_in_load: u64,
    /// Jobs left out of the load and percentiles.
    pub excluded: Excluded,
    /// Job size (processors) percentiles over the jobs in the load.
    pub size: Option<Percentiles>,
    /// Run time (seconds) percentiles over the jobs in the load.
    pub run_time: Option<Percentiles>,
    /// Unknown values per field, over all records.
    pub unknown_values: Vec<FieldUnknowns>,
    /// Lines skipped in lenient mode.
    pub skipped_lines: u64,
    /// What `simulate` warns of in the file: Batsim ids replaced by
    /// numbers, header keys given twice with different values; and jobs
    /// wider than the machine `procs` names.
    pub warnings: Vec<String>,
    /// The conventions, in words.
    pub conventions: &'static str,
}

const CONVENTIONS: &str = "size = requested processors (field 8) if known and positive, else \
allocated processors (field 5) if known and positive; runtime = field 4; jobs without a size, \
runtime or submit time are left out of the load, span and percentiles; span = last submit - first submit; offered load = \
sum(size*runtime) / (procs*span); percentiles are nearest-rank; CWF commands are not jobs";

/// The job size by the convention: requested processors if known and
/// positive, else allocated processors if known and positive.
pub(crate) fn job_size(record: &Record) -> Option<u64> {
    let positive = |value: Option<u64>| value.filter(|&v| v > 0);
    positive(record.requested_processors).or(positive(record.allocated_processors))
}

/// Reads `args.file` (streaming), computes the statistics, writes them (text
/// or JSON) to `out` and returns them.
pub fn stats(args: &StatsArgs, out: &mut dyn Write) -> Result<Stats, StatsError> {
    let options = ReadOptions::lenient_if(args.lenient);
    let mut input = schedsim_run::open_workload(&args.file, &options)?;
    let records: Box<dyn Iterator<Item = Result<Record, ReadError>>> = match &mut input {
        // The records are not needed after this loop: moved, not copied.
        WorkloadInput::Whole(workload) => {
            Box::new(std::mem::take(&mut workload.records).into_iter().map(Ok))
        }
        WorkloadInput::Stream(reader) => Box::new(reader.by_ref()),
    };
    let mut unknown = [0u64; 21];
    let mut jobs = 0u64;
    let mut commands = 0u64;
    let mut first_submit: Option<u64> = None;
    let mut last_submit: Option<u64> = None;
    let mut excluded = Excluded::default();
    let mut area: u128 = 0;
    let mut sizes = Vec::new();
    let mut run_times = Vec::new();
    for record in records {
        let record = record.map_err(WorkloadFileError::from)?;
        count_unknowns(&record, &mut unknown);
        if record.is_command() {
            commands += 1;
            continue;
        }
        jobs += 1;
        let size = job_size(&record);
        match (size, record.run_time, record.submit_time) {
            (Some(size), Some(run), Some(t)) => {
                first_submit = Some(first_submit.map_or(t, |f| f.min(t)));
                last_submit = Some(last_submit.map_or(t, |l| l.max(t)));
                area += u128::from(size) * u128::from(run);
                sizes.push(size);
                run_times.push(run);
            }
            _ => {
                excluded.total += 1;
                excluded.unknown_size += u64::from(size.is_none());
                excluded.unknown_run_time += u64::from(record.run_time.is_none());
                excluded.unknown_submit_time += u64::from(record.submit_time.is_none());
            }
        }
    }
    let (header, summary) = match input {
        WorkloadInput::Whole(workload) => {
            let workload = *workload;
            (workload.header, workload.summary)
        }
        WorkloadInput::Stream(reader) => reader.into_parts(),
    };
    let span = first_submit.zip(last_submit).map(|(f, l)| l - f);
    let (procs, procs_from) = match (args.procs, header.max_procs(), header.max_nodes()) {
        (Some(p), _, _) => (Some(p), Some("--procs")),
        (None, Some(p), _) if p > 0 => (Some(p), Some("MaxProcs")),
        (None, _, Some(n)) if n > 0 => (Some(n), Some("MaxNodes")),
        _ => (None, None),
    };
    let (offered_load, offered_load_unavailable) = match (procs, span) {
        (None, _) => (
            None,
            Some(
                "machine size unknown: no --procs, and no MaxProcs or MaxNodes in the header"
                    .to_string(),
            ),
        ),
        (_, None) => (None, Some("no job with a known submit time".to_string())),
        (_, Some(0)) => (
            None,
            Some("time span is 0: all jobs are submitted at the same time".to_string()),
        ),
        (Some(p), Some(s)) => {
            // Precision: area and p*s are exact integers; one rounding each.
            #[allow(clippy::cast_precision_loss)]
            let load = area as f64 / (u128::from(p) * u128::from(s)) as f64;
            (Some(load), None)
        }
    };
    // Statistics do not name jobs: repeated job numbers do not matter.
    let mut warnings = schedsim_run::input_warnings(&summary, None, &header);
    // Sorts the sizes: the jobs wider than the machine come last.
    let size = Percentiles::of(&mut sizes);
    if let (Some(p), Some(size)) = (procs, &size) {
        let wider = sizes.len() - sizes.partition_point(|&s| s <= p);
        if wider > 0 {
            let widest = size.max;
            warnings.push(format!(
                "warning: jobs wider than the machine's {p} processors (from {}): {wider} of \
                 {} in the load, the widest {widest}; the offered load counts them, simulate \
                 refuses them and simulate --lenient drops them",
                procs_from.unwrap_or("?"),
                sizes.len()
            ));
        }
    }
    let stats = Stats {
        file: args.file.display().to_string(),
        records: summary.records,
        jobs,
        commands,
        first_submit,
        last_submit,
        span,
        max_procs: header.max_procs(),
        max_nodes: header.max_nodes(),
        procs,
        procs_from,
        offered_load,
        offered_load_unavailable,
        jobs_in_load: sizes.len() as u64,
        excluded,
        size,
        run_time: Percentiles::of(&mut run_times),
        unknown_values: (1..=21)
            .filter(|&f| f < 19 || summary.cwf_records > 0)
            .map(|field| FieldUnknowns {
                field,
                name: FIELD_NAMES[field - 1],
                unknown: unknown[field - 1],
            })
            .collect(),
        skipped_lines: summary.skipped_lines,
        warnings,
        conventions: CONVENTIONS,
    };
    let written = if args.json {
        serde_json::to_writer_pretty(&mut *out, &stats)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write_text(&stats, out)
    };
    written.map_err(StatsError::Output)?;
    Ok(stats)
}

fn count_unknowns(r: &Record, unknown: &mut [u64; 21]) {
    let fields = [
        r.submit_time,
        r.wait_time,
        r.run_time,
        r.allocated_processors,
        r.average_cpu_time.map(|_| 0),
        r.used_memory,
        r.requested_processors,
        r.requested_time,
        r.requested_memory,
        r.status.map(|_| 0),
        r.user_id,
        r.group_id,
        r.executable_number,
        r.queue_number,
        r.partition_number,
        r.preceding_job_number,
        r.think_time,
    ];
    // Field 1 (job number) is never unknown; fields 2..=18 follow.
    for (slot, value) in unknown[1..18].iter_mut().zip(fields) {
        *slot += u64::from(value.is_none());
    }
    if let Some(c) = r.cwf {
        unknown[18] += u64::from(c.requested_start_time.is_none());
        unknown[20] += u64::from(c.amount.is_none());
    }
}

fn write_text(s: &Stats, out: &mut dyn Write) -> io::Result<()> {
    let opt = |v: Option<u64>| v.map_or("unknown".to_string(), |v| v.to_string());
    writeln!(out, "file:          {}", s.file)?;
    writeln!(
        out,
        "jobs:          {} ({} records; {} CWF commands counted apart)",
        s.jobs, s.records, s.commands
    )?;
    match s.span {
        #[allow(clippy::cast_precision_loss)]
        Some(span) => writeln!(
            out,
            "time span:     {span} s ({:.1} days), submit times {} .. {}",
            span as f64 / 86_400.0,
            opt(s.first_submit),
            opt(s.last_submit)
        )?,
        None => writeln!(
            out,
            "time span:     unknown (no job has a known submit time, size and run time)"
        )?,
    }
    writeln!(
        out,
        "machine:       MaxProcs {}, MaxNodes {}",
        opt(s.max_procs),
        opt(s.max_nodes)
    )?;
    match (s.offered_load, &s.offered_load_unavailable) {
        (Some(load), _) => writeln!(
            out,
            "offered load:  {load:.4} (procs {} from {})",
            opt(s.procs),
            s.procs_from.unwrap_or("?")
        )?,
        (None, reason) => writeln!(
            out,
            "offered load:  unavailable: {}",
            reason.as_deref().unwrap_or("unknown reason")
        )?,
    }
    writeln!(
        out,
        "jobs in load:  {} ({} left out: {} without size, {} unknown run time, {} unknown submit time)",
        s.jobs_in_load,
        s.excluded.total,
        s.excluded.unknown_size,
        s.excluded.unknown_run_time,
        s.excluded.unknown_submit_time
    )?;
    for (what, p) in [("size (procs)", &s.size), ("run time (s)", &s.run_time)] {
        match p {
            Some(p) => writeln!(
                out,
                "{what:<14} min {}  p25 {}  p50 {}  p75 {}  p90 {}  p99 {}  max {}",
                p.min, p.p25, p.p50, p.p75, p.p90, p.p99, p.max
            )?,
            None => writeln!(out, "{what:<14} no jobs")?,
        }
    }
    let unknown: Vec<String> = s
        .unknown_values
        .iter()
        .filter(|u| u.unknown > 0)
        .map(|u| format!("  field {:>2} ({}): {}", u.field, u.name, u.unknown))
        .collect();
    if unknown.is_empty() {
        writeln!(out, "unknown (-1):  none")?;
    } else {
        writeln!(out, "unknown (-1) values per field:")?;
        for line in unknown {
            writeln!(out, "{line}")?;
        }
    }
    if s.skipped_lines > 0 {
        writeln!(out, "skipped lines: {} (lenient mode)", s.skipped_lines)?;
    }
    for warning in &s.warnings {
        writeln!(out, "{warning}")?;
    }
    writeln!(out, "conventions:   {}", s.conventions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_falls_back_to_allocated_and_incomplete_jobs_are_left_out() {
        let dir = std::env::temp_dir().join(format!("schedsim-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rules.swf");
        // Job 1: requested 0 -> allocated 4. Job 2: requested 2. Job 3: no
        // runtime. Job 4: no submit time. Job 5: no processors at all.
        std::fs::write(
            &file,
            "; MaxProcs: 8\n\
             1 0 -1 10 4 -1 -1 0 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
             2 10 -1 10 5 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
             3 20 -1 -1 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
             4 -1 -1 10 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
             5 30 -1 10 0 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
        )
        .unwrap();
        let result = stats(&StatsArgs::new(file.clone()), &mut Vec::new()).unwrap();
        // Load = (4*10 + 2*10) / (8 procs * span (10 - 0)) = 60 / 80.
        assert_eq!(result.offered_load, Some(0.75));
        assert_eq!(result.jobs_in_load, 2);
        assert_eq!(result.excluded.total, 3);
        assert_eq!(result.excluded.unknown_size, 1);
        assert_eq!(result.excluded.unknown_run_time, 1);
        assert_eq!(result.excluded.unknown_submit_time, 1);
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);
        // --procs 3 leaves job 1 (4 processors) wider than the machine.
        let narrow = StatsArgs {
            procs: Some(3),
            ..StatsArgs::new(file)
        };
        let mut text = Vec::new();
        let narrowed = stats(&narrow, &mut text).unwrap();
        assert_eq!(
            narrowed.warnings,
            [
                "warning: jobs wider than the machine's 3 processors (from --procs): 1 of 2 in \
              the load, the widest 4; the offered load counts them, simulate refuses them and \
              simulate --lenient drops them"
            ]
        );
        assert!(
            String::from_utf8(text)
                .unwrap()
                .contains(&narrowed.warnings[0])
        );
    }
}

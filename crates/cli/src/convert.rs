//! `schedsim convert IN OUT`: SWF <-> CWF <-> JSON lines <-> Batsim JSON,
//! by file name.
//!
//! Formats: `.swf`, `.cwf`, `.jsonl`, `.json` (Batsim's workloads: delay
//! profiles; see `workload_format`'s batsim module for the mapping), each
//! optionally followed by `.gz` (SWF/CWF/JSON-lines output is
//! gzip-compressed then; Batsim output is plain JSON; input is told apart
//! by its content). Batsim output holds what SWF holds of a job's timing
//! and size, so CWF information is refused or dropped as for SWF; the
//! known values it has no place for (users, status, queues..., other
//! allocated than requested processors, header keys, comments) are named
//! in the report, per field. A job Batsim cannot run (no submit time, run
//! time or processor count) is refused, or with `--lenient` left out and
//! counted, as `simulate` drops it.
//!
//! Every output file is written under a temporary name in its folder and
//! renamed once complete: a failure or a kill never leaves a shorter file
//! that reads as a valid, smaller workload.
//!
//! Slurm accounting: `.sacct` input is the output of
//!
//! ```text
//! sacct -a -X -P --starttime 2026-01-01 --endtime 2026-02-01 \
//!   -o JobIDRaw,Submit,Start,End,State,ExitCode,AllocCPUS,ReqCPUS,NNodes,Timelimit,ReqMem,User,Group,Account,Partition,QOS,JobName \
//!   > cluster.sacct
//! schedsim convert cluster.sacct cluster.swf --procs 1024 --time-zone Europe/Berlin
//! ```
//!
//! (see `workload_format`'s sacct module for the field mapping). User,
//! group, QOS (queue), partition, job name (executable) and account names
//! become numbers; `OUT.mapping.csv` beside the output lists them
//! (`field,number,name`).
//! SWF and CWF input are read alike (a file may mix 18- and 21-field lines).
//! To CWF, SWF lines get `-1 S -1`. To SWF, a CWF line with information SWF
//! cannot hold (an elastic control command, a requested start time, an
//! amount) is refused unless `--drop-cwf` is given; then the commands and
//! those fields are dropped and counted.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use lublin_model::EstimateModelError;
use serde::Serialize;
use workload_format::{
    BatsimError, BatsimUnwritable, CwfFields, JsonLinesError, ReadError, ReadOptions, Record,
    RequestType, SacctError, SacctOptions, Workload, WriteError, create_path, import_sacct,
    open_input, read_batsim_path, read_json_lines_path, read_path, write_batsim_path,
    write_json_lines, write_workload,
};

use schedsim_run::{plural, write_atomically};
use workload_format::field_name;

use crate::CommandError;
use crate::estimates::{
    EstimateModelChoice, EstimatesReport, estimates_note, fill_estimates, parse_estimate_model,
};

/// Arguments of `schedsim convert`.
#[derive(Debug, Clone, clap::Args)]
pub struct ConvertArgs {
    /// Input file: .swf, .cwf, .jsonl or Batsim .json, optionally .gz.
    pub input: PathBuf,
    /// Output file: .swf, .cwf, .jsonl (optionally .gz, then compressed) or
    /// Batsim .json.
    pub output: PathBuf,
    /// Converting to SWF: drop CWF commands (ET/RT/EP/RP lines), requested
    /// start times and amounts instead of refusing; the counts are printed.
    #[arg(long)]
    pub drop_cwf: bool,
    /// Skip bad lines of SWF/CWF/sacct input, or Batsim jobs without a
    /// delay profile (counted), instead of stopping; sacct jobs whose State
    /// is not Slurm's are kept with status unknown (counted). To Batsim's
    /// JSON, leave out the jobs it cannot run (no submit time, run time or
    /// processor count; counted).
    #[arg(long)]
    pub lenient: bool,
    /// sacct input: the IANA time zone its timestamps are in (sacct prints
    /// the local time of the machine it ran on).
    #[arg(long, value_name = "ZONE", default_value = "UTC")]
    pub time_zone: String,
    /// sacct input: the cluster's processors, written as MaxProcs.
    #[arg(long, value_name = "P", value_parser = schedsim_run::whole_number::<u64>(1))]
    pub procs: Option<u64>,
    /// Replace the requested time (field 9) of every job with a known
    /// runtime by an estimate model: `exact`, `f:F` (optionally
    /// `,rounded`) or `tsafrir[:max=D,hint=D@S,bins=linear|power|K,truncate]`
    /// (Tsafrir-Etsion-Feitelson; maximum by default the longest runtime
    /// rounded up to an hour). For traces without estimates.
    #[arg(long, value_name = "MODEL", value_parser = parse_estimate_model)]
    pub estimates: Option<EstimateModelChoice>,
    /// The seed of --estimates.
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "estimates",
          value_parser = schedsim_run::whole_number::<u64>(0))]
    pub estimates_seed: u64,
}

impl ConvertArgs {
    /// Convert `input` to `output`, refusing to drop CWF information.
    pub fn new(input: PathBuf, output: PathBuf) -> Self {
        Self {
            input,
            output,
            drop_cwf: false,
            lenient: false,
            time_zone: "UTC".to_owned(),
            procs: None,
            estimates: None,
            estimates_seed: 1,
        }
    }
}

/// A file format, from the file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Format {
    /// Standard Workload Format, 18 fields.
    Swf,
    /// Cloud Workload Format, 21 fields.
    Cwf,
    /// JSON lines (layout in the `schedsim_cli` crate docs).
    JsonLines,
    /// Batsim's JSON workload (delay profiles).
    BatsimJson,
    /// Slurm accounting, `sacct --parsable2` output (input only).
    Sacct,
}

impl Format {
    /// The format of `path` by its name: `.swf`, `.cwf`, `.jsonl`, `.json`
    /// (Batsim), `.sacct` (Slurm accounting), each optionally followed by
    /// `.gz`.
    pub fn of(path: &Path) -> Option<Self> {
        let name = path.file_name()?.to_str()?;
        let name = workload_format::without_gz(name);
        let (_, extension) = name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "swf" => Some(Self::Swf),
            "cwf" => Some(Self::Cwf),
            "jsonl" => Some(Self::JsonLines),
            "json" => Some(Self::BatsimJson),
            "sacct" => Some(Self::Sacct),
            _ => None,
        }
    }
}

/// What `convert` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ConvertSummary {
    /// Records written.
    pub records: u64,
    /// CWF command lines dropped (`--drop-cwf`).
    pub dropped_commands: u64,
    /// Requested start times dropped (`--drop-cwf`).
    pub dropped_start_times: u64,
    /// Amounts of submissions dropped (`--drop-cwf`).
    pub dropped_amounts: u64,
    /// Lines (SWF/CWF input) or jobs (Batsim input) skipped in lenient
    /// mode.
    pub skipped_lines: u64,
    /// Batsim input: jobs skipped in lenient mode by reason.
    pub skipped_jobs: std::collections::BTreeMap<String, u64>,
    /// Batsim output: jobs left out in lenient mode by reason (`no
    /// processor count`...), those Batsim cannot run.
    pub left_out_jobs: std::collections::BTreeMap<String, u64>,
    /// sacct input: jobs still pending or running, left out.
    pub unfinished: u64,
    /// sacct input: jobs cancelled before they started (kept).
    pub never_started: u64,
    /// sacct input (--lenient): the warning for jobs kept with status
    /// unknown (-1) because their State is not Slurm's, if any.
    pub unknown_states: Option<String>,
    /// sacct input: the name mapping written beside the output.
    pub mapping: Option<PathBuf>,
    /// The warnings `simulate` gives about the input: Batsim ids replaced
    /// by numbers, job numbers given to more than one job (of the records
    /// written), header keys given twice with different values.
    pub warnings: Vec<String>,
    /// What the reader rounded to whole numbers (Batsim's float times,
    /// say), if anything.
    pub rounded: Option<String>,
    /// What --estimates did.
    pub estimates: Option<EstimatesReport>,
    /// Batsim output: the known values it has no place for (per field,
    /// the jobs that had one), header keys and comments, if any.
    pub not_written: Option<String>,
}

/// `OUT.mapping.csv` beside the output: its name without `.gz` and the
/// format's extension.
pub fn mapping_path(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("workload");
    let name = workload_format::without_gz(name);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    output.with_file_name(format!("{stem}.mapping.csv"))
}

/// Writes `field,number,name` rows.
fn write_mapping(mapping: &workload_format::SacctMapping, path: &Path) -> Result<(), ConvertError> {
    let fail = |source: io::Error| ConvertError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut rows = vec![["field".to_owned(), "number".to_owned(), "name".to_owned()]];
    rows.extend(
        mapping
            .rows()
            .map(|(field, number, name)| [field.to_owned(), number.to_string(), name.to_owned()]),
    );
    for row in rows {
        writer.write_record(&row).map_err(|e| fail(e.into()))?;
    }
    let bytes = writer.into_inner().map_err(|e| fail(e.into_error()))?;
    write_atomically(path, &bytes).map_err(fail)
}

/// Why `convert` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// A file name does not tell its format.
    #[error("cannot tell the format of {} from its name (use .swf, .cwf, .jsonl, .json or .sacct, optionally followed by .gz)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// Reading SWF/CWF input failed.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Reading or writing JSON lines failed.
    #[error(transparent)]
    JsonLines(#[from] JsonLinesError),
    /// Reading or writing a Batsim workload failed.
    #[error(transparent)]
    Batsim(#[from] BatsimError),
    /// Importing Slurm accounting failed.
    #[error(transparent)]
    Sacct(#[from] SacctError),
    /// sacct output is an input format only.
    #[error("{}: sacct output can be read, not written; write .swf, .cwf, .jsonl or .json", path.display())]
    SacctOutput {
        /// The output file.
        path: PathBuf,
    },
    /// The output file could not be created, or a record cannot be written
    /// (a field 6 value SWF cannot hold).
    #[error(transparent)]
    Output(WriteError),
    /// Writing the output file failed.
    #[error("cannot write {}", path.display())]
    Write {
        /// The output file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The input holds CWF information that SWF or Batsim JSON output
    /// would lose.
    #[error(
        "{} holds CWF information that {target} cannot hold: {commands} command lines (ET/RT/EP/RP), \
         {start_times} requested start times, {amounts} amounts; write .cwf or .jsonl, or pass \
         --drop-cwf to drop them",
        input.display()
    )]
    CwfLoss {
        /// The input file.
        input: PathBuf,
        /// The output format (`SWF`, `Batsim's JSON`).
        target: &'static str,
        /// Elastic control command lines.
        commands: u64,
        /// Submissions with a requested start time.
        start_times: u64,
        /// Submissions with an amount.
        amounts: u64,
    },
    /// A job of the input cannot be a Batsim job (without --lenient).
    #[error(
        "cannot convert {} to Batsim's JSON: job {job_number} has {problem}; pass --lenient to \
         leave out the jobs Batsim cannot run (as simulate drops them), or convert to .swf to \
         keep them",
        input.display()
    )]
    BatsimJob {
        /// The input file.
        input: PathBuf,
        /// The job's number (field 1).
        job_number: u64,
        /// What it lacks, with the fields' values.
        problem: String,
    },
    /// --estimates failed.
    #[error("cannot fill the estimates of {}", input.display())]
    Estimates {
        /// The input file.
        input: PathBuf,
        /// Why.
        source: EstimateModelError,
    },
    /// The header note naming the estimate model could not be added.
    #[error("cannot add the estimate model's note to the header")]
    Note(#[source] workload_format::HeaderError),
    /// The report could not be written.
    #[error("cannot write the report")]
    Report(#[source] io::Error),
}

impl CommandError for ConvertError {}

/// Converts `args.input` to `args.output`, prints a one-line summary (and
/// what was dropped or skipped) to `out`, and returns the counts.
pub fn convert(args: &ConvertArgs, out: &mut dyn Write) -> Result<ConvertSummary, ConvertError> {
    let format = |path: &Path| {
        Format::of(path).ok_or_else(|| ConvertError::UnknownFormat {
            path: path.to_path_buf(),
        })
    };
    let (from, to) = (format(&args.input)?, format(&args.output)?);
    if to == Format::Sacct {
        return Err(ConvertError::SacctOutput {
            path: args.output.clone(),
        });
    }
    let mut batsim_summary = None;
    let mut sacct = None;
    let mut workload = if from == Format::JsonLines {
        read_json_lines_path(&args.input)?
    } else if from == Format::BatsimJson {
        let (workload, batsim) = read_batsim_path(&args.input, args.lenient)?;
        batsim_summary = Some(batsim);
        workload
    } else if from == Format::Sacct {
        let mut options = SacctOptions::new();
        options.time_zone = args.time_zone.clone();
        options.lenient = args.lenient;
        options.procs = args.procs;
        let source_name = args.input.display().to_string();
        let import = import_sacct(open_input(&args.input)?, &source_name, &options)?;
        let workload = import.workload.clone();
        sacct = Some(import);
        workload
    } else {
        let options = ReadOptions::lenient_if(args.lenient);
        read_path(&args.input, &options)?
    };
    let mut summary = ConvertSummary {
        skipped_lines: workload.summary.skipped_lines,
        rounded: schedsim_run::rounded_values(&workload.summary),
        ..ConvertSummary::default()
    };
    if let Some(batsim) = batsim_summary {
        summary.skipped_jobs = batsim.skipped;
    }
    if let Some(import) = &sacct {
        summary.skipped_lines = import.summary.skipped;
        summary.unfinished = import.summary.unfinished;
        summary.never_started = import.summary.never_started;
        if let Some((line, state)) = &import.summary.first_unknown_state {
            summary.unknown_states = Some(format!(
                "warning: {} with a State that is not Slurm's kept with status unknown (-1) \
                 (--lenient); first: {}:{line}: State `{state}`",
                plural(import.summary.unknown_states, "job"),
                args.input.display()
            ));
        }
    }
    if let Some(model) = &args.estimates {
        let report = fill_estimates(&mut workload.records, model, args.estimates_seed).map_err(
            |source| ConvertError::Estimates {
                input: args.input.clone(),
                source,
            },
        )?;
        let note = estimates_note(model, &report, args.estimates_seed);
        workload
            .header
            .add("Note", note)
            .map_err(ConvertError::Note)?;
        summary.estimates = Some(report);
    }
    match to {
        Format::Swf => to_swf(&mut workload, args, &mut summary, "SWF")?,
        Format::BatsimJson => {
            to_swf(&mut workload, args, &mut summary, "Batsim's JSON")?;
            summary.left_out_jobs = batsim_runnable(&mut workload, args)?;
            summary.not_written = batsim_losses(&workload);
        }
        Format::Cwf => {
            for record in &mut workload.records {
                record.cwf.get_or_insert(CwfFields {
                    requested_start_time: None,
                    request_type: RequestType::Submit,
                    amount: None,
                });
            }
        }
        // sacct output is refused above.
        Format::JsonLines | Format::Sacct => {}
    }
    summary.records = workload.records.len() as u64;
    let record_warnings = schedsim_run::repeated_job_numbers_in(workload.records.iter())
        .into_iter()
        .chain(schedsim_run::EarlyRequestedStarts::of(workload.records.iter()).warning());
    summary.warnings =
        schedsim_run::input_warnings(&workload.summary, record_warnings, &workload.header);
    write(&workload, to, &args.output)?;
    if let Some(import) = &sacct {
        let path = mapping_path(&args.output);
        write_mapping(&import.mapping, &path)?;
        summary.mapping = Some(path);
    }
    report(args, &summary, out).map_err(ConvertError::Report)?;
    Ok(summary)
}

/// Strips CWF fields, refusing (without `--drop-cwf`) to lose information.
fn to_swf(
    workload: &mut Workload,
    args: &ConvertArgs,
    summary: &mut ConvertSummary,
    target: &'static str,
) -> Result<(), ConvertError> {
    for cwf in workload.records.iter().filter_map(|r| r.cwf) {
        if cwf.request_type != RequestType::Submit {
            summary.dropped_commands += 1;
        } else {
            summary.dropped_start_times += u64::from(cwf.requested_start_time.is_some());
            summary.dropped_amounts += u64::from(cwf.amount.is_some());
        }
    }
    let lossy = summary.dropped_commands + summary.dropped_start_times + summary.dropped_amounts;
    if lossy > 0 && !args.drop_cwf {
        return Err(ConvertError::CwfLoss {
            input: args.input.clone(),
            target,
            commands: summary.dropped_commands,
            start_times: summary.dropped_start_times,
            amounts: summary.dropped_amounts,
        });
    }
    retain_records(workload, |record| !record.is_command());
    for record in &mut workload.records {
        record.cwf = None;
    }
    Ok(())
}

/// Keeps the records `keep` accepts, moving each comment to stay before the
/// same surviving record.
fn retain_records(workload: &mut Workload, mut keep: impl FnMut(&Record) -> bool) {
    let old = std::mem::take(&mut workload.records);
    let mut kept_before = Vec::with_capacity(old.len() + 1);
    for record in old {
        kept_before.push(workload.records.len());
        if keep(&record) {
            workload.records.push(record);
        }
    }
    kept_before.push(workload.records.len());
    for comment in &mut workload.comments {
        comment.before_record = kept_before[comment.before_record.min(kept_before.len() - 1)];
    }
}

/// Refuses the first job Batsim cannot run, naming it and its fields, or
/// with --lenient leaves every such job out; returns the counts left out
/// by reason. Checked before anything is written, so the refusal leaves no
/// file.
fn batsim_runnable(
    workload: &mut Workload,
    args: &ConvertArgs,
) -> Result<std::collections::BTreeMap<String, u64>, ConvertError> {
    let mut left_out = std::collections::BTreeMap::new();
    if !args.lenient {
        if let Some((record, (_, problem))) = workload
            .records
            .iter()
            .find_map(|r| batsim_problem(r).map(|p| (r, p)))
        {
            return Err(ConvertError::BatsimJob {
                input: args.input.clone(),
                job_number: record.job_number,
                problem,
            });
        }
        return Ok(left_out);
    }
    retain_records(workload, |record| match batsim_problem(record) {
        Some((reason, _)) => {
            *left_out.entry(reason.to_owned()).or_insert(0) += 1;
            false
        }
        None => true,
    });
    Ok(left_out)
}

/// Why `workload_to_batsim_json` would refuse `record`
/// ([`BatsimUnwritable::of`]): a short reason and the reason with the
/// fields' values.
fn batsim_problem(record: &Record) -> Option<(&'static str, String)> {
    let value = |v: Option<u64>| v.map_or_else(|| "-1".to_owned(), |v| v.to_string());
    Some(match BatsimUnwritable::of(record)? {
        BatsimUnwritable::NoSubmitTime => (
            "no submit time",
            format!("no submit time (field 2, {}, is -1)", field_name(2)),
        ),
        BatsimUnwritable::NoRunTime => (
            "no run time",
            format!(
                "no run time, so no delay profile (field 4, {}, is -1)",
                field_name(4)
            ),
        ),
        BatsimUnwritable::NoProcessorCount => (
            "no processor count",
            format!(
                "no processor count (field 8, {}, is {}; field 5, {}, is {})",
                field_name(8),
                value(record.requested_processors),
                field_name(5),
                value(record.allocated_processors)
            ),
        ),
        // Commands (`to_swf` has dropped them) and any later reason.
        other => (other.reason(), other.reason().to_owned()),
    })
}

/// What Batsim's JSON has no place for, where the input knows it: per SWF
/// field the jobs with a value (allocated processors only where they
/// differ from the requested ones, which become `res`), the header's keys
/// but the machine size (`nb_res`) and the job and record counts, and
/// comment lines.
fn batsim_losses(workload: &Workload) -> Option<String> {
    // The SWF fields (named by `field_name`) whose values Batsim's JSON
    // cannot hold, in field order; `known` below follows it.
    const FIELDS: [usize; 13] = [3, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 18];
    let mut counts = [0u64; FIELDS.len()];
    for r in &workload.records {
        let known = [
            r.wait_time.is_some(),
            // Batsim keeps the requested size: only a different allocation is lost.
            r.allocated_processors.is_some()
                && r.requested_processors.is_some_and(|p| p > 0)
                && r.allocated_processors != r.requested_processors,
            r.average_cpu_time.is_some(),
            r.used_memory.is_some(),
            r.requested_memory.is_some(),
            r.status.is_some(),
            r.user_id.is_some(),
            r.group_id.is_some(),
            r.executable_number.is_some(),
            r.queue_number.is_some(),
            r.partition_number.is_some(),
            r.preceding_job_number.is_some(),
            r.think_time.is_some(),
        ];
        for (count, known) in counts.iter_mut().zip(known) {
            *count += u64::from(known);
        }
    }
    let mut parts: Vec<String> = FIELDS
        .iter()
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(&field, n)| format!("{} ({})", field_name(field), plural(n, "job")))
        .collect();
    // nb_res is MaxProcs, else MaxNodes.
    let size_key = if workload.header.max_procs().is_some() {
        "MaxProcs"
    } else {
        "MaxNodes"
    };
    let mut keys: Vec<&str> = Vec::new();
    for (key, _) in workload.header.entries() {
        if ![size_key, "MaxJobs", "MaxRecords"].contains(&key) && !keys.contains(&key) {
            keys.push(key);
        }
    }
    if !keys.is_empty() {
        parts.push(format!("header keys {}", keys.join(", ")));
    }
    if !workload.comments.is_empty() {
        parts.push(plural(workload.comments.len() as u64, "comment line"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn write(workload: &Workload, to: Format, path: &Path) -> Result<(), ConvertError> {
    // I/O failures name the output file; other write errors name themselves.
    let write_error = |error| match error {
        WriteError::Io { source } => ConvertError::Write {
            path: path.to_path_buf(),
            source,
        },
        other => ConvertError::Output(other),
    };
    if to == Format::BatsimJson {
        return Ok(write_batsim_path(workload, path)?);
    }
    // A temporary file until `finish` renames it (removed if an error drops
    // it first).
    let output = create_path(path).map_err(ConvertError::Output)?;
    let output = match to {
        Format::JsonLines => write_json_lines(workload, output).map_err(|e| match e {
            JsonLinesError::Write(source) => ConvertError::Write {
                path: path.to_path_buf(),
                source,
            },
            other => ConvertError::JsonLines(other),
        })?,
        Format::Swf | Format::Cwf | Format::BatsimJson | Format::Sacct => {
            write_workload(workload, output).map_err(write_error)?
        }
    };
    output.finish().map_err(write_error)
}

fn report(args: &ConvertArgs, s: &ConvertSummary, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "converted {} -> {}: {}",
        args.input.display(),
        args.output.display(),
        plural(s.records, "record")
    )?;
    for warning in &s.warnings {
        writeln!(out, "{warning}")?;
    }
    if let Some(rounded) = &s.rounded {
        writeln!(out, "read: {rounded}")?;
    }
    if s.dropped_commands + s.dropped_start_times + s.dropped_amounts > 0 {
        writeln!(
            out,
            "dropped (--drop-cwf): {} command lines (ET/RT/EP/RP), {} requested start times, {} amounts",
            s.dropped_commands, s.dropped_start_times, s.dropped_amounts
        )?;
    }
    if !s.skipped_jobs.is_empty() {
        let reasons: Vec<String> = s
            .skipped_jobs
            .iter()
            .map(|(reason, n)| format!("{reason}: {n}"))
            .collect();
        writeln!(
            out,
            "skipped {} jobs without a run time (--lenient): {}",
            s.skipped_lines,
            reasons.join(", ")
        )?;
    } else if s.skipped_lines > 0 {
        writeln!(out, "skipped {} bad lines (--lenient)", s.skipped_lines)?;
    }
    if !s.left_out_jobs.is_empty() {
        let reasons: Vec<String> = s
            .left_out_jobs
            .iter()
            .map(|(reason, n)| format!("{reason}: {n}"))
            .collect();
        writeln!(
            out,
            "left out {} Batsim cannot run (--lenient): {}",
            plural(s.left_out_jobs.values().sum(), "job"),
            reasons.join(", ")
        )?;
    }
    if let Some(warning) = &s.unknown_states {
        writeln!(out, "{warning}")?;
    }
    if s.unfinished + s.never_started > 0 {
        writeln!(
            out,
            "{} jobs still pending or running left out; {} cancelled before they started kept \
             (no wait or run time)",
            s.unfinished, s.never_started
        )?;
    }
    if let Some(e) = &s.estimates {
        let max = e
            .max_estimate
            .map_or_else(String::new, |m| format!(" (maximum {m} s)"));
        writeln!(
            out,
            "estimates{max}: {} jobs; {} with an unknown runtime left alone; {} runtimes truncated",
            e.assigned, e.unknown_runtime, e.truncated
        )?;
        if e.clamped > 0 {
            writeln!(
                out,
                "warning: {} estimates were above the largest time allowed, 2^53 s, and were set \
                 to it",
                e.clamped
            )?;
        }
    }
    if let Some(mapping) = &s.mapping {
        writeln!(
            out,
            "user, group, queue (QOS), partition, executable (job name), account numbers: {}",
            mapping.display()
        )?;
    }
    if let Some(lost) = &s.not_written {
        writeln!(
            out,
            "not written (Batsim's JSON has no place for them): {lost}"
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_ignore_case_and_gz() {
        assert_eq!(Format::of(Path::new("a.swf.GZ")), Some(Format::Swf));
        assert_eq!(Format::of(Path::new("a.CWF.gz")), Some(Format::Cwf));
        assert_eq!(Format::of(Path::new("a.Json.Gz")), Some(Format::BatsimJson));
        assert_eq!(Format::of(Path::new("a.gz")), None);
        assert_eq!(Format::of(Path::new("a.txt.gz")), None);
    }
}

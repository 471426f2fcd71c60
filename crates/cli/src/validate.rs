//! `schedsim validate FILE...`: check workload files strictly, or report
//! their problems by reason (`--lenient`).

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use schedsim_run::{WorkloadFileError, WorkloadInput, plural};
use schedsim_sim_core::{Calendar, CalendarError};
use workload_format::{Header, ReadOptions, ReadSummary, Reader, Record, Workload};

use crate::{CommandError, error_line};

/// Arguments of `schedsim validate`.
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateArgs {
    /// Workload files (.swf, .cwf, .jsonl as `convert` writes it, or Batsim
    /// .json, plain or gzip-compressed; JSON lines are read strictly, even
    /// with --lenient).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Skip bad lines and count them by reason instead of stopping at the
    /// first; exits 0 unless a file cannot be read at all.
    #[arg(long)]
    pub lenient: bool,
    /// How many example problems (with line numbers) to print per file in
    /// lenient mode.
    #[arg(long, default_value_t = 5, value_name = "N", value_parser = schedsim_run::whole_number::<usize>(0))]
    pub examples: usize,
}

impl ValidateArgs {
    /// Strict validation of `files`.
    pub fn new(files: Vec<PathBuf>) -> Self {
        Self {
            files,
            lenient: false,
            examples: 5,
        }
    }
}

/// How one file fared.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileOutcome {
    /// The file was read to its end (in lenient mode, possibly with skipped
    /// lines counted in the summary).
    Read {
        /// The file.
        path: PathBuf,
        /// The counts (boxed: the largest variant by far).
        summary: Box<ReadSummary>,
        /// The warnings `simulate` gives about the file: Batsim ids replaced
        /// by numbers, job numbers given
        /// to more than one job (the results of a run name jobs by number),
        /// then header keys given twice with different values.
        warnings: Vec<String>,
    },
    /// The file could not be read, or holds a bad line or job (for SWF,
    /// CWF and Batsim's JSON, in strict mode only).
    Failed {
        /// The file.
        path: PathBuf,
        /// Why.
        error: WorkloadFileError,
    },
    /// The header's time zone or start time cannot make a calendar
    /// (`simulate` refuses the file for the same reason).
    BadCalendar {
        /// The file.
        path: PathBuf,
        /// Why.
        error: CalendarError,
    },
}

/// Why `validate` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    /// Some files are invalid (strict) or unreadable.
    #[error("{failed} of {total} files failed validation")]
    Failed {
        /// Files that failed.
        failed: usize,
        /// Files checked.
        total: usize,
    },
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl CommandError for ValidateError {}

/// Checks every file, writes one line per file (plus, in lenient mode, the
/// counts by reason and the first examples) to `out`, and returns the
/// outcomes; fails when a file is invalid (strict) or unreadable.
pub fn validate(
    args: &ValidateArgs,
    out: &mut dyn Write,
) -> Result<Vec<FileOutcome>, ValidateError> {
    let options = ReadOptions::lenient_if(args.lenient).with_max_examples(args.examples);
    let mut outcomes = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let outcome = check(path, &options);
        report(&outcome, args.lenient, out).map_err(ValidateError::Output)?;
        outcomes.push(outcome);
    }
    let failed = outcomes
        .iter()
        .filter(|o| {
            matches!(
                o,
                FileOutcome::Failed { .. } | FileOutcome::BadCalendar { .. }
            )
        })
        .count();
    if failed > 0 {
        return Err(ValidateError::Failed {
            failed,
            total: outcomes.len(),
        });
    }
    Ok(outcomes)
}

/// Reads the file as `simulate` does (SWF and CWF streamed, the others
/// whole) and checks its header's calendar.
fn check(path: &Path, options: &ReadOptions) -> FileOutcome {
    match schedsim_run::open_workload(path, options) {
        Ok(WorkloadInput::Whole(workload)) => read_whole(path, *workload),
        Ok(WorkloadInput::Stream(reader)) => stream(path, *reader),
        Err(error) => FileOutcome::Failed {
            path: path.to_path_buf(),
            error,
        },
    }
}

/// The outcome of a workload read whole (JSON lines, Batsim's JSON).
fn read_whole(path: &Path, workload: Workload) -> FileOutcome {
    let mut checks = RecordChecks::default();
    for (index, record) in workload.records.iter().enumerate() {
        checks.check(index, record);
    }
    read(path, &workload.header, workload.summary, checks.warnings())
}

/// The outcome of a file read to its end: its calendar checked, the
/// warnings `simulate` gives about it.
fn read(
    path: &Path,
    header: &Header,
    summary: ReadSummary,
    record_warnings: Vec<String>,
) -> FileOutcome {
    if let Err(error) = Calendar::from_header(header) {
        return FileOutcome::BadCalendar {
            path: path.to_path_buf(),
            error,
        };
    }
    FileOutcome::Read {
        path: path.to_path_buf(),
        warnings: schedsim_run::input_warnings(&summary, record_warnings, header),
        summary: Box::new(summary),
    }
}

/// Streams the file to its end, keeping of each record only what the
/// checks need, not the record.
fn stream(path: &Path, mut reader: Reader<Box<dyn BufRead + Send>>) -> FileOutcome {
    let mut checks = RecordChecks::default();
    for (index, record) in reader.by_ref().enumerate() {
        match record {
            Ok(record) => checks.check(index, &record),
            Err(error) => {
                return FileOutcome::Failed {
                    path: path.to_path_buf(),
                    error: error.into(),
                };
            }
        }
    }
    let (header, summary) = reader.into_parts();
    read(path, &header, summary, checks.warnings())
}

/// The checks of the records, one at a time: each job's number and place
/// (for the repeated-number check), dedicated jobs asking to start before
/// their submission, and the CWF commands `simulate` refuses.
#[derive(Default)]
struct RecordChecks {
    numbers: Vec<(u64, usize)>,
    early_starts: schedsim_run::EarlyRequestedStarts,
    commands: schedsim_run::UnusableCommands,
}

impl RecordChecks {
    fn check(&mut self, index: usize, record: &Record) {
        if !record.is_command() {
            self.numbers.push((record.job_number, index));
        }
        self.early_starts.check(record);
        self.commands.check(index, record);
    }

    fn warnings(&self) -> Vec<String> {
        schedsim_run::repeated_job_numbers(self.numbers.iter().copied())
            .into_iter()
            .chain(self.early_starts.warning())
            .chain(self.commands.warning())
            .collect()
    }
}

fn report(outcome: &FileOutcome, lenient: bool, out: &mut dyn Write) -> io::Result<()> {
    match outcome {
        FileOutcome::Failed { error, .. } => writeln!(out, "FAIL  {}", error_line(error)),
        FileOutcome::BadCalendar { path, error } => writeln!(
            out,
            "FAIL  {}: header UnixStartTime, TimeZoneString or TimeZone: {error}",
            path.display()
        ),
        FileOutcome::Read {
            path,
            summary,
            warnings,
        } if !lenient => {
            let status = if !warnings.is_empty() {
                "WARN "
            } else {
                "ok   "
            };
            writeln!(
                out,
                "{status} {}: {}{}",
                path.display(),
                plural(summary.records, "record"),
                rounded_note(summary)
            )?;
            for warning in warnings {
                writeln!(out, "      {warning}")?;
            }
            Ok(())
        }
        FileOutcome::Read {
            path,
            summary,
            warnings,
        } => {
            let clean = summary.is_clean() && warnings.is_empty();
            let status = if clean { "ok   " } else { "WARN " };
            writeln!(
                out,
                "{status} {}: {}, {} skipped, {}, {}{}",
                path.display(),
                plural(summary.records, "record"),
                plural(summary.skipped_lines, "line"),
                plural(summary.warnings(), "warning"),
                plural(summary.blank_lines, "blank line"),
                rounded_note(summary)
            )?;
            for (reason, count) in &summary.issues {
                let what = if reason.skips_line() {
                    format!("{} skipped", plural(*count, "line"))
                } else {
                    plural(*count, "warning")
                };
                writeln!(out, "      {what}: {}", reason.description())?;
            }
            for issue in &summary.examples {
                writeln!(out, "      line {}: {}", issue.line, issue.error)?;
            }
            let hidden = summary.issues.values().sum::<u64>() - summary.examples.len() as u64;
            if hidden > 0 {
                writeln!(out, "      ... and {hidden} more")?;
            }
            for warning in warnings {
                writeln!(out, "      {warning}")?;
            }
            Ok(())
        }
    }
}

/// ", 3 float values rounded (field 4 (run time): 3)" or nothing.
fn rounded_note(summary: &ReadSummary) -> String {
    schedsim_run::rounded_values(summary).map_or_else(String::new, |text| format!(", {text}"))
}

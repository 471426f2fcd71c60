//! Reading back a run folder written by `schedsim simulate --out`
//! (jobs.csv, segments.csv when present, and summary.json), for `schedsim
//! compare` and `schedsim plot`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use schedsim_metrics::CompletedJob;

/// One job of jobs.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunJob {
    /// The job number (column `job_id`).
    pub number: u64,
    /// Submit, start and finish, and the processors it occupied (the
    /// allocated intervals counted).
    pub job: CompletedJob,
    /// Requested time (estimate), seconds.
    pub estimate: i64,
    /// The allocated processor intervals, inclusive.
    pub allocation: Vec<(u32, u32)>,
    /// Its run segments (start, end) when it was suspended (from
    /// segments.csv); empty otherwise, the one segment being start..finish.
    pub segments: Vec<(i64, i64)>,
}

impl RunJob {
    /// The stretches of time it held its processors: its segments, or
    /// start..finish.
    pub fn spans(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        let whole = self
            .segments
            .is_empty()
            .then_some((self.job.start, self.job.finish));
        whole.into_iter().chain(self.segments.iter().copied())
    }
}

/// A run folder read back.
#[derive(Debug, Clone)]
pub struct RunDir {
    /// The folder.
    pub dir: PathBuf,
    /// summary.json as written.
    pub summary: serde_json::Value,
    /// jobs.csv's rows that ran, in file (arrival) order.
    pub jobs: Vec<RunJob>,
    /// Job numbers of the rows with `final_state` REJECTED (never ran).
    pub rejected: Vec<u64>,
}

/// Why a run folder could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunDirError {
    /// A file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// summary.json is not JSON.
    #[error("{path} is not valid JSON")]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A CSV file is malformed (e.g. an unterminated quote).
    #[error("{path} is not valid CSV")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The cause, with its line.
        #[source]
        source: csv::Error,
    },
    /// summary.json is missing: the folder is not a finished run
    /// (simulate writes it last).
    #[error("{} is not a finished run: it has no summary.json (simulate writes it last; run it again)", dir.display())]
    Unfinished {
        /// The run folder.
        dir: PathBuf,
    },
    /// jobs.csv and summary.json disagree on the number of jobs: the folder
    /// mixes two runs or a file was cut short.
    #[error("{}: jobs.csv has {rows} job rows but summary.json counts {jobs} jobs; the folder mixes runs or a file was cut short (run simulate again)", dir.display())]
    Inconsistent {
        /// The run folder.
        dir: PathBuf,
        /// Rows of jobs.csv.
        rows: usize,
        /// Jobs per summary.json.
        jobs: u64,
    },
    /// jobs.csv lacks a column.
    #[error("{path}: the header has no column `{column}`")]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The column.
        column: &'static str,
    },
    /// summary.json has no job count (`normalization.jobs`) to check
    /// jobs.csv against.
    #[error(
        "{path} has no job count (normalization.jobs) to check jobs.csv against; it is not a summary simulate wrote (run it again)"
    )]
    NoJobCount {
        /// The file.
        path: PathBuf,
    },
    /// A job of jobs.csv starts before it is submitted or finishes
    /// before it starts.
    #[error(
        "{path}:{line}: job {number} has inconsistent times: submitted at {submit}, started at {start}, finished at {finish}"
    )]
    InconsistentJob {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The job number.
        number: u64,
        /// Submission time.
        submit: i64,
        /// Start time.
        start: i64,
        /// Finish time.
        finish: i64,
    },
    /// A job of jobs.csv holds processors the machine of summary.json does
    /// not have.
    #[error("{path}:{line}: job {number} ran on processor {processor}, but the machine has {procs} (0 to {last})", last = procs - 1)]
    OutsideMachine {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The job number.
        number: u64,
        /// The first processor beyond the machine.
        processor: u32,
        /// Processors of the machine (at least 1).
        procs: u32,
    },
    /// A jobs.csv value does not parse.
    #[error("{path}:{line}: column `{column}`: cannot read `{value}`")]
    BadValue {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The column.
        column: &'static str,
        /// The text.
        value: String,
    },
}

impl RunDir {
    /// Reads `dir/summary.json` and `dir/jobs.csv`.
    ///
    /// # Errors
    /// A missing or malformed file, naming file, line and column.
    pub fn read(dir: &Path) -> Result<Self, RunDirError> {
        let read = |name: &str| {
            let path = dir.join(name);
            fs::read_to_string(&path).map_err(|source| RunDirError::Io { path, source })
        };
        let summary_path = dir.join("summary.json");
        if !summary_path.exists() {
            return Err(RunDirError::Unfinished {
                dir: dir.to_path_buf(),
            });
        }
        let summary: serde_json::Value =
            serde_json::from_str(&read("summary.json")?).map_err(|source| RunDirError::Json {
                path: summary_path,
                source,
            })?;
        let procs = machine_procs(&summary).filter(|&p| p > 0);
        let (mut jobs, rejected, rows) =
            parse_jobs_csv(&read("jobs.csv")?, &dir.join("jobs.csv"), procs)?;
        let Some(counted) = summary["normalization"]["jobs"].as_u64() else {
            return Err(RunDirError::NoJobCount {
                path: dir.join("summary.json"),
            });
        };
        if counted != rows.len() as u64 {
            return Err(RunDirError::Inconsistent {
                dir: dir.to_path_buf(),
                rows: rows.len(),
                jobs: counted,
            });
        }
        let segments_path = dir.join("segments.csv");
        if segments_path.exists() {
            let text = read("segments.csv")?;
            for (row, segment) in parse_segments_csv(&text, &segments_path)? {
                // `job_index` is the row in jobs.csv; map it to a job that ran.
                let slot =
                    rows.get(row)
                        .copied()
                        .flatten()
                        .ok_or_else(|| RunDirError::BadValue {
                            path: segments_path.clone(),
                            line: 0,
                            column: "job_index",
                            value: row.to_string(),
                        })?;
                jobs[slot].segments.push(segment);
            }
            for job in jobs.iter_mut().filter(|job| !job.segments.is_empty()) {
                job.segments.sort_unstable();
                let held: i64 = job.segments.iter().map(|(start, end)| end - start).sum();
                let suspended = (job.job.finish - job.job.start - held).max(0);
                job.job = job
                    .job
                    .with_suspended(suspended, (job.segments.len() - 1) as u32);
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            summary,
            jobs,
            rejected,
        })
    }

    /// The jobs as the metrics crate takes them.
    pub fn completed(&self) -> Vec<CompletedJob> {
        self.jobs.iter().map(|j| j.job).collect()
    }

    /// The policy spec recorded in summary.json, or `?`.
    pub fn policy(&self) -> &str {
        self.summary["policy"].as_str().unwrap_or("?")
    }

    /// Processors of the machine recorded in summary.json.
    pub fn procs(&self) -> Option<u32> {
        machine_procs(&self.summary)
    }
}

/// `machine.procs` of a summary.json.
fn machine_procs(summary: &serde_json::Value) -> Option<u32> {
    summary["machine"]["procs"]
        .as_u64()
        .and_then(|p| u32::try_from(p).ok())
}

const COLUMNS: [&str; 6] = [
    "job_id",
    "submission_time",
    "requested_time",
    "starting_time",
    "finish_time",
    "allocated_resources",
];

/// The jobs that ran, the numbers of the rejected ones, and for each row of
/// the file the index of its job among those that ran.
type ParsedJobs = (Vec<RunJob>, Vec<u64>, Vec<Option<usize>>);

/// A CSV reader over `text` that keeps empty lines out and lets rows have
/// any number of fields (a short row is reported by column, not by the
/// reader).
fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes())
}

/// The header, or an error naming the file.
fn csv_header(
    reader: &mut csv::Reader<&[u8]>,
    path: &Path,
) -> Result<csv::StringRecord, RunDirError> {
    reader
        .headers()
        .cloned()
        .map_err(|source| RunDirError::Csv {
            path: path.to_path_buf(),
            source,
        })
}

/// The rows of jobs.csv, each checked: times in order, and (given the
/// machine's `procs`) processors on the machine.
fn parse_jobs_csv(text: &str, path: &Path, procs: Option<u32>) -> Result<ParsedJobs, RunDirError> {
    let mut reader = csv_reader(text);
    let header = csv_header(&mut reader, path)?;
    // Optional: files written before final states existed lack it.
    let final_state = header.iter().position(|h| h == "final_state");
    let mut rejected = Vec::new();
    let mut rows = Vec::new();
    let mut at = [0usize; COLUMNS.len()];
    for (slot, column) in at.iter_mut().zip(COLUMNS) {
        *slot =
            header
                .iter()
                .position(|h| h == column)
                .ok_or_else(|| RunDirError::MissingColumn {
                    path: path.to_path_buf(),
                    column,
                })?;
    }
    let mut jobs = Vec::new();
    for record in reader.records() {
        let fields = record.map_err(|source| RunDirError::Csv {
            path: path.to_path_buf(),
            source,
        })?;
        let line = fields.position().map_or(0, |p| p.line() as usize);
        let bad = |column: usize, value: &str| RunDirError::BadValue {
            path: path.to_path_buf(),
            line,
            column: COLUMNS[column],
            value: value.to_owned(),
        };
        let field = |column: usize| fields.get(at[column]).unwrap_or("");
        let int = |column: usize| {
            field(column)
                .parse::<i64>()
                .map_err(|_| bad(column, field(column)))
        };
        let number = field(0).parse::<u64>().map_err(|_| bad(0, field(0)))?;
        if final_state.and_then(|at| fields.get(at)) == Some("REJECTED") {
            rejected.push(number);
            rows.push(None);
            continue;
        }
        rows.push(Some(jobs.len()));
        let allocation = parse_allocation(field(5)).ok_or_else(|| bad(5, field(5)))?;
        if let Some(machine) = procs
            && let Some(&(first, _)) = allocation.iter().find(|&&(_, last)| last >= machine)
        {
            return Err(RunDirError::OutsideMachine {
                path: path.to_path_buf(),
                line,
                number,
                processor: first.max(machine),
                procs: machine,
            });
        }
        let size: u64 = allocation
            .iter()
            .map(|&(a, b)| u64::from(b) - u64::from(a) + 1)
            .sum();
        let (submit, start, finish) = (int(1)?, int(3)?, int(4)?);
        if start < submit || finish < start {
            return Err(RunDirError::InconsistentJob {
                path: path.to_path_buf(),
                line,
                number,
                submit,
                start,
                finish,
            });
        }
        jobs.push(RunJob {
            number,
            job: CompletedJob::new(
                submit,
                start,
                finish,
                u32::try_from(size).map_err(|_| bad(5, field(5)))?,
            ),
            estimate: int(2)?,
            allocation,
            segments: Vec::new(),
        });
    }
    Ok((jobs, rejected, rows))
}

/// A segments.csv row: the job's row in jobs.csv and (start, end).
type SegmentRow = (usize, (i64, i64));

fn parse_segments_csv(text: &str, path: &Path) -> Result<Vec<SegmentRow>, RunDirError> {
    let mut reader = csv_reader(text);
    let header = csv_header(&mut reader, path)?;
    let column = |name: &'static str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| RunDirError::MissingColumn {
                path: path.to_path_buf(),
                column: name,
            })
    };
    let (index_at, start_at, end_at) = (column("job_index")?, column("start")?, column("end")?);
    let mut segments = Vec::new();
    for record in reader.records() {
        let fields = record.map_err(|source| RunDirError::Csv {
            path: path.to_path_buf(),
            source,
        })?;
        let line = fields.position().map_or(0, |p| p.line() as usize);
        let value = |at: usize, name: &'static str| {
            let raw = fields.get(at).unwrap_or("");
            raw.parse::<i64>().map_err(|_| RunDirError::BadValue {
                path: path.to_path_buf(),
                line,
                column: name,
                value: raw.to_owned(),
            })
        };
        let index =
            usize::try_from(value(index_at, "job_index")?).map_err(|_| RunDirError::BadValue {
                path: path.to_path_buf(),
                line,
                column: "job_index",
                value: fields.get(index_at).unwrap_or("").to_owned(),
            })?;
        segments.push((index, (value(start_at, "start")?, value(end_at, "end")?)));
    }
    Ok(segments)
}

/// `0-3 8-11` or `5` (space-separated inclusive intervals); empty for a job
/// that occupied nothing.
fn parse_allocation(text: &str) -> Option<Vec<(u32, u32)>> {
    text.split_whitespace()
        .map(|part| {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let (a, b) = (a.parse().ok()?, b.parse().ok()?);
            (a <= b).then_some((a, b))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_csv_rows_and_allocations() {
        let text = "job_id,submission_time,requested_number_of_resources,requested_time,success,\
starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,bounded_slowdown
7,5,3,100,1,10,90,100,5,95,1.05,0-1 4,1
8,6,1,10,1,6,0,6,0,0,0,,1
";
        let (jobs, rejected, _) = parse_jobs_csv(text, Path::new("jobs.csv"), Some(8)).unwrap();
        assert!(rejected.is_empty());
        // 0-1 is two processors, 4 is one: 3.
        assert_eq!(jobs[0].job, CompletedJob::new(5, 10, 100, 3));
        assert_eq!(jobs[0].allocation, [(0, 1), (4, 4)]);
        assert_eq!((jobs[1].number, jobs[1].job.procs), (8, 0));
        let bad = text.replace("0-1 4", "1-0");
        assert_eq!(
            parse_jobs_csv(&bad, Path::new("jobs.csv"), Some(8))
                .unwrap_err()
                .to_string(),
            "jobs.csv:2: column `allocated_resources`: cannot read `1-0`"
        );
        // Job 7 started (10) before it was submitted (50): named by its
        // number and line, not its row index.
        let early = text.replacen("7,5,", "7,50,", 1);
        assert_eq!(
            parse_jobs_csv(&early, Path::new("jobs.csv"), Some(8))
                .unwrap_err()
                .to_string(),
            "jobs.csv:2: job 7 has inconsistent times: submitted at 50, started at 10, finished at 100"
        );
        // Processor 4 is beyond a 4-processor machine (0 to 3).
        assert_eq!(
            parse_jobs_csv(text, Path::new("jobs.csv"), Some(4))
                .unwrap_err()
                .to_string(),
            "jobs.csv:2: job 7 ran on processor 4, but the machine has 4 (0 to 3)"
        );
        // A range running past a 2-processor machine: its first processor
        // beyond it is 2 (of 0-3), not the range's last.
        let across = text.replace("0-1 4", "0-3");
        assert_eq!(
            parse_jobs_csv(&across, Path::new("jobs.csv"), Some(2))
                .unwrap_err()
                .to_string(),
            "jobs.csv:2: job 7 ran on processor 2, but the machine has 2 (0 to 1)"
        );
    }
}

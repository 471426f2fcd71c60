//! Reading back a run folder written by `schedsim simulate --out`
//! (jobs.csv, segments.csv when present, and summary.json), for `schedsim
//! compare` and `schedsim plot`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use schedsim_metrics::{CompletedJob, MetricsConfig, summarize};
use schedsim_sim_core::TIME_LIMIT;

/// Why a time is refused: the range every time of a run lies in.
fn time_range_problem() -> String {
    format!("a time must be a whole number of seconds from 0 to 2^62 = {TIME_LIMIT}")
}

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
    /// The run folder does not exist (or is not a folder).
    #[error("{} {problem}", dir.display())]
    NotAFolder {
        /// The path given.
        dir: PathBuf,
        /// `does not exist` or `is not a folder`.
        problem: &'static str,
    },
    /// A value of a job's row is unreadable, out of range, or disagrees
    /// with the row's other columns (a tampered or corrupted file).
    #[error("{path}:{line}: job {number}: column `{column}` is `{value}`: {problem}")]
    BadJobValue {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The job number.
        number: u64,
        /// The column.
        column: &'static str,
        /// The text.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// summary.json's metrics disagree with those of jobs.csv's jobs:
    /// one of the files was changed after the run.
    #[error(
        "{}: metrics.{metric} is {recorded} but the jobs of jobs.csv give {recomputed}; jobs.csv or summary.json was changed after the run (run simulate again)",
        path.display()
    )]
    MetricsDisagree {
        /// summary.json.
        path: PathBuf,
        /// The metric, e.g. `wait.mean`.
        metric: &'static str,
        /// Its value in summary.json (`none` if missing).
        recorded: String,
        /// Its value recomputed from jobs.csv.
        recomputed: f64,
    },
    /// summary.json's metrics settings cannot be read, or the metrics of
    /// jobs.csv cannot be computed with them.
    #[error("{}: cannot recompute the metrics from jobs.csv with its metrics_config", path.display())]
    Metrics {
        /// summary.json.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
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
    /// Reads `dir/summary.json` and `dir/jobs.csv` (and `segments.csv`
    /// when present), checking every row: times (submit, requested, start,
    /// finish) from 0 to 2^62 s (`TIME_LIMIT`), in order, `execution_time`,
    /// `waiting_time` and `turnaround_time` (when present) equal to the
    /// differences of the times, `stretch` and `bounded_slowdown` finite
    /// and at least 0, processors on the machine, segments within their
    /// job's run and disjoint.
    ///
    /// # Errors
    /// A folder that does not exist, a missing or malformed file, or a row
    /// that fails a check, naming file, line, job, column and value.
    pub fn read(dir: &Path) -> Result<Self, RunDirError> {
        let read = |name: &str| {
            let path = dir.join(name);
            fs::read_to_string(&path).map_err(|source| RunDirError::Io { path, source })
        };
        let problem = match fs::metadata(dir) {
            Ok(metadata) if metadata.is_dir() => None,
            Ok(_) => Some("is not a folder"),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Some("does not exist"),
            Err(source) => {
                return Err(RunDirError::Io {
                    path: dir.to_path_buf(),
                    source,
                });
            }
        };
        if let Some(problem) = problem {
            return Err(RunDirError::NotAFolder {
                dir: dir.to_path_buf(),
                problem,
            });
        }
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
            // The line of each segment, per job, to name an overlap.
            let mut lines: Vec<Vec<(i64, usize)>> = vec![Vec::new(); jobs.len()];
            for (line, row, segment) in parse_segments_csv(&text, &segments_path)? {
                // `job_index` is the row in jobs.csv; map it to a job that ran.
                let slot =
                    rows.get(row)
                        .copied()
                        .flatten()
                        .ok_or_else(|| RunDirError::BadValue {
                            path: segments_path.clone(),
                            line,
                            column: "job_index",
                            value: row.to_string(),
                        })?;
                let job = &mut jobs[slot];
                // Inside the job's run, so no time leaves 0..=2^62 s.
                if segment.0 > segment.1 || segment.0 < job.job.start || segment.1 > job.job.finish
                {
                    return Err(RunDirError::BadJobValue {
                        path: segments_path.clone(),
                        line,
                        number: job.number,
                        column: "start",
                        value: format!("{}, end {}", segment.0, segment.1),
                        problem: format!(
                            "a segment must lie within the job's run, {} to {}",
                            job.job.start, job.job.finish
                        ),
                    });
                }
                job.segments.push(segment);
                lines[slot].push((segment.0, line));
            }
            for (job, lines) in jobs.iter_mut().zip(&lines) {
                if job.segments.is_empty() {
                    continue;
                }
                job.segments.sort_unstable();
                if let Some(pair) = job.segments.windows(2).find(|pair| pair[1].0 < pair[0].1) {
                    let line = lines
                        .iter()
                        .find(|&&(start, _)| start == pair[1].0)
                        .map_or(0, |&(_, line)| line);
                    return Err(RunDirError::BadJobValue {
                        path: segments_path.clone(),
                        line,
                        number: job.number,
                        column: "start",
                        value: pair[1].0.to_string(),
                        problem: format!(
                            "the job's segments overlap: one runs {} to {}",
                            pair[0].0, pair[0].1
                        ),
                    });
                }
                // Disjoint and within start..finish: the sum is at most
                // finish - start.
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

    /// Recomputes mean wait, mean response and makespan from the jobs
    /// (with summary.json's `metrics_config`) and checks them against
    /// summary.json's `metrics`, to a relative 1e-9: a jobs.csv whose rows
    /// are each consistent but were changed after the run (or a summary
    /// edited by hand) is refused. It costs one pass of the metrics over
    /// the jobs.
    ///
    /// # Errors
    /// [`RunDirError::MetricsDisagree`] naming the first metric that
    /// differs, or [`RunDirError::Metrics`] if the settings are unreadable.
    pub fn check_metrics(&self) -> Result<(), RunDirError> {
        let path = self.dir.join("summary.json");
        let failed = |source: Box<dyn std::error::Error + Send + Sync>| RunDirError::Metrics {
            path: path.clone(),
            source,
        };
        let config: MetricsConfig = serde_json::from_value(self.summary["metrics_config"].clone())
            .map_err(|e| failed(Box::new(e)))?;
        let metrics = summarize(&self.completed(), &config).map_err(|e| failed(Box::new(e)))?;
        let recorded = &self.summary["metrics"];
        let checks = [
            (
                "wait.mean",
                &recorded["wait"]["mean"],
                metrics.wait.map(|s| s.mean),
            ),
            (
                "response.mean",
                &recorded["response"]["mean"],
                metrics.response.map(|s| s.mean),
            ),
            (
                "makespan",
                &recorded["makespan"],
                Some(metrics.makespan as f64),
            ),
        ];
        for (metric, recorded, recomputed) in checks {
            let Some(recomputed) = recomputed else {
                continue;
            };
            let agrees = recorded.as_f64().is_some_and(|r| {
                (r - recomputed).abs() <= 1e-9 * r.abs().max(recomputed.abs()).max(1.0)
            });
            if !agrees {
                return Err(RunDirError::MetricsDisagree {
                    path,
                    metric,
                    recorded: if recorded.is_null() {
                        "none".to_owned()
                    } else {
                        recorded.to_string()
                    },
                    recomputed,
                });
            }
        }
        Ok(())
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
    // Optional: Batsim's own jobs.csv has no bounded_slowdown, other tools'
    // files may lack more.
    let optional = |name: &str| header.iter().position(|h| h == name);
    let derived_at = [
        optional("execution_time"),
        optional("waiting_time"),
        optional("turnaround_time"),
    ];
    let ratios_at = [
        (optional("stretch"), "stretch"),
        (optional("bounded_slowdown"), "bounded_slowdown"),
    ];
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
        let job_bad =
            |column: &'static str, value: &str, problem: String| RunDirError::BadJobValue {
                path: path.to_path_buf(),
                line,
                number,
                column,
                value: value.to_owned(),
                problem,
            };
        // Every time within 0..=2^62 s, the simulator's range
        // (`TIME_LIMIT`): sums and differences of two of them cannot
        // overflow.
        let time = |column: usize| {
            let text = field(column);
            let value = text.parse::<i64>().map_err(|_| {
                job_bad(
                    COLUMNS[column],
                    text,
                    "not a whole number of seconds".to_owned(),
                )
            })?;
            if (0..=TIME_LIMIT).contains(&value) {
                Ok(value)
            } else {
                Err(job_bad(COLUMNS[column], text, time_range_problem()))
            }
        };
        let (submit, start, finish) = (time(1)?, time(3)?, time(4)?);
        let estimate = time(2)?;
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
        // The derived columns must agree with the times: a row edited by
        // hand (or cut by a crash) is refused, not compared or drawn.
        let derived = [
            (
                derived_at[0],
                "execution_time",
                finish - start,
                "finish_time - starting_time",
            ),
            (
                derived_at[1],
                "waiting_time",
                start - submit,
                "starting_time - submission_time",
            ),
            (
                derived_at[2],
                "turnaround_time",
                finish - submit,
                "finish_time - submission_time",
            ),
        ];
        for (at, column, expected, formula) in derived {
            let Some(text) = at.and_then(|at| fields.get(at)) else {
                continue;
            };
            if text.parse::<i64>().ok() != Some(expected) {
                return Err(job_bad(
                    column,
                    text,
                    format!("it should be {formula} = {expected}"),
                ));
            }
        }
        for (at, column) in ratios_at {
            let Some(text) = at.and_then(|at| fields.get(at)) else {
                continue;
            };
            if !text.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0) {
                return Err(job_bad(
                    column,
                    text,
                    "not a finite number of at least 0".to_owned(),
                ));
            }
        }
        jobs.push(RunJob {
            number,
            job: CompletedJob::new(
                submit,
                start,
                finish,
                u32::try_from(size).map_err(|_| bad(5, field(5)))?,
            ),
            estimate,
            allocation,
            segments: Vec::new(),
        });
    }
    Ok((jobs, rejected, rows))
}

/// A segments.csv row: its line, the job's row in jobs.csv and (start,
/// end).
type SegmentRow = (usize, usize, (i64, i64));

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
        segments.push((
            line,
            index,
            (value(start_at, "start")?, value(end_at, "end")?),
        ));
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

    const HEADER: &str = "job_id,submission_time,requested_time,success,starting_time,\
execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,\
bounded_slowdown\n";

    fn parse_error(row: &str) -> String {
        parse_jobs_csv(&format!("{HEADER}{row}\n"), Path::new("jobs.csv"), Some(8))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn consistent_rows_are_read() {
        // Submitted 5, started 10, finished 100: execution 90, wait 5,
        // turnaround 95, stretch 95 / 90.
        let (jobs, _, _) = parse_jobs_csv(
            &format!("{HEADER}7,5,100,1,10,90,100,5,95,1.0555,0-1,1\n"),
            Path::new("jobs.csv"),
            Some(8),
        )
        .unwrap();
        assert_eq!(jobs[0].job, CompletedJob::new(5, 10, 100, 2));
    }

    #[test]
    fn times_beyond_the_simulator_range_are_refused() {
        // 2^63 - 1 as a finish time (a tampered file): beyond 2^62, named by
        // file, line, job, column and value, before any arithmetic.
        assert_eq!(
            parse_error("7,5,100,1,10,90,9223372036854775807,5,95,1,0-1,1"),
            "jobs.csv:2: job 7: column `finish_time` is `9223372036854775807`: a time must be \
             a whole number of seconds from 0 to 2^62 = 4611686018427387904"
        );
        // 2^62 + 1 is one beyond.
        assert!(
            parse_error("7,4611686018427387905,100,1,10,90,100,5,95,1,0-1,1")
                .contains("column `submission_time` is `4611686018427387905`")
        );
        assert!(
            parse_error("7,-1,100,1,10,90,100,5,95,1,0-1,1").contains("`submission_time` is `-1`")
        );
        assert!(
            parse_error("7,5,1e3,1,10,90,100,5,95,1,0-1,1")
                .contains("column `requested_time` is `1e3`: not a whole number of seconds")
        );
    }

    #[test]
    fn derived_columns_must_agree_with_the_times() {
        // execution_time NaN: 100 - 10 = 90 expected.
        assert_eq!(
            parse_error("7,5,100,1,10,NaN,100,5,95,1,0-1,1"),
            "jobs.csv:2: job 7: column `execution_time` is `NaN`: it should be finish_time - \
             starting_time = 90"
        );
        // waiting_time 6, but 10 - 5 = 5.
        assert!(parse_error("7,5,100,1,10,90,100,6,95,1,0-1,1").contains(
            "column `waiting_time` is `6`: it should be starting_time - submission_time = 5"
        ));
        // turnaround_time 96, but 100 - 5 = 95.
        assert!(parse_error("7,5,100,1,10,90,100,5,96,1,0-1,1").contains(
            "column `turnaround_time` is `96`: it should be finish_time - submission_time = 95"
        ));
        assert!(
            parse_error("7,5,100,1,10,90,100,5,95,NaN,0-1,1")
                .contains("column `stretch` is `NaN`: not a finite number of at least 0")
        );
        assert!(
            parse_error("7,5,100,1,10,90,100,5,95,1,0-1,inf")
                .contains("column `bounded_slowdown` is `inf`")
        );
    }

    #[test]
    fn segments_outside_their_job_or_overlapping_are_refused() {
        let dir = std::env::temp_dir().join(format!("schedsim-segments-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("summary.json"),
            r#"{"machine": {"procs": 8}, "normalization": {"jobs": 1}}"#,
        )
        .unwrap();
        // Job 7 runs 10..100.
        fs::write(
            dir.join("jobs.csv"),
            format!("{HEADER}7,5,100,1,10,90,100,5,95,1.0555,0-1,1\n"),
        )
        .unwrap();
        let segments = |rows: &str| {
            fs::write(
                dir.join("segments.csv"),
                format!("job_id,job_index,segment,start,end,allocated_resources\n{rows}"),
            )
            .unwrap();
            RunDir::read(&dir)
        };
        // 10..30 and 60..100: held 60 of the 90 s, suspended 30.
        let run = segments("7,0,0,10,30,0-1\n7,0,1,60,100,0-1\n").unwrap();
        assert_eq!(run.jobs[0].segments, [(10, 30), (60, 100)]);
        // Ending at 2^63 - 1, past the job's finish at 100.
        let error = segments("7,0,0,10,9223372036854775807,0-1\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(
                "segments.csv:2: job 7: column `start` is `10, end 9223372036854775807`: a \
                 segment must lie within the job's run, 10 to 100"
            ),
            "{error}"
        );
        // 10..60 and 50..100 overlap.
        let error = segments("7,0,0,10,60,0-1\n7,0,1,50,100,0-1\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(
                "job 7: column `start` is `50`: the job's segments overlap: one runs 10 to 60"
            ),
            "{error}"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_folder_is_named_as_missing() {
        let missing =
            std::env::temp_dir().join(format!("schedsim-no-such-run-{}", std::process::id()));
        assert_eq!(
            RunDir::read(&missing).unwrap_err().to_string(),
            format!("{} does not exist", missing.display())
        );
    }
}

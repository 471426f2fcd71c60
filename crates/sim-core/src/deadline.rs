//! Deadlines kept beside the workload: a small CSV keyed by job number, so
//! that SWF and CWF files stay standard.
//!
//! The file has a header line and one line per job:
//!
//! ```text
//! job_number,deadline_after_submit,kind
//! 15,7200,user
//! 16,86400,artificial
//! ```
//!
//! - `job_number`: SWF field 1 of the job;
//! - `deadline_after_submit`: seconds after the job's submit time by which it
//!   must have ended (relative, so that scaled arrival times and duplicated
//!   jobs keep a meaningful deadline), from 0 to [`MAX_TIME`](crate::MAX_TIME);
//! - `kind`: `user` (the user asked for it) or `artificial` (made up for a job
//!   without one, as in the QoPS paper's mixed workloads).
//!
//! A job number may appear once; a repeated number is an error naming both
//! lines. Numbers that match no job of the workload are counted
//! ([`Normalization::deadlines_unmatched`](crate::Normalization)).
//! Duplicates made by a load change ([`LoadChange::duplicates`](crate::LoadChange))
//! inherit their original's deadline through [`Deadlines::extend_to_duplicates`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::job::{Deadline, DeadlineKind};
use crate::{MAX_TIME, Time};

/// The header line of a deadline file.
pub const DEADLINES_HEADER: &str = "job_number,deadline_after_submit,kind";

/// Deadlines by job number, as read from or written to a deadline file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deadlines {
    by_number: BTreeMap<u64, Deadline>,
}

/// Why a deadline file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeadlineFileError {
    /// The file could not be read or written.
    #[error("cannot access deadline file {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The first line is not the expected header.
    #[error("{source_name} line 1: expected the header `{DEADLINES_HEADER}`, found {found:?}")]
    BadHeader {
        /// The file.
        source_name: String,
        /// The first line as written.
        found: String,
    },
    /// A line has a bad field.
    #[error("{source_name} line {line}, field {field}: {value:?} {problem}")]
    BadField {
        /// The file.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// The field's name.
        field: &'static str,
        /// The value as written.
        value: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A line is not CSV (e.g. an unterminated quote).
    #[error("{source_name} line {line}: {message}")]
    Malformed {
        /// The file.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// What the CSV reader found.
        message: String,
    },
    /// A line does not have three fields.
    #[error("{source_name} line {line}: expected 3 comma-separated fields, found {found}")]
    FieldCount {
        /// The file.
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// Fields found.
        found: usize,
    },
    /// A job number appears twice.
    #[error(
        "{source_name} line {line}: job {job_number} already has a deadline (line {first_line})"
    )]
    Repeated {
        /// The file.
        source_name: String,
        /// 1-based line number of the repetition.
        line: usize,
        /// 1-based line number of the first entry.
        first_line: usize,
        /// The job number.
        job_number: u64,
    },
}

impl Deadlines {
    /// No deadlines.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a deadline for `job_number`; returns the one it replaces, if any.
    pub fn insert(&mut self, job_number: u64, deadline: Deadline) -> Option<Deadline> {
        self.by_number.insert(job_number, deadline)
    }

    /// The deadline of `job_number`.
    pub fn get(&self, job_number: u64) -> Option<Deadline> {
        self.by_number.get(&job_number).copied()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.by_number.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.by_number.is_empty()
    }

    /// Entries by increasing job number.
    pub fn iter(&self) -> impl Iterator<Item = (u64, Deadline)> + '_ {
        self.by_number
            .iter()
            .map(|(&number, &deadline)| (number, deadline))
    }

    /// Gives each duplicate `(new number, original number)` its original's
    /// deadline (relative, so it is as tight for the copy as for the
    /// original). Entries already present for a new number are kept.
    pub fn extend_to_duplicates(&mut self, duplicates: &[(u64, u64)]) {
        for &(copy, original) in duplicates {
            if let Some(deadline) = self.get(original) {
                self.by_number.entry(copy).or_insert(deadline);
            }
        }
    }

    /// Reads a deadline file (see the module docs).
    ///
    /// # Errors
    /// The file cannot be read, or any line is malformed.
    pub fn read(path: &Path) -> Result<Self, DeadlineFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| DeadlineFileError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses the text of a deadline file; `source_name` names it in errors.
    ///
    /// ```
    /// use schedsim_sim_core::{Deadline, DeadlineKind, Deadlines};
    /// let text = "job_number,deadline_after_submit,kind\n15,7200,user\n";
    /// let deadlines = Deadlines::parse(text, "d.csv")?;
    /// assert_eq!(deadlines.get(15), Some(Deadline::new(7200, DeadlineKind::User)));
    /// let bad = Deadlines::parse("job_number,deadline_after_submit,kind\n15,-3,user\n", "d.csv");
    /// assert_eq!(
    ///     bad.unwrap_err().to_string(),
    ///     "d.csv line 2, field deadline_after_submit: \"-3\" is not a whole number of seconds from 0 to 2^53"
    /// );
    /// # Ok::<(), schedsim_sim_core::DeadlineFileError>(())
    /// ```
    ///
    /// # Errors
    /// A missing or wrong header, a line without three fields, a bad job
    /// number, deadline or kind, or a repeated job number.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, DeadlineFileError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let mut records = reader.records();
        let malformed = |line: usize, error: csv::Error| DeadlineFileError::Malformed {
            source_name: source_name.to_owned(),
            line,
            message: error.to_string(),
        };
        let header = match records.next() {
            Some(record) => record.map_err(|e| malformed(1, e))?,
            None => csv::StringRecord::new(),
        };
        if header.iter().collect::<Vec<_>>().join(",") != DEADLINES_HEADER {
            return Err(DeadlineFileError::BadHeader {
                source_name: source_name.to_owned(),
                found: text.lines().next().unwrap_or("").to_owned(),
            });
        }
        let mut first_line: BTreeMap<u64, usize> = BTreeMap::new();
        let mut deadlines = Self::new();
        for record in records {
            let fields = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line() as usize);
                malformed(line, e)
            })?;
            let line_number = fields.position().map_or(0, |p| p.line() as usize);
            if fields.iter().all(str::is_empty) {
                continue;
            }
            if fields.len() != 3 {
                return Err(DeadlineFileError::FieldCount {
                    source_name: source_name.to_owned(),
                    line: line_number,
                    found: fields.len(),
                });
            }
            let fields = [&fields[0], &fields[1], &fields[2]];
            let bad = |field: &'static str, value: &str, problem: &'static str| {
                DeadlineFileError::BadField {
                    source_name: source_name.to_owned(),
                    line: line_number,
                    field,
                    value: value.to_owned(),
                    problem,
                }
            };
            let job_number: u64 = fields[0]
                .parse()
                .map_err(|_| bad("job_number", fields[0], "is not a job number"))?;
            let after_submit = fields[1]
                .parse::<Time>()
                .ok()
                .filter(|t| (0..=MAX_TIME).contains(t))
                .ok_or_else(|| {
                    bad(
                        "deadline_after_submit",
                        fields[1],
                        "is not a whole number of seconds from 0 to 2^53",
                    )
                })?;
            let kind = match fields[2] {
                "user" => DeadlineKind::User,
                "artificial" => DeadlineKind::Artificial,
                other => return Err(bad("kind", other, "is not `user` or `artificial`")),
            };
            if let Some(&first) = first_line.get(&job_number) {
                return Err(DeadlineFileError::Repeated {
                    source_name: source_name.to_owned(),
                    line: line_number,
                    first_line: first,
                    job_number,
                });
            }
            first_line.insert(job_number, line_number);
            deadlines.insert(job_number, Deadline::new(after_submit, kind));
        }
        Ok(deadlines)
    }

    /// The file's text (see the module docs), entries by job number.
    pub fn to_csv(&self) -> String {
        let mut out = String::with_capacity(32 * (self.len() + 1));
        out.push_str(DEADLINES_HEADER);
        out.push('\n');
        for (number, deadline) in self.iter() {
            out.push_str(&format!(
                "{number},{},{}\n",
                deadline.after_submit,
                deadline.kind.as_str()
            ));
        }
        out
    }

    /// Writes the file atomically: to a temporary name beside `path`, then
    /// renamed, so a reader never sees half a file.
    ///
    /// # Errors
    /// The file cannot be written or renamed.
    pub fn write(&self, path: &Path) -> Result<(), DeadlineFileError> {
        let io = |source| DeadlineFileError::Io {
            path: path.to_owned(),
            source,
        };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".tmp{}", std::process::id()));
        let temporary = PathBuf::from(temporary);
        let mut file = std::fs::File::create(&temporary).map_err(io)?;
        file.write_all(self.to_csv().as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        std::fs::rename(&temporary, path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "job_number,deadline_after_submit,kind\n";

    #[test]
    fn round_trip_and_duplicates() {
        let text = format!("{HEADER}3,100,user\n1,86400,artificial\n\n");
        let mut deadlines = Deadlines::parse(&text, "d.csv").unwrap();
        assert_eq!(deadlines.len(), 2);
        // Written by job number, so 1 comes first.
        assert_eq!(
            deadlines.to_csv(),
            format!("{HEADER}1,86400,artificial\n3,100,user\n")
        );
        // Job 9 is a copy of job 3, job 10 of job 2 (no deadline).
        deadlines.extend_to_duplicates(&[(9, 3), (10, 2)]);
        assert_eq!(deadlines.get(9), deadlines.get(3));
        assert_eq!(deadlines.get(10), None);
    }

    #[test]
    fn quoted_fields_and_spaces_are_read() {
        // As a spreadsheet exports it.
        let text = "job_number,deadline_after_submit,kind\r\n\"15\",\"7200\",\"user\"\r\n16, 60 ,artificial\r\n";
        let deadlines = Deadlines::parse(text, "d.csv").unwrap();
        assert_eq!(
            deadlines.get(15),
            Some(Deadline::new(7200, DeadlineKind::User))
        );
        assert_eq!(
            deadlines.get(16),
            Some(Deadline::new(60, DeadlineKind::Artificial))
        );
        let bad = Deadlines::parse(
            "job_number,deadline_after_submit,kind\n\"1,2,user\n",
            "d.csv",
        );
        assert!(
            matches!(
                bad,
                Err(DeadlineFileError::FieldCount { .. } | DeadlineFileError::Malformed { .. })
            ),
            "{bad:?}"
        );
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let message = |text: &str| Deadlines::parse(text, "d.csv").unwrap_err().to_string();
        assert_eq!(
            message("job,deadline\n"),
            "d.csv line 1: expected the header `job_number,deadline_after_submit,kind`, found \"job,deadline\""
        );
        assert_eq!(
            message(&format!("{HEADER}1,2\n")),
            "d.csv line 2: expected 3 comma-separated fields, found 2"
        );
        assert_eq!(
            message(&format!("{HEADER}x,2,user\n")),
            "d.csv line 2, field job_number: \"x\" is not a job number"
        );
        assert_eq!(
            message(&format!("{HEADER}1,9007199254740993,user\n")),
            "d.csv line 2, field deadline_after_submit: \"9007199254740993\" is not a whole number of seconds from 0 to 2^53"
        );
        assert_eq!(
            message(&format!("{HEADER}1,2,soon\n")),
            "d.csv line 2, field kind: \"soon\" is not `user` or `artificial`"
        );
        assert_eq!(
            message(&format!("{HEADER}1,2,user\n2,2,user\n1,5,user\n")),
            "d.csv line 4: job 1 already has a deadline (line 2)"
        );
    }
}

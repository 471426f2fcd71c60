//! The error types: what went wrong on one line, reading, writing and
//! building a header.

use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The names of the 21 SWF/CWF fields, index = field number - 1.
pub const FIELD_NAMES: [&str; 21] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
    "requested start time",
    "request type",
    "amount",
];

/// The name of a field by its 1-based SWF/CWF number (`"?"` outside `1..=21`).
pub fn field_name(field: usize) -> &'static str {
    field
        .checked_sub(1)
        .and_then(|i| FIELD_NAMES.get(i))
        .copied()
        .unwrap_or("?")
}

// thiserror passes fields by reference to extra format arguments.
fn name_of(field: &usize) -> &'static str {
    field_name(*field)
}

/// What is wrong with one line of a workload file.
///
/// The message names the field (number and name) and quotes the offending
/// text; [`ReadError::Line`] adds the source name and line number in front.
/// Quoted texts longer than 64 bytes are cut and end with `…`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// A data line has neither 18 nor 21 whitespace-separated fields.
    #[error("expected 18 (SWF) or 21 (CWF) fields, found {found}")]
    FieldCount {
        /// How many fields the line has.
        found: usize,
    },
    /// A numeric field holds something that is not a decimal number.
    #[error("field {field} ({}): {text:?} is not a number", name_of(.field))]
    NotANumber {
        /// The 1-based field number.
        field: usize,
        /// The offending token.
        text: String,
    },
    /// A numeric field holds a negative value other than `-1` (unknown).
    #[error("field {field} ({}): {text:?} is negative; only -1 (unknown) is allowed", name_of(.field))]
    Negative {
        /// The 1-based field number.
        field: usize,
        /// The offending token.
        text: String,
    },
    /// A numeric field holds a value too large for its type (`u64`, or a
    /// finite `f64` for field 6).
    #[error("field {field} ({}): {text:?} is too large", name_of(.field))]
    TooLarge {
        /// The 1-based field number.
        field: usize,
        /// The offending token.
        text: String,
    },
    /// A time field (submit, wait, run or requested time, requested start,
    /// or the amount of an ET/RT command) is beyond
    /// [`MAX_TIME`](crate::MAX_TIME).
    #[error("field {field} ({}): {text:?} is beyond the largest time allowed, 2^53 s", name_of(.field))]
    TimeTooLarge {
        /// The 1-based field number.
        field: usize,
        /// The offending token.
        text: String,
    },
    /// Field 1 is `-1` or negative: every line must name its job.
    #[error(
        "field 1 (job number): {text:?} is not allowed; the job number must be known and not negative"
    )]
    InvalidJobNumber {
        /// The offending token.
        text: String,
    },
    /// Field 11 is a number outside `0..=5` and not `-1`.
    #[error("field 11 (status): {text:?} is not a job status (0 to 5, or -1 for unknown)")]
    InvalidStatus {
        /// The offending token.
        text: String,
    },
    /// Field 20 is not one of `S`, `ET`, `RT`, `EP`, `RP`.
    #[error("field 20 (request type): {text:?} is not a request type (S, ET, RT, EP or RP)")]
    InvalidRequestType {
        /// The offending token.
        text: String,
    },
    /// A line is longer than [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES): the
    /// input is most likely not a workload file.
    #[error("line is longer than {limit} bytes")]
    TooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// A header line with a known key holds a value of the wrong type, such
    /// as `; MaxProcs: abc`.
    #[error("header {key}: {value:?} is not {expected}")]
    HeaderValue {
        /// The key as written in the file.
        key: String,
        /// The value as written in the file.
        value: String,
        /// What the value should be, e.g. "a non-negative integer".
        expected: &'static str,
    },
    /// A comment line holds bytes that are not UTF-8.
    #[error("comment line is not valid UTF-8")]
    InvalidUtf8,
    /// A carriage return before the line's end: lines ended by CR alone
    /// (classic Mac OS) read as one line.
    #[error(
        "a carriage return inside the line: the file seems to end its lines with CR alone (classic Mac OS); convert them to LF (e.g. tr '\\r' '\\n')"
    )]
    CarriageReturn,
}

impl LineError {
    /// The reason under which lenient mode counts this problem.
    pub fn reason(&self) -> Reason {
        match self {
            Self::FieldCount { .. } => Reason::FieldCount,
            Self::NotANumber { .. } => Reason::NotANumber,
            Self::Negative { .. } => Reason::Negative,
            Self::TooLarge { .. } | Self::TimeTooLarge { .. } => Reason::TooLarge,
            Self::InvalidJobNumber { .. } => Reason::InvalidJobNumber,
            Self::InvalidStatus { .. } => Reason::InvalidStatus,
            Self::InvalidRequestType { .. } => Reason::InvalidRequestType,
            Self::TooLong { .. } => Reason::LineTooLong,
            Self::HeaderValue { .. } => Reason::HeaderValue,
            Self::InvalidUtf8 => Reason::InvalidUtf8,
            Self::CarriageReturn => Reason::CarriageReturn,
        }
    }

    /// The 1-based field number the problem is in, if it is in one field.
    pub fn field(&self) -> Option<usize> {
        match self {
            Self::NotANumber { field, .. }
            | Self::Negative { field, .. }
            | Self::TooLarge { field, .. }
            | Self::TimeTooLarge { field, .. } => Some(*field),
            Self::InvalidJobNumber { .. } => Some(1),
            Self::InvalidStatus { .. } => Some(11),
            Self::InvalidRequestType { .. } => Some(20),
            _ => None,
        }
    }
}

/// Why lenient mode skipped a line or warned about one: the key of
/// [`ReadSummary::issues`](crate::ReadSummary::issues).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Reason {
    /// Neither 18 nor 21 fields (line skipped).
    FieldCount,
    /// A field is not a number (line skipped).
    NotANumber,
    /// A field is negative but not `-1` (line skipped).
    Negative,
    /// A field is too large (line skipped).
    TooLarge,
    /// The job number is `-1` or negative (line skipped).
    InvalidJobNumber,
    /// The status is not `0..=5` or `-1` (line skipped).
    InvalidStatus,
    /// The CWF request type is not `S`/`ET`/`RT`/`EP`/`RP` (line skipped).
    InvalidRequestType,
    /// The line is longer than [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES)
    /// (line skipped).
    LineTooLong,
    /// A known header key has a malformed value (line kept verbatim; its
    /// typed accessor returns `None`).
    HeaderValue,
    /// A comment line is not UTF-8 (line kept, invalid bytes replaced by
    /// U+FFFD).
    InvalidUtf8,
    /// A carriage return inside a line (line skipped).
    CarriageReturn,
}

impl Reason {
    /// A short description for reports, e.g. "wrong number of fields".
    pub fn description(self) -> &'static str {
        match self {
            Self::FieldCount => "wrong number of fields",
            Self::NotANumber => "field is not a number",
            Self::Negative => "negative value other than -1",
            Self::TooLarge => "value too large",
            Self::InvalidJobNumber => "job number is -1 or negative",
            Self::InvalidStatus => "invalid status",
            Self::InvalidRequestType => "invalid request type",
            Self::LineTooLong => "line too long",
            Self::HeaderValue => "malformed header value (line kept)",
            Self::InvalidUtf8 => "comment not valid UTF-8 (line kept, bytes replaced)",
            Self::CarriageReturn => "carriage return inside a line (CR-only line ends)",
        }
    }

    /// Whether lenient mode drops the line (`true`) or keeps it with a
    /// warning (`false`).
    pub fn skips_line(self) -> bool {
        !matches!(self, Self::HeaderValue | Self::InvalidUtf8)
    }
}

/// An error while reading a workload.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The file could not be opened.
    #[error("cannot open {}", path.display())]
    Open {
        /// The path as given.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Reading (or decompressing) failed after some lines were read.
    #[error(
        "cannot read {source_name} {where_}",
        where_ = if *line == 0 { "from its start".to_owned() } else { format!("past line {line}") }
    )]
    Read {
        /// The file name or other name given for the input.
        source_name: String,
        /// The number of lines read successfully before the failure.
        line: u64,
        /// The underlying error (for a damaged `.gz` file, the
        /// decompressor's complaint).
        source: io::Error,
    },
    /// A line is invalid (strict mode only; lenient mode counts it instead).
    #[error("{source_name}:{line}: {error}")]
    Line {
        /// The file name or other name given for the input.
        source_name: String,
        /// The 1-based line number.
        line: u64,
        /// What is wrong.
        error: LineError,
    },
}

/// An error while writing a workload.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The output file could not be created.
    #[error("cannot create {}", path.display())]
    Create {
        /// The path as given.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Writing to the output failed.
    #[error("cannot write the workload")]
    Io {
        /// The underlying error.
        #[from]
        source: io::Error,
    },
    /// Field 6 holds a value SWF cannot represent (NaN, infinite or
    /// negative), so the file would not read back.
    #[error(
        "job {job_number}: field 6 (average CPU time) is {value}; it must be finite and not negative"
    )]
    InvalidCpuTime {
        /// The record's job number.
        job_number: u64,
        /// The offending value.
        value: f64,
    },
    /// A comment to write is not a single line starting with `;`.
    #[error("{line:?} is not a comment line (it must start with ';' and hold no line break)")]
    NotAComment {
        /// The offending text.
        line: String,
    },
}

/// An error while building a [`Header`](crate::Header) by hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderError {
    /// The key is empty or holds characters other than ASCII letters,
    /// digits and `_`.
    #[error("{key:?} is not a header key (use ASCII letters, digits and '_')")]
    InvalidKey {
        /// The offending key.
        key: String,
    },
    /// The value of a known key has the wrong type.
    #[error("header {key}: {value:?} is not {expected}")]
    InvalidValue {
        /// The key.
        key: String,
        /// The offending value.
        value: String,
        /// What the value should be.
        expected: &'static str,
    },
    /// A header line is not a single line starting with `;`.
    #[error("{line:?} is not a comment line (it must start with ';' and hold no line break)")]
    NotAComment {
        /// The offending text.
        line: String,
    },
}

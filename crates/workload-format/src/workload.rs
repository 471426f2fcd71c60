//! A whole workload in memory.

use crate::header::Header;
use crate::record::Record;
use crate::summary::ReadSummary;

/// A comment line that appeared between records, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedComment {
    /// How many records precede the comment: it is written just before
    /// `records[before_record]`, or after the last record when equal to
    /// `records.len()`. A comment at 0 is written right after the header, so
    /// it reads back as part of the header.
    pub before_record: usize,
    /// The line, verbatim, starting with `;` (after optional whitespace).
    pub line: String,
}

/// A whole workload: header, records in file order, the comment lines found
/// between records, and what the read saw.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Workload {
    /// Every comment line before the first record.
    pub header: Header,
    /// The records, in file order.
    pub records: Vec<Record>,
    /// Comment lines after the first record, in file order.
    pub comments: Vec<PlacedComment>,
    /// Counts from the read (all zero for a workload built in memory).
    pub summary: ReadSummary,
}

impl Workload {
    /// A workload from a header and records (for generators), with no
    /// comments between records and an empty summary.
    pub fn new(header: Header, records: Vec<Record>) -> Self {
        Self {
            header,
            records,
            comments: Vec::new(),
            summary: ReadSummary::default(),
        }
    }

    /// Whether the workload is the same as `other` apart from the read
    /// summary (which differs between a messy file and its canonical
    /// rewrite). This is the identity that parse -> write -> parse keeps.
    pub fn same_content(&self, other: &Self) -> bool {
        self.header == other.header
            && self.records == other.records
            && self.comments == other.comments
    }
}

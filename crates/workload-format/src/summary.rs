//! What a read saw: line counts, rounded values, and (lenient mode) the
//! problems it skipped or warned about.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::{LineError, Reason};

/// One problem lenient mode met: where and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The 1-based line number.
    pub line: u64,
    /// What is wrong (its `Display` is the message a user reads).
    #[serde(serialize_with = "serialize_display")]
    pub error: LineError,
}

fn serialize_display<S: serde::Serializer>(error: &LineError, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(error)
}

/// Counts of everything a read met, so that nothing vanishes without a count.
///
/// Every line is exactly one of: a record, a comment line (header or between
/// records), a blank line, or a skipped line (lenient mode), so
/// `lines == records + comment_lines + blank_lines + skipped_lines`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ReadSummary {
    /// Lines read, including the last line if it has no line ending.
    pub lines: u64,
    /// The input started with a UTF-8 byte-order mark (`EF BB BF`), which
    /// was skipped: it is not part of line 1's text and is not written back.
    pub byte_order_mark: bool,
    /// Data lines turned into records.
    pub records: u64,
    /// Records with 21 fields (CWF), included in `records`.
    pub cwf_records: u64,
    /// Comment lines (`;`), in the header or between records.
    pub comment_lines: u64,
    /// Blank lines (only whitespace): skipped, not an error.
    pub blank_lines: u64,
    /// Per field (index = field number - 1): float tokens in integer fields
    /// that were rounded to the nearest integer. Field 6 is never counted
    /// (it is a float field).
    pub rounded: [u64; 21],
    /// Data lines lenient mode skipped.
    pub skipped_lines: u64,
    /// Lenient mode's problems by reason: skipped lines and warnings (see
    /// [`Reason::skips_line`]).
    pub issues: BTreeMap<Reason, u64>,
    /// The first problems, in line order, at most
    /// [`ReadOptions::max_examples`](crate::ReadOptions::max_examples).
    pub examples: Vec<Issue>,
    /// Batsim's JSON only: why the jobs were numbered 1..n in submission
    /// order instead of by their ids (e.g. `id "abc" (jobs[0]) is not a
    /// non-negative integer`); `None` when the ids are the job numbers.
    pub renumbered: Option<String>,
}

impl ReadSummary {
    /// Rounded values over all fields.
    pub fn rounded_total(&self) -> u64 {
        self.rounded.iter().sum()
    }

    /// Rounded values in one field (1-based field number; 0 outside 1..=21).
    pub fn rounded_in(&self, field: usize) -> u64 {
        field
            .checked_sub(1)
            .and_then(|i| self.rounded.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Warnings: problems on lines that were kept (malformed header values,
    /// comments that are not UTF-8).
    pub fn warnings(&self) -> u64 {
        self.issues
            .iter()
            .filter(|(reason, _)| !reason.skips_line())
            .map(|(_, n)| n)
            .sum()
    }

    /// Whether the read met no problem at all (rounding is not a problem).
    pub fn is_clean(&self) -> bool {
        self.issues.is_empty()
    }

    pub(crate) fn record_issue(&mut self, line: u64, error: LineError, max_examples: usize) {
        let reason = error.reason();
        *self.issues.entry(reason).or_insert(0) += 1;
        if reason.skips_line() {
            self.skipped_lines += 1;
        }
        if self.examples.len() < max_examples {
            self.examples.push(Issue { line, error });
        }
    }

    pub(crate) fn count_rounded(&mut self, mut mask: u32) {
        while mask != 0 {
            let bit = mask.trailing_zeros() as usize;
            self.rounded[bit] += 1;
            mask &= mask - 1;
        }
    }
}

//! Read and write the Standard Workload Format (SWF) of the Parallel
//! Workloads Archive and its Cloud Workload Format (CWF) extension, exactly,
//! fast, and without losing a line.
//!
//! An SWF file is a header of `;` comment lines and one job per line with 18
//! numeric fields; CWF lines add three (requested start time, request type,
//! amount). This crate turns such files, plain or gzip-compressed, into typed
//! [`Record`]s and a typed [`Header`], and writes them back in a canonical
//! form.
//!
//! ```
//! use workload_format::{read_from, workload_to_string, ReadOptions};
//!
//! let swf = "\
//! ; Version: 2.2
//! ; MaxProcs: 128
//!
//! 1   0  10  3600  64  552.21  -1  64  7200  -1  1  3  1  -1  0  -1  -1  -1
//! 2  30   5   120.6 8  -1      -1  -1  600   -1  5  4  1  -1  1  -1  -1  -1
//! ";
//! let workload = read_from(swf.as_bytes(), "example.swf", &ReadOptions::strict())?;
//! assert_eq!(workload.header.max_procs(), Some(128));
//! assert_eq!(workload.records.len(), 2);
//! assert_eq!(workload.records[1].requested_processors, None); // -1 = unknown
//! assert_eq!(workload.records[1].run_time, Some(121)); // 120.6 rounded...
//! assert_eq!(workload.summary.rounded_in(4), 1); // ...and counted
//! assert_eq!(workload.summary.blank_lines, 1);
//!
//! // Canonical output: one space between fields, no blank lines.
//! let canonical = workload_to_string(&workload)?;
//! assert_eq!(canonical, "\
//! ; Version: 2.2
//! ; MaxProcs: 128
//! 1 0 10 3600 64 552.21 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1
//! 2 30 5 121 8 -1 -1 -1 600 -1 5 4 1 -1 1 -1 -1 -1
//! ");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Reading
//!
//! - [`read_path`] reads a whole file, [`open_path`] streams one; both tell
//!   plain from gzip files by the gzip magic bytes, not the name, and read
//!   concatenated gzip members in full; gzip input is decompressed on a
//!   helper thread so that decompression and parsing overlap. [`read_from`] and [`Reader`] work on
//!   any [`BufRead`](std::io::BufRead). A [`Reader`] holds one line at a time.
//! - [`ReadOptions`] chooses the [`Mode`]: strict (default) or lenient.
//! - [`read_path_packed`] (or [`Reader::read_packed`]) reads the records
//!   into [`PackedRecords`], a lossless byte encoding of about 25-40 bytes
//!   a record instead of a [`Record`]'s 312, for programs that keep a large
//!   trace in memory (the simulator keeps it to write `schedule.swf`).
//!
//! # Decisions
//!
//! - **Unknown**: `-1` (also written `-1.0`, `-1e0`...) means unknown and is
//!   `None`. Any other negative value is invalid input; `-0` is 0. The job
//!   number (field 1) must be known.
//! - **Floats**: field 6 (average CPU time per processor) is the only `f64`
//!   field. It is kept exactly and written in the shortest form that reads
//!   back to the same value (`552` for 552.0, `552.21` stays `552.21`). In
//!   every integer field a float token (one with a `.` or an exponent) is
//!   accepted and rounded to the nearest integer, ties away from zero
//!   (`12.5` -> 13); this is reported, not silent:
//!   [`ReadSummary::rounded`] counts rounded values per field.
//! - **Lines**: a data line has 18 (SWF) or 21 (CWF) fields separated by
//!   ASCII whitespace (space, tab, CR, form feed); anything else is an error
//!   "expected 18 (SWF) or 21 (CWF) fields, found N". Field 20 is one of `S`,
//!   `ET`, `RT`, `EP`, `RP` (exact case). The status (field 11) is `0..=5` or
//!   `-1`. A file may mix SWF and CWF lines; each record keeps its own form.
//!   No other check is made: sorting, runtime against the request, and
//!   similar facts of real logs are the caller's business.
//! - **Byte-order mark**: a UTF-8 byte-order mark (`EF BB BF`, written by
//!   some Windows editors) at the very start of the input is skipped in both
//!   modes and reported in [`ReadSummary::byte_order_mark`]; anywhere else
//!   those bytes are ordinary text (in a data line, an error). The writer
//!   never writes one, so such a file round-trips in content, not in bytes.
//! - **Blank lines** (only whitespace) are skipped and counted.
//! - **Comments**: lines whose first non-whitespace character is `;`. Those
//!   before the first record are the [`Header`]; those after it are kept in
//!   place in [`Workload::comments`]. Both are kept verbatim (minus a CRLF's
//!   CR), so a file round-trips.
//! - **Header**: the known keys of the specification (Version, Computer,
//!   Installation, Acknowledge, Information, Conversion, MaxJobs, MaxRecords,
//!   Preemption, UnixStartTime, TimeZone, TimeZoneString, StartTime, EndTime,
//!   MaxNodes, MaxProcs, MaxRuntime, MaxMemory, AllowOveruse, MaxQueues,
//!   Queues, Queue, MaxPartitions, Partitions, Partition, Note) have typed
//!   accessors; unknown keys and free text are kept. A malformed value of a
//!   numeric or boolean key (`; MaxProcs: abc`) is an error in strict mode and
//!   a counted warning in lenient mode.
//! - **Canonical output** ([`Writer`]): comment lines verbatim, data lines as
//!   the fields separated by one space with no leading or trailing
//!   whitespace, `\n` line endings, no blank lines. parse -> write -> parse
//!   is the identity ([`Workload::same_content`]), and a canonical file is
//!   written back byte-identical.
//! - **serde**: records serialize with `None` as `null`; the header as the
//!   list of its lines.
//!
//! # Errors
//!
//! Strict mode stops at the first bad line with [`ReadError::Line`], whose
//! message names the source, the line, the field (number and name) and the
//! offending text:
//!
//! ```text
//! KTH.swf:1234: field 5 (allocated processors): "12x" is not a number
//! ```
//!
//! Lenient mode skips bad data lines and counts them by [`Reason`] in
//! [`ReadSummary::issues`], with the first few as [`ReadSummary::examples`]
//! (line number and message); malformed header values and non-UTF-8
//! comments are kept and counted as warnings. I/O errors are
//! [`ReadError::Open`] and [`ReadError::Read`], which keep the path and chain
//! the underlying [`std::io::Error`] as their `source()`. All error enums are
//! `#[non_exhaustive]`.
#![warn(missing_docs)]

#[cfg(feature = "batsim")]
mod batsim;
mod error;
mod header;
#[cfg(feature = "jsonl")]
mod jsonl;
mod number;
mod packed;
mod parse;
mod pipe;
mod read;
mod record;
#[cfg(feature = "sacct")]
mod sacct;
#[cfg(any(feature = "batsim", feature = "jsonl"))]
mod strict_json;
mod summary;
mod workload;
mod write;

/// The largest time, in seconds, a record may hold in a time field (submit,
/// wait, run and requested time, requested start, ET/RT amounts): 2^53 s,
/// about 285 million years. Larger values are refused with
/// [`LineError::TimeTooLarge`], so that programs adding times up cannot
/// overflow 64-bit integers and every time converts to `f64` exactly.
pub const MAX_TIME: u64 = 1 << 53;

#[cfg(feature = "batsim")]
pub use batsim::{
    BatsimError, BatsimSummary, BatsimUnwritable, read_batsim_json, read_batsim_path,
    workload_to_batsim_json, write_batsim_path,
};
pub use error::{FIELD_NAMES, HeaderError, LineError, ReadError, Reason, WriteError, field_name};
pub use header::{Header, known_keys};
#[cfg(feature = "jsonl")]
pub use jsonl::{
    JsonLinesError, MAX_JSON_LINE_BYTES, is_json_lines_path, read_json_lines, read_json_lines_path,
    write_json_lines,
};
pub use number::readable_number;
pub use packed::{PackedIter, PackedRecords};
pub use parse::parse_record;
pub use read::{
    Line, MAX_LINE_BYTES, Mode, ReadOptions, Reader, open_input, open_path, read_from, read_path,
    read_path_packed,
};
pub use record::{CwfFields, JobStatus, Record, RequestType};
#[cfg(feature = "sacct")]
pub use sacct::{SacctError, SacctImport, SacctMapping, SacctOptions, SacctSummary, import_sacct};
pub use summary::{Issue, ReadSummary};
pub use workload::{PlacedComment, Workload};
pub use write::{
    PathOutput, Writer, create_path, without_gz, workload_to_string, write_path, write_workload,
};

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

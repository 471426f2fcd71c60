//! Reading: options, the streaming [`Reader`], and whole-file helpers.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use flate2::bufread::MultiGzDecoder;

use crate::error::{LineError, ReadError};
use crate::header::Header;
use crate::packed::PackedRecords;
use crate::parse::parse_line_into;
use crate::pipe::ThreadedReader;
use crate::record::Record;
use crate::summary::ReadSummary;
use crate::workload::{PlacedComment, Workload};

/// Lines longer than this are rejected ([`LineError::TooLong`]) instead of
/// being buffered: a workload line is about 100 bytes, so such input is not a
/// workload file, and the limit keeps a reader's memory bounded.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Buffer size for files and decompression.
const BUFFER_BYTES: usize = 256 * 1024;

/// The UTF-8 encoding of U+FEFF, the byte-order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a reader treats bad lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The first bad line is an error naming source, line, field and text.
    #[default]
    Strict,
    /// Bad data lines are skipped and counted by reason; a malformed header
    /// value or a non-UTF-8 comment is kept and counted as a warning.
    Lenient,
}

/// Options for reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Strict (the default) or lenient.
    pub mode: Mode,
    /// How many problems lenient mode keeps as examples (line and message);
    /// all are counted regardless. Default 5.
    pub max_examples: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Strict,
            max_examples: 5,
        }
    }
}

impl ReadOptions {
    /// Strict mode, the default.
    pub fn strict() -> Self {
        Self::default()
    }

    /// Lenient mode.
    pub fn lenient() -> Self {
        Self {
            mode: Mode::Lenient,
            ..Self::default()
        }
    }

    /// Lenient mode if `lenient`, else strict (a command's `--lenient`).
    pub fn lenient_if(lenient: bool) -> Self {
        if lenient {
            Self::lenient()
        } else {
            Self::strict()
        }
    }

    /// The same options keeping `n` example problems.
    pub fn with_max_examples(self, n: usize) -> Self {
        Self {
            max_examples: n,
            ..self
        }
    }
}

/// One line after the header, as [`Reader::next_line`] returns it.
// Records are nearly every line; boxing them would cost an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A data line.
    Record(Record),
    /// A comment line between records, verbatim (without line ending).
    Comment(String),
}

/// A streaming reader: the header is read on construction, then records one
/// at a time in constant memory.
///
/// As an [`Iterator`] it yields the records; comment lines between records
/// are counted in the summary but not yielded (use
/// [`next_line`](Self::next_line) to get them). After an error (strict mode)
/// the reader is finished.
///
/// ```
/// use workload_format::{Reader, ReadOptions};
/// let text = "; MaxProcs: 8\n1 0 -1 60 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
/// let mut reader = Reader::new(text.as_bytes(), "example.swf", ReadOptions::strict())?;
/// assert_eq!(reader.header().max_procs(), Some(8));
/// let sizes: Vec<_> = reader.by_ref().map(|r| r.map(|r| r.allocated_processors)).collect::<Result<_, _>>()?;
/// assert_eq!(sizes, [Some(4)]);
/// assert_eq!(reader.summary().records, 1);
/// # Ok::<(), workload_format::ReadError>(())
/// ```
#[derive(Debug)]
pub struct Reader<R> {
    input: R,
    /// A line that spans two buffer fills; lines inside one fill are parsed
    /// in place without copying.
    partial: Vec<u8>,
    /// The line being gathered in `partial` went past [`MAX_LINE_BYTES`].
    partial_too_long: bool,
    state: State,
}

/// Everything but the input, so that a line borrowed from the input's buffer
/// can be handled while the state changes.
#[derive(Debug)]
struct State {
    source_name: String,
    options: ReadOptions,
    header: Header,
    summary: ReadSummary,
    in_header: bool,
    /// The last record parsed; parsing writes into it in place.
    record: Record,
    /// `record` holds the first record, read by `new`, not yet returned.
    pending: bool,
    finished: bool,
}

/// What handling a line produced.
enum Handled {
    /// A record, in `State::record`.
    Record,
    /// A comment line after the header.
    Comment(String),
}

impl<R: BufRead> Reader<R> {
    /// Reads the header (every comment line up to the first record) from
    /// `input`; `source_name` (usually the file name) prefixes error messages.
    ///
    /// Fails on an I/O error, or in strict mode on a bad header value or a bad
    /// first data line.
    pub fn new(input: R, source_name: &str, options: ReadOptions) -> Result<Self, ReadError> {
        let mut reader = Self {
            input,
            partial: Vec::new(),
            partial_too_long: false,
            state: State {
                source_name: source_name.to_string(),
                options,
                header: Header::new(),
                summary: ReadSummary::default(),
                in_header: true,
                record: Record::unknown(0),
                pending: false,
                finished: false,
            },
        };
        match reader.step() {
            Some(Ok(Handled::Record)) => reader.state.pending = true,
            // `step` keeps header lines itself until the first record, so
            // this arm only completes the match.
            Some(Ok(Handled::Comment(text))) => reader.state.header.push_unchecked(text),
            Some(Err(e)) => return Err(e),
            None => {}
        }
        Ok(reader)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.state.header
    }

    /// The counts so far.
    pub fn summary(&self) -> &ReadSummary {
        &self.state.summary
    }

    /// The source name given at construction.
    pub fn source_name(&self) -> &str {
        &self.state.source_name
    }

    /// The header and the final counts.
    pub fn into_parts(self) -> (Header, ReadSummary) {
        (self.state.header, self.state.summary)
    }

    /// The next record or comment line after the header; `None` at the end
    /// (or after an error).
    pub fn next_line(&mut self) -> Option<Result<Line, ReadError>> {
        Some(match self.next_handled()? {
            Ok(Handled::Record) => Ok(Line::Record(self.state.record.clone())),
            Ok(Handled::Comment(text)) => Ok(Line::Comment(text)),
            Err(e) => Err(e),
        })
    }

    /// The rest of the input as a whole [`Workload`]: the header, the
    /// records with the comment lines between them kept in place, and the
    /// counts. Each record is copied once, from the parse slot straight
    /// into the vector.
    ///
    /// # Errors
    /// As the iterator: an I/O error, or in strict mode the first bad line.
    pub fn into_workload(mut self) -> Result<Workload, ReadError> {
        let mut records = Vec::new();
        let mut comments = Vec::new();
        while let Some(handled) = self.next_handled() {
            match handled? {
                Handled::Record => records.push(self.state.record.clone()),
                Handled::Comment(line) => comments.push(PlacedComment {
                    before_record: records.len(),
                    line,
                }),
            }
        }
        let (header, summary) = self.into_parts();
        let mut workload = Workload::new(header, records);
        workload.comments = comments;
        workload.summary = summary;
        Ok(workload)
    }

    /// The rest of the records into `records`, encoded straight from the
    /// parse slot; comment lines between records are counted in the
    /// summary and otherwise skipped.
    ///
    /// # Errors
    /// As the iterator: an I/O error, or in strict mode the first bad line.
    pub fn read_packed(&mut self, records: &mut PackedRecords) -> Result<(), ReadError> {
        while let Some(handled) = self.next_handled() {
            if let Handled::Record = handled? {
                records.push(&self.state.record);
            }
        }
        Ok(())
    }

    fn next_handled(&mut self) -> Option<Result<Handled, ReadError>> {
        if self.state.pending {
            self.state.pending = false;
            return Some(Ok(Handled::Record));
        }
        self.step()
    }

    /// Reads lines until one is a record or (after the header) a comment.
    fn step(&mut self) -> Option<Result<Handled, ReadError>> {
        while !self.state.finished {
            let available = match self.input.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    self.state.finished = true;
                    return Some(Err(ReadError::Read {
                        source_name: self.state.source_name.clone(),
                        line: self.state.summary.lines,
                        source,
                    }));
                }
            };
            if available.is_empty() {
                // The last line may lack its line ending.
                self.state.finished = true;
                if self.partial.is_empty() && !self.partial_too_long {
                    return None;
                }
                return self.handle_partial();
            }
            let Some(end) = memchr::memchr(b'\n', available) else {
                let taken = available.len();
                self.gather(taken);
                continue;
            };
            let outcome = if end > MAX_LINE_BYTES {
                self.partial_too_long = true;
                self.input.consume(end + 1);
                self.handle_partial()
            } else if self.partial.is_empty() && !self.partial_too_long {
                // The common case: the whole line is in the input's buffer.
                let outcome = self.state.handle_line(&available[..end]);
                self.input.consume(end + 1);
                outcome
            } else {
                self.gather(end);
                self.input.consume(1);
                self.handle_partial()
            };
            if outcome.is_some() {
                return outcome;
            }
        }
        None
    }

    /// Moves the first `n` available bytes into `partial` (unless the line is
    /// already too long) and consumes them.
    fn gather(&mut self, n: usize) {
        if !self.partial_too_long {
            if self.partial.len() + n > MAX_LINE_BYTES {
                self.partial_too_long = true;
                self.partial = Vec::new();
            } else if let Ok(bytes) = self.input.fill_buf() {
                // The bytes are still buffered: `fill_buf` returns them again.
                self.partial.extend_from_slice(&bytes[..n]);
            }
        }
        self.input.consume(n);
    }

    /// Handles the line gathered in `partial` and resets it.
    fn handle_partial(&mut self) -> Option<Result<Handled, ReadError>> {
        let outcome = if self.partial_too_long {
            self.state.summary.lines += 1;
            let error = LineError::TooLong {
                limit: MAX_LINE_BYTES,
            };
            self.state.problem(error).err().map(Err)
        } else {
            self.state.handle_line(&self.partial)
        };
        self.partial.clear();
        self.partial_too_long = false;
        outcome
    }
}

impl State {
    /// Handles one line (without its `\n`): `Some` for a record, an error,
    /// or a comment after the header; `None` for lines consumed here (blank,
    /// header, skipped).
    fn handle_line(&mut self, mut line: &[u8]) -> Option<Result<Handled, ReadError>> {
        self.summary.lines += 1;
        // Editors on Windows often start a UTF-8 file with a byte-order mark;
        // it is not part of the first line's text.
        if self.summary.lines == 1
            && let Some(rest) = line.strip_prefix(UTF8_BOM)
        {
            self.summary.byte_order_mark = true;
            line = rest;
        }
        let Some(first) = line.iter().position(|b| !b.is_ascii_whitespace()) else {
            self.summary.blank_lines += 1;
            return None;
        };
        if line[first] == b';' {
            if has_inner_carriage_return(line) {
                return self.problem(LineError::CarriageReturn).err().map(Err);
            }
            self.summary.comment_lines += 1;
            let text = match self.comment_text(line) {
                Ok(text) => text,
                Err(e) => return Some(Err(e)),
            };
            if !self.in_header {
                return Some(Ok(Handled::Comment(text)));
            }
            if let Err(error) = Header::check_line(&text)
                && let Err(e) = self.problem(error)
            {
                return Some(Err(e));
            }
            self.header.push_unchecked(text);
            return None;
        }
        match parse_line_into(line, &mut self.record) {
            Ok(rounded) => {
                self.summary.records += 1;
                if self.record.cwf.is_some() {
                    self.summary.cwf_records += 1;
                }
                if rounded != 0 {
                    self.summary.count_rounded(rounded);
                }
                self.in_header = false;
                Some(Ok(Handled::Record))
            }
            // A carriage return is whitespace to the tokenizer, so it is
            // looked for only when the line fails: CR-only line ends run
            // lines together, which then fail.
            Err(error) => {
                let error = if has_inner_carriage_return(line) {
                    LineError::CarriageReturn
                } else {
                    error
                };
                self.problem(error).err().map(Err)
            }
        }
    }

    /// The comment line as text, without trailing CRs (CRLF line endings).
    fn comment_text(&mut self, line: &[u8]) -> Result<String, ReadError> {
        let mut bytes = line;
        while let Some(rest) = bytes.strip_suffix(b"\r") {
            bytes = rest;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(text.to_string()),
            Err(_) => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                self.problem(LineError::InvalidUtf8)?;
                Ok(text)
            }
        }
    }

    /// Strict: the error for the current line. Lenient: count it.
    fn problem(&mut self, error: LineError) -> Result<(), ReadError> {
        match self.options.mode {
            Mode::Strict => {
                self.finished = true;
                Err(ReadError::Line {
                    source_name: self.source_name.clone(),
                    line: self.summary.lines,
                    error,
                })
            }
            Mode::Lenient => {
                let line = self.summary.lines;
                self.summary
                    .record_issue(line, error, self.options.max_examples);
                Ok(())
            }
        }
    }
}

/// Whether a carriage return stands before the line's end (trailing ones
/// are CRLF line ends): lines ended by CR alone (classic Mac OS).
fn has_inner_carriage_return(line: &[u8]) -> bool {
    let mut content = line;
    while let Some(rest) = content.strip_suffix(b"\r") {
        content = rest;
    }
    content.contains(&b'\r')
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_line()? {
                Ok(Line::Record(record)) => return Some(Ok(record)),
                Ok(Line::Comment(_)) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Reads a whole workload from `input`; `source_name` prefixes error
/// messages. Comment lines between records are kept in place.
pub fn read_from<R: BufRead>(
    input: R,
    source_name: &str,
    options: &ReadOptions,
) -> Result<Workload, ReadError> {
    Reader::new(input, source_name, *options)?.into_workload()
}

/// Opens a file for streaming: plain or gzip-compressed alike, told apart by
/// the gzip magic bytes (`1f 8b`), not by the name. Concatenated gzip members
/// are read in full. The path as given is the source name in messages.
pub fn open_path(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<Reader<Box<dyn BufRead + Send>>, ReadError> {
    let path = path.as_ref();
    let source_name = path.display().to_string();
    let input = open_input(path)?;
    Reader::new(input, &source_name, *options)
}

/// Reads a whole file, plain or gzip-compressed (see [`open_path`]).
pub fn read_path(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Workload, ReadError> {
    let path = path.as_ref();
    let source_name = path.display().to_string();
    let input = open_input(path)?;
    read_from(input, &source_name, options)
}

/// A whole file read into [`PackedRecords`] (see [`open_path`]): the
/// header, the records (about a tenth of the memory of a [`Workload`]'s)
/// and the read's counts. Comment lines between records are counted and
/// left out.
///
/// # Errors
/// As [`read_path`].
pub fn read_path_packed(
    path: impl AsRef<Path>,
    options: &ReadOptions,
) -> Result<(Header, PackedRecords, ReadSummary), ReadError> {
    let mut reader = open_path(path, options)?;
    let mut records = PackedRecords::new();
    reader.read_packed(&mut records)?;
    records.shrink_to_fit();
    let (header, summary) = reader.into_parts();
    Ok((header, records, summary))
}

/// The file's bytes, decompressed if they start with the gzip magic (on a
/// helper thread, so that decompression overlaps with the caller's parsing).
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead + Send>, ReadError> {
    let open_error = |source| ReadError::Open {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(open_error)?;
    let mut input = BufReader::with_capacity(BUFFER_BYTES, file);
    let gzipped = loop {
        match input.fill_buf() {
            Ok(head) => break head.starts_with(&[0x1f, 0x8b]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(open_error(e)),
        }
    };
    if !gzipped {
        return Ok(Box::new(input));
    }
    // Decompress on a helper thread so that it overlaps with parsing.
    let decoder = MultiGzDecoder::new(input);
    let threaded = ThreadedReader::spawn(decoder).map_err(open_error)?;
    Ok(Box::new(threaded))
}

//! Writing canonical SWF/CWF.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::error::WriteError;
use crate::header::{Header, is_comment_line};
use crate::record::Record;
use crate::workload::Workload;

/// The writer flushes its line buffer to the output past this size.
const FLUSH_BYTES: usize = 64 * 1024;

/// Writes canonical SWF/CWF: comment lines verbatim, data lines as the
/// fields separated by one space, `None` as `-1`, field 6 in the shortest
/// form that reads back to the same `f64` (`552`, not `552.0`; `552.21`
/// stays), `\n` line endings, no blank lines. A record with [`Record::cwf`]
/// set is written with 21 fields, otherwise 18.
///
/// The writer buffers internally, so `W` need not be buffered. Call
/// [`finish`](Self::finish) to flush and see write errors; dropping the
/// writer flushes too but ignores errors.
#[derive(Debug)]
pub struct Writer<W: Write> {
    // `None` only after `finish` has taken it.
    output: Option<W>,
    buffer: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// A writer to `output`.
    pub fn new(output: W) -> Self {
        Self {
            output: Some(output),
            buffer: Vec::with_capacity(FLUSH_BYTES + 1024),
        }
    }

    /// Writes every header line. Write the header before any record.
    pub fn write_header(&mut self, header: &Header) -> Result<(), WriteError> {
        for line in header.lines() {
            self.write_comment(line)?;
        }
        Ok(())
    }

    /// Writes one comment line verbatim; it must start with `;` (after
    /// optional whitespace) and hold no line break.
    pub fn write_comment(&mut self, line: &str) -> Result<(), WriteError> {
        if !is_comment_line(line) {
            return Err(WriteError::NotAComment {
                line: line.to_string(),
            });
        }
        self.buffer.extend_from_slice(line.as_bytes());
        self.buffer.push(b'\n');
        self.flush_if_full()
    }

    /// Writes one record as a canonical data line.
    pub fn write_record(&mut self, record: &Record) -> Result<(), WriteError> {
        format_record(record, &mut self.buffer)?;
        self.flush_if_full()
    }

    /// Flushes everything and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.flush_buffer()?;
        let mut output = self.output.take().ok_or_else(finished_error)?;
        output.flush()?;
        Ok(output)
    }

    fn flush_if_full(&mut self) -> Result<(), WriteError> {
        if self.buffer.len() >= FLUSH_BYTES {
            self.flush_buffer()?;
        }
        Ok(())
    }

    fn flush_buffer(&mut self) -> Result<(), WriteError> {
        let output = self.output.as_mut().ok_or_else(finished_error)?;
        output.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }
}

fn finished_error() -> WriteError {
    WriteError::Io {
        source: io::Error::other("the writer was already finished"),
    }
}

impl<W: Write> Drop for Writer<W> {
    fn drop(&mut self) {
        if let Some(output) = self.output.as_mut() {
            // Like `BufWriter`: best effort; `finish` reports errors.
            let _ = output.write_all(&self.buffer);
            let _ = output.flush();
        }
    }
}

/// Writes a whole workload: header, then records with the comment lines
/// between them in place.
pub fn write_workload<W: Write>(workload: &Workload, output: W) -> Result<W, WriteError> {
    let mut writer = Writer::new(output);
    writer.write_header(&workload.header)?;
    let mut comments = workload.comments.iter().peekable();
    for (index, record) in workload.records.iter().enumerate() {
        while let Some(comment) = comments.next_if(|c| c.before_record <= index) {
            writer.write_comment(&comment.line)?;
        }
        writer.write_record(record)?;
    }
    for comment in comments {
        writer.write_comment(&comment.line)?;
    }
    writer.finish()
}

/// The canonical text of a whole workload.
pub fn workload_to_string(workload: &Workload) -> Result<String, WriteError> {
    let bytes = write_workload(workload, Vec::new())?;
    // Everything written is UTF-8: comments are `str`, the rest ASCII.
    String::from_utf8(bytes).map_err(|e| WriteError::Io {
        source: io::Error::new(io::ErrorKind::InvalidData, e),
    })
}

/// Writes a workload to a file, gzip-compressed when the path ends in `.gz`,
/// through a temporary name (see [`create_path`]).
pub fn write_path(workload: &Workload, path: impl AsRef<Path>) -> Result<(), WriteError> {
    let output = write_workload(workload, create_path(path)?)?;
    output.finish()
}

/// `name` without a final `.gz` (in any case: `x.swf.GZ` is `x.swf`), the
/// suffix that marks a gzip-compressed file in every command.
///
/// ```
/// assert_eq!(workload_format::without_gz("log.SWF.Gz"), "log.SWF");
/// assert_eq!(workload_format::without_gz("log.swf"), "log.swf");
/// ```
pub fn without_gz(name: &str) -> &str {
    match name.len().checked_sub(3) {
        Some(cut) if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".gz") => {
            &name[..cut]
        }
        _ => name,
    }
}

/// A file to write to, gzip-compressing when its name ends in `.gz`; wrap
/// it in a [`Writer`], and call [`PathOutput::finish`] on what
/// [`Writer::finish`] returns to complete the gzip stream.
///
/// The bytes go to a temporary file in the same folder
/// (`NAME.tmp-PID-N`), which `finish` renames to `path` once complete and
/// which is removed if the output is dropped unfinished (an error on the
/// way): `path` holds the old content or the whole new one, never a part
/// that would read as a shorter, valid workload. A kill -9 leaves the
/// temporary file.
pub fn create_path(path: impl AsRef<Path>) -> Result<PathOutput, WriteError> {
    static OUTPUTS: AtomicU64 = AtomicU64::new(0);
    let path = path.as_ref();
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(
        ".tmp-{}-{}",
        std::process::id(),
        OUTPUTS.fetch_add(1, Ordering::Relaxed)
    ));
    let temporary = PathBuf::from(temporary);
    let file = File::create(&temporary).map_err(|source| WriteError::Create {
        path: path.to_path_buf(),
        source,
    })?;
    let gzip = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| without_gz(n).len() < n.len());
    Ok(PathOutput {
        inner: Some(if gzip {
            Output::Gzip(Box::new(GzEncoder::new(
                BufWriter::new(file),
                Compression::default(),
            )))
        } else {
            Output::Plain(BufWriter::new(file))
        }),
        temporary,
        path: path.to_path_buf(),
    })
}

/// A file opened by [`create_path`], plain or gzip.
#[derive(Debug)]
pub struct PathOutput {
    // `None` only once `finish` has taken it.
    inner: Option<Output>,
    temporary: PathBuf,
    path: PathBuf,
}

#[derive(Debug)]
enum Output {
    Plain(BufWriter<File>),
    // Boxed: the encoder's state is large and made once per file.
    Gzip(Box<GzEncoder<BufWriter<File>>>),
}

impl PathOutput {
    /// Completes the gzip stream (if any), flushes the file and renames it
    /// to its path.
    pub fn finish(mut self) -> Result<(), WriteError> {
        let inner = self.inner.take().ok_or_else(finished_error)?;
        let mut file = match inner {
            Output::Plain(file) => file,
            Output::Gzip(encoder) => encoder.finish()?,
        };
        file.flush()?;
        drop(file);
        let temporary = std::mem::take(&mut self.temporary);
        std::fs::rename(&temporary, &self.path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })?;
        Ok(())
    }

    fn inner(&mut self) -> io::Result<&mut Output> {
        // `finish` takes the output by value: no write can follow it.
        self.inner
            .as_mut()
            .ok_or_else(|| io::Error::other("the output was already finished"))
    }
}

impl Drop for PathOutput {
    fn drop(&mut self) {
        // Dropped unfinished (an error on the way): the partial file is no
        // result. Once renamed, `temporary` is empty.
        if !self.temporary.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

impl Write for PathOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.inner()? {
            Output::Plain(w) => w.write(buf),
            Output::Gzip(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.inner()? {
            Output::Plain(w) => w.write_all(buf),
            Output::Gzip(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.inner()? {
            Output::Plain(w) => w.flush(),
            Output::Gzip(w) => w.flush(),
        }
    }
}

/// Appends the canonical line of `record` (with `\n`) to `out`.
pub(crate) fn format_record(record: &Record, out: &mut Vec<u8>) -> Result<(), WriteError> {
    if let Some(value) = record.average_cpu_time
        && (!value.is_finite() || value < 0.0)
    {
        return Err(WriteError::InvalidCpuTime {
            job_number: record.job_number,
            value,
        });
    }
    push_u64(out, record.job_number);
    for value in [
        record.submit_time,
        record.wait_time,
        record.run_time,
        record.allocated_processors,
    ] {
        out.push(b' ');
        push_option(out, value);
    }
    out.push(b' ');
    match record.average_cpu_time {
        None => out.extend_from_slice(b"-1"),
        // Rust's `Display` for f64 is the shortest text that parses back to
        // the same value, without exponent, and "552" for 552.0. Adding 0.0
        // turns -0.0 into 0.0.
        Some(value) => {
            let _ = write!(out, "{}", value + 0.0);
        }
    }
    for value in record.fields_7_to_18() {
        out.push(b' ');
        push_option(out, value);
    }
    if let Some(cwf) = record.cwf {
        out.push(b' ');
        push_option(out, cwf.requested_start_time);
        out.push(b' ');
        out.extend_from_slice(cwf.request_type.as_str().as_bytes());
        out.push(b' ');
        push_option(out, cwf.amount);
    }
    out.push(b'\n');
    Ok(())
}

fn push_option(out: &mut Vec<u8>, value: Option<u64>) {
    match value {
        Some(v) => push_u64(out, v),
        None => out.extend_from_slice(b"-1"),
    }
}

fn push_u64(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        // `value % 10` < 10, so the cast cannot truncate.
        #[allow(clippy::cast_possible_truncation)]
        let digit = (value % 10) as u8;
        digits[start] = b'0' + digit;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

impl Record {
    /// The canonical data line of this record, without line ending.
    pub fn to_line(&self) -> Result<String, WriteError> {
        let mut out = Vec::with_capacity(128);
        format_record(self, &mut out)?;
        out.pop();
        // Only ASCII digits, spaces, '-', '.', letters were written.
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

//! Which reader a workload file goes to, told by its name: one choice for
//! `simulate`, `validate`, `stats` and the sweeps, so that they accept the
//! same files.

use std::io::BufRead;
use std::path::Path;

use workload_format::{
    BatsimError, JsonLinesError, Mode, ReadError, ReadOptions, Reader, Workload,
    is_json_lines_path, open_path, read_batsim_path, read_json_lines_path, without_gz,
};

/// Whether `path` names a Batsim JSON workload (`.json`, optionally
/// followed by `.gz`); `.jsonl` is JSON lines
/// ([`workload_format::is_json_lines_path`]), anything else is read as
/// SWF/CWF.
pub fn is_batsim_json(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| without_gz(n).to_ascii_lowercase().ends_with(".json"))
}

/// A workload file opened by [`open_workload`].
pub enum WorkloadInput {
    /// Batsim's JSON or JSON lines, read whole (their readers need all of
    /// the file before the first record).
    Whole(Box<Workload>),
    /// SWF or CWF, plain or gzip-compressed, its header read and its
    /// records still to be streamed.
    Stream(Box<Reader<Box<dyn BufRead + Send>>>),
}

/// Why [`open_workload`] failed, by the reader that failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadFileError {
    /// An SWF or CWF file could not be opened, or (strict) its header or
    /// first record is bad.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A Batsim JSON file could not be read or (strict) holds a bad job.
    #[error(transparent)]
    Batsim(#[from] BatsimError),
    /// A JSON lines file could not be read or holds a bad line.
    #[error(transparent)]
    JsonLines(#[from] JsonLinesError),
}

impl WorkloadInput {
    /// The whole workload, the stream's records read to the end.
    ///
    /// # Errors
    /// An I/O error, or (strict) the first bad line of an SWF/CWF stream.
    pub fn into_workload(self) -> Result<Workload, WorkloadFileError> {
        Ok(match self {
            WorkloadInput::Whole(workload) => *workload,
            WorkloadInput::Stream(reader) => reader.into_workload()?,
        })
    }
}

/// Opens a workload file as `simulate` reads it: `.json` (optionally
/// `.gz`) as Batsim's JSON, `.jsonl` as JSON lines (strictly, whatever
/// `options` say), anything else as SWF or CWF, streamed.
///
/// # Errors
/// An unreadable file, a bad line or job of Batsim's JSON or JSON lines,
/// or a bad header or (strict) first record of an SWF/CWF file.
pub fn open_workload(
    path: &Path,
    options: &ReadOptions,
) -> Result<WorkloadInput, WorkloadFileError> {
    Ok(if is_batsim_json(path) {
        let lenient = options.mode == Mode::Lenient;
        WorkloadInput::Whole(Box::new(read_batsim_path(path, lenient)?.0))
    } else if is_json_lines_path(path) {
        WorkloadInput::Whole(Box::new(read_json_lines_path(path)?))
    } else {
        WorkloadInput::Stream(Box::new(open_path(path, options)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_choose_the_reader_in_any_case() {
        // `.gz` in capitals used to hide `.json` (read as SWF) while
        // `.jsonl.GZ` was found: every suffix is told apart ignoring case.
        for name in ["w.json", "w.JSON", "w.json.gz", "w.json.GZ", "w.Json.Gz"] {
            assert!(is_batsim_json(Path::new(name)), "{name}");
        }
        for name in ["w.jsonl", "w.jsonl.GZ", "w.swf.gz", "w.json.gz.swf", "json"] {
            assert!(!is_batsim_json(Path::new(name)), "{name}");
        }
        assert!(is_json_lines_path("w.JSONL.gz"));
        assert!(!is_json_lines_path("w.json.gz"));
    }
}

//! JSON lines: a workload as one JSON object per line.
//!
//! Layout (round-trips with SWF/CWF, header and comments included):
//! - line 1: `{"header":["; Version: 2.2", ...]}`, the header lines verbatim
//!   (always written, `[]` when empty; optional on reading);
//! - then one object per record, with the field names of
//!   [`Record`] (`null` for unknown, `"cwf":null` for an
//!   SWF line), in file order;
//! - a comment line between records is `{"comment":"; text"}` in its place.
//!
//! Blank lines are ignored on reading.
//!
//! Reading checks each record field as the SWF reader checks its token, and
//! names the field and the value: integers (or `null`), not negative, with
//! `-1` read as unknown as in SWF (the writer writes `null`); time fields
//! (submit, wait, run and requested time, requested start, the amount of an
//! ET/RT command) at most [`MAX_TIME`]; `average_cpu_time` a finite
//! non-negative number. Unlike SWF, fractions are refused, not rounded: the
//! writer never writes them. There is no lenient mode: the first bad line
//! stops the read.

use std::io::{self, BufRead, Read, Write};
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::header::Header;
use crate::read::open_input;
use crate::record::{JobStatus, Record, RequestType};
use crate::workload::{PlacedComment, Workload};
use crate::{MAX_TIME, ReadError};

/// An error in a JSON lines file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsonLinesError {
    /// The file could not be opened.
    #[error(transparent)]
    Open(#[from] ReadError),
    /// Reading failed.
    #[error("cannot read {source_name}")]
    Read {
        /// The input's name.
        source_name: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A line is not JSON, or not an object of the expected shape.
    #[error("{source_name}:{line}: {message}")]
    Invalid {
        /// The input's name.
        source_name: String,
        /// The 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// Writing failed.
    #[error("cannot write JSON lines")]
    Write(#[source] io::Error),
}

/// The longest line read, 64 MiB: a record is a few hundred bytes, but
/// the first line holds the whole SWF header.
pub const MAX_JSON_LINE_BYTES: usize = 64 << 20;

const RECORD_KEYS: [&str; 19] = [
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable_number",
    "queue_number",
    "partition_number",
    "preceding_job_number",
    "think_time",
    "cwf",
];
const CWF_KEYS: [&str; 3] = ["requested_start_time", "request_type", "amount"];

/// The record keys holding times, bounded by [`MAX_TIME`] (the SWF reader's
/// fields 2, 3, 4 and 9).
const TIME_KEYS: [&str; 4] = ["submit_time", "wait_time", "run_time", "requested_time"];

/// Writes `workload` as JSON lines (layout in the module docs).
pub fn write_json_lines<W: Write>(workload: &Workload, mut out: W) -> Result<W, JsonLinesError> {
    let header: Vec<&str> = workload.header.lines().collect();
    let mut object = Map::new();
    object.insert("header".into(), Value::from(header));
    write_line(&mut out, &Value::Object(object))?;
    let mut comments = workload.comments.iter().peekable();
    for (index, record) in workload.records.iter().enumerate() {
        while let Some(c) = comments.next_if(|c| c.before_record <= index) {
            write_line(&mut out, &comment_object(&c.line))?;
        }
        write_line(&mut out, record)?;
    }
    for c in comments {
        write_line(&mut out, &comment_object(&c.line))?;
    }
    out.flush().map_err(JsonLinesError::Write)?;
    Ok(out)
}

fn write_line<W: Write, T: serde::Serialize>(out: &mut W, value: &T) -> Result<(), JsonLinesError> {
    serde_json::to_writer(&mut *out, value)
        .map_err(io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(JsonLinesError::Write)
}

fn comment_object(line: &str) -> Value {
    let mut object = Map::new();
    object.insert("comment".into(), Value::from(line));
    Value::Object(object)
}

/// Reads a JSON lines file (plain or gzip-compressed), naming it by its
/// path in messages.
///
/// # Errors
/// See [`read_json_lines`]; also an unreadable file.
pub fn read_json_lines_path(path: impl AsRef<Path>) -> Result<Workload, JsonLinesError> {
    let path = path.as_ref();
    read_json_lines(open_input(path)?, &path.display().to_string())
}

/// Whether `path` names a JSON lines file (`.jsonl`, optionally followed
/// by `.gz`, any case).
pub fn is_json_lines_path(path: impl AsRef<Path>) -> bool {
    path.as_ref()
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| crate::without_gz(n).to_ascii_lowercase())
        .is_some_and(|n| n.ends_with(".jsonl"))
}

/// Reads JSON lines (layout and checks in the module docs); `source_name`
/// prefixes error messages.
///
/// # Errors
/// [`JsonLinesError::Invalid`] for the first bad line, naming the line,
/// the field and its value; [`JsonLinesError::Read`] when reading fails.
pub fn read_json_lines<R: BufRead>(
    mut input: R,
    source_name: &str,
) -> Result<Workload, JsonLinesError> {
    let invalid = |line: u64, message: String| JsonLinesError::Invalid {
        source_name: source_name.to_string(),
        line,
        message,
    };
    let mut header = Header::new();
    let mut records = Vec::new();
    let mut comments = Vec::new();
    let mut seen_content = false;
    let (mut lines, mut blank_lines) = (0, 0);
    let mut bytes = Vec::new();
    for number in 1u64.. {
        // At most MAX_JSON_LINE_BYTES + 1 bytes a line, so that a file
        // without line ends is refused rather than held whole.
        bytes.clear();
        let read = Read::take(&mut input, MAX_JSON_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| JsonLinesError::Read {
                source_name: source_name.to_string(),
                source,
            })?;
        if read == 0 {
            break;
        }
        if bytes.len() > MAX_JSON_LINE_BYTES {
            return Err(invalid(
                number,
                format!("the line is longer than {MAX_JSON_LINE_BYTES} bytes"),
            ));
        }
        let Ok(line) = std::str::from_utf8(&bytes) else {
            return Err(invalid(number, "the line is not valid UTF-8".into()));
        };
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        lines = number;
        if line.trim().is_empty() {
            blank_lines += 1;
            continue;
        }
        let value = crate::strict_json::from_str(line)
            .map_err(|e| invalid(number, format!("not valid JSON: {e}")))?;
        let Value::Object(object) = value else {
            return Err(invalid(number, "expected a JSON object".into()));
        };
        if let Some(lines) = object.get("header") {
            if seen_content || object.len() != 1 {
                return Err(invalid(
                    number,
                    "a header object {\"header\": [...]} must be the first line and hold nothing else".into(),
                ));
            }
            header = Header::deserialize(lines)
                .map_err(|e| invalid(number, format!("bad header: {e}")))?;
        } else if let Some(comment) = object.get("comment") {
            let line = match (comment, object.len()) {
                (Value::String(text), 1)
                    if text.trim_start().starts_with(';') && !text.contains('\n') =>
                {
                    text.clone()
                }
                _ => {
                    return Err(invalid(
                        number,
                        "a comment object must be {\"comment\": \"; text\"} (one line starting with ';')".into(),
                    ));
                }
            };
            comments.push(PlacedComment {
                before_record: records.len(),
                line,
            });
        } else {
            records.push(record_from(object).map_err(|m| invalid(number, m))?);
        }
        seen_content = true;
    }
    let mut workload = Workload::new(header, records);
    workload.comments = comments;
    let summary = &mut workload.summary;
    summary.lines = lines;
    summary.blank_lines = blank_lines;
    summary.records = workload.records.len() as u64;
    summary.cwf_records = workload.records.iter().filter(|r| r.cwf.is_some()).count() as u64;
    summary.comment_lines = (workload.header.lines().count() + workload.comments.len()) as u64;
    Ok(workload)
}

fn record_from(mut object: Map<String, Value>) -> Result<Record, String> {
    if let Some(key) = object.keys().find(|k| !RECORD_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown record field {key:?}"));
    }
    // Each field is checked (and -1 made null) before serde builds the
    // record, so that a message names the field and its value.
    match object.get("job_number") {
        None | Some(Value::Null) => {
            return Err("field job_number is missing; every record must name its job".into());
        }
        Some(value) if value.as_i64() == Some(-1) => {
            return Err(
                "field job_number: -1 is not allowed; the job number must be known and not negative"
                    .into(),
            );
        }
        Some(value) => {
            whole("job_number", value, false)?;
        }
    }
    for key in RECORD_KEYS {
        let Some(value) = object.get_mut(key) else {
            continue;
        };
        match key {
            "job_number" | "cwf" => {}
            "average_cpu_time" => check_cpu_time(value)?,
            "status" => check_status(value)?,
            _ => {
                if whole(key, value, TIME_KEYS.contains(&key))?.is_none() {
                    *value = Value::Null;
                }
            }
        }
    }
    if let Some(cwf) = object.get_mut("cwf") {
        check_cwf(cwf)?;
    }
    Record::deserialize(Value::Object(object)).map_err(|e| format!("bad record: {e}"))
}

/// The value of an integer field: `None` for `null` or `-1` (unknown, as in
/// SWF), else a non-negative integer, at most [`MAX_TIME`] for a time.
fn whole(key: &str, value: &Value, time: bool) -> Result<Option<u64>, String> {
    let number = match value {
        Value::Null => return Ok(None),
        Value::Number(number) => number,
        other => return Err(format!("field {key}: {other} is not a number or null")),
    };
    if let Some(v) = number.as_u64() {
        if time && v > MAX_TIME {
            return Err(format!(
                "field {key}: {v} is beyond the largest time allowed, 2^53 s"
            ));
        }
        return Ok(Some(v));
    }
    match number.as_i64() {
        Some(-1) => Ok(None),
        Some(_) => Err(format!(
            "field {key}: {number} is negative; only -1 or null (unknown) is allowed"
        )),
        // A float, or an integer beyond 64 bits (read as a float).
        None => Err(format!(
            "field {key}: {number} is not a whole number in 0..=18446744073709551615"
        )),
    }
}

/// `average_cpu_time`: a finite number, not negative, or `-1`/`null`.
fn check_cpu_time(value: &mut Value) -> Result<(), String> {
    match value {
        Value::Null => Ok(()),
        Value::Number(n) if n.as_f64() == Some(-1.0) => {
            *value = Value::Null;
            Ok(())
        }
        Value::Number(n) if n.as_f64().is_some_and(|v| v.is_finite() && v >= 0.0) => Ok(()),
        other => Err(format!(
            "field average_cpu_time: {other} is not a finite number of seconds, at least 0 (use \
             null or -1 for unknown)"
        )),
    }
}

/// `status`: a name the writer writes, a code 0 to 5, or `-1`/`null`.
fn check_status(value: &mut Value) -> Result<(), String> {
    let name = match &*value {
        Value::Null => return Ok(()),
        Value::String(name) if JobStatus::ALL.iter().any(|s| s.name() == name) => return Ok(()),
        Value::Number(n) if n.as_i64() == Some(-1) => None,
        Value::Number(n) => match n.as_u64().and_then(JobStatus::from_code) {
            Some(status) => Some(status.name()),
            None => return Err(bad_status(value)),
        },
        _ => return Err(bad_status(value)),
    };
    *value = name.map_or(Value::Null, |n| Value::String(n.to_owned()));
    Ok(())
}

fn bad_status(value: &Value) -> String {
    format!(
        "field status: {value} is not a job status ({} or a code 0 to 5; null or -1 for unknown)",
        JobStatus::ALL.map(JobStatus::name).join(", ")
    )
}

/// The `cwf` object: its keys, request type, requested start (a time) and
/// amount (a time for ET/RT).
fn check_cwf(cwf: &mut Value) -> Result<(), String> {
    let object = match cwf {
        Value::Null => return Ok(()),
        Value::Object(object) => object,
        other => return Err(format!("field cwf: {other} is not an object or null")),
    };
    if let Some(key) = object.keys().find(|k| !CWF_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown cwf field {key:?}"));
    }
    let Some(value) = object.get("request_type") else {
        return Err("field cwf.request_type is missing".into());
    };
    let Some(request_type) = value.as_str().and_then(RequestType::from_token) else {
        let tokens: Vec<String> = RequestType::ALL
            .iter()
            .map(|t| format!("{:?}", t.as_str()))
            .collect();
        let (last, others) = tokens.split_last().expect("request types");
        return Err(format!(
            "field cwf.request_type: {value} is not a request type ({} or {last})",
            others.join(", ")
        ));
    };
    let timed = matches!(
        request_type,
        RequestType::ExtendTime | RequestType::ReduceTime
    );
    for (key, time) in [("requested_start_time", true), ("amount", timed)] {
        if let Some(value) = object.get_mut(key)
            && whole(&format!("cwf.{key}"), value, time)?.is_none()
        {
            *value = Value::Null;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ReadOptions, read_from};

    #[test]
    fn swf_round_trips_through_json_lines() {
        let swf = "; Version: 2.2\n;\n1 0 10 3600 64 552.21 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1\n; between\n2 5 -1 60 1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 100 ET 60\n; end\n";
        let workload = read_from(swf.as_bytes(), "t.swf", &ReadOptions::strict()).unwrap();
        let json = write_json_lines(&workload, Vec::new()).unwrap();
        let text = String::from_utf8(json).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], r#"{"header":["; Version: 2.2",";"]}"#);
        assert_eq!(lines[2], r#"{"comment":"; between"}"#);
        assert_eq!(lines.len(), 5);
        let back = read_json_lines(text.as_bytes(), "t.jsonl").unwrap();
        assert!(back.same_content(&workload));
        // 5 lines: the header object (2 header lines), 2 records (1 CWF), 1
        // comment between them and 1 after.
        let s = &back.summary;
        assert_eq!(
            (
                s.lines,
                s.records,
                s.cwf_records,
                s.comment_lines,
                s.blank_lines
            ),
            (5, 2, 1, 4, 0)
        );
    }

    #[test]
    fn overlong_and_non_utf8_lines_are_refused() {
        // One byte past the limit, without a line end: refused, not held.
        let long = vec![b' '; MAX_JSON_LINE_BYTES + 1];
        let err = read_json_lines(&long[..], "x.jsonl").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("x.jsonl:1: the line is longer than {MAX_JSON_LINE_BYTES} bytes")
        );
        let err = read_json_lines(&b"{\"header\":[]}\n\xff\n"[..], "x.jsonl").unwrap_err();
        assert_eq!(err.to_string(), "x.jsonl:2: the line is not valid UTF-8");
    }

    #[test]
    fn bad_json_lines_name_the_line() {
        let err = read_json_lines(
            "{\"header\":[]}\n{\"job_number\":1,\"colour\":2}\n".as_bytes(),
            "x.jsonl",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.jsonl:2: unknown record field \"colour\""
        );
        let err = read_json_lines("[1]\n".as_bytes(), "x.jsonl").unwrap_err();
        assert_eq!(err.to_string(), "x.jsonl:1: expected a JSON object");
        let err = read_json_lines(
            "{\"job_number\":1}\n{\"header\":[]}\n".as_bytes(),
            "x.jsonl",
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("x.jsonl:2: a header object"));
        let err = read_json_lines("{\"job_number\":-3}\n".as_bytes(), "x.jsonl").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.jsonl:1: field job_number: -3 is negative; only -1 or null (unknown) is allowed"
        );
        let err = read_json_lines(
            "{\"job_number\":1,\"average_cpu_time\":-2.0}\n".as_bytes(),
            "x.jsonl",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.jsonl:1: field average_cpu_time: -2.0 is not a finite number of seconds, at least 0 \
             (use null or -1 for unknown)"
        );
    }

    #[test]
    fn missing_optional_fields_are_unknown() {
        let w = read_json_lines(
            "{\"job_number\":9,\"run_time\":5}\n\n".as_bytes(),
            "x.jsonl",
        )
        .unwrap();
        let mut expected = Record::unknown(9);
        expected.run_time = Some(5);
        assert_eq!(w.records, [expected]);
        assert!(w.header.is_empty());
    }
}

#[cfg(test)]
mod field_tests {
    use super::*;

    fn error(line: &str) -> String {
        read_json_lines(line.as_bytes(), "j.jsonl")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_values_name_the_field_and_the_value() {
        assert_eq!(
            error(r#"{"job_number":1,"run_time":-5}"#),
            "j.jsonl:1: field run_time: -5 is negative; only -1 or null (unknown) is allowed"
        );
        assert_eq!(
            error(r#"{"job_number":1,"run_time":1.5}"#),
            "j.jsonl:1: field run_time: 1.5 is not a whole number in 0..=18446744073709551615"
        );
        assert_eq!(
            error(r#"{"job_number":1,"user_id":"x"}"#),
            "j.jsonl:1: field user_id: \"x\" is not a number or null"
        );
        // 2^53 + 1 = 9007199254740993: one second beyond the largest time.
        assert_eq!(
            error(r#"{"job_number":1,"run_time":9007199254740993}"#),
            "j.jsonl:1: field run_time: 9007199254740993 is beyond the largest time allowed, 2^53 s"
        );
        assert_eq!(
            error(r#"{"job_number":1,"status":7}"#),
            "j.jsonl:1: field status: 7 is not a job status (Failed, Completed, \
             PartialToBeContinued, PartialLastCompleted, PartialLastFailed, Cancelled or a code 0 \
             to 5; null or -1 for unknown)"
        );
        assert_eq!(
            error(r#"{"job_number":-1}"#),
            "j.jsonl:1: field job_number: -1 is not allowed; the job number must be known and not \
             negative"
        );
        assert_eq!(
            error(r#"{"run_time":5}"#),
            "j.jsonl:1: field job_number is missing; every record must name its job"
        );
        let et = r#"{"job_number":1,"cwf":{"requested_start_time":null,"request_type":"ET","amount":9007199254740993}}"#;
        assert_eq!(
            error(et),
            "j.jsonl:1: field cwf.amount: 9007199254740993 is beyond the largest time allowed, 2^53 s"
        );
        // A key given twice: serde_json would keep the last silently. The
        // second "run_time" ends at column 41.
        assert_eq!(
            error(r#"{"job_number":1,"run_time":100,"run_time":5}"#),
            "j.jsonl:1: not valid JSON: the key \"run_time\" is given twice at line 1 column 41"
        );
        // An EP amount is processors, not a time: no 2^53 bound.
        let ep = et.replace("ET", "EP");
        assert!(read_json_lines(ep.as_bytes(), "j.jsonl").is_ok());
        assert_eq!(
            error(&et.replace("\"ET\"", "\"XX\"")),
            "j.jsonl:1: field cwf.request_type: \"XX\" is not a request type (\"S\", \"ET\", \
             \"RT\", \"EP\" or \"RP\")"
        );
    }

    #[test]
    fn minus_one_is_unknown_as_in_swf_and_the_limit_itself_is_read() {
        let w = read_json_lines(
            r#"{"job_number":1,"run_time":-1,"status":-1,"average_cpu_time":-1,"submit_time":9007199254740992,"queue_number":2}"#
                .as_bytes(),
            "j.jsonl",
        )
        .unwrap();
        let mut expected = Record::unknown(1);
        expected.submit_time = Some(MAX_TIME);
        expected.queue_number = Some(2);
        assert_eq!(w.records, [expected]);
        // Status codes read as the names the writer writes.
        let w = read_json_lines(r#"{"job_number":1,"status":5}"#.as_bytes(), "j.jsonl").unwrap();
        assert_eq!(w.records[0].status, Some(JobStatus::Cancelled));
    }
}

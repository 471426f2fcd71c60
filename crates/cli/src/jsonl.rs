//! JSON lines: a workload as one JSON object per line.
//!
//! Layout (round-trips with SWF/CWF, header and comments included):
//! - line 1: `{"header":["; Version: 2.2", ...]}`, the header lines verbatim
//!   (always written, `[]` when empty; optional on reading);
//! - then one object per record, with the field names of
//!   [`workload_format::Record`] (`null` for unknown, `"cwf":null` for an
//!   SWF line), in file order;
//! - a comment line between records is `{"comment":"; text"}` in its place.
//!
//! Blank lines are ignored on reading.

use std::io::{self, BufRead, Write};

use serde::Deserialize;
use serde_json::{Map, Value};
use workload_format::{Header, PlacedComment, Record, Workload};

/// An error in a JSON lines file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsonLinesError {
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

/// Reads JSON lines (layout in the module docs); `source_name` prefixes
/// error messages.
pub fn read_json_lines<R: BufRead>(
    input: R,
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
    for (index, line) in input.lines().enumerate() {
        let number = index as u64 + 1;
        let line = line.map_err(|source| JsonLinesError::Read {
            source_name: source_name.to_string(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(&line)
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
    Ok(workload)
}

fn record_from(object: Map<String, Value>) -> Result<Record, String> {
    if let Some(key) = object.keys().find(|k| !RECORD_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown record field {key:?}"));
    }
    if let Some(Value::Object(cwf)) = object.get("cwf")
        && let Some(key) = cwf.keys().find(|k| !CWF_KEYS.contains(&k.as_str()))
    {
        return Err(format!("unknown cwf field {key:?}"));
    }
    let record =
        Record::deserialize(Value::Object(object)).map_err(|e| format!("bad record: {e}"))?;
    if let Some(cpu) = record.average_cpu_time
        && cpu < 0.0
    {
        return Err(format!(
            "average_cpu_time is {cpu}; it must not be negative (use null for unknown)"
        ));
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use workload_format::{ReadOptions, read_from};

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
        assert!(
            err.to_string().starts_with("x.jsonl:1: bad record: "),
            "{err}"
        );
        let err = read_json_lines(
            "{\"job_number\":1,\"average_cpu_time\":-2.0}\n".as_bytes(),
            "x.jsonl",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.jsonl:1: average_cpu_time is -2; it must not be negative (use null for unknown)"
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

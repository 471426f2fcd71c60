//! Property tests: valid records round-trip, and arbitrary input never panics
//! and is accepted only when an independent reference validator says it is
//! valid (with the values the reference computes).

use proptest::prelude::*;
use workload_format::{
    CwfFields, Header, JobStatus, PlacedComment, ReadOptions, Record, RequestType, Workload,
    parse_record, read_from, workload_to_string,
};

// ---------------------------------------------------------------------------
// The reference validator: deliberately simple and written apart from the
// parser (no fast paths): split on ASCII whitespace, count tokens, classify
// each token by the rules in the crate docs.

/// A field value as the reference computes it.
#[derive(Debug, PartialEq)]
enum Value {
    Unknown,
    Integer(u64),
    Float(f64),
    Type(&'static str),
}

fn is_float_text(t: &str) -> bool {
    t.chars().any(|c| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_digit() || ".eE+-".contains(c))
}

/// An integer field: `None` if invalid.
fn reference_integer(t: &str) -> Option<Value> {
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        let significant = digits.trim_start_matches('0');
        if significant.len() > 20 {
            return None;
        }
        let value: u128 = if significant.is_empty() {
            0
        } else {
            significant.parse().ok()?
        };
        return match (negative, value) {
            (_, 0) => Some(Value::Integer(0)),
            (true, 1) => Some(Value::Unknown),
            (true, _) => None,
            (false, v) => u64::try_from(v).ok().map(Value::Integer),
        };
    }
    if !is_float_text(t) {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    if !v.is_finite() || (v < 0.0 && v != -1.0) {
        return None;
    }
    if v == -1.0 {
        return Some(Value::Unknown);
    }
    let r = v.round();
    if r >= 2f64.powi(64) {
        return None;
    }
    Some(Value::Integer(r as u64))
}

fn reference_float(t: &str) -> Option<Value> {
    if !is_float_text(t) {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    if !v.is_finite() || (v < 0.0 && v != -1.0) {
        return None;
    }
    Some(if v == -1.0 {
        Value::Unknown
    } else {
        Value::Float(v)
    })
}

/// The 18 or 21 values of a valid line, or `None` for an invalid one.
fn reference(line: &[u8]) -> Option<Vec<Value>> {
    let tokens: Vec<&[u8]> = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() != 18 && tokens.len() != 21 {
        return None;
    }
    let mut values = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let t = std::str::from_utf8(token).ok()?;
        let field = i + 1;
        let value = match field {
            6 => reference_float(t)?,
            20 => Value::Type(match t {
                "S" => "S",
                "ET" => "ET",
                "RT" => "RT",
                "EP" => "EP",
                "RP" => "RP",
                _ => return None,
            }),
            _ => reference_integer(t)?,
        };
        match (field, &value) {
            (1, Value::Unknown) => return None,
            (11, Value::Integer(code)) if *code > 5 => return None,
            _ => {}
        }
        values.push(value);
    }
    // Times (submit, wait, run, requested time, requested start, and the
    // amount of ET/RT) may be at most 2^53.
    let is_time_command = matches!(values.get(19), Some(Value::Type("ET" | "RT")));
    for (field, value) in values.iter().enumerate().map(|(i, v)| (i + 1, v)) {
        let time_field = matches!(field, 2 | 3 | 4 | 9 | 19) || (field == 21 && is_time_command);
        if let (true, Value::Integer(v)) = (time_field, value)
            && *v > workload_format::MAX_TIME
        {
            return None;
        }
    }
    Some(values)
}

/// The record's fields in the reference's terms.
fn values_of(r: &Record) -> Vec<Value> {
    let int = |v: Option<u64>| v.map_or(Value::Unknown, Value::Integer);
    let mut values = vec![
        Value::Integer(r.job_number),
        int(r.submit_time),
        int(r.wait_time),
        int(r.run_time),
        int(r.allocated_processors),
        r.average_cpu_time.map_or(Value::Unknown, Value::Float),
        int(r.used_memory),
        int(r.requested_processors),
        int(r.requested_time),
        int(r.requested_memory),
        int(r.status.map(|s| u64::from(s.code()))),
        int(r.user_id),
        int(r.group_id),
        int(r.executable_number),
        int(r.queue_number),
        int(r.partition_number),
        int(r.preceding_job_number),
        int(r.think_time),
    ];
    if let Some(c) = r.cwf {
        values.push(int(c.requested_start_time));
        values.push(Value::Type(c.request_type.as_str()));
        values.push(int(c.amount));
    }
    values
}

/// The parser and the reference agree on `line`; never panics.
fn check_against_reference(line: &[u8]) -> Result<(), TestCaseError> {
    let expected = reference(line);
    match (parse_record(line), expected) {
        (Ok(record), Some(values)) => prop_assert_eq!(values_of(&record), values),
        (Err(_), None) => {}
        (Ok(record), None) => {
            return Err(TestCaseError::fail(format!(
                "accepted an invalid line {:?} as {record:?}",
                String::from_utf8_lossy(line)
            )));
        }
        (Err(e), Some(_)) => {
            return Err(TestCaseError::fail(format!(
                "rejected a valid line {:?}: {e}",
                String::from_utf8_lossy(line)
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Generators.

fn known() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(0)),
        3 => (0u64..100_000).prop_map(Some),
        1 => any::<u64>().prop_map(Some),
    ]
}

/// A time field: at most 2^53.
fn known_time() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(0)),
        3 => (0u64..100_000).prop_map(Some),
        1 => (0..=workload_format::MAX_TIME).prop_map(Some),
    ]
}

fn cpu_time() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        (0u32..1_000_000).prop_map(|v| Some(f64::from(v))),
        (0u64..100_000_000).prop_map(|v| Some(v as f64 / 100.0)),
        any::<f64>()
            .prop_filter("finite and not negative", |v| v.is_finite() && *v >= 0.0)
            .prop_map(Some),
    ]
}

fn status() -> impl Strategy<Value = Option<JobStatus>> {
    prop_oneof![Just(None), (0u64..=5).prop_map(JobStatus::from_code)]
}

fn cwf() -> impl Strategy<Value = Option<CwfFields>> {
    let request = prop_oneof![
        Just(RequestType::Submit),
        Just(RequestType::ExtendTime),
        Just(RequestType::ReduceTime),
        Just(RequestType::ExtendProcessors),
        Just(RequestType::ReduceProcessors),
    ];
    prop_oneof![
        Just(None),
        (known_time(), request, known_time()).prop_map(
            |(requested_start_time, request_type, amount)| {
                Some(CwfFields {
                    requested_start_time,
                    request_type,
                    amount,
                })
            }
        ),
    ]
}

prop_compose! {
    fn record()(
        job_number in any::<u64>(),
        a in proptest::array::uniform8(known()),
        b in proptest::array::uniform8(known()),
        times in proptest::array::uniform4(known_time()),
        average_cpu_time in cpu_time(),
        status in status(),
        cwf in cwf(),
    ) -> Record {
        Record {
            job_number,
            submit_time: times[0],
            wait_time: times[1],
            run_time: times[2],
            allocated_processors: a[3],
            average_cpu_time,
            used_memory: a[4],
            requested_processors: a[5],
            requested_time: times[3],
            requested_memory: a[7],
            status,
            user_id: b[0],
            group_id: b[1],
            executable_number: b[2],
            queue_number: b[3],
            partition_number: b[4],
            preceding_job_number: b[5],
            think_time: b[6],
            cwf,
        }
    }
}

prop_compose! {
    fn workload()(
        // No ':' in header text: "; MaxProcs: x" would be a malformed
        // header value, which strict reading rightly rejects.
        header_text in proptest::collection::vec("[ -9;-~]{0,30}", 0..4),
        records in proptest::collection::vec(record(), 0..12),
        comments in proptest::collection::vec((0usize..13, "[ -~]{0,20}"), 0..4),
    ) -> Workload {
        let mut header = Header::new();
        for text in &header_text {
            header.push_text(text.trim_end()).unwrap();
        }
        let mut comments: Vec<PlacedComment> = comments
            .into_iter()
            // Position 0 would read back as header; the docs say so.
            .map(|(at, text)| PlacedComment {
                before_record: at.clamp(1, records.len().max(1)),
                line: format!(";{}", text.trim_end()),
            })
            .filter(|_| !records.is_empty())
            .collect();
        comments.sort_by_key(|c| c.before_record);
        let mut workload = Workload::new(header, records);
        workload.comments = comments;
        workload
    }
}

/// Real lines from the traces (LANL, HPC2N, SDSC, NASA, Lublin) plus CWF.
const REAL_LINES: [&str; 7] = [
    "    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1",
    "    1        0 308434  31405   30  31405    -1   30  37980    -1  1   1   1  -1 -1  1 -1 -1",
    "    1        0 864895     -1   -1     -1    -1   64  43200    -1  5   3  74 12894  4 -1 -1 -1",
    "    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1",
    "1    5094 -1   12072  16 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1",
    "7 100 -1 3600 8 -1 -1 8 7200 -1 1 1 1 -1 0 -1 -1 -1 -1 S -1",
    "7 900 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 600",
];

/// Tokens a mutation may put in: near-misses of every rule.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-1".to_string()),
        Just("-1.0".to_string()),
        Just("-1e0".to_string()),
        Just("-2".to_string()),
        Just("-0".to_string()),
        Just("-0.5".to_string()),
        Just("0.5".to_string()),
        Just("1.5e3".to_string()),
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("1e19".to_string()),
        Just("1e20".to_string()),
        Just("1e400".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("+7".to_string()),
        Just("6".to_string()),
        Just("5".to_string()),
        Just("S".to_string()),
        Just("ET".to_string()),
        Just("et".to_string()),
        Just(";".to_string()),
        "[-+.eE0-9]{1,6}",
        "[ -~]{1,4}",
        any::<u64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Replace(usize, String),
    Insert(usize, String),
    Delete(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (0usize..22, token()).prop_map(|(i, t)| Mutation::Replace(i, t)),
        1 => (0usize..22, token()).prop_map(|(i, t)| Mutation::Insert(i, t)),
        1 => (0usize..22).prop_map(Mutation::Delete),
    ]
}

fn mutate(line: &str, mutations: &[Mutation]) -> String {
    let mut tokens: Vec<String> = line.split_ascii_whitespace().map(String::from).collect();
    for m in mutations {
        match m {
            Mutation::Replace(i, t) if !tokens.is_empty() => {
                let i = i % tokens.len();
                tokens[i] = t.clone();
            }
            Mutation::Insert(i, t) => {
                let i = i % (tokens.len() + 1);
                tokens.insert(i, t.clone());
            }
            Mutation::Delete(i) if !tokens.is_empty() => {
                let i = i % tokens.len();
                tokens.remove(i);
            }
            _ => {}
        }
    }
    tokens.join(" ")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn valid_records_round_trip_through_a_line(r in record()) {
        let line = r.to_line().unwrap();
        let back = parse_record(line.as_bytes()).unwrap();
        prop_assert_eq!(&back, &r);
        // The canonical text is stable.
        prop_assert_eq!(back.to_line().unwrap(), line);
    }

    #[test]
    fn mutated_real_lines_agree_with_the_reference(
        which in 0usize..REAL_LINES.len(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let line = mutate(REAL_LINES[which], &mutations);
        check_against_reference(line.as_bytes())?;
    }

    #[test]
    fn arbitrary_bytes_agree_with_the_reference(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_against_reference(&bytes)?;
    }

    #[test]
    fn arbitrary_number_tokens_agree_with_the_reference(tokens in proptest::collection::vec("[-+.eE0-9]{1,8}", 18)) {
        check_against_reference(tokens.join(" ").as_bytes())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn valid_workloads_round_trip(w in workload()) {
        let text = workload_to_string(&w).unwrap();
        let back = read_from(text.as_bytes(), "p.swf", &ReadOptions::strict()).unwrap();
        prop_assert!(back.same_content(&w), "{:?}\n!=\n{:?}", back, w);
        prop_assert_eq!(workload_to_string(&back).unwrap(), text);
    }

    #[test]
    fn a_leading_byte_order_mark_changes_nothing_but_the_flag(w in workload(), lenient in any::<bool>()) {
        let text = workload_to_string(&w).unwrap();
        let options = if lenient { ReadOptions::lenient() } else { ReadOptions::strict() };
        let plain = read_from(text.as_bytes(), "p.swf", &options).unwrap();
        let marked = format!("\u{feff}{text}");
        let back = read_from(marked.as_bytes(), "p.swf", &options).unwrap();
        prop_assert!(back.summary.byte_order_mark);
        prop_assert!(back.same_content(&w));
        // Line counts are those of the unmarked text, except that a BOM
        // alone is a (blank) line where the empty text has none.
        let blank = u64::from(text.is_empty());
        prop_assert_eq!(back.summary.lines, plain.summary.lines + blank);
        prop_assert_eq!(back.summary.blank_lines, plain.summary.blank_lines + blank);
        prop_assert_eq!(workload_to_string(&back).unwrap(), text);
    }

    #[test]
    fn arbitrary_files_never_panic_and_account_for_every_line(
        lines in proptest::collection::vec(
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..60),
                (0usize..REAL_LINES.len(), proptest::collection::vec(mutation(), 0..3))
                    .prop_map(|(i, m)| mutate(REAL_LINES[i], &m).into_bytes()),
                "[;# \t]{0,3}[ -~]{0,20}".prop_map(String::into_bytes),
            ],
            0..20,
        ),
        capacity in 1usize..40,
    ) {
        let bytes = lines.join(&b'\n');
        // Strict: an error or a workload, never a panic.
        let strict = read_from(bytes.as_slice(), "f.swf", &ReadOptions::strict());
        let lenient = read_from(bytes.as_slice(), "f.swf", &ReadOptions::lenient()).unwrap();
        let s = &lenient.summary;
        prop_assert_eq!(s.lines, s.records + s.comment_lines + s.blank_lines + s.skipped_lines);
        prop_assert_eq!(s.records as usize, lenient.records.len());
        // Records come only from lines the reference accepts.
        // A byte-order mark at the very start is not part of line 1.
        let valid_lines = bytes
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(&bytes)
            .split(|&b| b == b'\n')
            .filter(|l| {
                let first = l.iter().find(|b| !b.is_ascii_whitespace());
                first.is_some_and(|&b| b != b';') && reference(l).is_some()
            })
            .count();
        prop_assert_eq!(lenient.records.len(), valid_lines);
        if let Ok(w) = strict {
            // A strict success means nothing was skipped or warned about.
            prop_assert!(w.same_content(&lenient));
            prop_assert!(lenient.summary.is_clean());
        }
        // Lines split across buffer fills read the same as whole ones.
        let small = std::io::BufReader::with_capacity(capacity, bytes.as_slice());
        let pieces = read_from(small, "f.swf", &ReadOptions::lenient()).unwrap();
        prop_assert!(pieces.same_content(&lenient));
        prop_assert_eq!(&pieces.summary, &lenient.summary);
        // Whatever was read writes and reads back identically.
        let text = workload_to_string(&lenient).unwrap();
        let back = read_from(text.as_bytes(), "f.swf", &ReadOptions::strict()).unwrap();
        prop_assert!(back.same_content(&lenient));
    }
}

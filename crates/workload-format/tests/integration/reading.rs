//! The reading and writing rules, one test per rule, on hand-written input.

use std::io::Write;
use std::path::PathBuf;

use workload_format::{
    CwfFields, Header, JobStatus, Line, LineError, PlacedComment, ReadError, ReadOptions, Reader,
    Reason, Record, RequestType, Workload, WriteError, Writer, create_path, open_path, read_from,
    read_path, workload_to_string, write_path,
};

const SWF_LINE: &str = "1 0 10 3600 64 552.21 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1";

fn strict(text: &str) -> Result<Workload, ReadError> {
    read_from(text.as_bytes(), "test.swf", &ReadOptions::strict())
}

fn lenient(text: &str) -> Workload {
    read_from(text.as_bytes(), "test.swf", &ReadOptions::lenient()).expect("lenient read")
}

/// A fresh path under the system temp folder (unique per test and process).
fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("workload-format-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir.join(name)
}

#[test]
fn canonical_file_round_trips_byte_identical() {
    let text = "\
; Version: 2.2
; Computer: test machine
;
1 0 10 3600 64 552.21 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1
; a comment between records
2 30 5 120 8 552 -1 -1 600 -1 5 4 1 -1 1 -1 -1 -1
3 31 -1 7 1 -1 -1 1 -1 -1 0 4 1 -1 1 -1 -1 -1 100 S -1
4 40 0 0 1 -1 -1 1 -1 -1 -1 4 1 -1 1 -1 -1 -1 -1 ET 600
; a trailing comment
";
    let workload = strict(text).unwrap();
    assert_eq!(workload.header.len(), 3);
    assert_eq!(workload.records.len(), 4);
    assert_eq!(
        workload.comments,
        [
            PlacedComment {
                before_record: 1,
                line: "; a comment between records".into()
            },
            PlacedComment {
                before_record: 4,
                line: "; a trailing comment".into()
            },
        ]
    );
    assert_eq!(workload_to_string(&workload).unwrap(), text);
    // 10 lines: 3 header + 4 records + 2 comments... plus none blank.
    assert_eq!(workload.summary.lines, 9);
    assert_eq!(workload.summary.comment_lines, 5);
    assert_eq!(workload.summary.cwf_records, 2);
}

#[test]
fn messy_file_becomes_canonical_and_stays_identical() {
    // Leading spaces, tabs, CRLF, several spaces, blank lines, no final newline.
    let messy = "; Version: 2\r\n\r\n   1\t0  10 3600   64 552.00 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1  \r\n\n  \t\n2 30 5 120.5 8 -1.0 -1 -1 600 -1 5 4 1 -1 1 -1 -1 -1";
    let first = strict(messy).unwrap();
    assert_eq!(first.summary.blank_lines, 3);
    assert_eq!(first.summary.lines, 6);
    // 120.5 rounds away from zero to 121; -1.0 in field 6 is unknown.
    assert_eq!(first.records[1].run_time, Some(121));
    assert_eq!(first.records[1].average_cpu_time, None);
    assert_eq!(first.summary.rounded, {
        let mut r = [0; 21];
        r[3] = 1;
        r
    });
    let canonical = workload_to_string(&first).unwrap();
    assert_eq!(
        canonical,
        "; Version: 2\n1 0 10 3600 64 552 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1\n2 30 5 121 8 -1 -1 -1 600 -1 5 4 1 -1 1 -1 -1 -1\n"
    );
    let second = strict(&canonical).unwrap();
    assert!(second.same_content(&first));
    assert_eq!(workload_to_string(&second).unwrap(), canonical);
}

#[test]
fn strict_error_names_source_line_field_and_text() {
    let text = format!(
        "; Version: 2\n\n{SWF_LINE}\n1 0 10 3600 12x 552 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1\n"
    );
    let err = read_from(text.as_bytes(), "KTH.swf", &ReadOptions::strict()).unwrap_err();
    // Line 4: header, blank, good record, bad record.
    assert_eq!(
        err.to_string(),
        "KTH.swf:4: field 5 (allocated processors): \"12x\" is not a number"
    );
    match err {
        ReadError::Line { line, error, .. } => {
            assert_eq!(line, 4);
            assert_eq!(error.field(), Some(5));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn strict_error_on_field_count() {
    let err = strict("1 2 3\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "test.swf:1: expected 18 (SWF) or 21 (CWF) fields, found 3"
    );
}

#[test]
fn lenient_skips_counts_by_reason_and_keeps_examples() {
    let text = format!(
        "; MaxProcs: many\n{SWF_LINE}\n1 2 3\n{}\n{}\n{}\n{SWF_LINE}\n",
        SWF_LINE.replace("3600", "-5"),
        SWF_LINE.replace(" 1 3 1 ", " 9 3 1 "),
        SWF_LINE.replace("3600", "abc"),
    );
    let w = read_from(
        text.as_bytes(),
        "test.swf",
        &ReadOptions::lenient().with_max_examples(2),
    )
    .unwrap();
    let s = &w.summary;
    assert_eq!(w.records.len(), 2);
    assert_eq!(s.skipped_lines, 4);
    assert_eq!(s.warnings(), 1);
    let counts: Vec<_> = s.issues.iter().map(|(r, n)| (*r, *n)).collect();
    assert_eq!(
        counts,
        [
            (Reason::FieldCount, 1),
            (Reason::NotANumber, 1),
            (Reason::Negative, 1),
            (Reason::InvalidStatus, 1),
            (Reason::HeaderValue, 1),
        ]
    );
    // Only the first two problems are kept, with their line numbers.
    assert_eq!(s.examples.len(), 2);
    assert_eq!(s.examples[0].line, 1);
    assert_eq!(
        s.examples[0].error.to_string(),
        "header MaxProcs: \"many\" is not a non-negative integer"
    );
    assert_eq!(s.examples[1].line, 3);
    // Every line is accounted for: 7 = 2 records + 1 comment + 0 blank + 4 skipped.
    assert_eq!(s.lines, 7);
    assert_eq!(
        s.lines,
        s.records + s.comment_lines + s.blank_lines + s.skipped_lines
    );
    // The malformed header line is kept verbatim; its accessor says unknown.
    assert_eq!(w.header.lines().collect::<Vec<_>>(), ["; MaxProcs: many"]);
    assert_eq!(w.header.max_procs(), None);
}

#[test]
fn strict_rejects_malformed_known_header_value() {
    let err = strict(&format!("; Version: 2\n; MaxProcs: abc\n{SWF_LINE}\n")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "test.swf:2: header MaxProcs: \"abc\" is not a non-negative integer"
    );
}

#[test]
fn comments_after_a_skipped_first_line_stay_in_the_header() {
    // The header ends at the first record, not at the first bad line.
    let w = lenient(&format!("; a\nbad line\n; b\n{SWF_LINE}\n; c\n"));
    assert_eq!(w.header.lines().collect::<Vec<_>>(), ["; a", "; b"]);
    assert_eq!(w.comments.len(), 1);
}

#[test]
fn non_utf8_comment_is_an_error_or_a_warning() {
    let bytes = b"; Acknowledge: \xC5ke\n1 0 10 3600 64 552.21 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1\n";
    let err = read_from(&bytes[..], "latin1.swf", &ReadOptions::strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "latin1.swf:1: comment line is not valid UTF-8"
    );
    let w = read_from(&bytes[..], "latin1.swf", &ReadOptions::lenient()).unwrap();
    assert_eq!(w.header.acknowledge(), Some("\u{FFFD}ke"));
    assert_eq!(w.summary.issues.get(&Reason::InvalidUtf8), Some(&1));
    assert_eq!(w.summary.skipped_lines, 0);
}

#[test]
fn cr_only_line_ends_are_named() {
    // Classic Mac OS line ends: the header and the job are one line, which
    // read as the value "8\r1 0 ..." of MaxProcs.
    let text = "; MaxProcs: 8\r1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\r";
    let err = strict(text).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("test.swf:1: a carriage return inside the line: the file seems to end its lines with CR alone"),
        "{err}"
    );
    let w = lenient(text);
    assert_eq!(w.summary.issues.get(&Reason::CarriageReturn), Some(&1));
    assert_eq!((w.records.len(), w.summary.skipped_lines), (0, 1));
    // Two jobs run together: 36 fields, named by the carriage return.
    let job = "1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1";
    let err = strict(&format!("{job}\r{job}\r")).unwrap_err();
    assert!(
        err.to_string()
            .contains("a carriage return inside the line"),
        "{err}"
    );
    // CRLF line ends are not CR-only: the CR before the LF is fine.
    let w = strict("; MaxProcs: 8\r\n1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\r\n").unwrap();
    assert_eq!((w.header.max_procs(), w.records.len()), (Some(8), 1));
}

#[test]
fn overlong_line_is_rejected_without_buffering_it() {
    let mut text = vec![b'7'; workload_format::MAX_LINE_BYTES + 10];
    text.push(b'\n');
    text.extend_from_slice(SWF_LINE.as_bytes());
    let err = read_from(text.as_slice(), "big.swf", &ReadOptions::strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "big.swf:1: line is longer than 1048576 bytes"
    );
    let w = read_from(text.as_slice(), "big.swf", &ReadOptions::lenient()).unwrap();
    assert_eq!(w.records.len(), 1);
    assert_eq!(w.summary.issues.get(&Reason::LineTooLong), Some(&1));
}

#[test]
fn lines_split_across_buffer_fills_read_the_same() {
    let text = format!("; Version: 2.2\n\n{SWF_LINE}\n; between\n{SWF_LINE}");
    let whole = strict(&text).unwrap();
    for capacity in [1, 2, 7, 64] {
        let input = std::io::BufReader::with_capacity(capacity, text.as_bytes());
        let pieces = read_from(input, "test.swf", &ReadOptions::strict()).unwrap();
        assert!(pieces.same_content(&whole), "capacity {capacity}");
        assert_eq!(pieces.summary, whole.summary, "capacity {capacity}");
    }
    // An over-long line is noticed while it is gathered, too.
    let mut long = vec![b'1'; workload_format::MAX_LINE_BYTES + 1];
    long.extend_from_slice(format!("\n{SWF_LINE}\n").as_bytes());
    let input = std::io::BufReader::with_capacity(4096, long.as_slice());
    let w = read_from(input, "long.swf", &ReadOptions::lenient()).unwrap();
    assert_eq!(w.summary.issues.get(&Reason::LineTooLong), Some(&1));
    assert_eq!(w.records.len(), 1);
}

#[test]
fn streaming_reader_yields_records_and_comments() {
    let text = format!("; h\n{SWF_LINE}\n; between\n{SWF_LINE}\n");
    let mut reader = Reader::new(text.as_bytes(), "s.swf", ReadOptions::strict()).unwrap();
    assert_eq!(reader.header().len(), 1);
    let mut kinds = Vec::new();
    while let Some(line) = reader.next_line() {
        kinds.push(match line.unwrap() {
            Line::Record(_) => "record",
            Line::Comment(_) => "comment",
        });
    }
    assert_eq!(kinds, ["record", "comment", "record"]);
    // As an iterator, comments are counted but not yielded.
    let reader = Reader::new(text.as_bytes(), "s.swf", ReadOptions::strict()).unwrap();
    assert_eq!(reader.count(), 2);
}

#[test]
fn reader_stops_after_a_strict_error() {
    let text = format!("{SWF_LINE}\nbad\n{SWF_LINE}\n");
    let results: Vec<_> = Reader::new(text.as_bytes(), "s.swf", ReadOptions::strict())
        .unwrap()
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    assert!(results[1].is_err());
}

#[test]
fn empty_and_header_only_inputs() {
    let w = strict("").unwrap();
    assert!(w.records.is_empty() && w.header.is_empty());
    assert_eq!(w.summary.lines, 0);
    let w = strict("; Version: 2.2\n\n").unwrap();
    assert_eq!(w.header.version(), Some("2.2"));
    assert_eq!(w.summary.blank_lines, 1);
    assert_eq!(workload_to_string(&w).unwrap(), "; Version: 2.2\n");
}

/// `create_path` writes a temporary file beside `path`: `finish` renames
/// it; dropped unfinished (an error on the way), it is removed and `path`
/// keeps what it held.
#[test]
fn a_path_output_is_renamed_when_finished_and_removed_when_dropped() {
    let folder = temp_path("create-path");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let names = || {
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort_unstable();
        names
    };
    let path = folder.join("w.swf");
    let mut writer = Writer::new(create_path(&path).unwrap());
    writer.write_comment("; Version: 2.2").unwrap();
    // Past the writer's 64 KiB buffer, so bytes reach the file.
    for _ in 0..2_000 {
        writer
            .write_comment(&format!("; {}", "x".repeat(60)))
            .unwrap();
    }
    assert!(!path.exists(), "nothing at the final name before finish");
    writer.finish().unwrap().finish().unwrap();
    assert_eq!(names(), ["w.swf"]);
    let finished = std::fs::read(&path).unwrap();
    // A second write that stops part-way: the first file stays whole.
    let mut writer = Writer::new(create_path(&path).unwrap());
    for _ in 0..2_000 {
        writer.write_comment("; part").unwrap();
    }
    assert_eq!(names().len(), 2, "the temporary file beside w.swf");
    drop(writer);
    assert_eq!(names(), ["w.swf"]);
    assert_eq!(std::fs::read(&path).unwrap(), finished);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn gzip_is_sniffed_not_named() {
    let text = format!("; Version: 2.2\n{SWF_LINE}\n");
    let workload = strict(&text).unwrap();
    // Written gzipped because the name ends in .gz ...
    let gz = temp_path("sniff.swf.gz");
    write_path(&workload, &gz).unwrap();
    assert_eq!(std::fs::read(&gz).unwrap()[..2], [0x1f, 0x8b]);
    assert!(
        read_path(&gz, &ReadOptions::strict())
            .unwrap()
            .same_content(&workload)
    );
    // ... read as gzip under a plain name, and plain text under a .gz name.
    let renamed = temp_path("actually-gzip.swf");
    std::fs::copy(&gz, &renamed).unwrap();
    assert!(
        read_path(&renamed, &ReadOptions::strict())
            .unwrap()
            .same_content(&workload)
    );
    let plain = temp_path("actually-plain.swf.gz");
    std::fs::write(&plain, &text).unwrap();
    assert!(
        read_path(&plain, &ReadOptions::strict())
            .unwrap()
            .same_content(&workload)
    );
    let mut streamed = open_path(&plain, &ReadOptions::strict()).unwrap();
    assert_eq!(streamed.header().version(), Some("2.2"));
    assert!(streamed.next().unwrap().is_ok());
}

#[test]
fn concatenated_gzip_members_are_read_in_full() {
    let mut bytes = Vec::new();
    for part in ["; Version: 2.2\n", &format!("{SWF_LINE}\n")] {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(part.as_bytes()).unwrap();
        bytes.extend(encoder.finish().unwrap());
    }
    let path = temp_path("members.swf.gz");
    std::fs::write(&path, bytes).unwrap();
    let w = read_path(&path, &ReadOptions::strict()).unwrap();
    assert_eq!((w.header.len(), w.records.len()), (1, 1));
}

#[test]
fn io_errors_keep_the_path_and_the_cause() {
    let missing = temp_path("does-not-exist.swf");
    let err = read_path(&missing, &ReadOptions::strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot open {}", missing.display())
    );
    assert!(std::error::Error::source(&err).is_some());

    // A gzip stream cut in the middle.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for _ in 0..2000 {
        writeln!(encoder, "{SWF_LINE}").unwrap();
    }
    let bytes = encoder.finish().unwrap();
    let cut = temp_path("cut.swf.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let err = read_path(&cut, &ReadOptions::lenient()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("cannot read {} past line ", cut.display())),
        "{message}"
    );
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn writer_rejects_what_would_not_read_back() {
    let mut record = Record::unknown(3);
    record.average_cpu_time = Some(f64::NAN);
    let err = Writer::new(Vec::new()).write_record(&record).unwrap_err();
    assert_eq!(
        err.to_string(),
        "job 3: field 6 (average CPU time) is NaN; it must be finite and not negative"
    );
    record.average_cpu_time = Some(-2.0);
    assert!(matches!(
        Writer::new(Vec::new()).write_record(&record),
        Err(WriteError::InvalidCpuTime { .. })
    ));
    let err = Writer::new(Vec::new())
        .write_comment("not a comment")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "\"not a comment\" is not a comment line (it must start with ';' and hold no line break)"
    );
}

#[test]
fn generator_workflow_builds_and_writes_a_file() {
    let mut header = Header::new();
    header.set("Version", "2.2").unwrap();
    header.set("MaxProcs", 128).unwrap();
    let mut record = Record::unknown(1);
    record.submit_time = Some(0);
    record.run_time = Some(60);
    record.allocated_processors = Some(4);
    record.average_cpu_time = Some(59.5);
    record.status = Some(JobStatus::Completed);
    let mut command = Record::unknown(1);
    command.submit_time = Some(30);
    command.cwf = Some(CwfFields {
        requested_start_time: None,
        request_type: RequestType::ExtendTime,
        amount: Some(600),
    });
    let workload = Workload::new(header, vec![record, command]);
    let text = workload_to_string(&workload).unwrap();
    assert_eq!(
        text,
        "; Version: 2.2\n; MaxProcs: 128\n\
         1 0 -1 60 4 59.5 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n\
         1 30 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 600\n"
    );
    assert!(strict(&text).unwrap().same_content(&workload));
}

#[test]
fn float_field_is_written_in_shortest_round_trip_form() {
    for (value, text) in [
        (552.0, "552"),
        (552.21, "552.21"),
        (0.1, "0.1"),
        (1e-7, "0.0000001"),
    ] {
        let mut record = Record::unknown(1);
        record.average_cpu_time = Some(value);
        let line = record.to_line().unwrap();
        assert_eq!(line.split(' ').nth(5), Some(text));
        assert_eq!(
            workload_format::parse_record(line.as_bytes()).unwrap(),
            record
        );
    }
}

#[test]
fn json_is_clean_with_null_for_unknown() {
    let record = workload_format::parse_record(SWF_LINE.as_bytes()).unwrap();
    let json = serde_json::to_string(&record).unwrap();
    assert_eq!(
        json,
        r#"{"job_number":1,"submit_time":0,"wait_time":10,"run_time":3600,"allocated_processors":64,"average_cpu_time":552.21,"used_memory":null,"requested_processors":64,"requested_time":7200,"requested_memory":null,"status":"Completed","user_id":3,"group_id":1,"executable_number":null,"queue_number":0,"partition_number":null,"preceding_job_number":null,"think_time":null,"cwf":null}"#
    );
    assert_eq!(serde_json::from_str::<Record>(&json).unwrap(), record);
    let cwf = workload_format::parse_record(format!("{SWF_LINE} 50 RP 2").as_bytes()).unwrap();
    let json = serde_json::to_string(&cwf.cwf).unwrap();
    assert_eq!(
        json,
        r#"{"requested_start_time":50,"request_type":"RP","amount":2}"#
    );
}

#[test]
fn line_error_reasons_and_fields() {
    let err = workload_format::parse_record(b"1 2").unwrap_err();
    assert_eq!(err, LineError::FieldCount { found: 2 });
    assert_eq!(err.reason(), Reason::FieldCount);
    assert!(err.reason().skips_line());
    assert!(!Reason::HeaderValue.skips_line());
}

#[test]
fn byte_order_mark_at_the_start_is_skipped_and_reported() {
    const BOM: &str = "\u{feff}";
    let plain_with_header = format!("; Version: 2.2\n{SWF_LINE}\n");
    let plain_record_first = format!("{SWF_LINE}\n; between\n{SWF_LINE}\n");
    for plain in [&plain_with_header, &plain_record_first] {
        let text = format!("{BOM}{plain}");
        let reference = strict(plain).unwrap();
        assert!(!reference.summary.byte_order_mark);
        for options in [ReadOptions::strict(), ReadOptions::lenient()] {
            let w = read_from(text.as_bytes(), "bom.swf", &options).unwrap();
            assert!(w.summary.byte_order_mark, "{options:?}");
            assert!(w.summary.is_clean(), "{options:?}");
            // The BOM is not a line of its own: the counts are those of the
            // file without it.
            assert_eq!(w.summary.lines, reference.summary.lines);
            assert!(w.same_content(&reference), "{options:?}");
            // Written back canonical, without the BOM, and read back the same.
            assert_eq!(workload_to_string(&w).unwrap(), *plain);
            // Split across buffer fills, even inside the three BOM bytes.
            for capacity in [1, 2, 4] {
                let input = std::io::BufReader::with_capacity(capacity, text.as_bytes());
                let pieces = read_from(input, "bom.swf", &options).unwrap();
                assert!(pieces.same_content(&w), "capacity {capacity}");
                assert_eq!(pieces.summary, w.summary, "capacity {capacity}");
            }
        }
    }
    // The header's first line is the key, not the BOM followed by it.
    let w = strict(&format!("{BOM}{plain_with_header}")).unwrap();
    assert_eq!(w.header.version(), Some("2.2"));
    assert_eq!(
        w.header.lines().next(),
        Some("; Version: 2.2"),
        "BOM kept in the header"
    );

    // Gzip: the BOM starts the decompressed text.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder
        .write_all(format!("{BOM}{plain_with_header}").as_bytes())
        .unwrap();
    let path = temp_path("bom.swf.gz");
    std::fs::write(&path, encoder.finish().unwrap()).unwrap();
    let w = read_path(&path, &ReadOptions::strict()).unwrap();
    assert!(w.summary.byte_order_mark);
    assert_eq!((w.header.len(), w.records.len()), (1, 1));

    // Only at the very start: on line 2 the same bytes make field 1 bad.
    let late = format!("{SWF_LINE}\n{BOM}{SWF_LINE}\n");
    let err = strict(&late).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("test.swf:2: field 1 (job number)"),
        "{err}"
    );
    let w = lenient(&late);
    assert!(!w.summary.byte_order_mark);
    assert_eq!((w.records.len(), w.summary.skipped_lines), (1, 1));

    // A BOM alone, or before a blank line, is an empty file.
    let w = strict(BOM).unwrap();
    assert!(w.summary.byte_order_mark);
    assert_eq!((w.summary.lines, w.summary.blank_lines), (1, 1));
}

//! Whole files of arbitrary bytes, strict and lenient: never panic, every
//! line is accounted for, and what lenient mode reads round-trips (strictly
//! too when it met no problem), and packed records read back equal.
#![no_main]

use libfuzzer_sys::fuzz_target;
use workload_format::{PackedRecords, ReadOptions, read_from, workload_to_string};

fuzz_target!(|bytes: &[u8]| {
    let _ = read_from(bytes, "fuzz.swf", &ReadOptions::strict());
    let Ok(workload) = read_from(bytes, "fuzz.swf", &ReadOptions::lenient()) else {
        return;
    };
    let s = &workload.summary;
    assert_eq!(s.lines, s.records + s.comment_lines + s.blank_lines + s.skipped_lines);
    let packed: PackedRecords = workload.records.iter().collect();
    // The reader makes no NaN, so equality checks every value.
    assert_eq!(packed.to_vec(), workload.records);
    let text = workload_to_string(&workload).expect("writable");
    // Header lines are kept verbatim, so a malformed known header value
    // (a warning in lenient mode, an error in strict mode) is written back
    // as it was: read the text back leniently, with no line skipped.
    let back = read_from(text.as_bytes(), "fuzz.swf", &ReadOptions::lenient()).expect("canonical text reads");
    assert_eq!(back.summary.skipped_lines, 0, "{text}");
    assert!(back.same_content(&workload));
    if workload.summary.issues.is_empty() {
        read_from(text.as_bytes(), "fuzz.swf", &ReadOptions::strict()).expect("clean input reads strictly");
    }
});

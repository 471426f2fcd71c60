//! Whole files of arbitrary bytes, strict and lenient: never panic, every
//! line is accounted for, and what lenient mode reads round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use workload_format::{ReadOptions, read_from, workload_to_string};

fuzz_target!(|bytes: &[u8]| {
    let _ = read_from(bytes, "fuzz.swf", &ReadOptions::strict());
    let Ok(workload) = read_from(bytes, "fuzz.swf", &ReadOptions::lenient()) else {
        return;
    };
    let s = &workload.summary;
    assert_eq!(s.lines, s.records + s.comment_lines + s.blank_lines + s.skipped_lines);
    let text = workload_to_string(&workload).expect("writable");
    let back = read_from(text.as_bytes(), "fuzz.swf", &ReadOptions::strict()).expect("canonical text reads");
    assert!(back.same_content(&workload));
});

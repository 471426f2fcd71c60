//! The line parser on arbitrary bytes: never panics, and whatever it
//! accepts writes back to a line that parses to the same record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use workload_format::parse_record;

fuzz_target!(|line: &[u8]| {
    if let Ok(record) = parse_record(line) {
        let canonical = record.to_line().expect("a parsed record is writable");
        let again = parse_record(canonical.as_bytes()).expect("canonical line parses");
        assert_eq!(again, record);
        assert_eq!(again.to_line().expect("writable"), canonical);
    }
});

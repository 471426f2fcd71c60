//! Every trace in `$SCHEDSIM_TRACES` reads in strict mode, reads in lenient
//! mode with no issue and the same counts, and round-trips.
//!
//! All files there are valid: none fails in strict mode, so no strict error
//! is expected (a new file that fails, or one missing from the table below,
//! fails this test so its counts get written down).

use std::path::{Path, PathBuf};

use workload_format::{ReadOptions, Workload, read_path, workload_to_string};

/// Counts per file, taken with awk independently of this crate:
/// `zcat F | wc -l` for lines, `grep -c '^;'` for comments, `grep -c '^\s*$'`
/// for blank lines, and for the data lines
/// `awk '!/^;/ && NF>0 { if($4==-1) ... }'` for the unknown (-1) counts.
struct Expected {
    file: &'static str,
    lines: u64,
    comments: u64,
    records: u64,
    blank: u64,
    /// Records whose field 4 (run time) is -1.
    unknown_run_time: usize,
    /// Field 5 (allocated processors) -1.
    unknown_allocated: usize,
    /// Field 8 (requested processors) -1.
    unknown_requested_processors: usize,
    /// Field 9 (requested time) -1.
    unknown_requested_time: usize,
    /// Field 11 (status) -1.
    unknown_status: usize,
    /// Field 11 = 5 (cancelled).
    cancelled: usize,
    /// Field 4 = 0.
    zero_run_time: usize,
}

const fn e(
    file: &'static str,
    [lines, comments, records, blank]: [u64; 4],
    [
        unknown_run_time,
        unknown_allocated,
        unknown_requested_processors,
        unknown_requested_time,
        unknown_status,
        cancelled,
        zero_run_time,
    ]: [usize; 7],
) -> Expected {
    Expected {
        file,
        lines,
        comments,
        records,
        blank,
        unknown_run_time,
        unknown_allocated,
        unknown_requested_processors,
        unknown_requested_time,
        unknown_status,
        cancelled,
        zero_run_time,
    }
}

// [lines, comments, records, blank], [run -1, alloc -1, req procs -1,
// req time -1, status -1, status 5, run 0]. lines = comments + records + blank.
const EXPECTED: [Expected; 12] = [
    // The sample ends with a blank line: 23 + 3170 + 1 = 3194.
    e(
        "HPC2N-2002-first3170-sample.swf.gz",
        [3194, 23, 3170, 1],
        [25, 0, 0, 0, 25, 0, 0],
    ),
    e(
        "KTH-SP2-1996-2.1-cln.swf.gz",
        [28500, 24, 28476, 0],
        [0, 1, 1, 0, 0, 0, 8],
    ),
    e(
        "LANL-CM5-1994-4.1-cln.swf.gz",
        [122_105, 45, 122_060, 0],
        [0, 3, 11329, 11290, 0, 0, 2],
    ),
    e(
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        [18271, 32, 18239, 0],
        [0, 0, 18239, 18239, 18239, 0, 173],
    ),
    e(
        "RICC-2010-2.swf.gz",
        [447_814, 20, 447_794, 0],
        [0, 0, 2, 2, 0, 16245, 10],
    ),
    e(
        "SDSC-SP2-1998-first4961-sample.swf.gz",
        [5000, 39, 4961, 0],
        [355, 354, 0, 0, 0, 1436, 0],
    ),
    e(
        "lublin-aaroh.swf.gz",
        [10007, 7, 10000, 0],
        [0, 0, 10000, 10000, 0, 0, 0],
    ),
    e(
        "lublin99_ref_1024_seed1.swf.gz",
        [10007, 7, 10000, 0],
        [0, 0, 10000, 10000, 0, 0, 0],
    ),
    e(
        "lublin99_ref_128_default_seed1.swf.gz",
        [1007, 7, 1000, 0],
        [0, 0, 1000, 1000, 0, 0, 0],
    ),
    e(
        "lublin99_ref_256_typeless_seed1.swf.gz",
        [10007, 7, 10000, 0],
        [0, 0, 10000, 10000, 0, 0, 0],
    ),
    e(
        "lublin_256.swf.gz",
        [10007, 7, 10000, 0],
        [0, 0, 10000, 10000, 0, 0, 0],
    ),
    e(
        "lublin_256_new2.swf.gz",
        [10007, 7, 10000, 0],
        [0, 0, 10000, 10000, 0, 0, 0],
    ),
];

fn traces_folder() -> Option<PathBuf> {
    match std::env::var_os("SCHEDSIM_TRACES") {
        Some(folder) => Some(PathBuf::from(folder)),
        None => {
            println!("skipped: SCHEDSIM_TRACES not set");
            None
        }
    }
}

fn workload_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            [".swf", ".swf.gz", ".cwf", ".cwf.gz"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .collect();
    files.sort();
    files
}

fn count(w: &Workload, f: impl Fn(&workload_format::Record) -> bool) -> usize {
    w.records.iter().filter(|r| f(r)).count()
}

#[test]
fn every_trace_reads_strictly_leniently_and_round_trips() {
    let Some(folder) = traces_folder() else {
        return;
    };
    let files = workload_files(&folder);
    assert!(
        !files.is_empty(),
        "no workload files in {}",
        folder.display()
    );
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let expected = EXPECTED.iter().find(|e| e.file == name).unwrap_or_else(|| {
            panic!("{name}: no expected counts in tests/integration/traces.rs; add them")
        });

        let strict = read_path(path, &ReadOptions::strict())
            .unwrap_or_else(|e| panic!("{name}: strict read failed: {e}"));
        let s = &strict.summary;
        assert_eq!(
            [s.lines, s.comment_lines, s.records, s.blank_lines],
            [
                expected.lines,
                expected.comments,
                expected.records,
                expected.blank
            ],
            "{name}: [lines, comments, records, blank]"
        );
        assert_eq!(s.rounded_total(), 0, "{name}: no float in an integer field");
        assert_eq!(s.cwf_records, 0, "{name}: SWF only");
        assert!(s.is_clean(), "{name}: {:?}", s.issues);
        assert!(
            strict.comments.is_empty(),
            "{name}: no comment after the data"
        );
        assert_eq!(
            [
                count(&strict, |r| r.run_time.is_none()),
                count(&strict, |r| r.allocated_processors.is_none()),
                count(&strict, |r| r.requested_processors.is_none()),
                count(&strict, |r| r.requested_time.is_none()),
                count(&strict, |r| r.status.is_none()),
                count(&strict, |r| r.status
                    == Some(workload_format::JobStatus::Cancelled)),
                count(&strict, |r| r.run_time == Some(0)),
            ],
            [
                expected.unknown_run_time,
                expected.unknown_allocated,
                expected.unknown_requested_processors,
                expected.unknown_requested_time,
                expected.unknown_status,
                expected.cancelled,
                expected.zero_run_time,
            ],
            "{name}: [run -1, alloc -1, req procs -1, req time -1, status -1, status 5, run 0]"
        );

        let lenient = read_path(path, &ReadOptions::lenient())
            .unwrap_or_else(|e| panic!("{name}: lenient read failed: {e}"));
        assert!(lenient.same_content(&strict), "{name}: lenient = strict");
        assert_eq!(lenient.summary, strict.summary, "{name}: same counts");

        let first = workload_to_string(&strict).expect("write");
        let again = workload_format::read_from(first.as_bytes(), name, &ReadOptions::strict())
            .unwrap_or_else(|e| panic!("{name}: canonical text does not read back: {e}"));
        assert!(
            again.same_content(&strict),
            "{name}: parse -> write -> parse"
        );
        let second = workload_to_string(&again).expect("write");
        assert!(
            first == second,
            "{name}: second write differs from the first"
        );
    }
}

#[test]
fn trace_specific_facts() {
    let Some(folder) = traces_folder() else {
        return;
    };
    let read = |file: &str| {
        read_path(folder.join(file), &ReadOptions::strict())
            .unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    // Cleaned logs keep the original job numbers: KTH starts at job 15.
    let kth = read("KTH-SP2-1996-2.1-cln.swf.gz");
    assert_eq!(kth.records[0].job_number, 15);
    assert_eq!(kth.header.max_procs(), Some(100));
    // MaxJobs describes the original log (42264), not the file (18239).
    let nasa = read("NASA-iPSC-1993-3.1-cln.swf.gz");
    assert_eq!(nasa.header.max_jobs(), Some(42264));
    assert_eq!(nasa.records.len(), 18239);
    // RICC has no Version line, and 8192 processors on 1024 nodes.
    let ricc = read("RICC-2010-2.swf.gz");
    assert_eq!(ricc.header.version(), None);
    assert_eq!(
        (ricc.header.max_nodes(), ricc.header.max_procs()),
        (Some(1024), Some(8192))
    );
    assert_eq!(ricc.header.time_zone_string(), Some("Asia/Tokyo"));
    // Field 6 fractions are kept: "552.21" occurs in the HPC2N sample,
    // "8.97" in the SDSC sample (grep -c ' 552\.21 ' and ' 8\.97 ').
    let hpc2n = read("HPC2N-2002-first3170-sample.swf.gz");
    assert!(
        hpc2n
            .records
            .iter()
            .any(|r| r.average_cpu_time == Some(552.21))
    );
    let sdsc = read("SDSC-SP2-1998-first4961-sample.swf.gz");
    assert!(
        sdsc.records
            .iter()
            .any(|r| r.average_cpu_time == Some(8.97))
    );
    // LANL: time zone -25200 (US/Mountain), 18 queues listed.
    let lanl = read("LANL-CM5-1994-4.1-cln.swf.gz");
    assert_eq!(lanl.header.time_zone(), Some(-25200));
    assert_eq!(lanl.header.queue_entries().count(), 18);
    assert_eq!(lanl.header.notes().count(), 3);
    // Lublin files fill only fields 1, 2, 4, 5, 11 and 15; MaxRuntime set.
    let lublin = read("lublin_256.swf.gz");
    assert_eq!(lublin.header.max_runtime(), Some(162_754));
    assert_eq!(lublin.header.max_procs(), None);
    assert_eq!(lublin.header.max_nodes(), Some(256));
}

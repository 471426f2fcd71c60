//! Batsim JSON workloads: Batsim's documented layout (ids as numbers or
//! strings, `delay` and `DelayProfile`, sequences, walltimes absent or -1,
//! profiles Batsim simulates with SimGrid), errors naming job, field and
//! value, and the round trip SWF -> JSON -> SWF.
#![cfg(feature = "batsim")]

use proptest::prelude::*;
use workload_format::{
    BatsimError, BatsimUnwritable, Header, Record, Workload, read_batsim_json,
    workload_to_batsim_json,
};

/// The layout of Batsim's workloads/test_delays.json and
/// test_various_profile_types.json, written out by hand.
const MIXED: &str = r#"{
    "nb_res": 4,
    "jobs": [
        {"id": 7, "subtime": 30, "walltime": 100, "res": 4, "profile": "seq"},
        {"id": "3", "subtime": 0, "walltime": 30, "res": 1, "profile": "delay"},
        {"id": 5, "subtime": 10.6, "res": 2, "profile": "new_style"},
        {"id": 9, "subtime": 10.6, "walltime": -1, "res": 1, "profile": "new_style"},
        {"id": 11, "subtime": 15, "walltime": 30, "res": 2, "profile": "homogeneous"}
    ],
    "profiles": {
        "delay": {"type": "delay", "delay": 20.20},
        "new_style": {"type": "DelayProfile", "delay": 20.5},
        "seq": {"type": "composed", "repeat": 4, "seq": ["delay", "new_style"]},
        "homogeneous": {"type": "parallel_homogeneous", "cpu": 10e6, "com": 1e6}
    }
}"#;

#[test]
fn batsim_layout_read_leniently() {
    let (workload, summary) = read_batsim_json(MIXED, "mixed.json", true).unwrap();
    // The parallel task has no run time without a platform: skipped.
    assert_eq!(summary.jobs, 5);
    assert_eq!(summary.skipped_total(), 1);
    assert_eq!(
        summary.skipped.keys().collect::<Vec<_>>(),
        ["profile type parallel_homogeneous"]
    );
    // Ids 7, "3", 5, 9 are unique integers: kept.
    assert!(!summary.renumbered);
    let rows: Vec<_> = workload
        .records
        .iter()
        .map(|r| {
            (
                r.job_number,
                r.submit_time.unwrap(),
                r.run_time.unwrap(),
                r.requested_processors.unwrap(),
                r.requested_time,
            )
        })
        .collect();
    // Submission order; 5 and 9 tie at 10.6 s -> 11 s and keep file order.
    // Delays: 20.20 -> 20; 20.5 -> 21 (rounded half away from zero); the
    // sequence is 4 x (20.20 + 20.5) = 162.8 -> 163. Walltime absent or -1:
    // unknown.
    assert_eq!(
        rows,
        [
            (3, 0, 20, 1, Some(30)),
            (5, 11, 21, 2, None),
            (9, 11, 21, 1, None),
            (7, 30, 163, 4, Some(100)),
        ]
    );
    // Rounded: submit 10.6 twice (field 2); run times 20.2, 20.5 twice and
    // 162.8 (field 4).
    assert_eq!(workload.summary.rounded[1], 2);
    assert_eq!(workload.summary.rounded[3], 4);
    assert_eq!(workload.header.max_procs(), Some(4));
    assert_eq!(workload.header.max_jobs(), Some(4));
}

#[test]
fn strict_reading_names_the_job_and_the_problem() {
    let error = read_batsim_json(MIXED, "mixed.json", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        "mixed.json: jobs[4] (id 11): profile type `parallel_homogeneous` needs a platform \
         model (only delay profiles and sequences of them give a run time); read leniently to \
         skip such jobs"
    );
    let bad = |job: &str| {
        let text = format!(
            r#"{{"nb_res": 2, "jobs": [{job}], "profiles": {{"d": {{"type": "delay", "delay": 5}}}}}}"#
        );
        read_batsim_json(&text, "w.json", false)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad(r#"{"id": 1, "subtime": 0, "res": 0, "profile": "d"}"#),
        "w.json: jobs[0] (id 1): res: 0 is not a positive integer"
    );
    assert_eq!(
        bad(r#"{"id": 1, "subtime": -3, "res": 1, "profile": "d"}"#),
        "w.json: jobs[0] (id 1): subtime: -3 is not a time >= 0"
    );
    // Huge values are shown short, not in 301 digits.
    assert_eq!(
        bad(r#"{"id": 1, "subtime": 1e300, "res": 1, "profile": "d"}"#),
        "w.json: jobs[0] (id 1): subtime: 1e300 exceeds the largest time, 2^53 s"
    );
    assert_eq!(
        bad(r#"{"id": 1, "subtime": -1.5e300, "res": 1, "profile": "d"}"#),
        "w.json: jobs[0] (id 1): subtime: -1.5e300 is not a time >= 0"
    );
    assert_eq!(
        bad(r#"{"id": 1, "subtime": 0, "res": 1, "profile": "e"}"#),
        "w.json: jobs[0] (id 1): profile `e` is not in `profiles`"
    );
    assert_eq!(
        bad(r#"{"id": 1, "subtime": 0, "walltime": 0, "res": 1, "profile": "d"}"#),
        "w.json: jobs[0] (id 1): walltime: 0 is not > 0 or -1"
    );
    assert_eq!(
        bad(r#"{"id": [1], "subtime": 0, "res": 1, "profile": "d"}"#),
        "w.json: jobs[0] (id [1]): id: [1] is not a string or number"
    );
    let layout = read_batsim_json(r#"{"jobs": []}"#, "w.json", false).unwrap_err();
    assert_eq!(
        layout.to_string(),
        "w.json: `nb_res` is missing or not a positive integer"
    );
    match read_batsim_json("{\n  \"nb_res\": 2,\n  oops", "w.json", false) {
        Err(BatsimError::Json { line, column, .. }) => assert_eq!((line, column), (3, 3)),
        other => panic!("{other:?}"),
    }
    // A sequence that contains itself.
    let cycle = r#"{"nb_res": 1, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "s"}],
        "profiles": {"s": {"type": "composed", "seq": ["s"]}}}"#;
    assert!(
        read_batsim_json(cycle, "w.json", false)
            .unwrap_err()
            .to_string()
            .contains("nested deeper than 64")
    );
}

#[test]
fn repeated_ids_are_renumbered_and_the_first_repeat_named() {
    // Ids 7, 3, 7: jobs[2] repeats jobs[0]'s id; integer ids used once
    // stay the job numbers.
    let job = |id: u64, subtime: u64| {
        format!(r#"{{"id": {id}, "subtime": {subtime}, "res": 1, "profile": "d"}}"#)
    };
    let file = |jobs: &[String]| {
        format!(
            r#"{{"nb_res": 4, "jobs": [{}], "profiles": {{"d": {{"type": "delay", "delay": 3}}}}}}"#,
            jobs.join(",")
        )
    };
    let repeated = file(&[job(7, 0), job(3, 5), job(7, 2)]);
    let (workload, summary) = read_batsim_json(&repeated, "w.json", false).unwrap();
    assert!(summary.renumbered);
    assert_eq!(
        workload.summary.renumbered.as_deref(),
        Some("id 7 is given to jobs[0] and jobs[2]")
    );
    // Numbered 1..3 in submission order: subtimes 0, 2, 5.
    let numbers: Vec<u64> = workload.records.iter().map(|r| r.job_number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let unique = file(&[job(7, 0), job(3, 5)]);
    let (workload, summary) = read_batsim_json(&unique, "w.json", false).unwrap();
    assert!(!summary.renumbered);
    assert_eq!(workload.summary.renumbered, None);
    let numbers: Vec<u64> = workload.records.iter().map(|r| r.job_number).collect();
    assert_eq!(numbers, [7, 3]);
}

#[test]
fn string_ids_are_renumbered_in_submission_order() {
    // Batsim's test_various_profile_types.json names its jobs.
    let text = r#"{"nb_res": 4, "jobs": [
        {"id": "late", "subtime": 9, "res": 1, "profile": "d"},
        {"id": "early", "subtime": 1, "res": 1, "profile": "d"}],
        "profiles": {"d": {"type": "delay", "delay": 3}}}"#;
    let (workload, summary) = read_batsim_json(text, "w.json", false).unwrap();
    assert!(summary.renumbered);
    // The first id in file order is named, with its place.
    assert_eq!(
        workload.summary.renumbered.as_deref(),
        Some(r#"id "late" (jobs[0]) is not a non-negative integer"#)
    );
    let numbers: Vec<(u64, u64)> = workload
        .records
        .iter()
        .map(|r| (r.job_number, r.submit_time.unwrap()))
        .collect();
    assert_eq!(numbers, [(1, 1), (2, 9)]);
}

#[test]
fn writes_batsim_layout() {
    let mut header = Header::new();
    header.set("MaxProcs", 8).unwrap();
    let job = |number, submit, run, procs, requested| {
        let mut r = Record::unknown(number);
        r.submit_time = Some(submit);
        r.run_time = Some(run);
        r.requested_processors = Some(procs);
        r.allocated_processors = Some(procs);
        r.requested_time = requested;
        r
    };
    let workload = Workload::new(
        header,
        vec![
            job(1, 0, 100, 2, Some(300)),
            job(2, 5, 100, 8, None),
            job(4, 7, 9, 1, Some(60)),
        ],
    );
    // Jobs with equal run times share a profile; profiles in run-time order.
    assert_eq!(
        workload_to_batsim_json(&workload).unwrap(),
        r#"{
  "nb_res": 8,
  "jobs": [
    {"id":"1","subtime":0,"walltime":300,"res":2,"profile":"delay100"},
    {"id":"2","subtime":5,"res":8,"profile":"delay100"},
    {"id":"4","subtime":7,"walltime":60,"res":1,"profile":"delay9"}
  ],
  "profiles": {
    "delay9": {"type":"delay","delay":9},
    "delay100": {"type":"delay","delay":100}
  }
}
"#
    );
    let mut unknown_run = workload.clone();
    unknown_run.records[1].run_time = None;
    assert_eq!(
        workload_to_batsim_json(&unknown_run)
            .unwrap_err()
            .to_string(),
        "job 2: no run time, so no delay profile (Batsim needs one per job)"
    );
    // The reason a caller can check before writing is the writer's: job 2
    // lacks its run time and, once given one, its processors (0 requested,
    // none allocated).
    assert_eq!(BatsimUnwritable::of(&workload.records[1]), None);
    assert_eq!(
        BatsimUnwritable::of(&unknown_run.records[1]),
        Some(BatsimUnwritable::NoRunTime)
    );
    let mut no_size = workload.clone();
    no_size.records[1].requested_processors = Some(0);
    no_size.records[1].allocated_processors = None;
    assert_eq!(
        BatsimUnwritable::of(&no_size.records[1]),
        Some(BatsimUnwritable::NoProcessorCount)
    );
    assert_eq!(
        workload_to_batsim_json(&no_size).unwrap_err().to_string(),
        format!("job 2: {}", BatsimUnwritable::NoProcessorCount.reason())
    );
}

fn records() -> impl Strategy<Value = Vec<Record>> {
    prop::collection::vec(
        (
            1u64..50,
            0u64..100_000,
            1u64..512,
            prop::option::of(1u64..200_000),
        ),
        1..40,
    )
    .prop_map(|rows| {
        let mut submit = 0;
        rows.into_iter()
            .enumerate()
            .map(|(i, (gap, run, procs, requested))| {
                submit += gap;
                let mut r = Record::unknown(i as u64 * 3 + 1);
                r.submit_time = Some(submit);
                r.run_time = Some(run);
                r.requested_processors = Some(procs);
                r.allocated_processors = Some(procs);
                r.requested_time = requested;
                r
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// SWF -> JSON -> SWF keeps every field Batsim holds, and the JSON
    /// written again is byte-identical.
    #[test]
    fn round_trip(records in records()) {
        let mut header = Header::new();
        header.set("MaxProcs", 512).unwrap();
        let original = Workload::new(header, records);
        let json = workload_to_batsim_json(&original).unwrap();
        let (back, summary) = read_batsim_json(&json, "rt.json", false).unwrap();
        prop_assert!(!summary.renumbered);
        prop_assert_eq!(back.records.len(), original.records.len());
        for (a, b) in original.records.iter().zip(&back.records) {
            prop_assert_eq!(
                (a.job_number, a.submit_time, a.run_time, a.requested_processors, a.requested_time),
                (b.job_number, b.submit_time, b.run_time, b.requested_processors, b.requested_time)
            );
        }
        prop_assert_eq!(workload_to_batsim_json(&back).unwrap(), json);
    }
}

//! `schedsim simulate` end to end: outputs, hand-computed schedules,
//! determinism, and errors.

use crate::support::{TINY_WORKLOAD, run, s, temp_dir, text};
use std::path::Path;

#[test]
fn writes_jobs_csv_schedule_and_summary_per_policy() {
    let dir = temp_dir("sim-outputs");
    let workload = dir.join("tiny.swf");
    std::fs::write(&workload, TINY_WORKLOAD).unwrap();
    let out = dir.join("out");
    let o = run(&[
        "simulate",
        "-w",
        s(&workload),
        "-p",
        "fcfs",
        "-p",
        "easy",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(
        report.contains("fcfs") && report.contains("easy"),
        "{report}"
    );

    let easy = std::fs::read_to_string(out.join("easy/jobs.csv")).unwrap();
    let rows: Vec<&str> = easy.lines().collect();
    assert_eq!(
        rows[0],
        "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
         requested_time,success,final_state,starting_time,execution_time,finish_time,\
         waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata,\
         bounded_slowdown"
    );
    // Job 1: 0..100 on 0-1. Job 2: waits 95 s, 100..200 on 0-3, turnaround
    // 195, stretch 1.95, bounded slowdown 195 / max(100, 10) = 1.95.
    // Job 3: backfilled at 10 on 2-3, 10..60, no wait.
    assert_eq!(
        rows[1],
        "1,tiny,delay,0,2,100,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1,0-1,-1,,1"
    );
    assert_eq!(
        rows[2],
        "2,tiny,delay,5,4,100,1,COMPLETED_SUCCESSFULLY,100,100,200,95,195,1.95,0-3,-1,,1.95"
    );
    assert_eq!(
        rows[3],
        "3,tiny,delay,10,2,60,1,COMPLETED_SUCCESSFULLY,10,50,60,0,50,1,2-3,-1,,1"
    );

    let fcfs = std::fs::read_to_string(out.join("fcfs/jobs.csv")).unwrap();
    // FCFS: job 3 waits until job 2 ends at 200: wait 190, turnaround 240,
    // bounded slowdown 240 / max(50, 10) = 4.8.
    assert!(
        fcfs.lines().any(|l| l
            == "3,tiny,delay,10,2,60,1,COMPLETED_SUCCESSFULLY,200,50,250,190,240,4.8,0-1,-1,,4.8"),
        "{fcfs}"
    );

    let schedule = std::fs::read_to_string(out.join("easy/schedule.swf")).unwrap();
    // Fields 3 (wait) and 4 (run time) as simulated; the header is kept.
    assert!(schedule.starts_with("; MaxProcs: 4\n"), "{schedule}");
    assert!(
        schedule.contains("\n2 5 95 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"),
        "{schedule}"
    );

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("easy/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["policy"], "easy");
    assert_eq!(summary["machine"]["procs"], 4);
    assert_eq!(summary["normalization"]["jobs"], 3);
    assert_eq!(summary["workload"]["kind"], "file");
    assert_eq!(summary["workload"]["sha256"].as_str().unwrap().len(), 64);
    // Mean wait (0 + 95 + 0) / 3.
    let mean_wait = summary["metrics"]["wait"]["mean"].as_f64().unwrap();
    assert!((mean_wait - 95.0 / 3.0).abs() < 1e-9);
    // Utilization: (2*100 + 4*100 + 2*50) / (makespan 200 * 4) = 700 / 800.
    assert_eq!(summary["metrics"]["utilization"], 0.875);
}

#[test]
fn two_runs_write_identical_files() {
    let dir = temp_dir("sim-determinism");
    let (a, b) = (dir.join("a"), dir.join("b"));
    // The project's 1000-job Lublin fixture, not the 10,000-job built-in
    // workload: debug builds check every conservative compression against
    // a brute-force search, which made this test take 25 s.
    let workload = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lublin-128-1000.swf");
    for out in [&a, &b] {
        let o = run(&[
            "simulate",
            "-w",
            s(&workload),
            "-p",
            "easy",
            "-p",
            "conservative:order=sjf",
            "-o",
            s(out),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    for policy in ["easy", "conservative_order=sjf"] {
        for file in ["jobs.csv", "schedule.swf", "summary.json"] {
            let left = std::fs::read(a.join(policy).join(file)).unwrap();
            let right = std::fs::read(b.join(policy).join(file)).unwrap();
            assert!(left == right, "{policy}/{file} differs between two runs");
        }
    }
}

#[test]
fn the_built_in_workload_says_what_it_is() {
    let o = run(&["simulate", "-p", "easy"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(
        report.contains("built-in Lublin-Feitelson model (10000 jobs, 128 nodes"),
        "{report}"
    );
}

#[test]
fn errors_say_what_to_do() {
    let dir = temp_dir("sim-errors");
    let no_header = dir.join("no-header.swf");
    std::fs::write(
        &no_header,
        "1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let o = run(&["simulate", "-w", s(&no_header)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("MaxProcs is absent and MaxNodes is absent; give --procs"),
        "{}",
        text(&o.stderr)
    );
    // A zero machine size is named as such, not reported missing.
    let zero = dir.join("zero.swf");
    std::fs::write(
        &zero,
        "; MaxProcs: 0\n1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let o = run(&["simulate", "-w", s(&zero)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("MaxProcs is \"0\" and MaxNodes is absent; give --procs"),
        "{}",
        text(&o.stderr)
    );
    // A negative value reaches the range check instead of clap's
    // "unexpected argument '-1'".
    let o = run(&["simulate", "-w", s(&zero), "--procs", "4", "--tau", "-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("tau must be at least 1 s, not -1"),
        "{}",
        text(&o.stderr)
    );

    let o = run(&["simulate", "-p", "eazy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("unknown policy `eazy`"),
        "{}",
        text(&o.stderr)
    );

    // A job without processors: strict stops, lenient drops and counts it.
    let bad = dir.join("bad.swf");
    std::fs::write(
        &bad,
        "; MaxProcs: 4\n1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n2 5 -1 100 -1 -1 -1 -1 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let o = run(&["simulate", "-w", s(&bad), "-p", "easy"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("job 2 (record 2) cannot be simulated: neither requested nor allocated processors are known"), "{err}");
    assert!(err.contains("--lenient"), "{err}");
    let o = run(&["simulate", "-w", s(&bad), "-p", "easy", "--lenient"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("1 jobs simulated, 1 dropped"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn estimates_deadlines_and_invocation_options() {
    let dir = temp_dir("sim-options");
    let workload = dir.join("tiny.swf");
    std::fs::write(&workload, TINY_WORKLOAD).unwrap();
    let deadlines = dir.join("deadlines.csv");
    std::fs::write(
        &deadlines,
        "job_number,deadline_after_submit,kind\n2,500,user\n9,100,artificial\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = run(&[
        "simulate",
        "-w",
        s(&workload),
        "-p",
        "easy",
        "--estimates",
        "exact",
        "--deadlines",
        s(&deadlines),
        "--invoke",
        "per-event",
        "--event-order",
        "arrivals-first",
        "--simultaneous-ends",
        "together",
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("easy/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["job_model"]["estimates"], "exact");
    assert_eq!(summary["simulation"]["invocation"], "per-event");
    assert_eq!(summary["simulation"]["event_order"], "arrivals-first");
    assert_eq!(summary["simulation"]["simultaneous_ends"], "together");
    // Job 2 got its deadline; job 9 is not in the workload.
    assert_eq!(summary["normalization"]["deadlines"], 1);
    assert_eq!(summary["normalization"]["deadlines_unmatched"], 1);
    // Exact estimates: job 3's requested time 60 becomes its runtime, 50.
    let jobs = std::fs::read_to_string(out.join("easy/jobs.csv")).unwrap();
    assert!(
        jobs.lines().any(|l| l.starts_with("3,tiny,delay,10,2,50,")),
        "{jobs}"
    );

    // A repeated job number in the deadline file names both lines.
    std::fs::write(
        &deadlines,
        "job_number,deadline_after_submit,kind\n2,500,user\n2,600,user\n",
    )
    .unwrap();
    let o = run(&["simulate", "-w", s(&workload), "--deadlines", s(&deadlines)]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("line 3: job 2 already has a deadline (line 2)"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn schedule_swf_counts_dates_and_statuses_are_the_simulated_ones() {
    // The same three jobs, a header claiming 9 jobs and the log's dates
    // (time 0 = 1996-09-23 14:00:31 CEST), and a fourth job whose estimate
    // (50 s) is below its runtime (80 s): killed at 50.
    let dir = temp_dir("sim-swf");
    let workload = dir.join("dated.swf");
    let header = "\
; MaxJobs: 9
; MaxRecords: 9
; UnixStartTime: 843480031
; TimeZoneString: Europe/Stockholm
; StartTime: Mon Sep 23 14:00:31 CEST 1996
; EndTime: Fri Aug 29 10:55:01 CEST 1997
";
    let body = TINY_WORKLOAD.trim_start_matches("; MaxProcs: 4\n");
    let text_in =
        format!("; MaxProcs: 4\n{header}{body}4 300 -1 80 1 -1 -1 1 50 -1 1 1 1 -1 1 -1 -1 -1\n");
    std::fs::write(&workload, text_in).unwrap();
    let out = dir.join("out");
    let o = run(&["simulate", "-w", s(&workload), "-p", "fcfs", "-o", s(&out)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let swf = std::fs::read_to_string(out.join("fcfs/schedule.swf")).unwrap();
    assert!(swf.contains("; MaxJobs: 4\n; MaxRecords: 4\n"), "{swf}");
    // FCFS: job 3 ends at 250 and job 4 (300 + 50) at 350, the last end:
    // 14:00:31 + 350 s = 14:06:21.
    assert!(
        swf.contains("; StartTime: Mon Sep 23 14:00:31 CEST 1996\n"),
        "{swf}"
    );
    assert!(
        swf.contains("; EndTime: Mon Sep 23 14:06:21 CEST 1996\n"),
        "{swf}"
    );
    // Job 4 was killed at its estimate: status 0, run time 50.
    assert!(swf.contains("\n4 300 0 50 1 -1 -1 1 50 -1 0 "), "{swf}");
    assert!(swf.contains("\n1 0 0 100 2 -1 -1 2 100 -1 1 "), "{swf}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fcfs/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["unix_start_time"], 843_480_031);
    assert_eq!(summary["time_zone"], "Europe/Stockholm");
    // 1 of 4 jobs killed: 25% > 5%.
    let warnings = summary["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("1 of 4 jobs (25.0%)")),
        "{warnings:?}"
    );
}

#[test]
fn input_problems_are_listed_before_the_results() {
    let dir = temp_dir("sim-input-problems");
    let path = dir.join("mixed.swf");
    // Line 4 has 3 fields (skipped in lenient mode); job 1 appears twice;
    // MaxProcs is given twice with different values.
    std::fs::write(
        &path,
        "; MaxProcs: 10\n; MaxProcs: 12\n\
         1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n\
         bad line here\n\
         1 3 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
    )
    .unwrap();
    let o = run(&["simulate", "-w", s(&path), "-p", "easy", "--lenient"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    for expected in [
        "read: 1 line skipped (1 wrong number of fields); first: line 4:",
        "warning: 1 job number given to more than one job (1 extra job); e.g. job 1 at records 1, 2",
        "warning: header key MaxProcs is given 2 times with different values (\"10\", \"12\"); the first is used",
    ] {
        assert!(report.contains(expected), "{expected}\n{report}");
    }
    // `easy:order=fcfs` is `easy`: one output folder for two runs.
    let o = run(&[
        "simulate",
        "-w",
        s(&path),
        "-p",
        "easy",
        "-p",
        "easy:order=fcfs",
        "--lenient",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("policy `easy` is given twice"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn folders_and_time_spans_that_cannot_be_are_refused_before_running() {
    let dir = temp_dir("sim-refused");
    let path = dir.join("w.swf");
    std::fs::write(&path, TINY_WORKLOAD).unwrap();
    // `conf=DIR/a/b.conf` and `conf=DIR/a_b.conf` would both write to
    // `slurm-backfill_conf=DIR_a_b.conf` (slashes become underscores).
    let conf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/slurm");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::copy(conf.join("age.conf"), dir.join("a/b.conf")).unwrap();
    std::fs::copy(conf.join("fairshare.conf"), dir.join("a_b.conf")).unwrap();
    let first = format!("slurm-backfill:conf={}", s(&dir.join("a/b.conf")));
    let second = format!("slurm-backfill:conf={}", s(&dir.join("a_b.conf")));
    let out = dir.join("out");
    let o = run(&[
        "simulate",
        "-w",
        s(&path),
        "-p",
        &first,
        "-p",
        &second,
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("is also that of"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists(), "nothing is written");
    // 1,025 one-processor jobs of 2^53 s in a row would end at 1025 x 2^53
    // = 9,232,379,236,109,516,800 s, past 2^63 - 1: refused, where the
    // times used to stop at i64::MAX without a word.
    let mut long = String::from("; MaxProcs: 1\n");
    for number in 1..=1025 {
        long.push_str(&format!(
            "{number} 0 -1 9007199254740992 1 -1 -1 1 9007199254740992 -1 1 1 1 -1 1 -1 -1 -1\n"
        ));
    }
    let path = dir.join("long.swf");
    std::fs::write(&path, long).unwrap();
    let o = run(&["simulate", "-w", s(&path), "-p", "fcfs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("would end at 9232379236109516800 s, past 2^60 s"),
        "{}",
        text(&o.stderr)
    );
}

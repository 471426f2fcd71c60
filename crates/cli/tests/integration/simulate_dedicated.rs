//! `schedsim simulate` on a CWF workload with dedicated jobs: the policies
//! of Kumar et al. by name, and batch and dedicated jobs reported apart.

use crate::support::{run, temp_dir};

/// 10 processors. R (batch, 8, 100 s) at 0; at 5, D (dedicated, 4, 10 s,
/// requested 30) and E (dedicated, 2, 10 s, requested 50).
/// EASY-D: R 0..100; D cannot have 4 processors before 100: 70 s late; E
/// on time at 50. EASY runs them as batch jobs: E at 5 (45 s early), D at
/// 100.
const WORKLOAD: &str = "\
; MaxProcs: 10
1 0 -1 100 8 -1 -1 8 100 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 S -1
2 5 -1 10 4 -1 -1 4 10 -1 1 -1 -1 -1 -1 -1 -1 -1 30 S -1
3 5 -1 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1 50 S -1
";

#[test]
fn batch_and_dedicated_jobs_are_reported_apart() {
    let dir = temp_dir("ded-split");
    let workload = dir.join("w.cwf");
    std::fs::write(&workload, WORKLOAD).unwrap();
    let out = dir.join("out");
    let o = run(&[
        "simulate",
        "-w",
        workload.to_str().unwrap(),
        "-p",
        "easy-d",
        "-p",
        "easy",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    // Delays: EASY-D 70 and 0: mean 35, max 70, one delayed.
    assert!(
        report.lines().any(|l| l.starts_with("easy-d")
            && l.contains("dedicated")
            && l.ends_with("1        0         35         70")),
        "{report}"
    );
    // EASY: D 70 s late, E early (counted, delay 0).
    assert!(
        report.lines().any(|l| l.starts_with("easy ")
            && l.contains("dedicated")
            && l.ends_with("1        1         35         70")),
        "{report}"
    );
    assert!(report.contains("msld"), "{report}");
    // What a policy does not handle is said, not hidden.
    assert!(
        report.contains("easy: 2 dedicated jobs run as batch jobs (requested starts ignored)"),
        "{report}"
    );
    assert!(
        !report.lines().any(|l| l.starts_with("easy-d: ")),
        "{report}"
    );

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("easy-d/summary.json")).unwrap())
            .unwrap();
    let split = &summary["split"];
    assert_eq!(split["delay"]["jobs"], 2);
    assert_eq!(split["delay"]["delayed"], 1);
    assert_eq!(split["delay"]["max"], 70);
    assert_eq!(split["delay"]["mean"], 35.0);
    assert_eq!(split["batch"]["jobs"], 1);
    assert_eq!(summary["run_stats"]["dedicated_as_batch"], 0);
    // Dedicated waits: D 100 - 5 = 95, E 50 - 5 = 45: mean 70.
    assert_eq!(split["dedicated"]["wait"]["mean"], 70.0);
    // Utilization shares over the makespan 110 x 10 processors: batch 800,
    // dedicated 40 + 20 = 60.
    assert_eq!(split["batch"]["utilization"], 800.0 / 1100.0);
    assert_eq!(split["dedicated"]["utilization"], 60.0 / 1100.0);
    // The mean-based slowdown of all jobs: mean wait (0 + 95 + 45) / 3, mean
    // runtime (100 + 10 + 10) / 3: (140 + 120) / 120.
    let msld = summary["metrics"]["mean_based_slowdown"].as_f64().unwrap();
    assert!((msld - 260.0 / 120.0).abs() < 1e-12);
}

/// Two ET commands for job 1 (4 processors, estimate 50, works 100 s, so
/// it is killed at its estimate unless extended): +20 at 10 and +30 at 20.
/// EASY-E applies both: limit 100, it ends at 100. With at most one command
/// per job the second is dropped (and said): it ends at 70.
const ELASTIC: &str = "\
; MaxProcs: 4
1 0 -1 100 4 -1 -1 4 50 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 S -1
1 10 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 20
1 20 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 30
";

/// Commands that change nothing or end a job are said on the console, not
/// only in summary.json: job 1 (estimate 50) is cut to its 30 s made at 30;
/// job 2 ends at 60 (its estimate), before its extension at 100.
#[test]
fn commands_after_the_end_and_reductions_that_end_a_job_are_reported() {
    let dir = temp_dir("ded-after-end");
    let workload = dir.join("late.cwf");
    std::fs::write(
        &workload,
        "\
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 50 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 S -1
2 0 -1 60 2 -1 -1 2 60 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 S -1
1 30 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 RT 40
2 100 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 10
",
    )
    .unwrap();
    let o = run(&["simulate", "-w", workload.to_str().unwrap(), "-p", "easy-e"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains(
            "easy-e: 1 elastic commands applied; 1 time reductions ended their job at once (to \
             the run time it had made); 1 elastic commands came after their job ended or was \
             rejected (no effect)\n"
        ),
        "{report}"
    );
}

#[test]
fn the_per_job_command_limit_is_an_option() {
    let dir = temp_dir("ded-limit");
    let workload = dir.join("e.cwf");
    std::fs::write(&workload, ELASTIC).unwrap();
    let out = dir.join("out");
    let path = workload.to_str().unwrap();
    let end = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            "-w",
            path,
            "-p",
            "easy-e",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let jobs = std::fs::read_to_string(out.join("easy-e/jobs.csv")).unwrap();
        let row = jobs.lines().nth(1).unwrap().to_owned();
        (String::from_utf8_lossy(&o.stdout).into_owned(), row)
    };
    let (report, row) = end(&[]);
    assert!(
        report.contains("elastic control commands: 2 read, 2 kept\n"),
        "{report}"
    );
    assert!(
        report.contains("easy-e: 2 elastic commands applied"),
        "{report}"
    );
    // job_id 1, estimate 50 as submitted. The extensions lengthen both its
    // kill-by time, 50 + 20 + 30 = 100, and its work, 100 + 20 + 30 = 150:
    // it is killed at 100 (success 0, walltime reached).
    assert!(
        row.starts_with("1,e,delay,0,4,50,0,COMPLETED_WALLTIME_REACHED,0,100,100,"),
        "{row}"
    );
    let (report, row) = end(&["--max-commands-per-job", "1"]);
    assert!(
        report.contains(
            "elastic control commands: 2 read, 1 kept, 1 dropped (the job already has the maximum number of commands)"
        ),
        "{report}"
    );
    // Killed at its extended limit, 50 + 20 = 70 (work 120): success 0.
    assert!(
        row.starts_with("1,e,delay,0,4,50,0,COMPLETED_WALLTIME_REACHED,0,70,70,"),
        "{row}"
    );
}

#[test]
fn requested_starts_before_submission_are_warned_about() {
    // The papers are silent on a dedicated job asking to start before it
    // is submitted. Job 1 asks for 50, is submitted at 100 and starts at
    // 100 under EASY-D: 50 s late, which the report counts; the warning
    // says why, in validate as in simulate.
    let dir = temp_dir("ded-early");
    let workload = dir.join("early.cwf");
    std::fs::write(
        &workload,
        "; MaxProcs: 8\n\
         1 100 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1 50 S -1\n\
         2 110 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 S -1\n",
    )
    .unwrap();
    let warning = "warning: 1 dedicated job asks to start before it is submitted (e.g. job 1: \
                   requested start 50 s, submitted at 100 s)";
    let file = workload.to_str().unwrap();
    for args in [
        &["validate", file][..],
        &["simulate", "-w", file, "-p", "easy-d"][..],
    ] {
        let o = run(args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report = String::from_utf8_lossy(&o.stdout);
        assert!(report.contains(warning), "{args:?}: {report}");
    }
    // Delay 100 - 50 = 50 s, the job's only one: mean 50, max 50.
    let o = run(&["simulate", "-w", file, "-p", "easy-d"]);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.lines().any(|l| l.starts_with("easy-d")
            && l.contains("dedicated")
            && l.ends_with("1        0         50         50")),
        "{report}"
    );
}

#[test]
fn validate_warns_of_the_commands_simulate_refuses() {
    // Job 1 is submitted at 100. Record 2: ET at 50, before it; record 3:
    // ET 0; record 4: RT for job 7, which no earlier line submits; record
    // 5: ET 5 at 160, fine. simulate refuses the file and --lenient drops
    // the three; validate, which checks the format, warns of the same.
    let dir = temp_dir("ded-commands");
    let workload = dir.join("ecc.cwf");
    std::fs::write(
        &workload,
        "; MaxProcs: 8\n\
         1 100 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1 -1 S -1\n\
         1 50 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 10\n\
         1 150 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 0\n\
         7 150 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 RT 5\n\
         1 160 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 ET 5\n",
    )
    .unwrap();
    let file = workload.to_str().unwrap();
    let o = run(&["validate", file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains(
            "warning: 3 elastic commands that simulate refuses and simulate --lenient drops \
             (1: no earlier job line has this job number, or that job was dropped; 1: it comes \
             before the job's submission; 1: its amount is unknown or 0); first: record 2, for \
             job 1"
        ),
        "{report}"
    );
    let o = run(&["simulate", "-w", file, "-p", "easy", "--lenient"]);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("4 read, 1 kept"), "{report}");
    assert!(
        !run(&["simulate", "-w", file, "-p", "easy"])
            .status
            .success()
    );
}

//! `schedsim simulate --load`, `schedsim compare` and `schedsim plot` end to
//! end on a workload whose schedules are known by hand.

use crate::support::{TINY_WORKLOAD, ok, run, s, temp_dir};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn simulate(dir: &Path, extra: &[&str]) -> PathBuf {
    let workload = dir.join("tiny.swf");
    std::fs::write(&workload, TINY_WORKLOAD).unwrap();
    let out = dir.join("out");
    let mut args = vec![
        "simulate",
        "-w",
        s(&workload),
        "-p",
        "fcfs",
        "-p",
        "easy",
        "-o",
        s(&out),
    ];
    args.extend_from_slice(extra);
    ok(&run(&args));
    out
}

#[test]
fn load_scaling_is_recorded_in_summary_json() {
    let dir = temp_dir("cmp-load");
    // Work 2*100 + 4*100 + 2*50 = 700 on 4 processors over a span of 10 s:
    // load 17.5. Target 8.75: arrival times x 2 -> 0, 10, 20; span 20;
    // 700 / (4 * 20) = 8.75.
    let out = simulate(&dir, &["--load", "8.75"]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("easy/summary.json")).unwrap())
            .unwrap();
    let load = &summary["load"];
    assert_eq!(load["method"], "scale");
    assert_eq!(load["target"], 8.75);
    assert_eq!(load["original_load"], 17.5);
    assert_eq!(load["achieved_load"], 8.75);
    assert_eq!(load["factor"], 2.0);
    let jobs = std::fs::read_to_string(out.join("easy/jobs.csv")).unwrap();
    let submits: Vec<&str> = jobs
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap())
        .collect();
    assert_eq!(submits, ["0", "10", "20"]);
    // Duplication below the current load is refused with the reason.
    let workload = dir.join("tiny.swf");
    let o = run(&[
        "simulate",
        "-w",
        s(&workload),
        "--load",
        "1",
        "--load-method",
        "duplicate",
    ]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr
            .contains("duplicate can only raise the load: the target 1 is below the current 17.5"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_shows_differentials_with_batch_means() {
    let dir = temp_dir("cmp-compare");
    let out = simulate(&dir, &[]);
    let (fcfs, easy) = (out.join("fcfs"), out.join("easy"));
    let json = ok(&run(&[
        "compare",
        s(&fcfs),
        s(&easy),
        "--batches",
        "3",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let d = &v["differentials"];
    assert_eq!(
        (d["jobs"].as_u64(), d["batches"].as_u64()),
        (Some(3), Some(3))
    );
    // Per job, fcfs - easy response: 0, 0, (250 - 10) - (60 - 10) = 190.
    // Batches of one: mean 190 / 3 = 63.333; sample variance
    // (2 * 63.333^2 + 126.667^2) / 2 = 12033.33, s = 109.697;
    // t(2 df, 0.95) = 2.919986: half-width 2.919986 * 109.697 / sqrt(3) =
    // 184.93.
    let response = &d["response"];
    assert!((response["mean"].as_f64().unwrap() - 190.0 / 3.0).abs() < 1e-9);
    let half = response["half_width"].as_f64().unwrap();
    assert!((half - 184.93).abs() < 0.01, "{half}");
    // Side by side: mean wait fcfs (0 + 95 + 190) / 3 = 95, easy (0 + 95 +
    // 0) / 3 = 31.667.
    let metrics = v["metrics"].as_array().unwrap();
    let wait = metrics.iter().find(|m| m[0] == "mean wait (s)").unwrap();
    assert_eq!(wait[1], 95.0);
    assert!((wait[2].as_f64().unwrap() - 95.0 / 3.0).abs() < 1e-9);
    let table = ok(&run(&["compare", s(&fcfs), s(&easy), "--batches", "3"]));
    assert!(table.contains("A: "), "{table}");
    assert!(
        table.contains("90% CI by batch means (3 batches of 1 jobs, 3 jobs)"),
        "{table}"
    );
    // More batches than jobs: batches of one job, and a warning.
    let o = run(&["compare", s(&fcfs), s(&easy), "--batches", "30"]);
    assert!(
        ok(&o).contains("(3 batches of 1 jobs, 3 jobs)"),
        "{}",
        ok(&o)
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr
            .contains("warning: --batches 30 is more than the 3 jobs compared: 3 batches of 1 job"),
        "{stderr}"
    );

    // Another workload (job 3 arrives later) is refused.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let changed = TINY_WORKLOAD.replace("3 10 -1 50", "3 11 -1 50");
    std::fs::write(other.join("tiny.swf"), changed).unwrap();
    let out2 = other.join("out");
    ok(&run(&[
        "simulate",
        "-w",
        s(&other.join("tiny.swf")),
        "-p",
        "easy",
        "-o",
        s(&out2),
    ]));
    let o = run(&["compare", s(&fcfs), s(&out2.join("easy"))]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("are not runs of the same workload: the input SHA-256 differs"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plots_are_written() {
    let dir = temp_dir("cmp-plot");
    let out = simulate(&dir, &[]);
    let easy = out.join("easy");
    let listed = ok(&run(&["plot", s(&easy)]));
    for name in ["queue_length.svg", "utilization.svg", "waits.svg"] {
        let path = easy.join("plots").join(name);
        assert!(listed.contains(s(&path)), "{listed}");
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{name}");
    }
    let gantt = dir.join("gantt.svg");
    let report = ok(&run(&[
        "plot",
        "gantt",
        s(&easy),
        "--from",
        "0",
        "--to",
        "300",
        "-o",
        s(&gantt),
    ]));
    assert!(report.contains("3 jobs in [0, 300] s"), "{report}");
    let svg = std::fs::read_to_string(&gantt).unwrap();
    // EASY started job 3 ahead of job 2: both classes are in the legend.
    assert!(svg.contains("started ahead of an earlier job"));
    assert!(svg.contains("started in arrival order"));
    // Deterministic: the same run draws the same bytes.
    let again = dir.join("again.svg");
    ok(&run(&[
        "plot",
        "gantt",
        s(&easy),
        "--from",
        "0",
        "--to",
        "300",
        "-o",
        s(&again),
    ]));
    assert_eq!(std::fs::read(&again).unwrap(), svg.as_bytes());
    let o = run(&["plot", "gantt", s(&easy), "--from", "10", "--to", "10"]);
    assert!(!o.status.success());
    // A window after every job: an empty chart, and a warning that says
    // where the jobs are.
    let late = dir.join("late.svg");
    let report = ok(&run(&[
        "plot",
        "gantt",
        s(&easy),
        "--from",
        "1000000",
        "--to",
        "2000000",
        "-o",
        s(&late),
    ]));
    assert!(
        report.contains(
            "warning: no job runs in [1000000, 2000000] s, so the chart is empty; its jobs run from 0 to"
        ),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_and_compare_refuse_unfinished_or_mixed_run_folders() {
    let dir = std::env::temp_dir().join(format!("schedsim-mixed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_schedsim"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = dir.join("runs");
    let o = run(&[
        "simulate",
        "-p",
        "fcfs",
        "-p",
        "easy",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let easy = out.join("easy");
    // A jobs.csv cut short (its last 100 rows gone) no longer matches the
    // 10,000 jobs summary.json counts.
    let jobs = std::fs::read_to_string(easy.join("jobs.csv")).unwrap();
    let kept: Vec<&str> = jobs.lines().take(jobs.lines().count() - 100).collect();
    std::fs::write(easy.join("jobs.csv"), kept.join("\n") + "\n").unwrap();
    let plot_dir = dir.join("plot");
    for args in [
        vec![
            "plot",
            easy.to_str().unwrap(),
            "-o",
            plot_dir.to_str().unwrap(),
        ],
        vec![
            "compare",
            out.join("fcfs").to_str().unwrap(),
            easy.to_str().unwrap(),
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains("jobs.csv has 9900 job rows but summary.json counts 10000 jobs"),
            "{args:?}: {stderr}"
        );
    }
    // Without summary.json (a killed run) the folder is not a run.
    std::fs::remove_file(out.join("fcfs/summary.json")).unwrap();
    let o = run(&[
        "plot",
        out.join("fcfs").to_str().unwrap(),
        "-o",
        plot_dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("is not a finished run: it has no summary.json"),
        "{stderr}"
    );
}

/// `dir/jobs.csv` with `edit` applied to the row of job `number`, as
/// (column name -> new value).
fn edit_jobs_csv(dir: &Path, number: &str, edit: &[(&str, &str)]) {
    let path = dir.join("jobs.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let header: Vec<String> = lines[0].split(',').map(str::to_owned).collect();
    for line in &mut lines[1..] {
        let mut fields: Vec<String> = line.split(',').map(str::to_owned).collect();
        if fields[0] != number {
            continue;
        }
        for (column, value) in edit {
            let at = header.iter().position(|h| h == column).unwrap();
            fields[at] = (*value).to_owned();
        }
        *line = fields.join(",");
    }
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

fn copy_run(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for name in ["jobs.csv", "summary.json", "schedule.swf"] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

fn failed(output: &Output, code: i32) -> String {
    assert_eq!(output.status.code(), Some(code), "{output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn tampered_runs_are_refused_by_plot_and_compare() {
    let dir = temp_dir("cmp-tampered");
    let out = simulate(&dir, &[]);
    let (fcfs, easy) = (out.join("fcfs"), out.join("easy"));
    // Job 3 (jobs.csv line 4) finishing at 2^63 - 1 s: plot panicked
    // (capacity overflow) after writing queue_length.svg; compare reported
    // a differential of 6e16.
    let huge = dir.join("huge");
    copy_run(&easy, &huge);
    edit_jobs_csv(&huge, "3", &[("finish_time", "9223372036854775807")]);
    let plots = dir.join("plots");
    let expected = "jobs.csv:4: job 3: column `finish_time` is `9223372036854775807`: a time \
                    must be a whole number of seconds from 0 to 2^62 = 4611686018427387904";
    let stderr = failed(&run(&["plot", s(&huge), "-o", s(&plots)]), 1);
    assert!(stderr.contains(expected), "{stderr}");
    assert!(!plots.exists(), "a failed plot leaves no folder");
    let stderr = failed(&run(&["compare", s(&fcfs), s(&huge)]), 1);
    assert!(stderr.contains(expected), "{stderr}");
    // A NaN execution time: EASY runs job 3 from 10 to 60.
    let nan = dir.join("nan");
    copy_run(&easy, &nan);
    edit_jobs_csv(&nan, "3", &[("execution_time", "NaN")]);
    let stderr = failed(&run(&["compare", s(&fcfs), s(&nan)]), 1);
    assert!(
        stderr.contains(
            "jobs.csv:4: job 3: column `execution_time` is `NaN`: it should be finish_time - \
             starting_time = 50"
        ),
        "{stderr}"
    );
    // Job 3 moved 100 s later with every column consistent: each row is
    // fine, but the mean wait is (0 + 95 + 100) / 3 = 65, not summary.json's
    // (0 + 95 + 0) / 3 = 31.667.
    let shifted = dir.join("shifted");
    copy_run(&easy, &shifted);
    edit_jobs_csv(
        &shifted,
        "3",
        &[
            ("starting_time", "110"),
            ("finish_time", "160"),
            ("waiting_time", "100"),
            ("turnaround_time", "150"),
        ],
    );
    let stderr = failed(&run(&["compare", s(&fcfs), s(&shifted)]), 1);
    assert!(
        stderr.contains(
            "summary.json: metrics.wait.mean is 31.666666666666668 but the jobs of jobs.csv give 65"
        ),
        "{stderr}"
    );
    // plot checks the same (it drew such a folder as one run).
    let stderr = failed(&run(&["plot", s(&shifted), "-o", s(&plots)]), 1);
    assert!(
        stderr.contains("metrics.wait.mean is 31.666666666666668 but the jobs of jobs.csv give 65"),
        "{stderr}"
    );
    let gantt = dir.join("gantt.svg");
    let stderr = failed(&run(&["plot", "gantt", s(&shifted), "-o", s(&gantt)]), 1);
    assert!(
        stderr.contains("metrics.wait.mean is 31.666666666666668"),
        "{stderr}"
    );
    assert!(!plots.exists() && !gantt.exists());
    // A folder mixing two runs of one workload (FCFS's jobs.csv beside
    // EASY's summary.json) is named, rather than the pair it is compared in.
    let mixed = dir.join("mixed");
    copy_run(&easy, &mixed);
    std::fs::copy(fcfs.join("jobs.csv"), mixed.join("jobs.csv")).unwrap();
    let stderr = failed(&run(&["compare", s(&fcfs), s(&mixed)]), 1);
    assert!(
        stderr.contains(&format!(
            "{}: metrics.",
            mixed.join("summary.json").display()
        )),
        "{stderr}"
    );
    // A folder that does not exist is named as such.
    let missing = dir.join("missing");
    let stderr = failed(&run(&["compare", s(&fcfs), s(&missing)]), 1);
    assert!(
        stderr.contains(&format!("{} does not exist", missing.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gantt_windows_out_of_range_are_refused() {
    let dir = temp_dir("cmp-window");
    let out = simulate(&dir, &[]);
    let easy = out.join("easy");
    // Both ends of i64 overflowed the window arithmetic (debug panics,
    // release wrapped into "[9223372036854775807, 815813] is empty").
    for from in ["-9223372036854775808", "9223372036854775807"] {
        let stderr = failed(&run(&["plot", "gantt", s(&easy), "--from", from]), 2);
        assert!(
            stderr.contains(&format!("{from} is not in 0..=4611686018427387904")),
            "{stderr}"
        );
    }
    // The last time allowed: an empty window of 1 s, drawn.
    let gantt = dir.join("g.svg");
    let report = ok(&run(&[
        "plot",
        "gantt",
        s(&easy),
        "--from",
        "4611686018427387904",
        "-o",
        s(&gantt),
    ]));
    assert!(
        report.contains("0 jobs in [4611686018427387904, 4611686018427387905] s"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_refuses_different_metrics_settings_and_keeps_every_job() {
    let dir = temp_dir("cmp-settings");
    let out = simulate(&dir, &[]);
    let fcfs = out.join("fcfs");
    let workload = dir.join("tiny.swf");
    let other = dir.join("tau600");
    ok(&run(&[
        "simulate",
        "-w",
        s(&workload),
        "-p",
        "easy",
        "-o",
        s(&other),
        "--tau",
        "600",
        "--warmup",
        "0.3",
    ]));
    let easy600 = other.join("easy");
    let stderr = failed(&run(&["compare", s(&fcfs), s(&easy600)]), 1);
    assert!(
        stderr.contains(
            "were measured with different metrics settings (tau 10 vs 600, warmup 0.0 vs 0.3)"
        ) && stderr.contains("--allow-different-metrics"),
        "{stderr}"
    );
    let table = ok(&run(&[
        "compare",
        s(&fcfs),
        s(&easy600),
        "--allow-different-metrics",
    ]));
    assert!(
        table.contains("note: the metrics settings differ (tau 10 vs 600, warmup 0.0 vs 0.3)"),
        "{table}"
    );
    // Batches of unequal size, no job left out: 3 jobs in 2 batches are
    // one of 2 (jobs 1, 2) and one of 1 (job 3). fcfs - easy responses 0, 0,
    // 190: the mean is 190 / 3 = 63.333 (dropping job 3 gave 0). Batch
    // means 0 and 190, average size 1.5: v = ((2/1.5)^2 * 63.333^2 +
    // (1/1.5)^2 * 126.667^2) / (2 * 1) = 7130.86, sqrt 84.444; t(1 df,
    // 0.95) = 6.313752: half-width 533.16.
    let easy = out.join("easy");
    let table = ok(&run(&["compare", s(&fcfs), s(&easy), "--batches", "2"]));
    assert!(
        table.contains("(1 batches of 2 and 1 of 1 jobs, 3 jobs)"),
        "{table}"
    );
    let json = ok(&run(&[
        "compare",
        s(&fcfs),
        s(&easy),
        "--batches",
        "2",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let d = &v["differentials"];
    assert_eq!(d["jobs"], 3);
    assert!((d["response"]["mean"].as_f64().unwrap() - 190.0 / 3.0).abs() < 1e-9);
    let half = d["response"]["half_width"].as_f64().unwrap();
    assert!((half - 533.16).abs() < 0.01, "{half}");
    let _ = std::fs::remove_dir_all(&dir);
}

//! The `schedsim` binary on small files: exit codes and key output.

use crate::support::{run, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Output;

const LINE_A: &str = "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 0 -1 -1 -1";
const LINE_B: &str = "2 100 0 300 2 -1 -1 -1 400 -1 1 2 1 -1 0 -1 -1 -1";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

#[test]
fn validate_accepts_good_files_and_rejects_bad_ones() {
    let dir = temp_dir("cli-validate");
    let good = write(
        &dir,
        "good.swf",
        &format!("; MaxProcs: 8\n{LINE_A}\n{LINE_B}\n"),
    );
    let bad = write(
        &dir,
        "bad.swf",
        &format!("{LINE_A}\n{}\n", LINE_B.replace(" 300 ", " 3x0 ")),
    );
    let o = run(&["validate", s(&good)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("ok    {}: 2 records\n", good.display()));

    let o = run(&["validate", s(&good), s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains(&format!(
        "FAIL  {}:2: field 4 (run time): \"3x0\" is not a number",
        bad.display()
    )));
    assert_eq!(stderr(&o), "error: 1 of 2 files failed validation\n");
}

#[test]
fn validate_warns_of_job_numbers_given_twice() {
    // LINE_A twice: job number 1 at records 1 and 2. The file is valid
    // (exit 0), but results name jobs by number, so it is flagged.
    let dir = temp_dir("cli-validate-dup");
    let twice = write(
        &dir,
        "twice.swf",
        &format!("; MaxProcs: 8\n{LINE_A}\n{LINE_A}\n"),
    );
    let o = run(&["validate", s(&twice)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "WARN  {}: 2 records\n      warning: 1 job number given to more than one job (1 extra \
             job); e.g. job 1 at records 1, 2; results name jobs by number, so renumber the input\n",
            twice.display()
        )
    );
}

#[test]
fn validate_lenient_counts_by_reason_and_exits_0() {
    let dir = temp_dir("cli-lenient");
    let bad = write(
        &dir,
        "bad.swf",
        &format!(
            "{LINE_A}\n1 2 3\n{}\n\n{LINE_B}\n",
            LINE_B.replace(" 300 ", " -7 ")
        ),
    );
    let o = run(&["validate", "--lenient", s(&bad)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("2 records, 2 lines skipped, 0 warnings, 1 blank line"),
        "{out}"
    );
    assert!(
        out.contains("1 line skipped: wrong number of fields"),
        "{out}"
    );
    assert!(
        out.contains("1 line skipped: negative value other than -1"),
        "{out}"
    );
    assert!(
        out.contains("line 2: expected 18 (SWF) or 21 (CWF) fields, found 3"),
        "{out}"
    );
    assert!(
        out.contains("line 3: field 4 (run time): \"-7\" is negative"),
        "{out}"
    );
    // A file that cannot be read at all still fails.
    let missing = dir.join("missing.swf");
    let o = run(&["validate", "--lenient", s(&missing)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("cannot open"), "{}", stdout(&o));
}

#[test]
fn missing_file_error_shows_its_cause() {
    let dir = temp_dir("cli-missing");
    let o = run(&["stats", s(&dir.join("nope.swf"))]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "error: cannot open {}\n  caused by: ",
            dir.join("nope.swf").display()
        )),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let o = run(&["validate"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["no-such-command"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn stats_text_and_json() {
    let dir = temp_dir("cli-stats");
    // Job 1: size 4 (requested), runtime 100; job 2: size 2 (requested
    // unknown, allocated 2), runtime 300; span 100 - 0 = 100 s.
    // load = (4*100 + 2*300) / (8 * 100) = 1000 / 800 = 1.25.
    let file = write(
        &dir,
        "w.swf",
        &format!("; MaxProcs: 8\n{LINE_A}\n{LINE_B}\n"),
    );
    let o = run(&["stats", s(&file)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("offered load:  1.2500 (procs 8 from MaxProcs)"),
        "{out}"
    );
    assert!(out.contains("jobs:          2 "), "{out}");

    let o = run(&["stats", "--json", "--procs", "10", s(&file)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON output");
    // 1000 / (10 * 100) = 1.0
    assert_eq!(json["offered_load"], 1.0);
    assert_eq!(json["procs_from"], "--procs");
    assert_eq!(json["span"], 100);
    // Nearest rank over [2, 4]: p50 = rank ceil(0.5*2) = 1 -> 2; p90 = rank 2 -> 4.
    assert_eq!(json["size"]["p50"], 2);
    assert_eq!(json["size"]["p90"], 4);
    assert_eq!(json["run_time"]["p50"], 100);
    // Field 8 is unknown once (job 2).
    assert_eq!(json["unknown_values"][7]["field"], 8);
    assert_eq!(json["unknown_values"][7]["unknown"], 1);
}

#[test]
fn stats_without_machine_size_says_why() {
    let dir = temp_dir("cli-nosize");
    let file = write(&dir, "w.swf", &format!("{LINE_A}\n{LINE_B}\n"));
    let o = run(&["stats", s(&file)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains(
        "offered load:  unavailable: machine size unknown: no --procs, and no MaxProcs or MaxNodes in the header"
    ));
}

#[test]
fn stats_load_divides_by_the_time_scale() {
    let dir = temp_dir("cli-scale");
    let text = |f: u64| {
        format!(
            "; MaxProcs: 16\n{}\n{}\n",
            LINE_A,
            LINE_B.replacen(" 100 ", &format!(" {} ", 100 * f), 1)
        )
    };
    let load = |path: &Path| {
        let o = run(&["stats", "--json", s(path)]);
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        json["offered_load"].as_f64().expect("a load")
    };
    let base = load(&write(&dir, "x1.swf", &text(1)));
    let scaled = load(&write(&dir, "x3.swf", &text(3)));
    // (4*100 + 2*300) / (16 * 100) = 0.625; with arrivals x3: 0.625 / 3.
    assert_eq!(base, 0.625);
    assert!((scaled - base / 3.0).abs() <= f64::EPSILON * base);
}

#[test]
fn convert_round_trips_swf_cwf_and_json_lines() {
    let dir = temp_dir("cli-convert");
    let swf_text = format!("; Version: 2.2\n; MaxProcs: 8\n{LINE_A}\n; between\n{LINE_B}\n");
    let swf = write(&dir, "w.swf", &swf_text);
    let cwf = dir.join("w.cwf");
    let jsonl = dir.join("w.jsonl.gz");
    let back = dir.join("back.swf");
    for (from, to) in [(&swf, &cwf), (&cwf, &jsonl), (&jsonl, &back)] {
        let o = run(&["convert", s(from), s(to)]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains(": 2 records"), "{}", stdout(&o));
    }
    let cwf_text = std::fs::read_to_string(&cwf).unwrap();
    assert!(
        cwf_text.contains(&format!("{LINE_A} -1 S -1\n")),
        "{cwf_text}"
    );
    assert_eq!(std::fs::read(&jsonl).unwrap()[..2], [0x1f, 0x8b]);
    // CWF `-1 S -1` lines hold nothing SWF cannot: back to the same text.
    assert_eq!(std::fs::read_to_string(&back).unwrap(), swf_text);
    // One record: the count is singular.
    let one = write(&dir, "one.swf", &format!("{LINE_A}\n"));
    let o = run(&["convert", s(&one), s(&dir.join("one.cwf"))]);
    assert!(stdout(&o).ends_with(": 1 record\n"), "{}", stdout(&o));
}

#[test]
fn convert_to_swf_refuses_to_drop_cwf_information() {
    let dir = temp_dir("cli-dropcwf");
    let cwf = write(
        &dir,
        "w.cwf",
        &format!(
            "{LINE_A} 50 S -1\n; note\n{} ET 60\n{LINE_B} -1 S -1\n",
            LINE_A.replacen(" 0 ", " 70 ", 1) + " -1"
        ),
    );
    let out = dir.join("w.swf");
    let o = run(&["convert", s(&cwf), s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "error: {} holds CWF information that SWF cannot hold: 1 command lines (ET/RT/EP/RP), 1 requested start times, 0 amounts; write .cwf or .jsonl, or pass --drop-cwf to drop them\n",
            cwf.display()
        )
    );
    assert!(!out.exists(), "nothing written on refusal");

    let o = run(&["convert", "--drop-cwf", s(&cwf), s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(
        "dropped (--drop-cwf): 1 command lines (ET/RT/EP/RP), 1 requested start times, 0 amounts"
    ));
    // The comment stays before the record that followed it (the command is gone).
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("{LINE_A}\n; note\n{LINE_B}\n")
    );
}

/// SWF -> Batsim JSON -> SWF keeps what the simulation needs: the same
/// schedule from the JSON workload as from the SWF one.
#[test]
fn batsim_json_converts_both_ways_and_simulates_alike() {
    let dir = temp_dir("cli-batsim");
    let swf = dir.join("w.swf");
    let json = dir.join("w.json");
    let back = dir.join("back.swf");
    let o = run(&[
        "generate",
        "lublin",
        "-n",
        "300",
        "--procs",
        "64",
        "--seed",
        "3",
        "--estimate",
        "f:3",
        "-o",
        s(&swf),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["convert", s(&swf), s(&json)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(": 300 records"), "{}", stdout(&o));
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(
        text.starts_with("{\n  \"nb_res\": 64,\n  \"jobs\": [\n"),
        "{text}"
    );
    let o = run(&["convert", s(&json), s(&back)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let schedule = |workload: &Path, name: &str| {
        let out = dir.join(name);
        let o = run(&[
            "simulate",
            "-w",
            s(workload),
            "--policy",
            "easy",
            "--out",
            s(&out),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let csv = std::fs::read_to_string(out.join("easy").join("jobs.csv")).unwrap();
        // job_id, submission, requested resources and time, start, finish.
        csv.lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                [f[0], f[3], f[4], f[5], f[8], f[10]].join(",")
            })
            .collect::<Vec<_>>()
    };
    let from_swf = schedule(&swf, "swf");
    assert_eq!(from_swf.len(), 301);
    assert_eq!(from_swf, schedule(&json, "json"));
    assert_eq!(from_swf, schedule(&back, "back"));
}

/// Batsim's JSON has no place for users, groups, status, queues, the
/// header (the calendar of `UnixStartTime`, say) or comments: convert says
/// which it did not write, per field (it wrote them off silently).
#[test]
fn convert_to_batsim_names_what_it_does_not_write() {
    let dir = temp_dir("cli-batsim-loss");
    // LINE_B has no requested processors: its 2 allocated ones are `res`.
    let swf = write(
        &dir,
        "w.swf",
        &format!(
            "; MaxProcs: 8\n; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n\
             {LINE_A}\n; a comment\n{}\n{LINE_B}\n",
            LINE_A.replace("1 0 10 100 4 -1 -1 4", "3 50 -1 100 6 -1 -1 4")
        ),
    );
    let json = dir.join("w.json");
    let o = run(&["convert", s(&swf), s(&json)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "not written (Batsim's JSON has no place for them): wait time (2 jobs), allocated \
             processors (1 job), status (3 jobs), user id (3 jobs), group id (3 jobs), queue \
             number (3 jobs), header keys UnixStartTime, TimeZoneString, 1 comment line\n"
        ),
        "{}",
        stdout(&o)
    );
    // What it holds loses nothing more: no such line back to SWF.
    let o = run(&["convert", s(&json), s(&dir.join("back.swf"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("not written"), "{}", stdout(&o));
}

/// `validate` and `stats` read Batsim's JSON as `simulate` does, and every
/// command that reads it says which float times it rounded.
#[test]
fn batsim_json_is_validated_and_counted_and_its_roundings_are_reported() {
    let dir = temp_dir("cli-batsim-read");
    // Job a at 10.4 s (rounded to 10), b at 0.6 s (to 1), both running
    // 5.5 s (to 6).
    let json = write(
        &dir,
        "w.json",
        r#"{"nb_res": 4, "jobs": [
            {"id": "a", "subtime": 10.4, "walltime": 100, "res": 2, "profile": "p"},
            {"id": "b", "subtime": 0.6, "res": 4, "profile": "p"}],
          "profiles": {"p": {"type": "delay", "delay": 5.5}}}"#,
    );
    let rounded =
        "4 float values rounded to integers (field 2 (submit time): 2, field 4 (run time): 2)";
    let o = run(&["validate", s(&json)]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!("2 records, {rounded}")),
        "{}",
        stdout(&o)
    );
    let o = run(&["stats", s(&json)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Submits 1 and 10: a span of 9 s; work 2 x 6 + 4 x 6 = 36 on 4
    // processors: load 36 / 36 = 1.
    assert!(stdout(&o).contains("time span:     9 s"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("offered load:  1.0000"),
        "{}",
        stdout(&o)
    );
    for args in [
        vec!["simulate", "-w", s(&json), "-p", "easy"],
        vec!["convert", s(&json), s(&dir.join("w.swf"))],
    ] {
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            stdout(&o).contains(&format!("read: {rounded}")),
            "{}",
            stdout(&o)
        );
    }
    // A bad job fails validation with its place, not as an SWF line.
    let bad = write(
        &dir,
        "bad.json",
        r#"{"nb_res": 4, "jobs": [{"id": 1, "subtime": -3, "res": 2, "profile": "p"}],
          "profiles": {"p": {"type": "delay", "delay": 5}}}"#,
    );
    let o = run(&["validate", s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("bad.json: jobs[0] (id 1): subtime: -3 is not a time >= 0"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn convert_rejects_unknown_extensions() {
    let dir = temp_dir("cli-ext");
    let swf = write(&dir, "w.swf", &format!("{LINE_A}\n"));
    let o = run(&["convert", s(&swf), s(&dir.join("w.csv"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot tell the format of"),
        "{}",
        stderr(&o)
    );
}

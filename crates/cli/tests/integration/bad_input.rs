//! The bad-input corpus (`fixtures/bad-input`, plus a few files made here)
//! through every command that reads a workload, in the test profile, which
//! checks integer overflow: no input may panic, every refusal is one
//! `error:` line naming what is wrong, and where a file's line is at fault,
//! the file and the line.

use crate::support::{run, temp_dir, text};
use std::path::{Path, PathBuf};
use std::process::Output;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bad-input")
}

/// Exit 0, or exit 1 (or 2 for usage) with an `error:` first line; never a
/// panic (exit 101) or a signal.
fn assert_clean(args: &[&str], output: &Output) {
    let stderr = text(&output.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{args:?} panicked:\n{stderr}"
    );
    match output.status.code() {
        Some(0) => {}
        Some(1 | 2) => assert!(
            stderr.starts_with("error:"),
            "{args:?} failed without an error line:\n{stderr}"
        ),
        other => panic!("{args:?} exited with {other:?}:\n{stderr}"),
    }
}

/// Every file of the corpus, plus files too large to keep in the
/// repository.
fn corpus() -> Vec<PathBuf> {
    let made = temp_dir("bad-made");
    // One line over the reader's 1 MiB limit.
    let long = made.join("long-line.swf");
    let mut line = "; MaxProcs: 64\n".to_owned();
    line.push_str(&"1 ".repeat((1 << 19) + 1));
    line.push('\n');
    std::fs::write(&long, line).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("fixtures/bad-input")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.file_name().is_some_and(|name| name != "README.md"))
        .collect();
    files.push(long);
    files.sort();
    assert!(files.len() >= 20, "the corpus shrank: {files:?}");
    files
}

#[test]
fn no_bad_input_panics_and_every_refusal_says_why() {
    let out = temp_dir("bad-outputs");
    for file in corpus() {
        let f = file.to_str().unwrap();
        let stem = file.file_name().unwrap().to_str().unwrap();
        let converted = out.join(format!("{stem}.json"));
        let cwf = out.join(format!("{stem}.cwf"));
        let run_dir = out.join(stem);
        let commands: Vec<Vec<&str>> = vec![
            vec!["validate", f],
            vec!["validate", "--lenient", f],
            vec!["stats", f],
            vec!["stats", "--lenient", f],
            vec!["convert", f, converted.to_str().unwrap()],
            vec!["convert", "--lenient", f, cwf.to_str().unwrap()],
            vec![
                "simulate",
                "-w",
                f,
                "-p",
                "fcfs",
                "-p",
                "easy",
                "-p",
                "conservative",
                "-p",
                "los",
            ],
            vec![
                "simulate",
                "--lenient",
                "-w",
                f,
                "--procs",
                "64",
                "-p",
                "easy",
                "-p",
                "conservative",
                "-p",
                "los",
                "-p",
                "hybrid-los-e",
                "--overrun",
                "extend",
                "-o",
                run_dir.to_str().unwrap(),
            ],
        ];
        for args in commands {
            let output = run(&args);
            assert_clean(&args, &output);
        }
    }
}

#[test]
fn bad_lines_are_named_by_file_line_and_field() {
    let dir = corpus_dir();
    // (file, what simulate's error must say). The reader stops at the
    // first bad line; the hand count of lines includes the header line.
    let cases = [
        (
            "runtime-beyond-max-time.swf",
            ":2: field 4 (run time): \"9223372036854775000\" is beyond the largest time allowed, 2^53 s",
        ),
        (
            "submit-u64-max.swf",
            ":2: field 2 (submit time): \"18446744073709551615\" is beyond the largest time allowed",
        ),
        (
            "negative-fields.swf",
            ":2: field 4 (run time): \"-5\" is negative; only -1 (unknown) is allowed",
        ),
        (
            "not-numbers.swf",
            ":2: field 4 (run time): \"NaN\" is not a number",
        ),
        (
            "wrong-field-count.swf",
            ":2: expected 18 (SWF) or 21 (CWF) fields, found 5",
        ),
        (
            "cwf-bad-request-type.cwf",
            ":2: field 20 (request type): \"XX\" is not a request type",
        ),
        (
            "cwf-extension-overflows.cwf",
            ":3: field 21 (amount): \"9223372036854775000\" is beyond the largest time allowed",
        ),
        (
            "cwf-command-unknown-job.cwf",
            "command for job 7 (record 2) cannot be applied",
        ),
        (
            "wider-than-machine.swf",
            "job 1 (record 1) cannot be simulated: it needs more processors than the machine has",
        ),
        (
            "max-procs-zero.swf",
            "MaxProcs is \"0\" and MaxNodes is absent; give --procs",
        ),
        // The header's machine size names the file, the line and the
        // real limit, 2^24 = 16777216 (u32::MAX was named before).
        (
            "max-procs-huge.swf",
            ":1: header MaxProcs: 99999999999999 processors are more than the 16777216 a \
             simulation can hold; give --procs (1 to 16777216)",
        ),
        (
            "max-procs-beyond-limit.swf",
            ":1: header MaxProcs: 4294967295 processors are more than the 16777216 a simulation \
             can hold",
        ),
        // JSON lines (as convert writes them) are read, each field named
        // with its value; -1 would be unknown, as in SWF.
        (
            "jsonl-negative-run-time.jsonl",
            ":2: field run_time: -5 is negative; only -1 or null (unknown) is allowed",
        ),
        (
            "jsonl-fraction.jsonl",
            ":2: field run_time: 1.5 is not a whole number in 0..=18446744073709551615",
        ),
        // serde_json kept the last of two "nb_res" (16) silently.
        (
            "batsim-repeated-key.json",
            "caused by: the key \"nb_res\" is given twice at line 1 column 151",
        ),
        // 2^53 + 1 = 9007199254740993, on the file's third line.
        (
            "jsonl-run-time-beyond-max-time.jsonl",
            ":3: field run_time: 9007199254740993 is beyond the largest time allowed, 2^53 s",
        ),
        ("truncated.swf.gz", "truncated.swf.gz from its start"),
        // A header zone is checked with or without UnixStartTime.
        (
            "unknown-time-zone.swf",
            "caused by: unknown time zone `Mars/Olympus`",
        ),
        (
            "time-zone-offset-huge.swf",
            "caused by: time-zone offset 99999999999 s is out of range",
        ),
    ];
    for (file, expected) in cases {
        let path = dir.join(file);
        let output = run(&["simulate", "-w", path.to_str().unwrap(), "-p", "easy"]);
        assert_eq!(output.status.code(), Some(1), "{file}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(expected), "{file}: {expected}\n{stderr}");
        if expected.starts_with(':') {
            assert!(
                stderr.contains(&format!("{file}:")),
                "{file} unnamed: {stderr}"
            );
        }
    }
}

#[test]
fn times_near_the_limit_simulate_exactly() {
    // Job 1 is submitted at 9,007,199,254,740,000 s (just under 2^53 =
    // 9,007,199,254,740,992) and runs as long: its end, 2^54 - 1,984, is
    // beyond 2^53 but is computed, not wrapped. Job 2 (4 of 64 processors)
    // arrives a second later and starts at once. SCOJO-PECT runs them
    // too: it used to wake at each of job 1's 7.5 x 10^12 slice ends.
    let path = corpus_dir().join("runtime-near-max-time.swf");
    let out = temp_dir("bad-near-limit");
    let output = run(&[
        "simulate",
        "-w",
        path.to_str().unwrap(),
        "-p",
        "easy",
        "-p",
        "scojo-pect",
        "-p",
        "scojo-pect-opt",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for policy in ["easy", "scojo-pect", "scojo-pect-opt"] {
        let jobs = std::fs::read_to_string(out.join(policy).join("jobs.csv")).unwrap();
        // Job 2 starts on arrival and ends 900 s later; job 1 ends at
        // 2 x 9,007,199,254,740,000.
        assert!(
            jobs.contains(",9007199254740001,900,9007199254740901,0,"),
            "{policy}: {jobs}"
        );
        assert!(jobs.contains(",18014398509480000,0,"), "{policy}: {jobs}");
    }
}

#[test]
fn out_of_range_options_and_parameters_get_a_range_message() {
    let dir = temp_dir("bad-ranges");
    let workload = corpus_dir().join("duplicate-job-numbers.swf");
    let w = workload.to_str().unwrap();
    let gen_out = dir.join("g.swf");
    let g = gen_out.to_str().unwrap();
    let cwf_out = dir.join("g.cwf");
    let gc = cwf_out.to_str().unwrap();
    let small_file = dir.join("one-processor.swf");
    let mut jobs = "; MaxProcs: 1\n".to_owned();
    for number in 1..=10 {
        jobs.push_str(&format!(
            "{number} {number} -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"
        ));
    }
    std::fs::write(&small_file, jobs).unwrap();
    let small = small_file.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["simulate", "-w", w, "--tau", "-1"],
            "tau must be at least 1 s, not -1",
        ),
        (
            vec!["simulate", "-w", w, "--warmup", "-0.5"],
            "must be fractions in [0, 1)",
        ),
        (
            vec!["simulate", "-w", w, "--load", "-2"],
            "invalid value '-2' for '--load <L>': expected a positive number",
        ),
        (
            vec![
                "simulate",
                "-w",
                w,
                "--load",
                "1e9",
                "--load-method",
                "duplicate",
            ],
            "more than the limit of 10000000",
        ),
        (
            vec!["simulate", "-w", w, "--procs", "10", "--granularity", "3"],
            "allocation granularity 3 does not divide the 10 processors",
        ),
        (
            vec!["simulate", "-w", w, "--procs", "-4"],
            "invalid value '-4' for '--procs <N>'",
        ),
        (
            vec![
                "generate",
                "lublin",
                "--jobs",
                "10",
                "--procs",
                "128",
                "--seed",
                "1",
                "--estimate",
                "f:1e300",
                "-o",
                g,
            ],
            "parameter estimate.f is 1e300, expected in [1, 1000]",
        ),
        (
            vec![
                "generate",
                "lublin",
                "--jobs",
                "10000000000",
                "--procs",
                "128",
                "--seed",
                "1",
                "-o",
                g,
            ],
            "--jobs 10000000000 is more than the 4294967295 jobs",
        ),
        // The load search holds every job (16-24 bytes each): 2^32 - 1 jobs
        // tried to allocate 32 GiB and aborted. 2^26 = 67108864 is the most.
        (
            vec![
                "generate",
                "cwf",
                "--jobs",
                "4294967295",
                "--seed",
                "1",
                "--load",
                "0.9",
                "-o",
                gc,
            ],
            "--jobs 4294967295 with the load search (--load): expected 1 to 67108864 jobs, since \
             it holds every job in memory; without it up to 4294967295 jobs are streamed",
        ),
        (
            vec![
                "generate",
                "lublin",
                "--jobs",
                "67108865",
                "--procs",
                "128",
                "--seed",
                "1",
                "--estimate",
                "tsafrir",
                "-o",
                g,
            ],
            "--jobs 67108865 with the tsafrir estimate model (--estimate tsafrir): expected 1 to \
             67108864 jobs",
        ),
        // Unsigned options read any integer first, so a negative or too
        // large one gets the range, not "invalid digit found in string".
        (
            vec![
                "generate", "lublin", "--jobs", "-1", "--seed", "1", "--procs", "8", "-o", g,
            ],
            "-1 is not in 1..=18446744073709551615",
        ),
        // Huge numbers are written in scientific notation, not 309 digits.
        (
            vec!["simulate", "-w", w, "--load", "1e308"],
            "scaling the arrival times to load 1e308 puts all of them in one second",
        ),
        (
            vec!["simulate", "-w", w, "--load-factor", "1e-300"],
            // Load factor 1e-300 on load 4.1667 (the last submission at
            // 3 s): 3 x 1e300 s. The smallest load is 4.1667 x 3 / 2^62 =
            // 2.7105e-18, shown rounded up.
            "job 1's time would become 3e300 s, beyond the largest time, 2^62 s; the smallest \
             load this workload can be scaled to is 2.72e-18",
        ),
        // Scaling options mean nothing without --scale-to.
        (
            vec!["simulate", "-w", w, "--scale-jobs", "5"],
            "the following required arguments were not provided:\n  --scale-to <N>",
        ),
        // The factor is refused as given, not as the load it would make.
        (
            vec!["simulate", "-w", w, "--load-factor", "-1"],
            "invalid value '-1' for '--load-factor <F>': expected a positive number",
        ),
        (
            vec!["simulate", "-w", w, "--procs", "2"],
            "it needs more processors than the machine has (4 processors on a machine of 2)",
        ),
        (
            vec!["simulate", "-w", w, "--load-seed", "-1"],
            "-1 is not in 0..=18446744073709551615",
        ),
        (
            vec!["simulate", "-w", w, "--scale-seed", "18446744073709551616"],
            "18446744073709551616 is not in 0..=18446744073709551615",
        ),
        (
            vec!["validate", "--examples", "-3", w],
            "-3 is not in 0..=18446744073709551615",
        ),
        (
            vec!["simulate", "-w", w, "--procs", "16777217"],
            "16777217 is not in 1..=16777216",
        ),
        // 10 one-processor jobs scaled from 1 to 2,000,000 processors, all
        // duplicated: 10 x 2,000,000 = 20 million records, refused before
        // any is copied.
        (
            vec![
                "simulate",
                "-w",
                small,
                "--scale-to",
                "2000000",
                "--scale-duplicates",
                "1",
            ],
            "would make 20000000 records from 10, more than the limit of 10000000",
        ),
        (
            vec!["train", "--workload", w, "--out", g, "--lambda", "-1"],
            "-1 is not in 1..=18446744073709551615",
        ),
        // train's scaling options, too (they were ignored without a word).
        (
            vec!["train", "--workload", w, "--out", g, "--scale-jobs", "5"],
            "the following required arguments were not provided:\n  --scale-to <N>",
        ),
        (
            vec![
                "train",
                "--workload",
                w,
                "--out",
                g,
                "--scale-adjustment",
                "2",
            ],
            "the following required arguments were not provided:\n  --scale-to <N>",
        ),
        (
            vec!["train", "--workload", w, "--out", g, "--scale-seed", "3"],
            "the following required arguments were not provided:\n  --scale-to <N>",
        ),
    ];
    for (args, expected) in cases {
        let output = run(&args);
        assert_clean(&args, &output);
        assert_ne!(output.status.code(), Some(0), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {expected}\n{stderr}");
        // The granularity error is about the machine: --lenient cannot help.
        if expected.contains("granularity") {
            assert!(!stderr.contains("--lenient"), "{stderr}");
        }
    }
    assert!(!gen_out.exists(), "a refused generate wrote its file");
}

#[test]
fn an_option_that_changes_nothing_is_named() {
    let workload = corpus_dir().join("duplicate-job-numbers.swf");
    let output = run(&[
        "simulate",
        "-w",
        workload.to_str().unwrap(),
        "--simultaneous-ends",
        "together",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report = text(&output.stdout);
    assert!(
        report.contains(
            "warning: --simultaneous-ends together changes nothing without --invoke per-event"
        ),
        "{report}"
    );
    let output = run(&[
        "simulate",
        "-w",
        workload.to_str().unwrap(),
        "--simultaneous-ends",
        "together",
        "--invoke",
        "per-event",
    ]);
    assert!(!text(&output.stdout).contains("changes nothing"));
}

#[test]
fn convert_warns_of_repeated_job_numbers() {
    // Job 1 twice (at 0 and 3 s): converted, with the warning simulate
    // and validate give.
    let workload = corpus_dir().join("duplicate-job-numbers.swf");
    let out = temp_dir("bad-convert-repeated").join("copy.swf");
    let output = run(&["convert", workload.to_str().unwrap(), out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report = text(&output.stdout);
    assert!(
        report.contains("warning: 1 job number given to more than one job (1 extra job); e.g. job 1 at records 1, 2"),
        "{report}"
    );
}

#[test]
fn validate_refuses_the_header_zones_simulate_refuses_unless_overridden() {
    for (file, expected) in [
        (
            "unknown-time-zone.swf",
            "unknown-time-zone.swf: header UnixStartTime, TimeZoneString or TimeZone: unknown time zone `Mars/Olympus`",
        ),
        (
            "time-zone-offset-huge.swf",
            "time-zone-offset-huge.swf: header UnixStartTime, TimeZoneString or TimeZone: time-zone offset 99999999999 s is out of range",
        ),
    ] {
        let path = corpus_dir().join(file);
        let output = run(&["validate", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1), "{file}");
        let report = text(&output.stdout);
        assert!(report.starts_with("FAIL  "), "{report}");
        assert!(report.contains(expected), "{report}");
        // --time-zone replaces the header's zone, which then need not be
        // valid.
        let output = run(&[
            "simulate",
            "-w",
            path.to_str().unwrap(),
            "--time-zone",
            "Europe/Berlin",
        ]);
        assert!(output.status.success(), "{file}: {}", text(&output.stderr));
    }
}

#[test]
fn sacct_output_is_refused_without_a_stray_space() {
    // "x.sacct : sacct output ..." had a space before the colon.
    let workload = corpus_dir().join("duplicate-job-numbers.swf");
    let out = temp_dir("bad-sacct-out").join("x.sacct");
    let output = run(&["convert", workload.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).starts_with(&format!(
            "error: {}: sacct output can be read, not written",
            out.display()
        )),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn convert_counts_unknown_sacct_states_in_lenient_mode() {
    // Two jobs, State WEIRD and COMPLETED: strict refuses line 2 naming
    // the value; lenient keeps both and warns of one.
    let dir = temp_dir("bad-sacct-state");
    let input = dir.join("w.sacct");
    std::fs::write(
        &input,
        "JobIDRaw|Submit|Start|End|AllocCPUS|State\n\
         1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|WEIRD\n\
         2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|COMPLETED\n",
    )
    .unwrap();
    let output = dir.join("w.swf");
    let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
    let strict = run(&["convert", i, o]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        text(&strict.stderr).starts_with(&format!(
            "error: {i}:2: State `WEIRD`: not a Slurm job state (one of "
        )),
        "{}",
        text(&strict.stderr)
    );
    let lenient = run(&["convert", i, o, "--lenient"]);
    assert!(lenient.status.success(), "{}", text(&lenient.stderr));
    let all = text(&lenient.stdout);
    assert!(all.contains(": 2 records"), "{all}");
    assert!(
        all.contains(&format!(
            "warning: 1 job with a State that is not Slurm's kept with status unknown (-1) \
             (--lenient); first: {i}:2: State `WEIRD`"
        )),
        "{all}"
    );
}

#[test]
fn every_command_warns_of_conflicting_header_keys() {
    // `; MaxProcs: 8` then `; MaxProcs: 16`: every command that reads the
    // header says so, with the same words (the Note lines may repeat).
    let file = corpus_dir().join("conflicting-max-procs.swf");
    let f = file.to_str().unwrap();
    let out = temp_dir("bad-conflicting-keys");
    let converted = out.join("copy.jsonl");
    let warning = "warning: header key MaxProcs is given 2 times with different values \
                   (\"8\", \"16\"); the first is used";
    for args in [
        vec!["simulate", "-w", f, "-p", "fcfs"],
        vec!["validate", f],
        vec!["stats", f],
        vec!["convert", f, converted.to_str().unwrap()],
        // The JSON lines copy keeps the header, and the warning.
        vec!["validate", converted.to_str().unwrap()],
    ] {
        let output = run(&args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            text(&output.stderr)
        );
        let all = text(&output.stdout) + &text(&output.stderr);
        assert!(all.contains(warning), "{args:?}:\n{all}");
        assert!(!all.contains("key Note"), "{args:?}:\n{all}");
    }
}

#[test]
fn every_command_warns_of_renumbered_batsim_ids() {
    // Ids "a" and "a": not integers (and repeated). Every command that
    // reads Batsim's JSON gives the same warning, naming the first id.
    let dir = temp_dir("bad-renumbered");
    let input = dir.join("w.json");
    std::fs::write(
        &input,
        r#"{"nb_res": 8, "jobs": [
            {"id": "a", "subtime": 0, "res": 4, "profile": "p"},
            {"id": "a", "subtime": 1, "res": 4, "profile": "p"}],
            "profiles": {"p": {"type": "delay", "delay": 5}}}"#,
    )
    .unwrap();
    let converted = dir.join("copy.swf");
    let f = input.to_str().unwrap();
    let warning = "warning: the Batsim ids are not unique non-negative integers (id \"a\" \
                   (jobs[0]) is not a non-negative integer): jobs numbered 1..2 in submission \
                   order";
    for args in [
        vec!["simulate", "-w", f, "-p", "fcfs"],
        vec!["validate", f],
        vec!["stats", f],
        vec!["convert", f, converted.to_str().unwrap()],
    ] {
        let output = run(&args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            text(&output.stderr)
        );
        let all = text(&output.stdout) + &text(&output.stderr);
        assert!(all.contains(warning), "{args:?}:\n{all}");
    }
    // validate marks the file WARN, not ok.
    assert!(text(&run(&["validate", f]).stdout).starts_with(&format!("WARN  {f}")));
}

#[test]
fn json_lines_from_convert_are_read_by_every_command() {
    // The 10-job one-processor file of a test above, through convert to
    // JSON lines and back into simulate, validate and stats.
    let dir = temp_dir("bad-jsonl-commands");
    let swf = dir.join("w.swf");
    let mut jobs = "; MaxProcs: 2\n".to_owned();
    for number in 1..=10 {
        jobs.push_str(&format!(
            "{number} {} -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n",
            number * 10
        ));
    }
    std::fs::write(&swf, jobs).unwrap();
    let jsonl = dir.join("w.jsonl");
    let (swf, jsonl) = (swf.to_str().unwrap(), jsonl.to_str().unwrap());
    assert!(run(&["convert", swf, jsonl]).status.success());
    let validate = run(&["validate", jsonl]);
    assert!(validate.status.success(), "{}", text(&validate.stderr));
    assert!(text(&validate.stdout).starts_with(&format!("ok    {jsonl}: 10 records")));
    // 10 jobs of 1 x 100 s, submitted at 10..100 s: span 90 s on 2
    // processors, load 1000 / (2 x 90) = 5.5556.
    for file in [swf, jsonl] {
        let stats = text(&run(&["stats", file]).stdout);
        assert!(
            stats.contains("offered load:  5.5556 (procs 2 from MaxProcs)"),
            "{stats}"
        );
    }
    let simulate = run(&["simulate", "-w", jsonl, "-p", "fcfs"]);
    assert!(simulate.status.success(), "{}", text(&simulate.stderr));
    assert!(text(&simulate.stdout).contains("10 jobs simulated"));
}

#[test]
fn model_estimates_above_the_largest_time_are_set_to_it_with_a_warning() {
    // Run time and requested time 2^53 s: f:2 draws up to twice that,
    // which validate would refuse; it is set to 2^53 and counted.
    let dir = temp_dir("bad-estimates-max");
    let input = dir.join("max.swf");
    std::fs::write(
        &input,
        "; MaxProcs: 8\n1 0 -1 9007199254740992 1 -1 -1 1 9007199254740992 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let output = dir.join("out.swf");
    let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
    let convert = run(&["convert", i, o, "--estimates", "f:1000"]);
    assert!(convert.status.success(), "{}", text(&convert.stderr));
    assert!(
        text(&convert.stdout).contains(
            "warning: 1 estimates were above the largest time allowed, 2^53 s, and were set to it"
        ),
        "{}",
        text(&convert.stdout)
    );
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(
        written.contains("1 0 -1 9007199254740992 1 -1 -1 1 9007199254740992 -1"),
        "{written}"
    );
    assert!(run(&["validate", o]).status.success());
}

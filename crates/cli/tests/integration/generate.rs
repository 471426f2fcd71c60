//! `schedsim generate`: the binary on small workloads. Determinism, target
//! load, validity, CWF content, parameter files, errors, and the fixture.
//!
//! Commands are written as command lines (split on spaces; the temporary
//! paths hold none), so they read as a user would type them.

use crate::support::{temp_dir, text};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Output};

use lublin_model::{CwfParams, EstimateParams, LublinParams};
use schedsim_run::{SimulateArgs, builtin_params, load_workload};
use workload_format::{ReadOptions, Record, RequestType, Workload, open_input, read_path};

/// Runs `schedsim` with the command line's words.
fn run(command_line: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .args(command_line.split_whitespace())
        .output()
        .expect("run schedsim")
}

/// Runs, asserts success, returns stdout.
fn ok(command_line: &str) -> String {
    let o = run(command_line);
    assert!(
        o.status.success(),
        "schedsim {command_line} failed: {}",
        text(&o.stderr)
    );
    text(&o.stdout)
}

fn read(path: &Path) -> Workload {
    read_path(path, &ReadOptions::strict()).expect("strictly valid output")
}

/// Offered load computed here, apart from the generator: sum(size x
/// runtime) over the jobs / (procs x (last submit - first submit)).
fn offered_load(records: &[Record], procs: u64) -> f64 {
    let jobs: Vec<&Record> = records.iter().filter(|r| !r.is_command()).collect();
    let work: f64 = jobs
        .iter()
        .map(|r| r.allocated_processors.unwrap() as f64 * r.run_time.unwrap() as f64)
        .sum();
    let first = jobs.iter().map(|r| r.submit_time.unwrap()).min().unwrap();
    let last = jobs.iter().map(|r| r.submit_time.unwrap()).max().unwrap();
    work / (procs as f64 * (last - first) as f64)
}

/// The "parameters {json}" Note of a generated header.
fn params_note(workload: &Workload) -> &str {
    workload
        .header
        .notes()
        .find_map(|n| n.strip_prefix("parameters "))
        .expect("parameters Note")
}

#[test]
fn same_seed_gives_the_same_bytes() {
    let dir = temp_dir("gen-determinism");
    let lublin = |name: &str, seed: u64| {
        let path = dir.join(name);
        ok(&format!(
            "generate lublin --jobs 3000 --procs 256 --load 0.8 --estimate f:2,rounded \
             --seed {seed} -o {}",
            path.display()
        ));
        std::fs::read(path).unwrap()
    };
    let a = lublin("a.swf", 5);
    assert!(a == lublin("b.swf", 5), "two runs differ");
    assert!(a != lublin("c.swf", 6), "another seed gives the same file");

    let cwf = |name: &str| {
        let path = dir.join(name);
        ok(&format!(
            "generate cwf --jobs 3000 --load 0.9 --seed 5 -o {}",
            path.display()
        ));
        std::fs::read(path).unwrap()
    };
    // gzip output carries no time stamp or name, so it is reproducible too,
    // and decompresses to the plain file.
    let gz = cwf("a.cwf.gz");
    assert!(gz == cwf("b.cwf.gz"), "two gzip runs differ");
    assert_eq!(gz[..2], [0x1f, 0x8b]);
    let mut plain = Vec::new();
    open_input(&dir.join("a.cwf.gz"))
        .unwrap()
        .read_to_end(&mut plain)
        .unwrap();
    assert!(plain == cwf("a.cwf"), "gzip content differs from plain");
}

#[test]
fn load_is_within_two_percent_for_10k_jobs() {
    let dir = temp_dir("gen-load");
    for (options, procs, target, file) in [
        ("lublin --procs 128", 128, 0.7, "a.swf"),
        ("lublin --procs 1024 --typeless", 1024, 0.5, "b.swf"),
        ("cwf", 320, 0.9, "c.cwf"),
        ("cwf --small-prob 0.8 --procs 640", 640, 0.6, "d.cwf"),
    ] {
        let path = dir.join(file);
        let report = ok(&format!(
            "generate {options} --jobs 10000 --seed 11 --load {target} -o {}",
            path.display()
        ));
        let workload = read(&path);
        let load = offered_load(&workload.records, procs);
        assert!(
            (load / target - 1.0).abs() < 0.02,
            "{options}: load {load}, target {target}"
        );
        // The one-line summary says the same, to 4 decimals.
        assert!(
            report.contains(&format!("offered load {load:.4} (target {target})")),
            "{report}"
        );
        assert!(report.starts_with(&format!("wrote {}: 10000 jobs", path.display())));
        assert_eq!(workload.header.max_procs(), Some(procs));
        assert_eq!(workload.header.max_jobs(), Some(10_000));
    }
}

#[test]
fn a_load_target_out_of_reach_is_warned_about() {
    // 3 jobs: the search squeezes their arrivals into whole seconds, and
    // no spacing of them gives load 1000 (the closest is 1.0625 here). The
    // file is written, with a warning under the summary.
    let dir = temp_dir("gen-load-missed");
    let path = dir.join("three.swf");
    let report = ok(&format!(
        "generate lublin --procs 128 -n 3 --seed 1 --load 1000 -o {}",
        path.display()
    ));
    assert!(
        report.contains("warning: the offered load is 1.0625, not within 0.1% of the target 1000"),
        "{report}"
    );
    assert!(report.contains("(submit times are whole seconds; 3 jobs submitted over "));
    // One job: a load needs a span, and the counts are singular.
    let report = ok(&format!(
        "generate lublin --procs 128 -n 1 --seed 1 --load 0.5 -o {}",
        path.display()
    ));
    assert!(
        report.starts_with(&format!("wrote {}: 1 job, span 0 s", path.display())),
        "{report}"
    );
    assert!(
        report.contains(
            "warning: the offered load is undefined, not within 0.1% of the target 0.5 (submit \
             times are whole seconds; 1 job submitted over 0 s)"
        ),
        "{report}"
    );
    // 1,000 jobs reach load 0.7 to 0.1%: no warning.
    let report = ok(&format!(
        "generate lublin --procs 128 -n 1000 --seed 1 --load 0.7 -o {}",
        path.display()
    ));
    assert!(!report.contains("warning"), "{report}");
}

#[test]
fn output_passes_schedsim_validate() {
    let dir = temp_dir("gen-validate");
    let (swf, cwf, lublin_cwf) = (dir.join("l.swf.gz"), dir.join("c.cwf"), dir.join("l.cwf"));
    for (options, path) in [
        ("lublin --procs 64", &swf),
        ("cwf", &cwf),
        ("lublin --procs 64", &lublin_cwf),
    ] {
        ok(&format!(
            "generate {options} -n 2000 --seed 1 -o {}",
            path.display()
        ));
    }
    let report = ok(&format!(
        "validate {} {} {}",
        swf.display(),
        cwf.display(),
        lublin_cwf.display()
    ));
    let cwf_lines = read(&cwf).records.len();
    assert_eq!(
        report,
        format!(
            "ok    {}: 2000 records\nok    {}: {cwf_lines} records\nok    {}: 2000 records\n",
            swf.display(),
            cwf.display(),
            lublin_cwf.display()
        )
    );
    // A Lublin workload as CWF: the same records with `-1 S -1` added.
    let (plain, as_cwf) = (read(&swf), read(&lublin_cwf));
    assert_eq!(plain.header, as_cwf.header);
    assert_eq!(plain.records.len(), as_cwf.records.len());
    for (a, b) in plain.records.iter().zip(&as_cwf.records) {
        let fields = b.cwf.expect("21 fields");
        assert_eq!(
            (
                fields.requested_start_time,
                fields.request_type,
                fields.amount
            ),
            (None, RequestType::Submit, None)
        );
        let mut b = b.clone();
        b.cwf = None;
        assert_eq!(*a, b);
    }
}

#[test]
fn cwf_files_have_et_and_rt_lines() {
    let dir = temp_dir("gen-cwf");
    let path = dir.join("c.cwf");
    let report = ok(&format!(
        "generate cwf -n 2000 --seed 3 -o {}",
        path.display()
    ));
    let file = std::fs::read_to_string(&path).unwrap();
    let data: Vec<Vec<&str>> = file
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| l.split(' ').collect())
        .collect();
    assert!(data.iter().all(|fields| fields.len() == 21));
    let count = |kind: &str| data.iter().filter(|f| f[19] == kind).count();
    let (submits, extends, reduces) = (count("S"), count("ET"), count("RT"));
    assert_eq!(submits, 2000);
    assert_eq!(submits + extends + reduces, data.len());
    // P_E = 0.2 and P_R = 0.1 of 2000 jobs: 400 ET (sd sqrt(2000 * 0.2 *
    // 0.8) = 17.9) and 200 RT (sd sqrt(2000 * 0.1 * 0.9) = 13.4); bounds at
    // 5 sd.
    assert!((310..=490).contains(&extends), "{extends} ET lines");
    assert!((133..=267).contains(&reduces), "{reduces} RT lines");
    // Dedicated jobs (P_D = 0.5) have a requested start time in field 19:
    // 1000 expected, sd sqrt(2000 * 0.25) = 22.4, bounds at 5 sd.
    let dedicated = data
        .iter()
        .filter(|f| f[19] == "S" && f[18] != "-1")
        .count();
    assert!((888..=1112).contains(&dedicated), "{dedicated} dedicated");
    let workload = read(&path);
    assert_eq!(workload.header.max_records(), Some(data.len() as u64));
    assert!(
        report.contains(&format!("2000 jobs and {} ET/RT lines", extends + reduces)),
        "{report}"
    );

    // The paper's probabilities are options: no command at all, no
    // dedicated job.
    let path = dir.join("none.cwf");
    ok(&format!(
        "generate cwf -n 500 --seed 3 --extend-prob 0 --reduce-prob 0 --dedicated-prob 0 -o {}",
        path.display()
    ));
    let workload = read(&path);
    assert_eq!(workload.records.len(), 500);
    assert!(
        workload
            .records
            .iter()
            .all(|r| !r.is_command() && r.requested_start_time().is_none())
    );
}

#[test]
fn parameter_files_round_trip_through_print_params() {
    let dir = temp_dir("gen-params");
    // --print-params: the defaults changed by the options given.
    let options = "--procs 256 --typeless --load 0.6 --estimate f:3";
    let json = ok(&format!("generate lublin {options} --print-params"));
    let printed: LublinParams = serde_json::from_str(&json).unwrap();
    assert_eq!(
        printed,
        LublinParams::for_machine(256)
            .job_types(false)
            .load(0.6)
            .estimate(EstimateParams::f_model(3.0))
    );
    let printed_cwf: CwfParams = serde_json::from_str(&ok("generate cwf --print-params")).unwrap();
    assert_eq!(printed_cwf, CwfParams::default());

    // Generating from the printed file gives the same bytes as from the
    // options, and its header records the same parameters.
    let params = dir.join("p.json");
    std::fs::write(&params, &json).unwrap();
    let (a, b) = (dir.join("a.swf"), dir.join("b.swf"));
    ok(&format!(
        "generate lublin {options} -n 1000 --seed 2 -o {}",
        a.display()
    ));
    ok(&format!(
        "generate lublin --params {} -n 1000 --seed 2 -o {}",
        params.display(),
        b.display()
    ));
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    let back: LublinParams = serde_json::from_str(params_note(&read(&b))).unwrap();
    assert_eq!(back, printed);

    // A partial file keeps the defaults for the keys it leaves out.
    std::fs::write(
        &params,
        r#"{"small_prob": 0.25, "exclusive_commands": true}"#,
    )
    .unwrap();
    let c = dir.join("c.cwf");
    ok(&format!(
        "generate cwf --params {} -n 100 --seed 2 -o {}",
        params.display(),
        c.display()
    ));
    let back: CwfParams = serde_json::from_str(params_note(&read(&c))).unwrap();
    assert_eq!(back, {
        let mut params = CwfParams::default();
        params.small_prob = 0.25;
        params.exclusive_commands = true;
        params
    });
}

#[test]
fn bad_arguments_say_what_is_wrong() {
    let dir = temp_dir("gen-errors");
    let (swf, cwf, jsonl) = (dir.join("x.swf"), dir.join("x.cwf"), dir.join("x.jsonl"));
    let (swf, cwf, jsonl) = (swf.display(), cwf.display(), jsonl.display());
    let bad_json = dir.join("bad.json");
    std::fs::write(&bad_json, r#"{"machine_size": 128, "bogus": 1}"#).unwrap();
    let invalid = dir.join("invalid.json");
    std::fs::write(&invalid, r#"{"target_load": -2}"#).unwrap();
    let (bad_json, invalid) = (bad_json.display(), invalid.display());
    let lublin = format!("lublin --procs 8 -n 10 --seed 1 -o {swf}");
    // (arguments after `generate`, exit code, text the error must contain)
    let cases = [
        (
            format!("lublin -n 10 --seed 1 -o {swf}"),
            2,
            "--procs <P>".to_owned(),
        ),
        (
            format!("lublin --procs 8 -n 10 -o {swf}"),
            2,
            "--seed <S>".to_owned(),
        ),
        (
            format!("lublin --procs 8 --seed 1 -o {swf}"),
            2,
            "--jobs <N>".to_owned(),
        ),
        (
            "lublin --procs 8 -n 10 --seed 1".to_owned(),
            2,
            "--out <FILE>".to_owned(),
        ),
        (
            format!("lublin --procs 0 -n 10 --seed 1 -o {swf}"),
            2,
            "invalid value '0' for '--procs <P>'".to_owned(),
        ),
        (
            format!("lublin --procs 8 -n 0 --seed 1 -o {swf}"),
            2,
            "invalid value '0' for '--jobs <N>'".to_owned(),
        ),
        (
            format!("{lublin} --load -0.5"),
            2,
            "invalid value '-0.5' for '--load <L>': expected a positive number".to_owned(),
        ),
        (
            format!("{lublin} --estimate f:0.5"),
            2,
            "invalid value 'f:0.5' for '--estimate <MODEL>': expected exact or f:F (F >= 1), \
             optionally followed by ,rounded, or tsafrir[:max=D,hint=D@S,bins=linear|power|K]"
                .to_owned(),
        ),
        (
            format!("{lublin} --estimate fmodel"),
            2,
            "invalid value 'fmodel' for '--estimate <MODEL>'".to_owned(),
        ),
        (
            format!("cwf -n 10 --seed 1 --small-prob 1.5 -o {cwf}"),
            2,
            "invalid value '1.5' for '--small-prob <PS>': expected a probability between 0 and 1"
                .to_owned(),
        ),
        (
            format!("cwf -n 10 --seed 1 --extend-amount 600 -o {cwf}"),
            2,
            "expected fraction:F (of the requested time) or seconds:S".to_owned(),
        ),
        (
            format!("lublin --params {bad_json} --procs 8 -n 10 --seed 1 -o {swf}"),
            2,
            "'--params <FILE.json>' cannot be used with '--procs <P>'".to_owned(),
        ),
        (
            format!("{lublin} --print-params"),
            2,
            "cannot be used with '--print-params'".to_owned(),
        ),
        (
            format!("lublin --params {bad_json} -n 10 --seed 1 -o {swf}"),
            1,
            format!(
                "error: {bad_json} does not hold valid generator parameters (see --print-params \
                 for the layout)\n  caused by: unknown field `bogus`"
            ),
        ),
        (
            format!("lublin --params {invalid} -n 10 --seed 1 -o {swf}"),
            1,
            "error: invalid generator parameters\n  caused by: parameter target_load is -2"
                .to_owned(),
        ),
        (
            format!("lublin --params /nonexistent/p.json -n 10 --seed 1 -o {swf}"),
            1,
            "error: cannot read /nonexistent/p.json\n  caused by: ".to_owned(),
        ),
        (
            format!("cwf -n 10 --seed 1 -o {swf}"),
            1,
            format!("error: {swf} is an SWF file name, but CWF workloads have ET/RT lines"),
        ),
        (
            format!("cwf -n 10 --seed 1 -o {jsonl}"),
            1,
            format!(
                "error: cannot tell the output format of {jsonl} from its name (use .swf or .cwf"
            ),
        ),
        (
            format!("cwf -n 10 --seed 1 --block-size 400 -o {cwf}"),
            1,
            "caused by: parameter machine_size is 320, expected at least one block".to_owned(),
        ),
        (
            "lublin --procs 8 -n 10 --seed 1 -o /nonexistent/x.swf".to_owned(),
            1,
            "error: cannot write /nonexistent/x.swf".to_owned(),
        ),
    ];
    for (args, code, message) in &cases {
        let output = run(&format!("generate {args}"));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(*code), "{args}: {stderr}");
        assert!(stderr.contains(message.as_str()), "{args}: {stderr}");
    }
    // No failed call left a file behind.
    assert!(
        std::fs::read_dir(&dir).unwrap().count() == 2,
        "only the JSON files"
    );
}

/// fixtures/lublin-128-1000.swf is exactly what its documented command
/// writes (fixtures/README.md), so it cannot drift from the generator.
#[test]
fn the_fixture_is_what_the_generator_writes() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lublin-128-1000.swf");
    if !fixture.exists() {
        // The published crate has no repository around it.
        println!(
            "skipped: {} is not here (not a checkout of the repository)",
            fixture.display()
        );
        return;
    }
    let regenerated = temp_dir("gen-fixture").join("lublin-128-1000.swf");
    // The command of fixtures/README.md.
    ok(&format!(
        "generate lublin --jobs 1000 --procs 128 --load 0.7 --estimate f:3 --seed 7 -o {}",
        regenerated.display()
    ));
    let expected = std::fs::read(&fixture).expect("fixtures/lublin-128-1000.swf");
    assert!(
        std::fs::read(&regenerated).unwrap() == expected,
        "fixtures/lublin-128-1000.swf differs from the generator's output: if the change is \
         intended, regenerate it with the command in fixtures/README.md"
    );
    let workload = read(&fixture);
    assert_eq!(workload.records.len(), 1000);
    assert_eq!(workload.header.max_procs(), Some(128));
    // f-model with f = 3: runtime <= estimate <= ceil(3 x runtime).
    assert!(workload.records.iter().all(|r| {
        let (run, req) = (r.run_time.unwrap(), r.requested_time.unwrap());
        run <= req && req <= 3 * run
    }));
}

/// The built-in workload of `schedsim simulate` is the generator's output
/// with the generator's header plus one Note saying what it is: what
/// `schedsim generate lublin` writes with the built-in settings.
#[test]
fn the_simulate_built_in_workload_is_a_generated_one() {
    let loaded = load_workload(&SimulateArgs::new()).unwrap();
    let path = temp_dir("gen-builtin").join("builtin.swf");
    ok(&format!(
        "generate lublin --jobs 10000 --procs 128 --load 0.7 --estimate f:3 --seed 1 -o {}",
        path.display()
    ));
    let generated = read(&path);
    assert_eq!(loaded.records.to_vec(), generated.records);
    let mut lines: Vec<&str> = loaded.header.lines().collect();
    let note = lines.pop().unwrap();
    assert!(
        note.starts_with("; Note: schedsim built-in workload: Lublin-Feitelson model, 10000 jobs"),
        "{note}"
    );
    assert_eq!(lines, generated.header.lines().collect::<Vec<_>>());
    let params: LublinParams = serde_json::from_str(params_note(&generated)).unwrap();
    assert_eq!(params, builtin_params());
}

#[test]
fn tsafrir_estimates_from_generate_and_convert() {
    let dir = temp_dir("gen-tsafrir");
    let d = dir.display();
    // generate: the default maximum is the longest runtime rounded up to a
    // whole hour; every estimate covers its runtime; the same seed gives
    // the same bytes.
    ok(&format!(
        "generate lublin --jobs 3000 --procs 128 --seed 4 --estimate tsafrir -o {d}/a.swf"
    ));
    ok(&format!(
        "generate lublin --jobs 3000 --procs 128 --seed 4 --estimate tsafrir -o {d}/b.swf"
    ));
    let a = std::fs::read(dir.join("a.swf")).unwrap();
    assert_eq!(a, std::fs::read(dir.join("b.swf")).unwrap());
    let w = read(&dir.join("a.swf"));
    let longest = w.records.iter().filter_map(|r| r.run_time).max().unwrap();
    let max = longest.div_ceil(3_600) * 3_600;
    assert!(
        w.records
            .iter()
            .all(|r| r.requested_time.unwrap() >= r.run_time.unwrap())
    );
    // The maximum is the most popular estimate (about 22% of the jobs).
    let at_max = w
        .records
        .iter()
        .filter(|r| r.requested_time == Some(max))
        .count();
    assert!((550..=750).contains(&at_max), "{at_max} of 3000 at {max} s");
    let note = w.header.get_all("Note").last().unwrap().to_owned();
    assert!(
        note.contains(&format!(
            "Tsafrir-Etsion-Feitelson 2005 estimate model, maximum {max} s"
        )),
        "{note}"
    );

    // convert: a trace's estimates replaced; the hint fixes the maximum's
    // share: 10% of 3,000 = 300 jobs at 60 h.
    let out = ok(&format!(
        "convert {d}/a.swf {d}/c.swf --estimates tsafrir:max=60h,hint=60h@0.1 --estimates-seed 9"
    ));
    assert!(
        out.contains("estimates (maximum 216000 s): 3000 jobs; 0 with an unknown runtime"),
        "{out}"
    );
    let c = read(&dir.join("c.swf"));
    assert_eq!(
        c.records
            .iter()
            .filter(|r| r.requested_time == Some(216_000))
            .count(),
        300
    );
    for (before, after) in w.records.iter().zip(&c.records) {
        assert_eq!(before.run_time, after.run_time);
        assert!(after.requested_time.unwrap() >= after.run_time.unwrap());
    }

    // A maximum below some runtimes is refused, naming the count and the
    // way out; per-job models work in convert too.
    let o = run(&format!(
        "convert {d}/a.swf {d}/e.swf --estimates tsafrir:max=1h"
    ));
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("cannot fill the estimates of")
            && err.contains("raise the maximum or truncate"),
        "{err}"
    );
    assert!(!dir.join("e.swf").exists());
    ok(&format!("convert {d}/a.swf {d}/f.swf --estimates f:2"));
    let f = read(&dir.join("f.swf"));
    assert!(f.records.iter().all(|r| {
        let (e, t) = (r.requested_time.unwrap(), r.run_time.unwrap());
        e >= t && e <= 2 * t.max(1)
    }));
}

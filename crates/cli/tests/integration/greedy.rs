//! Greedy (Franke, Lepping and Schwiegelshohn) through the command:
//! `--scale-to`, user groups, per-group AWRT, UTIL and the objective in
//! summary.json, the report and the sweep results.

use crate::support::{ok, run, s, temp_dir};
use std::fs;
use std::path::{Path, PathBuf};

/// 200 jobs of 5 users on 8 processors (about 50/30/14/5/1% of the jobs).
fn write_trace(dir: &Path) -> PathBuf {
    let mut state: u64 = 777;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut text = String::from(
        "; MaxProcs: 8\n; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n",
    );
    let mut submit = 0;
    for job in 1..=200 {
        submit += next(600);
        let size = 1 + next(8);
        let runtime = 10 + next(1990);
        let user = match next(1000) {
            0..500 => 1,
            500..800 => 2,
            800..940 => 3,
            940..990 => 4,
            _ => 5,
        };
        text.push_str(&format!(
            "{job} {submit} -1 {runtime} {size} -1 -1 {size} {runtime} -1 1 {user} 1 -1 1 -1 -1 -1\n"
        ));
    }
    let path = dir.join("users.swf");
    fs::write(&path, text).expect("write trace");
    path
}

/// f2 with unit weights (FCFS order) in every situation.
fn write_params(dir: &Path) -> PathBuf {
    let f2 = r#"{"criterion":"f2","a":1,"b":0,"w":[1,1,1,1,1],"k":[0,0,0,0,0]}"#;
    let path = dir.join("fcfs.json");
    fs::write(
        &path,
        format!(r#"{{"weekend":{f2},"weekday_day":{f2},"weekday_night":{f2}}}"#),
    )
    .expect("write params");
    path
}

#[test]
fn simulate_reports_groups_objective_and_scaling() {
    let dir = temp_dir("greedy-simulate");
    let trace = write_trace(&dir);
    let params = write_params(&dir);
    let greedy = format!("greedy:params={}", s(&params));
    let out = dir.join("out");
    let report = ok(&run(&[
        "simulate",
        "-w",
        s(&trace),
        "--scale-to",
        "32",
        "--scale-seed",
        "3",
        "-p",
        "fcfs",
        "-p",
        &greedy,
        "-o",
        s(&out),
    ]));
    assert!(
        report.contains("scaled: 8 to 32 processors, factor 4.0000"),
        "{report}"
    );
    assert!(
        report.contains("user groups (Franke et al., Table II): users "),
        "{report}"
    );
    assert!(
        report.contains("objective = 10 * AWRT1 + 4 * AWRT2"),
        "{report}"
    );

    let summary = |policy: &str| -> serde_json::Value {
        let text = fs::read_to_string(out.join(policy).join("summary.json")).expect("summary");
        serde_json::from_str(&text).expect("json")
    };
    let fcfs = summary("fcfs");
    // The folder is the spec with `:`, `,` and `/` turned into `_`.
    let greedy = summary(&format!("greedy_params={}", s(&params)).replace([':', ',', '/'], "_"));
    // The machine is the scaled one; half of the 200 jobs were duplicated
    // into 4 each: 100 + 100 x 4 = 500 records.
    assert_eq!(fcfs["machine"]["procs"], 32);
    assert_eq!(fcfs["scale"]["records_out"], 500);
    // Five groups, their shares adding up to 1.
    let shares = fcfs["user_groups"]["shares"].as_array().expect("shares");
    assert_eq!(shares.len(), 5);
    let total: f64 = shares.iter().map(|g| g["share"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-12);
    // f2 with unit weights is FCFS without backfilling: the same metrics.
    assert_eq!(fcfs["user_groups"], greedy["user_groups"]);
    assert_eq!(fcfs["objective"], greedy["objective"]);
    // objective = 10 AWRT1 + 4 AWRT2, from the group metrics written.
    let awrt = |k: usize| {
        fcfs["user_groups"]["metrics"]["groups"][k - 1]["awrt"]
            .as_f64()
            .unwrap()
    };
    let value = fcfs["objective"]["value"].as_f64().unwrap();
    assert!((value - (10.0 * awrt(1) + 4.0 * awrt(2))).abs() < 1e-6 * value);
}

#[test]
fn sweep_scales_traces_and_collects_group_metrics() {
    let dir = temp_dir("greedy-sweep");
    write_trace(&dir);
    let spec = dir.join("sweep.toml");
    fs::write(
        &spec,
        r#"
name = "groups"
loads = [0.7]
policies = ["fcfs", "easy"]
metrics = ["groups.awrt1", "groups.util", "groups.objective"]
objective = "AWRT1"

[[workload]]
name = "users"
file = "users.swf"
scale = { to = 16, seed = 1 }
"#,
    )
    .expect("write spec");
    let out = dir.join("out");
    ok(&run(&["sweep", s(&spec), "--out", s(&out)]));
    ok(&run(&["sweep", s(&spec), "--out", s(&out), "--merge"]));
    let results = fs::read_to_string(out.join("results.csv")).expect("results.csv");
    let rows: Vec<Vec<&str>> = results
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // 2 policies x 3 metrics, every value present.
    assert_eq!(rows.len(), 6, "{results}");
    assert!(rows.iter().all(|r| !r[7].is_empty()), "{results}");
    // The objective AWRT1 equals the groups.awrt1 column.
    for policy in ["fcfs", "easy"] {
        let value = |metric: &str| {
            rows.iter()
                .find(|r| r[4] == policy && r[6] == metric)
                .map(|r| r[7].to_owned())
        };
        assert_eq!(value("groups.awrt1"), value("groups.objective"));
    }
}

#[test]
fn an_undefined_objective_says_why_on_the_console() {
    let dir = temp_dir("greedy-undefined");
    let trace = write_trace(&dir);
    // Five user groups: AWRT9 names a group the workload does not have,
    // for every policy; the table shows `-` and the line below it why.
    let report = ok(&run(&[
        "simulate",
        "-w",
        s(&trace),
        "--objective",
        "AWRT9",
        "-p",
        "fcfs",
        "-p",
        "easy",
    ]));
    assert!(
        report.contains(
            "objective undefined for fcfs, easy: AWRT9 is undefined: there are 5 user groups"
        ),
        "{report}"
    );
}

//! SCOJO-PECT end to end on a loaded generated workload: both policies
//! finish, suspend and resume every job they preempt, and the optimiser
//! stays within its budgets (a group search once ran without end here,
//! cutting paths with branch and bound without spending its schedule
//! budget).

use crate::support::run;
use std::path::PathBuf;

#[test]
fn scojo_policies_finish_within_their_budgets() {
    let dir: PathBuf = std::env::temp_dir().join(format!("schedsim-scojo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("lublin.swf");
    let o = run(&[
        "generate",
        "lublin",
        "-n",
        "3000",
        "--procs",
        "128",
        "--seed",
        "71",
        "--load",
        "0.8",
        "--estimate",
        "f:3",
        "-o",
        swf.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.join("runs");
    let o = run(&[
        "simulate",
        "-w",
        swf.to_str().unwrap(),
        "-p",
        "scojo-pect",
        "-p",
        "scojo-pect-opt:budget=200",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join(name).join("summary.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let base = read("scojo-pect");
    let stats = &base["run_stats"];
    assert!(stats["suspensions"].as_u64().unwrap() > 0);
    assert_eq!(stats["suspensions"], stats["resumes"]);
    // Per runtime class (SCOJO-PECT's bounds): every class has jobs, and
    // their shares add up to 1.
    let classes = &base["metrics"]["runtime_classes"];
    let share: f64 = ["short", "medium", "long"]
        .iter()
        .map(|c| classes[c]["job_share"].as_f64().unwrap())
        .sum();
    assert!((share - 1.0).abs() < 1e-9, "{classes}");
    assert!(classes["long"]["mean_bounded_slowdown"].as_f64().unwrap() >= 1.0);
    assert_eq!(
        base["metrics_config"]["runtime_classes"]["short_below"],
        600
    );
    let opt = read("scojo-pect-opt_budget=200");
    let counters = &opt["policy_counters"];
    let groups = counters["groups"].as_u64().unwrap();
    assert!(groups > 0, "{counters}");
    // At most 200 schedules per group, at most 200 x 50 placements each.
    assert!(counters["schedules_evaluated"].as_u64().unwrap() <= 200 * groups);
    assert!(counters["search_nodes"].as_u64().unwrap() <= 200 * 50 * groups);
    // Level 1 runs (it once started without a node budget and never did):
    // one of this workload's two long groups holds 4 long-wide jobs (4!
    // = 24 orders).
    assert!(
        counters["level1_orders"].as_u64().unwrap() > 0,
        "{counters}"
    );
}

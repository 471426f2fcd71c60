//! `schedsim deadlines` then `simulate --deadlines` with the admission
//! policies, end to end on the Lublin fixture.

use crate::support::{ok, run};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lublin-128-1000.swf")
}

#[test]
fn deadlines_then_admission_control() {
    let dir = std::env::temp_dir().join(format!("schedsim-deadlines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let w = fixture();
    let w = w.to_str().unwrap();
    let file = dir.join("d.csv");
    let f = file.to_str().unwrap();
    let load = [
        "--estimates",
        "exact",
        "--load-factor",
        "1.2",
        "--load-method",
        "duplicate",
    ];
    let mut args = vec!["deadlines", "-w", w, "--stringency", "0.2", "-o", f];
    args.extend(load);
    let report = ok(&run(&args));
    // 1,000 jobs raised 1.2 times by duplication: 200 copies.
    assert!(
        report.contains("1200 deadlines from EASY on 1200 jobs"),
        "{report}"
    );
    let first = std::fs::read(&file).unwrap();
    ok(&run(&args));
    assert_eq!(std::fs::read(&file).unwrap(), first, "not deterministic");

    let out = dir.join("runs");
    let mut args = vec![
        "simulate",
        "-w",
        w,
        "--deadlines",
        f,
        "-p",
        "qops",
        "-p",
        "msb",
        "-p",
        "mrt",
        "-p",
        "easy",
        "-o",
    ];
    args.push(out.to_str().unwrap());
    args.extend(load);
    let report = ok(&run(&args));
    assert!(report.contains("unadmitted"), "{report}");
    let summary = |policy: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(out.join(policy).join("summary.json")).unwrap(),
        )
        .unwrap()
    };
    for policy in ["qops", "msb", "mrt"] {
        let deadlines = &summary(policy)["deadlines"];
        assert_eq!(deadlines["missed"], 0, "{policy}: {deadlines}");
        let rejected = deadlines["rejected_share"].as_f64().unwrap();
        assert!(rejected > 0.0 && rejected < 0.5, "{policy}: {rejected}");
    }
    // EASY runs every job and misses the deadlines of those that wait
    // longer than (1 - 0.2) of their EASY response allows.
    let easy = &summary("easy")["deadlines"];
    assert_eq!(easy["rejected_share"], 0.0);
    assert!(easy["missed"].as_u64().unwrap() > 0, "{easy}");
}

//! What the command-line tests share: the `schedsim` binary, a tiny
//! workload with hand-computed schedules, scratch folders and the text of
//! its output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Four processors. Job 1 takes 2 of them for 100 s; job 2 needs all 4;
/// job 3 needs 2 for 50 s (estimate 60) and arrives after job 2.
///
/// FCFS: job 1 0-100, job 2 100-200 (when job 1 ends), job 3 200-250.
/// EASY: job 2's shadow time is 100; job 3 ends by 10 + 60 = 70 <= 100, so
/// it backfills at 10 and ends at 60.
pub const TINY_WORKLOAD: &str = "\
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1
2 5 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1
3 10 -1 50 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1
";

/// A fresh, empty scratch folder named after the test (and this process,
/// so that concurrent runs of the suite do not meet). Its path has no
/// spaces: some tests split command lines on whitespace.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedsim-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    assert!(!dir.display().to_string().contains(' '), "{dir:?}");
    dir
}

/// Runs the `schedsim` binary built for these tests.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .args(args)
        .output()
        .expect("run schedsim")
}

/// The standard output of a run that must have succeeded; otherwise the
/// test fails showing both streams.
pub fn ok(output: &Output) -> String {
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "schedsim failed:\n{stdout}\n{}",
        text(&output.stderr)
    );
    stdout
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A path as an argument (the scratch folders are UTF-8).
pub fn s(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

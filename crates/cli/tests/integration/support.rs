//! What the command-line tests share: the `schedsim` binary, scratch
//! folders and the text of its output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

//! `schedsim train` end to end on a small generated workload with users:
//! the files it writes, determinism, and a resumed run equal to an
//! uninterrupted one.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use schedsim_train::{TrainArgs, train};

/// 300 jobs of 5 users on 16 processors, over a week (so all three
/// situations occur): sizes, runtimes and gaps from a fixed linear
/// congruential sequence.
fn workload(dir: &Path) -> PathBuf {
    let mut swf = String::from(
        "; MaxProcs: 16\n; UnixStartTime: 843480031\n; TimeZoneString: Europe/Stockholm\n",
    );
    let mut x: u64 = 12345;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let mut submit = 0;
    for job in 1..=300 {
        submit += next(2000);
        let size = 1 + next(16);
        let runtime = 60 + next(7200);
        let estimate = runtime + next(3600);
        // Users with about 50%, 30%, 14%, 5% and 1% of the jobs: groups 1
        // (three users), 2 and 3.
        let user = match next(1000) {
            0..500 => 1,
            500..800 => 2,
            800..940 => 3,
            940..990 => 4,
            _ => 5,
        };
        let _ = writeln!(
            swf,
            "{job} {submit} -1 {runtime} {size} -1 -1 {size} {estimate} -1 1 {user} -1 -1 -1 -1 -1 -1"
        );
    }
    let path = dir.join("small.swf");
    fs::write(&path, swf).unwrap();
    path
}

fn args(workload: &Path, out: PathBuf) -> TrainArgs {
    let mut args = TrainArgs::new(vec![workload.to_path_buf()], out);
    args.mu = 3;
    args.lambda = 6;
    args.generations = 4;
    args.threads = Some(2);
    args
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap()
}

#[test]
fn trains_deterministically_and_resumes_to_the_same_result() {
    let dir = std::env::temp_dir().join(format!("schedsim-train-test-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let swf = workload(&dir);

    let mut report = Vec::new();
    let whole = train(&args(&swf, dir.join("whole")), &mut report).unwrap();
    // 3 initial parents, then 4 generations of 6 offspring.
    assert_eq!(whole.outcome.evaluations, 3 + 4 * 6);
    assert!(whole.outcome.complete);
    // The best is never worse than the best initial parent.
    let history = &whole.outcome.history;
    assert!(history.last().unwrap().best <= history[0].best);
    let report = String::from_utf8(report).unwrap();
    assert!(report.contains("small (trained)"), "{report}");

    // Killed after generation 2, then rerun: the same files.
    let mut stopped = args(&swf, dir.join("resumed"));
    stopped.stop_after = Some(2);
    let partial = train(&stopped, &mut Vec::new()).unwrap();
    assert!(!partial.outcome.complete);
    assert_eq!(partial.outcome.generation, 2);
    let resumed = train(&args(&swf, dir.join("resumed")), &mut Vec::new()).unwrap();
    assert_eq!(resumed.outcome, whole.outcome);
    for file in [
        "best.json",
        "generations.csv",
        "evaluation.csv",
        "train.json",
        "convergence.svg",
    ] {
        assert_eq!(
            read(&dir.join("whole"), file),
            read(&dir.join("resumed"), file),
            "{file}"
        );
    }

    // best.json is a Greedy parameter file.
    let params = dir.join("whole").join("best.json");
    let spec = format!("greedy:params={}", params.display());
    assert!(schedsim_policies::build_policy(&spec.parse().unwrap()).is_ok());
    // generations.csv: a header and one row per generation 0-4, with 36
    // step-size columns after the 7 statistics.
    let csv = read(&dir.join("whole"), "generations.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0].split(',').count(), 7 + 36);
    assert!(lines[0].starts_with("generation,evaluations,best,mean,worst"));
    // evaluation.csv: EASY and Greedy; EASY's change against itself is 0.
    let csv = read(&dir.join("whole"), "evaluation.csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3);
    assert!(rows[1].starts_with("small,true,easy,") && rows[1].ends_with(",0"));
    assert!(rows[2].starts_with("small,true,greedy,"));
    assert!(read(&dir.join("whole"), "convergence.svg").starts_with("<svg"));
}

#[test]
fn workloads_without_users_are_refused() {
    let dir = std::env::temp_dir().join(format!("schedsim-train-nousers-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let swf = dir.join("anonymous.swf");
    fs::write(
        &swf,
        "; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let error = train(&args(&swf, dir.join("out")), &mut Vec::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "workload anonymous: no job names a user (SWF field 12), so there are no user groups"
    );
}

#[test]
fn a_workload_that_cannot_load_is_named() {
    // With several training workloads, "cannot load the workload" alone
    // left the user to guess which one failed.
    let dir = std::env::temp_dir().join(format!("schedsim-train-badload-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let good = workload(&dir);
    let bad = dir.join("broken.swf");
    fs::write(
        &bad,
        "; MaxProcs: 4\n1 0 -1 ten 1 -1 -1 1 10 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let mut both = args(&good, dir.join("out"));
    both.workloads.push(bad.clone());
    let error = error_chain(&train(&both, &mut Vec::new()).unwrap_err());
    assert!(
        error.starts_with(&format!("cannot load the workload {}: ", bad.display())),
        "{error}"
    );
    assert!(
        error.contains("broken.swf:2: field 4 (run time)"),
        "{error}"
    );
}

#[test]
fn a_checkpoint_of_other_fitness_settings_is_not_resumed() {
    // Stopped after generation 1, then rerun with another objective, other
    // criteria or another workload: the parents' fitness values were
    // measured otherwise, so the checkpoint is refused (it was resumed,
    // mixing the values of two objectives).
    let dir = std::env::temp_dir().join(format!("schedsim-train-other-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let swf = workload(&dir);
    let mut stopped = args(&swf, dir.join("out"));
    stopped.stop_after = Some(1);
    train(&stopped, &mut Vec::new()).unwrap();

    let mut other = args(&swf, dir.join("out"));
    other.objective = "AWRT".parse().unwrap();
    let error = error_chain(&train(&other, &mut Vec::new()).unwrap_err());
    assert!(
        error.contains("belongs to another run: the fitness differs"),
        "{error}"
    );
    assert!(
        error.contains(r#""objective":"10 * AWRT1 + 4 * AWRT2""#),
        "{error}"
    );
    assert!(error.contains(r#""objective":"AWRT""#), "{error}");

    let mut other = args(&swf, dir.join("out"));
    other.criteria = "f4".parse().unwrap();
    let error = error_chain(&train(&other, &mut Vec::new()).unwrap_err());
    assert!(error.contains(r#""criteria":"f4""#), "{error}");

    let copy = dir.join("copy.swf");
    fs::copy(&swf, &copy).unwrap();
    let other = args(&copy, dir.join("out"));
    let error = error_chain(&train(&other, &mut Vec::new()).unwrap_err());
    assert!(error.contains("copy.swf"), "{error}");

    // The same settings still resume.
    let resumed = train(&args(&swf, dir.join("out")), &mut Vec::new()).unwrap();
    assert!(resumed.outcome.complete);
}

/// An error and its causes, joined by ": ".
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[test]
fn a_second_training_on_a_held_folder_is_refused() {
    let dir = std::env::temp_dir().join(format!("schedsim-train-held-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let out = dir.join("out");
    fs::create_dir_all(&out).unwrap();
    let swf = workload(&dir);
    // As a running training holds it.
    let lock = fs::File::create(out.join(".lock")).unwrap();
    lock.lock().unwrap();
    fs::write(out.join(".lock"), "pid 4242 on host node7\n").unwrap();
    let error = train(&args(&swf, out.clone()), &mut Vec::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "another train is running in {} (pid 4242 on host node7 holds {}); wait for it to finish or give another --out",
            out.display(),
            out.join(".lock").display()
        )
    );
    assert!(!out.join("checkpoint.json").exists());
    // Its end (killed or not) frees the folder.
    drop(lock);
    let mut quick = args(&swf, out.clone());
    quick.generations = 0;
    train(&quick, &mut Vec::new()).unwrap();
    let _ = fs::remove_dir_all(&dir);
}

//! Output files are whole or absent: `convert` and `generate` write under a
//! temporary name and rename once complete, so a failure or a kill part-way
//! never leaves a shorter file that reads as a valid, smaller workload.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{ok, run, s, temp_dir, text};
use workload_format::{ReadOptions, read_batsim_path, read_path};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read the scratch folder")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `jobs` SWF lines with varied numbers, so that gzip cannot shrink them
/// below a few kilobytes.
fn workload(jobs: u64) -> String {
    let mut text = String::from("; MaxProcs: 64\n");
    for job in 1..=jobs {
        let run = job * 7919 % 86_400 + 1;
        let size = job * 31 % 64 + 1;
        text.push_str(&format!(
            "{job} {} -1 {run} {size} -1 -1 {size} {} -1 1 {} 1 -1 1 -1 -1 -1\n",
            job * 13,
            run * 2,
            job % 97 + 1
        ));
    }
    text
}

#[test]
fn convert_to_batsim_names_the_job_it_cannot_write_and_leaves_no_file() {
    let dir = temp_dir("partial-batsim");
    let input = dir.join("in.swf");
    // Job 3 has no processor count (fields 5 and 8 are -1): Batsim cannot
    // run it.
    std::fs::write(
        &input,
        "; MaxProcs: 4\n\
         1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         2 5 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n\
         3 10 -1 50 -1 -1 -1 -1 60 -1 1 1 1 -1 1 -1 -1 -1\n\
         4 12 -1 50 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n",
    )
    .unwrap();
    let output = dir.join("x.json");
    let refused = run(&["convert", s(&input), s(&output)]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    for part in [
        s(&input),
        "job 3 has no processor count",
        "field 8, requested processors, is -1",
        "field 5, allocated processors, is -1",
        "--lenient",
    ] {
        assert!(stderr.contains(part), "no `{part}` in {stderr}");
    }
    assert_eq!(names(&dir), ["in.swf"], "the refusal left a file");

    let lenient = ok(&run(&["convert", "--lenient", s(&input), s(&output)]));
    assert!(
        lenient.contains("3 records")
            && lenient
                .contains("left out 1 job Batsim cannot run (--lenient): no processor count: 1"),
        "{lenient}"
    );
    assert_eq!(names(&dir), ["in.swf", "x.json"]);
    let (read, _) = read_batsim_path(&output, false).expect("valid Batsim JSON");
    let jobs: Vec<u64> = read.records.iter().map(|r| r.job_number).collect();
    assert_eq!(jobs, [1, 2, 4]);
}

/// A write that fails part-way, as on a full disk: the file size limit
/// (`ulimit -f`, with SIGXFSZ ignored so that writes past it fail with
/// EFBIG) is far below the output's size.
#[cfg(unix)]
#[test]
fn convert_failing_part_way_leaves_no_file() {
    let dir = temp_dir("partial-convert");
    let input = dir.join("in.swf");
    std::fs::write(&input, workload(20_000)).unwrap();
    for name in ["out.swf", "out.swf.gz", "out.jsonl", "out.cwf"] {
        let output = dir.join(name);
        let failed = Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 8 && exec \"$0\" convert \"$1\" \"$2\"")
            .arg(env!("CARGO_BIN_EXE_schedsim"))
            .arg(&input)
            .arg(&output)
            .output()
            .expect("run sh");
        let stderr = text(&failed.stderr);
        assert_eq!(failed.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("cannot write {}", output.display())),
            "{name}: {stderr}"
        );
        // Neither a part at the final name nor the temporary file.
        assert_eq!(names(&dir), ["in.swf"], "{name}");
    }
}

#[test]
fn generate_killed_part_way_leaves_no_partial_file() {
    let dir = temp_dir("partial-generate");
    let output = dir.join("g.swf");
    let jobs = 200_000;
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedsim"))
        .args(["generate", "lublin", "--procs", "128", "--seed", "3", "-o"])
        .arg(&output)
        .arg("-n")
        .arg(jobs.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run schedsim");
    // Killed once something is on disk (the writing has begun), whatever
    // the speed of the machine.
    let started = Instant::now();
    let writing = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .any(|e| e.unwrap().metadata().is_ok_and(|m| m.len() > 0))
    };
    while !writing(&dir) && child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "nothing written"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    let status = child.wait().unwrap();
    if status.success() {
        let read = read_path(&output, &ReadOptions::strict()).expect("a complete file");
        assert_eq!(read.records.len(), jobs);
    } else {
        assert!(
            !output.exists(),
            "a killed run left {} bytes at {}",
            std::fs::metadata(&output).unwrap().len(),
            output.display()
        );
    }
}

//! The log's calendar against the archive's own headers: for every shared
//! trace whose header has both UnixStartTime and StartTime, the local time
//! of time 0 is the header's StartTime; and KTH's submissions per week
//! situation (Greedy-ES) by local time.

use std::path::PathBuf;

use schedsim_sim_core::Calendar;
use workload_format::{ReadOptions, read_path};

fn traces() -> Option<PathBuf> {
    std::env::var_os("SCHEDSIM_TRACES").map(PathBuf::from)
}

#[test]
fn the_local_time_of_unix_start_time_is_the_headers_start_time() {
    let Some(dir) = traces() else {
        println!("skipped: SCHEDSIM_TRACES is not set");
        return;
    };
    let mut checked = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".swf.gz"))
        .collect();
    names.sort();
    for path in names {
        let workload = read_path(&path, &ReadOptions::lenient()).unwrap();
        let header = &workload.header;
        let (Some(calendar), Some(start)) =
            (Calendar::from_header(header).unwrap(), header.start_time())
        else {
            continue;
        };
        // "Mon Sep 23 14:00:31 CEST 1996": compare word by word (the archive
        // pads some fields with extra spaces).
        let expected: Vec<&str> = start.split_whitespace().collect();
        let ours = calendar.format(0);
        assert_eq!(
            ours.split_whitespace().collect::<Vec<_>>(),
            expected,
            "{}",
            path.display()
        );
        checked.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    println!("checked: {}", checked.join(", "));
    // KTH, LANL, NASA, RICC and the SDSC and HPC2N samples have both keys.
    assert_eq!(checked.len(), 6, "{checked:?}");
}

#[test]
fn kth_submissions_per_week_situation() {
    let Some(dir) = traces() else {
        println!("skipped: SCHEDSIM_TRACES is not set");
        return;
    };
    let workload = read_path(
        dir.join("KTH-SP2-1996-2.1-cln.swf.gz"),
        &ReadOptions::lenient(),
    )
    .unwrap();
    let calendar = Calendar::from_header(&workload.header).unwrap().unwrap();
    // Greedy-ES's situations: weekend; Monday to Friday 08:00 to before
    // 18:00 ("day"); the rest of a weekday ("night").
    let mut counts = [0u32; 3];
    for record in &workload.records {
        let Some(submit) = record.submit_time else {
            continue;
        };
        let local = calendar.local(submit as i64);
        let situation = if local.is_weekend() {
            0
        } else if (8..18).contains(&local.hour) {
            1
        } else {
            2
        };
        counts[situation] += 1;
    }
    // The counts (weekend / weekday 8-18 / weekday 18-8).
    assert_eq!(counts, [3_989, 19_031, 5_456]);
}

//! Slurm accounting import: the output of the real one-node Slurm that CI
//! starts (scripts/ci-slurm.sh), time zones, states and errors.
#![cfg(feature = "sacct")]

use workload_format::{JobStatus, SacctOptions, import_sacct};

/// `sacct -a -X -P -o ...` as the CI cluster printed it (2 CPUs): ci-a
/// takes both CPUs for 3 s, ci-b and ci-c wait for it.
const CI: &str = "\
JobIDRaw|Submit|Start|End|State|ExitCode|AllocCPUS|ReqCPUS|NNodes|Timelimit|ReqMem|User|Group|Account|Partition|QOS|JobName
1|2026-11-24T23:08:57|2026-11-24T23:08:59|2026-11-24T23:09:02|COMPLETED|0:0|2|2|1|00:01:00|1000M|root|root|root|ci|normal|ci-a
2|2026-11-24T23:08:57|2026-11-24T23:09:03|2026-11-24T23:09:04|COMPLETED|0:0|1|1|1|00:02:00|1000M|alice|staff|root|ci|normal|ci-b
3|2026-11-24T23:08:57|2026-11-24T23:09:03|2026-11-24T23:09:05|CANCELLED by 0|0:15|1|1|1|00:01:00|500Mc|root|root|root|debug|high|ci-c
4|2026-11-24T23:08:58|Unknown|Unknown|PENDING|0:0|0|1|1|UNLIMITED|1000M|root|root|root|ci|normal|ci-d
5|2026-11-24T23:08:58|None|2026-11-24T23:09:00|CANCELLED by 0|0:0|0|4|1|Partition_Limit|1000M|root|root|root|ci|normal|ci-e
";

#[test]
fn ci_cluster_accounting() {
    let mut options = SacctOptions::new();
    options.procs = Some(2);
    let import = import_sacct(CI.as_bytes(), "ci.sacct", &options).unwrap();
    let w = &import.workload;
    // Job 4 is still pending: left out. Job 5 was cancelled before it
    // started: kept without wait and run time.
    assert_eq!(import.summary.unfinished, 1);
    assert_eq!(import.summary.never_started, 1);
    assert_eq!(w.records.len(), 4);
    let row = |i: usize| {
        let r = &w.records[i];
        (
            r.job_number,
            r.submit_time,
            r.wait_time,
            r.run_time,
            r.allocated_processors,
            r.requested_processors,
            r.requested_time,
        )
    };
    // Submit 23:08:57 is time 0. Job 1: starts 2 s later, runs 3 s on 2
    // CPUs, limit 1 min. Jobs 2 and 3 wait 6 s (until job 1 ends) and run
    // 1 s and 2 s. Job 5 arrives at 1 s and never runs.
    assert_eq!(
        row(0),
        (1, Some(0), Some(2), Some(3), Some(2), Some(2), Some(60))
    );
    assert_eq!(
        row(1),
        (2, Some(0), Some(6), Some(1), Some(1), Some(1), Some(120))
    );
    assert_eq!(
        row(2),
        (3, Some(0), Some(6), Some(2), Some(1), Some(1), Some(60))
    );
    assert_eq!(row(3), (5, Some(1), None, None, None, Some(4), None));
    let statuses: Vec<_> = w.records.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            Some(JobStatus::Completed),
            Some(JobStatus::Completed),
            Some(JobStatus::Cancelled),
            Some(JobStatus::Cancelled)
        ]
    );
    // 1000M per node over 2 CPUs: 512,000 KB each; 500Mc: 512,000 KB.
    assert_eq!(w.records[0].requested_memory, Some(512_000));
    assert_eq!(w.records[1].requested_memory, Some(1_024_000));
    assert_eq!(w.records[2].requested_memory, Some(512_000));
    // Names numbered by first appearance.
    let ids: Vec<_> = w
        .records
        .iter()
        .map(|r| (r.user_id, r.group_id, r.queue_number, r.partition_number))
        .collect();
    assert_eq!(
        ids,
        [
            (Some(1), Some(1), Some(1), Some(1)),
            (Some(2), Some(2), Some(1), Some(1)),
            (Some(1), Some(1), Some(2), Some(2)),
            (Some(1), Some(1), Some(1), Some(1)),
        ]
    );
    let rows: Vec<_> = import.mapping.rows().collect();
    assert!(rows.contains(&("user", 2, "alice")));
    assert!(rows.contains(&("queue", 2, "high")));
    // The pending job 4 is left out before its names are numbered.
    assert!(rows.contains(&("executable", 4, "ci-e")));
    // 2026-11-24T23:08:57 UTC.
    assert_eq!(w.header.unix_start_time(), Some(1_795_561_737));
    assert_eq!(w.header.max_procs(), Some(2));
    assert_eq!(w.header.time_zone_string(), Some("UTC"));
    assert_eq!(w.header.get("Partitions"), Some("1=ci 2=debug"));
}

#[test]
fn timestamps_in_the_cluster_zone_across_daylight_saving() {
    // Berlin leaves summer time at 03:00 CEST on 2026-10-25 (back to
    // 02:00 CET): 01:30 CEST -> 03:30 CET is 3 h, not the 2 h of the
    // clock faces.
    let text = "JobIDRaw|Submit|Start|End|AllocCPUS\n\
                7|2026-10-25T01:30:00|2026-10-25T01:30:00|2026-10-25T03:30:00|1\n";
    let mut options = SacctOptions::new();
    options.time_zone = "Europe/Berlin".to_owned();
    let import = import_sacct(text.as_bytes(), "dst.sacct", &options).unwrap();
    assert_eq!(import.workload.records[0].run_time, Some(3 * 3600));
    // 01:30 CEST = 23:30 UTC the day before.
    assert_eq!(
        import.workload.header.unix_start_time(),
        Some(1_792_884_600)
    );
}

#[test]
fn the_repeated_hour_is_read_so_that_jobs_run_forward() {
    // On 2026-10-25 Berlin's clocks show 02:00-03:00 twice (CEST, then
    // CET). Started at 02:50 of the first (00:50 UTC) and ended at 02:10
    // of the second (01:10 UTC): 20 minutes. Taking both as the first
    // would end it 40 minutes before it started.
    let text = "JobIDRaw|Submit|Start|End|AllocCPUS\n\
                8|2026-10-25T02:40:00|2026-10-25T02:50:00|2026-10-25T02:10:00|1\n\
                9|2026-10-25T02:40:00|2026-10-25T02:50:00|2026-10-25T02:55:00|1\n";
    let mut options = SacctOptions::new();
    options.time_zone = "Europe/Berlin".to_owned();
    let import = import_sacct(text.as_bytes(), "fold.sacct", &options).unwrap();
    let records = &import.workload.records;
    assert_eq!(records[0].wait_time, Some(600));
    assert_eq!(records[0].run_time, Some(20 * 60));
    // Both readings of 02:55 are after 02:50 CEST: the earlier is taken.
    assert_eq!(records[1].run_time, Some(5 * 60));
    // A time the clocks skipped (02:30 on 2026-03-29, when 02:00 CET
    // became 03:00 CEST) is no sacct time of this zone.
    let gap = "JobIDRaw|Submit|Start|End|AllocCPUS\n\
               1|2026-03-29T02:30:00|2026-03-29T03:10:00|2026-03-29T03:30:00|1\n";
    assert_eq!(
        import_sacct(gap.as_bytes(), "gap.sacct", &options)
            .unwrap_err()
            .to_string(),
        "gap.sacct:2: Submit `2026-03-29T02:30:00`: no such local time in Europe/Berlin \
         (its clocks skip it when daylight saving time begins): is --time-zone the log's?"
    );
}

#[test]
fn errors_name_line_field_and_value() {
    let header = "JobIDRaw|Submit|Start|End|AllocCPUS\n";
    let error = |line: &str| {
        import_sacct(
            format!("{header}{line}\n").as_bytes(),
            "x.sacct",
            &SacctOptions::new(),
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        error("12.batch|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1"),
        "x.sacct:2: JobIDRaw `12.batch`: not a job number (a job step? pass -X to sacct)"
    );
    assert_eq!(
        error("12|yesterday|2026-01-01T00:00:00|2026-01-01T00:01:00|1"),
        "x.sacct:2: Submit `yesterday`: not a time like 2026-11-24T22:10:05"
    );
    assert_eq!(
        error("12|2026-01-01T00:00:10|2026-01-01T00:00:00|2026-01-01T00:01:00|1"),
        "x.sacct:2: Start `2026-01-01T00:00:00`: before the submit time"
    );
    // A `|` inside a value shifts the fields after it: refused.
    assert_eq!(
        error("12|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|x"),
        "x.sacct:2: line `12|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|x`: \
         6 fields where the header has 5 (a `|` inside a value? sacct cannot quote it)"
    );
    // Memory beyond 2^53 KB per processor (a u64 would saturate).
    let with_memory = |memory: &str| {
        import_sacct(
            format!(
                "JobIDRaw|Submit|Start|End|AllocCPUS|ReqMem\n\
                 12|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|{memory}\n"
            )
            .as_bytes(),
            "x.sacct",
            &SacctOptions::new(),
        )
    };
    assert_eq!(
        with_memory("99999999999999999999Tc")
            .unwrap_err()
            .to_string(),
        "x.sacct:2: ReqMem `99999999999999999999Tc`: more than 9007199254740992 KB (2^53) per processor"
    );
    // 2^43 GB per CPU is 2^63 KB: too much; 8 TB per CPU is 2^33 KB.
    assert!(with_memory("8796093022208Gc").is_err());
    assert_eq!(
        with_memory("8Tc").unwrap().workload.records[0].requested_memory,
        Some(1 << 33)
    );
    let missing = import_sacct(
        "JobID|Submit|End|AllocCPUS\n".as_bytes(),
        "x.sacct",
        &SacctOptions::new(),
    )
    .unwrap_err();
    assert_eq!(
        missing.to_string(),
        "x.sacct:1: the header has no Start field (run sacct -P -o JobIDRaw,Submit,Start,End,AllocCPUS,...)"
    );
    // Lenient: the bad line is skipped and counted.
    let mut lenient = SacctOptions::new();
    lenient.lenient = true;
    let text = format!(
        "{header}12.batch|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1\n\
         13|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|4\n"
    );
    let import = import_sacct(text.as_bytes(), "x.sacct", &lenient).unwrap();
    assert_eq!(import.summary.skipped, 1);
    assert_eq!(import.workload.records.len(), 1);
    let mut zone = SacctOptions::new();
    zone.time_zone = "Mars/Olympus".to_owned();
    assert_eq!(
        import_sacct(header.as_bytes(), "x.sacct", &zone)
            .unwrap_err()
            .to_string(),
        "unknown time zone `Mars/Olympus`"
    );
}

#[test]
fn unknown_states_repeated_columns_and_far_times() {
    let header = "JobIDRaw|Submit|Start|End|AllocCPUS|State\n";
    let line = |id: u32, state: &str| {
        format!("{id}|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|{state}\n")
    };
    let text = format!(
        "{header}{}{}{}",
        line(1, "WEIRD"),
        line(2, "RUNNING"),
        line(3, "Odd")
    );
    // Strict: the first State that is not Slurm's is refused, named.
    let error = import_sacct(text.as_bytes(), "x.sacct", &SacctOptions::new())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("x.sacct:2: State `WEIRD`: not a Slurm job state (one of BOOT_FAIL, "),
        "{error}"
    );
    assert!(error.contains(", TIMEOUT); read leniently"), "{error}");
    // Lenient: all three jobs kept with status unknown; WEIRD and Odd
    // (lines 2 and 4) counted, RUNNING is Slurm's.
    let mut lenient = SacctOptions::new();
    lenient.lenient = true;
    let import = import_sacct(text.as_bytes(), "x.sacct", &lenient).unwrap();
    assert_eq!(import.workload.records.len(), 3);
    assert!(import.workload.records.iter().all(|r| r.status.is_none()));
    assert_eq!(import.summary.unknown_states, 2);
    assert_eq!(
        import.summary.first_unknown_state,
        Some((2, "WEIRD".to_owned()))
    );
    assert_eq!(import.summary.skipped, 0);

    // A column named twice (in any case) is refused, with both places.
    let repeated = "JobIDRaw|Submit|Start|End|AllocCPUS|jobidraw\n";
    assert_eq!(
        import_sacct(repeated.as_bytes(), "x.sacct", &SacctOptions::new())
            .unwrap_err()
            .to_string(),
        "x.sacct:1: the header names jobidraw twice (columns 1 and 6)"
    );

    // The last readable second is 9999-12-30T22:00:00 UTC; the next one is
    // refused with the range, not the time library's words.
    let far = |end: &str| {
        import_sacct(
            format!("{header}1|2026-01-01T00:00:00|2026-01-01T00:00:00|{end}|1|COMPLETED\n")
                .as_bytes(),
            "x.sacct",
            &SacctOptions::new(),
        )
    };
    let kept = far("9999-12-30T22:00:00").unwrap();
    // Run time 253402207200 - 1767225600 (2026-01-01T00:00:00) s.
    assert_eq!(kept.workload.records[0].run_time, Some(251_634_981_600));
    assert_eq!(
        far("9999-12-31T23:59:59").unwrap_err().to_string(),
        "x.sacct:2: End `9999-12-31T23:59:59`: outside the times that can be read, \
         -009999-01-02T01:59:59 to 9999-12-30T22:00:00 UTC"
    );
}

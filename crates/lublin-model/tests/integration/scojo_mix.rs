//! The SCOJO-PECT thesis's synthetic workloads (Table 5): the Lublin
//! model on 128 processors, 10,000 jobs, classes short (< 10 min), medium
//! (< 3 h) and long. Its generator's seeds (71, 31, 73, 35, 7) cannot be
//! replayed here; the model's **typeless** stream with its published
//! parameters, arrivals scaled to an offered load of 0.81, gives the
//! table's mix. The thesis's seeds 31, 35 and 73 give a mix within the
//! table's bands here, 71 (17.5% long jobs) and 7 (long jobs of 21.6
//! processors on average) just outside; the experiments use 31, 35, 73 and
//! the first two seeds within the bands, 2 and 3. This test checks those
//! five.
//!
//! The bands are the table's ranges over its five seeds, widened by half
//! its last printed digit (its values are rounded): jobs short / medium /
//! long 63-65 / 19-20 / 16-17% (+-0.5), work 0.4-0.5 (+-0.05) / 25-27 /
//! 72.5-74.5% (+-0.5), mean sizes 8-9 / 16-18 / 19-21 (+-0.5), mean
//! inter-arrival time 797-859 s (as printed).

use lublin_model::{LublinGenerator, LublinParams};

/// The seeds of `experiments/scojo-*.toml`.
const SEEDS: [u64; 5] = [31, 35, 73, 2, 3];

/// The offered load that puts the mean inter-arrival time in Table 5's
/// range.
const LOAD: f64 = 0.81;

#[test]
fn typeless_lublin_matches_table5() {
    for seed in SEEDS {
        let params = LublinParams::for_machine(128).job_types(false).load(LOAD);
        let records = LublinGenerator::new(params, seed).unwrap().generate(10_000);
        assert_eq!(records.len(), 10_000);
        let mut jobs = [0.0f64; 3];
        let mut work = [0.0f64; 3];
        let mut size = [0.0f64; 3];
        let mut submits = Vec::new();
        for r in &records {
            let runtime = r.run_time.unwrap() as f64;
            let procs = r.allocated_processors.unwrap() as f64;
            let class = if runtime < 600.0 {
                0
            } else if runtime < 10_800.0 {
                1
            } else {
                2
            };
            jobs[class] += 1.0;
            work[class] += runtime * procs;
            size[class] += procs;
            submits.push(r.submit_time.unwrap());
        }
        let n: f64 = jobs.iter().sum();
        let w: f64 = work.iter().sum();
        let first = *submits.iter().min().unwrap();
        let last = *submits.iter().max().unwrap();
        let inter_arrival = (last - first) as f64 / (n - 1.0);
        let checks = [
            ("short jobs %", 100.0 * jobs[0] / n, 63.0, 65.0, 0.5),
            ("medium jobs %", 100.0 * jobs[1] / n, 19.0, 20.0, 0.5),
            ("long jobs %", 100.0 * jobs[2] / n, 16.0, 17.0, 0.5),
            ("short work %", 100.0 * work[0] / w, 0.4, 0.5, 0.05),
            ("medium work %", 100.0 * work[1] / w, 25.0, 27.0, 0.5),
            ("long work %", 100.0 * work[2] / w, 72.5, 74.5, 0.5),
            ("short mean size", size[0] / jobs[0], 8.0, 9.0, 0.5),
            ("medium mean size", size[1] / jobs[1], 16.0, 18.0, 0.5),
            ("long mean size", size[2] / jobs[2], 19.0, 21.0, 0.5),
            ("mean inter-arrival s", inter_arrival, 797.0, 859.0, 0.0),
        ];
        for (name, value, low, high, slack) in checks {
            assert!(
                value >= low - slack && value < high + slack,
                "seed {seed}: {name} {value:.2} outside {low}-{high} (+-{slack})"
            );
        }
    }
}

/// The thesis's real trace (Table 6): LANL CM-5's first 10,000 jobs with a
/// runtime and a size have Table 6's class mix (jobs 61.5 / 34 / 4.5%, work
/// 2 / 41 / 57%, mean sizes 74 / 92 / 244), within half the last printed
/// digit (short jobs within 0.1: 61.44; mean sizes within 1: 74.4 / 92.7 /
/// 244.8): the thesis used that prefix
/// (`experiments/scojo-lanl.toml`). Skipped without SCHEDSIM_TRACES.
#[test]
fn lanl_prefix_matches_table6() {
    let Some(dir) = std::env::var_os("SCHEDSIM_TRACES") else {
        println!("skipped: SCHEDSIM_TRACES not set");
        return;
    };
    let path = std::path::Path::new(&dir).join("LANL-CM5-1994-4.1-cln.swf.gz");
    let workload = workload_format::read_path(&path, &workload_format::ReadOptions::lenient())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut jobs = [0.0f64; 3];
    let mut work = [0.0f64; 3];
    let mut size = [0.0f64; 3];
    let mut taken = 0;
    for r in &workload.records {
        let (Some(runtime), Some(procs)) = (r.run_time, r.allocated_processors) else {
            continue;
        };
        if procs == 0 {
            continue;
        }
        let class = if runtime < 600 {
            0
        } else if runtime < 10_800 {
            1
        } else {
            2
        };
        jobs[class] += 1.0;
        work[class] += (runtime * procs) as f64;
        size[class] += procs as f64;
        taken += 1;
        if taken == 10_000 {
            break;
        }
    }
    assert_eq!(taken, 10_000);
    let n: f64 = jobs.iter().sum();
    let w: f64 = work.iter().sum();
    let checks = [
        ("short jobs %", 100.0 * jobs[0] / n, 61.5, 0.1),
        ("medium jobs %", 100.0 * jobs[1] / n, 34.0, 0.5),
        ("long jobs %", 100.0 * jobs[2] / n, 4.5, 0.5),
        ("short work %", 100.0 * work[0] / w, 2.0, 0.5),
        ("medium work %", 100.0 * work[1] / w, 41.0, 0.5),
        ("long work %", 100.0 * work[2] / w, 57.0, 0.5),
        ("short mean size", size[0] / jobs[0], 74.0, 1.0),
        ("medium mean size", size[1] / jobs[1], 92.0, 1.0),
        ("long mean size", size[2] / jobs[2], 244.0, 1.0),
    ];
    for (name, value, table, slack) in checks {
        assert!(
            (value - table).abs() <= slack,
            "{name} {value:.2}, Table 6: {table} (+-{slack})"
        );
    }
}

//! The hand-made scheduler scenarios of pyss (shared/golden/pyss): 100
//! processors, and every job's expected finish time is its id's integer
//! part. Read from `$SCHEDSIM_GOLDEN` or `$SCHEDSIM_TRACES/../golden`.

use std::path::PathBuf;

use schedsim_policies::{PolicySpec, build_policy};
use schedsim_sim_core::{
    EventOrder, Invocation, Job, JobId, JobModel, JobSet, SimOptions, simulate_with,
};

fn golden_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SCHEDSIM_GOLDEN") {
        return Some(PathBuf::from(dir).join("pyss"));
    }
    let traces = std::env::var_os("SCHEDSIM_TRACES")?;
    Some(PathBuf::from(traces).join("../golden/pyss"))
}

/// One pyss scenario: jobs and, per job, the expected finish time.
struct Scenario {
    jobs: JobSet,
    expected: Vec<(String, i64)>,
}

/// Reads a pyss input file: `submit id estimate procs actual admin_qos
/// user_qos user`. Like pyss's loader, jobs with estimate < actual, a
/// negative submit time, no processors or a negative runtime are dropped.
fn load(name: &str) -> Scenario {
    let path = golden_dir().unwrap().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut jobs = Vec::new();
    let mut ids = Vec::new();
    for (line_number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| -> i64 {
            fields[i].parse::<f64>().unwrap_or_else(|_| {
                panic!(
                    "{name}:{}: field {} is not a number",
                    line_number + 1,
                    i + 1
                )
            }) as i64
        };
        let (submit, estimate, procs, actual) = (number(0), number(2), number(3), number(4));
        if estimate < actual || submit < 0 || procs <= 0 || actual < 0 {
            continue;
        }
        let index = jobs.len();
        jobs.push(Job::new(
            index as u64,
            submit,
            procs as u32,
            estimate.max(1),
            actual,
        ));
        ids.push(fields[1].to_owned());
    }
    // JobSet sorts by submit time, stably: keep the ids in that order.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit);
    let expected = order
        .iter()
        .map(|&i| {
            let id = ids[i].clone();
            let finish = id.parse::<f64>().expect("pyss ids are numbers") as i64;
            (id, finish)
        })
        .collect();
    Scenario {
        jobs: JobSet::from_jobs(jobs, &JobModel::new(100)).unwrap(),
        expected,
    }
}

/// Runs `policy` on every named file and returns the mismatches.
fn check(policy: &str, files: &[String]) -> Vec<String> {
    check_with(policy, files, &SimOptions::default())
}

/// The same with explicit simulation options.
fn check_with(policy: &str, files: &[String], options: &SimOptions) -> Vec<String> {
    let mut problems = Vec::new();
    for name in files {
        let scenario = load(name);
        let spec: PolicySpec = policy.parse().unwrap();
        let mut policy = build_policy(&spec).unwrap();
        let schedule = simulate_with(&scenario.jobs, &mut policy, options).unwrap();
        for (index, (id, expected)) in scenario.expected.iter().enumerate() {
            let end = schedule.end(JobId(index as u32));
            if end != *expected {
                problems.push(format!(
                    "{name}: job {id} finished at {end}, expected {expected}"
                ));
            }
        }
    }
    problems
}

fn files(prefix: &str, range: std::ops::RangeInclusive<u32>) -> Vec<String> {
    range.map(|i| format!("{prefix}.{i}")).collect()
}

macro_rules! golden {
    ($test:ident, $policy:expr, $($prefix:expr => $range:expr),+ $(,)?) => {
        golden!($test, $policy, SimOptions::default(), $($prefix => $range),+);
    };
    ($test:ident, $policy:expr, $options:expr, $($prefix:expr => $range:expr),+ $(,)?) => {
        #[test]
        fn $test() {
            if golden_dir().is_none() {
                println!("skipped: neither SCHEDSIM_GOLDEN nor SCHEDSIM_TRACES is set");
                return;
            }
            let mut names = Vec::new();
            $(names.extend(files($prefix, $range));)+
            let problems = check_with($policy, &names, &$options);
            assert!(problems.is_empty(), "{} mismatches:\n{}", problems.len(), problems.join("\n"));
        }
    };
}

/// The scheduler called after every event, arrivals before ends, the ends
/// of one instant as one event (pyss, which plans with processor counts:
/// jobs ending at one instant free their processors together).
fn per_event_arrivals_first() -> SimOptions {
    SimOptions::default()
        .with_invocation(Invocation::PerEvent)
        .with_event_order(EventOrder::ArrivalsFirst)
        .with_simultaneous_ends(schedsim_sim_core::SimultaneousEnds::Together)
}

/// The scheduler called after every single event, ends before arrivals,
/// each end an event of its own.
fn per_event_ends_first() -> SimOptions {
    SimOptions::default().with_invocation(Invocation::PerEvent)
}

golden!(fcfs_basic, "fcfs", "basic_input" => 0..=28, "extreme_input" => 0..=1);
golden!(fcfs, "fcfs", "fcfs_input" => 0..=7);
golden!(conservative_basic, "conservative", "basic_input" => 0..=28, "extreme_input" => 0..=1);
golden!(conservative, "conservative", "bf_input" => 0..=8, "cons_bf_input" => 0..=1);
golden!(easy_basic, "easy", "basic_input" => 0..=28, "extreme_input" => 0..=2);
golden!(easy, "easy", "bf_input" => 0..=8, "easy_bf_input" => 0..=3);

// Per event, as pyss runs its schedulers: the same answers.
golden!(fcfs_per_event, "fcfs", per_event_arrivals_first(), "basic_input" => 0..=28, "extreme_input" => 0..=1, "fcfs_input" => 0..=7);
golden!(conservative_per_event, "conservative", per_event_arrivals_first(), "basic_input" => 0..=28, "extreme_input" => 0..=1, "bf_input" => 0..=8, "cons_bf_input" => 0..=1);
golden!(easy_per_event, "easy", per_event_arrivals_first(), "basic_input" => 0..=28, "extreme_input" => 0..=2, "bf_input" => 0..=8, "easy_bf_input" => 0..=3);
golden!(conservative_per_event_ends_first, "conservative", per_event_ends_first(), "basic_input" => 0..=28, "extreme_input" => 0..=1, "bf_input" => 0..=2, "bf_input" => 4..=8, "cons_bf_input" => 0..=1);

#[test]
fn separate_simultaneous_ends_change_conservative_exactly_in_bf_input_3() {
    if golden_dir().is_none() {
        println!("skipped: neither SCHEDSIM_GOLDEN nor SCHEDSIM_TRACES is set");
        return;
    }
    // bf_input.3: six 15-processor jobs run 0..100 (their estimates), 200.0
    // (60 procs) is reserved at 100 and 300 (99 procs) at 200. At 100, with
    // each end its own event, the first end leaves five jobs holding their
    // processors past their estimates (expected to end at 101), so 200.0's
    // reservation at 100 no longer fits and is placed anew after 300's,
    // which then compresses to 101: 300 runs 101..201 and 200.0 201..301.
    // pyss frees all six together and expects 200.0 at 100.
    let problems = check_with(
        "conservative",
        &files("bf_input", 3..=3),
        &per_event_ends_first(),
    );
    assert_eq!(
        problems,
        [
            "bf_input.3: job 200.0 finished at 301, expected 200",
            "bf_input.3: job 300 finished at 201, expected 300",
            "bf_input.3: job 301 finished at 302, expected 301"
        ]
    );
}
golden!(easy_per_event_ends_first, "easy", per_event_ends_first(), "basic_input" => 0..=28, "extreme_input" => 0..=2, "bf_input" => 0..=8, "easy_bf_input" => 0..=3);

#[test]
fn the_check_detects_a_wrong_scheduler() {
    if golden_dir().is_none() {
        println!("skipped: neither SCHEDSIM_GOLDEN nor SCHEDSIM_TRACES is set");
        return;
    }
    // bf_input.3 needs backfilling: its 16.x jobs start at 6 only because
    // they backfill; under FCFS they wait, so the check must report them.
    let problems = check("fcfs", &files("bf_input", 3..=3));
    assert!(
        problems.iter().any(|p| p.contains("job 16.1 ")),
        "{problems:?}"
    );
}

// LOS. pyss's look-ahead scheduler fills its DP table with `if U1 <= U2`,
// i.e. on equal utilization it keeps the later job: that is the thesis'
// selected-first traceback (Algorithm 5), and the look_ahead scenarios are
// written for it ("the tie breaking rule ... prefers jobs submitted late").
// With it, all fourteen agree.
golden!(los_selected_first_look_ahead, "los:traceback=selected-first", "look_ahead" => 0..=13);
// The thesis' default, bypassed-first (Algorithm 4), agrees wherever no tie
// between equally good sets arises. In look_ahead.4 and 8-13 two sets use
// the same processors and bypassed-first starts the one nearer the queue
// head (e.g. look_ahead.4: jobs 30 and 20 both fit 10 processors; pyss
// expects the later job 20 first, the thesis' default the earlier job 30).
// Both readings are the thesis'; the scenarios encode pyss's.
golden!(los_bypassed_first_look_ahead, "los", "look_ahead" => 0..=3, "look_ahead" => 5..=7);
golden!(los_basic, "los", "basic_input" => 0..=14, "extreme_input" => 0..=1);

#[test]
fn bypassed_first_differs_exactly_where_pyss_breaks_ties_the_other_way() {
    if golden_dir().is_none() {
        println!("skipped: neither SCHEDSIM_GOLDEN nor SCHEDSIM_TRACES is set");
        return;
    }
    // look_ahead.4: 100 processors, 90 busy until 600. At 10 the head (100
    // procs) waits for 600; jobs 30 and 20 (10 procs, 10 s each) both fit
    // the 10 free processors and end before 600. Bypassed-first starts the
    // earlier one (id 30) at 10, finishing at 20, then id 20 at 20 -> 30.
    let problems = check("los", &files("look_ahead", 4..=4));
    assert_eq!(
        problems,
        [
            "look_ahead.4: job 30 finished at 20, expected 30",
            "look_ahead.4: job 20 finished at 30, expected 20"
        ]
    );
}

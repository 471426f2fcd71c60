//! Every registered policy under every invocation mode: valid schedules,
//! deterministic, and the steppable engine driven by hand equals
//! `simulate_with`.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use schedsim_policies::{POLICIES, PolicySpec, build_policy};
use schedsim_sim_core::{
    Decisions, EventOrder, Invocation, Job, JobId, JobModel, JobSet, SimOptions, Simulation,
    SimultaneousEnds, Time, simulate_with,
};

const PROCS: u32 = 16;

/// Random jobs, some dedicated (a requested start), on 16 processors.
fn workload() -> impl Strategy<Value = JobSet> {
    prop::collection::vec(
        (0..100i64, 1..=PROCS, 0..30i64, 0..40i64, 0..4u8, 0..50i64),
        1..20,
    )
    .prop_map(|specs| {
        let jobs = specs
            .into_iter()
            .enumerate()
            .map(|(i, (submit, size, runtime, slack, kind, delay))| {
                let job = Job::new(i as u64, submit, size, (runtime + slack).max(1), runtime);
                if kind == 0 {
                    job.with_requested_start(submit + delay)
                } else {
                    job
                }
            })
            .collect();
        JobSet::from_jobs(jobs, &JobModel::new(PROCS)).unwrap()
    })
}

/// A Greedy parameter file with a criterion whose order changes as jobs
/// wait (f1, f3) and one whose does not (f4), written once per process.
fn greedy_params() -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("schedsim-invocation-{}.json", std::process::id()));
    let criterion = |name: &str, b: f64| {
        format!(
            r#"{{"criterion":"{name}","a":0.5,"b":{b},"w":[1,0.5,0.2,0.7,0.1],"k":[0,1,5,2,0]}}"#
        )
    };
    std::fs::write(
        &path,
        format!(
            r#"{{"weekend":{},"weekday_day":{},"weekday_night":{}}}"#,
            criterion("f1", 0.3),
            criterion("f3", 0.0),
            criterion("f4", 0.9)
        ),
    )
    .unwrap();
    path
}

fn modes() -> Vec<SimOptions> {
    let mut modes = vec![SimOptions::default()];
    for order in [EventOrder::EndsFirst, EventOrder::ArrivalsFirst] {
        for ends in [SimultaneousEnds::Separate, SimultaneousEnds::Together] {
            modes.push(
                SimOptions::default()
                    .with_invocation(Invocation::PerEvent)
                    .with_event_order(order)
                    .with_simultaneous_ends(ends),
            );
        }
    }
    modes
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_policy_runs_in_every_mode(jobs in workload()) {
        // `backfill` needs its depth, `greedy` its parameter file; EASY-D
        // and LOS-D also run with the paper's dedicated-job mechanism.
        let names = POLICIES
            .iter()
            .map(|info| match info.name {
                "backfill" => "backfill:depth=3".to_owned(),
                "greedy" => format!("greedy:params={}", greedy_params().display()),
                name => name.to_owned(),
            })
            .chain(["easy-d:dedicated=head", "los-de:dedicated=head-all", "los-d:dedicated=head-literal"].map(str::to_owned));
        for name in names {
            let spec: PolicySpec = name.parse().unwrap();
            for options in modes() {
                let run = || {
                    let mut policy = build_policy(&spec).unwrap();
                    simulate_with(&jobs, &mut policy, &options)
                };
                let schedule = run().map_err(|e| {
                    TestCaseError::fail(format!("{} {:?}: {e}", name, options))
                })?;
                // Capacity and submission, from the schedule alone.
                let mut changes: Vec<(Time, i64)> = Vec::new();
                for (index, job) in jobs.jobs().iter().enumerate() {
                    let id = JobId(index as u32);
                    prop_assert!(schedule.start(id) >= job.submit, "{}", name);
                    changes.push((schedule.start(id), i64::from(job.size)));
                    changes.push((schedule.end(id), -i64::from(job.size)));
                }
                changes.sort_unstable();
                let mut used = 0;
                for (_, delta) in changes {
                    used += delta;
                    prop_assert!(used <= i64::from(PROCS), "{} over capacity", name);
                }
                prop_assert_eq!(run().unwrap(), schedule, "{} is not deterministic", name);
            }
        }
    }

    #[test]
    fn the_steppable_engine_equals_simulate(jobs in workload()) {
        for name in ["easy", "conservative", "los", "hybrid-los", "easy-d", "los-d:dedicated=head"] {
            let spec: PolicySpec = name.parse().unwrap();
            for options in modes() {
                let mut policy = build_policy(&spec).unwrap();
                let expected = simulate_with(&jobs, &mut policy, &options).unwrap();
                let mut policy = build_policy(&spec).unwrap();
                let mut simulation =
                    Simulation::new(&jobs, &options, policy.name(), policy.capabilities());
                let mut decisions = Decisions::new();
                while simulation.advance() {
                    decisions.clear();
                    policy.schedule(&simulation.view(), &mut decisions);
                    simulation.apply(&decisions).unwrap();
                }
                prop_assert_eq!(simulation.finish().unwrap(), expected, "{}", name);
            }
        }
    }
}

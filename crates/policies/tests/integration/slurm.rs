//! Slurm's multifactor priority and backfill: hand-computed priorities and
//! schedules.

use schedsim_policies::{
    Backfill, BackfillConf, Depth, Multifactor, MultifactorConfig, PolicySpec, PriorityConf,
    QueueOrder, SharesFile, SlurmBackfill, build_policy,
};
use schedsim_sim_core::{Job, JobId, JobModel, JobSet, View, ViewStorage, simulate};

fn priority_conf(edit: impl FnOnce(&mut PriorityConf)) -> PriorityConf {
    let mut conf = PriorityConf::default();
    conf.flags.no_fair_tree = true;
    edit(&mut conf);
    conf
}

#[test]
fn age_factor_grows_to_max_age() {
    // PriorityWeightAge=1000, PriorityMaxAge=1000 s. A job submitted at 0:
    // at 300 its age factor is 300/1000 = 0.3, priority 0.3 * 1000 = 300;
    // at 1000 and after it is capped at 1, priority 1000. At its
    // submission the factor is 0 and the priority 1 (Slurm's floor: 0
    // means held).
    let config = MultifactorConfig::new(
        priority_conf(|c| {
            c.weight_age = 1000;
            c.max_age = 1000;
        }),
        SharesFile::default(),
    );
    let engine = Multifactor::new(config);
    let jobs = [Job::new(1, 0, 1, 10, 10)];
    let queue = [JobId(0)];
    let mut storage = ViewStorage::default();
    let view = View::new(300, 4, &jobs, &queue, &[], &mut storage);
    assert_eq!(engine.compute(&view, JobId(0), 0), 1);
    assert_eq!(engine.compute(&view, JobId(0), 300), 300);
    assert_eq!(engine.compute(&view, JobId(0), 1000), 1000);
    assert_eq!(engine.compute(&view, JobId(0), 5000), 1000);
    assert!((engine.factors(&view, JobId(0), 300).age - 0.3).abs() < 1e-12);
}

#[test]
fn job_size_factor_favours_large_or_small() {
    // 100 processors, one per node (N = C = 100). A 25-processor job:
    // favour large (25/100 + 25/100) / 2 = 0.25, priority 250 with weight
    // 1000; PriorityFavorSmall=YES: (75/100 + 75/100) / 2 = 0.75, 750.
    let jobs = [Job::new(1, 0, 25, 10, 10), Job::new(2, 0, 10, 120, 120)];
    let queue = [JobId(0), JobId(1)];
    let mut storage = ViewStorage::default();
    let view = View::new(0, 100, &jobs, &queue, &[], &mut storage);
    let engine = |favor_small: bool, cpus_per_node: u32, relative: bool| {
        Multifactor::new(
            MultifactorConfig::new(
                priority_conf(|c| {
                    c.weight_job_size = 1000;
                    c.favor_small = favor_small;
                    c.flags.small_relative_to_time = relative;
                }),
                SharesFile::default(),
            )
            .with_cpus_per_node(cpus_per_node),
        )
    };
    assert_eq!(engine(false, 1, false).compute(&view, JobId(0), 0), 250);
    assert_eq!(engine(true, 1, false).compute(&view, JobId(0), 0), 750);
    // 4 processors per node: N = 25 nodes; a 10-processor job needs
    // ceil(10/4) = 3 nodes: (3/25 + 10/100) / 2 = (0.12 + 0.1) / 2 = 0.11,
    // priority 110.
    assert_eq!(engine(false, 4, false).compute(&view, JobId(1), 0), 110);
    // SMALL_RELATIVE_TO_TIME: max(3 * 100/25, 10) = 12 processors over a
    // 2-minute limit over 100 processors: 12 / 2 / 100 = 0.06, priority 60;
    // favouring small jobs 1 - 0.06 = 0.94, priority 940.
    assert_eq!(engine(false, 4, true).compute(&view, JobId(1), 0), 60);
    assert_eq!(engine(true, 4, true).compute(&view, JobId(1), 0), 940);
}

#[test]
fn fairshare_decays_over_two_half_lives() {
    // Two users under root, 1 share each: normalized shares S = 1/2 each.
    // PriorityDecayHalfLife = 1000 s, PriorityCalcPeriod = 100 s, Slurm's
    // per-second decay factor d = 1 - 0.693/1000 = 0.999307.
    // - Job 1 (user 1, 1 processor) runs [0, 100): at its end Slurm adds
    //   delta * d^delta * cpus = 100 * d^100 (`_apply_new_usage`), then the
    //   periods at 100, 200, ..., 2100 (21 of them) each multiply all usage
    //   by d^100: U1 = 100 d^100 d^2100.
    // - Job 2 (user 2) runs [2000, 2100): 100 d^100 at its end, then the
    //   period at 2100 decays it once: U2 = 100 d^100 d^100.
    // - Job 3 (user 1) arrives at 2100, when both are known.
    // U1 / U2 = d^2000 = 0.249953: two half-lives, 1/4 (not exactly, as
    // Slurm's 0.693 stands for ln 2 and 1 - x for e^-x).
    // Normalized usage (over root's, U1 + U2): 0.199970 and 0.800030.
    // Fair-share factors 2^(-U/S): 2^(-0.399940) = 0.757890 and
    // 2^(-1.600060) = 0.329863. Job 3's priority with
    // PriorityWeightFairshare = 10000: floor(7578.90) = 7578.
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 1, 100, 100).with_user(1),
            Job::new(2, 2000, 1, 100, 100).with_user(2),
            Job::new(3, 2100, 2, 100, 100).with_user(1),
        ],
        &JobModel::new(2),
    )
    .unwrap();
    let config = MultifactorConfig::new(
        priority_conf(|c| {
            c.weight_fairshare = 10_000;
            c.decay_half_life = 1000;
            c.calc_period = 100;
        }),
        SharesFile::default(),
    );
    let mut policy = SlurmBackfill::new(config, BackfillConf::default());
    simulate(&jobs, &mut policy).unwrap();
    let engine = policy.multifactor();
    let d: f64 = 1.0 - 0.693 / 1000.0;
    let u1 = engine.user_usage(1).unwrap();
    let u2 = engine.user_usage(2).unwrap();
    assert!(
        (u1 - 100.0 * d.powi(100) * d.powi(2100)).abs() < 1e-9,
        "{u1}"
    );
    assert!((u2 - 100.0 * d.powi(200)).abs() < 1e-9, "{u2}");
    assert!((u1 / u2 - 0.249953).abs() < 1e-6);
    assert!((engine.user_fairshare(1).unwrap() - 0.757890).abs() < 1e-6);
    assert!((engine.user_fairshare(2).unwrap() - 0.329863).abs() < 1e-6);
    assert_eq!(engine.priority(JobId(2)), 7578);
}

#[test]
fn an_idle_gap_of_millions_of_years_passes_at_once() {
    // Job 1 (user 1) runs [0, 100) on 1 of 2 processors; job 2 (user 2)
    // arrives 2^52 s later. With PriorityCalcPeriod = 100 s that is 4.5e13
    // periods: stepped one by one they took days. Once user 1's usage has
    // decayed to zero (half-life 1000 s: d^100 = 0.933 a period, below the
    // smallest float after about 10,000 periods) and nothing runs, the rest
    // pass at once; without decay (half-life 0) nothing changes in them.
    let gap: i64 = 1 << 52;
    for (half_life, usage_after) in [(1000, 0.0), (0, 100.0)] {
        let jobs = JobSet::from_jobs(
            vec![
                Job::new(1, 0, 1, 100, 100).with_user(1),
                Job::new(2, gap, 1, 100, 100).with_user(2),
            ],
            &JobModel::new(2),
        )
        .unwrap();
        let config = MultifactorConfig::new(
            priority_conf(|c| {
                c.weight_fairshare = 10_000;
                c.decay_half_life = half_life;
                c.calc_period = 100;
            }),
            SharesFile::default(),
        );
        let mut policy = SlurmBackfill::new(config, BackfillConf::default());
        let schedule = simulate(&jobs, &mut policy).unwrap();
        assert_eq!(schedule.start(JobId(1)), gap);
        // Without decay job 1's usage is its 100 processor-seconds.
        assert_eq!(policy.multifactor().user_usage(1), Some(usage_after));
    }
}

#[test]
fn classic_fairshare_in_an_account_tree() {
    // Accounts a (3 shares) and b (1 share) under root; users 1 and 2 in a
    // (1 share each), user 3 in b. S1 = S2 = 3/4 * 1/2 = 0.375, S3 = 0.25.
    // Only user 1 has run (100 processor-seconds; no decay): normalized
    // usage UA1 = 1, UA(a) = 1, UA2 = 0, UA3 = UA(b) = 0.
    // Effective usage (classic): a is a child of root, UE(a) = 1; user 1:
    // UE = UA1 + (UE(a) - UA1) * 1/2 = 1; user 2: 0 + (1 - 0) * 1/2 = 0.5;
    // user 3: UE(b) = 0 and 0 + (0 - 0) * 1 = 0.
    // F1 = 2^(-1/0.375) = 0.157490, F2 = 2^(-0.5/0.375) = 0.396850, F3 = 1
    // (at 100, when jobs 2 and 3 arrive).
    let shares = SharesFile::parse(
        "account a shares=3\naccount b shares=1\nuser 1 account=a shares=1\n\
         user 2 account=a shares=1\nuser 3 account=b shares=1\n",
        "shares",
    )
    .unwrap();
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 1, 100, 100).with_user(1),
            Job::new(2, 100, 1, 10, 10).with_user(2),
            Job::new(3, 100, 1, 10, 10).with_user(3),
        ],
        &JobModel::new(1),
    )
    .unwrap();
    let config = MultifactorConfig::new(
        priority_conf(|c| {
            c.weight_fairshare = 1000;
            c.decay_half_life = 0;
            c.calc_period = 100;
        }),
        shares,
    );
    let mut policy = SlurmBackfill::new(config, BackfillConf::default());
    let schedule = simulate(&jobs, &mut policy).unwrap();
    let engine = policy.multifactor();
    // Priorities at the arrival at 100: floor(0.396850 * 1000) = 396 for
    // user 2 and 1000 for user 3: job 3 runs first.
    assert_eq!(engine.priority(JobId(1)), 396);
    assert_eq!(engine.priority(JobId(2)), 1000);
    // The last call is the calc period at 200 (asked for at 100 while jobs
    // waited), after job 3 (user 3) and job 2 (user 2) each used 10
    // processor-seconds: U1 = 100, U2 = 10, U3 = 10, root 120. UA1 = 5/6,
    // UA2 = 1/12, UA(a) = 11/12, UA3 = UA(b) = 1/12.
    // UE1 = 5/6 + (11/12 - 5/6) * 1/2 = 0.875, F1 = 2^(-0.875/0.375) = 0.198425;
    // UE2 = 1/12 + (11/12 - 1/12) * 1/2 = 0.5, F2 = 2^(-0.5/0.375) = 0.396850;
    // UE3 = 1/12, F3 = 2^(-(1/12)/0.25) = 2^(-1/3) = 0.793701.
    assert!((engine.user_fairshare(1).unwrap() - 0.198425).abs() < 1e-6);
    assert!((engine.user_fairshare(2).unwrap() - 0.396850).abs() < 1e-6);
    assert!((engine.user_fairshare(3).unwrap() - 0.793701).abs() < 1e-6);
    assert_eq!(schedule.starts(), [0, 110, 100]);
}

#[test]
fn easy_with_multifactor_order_and_the_spec() {
    // 4 processors; job 1 holds all 4 until 100. Jobs 2 (4 processors) and
    // 3 (1 processor) wait. PriorityFavorSmall with size weight 1000: job 2
    // has (0/4 + 0/4)/2 = 0 -> priority 1, job 3 (3/4 + 3/4)/2 = 0.75 ->
    // 750. Job 3 goes first at 100, job 2 after it at 110. Under FCFS
    // order job 2 would start at 100 and job 3 at 200.
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 4, 100, 100),
            Job::new(2, 1, 4, 100, 100),
            Job::new(3, 2, 1, 10, 10),
        ],
        &JobModel::new(4),
    )
    .unwrap();
    let config = MultifactorConfig::new(
        priority_conf(|c| {
            c.weight_job_size = 1000;
            c.favor_small = true;
        }),
        SharesFile::default(),
    );
    let mut easy = Backfill::new(QueueOrder::Fcfs, Depth::Jobs(1)).with_multifactor(config);
    assert_eq!(easy.order(), QueueOrder::Multifactor);
    assert_eq!(simulate(&jobs, &mut easy).unwrap().starts(), [0, 110, 100]);
    assert_eq!(easy.multifactor().unwrap().priority(JobId(2)), 750);
    let mut fcfs = build_policy(&"easy".parse::<PolicySpec>().unwrap()).unwrap();
    assert_eq!(simulate(&jobs, &mut fcfs).unwrap().starts(), [0, 100, 200]);
    // The same through a spec with a slurm.conf.
    let dir = std::env::temp_dir().join(format!("schedsim-slurm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        "PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\nPriorityFavorSmall=YES\n",
    )
    .unwrap();
    let spec: PolicySpec = format!("easy:order=multifactor,conf={}", conf.display())
        .parse()
        .unwrap();
    let mut policy = build_policy(&spec).unwrap();
    assert_eq!(
        simulate(&jobs, &mut policy).unwrap().starts(),
        [0, 110, 100]
    );
    // Conservative backfilling refuses changing priorities.
    let error = build_policy(&"conservative:order=multifactor".parse().unwrap())
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("conservative backfilling keeps reservations"),
        "{error}"
    );
    // A bad slurm.conf line names file, line, key and value.
    std::fs::write(&conf, "PriorityWeightAge=1\nPriorityMaxAge=soon\n").unwrap();
    let error = build_policy(&spec).err().unwrap().to_string();
    assert_eq!(
        error,
        format!(
            "{}:2: PriorityMaxAge=soon: expected a time string: minutes, hh:mm:ss, days-hh, days-hh:mm or days-hh:mm:ss",
            conf.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn slurm_backfill_starts_lower_jobs_at_its_cycles_only() {
    // 4 processors, bf_interval 30, bf_resolution 1. Job 1 (3 procs) runs
    // [0, 100). Job 2 (4 procs) waits: the main scheduler stops there.
    // Job 3 (1 proc, 50 s) arrives at 5: it fits now and ends by 100, when
    // job 2 is reserved, but only the backfill cycle may start it: the
    // next one is at 30. Job 2 starts at 100 (main scheduler at job 1's
    // end), job 3 at 30 and ends at 80.
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 3, 100, 100),
            Job::new(2, 1, 4, 100, 100),
            Job::new(3, 5, 1, 50, 50),
        ],
        &JobModel::new(4),
    )
    .unwrap();
    let mut conf = BackfillConf::default();
    conf.resolution = 1;
    let mut policy = SlurmBackfill::new(MultifactorConfig::default(), conf.clone());
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 100, 30]);
    // The last cycle (at 90, after job 3 ended at 80) reserved 100 for job 2.
    assert_eq!(policy.reservations(), [(JobId(1), 100)]);
    // A job that would end after job 2's reservation (60 s from 45 > 100
    // would not: from 60, 60 s ends at 120 > 100) is not backfilled: job 3
    // with 80 s from 30 would end at 110 > 100 and 1 processor is not
    // spare at 100 (job 2 takes all 4).
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(1, 0, 3, 100, 100),
            Job::new(2, 1, 4, 100, 100),
            Job::new(3, 5, 1, 80, 80),
        ],
        &JobModel::new(4),
    )
    .unwrap();
    let mut policy = SlurmBackfill::new(MultifactorConfig::default(), conf.clone());
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 100, 200]);
    // bf_window of 1 minute: job 2's earliest start (100) lies beyond the
    // window at the cycle at 30 (30 + 60 = 90 < 100): no reservation, so
    // job 3 is backfilled at 30 and delays job 2 to 110.
    let mut windowed = conf;
    windowed.window = 60;
    let mut policy = SlurmBackfill::new(MultifactorConfig::default(), windowed);
    let schedule = simulate(&jobs, &mut policy).unwrap();
    assert_eq!(schedule.starts(), [0, 110, 30]);
}

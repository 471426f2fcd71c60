//! Hand-computed cases for the algorithms of Kumar, Shae and Jamjoom
//! (Delayed-LOS, Hybrid-LOS, EASY-D, LOS-D and the -E variants): the
//! paper's motivating example, the skip count, each decision the paper
//! leaves open, and elastic control commands on waiting and running jobs.

use schedsim_policies::{DelayedLos, DelayedLosConfig, PolicySpec, build_policy};
use schedsim_sim_core::{
    Change, Decisions, ElasticCommand, Job, JobId, JobModel, JobSet, Policy, Time, View,
    ViewStorage, simulate,
};
use workload_format::Record;

/// A job whose runtime equals its estimate; `requested` makes it dedicated.
fn job(number: u64, submit: Time, size: u32, estimate: Time, requested: Option<Time>) -> Job {
    let job = Job::new(number, submit, size, estimate, estimate);
    match requested {
        Some(start) => job.with_requested_start(start),
        None => job,
    }
}

fn jobs(procs: u32, list: Vec<Job>) -> JobSet {
    JobSet::from_jobs(list, &JobModel::new(procs)).unwrap()
}

/// A job line whose recorded runtime (`work`) may exceed its estimate: it
/// is killed at the estimate unless an ET extends it.
fn record(number: u64, submit: u64, size: u64, estimate: u64, work: u64) -> Record {
    Record {
        submit_time: Some(submit),
        run_time: Some(work),
        requested_processors: Some(size),
        requested_time: Some(estimate),
        ..Record::unknown(number)
    }
}

fn with_commands(set: JobSet, commands: &[(Time, u32, Change)]) -> JobSet {
    set.with_commands(
        commands
            .iter()
            .map(|&(time, job, change)| ElasticCommand {
                time,
                job: JobId(job),
                change,
            })
            .collect(),
    )
    .unwrap()
}

fn policy(spec: &str) -> Box<dyn Policy + Send> {
    build_policy(&spec.parse::<PolicySpec>().unwrap()).unwrap()
}

fn starts(set: &JobSet, spec: &str) -> Vec<Time> {
    simulate(set, &mut policy(spec)).unwrap().starts().to_vec()
}

/// The decisions of one call on a hand-made state.
fn decide(policy: &mut dyn Policy, now: Time, procs: u32, list: &[Job], queue: &[u32]) -> Vec<u32> {
    let queue: Vec<JobId> = queue.iter().map(|&i| JobId(i)).collect();
    let mut storage = ViewStorage::default();
    let view = View::new(now, procs, list, &queue, &[], &mut storage);
    let mut decisions = Decisions::new();
    policy.schedule(&view, &mut decisions);
    assert_eq!(decisions.failure(), None);
    decisions.starts().iter().map(|id| id.0).collect()
}

#[test]
fn figure_2_los_starts_7_delayed_los_starts_4_and_6() {
    // Fig. 2: 10 free processors, jobs of 7, 4 and 6 processors queued in
    // that order. LOS starts the head (7) at once and then nothing fits
    // the 3 left: utilization 7. Delayed-LOS runs Basic_DP over the queue:
    // {4, 6} uses all 10 > {7}'s 7, so it starts jobs 1 and 2 and skips the
    // head once.
    let list = [
        job(0, 0, 7, 100, None),
        job(1, 0, 4, 100, None),
        job(2, 0, 6, 100, None),
    ];
    assert_eq!(decide(&mut *policy("los"), 0, 10, &list, &[0, 1, 2]), [0]);
    let mut delayed = DelayedLos::new(DelayedLosConfig::default());
    assert_eq!(decide(&mut delayed, 0, 10, &list, &[0, 1, 2]), [1, 2]);
    assert_eq!(delayed.skip_count(JobId(0)), 1);

    // The whole runs: LOS runs 7 over [0, 100) and 4 + 6 over [100, 200);
    // Delayed-LOS runs 4 + 6 first and 7 at 100.
    let set = jobs(10, list.to_vec());
    assert_eq!(starts(&set, "los"), [0, 100, 100]);
    assert_eq!(starts(&set, "delayed-los"), [100, 0, 0]);
}

#[test]
fn the_skip_threshold_bounds_how_often_the_head_is_skipped() {
    // 10 processors. At 0: A (7, 100 s), B (4, 10 s), C (6, 10 s). At 10:
    // E (5, 100 s) and F (5, 100 s).
    // At 0, A fits and scount(A) = 0: Basic_DP picks {B, C} (10 > 7), A is
    // skipped (scount 1). At 10, B and C end; A fits again:
    // - C_s = 1: scount(A) = 1 >= 1, so A starts at 10 (lines 3-5). E (5 >
    //   3 left) gets a freeze at A's end, 110; nothing fits the 3
    //   processors, and E and F start at 110.
    // - C_s = 2: scount(A) = 1 < 2: Basic_DP over {A, E, F} picks {E, F}
    //   (10 > 7), A is skipped again (scount 2) and starts at 110.
    let set = jobs(
        10,
        vec![
            job(0, 0, 7, 100, None),
            job(1, 0, 4, 10, None),
            job(2, 0, 6, 10, None),
            job(3, 10, 5, 100, None),
            job(4, 10, 5, 100, None),
        ],
    );
    assert_eq!(starts(&set, "delayed-los:cs=1"), [10, 0, 0, 110, 110]);
    assert_eq!(starts(&set, "delayed-los:cs=2"), [110, 0, 0, 10, 10]);
    // C_s = 0, as LOS would: at 0, A starts; B does not fit the 3 left:
    // its freeze is A's end (100) with 3 + 7 - 4 = 6 processors; C (6 > 3)
    // cannot start now. At 100 A ends: B is the head and fits, scount 0 >=
    // 0: B starts; C fits the 6 left and starts too (the next pass); E and
    // F (5 each) then wait for B and C: at 110, E and F start.
    assert_eq!(starts(&set, "delayed-los:cs=0"), [0, 100, 100, 110, 110]);
}

#[test]
fn one_call_runs_passes_until_nothing_starts() {
    // Three jobs of 3 on 10 processors, C_s = 0: each pass starts the head
    // (lines 3-5); the paper's one action per cycle would start one job
    // per event. All three start at 0, in one call.
    let list = [
        job(0, 0, 3, 50, None),
        job(1, 0, 3, 50, None),
        job(2, 0, 3, 50, None),
    ];
    let mut delayed = DelayedLos::new(DelayedLosConfig {
        skip_threshold: 0,
        ..DelayedLosConfig::default()
    });
    assert_eq!(decide(&mut delayed, 0, 10, &list, &[0, 1, 2]), [0, 1, 2]);
    // Basic_DP over A (7), B (4), C (6) and D (2, 5 s) on 10 processors:
    // only {B, C} uses all 10 ({A, D} uses 9). A is skipped; the next pass
    // finds no processor left.
    let list = [
        job(0, 0, 7, 100, None),
        job(1, 0, 4, 100, None),
        job(2, 0, 6, 100, None),
        job(3, 0, 2, 5, None),
    ];
    let mut delayed = DelayedLos::new(DelayedLosConfig::default());
    assert_eq!(decide(&mut delayed, 0, 10, &list, &[0, 1, 2, 3]), [1, 2]);
    // With a lookahead of 2 the first pass sees only A and B: {A} (7) beats
    // {B} (4) and {A, B} (11 > 10), so A starts (the head is in S: no
    // skip). The next pass of the same call: the head B (4 > 3 left) gets a
    // freeze at A's end, 100, with 3 + 7 - 4 = 6 processors; the only
    // candidate fitting 3 is D (2, ends at 5 < 100), which starts.
    let mut delayed = DelayedLos::new(DelayedLosConfig {
        lookahead: 2,
        ..DelayedLosConfig::default()
    });
    assert_eq!(decide(&mut delayed, 0, 10, &list, &[0, 1, 2, 3]), [0, 3]);
    assert_eq!(delayed.skip_count(JobId(0)), 0);
}

#[test]
fn a_job_ending_exactly_at_the_freeze_end_time_is_frozen() {
    // 10 processors. R (8, 100 s) runs from 0. At 1, H (9, 50 s) cannot
    // start: its shadow (freeze end) time is 100 with 2 + 8 - 9 = 1 extra
    // processor. J (2, 99 s) would end at 1 + 99 = 100.
    // LOS: 100 <= 100, J ends by the shadow time and starts at 1.
    // Delayed-LOS: line 16's strict `t + dur < fret_b` is false, so J is
    // frozen at 2 > 1 processor and waits; H runs [100, 150) and J starts
    // at 150.
    let set = jobs(
        10,
        vec![
            job(0, 0, 8, 100, None),
            job(1, 1, 9, 50, None),
            job(2, 1, 2, 99, None),
        ],
    );
    assert_eq!(starts(&set, "los"), [0, 100, 1]);
    assert_eq!(starts(&set, "delayed-los"), [0, 100, 150]);
}

#[test]
fn hybrid_los_freezes_the_processors_of_the_first_dedicated_job() {
    // 10 processors. D (dedicated, 6 processors, 20 s) requested at 50;
    // batch B1 (5, 100 s) and B2 (4, 40 s); all submitted at 0.
    // At 0: fret_d = 50, nothing runs, so frec_d = 10 - 6 = 4. B1 ends at
    // 100, not before 50: frozen at 5 > 4. B2 ends at 40 < 50: frozen at 0.
    // Reservation_DP: {B2} (B1 alone or with B2 needs 5 > 4 at 50). B2
    // starts, B1 is skipped. At 50 D is due: it moves to the batch head
    // and starts (6 of 10 free). B1 (5 > 4) waits for D's end, 70.
    // EASY-D reserves D over [50, 70); B1 cannot run 100 s before 50, so
    // it is reserved at 70; B2 fits [0, 40): the same schedule.
    let set = jobs(
        10,
        vec![
            job(0, 0, 6, 20, Some(50)),
            job(1, 0, 5, 100, None),
            job(2, 0, 4, 40, None),
        ],
    );
    // EASY-D and LOS-D with the paper's mechanism (`dedicated=head`,
    // Algorithms 2-3 around EASY / LOS): the freeze is D's requested start,
    // the same reservation here, so the same schedule.
    for spec in [
        "hybrid-los",
        "easy-d",
        "los-d",
        "easy-d:dedicated=head",
        "los-d:dedicated=head",
        "easy-d:dedicated=head-all",
        "los-d:dedicated=head-all",
    ] {
        assert_eq!(starts(&set, spec), [50, 70, 0], "{spec}");
    }
}

#[test]
fn hybrid_los_backfills_around_a_moved_dedicated_job_that_does_not_fit() {
    // Lines 34-36 start the batch head without checking that it fits;
    // here a head that does not fit gets Algorithm 1's freeze instead.
    // 10 processors. R (batch, 8, 100 s) at 0 starts at once. At 1, D1
    // (dedicated, 5, 50 s, requested 10) and D2 (dedicated, 2, 10 s,
    // requested 500). At 10 D1 is due with 2 processors free: it moves to
    // the batch head (scount = C_s); D2 still waits, so lines 34-36 apply,
    // and D1 does not fit: its freeze is R's end, 100, with 2 + 8 - 5 = 5.
    // At 20, S (batch, 2, 5 s) arrives: it fits and ends at 25 < 100, so
    // Reservation_DP starts it around D1. D1 starts at 100 (delayed: R held
    // the processors), D2 at 500.
    let set = jobs(
        10,
        vec![
            job(0, 0, 8, 100, None),
            job(1, 1, 5, 50, Some(10)),
            job(2, 1, 2, 10, Some(500)),
            job(3, 20, 2, 5, None),
        ],
    );
    assert_eq!(starts(&set, "hybrid-los"), [0, 100, 500, 20]);
}

#[test]
fn moved_dedicated_jobs_go_to_the_head_of_the_batch_queue() {
    // Algorithm 3 adds the moved job to the head of the batch queue. 10
    // processors, R (10, 100 s) starts at 0. D1 (6, 50 s, requested 10) and
    // D2 (6, 50 s, requested 20) are submitted at 1. The machine is full:
    // at 10 D1 moves (lines 39-41), at 20 D2 moves in front of it. At 100
    // D2 is the head and starts; D1 (6 > 4) follows at 150.
    // EASY-D reserves in arrival order: D1 at 100, D2 at 150.
    let set = jobs(
        10,
        vec![
            job(0, 0, 10, 100, None),
            job(1, 1, 6, 50, Some(10)),
            job(2, 1, 6, 50, Some(20)),
        ],
    );
    assert_eq!(starts(&set, "hybrid-los"), [0, 150, 100]);
    assert_eq!(starts(&set, "easy-d"), [0, 100, 150]);
    // EASY-D and LOS-D with `dedicated=head` move one job at a time: D2 is
    // moved only once D1 has started, at 100, and then waits for 6
    // processors until D1's end, 150. Lines 39-41 would move D2 in front of
    // D1 while the machine is full; this reading does not (documented on
    // `DedicatedMode::Head`). `head-all` moves both at 20, in requested
    // start order: the same schedule.
    for spec in [
        "easy-d:dedicated=head",
        "los-d:dedicated=head",
        "easy-d:dedicated=head-all",
        "los-d:dedicated=head-all",
    ] {
        assert_eq!(starts(&set, spec), [0, 100, 150], "{spec}");
    }
    // `head-literal`: at 10 D1 is moved and waits (0 free); at 20 the call
    // ends with 0 free and D2, due, is moved in front of it (lines 39-41):
    // D2 starts at 100 and D1 at 150, as with Hybrid-LOS.
    for spec in [
        "easy-d:dedicated=head-literal",
        "los-de:dedicated=head-literal",
    ] {
        assert_eq!(starts(&set, spec), [0, 150, 100], "{spec}");
    }
}

#[test]
fn hybrid_los_can_delay_a_dedicated_job_that_easy_d_starts_on_time() {
    // The claim "Hybrid-LOS never delays a dedicated job that EASY-D would
    // start on time" does not hold, for two reasons in the paper's design.
    //
    // 1. Lines 34-36 start a batch head skipped C_s times whatever the
    //    dedicated jobs need. C_s = 1, 10 processors: D (dedicated, 6, 20 s,
    //    requested 50), B1 (batch, 5, 100 s) at 0, B2 (batch, 1, 1 s) at 10.
    //    At 0 B1 is frozen (5 > 10 - 6 = 4) and skipped: scount 1. At 10
    //    scount(B1) >= C_s: B1 starts, until 110. At 50 only 5 processors
    //    are free: D waits until 110. EASY-D keeps D's reservation over
    //    [50, 70) and starts B1 at 70.
    let set = jobs(
        10,
        vec![
            job(0, 0, 6, 20, Some(50)),
            job(1, 0, 5, 100, None),
            job(2, 10, 1, 1, None),
        ],
    );
    assert_eq!(starts(&set, "hybrid-los:cs=1")[..2], [110, 10]);
    assert_eq!(starts(&set, "easy-d")[..2], [50, 70]);

    // 2. Only the earliest requested start is frozen (lines 9-22). D1
    //    (dedicated, 2, 10 s, requested 20), D2 (dedicated, 8, 10 s,
    //    requested 40), B (batch, 8, 100 s), all at 0, 10 processors. At 0
    //    the freeze is D1's: frec_d = 10 - 2 = 8 and B (frozen at 8) fits
    //    it, so B starts, until 100. D1 starts on time at 20, but D2 finds 2
    //    processors at 40 and waits until 100. EASY-D holds both
    //    reservations and starts B at 50.
    let set = jobs(
        10,
        vec![
            job(0, 0, 2, 10, Some(20)),
            job(1, 0, 8, 10, Some(40)),
            job(2, 0, 8, 100, None),
        ],
    );
    assert_eq!(starts(&set, "hybrid-los"), [20, 100, 0]);
    assert_eq!(starts(&set, "easy-d"), [20, 40, 50]);
    assert_eq!(starts(&set, "los-d"), [20, 40, 50]);
}

#[test]
fn easy_d_and_los_d_with_the_papers_mechanism_protect_only_the_first_start() {
    // `dedicated=head`: Algorithm 2 with EASY or LOS in place of
    // Delayed-LOS. 10 processors; D1 (dedicated, 2, 10 s, requested 20),
    // D2 (dedicated, 8, 10 s, requested 40), B (batch, 8, 100 s), all at 0.
    // At 0, W^d = [D1, D2] and D1 is not due: fret_d = 20; nothing runs, so
    // frec_d = M = 10 (line 14), and D1's 2 <= 10 (line 17) leaves 10 - 2 =
    // 8 (line 18). B ends at 100 > 20, so it counts its 8 at the freeze:
    // 8 <= 8, it fits and starts at 0 (EASY: the head fits the profile;
    // LOS: the head starts). D2 is not protected.
    // At 20 D1 is due: "it is moved to the head of batch queue" (lines
    // 6-7, Algorithm 3) and starts, 2 processors being free.
    // At 40 D2 is due and moved: 8 > 10 - 8 = 2 free (D1 ended at 30), so
    // it holds the head's reservation at B's end, 100, and starts then.
    // `profile` reserves D2 over [40, 50) at 0, so B waits until 50.
    let set = jobs(
        10,
        vec![
            job(0, 0, 2, 10, Some(20)),
            job(1, 0, 8, 10, Some(40)),
            job(2, 0, 8, 100, None),
        ],
    );
    for spec in [
        "easy-d:dedicated=head",
        "los-d:dedicated=head",
        "easy-de:dedicated=head",
        "los-de:dedicated=head-all",
        "easy-d:dedicated=head-all",
    ] {
        assert_eq!(starts(&set, spec), [20, 100, 0], "{spec}");
    }
    assert_eq!(starts(&set, "easy-d:dedicated=profile"), [20, 40, 50]);
}

#[test]
fn head_moves_one_due_dedicated_job_at_a_time_head_all_every_one() {
    // 10 processors. R (batch, 8, 100 s) starts at 0. At 1: D1 (dedicated,
    // 5, 50 s) and D2 (dedicated, 2, 10 s), both requested at 10. At 10: B
    // (batch, 2, 10 s).
    // At 1 neither is due: both are requested at w_1^d.start = 10, so
    // tot_start_num = 5 + 2 = 7 (line 16); R runs until 100 >= 10, so
    // frec_d = 10 - 8 = 2 < 7 (lines 10-12, 17): the freeze moves to when
    // 7 fit counting from now, R's end: fret_d = 100, frec_d = 2 + 8 - 7 =
    // 3 (lines 24-26).
    // At 10 both are due.
    // - `head` (Algorithm 3, one move per cycle): D1 is moved; 5 > 2 free,
    //   so it holds the head's reservation at 100. D2 is still in W^d and
    //   due: no freeze (line 6 applies, not line 8), and it is not a batch
    //   job, so it is not backfilled. B (2, ends 20 < 100) is backfilled at
    //   10. At 100 D1 starts, D2 is moved and starts beside it (5 + 2 <= 10).
    // - `head-all`: D1 and D2 are both moved, D1 first; D1 holds the
    //   reservation at 100 and D2, the next candidate, is backfilled at 10
    //   (2 free over [10, 20)); B no longer fits and starts when D2 ends, 20.
    // - `profile` reserves D1 at 100 and D2 over [10, 20) at 1: D2 starts at
    //   10 and B at 20, as with `head-all`.
    // - Hybrid-LOS moves D1 at 10; with D2 still in W^d, lines 34-36 give D1
    //   (scount = C_s, 5 > 2) a freeze at 100 with 2 + 8 - 5 = 5; B ends at
    //   20 < 100 and Reservation_DP starts it, as `head`. Then the machine
    //   is full (m = 0) and lines 39-41 move D2 in front of D1: D2 starts
    //   when B ends, at 20. `head` moves only when no moved job waits.
    let set = jobs(
        10,
        vec![
            job(0, 0, 8, 100, None),
            job(1, 1, 5, 50, Some(10)),
            job(2, 1, 2, 10, Some(10)),
            job(3, 10, 2, 10, None),
        ],
    );
    for spec in ["easy-d:dedicated=head", "los-d:dedicated=head"] {
        assert_eq!(starts(&set, spec), [0, 100, 100, 10], "{spec}");
    }
    // `head-literal` follows lines 39-41 as Hybrid-LOS does: the call at
    // 10 ends with no processor free, so D2 is moved in front of D1, and
    // starts when B ends, at 20.
    for spec in [
        "hybrid-los",
        "easy-d:dedicated=head-literal",
        "los-d:dedicated=head-literal",
    ] {
        assert_eq!(starts(&set, spec), [0, 100, 20, 10], "{spec}");
    }
    // LOS-D `head-all`: the window is [D2, B] (2 processors each, 2 free,
    // both end by the shadow time 100): equal utilization, and the
    // bypassed-first traceback keeps the job nearer the head, D2.
    for spec in [
        "easy-d:dedicated=head-all",
        "los-d:dedicated=head-all",
        "easy-d",
        "los-d",
    ] {
        assert_eq!(starts(&set, spec), [0, 100, 10, 20], "{spec}");
    }
}

#[test]
fn a_dedicated_job_is_delayed_only_when_capacity_does_not_allow() {
    // 10 processors. R (batch, 8, 100 s) starts at 0. At 5: D (dedicated,
    // 4, 10 s, requested 30) and E (dedicated, 2, 10 s, requested 50).
    // EASY-D and LOS-D reserve D at 100, the earliest time 4 processors are
    // free (the paper's unavoidable delay), and E on time at 50: 2 are free
    // over [50, 60).
    let set = jobs(
        10,
        vec![
            job(0, 0, 8, 100, None),
            job(1, 5, 4, 10, Some(30)),
            job(2, 5, 2, 10, Some(50)),
        ],
    );
    for spec in ["easy-d", "los-d"] {
        assert_eq!(starts(&set, spec), [0, 100, 50], "{spec}");
    }
    // Hybrid-LOS: at 30 D is due and moves to the batch head, does not fit,
    // and stays there with scount = C_s while E waits in the dedicated
    // queue: lines 34-36 apply to D at every cycle and E is moved only once
    // D has started, at 100. A third reason why Hybrid-LOS can delay what
    // EASY-D starts on time.
    assert_eq!(starts(&set, "hybrid-los"), [0, 100, 100]);
    // EASY-D and LOS-D with `dedicated=head` do the same: D, moved at 30,
    // holds the head's reservation at 100; at 30 E (requested 50) is the
    // first of W^d and not due, so it is frozen over [50, 60), where 2 are
    // free. At 50 E is due but D is still waiting at the head, so E is not
    // moved (one at a time) and waits until D starts at 100. `head-all`
    // moves E at 50 behind D, and E fits 2 free processors over [50, 60)
    // before D's reservation: it is backfilled on time.
    for spec in ["easy-d:dedicated=head", "los-d:dedicated=head"] {
        assert_eq!(starts(&set, spec), [0, 100, 100], "{spec}");
    }
    for spec in ["easy-d:dedicated=head-all", "los-d:dedicated=head-all"] {
        assert_eq!(starts(&set, spec), [0, 100, 50], "{spec}");
    }
    // Batch-only policies ignore requested starts: EASY starts E at once
    // (before its requested start) and D when 4 processors are free.
    assert_eq!(starts(&set, "easy"), [0, 100, 5]);
}

#[test]
fn a_reduction_on_a_running_job_lets_the_head_start_earlier() {
    // 4 processors. A (4, estimate 100, works 100) runs from 0; B (4, 50 s)
    // arrives at 10. RT 40 on A at 20: its limit becomes 60 > the 20 s it has
    // run, so it ends at 0 + min(100, 60) = 60 and B starts then. Without
    // the ECC processor the command is ignored and B starts at 100.
    let set = with_commands(
        jobs(4, vec![job(0, 0, 4, 100, None), job(1, 10, 4, 50, None)]),
        &[(20, 0, Change::ReduceTime(40))],
    );
    for spec in [
        "easy-e",
        "easy-de",
        "los-e",
        "los-de",
        "delayed-los-e",
        "hybrid-los-e",
    ] {
        assert_eq!(starts(&set, spec), [0, 60], "{spec}");
    }
    for spec in [
        "easy",
        "easy-d",
        "los",
        "los-d",
        "delayed-los",
        "hybrid-los",
    ] {
        assert_eq!(starts(&set, spec), [0, 100], "{spec}");
    }
}

#[test]
fn an_extension_on_a_running_job_moves_the_shadow_time() {
    // 10 processors. R (6, estimate 100, works 150) runs from 0: without a
    // command it is killed at 100. ET +50 at 5: its limit is 150 and it
    // ends at min(150, 150) = 150. H (8, 10 s) arrives at 1 and waits for R.
    // J (4, 120 s) arrives at 10.
    // EASY-E: H's shadow time is R's new end, 150, with 4 + 6 - 8 = 2
    // extra; J ends at 130 <= 150 and starts at 10. H runs [150, 160).
    // EASY: R ends at 100, H's shadow; J would end at 130 > 100 and needs 4
    // > 2 extra: it waits. H runs [100, 110), then J starts at 110.
    let records = [
        record(1, 0, 6, 100, 150),
        record(2, 1, 8, 10, 10),
        record(3, 10, 4, 120, 120),
    ];
    let set = with_commands(
        JobSet::from_records(&records, &JobModel::new(10)).unwrap(),
        &[(5, 0, Change::ExtendTime(50))],
    );
    assert_eq!(starts(&set, "easy-e"), [0, 150, 10]);
    assert_eq!(starts(&set, "easy"), [0, 100, 110]);
    // LOS-E and Delayed-LOS-E pack the same way here: J is the only
    // candidate, it ends by the shadow (freeze end) time 150 (130 < 150).
    assert_eq!(starts(&set, "los-e"), [0, 150, 10]);
    assert_eq!(starts(&set, "delayed-los-e"), [0, 150, 10]);
}

#[test]
fn an_extension_on_a_waiting_job_stops_its_backfilling() {
    // 10 processors. R (6, 100 s) runs from 0; H (8, 10 s) arrives at 1 and
    // waits, shadow 100 with 2 extra. J (4, estimate 50, works 50) arrives
    // at 2: ending at 52 <= 100 it is backfilled by EASY at 2. With ET +60 at
    // 2 (commands come after the arrivals of their instant) its estimate is
    // 110: 112 > 100 and 4 > 2 extra, so EASY-E keeps it waiting; H runs
    // [100, 110) and J starts at 110. The extension lengthens its work too
    // (Kumar et al.: ECCs change "the actual job execution time"): 50 + 60
    // = 110 s, so it ends at 110 + 110 = 220.
    let set = with_commands(
        jobs(
            10,
            vec![
                job(0, 0, 6, 100, None),
                job(1, 1, 8, 10, None),
                job(2, 2, 4, 50, None),
            ],
        ),
        &[(2, 2, Change::ExtendTime(60))],
    );
    let schedule = simulate(&set, &mut policy("easy-e")).unwrap();
    assert_eq!(schedule.starts(), [0, 100, 110]);
    assert_eq!(schedule.end(JobId(2)), 220);
    assert_eq!(starts(&set, "easy"), [0, 100, 2]);
    // A reduction does the opposite: J with estimate 150 cannot backfill
    // (152 > 100), but RT 100 at 2 makes it 50 and EASY-E starts it at 2.
    let set = with_commands(
        jobs(
            10,
            vec![
                job(0, 0, 6, 100, None),
                job(1, 1, 8, 10, None),
                job(2, 2, 4, 150, None),
            ],
        ),
        &[(2, 2, Change::ReduceTime(100))],
    );
    assert_eq!(starts(&set, "easy-e"), [0, 100, 2]);
    assert_eq!(starts(&set, "easy"), [0, 100, 110]);
}

#[test]
fn an_extension_pushes_a_waiting_batch_job_past_a_dedicated_reservation() {
    // 10 processors. D (dedicated, 10, 50 s, requested 100) and B (batch,
    // 5, 90 s) at 0. B ends at 90, before D: every heterogeneous policy
    // starts it at 0. ET +20 on B at 0 makes it 110 s: it would overlap D,
    // which needs the whole machine from 100. EASY-DE and LOS-DE find no
    // room for B before D's end, 150; Hybrid-LOS-E freezes B at 5 > 0
    // processors (0 + 110 >= 100) and skips it until D is due; D runs
    // [100, 150), then B, whose work the extension lengthened to 90 + 20 =
    // 110 s: it ends at 150 + 110 = 260.
    let set = jobs(
        10,
        vec![job(0, 0, 10, 50, Some(100)), job(1, 0, 5, 90, None)],
    );
    let extended = with_commands(set.clone(), &[(0, 1, Change::ExtendTime(20))]);
    for spec in ["easy-de", "los-de", "hybrid-los-e"] {
        assert_eq!(starts(&set, spec), [100, 0], "{spec}");
        let schedule = simulate(&extended, &mut policy(spec)).unwrap();
        assert_eq!(schedule.starts(), [100, 150], "{spec}");
        assert_eq!(schedule.end(JobId(1)), 260, "{spec}");
    }
}

//! A small SCOJO-PECT schedule worked by hand, in the spirit of the
//! thesis's Table 1 and Fig. 3 (which state neither the slice lengths nor
//! the class bounds): three of Table 1's jobs, the medium job 3, the short
//! job 5 and the long job 8, all submitted at 0 on the thesis's machine of
//! 10 nodes, without switch overheads ("switching overhead between slices
//! not shown").
//!
//! Classes for Table 1's runtimes (short 5-9, medium 34-65, long 80-98):
//! short below 10 s, medium below 70 s. Cycle 100 s: long 50 s (share
//! 0.5), short 20 s, medium 30 s (share 0.3), in that order from the first
//! call at 0: long [0, 50), short [50, 70), medium [70, 100), long
//! [100, 150), short [150, 170), medium [170, 200).
//!
//! | job | class | runtime | size |
//! |-----|-------|---------|------|
//! | 3   | medium | 65 | 7 |
//! | 5   | short  | 9  | 7 |
//! | 8   | long   | 98 | 4 |
//!
//! By hand:
//! - 0 (long slice): job 8 starts on nodes 0-3. Smart backfilling: job 5
//!   and job 3 need 7 nodes, 6 are free.
//! - 50 (short slice): job 8 is suspended after 50 s (48 left); job 5
//!   starts. It avoids nodes 0-3 (job 8's) while it can: 4-9 and one more,
//!   node 0. It runs to 59.
//! - 59: job 5 ends. Smart backfilling resumes job 8 on nodes 0-3 (free);
//!   job 3 (7 nodes) does not fit in the 6 others. Job 8 runs its last 48 s
//!   to 107.
//! - 70 (medium slice): the short slice's class has nothing running; job 8
//!   is long and keeps running (`slice-end=class`). Job 3 does not fit.
//! - 100 (long slice): nothing changes.
//! - 107: job 8 ends; smart backfilling starts the medium job 3 in the long
//!   slice on nodes 0-6.
//! - 150 (short slice): only the long class's running jobs are suspended;
//!   job 3 is medium and runs on, to 172 (in its own medium slice).
//!
//! With `slice-end=all` (every running job but the next slice's class is
//! suspended at a slice's end):
//! - 0-59 as above; job 8 resumes at 59 by smart backfilling.
//! - 70 (medium slice): job 8 is suspended (61 s done, 37 left); job 3
//!   starts on 7 of the 10 free nodes, avoiding job 8's: nodes 0 and 4-9.
//! - 100 (long slice): job 3 is suspended (30 s done, 35 left) and job 8
//!   resumes on nodes 0-3; job 3 cannot come back (node 0 is job 8's).
//! - 137: job 8 ends; smart backfilling resumes job 3 on its nodes.
//! - 150 (short slice): job 3 is suspended, and smart backfilling resumes
//!   it at once (nothing collides); without overheads the pair is dropped
//!   and it runs on to 172.

use schedsim_policies::{PolicySpec, build_policy};
use schedsim_sim_core::{
    Job, JobId, JobModel, JobSet, ProcRange, Segment, SimOptions, simulate_with,
};

#[test]
fn table1_jobs_by_hand() {
    let jobs = JobSet::from_jobs(
        vec![
            Job::new(3, 0, 7, 65, 65),
            Job::new(5, 0, 7, 9, 9),
            Job::new(8, 0, 4, 98, 98),
        ],
        &JobModel::new(10),
    )
    .unwrap();
    let run = |slice_end: &str| {
        let spec: PolicySpec = format!(
            "scojo-pect:short-below=10,medium-below=70,cycle=100,long-share=0.5,medium-share=0.3,slice-end={slice_end}"
        )
        .parse()
        .unwrap();
        let mut policy = build_policy(&spec).unwrap();
        simulate_with(&jobs, &mut *policy, &SimOptions::default()).unwrap()
    };
    let (j3, j5, j8) = (JobId(0), JobId(1), JobId(2));
    let segment = |start, end| Segment { start, end };
    let nodes_0_to_3 = [ProcRange { first: 0, last: 3 }];
    let nodes_0_and_4_to_9 = [
        ProcRange { first: 0, last: 0 },
        ProcRange { first: 4, last: 9 },
    ];

    let schedule = run("class");
    let segments = |id| schedule.segments(id).collect::<Vec<Segment>>();
    assert_eq!(segments(j8), [segment(0, 50), segment(59, 107)]);
    assert_eq!(schedule.allocation(j8), nodes_0_to_3);
    assert_eq!(segments(j5), [segment(50, 59)]);
    assert_eq!(schedule.allocation(j5), nodes_0_and_4_to_9);
    assert_eq!(segments(j3), [segment(107, 172)]);
    assert_eq!(schedule.allocation(j3), [ProcRange { first: 0, last: 6 }]);

    let schedule = run("all");
    let segments = |id| schedule.segments(id).collect::<Vec<Segment>>();
    assert_eq!(
        segments(j8),
        [segment(0, 50), segment(59, 70), segment(100, 137)]
    );
    assert_eq!(schedule.allocation(j8), nodes_0_to_3);
    assert_eq!(segments(j5), [segment(50, 59)]);
    assert_eq!(segments(j3), [segment(70, 100), segment(137, 172)]);
    assert_eq!(schedule.allocation(j3), nodes_0_and_4_to_9);
}

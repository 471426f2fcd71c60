//! What deadline admission did to a run (Islam et al.'s metrics): the
//! share of jobs and of processor-seconds not admitted, deadline misses,
//! and the response and slowdown of the jobs that ran, per deadline kind
//! (user deadlines, artificial deadlines given to non-deadline jobs, none).

use schedsim_policies::Backfill;
use schedsim_sim_core::{
    DEADLINES_HEADER, Deadline, DeadlineKind, Deadlines, FinalState, JobId, JobSet, Schedule,
    SimError, SimOptions, Time, simulate_with,
};
use serde::{Deserialize, Serialize};

/// How deadlines are made for a workload (the QoPS paper, section 4): run
/// EASY on it, then give a seeded `fraction` of the jobs a user deadline
/// `submit + max(p, (1 - stringency) x R_EASY)` (p the job's run time,
/// R_EASY its response under EASY) and the others an artificial one,
/// `submit + max(24 h, ratio x p)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DeadlineParams {
    /// The stringency factor s in [0, 1): 0 gives EASY's completion times,
    /// higher is tighter (the paper: 0.2 and 0.5).
    pub stringency: f64,
    /// The share of jobs with user deadlines (the paper: 1, 0.8, 0.2).
    #[serde(default = "one")]
    pub fraction: f64,
    /// R of the artificial deadlines (the paper: 2, 5, 10; default 5).
    #[serde(default = "five")]
    pub ratio: f64,
    /// Seed of the choice of jobs with user deadlines.
    #[serde(default = "seed_one")]
    pub seed: u64,
}

fn one() -> f64 {
    1.0
}
fn five() -> f64 {
    5.0
}
fn seed_one() -> u64 {
    1
}

impl DeadlineParams {
    /// Every job with a user deadline of this stringency.
    pub fn new(stringency: f64) -> Self {
        Self {
            stringency,
            fraction: 1.0,
            ratio: 5.0,
            seed: 1,
        }
    }

    /// With this share of user deadlines, the rest artificial with `ratio`,
    /// chosen with `seed`.
    #[must_use]
    pub fn mixed(mut self, fraction: f64, ratio: f64, seed: u64) -> Self {
        self.fraction = fraction;
        self.ratio = ratio;
        self.seed = seed;
        self
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// A value out of range, named.
    pub fn validate(&self) -> Result<(), DeadlineMakeError> {
        let bad = |name: &'static str, value: f64, expected: &'static str| {
            Err(DeadlineMakeError::BadParameter {
                name,
                value,
                expected,
            })
        };
        if !(0.0..1.0).contains(&self.stringency) {
            return bad("stringency", self.stringency, "in [0, 1)");
        }
        if !(0.0..=1.0).contains(&self.fraction) {
            return bad("fraction", self.fraction, "in [0, 1]");
        }
        if !(self.ratio.is_finite() && (1.0..=1e6).contains(&self.ratio)) {
            return bad("ratio", self.ratio, "in [1, 1e6]");
        }
        Ok(())
    }
}

/// Why deadlines could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeadlineMakeError {
    /// A parameter is out of range.
    #[error(
        "deadline parameter {name} is {}, expected {expected}",
        workload_format::readable_number(*value)
    )]
    BadParameter {
        /// Its name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range.
        expected: &'static str,
    },
    /// The EASY run failed.
    #[error("the EASY run that sets the deadlines failed")]
    Easy(#[from] SimError),
}

/// Seconds in the artificial deadlines' floor (24 h).
const DAY: f64 = 86_400.0;

/// A uniform draw in [0, 1) for a job, from the seed and the job's number
/// (SplitMix64): the choice does not depend on the order jobs are visited.
fn uniform(seed: u64, job_number: u64) -> f64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(job_number)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Makes the deadlines of `jobs` (already load-modified) by running EASY
/// with `options` (see [`DeadlineParams`]). Deadlines are relative to the
/// submit time and rounded up to whole seconds.
///
/// # Errors
/// Parameters out of range, or an EASY run the simulator refuses.
pub fn make_deadlines(
    jobs: &JobSet,
    params: &DeadlineParams,
    options: &SimOptions,
) -> Result<Deadlines, DeadlineMakeError> {
    params.validate()?;
    let schedule = simulate_with(jobs, &mut Backfill::easy(), options)?;
    let mut deadlines = Deadlines::new();
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let (start, end) = (schedule.start(id), schedule.end(id));
        let runtime = end - start;
        let after = if uniform(params.seed, job.number) < params.fraction {
            let response = (end - job.submit) as f64;
            let target = ((1.0 - params.stringency) * response).ceil() as Time;
            Deadline::new(runtime.max(target), DeadlineKind::User)
        } else {
            let target = (params.ratio * runtime as f64).max(DAY).ceil() as Time;
            Deadline::new(target, DeadlineKind::Artificial)
        };
        deadlines.insert(job.number, after);
    }
    Ok(deadlines)
}

/// The deadline side file's text (`--deadlines FILE`), by job number.
pub fn deadlines_csv(deadlines: &Deadlines) -> String {
    let mut text = format!("{DEADLINES_HEADER}\n");
    for (number, deadline) in deadlines.iter() {
        text.push_str(&format!(
            "{number},{},{}\n",
            deadline.after_submit,
            deadline.kind.as_str()
        ));
    }
    text
}

/// One kind of job's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeadlineKindReport {
    /// `user`, `artificial` or `none`.
    pub kind: String,
    /// Jobs of this kind.
    pub jobs: u64,
    /// Of those, rejected (not admitted).
    pub rejected: u64,
    /// Rejected jobs' processor-seconds (size x runtime) over this kind's.
    pub rejected_work_share: f64,
    /// Jobs that ran and ended after their deadline.
    pub missed: u64,
    /// Mean response (end - submit) of the jobs that ran, seconds.
    pub mean_response: Option<f64>,
    /// Mean bounded slowdown (threshold tau) of the jobs that ran.
    pub mean_bounded_slowdown: Option<f64>,
}

/// The deadline figures of a run, for workloads with deadlines or runs
/// that rejected jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeadlineReport {
    /// Rejected jobs over all jobs.
    pub rejected_share: f64,
    /// Rejected processor-seconds over all jobs' processor-seconds (the
    /// paper's "unadmitted processor seconds").
    pub rejected_work_share: f64,
    /// Jobs that ran and ended after their deadline (0 for admission
    /// control with exact estimates).
    pub missed: u64,
    /// Per kind: user, artificial, none (kinds without jobs left out).
    pub kinds: Vec<DeadlineKindReport>,
}

#[derive(Default)]
struct Tally {
    jobs: u64,
    rejected: u64,
    work: f64,
    rejected_work: f64,
    missed: u64,
    ran: u64,
    response: f64,
    slowdown: f64,
}

/// The report, or `None` for a run without deadlines or rejections.
pub fn deadline_report(jobs: &JobSet, schedule: &Schedule, tau: i64) -> Option<DeadlineReport> {
    if schedule.rejected().is_empty() && jobs.jobs().iter().all(|j| j.deadline().is_none()) {
        return None;
    }
    let mut tallies: [Tally; 3] = Default::default();
    for (index, job) in jobs.jobs().iter().enumerate() {
        let id = JobId(index as u32);
        let slot = match job.deadline().map(|d| d.kind) {
            Some(DeadlineKind::User) => 0,
            Some(DeadlineKind::Artificial) => 1,
            None => 2,
        };
        let tally = &mut tallies[slot];
        let work = f64::from(job.size) * job.runtime as f64;
        tally.jobs += 1;
        tally.work += work;
        match schedule.final_state(id) {
            FinalState::Rejected => {
                tally.rejected += 1;
                tally.rejected_work += work;
            }
            state if state.ran() => {
                let (start, end) = (schedule.start(id), schedule.end(id));
                if job.absolute_deadline().is_some_and(|d| end > d) {
                    tally.missed += 1;
                }
                let runtime = end - start;
                let response = (end - job.submit) as f64;
                tally.ran += 1;
                tally.response += response;
                tally.slowdown += (response / runtime.max(tau) as f64).max(1.0);
            }
            _ => {}
        }
    }
    let share = |part: f64, whole: f64| if whole > 0.0 { part / whole } else { 0.0 };
    let all_jobs: u64 = tallies.iter().map(|t| t.jobs).sum();
    let all_work: f64 = tallies.iter().map(|t| t.work).sum();
    let kinds = ["user", "artificial", "none"]
        .into_iter()
        .zip(&tallies)
        .filter(|(_, t)| t.jobs > 0)
        .map(|(kind, t)| DeadlineKindReport {
            kind: kind.to_owned(),
            jobs: t.jobs,
            rejected: t.rejected,
            rejected_work_share: share(t.rejected_work, t.work),
            missed: t.missed,
            mean_response: (t.ran > 0).then(|| t.response / t.ran as f64),
            mean_bounded_slowdown: (t.ran > 0).then(|| t.slowdown / t.ran as f64),
        })
        .collect();
    Some(DeadlineReport {
        rejected_share: share(
            tallies.iter().map(|t| t.rejected).sum::<u64>() as f64,
            all_jobs as f64,
        ),
        rejected_work_share: share(tallies.iter().map(|t| t.rejected_work).sum(), all_work),
        missed: tallies.iter().map(|t| t.missed).sum(),
        kinds,
    })
}

impl DeadlineReport {
    /// The figures as a JSON object whose paths name them in sweeps:
    /// `rejected_share`, `rejected_work_share`, `missed`, and per kind
    /// (`user`, `artificial`, `none`) `jobs`, `rejected`, `rejected_share`,
    /// `rejected_work_share`, `missed`, `mean_response`,
    /// `mean_bounded_slowdown`.
    pub fn metrics_json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert("rejected_share".to_owned(), self.rejected_share.into());
        object.insert(
            "rejected_work_share".to_owned(),
            self.rejected_work_share.into(),
        );
        object.insert("missed".to_owned(), self.missed.into());
        for kind in &self.kinds {
            let share = if kind.jobs > 0 {
                kind.rejected as f64 / kind.jobs as f64
            } else {
                0.0
            };
            object.insert(
                kind.kind.clone(),
                serde_json::json!({
                    "jobs": kind.jobs,
                    "rejected": kind.rejected,
                    "rejected_share": share,
                    "rejected_work_share": kind.rejected_work_share,
                    "missed": kind.missed,
                    "mean_response": kind.mean_response,
                    "mean_bounded_slowdown": kind.mean_bounded_slowdown,
                }),
            );
        }
        object.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim_sim_core::{Job, JobModel, simulate};

    /// Rejects job 2, runs the others at once.
    struct RejectSecond;

    impl schedsim_sim_core::Policy for RejectSecond {
        fn name(&self) -> &str {
            "reject-second"
        }
        fn schedule(
            &mut self,
            view: &schedsim_sim_core::View<'_>,
            decisions: &mut schedsim_sim_core::Decisions,
        ) {
            for &id in view.queue() {
                if id == JobId(1) {
                    decisions.reject(id, "test");
                } else {
                    decisions.start(id);
                }
            }
        }
    }

    #[test]
    fn huge_parameters_are_shown_short() {
        // --ratio 1e300: beyond [1, 1e6], shown as 1e300, not 301 digits.
        let params = DeadlineParams::new(0.5).mixed(0.2, 1e300, 1);
        assert_eq!(
            params.validate().unwrap_err().to_string(),
            "deadline parameter ratio is 1e300, expected in [1, 1e6]"
        );
        let params = DeadlineParams::new(0.5).mixed(0.2, 0.5, 1);
        assert_eq!(
            params.validate().unwrap_err().to_string(),
            "deadline parameter ratio is 0.5, expected in [1, 1e6]"
        );
    }

    #[test]
    fn deadlines_from_easy_by_hand() {
        // 10 processors. Job 1: 10 wide, 100 s, at 0. Job 2: 10 wide, 50 s,
        // at 10: EASY starts it at 100 (ends 150), response 140.
        let jobs = JobSet::from_jobs(
            vec![Job::new(1, 0, 10, 100, 100), Job::new(2, 10, 10, 50, 50)],
            &JobModel::new(10),
        )
        .unwrap();
        let options = SimOptions::default();
        // s = 0.2: job 1 max(100, ceil(0.8 x 100) = 80) = 100; job 2
        // max(50, ceil(0.8 x 140) = 112) = 112.
        let user = make_deadlines(&jobs, &DeadlineParams::new(0.2), &options).unwrap();
        assert_eq!(user.get(1), Some(Deadline::new(100, DeadlineKind::User)));
        assert_eq!(user.get(2), Some(Deadline::new(112, DeadlineKind::User)));
        assert_eq!(
            deadlines_csv(&user),
            "job_number,deadline_after_submit,kind\n1,100,user\n2,112,user\n"
        );
        // No user deadlines: artificial max(24 h, 5 x p) = 86,400 for both;
        // with R = 2,000: job 1 gets 200,000, job 2 100,000.
        let none = make_deadlines(
            &jobs,
            &DeadlineParams::new(0.2).mixed(0.0, 5.0, 1),
            &options,
        )
        .unwrap();
        assert_eq!(
            none.get(2),
            Some(Deadline::new(86_400, DeadlineKind::Artificial))
        );
        let long = make_deadlines(
            &jobs,
            &DeadlineParams::new(0.2).mixed(0.0, 2000.0, 1),
            &options,
        )
        .unwrap();
        assert_eq!(long.get(1).unwrap().after_submit, 200_000);
        assert_eq!(long.get(2).unwrap().after_submit, 100_000);
        assert!(make_deadlines(&jobs, &DeadlineParams::new(1.0), &options).is_err());
    }

    #[test]
    fn the_user_share_is_seeded_and_close_to_the_fraction() {
        // 1,000 one-processor jobs on 1,000 processors; 20% should get
        // user deadlines: binomial(1000, 0.2) has standard deviation 12.6,
        // so 200 +- 50 holds unless the draws are broken.
        let jobs = JobSet::from_jobs(
            (1..=1000)
                .map(|n| Job::new(n, n as i64, 1, 10, 10))
                .collect(),
            &JobModel::new(1000),
        )
        .unwrap();
        let params = DeadlineParams::new(0.5).mixed(0.2, 5.0, 7);
        let made = make_deadlines(&jobs, &params, &SimOptions::default()).unwrap();
        let users = made
            .iter()
            .filter(|(_, d)| d.kind == DeadlineKind::User)
            .count();
        assert!((150..=250).contains(&users), "{users}");
        let again = make_deadlines(&jobs, &params, &SimOptions::default()).unwrap();
        assert_eq!(deadlines_csv(&made), deadlines_csv(&again));
        let other = make_deadlines(
            &jobs,
            &DeadlineParams::new(0.5).mixed(0.2, 5.0, 8),
            &SimOptions::default(),
        )
        .unwrap();
        assert_ne!(deadlines_csv(&made), deadlines_csv(&other));
    }

    #[test]
    fn shares_misses_and_kinds_by_hand() {
        // 10 processors. Job 1: 2 x 100 s, user deadline 50 s after
        // submit: runs 0-100, misses. Job 2: 4 x 50 s, user deadline 1000:
        // rejected. Job 3: 1 x 10 s, artificial deadline 86,400: runs
        // 0-10 at submit 0, response 10, bounded slowdown max(10/10, 1) =
        // 1.
        let deadline = |after, kind| Deadline {
            after_submit: after,
            kind,
        };
        let jobs = JobSet::from_jobs(
            vec![
                Job::new(1, 0, 2, 100, 100).with_deadline(deadline(50, DeadlineKind::User)),
                Job::new(2, 0, 4, 50, 50).with_deadline(deadline(1000, DeadlineKind::User)),
                Job::new(3, 0, 1, 10, 10).with_deadline(deadline(86_400, DeadlineKind::Artificial)),
            ],
            &JobModel::new(10),
        )
        .unwrap();
        let schedule = simulate(&jobs, &mut RejectSecond).unwrap();
        let report = deadline_report(&jobs, &schedule, 10).unwrap();
        // Rejected: 1 of 3 jobs; work 200 of 200 + 200 + 10 = 410.
        assert!((report.rejected_share - 1.0 / 3.0).abs() < 1e-12);
        assert!((report.rejected_work_share - 200.0 / 410.0).abs() < 1e-12);
        assert_eq!(report.missed, 1);
        let user = &report.kinds[0];
        assert_eq!(
            (user.kind.as_str(), user.jobs, user.rejected, user.missed),
            ("user", 2, 1, 1)
        );
        // User work: 200 (job 1) + 200 (job 2, rejected).
        assert!((user.rejected_work_share - 0.5).abs() < 1e-12);
        assert_eq!(user.mean_response, Some(100.0));
        let artificial = &report.kinds[1];
        assert_eq!(
            (artificial.kind.as_str(), artificial.jobs, artificial.missed),
            ("artificial", 1, 0)
        );
        assert_eq!(artificial.mean_bounded_slowdown, Some(1.0));
        assert_eq!(report.kinds.len(), 2, "no job without a deadline");
    }
}

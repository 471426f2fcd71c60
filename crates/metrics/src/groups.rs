//! User groups by resource consumption, and the per-group metrics of
//! Franke, Lepping and Schwiegelshohn ("Greedy scheduling with complex
//! objectives", CI-Sched 2007, section IV).
//!
//! Definitions (the paper's equation numbers):
//! - resource consumption of user u: `RC_u = sum of p_j * m_j` over u's jobs
//!   (eq. 2), p_j the actual run time ([`CompletedJob::runtime`]: time
//!   suspended does not count), m_j the job's processors; of all users:
//!   `RC` (eq. 3);
//! - user group (Table II) by the share `RC_u / RC`: 1 above 8%, 2 from 2%
//!   to 8%, 3 from 1% to 2%, 4 from 0.1% to 1%, 5 below 0.1%;
//! - `AWRT_k = sum p_j m_j (C_j - r_j) / sum p_j m_j` over group k's jobs
//!   (eq. 7; over all jobs, eq. 6), C_j the completion, r_j the submission;
//! - `UTIL = sum p_j m_j / (m * (last completion - first start))` (eq. 5).
//!
//! These user groups are the paper's classes of users and have nothing to
//! do with the SWF group id (field 13).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::summary::{CompletedJob, CompletedJobTable, MetricsError, check_job, check_job_on};

/// Why user groups or their metrics could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// The thresholds of a [`GroupRule`] are not strictly decreasing shares
    /// in (0, 100%].
    #[error(
        "group threshold {index} is {ppm} parts per million, expected at most 1000000, above 0 and below the previous threshold"
    )]
    BadThreshold {
        /// The threshold's position.
        index: usize,
        /// Its value.
        ppm: u32,
    },
    /// A job with a time outside `0..=`[`TIME_LIMIT`](crate::TIME_LIMIT), one
    /// that starts before it is submitted or finishes before it starts
    /// ([`MetricsError::InconsistentJob`]), was suspended longer than it ran
    /// ([`MetricsError::BadSuspension`]), or (for [`group_metrics`]) is
    /// wider than the machine ([`MetricsError::JobTooWide`]).
    #[error(transparent)]
    Job(#[from] MetricsError),
    /// A job's user is not in the group table.
    #[error("job {index} belongs to user {user}, who is not in the group table")]
    UnknownUser {
        /// Its position in the input.
        index: usize,
        /// The user.
        user: u32,
    },
    /// The total resource consumption does not fit 64 bits.
    #[error("the resource consumption of job {index} overflows 64 bits")]
    Overflow {
        /// The job whose work could not be added.
        index: usize,
    },
    /// The machine has no processors.
    #[error("the machine has no processors")]
    NoProcessors,
}

/// One boundary between two user groups: a share of the total resource
/// consumption, in parts per million, and whether a user with exactly that
/// share belongs to the group above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threshold {
    /// The share, in parts per million of the total (8% = 80,000).
    pub ppm: u32,
    /// Whether a share equal to it counts as reaching it.
    pub inclusive: bool,
}

/// How shares map to groups: group k (1-based) holds the users whose share
/// reaches threshold k but no earlier one; the last group holds the rest.
/// Shares are compared exactly (integer work against integer thresholds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRule {
    thresholds: Vec<Threshold>,
}

impl Default for GroupRule {
    fn default() -> Self {
        Self::paper()
    }
}

impl GroupRule {
    /// Table II of the paper: group 1 above 8%, 2 from 2% to 8%, 3 from 1%
    /// to 2%, 4 from 0.1% to 1%, 5 below 0.1%.
    ///
    /// The table's strict signs place a share of exactly 8% in group 2 and
    /// of exactly 0.1% in group 4; it leaves 2% and 1% open. We put each in
    /// the higher group (2% in group 2, 1% in group 3), so that groups 2 to
    /// 4 are the ranges "from x% to below y%" except that group 2 includes
    /// 8%. [`GroupRule::new`] builds any other reading.
    pub fn paper() -> Self {
        let at = |ppm, inclusive| Threshold { ppm, inclusive };
        Self {
            thresholds: vec![
                at(80_000, false),
                at(20_000, true),
                at(10_000, true),
                at(1_000, true),
            ],
        }
    }

    /// A rule with these thresholds, highest first; there are
    /// `thresholds.len() + 1` groups.
    ///
    /// # Errors
    /// A threshold of 0 or above 1,000,000 ppm, or not below the one before.
    pub fn new(thresholds: Vec<Threshold>) -> Result<Self, GroupError> {
        for (index, t) in thresholds.iter().enumerate() {
            let below_previous = index == 0 || t.ppm < thresholds[index - 1].ppm;
            if t.ppm == 0 || t.ppm > 1_000_000 || !below_previous {
                return Err(GroupError::BadThreshold { index, ppm: t.ppm });
            }
        }
        Ok(Self { thresholds })
    }

    /// The thresholds, highest first.
    pub fn thresholds(&self) -> &[Threshold] {
        &self.thresholds
    }

    /// The number of groups.
    pub fn groups(&self) -> usize {
        self.thresholds.len() + 1
    }

    /// The group (1-based) of a user with `work` out of `total`.
    pub fn group_of(&self, work: u64, total: u64) -> usize {
        // share >= ppm / 1e6  <=>  work * 1e6 >= ppm * total, in exact integers.
        let scaled = u128::from(work) * 1_000_000;
        self.thresholds
            .iter()
            .position(|t| {
                let bar = u128::from(t.ppm) * u128::from(total);
                total > 0
                    && if t.inclusive {
                        scaled >= bar
                    } else {
                        scaled > bar
                    }
            })
            .map_or(self.groups(), |k| k + 1)
    }
}

/// A user's place in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserShare {
    /// The user.
    pub user: u32,
    /// Jobs submitted.
    pub jobs: u64,
    /// Resource consumption RC_u, processor-seconds.
    pub work: u64,
    /// The user's group (1-based).
    pub group: usize,
}

/// One group's members and share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupShare {
    /// The group (1-based).
    pub group: usize,
    /// Users in it.
    pub users: u64,
    /// Their jobs.
    pub jobs: u64,
    /// Their resource consumption, processor-seconds.
    pub work: u64,
    /// Their share of the total resource consumption, in [0, 1].
    pub share: f64,
}

/// The user -> group table of a workload (eq. 2-4, Table II).
///
/// Jobs of unknown users count in the total (eq. 3 sums over all jobs) but
/// belong to no user and hence to no group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserGroups {
    rule: GroupRule,
    users: Vec<UserShare>,
    total_work: u64,
    unknown_user_jobs: u64,
    unknown_user_work: u64,
}

impl UserGroups {
    /// The table from each job's user, actual run time (seconds) and
    /// processors, e.g. straight from workload records before any
    /// simulation (a job's group does not depend on the schedule).
    ///
    /// # Errors
    /// Resource consumption beyond 64 bits.
    pub fn from_work<I>(jobs: I, rule: &GroupRule) -> Result<Self, GroupError>
    where
        I: IntoIterator<Item = (Option<u32>, u64, u32)>,
    {
        let mut per_user: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        let (mut total_work, mut unknown_user_jobs, mut unknown_user_work) = (0u64, 0u64, 0u64);
        for (index, (user, runtime, procs)) in jobs.into_iter().enumerate() {
            let overflow = GroupError::Overflow { index };
            let work = runtime
                .checked_mul(u64::from(procs))
                .ok_or(overflow.clone())?;
            total_work = total_work.checked_add(work).ok_or(overflow.clone())?;
            match user {
                Some(user) => {
                    let entry = per_user.entry(user).or_default();
                    entry.0 += 1;
                    entry.1 = entry.1.checked_add(work).ok_or(overflow)?;
                }
                None => {
                    unknown_user_jobs += 1;
                    unknown_user_work += work;
                }
            }
        }
        let users = per_user
            .into_iter()
            .map(|(user, (jobs, work))| UserShare {
                user,
                jobs,
                work,
                group: rule.group_of(work, total_work),
            })
            .collect();
        Ok(Self {
            rule: rule.clone(),
            users,
            total_work,
            unknown_user_jobs,
            unknown_user_work,
        })
    }

    /// The table from completed jobs ([`CompletedJob::user`],
    /// [`CompletedJob::runtime`], [`CompletedJob::procs`]).
    ///
    /// # Errors
    /// A job with inconsistent times, or resource consumption beyond 64
    /// bits.
    pub fn from_jobs(jobs: &[CompletedJob], rule: &GroupRule) -> Result<Self, GroupError> {
        for (index, job) in jobs.iter().enumerate() {
            check_job(index, job)?;
        }
        Self::from_work(
            jobs.iter().map(|j| (j.user, j.runtime() as u64, j.procs)),
            rule,
        )
    }

    /// The rule the table was made with.
    pub fn rule(&self) -> &GroupRule {
        &self.rule
    }

    /// The number of groups.
    pub fn groups(&self) -> usize {
        self.rule.groups()
    }

    /// The group (1-based) of `user`; `None` if the user had no job.
    pub fn group_of(&self, user: u32) -> Option<usize> {
        self.users
            .binary_search_by_key(&user, |u| u.user)
            .ok()
            .map(|i| self.users[i].group)
    }

    /// Every user, by user id.
    pub fn users(&self) -> &[UserShare] {
        &self.users
    }

    /// The total resource consumption RC, processor-seconds.
    pub fn total_work(&self) -> u64 {
        self.total_work
    }

    /// Jobs of unknown users and their resource consumption.
    pub fn unknown_user(&self) -> (u64, u64) {
        (self.unknown_user_jobs, self.unknown_user_work)
    }

    /// Each group's users, jobs, work and share, groups in order.
    pub fn shares(&self) -> Vec<GroupShare> {
        let mut shares: Vec<GroupShare> = (1..=self.groups())
            .map(|group| GroupShare {
                group,
                users: 0,
                jobs: 0,
                work: 0,
                share: 0.0,
            })
            .collect();
        for user in &self.users {
            let share = &mut shares[user.group - 1];
            share.users += 1;
            share.jobs += user.jobs;
            share.work += user.work;
        }
        for share in &mut shares {
            if self.total_work > 0 {
                share.share = share.work as f64 / self.total_work as f64;
            }
        }
        shares
    }
}

/// One group's part of a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupStats {
    /// The group (1-based).
    pub group: usize,
    /// Its jobs in the schedule.
    pub jobs: u64,
    /// Their resource consumption, processor-seconds.
    pub work: u64,
    /// AWRT_k (eq. 7), seconds; `None` if the group consumed nothing.
    pub awrt: Option<f64>,
}

/// The group metrics of a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupMetrics {
    /// Per group, in order.
    pub groups: Vec<GroupStats>,
    /// AWRT over all jobs (eq. 6), seconds; `None` without work.
    pub awrt: Option<f64>,
    /// UTIL (eq. 5), in [0, 1]; `None` if no time passed between the first
    /// start and the last completion.
    pub util: Option<f64>,
    /// Jobs of unknown users (in AWRT and UTIL, in no group).
    pub unknown_user_jobs: u64,
}

impl GroupMetrics {
    /// AWRT_k of group `group` (1-based); `None` if there is no such group
    /// or it consumed nothing.
    pub fn awrt_of(&self, group: usize) -> Option<f64> {
        self.groups.get(group.checked_sub(1)?)?.awrt
    }
}

/// The group metrics of a schedule of `jobs` on `machine_procs` processors,
/// each job's group looked up in `groups` (usually made from the same jobs
/// or the workload they came from). All jobs count; there is no warm-up or
/// drain exclusion, as in the paper. Sums are exact integers, so the result
/// does not depend on the order of the jobs.
///
/// ```
/// use schedsim_metrics::{CompletedJob, GroupRule, UserGroups, group_metrics};
///
/// // User 1: 100 s on 9 processors (work 900, 90% of 1000): group 1.
/// // User 2: 100 s on 1 processor (work 100, 10%): group 1 as well.
/// // User 3: 1 s on 1 processor (work 1, 0.0999%): group 5.
/// let jobs = [
///     CompletedJob::new(0, 0, 100, 9).with_user(1),
///     CompletedJob::new(0, 100, 200, 1).with_user(2),
///     CompletedJob::new(0, 0, 1, 1).with_user(3),
/// ];
/// let groups = UserGroups::from_jobs(&jobs, &GroupRule::paper())?;
/// assert_eq!(groups.group_of(3), Some(5));
/// let metrics = group_metrics(&jobs, &groups, 10)?;
/// // AWRT_1 = (900 * 100 + 100 * 200) / (900 + 100) = 110 s.
/// assert_eq!(metrics.awrt_of(1), Some(110.0));
/// // UTIL = 1001 / (10 processors * (200 - 0)) = 0.5005.
/// assert_eq!(metrics.util, Some(0.5005));
/// # Ok::<(), schedsim_metrics::GroupError>(())
/// ```
///
/// # Errors
/// No processors, a job with times out of range or inconsistent, or wider
/// than the machine (all [`GroupError::Job`]), a user missing from
/// `groups`, or resource consumption beyond 64 bits.
pub fn group_metrics(
    jobs: &[CompletedJob],
    groups: &UserGroups,
    machine_procs: u32,
) -> Result<GroupMetrics, GroupError> {
    group_metrics_table(jobs, groups, machine_procs)
}

/// [`group_metrics`] over jobs read one at a time, in one pass (the same
/// metrics as over a slice of the same jobs).
///
/// # Errors
/// As [`group_metrics`].
pub fn group_metrics_table<T: CompletedJobTable + ?Sized>(
    jobs: &T,
    groups: &UserGroups,
    machine_procs: u32,
) -> Result<GroupMetrics, GroupError> {
    if machine_procs == 0 {
        return Err(GroupError::NoProcessors);
    }
    let count = groups.groups();
    // Per group (index 0 = all jobs): jobs, work, sum of work x response.
    let mut sums = vec![(0u64, 0u64, 0u128); count + 1];
    let mut unknown_user_jobs = 0;
    let (mut first_start, mut last_finish) = (i64::MAX, i64::MIN);
    for index in 0..jobs.len() {
        let job = &jobs.job(index);
        check_job_on(index, job, machine_procs)?;
        let work = (job.runtime() as u64)
            .checked_mul(u64::from(job.procs))
            .ok_or(GroupError::Overflow { index })?;
        let response = (job.finish - job.submit) as u128;
        let group = match job.user {
            Some(user) => Some(
                groups
                    .group_of(user)
                    .ok_or(GroupError::UnknownUser { index, user })?,
            ),
            None => {
                unknown_user_jobs += 1;
                None
            }
        };
        for slot in std::iter::once(0).chain(group) {
            let sum = &mut sums[slot];
            sum.0 += 1;
            sum.1 = sum
                .1
                .checked_add(work)
                .ok_or(GroupError::Overflow { index })?;
            sum.2 += u128::from(work) * response;
        }
        first_start = first_start.min(job.start);
        last_finish = last_finish.max(job.finish);
    }
    let awrt =
        |(_, work, weighted): (u64, u64, u128)| (work > 0).then(|| weighted as f64 / work as f64);
    let span = last_finish.saturating_sub(first_start);
    let util = (!jobs.is_empty() && span > 0)
        .then(|| sums[0].1 as f64 / (f64::from(machine_procs) * span as f64));
    Ok(GroupMetrics {
        groups: (1..=count)
            .map(|group| GroupStats {
                group,
                jobs: sums[group].0,
                work: sums[group].1,
                awrt: awrt(sums[group]),
            })
            .collect(),
        awrt: awrt(sums[0]),
        util,
        unknown_user_jobs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_boundaries() {
        let rule = GroupRule::paper();
        // Shares out of a total of 1,000,000 processor-seconds.
        let group = |work| rule.group_of(work, 1_000_000);
        assert_eq!(group(80_001), 1); // above 8%
        assert_eq!(group(80_000), 2); // exactly 8%: "> 8 %" excludes it
        assert_eq!(group(20_000), 2); // exactly 2%: our reading, the higher group
        assert_eq!(group(19_999), 3);
        assert_eq!(group(10_000), 3); // exactly 1%: the higher group
        assert_eq!(group(1_000), 4); // exactly 0.1%: "< 0.1 %" excludes it from 5
        assert_eq!(group(999), 5);
        assert_eq!(group(0), 5);
        // No work at all: everybody in the last group.
        assert_eq!(rule.group_of(0, 0), 5);
    }

    #[test]
    fn rules_are_checked() {
        let t = |ppm| Threshold {
            ppm,
            inclusive: true,
        };
        assert!(GroupRule::new(vec![t(500_000), t(100)]).is_ok());
        assert_eq!(
            GroupRule::new(vec![t(100), t(100)]),
            Err(GroupError::BadThreshold { index: 1, ppm: 100 })
        );
        assert!(GroupRule::new(vec![t(0)]).is_err());
        assert!(GroupRule::new(vec![t(1_000_001)]).is_err());
        assert_eq!(GroupRule::new(vec![]).unwrap().groups(), 1);
    }

    #[test]
    fn table_and_shares_by_hand() {
        // Work: user 7: 2 jobs, 50*10 + 30*10 = 800; user 3: 150*1 = 150;
        // user 9: 45*1 = 45; user 4: 4*1 = 4; unknown: 1*1 = 1. Total 1000.
        // Shares 80% (1), 15% (1), 4.5% (2), 0.4% (4); group 3 and 5 empty.
        let jobs = [
            (Some(7), 50, 10),
            (Some(3), 150, 1),
            (Some(7), 30, 10),
            (Some(9), 45, 1),
            (Some(4), 4, 1),
            (None, 1, 1),
        ];
        let table = UserGroups::from_work(jobs, &GroupRule::paper()).unwrap();
        assert_eq!(table.total_work(), 1000);
        assert_eq!(table.unknown_user(), (1, 1));
        let groups: Vec<(u32, usize)> = table.users().iter().map(|u| (u.user, u.group)).collect();
        assert_eq!(groups, [(3, 1), (4, 4), (7, 1), (9, 2)]);
        assert_eq!(table.group_of(7), Some(1));
        assert_eq!(table.group_of(8), None);
        let shares: Vec<(u64, u64, u64)> = table
            .shares()
            .iter()
            .map(|s| (s.users, s.jobs, s.work))
            .collect();
        assert_eq!(
            shares,
            [(2, 3, 950), (1, 1, 45), (0, 0, 0), (1, 1, 4), (0, 0, 0)]
        );
        assert_eq!(table.shares()[0].share, 0.95);
    }

    #[test]
    fn awrt_per_group_by_hand() {
        // Machine of 4 processors. Groups: user 1 has 360 of 404 (89%,
        // group 1), user 2 has 40 (9.9%, group 1), user 3 has 4 (0.99%,
        // group 4).
        // user 1: submit 0, runs 10..100 on 4: work 360, response 100.
        // user 2: submit 5, runs 100..120 on 2: work 40, response 115.
        // user 3: submit 50, runs 120..122 on 2: work 4, response 72.
        let jobs = [
            CompletedJob::new(0, 10, 100, 4).with_user(1),
            CompletedJob::new(5, 100, 120, 2).with_user(2),
            CompletedJob::new(50, 120, 122, 2).with_user(3),
        ];
        let table = UserGroups::from_jobs(&jobs, &GroupRule::paper()).unwrap();
        assert_eq!(
            [table.group_of(1), table.group_of(2), table.group_of(3)],
            [Some(1), Some(1), Some(4)]
        );
        let m = group_metrics(&jobs, &table, 4).unwrap();
        // AWRT_1 = (360 * 100 + 40 * 115) / 400 = 40600 / 400 = 101.5.
        assert_eq!(m.awrt_of(1), Some(101.5));
        // AWRT_4 = 4 * 72 / 4 = 72; groups 2, 3, 5 have no work.
        assert_eq!(m.awrt_of(4), Some(72.0));
        assert_eq!([m.awrt_of(2), m.awrt_of(3), m.awrt_of(5)], [None; 3]);
        assert_eq!(m.awrt_of(0), None);
        assert_eq!(m.awrt_of(6), None);
        // AWRT (eq. 6) = (36000 + 4600 + 288) / 404 = 40888 / 404.
        assert_eq!(m.awrt, Some(40888.0 / 404.0));
        // UTIL = 404 / (4 * (122 - 10)) = 404 / 448: from the first start
        // (10), not the first submit (0).
        assert_eq!(m.util, Some(404.0 / 448.0));
        assert_eq!((m.groups[0].jobs, m.groups[0].work), (2, 400));
    }

    #[test]
    fn suspended_time_is_not_work() {
        // Runs 0..100 on 2 processors but suspended 40 s of it: p_j = 60,
        // work 120 (not 200). Response 100. UTIL = 120 / (2 * (100 - 0)).
        let jobs = [CompletedJob::new(0, 0, 100, 2)
            .with_suspended(40, 1)
            .with_user(1)];
        let table = UserGroups::from_jobs(&jobs, &GroupRule::paper()).unwrap();
        assert_eq!(table.total_work(), 120);
        let m = group_metrics(&jobs, &table, 2).unwrap();
        assert_eq!((m.groups[0].work, m.awrt_of(1)), (120, Some(100.0)));
        assert_eq!(m.util, Some(0.6));
        let bad = [CompletedJob::new(0, 0, 100, 2).with_suspended(101, 1)];
        assert!(matches!(
            UserGroups::from_jobs(&bad, &GroupRule::paper()),
            Err(GroupError::Job(MetricsError::BadSuspension {
                index: 0,
                suspended: 101,
                span: 100,
            }))
        ));
    }

    #[test]
    fn awrt_weights_by_work_not_by_job() {
        // Group 1 alone: a 1-processor 1 s job with response 1001 s, and a
        // 10-processor 100 s job with response 100 s. Work 1 and 1000.
        // AWRT = (1 * 1001 + 1000 * 100) / 1001 = 101001 / 1001 = 100.9;
        // the unweighted mean response would be 550.5.
        let jobs = [
            CompletedJob::new(0, 1000, 1001, 1).with_user(1),
            CompletedJob::new(0, 0, 100, 10).with_user(1),
        ];
        let table = UserGroups::from_jobs(&jobs, &GroupRule::paper()).unwrap();
        let m = group_metrics(&jobs, &table, 10).unwrap();
        assert_eq!(m.awrt_of(1), Some(101_001.0 / 1001.0));
    }

    #[test]
    fn bad_input_is_an_error() {
        let jobs = [CompletedJob::new(0, 0, 10, 1).with_user(1)];
        let table = UserGroups::from_jobs(&jobs, &GroupRule::paper()).unwrap();
        let stranger = [CompletedJob::new(0, 0, 10, 1).with_user(2)];
        assert_eq!(
            group_metrics(&stranger, &table, 4).unwrap_err().to_string(),
            "job 0 belongs to user 2, who is not in the group table"
        );
        let backwards = [CompletedJob::new(5, 4, 10, 1).with_user(1)];
        assert!(matches!(
            UserGroups::from_jobs(&backwards, &GroupRule::paper()),
            Err(GroupError::Job(MetricsError::InconsistentJob {
                index: 0,
                ..
            }))
        ));
        assert_eq!(
            group_metrics(&jobs, &table, 0),
            Err(GroupError::NoProcessors)
        );
        let huge = [(Some(1), u64::MAX, 2)];
        assert_eq!(
            UserGroups::from_work(huge, &GroupRule::paper()),
            Err(GroupError::Overflow { index: 0 })
        );
        // Unknown users count in AWRT and UTIL but in no group.
        let anonymous = [CompletedJob::new(0, 0, 10, 1)];
        let m = group_metrics(&anonymous, &table, 1).unwrap();
        assert_eq!(
            (m.unknown_user_jobs, m.awrt, m.util),
            (1, Some(10.0), Some(1.0))
        );
        assert!(m.groups.iter().all(|g| g.jobs == 0));
    }
}

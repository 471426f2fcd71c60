//! The Greedy policy of Franke, Lepping and Schwiegelshohn ("Greedy
//! scheduling with complex objectives", CI-Sched 2007, section III): the
//! waiting queue re-ordered by the current situation's sorting criterion at
//! every submission and completion, jobs started from the top while they
//! fit, no backfilling.

use std::path::Path;

use schedsim_metrics::{GroupRule, UserGroups};
use schedsim_sim_core::{Calendar, Decisions, JobId, Policy, Time, View};

use crate::error::SpecError;
use crate::greedy::{GreedyJob, GreedyParameters, GreedyQueue, Situation, USER_GROUPS};

/// Greedy scheduling with trained sorting criteria.
///
/// The paper (section III): "jobs are inserted into the waiting queue after
/// release as usual. Then the waiting queue is ordered using a sorting
/// criterion with dynamic components. Finally, the job at the top of the
/// queue is scheduled as in the FCFS algorithm [...] The sorting of the
/// waiting \[queue\] is repeated whenever a new job is submitted or a job in
/// the current schedule has completed its execution." FCFS (section
/// II-A.1): "The job on top of the queue is started as soon as enough idle
/// machines are available to execute it."
///
/// At each call the policy:
/// 1. finds the scheduling situation from the local time of `now` in the
///    log's calendar ([`View::calendar`]; UTC from the Unix epoch when the
///    workload has none): weekend, week day 8:00-18:00, week day
///    18:00-8:00 ([`Situation::of`]);
/// 2. scores the waiting jobs with that situation's criterion at `now`
///    (higher first; ties by submission, then job id);
/// 3. starts the top job while it fits the free processors and stops at
///    the first that does not (no backfilling).
///
/// The simulator calls a policy once per timestamp by default, after all
/// the submissions and completions of that second; with `--invoke
/// per-event` it calls it after each single event, the paper's literal "at
/// every submission or completion" (the two differ only when several
/// events share a second).
///
/// **User groups** (section IV-A, Table II) come from the whole workload
/// before the first decision: a user's share of the total resource
/// consumption `sum p_j m_j`, with p_j the job's run time as simulated
/// (after the overrun rule) and m_j its processors
/// ([`schedsim_metrics::UserGroups`], [`GroupRule::paper`]). The paper
/// defines the groups this way, from the recorded trace, so the scheduler
/// knows each user's group in advance, as a site knows its users. Jobs
/// without a user (SWF field 12 unknown) are in group 5, the lowest.
///
/// p̄_j is the job's estimate as submitted ([`schedsim_sim_core::Job::estimate`]).
///
/// ```
/// use schedsim_policies::{Criterion, CriterionParams, Greedy, GreedyParameters, SortingCriterion};
/// use schedsim_sim_core::{Job, JobId, JobModel, JobSet, simulate};
///
/// // f2 with all w_i = 1, a = 1, b = K_i = 0 scores t - r_j: FCFS order.
/// let params = CriterionParams { a: 1.0, b: 0.0, w: [1.0; 5], k: [0.0; 5] };
/// let f2 = SortingCriterion::new(Criterion::F2, params)?;
/// let mut greedy = Greedy::new(GreedyParameters { weekend: f2, weekday_day: f2, weekday_night: f2 });
/// let job = |number, submit, size| Job::new(number, submit, size, 100, 100);
/// // 10 processors: job 1 takes 6, job 2 needs 8 and waits, job 3 (4) would
/// // fit but Greedy stops at job 2.
/// let jobs = JobSet::from_jobs(vec![job(1, 0, 6), job(2, 1, 8), job(3, 2, 4)], &JobModel::new(10))?;
/// let schedule = simulate(&jobs, &mut greedy)?;
/// assert_eq!(schedule.starts(), [0, 100, 200]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Greedy {
    params: GreedyParameters,
    name: String,
    /// The waiting jobs once per situation, each under its criterion, so
    /// that a change of situation costs nothing (rebuilding a queue of
    /// thousands of jobs three times a day would dominate the run).
    queues: [GreedyQueue; 3],
    /// The user group (1-5) of every job of the workload, by job index;
    /// empty until the first call.
    groups: Vec<u8>,
    /// The largest job id put in the queue so far (the simulator's queue is
    /// in arrival order, which is id order, so newer arrivals are at its
    /// end).
    newest: Option<JobId>,
    /// The time of the last call (a call back in time means a new
    /// simulation).
    last_call: Time,
    /// The calendar of workloads without one.
    utc: Calendar,
}

impl Greedy {
    /// Greedy with these criteria, named `greedy`.
    pub fn new(params: GreedyParameters) -> Self {
        Self {
            params,
            name: "greedy".to_owned(),
            queues: SITUATIONS.map(|situation| GreedyQueue::new(*params.criterion(situation))),
            groups: Vec::new(),
            newest: None,
            last_call: Time::MIN,
            utc: Calendar::utc(0),
        }
    }

    /// The same policy under another name (for reports).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Greedy with the criteria of a parameter file (JSON, as
    /// [`GreedyParameters`] serializes), named `greedy:params=PATH`.
    ///
    /// # Errors
    /// A file that cannot be read, or is not a valid parameter file
    /// (parameters out of bounds included).
    pub fn from_file(path: &Path) -> Result<Self, SpecError> {
        let bad = |reason: String| SpecError::BadParameterFile {
            path: path.display().to_string(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let params: GreedyParameters =
            serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        Ok(Self::new(params).with_name(format!("greedy:params={}", path.display())))
    }

    /// The criteria.
    pub fn params(&self) -> &GreedyParameters {
        &self.params
    }

    /// Puts the jobs that arrived since the last call into the queue (or
    /// rebuilds it when it lost track, e.g. a hand-made view). Jobs leave
    /// the simulator's queue only when this policy starts them, so the
    /// lengths agree unless something else changed.
    fn sync_queue(&mut self, view: &View<'_>) {
        let waiting = view.queue();
        let fresh = waiting
            .iter()
            .rev()
            .take_while(|&&id| self.newest.is_none_or(|newest| id > newest))
            .count();
        for &id in &waiting[waiting.len() - fresh..] {
            self.insert(view, id);
        }
        if self.queues[0].len() != waiting.len() {
            self.clear();
            for &id in waiting {
                self.insert(view, id);
            }
        }
    }

    fn clear(&mut self) {
        for queue in &mut self.queues {
            queue.clear();
        }
    }

    fn insert(&mut self, view: &View<'_>, id: JobId) {
        let job = view.job(id);
        let group = usize::from(self.groups[id.index()]);
        // Groups are 1-5 by construction.
        if let Ok(greedy_job) = GreedyJob::new(group, job.submit, job.estimate, job.size) {
            for queue in &mut self.queues {
                queue.insert(id, greedy_job);
            }
        }
        self.newest = self.newest.max(Some(id));
    }
}

/// The situations, in the order of [`Greedy`]'s queues.
const SITUATIONS: [Situation; 3] = [
    Situation::Weekend,
    Situation::WeekdayDay,
    Situation::WeekdayNight,
];

/// The user group (1-5) of every job, by job index.
fn user_groups(view: &View<'_>) -> Vec<u8> {
    let jobs = view.jobs();
    let work = jobs
        .iter()
        .map(|job| (job.user(), job.runtime.max(0) as u64, job.size));
    // Work beyond 64 bits cannot come from a valid workload (times are
    // below 2^53 s and sizes below 2^32); all jobs then share group 5.
    let table = UserGroups::from_work(work, &GroupRule::paper()).ok();
    jobs.iter()
        .map(|job| {
            let group = table
                .as_ref()
                .zip(job.user())
                .and_then(|(table, user)| table.group_of(user))
                .unwrap_or(USER_GROUPS);
            group.min(USER_GROUPS) as u8
        })
        .collect()
}

impl Policy for Greedy {
    fn name(&self) -> &str {
        &self.name
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        if self.groups.len() != view.jobs().len() || view.now() < self.last_call {
            self.groups = user_groups(view);
            self.clear();
            self.newest = None;
        }
        let now = view.now();
        self.last_call = now;
        self.sync_queue(view);
        let local = view.calendar().unwrap_or(&self.utc).local(now);
        let situation = Situation::of(local.weekday, local.hour);
        let current = SITUATIONS
            .iter()
            .position(|&s| s == situation)
            .unwrap_or_default();
        let mut free = view.free();
        while let Some(id) = self.queues[current].pop_if_fits(now, free, |id| view.job(id).size) {
            free -= view.job(id).size;
            decisions.start(id);
            for queue in &mut self.queues {
                queue.remove(id);
            }
        }
    }
}

//! A workload prepared for training: its jobs, its user groups, and the
//! objective of a schedule of it.

use std::path::Path;

use schedsim_metrics::{GroupMetrics, Objective, UserGroups, group_metrics};
use schedsim_policies::{Greedy, GreedyParameters, PolicySpec, build_policy};
use schedsim_run::{LoadedWorkload, SimulateArgs, completed_jobs, load_workload, user_groups};
use schedsim_sim_core::{Policy, SimOptions, simulate_with};

use crate::TrainError;

/// One workload to train or evaluate on.
#[derive(Debug, Clone)]
pub struct TrainingWorkload {
    /// A short name (the file name without extensions).
    pub name: String,
    /// The jobs (scaled if asked).
    pub loaded: LoadedWorkload,
    groups: UserGroups,
    options: SimOptions,
}

/// The group metrics and objective of one schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// AWRT per group, AWRT, UTIL.
    pub metrics: GroupMetrics,
    /// The objective's value.
    pub objective: f64,
}

impl TrainingWorkload {
    /// Loads the workload `args` names (`--scale-to` and the rest applied).
    ///
    /// # Errors
    /// A workload that cannot be read or prepared, or whose jobs name no
    /// user (no user groups).
    pub fn load(args: &SimulateArgs) -> Result<Self, TrainError> {
        let path = args.workload.as_deref().unwrap_or(Path::new("builtin"));
        let loaded = load_workload(args).map_err(|source| TrainError::Load {
            workload: path.display().to_string(),
            source: Box::new(source),
        })?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .map_or("workload", |n| n.split('.').next().unwrap_or(n))
            .to_owned();
        let groups = user_groups(&loaded.jobs)
            .map_err(|source| TrainError::Groups {
                workload: name.clone(),
                source,
            })?
            .ok_or_else(|| TrainError::NoUsers(name.clone()))?;
        Ok(Self {
            name,
            loaded,
            groups,
            options: args.sim_options(),
        })
    }

    /// The user -> group table (Table II).
    pub fn groups(&self) -> &UserGroups {
        &self.groups
    }

    /// Simulates `policy` and evaluates `objective` on the schedule.
    ///
    /// # Errors
    /// A failed simulation, or an objective undefined for the schedule.
    pub fn evaluate(
        &self,
        policy: &mut dyn Policy,
        objective: &Objective,
    ) -> Result<Evaluation, TrainError> {
        let jobs = &self.loaded.jobs;
        let schedule =
            simulate_with(jobs, policy, &self.options).map_err(|e| self.failed(e.into()))?;
        let completed = completed_jobs(jobs, &schedule);
        let metrics = group_metrics(&completed, &self.groups, jobs.model().procs)
            .map_err(|e| self.failed(e.into()))?;
        let objective = objective
            .evaluate(&metrics)
            .map_err(|e| self.failed(e.into()))?;
        Ok(Evaluation { metrics, objective })
    }

    /// [`TrainingWorkload::evaluate`] with Greedy under `params`.
    ///
    /// # Errors
    /// As [`TrainingWorkload::evaluate`].
    pub fn evaluate_greedy(
        &self,
        params: &GreedyParameters,
        objective: &Objective,
    ) -> Result<Evaluation, TrainError> {
        self.evaluate(&mut Greedy::new(*params), objective)
    }

    /// [`TrainingWorkload::evaluate`] with EASY backfilling, the paper's
    /// reference.
    ///
    /// # Errors
    /// As [`TrainingWorkload::evaluate`].
    pub fn evaluate_easy(&self, objective: &Objective) -> Result<Evaluation, TrainError> {
        let spec: PolicySpec = "easy".parse().map_err(|e| self.failed(Box::new(e)))?;
        let mut easy = build_policy(&spec).map_err(|e| self.failed(Box::new(e)))?;
        self.evaluate(&mut easy, objective)
    }

    fn failed(&self, source: Box<dyn std::error::Error + Send + Sync>) -> TrainError {
        TrainError::Evaluation {
            workload: self.name.clone(),
            source,
        }
    }
}

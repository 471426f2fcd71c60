//! The core of the Gymnasium environment (python/schedsim/env.py wraps it).
//!
//! RLScheduler's setting (Zhang et al., SC'20, HPCSim): an episode is a
//! window of consecutive jobs of a trace; at each decision point the agent
//! picks one of the first `window` waiting jobs (arrival order). If it fits
//! it starts at once and the agent picks again at the same instant; if not,
//! it is reserved: time advances (with `backfill`, EASY-style backfilling
//! of other waiting jobs around it) until it starts. The episode ends when
//! every job of the window has started; the reward, given then, is minus
//! the episode's mean bounded slowdown (or mean wait) and 0 before.
//!
//! Time advances in schedsim's own event loop (sim-core's steppable
//! `Simulation`), so the environment schedules exactly as the simulator
//! does.
//!
//! Observation: `window` rows of [`FEATURES`] values in [0, 1], one row per
//! waiting job in arrival order, zeros for empty rows:
//! 0. wait so far / 12 h (capped at 1);
//! 1. size / machine processors;
//! 2. estimate / the largest estimate of the workload;
//! 3. 1 if the job fits the free processors now, else 0;
//! 4. free processors / machine processors (the same on every row);
//! 5. 1 for a row holding a job (the action mask), 0 for padding.

use std::path::PathBuf;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use schedsim_sim_core::{
    Capabilities, Decisions, Job, JobId, JobModel, JobSet, SimOptions, Simulation, Strictness, Time,
};

/// Values per observation row.
pub const FEATURES: usize = 6;

/// The wait that maps to 1 in feature 0.
const WAIT_SCALE: f64 = 12.0 * 3600.0;

type Sim<'a> = Simulation<'a>;

self_cell::self_cell!(
    /// One episode's jobs and the simulation running them.
    struct Episode {
        owner: JobSet,
        #[not_covariant]
        dependent: Sim,
    }
);

/// What the reward measures (minus it, at the end of an episode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
    BoundedSlowdown,
    Wait,
}

/// The environment's state machine, driven by python/schedsim/env.py.
#[pyclass(module = "schedsim._schedsim", unsendable)]
pub struct EnvCore {
    jobs: Vec<Job>,
    model: JobModel,
    window: usize,
    episode_jobs: usize,
    backfill: bool,
    metric: Metric,
    tau: Time,
    max_estimate: f64,
    rng: Pcg64,
    episode: Option<Episode>,
    /// The job the agent picked that did not fit yet.
    reserved: Option<JobId>,
    /// Start time per episode job (`None` until it starts).
    starts: Vec<Option<Time>>,
    started: usize,
    done: bool,
    decisions: Decisions,
    steps: u64,
}

fn runtime_error(error: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(error.to_string())
}

impl EnvCore {
    /// Advances until the agent must pick (true) or the episode is over
    /// (false).
    fn run_until_decision(&mut self) -> PyResult<bool> {
        loop {
            if self.started == self.starts.len() {
                self.done = true;
                return Ok(false);
            }
            let Some(episode) = self.episode.as_mut() else {
                return Err(runtime_error("call reset first"));
            };
            let (reserved, backfill) = (self.reserved, self.backfill);
            let decisions = &mut self.decisions;
            let starts = &mut self.starts;
            let started = &mut self.started;
            let outcome = episode.with_dependent_mut(|_, sim| -> Result<Step, String> {
                decisions.clear();
                let view = sim.view();
                match reserved {
                    Some(job) => {
                        let free = view.free();
                        if view.job(job).size <= free {
                            decisions.start(job);
                            starts[job.index()] = Some(view.now());
                            *started += 1;
                            sim.apply(decisions).map_err(|e| e.to_string())?;
                            return Ok(Step::Started);
                        }
                        if backfill {
                            backfill_around(&view, job, decisions);
                            for &id in decisions.starts() {
                                starts[id.index()] = Some(view.now());
                                *started += 1;
                            }
                        }
                        sim.apply(decisions).map_err(|e| e.to_string())?;
                        Ok(if sim.advance() {
                            Step::Advanced
                        } else {
                            Step::Over
                        })
                    }
                    None if !view.queue().is_empty() => Ok(Step::Decide),
                    None => Ok(if sim.advance() {
                        Step::Advanced
                    } else {
                        Step::Over
                    }),
                }
            });
            match outcome.map_err(runtime_error)? {
                Step::Started => self.reserved = None,
                Step::Advanced => {}
                Step::Decide => return Ok(true),
                Step::Over => {
                    self.done = true;
                    return Ok(false);
                }
            }
        }
    }

    fn observation<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut values = vec![0f32; self.window * FEATURES];
        if let Some(episode) = self.episode.as_mut() {
            let (window, procs, max_estimate) =
                (self.window, f64::from(self.model.procs), self.max_estimate);
            episode.with_dependent_mut(|_, sim| {
                let view = sim.view();
                let (now, free) = (view.now(), view.free());
                for (row, &id) in view.queue().iter().take(window).enumerate() {
                    let job = view.job(id);
                    let out = &mut values[row * FEATURES..(row + 1) * FEATURES];
                    out[0] = (((now - job.submit) as f64) / WAIT_SCALE).min(1.0) as f32;
                    out[1] = (f64::from(job.size) / procs) as f32;
                    out[2] = (view.estimate(id) as f64 / max_estimate).min(1.0) as f32;
                    out[3] = f32::from(u8::from(job.size <= free));
                    out[4] = (f64::from(free) / procs) as f32;
                    out[5] = 1.0;
                }
            });
        }
        let array = PyArray1::from_vec(py, values);
        Ok(array.reshape([self.window, FEATURES])?.into_any())
    }

    fn reward(&self) -> f64 {
        let jobs = self.episode.as_ref().map(Episode::borrow_owner);
        let Some(jobs) = jobs else {
            return 0.0;
        };
        let total: f64 = jobs
            .jobs()
            .iter()
            .zip(&self.starts)
            .map(|(job, start)| {
                let wait = (start.unwrap_or(job.submit) - job.submit) as f64;
                match self.metric {
                    Metric::Wait => wait,
                    Metric::BoundedSlowdown => {
                        let run = job.runtime as f64;
                        ((wait + run) / run.max(self.tau as f64)).max(1.0)
                    }
                }
            })
            .sum();
        -total / self.starts.len().max(1) as f64
    }
}

enum Step {
    Started,
    Advanced,
    Decide,
    Over,
}

/// EASY backfilling around the reserved job: waiting jobs (arrival order)
/// that fit now and either end by the reserved job's shadow time or fit in
/// the processors it leaves free then.
fn backfill_around(view: &schedsim_sim_core::View<'_>, reserved: JobId, decisions: &mut Decisions) {
    let now = view.now();
    let mut free = view.free();
    let need = view.job(reserved).size;
    // The shadow time: running jobs by expected end until the reserved job
    // fits; every job ending at that instant counts towards the extra.
    let mut ends: Vec<(Time, u32)> = view.running().map(|r| (r.expected_end, r.size)).collect();
    ends.sort_unstable();
    let mut available = free;
    let mut shadow = Time::MAX;
    for (index, &(end, size)) in ends.iter().enumerate() {
        available += size;
        if available >= need && ends.get(index + 1).is_none_or(|next| next.0 != end) {
            shadow = end;
            break;
        }
    }
    if shadow == Time::MAX {
        return;
    }
    let mut extra = available - need;
    for &id in view.queue() {
        if id == reserved {
            continue;
        }
        let size = view.job(id).size;
        if size > free {
            continue;
        }
        let ends_in_time = now.saturating_add(view.estimate(id)) <= shadow;
        if ends_in_time || size <= extra {
            decisions.start(id);
            free -= size;
            if !ends_in_time {
                extra -= size;
            }
        }
    }
}

#[pymethods]
impl EnvCore {
    /// An environment on the workload at `path` (SWF/CWF/Batsim JSON), or
    /// on a seeded Lublin-Feitelson workload of `jobs` jobs for `procs`
    /// nodes when `path` is None.
    #[new]
    #[pyo3(signature = (path=None, window=128, episode_jobs=256, backfill=false, metric="bsld", procs=256, jobs=10000, seed=0, lenient=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        path: Option<PathBuf>,
        window: usize,
        episode_jobs: usize,
        backfill: bool,
        metric: &str,
        procs: u32,
        jobs: usize,
        seed: u64,
        lenient: bool,
    ) -> PyResult<Self> {
        if window == 0 || episode_jobs == 0 {
            return Err(PyValueError::new_err(
                "window and episode_jobs must be at least 1",
            ));
        }
        // The generated workload is held whole (24 bytes and more a job):
        // jobs=2**40 aborted the interpreter ("memory allocation of
        // 343047627866112 bytes failed"). The CLI holds as many at most.
        if path.is_none() && jobs > lublin_model::MAX_HELD_JOBS {
            return Err(PyValueError::new_err(format!(
                "jobs={jobs} is more than the {} jobs a generated workload may hold",
                lublin_model::MAX_HELD_JOBS
            )));
        }
        // Each observation holds window x features floats.
        if window > lublin_model::MAX_HELD_JOBS {
            return Err(PyValueError::new_err(format!(
                "window={window} is more than {} rows",
                lublin_model::MAX_HELD_JOBS
            )));
        }
        let metric = match metric {
            "bsld" => Metric::BoundedSlowdown,
            "wait" => Metric::Wait,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown metric `{other}`: bsld or wait"
                )));
            }
        };
        let workload = match &path {
            Some(path) => {
                let options = workload_format::ReadOptions::lenient_if(lenient);
                schedsim_run::open_workload(path, &options)
                    .and_then(schedsim_run::WorkloadInput::into_workload)
                    .map_err(runtime_error)?
            }
            None => {
                let params = lublin_model::LublinParams::for_machine(procs);
                let generator =
                    lublin_model::LublinGenerator::new(params, seed).map_err(runtime_error)?;
                let generated = generator.generate_detailed(jobs);
                workload_format::Workload::new(workload_format::Header::new(), generated.records)
            }
        };
        let machine = match path {
            Some(_) => workload
                .header
                .max_procs()
                .or(workload.header.max_nodes())
                .and_then(|p| u32::try_from(p).ok())
                .filter(|&p| p > 0)
                .ok_or_else(|| {
                    PyValueError::new_err("the workload's header has no MaxProcs or MaxNodes")
                })?,
            None => procs,
        };
        let mut model = JobModel::new(machine);
        model.strictness = if lenient {
            Strictness::Lenient
        } else {
            Strictness::Strict
        };
        let all = JobSet::from_records(&workload.records, &model).map_err(runtime_error)?;
        let jobs = all.jobs().to_vec();
        if jobs.len() < episode_jobs {
            return Err(PyValueError::new_err(format!(
                "the workload has {} jobs, fewer than an episode's {episode_jobs}",
                jobs.len()
            )));
        }
        let max_estimate = jobs.iter().map(|j| j.estimate).max().unwrap_or(1).max(1) as f64;
        Ok(Self {
            jobs,
            model,
            window,
            episode_jobs,
            backfill,
            metric,
            tau: 10,
            max_estimate,
            rng: Pcg64::seed_from_u64(seed),
            episode: None,
            reserved: None,
            starts: Vec::new(),
            started: 0,
            done: true,
            decisions: Decisions::new(),
            steps: 0,
        })
    }

    /// Reseeds the episode sampler.
    fn seed(&mut self, seed: u64) {
        self.rng = Pcg64::seed_from_u64(seed);
    }

    /// Starts an episode at a random window of the workload (or at job
    /// `start`); returns the first observation.
    #[pyo3(signature = (start=None))]
    fn reset<'py>(&mut self, py: Python<'py>, start: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        let last = self.jobs.len() - self.episode_jobs;
        let first = match start {
            Some(s) if s <= last => s,
            Some(s) => {
                return Err(PyValueError::new_err(format!(
                    "start {s} leaves fewer than {} jobs (at most {last})",
                    self.episode_jobs
                )));
            }
            None => self.rng.random_range(0..=last),
        };
        let slice = &self.jobs[first..first + self.episode_jobs];
        let origin = slice[0].submit;
        let jobs: Vec<Job> = slice
            .iter()
            .map(|job| {
                let mut job = job.clone();
                job.submit -= origin;
                job
            })
            .collect();
        self.episode = None;
        let set = JobSet::from_jobs(jobs, &self.model).map_err(runtime_error)?;
        self.episode = Some(Episode::new(set, |set| {
            Simulation::new(
                set,
                &SimOptions::default(),
                "agent",
                Capabilities::default(),
            )
        }));
        self.reserved = None;
        self.starts = vec![None; self.episode_jobs];
        self.started = 0;
        self.done = false;
        if let Some(episode) = self.episode.as_mut() {
            episode.with_dependent_mut(|_, sim| sim.advance());
        }
        self.run_until_decision()?;
        self.observation(py)
    }

    /// Schedules the waiting job in row `action` (an empty row means the
    /// first waiting job); returns (observation, reward, terminated).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        action: usize,
    ) -> PyResult<(Bound<'py, PyAny>, f64, bool)> {
        if self.done {
            return Err(PyRuntimeError::new_err("the episode is over: call reset"));
        }
        self.steps += 1;
        let Some(episode) = self.episode.as_mut() else {
            return Err(runtime_error("call reset first"));
        };
        let window = self.window;
        let decisions = &mut self.decisions;
        let starts = &mut self.starts;
        let started = &mut self.started;
        let reserved = episode.with_dependent_mut(|_, sim| -> Result<Option<JobId>, String> {
            decisions.clear();
            let view = sim.view();
            let queue = view.queue();
            let row = if action < queue.len().min(window) {
                action
            } else {
                0
            };
            let job = queue[row];
            if view.job(job).size <= view.free() {
                decisions.start(job);
                starts[job.index()] = Some(view.now());
                *started += 1;
                sim.apply(decisions).map_err(|e| e.to_string())?;
                Ok(None)
            } else {
                Ok(Some(job))
            }
        });
        self.reserved = reserved.map_err(runtime_error)?;
        let more = self.run_until_decision()?;
        let reward = if more { 0.0 } else { self.reward() };
        Ok((self.observation(py)?, reward, !more))
    }

    /// Rows of the observation (the agent's choices).
    #[getter]
    fn window(&self) -> usize {
        self.window
    }

    /// Values per row.
    #[getter]
    fn features(&self) -> usize {
        FEATURES
    }

    /// Jobs in the workload.
    #[getter]
    fn workload_jobs(&self) -> usize {
        self.jobs.len()
    }

    /// Steps taken since the environment was made.
    #[getter]
    fn steps(&self) -> u64 {
        self.steps
    }

    /// Each episode job's start time (None before it starts).
    fn start_times(&self) -> Vec<Option<Time>> {
        self.starts.clone()
    }
}

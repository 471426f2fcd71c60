//! Policies written in Python: the Rust event loop calls the object's
//! `schedule(view)` at every decision point with a [`ViewSnapshot`] and
//! applies the decisions it returns.
//!
//! Decisions are a list of tuples, applied in order, with the meaning of
//! the Rust `Decisions` methods: `("start", job)`, `("reject", job,
//! reason)`, `("suspend", job)`, `("resume", job)`, `("wake", time)`. Jobs
//! are the indices the view uses (`view.queue`, `view.running`).

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use schedsim_sim_core::{Decisions, JobId, JobSet, Policy, Time, View};

/// Per-job attributes, shared by every snapshot of one run.
#[derive(Debug)]
struct JobTable {
    number: Vec<u64>,
    submit: Vec<Time>,
    size: Vec<u32>,
    estimate: Vec<Time>,
}

/// What a Python policy sees at a decision point: a copy of the state, so
/// it may be kept (not a live view).
#[pyclass(module = "schedsim._schedsim", frozen)]
pub struct ViewSnapshot {
    /// The current time, seconds.
    #[pyo3(get)]
    now: Time,
    /// Free processors.
    #[pyo3(get)]
    free: u32,
    /// Processors in the machine.
    #[pyo3(get)]
    procs: u32,
    /// Waiting jobs in arrival order.
    #[pyo3(get)]
    queue: Vec<u32>,
    /// Running jobs: (job, size, start, expected end), by expected end.
    #[pyo3(get)]
    running: Vec<(u32, u32, Time, Time)>,
    /// Suspended jobs.
    #[pyo3(get)]
    suspended: Vec<u32>,
    jobs: Arc<JobTable>,
}

impl ViewSnapshot {
    fn index(&self, job: u32) -> PyResult<usize> {
        let index = job as usize;
        if index < self.jobs.size.len() {
            Ok(index)
        } else {
            Err(PyIndexError::new_err(format!(
                "job {job} is not a job of this workload ({} jobs)",
                self.jobs.size.len()
            )))
        }
    }
}

#[pymethods]
impl ViewSnapshot {
    /// The job's processors.
    fn size(&self, job: u32) -> PyResult<u32> {
        Ok(self.jobs.size[self.index(job)?])
    }

    /// The job's runtime estimate, seconds (what a scheduler knows).
    fn estimate(&self, job: u32) -> PyResult<Time> {
        Ok(self.jobs.estimate[self.index(job)?])
    }

    /// The job's submit time, seconds.
    fn submit(&self, job: u32) -> PyResult<Time> {
        Ok(self.jobs.submit[self.index(job)?])
    }

    /// The job's number in the workload file.
    fn number(&self, job: u32) -> PyResult<u64> {
        Ok(self.jobs.number[self.index(job)?])
    }

    fn __repr__(&self) -> String {
        format!(
            "ViewSnapshot(now={}, free={}/{}, {} waiting, {} running)",
            self.now,
            self.free,
            self.procs,
            self.queue.len(),
            self.running.len()
        )
    }
}

/// A Python object with a `schedule(view)` method, as a Rust [`Policy`].
pub struct PyPolicy {
    object: Py<PyAny>,
    name: String,
    jobs: Arc<JobTable>,
    procs: u32,
    /// The first Python exception or bad decision; the run stops at it.
    error: Option<PyErr>,
}

impl PyPolicy {
    /// Wraps `object` for a run of `jobs`.
    pub fn new(object: Py<PyAny>, name: &str, jobs: &JobSet) -> Self {
        let all = jobs.jobs();
        Self {
            object,
            name: name.to_owned(),
            jobs: Arc::new(JobTable {
                number: all.iter().map(|j| j.number).collect(),
                submit: all.iter().map(|j| j.submit).collect(),
                size: all.iter().map(|j| j.size).collect(),
                estimate: all.iter().map(|j| j.estimate).collect(),
            }),
            procs: jobs.model().procs,
            error: None,
        }
    }

    /// The exception that stopped the run, if one did.
    pub fn take_error(&mut self) -> Option<PyErr> {
        self.error.take()
    }

    fn call(&self, py: Python<'_>, view: &View<'_>, decisions: &mut Decisions) -> PyResult<()> {
        let snapshot = ViewSnapshot {
            now: view.now(),
            free: view.free(),
            procs: self.procs,
            queue: view.queue().iter().map(|id| id.0).collect(),
            running: view
                .running()
                .map(|r| (r.id.0, r.size, r.start, r.expected_end))
                .collect(),
            suspended: view.suspended().iter().map(|id| id.0).collect(),
            jobs: Arc::clone(&self.jobs),
        };
        let result = self.object.call_method1(py, "schedule", (snapshot,))?;
        let result = result.bind(py);
        if result.is_none() {
            return Ok(());
        }
        let count = self.jobs.size.len();
        let job = |item: &Bound<'_, PyAny>| -> PyResult<JobId> {
            let index: u32 = item.extract()?;
            if (index as usize) < count {
                Ok(JobId(index))
            } else {
                Err(PyIndexError::new_err(format!(
                    "job {index} is not a job of this workload ({count} jobs)"
                )))
            }
        };
        for decision in result.try_iter()? {
            let decision = decision?;
            let tuple = decision.cast::<PyTuple>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a decision is a tuple such as (\"start\", job), not {decision}"
                ))
            })?;
            let kind: String = tuple.get_item(0)?.extract()?;
            match (kind.as_str(), tuple.len()) {
                ("start", 2) => decisions.start(job(&tuple.get_item(1)?)?),
                ("reject", 3) => {
                    let reason: String = tuple.get_item(2)?.extract()?;
                    decisions.reject(job(&tuple.get_item(1)?)?, &reason);
                }
                ("reject", 2) => decisions.reject(job(&tuple.get_item(1)?)?, "rejected"),
                ("suspend", 2) => decisions.suspend(job(&tuple.get_item(1)?)?),
                ("resume", 2) => decisions.resume(job(&tuple.get_item(1)?)?),
                ("wake", 2) => decisions.wake_at(tuple.get_item(1)?.extract()?),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "unknown decision {decision}: use (\"start\", job), (\"reject\", job, \
                         reason), (\"suspend\", job), (\"resume\", job) or (\"wake\", time)"
                    )));
                }
            }
        }
        Ok(())
    }
}

impl Policy for PyPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        if self.error.is_some() {
            decisions.fail("the Python policy failed earlier");
            return;
        }
        let outcome = Python::attach(|py| self.call(py, view, decisions));
        if let Err(error) = outcome {
            self.error = Some(error);
            decisions.fail("the Python policy raised an exception");
        }
    }
}

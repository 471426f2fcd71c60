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
use pyo3::types::{PyBool, PyBytes, PyInt, PyString, PyTuple};
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

/// A job given by Python (a decision's job or an argument of the view's
/// methods) as an index below `count`: a negative or too large int is not
/// a job of the workload (IndexError), a bool or another type is a
/// TypeError; both name the value.
fn job_index(item: &Bound<'_, PyAny>, count: usize) -> PyResult<usize> {
    let not_a_job = || {
        PyIndexError::new_err(format!(
            "job {item} is not a job of this workload ({count} jobs: 0 to {})",
            count.saturating_sub(1)
        ))
    };
    if item.is_instance_of::<PyBool>() || !item.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "a job is an int (an index as in view.queue), not {}: {}",
            item.get_type().name()?,
            item.repr()?
        )));
    }
    match item.extract::<i64>() {
        Ok(index) => usize::try_from(index)
            .ok()
            .filter(|&index| index < count)
            .ok_or_else(not_a_job),
        // An int beyond i64.
        Err(_) => Err(not_a_job()),
    }
}

impl ViewSnapshot {
    fn index(&self, job: &Bound<'_, PyAny>) -> PyResult<usize> {
        job_index(job, self.jobs.size.len())
    }
}

#[pymethods]
impl ViewSnapshot {
    /// The job's processors.
    fn size(&self, job: &Bound<'_, PyAny>) -> PyResult<u32> {
        Ok(self.jobs.size[self.index(job)?])
    }

    /// The job's runtime estimate, seconds (what a scheduler knows).
    fn estimate(&self, job: &Bound<'_, PyAny>) -> PyResult<Time> {
        Ok(self.jobs.estimate[self.index(job)?])
    }

    /// The job's submit time, seconds.
    fn submit(&self, job: &Bound<'_, PyAny>) -> PyResult<Time> {
        Ok(self.jobs.submit[self.index(job)?])
    }

    /// The job's number in the workload file.
    fn number(&self, job: &Bound<'_, PyAny>) -> PyResult<u64> {
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
            let index = job_index(item, count)?;
            // The workload's jobs are numbered by u32 indices.
            Ok(JobId(u32::try_from(index).unwrap_or(u32::MAX)))
        };
        let decisions_expected = || {
            Ok::<_, PyErr>(PyTypeError::new_err(format!(
                "schedule returns None or a list of decisions such as [(\"start\", job)], not {}: {}",
                result.get_type().name()?,
                result.repr()?
            )))
        };
        // A string is iterable, but its characters are no decisions.
        if result.is_instance_of::<PyString>() || result.is_instance_of::<PyBytes>() {
            return Err(decisions_expected()?);
        }
        let Ok(iterator) = result.try_iter() else {
            return Err(decisions_expected()?);
        };
        for decision in iterator {
            let decision = decision?;
            let tuple = decision.cast::<PyTuple>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a decision is a tuple such as (\"start\", job), not {decision}"
                ))
            })?;
            let kind: String = match tuple.get_item(0) {
                Ok(kind) if kind.is_instance_of::<PyString>() => kind.extract()?,
                _ => String::new(),
            };
            match (kind.as_str(), tuple.len()) {
                ("start", 2) => decisions.start(job(&tuple.get_item(1)?)?),
                ("reject", 3) => {
                    let reason: String = tuple.get_item(2)?.extract()?;
                    decisions.reject(job(&tuple.get_item(1)?)?, &reason);
                }
                ("reject", 2) => decisions.reject(job(&tuple.get_item(1)?)?, "rejected"),
                ("suspend", 2) => decisions.suspend(job(&tuple.get_item(1)?)?),
                ("resume", 2) => decisions.resume(job(&tuple.get_item(1)?)?),
                ("wake", 2) => {
                    let time = tuple.get_item(1)?;
                    if time.is_instance_of::<PyBool>() || !time.is_instance_of::<PyInt>() {
                        return Err(PyTypeError::new_err(format!(
                            "a wake time is an int (seconds), not {}: {}",
                            time.get_type().name()?,
                            time.repr()?
                        )));
                    }
                    // Beyond i64 is past any time a simulation reaches (or
                    // before the current one); the simulator refuses
                    // i64::MAX and i64::MIN with the limit.
                    let beyond = if time.lt(0)? { Time::MIN } else { Time::MAX };
                    decisions.wake_at(time.extract().unwrap_or(beyond));
                }
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

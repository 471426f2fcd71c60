//! Python bindings of schedsim (the `schedsim` Python package; build with
//! maturin). The Python side (python/schedsim) wraps these functions:
//! `simulate` (every built-in policy, or a policy written in Python),
//! `compare`, `read_workload`, `generate`, `convert`, and the Gymnasium
//! environment's core ([`EnvCore`]).
//!
//! Options are the command line's: Python passes an argument list that the
//! CLI's own clap definitions parse, so every `schedsim simulate` option
//! works from Python under the same name and with the same checks.

use std::path::PathBuf;

use clap::Parser;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use schedsim_metrics::{CompareConfig, CompletedJob};
use schedsim_run::{
    PolicyRun, SimulateArgs, completed_jobs, jobs_csv, load_workload, metrics_config,
    run_policy_object, run_policy_with, segments_csv, summary_json,
};

mod env;
mod policy;

use policy::PyPolicy;

/// `schedsim simulate`'s arguments, parsed from the list Python builds.
#[derive(Debug, Parser)]
#[command(name = "simulate", no_binary_name = true)]
struct SimulateCli {
    #[command(flatten)]
    args: SimulateArgs,
}

#[derive(Debug, Parser)]
#[command(name = "generate", no_binary_name = true)]
struct GenerateCli {
    #[command(flatten)]
    args: schedsim_cli::GenerateArgs,
}

#[derive(Debug, Parser)]
#[command(name = "convert", no_binary_name = true)]
struct ConvertCli {
    #[command(flatten)]
    args: schedsim_cli::ConvertArgs,
}

fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// The chain of an error's causes on one line, as the CLI prints it.
fn runtime_error(error: &(dyn std::error::Error + 'static)) -> PyErr {
    PyRuntimeError::new_err(schedsim_cli::error_line(error))
}

/// One simulation's results: summary.json as the CLI writes it, jobs.csv
/// and segments.csv on demand (the per-job table of a long trace is large),
/// and the completed jobs for `compare`.
#[pyclass(module = "schedsim._schedsim", frozen)]
struct RunResult {
    #[pyo3(get)]
    policy: String,
    #[pyo3(get)]
    summary_json: String,
    #[pyo3(get)]
    elapsed_seconds: f64,
    tau: i64,
    loaded: schedsim_run::LoadedWorkload,
    schedule: schedsim_sim_core::Schedule,
    completed: Vec<CompletedJob>,
}

#[pymethods]
impl RunResult {
    /// jobs.csv, as `schedsim simulate` writes it.
    fn jobs_csv(&self) -> String {
        jobs_csv(&self.loaded, &self.schedule, self.tau)
    }

    /// segments.csv (time-sharing runs), or None.
    fn segments_csv(&self) -> Option<String> {
        self.schedule
            .has_suspensions()
            .then(|| segments_csv(&self.loaded, &self.schedule))
    }
}

/// Runs one simulation: `argv` are `schedsim simulate` arguments (without
/// the command name), `policy` a Python policy object or None for the
/// `--policy` given in `argv`.
#[pyfunction]
#[pyo3(signature = (argv, policy=None, name=None))]
fn simulate(
    py: Python<'_>,
    argv: Vec<String>,
    policy: Option<Py<PyAny>>,
    name: Option<String>,
) -> PyResult<RunResult> {
    let cli = SimulateCli::try_parse_from(&argv).map_err(|e| value_error(e.render()))?;
    let args = cli.args;
    let loaded = load_workload(&args).map_err(|e| runtime_error(&e))?;
    let config = metrics_config(&args, loaded.jobs.model().procs);
    let options = args.sim_options();
    let run: PolicyRun = match policy {
        None => {
            let text = args
                .policies
                .first()
                .ok_or_else(|| PyValueError::new_err("name a policy"))?;
            let spec = text.parse().map_err(|e| runtime_error(&e))?;
            // The simulation holds no Python object: let other threads run.
            py.detach(|| run_policy_with(&loaded.jobs, &spec, &config, &options))
                .map_err(|e| runtime_error(&e))?
        }
        Some(object) => {
            let name = name.unwrap_or_else(|| "python".to_owned());
            let mut bridge = PyPolicy::new(object, &name, &loaded.jobs);
            // summary.json names the policy by the Python class.
            let spec = schedsim_policies::PolicySpec {
                name: name.clone(),
                options: Vec::new(),
            };
            let result = run_policy_object(&loaded.jobs, &mut bridge, spec, &config, &options);
            if let Some(error) = bridge.take_error() {
                return Err(error);
            }
            result.map_err(|e| runtime_error(&e))?
        }
    };
    let summary = summary_json(&args, &loaded, &run).map_err(value_error)?;
    let completed = completed_jobs(&loaded.jobs, &run.schedule);
    Ok(RunResult {
        policy: run.name.clone(),
        summary_json: summary,
        elapsed_seconds: run.elapsed.as_secs_f64(),
        tau: config.tau,
        loaded,
        schedule: run.schedule,
        completed,
    })
}

/// The per-job differential comparison of two runs of one workload (A -
/// B), as JSON: response, wait and bounded slowdown with batch-means
/// confidence intervals.
#[pyfunction]
#[pyo3(signature = (a, b, batches=30, level=0.9, tau=10, warmup=0.0, drain=0.0))]
fn compare(
    a: &RunResult,
    b: &RunResult,
    batches: u32,
    level: f64,
    tau: i64,
    warmup: f64,
    drain: f64,
) -> PyResult<String> {
    let mut config = CompareConfig::default();
    config.batches = batches;
    config.level = level;
    config.tau = tau;
    config.warmup = warmup;
    config.drain = drain;
    let comparison = schedsim_metrics::compare(&a.completed, &b.completed, &config)
        .map_err(|e| runtime_error(&e))?;
    serde_json::to_string(&comparison).map_err(value_error)
}

/// Reads a workload file (SWF, CWF, Batsim JSON, JSON lines; plain or gzip): its header
/// lines and one list per field (-1 where unknown).
#[pyfunction]
#[pyo3(signature = (path, lenient=false))]
fn read_workload(py: Python<'_>, path: PathBuf, lenient: bool) -> PyResult<Py<PyAny>> {
    let options = workload_format::ReadOptions::lenient_if(lenient);
    let workload = schedsim_run::open_workload(&path, &options)
        .and_then(schedsim_run::WorkloadInput::into_workload)
        .map_err(|e| runtime_error(&e))?;
    let records = &workload.records;
    let column = |f: &dyn Fn(&workload_format::Record) -> Option<u64>| -> Vec<i64> {
        records
            .iter()
            .map(|r| f(r).map_or(-1, |v| i64::try_from(v).unwrap_or(i64::MAX)))
            .collect()
    };
    let dict = pyo3::types::PyDict::new(py);
    dict.set_item("job_number", column(&|r| Some(r.job_number)))?;
    dict.set_item("submit_time", column(&|r| r.submit_time))?;
    dict.set_item("wait_time", column(&|r| r.wait_time))?;
    dict.set_item("run_time", column(&|r| r.run_time))?;
    dict.set_item("allocated_processors", column(&|r| r.allocated_processors))?;
    dict.set_item("requested_processors", column(&|r| r.requested_processors))?;
    dict.set_item("requested_time", column(&|r| r.requested_time))?;
    dict.set_item("status", column(&|r| r.status.map(|s| u64::from(s.code()))))?;
    dict.set_item("user_id", column(&|r| r.user_id))?;
    dict.set_item("group_id", column(&|r| r.group_id))?;
    dict.set_item("queue_number", column(&|r| r.queue_number))?;
    dict.set_item("partition_number", column(&|r| r.partition_number))?;
    let header: Vec<String> = workload.header.lines().map(str::to_owned).collect();
    let result = pyo3::types::PyDict::new(py);
    result.set_item("header", header)?;
    result.set_item("columns", dict)?;
    Ok(result.into_any().unbind())
}

/// Runs `schedsim generate` with these arguments; returns its report.
#[pyfunction]
fn generate(argv: Vec<String>) -> PyResult<String> {
    let cli = GenerateCli::try_parse_from(&argv).map_err(|e| value_error(e.render()))?;
    let mut out = Vec::new();
    schedsim_cli::generate(&cli.args, &mut out).map_err(|e| runtime_error(&e))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Runs `schedsim convert` with these arguments; returns its report.
#[pyfunction]
fn convert(argv: Vec<String>) -> PyResult<String> {
    let cli = ConvertCli::try_parse_from(&argv).map_err(|e| value_error(e.render()))?;
    let mut out = Vec::new();
    schedsim_cli::convert(&cli.args, &mut out).map_err(|e| runtime_error(&e))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// A built-in policy: (name, summary, [(option, description)]).
type PolicyListing = (String, String, Vec<(String, String)>);

/// The built-in policies.
#[pyfunction]
fn policies() -> Vec<PolicyListing> {
    schedsim_policies::POLICIES
        .iter()
        .map(|info| {
            (
                info.name.to_owned(),
                info.summary.to_owned(),
                info.options
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            )
        })
        .collect()
}

#[pymodule]
fn _schedsim(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<RunResult>()?;
    module.add_class::<policy::ViewSnapshot>()?;
    module.add_class::<env::EnvCore>()?;
    module.add_function(wrap_pyfunction!(simulate, module)?)?;
    module.add_function(wrap_pyfunction!(compare, module)?)?;
    module.add_function(wrap_pyfunction!(read_workload, module)?)?;
    module.add_function(wrap_pyfunction!(generate, module)?)?;
    module.add_function(wrap_pyfunction!(convert, module)?)?;
    module.add_function(wrap_pyfunction!(policies, module)?)?;
    Ok(())
}

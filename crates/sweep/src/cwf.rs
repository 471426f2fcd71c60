//! Generated CWF workloads in sweeps: the CWF generator of Kumar et al.
//! (lublin-model's `CwfGenerator`), built at each sweep load (its target
//! load) and seed.
//!
//! ```toml
//! [[workload]]
//! name = "cwf-ps0.5"
//! cwf = { jobs = 500, params = { small_prob = 0.5, dedicated_prob = 0.0 } }
//! ```
//!
//! `params` holds any `CwfParams` field (the generator's defaults for the
//! others: 320 processors in blocks of 32, P_D = 0.5, P_E = 0.2, P_R =
//! 0.1); `target_load` is the sweep's and may not be set.

use lublin_model::{CwfGenerator, CwfParams};
use schedsim_run::{LoadedWorkload, SimulateArgs, WorkloadSource, prepare_workload};

use crate::error_line;
use serde::{Deserialize, Serialize};
use workload_format::{Header, Workload};

/// A generated CWF workload of a sweep.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CwfSettings {
    /// Jobs generated (submissions; commands come on top).
    pub jobs: usize,
    /// The generator's parameters.
    #[serde(default)]
    pub params: CwfParams,
}

impl CwfSettings {
    /// At least two jobs (a load needs a span), valid parameters, no target
    /// load of its own.
    ///
    /// # Errors
    /// What is wrong, for the spec's error message.
    pub fn validate(&self) -> Result<(), String> {
        if self.jobs < 2 {
            return Err("cwf needs jobs >= 2".to_owned());
        }
        if self.params.target_load.is_some() {
            return Err("cwf params: target_load is set by the sweep's loads".to_owned());
        }
        self.params
            .validate()
            .map_err(|e| format!("cwf params: {e}"))
    }
}

/// The workload of one (load, seed) instance, normalized with `args` (the
/// machine is the generator's).
///
/// # Errors
/// Invalid parameters or jobs that cannot be simulated, as a message.
pub fn instance(
    settings: &CwfSettings,
    args: &SimulateArgs,
    load: f64,
    seed: u64,
) -> Result<LoadedWorkload, String> {
    let params = settings.params.clone().load(load);
    let generator = CwfGenerator::new(params.clone(), seed).map_err(|e| e.to_string())?;
    let records = generator.generate(settings.jobs);
    let mut header = Header::new();
    for key in ["MaxNodes", "MaxProcs"] {
        header
            .set(key, u64::from(params.machine_size))
            .map_err(|e| e.to_string())?;
    }
    let source = WorkloadSource::Cwf {
        jobs: settings.jobs,
        seed,
        params: Box::new(params),
    };
    prepare_workload(args, source, Workload::new(header, records), None).map_err(|e| error_line(&e))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::spec::{Spec, WorkloadKind};
    use super::*;

    #[test]
    fn specs_name_cwf_workloads() {
        let text = r#"
loads = [0.9]
seeds = [1, 2]
policies = ["easy", "delayed-los:cs={1,2}"]
[[workload]]
name = "cwf"
cwf = { jobs = 500, params = { small_prob = 0.2, dedicated_prob = 0.0 } }
"#;
        let spec = Spec::parse(text, Path::new("/exp/k.toml"), &|_| None).unwrap();
        assert_eq!(
            spec.policies,
            ["easy", "delayed-los:cs=1", "delayed-los:cs=2"]
        );
        let WorkloadKind::Cwf(settings) = &spec.workloads[0].kind else {
            panic!("not a cwf workload: {:?}", spec.workloads[0].kind);
        };
        assert_eq!(settings.jobs, 500);
        assert_eq!(settings.params.small_prob, 0.2);
        // Unnamed parameters keep the generator's defaults.
        assert_eq!(settings.params.extend_prob, 0.2);
        let error = |text: &str| {
            Spec::parse(text, Path::new("/exp/k.toml"), &|_| None)
                .unwrap_err()
                .to_string()
        };
        assert!(
            error(&text.replace("jobs = 500", "jobs = 500, nodes = 3"))
                .contains("unknown field `nodes`, expected `jobs` or `params`")
        );
        assert_eq!(
            error(&text.replace("dedicated_prob = 0.0", "dedicated_prob = 1.5")),
            "/exp/k.toml: workload `cwf`: cwf params: parameter dedicated_prob is 1.5, expected a probability in [0, 1]"
        );
        assert_eq!(
            error(&text.replace("name = \"cwf\"", "name = \"cwf\"\nlenient = true")),
            "/exp/k.toml: workload `cwf`: cwf takes no file, lublin, procs or lenient"
        );
    }

    #[test]
    fn instances_reach_the_load_and_follow_the_params() {
        let settings = CwfSettings {
            jobs: 400,
            params: {
                let mut params = CwfParams::default();
                params.small_prob = 0.2;
                params.dedicated_prob = 0.0;
                params.extend_prob = 0.0;
                params.reduce_prob = 0.0;
                params
            },
        };
        settings.validate().unwrap();
        let mut args = SimulateArgs::new();
        args.procs = Some(320);
        args.granularity = 32;
        let loaded = instance(&settings, &args, 0.9, 7).unwrap();
        assert_eq!(loaded.jobs.len(), 400);
        // No dedicated jobs, no commands.
        assert_eq!(loaded.jobs.normalization().dedicated, 0);
        assert!(loaded.jobs.commands().is_empty());
        // The generator's load search gets within 0.1% of the target.
        let load = schedsim_sim_core::offered_load(&loaded.records, 320)
            .unwrap()
            .load;
        assert!((load - 0.9).abs() < 0.01, "{load}");
        let mut bad = settings.clone();
        bad.params.target_load = Some(0.5);
        assert_eq!(
            bad.validate().unwrap_err(),
            "cwf params: target_load is set by the sweep's loads"
        );
        bad = settings;
        bad.jobs = 1;
        assert_eq!(bad.validate().unwrap_err(), "cwf needs jobs >= 2");
    }
}

//! Cells: one (workload, load, seed, policy) run of a sweep, its canonical
//! configuration, the stable hash that names its result file, and the
//! result file's compact format.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use schedsim_metrics::{CompletedJob, GroupMetrics, Objective, RunMetrics, SplitMetrics};
use schedsim_run::{DeadlineParams, DeadlineReport, Ends, Estimates, Invoke, Order, host_name};
use schedsim_sim_core::{LoadChange, LoadMethod};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::spec::{CwfSettings, LublinSettings, Overrun, ScaleSettings, Spec, WorkloadKind};

/// Bumped when the meaning of a cell's configuration or result changes, so
/// old result files are not mistaken for new ones.
pub const SCHEMA: u32 = 1;

/// What identifies a workload's content in a cell's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKey {
    /// A trace file, by content (SHA-256 of its bytes as stored), not path.
    File {
        /// SHA-256 of the file.
        sha256: String,
        /// Lenient reading.
        lenient: bool,
        /// Machine size override.
        procs: Option<u32>,
        /// Scaling to a larger machine (left out when none, so results of
        /// earlier versions keep their names).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scale: Option<ScaleSettings>,
        /// Only the first this many jobs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        first_jobs: Option<u64>,
        /// Deadlines made per load.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadlines: Option<DeadlineParams>,
    },
    /// A generated workload.
    Lublin(LublinSettings),
    /// A generated CWF workload.
    Cwf(Box<CwfSettings>),
}

/// Everything that determines a cell's result. Its canonical JSON (this
/// struct serialized by serde_json: fields in declaration order, floats in
/// shortest round-trip form) is hashed to name the result file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellConfig {
    /// [`SCHEMA`].
    pub schema: u32,
    /// The workload's name in the spec.
    pub workload: String,
    /// The workload's content.
    pub source: SourceKey,
    /// Target offered load (or factor, with `load_factor`).
    pub load: f64,
    /// `load` multiplies the trace's offered load (left out when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub load_factor: bool,
    /// `scale`, `duplicate`, `expand`, or `generator` (generated workloads
    /// reach the load through the generator's own arrival scaling).
    pub load_method: String,
    /// Seed: generator seed, or duplicate/expand seed; `None` when nothing
    /// is random.
    pub seed: Option<u64>,
    /// The canonical policy spec.
    pub policy: String,
    /// Overrun rule.
    pub overrun: Overrun,
    /// Bounded-slowdown threshold.
    pub tau: i64,
    /// Warm-up fraction.
    pub warmup: f64,
    /// Drain fraction.
    pub drain: f64,
    /// Allocation granularity.
    pub granularity: u32,
    /// How the simulation ran, when not the default (left out of the
    /// canonical JSON then, so results of earlier versions keep their
    /// names).
    #[serde(default, skip_serializing_if = "Simulation::is_default")]
    pub simulation: Simulation,
}

/// The simulation settings of a cell beyond the job model's overrun rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Simulation {
    /// Where estimates come from.
    #[serde(default, skip_serializing_if = "is_default")]
    pub estimates: Estimates,
    /// When the policy is called.
    #[serde(default, skip_serializing_if = "is_default")]
    pub invoke: Invoke,
    /// The order of simultaneous events.
    #[serde(default, skip_serializing_if = "is_default")]
    pub event_order: Order,
    /// Per event: simultaneous ends apart or together.
    #[serde(default, skip_serializing_if = "is_default")]
    pub simultaneous_ends: Ends,
    /// Seconds per suspension (time sharing).
    #[serde(default, skip_serializing_if = "is_default")]
    pub suspend_overhead: i64,
    /// Seconds per resumption.
    #[serde(default, skip_serializing_if = "is_default")]
    pub resume_overhead: i64,
}

impl Simulation {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl CellConfig {
    /// The cell's name: the first 16 hex digits (64 bits) of the SHA-256 of
    /// its canonical JSON. Stable across runs, machines and Rust versions
    /// (never `DefaultHasher`).
    pub fn hash(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        hex(&Sha256::digest(json.as_bytes())[..8])
    }

    /// The cell in words for messages: `KTH at load 0.7 with easy` (a
    /// load such as 1e300 written short, not in 301 digits).
    pub fn describe(&self) -> String {
        format!(
            "{} at load {} with {}",
            self.workload,
            workload_format::readable_number(self.load),
            self.policy
        )
    }
}

/// One cell of a sweep, in the stable order of [`cells`].
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Position in the full enumeration (shards take index % n == i).
    pub index: usize,
    /// Index of the workload in the spec.
    pub workload: usize,
    /// Index of the load in the spec.
    pub load: usize,
    /// Index of the policy in the spec.
    pub policy: usize,
    /// Its configuration.
    pub config: CellConfig,
    /// [`CellConfig::hash`].
    pub hash: String,
}

impl Cell {
    /// The workload instance this cell runs on: (workload, load, seed).
    pub fn instance(&self) -> (usize, usize, Option<u64>) {
        (self.workload, self.load, self.config.seed)
    }
}

/// The SHA-256 of a file.
///
/// # Errors
/// The file cannot be read.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

/// Lowercase hexadecimal digits of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The content keys of the spec's workloads (hashes the trace files).
///
/// # Errors
/// A trace file that cannot be read, named.
pub fn source_keys(spec: &Spec) -> Result<Vec<SourceKey>, String> {
    spec.workloads
        .iter()
        .map(|w| match &w.kind {
            WorkloadKind::File {
                path,
                lenient,
                procs,
                scale,
                first_jobs,
                deadlines,
            } => Ok(SourceKey::File {
                sha256: sha256_file(path).map_err(|e| {
                    format!("workload `{}`: cannot read {}: {e}", w.name, path.display())
                })?,
                lenient: *lenient,
                procs: *procs,
                scale: *scale,
                first_jobs: *first_jobs,
                deadlines: *deadlines,
            }),
            WorkloadKind::Lublin(settings) => Ok(SourceKey::Lublin(settings.clone())),
            WorkloadKind::Cwf(settings) => Ok(SourceKey::Cwf(settings.clone())),
        })
        .collect()
}

/// Every cell of the spec in a stable order: workloads, then loads, then
/// seeds, then policies (the innermost), each in spec order. Seeds apply to
/// generated workloads and to duplicate/expand; a file scaled by `scale`
/// has one cell per load and policy, with no seed.
pub fn cells(spec: &Spec, sources: &[SourceKey]) -> Vec<Cell> {
    let mut out = Vec::new();
    for (w, (workload, source)) in spec.workloads.iter().zip(sources).enumerate() {
        let (method, seeds): (&str, Vec<Option<u64>>) = match (&workload.kind, spec.load_method) {
            (WorkloadKind::Lublin(_) | WorkloadKind::Cwf(_), _) => {
                ("generator", spec.seeds.iter().map(|&s| Some(s)).collect())
            }
            (WorkloadKind::File { .. }, LoadMethod::Scale) => ("scale", vec![None]),
            (WorkloadKind::File { .. }, method) => (
                method.as_str(),
                spec.seeds.iter().map(|&s| Some(s)).collect(),
            ),
        };
        for (l, &load) in spec.loads.iter().enumerate() {
            for &seed in &seeds {
                for (p, policy) in spec.policies.iter().enumerate() {
                    let config = CellConfig {
                        schema: SCHEMA,
                        workload: workload.name.clone(),
                        source: source.clone(),
                        load,
                        load_factor: spec.load_factor
                            && matches!(workload.kind, WorkloadKind::File { .. }),
                        load_method: method.to_owned(),
                        seed,
                        policy: policy.clone(),
                        overrun: spec.overrun,
                        simulation: Simulation {
                            estimates: spec.estimates,
                            invoke: spec.invoke,
                            event_order: spec.event_order,
                            simultaneous_ends: spec.simultaneous_ends,
                            suspend_overhead: spec.suspend_overhead,
                            resume_overhead: spec.resume_overhead,
                        },
                        tau: spec.tau,
                        warmup: spec.warmup,
                        drain: spec.drain,
                        granularity: spec.granularity,
                    };
                    let hash = config.hash();
                    out.push(Cell {
                        index: out.len(),
                        workload: w,
                        load: l,
                        policy: p,
                        config,
                        hash,
                    });
                }
            }
        }
    }
    out
}

/// Per-job data of a run, compact: jobs in arrival order, submit times as
/// differences from the previous job's (the first from 0), then wait,
/// runtime and processors. Everything the differentials and the queue
/// plots need ([`CompactJobs::completed`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CompactJobs {
    /// Submit time minus the previous job's (the first job's: its submit).
    pub submit_delta: Vec<i64>,
    /// start - submit.
    pub wait: Vec<i64>,
    /// finish - start.
    pub runtime: Vec<i64>,
    /// Processors.
    pub procs: Vec<u32>,
}

impl CompactJobs {
    /// Packs jobs given in submit order.
    pub fn pack(jobs: &[CompletedJob]) -> Self {
        let mut out = Self::default();
        let mut previous = 0;
        for job in jobs {
            out.submit_delta.push(job.submit - previous);
            previous = job.submit;
            out.wait.push(job.start - job.submit);
            out.runtime.push(job.finish - job.start);
            out.procs.push(job.procs);
        }
        out
    }

    /// The jobs back, or `None` if the arrays differ in length.
    pub fn completed(&self) -> Option<Vec<CompletedJob>> {
        let n = self.submit_delta.len();
        if self.wait.len() != n || self.runtime.len() != n || self.procs.len() != n {
            return None;
        }
        let mut submit = 0;
        Some(
            (0..n)
                .map(|i| {
                    submit += self.submit_delta[i];
                    let start = submit + self.wait[i];
                    CompletedJob::new(submit, start, start + self.runtime[i], self.procs[i])
                })
                .collect(),
        )
    }
}

/// A finished cell's result file, `cells/<hash>.json`. It holds no timing,
/// so the same cell always writes the same bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CellResult {
    /// [`CellConfig::hash`] of `config`.
    pub hash: String,
    /// The SHA-256 of the result's JSON with this field empty
    /// ([`seal`](Self::seal)), so that a file whose metrics were edited or
    /// damaged is not taken for a result; empty in files written before
    /// schedsim kept it.
    #[serde(default)]
    pub digest: String,
    /// The configuration.
    pub config: CellConfig,
    /// The tool version that wrote it.
    pub tool_version: String,
    /// The policy's own name for itself.
    pub policy_name: String,
    /// The load change applied to a trace (None for generated workloads).
    pub load_change: Option<LoadChange>,
    /// Offered load of the simulated workload (the load reached).
    pub offered_load: Option<f64>,
    /// Records dropped (lenient) or not simulated.
    pub dropped_jobs: u64,
    /// The run metrics.
    pub metrics: RunMetrics,
    /// Per-group AWRT, AWRT and UTIL (Franke et al.), for workloads with
    /// users.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<GroupMetrics>,
    /// Rejections and deadline misses, for workloads with deadlines or
    /// runs that rejected jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadlines: Option<DeadlineReport>,
    /// Batch and dedicated jobs apart, for workloads with dedicated jobs
    /// (requested starts) run by a policy that handles them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitMetrics>,
    /// The policy's own counters (SCOJO-PECT's groups and search), in its
    /// order; metric paths `counters.NAME`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<(String, u64)>,
    /// Per-job data.
    pub jobs: CompactJobs,
}

impl CellResult {
    /// The SHA-256 of this result's JSON with `digest` empty.
    fn content_digest(&mut self) -> String {
        let digest = std::mem::take(&mut self.digest);
        // Serializing plain data cannot fail; an error would only make the
        // digest not match.
        let json = serde_json::to_vec(self).unwrap_or_default();
        self.digest = digest;
        hex(&Sha256::digest(json))
    }

    /// Sets `digest` to the result's content digest and returns the
    /// result's JSON, as its file holds it (without the line end).
    ///
    /// # Errors
    /// The result cannot be encoded as JSON (plain data: it can).
    pub fn seal(&mut self) -> serde_json::Result<Vec<u8>> {
        self.digest.clear();
        let mut json = serde_json::to_vec(self)?;
        self.digest = hex(&Sha256::digest(&json));
        // A result file holds a whole run's jobs: the digest goes into the
        // bytes it was computed over rather than the result being encoded
        // again. `hash` and `digest` lead the object, and no quote in an
        // encoded string follows a comma, so the first `,"digest":""` is
        // the field.
        const EMPTY: &[u8] = b",\"digest\":\"\"";
        match json.windows(EMPTY.len()).position(|window| window == EMPTY) {
            Some(at) => {
                let quote = at + EMPTY.len() - 1;
                json.splice(quote..quote, self.digest.bytes());
            }
            None => json = serde_json::to_vec(self)?,
        }
        Ok(json)
    }

    /// The result a cell's file holds, if it is that cell's: it parses,
    /// holds this cell (hash and configuration) and matches its digest;
    /// otherwise why not. A resumed run redoes such a cell, merge refuses
    /// it.
    ///
    /// # Errors
    /// Why the bytes are not this cell's result.
    pub fn trusted(bytes: &[u8], cell: &Cell) -> Result<Self, String> {
        let mut result: Self =
            serde_json::from_slice(bytes).map_err(|e| format!("not a cell result ({e})"))?;
        if result.hash != cell.hash || result.config != cell.config {
            return Err("it holds another cell's result than its name says".to_owned());
        }
        match result.damage() {
            Some(why) => Err(why.to_owned()),
            None => Ok(result),
        }
    }

    /// Why this result read from a file cannot be trusted, if it cannot:
    /// no digest (an older file), or one its content does not match.
    fn damage(&mut self) -> Option<&'static str> {
        if self.digest.is_empty() {
            return Some("it has no content digest (written before schedsim checked them)");
        }
        let expected = self.content_digest();
        if self.digest != expected {
            Some("its content does not match its digest (edited or damaged)")
        } else {
            None
        }
    }

    /// The run metrics as JSON, with `groups` (`awrt1`..`awrt5`, `awrt`,
    /// `util` and `objective`'s value) when the workload has users,
    /// `deadlines`, the policy's `counters`, and with `batch` and
    /// `dedicated` (each a whole set of run metrics over those jobs only,
    /// e.g. `batch.wait.mean`) and `delay` (the dedicated jobs' start
    /// delays after their requested starts: `delay.mean`, `delay.max`,
    /// `delay.delayed`, ...) when it has dedicated jobs: what the spec's
    /// metric paths name.
    pub fn metrics_json(&self, objective: &Objective) -> serde_json::Value {
        let mut value = serde_json::to_value(&self.metrics).unwrap_or_default();
        if let (Some(groups), Some(object)) = (&self.groups, value.as_object_mut()) {
            let mut entry = serde_json::Map::new();
            for stats in &groups.groups {
                entry.insert(format!("awrt{}", stats.group), stats.awrt.into());
            }
            entry.insert("awrt".to_owned(), groups.awrt.into());
            entry.insert("util".to_owned(), groups.util.into());
            entry.insert(
                "objective".to_owned(),
                objective.evaluate(groups).ok().into(),
            );
            object.insert("groups".to_owned(), entry.into());
        }
        if let (Some(deadlines), Some(object)) = (&self.deadlines, value.as_object_mut()) {
            object.insert("deadlines".to_owned(), deadlines.metrics_json());
        }
        if let (Some(split), Some(object)) = (&self.split, value.as_object_mut()) {
            let parts = [
                ("batch", serde_json::to_value(&split.batch)),
                ("dedicated", serde_json::to_value(&split.dedicated)),
                ("delay", serde_json::to_value(split.delay)),
            ];
            for (key, part) in parts {
                if let Ok(part) = part
                    && !part.is_null()
                {
                    object.insert(key.to_owned(), part);
                }
            }
        }
        if let (false, Some(object)) = (self.counters.is_empty(), value.as_object_mut()) {
            let counters: serde_json::Map<String, serde_json::Value> = self
                .counters
                .iter()
                .map(|(name, count)| (name.clone(), (*count).into()))
                .collect();
            object.insert("counters".to_owned(), counters.into());
        }
        value
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Whether a file name is one of [`write_atomic`]'s temporary files.
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp.")
}

/// Writes `bytes` to `dir/name` atomically: a temporary file in the same
/// folder (named `.NAME.tmp.HOST.PID.N`, unique across the processes of a
/// Slurm array sharing the folder), flushed to disk, then renamed over the
/// target. A reader sees the whole file or none.
///
/// # Errors
/// The file cannot be written or renamed.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(
        ".{name}.tmp.{}.{}.{n}",
        host_name(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        io::Write::write_all(&mut file, bytes)?;
        file.sync_all()?;
        let target = dir.join(name);
        fs::rename(&temp, &target)?;
        Ok(target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> CellConfig {
        CellConfig {
            schema: SCHEMA,
            workload: "kth".to_owned(),
            source: SourceKey::File {
                sha256: "ab".repeat(32),
                lenient: true,
                procs: None,
                scale: None,
                first_jobs: None,
                deadlines: None,
            },
            load: 0.75,
            load_factor: false,
            load_method: "scale".to_owned(),
            seed: None,
            policy: "easy".to_owned(),
            overrun: Overrun::Kill,
            simulation: Simulation::default(),
            tau: 10,
            warmup: 0.0,
            drain: 0.0,
            granularity: 1,
        }
    }

    #[test]
    fn cells_are_described_with_short_loads() {
        let mut config = config();
        assert_eq!(config.describe(), "kth at load 0.75 with easy");
        config.load = 1e300;
        assert_eq!(config.describe(), "kth at load 1e300 with easy");
    }

    #[test]
    fn canonical_json_and_pinned_hash() {
        // The canonical JSON is the struct's fields in order; its hash must
        // never change (result files of earlier sweeps are found by it).
        let json = serde_json::to_string(&config()).unwrap();
        assert_eq!(
            json,
            format!(
                "{{\"schema\":1,\"workload\":\"kth\",\"source\":{{\"file\":{{\"sha256\":\"{}\",\
                 \"lenient\":true,\"procs\":null}}}},\"load\":0.75,\"load_method\":\"scale\",\
                 \"seed\":null,\"policy\":\"easy\",\"overrun\":\"kill\",\"tau\":10,\"warmup\":0.0,\
                 \"drain\":0.0,\"granularity\":1}}",
                "ab".repeat(32)
            )
        );
        // The first 8 bytes of sha256 of that JSON (computed once with
        // `printf '%s' "$json" | sha256sum`).
        assert_eq!(config().hash(), PINNED_HASH);
        let mut other = config();
        other.load = 0.8;
        assert_ne!(other.hash(), config().hash());
        // Simulation settings count only when not the default, so results
        // written before they existed keep their names.
        let mut per_event = config();
        per_event.simulation.invoke = Invoke::PerEvent;
        assert_ne!(per_event.hash(), config().hash());
        per_event.simulation.invoke = Invoke::PerTimestamp;
        assert_eq!(per_event.hash(), config().hash());
    }

    const PINNED_HASH: &str = "b7ec33cc8b344055";

    #[test]
    fn sealed_json_is_the_trusted_encoding() {
        let jobs = [
            CompletedJob::new(5, 9, 19, 2),
            CompletedJob::new(5, 5, 6, 1),
        ];
        let metrics =
            schedsim_metrics::summarize(&jobs, &schedsim_metrics::MetricsConfig::new(4)).unwrap();
        let config = config();
        let mut result = CellResult {
            hash: config.hash(),
            digest: "stale".to_owned(),
            config: config.clone(),
            tool_version: "0".to_owned(),
            policy_name: "EASY \"digest\":\"\"".to_owned(),
            load_change: None,
            offered_load: Some(0.5),
            dropped_jobs: 0,
            metrics,
            groups: None,
            deadlines: None,
            split: None,
            counters: vec![("digest".to_owned(), 1)],
            jobs: CompactJobs::pack(&jobs),
        };
        let json = result.seal().unwrap();
        // The digest spliced in gives the bytes encoding the sealed result.
        assert_eq!(json, serde_json::to_vec(&result).unwrap());
        assert_eq!(result.digest.len(), 64);
        assert_eq!(result.content_digest(), result.digest);
        let cell = Cell {
            index: 0,
            workload: 0,
            load: 0,
            policy: 0,
            hash: config.hash(),
            config,
        };
        assert_eq!(CellResult::trusted(&json, &cell).unwrap(), result);
    }

    #[test]
    fn compact_jobs_round_trip() {
        let jobs = [
            CompletedJob::new(5, 9, 19, 2),
            CompletedJob::new(5, 5, 6, 1),
            CompletedJob::new(12, 20, 20, 4),
        ];
        let packed = CompactJobs::pack(&jobs);
        // Submits 5, 5, 12 -> deltas 5, 0, 7; waits 4, 0, 8; runtimes 10, 1, 0.
        assert_eq!(packed.submit_delta, [5, 0, 7]);
        assert_eq!(packed.wait, [4, 0, 8]);
        assert_eq!(packed.runtime, [10, 1, 0]);
        assert_eq!(packed.completed().unwrap(), jobs);
        let mut broken = packed;
        broken.procs.pop();
        assert_eq!(broken.completed(), None);
    }

    #[test]
    fn atomic_write_leaves_no_temp_file() {
        let dir = std::env::temp_dir().join(format!("xtask-atomic-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = write_atomic(&dir, "a.json", b"{}").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"{}");
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.json"]);
        assert!(is_temp_name(".a.json.tmp.host.12.0"));
        assert!(!is_temp_name("a.json"));
        let _ = fs::remove_dir_all(&dir);
    }
}

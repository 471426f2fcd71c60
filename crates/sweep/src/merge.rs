//! `--merge`: every cell's result into one tidy CSV, the differentials
//! against the baseline, and the SVG figures.
//!
//! Outputs in the sweep folder:
//! - `results.csv`: one row per run x metric: `workload, load, load_method,
//!   seed, policy, achieved_load, metric, value`, in cell order then metric
//!   order;
//! - `differentials.csv` (with a baseline): per run of another policy and
//!   metric (response, wait, bounded_slowdown), the mean per-job difference
//!   baseline - policy (positive: the policy is better, as in the LOS
//!   thesis's EASY - LOS plots) with its confidence interval by batch
//!   means ([`schedsim_metrics::compare`]): `workload, load, load_method,
//!   seed, policy, baseline, metric, mean, low, high, jobs, batches,
//!   batch_size, larger_batches` (the first `larger_batches` batches hold
//!   `batch_size + 1` jobs, the others `batch_size`);
//! - `plots/WORKLOAD/`: `METRIC.svg` (metric vs load per policy),
//!   `utilization.svg` (utilization vs offered load, thesis Fig. 4.1),
//!   `diff_METRIC.svg` (mean differential vs load with CI error bars,
//!   Fig. 4.2/4.3), `queue_LOAD.svg` (queue length over time at one load,
//!   Fig. 4.13).
//!
//! With several seeds, metric curves show the mean over seeds, and the
//! differential plots use independent replications: the mean of the
//! per-seed mean differences with a Student-t interval over the seeds
//! (each seed's batch-means interval is still in differentials.csv).

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use schedsim_metrics::{CompareConfig, Differential, compare};
use schedsim_run::{AxisScale, AxisUnit, LineChart, Series, line_chart, queue_length_series};
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::cell::{Cell, CellResult, is_temp_name, write_atomic};
use super::spec::Spec;
use crate::SweepError;
use schedsim_run::host_name;

/// What a merge did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeReport {
    /// Cells merged.
    pub cells: usize,
    /// Stray temporary files removed (left by killed runs).
    pub temp_removed: usize,
    /// Result files of cells not in this spec (left alone).
    pub foreign: usize,
    /// Files written.
    pub written: Vec<String>,
    /// Figures under plots/ that this merge did not draw (a workload,
    /// metric or load since removed from the spec), removed so that no
    /// stale figure passes for a current one.
    pub stale_figures_removed: usize,
}

/// The metric value at a dotted path of the run metrics.
fn metric_value(metrics: &serde_json::Value, path: &str) -> Option<f64> {
    path.split('.')
        .try_fold(metrics, |v, key| v.get(key))?
        .as_f64()
}

/// Shortest round-trip text of a float: the same bits give the same text.
fn number(value: f64) -> String {
    format!("{value}")
}

/// Whether the temporary file `name` (`.NAME.tmp.HOST.PID.N`) belongs to a
/// live process of this host. The merge lock already keeps runs of this
/// version out; this spares the writes of anything else still writing.
fn owner_alive(name: &str) -> bool {
    let mut parts = name.rsplitn(3, '.');
    let (Some(_counter), Some(pid), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let host = rest.rsplit('.').next().unwrap_or_default();
    host == host_name() && pid.parse::<u32>().is_ok() && Path::new("/proc").join(pid).exists()
}

/// Writes the merge output `name` atomically; an error names the file.
fn write_output(out: &Path, name: &str, bytes: &[u8]) -> Result<(), SweepError> {
    write_atomic(out, name, bytes)
        .map(drop)
        .map_err(|source| SweepError::Io {
            action: "write",
            path: out.join(name),
            source,
        })
}

/// Merges the finished cells of `cells` in `out`; the caller holds the
/// merge lock ([`crate::lock::lock_merge`]).
///
/// # Errors
/// Missing or unreadable cells, or files that cannot be written.
pub fn merge(spec: &Spec, cells: &[Cell], out: &Path) -> Result<MergeReport, SweepError> {
    let cells_dir = out.join("cells");
    let mut temp_removed = 0;
    let mut foreign = 0;
    let known: BTreeSet<String> = cells.iter().map(|c| format!("{}.json", c.hash)).collect();
    let entries = fs::read_dir(&cells_dir)
        .map_err(|e| format!("cannot read {}: {e}", cells_dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_temp_name(&name) {
            if owner_alive(&name) {
                continue;
            }
            // An unfinished write of a killed run: the merge lock is only
            // granted while no shard runs.
            fs::remove_file(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            temp_removed += 1;
        } else if !known.contains(&name) {
            foreign += 1;
        }
    }
    let missing: Vec<&Cell> = cells
        .iter()
        .filter(|c| !cells_dir.join(format!("{}.json", c.hash)).exists())
        .collect();
    if let Some(first) = missing.first() {
        return Err(SweepError::Failed(format!(
            "{} of {} cells are not finished (first: {}); run the sweep (again) before --merge",
            missing.len(),
            cells.len(),
            first.config.describe()
        )));
    }
    let results: Vec<CellResult> = cells
        .par_iter()
        .map(|cell| {
            let path = cells_dir.join(format!("{}.json", cell.hash));
            let bytes =
                fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            // The checks of a resumed run, which reruns such a cell.
            CellResult::trusted(&bytes, cell).map_err(|why| {
                format!(
                    "{}: {why}; run the sweep again (it reruns such cells) before --merge",
                    path.display()
                )
            })
        })
        .collect::<Result<_, String>>()?;

    let mut written = Vec::new();
    let mut csv = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| e.to_string();
    csv.write_record([
        "workload",
        "load",
        "load_method",
        "seed",
        "policy",
        "achieved_load",
        "metric",
        "value",
    ])
    .map_err(io)?;
    for result in &results {
        let c = &result.config;
        let metrics = result.metrics_json(&spec.objective);
        for metric in &spec.metrics {
            let value = metric_value(&metrics, metric).map_or_else(String::new, number);
            csv.write_record([
                c.workload.as_str(),
                &number(c.load),
                &c.load_method,
                &c.seed.map_or_else(String::new, |s| s.to_string()),
                &c.policy,
                &result.offered_load.map_or_else(String::new, number),
                metric,
                &value,
            ])
            .map_err(io)?;
        }
    }
    let csv = csv.into_inner().map_err(|e| e.to_string())?;
    write_output(out, "results.csv", &csv)?;
    written.push("results.csv".to_owned());

    let differentials = match &spec.baseline {
        Some(baseline) => Some(differentials(spec, cells, &results, baseline)?),
        None => None,
    };
    if let Some(rows) = &differentials {
        let csv = differentials_csv(rows)?;
        write_output(out, "differentials.csv", &csv)?;
        written.push("differentials.csv".to_owned());
    }
    written.extend(plots(spec, cells, &results, differentials.as_deref(), out)?);
    let drawn: BTreeSet<PathBuf> = written.iter().map(|relative| out.join(relative)).collect();
    let stale_figures_removed = remove_stale_figures(&out.join("plots"), &drawn)?;
    Ok(MergeReport {
        cells: results.len(),
        temp_removed,
        foreign,
        written,
        stale_figures_removed,
    })
}

/// Removes the SVG files under `dir` (recursively) that are not in `drawn`,
/// and folders left empty; returns how many figures it removed.
fn remove_stale_figures(dir: &Path, drawn: &BTreeSet<PathBuf>) -> Result<usize, String> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut removed = 0;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            removed += remove_stale_figures(&path, drawn)?;
            // Only succeeds when empty, which is the point.
            let _ = fs::remove_dir(&path);
        } else if path.extension().is_some_and(|ext| ext == "svg") && !drawn.contains(&path) {
            fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// differentials.csv: one row per run of a policy x metric.
fn differentials_csv(rows: &[DiffRow]) -> Result<Vec<u8>, String> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| e.to_string();
    csv.write_record([
        "workload",
        "load",
        "load_method",
        "seed",
        "policy",
        "baseline",
        "metric",
        "mean",
        "low",
        "high",
        "jobs",
        "batches",
        "batch_size",
        "larger_batches",
    ])
    .map_err(io)?;
    for row in rows {
        for (metric, d) in row.metrics() {
            csv.write_record([
                row.workload.as_str(),
                &number(row.load),
                &row.load_method,
                &row.seed.map_or_else(String::new, |s| s.to_string()),
                &row.policy,
                &row.baseline,
                metric,
                &number(d.mean),
                &d.low.map_or_else(String::new, number),
                &d.high.map_or_else(String::new, number),
                &row.jobs.to_string(),
                &row.batches.to_string(),
                &row.batch_size.to_string(),
                &row.larger_batches.to_string(),
            ])
            .map_err(io)?;
        }
    }
    csv.into_inner().map_err(|e| e.to_string())
}

/// One policy's differentials against the baseline at one load and seed.
#[derive(Debug, Clone)]
struct DiffRow {
    workload: String,
    workload_index: usize,
    load: f64,
    load_method: String,
    seed: Option<u64>,
    policy: String,
    baseline: String,
    jobs: u64,
    batches: u32,
    batch_size: u64,
    /// Batches of `batch_size + 1` jobs (the first `jobs mod batches`).
    larger_batches: u32,
    response: Differential,
    wait: Differential,
    bounded_slowdown: Differential,
}

impl DiffRow {
    fn metrics(&self) -> [(&'static str, Differential); 3] {
        [
            ("response", self.response),
            ("wait", self.wait),
            ("bounded_slowdown", self.bounded_slowdown),
        ]
    }
}

fn differentials(
    spec: &Spec,
    cells: &[Cell],
    results: &[CellResult],
    baseline: &str,
) -> Result<Vec<DiffRow>, String> {
    let config = CompareConfig {
        level: spec.level,
        batches: spec.batches,
        tau: spec.tau,
        warmup: spec.warmup,
        drain: spec.drain,
    };
    let base_of: BTreeMap<(usize, usize, Option<u64>), usize> = cells
        .iter()
        .filter(|c| c.config.policy == baseline)
        .map(|c| (c.instance(), c.index))
        .collect();
    let pairs: Vec<(usize, usize)> = cells
        .iter()
        .filter(|c| c.config.policy != baseline)
        .filter_map(|c| base_of.get(&c.instance()).map(|&b| (b, c.index)))
        .collect();
    pairs
        .par_iter()
        .map(|&(b, p)| {
            let unpack = |i: usize| {
                results[i].jobs.completed().ok_or_else(|| {
                    format!("cell {}: per-job arrays differ in length", cells[i].hash)
                })
            };
            let (base, other) = (unpack(b)?, unpack(p)?);
            let c = compare(&base, &other, &config)
                .map_err(|e| format!("cell {} vs {}: {e}", cells[p].hash, cells[b].hash))?;
            let cell = &cells[p];
            Ok(DiffRow {
                workload: cell.config.workload.clone(),
                workload_index: cell.workload,
                load: cell.config.load,
                load_method: cell.config.load_method.clone(),
                seed: cell.config.seed,
                policy: cell.config.policy.clone(),
                baseline: baseline.to_owned(),
                jobs: c.jobs,
                batches: c.batches,
                batch_size: c.batch_size,
                larger_batches: c.larger_batches,
                response: c.response,
                wait: c.wait,
                bounded_slowdown: c.bounded_slowdown,
            })
        })
        .collect()
}

/// Mean and Student-t interval of independent replications.
fn replications(values: &[f64], level: f64) -> (f64, Option<(f64, f64)>) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, None);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .map(|d| d.inverse_cdf((1.0 + level) / 2.0))
        .unwrap_or(f64::NAN);
    let half = t * (variance / n).sqrt();
    (mean, Some((mean - half, mean + half)))
}

fn metric_label(metric: &str) -> String {
    match metric {
        "response.mean" => "mean response time".to_owned(),
        "wait.mean" => "mean wait time".to_owned(),
        "bounded_slowdown.mean" => "mean bounded slowdown".to_owned(),
        "utilization" => "utilization".to_owned(),
        "queue_length.mean" => "mean queue length (jobs)".to_owned(),
        "queue_length.per_step_mean" => "mean queue length per step (jobs)".to_owned(),
        "awrt" => "AWRT".to_owned(),
        other => other.replace('_', " "),
    }
}

/// Whether a metric is a time in seconds (its axis shows minutes, hours or
/// days).
fn is_seconds(metric: &str) -> bool {
    ["response", "wait", "awrt", "makespan"]
        .iter()
        .any(|m| metric == *m || metric.starts_with(&format!("{m}.")))
}

/// Whether a metric is a wait-like quantity that can span decades across
/// loads (one saturated point flattens a linear axis).
fn spans_decades(metric: &str) -> bool {
    is_seconds(metric) || metric.contains("slowdown") || metric.starts_with("queue_length")
}

fn plots(
    spec: &Spec,
    cells: &[Cell],
    results: &[CellResult],
    differentials: Option<&[DiffRow]>,
    out: &Path,
) -> Result<Vec<String>, String> {
    let mut written = Vec::new();
    let mut draw = |chart: &LineChart, relative: String| -> Result<(), String> {
        line_chart(chart, &out.join(&relative)).map_err(|e| crate::error_line(&e))?;
        written.push(relative);
        Ok(())
    };
    for (w, workload) in spec.workloads.iter().enumerate() {
        let dir = format!("plots/{}", crate::spec::path_segment(&workload.name));
        let mine: Vec<(&Cell, &CellResult)> = cells
            .iter()
            .zip(results)
            .filter(|(c, _)| c.workload == w)
            .collect();
        // Mean over seeds of a metric per policy and load, with the
        // Student-t interval across seeds when there are several.
        let curve = |policy: &str, value: &dyn Fn(&CellResult) -> Option<f64>| {
            let mut points = Vec::new();
            let mut errors = Vec::new();
            for &load in &spec.loads {
                let values: Vec<f64> = mine
                    .iter()
                    .filter(|(c, _)| c.config.policy == policy && c.config.load == load)
                    .filter_map(|(_, r)| value(r))
                    .collect();
                if values.is_empty() {
                    continue;
                }
                let (mean, interval) = replications(&values, spec.level);
                points.push((load, mean));
                if let Some((low, high)) = interval {
                    errors.push((load, low, high));
                }
            }
            (points, errors)
        };
        // Each policy keeps its spec position's look in every figure.
        let style_of = |policy: &str| {
            spec.policies
                .iter()
                .position(|p| p == policy)
                .unwrap_or(spec.policies.len())
        };
        let mut metrics: Vec<String> = spec.metrics.clone();
        if !metrics.iter().any(|m| m == "utilization") {
            metrics.push("utilization".to_owned());
        }
        // Captions stay short (they must fit the figure's width at 8 pt);
        // what the bars are goes under the x axis.
        let load_name = if spec.load_factor {
            "load factor"
        } else {
            "offered load"
        };
        let load_axis = if spec.seeds.len() > 1 {
            format!(
                "{load_name} (bars: {:.0}% CI, {} seeds)",
                spec.level * 100.0,
                spec.seeds.len()
            )
        } else {
            load_name.to_owned()
        };
        for metric in &metrics {
            let mut series: Vec<Series> = spec
                .policies
                .iter()
                .map(|policy| {
                    let (points, errors) = curve(policy, &|r: &CellResult| {
                        metric_value(&r.metrics_json(&spec.objective), metric)
                    });
                    let series = Series::new(policy, points).with_style_index(style_of(policy));
                    if errors.len() == series.points.len() {
                        series.with_errors(errors)
                    } else {
                        series
                    }
                })
                .collect();
            if series.iter().all(|s| s.points.is_empty()) {
                // A metric this workload does not have (the batch/dedicated
                // split of a workload without dedicated jobs): no figure.
                continue;
            }
            if metric == "utilization" {
                // Thesis Fig. 4.1: utilization against the offered load; where
                // they part, the machine is saturated.
                // With load factors, the reference is the offered load the
                // change reached (the mean over the cells at that factor).
                let offered: Vec<(f64, f64)> = if spec.load_factor {
                    spec.loads
                        .iter()
                        .filter_map(|&l| {
                            let reached: Vec<f64> = mine
                                .iter()
                                .filter(|(c, _)| c.config.load == l)
                                .filter_map(|(_, r)| r.offered_load)
                                .collect();
                            (!reached.is_empty())
                                .then(|| (l, reached.iter().sum::<f64>() / reached.len() as f64))
                        })
                        .collect()
                } else {
                    spec.loads.iter().map(|&l| (l, l)).collect()
                };
                series.push(Series::reference("offered load", offered));
            }
            let scale = if spans_decades(metric) {
                spec.y_scale.axis_scale()
            } else {
                AxisScale::Linear
            };
            let unit = if is_seconds(metric) {
                AxisUnit::Seconds
            } else {
                AxisUnit::Number
            };
            draw(
                &LineChart::new(
                    format!("{}: {}", workload.name, metric_label(metric)),
                    load_axis.clone(),
                    metric_label(metric),
                    series,
                )
                .with_markers()
                .with_y(scale, unit),
                format!("{dir}/{}.svg", metric.replace('.', "_")),
            )?;
        }
        if let (Some(rows), Some(baseline)) = (differentials, &spec.baseline) {
            for (index, metric) in ["response", "wait", "bounded_slowdown"].iter().enumerate() {
                let mut series = Vec::new();
                for policy in spec.policies.iter().filter(|p| *p != baseline) {
                    let mut points = Vec::new();
                    let mut errors = Vec::new();
                    for &load in &spec.loads {
                        let per_seed: Vec<&DiffRow> = rows
                            .iter()
                            .filter(|r| {
                                r.workload_index == w && &r.policy == policy && r.load == load
                            })
                            .collect();
                        if per_seed.is_empty() {
                            continue;
                        }
                        let pick = |r: &DiffRow| r.metrics()[index].1;
                        let (mean, interval) = if per_seed.len() == 1 {
                            let d = pick(per_seed[0]);
                            (d.mean, d.low.zip(d.high))
                        } else {
                            let means: Vec<f64> = per_seed.iter().map(|r| pick(r).mean).collect();
                            replications(&means, spec.level)
                        };
                        points.push((load, mean));
                        if let Some((low, high)) = interval {
                            errors.push((load, low, high));
                        }
                    }
                    // The caption names the baseline: the legend stays short.
                    let s = Series::new(policy.as_str(), points).with_style_index(style_of(policy));
                    series.push(if s.points.len() == errors.len() {
                        s.with_errors(errors)
                    } else {
                        s
                    });
                }
                let unit = if *metric == "bounded_slowdown" {
                    AxisUnit::Number
                } else {
                    AxisUnit::Seconds
                };
                draw(
                    &LineChart::new(
                        format!("{}: {baseline} - policy", workload.name),
                        format!("{load_name} (bars: {:.0}% CI)", spec.level * 100.0),
                        format!("{} difference", metric.replace('_', " ")),
                        series,
                    )
                    .with_zero_line()
                    .with_markers()
                    .with_y(AxisScale::Linear, unit),
                    format!("{dir}/diff_{metric}.svg"),
                )?;
            }
        }
        let queue_load = spec
            .queue_load
            .unwrap_or_else(|| spec.loads.iter().copied().fold(f64::MIN, f64::max));
        let first_seed = mine.first().and_then(|(c, _)| c.config.seed);
        let mut series = Vec::new();
        for policy in &spec.policies {
            if let Some((_, result)) = mine.iter().find(|(c, _)| {
                &c.config.policy == policy
                    && c.config.load == queue_load
                    && c.config.seed == first_seed
            }) {
                let jobs = result.jobs.completed().ok_or_else(|| {
                    format!("cell {}: per-job arrays differ in length", result.hash)
                })?;
                series.push(
                    Series::new(policy, queue_length_series(&jobs))
                        .with_style_index(style_of(policy)),
                );
            }
        }
        draw(
            &LineChart::new(
                format!(
                    "{}: jobs waiting at load {}",
                    workload.name,
                    workload_format::readable_number(queue_load)
                ),
                "time",
                "queue length (jobs, max per bucket)",
                series,
            )
            .with_x(AxisScale::Linear, AxisUnit::Seconds),
            format!("{dir}/queue_{queue_load}.svg"),
        )?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replication_interval_by_hand() {
        // Means 1, 2, 3: mean 2, s = 1, t(2 df, 0.95) = 2.919986:
        // half-width 2.919986 / sqrt(3) = 1.685854.
        let (mean, interval) = replications(&[1.0, 2.0, 3.0], 0.90);
        assert_eq!(mean, 2.0);
        let (low, high) = interval.unwrap();
        assert!((high - 2.0 - 1.685_854).abs() < 1e-5, "{high}");
        assert!((2.0 - low - 1.685_854).abs() < 1e-5);
        assert_eq!(replications(&[4.0], 0.9), (4.0, None));
    }

    #[test]
    fn differentials_give_both_batch_sizes() {
        // 176 jobs in 30 batches: 176 = 5 * 30 + 26, so 26 batches of 6
        // jobs and 4 of 5 (26 * 6 + 4 * 5 = 176).
        let d = Differential {
            mean: 1.5,
            half_width: Some(0.5),
            low: Some(1.0),
            high: Some(2.0),
        };
        let row = DiffRow {
            workload: "kth".to_owned(),
            workload_index: 0,
            load: 0.9,
            load_method: "scale".to_owned(),
            seed: None,
            policy: "los".to_owned(),
            baseline: "easy".to_owned(),
            jobs: 176,
            batches: 30,
            batch_size: 5,
            larger_batches: 26,
            response: d,
            wait: d,
            bounded_slowdown: d,
        };
        let text = String::from_utf8(differentials_csv(&[row]).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "workload,load,load_method,seed,policy,baseline,metric,mean,low,high,jobs,batches,batch_size,larger_batches"
        );
        assert_eq!(
            lines[1],
            "kth,0.9,scale,,los,easy,response,1.5,1,2,176,30,5,26"
        );
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn metric_paths_and_fields() {
        let v = serde_json::json!({"wait": {"mean": 2.5}, "utilization": 0.5, "awrt": null});
        assert_eq!(metric_value(&v, "wait.mean"), Some(2.5));
        assert_eq!(metric_value(&v, "utilization"), Some(0.5));
        assert_eq!(metric_value(&v, "awrt"), None);
        // A policy spec with a comma is quoted by the csv writer.
        let mut csv = csv::Writer::from_writer(Vec::new());
        csv.write_record(["los:lookahead=50,merit=maxjobs", "1"])
            .unwrap();
        assert_eq!(
            String::from_utf8(csv.into_inner().unwrap()).unwrap(),
            "\"los:lookahead=50,merit=maxjobs\",1\n"
        );
        assert_eq!(number(0.1), "0.1");
    }
}

//! `cargo xtask kumar-tables RESULTS.csv...`: the tables of Kumar, Shae and
//! Jamjoom's Delayed-LOS paper from sweep results (experiments/kumar-*.toml).
//!
//! For every workload of a `results.csv` (see the sweep's merge), values are
//! averaged over seeds (with their standard error). A sweep with one load
//! gives Fig. 5's table: each policy's utilization, mean wait, mean-based
//! slowdown and mean bounded slowdown. A sweep over loads gives Fig. 7's
//! table per load and, for every Delayed-LOS setting, Table IV: its maximum
//! % improvement over LOS and over EASY across the loads, with the load
//! where it is reached and the minimum next to it (the paper lists maxima
//! only). Improvements are computed on the seed means: utilization (D - X)
//! / X, waiting time and slowdown (X - D) / X, in %.
//!
//! The baselines X are LOS and EASY unless `--baseline` names others (LOS-D
//! and EASY-D for Table V, LOS-E and EASY-E for Table VI, LOS-DE and
//! EASY-DE for Table VII, under any of their options), and every
//! Hybrid-LOS setting is compared like a Delayed-LOS one. Metrics of
//! heterogeneous sweeps (`batch.wait.mean`, `dedicated.wait.mean`,
//! `delay.mean`: the batch jobs' wait, the dedicated jobs' wait and their
//! delay after the requested start) get columns of their own when the file
//! has them, and the first two an improvement row.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The metrics of the tables, as the sweep names them, with their labels.
const METRICS: [(&str, &str); 4] = [
    ("utilization", "util"),
    ("wait.mean", "mean wait (s)"),
    ("mean_based_slowdown", "slowdown (Kumar)"),
    ("bounded_slowdown.mean", "mean bsld"),
];

/// Metrics of heterogeneous sweeps shown when present, with their labels
/// and whether the improvement tables include them.
const SPLIT_METRICS: [(&str, &str, bool); 3] = [
    ("batch.wait.mean", "batch wait (s)", true),
    ("dedicated.wait.mean", "dedicated wait (s)", true),
    ("delay.mean", "dedicated delay (s)", false),
];

/// The baselines when none is given: Table IV's.
const DEFAULT_BASELINES: [&str; 2] = ["los", "easy"];

/// Values by workload, then (load, policy, metric), then seed.
type Values = BTreeMap<String, BTreeMap<(Load, String, String), BTreeMap<u64, f64>>>;

/// A load as a sortable key (its value in thousandths).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Load(i64);

impl Load {
    fn parse(text: &str) -> Option<Self> {
        let value: f64 = text.parse().ok()?;
        Some(Self((value * 1000.0).round() as i64))
    }

    fn value(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

/// Runs `cargo xtask kumar-tables`: prints the tables of each file.
///
/// # Errors
/// An unreadable or malformed results.csv.
pub fn run(files: &[PathBuf], baselines: &[String]) -> Result<(), String> {
    let baselines: Vec<String> = if baselines.is_empty() {
        DEFAULT_BASELINES.map(str::to_owned).to_vec()
    } else {
        baselines.to_vec()
    };
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let values = parse(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        print!("{}", tables(&values, &baselines));
    }
    Ok(())
}

fn parse(text: &str) -> Result<Values, String> {
    if text.trim().is_empty() {
        return Err("empty file".to_owned());
    }
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let columns = reader.headers().map_err(|e| e.to_string())?.clone();
    let column = |name: &str| {
        columns
            .iter()
            .position(|c| c == name)
            .ok_or(format!("no column `{name}`"))
    };
    let (workload, load, seed, policy, metric, value) = (
        column("workload")?,
        column("load")?,
        column("seed")?,
        column("policy")?,
        column("metric")?,
        column("value")?,
    );
    let mut values = Values::new();
    for (number, record) in reader.records().enumerate() {
        let fields = record.map_err(|e| format!("line {}: {e}", number + 2))?;
        let field = |index: usize| {
            fields
                .get(index)
                .ok_or(format!("line {}: too few fields", number + 2))
        };
        // Metrics a run could not compute are empty: left out.
        let Ok(number_value) = field(value)?.parse::<f64>() else {
            continue;
        };
        let load = Load::parse(field(load)?).ok_or(format!(
            "line {}: bad load `{}`",
            number + 2,
            field(load)?
        ))?;
        // Workloads scaled by `scale` have no seed.
        let seed = field(seed)?.parse().unwrap_or(0);
        values
            .entry(field(workload)?.to_owned())
            .or_default()
            .entry((load, field(policy)?.to_owned(), field(metric)?.to_owned()))
            .or_default()
            .insert(seed, number_value);
    }
    Ok(values)
}

/// Mean and standard error of the mean (0 for one value).
fn mean_and_error(by_seed: &BTreeMap<u64, f64>) -> (f64, f64) {
    let values: Vec<f64> = by_seed.values().copied().collect();
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt())
}

/// How a metric's value prints.
fn show(metric: &str, value: f64) -> String {
    match metric {
        "utilization" => format!("{value:.4}"),
        _ if metric.ends_with("wait.mean") || metric.starts_with("delay.") => {
            format!("{value:.0}")
        }
        _ => format!("{value:.2}"),
    }
}

/// % improvement of `policy` over `other` (positive: `policy` is better).
fn improvement(metric: &str, policy: f64, other: f64) -> f64 {
    if metric == "utilization" {
        (policy - other) / other * 100.0
    } else {
        (other - policy) / other * 100.0
    }
}

/// Policies in a stable order: easy, los, then the others (Delayed-LOS
/// settings by their C_s), as the sweep names them.
fn policy_order(policies: &mut [String]) {
    let rank = |policy: &str| -> (u8, u32, String) {
        match policy {
            "easy" => (0, 0, String::new()),
            "los" => (1, 0, String::new()),
            _ if skip_threshold(policy).is_none() => (2, 0, policy.to_owned()),
            _ => (
                3,
                skip_threshold(policy).unwrap_or(u32::MAX),
                policy.to_owned(),
            ),
        }
    };
    policies.sort_by_key(|policy| rank(policy));
}

/// The C_s of a Delayed-LOS spec (7 when not given).
fn skip_threshold(policy: &str) -> Option<u32> {
    let (name, options) = policy.split_once(':').unwrap_or((policy, ""));
    if !name.starts_with("delayed-los") && !name.starts_with("hybrid-los") {
        return None;
    }
    Some(
        options
            .split(',')
            .find_map(|option| option.strip_prefix("cs=")?.parse().ok())
            .unwrap_or(schedsim_policies::DEFAULT_SKIP_THRESHOLD),
    )
}

/// The seeds of a workload's values, in order.
fn seeds_of(cells: &BTreeMap<(Load, String, String), BTreeMap<u64, f64>>) -> Vec<u64> {
    let mut seeds: Vec<u64> = cells.values().flat_map(|v| v.keys().copied()).collect();
    seeds.sort_unstable();
    seeds.dedup();
    seeds
}

/// The markdown tables of all workloads, Delayed-LOS and Hybrid-LOS
/// compared with `baselines`.
fn tables(values: &Values, baselines: &[String]) -> String {
    let mut out = String::new();
    for (workload, cells) in values {
        // The heterogeneous metrics this workload has.
        let split: Vec<(&str, &str, bool)> = SPLIT_METRICS
            .into_iter()
            .filter(|(metric, _, _)| cells.keys().any(|(_, _, m)| m == metric))
            .collect();
        let columns: Vec<(&str, &str)> = METRICS
            .into_iter()
            .chain(split.iter().map(|&(metric, label, _)| (metric, label)))
            .collect();
        let improved: Vec<&str> = ["utilization", "wait.mean", "mean_based_slowdown"]
            .into_iter()
            .chain(
                split
                    .iter()
                    .filter(|(_, _, improved)| *improved)
                    .map(|(metric, _, _)| *metric),
            )
            .collect();
        let mut loads: Vec<Load> = cells.keys().map(|(load, _, _)| *load).collect();
        loads.dedup();
        let mut policies: Vec<String> = cells.keys().map(|(_, p, _)| p.clone()).collect();
        policies.sort();
        policies.dedup();
        policy_order(&mut policies);
        let seeds = cells.values().map(BTreeMap::len).max().unwrap_or(0);
        let by_seed = |load: Load, policy: &str, metric: &str| {
            cells.get(&(load, policy.to_owned(), metric.to_owned()))
        };
        let get = |load: Load, policy: &str, metric: &str| {
            by_seed(load, policy, metric).map(mean_and_error)
        };
        // Seeds (common workloads) on which `policy` waits less than `other`.
        let wins = |load: Load, policy: &str, other: &str| -> Option<(usize, usize)> {
            let mine = by_seed(load, policy, "wait.mean")?;
            let theirs = by_seed(load, other, "wait.mean")?;
            let pairs: Vec<(f64, f64)> = mine
                .iter()
                .filter_map(|(seed, &m)| Some((m, *theirs.get(seed)?)))
                .collect();
            Some((pairs.iter().filter(|(m, t)| m < t).count(), pairs.len()))
        };
        for &load in &loads {
            let _ = writeln!(
                out,
                "\n### {workload}, load {}: means over {seeds} seeds (± standard error)\n",
                load.value()
            );
            let _ = write!(out, "| policy |");
            for (_, label) in &columns {
                let _ = write!(out, " {label} |");
            }
            let _ = write!(
                out,
                " waits less than {} (seeds) |\n|---|",
                baselines.join(", ")
            );
            for _ in &columns {
                let _ = write!(out, "---|");
            }
            out.push_str("---|\n");
            for policy in &policies {
                let _ = write!(out, "| {policy} |");
                for &(metric, _) in &columns {
                    match get(load, policy, metric) {
                        Some((mean, error)) => {
                            let _ =
                                write!(out, " {} ± {} |", show(metric, mean), show(metric, error));
                        }
                        None => out.push_str(" - |"),
                    }
                }
                let count = |other: &str| {
                    wins(load, policy, other).map_or("-".to_owned(), |(w, n)| format!("{w}/{n}"))
                };
                let counts: Vec<String> = baselines.iter().map(|b| count(b)).collect();
                let _ = writeln!(out, " {} |", counts.join(", "));
            }
        }
        if loads.len() < 2 {
            continue;
        }
        let _ = writeln!(
            out,
            "\n### {workload}: maximum % improvement across loads (Tables IV-VII), on seed means; \
             and the range over seeds of each seed's maximum\n"
        );
        let _ = write!(
            out,
            "| policy | over | utilization | waiting time | slowdown (Kumar) |"
        );
        for &(_, label, _) in split.iter().filter(|(_, _, improved)| *improved) {
            let _ = write!(out, " {label} |");
        }
        let _ = writeln!(out, "\n|---|---|{}", "---|".repeat(improved.len()));
        for policy in policies.iter().filter(|p| skip_threshold(p).is_some()) {
            for other in baselines {
                let _ = write!(out, "| {policy} | {other} |");
                for &metric in &improved {
                    let gains: Vec<(f64, Load)> = loads
                        .iter()
                        .filter_map(|&load| {
                            let (mine, _) = get(load, policy, metric)?;
                            let (theirs, _) = get(load, other, metric)?;
                            Some((improvement(metric, mine, theirs), load))
                        })
                        .collect();
                    let best = gains.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0));
                    let worst = gains.iter().copied().min_by(|a, b| a.0.total_cmp(&b.0));
                    // The paper's figures are single runs: the maximum over
                    // loads of one seed's improvements, for each seed.
                    let single: Vec<f64> = seeds_of(cells)
                        .into_iter()
                        .filter_map(|seed| {
                            loads
                                .iter()
                                .filter_map(|&load| {
                                    let mine = by_seed(load, policy, metric)?.get(&seed)?;
                                    let theirs = by_seed(load, other, metric)?.get(&seed)?;
                                    Some(improvement(metric, *mine, *theirs))
                                })
                                .max_by(f64::total_cmp)
                        })
                        .collect();
                    match (best, worst) {
                        (Some((best, at)), Some((worst, worst_at))) => {
                            let _ = write!(
                                out,
                                " max {best:.2} (at {}), min {worst:.2} (at {})",
                                at.value(),
                                worst_at.value()
                            );
                            let low = single.iter().copied().min_by(f64::total_cmp);
                            let high = single.iter().copied().max_by(f64::total_cmp);
                            if let (Some(low), Some(high)) = (low, high)
                                && single.len() > 1
                            {
                                let _ = write!(out, "; one seed's max {low:.2} to {high:.2}");
                            }
                            out.push_str(" |");
                        }
                        _ => out.push_str(" - |"),
                    }
                }
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "\
workload,load,load_method,seed,policy,achieved_load,metric,value
w,0.5,generator,1,easy,0.5,wait.mean,100
w,0.5,generator,2,easy,0.5,wait.mean,300
w,0.5,generator,1,los,0.5,wait.mean,400
w,0.5,generator,2,los,0.5,wait.mean,400
w,0.5,generator,1,delayed-los,0.5,wait.mean,200
w,0.5,generator,2,delayed-los,0.5,wait.mean,200
w,0.5,generator,1,delayed-los,0.5,utilization,0.55
w,0.5,generator,1,los,0.5,utilization,0.5
w,0.6,generator,1,easy,0.6,wait.mean,1000
w,0.6,generator,1,los,0.6,wait.mean,500
w,0.6,generator,1,\"delayed-los:cs=3,lookahead=2\",0.6,wait.mean,450
w,0.6,generator,1,delayed-los,0.6,wait.mean,450
w,0.6,generator,1,delayed-los,0.6,awrt,
";

    #[test]
    fn seed_means_and_table_iv_by_hand() {
        let values = parse(CSV).unwrap();
        let baselines = DEFAULT_BASELINES.map(str::to_owned);
        let text = tables(&values, &baselines);
        // EASY at 0.5: waits 100 and 300: mean 200, standard deviation
        // 141.4, standard error 141.4 / sqrt(2) = 100. It waits less than
        // LOS (400) on both seeds.
        assert!(
            text.contains("| easy | - | 200 ± 100 | - | - | 2/2, 0/2 |"),
            "{text}"
        );
        // Delayed-LOS (200, 200) beats LOS on both seeds and EASY (100,
        // 300) on seed 2 only.
        assert!(text.contains("| 2/2, 1/2 |"), "{text}");
        // Delayed-LOS (C_s 7) over LOS: wait at 0.5 (400 - 200) / 400 = 50%,
        // at 0.6 (500 - 450) / 500 = 10%; over EASY: 0% at 0.5, 55% at 0.6.
        // Utilization over LOS: (0.55 - 0.5) / 0.5 = 10% at 0.5 only.
        // Seed 1 alone: 50% at 0.5 and 10% at 0.6, max 50; seed 2 has only
        // load 0.5: 50%. Utilization has one seed only: no range.
        assert!(
            text.contains(
                "| delayed-los | los | max 10.00 (at 0.5), min 10.00 (at 0.5) | \
                 max 50.00 (at 0.5), min 10.00 (at 0.6); one seed's max 50.00 to 50.00 | - |"
            ),
            "{text}"
        );
        assert!(
            // Seed 1: (100 - 200) / 100 = -100% at 0.5, 55% at 0.6: max 55;
            // seed 2: (300 - 200) / 300 = 33.33% at 0.5.
            text.contains(
                "| delayed-los | easy | - | max 55.00 (at 0.6), min 0.00 (at 0.5); \
                 one seed's max 33.33 to 55.00 | - |"
            ),
            "{text}"
        );
        // The quoted policy with a comma is one field, ordered by its C_s
        // (3) before the default (7).
        let three = text.find("| delayed-los:cs=3,lookahead=2 | los |").unwrap();
        let seven = text.find("| delayed-los | los |").unwrap();
        assert!(three < seven, "{text}");
    }

    #[test]
    fn baselines_are_parameters_and_split_metrics_get_columns() {
        // Table V's comparison: Hybrid-LOS over LOS-D and EASY-D (two
        // mechanisms of EASY-D), batch-only waits beside the overall ones.
        let csv = "\
workload,load,load_method,seed,policy,achieved_load,metric,value
w,0.5,generator,1,easy-d,0.5,wait.mean,400
w,0.5,generator,1,easy-d:dedicated=head,0.5,wait.mean,300
w,0.5,generator,1,hybrid-los,0.5,wait.mean,240
w,0.5,generator,1,easy-d,0.5,batch.wait.mean,100
w,0.5,generator,1,easy-d:dedicated=head,0.5,batch.wait.mean,50
w,0.5,generator,1,hybrid-los,0.5,batch.wait.mean,80
w,0.6,generator,1,easy-d,0.6,wait.mean,400
w,0.6,generator,1,easy-d:dedicated=head,0.6,wait.mean,300
w,0.6,generator,1,hybrid-los,0.6,wait.mean,300
";
        let values = parse(csv).unwrap();
        let baselines = ["easy-d".to_owned(), "easy-d:dedicated=head".to_owned()];
        let text = tables(&values, &baselines);
        assert!(
            text.contains("| waits less than easy-d, easy-d:dedicated=head (seeds) |"),
            "{text}"
        );
        // Hybrid-LOS waits less than both at 0.5; at 0.5 its batch jobs
        // wait (100 - 80) / 100 = 20% less than EASY-D's and (50 - 80) / 50
        // = -60% "less" than with the head mechanism (no 0.6 value).
        assert!(
            text.contains("| hybrid-los | - | 240 ± 0 | - | - | 80 ± 0 | 1/1, 1/1 |"),
            "{text}"
        );
        // Over EASY-D: wait (400 - 240) / 400 = 40% at 0.5, 25% at 0.6.
        assert!(
            text.contains(
                "| hybrid-los | easy-d | - | max 40.00 (at 0.5), min 25.00 (at 0.6) | - | \
                 max 20.00 (at 0.5), min 20.00 (at 0.5) |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| hybrid-los | easy-d:dedicated=head | - | max 20.00 (at 0.5), min 0.00 (at 0.6) | - | max -60.00 (at 0.5), min -60.00 (at 0.5) |"),
            "{text}"
        );
    }

    #[test]
    fn bad_files_are_errors() {
        assert_eq!(parse("").unwrap_err(), "empty file");
        assert_eq!(parse("workload,load\n").unwrap_err(), "no column `seed`");
        assert_eq!(
            parse("workload,load,seed,policy,metric,value\nw,x,1,easy,wait.mean,1\n").unwrap_err(),
            "line 2: bad load `x`"
        );
        assert_eq!(skip_threshold("hybrid-los-e:cs=12"), Some(12));
        assert_eq!(skip_threshold("los"), None);
    }
}

//! `cargo xtask estimates`: how close estimate models come to the user
//! estimates of the archive traces (issue 18, item 4).
//!
//! For every trace in SCHEDSIM_TRACES whose jobs carry a requested time, the
//! jobs with a known runtime and estimate keep their runtimes and get
//! estimates from each model; the table gives the two-sample
//! Kolmogorov-Smirnov distance D between the model's estimates and the
//! trace's, and between the accuracies (runtime / estimate, capped at 1),
//! plus the share of jobs at the most popular estimate and the number of
//! distinct estimates. Models:
//! - `exact`: the runtime;
//! - `f:3`, `f:3,rounded`: Mu'alem-Feitelson, optionally rounded up to the
//!   popular values;
//! - `tsafrir max`: Tsafrir-Etsion-Feitelson with the trace's largest
//!   estimate as the maximum;
//! - `tsafrir site`: the maximum is the largest estimate that at least 1%
//!   of the jobs use (a limit in force, not an outlier);
//! - `+max share`: and the share of jobs at that maximum as a hint;
//! - `+top 5`: and the five most popular estimates with their shares.
//!
//! Runtimes are capped at the job's own estimate in the trace (overruns are
//! grace time; a model cannot be asked to cover them), and runtimes above a
//! model's maximum are truncated to it (the model's authors do the same).
//! The maximum's hinted share counts every job at or above it in the trace,
//! since the model folds larger estimates into the maximum. A model whose
//! histogram cannot cover the runtimes is reported as infeasible. Seed 1.

use std::collections::BTreeMap;
use std::path::Path;

use lublin_model::{
    EstimateModelError, EstimateParams, TsafrirParams, ks_two_sample, tsafrir_estimates,
};
use workload_format::{ReadOptions, read_path};

const TRACES: [&str; 5] = [
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-SP2-1998-first4961-sample.swf.gz",
    "HPC2N-2002-first3170-sample.swf.gz",
    "LANL-CM5-1994-4.1-cln.swf.gz",
    "RICC-2010-2.swf.gz",
];

/// Prints the comparison as a Markdown table.
///
/// # Errors
/// SCHEDSIM_TRACES unset, an unreadable trace or a model that fails.
pub fn run() -> Result<(), String> {
    let traces = std::env::var_os("SCHEDSIM_TRACES").ok_or("SCHEDSIM_TRACES is not set")?;
    println!(
        "| trace | jobs | model | D estimates | D accuracy | top share (trace) | distinct (trace) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for name in TRACES {
        compare(&Path::new(&traces).join(name), name)?;
    }
    Ok(())
}

fn compare(path: &Path, name: &str) -> Result<(), String> {
    let workload = read_path(path, &ReadOptions::lenient()).map_err(|e| e.to_string())?;
    let (runtimes, real): (Vec<u64>, Vec<u64>) = workload
        .records
        .iter()
        .filter_map(|r| {
            let estimate = r.requested_time.filter(|&e| e > 0)?;
            Some((r.run_time?.min(estimate), estimate))
        })
        .unzip();
    let n = real.len();
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for &e in &real {
        *counts.entry(e).or_default() += 1;
    }
    let largest = *counts.keys().next_back().ok_or("no estimates")?;
    let site = counts
        .iter()
        .rev()
        .find(|&(_, &c)| c as f64 >= 0.01 * n as f64)
        .map_or(largest, |(&t, _)| t)
        .max(3_600);
    let share = |t: u64| counts.get(&t).copied().unwrap_or(0) as f64 / n as f64;
    let at_or_above = |t: u64| counts.range(t..).map(|(_, &c)| c).sum::<u64>() as f64 / n as f64;
    let mut popular: Vec<(u64, u64)> = counts.iter().map(|(&t, &c)| (t, c)).collect();
    popular.sort_by_key(|&(t, c)| (std::cmp::Reverse(c), t));
    let top5: Vec<u64> = popular
        .iter()
        .map(|p| p.0)
        .filter(|&t| t <= site)
        .take(5)
        .collect();

    let per_job = |p: EstimateParams| -> Vec<u64> {
        runtimes
            .iter()
            .enumerate()
            .map(|(i, &r)| p.estimate_for(r, 1, i as u64))
            .collect()
    };
    let tsafrir = |p: TsafrirParams| -> Result<Vec<u64>, String> {
        match tsafrir_estimates(&p.truncate_runtimes(), &runtimes, 1) {
            Ok(m) => Ok(m.estimates),
            Err(EstimateModelError::Infeasible { rank, .. }) => {
                Err(format!("infeasible at rank {rank}"))
            }
            Err(e) => Err(format!("{name}: {e}")),
        }
    };
    let with_max = TsafrirParams::new(site).hint(site, at_or_above(site));
    let mut with_top5 = with_max.clone();
    for &t in top5.iter().filter(|&&t| t != site) {
        with_top5 = with_top5.hint(t, share(t));
    }
    let models: Vec<(String, Result<Vec<u64>, String>)> = vec![
        ("exact".into(), Ok(per_job(EstimateParams::EXACT))),
        ("f:3".into(), Ok(per_job(EstimateParams::f_model(3.0)))),
        (
            "f:3,rounded".into(),
            Ok(per_job(EstimateParams::f_model(3.0).rounded())),
        ),
        (
            format!("tsafrir max {}", hours(largest)),
            tsafrir(TsafrirParams::new(largest.max(3_600))),
        ),
        (
            format!("tsafrir site {}", hours(site)),
            tsafrir(TsafrirParams::new(site)),
        ),
        ("tsafrir site +max share".into(), tsafrir(with_max)),
        ("tsafrir site +top 5".into(), tsafrir(with_top5)),
    ];
    let as_f64 = |v: &[u64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let accuracy = |est: &[u64]| -> Vec<f64> {
        runtimes
            .iter()
            .zip(est)
            .map(|(&r, &e)| (r as f64 / e.max(1) as f64).min(1.0))
            .collect()
    };
    let real_f = as_f64(&real);
    let real_accuracy = accuracy(&real);
    let (real_top, real_distinct) = top_and_distinct(&real);
    let short = name.split('-').next().unwrap_or(name);
    for (model, est) in &models {
        let est = match est {
            Ok(est) => est,
            Err(why) if why.starts_with("infeasible") => {
                println!("| {short} | {n} | {model} | {why} | | | |");
                continue;
            }
            Err(why) => return Err(why.clone()),
        };
        let d_est = ks_two_sample(&as_f64(est), &real_f).d;
        let d_acc = ks_two_sample(&accuracy(est), &real_accuracy).d;
        let (top, distinct) = top_and_distinct(est);
        println!(
            "| {short} | {n} | {model} | {d_est:.3} | {d_acc:.3} | {:.1}% ({:.1}%) | {distinct} ({real_distinct}) |",
            100.0 * top,
            100.0 * real_top
        );
    }
    Ok(())
}

/// The share of the most popular value and the number of distinct values.
fn top_and_distinct(values: &[u64]) -> (f64, usize) {
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    for &v in values {
        *counts.entry(v).or_default() += 1;
    }
    let top = counts.values().copied().max().unwrap_or(0);
    (top as f64 / values.len().max(1) as f64, counts.len())
}

fn hours(seconds: u64) -> String {
    if seconds.is_multiple_of(3_600) {
        format!("{} h", seconds / 3_600)
    } else {
        format!("{:.2} h", seconds as f64 / 3_600.0)
    }
}

//! The Tsafrir-Etsion-Feitelson estimate model against the user estimates
//! of archive traces (SCHEDSIM_TRACES): it must come closer than the
//! f-model, by the two-sample Kolmogorov-Smirnov distance of the estimates
//! and of the accuracies (runtime / estimate). `cargo xtask estimates`
//! prints the full table for five traces.

use crate::common;

use common::{ks_two_sample, traces_dir};
use lublin_model::{EstimateParams, TsafrirParams, tsafrir_estimates};
use workload_format::{ReadOptions, read_path};

/// (runtime capped at the job's own estimate, estimate) of every job with
/// both.
fn jobs(name: &str) -> Option<(Vec<u64>, Vec<u64>)> {
    let path = traces_dir()?.join(name);
    let w = read_path(&path, &ReadOptions::lenient()).expect("readable trace");
    Some(
        w.records
            .iter()
            .filter_map(|r| {
                let e = r.requested_time.filter(|&e| e > 0)?;
                Some((r.run_time?.min(e), e))
            })
            .unzip(),
    )
}

fn as_f64(v: &[u64]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

fn accuracy(runtimes: &[u64], estimates: &[u64]) -> Vec<f64> {
    runtimes
        .iter()
        .zip(estimates)
        .map(|(&r, &e)| (r as f64 / e.max(1) as f64).min(1.0))
        .collect()
}

/// (D of the estimates, D of the accuracies) of `estimates` against the
/// trace's.
fn distances(runtimes: &[u64], real: &[u64], estimates: &[u64]) -> (f64, f64) {
    (
        ks_two_sample(&as_f64(estimates), &as_f64(real)).d,
        ks_two_sample(&accuracy(runtimes, estimates), &accuracy(runtimes, real)).d,
    )
}

fn f_model(runtimes: &[u64]) -> Vec<u64> {
    let p = EstimateParams::f_model(3.0);
    runtimes
        .iter()
        .enumerate()
        .map(|(i, &r)| p.estimate_for(r, 1, i as u64))
        .collect()
}

#[test]
fn sdsc_estimates_are_closer_under_the_model_than_the_f_model() {
    let Some((runtimes, real)) = jobs("SDSC-SP2-1998-first4961-sample.swf.gz") else {
        return;
    };
    // SDSC's limit in force is 18 h: the largest estimate at least 1% of
    // its jobs use (16.7% of them do).
    let model = TsafrirParams::new(18 * 3_600).truncate_runtimes();
    let modelled = tsafrir_estimates(&model, &runtimes, 1).unwrap().estimates;
    let (model_est, model_acc) = distances(&runtimes, &real, &modelled);
    let (f_est, f_acc) = distances(&runtimes, &real, &f_model(&runtimes));
    println!("SDSC: model D {model_est:.3} / {model_acc:.3}; f:3 D {f_est:.3} / {f_acc:.3}");
    // Measured: model 0.089 / 0.068, f:3 0.375 / 0.649.
    assert!(model_est < 0.15 && model_est < f_est / 2.0);
    assert!(model_acc < 0.15 && model_acc < f_acc / 2.0);
}

#[test]
fn kth_estimates_come_close_with_the_sites_popular_values_as_hints() {
    let Some((runtimes, real)) = jobs("KTH-SP2-1996-2.1-cln.swf.gz") else {
        return;
    };
    let n = real.len() as f64;
    let share = |pred: &dyn Fn(u64) -> bool| real.iter().filter(|&&e| pred(e)).count() as f64 / n;
    // KTH's largest estimate used by at least 1% of its jobs is 53,400 s;
    // the model folds the 3.5% above it into the maximum. Its other four
    // most popular estimates: 4 h, 1 h, 15 min and 5 min.
    let max = 53_400;
    let mut model = TsafrirParams::new(max)
        .truncate_runtimes()
        .hint(max, share(&|e| e >= max));
    for t in [14_400, 3_600, 900, 300] {
        model = model.hint(t, share(&|e| e == t));
    }
    let modelled = tsafrir_estimates(&model, &runtimes, 1).unwrap().estimates;
    let (model_est, model_acc) = distances(&runtimes, &real, &modelled);
    let rounded = EstimateParams::f_model(3.0).rounded();
    let f_rounded: Vec<u64> = runtimes
        .iter()
        .enumerate()
        .map(|(i, &r)| rounded.estimate_for(r, 1, i as u64))
        .collect();
    let (f_est, f_acc) = distances(&runtimes, &real, &f_rounded);
    println!("KTH: model D {model_est:.3} / {model_acc:.3}; f:3,rounded D {f_est:.3} / {f_acc:.3}");
    // Measured: model 0.121 / 0.130, f:3,rounded 0.167 / 0.353.
    assert!(model_est < f_est && model_acc < f_acc / 2.0);
}

//! Statistical comparison with the reference generator's own output
//! (`lublin99_ref_*` in SCHEDSIM_TRACES, made by m_lublin99.c with the
//! parameters listed in the traces README): two-sample KS tests on sizes, log
//! runtimes and inter-arrival times must not reject at the 1% level, and the
//! serial and power-of-two fractions must agree within 2 points.

use crate::common;

use common::{Job, ks_two_sample, read_trace, traces_dir};
use lublin_model::{LublinGenerator, LublinParams};

/// Fixed seed: the tests are deterministic.
const SEED: u64 = 1;

fn generated(params: LublinParams, n: usize) -> Vec<Job> {
    LublinGenerator::new(params, SEED)
        .unwrap()
        .generate(n)
        .iter()
        .map(|r| Job {
            submit: r.submit_time.unwrap(),
            runtime: r.run_time.unwrap(),
            size: r.allocated_processors.unwrap(),
            queue: r.queue_number.unwrap(),
        })
        .collect()
}

struct Summary {
    n: usize,
    sizes: Vec<f64>,
    log_runtimes: Vec<f64>,
    interarrivals: Vec<f64>,
    serial: f64,
    pow2: f64,
}

fn summary(jobs: &[Job]) -> Summary {
    let n = jobs.len() as f64;
    Summary {
        n: jobs.len(),
        sizes: jobs.iter().map(|j| j.size as f64).collect(),
        // Runtimes are at least 1 s in both (exp of a positive gamma draw).
        log_runtimes: jobs
            .iter()
            .map(|j| (j.runtime.max(1) as f64).ln())
            .collect(),
        interarrivals: jobs
            .windows(2)
            .map(|w| (w[1].submit - w[0].submit) as f64)
            .collect(),
        serial: jobs.iter().filter(|j| j.size == 1).count() as f64 / n,
        // Parallel power-of-two sizes (2, 4, 8, ...), as a fraction of all jobs.
        pow2: jobs
            .iter()
            .filter(|j| j.size > 1 && j.size.is_power_of_two())
            .count() as f64
            / n,
    }
}

/// KS tests on sizes, log runtimes and inter-arrival times at the 1% level.
fn ks_tests(label: &str, r: &Summary, o: &Summary) {
    for (what, a, b) in [
        ("sizes", &r.sizes, &o.sizes),
        ("log runtimes", &r.log_runtimes, &o.log_runtimes),
        ("inter-arrival times", &r.interarrivals, &o.interarrivals),
    ] {
        let ks = ks_two_sample(a, b);
        println!(
            "{label}: {what}: n = {} / {}, D = {:.4}, p = {:.3}",
            a.len(),
            b.len(),
            ks.d,
            ks.p
        );
        assert!(
            ks.p >= 0.01,
            "{label}: KS rejects {what}: D = {}, p = {}",
            ks.d,
            ks.p
        );
    }
}

/// Fractions within `max(2 points, 4 standard errors of the difference)`.
fn fraction_tests(label: &str, r: &Summary, o: &Summary) {
    for (what, a, b) in [
        ("serial", r.serial, o.serial),
        ("power of two", r.pow2, o.pow2),
    ] {
        let pooled = (a * r.n as f64 + b * o.n as f64) / (r.n + o.n) as f64;
        let se = (pooled * (1.0 - pooled) * (1.0 / r.n as f64 + 1.0 / o.n as f64)).sqrt();
        let bound = 0.02f64.max(4.0 * se);
        println!("{label}: {what} fraction {a:.4} vs {b:.4} (bound {bound:.4})");
        assert!(
            (a - b).abs() <= bound,
            "{label}: {what} fractions {a} vs {b}"
        );
    }
}

fn compare(file: &str, params: LublinParams, whole_mix: bool) {
    let Some(dir) = traces_dir() else { return };
    let reference = read_trace(&dir.join(file));
    let typed = params.job_types;
    let ours = generated(params, reference.len());
    if whole_mix {
        let (r, o) = (summary(&reference), summary(&ours));
        ks_tests(file, &r, &o);
        for (what, a, b) in [
            ("serial", r.serial, o.serial),
            ("power of two", r.pow2, o.pow2),
        ] {
            println!("{file}: {what} fraction {a:.4} vs {b:.4}");
            assert!((a - b).abs() <= 0.02, "{file}: {what} fractions {a} vs {b}");
        }
    }
    if typed {
        for (queue, name) in [(1, "batch"), (0, "interactive")] {
            let pick = |jobs: &[Job]| -> Vec<Job> {
                jobs.iter().copied().filter(|j| j.queue == queue).collect()
            };
            let (r, o) = (summary(&pick(&reference)), summary(&pick(&ours)));
            let label = format!("{file} {name}");
            ks_tests(&label, &r, &o);
            fraction_tests(&label, &r, &o);
        }
    }
}

#[test]
fn matches_reference_1024_nodes_with_job_types() {
    // UHI=10, UMED=7.5 typeless; batch 10 / 8; interactive 8.5 / 6; 10,000 jobs.
    compare(
        "lublin99_ref_1024_seed1.swf.gz",
        LublinParams::for_machine(1024),
        true,
    );
}

#[test]
fn matches_reference_256_nodes_typeless() {
    // Typeless, UHI=8, UMED=5.5, 10,000 jobs.
    compare(
        "lublin99_ref_256_typeless_seed1.swf.gz",
        LublinParams::for_machine(256).job_types(false),
        true,
    );
}

#[test]
fn matches_reference_128_nodes_default() {
    // The reference defaults: 128 nodes, batch and interactive; 1,000 jobs.
    //
    // Only per-type comparisons here. Over 1,000 jobs (about six days) the
    // batch share is not a per-job coin flip but is driven by a few very long
    // batch inter-arrival gaps (the log gap is gamma(6.36, 0.853), capped at
    // e^13 s = 5 days), so the jobs are far from independent and a KS test on
    // the whole mix measures that one random share: the reference has 92
    // batch jobs, our seed 1 has 261, and our seeds 1..=16 range from 42 to
    // 293 (batch runtimes are ~60x longer, so the log-runtime mix rejects at
    // p = 0.0007 while every per-type test passes). The 10,000-job
    // comparisons above do test the whole mix; the next test checks that the
    // reference's 92 is an ordinary value of our share.
    compare(
        "lublin99_ref_128_default_seed1.swf.gz",
        LublinParams::default(),
        false,
    );
}

#[test]
fn reference_batch_share_is_ordinary_for_our_generator() {
    let Some(dir) = traces_dir() else { return };
    let reference = read_trace(&dir.join("lublin99_ref_128_default_seed1.swf.gz"));
    let batch = |jobs: &[Job]| jobs.iter().filter(|j| j.queue == 1).count();
    let theirs = batch(&reference);
    // Rank among 39 seeds of ours: strictly inside the range is a two-sided
    // test at the 5% level (a value from the same distribution falls below
    // all 39 or above all 39 with probability 2/40).
    let ours: Vec<usize> = (1..=39)
        .map(|seed| {
            let jobs = LublinGenerator::new(LublinParams::default(), seed)
                .unwrap()
                .generate(reference.len());
            jobs.iter().filter(|r| r.queue_number == Some(1)).count()
        })
        .collect();
    let below = ours.iter().filter(|&&c| c < theirs).count();
    println!("reference batch jobs {theirs}; ours over 39 seeds: {ours:?}; below: {below}");
    assert!(
        below > 0 && below < ours.len(),
        "reference batch share {theirs} outside ours {ours:?}"
    );
}

//! The speed of Greedy on a workload: one simulation under fixed
//! parameters, and simulations per second under random parameter sets (as
//! a training meets them), sequentially and on all cores.

use std::time::Instant;

use rand_pcg::Pcg64;
use rand_pcg::rand_core::Rng;
use schedsim_metrics::Objective;
use schedsim_policies::{Criterion, GreedyParameters};

use crate::TrainError;
use crate::layout::ParameterLayout;
use crate::workload::TrainingWorkload;

/// What [`bench()`] measured.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct BenchReport {
    /// Wall time of each run of the fixed parameters, seconds (simulation
    /// only).
    pub fixed: Vec<f64>,
    /// Per random parameter set: its criteria and the wall time of its
    /// simulation, seconds (run one after the other).
    pub random: Vec<(ParameterLayout, f64)>,
    /// Simulations per second of the same random sets run on all threads of
    /// the current rayon pool.
    pub parallel_rate: f64,
}

/// The median of `values` (0 when empty).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

/// `count` random parameter sets, each situation's criterion drawn among
/// f1-f4 and every parameter uniformly within its bounds (seeded).
pub fn random_parameters(count: usize, seed: u64) -> Vec<(ParameterLayout, GreedyParameters)> {
    let mut rng = Pcg64::new(
        0xcafe_f00d_d15e_a5e5 ^ u128::from(seed),
        0xa02b_dbf7_bb3c_0a7a,
    );
    (0..count)
        .map(|_| {
            let mut pick = || Criterion::ALL[(rng.next_u32() % 4) as usize];
            let layout = ParameterLayout {
                criteria: [pick(), pick(), pick()],
            };
            let values: Vec<f64> = layout
                .bounds()
                .iter()
                .map(|&(low, high)| {
                    let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    low + unit * (high - low)
                })
                .collect();
            // Values drawn inside the bounds are always valid.
            let params = layout
                .parameters(&values)
                .unwrap_or_else(|e| unreachable!("{e}"));
            (layout, params)
        })
        .collect()
}

/// Times Greedy on `workload`: `repeat` runs of `fixed`, then `random`
/// random parameter sets one by one, then the same sets in parallel.
///
/// # Errors
/// A failed simulation.
pub fn bench(
    workload: &TrainingWorkload,
    fixed: &GreedyParameters,
    repeat: usize,
    random: usize,
    seed: u64,
) -> Result<BenchReport, TrainError> {
    use rayon::prelude::*;
    // UTIL only: defined for any schedule.
    let objective: Objective = "UTIL".parse().map_err(|e| TrainError::Evaluation {
        workload: workload.name.clone(),
        source: Box::new(e),
    })?;
    let timed = |params: &GreedyParameters| -> Result<f64, TrainError> {
        let started = Instant::now();
        std::hint::black_box(workload.evaluate_greedy(params, &objective)?);
        Ok(started.elapsed().as_secs_f64())
    };
    let fixed_times = (0..repeat)
        .map(|_| timed(fixed))
        .collect::<Result<Vec<_>, _>>()?;
    let sets = random_parameters(random, seed);
    let random_times = sets
        .iter()
        .map(|(layout, params)| Ok((*layout, timed(params)?)))
        .collect::<Result<Vec<_>, TrainError>>()?;
    let started = Instant::now();
    sets.par_iter()
        .map(|(_, params)| workload.evaluate_greedy(params, &objective).map(drop))
        .collect::<Result<Vec<()>, _>>()?;
    let parallel_rate = sets.len() as f64 / started.elapsed().as_secs_f64();
    Ok(BenchReport {
        fixed: fixed_times,
        random: random_times,
        parallel_rate,
    })
}

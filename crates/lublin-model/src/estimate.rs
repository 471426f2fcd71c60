//! User runtime estimates (the requested-time field 9).

use rand_pcg::rand_core::Rng;
use serde::{Deserialize, Serialize};

use crate::error::ParamsError;
use crate::params::check_finite;
use crate::rng::unit;

/// The values users type most often, in seconds: 5, 15 and 30 minutes, 1, 2,
/// 4, 8, 12, 24 and 48 hours. With [`EstimateParams::round_to_popular`] an
/// estimate is rounded up to the first of these that is not below it.
pub const POPULAR_ESTIMATES: [u64; 10] = [
    300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 43_200, 86_400, 172_800,
];

/// How an estimate is derived from the job's runtime.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum EstimateModel {
    /// The estimate is the runtime.
    Exact,
    /// Mu'alem and Feitelson's f-model: `runtime * U(1, f)`, rounded up to a
    /// whole second (so never below the runtime). `f = 1` is exact.
    FModel {
        /// The largest over-estimation factor, at least 1.
        f: f64,
    },
}

/// The estimate model and its optional rounding. Estimates are whole seconds,
/// at least the runtime and at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EstimateParams {
    /// The model.
    pub model: EstimateModel,
    /// Round up to [`POPULAR_ESTIMATES`]; estimates above 48 h are rounded up
    /// to a whole hour instead.
    pub round_to_popular: bool,
}

impl EstimateParams {
    /// Exact estimates, not rounded.
    pub const EXACT: Self = Self {
        model: EstimateModel::Exact,
        round_to_popular: false,
    };

    /// The f-model with factor `f`, not rounded.
    pub fn f_model(f: f64) -> Self {
        Self {
            model: EstimateModel::FModel { f },
            round_to_popular: false,
        }
    }

    /// The same model with rounding up to the popular values switched on.
    #[must_use]
    pub fn rounded(mut self) -> Self {
        self.round_to_popular = true;
        self
    }

    pub(crate) fn validate(&self, name: &str) -> Result<(), ParamsError> {
        match self.model {
            EstimateModel::Exact => Ok(()),
            EstimateModel::FModel { f } => {
                check_finite(&format!("{name}.f"), f)?;
                // Above 1,000 an estimate can leave the 2^53 s time range
                // (runtimes reach e^22 s); Mu'alem and Feitelson used f <= 10.
                if (1.0..=1000.0).contains(&f) {
                    Ok(())
                } else {
                    Err(ParamsError::new(&format!("{name}.f"), f, "in [1, 1000]"))
                }
            }
        }
    }

    /// The estimate of the `index`-th job of a workload, of `runtime`
    /// seconds, from its own random stream under `seed`: the draw the Lublin
    /// generator makes for its `index`-th typeless job. For filling traces
    /// without estimates.
    pub fn estimate_for(&self, runtime: u64, seed: u64, index: u64) -> u64 {
        let mut rng = crate::rng::stream(
            seed,
            crate::rng::Aspect::Estimate,
            crate::rng::StreamClass::Typeless,
            index,
        );
        self.estimate(runtime, &mut rng)
    }

    /// The estimate for a job of `runtime` seconds, drawing from `rng` (the
    /// job's own estimate stream).
    pub(crate) fn estimate<R: Rng + ?Sized>(&self, runtime: u64, rng: &mut R) -> u64 {
        let base = match self.model {
            EstimateModel::Exact => runtime,
            EstimateModel::FModel { f } => {
                let factor = 1.0 + unit(rng) * (f - 1.0);
                // `max` guards against the product rounding below the runtime.
                ((runtime as f64 * factor).ceil() as u64).max(runtime)
            }
        }
        .max(1);
        if self.round_to_popular {
            round_to_popular(base)
        } else {
            base
        }
    }
}

/// Rounds up to the first popular value not below `seconds`; above 48 h, up
/// to a whole hour.
pub(crate) fn round_to_popular(seconds: u64) -> u64 {
    match POPULAR_ESTIMATES.iter().find(|&&v| v >= seconds) {
        Some(&v) => v,
        None => seconds.div_ceil(3_600).saturating_mul(3_600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::tests::assert_moments;
    use crate::rng::{Aspect, StreamClass, stream};

    #[test]
    fn exact_is_the_runtime_but_at_least_one_second() {
        let mut rng = stream(1, Aspect::Estimate, StreamClass::Typeless, 0);
        assert_eq!(EstimateParams::EXACT.estimate(1234, &mut rng), 1234);
        assert_eq!(EstimateParams::EXACT.estimate(0, &mut rng), 1);
    }

    #[test]
    fn popular_rounding_goes_up_to_the_next_value() {
        // 1 s -> 5 min; exactly 5 min stays; 5 min + 1 s -> 15 min; 3 h -> 4 h;
        // 47 h -> 48 h; 48 h + 1 s -> 49 h (whole hours beyond the table).
        assert_eq!(round_to_popular(1), 300);
        assert_eq!(round_to_popular(300), 300);
        assert_eq!(round_to_popular(301), 900);
        assert_eq!(round_to_popular(3 * 3600), 4 * 3600);
        assert_eq!(round_to_popular(47 * 3600), 48 * 3600);
        assert_eq!(round_to_popular(48 * 3600 + 1), 49 * 3600);
        assert_eq!(round_to_popular(u64::MAX), u64::MAX);
        let mut rng = stream(1, Aspect::Estimate, StreamClass::Typeless, 0);
        assert_eq!(
            EstimateParams::EXACT.rounded().estimate(4000, &mut rng),
            7200
        );
    }

    #[test]
    fn f_model_factor_is_uniform_between_one_and_f() {
        // For a long runtime the ceiling is negligible, so estimate / runtime
        // is U(1, f): mean (1 + f) / 2 = 3, variance (f - 1)^2 / 12 = 4/3.
        let p = EstimateParams::f_model(5.0);
        let runtime = 1_000_000;
        let ratios: Vec<f64> = (0..100_000)
            .map(|k| {
                let mut rng = stream(9, Aspect::Estimate, StreamClass::Typeless, k);
                let e = p.estimate(runtime, &mut rng);
                assert!((runtime..=5 * runtime).contains(&e));
                e as f64 / runtime as f64
            })
            .collect();
        assert_moments("f-model ratio", &ratios, 3.0, 16.0 / 12.0);
    }

    #[test]
    fn f_model_never_goes_below_the_runtime() {
        let p = EstimateParams::f_model(1.0);
        for k in 0..1000 {
            let mut rng = stream(3, Aspect::Estimate, StreamClass::Typeless, k);
            assert_eq!(p.estimate(k + 1, &mut rng), k + 1);
        }
        assert!(EstimateParams::f_model(0.5).validate("estimate").is_err());
        assert!(
            EstimateParams::f_model(f64::INFINITY)
                .validate("estimate")
                .is_err()
        );
    }
}

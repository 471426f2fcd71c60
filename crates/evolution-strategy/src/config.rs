use serde::{Deserialize, Serialize};

use crate::Error;

/// The box the object parameters live in: a closed interval
/// `[lower[i], upper[i]]` per parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Bounds {
    /// One interval per parameter, `(lower, upper)`.
    ///
    /// # Errors
    /// No interval, or an interval with a non-finite end or `lower > upper`
    /// ([`Error::InvalidBound`]). `lower == upper` is allowed: the parameter
    /// is then fixed.
    pub fn from_ranges<I: IntoIterator<Item = (f64, f64)>>(ranges: I) -> Result<Self, Error> {
        let (lower, upper): (Vec<f64>, Vec<f64>) = ranges.into_iter().unzip();
        if lower.is_empty() {
            return Err(Error::NoParameters);
        }
        for (index, (&lo, &hi)) in lower.iter().zip(&upper).enumerate() {
            if !lo.is_finite() || !hi.is_finite() || lo > hi {
                return Err(Error::InvalidBound {
                    index,
                    lower: lo,
                    upper: hi,
                });
            }
        }
        Ok(Self { lower, upper })
    }

    /// `n` parameters, all in `[lower, upper]`.
    ///
    /// # Errors
    /// As [`Bounds::from_ranges`].
    pub fn uniform(n: usize, lower: f64, upper: f64) -> Result<Self, Error> {
        Self::from_ranges(std::iter::repeat_n((lower, upper), n))
    }

    /// The number of object parameters.
    pub fn len(&self) -> usize {
        self.lower.len()
    }

    /// Always false: bounds have at least one parameter.
    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    /// The lower ends.
    pub fn lower(&self) -> &[f64] {
        &self.lower
    }

    /// The upper ends.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// `upper[i] - lower[i]`.
    pub(crate) fn width(&self, i: usize) -> f64 {
        self.upper[i] - self.lower[i]
    }

    /// Whether `x` has one value per parameter, each finite and inside its
    /// interval; the index of the first offender otherwise.
    pub(crate) fn check_point(&self, x: &[f64]) -> Result<(), Option<usize>> {
        if x.len() != self.len() {
            return Err(None);
        }
        match x
            .iter()
            .enumerate()
            .position(|(i, &v)| !(self.lower[i]..=self.upper[i]).contains(&v))
        {
            Some(i) => Err(Some(i)),
            None => Ok(()),
        }
    }
}

/// What happens to a mutated object parameter that leaves its interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BoundHandling {
    /// Set it to the nearest end of its interval (the default). The ends stay
    /// reachable and are hit with positive probability, which suits
    /// parameters whose end values mean something (a weight of exactly 0
    /// switches a term off).
    #[default]
    Clamp,
    /// Mirror it at the end it crossed, as often as needed (the value is
    /// folded into the interval with period twice its width). The ends are
    /// reached with probability zero, and no probability mass piles up
    /// there.
    Reflect,
}

impl BoundHandling {
    /// `x` brought into `[lower, upper]`.
    pub(crate) fn apply(self, x: f64, lower: f64, upper: f64) -> f64 {
        match self {
            Self::Clamp => x.clamp(lower, upper),
            Self::Reflect => {
                let width = upper - lower;
                if width <= 0.0 {
                    return lower;
                }
                let folded = (x - lower).rem_euclid(2.0 * width);
                let offset = if folded > width {
                    2.0 * width - folded
                } else {
                    folded
                };
                (lower + offset).clamp(lower, upper)
            }
        }
    }
}

/// The largest mu and the largest lambda a [`Config`] accepts. A generation
/// holds mu + lambda individuals; the papers use 15 and 105, and a
/// population past a million could not be evaluated, so a larger one is an
/// error before anything is allocated.
pub const MAX_POPULATION: usize = 1 << 20;

/// The settings of a run. [`Config::new`] gives the defaults of Franke,
/// Lepping and Schwiegelshohn (mu = 15, lambda = 105, 100 generations); the
/// `with_` methods change one setting each.
///
/// Step sizes are given as fractions of each parameter's interval width, so
/// one setting serves parameters of different scales.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Config {
    /// Parents kept per generation (mu). Default 15.
    pub mu: usize,
    /// Offspring bred per generation (lambda). Default 105 (mu/lambda = 1/7,
    /// Schwefel's recommendation).
    pub lambda: usize,
    /// Generations after the initial population. Default 100.
    pub generations: u32,
    /// Seed of every random draw. Default 0.
    pub seed: u64,
    /// Initial step size of every parameter, as a fraction of its interval
    /// width. Default 0.1.
    pub initial_step: f64,
    /// Smallest step size, as a fraction of the interval width; keeps the
    /// self-adaptation from collapsing to zero. Default 1e-12.
    pub min_step: f64,
    /// Largest step size, as a fraction of the interval width (wider steps
    /// only throw offspring against the bounds). Default 1.
    pub max_step: f64,
    /// The global learning rate tau0 of the log-normal step-size mutation;
    /// `None`: 1 / sqrt(2 n), n the number of object parameters.
    pub tau0: Option<f64>,
    /// The per-parameter learning rate tau; `None`: 1 / sqrt(2 sqrt(n)).
    pub tau: Option<f64>,
    /// What happens to offspring outside the bounds. Default
    /// [`BoundHandling::Clamp`].
    pub bound_handling: BoundHandling,
    /// Points that replace the first initial parents (the others are drawn
    /// uniformly in the bounds); at most mu, each inside the bounds.
    pub start_points: Vec<Vec<f64>>,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// The defaults (see each field).
    pub fn new() -> Self {
        Self {
            mu: 15,
            lambda: 105,
            generations: 100,
            seed: 0,
            initial_step: 0.1,
            min_step: 1e-12,
            max_step: 1.0,
            tau0: None,
            tau: None,
            bound_handling: BoundHandling::Clamp,
            start_points: Vec::new(),
        }
    }

    /// Sets mu and lambda.
    #[must_use]
    pub fn with_population(mut self, mu: usize, lambda: usize) -> Self {
        self.mu = mu;
        self.lambda = lambda;
        self
    }

    /// Sets the number of generations.
    #[must_use]
    pub fn with_generations(mut self, generations: u32) -> Self {
        self.generations = generations;
        self
    }

    /// Sets the seed.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the initial step size (fraction of each interval width).
    #[must_use]
    pub fn with_initial_step(mut self, fraction: f64) -> Self {
        self.initial_step = fraction;
        self
    }

    /// Sets the smallest and largest step sizes (fractions of each interval
    /// width).
    #[must_use]
    pub fn with_step_limits(mut self, min: f64, max: f64) -> Self {
        self.min_step = min;
        self.max_step = max;
        self
    }

    /// Sets the learning rates tau0 (global) and tau (per parameter).
    #[must_use]
    pub fn with_learning_rates(mut self, tau0: f64, tau: f64) -> Self {
        self.tau0 = Some(tau0);
        self.tau = Some(tau);
        self
    }

    /// Sets the bound handling.
    #[must_use]
    pub fn with_bound_handling(mut self, handling: BoundHandling) -> Self {
        self.bound_handling = handling;
        self
    }

    /// Sets the start points (see [`Config::start_points`]).
    #[must_use]
    pub fn with_start_points(mut self, points: Vec<Vec<f64>>) -> Self {
        self.start_points = points;
        self
    }

    /// tau0 for `n` object parameters.
    pub fn tau0_for(&self, n: usize) -> f64 {
        self.tau0.unwrap_or_else(|| 1.0 / (2.0 * n as f64).sqrt())
    }

    /// tau for `n` object parameters.
    pub fn tau_for(&self, n: usize) -> f64 {
        self.tau
            .unwrap_or_else(|| 1.0 / (2.0 * (n as f64).sqrt()).sqrt())
    }

    /// Checks every setting against `bounds`.
    pub(crate) fn check(&self, bounds: &Bounds) -> Result<(), Error> {
        let bad = |name: &'static str, value: String, expected: &'static str| {
            Err(Error::InvalidSetting {
                name,
                value,
                expected,
            })
        };
        let population = 1..=MAX_POPULATION;
        if !population.contains(&self.mu) {
            return bad("mu", self.mu.to_string(), "from 1 to 1048576");
        }
        if !population.contains(&self.lambda) {
            return bad("lambda", self.lambda.to_string(), "from 1 to 1048576");
        }
        let fraction = |x: f64| x.is_finite() && x > 0.0;
        if !fraction(self.initial_step) {
            return bad(
                "initial_step",
                self.initial_step.to_string(),
                "a finite fraction above 0",
            );
        }
        if !(self.min_step.is_finite() && self.min_step >= 0.0) {
            return bad(
                "min_step",
                self.min_step.to_string(),
                "a finite fraction of at least 0",
            );
        }
        if !fraction(self.max_step) || self.max_step < self.min_step {
            return bad(
                "max_step",
                self.max_step.to_string(),
                "a finite fraction above 0 and at least min_step",
            );
        }
        if !(self.min_step..=self.max_step).contains(&self.initial_step) {
            return bad(
                "initial_step",
                self.initial_step.to_string(),
                "a fraction between min_step and max_step",
            );
        }
        for (name, rate) in [("tau0", self.tau0), ("tau", self.tau)] {
            if let Some(rate) = rate
                && !(rate.is_finite() && rate >= 0.0)
            {
                return bad(name, rate.to_string(), "a finite rate of at least 0");
            }
        }
        if self.start_points.len() > self.mu {
            return bad(
                "start_points",
                format!("{} points", self.start_points.len()),
                "at most mu points",
            );
        }
        for (point, x) in self.start_points.iter().enumerate() {
            match bounds.check_point(x) {
                Ok(()) => {}
                Err(None) => {
                    return Err(Error::StartPointLength {
                        point,
                        len: x.len(),
                        expected: bounds.len(),
                    });
                }
                Err(Some(parameter)) => {
                    return Err(Error::StartPointOutside { point, parameter });
                }
            }
        }
        Ok(())
    }

    /// Whether a checkpoint written under `self` can continue under `other`:
    /// everything but the number of generations must agree (a finished run
    /// can be extended, since generation k's draws depend only on the seed
    /// and k).
    pub(crate) fn resumable_as(&self, other: &Self) -> bool {
        let mut same = other.clone();
        same.generations = self.generations;
        *self == same
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_learning_rates() {
        // n = 36: tau0 = 1/sqrt(72) = 0.11785, tau = 1/sqrt(2*6) = 0.28868.
        let config = Config::new();
        assert!((config.tau0_for(36) - 1.0 / 72f64.sqrt()).abs() < 1e-15);
        assert!((config.tau_for(36) - 1.0 / 12f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn reflection_folds_into_the_interval() {
        let reflect = |x| BoundHandling::Reflect.apply(x, 0.0, 1.0);
        assert_eq!(reflect(0.25), 0.25);
        assert_eq!(reflect(1.25), 0.75); // 0.25 past the top
        assert_eq!(reflect(-0.25), 0.25); // 0.25 below the bottom
        assert_eq!(reflect(2.25), 0.25); // twice the width further: same point
        assert_eq!(BoundHandling::Reflect.apply(3.0, 2.0, 2.0), 2.0);
        assert_eq!(BoundHandling::Clamp.apply(-3.0, 0.0, 5.0), 0.0);
        assert_eq!(BoundHandling::Clamp.apply(7.0, 0.0, 5.0), 5.0);
    }

    #[test]
    fn bad_settings_name_the_setting() {
        let bounds = Bounds::uniform(2, 0.0, 1.0).unwrap();
        let error = Config::new().with_population(0, 7).check(&bounds);
        assert_eq!(
            error.unwrap_err().to_string(),
            "setting mu is 0, expected from 1 to 1048576"
        );
        // 2^20 + 1: one past MAX_POPULATION, refused before any allocation.
        let error = Config::new().with_population(15, 1_048_577).check(&bounds);
        assert_eq!(
            error.unwrap_err().to_string(),
            "setting lambda is 1048577, expected from 1 to 1048576"
        );
        assert_eq!(MAX_POPULATION, 1_048_576);
        let error = Config::new()
            .with_start_points(vec![vec![0.5, 2.0]])
            .check(&bounds);
        assert_eq!(
            error.unwrap_err().to_string(),
            "start point 0 is outside the bounds at parameter 1"
        );
        assert!(matches!(
            Bounds::from_ranges([(0.0, 1.0), (2.0, 1.0)]),
            Err(Error::InvalidBound { index: 1, .. })
        ));
        assert!(matches!(
            Bounds::uniform(0, 0.0, 1.0),
            Err(Error::NoParameters)
        ));
    }
}

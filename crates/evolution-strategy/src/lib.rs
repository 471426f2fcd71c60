//! A (mu+lambda) evolution strategy with one self-adapted step size per
//! parameter: a derivative-free minimiser for expensive, noisy-looking or
//! piecewise-constant objectives over a box of real parameters. It is
//! seeded and deterministic whatever the thread count, evaluates candidates
//! in parallel on all cores (rayon), and writes a checkpoint after every
//! generation so that a killed run resumes to exactly the result it would
//! have had.
//!
//! It knows nothing about what it optimises: the caller supplies the fitness
//! function (lower is better), or one per case whose sum is minimised (for
//! example one scheduling simulation per workload).
//!
//! # Example
//!
//! ```
//! use evolution_strategy::{Bounds, Config, EvolutionStrategy, RunOptions};
//!
//! // The sphere function in 5 dimensions, minimum 0 at the origin.
//! let sphere = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>();
//! let bounds = Bounds::uniform(5, -5.0, 5.0)?;
//! let strategy = EvolutionStrategy::new(Config::new().with_seed(7), bounds)?;
//! let outcome = strategy.minimize(sphere, &RunOptions::new())?;
//! assert!(outcome.complete);
//! assert!(outcome.best.fitness < 1e-12);
//! // 15 initial parents, then 100 generations of 105 offspring.
//! assert_eq!(outcome.evaluations, 15 + 100 * 105);
//! # Ok::<(), evolution_strategy::Error>(())
//! ```
//!
//! Training on several cases (workloads) minimises the sum of their
//! fitness values; each (candidate, case) pair is one parallel task:
//!
//! ```
//! use evolution_strategy::{Bounds, Config, EvolutionStrategy, RunOptions};
//!
//! // Two "workloads" pulling the optimum to 1 and to 3: the sum's optimum is 2.
//! let targets = [1.0, 3.0];
//! let strategy = EvolutionStrategy::new(
//!     Config::new().with_generations(30),
//!     Bounds::uniform(1, 0.0, 5.0)?,
//! )?;
//! let outcome = strategy.minimize_sum(
//!     &targets,
//!     |target, x| (x[0] - target).powi(2),
//!     &RunOptions::new(),
//! )?;
//! assert!((outcome.best.params[0] - 2.0).abs() < 1e-6);
//! assert_eq!(outcome.best.cases.len(), 2); // (x-1)^2 and (x-3)^2 apart
//! # Ok::<(), evolution_strategy::Error>(())
//! ```
//!
//! # The algorithm
//!
//! The variant Franke, Lepping and Schwiegelshohn use to train Greedy
//! scheduling ("Greedy scheduling with complex objectives", CI-Sched 2007,
//! section IV-C), after Beyer and Schwefel ("Evolution strategies: a
//! comprehensive introduction", 2002) and Bäck and Schwefel (1993). With n
//! object parameters, the interval `[l_i, u_i]` and width `w_i = u_i - l_i`
//! of parameter i:
//!
//! 1. **Initial population** (generation 0): mu parents drawn uniformly in
//!    the box ([`Config::start_points`], if given, replace the first ones),
//!    each step size `s_i = initial_step * w_i`; all evaluated.
//! 2. **Each generation** k = 1..=`generations` breeds lambda offspring. For
//!    each:
//!    - *object parameters*: global discrete recombination over all mu
//!      parents: `x_i` is parameter i of a parent drawn uniformly, anew for
//!      every i;
//!    - *step sizes*: intermediate recombination of two distinct parents
//!      drawn uniformly once per offspring: `s_i = (s_a,i + s_b,i) / 2`;
//!    - *self-adaptation* (log-normal): `s_i' = s_i * exp(tau0 * N + tau *
//!      N_i)`, N drawn once per offspring and N_i per parameter, standard
//!      normal; then `s_i'` is kept in `[min_step * w_i, max_step * w_i]`;
//!    - *mutation*: `x_i' = x_i + s_i' * N_i'`, then the
//!      [`BoundHandling`] brings `x_i'` back into `[l_i, u_i]` (default:
//!      clamp to the nearest end; or reflect).
//! 3. **Plus-selection**: the mu best of the mu parents and the lambda
//!    offspring become the parents. Equal fitness: the younger first, then
//!    the earlier (parents before offspring, offspring in breeding order).
//!
//! Defaults ([`Config::new`]): mu = 15, lambda = 105 (Schwefel's mu/lambda =
//! 1/7), 100 generations, so 15 + 100 * 105 = 10,515 evaluations per case;
//! `tau0 = 1 / sqrt(2 n)` and `tau = 1 / sqrt(2 sqrt(n))` (the learning rates
//! of Bäck and Schwefel with proportionality constant 1; the paper does not
//! give them); initial steps 10% of each width; steps kept between 1e-12
//! and 1 times the width; clamping at the bounds.
//!
//! # Determinism and checkpoints
//!
//! The draws of generation k come from a PCG-64 stream keyed by (seed, k).
//! Offspring are bred sequentially from it, evaluated in parallel, and the
//! results put back in breeding order; sums over cases run in case order.
//! The outcome is therefore the same for any number of threads (run inside
//! a `rayon::ThreadPool::install` to choose it), and a checkpoint needs
//! only the parents and the log: [`RunOptions::with_checkpoint`] writes them
//! as JSON after every generation (to a temporary file renamed over the
//! checkpoint) and resumes from the file when it exists. A resumed run
//! continues with generation k + 1 and ends with the same [`Outcome`] as an
//! uninterrupted one; the number of generations may be raised on resume to
//! extend a finished run. [`RunOptions::with_context`] records what the
//! fitness function evaluates; a checkpoint made under another context is
//! refused. The fitness function must itself be
//! deterministic, and results are bit-identical on one platform (exp, ln and
//! cos come from the platform's maths library).
//!
//! The crate never prints: pass a progress callback
//! ([`RunOptions::with_progress`]) to drive a progress bar or a log.
#![warn(missing_docs)]

mod checkpoint;
mod config;
mod error;
mod rng;
mod strategy;

pub use config::{BoundHandling, Bounds, Config, MAX_POPULATION};
pub use error::{BoxError, Error};
pub use strategy::{
    EvolutionStrategy, GenerationStats, Individual, Outcome, Progress, ProgressFn, RunOptions,
};

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

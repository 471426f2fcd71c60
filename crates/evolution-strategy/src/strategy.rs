use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rand_pcg::Pcg64;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::checkpoint::{self, Checkpoint};
use crate::error::BoxError;
use crate::rng::{generation_stream, index, normal, unit};
use crate::{Bounds, Config, Error};

/// One member of a population: object parameters, their step sizes
/// (strategy parameters) and its fitness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Individual {
    /// The object parameters, inside the bounds.
    pub params: Vec<f64>,
    /// One mutation step size (standard deviation) per object parameter, in
    /// the parameter's own units.
    pub steps: Vec<f64>,
    /// The fitness: the sum of [`Individual::cases`] (lower is better).
    pub fitness: f64,
    /// The fitness per case, in case order (one value for a single
    /// objective).
    pub cases: Vec<f64>,
    /// The generation it was created in (0: the initial population).
    pub born: u32,
}

/// What one generation achieved: the per-generation log of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GenerationStats {
    /// The generation (0: the initial population).
    pub generation: u32,
    /// Fitness evaluations so far (one per candidate and case).
    pub evaluations: u64,
    /// The best fitness among the parents after selection (the best so far:
    /// plus-selection never loses it).
    pub best: f64,
    /// The mean fitness of the parents after selection.
    pub mean: f64,
    /// The worst fitness of the parents after selection.
    pub worst: f64,
    /// The mean fitness of this generation's offspring (`None` for
    /// generation 0).
    pub offspring_mean: Option<f64>,
    /// Offspring of this generation that became parents.
    pub accepted: usize,
    /// The parents' mean step size per object parameter, in its own units.
    pub mean_steps: Vec<f64>,
}

/// The state of a run: final if [`Outcome::complete`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Outcome {
    /// The best individual found (the first parent).
    pub best: Individual,
    /// The parents after the last generation run, best first.
    pub population: Vec<Individual>,
    /// One entry per generation run, from generation 0.
    pub history: Vec<GenerationStats>,
    /// The last generation run.
    pub generation: u32,
    /// Fitness evaluations in all (one per candidate and case).
    pub evaluations: u64,
    /// Whether all [`Config::generations`] have run (false when stopped by
    /// [`RunOptions::with_stop_after`]).
    pub complete: bool,
}

/// A report while a run goes on, for a progress bar or a log. The crate
/// itself never prints.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// One more evaluation of the current generation finished. Called from
    /// the worker threads, in no particular order; `done` counts up to
    /// `total`.
    Evaluated {
        /// The generation being evaluated.
        generation: u32,
        /// Evaluations of this generation finished.
        done: usize,
        /// Evaluations this generation needs.
        total: usize,
    },
    /// A generation finished (after its checkpoint was written).
    Generation(&'a GenerationStats),
}

/// The progress callback: shared by the worker threads.
pub type ProgressFn<'a> = dyn Fn(Progress<'_>) + Sync + 'a;

/// How to run: checkpointing, stopping early, progress reports. The default
/// runs to the end without a checkpoint or reports.
#[derive(Default, Clone)]
#[non_exhaustive]
pub struct RunOptions<'a> {
    /// The checkpoint file, written after every generation.
    pub checkpoint: Option<PathBuf>,
    /// Stop after this generation, as if killed then.
    pub stop_after: Option<u32>,
    /// The progress callback.
    pub progress: Option<&'a ProgressFn<'a>>,
    /// What the fitness function evaluates (its data and settings), kept in
    /// the checkpoint: a checkpoint made under another context is refused.
    pub context: Option<String>,
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("checkpoint", &self.checkpoint)
            .field("stop_after", &self.stop_after)
            .field("progress", &self.progress.map(|_| "callback"))
            .field("context", &self.context)
            .finish()
    }
}

impl<'a> RunOptions<'a> {
    /// No checkpoint, no early stop, no reports.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes a checkpoint to `path` after every generation (atomically: a
    /// temporary file renamed over it), and resumes from it if it exists.
    #[must_use]
    pub fn with_checkpoint(mut self, path: impl Into<PathBuf>) -> Self {
        self.checkpoint = Some(path.into());
        self
    }

    /// Stops after generation `generation` (0: after the initial
    /// population); a later run with the same checkpoint continues.
    #[must_use]
    pub fn with_stop_after(mut self, generation: u32) -> Self {
        self.stop_after = Some(generation);
        self
    }

    /// Reports progress to `callback`.
    #[must_use]
    pub fn with_progress(mut self, callback: &'a ProgressFn<'a>) -> Self {
        self.progress = Some(callback);
        self
    }

    /// Describes what the fitness function evaluates (the caller's data and
    /// settings, e.g. workloads and objective). The checkpoint records it,
    /// and resuming from a checkpoint with another context (or none) is
    /// refused: the parents' fitness values would belong to another
    /// function.
    #[must_use]
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        self.context = Some(context.into());
        self
    }
}

/// A (mu+lambda) evolution strategy over a box of real parameters,
/// minimising a fitness function (see the crate docs for the algorithm).
#[derive(Debug, Clone, PartialEq)]
pub struct EvolutionStrategy {
    config: Config,
    bounds: Bounds,
}

impl EvolutionStrategy {
    /// A strategy with `config` over `bounds`.
    ///
    /// # Errors
    /// A setting out of range or a start point outside the bounds.
    pub fn new(config: Config, bounds: Bounds) -> Result<Self, Error> {
        config.check(&bounds)?;
        Ok(Self { config, bounds })
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The bounds.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// Minimises `fitness` (lower is better; it must return finite values).
    ///
    /// # Errors
    /// A non-finite fitness value, or a checkpoint that cannot be read,
    /// written, or belongs to another run.
    pub fn minimize<F>(&self, fitness: F, options: &RunOptions<'_>) -> Result<Outcome, Error>
    where
        F: Fn(&[f64]) -> f64 + Sync,
    {
        self.run(1, &|_, x: &[f64]| Ok(fitness(x)), options)
    }

    /// Minimises a fitness function that can fail (a simulation that
    /// reports an error, say); the first failure, in candidate order, ends
    /// the run with [`Error::Evaluation`].
    ///
    /// # Errors
    /// As [`EvolutionStrategy::minimize`], and the fitness function's own.
    pub fn try_minimize<F, E>(&self, fitness: F, options: &RunOptions<'_>) -> Result<Outcome, Error>
    where
        F: Fn(&[f64]) -> Result<f64, E> + Sync,
        E: Into<BoxError>,
    {
        self.run(1, &|_, x: &[f64]| fitness(x).map_err(Into::into), options)
    }

    /// Minimises the sum over `cases` of `fitness(case, x)`: multi-workload
    /// training, one case per workload. Every (candidate, case) pair is
    /// evaluated in parallel; the sum runs in case order, and each
    /// individual keeps its per-case values ([`Individual::cases`]).
    ///
    /// # Errors
    /// No case, and as [`EvolutionStrategy::minimize`].
    pub fn minimize_sum<C, F>(
        &self,
        cases: &[C],
        fitness: F,
        options: &RunOptions<'_>,
    ) -> Result<Outcome, Error>
    where
        C: Sync,
        F: Fn(&C, &[f64]) -> f64 + Sync,
    {
        self.try_minimize_sum(
            cases,
            |case, x| Ok::<f64, BoxError>(fitness(case, x)),
            options,
        )
    }

    /// [`EvolutionStrategy::minimize_sum`] with a fitness function that can
    /// fail.
    ///
    /// # Errors
    /// As [`EvolutionStrategy::minimize_sum`], and the fitness function's
    /// own.
    pub fn try_minimize_sum<C, F, E>(
        &self,
        cases: &[C],
        fitness: F,
        options: &RunOptions<'_>,
    ) -> Result<Outcome, Error>
    where
        C: Sync,
        F: Fn(&C, &[f64]) -> Result<f64, E> + Sync,
        E: Into<BoxError>,
    {
        if cases.is_empty() {
            return Err(Error::InvalidSetting {
                name: "cases",
                value: "none".into(),
                expected: "at least one case",
            });
        }
        self.run(
            cases.len(),
            &|case, x: &[f64]| fitness(&cases[case], x).map_err(Into::into),
            options,
        )
    }

    /// The generation loop, over `cases` cases.
    fn run<F>(&self, cases: usize, fitness: &F, options: &RunOptions<'_>) -> Result<Outcome, Error>
    where
        F: Fn(usize, &[f64]) -> Result<f64, BoxError> + Sync,
    {
        let resumed = match &options.checkpoint {
            Some(path) if path.exists() => Some(self.resume(path, cases, options)?),
            _ => None,
        };
        let (mut parents, mut history) = match resumed {
            Some(state) => state,
            None => {
                let candidates = self.initial_population();
                let values = self.evaluate(0, &candidates, cases, fitness, options)?;
                let mut parents: Vec<Individual> = candidates
                    .into_iter()
                    .zip(values)
                    .map(|((params, steps), cases)| individual(params, steps, cases, 0))
                    .collect();
                rank(&mut parents);
                let stats = self.stats(0, (self.config.mu * cases) as u64, &parents, None);
                let history = vec![stats];
                self.finish_generation(&parents, &history, cases, options)?;
                (parents, history)
            }
        };

        let last = options
            .stop_after
            .map_or(self.config.generations, |k| k.min(self.config.generations));
        let mut generation = history.len() as u32 - 1;
        while generation < last {
            generation += 1;
            let mut rng = generation_stream(self.config.seed, generation);
            let candidates: Vec<(Vec<f64>, Vec<f64>)> = (0..self.config.lambda)
                .map(|_| self.offspring(&parents, &mut rng))
                .collect();
            let values = self.evaluate(generation, &candidates, cases, fitness, options)?;
            let offspring: Vec<Individual> = candidates
                .into_iter()
                .zip(values)
                .map(|((params, steps), cases)| individual(params, steps, cases, generation))
                .collect();
            let offspring_mean =
                offspring.iter().map(|i| i.fitness).sum::<f64>() / offspring.len() as f64;
            parents.extend(offspring);
            rank(&mut parents);
            parents.truncate(self.config.mu);
            let evaluations =
                history.last().map_or(0, |s| s.evaluations) + (self.config.lambda * cases) as u64;
            history.push(self.stats(generation, evaluations, &parents, Some(offspring_mean)));
            self.finish_generation(&parents, &history, cases, options)?;
        }

        let last_stats = &history[history.len() - 1];
        Ok(Outcome {
            best: parents[0].clone(),
            generation: last_stats.generation,
            evaluations: last_stats.evaluations,
            complete: last_stats.generation == self.config.generations,
            population: parents,
            history,
        })
    }

    /// The checkpointed state at `path`, checked against this run.
    fn resume(
        &self,
        path: &Path,
        cases: usize,
        options: &RunOptions<'_>,
    ) -> Result<(Vec<Individual>, Vec<GenerationStats>), Error> {
        let state = checkpoint::read(path)?;
        let mismatch = |reason: String| {
            Err(Error::CheckpointMismatch {
                path: path.to_path_buf(),
                reason,
            })
        };
        if state.bounds != self.bounds {
            return mismatch("the bounds differ".into());
        }
        if !state.config.resumable_as(&self.config) {
            return mismatch(
                "the settings differ (only the number of generations may change)".into(),
            );
        }
        if state.cases != cases {
            return mismatch(format!("it has {} cases, this run {cases}", state.cases));
        }
        if state.context != options.context {
            let show = |context: &Option<String>| {
                context
                    .as_ref()
                    .map_or_else(|| "none".to_owned(), |c| format!("`{c}`"))
            };
            return mismatch(format!(
                "the fitness differs: it was made for {}, this run is for {}",
                show(&state.context),
                show(&options.context)
            ));
        }
        if state.generation > self.config.generations {
            return mismatch(format!(
                "it is at generation {}, past this run's last generation {}",
                state.generation, self.config.generations
            ));
        }
        let n = self.bounds.len();
        let consistent = state.parents.len() == self.config.mu
            && state.history.len() == state.generation as usize + 1
            && state.parents.iter().all(|p| {
                p.params.len() == n
                    && p.steps.len() == n
                    && p.cases.len() == cases
                    && self.bounds.check_point(&p.params).is_ok()
            });
        if !consistent {
            return mismatch("its population or history is inconsistent with its settings".into());
        }
        Ok((state.parents, state.history))
    }

    /// Writes the checkpoint (if asked) and reports the generation.
    fn finish_generation(
        &self,
        parents: &[Individual],
        history: &[GenerationStats],
        cases: usize,
        options: &RunOptions<'_>,
    ) -> Result<(), Error> {
        let stats = &history[history.len() - 1];
        if let Some(path) = &options.checkpoint {
            checkpoint::write(
                path,
                &Checkpoint::new(
                    self.config.clone(),
                    self.bounds.clone(),
                    options.context.clone(),
                    cases,
                    stats.generation,
                    parents.to_vec(),
                    history.to_vec(),
                ),
            )?;
        }
        if let Some(progress) = options.progress {
            progress(Progress::Generation(stats));
        }
        Ok(())
    }

    /// The mu initial parents: uniform in the bounds, then the start points
    /// in place of the first ones (drawn anyway, so start points do not
    /// shift the others), all with the initial step sizes.
    fn initial_population(&self) -> Vec<(Vec<f64>, Vec<f64>)> {
        let bounds = &self.bounds;
        let n = bounds.len();
        let mut rng = generation_stream(self.config.seed, 0);
        let steps: Vec<f64> = (0..n)
            .map(|i| self.config.initial_step * bounds.width(i))
            .collect();
        (0..self.config.mu)
            .map(|k| {
                let drawn: Vec<f64> = (0..n)
                    .map(|i| {
                        (bounds.lower()[i] + unit(&mut rng) * bounds.width(i))
                            .min(bounds.upper()[i])
                    })
                    .collect();
                let params = self.config.start_points.get(k).cloned().unwrap_or(drawn);
                (params, steps.clone())
            })
            .collect()
    }

    /// One offspring of `parents`: global discrete recombination of the
    /// object parameters, intermediate recombination of two distinct
    /// parents' step sizes, log-normal self-adaptation of the steps, then
    /// Gaussian mutation and the bound handling.
    fn offspring(&self, parents: &[Individual], rng: &mut Pcg64) -> (Vec<f64>, Vec<f64>) {
        let bounds = &self.bounds;
        let n = bounds.len();
        let mu = parents.len();
        let mut params: Vec<f64> = (0..n).map(|i| parents[index(rng, mu)].params[i]).collect();
        let first = index(rng, mu);
        let second = if mu > 1 {
            let other = index(rng, mu - 1);
            if other >= first { other + 1 } else { other }
        } else {
            first
        };
        let (tau0, tau) = (self.config.tau0_for(n), self.config.tau_for(n));
        let global = tau0 * normal(rng);
        let mut steps = Vec::with_capacity(n);
        for (i, x) in params.iter_mut().enumerate() {
            let width = bounds.width(i);
            let mean = 0.5 * (parents[first].steps[i] + parents[second].steps[i]);
            let step = (mean * (global + tau * normal(rng)).exp())
                .clamp(self.config.min_step * width, self.config.max_step * width);
            *x = self.config.bound_handling.apply(
                *x + step * normal(rng),
                bounds.lower()[i],
                bounds.upper()[i],
            );
            steps.push(step);
        }
        (params, steps)
    }

    /// The per-case fitness of every candidate, evaluated in parallel; the
    /// first error in (candidate, case) order wins, whatever the thread
    /// count.
    fn evaluate<F>(
        &self,
        generation: u32,
        candidates: &[(Vec<f64>, Vec<f64>)],
        cases: usize,
        fitness: &F,
        options: &RunOptions<'_>,
    ) -> Result<Vec<Vec<f64>>, Error>
    where
        F: Fn(usize, &[f64]) -> Result<f64, BoxError> + Sync,
    {
        let total = candidates.len() * cases;
        let done = AtomicUsize::new(0);
        let results: Vec<Result<f64, BoxError>> = (0..total)
            .into_par_iter()
            .map(|job| {
                let result = fitness(job % cases, &candidates[job / cases].0);
                if let Some(progress) = options.progress {
                    let done = done.fetch_add(1, Ordering::Relaxed) + 1;
                    progress(Progress::Evaluated {
                        generation,
                        done,
                        total,
                    });
                }
                result
            })
            .collect();
        let mut values = Vec::with_capacity(candidates.len());
        let mut current = Vec::with_capacity(cases);
        for (job, result) in results.into_iter().enumerate() {
            let (candidate, case) = (job / cases, job % cases);
            let value = result.map_err(|source| Error::Evaluation {
                generation,
                candidate,
                case,
                source,
            })?;
            if !value.is_finite() {
                return Err(Error::NonFiniteFitness {
                    generation,
                    candidate,
                    case,
                    value,
                });
            }
            current.push(value);
            if current.len() == cases {
                values.push(std::mem::replace(&mut current, Vec::with_capacity(cases)));
            }
        }
        Ok(values)
    }

    /// The log entry of a generation.
    fn stats(
        &self,
        generation: u32,
        evaluations: u64,
        parents: &[Individual],
        offspring_mean: Option<f64>,
    ) -> GenerationStats {
        let mu = parents.len() as f64;
        let mean_steps = (0..self.bounds.len())
            .map(|i| parents.iter().map(|p| p.steps[i]).sum::<f64>() / mu)
            .collect();
        GenerationStats {
            generation,
            evaluations,
            best: parents[0].fitness,
            mean: parents.iter().map(|p| p.fitness).sum::<f64>() / mu,
            worst: parents[parents.len() - 1].fitness,
            offspring_mean,
            accepted: if generation == 0 {
                0
            } else {
                parents.iter().filter(|p| p.born == generation).count()
            },
            mean_steps,
        }
    }
}

/// An evaluated individual.
fn individual(params: Vec<f64>, steps: Vec<f64>, cases: Vec<f64>, born: u32) -> Individual {
    Individual {
        params,
        steps,
        fitness: cases.iter().sum(),
        cases,
        born,
    }
}

/// Best first; equal fitness: the younger first (so the population can
/// drift across the plateaus that piecewise-constant objectives, such as a
/// simulation's, have), then the earlier in the list (a stable sort).
fn rank(population: &mut [Individual]) {
    population.sort_by(|a, b| a.fitness.total_cmp(&b.fitness).then(b.born.cmp(&a.born)));
}

//! Synthetic parallel workloads: the Lublin-Feitelson model and the CWF
//! workload generator of the Delayed/Hybrid-LOS paper.
//!
//! [`LublinGenerator`] implements the workload model of U. Lublin and D. G.
//! Feitelson ("The workload on parallel supercomputers: modeling the
//! characteristics of rigid jobs", JPDC 63(11), 2003) as its reference
//! generator `m_lublin99.c` does: job sizes, size-correlated runtimes,
//! arrivals with a daily cycle, batch and interactive job streams.
//! [`CwfGenerator`] implements the variant of section IV-D of Kumar et al.'s
//! Delayed/Hybrid-LOS paper: block-multiple sizes on a 320-processor machine,
//! dedicated jobs with requested start times, and elastic control commands
//! (ET/RT lines) in the Cloud Workload Format. Both produce
//! [`workload_format::Record`]s, deterministic per seed, either as a vector
//! (`generate`) or one at a time (`records`, an iterator that writes 1M jobs
//! without holding them in memory: a record is 312 bytes).
//! `header` builds the matching [`workload_format::Header`]: `MaxNodes` and
//! `MaxProcs` (the machine size), `MaxJobs`, `MaxRecords`, `MaxRuntime`, and
//! `Note` lines naming the model, seed, arrival scale and offered load, with
//! every parameter as JSON that deserialises back into the parameter struct.
//! To write that header before streamed records, `header_for` takes a
//! [`GeneratedSummary`] tallied from a clone of the iterator
//! (`records.clone().summary()`): the generator runs twice, the records are
//! never held.
//!
//! ```
//! use lublin_model::{EstimateParams, LublinGenerator, LublinParams, offered_load};
//!
//! // The published model on a 1024-node machine at offered load 0.8, with
//! // Mu'alem-Feitelson f-model estimates (f = 3) in the requested-time field.
//! let params = LublinParams::for_machine(1024)
//!     .load(0.8)
//!     .estimate(EstimateParams::f_model(3.0));
//! let jobs = LublinGenerator::new(params, 42)?.generate(20_000);
//!
//! assert_eq!(jobs.len(), 20_000);
//! assert!(jobs.iter().all(|j| j.requested_time >= j.run_time));
//! let load = offered_load(&jobs, 1024).unwrap();
//! assert!((load - 0.8).abs() < 0.016);
//! # Ok::<(), lublin_model::ParamsError>(())
//! ```
//!
//! # The Lublin-Feitelson model
//!
//! Parameters are in [`LublinParams`] (serde, with the published 128-node
//! defaults; [`LublinParams::for_machine`] adapts them to another size).
//! - **Size**: with probability `serial_prob` 1 node; otherwise
//!   `x = two-stage-uniform(ulow, umed, uhi, uprob)`, rounded to an integer
//!   when the uniform draw that decided "not serial" is at most
//!   `serial_prob + pow2_prob` (the reference reuses that draw), and the size
//!   is `round(2^x)`.
//! - **Runtime**: `h = hyper-gamma(a1, b1, a2, b2, p)` with
//!   `p = pa * size + pb` clamped to `[0, 1]`, redrawn while `h > 12`; the
//!   runtime is `exp(h)` truncated to whole seconds (1 s to 45.2 h).
//! - **Arrivals**: 48 half-hour buckets weighted by the gamma(anum, bnum) cdf
//!   over `i` in `11..=58` (bucket `(i - 1) mod 48`), normalised to mean 1.
//!   Each stream draws `g = gamma(aarr * arar, barr)` (redrawn while
//!   `g > 13`), adds `exp(g) / 1800` points to its balance, pays bucket
//!   weights while the balance exceeds the current one (+1800 s each), and
//!   adds `1800 * (new remainder - old remainder)` s. The clock starts at
//!   midnight and, as in the reference, each stream's first job comes after
//!   one draw and the clock is an integer that truncates every addition.
//! - **Job types**: with `job_types` on, batch and interactive streams run
//!   independently and the next job comes from the stream whose next arrival
//!   is earlier (ties to interactive, as in the reference); field 15 is 1 for
//!   batch, 0 for interactive. Typeless workloads write 0, as the reference.
//!
//! **Output fields**: 1 (job number, 1..=n in submit order), 2 (submit), 4
//! (runtime), 5 (allocated processors), 8 (requested processors = allocated),
//! 11 (status 1), 15 (type), and 9 (requested time) when an estimate model is
//! set; every other field is unknown (`-1`). The reference leaves 8 and 9 at
//! `-1`.
//!
//! **Departures from the reference**, none of which changes a distribution:
//! gamma variates come from Marsaglia and Tsang's method instead of Jain's
//! sum of exponentials (639 logs per batch runtime draw), the generator is
//! PCG-64 instead of `drand48` with per-aspect streams (below), and sizes are
//! capped at `machine_size` (which only matters when a class's `uhi` exceeds
//! log2 of the machine). The tests compare the output with the reference's
//! own traces by two-sample Kolmogorov-Smirnov tests.
//!
//! # Random streams
//!
//! Every stream is a PCG-64 generator whose state and increment are hashed
//! from (master seed, aspect, job class, index):
//!
//! | aspect | one stream per | draws |
//! |---|---|---|
//! | arrivals | class (typeless, batch, interactive, CWF) | the log inter-arrival gammas, in order |
//! | size | job (class, index within the class) | serial/pow2 draw, two-stage uniform (CWF: small/large, block count) |
//! | runtime | job | hyper-gamma component and gamma, with redraws |
//! | estimate | job | the f-model factor |
//! | kind (CWF) | job | dedicated or batch, requested-start delay |
//! | extend, reduce (CWF) | job | whether, amount, time of the ET / RT command |
//!
//! So the k-th batch job is the same job whatever the arrival parameters,
//! the target load, the estimate model or the interactive parameters are;
//! changing a size parameter changes only the jobs whose size changes (and
//! their runtimes, through `p`). Changing arrival parameters changes arrival
//! times and, with job types, which jobs fall among the first n.
//!
//! # Target load
//!
//! Offered load is `sum(size * runtime) / (machine_size * span)`, with span =
//! last submit - first submit ([`offered_load`]). With a target
//! ([`LublinParams::load`], [`CwfParams::load`]) every inter-arrival draw
//! `exp(g)` is multiplied by one factor `c`: the log inter-arrival
//! distribution is shifted by `ln c`, the daily cycle keeps its shape, and
//! sizes and runtimes stay identical (common random numbers: the draws are
//! cached and replayed). The factor is found by a deterministic search on
//! `ln c`: Newton steps assuming load ∝ 1/c, safeguarded by bisection, until
//! the generated load is within 0.1% of the target (or the best of 100
//! evaluations, `c` in 1e-6..1e6). The tests check 2% over seeds, loads and
//! machines for 10,000 jobs. [`Generated::arrival_scale`] reports `c`. With
//! fewer than two jobs there is no span and the target is ignored.
//!
//! # Estimates
//!
//! [`EstimateParams`]: exact, or the Mu'alem-Feitelson f-model
//! `runtime * U(1, f)`, optionally rounded up to the values users type
//! ([`POPULAR_ESTIMATES`]). Estimates are whole seconds, at least the runtime
//! and at least 1. [`EstimateParams::estimate_for`] fills a trace the same
//! way.
//!
//! Users do not estimate like that: they pick round values, most often the
//! site's maximum. [`tsafrir_estimates`] implements the
//! Tsafrir-Etsion-Feitelson model (JSSPP 2005), a transform of a whole
//! workload: the histogram of its `N` estimates ([`tsafrir_histogram`]),
//! then one estimate per job, never below its runtime ([`TsafrirParams`]
//! documents each step and parameter; known popular values of a site are
//! [`EstimateHint`]s). [`tsafrir_records`] fills the requested times of
//! records, generated or read:
//!
//! ```
//! use lublin_model::{LublinGenerator, LublinParams, TsafrirParams, tsafrir_records};
//!
//! let mut jobs = LublinGenerator::new(LublinParams::default(), 1)?.generate(2_000);
//! // A site whose limit is 48 h (the generator's runtimes stay below
//! // 45.2 h) and whose users pick it for 30% of their jobs.
//! let model = TsafrirParams::new(48 * 3_600).hint(48 * 3_600, 0.3);
//! let report = tsafrir_records(&mut jobs, &model, 7)?;
//! assert_eq!(report.assigned, 2_000);
//! assert!(jobs.iter().all(|j| j.requested_time >= j.run_time));
//! let at_max = jobs.iter().filter(|j| j.requested_time == Some(48 * 3_600)).count();
//! assert_eq!(at_max, 600);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`ks_two_sample`] is the two-sample Kolmogorov-Smirnov test used to
//! compare generated distributions with traces'.
//!
//! # The CWF generator (Delayed/Hybrid-LOS, section IV-D)
//!
//! [`CwfParams`] holds the paper's values where it states them and a
//! documented parameter for each of its gaps:
//!
//! | paper | our reading (parameter, default) |
//! |---|---|
//! | sizes `round(U(1,3))` or `round(U(4,10))` times 32, P_S | `small_blocks`, `large_blocks`, `small_prob` 0.5; rounding makes end values half as likely; the paper's reported mean sizes (180.84 / 139.35 / 89.72 at P_S = 0.2 / 0.5 / 0.8) are 3-7% below these ranges' 192 / 144 / 96, and [`BlockRange::MEAN_MATCHED_LARGE`] (4-9 large blocks) gives 179.2 / 136 / 92.8 |
//! | `p = pa * s + pb`, unit of `s` unstated | `runtime_size_unit`: processors (literal; `p` = 0 above 144 processors) or blocks |
//! | runtime cap unstated | `max_log_runtime` 12, as the reference |
//! | `barr` varied in [0.4101, 0.6101] | `arrival.barr` 0.5101; or `target_load` (scale as above) |
//! | dedicated with P_D, exponential requested start | `dedicated_prob` 0.5; start = submit + round(Exp(`start_delay_mean` 3600 s)) |
//! | ET with P_E = 0.2, RT with P_R = 0.1 | independent draws (a job can get both), or `exclusive_commands` |
//! | amounts exponential, mean unstated | `extend_amount`, `reduce_amount`: mean 0.5 and 0.25 of the requested time, or fixed seconds; whole seconds, at least 1 |
//! | can RT go below the runtime? | `reduce_floor`: down to 1 s (default) or to the runtime; an RT with nothing to reduce is not written |
//! | when are commands issued? | `command_time`: uniform in `[submit + 1, start + requested]` (default) or submit + Exp |
//!
//! Lines are sorted by time; at equal times submissions come before commands,
//! then lower job numbers, then ET before RT. Submission lines fill fields 1,
//! 2, 4, 5, 8, 9, 11 and 19-21 (`S`; field 19 the requested start of a
//! dedicated job, else `-1`); command lines fill 1, 2, 20 (`ET`/`RT`) and 21
//! (the amount, seconds).
#![warn(missing_docs)]

mod cwf;
mod cycle;
mod dist;
mod error;
mod estimate;
mod header;
mod ks;
mod load;
mod lublin;
mod params;
mod rng;
mod tsafrir;

pub use cwf::{
    BlockRange, CommandAmount, CommandTime, CwfGenerator, CwfParams, CwfRecords, ReduceFloor,
    SizeUnit,
};
pub use error::ParamsError;
pub use estimate::{EstimateModel, EstimateParams, POPULAR_ESTIMATES};
pub use ks::{Ks, kolmogorov_q, ks_two_sample};
pub use load::offered_load;
pub use lublin::{Generated, GeneratedSummary, LublinGenerator, LublinRecords};
pub use params::{
    ArrivalParams, ClassParams, DEFAULT_MACHINE_SIZE, LublinParams, RuntimeParams, SizeParams,
};
pub use tsafrir::{
    BinCount, EstimateBin, EstimateHint, EstimateModelError, MAX_ESTIMATE_LIMIT, ModelledEstimates,
    OverMaximum, TsafrirParams, TsafrirReport, tsafrir_estimates, tsafrir_histogram,
    tsafrir_records,
};

/// The most jobs a generator run may hold in memory for a step that needs
/// the whole workload first: the target-load search (every job's
/// inter-arrival draw, size, runtime and running work sum, up to 24 bytes a
/// job, kept so each try replays the same jobs) and, in `schedsim
/// generate`, the Tsafrir estimate model (every runtime and estimate).
/// 2^26 = 67,108,864 jobs, about 1.6 GB. Without a target load `records`
/// streams any number of jobs in constant memory. The generators do not
/// check it (`records` cannot fail); callers refuse larger counts before
/// generating, as `schedsim generate` does.
pub const MAX_HELD_JOBS: usize = 1 << 26;

/// Compiles and runs the README's examples as doctests, so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

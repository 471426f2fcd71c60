//! `schedsim generate lublin|cwf`: write a synthetic workload with the
//! generators of the `lublin-model` crate.
//!
//! The output format follows the file name (`.swf` or `.cwf`, optionally
//! followed by `.gz`). The file starts with the generator's own header
//! (machine size, job and line counts, and Notes with the model, the seed,
//! the arrival scale, the offered load and every parameter as JSON, which
//! `--params` reads back). The records are streamed: the generator runs
//! twice, once to tally what the header states and once to write, so memory
//! does not grow with the number of jobs, except with a target load (the
//! load search) or the Tsafrir estimate model, which hold every job first:
//! then at most [`MAX_HELD_JOBS`] jobs (2^26) are accepted, checked before
//! anything is generated. The file is written under a temporary name in its
//! folder and renamed once complete, so a failure or a kill never leaves a
//! shorter file that reads as a valid, smaller workload.
//!
//! Lublin workloads written as `.cwf` get `-1 S -1` in fields 19-21 (like
//! `schedsim convert`). CWF workloads cannot be written as `.swf`: SWF has
//! no place for their ET/RT lines and requested start times.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use lublin_model::{
    BlockRange, CommandAmount, CommandTime, CwfGenerator, CwfParams, EstimateModelError,
    EstimateParams, GeneratedSummary, LublinGenerator, LublinParams, MAX_HELD_JOBS, OverMaximum,
    ParamsError, ReduceFloor, SizeUnit,
};
use schedsim_run::{plural, positive_number};
use serde::Serialize;

use crate::estimates::{
    EstimateModelChoice, EstimatesReport, estimates_note, parse_estimate_model, parse_per_job,
    tsafrir_for_runtimes,
};
use serde::de::DeserializeOwned;
use workload_format::{
    CwfFields, Header, HeaderError, Record, RequestType, WriteError, Writer, create_path,
};

use crate::CommandError;
use crate::convert::Format;

/// Arguments of `schedsim generate`.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateArgs {
    /// The generator.
    #[command(subcommand)]
    pub model: GenerateModel,
}

/// The generators.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum GenerateModel {
    /// The Lublin-Feitelson model (JPDC 2003) as its reference generator
    /// implements it: batch and interactive jobs (or typeless), sizes and
    /// runtimes adapted to the machine.
    Lublin(LublinArgs),
    /// The CWF generator of the Delayed/Hybrid-LOS paper (section IV-D):
    /// 32-processor blocks on 320 processors, dedicated jobs with requested
    /// start times, ET/RT elastic commands.
    Cwf(CwfArgs),
}

/// Options every generator takes.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    /// Jobs to generate (for CWF, the ET/RT command lines come on top).
    #[arg(long, short = 'n', value_name = "N",
          required_unless_present = "print_params",
          value_parser = schedsim_run::whole_number::<usize>(1))]
    pub jobs: Option<usize>,
    /// The seed: the same seed and parameters give a byte-identical file.
    #[arg(long, value_name = "S", required_unless_present = "print_params",
          value_parser = schedsim_run::whole_number::<u64>(0))]
    pub seed: Option<u64>,
    /// The output file: .swf or .cwf, optionally followed by .gz (then
    /// gzip-compressed).
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        required_unless_present = "print_params"
    )]
    pub out: Option<PathBuf>,
    /// Every generator parameter from a JSON file (the layout
    /// --print-params writes; absent top-level keys keep their defaults, a
    /// group such as `size` or `runtime` is given whole). Excludes the
    /// model options.
    #[arg(long, value_name = "FILE.json")]
    pub params: Option<PathBuf>,
    /// Print the parameters as JSON (the defaults changed by the options
    /// given) and exit without generating.
    #[arg(long, conflicts_with_all = ["jobs", "seed", "out"])]
    pub print_params: bool,
}

/// Arguments of `schedsim generate lublin`.
#[derive(Debug, Clone, clap::Args)]
pub struct LublinArgs {
    /// Jobs, seed, output, parameter file.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Nodes of the machine; job sizes are adapted to it (the published
    /// parameters are for 128).
    #[arg(long, value_name = "P", conflicts_with = "params",
          required_unless_present_any = ["params", "print_params"],
          value_parser = schedsim_run::whole_number_in::<u32>(1, schedsim_sim_core::MAX_PROCS.into()))]
    pub procs: Option<u32>,
    /// Target offered load: every inter-arrival time is scaled by one factor
    /// until sum(size x runtime) / (procs x span) is within 0.1% of it.
    /// Default: the model's own arrival rate.
    #[arg(long, value_name = "L", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = positive_number)]
    pub load: Option<f64>,
    /// One typeless job stream instead of batch and interactive streams.
    #[arg(long, conflicts_with = "params")]
    pub typeless: bool,
    /// The requested time (field 9): `exact` (the runtime) or `f:F`
    /// (Mu'alem-Feitelson f-model, runtime x U(1, F)), optionally followed
    /// by `,rounded` (up to 5/15/30 min, 1/2/4/8/12/24/48 h); or
    /// `tsafrir[:max=D,hint=D@S,bins=linear|power|K]`, the
    /// Tsafrir-Etsion-Feitelson model of the whole workload's estimates
    /// (maximum by default the longest runtime rounded up to an hour).
    /// Default: unknown (-1), as the reference generator writes.
    #[arg(long, value_name = "MODEL", conflicts_with = "params", value_parser = parse_estimate_model)]
    pub estimate: Option<EstimateModelChoice>,
}

impl LublinArgs {
    /// `generate lublin --jobs jobs --procs procs --seed seed -o out`.
    pub fn new(jobs: usize, procs: u32, seed: u64, out: PathBuf) -> Self {
        Self {
            common: CommonArgs::new(jobs, seed, out),
            procs: Some(procs),
            load: None,
            typeless: false,
            estimate: None,
        }
    }

    /// The generator parameters: from --params, or the published ones for
    /// the machine changed by the options.
    ///
    /// # Errors
    /// An unreadable or malformed --params file.
    pub fn generator_params(&self) -> Result<LublinParams, GenerateError> {
        if let Some(path) = &self.common.params {
            return read_params(path);
        }
        let mut params = self
            .procs
            .map_or_else(LublinParams::default, LublinParams::for_machine)
            .job_types(!self.typeless);
        params.target_load = self.load;
        params.estimate = match &self.estimate {
            Some(EstimateModelChoice::PerJob(p)) => Some(*p),
            // Filled after generation, from all runtimes (see `generate`).
            Some(EstimateModelChoice::Tsafrir(_)) | None => None,
        };
        Ok(params)
    }
}

/// Arguments of `schedsim generate cwf`. Options left out keep the paper's
/// values (or, where it is silent, the documented defaults of
/// `lublin_model::CwfParams`; --print-params shows them all).
#[derive(Debug, Clone, clap::Args)]
pub struct CwfArgs {
    /// Jobs, seed, output, parameter file.
    #[command(flatten)]
    pub common: CommonArgs,
    /// P_S, probability of a small job (1-3 blocks; large: 4-10). Default 0.5.
    #[arg(long, value_name = "PS", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = probability)]
    pub small_prob: Option<f64>,
    /// P_D, probability of a dedicated job (with a requested start time).
    /// Default 0.5.
    #[arg(long, value_name = "PD", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = probability)]
    pub dedicated_prob: Option<f64>,
    /// P_E, probability that a job gets an ET (extend time) command.
    /// Default 0.2.
    #[arg(long, value_name = "PE", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = probability)]
    pub extend_prob: Option<f64>,
    /// P_R, probability that a job gets an RT (reduce time) command.
    /// Default 0.1.
    #[arg(long, value_name = "PR", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = probability)]
    pub reduce_prob: Option<f64>,
    /// Target offered load, reached by scaling every inter-arrival time.
    /// Default: the arrival process as parameterised (--barr).
    #[arg(long, value_name = "L", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = positive_number)]
    pub load: Option<f64>,
    /// The arrival process's barr, which the paper varies in
    /// [0.4101, 0.6101] for load. Default 0.5101.
    #[arg(long, value_name = "B", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = positive_number)]
    pub barr: Option<f64>,
    /// Processors of the machine. Default 320.
    #[arg(long, value_name = "P", conflicts_with = "params",
          value_parser = schedsim_run::whole_number_in::<u32>(1, schedsim_sim_core::MAX_PROCS.into()))]
    pub procs: Option<u32>,
    /// Processors per allocation block. Default 32.
    #[arg(long, value_name = "N", conflicts_with = "params",
          value_parser = schedsim_run::whole_number::<u32>(1))]
    pub block_size: Option<u32>,
    /// The requested time: `exact` or `f:F`, optionally `,rounded` (as for
    /// `generate lublin`). Default exact.
    #[arg(long, value_name = "MODEL", conflicts_with = "params", value_parser = parse_per_job)]
    pub estimate: Option<EstimateParams>,
    /// Mean delay from submission to a dedicated job's requested start,
    /// seconds (exponential). Default 3600.
    #[arg(long, value_name = "SECONDS", conflicts_with = "params", allow_negative_numbers = true,
          value_parser = positive_number)]
    pub start_delay_mean: Option<f64>,
    /// One draw decides ET, RT or neither (P_E + P_R <= 1), instead of two
    /// independent draws.
    #[arg(long, conflicts_with = "params")]
    pub exclusive_commands: bool,
    /// ET amounts, exponential with mean `fraction:F` of the requested time
    /// or `seconds:S`. Default fraction:0.5.
    #[arg(long, value_name = "MEAN", conflicts_with = "params", value_parser = amount)]
    pub extend_amount: Option<CommandAmount>,
    /// RT amounts, as --extend-amount. Default fraction:0.25.
    #[arg(long, value_name = "MEAN", conflicts_with = "params", value_parser = amount)]
    pub reduce_amount: Option<CommandAmount>,
    /// How far an RT may reduce the requested time: `one-second` or
    /// `runtime`. Default one-second.
    #[arg(long, value_name = "FLOOR", conflicts_with = "params", value_parser = reduce_floor)]
    pub reduce_floor: Option<ReduceFloor>,
    /// When commands are issued: `within-lifetime` (uniform in [submit + 1,
    /// start + requested time]) or `after-submit:MEAN` (exponential delay,
    /// seconds). Default within-lifetime.
    #[arg(long, value_name = "WHEN", conflicts_with = "params", value_parser = command_time)]
    pub command_time: Option<CommandTime>,
    /// The size s in the runtime model's p = pa x s + pb: `processors` or
    /// `blocks`. Default processors.
    #[arg(long, value_name = "UNIT", conflicts_with = "params", value_parser = size_unit)]
    pub runtime_size_unit: Option<SizeUnit>,
    /// Small jobs: round(U(LOW, HIGH)) blocks. Default 1-3 (the paper).
    #[arg(long, value_name = "LOW-HIGH", conflicts_with = "params", value_parser = block_range)]
    pub small_blocks: Option<BlockRange>,
    /// Large jobs: round(U(LOW, HIGH)) blocks. Default 4-10 (the paper);
    /// 4-9 matches the paper's reported mean sizes.
    #[arg(long, value_name = "LOW-HIGH", conflicts_with = "params", value_parser = block_range)]
    pub large_blocks: Option<BlockRange>,
}

impl CwfArgs {
    /// `generate cwf --jobs jobs --seed seed -o out` with the defaults.
    pub fn new(jobs: usize, seed: u64, out: PathBuf) -> Self {
        Self {
            common: CommonArgs::new(jobs, seed, out),
            small_prob: None,
            dedicated_prob: None,
            extend_prob: None,
            reduce_prob: None,
            load: None,
            barr: None,
            procs: None,
            block_size: None,
            estimate: None,
            start_delay_mean: None,
            exclusive_commands: false,
            extend_amount: None,
            reduce_amount: None,
            reduce_floor: None,
            command_time: None,
            runtime_size_unit: None,
            small_blocks: None,
            large_blocks: None,
        }
    }

    /// The generator parameters: from --params, or the defaults changed by
    /// the options.
    ///
    /// # Errors
    /// An unreadable or malformed --params file.
    pub fn generator_params(&self) -> Result<CwfParams, GenerateError> {
        if let Some(path) = &self.common.params {
            return read_params(path);
        }
        let mut p = CwfParams::default();
        let set = |field: &mut f64, value: Option<f64>| {
            if let Some(value) = value {
                *field = value;
            }
        };
        set(&mut p.small_prob, self.small_prob);
        set(&mut p.dedicated_prob, self.dedicated_prob);
        set(&mut p.extend_prob, self.extend_prob);
        set(&mut p.reduce_prob, self.reduce_prob);
        set(&mut p.arrival.barr, self.barr);
        set(&mut p.start_delay_mean, self.start_delay_mean);
        p.target_load = self.load;
        p.machine_size = self.procs.unwrap_or(p.machine_size);
        p.block_size = self.block_size.unwrap_or(p.block_size);
        p.estimate = self.estimate.unwrap_or(p.estimate);
        p.exclusive_commands |= self.exclusive_commands;
        p.extend_amount = self.extend_amount.unwrap_or(p.extend_amount);
        p.reduce_amount = self.reduce_amount.unwrap_or(p.reduce_amount);
        p.reduce_floor = self.reduce_floor.unwrap_or(p.reduce_floor);
        p.command_time = self.command_time.unwrap_or(p.command_time);
        p.runtime_size_unit = self.runtime_size_unit.unwrap_or(p.runtime_size_unit);
        p.small_blocks = self.small_blocks.unwrap_or(p.small_blocks);
        p.large_blocks = self.large_blocks.unwrap_or(p.large_blocks);
        Ok(p)
    }
}

impl CommonArgs {
    fn new(jobs: usize, seed: u64, out: PathBuf) -> Self {
        Self {
            jobs: Some(jobs),
            seed: Some(seed),
            out: Some(out),
            params: None,
            print_params: false,
        }
    }
}

/// The most jobs `generate` writes: what one simulation can index (job
/// ids are 32-bit), about 250 GB of SWF.
pub const MAX_GENERATED_JOBS: usize = u32::MAX as usize;

/// Why `generate` failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GenerateError {
    /// A --params file could not be read.
    #[error("cannot read {}", path.display())]
    ReadParams {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A --params file is not valid parameter JSON.
    #[error("{} does not hold valid generator parameters (see --print-params for the layout)", path.display())]
    ParseParams {
        /// The file.
        path: PathBuf,
        /// The JSON error, with line and column.
        #[source]
        source: serde_json::Error,
    },
    /// A parameter is out of range.
    #[error("invalid generator parameters")]
    Params(#[from] ParamsError),
    /// More jobs than the simulator can index.
    #[error("--jobs {0} is more than the {max} jobs a simulation can hold", max = MAX_GENERATED_JOBS)]
    TooManyJobs(usize),
    /// More jobs than a step that needs the whole workload first holds in
    /// memory ([`MAX_HELD_JOBS`]).
    #[error(
        "--jobs {jobs} with {what}: expected 1 to {max} jobs, since it holds every job in \
         memory; without it up to {streamed} jobs are streamed",
        max = MAX_HELD_JOBS,
        streamed = MAX_GENERATED_JOBS
    )]
    TooManyHeldJobs {
        /// The jobs asked for.
        jobs: usize,
        /// What holds them: the load search or the Tsafrir model.
        what: &'static str,
    },
    /// A required option is missing (only when called as a library; the
    /// command line requires it).
    #[error("missing {0}")]
    Missing(&'static str),
    /// The output name does not say SWF or CWF.
    #[error("cannot tell the output format of {} from its name (use .swf or .cwf, optionally followed by .gz)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// A CWF workload was to be written as SWF.
    #[error("{} is an SWF file name, but CWF workloads have ET/RT lines and requested start times that SWF cannot hold; use .cwf (or `schedsim convert --drop-cwf` afterwards)", path.display())]
    CwfAsSwf {
        /// The file.
        path: PathBuf,
    },
    /// The generator's header could not be built.
    #[error("cannot build the header")]
    Header(#[from] HeaderError),
    /// The output file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: WriteError,
    },
    /// The Tsafrir estimate model failed (a maximum below the longest
    /// runtime, hints that do not fit).
    #[error("the estimate model failed")]
    Estimates(#[from] EstimateModelError),
    /// `truncate` would change generated runtimes after the header tallied
    /// them.
    #[error(
        "generate cannot truncate runtimes for the tsafrir model; leave max out (the longest \
         runtime rounded up to an hour) or give one at least that long"
    )]
    TruncateGenerated,
    /// The report could not be written.
    #[error("cannot write the report")]
    Output(#[source] io::Error),
}

impl CommandError for GenerateError {}

/// What `generate` wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOutcome {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// Machine size (processors or nodes), as in the header.
    pub machine_size: u32,
    /// The target load, if one was set.
    pub target_load: Option<f64>,
    /// Counts, submit-time range, arrival scale and offered load.
    pub summary: GeneratedSummary,
}

/// Runs `schedsim generate`: writes the workload and a one-line summary to
/// `out`, or with --print-params the parameters as JSON (then the outcome
/// is `None`).
///
/// # Errors
/// See [`GenerateError`].
pub fn generate(
    args: &GenerateArgs,
    out: &mut dyn Write,
) -> Result<Option<GenerateOutcome>, GenerateError> {
    let started = Instant::now();
    let outcome = match &args.model {
        GenerateModel::Lublin(a) => {
            let params = a.generator_params()?;
            params.validate()?;
            if a.common.print_params {
                return print_params(&params, out).map(|()| None);
            }
            let target = Target::of(&a.common, false)?;
            if params.target_load.is_some() {
                target.check_held(TARGET_LOAD)?;
            }
            if matches!(a.estimate, Some(EstimateModelChoice::Tsafrir(_))) {
                target.check_held("the tsafrir estimate model (--estimate tsafrir)")?;
            }
            let (machine_size, target_load) = (params.machine_size, params.target_load);
            let generator = LublinGenerator::new(params, target.seed)?;
            let records = generator.records(target.jobs);
            let summary = records.clone().summary();
            let mut header = generator.header_for(&summary)?;
            if let Some(EstimateModelChoice::Tsafrir(choice)) = &a.estimate {
                // The model needs every runtime first: a third pass over the
                // generator, holding 16 bytes per job.
                if choice.params.over_maximum == OverMaximum::Truncate {
                    return Err(GenerateError::TruncateGenerated);
                }
                let runtimes: Vec<u64> = records.clone().map(|r| r.run_time.unwrap_or(0)).collect();
                let (params, estimates) = tsafrir_for_runtimes(choice, &runtimes, target.seed)?;
                let report = EstimatesReport {
                    max_estimate: Some(params.max_estimate),
                    ..EstimatesReport::default()
                };
                let model = EstimateModelChoice::Tsafrir(choice.clone());
                header.add("Note", estimates_note(&model, &report, target.seed))?;
                let records = records.zip(estimates).map(|(mut r, e)| {
                    r.requested_time = Some(e);
                    r
                });
                target.write(&header, records, machine_size, target_load, summary)?
            } else {
                target.write(&header, records, machine_size, target_load, summary)?
            }
        }
        GenerateModel::Cwf(a) => {
            let params = a.generator_params()?;
            params.validate()?;
            if a.common.print_params {
                return print_params(&params, out).map(|()| None);
            }
            let target = Target::of(&a.common, true)?;
            if params.target_load.is_some() {
                target.check_held(TARGET_LOAD)?;
            }
            let (machine_size, target_load) = (params.machine_size, params.target_load);
            let generator = CwfGenerator::new(params, target.seed)?;
            let records = generator.records(target.jobs);
            let summary = records.clone().summary();
            let header = generator.header_for(&summary)?;
            target.write(&header, records, machine_size, target_load, summary)?
        }
    };
    report(&outcome, started, out)?;
    Ok(Some(outcome))
}

/// What a target load (from --load or a --params file) is called in the
/// message that refuses too many jobs for it.
const TARGET_LOAD: &str = "the load search (--load)";

/// Where and how much to generate: checked before any generation, so a bad
/// path or extension fails at once and leaves no file behind.
struct Target<'a> {
    jobs: usize,
    seed: u64,
    path: &'a Path,
    format: Format,
}

impl<'a> Target<'a> {
    fn of(common: &'a CommonArgs, cwf: bool) -> Result<Self, GenerateError> {
        let (jobs, seed, path) = common.required()?;
        let format = output_format(path, cwf)?;
        Ok(Self {
            jobs,
            seed,
            path,
            format,
        })
    }

    /// Refuses more jobs than [`MAX_HELD_JOBS`] for `what`, a step that
    /// holds every job before the first is written.
    fn check_held(&self, what: &'static str) -> Result<(), GenerateError> {
        if self.jobs > MAX_HELD_JOBS {
            return Err(GenerateError::TooManyHeldJobs {
                jobs: self.jobs,
                what,
            });
        }
        Ok(())
    }

    /// Streams the header and records into the file.
    fn write(
        &self,
        header: &Header,
        records: impl Iterator<Item = Record>,
        machine_size: u32,
        target_load: Option<f64>,
        summary: GeneratedSummary,
    ) -> Result<GenerateOutcome, GenerateError> {
        write_records(self.path, header, records, self.format)?;
        Ok(GenerateOutcome {
            path: self.path.to_path_buf(),
            format: self.format,
            machine_size,
            target_load,
            summary,
        })
    }
}

impl CommonArgs {
    fn required(&self) -> Result<(usize, u64, &Path), GenerateError> {
        let jobs = self.jobs.ok_or(GenerateError::Missing("--jobs"))?;
        if jobs > MAX_GENERATED_JOBS {
            return Err(GenerateError::TooManyJobs(jobs));
        }
        Ok((
            jobs,
            self.seed.ok_or(GenerateError::Missing("--seed"))?,
            self.out.as_deref().ok_or(GenerateError::Missing("--out"))?,
        ))
    }
}

fn read_params<P: DeserializeOwned>(path: &Path) -> Result<P, GenerateError> {
    let text = fs::read_to_string(path).map_err(|source| GenerateError::ReadParams {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| GenerateError::ParseParams {
        path: path.to_path_buf(),
        source,
    })
}

fn print_params<P: Serialize>(params: &P, out: &mut dyn Write) -> Result<(), GenerateError> {
    let json = serde_json::to_string_pretty(params).map_err(|e| GenerateError::Output(e.into()))?;
    writeln!(out, "{json}").map_err(GenerateError::Output)
}

/// The format of the output file; CWF output only for a CWF generator.
fn output_format(path: &Path, commands: bool) -> Result<Format, GenerateError> {
    match Format::of(path) {
        Some(Format::Swf) if commands => Err(GenerateError::CwfAsSwf {
            path: path.to_path_buf(),
        }),
        Some(format @ (Format::Swf | Format::Cwf)) => Ok(format),
        Some(Format::JsonLines | Format::BatsimJson | Format::Sacct) | None => {
            Err(GenerateError::UnknownFormat {
                path: path.to_path_buf(),
            })
        }
    }
}

/// Streams the header and records into the file `path` (gzip for `.gz`).
/// SWF records written to a `.cwf` file get `-1 S -1`.
fn write_records(
    path: &Path,
    header: &Header,
    records: impl Iterator<Item = Record>,
    format: Format,
) -> Result<(), GenerateError> {
    let error = |source| GenerateError::Write {
        path: path.to_path_buf(),
        source,
    };
    // A temporary file until `finish` renames it (removed if an error
    // drops it first).
    let mut writer = Writer::new(create_path(path).map_err(error)?);
    writer.write_header(header).map_err(error)?;
    let submission = CwfFields {
        requested_start_time: None,
        request_type: RequestType::Submit,
        amount: None,
    };
    for mut record in records {
        if format == Format::Cwf && record.cwf.is_none() {
            record.cwf = Some(submission);
        }
        writer.write_record(&record).map_err(error)?;
    }
    writer
        .finish()
        .and_then(|file| file.finish())
        .map_err(error)
}

/// The one-line summary.
fn report(
    outcome: &GenerateOutcome,
    started: Instant,
    out: &mut dyn Write,
) -> Result<(), GenerateError> {
    let s = &outcome.summary;
    let commands = s.records - s.jobs;
    let commands = if commands > 0 {
        format!(" and {}", plural(commands as u64, "ET/RT line"))
    } else {
        String::new()
    };
    let span = s.span();
    let load = s
        .offered_load
        .map_or_else(|| "undefined".to_owned(), |l| format!("{l:.4}"));
    let target = outcome
        .target_load
        .map_or_else(String::new, |t| format!(" (target {t})"));
    writeln!(
        out,
        "wrote {}: {}{commands}, span {span} s ({:.1} days), offered load {load}{target} on {} processors, arrival scale {:.6}, in {:.2} s",
        outcome.path.display(),
        plural(s.jobs as u64, "job"),
        span as f64 / 86_400.0,
        outcome.machine_size,
        s.arrival_scale,
        started.elapsed().as_secs_f64(),
    )
    .map_err(GenerateError::Output)?;
    if let Some(warning) = outcome.load_missed() {
        writeln!(out, "{warning}").map_err(GenerateError::Output)?;
    }
    Ok(())
}

impl GenerateOutcome {
    /// A warning when a target load was set and the file's offered load is
    /// not within 0.1% of it (too few jobs, or arrivals that no scale
    /// spreads further: the search stops at its bounds).
    pub fn load_missed(&self) -> Option<String> {
        let target = self.target_load?;
        let reached = self.summary.offered_load;
        if reached.is_some_and(|load| ((load - target) / target).abs() <= 0.001) {
            return None;
        }
        let reached = reached.map_or_else(|| "undefined".to_owned(), |l| format!("{l:.4}"));
        Some(format!(
            "warning: the offered load is {reached}, not within 0.1% of the target {target} (submit times are whole seconds; {} submitted over {} s); generate more jobs or choose another load",
            plural(self.summary.jobs as u64, "job"),
            self.summary.span()
        ))
    }
}

// Value parsers: the error text follows clap's "invalid value 'X' for
// '--option <V>': ..." prefix.

fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("expected a probability between 0 and 1".to_owned()),
    }
}

/// `fraction:F` or `seconds:S`.
fn amount(text: &str) -> Result<CommandAmount, String> {
    let parse = |v: &str| positive_number(v).ok();
    if let Some(f) = text.strip_prefix("fraction:").and_then(parse) {
        Ok(CommandAmount::Relative { mean_fraction: f })
    } else if let Some(s) = text.strip_prefix("seconds:").and_then(parse) {
        Ok(CommandAmount::Seconds { mean: s })
    } else {
        Err(
            "expected fraction:F (of the requested time) or seconds:S, with a positive mean"
                .to_owned(),
        )
    }
}

fn reduce_floor(text: &str) -> Result<ReduceFloor, String> {
    match text {
        "one-second" => Ok(ReduceFloor::OneSecond),
        "runtime" => Ok(ReduceFloor::Runtime),
        _ => Err("expected one-second or runtime".to_owned()),
    }
}

/// `within-lifetime` or `after-submit:MEAN`.
fn command_time(text: &str) -> Result<CommandTime, String> {
    if text == "within-lifetime" {
        return Ok(CommandTime::WithinLifetime);
    }
    match text.strip_prefix("after-submit:").map(positive_number) {
        Some(Ok(mean)) => Ok(CommandTime::AfterSubmit { mean }),
        _ => Err("expected within-lifetime or after-submit:MEAN (seconds, positive)".to_owned()),
    }
}

/// `LOW-HIGH` block counts, e.g. `4-9` or `1.5-3`.
fn block_range(text: &str) -> Result<BlockRange, String> {
    let expected = || format!("expected LOW-HIGH blocks, e.g. 4-9, not `{text}`");
    let (low, high) = text.split_once('-').ok_or_else(expected)?;
    let number = |part: &str| part.trim().parse::<f64>().map_err(|_| expected());
    let (low, high) = (number(low)?, number(high)?);
    if !(low.is_finite() && high.is_finite() && 0.5 <= low && low <= high) {
        return Err(format!(
            "expected 0.5 <= LOW <= HIGH, not `{text}` (round(U(LOW, HIGH)) must be at least 1 block)"
        ));
    }
    Ok(BlockRange::new(low, high))
}

fn size_unit(text: &str) -> Result<SizeUnit, String> {
    match text {
        "processors" => Ok(SizeUnit::Processors),
        "blocks" => Ok(SizeUnit::Blocks),
        _ => Err("expected processors or blocks".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_syntax() {
        assert_eq!(parse_per_job("exact"), Ok(EstimateParams::EXACT));
        assert_eq!(
            parse_per_job("exact,rounded"),
            Ok(EstimateParams::EXACT.rounded())
        );
        assert_eq!(parse_per_job("f:3"), Ok(EstimateParams::f_model(3.0)));
        assert_eq!(
            parse_per_job("f:2.5,rounded"),
            Ok(EstimateParams::f_model(2.5).rounded())
        );
        for bad in [
            "",
            "f:",
            "f:0.5",
            "f:inf",
            "f:NaN",
            "F:3",
            "f3",
            "exact,round",
            "rounded",
        ] {
            assert!(parse_per_job(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn other_value_syntax() {
        assert_eq!(
            amount("fraction:0.5"),
            Ok(CommandAmount::Relative { mean_fraction: 0.5 })
        );
        assert_eq!(
            amount("seconds:600"),
            Ok(CommandAmount::Seconds { mean: 600.0 })
        );
        assert!(amount("seconds:0").is_err());
        assert!(amount("600").is_err());
        assert_eq!(
            command_time("after-submit:60"),
            Ok(CommandTime::AfterSubmit { mean: 60.0 })
        );
        assert_eq!(
            command_time("within-lifetime"),
            Ok(CommandTime::WithinLifetime)
        );
        assert!(command_time("after-submit:-1").is_err());
        assert_eq!(block_range("4-9"), Ok(BlockRange::MEAN_MATCHED_LARGE));
        assert_eq!(block_range(" 1.5 - 3 "), Ok(BlockRange::new(1.5, 3.0)));
        assert!(block_range("9-4").unwrap_err().contains("LOW <= HIGH"));
        assert!(block_range("0-3").is_err());
        assert!(block_range("4").unwrap_err().contains("LOW-HIGH"));
        assert_eq!(reduce_floor("runtime"), Ok(ReduceFloor::Runtime));
        assert_eq!(size_unit("blocks"), Ok(SizeUnit::Blocks));
        assert!(size_unit("nodes").is_err());
        assert_eq!(probability("0"), Ok(0.0));
        assert_eq!(probability("1"), Ok(1.0));
        assert!(probability("1.01").is_err() && probability("-0.1").is_err());
        assert!(probability("NaN").is_err());
        assert!(positive_number("0").is_err() && positive_number("inf").is_err());
    }

    #[test]
    fn options_change_only_their_parameters() {
        let mut a = CwfArgs::new(10, 1, PathBuf::from("x.cwf"));
        assert_eq!(a.generator_params().unwrap(), CwfParams::default());
        a.small_prob = Some(0.3);
        a.load = Some(0.9);
        a.reduce_floor = Some(ReduceFloor::Runtime);
        let p = a.generator_params().unwrap();
        assert_eq!(p, {
            let mut params = CwfParams::default();
            params.small_prob = 0.3;
            params.target_load = Some(0.9);
            params.reduce_floor = ReduceFloor::Runtime;
            params
        });
        let mut l = LublinArgs::new(10, 256, 1, PathBuf::from("x.swf"));
        assert_eq!(
            l.generator_params().unwrap(),
            LublinParams::for_machine(256)
        );
        l.typeless = true;
        l.estimate = Some(EstimateModelChoice::PerJob(EstimateParams::f_model(3.0)));
        assert_eq!(
            l.generator_params().unwrap(),
            LublinParams::for_machine(256)
                .job_types(false)
                .estimate(EstimateParams::f_model(3.0))
        );
    }

    #[test]
    fn held_jobs_are_bounded_at_2_pow_26() {
        // 2^26 = 67,108,864 jobs at up to 24 bytes each: 1.5 GiB held, the
        // most accepted; one more is refused before anything is generated.
        let target = |jobs| Target {
            jobs,
            seed: 1,
            path: Path::new("x.swf"),
            format: Format::Swf,
        };
        assert!(target(67_108_864).check_held(TARGET_LOAD).is_ok());
        assert!(matches!(
            target(67_108_865).check_held(TARGET_LOAD),
            Err(GenerateError::TooManyHeldJobs {
                jobs: 67_108_865,
                ..
            })
        ));
    }

    #[test]
    fn output_formats() {
        let f = |name: &str, commands| output_format(Path::new(name), commands);
        assert_eq!(f("a.swf", false).unwrap(), Format::Swf);
        assert_eq!(f("a.swf.gz", false).unwrap(), Format::Swf);
        assert_eq!(f("a.cwf", false).unwrap(), Format::Cwf);
        assert_eq!(f("a.CWF.gz", true).unwrap(), Format::Cwf);
        assert!(matches!(
            f("a.swf", true),
            Err(GenerateError::CwfAsSwf { .. })
        ));
        assert!(matches!(
            f("a.jsonl", false),
            Err(GenerateError::UnknownFormat { .. })
        ));
        assert!(matches!(
            f("a.txt", false),
            Err(GenerateError::UnknownFormat { .. })
        ));
    }
}

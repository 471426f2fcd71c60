use std::path::PathBuf;

/// A fitness function's own error, boxed.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a run could not start, continue or finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bounds have no parameter.
    #[error("the bounds have no parameter")]
    NoParameters,
    /// An interval has a non-finite end or its lower end above its upper.
    #[error(
        "parameter {index} has the interval [{lower}, {upper}], expected finite ends with lower <= upper"
    )]
    InvalidBound {
        /// The parameter.
        index: usize,
        /// Its lower end.
        lower: f64,
        /// Its upper end.
        upper: f64,
    },
    /// A setting of [`crate::Config`] is out of range.
    #[error("setting {name} is {value}, expected {expected}")]
    InvalidSetting {
        /// The setting's field name.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it must be.
        expected: &'static str,
    },
    /// A start point has the wrong number of values.
    #[error("start point {point} has {len} values, expected {expected}")]
    StartPointLength {
        /// The point's index in [`crate::Config::start_points`].
        point: usize,
        /// Its length.
        len: usize,
        /// The number of parameters.
        expected: usize,
    },
    /// A start point is outside the bounds (or not finite).
    #[error("start point {point} is outside the bounds at parameter {parameter}")]
    StartPointOutside {
        /// The point's index in [`crate::Config::start_points`].
        point: usize,
        /// The first parameter outside its interval.
        parameter: usize,
    },
    /// The fitness function failed.
    #[error("evaluating candidate {candidate} of generation {generation} (case {case}) failed")]
    Evaluation {
        /// The generation (0: the initial population).
        generation: u32,
        /// The candidate's index in its generation.
        candidate: usize,
        /// The case (workload) of a sum; 0 for a single objective.
        case: usize,
        /// The fitness function's error.
        #[source]
        source: BoxError,
    },
    /// The fitness function returned NaN or an infinity; return a large
    /// finite penalty for infeasible points instead.
    #[error(
        "candidate {candidate} of generation {generation} (case {case}) has fitness {value}, expected a finite number"
    )]
    NonFiniteFitness {
        /// The generation (0: the initial population).
        generation: u32,
        /// The candidate's index in its generation.
        candidate: usize,
        /// The case (workload) of a sum; 0 for a single objective.
        case: usize,
        /// The value returned.
        value: f64,
    },
    /// A checkpoint could not be read or written.
    #[error("checkpoint {path}: {action} failed")]
    CheckpointIo {
        /// The checkpoint file.
        path: PathBuf,
        /// What was being done ("reading", "writing", "renaming the temporary file").
        action: &'static str,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A checkpoint is not valid JSON of this crate's format.
    #[error("checkpoint {path} is not a valid checkpoint")]
    CheckpointFormat {
        /// The checkpoint file.
        path: PathBuf,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A checkpoint belongs to a different run.
    #[error("checkpoint {path} belongs to another run: {reason}")]
    CheckpointMismatch {
        /// The checkpoint file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
}

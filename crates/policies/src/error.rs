/// Why a policy spec (`NAME[:key=value,...]`) could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The spec has no name.
    #[error("empty policy name")]
    Empty,
    /// No policy has this name.
    #[error("unknown policy `{name}` (known: {known})")]
    UnknownPolicy {
        /// The name given.
        name: String,
        /// The names that exist, comma-separated.
        known: String,
    },
    /// An option is not `key=value`.
    #[error("policy spec `{spec}`: option `{option}` is not key=value")]
    MalformedOption {
        /// The whole spec.
        spec: String,
        /// The offending option text.
        option: String,
    },
    /// An option is empty: `easy:`, `easy:order=sjf,`, `easy:,`.
    #[error(
        "policy spec `{spec}` has an empty option (nothing between `:` or `,` and the next `,` or the end)"
    )]
    EmptyOption {
        /// The whole spec.
        spec: String,
    },
    /// An option is given twice.
    #[error("policy spec `{spec}` repeats option `{option}`")]
    DuplicateOption {
        /// The whole spec.
        spec: String,
        /// The repeated key.
        option: String,
    },
    /// The policy has no such option.
    #[error("policy `{policy}` has no option `{option}` ({known})")]
    UnknownOption {
        /// The policy.
        policy: String,
        /// The option given.
        option: String,
        /// The options it has ("known: a, b") or "it takes none".
        known: String,
    },
    /// A required option is missing.
    #[error("policy `{policy}` needs option `{option}`")]
    MissingOption {
        /// The policy.
        policy: String,
        /// The missing option.
        option: String,
    },
    /// An option's value does not parse.
    #[error("policy `{policy}`: option `{option}` = `{value}` is not valid (expected {expected})")]
    BadValue {
        /// The policy.
        policy: String,
        /// The option.
        option: String,
        /// The value given.
        value: String,
        /// What would be accepted.
        expected: String,
    },
    /// An option's value is a number, but outside what the option allows.
    #[error("policy `{policy}`: option `{option}` = `{value}` is out of range ({range})")]
    OutOfRange {
        /// The policy.
        policy: String,
        /// The option.
        option: String,
        /// The value given.
        value: String,
        /// The allowed range, e.g. `0 to 4294967295, or all`.
        range: String,
    },
    /// A slurm.conf or shares file (`conf=FILE`, `shares=FILE`) that
    /// cannot be read or has a bad line.
    #[error(transparent)]
    SlurmConf(#[from] crate::slurm::SlurmConfError),
    /// A parameter file (e.g. Greedy's `params=FILE`) that cannot be read
    /// or is not valid.
    #[error("parameter file {path}: {reason}")]
    BadParameterFile {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

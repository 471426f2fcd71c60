//! The crate's error type.

/// A parameter is out of its valid range. Returned by the `validate`
/// methods and the generators' constructors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamsError {
    /// The named parameter has a value outside its valid range.
    #[error("parameter {name} is {value}, expected {expected}")]
    OutOfRange {
        /// Dotted path of the parameter, e.g. `batch.size.serial_prob`.
        name: String,
        /// The offending value.
        value: f64,
        /// What a valid value looks like.
        expected: &'static str,
    },
}

impl ParamsError {
    pub(crate) fn new(name: &str, value: f64, expected: &'static str) -> Self {
        Self::OutOfRange {
            name: name.to_owned(),
            value,
            expected,
        }
    }
}

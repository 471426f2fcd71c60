//! The crate's error type.

/// A parameter is out of its valid range. Returned by the `validate`
/// methods and the generators' constructors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamsError {
    /// The named parameter has a value outside its valid range.
    #[error("parameter {name} is {shown}, expected {expected}", shown = readable(*.value))]
    OutOfRange {
        /// Dotted path of the parameter, e.g. `batch.size.serial_prob`.
        name: String,
        /// The offending value.
        value: f64,
        /// What a valid value looks like.
        expected: &'static str,
    },
}

/// `1e300` rather than three hundred digits; ordinary values as written.
fn readable(value: f64) -> String {
    if value != 0.0 && value.is_finite() && !(1e-4..1e15).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
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

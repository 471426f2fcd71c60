//! Numbers as messages show them.

/// A float as a message shows it: in scientific notation with at most six
/// significant digits when very large or small (`1e300` is not written
/// out in 301 digits, `2.2499999999999998e32` is `2.25e32`), as Rust
/// writes it otherwise.
///
/// ```
/// use workload_format::readable_number;
///
/// assert_eq!(readable_number(1e300), "1e300");
/// assert_eq!(readable_number(2.2499999999999998e32), "2.25e32");
/// assert_eq!(readable_number(-1.5e-7), "-1.5e-7");
/// assert_eq!(readable_number(86400.5), "86400.5");
/// assert_eq!(readable_number(f64::INFINITY), "inf");
/// ```
pub fn readable_number(value: f64) -> String {
    if !(value.is_finite() && value != 0.0 && !(1e-4..1e15).contains(&value.abs())) {
        return format!("{value}");
    }
    let text = format!("{value:.5e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{mantissa}e{exponent}")
}

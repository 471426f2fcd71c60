//! Clap value parsers for integer options that answer any integer,
//! negative or too large, with the range it must lie in, and anything
//! else with "expected a whole number".

use std::fmt::Display;

/// A value parser (`#[arg(value_parser = whole_number::<u64>(1))]`) for a
/// whole number of type `T` from `min` to `T`'s largest value.
///
/// clap's own parsers for `u64` and `usize` read the text as unsigned, so
/// `--seed -1` gets "invalid digit found in string"; this one reads any
/// integer first, so the message names the range: `-1 is not in
/// 0..=18446744073709551615` (the form clap gives for `u32` options).
///
/// ```
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Args {
///     #[arg(long, value_parser = schedsim_run::whole_number::<usize>(1))]
///     jobs: usize,
/// }
/// assert_eq!(Args::try_parse_from(["x", "--jobs", "7"])?.jobs, 7);
/// let error = Args::try_parse_from(["x", "--jobs=-1"]).err().unwrap().to_string();
/// assert!(error.contains("-1 is not in 1..="), "{error}");
/// # Ok::<(), clap::Error>(())
/// ```
pub fn whole_number<T>(
    min: u64,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: Whole,
{
    whole_number_in(i128::from(min), T::LARGEST)
}

/// Like [`whole_number`], for a whole number of type `T` in `min..=max`
/// (signed types too): `--tau 1.5` gets "expected a whole number", not
/// clap's "invalid digit found in string".
///
/// ```
/// let overhead = schedsim_run::whole_number_in::<i64>(0, 1 << 40);
/// assert_eq!(overhead("60"), Ok(60));
/// assert_eq!(overhead("1.5").unwrap_err(), "expected a whole number in 0..=1099511627776");
/// assert_eq!(overhead("-1").unwrap_err(), "-1 is not in 0..=1099511627776");
/// ```
pub fn whole_number_in<T>(
    min: i128,
    max: i128,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: Whole,
{
    let (min, max) = (min.max(T::SMALLEST), max.min(T::LARGEST));
    move |text: &str| {
        let range = format!("{min}..={max}");
        let Ok(value) = text.trim().parse::<i128>() else {
            return Err(if (min, max) == (T::SMALLEST, T::LARGEST) {
                "expected a whole number".to_owned()
            } else {
                format!("expected a whole number in {range}")
            });
        };
        if (min..=max).contains(&value) {
            Ok(T::from_i128(value))
        } else {
            Err(format!("{value} is not in {range}"))
        }
    }
}

/// The integer types [`whole_number`] and [`whole_number_in`] parse.
pub trait Whole: Display + Copy + Send + Sync + 'static {
    /// The type's smallest value.
    const SMALLEST: i128;
    /// The type's largest value.
    const LARGEST: i128;
    /// `value`, which is in `SMALLEST..=LARGEST`.
    fn from_i128(value: i128) -> Self;
}

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl Whole for $t {
            const SMALLEST: i128 = <$t>::MIN as i128;
            const LARGEST: i128 = <$t>::MAX as i128;
            fn from_i128(value: i128) -> Self {
                value as $t
            }
        }
    )*};
}
// usize is at most 64 bits on every target Rust supports.
whole!(u8, u16, u32, u64, usize, i32, i64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_and_too_large_values_get_the_range() {
        let seed = whole_number::<u64>(0);
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(seed(" 7 "), Ok(7));
        assert_eq!(
            seed("-1"),
            Err("-1 is not in 0..=18446744073709551615".to_owned())
        );
        assert_eq!(
            seed("18446744073709551616"),
            Err("18446744073709551616 is not in 0..=18446744073709551615".to_owned())
        );
        // The whole type's range: no range to name.
        assert_eq!(seed("1.5"), Err("expected a whole number".to_owned()));
        let count = whole_number::<u32>(1);
        assert_eq!(count("0"), Err("0 is not in 1..=4294967295".to_owned()));
        assert_eq!(
            count("4294967296"),
            Err("4294967296 is not in 1..=4294967295".to_owned())
        );
    }
}

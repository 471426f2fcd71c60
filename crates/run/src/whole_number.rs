//! A clap value parser for unsigned options that answers any integer,
//! negative or too large, with the range it must lie in.

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
    T: Unsigned,
{
    move |text: &str| {
        let range = || format!("{min}..={}", T::LARGEST);
        let value: i128 = text
            .trim()
            .parse()
            .map_err(|_| format!("expected a whole number in {}", range()))?;
        match u64::try_from(value) {
            Ok(v) if v >= min && v <= T::LARGEST => Ok(T::from_u64(v)),
            _ => Err(format!("{value} is not in {}", range())),
        }
    }
}

/// The unsigned types [`whole_number`] parses.
pub trait Unsigned: Display + Copy + Send + Sync + 'static {
    /// The type's largest value.
    const LARGEST: u64;
    /// `value`, which is at most [`Self::LARGEST`].
    fn from_u64(value: u64) -> Self;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Unsigned for $t {
            const LARGEST: u64 = <$t>::MAX as u64;
            fn from_u64(value: u64) -> Self {
                value as $t
            }
        }
    )*};
}
// usize is at most 64 bits on every target Rust supports.
unsigned!(u8, u16, u32, u64, usize);

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
        assert_eq!(
            seed("1.5"),
            Err("expected a whole number in 0..=18446744073709551615".to_owned())
        );
        let count = whole_number::<u32>(1);
        assert_eq!(count("0"), Err("0 is not in 1..=4294967295".to_owned()));
        assert_eq!(
            count("4294967296"),
            Err("4294967296 is not in 1..=4294967295".to_owned())
        );
    }
}

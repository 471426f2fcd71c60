//! Numbers of policy options and configuration files: text that is a number
//! but out of the allowed range is told apart from text that is no number,
//! so that the first can be refused with the range.

use schedsim_sim_core::MAX_TIME;

/// Why a number's text was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The text is not a number of the kind asked for.
    NotANumber,
    /// It is one, but outside the allowed range (or beyond the type).
    OutOfRange,
}

/// Whole number text (digits, with an optional sign) in `min..=max`.
pub(crate) fn whole<T: TryFrom<i128>>(text: &str, min: i128, max: i128) -> Result<T, Refused> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refused::NotANumber);
    }
    // More digits than an i128 holds also parse to an error: out of range.
    match text.parse::<i128>() {
        Ok(value) if (min..=max).contains(&value) => {
            T::try_from(value).map_err(|_| Refused::OutOfRange)
        }
        _ => Err(Refused::OutOfRange),
    }
}

/// A real number in `min..=max` (NaN is no number; infinities are out of
/// any range whose bounds are finite).
pub(crate) fn real(text: &str, min: f64, max: f64) -> Result<f64, Refused> {
    match text.parse::<f64>() {
        Ok(value) if value.is_nan() => Err(Refused::NotANumber),
        Ok(value) if (min..=max).contains(&value) => Ok(value),
        Ok(_) => Err(Refused::OutOfRange),
        Err(_) => Err(Refused::NotANumber),
    }
}

/// `min..=max` for a message: `0 to 4294967295`; 2^53 (the workload
/// time limit) is named as such.
pub(crate) fn whole_range(min: i128, max: i128) -> String {
    let bound = |value: i128| {
        if value == i128::from(MAX_TIME) {
            format!("{value} (2^53)")
        } else {
            value.to_string()
        }
    };
    format!("{} to {}", bound(min), bound(max))
}

/// `out of range: MIN to MAX` and `unit` (` seconds`, or empty), the reason
/// configuration files give for a number outside `min..=max`.
pub(crate) fn out_of_range(min: i128, max: i128, unit: &str) -> String {
    format!("out of range: {}{unit}", whole_range(min, max))
}

/// A `u32` of a configuration file (a weight, a share), or the reason the
/// text is refused: no non-negative integer, or one beyond `u32`.
pub(crate) fn non_negative_u32(text: &str) -> Result<u32, String> {
    whole(text, 0, u32::MAX.into()).map_err(|refused| match refused {
        Refused::NotANumber => "expected a non-negative integer".to_owned(),
        Refused::OutOfRange => out_of_range(0, u32::MAX.into(), ""),
    })
}

/// `min..=max` of reals for a message: `0 to 1`, or `0 or more (finite)`
/// when `max` is `f64::MAX`.
pub(crate) fn real_range(min: f64, max: f64) -> String {
    if max == f64::MAX {
        format!("{min} or more (finite)")
    } else {
        format!("{min} to {max}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_out_of_range_are_told_from_text() {
        assert_eq!(whole::<u32>("7", 0, u32::MAX.into()), Ok(7));
        assert_eq!(whole::<u32>("+7", 0, u32::MAX.into()), Ok(7));
        // 2^32 = 4294967296 is one past u32::MAX.
        assert_eq!(
            whole::<u32>("4294967296", 0, u32::MAX.into()),
            Err(Refused::OutOfRange)
        );
        assert_eq!(whole::<u32>("-1", 0, 10), Err(Refused::OutOfRange));
        // 40 digits: beyond i128 (39 digits), still a number.
        assert_eq!(
            whole::<u64>(&"9".repeat(40), 0, 10),
            Err(Refused::OutOfRange)
        );
        for text in ["", "-", "x", "1.5", "1e3", " 1", "0x10"] {
            assert_eq!(
                whole::<u32>(text, 0, 10),
                Err(Refused::NotANumber),
                "{text}"
            );
        }
        assert_eq!(real("0.5", 0.0, 1.0), Ok(0.5));
        assert_eq!(real("1.5", 0.0, 1.0), Err(Refused::OutOfRange));
        assert_eq!(real("-0.1", 0.0, f64::MAX), Err(Refused::OutOfRange));
        // 1e999 parses to infinity: beyond f64::MAX.
        assert_eq!(real("1e999", 0.0, f64::MAX), Err(Refused::OutOfRange));
        assert_eq!(real("inf", 0.0, f64::MAX), Err(Refused::OutOfRange));
        assert_eq!(real("NaN", 0.0, f64::MAX), Err(Refused::NotANumber));
        assert_eq!(real("half", 0.0, 1.0), Err(Refused::NotANumber));
        assert_eq!(whole_range(1, 8), "1 to 8");
        assert_eq!(whole_range(3, 1 << 53), "3 to 9007199254740992 (2^53)");
        assert_eq!(
            out_of_range(0, MAX_TIME.into(), " seconds"),
            "out of range: 0 to 9007199254740992 (2^53) seconds"
        );
        assert_eq!(non_negative_u32("4294967295"), Ok(u32::MAX));
        assert_eq!(
            non_negative_u32("4294967296").unwrap_err(),
            "out of range: 0 to 4294967295"
        );
        assert_eq!(
            non_negative_u32("-1").unwrap_err(),
            "out of range: 0 to 4294967295"
        );
        assert_eq!(
            non_negative_u32("1.5").unwrap_err(),
            "expected a non-negative integer"
        );
        assert_eq!(real_range(0.0, 1.0), "0 to 1");
        assert_eq!(real_range(0.0, f64::MAX), "0 or more (finite)");
    }
}

//! Parsing one data line from bytes: the hot loop of every reader.
//!
//! Tokens are split on ASCII whitespace (space, tab, CR, LF, form feed), the
//! same set as [`str::split_ascii_whitespace`]. Integers take a hand-written
//! path; only tokens with a fraction or exponent go through `f64` parsing.

use crate::error::LineError;
use crate::record::{CwfFields, JobStatus, Record, RequestType};

/// Fields in an SWF line.
pub(crate) const SWF_FIELDS: usize = 18;
/// Fields in a CWF line.
pub(crate) const CWF_FIELDS: usize = 21;

/// Quoted tokens in error messages are cut to this many bytes.
const EXCERPT_BYTES: usize = 64;

/// A parsed data line and which integer fields were rounded from a float
/// token (bit `n - 1` set for field `n`).
#[cfg(test)]
pub(crate) struct ParsedLine {
    pub(crate) record: Record,
    pub(crate) rounded: u32,
}

/// Parses one data line (no comment, not blank) of 18 or 21 fields.
///
/// This is the function behind every reader; it is public so that callers
/// can check single lines (and for the fuzz target). It never panics.
///
/// ```
/// use workload_format::{parse_record, JobStatus};
/// let r = parse_record(b"7 10 -1 3600 64 552.21 -1 64 7200 -1 1 3 1 -1 0 -1 -1 -1").unwrap();
/// assert_eq!(r.job_number, 7);
/// assert_eq!(r.wait_time, None);
/// assert_eq!(r.average_cpu_time, Some(552.21));
/// assert_eq!(r.status, Some(JobStatus::Completed));
/// ```
pub fn parse_record(line: &[u8]) -> Result<Record, LineError> {
    let mut record = Record::unknown(0);
    parse_line_into(line, &mut record)?;
    Ok(record)
}

/// One whitespace-separated token, with its value when it is plain digits.
#[derive(Clone, Copy)]
struct Token<'a> {
    text: &'a [u8],
    /// The decimal value of `text` when `plain`.
    value: u64,
    /// `text` is 1 to 19 ASCII digits, so `value` is exact (no overflow).
    plain: bool,
}

/// Parses a line into a new record, with the rounding flags.
#[cfg(test)]
pub(crate) fn parse_line(line: &[u8]) -> Result<ParsedLine, LineError> {
    let mut record = Record::unknown(0);
    let rounded = parse_line_into(line, &mut record)?;
    Ok(ParsedLine { record, rounded })
}

/// Parses a line into `record`, returning which integer fields were rounded
/// (bit `n - 1` for field `n`). On error `record` holds a mix of old and new
/// values and must not be used.
pub(crate) fn parse_line_into(line: &[u8], record: &mut Record) -> Result<u32, LineError> {
    let empty = Token {
        text: &[],
        value: 0,
        plain: false,
    };
    let mut tokens = [empty; CWF_FIELDS];
    let mut found = 0usize;
    let mut i = 0;
    let n = line.len();
    // One pass: split the tokens and accumulate digits on the way, so that
    // plain integers (nearly every token) need no second look.
    while i < n {
        if line[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let mut value: u64 = 0;
        let mut digits_only = true;
        while i < n {
            let b = line[i];
            let digit = b.wrapping_sub(b'0');
            if digit < 10 {
                value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
            } else if b.is_ascii_whitespace() {
                break;
            } else {
                digits_only = false;
            }
            i += 1;
        }
        if let Some(slot) = tokens.get_mut(found) {
            *slot = Token {
                text: &line[start..i],
                value,
                plain: digits_only && i - start <= 19,
            };
        }
        found += 1;
    }
    if found != SWF_FIELDS && found != CWF_FIELDS {
        return Err(LineError::FieldCount { found });
    }

    let mut rounded = 0u32;
    let t = &tokens;
    let r = &mut rounded;
    let Some(job_number) = int(t, 1, r)? else {
        return Err(LineError::InvalidJobNumber {
            text: excerpt(tokens[0].text),
        });
    };
    // Field by field into the caller's record: no temporary record to copy.
    record.job_number = job_number;
    record.submit_time = int(t, 2, r)?;
    record.wait_time = int(t, 3, r)?;
    record.run_time = int(t, 4, r)?;
    record.allocated_processors = int(t, 5, r)?;
    record.average_cpu_time = match tokens[5] {
        // Up to 15 digits convert to f64 exactly (10^15 < 2^53).
        Token {
            plain: true, value, ..
        } if value < 1_000_000_000_000_000 =>
        {
            #[allow(clippy::cast_precision_loss)]
            Some(value as f64)
        }
        token => parse_float(token.text, 6)?,
    };
    record.used_memory = int(t, 7, r)?;
    record.requested_processors = int(t, 8, r)?;
    record.requested_time = int(t, 9, r)?;
    record.requested_memory = int(t, 10, r)?;
    record.status = match int(t, 11, r)? {
        None => None,
        Some(code) => Some(
            JobStatus::from_code(code).ok_or_else(|| LineError::InvalidStatus {
                text: excerpt(tokens[10].text),
            })?,
        ),
    };
    record.user_id = int(t, 12, r)?;
    record.group_id = int(t, 13, r)?;
    record.executable_number = int(t, 14, r)?;
    record.queue_number = int(t, 15, r)?;
    record.partition_number = int(t, 16, r)?;
    record.preceding_job_number = int(t, 17, r)?;
    record.think_time = int(t, 18, r)?;
    // One test in the common case; the field is found only on failure.
    let latest = record
        .submit_time
        .unwrap_or(0)
        .max(record.wait_time.unwrap_or(0))
        .max(record.run_time.unwrap_or(0))
        .max(record.requested_time.unwrap_or(0));
    if latest > crate::MAX_TIME {
        for (field, value) in [
            (2, record.submit_time),
            (3, record.wait_time),
            (4, record.run_time),
            (9, record.requested_time),
        ] {
            check_time(t, field, value)?;
        }
    }
    record.cwf = if found == CWF_FIELDS {
        let requested_start_time = int(t, 19, r)?;
        let request_type = std::str::from_utf8(tokens[19].text)
            .ok()
            .and_then(RequestType::from_token)
            .ok_or_else(|| LineError::InvalidRequestType {
                text: excerpt(tokens[19].text),
            })?;
        let amount = int(t, 21, r)?;
        check_time(t, 19, requested_start_time)?;
        if matches!(
            request_type,
            RequestType::ExtendTime | RequestType::ReduceTime
        ) {
            check_time(t, 21, amount)?;
        }
        Some(CwfFields {
            requested_start_time,
            request_type,
            amount,
        })
    } else {
        None
    };
    Ok(rounded)
}

/// Refuses a time beyond [`MAX_TIME`](crate::MAX_TIME): simulators add
/// times up, and 2^53 s (285 million years) leaves them room without
/// overflow while every real log stays far below.
#[inline(always)]
fn check_time(
    tokens: &[Token<'_>; CWF_FIELDS],
    field: usize,
    value: Option<u64>,
) -> Result<(), LineError> {
    match value {
        Some(v) if v > crate::MAX_TIME => Err(LineError::TimeTooLarge {
            field,
            text: excerpt(tokens[field - 1].text),
        }),
        _ => Ok(()),
    }
}

/// An integer field's value; sets the field's bit in `rounded` when a float
/// token was rounded.
#[inline(always)]
fn int(
    tokens: &[Token<'_>; CWF_FIELDS],
    field: usize,
    rounded: &mut u32,
) -> Result<Option<u64>, LineError> {
    let token = tokens[field - 1];
    if token.plain {
        return Ok(Some(token.value));
    }
    let (value, was_rounded) = parse_unsigned(token.text, field)?;
    if was_rounded {
        *rounded |= 1 << (field - 1);
    }
    Ok(value)
}

/// The shape of a numeric token.
enum Syntax {
    /// `[+-]?[0-9]+`
    Integer {
        negative: bool,
        digits_start: usize,
    },
    /// Digits, at most a sign, a `.`, an exponent: handed to `f64` parsing.
    Float,
    NotANumber,
}

fn classify(token: &[u8]) -> Syntax {
    let (negative, digits_start) = match token.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let digits = &token[digits_start..];
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        return Syntax::Integer {
            negative,
            digits_start,
        };
    }
    // Only these bytes can make a decimal float; this also keeps out the
    // "inf" and "nan" spellings that `f64::from_str` would accept.
    if token.iter().any(u8::is_ascii_digit)
        && token
            .iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        Syntax::Float
    } else {
        Syntax::NotANumber
    }
}

/// Accumulates decimal digits; `None` on overflow.
fn digits_value(digits: &[u8]) -> Option<u64> {
    let mut value: u64 = 0;
    for &d in digits {
        value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(value)
}

/// An integer field: `-1` is unknown, a float token is rounded to the nearest
/// integer (ties away from zero). Returns the value and whether a float token
/// was rounded.
fn parse_unsigned(token: &[u8], field: usize) -> Result<(Option<u64>, bool), LineError> {
    // Fast path: plain digits, the overwhelming majority of tokens.
    if token.len() <= 19 && !token.is_empty() && token.iter().all(u8::is_ascii_digit) {
        let mut value: u64 = 0;
        for &d in token {
            value = value * 10 + u64::from(d - b'0');
        }
        return Ok((Some(value), false));
    }
    if token == b"-1" {
        return Ok((None, false));
    }
    match classify(token) {
        Syntax::Integer {
            negative,
            digits_start,
        } => match digits_value(&token[digits_start..]) {
            None if negative => Err(negative_error(token, field)),
            None => Err(LineError::TooLarge {
                field,
                text: excerpt(token),
            }),
            Some(0) => Ok((Some(0), false)),
            Some(1) if negative => Ok((None, false)),
            Some(_) if negative => Err(negative_error(token, field)),
            Some(v) => Ok((Some(v), false)),
        },
        Syntax::Float => {
            let value = float_value(token, field)?;
            if value == -1.0 {
                return Ok((None, false));
            }
            if value < 0.0 {
                return Err(negative_error(token, field));
            }
            let rounded = value.round();
            // 2^64 is the first value that does not fit; `as` would saturate.
            if rounded >= 18_446_744_073_709_551_616.0 {
                return Err(LineError::TooLarge {
                    field,
                    text: excerpt(token),
                });
            }
            // In range, integral and non-negative: the conversion is exact.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok((Some(rounded as u64), true))
        }
        Syntax::NotANumber => Err(LineError::NotANumber {
            field,
            text: excerpt(token),
        }),
    }
}

/// Field 6: kept as `f64`; `-1` (or `-1.0`) is unknown, `-0` becomes `0`.
fn parse_float(token: &[u8], field: usize) -> Result<Option<f64>, LineError> {
    if token == b"-1" {
        return Ok(None);
    }
    // Up to 15 digits convert exactly (15 < log10(2^53)).
    if token.len() <= 15 && !token.is_empty() && token.iter().all(u8::is_ascii_digit) {
        let mut value: u64 = 0;
        for &d in token {
            value = value * 10 + u64::from(d - b'0');
        }
        #[allow(clippy::cast_precision_loss)]
        return Ok(Some(value as f64));
    }
    if matches!(classify(token), Syntax::NotANumber) {
        return Err(LineError::NotANumber {
            field,
            text: excerpt(token),
        });
    }
    let value = float_value(token, field)?;
    if value == -1.0 {
        return Ok(None);
    }
    if value < 0.0 {
        return Err(negative_error(token, field));
    }
    // `value == 0.0` also holds for -0.0; store the positive zero.
    Ok(Some(if value == 0.0 { 0.0 } else { value }))
}

/// `f64` parsing of a token that has only float bytes; non-finite results
/// (an exponent too large) are "too large".
fn float_value(token: &[u8], field: usize) -> Result<f64, LineError> {
    let value = std::str::from_utf8(token)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .ok_or_else(|| LineError::NotANumber {
            field,
            text: excerpt(token),
        })?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(LineError::TooLarge {
            field,
            text: excerpt(token),
        })
    }
}

fn negative_error(token: &[u8], field: usize) -> LineError {
    if field == 1 {
        return LineError::InvalidJobNumber {
            text: excerpt(token),
        };
    }
    LineError::Negative {
        field,
        text: excerpt(token),
    }
}

/// The token as text for an error message, cut to [`EXCERPT_BYTES`].
pub(crate) fn excerpt(token: &[u8]) -> String {
    if token.len() <= EXCERPT_BYTES {
        return String::from_utf8_lossy(token).into_owned();
    }
    let mut text = String::from_utf8_lossy(&token[..EXCERPT_BYTES]).into_owned();
    text.push('…');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const LANL_LINE: &str = "    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1";

    fn line_with(field: usize, token: &str) -> String {
        let mut tokens: Vec<&str> = LANL_LINE.split_ascii_whitespace().collect();
        tokens[field - 1] = token;
        tokens.join(" ")
    }

    #[test]
    fn parses_a_real_lanl_line() {
        let parsed = parse_line(LANL_LINE.as_bytes()).unwrap();
        let r = parsed.record;
        assert_eq!(r.job_number, 2);
        assert_eq!(r.submit_time, Some(465));
        assert_eq!(r.wait_time, Some(5));
        assert_eq!(r.run_time, Some(3362));
        assert_eq!(r.allocated_processors, Some(32));
        assert_eq!(r.average_cpu_time, Some(489.0));
        assert_eq!(r.used_memory, Some(988));
        assert_eq!(r.requested_processors, Some(32));
        assert_eq!(r.requested_time, Some(900));
        assert_eq!(r.requested_memory, Some(1024));
        assert_eq!(r.status, Some(JobStatus::Completed));
        assert_eq!(r.user_id, Some(3));
        assert_eq!(r.group_id, Some(3));
        assert_eq!(r.executable_number, Some(3));
        assert_eq!(r.queue_number, Some(1));
        assert_eq!(r.partition_number, None);
        assert_eq!(r.preceding_job_number, None);
        assert_eq!(r.think_time, None);
        assert_eq!(r.cwf, None);
        // Field 6 is a float field: "489.00" is not a rounding.
        assert_eq!(parsed.rounded, 0);
    }

    #[test]
    fn minus_one_is_unknown_in_every_optional_field() {
        let line = "5 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 S -1";
        let r = parse_record(line.as_bytes()).unwrap();
        let mut expected = Record::unknown(5);
        expected.cwf = Some(CwfFields {
            requested_start_time: None,
            request_type: RequestType::Submit,
            amount: None,
        });
        assert_eq!(r, expected);
    }

    #[test]
    fn minus_one_point_zero_is_unknown_too() {
        let r = parse_record(line_with(3, "-1.0").as_bytes()).unwrap();
        assert_eq!(r.wait_time, None);
        let r = parse_record(line_with(6, "-1.00").as_bytes()).unwrap();
        assert_eq!(r.average_cpu_time, None);
        // -1e0 is the same value.
        let r = parse_record(line_with(4, "-1e0").as_bytes()).unwrap();
        assert_eq!(r.run_time, None);
    }

    #[test]
    fn other_negative_values_are_errors() {
        for token in ["-2", "-1.5", "-0.4", "-100"] {
            let err = parse_record(line_with(4, token).as_bytes()).unwrap_err();
            assert_eq!(
                err,
                LineError::Negative {
                    field: 4,
                    text: token.to_string()
                }
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "field 4 (run time): \"{token}\" is negative; only -1 (unknown) is allowed"
                )
            );
        }
        let err = parse_record(line_with(6, "-0.5").as_bytes()).unwrap_err();
        assert_eq!(err.reason(), crate::Reason::Negative);
    }

    #[test]
    fn negative_zero_is_zero() {
        let r = parse_record(line_with(4, "-0").as_bytes()).unwrap();
        assert_eq!(r.run_time, Some(0));
        let r = parse_record(line_with(6, "-0.0").as_bytes()).unwrap();
        assert!(r.average_cpu_time.unwrap().is_sign_positive());
    }

    #[test]
    fn float_tokens_in_integer_fields_round_half_away_from_zero() {
        // 12.5 -> 13 (tie away from zero), 12.49 -> 12, 0.5 -> 1, 7.0 -> 7.
        for (token, expected) in [
            ("12.5", 13),
            ("12.49", 12),
            ("0.5", 1),
            ("7.0", 7),
            ("1e3", 1000),
        ] {
            let parsed = parse_line(line_with(5, token).as_bytes()).unwrap();
            assert_eq!(
                parsed.record.allocated_processors,
                Some(expected),
                "{token}"
            );
            assert_eq!(parsed.rounded, 1 << 4, "field 5 flagged as rounded");
        }
        // A plus sign is an integer, not a rounding.
        let parsed = parse_line(line_with(5, "+12").as_bytes()).unwrap();
        assert_eq!(parsed.record.allocated_processors, Some(12));
        assert_eq!(parsed.rounded, 0);
    }

    #[test]
    fn field_six_keeps_fractions_exactly() {
        let r = parse_record(line_with(6, "552.21").as_bytes()).unwrap();
        assert_eq!(r.average_cpu_time, Some(552.21));
        let r = parse_record(line_with(6, "8.97").as_bytes()).unwrap();
        assert_eq!(r.average_cpu_time, Some(8.97));
    }

    #[test]
    fn not_a_number_names_field_and_text() {
        let err = parse_record(line_with(5, "12x").as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field 5 (allocated processors): \"12x\" is not a number"
        );
        for token in [
            "inf", "NaN", "nan", "infinity", "1e", ".", "-", "+", "--1", "1-", "0x10", "1_000",
        ] {
            let err = parse_record(line_with(7, token).as_bytes()).unwrap_err();
            assert_eq!(err.reason(), crate::Reason::NotANumber, "{token}");
            let err = parse_record(line_with(6, token).as_bytes()).unwrap_err();
            assert_eq!(err.reason(), crate::Reason::NotANumber, "field 6 {token}");
        }
    }

    #[test]
    fn too_large_values_are_errors() {
        // u64::MAX = 18446744073709551615 is the largest value of a
        // non-time field such as the user (12).
        let r = parse_record(line_with(12, "18446744073709551615").as_bytes()).unwrap();
        assert_eq!(r.user_id, Some(u64::MAX));
        // A time may be at most 2^53 = 9007199254740992.
        let r = parse_record(line_with(2, "9007199254740992").as_bytes()).unwrap();
        assert_eq!(r.submit_time, Some(1 << 53));
        for field in [2, 3, 4, 9] {
            let err = parse_record(line_with(field, "9007199254740993").as_bytes()).unwrap_err();
            assert_eq!(err.reason(), crate::Reason::TooLarge);
            assert_eq!(err.field(), Some(field));
            assert!(
                err.to_string()
                    .ends_with("is beyond the largest time allowed, 2^53 s")
            );
        }
        let err = parse_record(line_with(2, "18446744073709551615").as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field 2 (submit time): \"18446744073709551615\" is beyond the largest time allowed, 2^53 s"
        );
        for token in ["18446744073709551616", "1e20", "99999999999999999999999"] {
            let err = parse_record(line_with(2, token).as_bytes()).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("field 2 (submit time): \"{token}\" is too large")
            );
        }
        // An ET amount (field 21) is a time too; an EP amount is processors.
        let cwf = |kind: &str, amount: &str| {
            format!("1 10 -1 100 1 -1 -1 1 100 -1 1 -1 -1 -1 -1 -1 -1 -1 -1 {kind} {amount}")
        };
        let err = parse_record(cwf("ET", "9223372036854775807").as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field 21 (amount): \"9223372036854775807\" is beyond the largest time allowed, 2^53 s"
        );
        assert!(parse_record(cwf("EP", "9223372036854775807").as_bytes()).is_ok());
        let err = parse_record(line_with(6, "1e400").as_bytes()).unwrap_err();
        assert_eq!(err.reason(), crate::Reason::TooLarge);
        // Leading zeros do not overflow.
        let r = parse_record(line_with(2, "000000000000000000000000042").as_bytes()).unwrap();
        assert_eq!(r.submit_time, Some(42));
    }

    #[test]
    fn field_count_must_be_18_or_21() {
        for n in [1, 17, 19, 20, 22, 40] {
            let line = vec!["1"; n].join(" ");
            let err = parse_record(line.as_bytes()).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("expected 18 (SWF) or 21 (CWF) fields, found {n}")
            );
        }
    }

    #[test]
    fn job_number_must_be_known_and_not_negative() {
        for token in ["-1", "-1.0", "-7"] {
            let err = parse_record(line_with(1, token).as_bytes()).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "field 1 (job number): \"{token}\" is not allowed; the job number must be known and not negative"
                )
            );
        }
    }

    #[test]
    fn status_must_be_0_to_5_or_unknown() {
        for (token, expected) in [
            ("0", Some(JobStatus::Failed)),
            ("1", Some(JobStatus::Completed)),
            ("2", Some(JobStatus::PartialToBeContinued)),
            ("3", Some(JobStatus::PartialLastCompleted)),
            ("4", Some(JobStatus::PartialLastFailed)),
            ("5", Some(JobStatus::Cancelled)),
            ("-1", None),
        ] {
            let r = parse_record(line_with(11, token).as_bytes()).unwrap();
            assert_eq!(r.status, expected);
        }
        let err = parse_record(line_with(11, "6").as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field 11 (status): \"6\" is not a job status (0 to 5, or -1 for unknown)"
        );
    }

    #[test]
    fn cwf_fields_parse_and_request_type_is_checked() {
        let line = format!("{LANL_LINE} 5000 ET 600");
        let r = parse_record(line.as_bytes()).unwrap();
        assert_eq!(
            r.cwf,
            Some(CwfFields {
                requested_start_time: Some(5000),
                request_type: RequestType::ExtendTime,
                amount: Some(600)
            })
        );
        for (token, ty) in [
            ("S", RequestType::Submit),
            ("RT", RequestType::ReduceTime),
            ("EP", RequestType::ExtendProcessors),
            ("RP", RequestType::ReduceProcessors),
        ] {
            let r = parse_record(format!("{LANL_LINE} -1 {token} -1").as_bytes()).unwrap();
            assert_eq!(r.request_type(), ty);
        }
        let err = parse_record(format!("{LANL_LINE} -1 et 5").as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "field 20 (request type): \"et\" is not a request type (S, ET, RT, EP or RP)"
        );
        let err = parse_record(format!("{LANL_LINE} -1 S x").as_bytes()).unwrap_err();
        assert_eq!(err.to_string(), "field 21 (amount): \"x\" is not a number");
    }

    #[test]
    fn tabs_and_carriage_returns_separate_fields() {
        let line = LANL_LINE
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join("\t")
            + "\r";
        let r = parse_record(line.as_bytes()).unwrap();
        assert_eq!(r, parse_record(LANL_LINE.as_bytes()).unwrap());
    }

    #[test]
    fn long_tokens_are_cut_in_messages() {
        let token = "x".repeat(100);
        let err = parse_record(line_with(3, &token).as_bytes()).unwrap_err();
        let expected = format!("{}…", "x".repeat(64));
        assert_eq!(
            err,
            LineError::NotANumber {
                field: 3,
                text: expected
            }
        );
    }
}

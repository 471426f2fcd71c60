//! An objective over the group metrics, written as a weighted sum such as
//! the paper's `10 * AWRT1 + 4 * AWRT2` (eq. 8).
//!
//! Grammar (whitespace is free, names are case-insensitive):
//!
//! ```text
//! objective := sign? term (sign term)*
//! sign      := "+" | "-"
//! term      := factor ("*" factor)*      at most one factor a metric
//! factor    := number | metric
//! number    := digits ["." digits] [("e" | "E") sign? digits]   (or "." digits ...)
//! metric    := "AWRT" digits     AWRT_k of user group k >= 1 (eq. 7), seconds
//!            | "AWRT"            AWRT over all jobs (eq. 6), seconds
//!            | "UTIL"            utilization (eq. 5), a fraction in [0, 1]
//! ```
//!
//! A term without a metric is a constant. Lower values are better when the
//! objective is minimised, so a term that should be large (UTIL) takes a
//! negative weight.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::groups::GroupMetrics;

/// A metric an objective can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectiveMetric {
    /// AWRT over all jobs (eq. 6).
    Awrt,
    /// AWRT of one user group, 1-based (eq. 7).
    GroupAwrt(usize),
    /// Utilization (eq. 5), as a fraction.
    Util,
}

impl fmt::Display for ObjectiveMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Awrt => f.write_str("AWRT"),
            Self::GroupAwrt(k) => write!(f, "AWRT{k}"),
            Self::Util => f.write_str("UTIL"),
        }
    }
}

/// Why an objective could not be parsed or evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectiveError {
    /// The text is not an objective.
    #[error("objective \"{text}\", column {column}: {message}")]
    Parse {
        /// The whole text.
        text: String,
        /// The 1-based character column of the problem.
        column: usize,
        /// What was expected or found.
        message: String,
    },
    /// A metric the objective uses has no value for this schedule.
    #[error("{metric} is undefined: {reason}")]
    Undefined {
        /// The metric.
        metric: ObjectiveMetric,
        /// Why.
        reason: String,
    },
}

/// A weighted sum of group metrics and a constant; see the module docs for
/// the grammar. Parses from and prints to text (also in serde).
///
/// ```
/// use schedsim_metrics::Objective;
///
/// let objective: Objective = "10*awrt1 + 4 * AWRT2".parse()?;
/// assert_eq!(objective, Objective::paper());
/// assert_eq!(objective.to_string(), "10 * AWRT1 + 4 * AWRT2");
///
/// let error = "10 * AWRT1 +".parse::<Objective>().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "objective \"10 * AWRT1 +\", column 13: expected a number or a metric, found the end"
/// );
/// # Ok::<(), schedsim_metrics::ObjectiveError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    terms: Vec<(f64, ObjectiveMetric)>,
    constant: f64,
}

impl Default for Objective {
    fn default() -> Self {
        Self::paper()
    }
}

impl Objective {
    /// The paper's objective, eq. 8: `10 * AWRT1 + 4 * AWRT2`.
    pub fn paper() -> Self {
        Self {
            terms: vec![
                (10.0, ObjectiveMetric::GroupAwrt(1)),
                (4.0, ObjectiveMetric::GroupAwrt(2)),
            ],
            constant: 0.0,
        }
    }

    /// The weighted metrics, in the order written (a metric written twice
    /// appears twice).
    pub fn terms(&self) -> &[(f64, ObjectiveMetric)] {
        &self.terms
    }

    /// The sum of the constant terms.
    pub fn constant(&self) -> f64 {
        self.constant
    }

    /// The objective's value for a schedule's group metrics.
    ///
    /// # Errors
    /// A metric without a value: a group that does not exist or consumed
    /// nothing in this schedule, or UTIL/AWRT of a schedule without work or
    /// time.
    pub fn evaluate(&self, metrics: &GroupMetrics) -> Result<f64, ObjectiveError> {
        let mut value = self.constant;
        for &(weight, metric) in &self.terms {
            let undefined = |reason: String| ObjectiveError::Undefined { metric, reason };
            let x = match metric {
                ObjectiveMetric::Awrt => metrics
                    .awrt
                    .ok_or_else(|| undefined("no job consumed processor time".into()))?,
                ObjectiveMetric::Util => metrics.util.ok_or_else(|| {
                    undefined("no time passed between the first start and the last end".into())
                })?,
                ObjectiveMetric::GroupAwrt(k) if k > metrics.groups.len() => {
                    return Err(undefined(format!(
                        "there are {} user groups",
                        metrics.groups.len()
                    )));
                }
                ObjectiveMetric::GroupAwrt(k) => metrics
                    .awrt_of(k)
                    .ok_or_else(|| undefined(format!("user group {k} consumed nothing")))?,
            };
            value += weight * x;
        }
        Ok(value)
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut write_term =
            |f: &mut fmt::Formatter<'_>, weight: f64, metric: Option<ObjectiveMetric>| {
                let negative = weight.is_sign_negative();
                match (first, negative) {
                    (true, true) => f.write_str("-")?,
                    (true, false) => {}
                    (false, true) => f.write_str(" - ")?,
                    (false, false) => f.write_str(" + ")?,
                }
                first = false;
                let magnitude = weight.abs();
                match metric {
                    Some(metric) if magnitude == 1.0 => write!(f, "{metric}"),
                    Some(metric) => write!(f, "{magnitude} * {metric}"),
                    None => write!(f, "{magnitude}"),
                }
            };
        for &(weight, metric) in &self.terms {
            write_term(f, weight, Some(metric))?;
        }
        if self.constant != 0.0 || self.terms.is_empty() {
            write_term(f, self.constant, None)?;
        }
        Ok(())
    }
}

impl FromStr for Objective {
    type Err = ObjectiveError;

    fn from_str(text: &str) -> Result<Self, ObjectiveError> {
        Parser::new(text).objective()
    }
}

impl Serialize for Objective {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Objective {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A token and the character column (1-based) where it starts.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Metric(ObjectiveMetric),
    Plus,
    Minus,
    Times,
}

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<(usize, Token)>,
    position: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            tokens: Vec::new(),
            position: 0,
        }
    }

    fn error(&self, column: usize, message: impl Into<String>) -> ObjectiveError {
        ObjectiveError::Parse {
            text: self.text.to_string(),
            column,
            message: message.into(),
        }
    }

    /// Splits the text into tokens.
    fn lex(&mut self) -> Result<(), ObjectiveError> {
        let chars: Vec<char> = self.text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let column = i + 1;
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            let token = match c {
                '+' => Token::Plus,
                '-' => Token::Minus,
                '*' => Token::Times,
                '0'..='9' | '.' => {
                    let start = i;
                    while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                        i += 1;
                    }
                    if i < chars.len() && matches!(chars[i], 'e' | 'E') {
                        let mut j = i + 1;
                        if j < chars.len() && matches!(chars[j], '+' | '-') {
                            j += 1;
                        }
                        if j < chars.len() && chars[j].is_ascii_digit() {
                            while j < chars.len() && chars[j].is_ascii_digit() {
                                j += 1;
                            }
                            i = j;
                        }
                    }
                    let literal: String = chars[start..i].iter().collect();
                    let value: f64 = literal.parse().map_err(|_| {
                        self.error(column, format!("\"{literal}\" is not a number"))
                    })?;
                    if !value.is_finite() {
                        return Err(self.error(column, format!("{literal} is too large")));
                    }
                    self.tokens.push((column, Token::Number(value)));
                    continue;
                }
                c if c.is_ascii_alphabetic() => {
                    let start = i;
                    while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                        i += 1;
                    }
                    let word: String = chars[start..i].iter().collect();
                    let metric = parse_metric(&word).ok_or_else(|| {
                        self.error(
                            column,
                            format!("unknown metric \"{word}\", expected AWRT, AWRT1, AWRT2, ... or UTIL"),
                        )
                    })?;
                    self.tokens.push((column, Token::Metric(metric)));
                    continue;
                }
                other => {
                    return Err(self.error(column, format!("unexpected character '{other}'")));
                }
            };
            self.tokens.push((column, token));
            i += 1;
        }
        Ok(())
    }

    fn peek(&self) -> Option<&(usize, Token)> {
        self.tokens.get(self.position)
    }

    fn end_column(&self) -> usize {
        self.text.chars().count() + 1
    }

    fn objective(mut self) -> Result<Objective, ObjectiveError> {
        self.lex()?;
        let mut objective = Objective {
            terms: Vec::new(),
            constant: 0.0,
        };
        let mut sign = match self.peek() {
            Some((_, Token::Minus)) => {
                self.position += 1;
                -1.0
            }
            Some((_, Token::Plus)) => {
                self.position += 1;
                1.0
            }
            _ => 1.0,
        };
        loop {
            let (weight, metric) = self.term()?;
            match metric {
                Some(metric) => objective.terms.push((sign * weight, metric)),
                None => objective.constant += sign * weight,
            }
            match self.peek() {
                None => return Ok(objective),
                Some((_, Token::Plus)) => sign = 1.0,
                Some((_, Token::Minus)) => sign = -1.0,
                Some((column, _)) => {
                    return Err(self.error(*column, "expected \"+\", \"-\" or \"*\""));
                }
            }
            self.position += 1;
        }
    }

    /// A product of numbers and at most one metric.
    fn term(&mut self) -> Result<(f64, Option<ObjectiveMetric>), ObjectiveError> {
        let mut weight = 1.0;
        let mut metric = None;
        loop {
            match self.peek().cloned() {
                Some((_, Token::Number(value))) => weight *= value,
                Some((column, Token::Metric(m))) => {
                    if metric.is_some() {
                        return Err(self.error(
                            column,
                            "a term can hold one metric only (the objective is a weighted sum)",
                        ));
                    }
                    metric = Some(m);
                }
                Some((column, _)) => {
                    return Err(self.error(column, "expected a number or a metric"));
                }
                None => {
                    return Err(self.error(
                        self.end_column(),
                        "expected a number or a metric, found the end",
                    ));
                }
            }
            self.position += 1;
            match self.peek() {
                Some((_, Token::Times)) => self.position += 1,
                _ => return Ok((weight, metric)),
            }
        }
    }
}

fn parse_metric(word: &str) -> Option<ObjectiveMetric> {
    let upper = word.to_ascii_uppercase();
    match upper.as_str() {
        "AWRT" => Some(ObjectiveMetric::Awrt),
        "UTIL" => Some(ObjectiveMetric::Util),
        _ => {
            let digits = upper.strip_prefix("AWRT")?;
            if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok().map(ObjectiveMetric::GroupAwrt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::groups::GroupStats;

    fn metrics() -> GroupMetrics {
        let group = |group, awrt| GroupStats {
            group,
            jobs: 1,
            work: 1,
            awrt,
        };
        GroupMetrics {
            groups: vec![group(1, Some(100.0)), group(2, Some(50.0)), group(3, None)],
            awrt: Some(80.0),
            util: Some(0.75),
            unknown_user_jobs: 0,
        }
    }

    #[test]
    fn paper_objective_by_hand() {
        // 10 * 100 + 4 * 50 = 1200.
        assert_eq!(Objective::paper().evaluate(&metrics()), Ok(1200.0));
    }

    #[test]
    fn weighted_sums_parse_and_print() {
        let parse = |text: &str| text.parse::<Objective>().unwrap();
        // 2 * 100 - 1000 * 0.75 + 80 + 3 = 200 - 750 + 83 = -467.
        let objective = parse(" AWRT1*2 - 1e3 * util + awrt + 3");
        assert_eq!(objective.evaluate(&metrics()), Ok(-467.0));
        assert_eq!(objective.to_string(), "2 * AWRT1 - 1000 * UTIL + AWRT + 3");
        assert_eq!(parse(&objective.to_string()), objective);
        // A leading sign and products of numbers: -(0.5 * 2) * 50 = -50.
        assert_eq!(parse("-0.5 * 2 * AWRT2").evaluate(&metrics()), Ok(-50.0));
        assert_eq!(parse("-0.5 * 2 * AWRT2").to_string(), "-AWRT2");
        assert_eq!(parse("7").to_string(), "7");
        // serde goes through the text.
        let json = serde_json::to_string(&Objective::paper()).unwrap();
        assert_eq!(json, "\"10 * AWRT1 + 4 * AWRT2\"");
        assert_eq!(
            serde_json::from_str::<Objective>(&json).unwrap(),
            Objective::paper()
        );
        assert!(serde_json::from_str::<Objective>("\"AWRT1 *\"").is_err());
    }

    #[test]
    fn parse_errors_point_at_the_problem() {
        let error = |text: &str| text.parse::<Objective>().unwrap_err().to_string();
        assert_eq!(
            error("10 * AWRT0"),
            "objective \"10 * AWRT0\", column 6: unknown metric \"AWRT0\", expected AWRT, AWRT1, AWRT2, ... or UTIL"
        );
        assert_eq!(
            error("AWRT1 AWRT2"),
            "objective \"AWRT1 AWRT2\", column 7: expected \"+\", \"-\" or \"*\""
        );
        assert_eq!(
            error("AWRT1 * UTIL"),
            "objective \"AWRT1 * UTIL\", column 9: a term can hold one metric only (the objective is a weighted sum)"
        );
        assert_eq!(
            error("4 + / 2"),
            "objective \"4 + / 2\", column 5: unexpected character '/'"
        );
        assert_eq!(
            error("1..2"),
            "objective \"1..2\", column 1: \"1..2\" is not a number"
        );
        assert_eq!(
            error(""),
            "objective \"\", column 1: expected a number or a metric, found the end"
        );
        assert_eq!(
            error("4 + + 2"),
            "objective \"4 + + 2\", column 5: expected a number or a metric"
        );
    }

    #[test]
    fn undefined_metrics_are_errors() {
        let error = |text: &str| {
            text.parse::<Objective>()
                .unwrap()
                .evaluate(&metrics())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("AWRT3"),
            "AWRT3 is undefined: user group 3 consumed nothing"
        );
        assert_eq!(
            error("AWRT4"),
            "AWRT4 is undefined: there are 3 user groups"
        );
        let mut idle = metrics();
        idle.util = None;
        assert!(
            "UTIL"
                .parse::<Objective>()
                .unwrap()
                .evaluate(&idle)
                .is_err()
        );
    }
}

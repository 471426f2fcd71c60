//! The parameter vector the evolution strategy sees: one sorting criterion
//! per scheduling situation, their parameters side by side.

use std::fmt;
use std::str::FromStr;

use schedsim_policies::{Criterion, GreedyError, GreedyParameters, SortingCriterion};
use serde::{Deserialize, Serialize};

/// The situations in vector order (the order of [`GreedyParameters`]'s
/// fields).
pub const SITUATIONS: [&str; 3] = ["weekend", "weekday_day", "weekday_night"];

/// Which criterion each situation uses: the shape of an individual.
///
/// Written `f2` (one criterion for all three situations) or
/// `f1,f2,f3` (weekend, week day 8-18, week day 18-8).
///
/// ```
/// use schedsim_train::ParameterLayout;
///
/// let layout: ParameterLayout = "f2".parse()?;
/// // a, b, w1..w5, K1..K5 per situation.
/// assert_eq!(layout.len(), 36);
/// assert_eq!(layout.names()[13], "weekday_day.b");
/// let mixed: ParameterLayout = "f1,f3,f2".parse()?;
/// assert_eq!(mixed.len(), 35); // f3 has no b
/// assert_eq!(mixed.to_string(), "f1,f3,f2");
/// # Ok::<(), schedsim_train::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParameterLayout {
    /// Weekend, week day 8-18, week day 18-8.
    pub criteria: [Criterion; 3],
}

/// A criteria list that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "criteria `{0}`: expected one criterion or three separated by commas, each f1, f2, f3 or f4"
)]
pub struct LayoutError(pub String);

fn criterion_name(criterion: Criterion) -> &'static str {
    match criterion {
        Criterion::F1 => "f1",
        Criterion::F2 => "f2",
        Criterion::F3 => "f3",
        Criterion::F4 => "f4",
    }
}

impl FromStr for ParameterLayout {
    type Err = LayoutError;

    fn from_str(text: &str) -> Result<Self, LayoutError> {
        let bad = || LayoutError(text.to_owned());
        let names: Vec<Criterion> = text
            .split(',')
            .map(|name| {
                Criterion::ALL
                    .into_iter()
                    .find(|&c| criterion_name(c).eq_ignore_ascii_case(name.trim()))
                    .ok_or_else(bad)
            })
            .collect::<Result<_, _>>()?;
        let criteria = match names[..] {
            [one] => [one; 3],
            [a, b, c] => [a, b, c],
            _ => return Err(bad()),
        };
        Ok(Self { criteria })
    }
}

impl fmt::Display for ParameterLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.criteria.map(criterion_name);
        if a == b && b == c {
            f.write_str(a)
        } else {
            write!(f, "{a},{b},{c}")
        }
    }
}

impl ParameterLayout {
    /// The number of parameters: 12 per situation, 11 for f3 (33 to 36).
    pub fn len(&self) -> usize {
        self.criteria.iter().map(|c| c.parameter_count()).sum()
    }

    /// Whether there are no parameters (never).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bounds of every parameter (section IV-C: w, a, b in [0, 1], K in
    /// [0, 5]).
    pub fn bounds(&self) -> Vec<(f64, f64)> {
        self.criteria.iter().flat_map(|c| c.bounds()).collect()
    }

    /// Every parameter's name, `situation.parameter` (e.g. `weekend.w1`).
    pub fn names(&self) -> Vec<String> {
        let mut names = Vec::with_capacity(self.len());
        for (situation, criterion) in SITUATIONS.iter().zip(self.criteria) {
            names.push(format!("{situation}.a"));
            if criterion.has_b() {
                names.push(format!("{situation}.b"));
            }
            names.extend((1..=5).map(|i| format!("{situation}.w{i}")));
            names.extend((1..=5).map(|i| format!("{situation}.K{i}")));
        }
        names
    }

    /// The Greedy parameters of a vector.
    ///
    /// # Errors
    /// A vector of the wrong length or a value out of bounds.
    pub fn parameters(&self, values: &[f64]) -> Result<GreedyParameters, GreedyError> {
        let mut criteria = Vec::with_capacity(3);
        let mut rest = values;
        for criterion in self.criteria {
            let n = criterion.parameter_count().min(rest.len());
            criteria.push(SortingCriterion::from_vector(criterion, &rest[..n])?);
            rest = &rest[n..];
        }
        if !rest.is_empty() {
            return Err(GreedyError::VectorLength {
                criterion: self.criteria[2],
                expected: self.criteria[2].parameter_count(),
                found: self.criteria[2].parameter_count() + rest.len(),
            });
        }
        Ok(GreedyParameters {
            weekend: criteria[0],
            weekday_day: criteria[1],
            weekday_night: criteria[2],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_map_to_parameters_in_situation_order() {
        let layout: ParameterLayout = "f2,f3,f4".parse().unwrap();
        // 12 + 11 + 12.
        assert_eq!(layout.len(), 35);
        let values: Vec<f64> = (0..35).map(|i| f64::from(i) / 100.0).collect();
        let params = layout.parameters(&values).unwrap();
        // Weekend f2: a = values[0], b = values[1], w = 2..7, K = 7..12.
        assert_eq!(params.weekend.params().a, 0.0);
        assert_eq!(params.weekend.params().k[4], 0.11);
        // Day f3: a = values[12], no b, w = 13..18.
        assert_eq!(params.weekday_day.params().a, 0.12);
        assert_eq!(params.weekday_day.params().w[0], 0.13);
        // Night f4 starts at 23.
        assert_eq!(params.weekday_night.params().b, 0.24);
        assert_eq!(layout.names()[23], "weekday_night.a");
        assert!(layout.parameters(&values[..34]).is_err());
        assert!(
            layout
                .parameters(&[values.clone(), vec![0.0]].concat())
                .is_err()
        );
        assert_eq!(
            "f5".parse::<ParameterLayout>().unwrap_err().to_string(),
            "criteria `f5`: expected one criterion or three separated by commas, each f1, f2, f3 or f4"
        );
        assert!("f1,f2".parse::<ParameterLayout>().is_err());
    }
}

//! The `--estimate` / `--estimates` models: per-job (exact, f-model) or the
//! Tsafrir-Etsion-Feitelson whole-workload model, and how they fill the
//! requested time (field 9) of a workload.
//!
//! Syntax:
//! - `exact`, `f:F`, either optionally followed by `,rounded`;
//! - `tsafrir`, or `tsafrir:` followed by comma-separated settings:
//!   `max=D` (the site's largest estimate; default: the longest runtime
//!   rounded up to a whole hour, at least 1 h), `hint=D@S` (a known popular
//!   estimate used by share S of the jobs; repeatable, at most 20),
//!   `bins=linear|power|K` (the bin-count model, or K bins) and `truncate`
//!   (cut runtimes above the maximum to it instead of refusing).
//!
//! Durations D are seconds, or a number followed by `s`, `m`, `h` or `d`,
//! up to 10,000 days (`max`: from one hour). Only `hint` may be given more
//! than once; a repeated `max`, `bins` or `truncate` is refused, as a
//! repeated policy option is.

use lublin_model::{
    BinCount, EstimateModelError, EstimateParams, TsafrirParams, tsafrir_estimates,
};
use workload_format::{MAX_TIME, Record, RequestType};

/// An estimate model as the command line names it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EstimateModelChoice {
    /// Drawn per job from its runtime (exact or f-model).
    PerJob(EstimateParams),
    /// The Tsafrir-Etsion-Feitelson model over the whole workload.
    Tsafrir(TsafrirChoice),
}

/// The Tsafrir model's settings; the maximum may wait for the runtimes.
#[derive(Debug, Clone, PartialEq)]
pub struct TsafrirChoice {
    /// The maximum estimate, if given.
    pub max: Option<u64>,
    /// The model's parameters (their maximum is replaced by the resolved
    /// one).
    pub params: TsafrirParams,
}

impl TsafrirChoice {
    /// The parameters for a workload whose longest runtime is `longest`:
    /// the given maximum, or `longest` rounded up to a whole hour (at least
    /// one hour).
    pub fn resolve(&self, longest: u64) -> TsafrirParams {
        let max = self
            .max
            .unwrap_or_else(|| longest.div_ceil(3_600).max(1).saturating_mul(3_600));
        let mut params = self.params.clone();
        params.max_estimate = max;
        params
    }
}

/// What filling the estimates did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[non_exhaustive]
pub struct EstimatesReport {
    /// Jobs that got an estimate.
    pub assigned: u64,
    /// Jobs left alone: their runtime is unknown.
    pub unknown_runtime: u64,
    /// Runtimes cut to the maximum (`truncate`).
    pub truncated: u64,
    /// Per-job estimates above [`workload_format::MAX_TIME`] (2^53 s, a
    /// runtime near it times the f-model's factor or rounded up to an
    /// hour), set to it: still at least the runtime, which the reader
    /// bounds the same way.
    pub clamped: u64,
    /// The Tsafrir model's maximum estimate, when that model ran.
    pub max_estimate: Option<u64>,
}

/// Replaces the requested time of every job of `records` with a known
/// runtime by the model's estimate (CWF command lines are not jobs). Per-job
/// models draw the `k`-th job's estimate from stream `k` of `seed`; an
/// estimate above [`workload_format::MAX_TIME`] is set to it and counted in
/// [`EstimatesReport::clamped`].
///
/// # Errors
/// The Tsafrir model's errors (a runtime above the maximum, hints that do
/// not fit, a histogram that cannot cover the runtimes).
pub fn fill_estimates(
    records: &mut [Record],
    model: &EstimateModelChoice,
    seed: u64,
) -> Result<EstimatesReport, EstimateModelError> {
    let is_job = |r: &Record| r.cwf.is_none_or(|c| c.request_type == RequestType::Submit);
    let mut report = EstimatesReport::default();
    match model {
        EstimateModelChoice::PerJob(params) => {
            for r in records.iter_mut().filter(|r| is_job(r)) {
                match r.run_time {
                    Some(runtime) => {
                        let mut estimate = params.estimate_for(runtime, seed, report.assigned);
                        if estimate > MAX_TIME {
                            estimate = MAX_TIME;
                            report.clamped += 1;
                        }
                        r.requested_time = Some(estimate);
                        report.assigned += 1;
                    }
                    None => report.unknown_runtime += 1,
                }
            }
        }
        EstimateModelChoice::Tsafrir(choice) => {
            let longest = records
                .iter()
                .filter(|r| is_job(r))
                .filter_map(|r| r.run_time)
                .max()
                .unwrap_or(0);
            let params = choice.resolve(longest);
            let done = lublin_model::tsafrir_records(records, &params, seed)?;
            report.assigned = done.assigned;
            report.unknown_runtime = done.unknown_runtime;
            report.truncated = done.truncated;
            report.max_estimate = Some(params.max_estimate);
        }
    }
    Ok(report)
}

/// Estimates of the Tsafrir model for `runtimes` (for generators that
/// stream their records).
///
/// # Errors
/// As [`fill_estimates`].
pub fn tsafrir_for_runtimes(
    choice: &TsafrirChoice,
    runtimes: &[u64],
    seed: u64,
) -> Result<(TsafrirParams, Vec<u64>), EstimateModelError> {
    let params = choice.resolve(runtimes.iter().copied().max().unwrap_or(0));
    let modelled = tsafrir_estimates(&params, runtimes, seed)?;
    Ok((params, modelled.estimates))
}

/// A header note naming the model, for the file it fills.
pub fn estimates_note(model: &EstimateModelChoice, report: &EstimatesReport, seed: u64) -> String {
    match model {
        EstimateModelChoice::PerJob(p) => format!(
            "requested times (field 9) from the {} estimate model, seed {seed}{}",
            per_job_name(p),
            if report.clamped > 0 {
                format!(
                    ", {} above the largest time allowed set to it (2^53 s)",
                    report.clamped
                )
            } else {
                String::new()
            }
        ),
        EstimateModelChoice::Tsafrir(choice) => {
            let hints: Vec<String> = choice
                .params
                .hints
                .iter()
                .map(|h| format!("{} s at {}", h.time, h.share))
                .collect();
            format!(
                "requested times (field 9) from the Tsafrir-Etsion-Feitelson 2005 estimate model, \
                 maximum {} s{}{}, seed {seed}",
                report.max_estimate.unwrap_or(0),
                if hints.is_empty() {
                    String::new()
                } else {
                    format!(", hints {}", hints.join(", "))
                },
                if report.truncated > 0 {
                    format!(", {} runtimes truncated to the maximum", report.truncated)
                } else {
                    String::new()
                }
            )
        }
    }
}

fn per_job_name(p: &EstimateParams) -> String {
    let model = match p.model {
        lublin_model::EstimateModel::Exact => "exact".to_owned(),
        lublin_model::EstimateModel::FModel { f } => format!("f-model (f = {f})"),
    };
    if p.round_to_popular {
        format!("{model}, rounded up to popular values,")
    } else {
        model
    }
}

/// Parses `exact`, `f:F` (optionally `,rounded`) or `tsafrir[:SETTINGS]`.
///
/// # Errors
/// A message for clap's "invalid value" line.
pub fn parse_estimate_model(text: &str) -> Result<EstimateModelChoice, String> {
    if text == "tsafrir" {
        return Ok(EstimateModelChoice::Tsafrir(TsafrirChoice {
            max: None,
            params: TsafrirParams::new(3_600),
        }));
    }
    if let Some(settings) = text.strip_prefix("tsafrir:") {
        return parse_tsafrir(settings).map(EstimateModelChoice::Tsafrir);
    }
    // Name every model this option takes, the whole-workload one too.
    parse_per_job(text)
        .map(EstimateModelChoice::PerJob)
        .map_err(|_| {
            "expected exact or f:F (F >= 1), optionally followed by ,rounded, or \
         tsafrir[:max=D,hint=D@S,bins=linear|power|K]"
                .to_owned()
        })
}

/// `exact`, `f:F`, either followed by `,rounded`.
pub(crate) fn parse_per_job(text: &str) -> Result<EstimateParams, String> {
    const EXPECTED: &str = "expected exact or f:F (F >= 1), optionally followed by ,rounded";
    let (model, rounded) = match text.strip_suffix(",rounded") {
        Some(model) => (model, true),
        None => (text, false),
    };
    let params = if model == "exact" {
        EstimateParams::EXACT
    } else {
        match model.strip_prefix("f:").map(str::parse::<f64>) {
            Some(Ok(f)) if f.is_finite() && f >= 1.0 => EstimateParams::f_model(f),
            _ => return Err(EXPECTED.to_owned()),
        }
    };
    Ok(if rounded { params.rounded() } else { params })
}

fn parse_tsafrir(settings: &str) -> Result<TsafrirChoice, String> {
    let mut max = None;
    let mut params = TsafrirParams::new(3_600);
    let mut seen = Vec::new();
    for setting in settings.split(',') {
        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
        // As policy specs do: a repeated setting is refused, not the last
        // one taken (hints add up, so they may repeat).
        if key != "hint" {
            if seen.contains(&key) {
                return Err(format!(
                    "tsafrir setting '{key}' is given twice (only hint may repeat)"
                ));
            }
            seen.push(key);
        }
        match key {
            "max" => max = Some(duration(value, "max", 3_600)?),
            "hint" => {
                let (time, share) = value
                    .split_once('@')
                    .ok_or_else(|| format!("hint '{value}': expected DURATION@SHARE"))?;
                let share = share
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1.0)
                    .ok_or_else(|| format!("hint share '{share}': expected a number in (0, 1]"))?;
                params = params.hint(duration(time, "hint", 1)?, share);
            }
            "bins" => {
                params.bin_count = match value {
                    "linear" => BinCount::Linear,
                    "power" => BinCount::Power {
                        a: 0.653566,
                        b: 0.547761,
                    },
                    k => BinCount::Fixed(k.parse::<u32>().ok().filter(|&k| k > 0).ok_or_else(
                        || format!("bins '{k}': expected linear, power or a positive count"),
                    )?),
                }
            }
            "truncate" if value.is_empty() => params = params.truncate_runtimes(),
            _ => {
                return Err(format!(
                    "tsafrir setting '{setting}': expected max=D, hint=D@S, bins=linear|power|K \
                     or truncate"
                ));
            }
        }
    }
    // Check what can be checked before the maximum is known.
    let mut check = params.clone();
    check.max_estimate = max.unwrap_or(lublin_model::MAX_ESTIMATE_LIMIT);
    check.validate().map_err(|e| e.to_string())?;
    Ok(TsafrirChoice { max, params })
}

/// Seconds, or a number followed by s, m, h or d, from `min` to
/// [`lublin_model::MAX_ESTIMATE_LIMIT`] seconds; `what` names the setting
/// in the range message.
fn duration(text: &str, what: &str, min: u64) -> Result<u64, String> {
    let (number, unit) = match text.char_indices().last() {
        Some((i, c @ ('s' | 'm' | 'h' | 'd'))) => (&text[..i], c),
        _ => (text, 's'),
    };
    let factor = match unit {
        'm' => 60.0,
        'h' => 3_600.0,
        'd' => 86_400.0,
        _ => 1.0,
    };
    let max = lublin_model::MAX_ESTIMATE_LIMIT;
    let seconds = number
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            format!("duration '{text}': expected seconds or a number followed by s, m, h or d")
        })?
        * factor;
    // Rounded as it is kept; the product may overflow to infinity, which
    // is out of range too.
    let rounded = seconds.round();
    if !(rounded >= min as f64 && rounded <= max as f64) {
        return Err(format!(
            "{what} '{text}' is out of range: expected {min} s to {max} s ({} days)",
            max / 86_400
        ));
    }
    Ok(rounded as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax() {
        assert_eq!(
            parse_estimate_model("f:3,rounded"),
            Ok(EstimateModelChoice::PerJob(
                EstimateParams::f_model(3.0).rounded()
            ))
        );
        let EstimateModelChoice::Tsafrir(t) = parse_estimate_model("tsafrir").unwrap() else {
            panic!("tsafrir")
        };
        assert_eq!(t.max, None);
        // 1,000 s rounds up to one hour; 9,000 s to three hours.
        assert_eq!(t.resolve(1_000).max_estimate, 3_600);
        assert_eq!(t.resolve(9_000).max_estimate, 10_800);
        let EstimateModelChoice::Tsafrir(t) =
            parse_estimate_model("tsafrir:max=18h,hint=18h@0.2,hint=90m@0.05,bins=120,truncate")
                .unwrap()
        else {
            panic!("tsafrir")
        };
        assert_eq!(t.max, Some(64_800));
        assert_eq!(t.params.hints.len(), 2);
        assert_eq!(
            (t.params.hints[1].time, t.params.hints[1].share),
            (5_400, 0.05)
        );
        assert_eq!(t.params.bin_count, BinCount::Fixed(120));
        assert_eq!(t.params.over_maximum, lublin_model::OverMaximum::Truncate);
        for bad in [
            "tsafrir:max=10m",
            "tsafrir:max=x",
            "tsafrir:hint=1h",
            "tsafrir:hint=1h@2",
            "tsafrir:bins=0",
            "tsafrir:speed=3",
            "tsafrir:max=2h,hint=3h@0.1",
            "f:0.5",
        ] {
            assert!(parse_estimate_model(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_estimate_model("tsafrir:max=10m").unwrap_err(),
            "max '10m' is out of range: expected 3600 s to 864000000 s (10000 days)"
        );
        // 99999999999 h = 3.6e14 s, far above 10,000 days = 864,000,000 s.
        assert_eq!(
            parse_estimate_model("tsafrir:max=99999999999h").unwrap_err(),
            "max '99999999999h' is out of range: expected 3600 s to 864000000 s (10000 days)"
        );
        assert_eq!(
            parse_estimate_model("tsafrir:max=0").unwrap_err(),
            "max '0' is out of range: expected 3600 s to 864000000 s (10000 days)"
        );
        // 0.4 s rounds to 0: below a hint's 1 s.
        assert_eq!(
            parse_estimate_model("tsafrir:hint=0.4@0.1").unwrap_err(),
            "hint '0.4' is out of range: expected 1 s to 864000000 s (10000 days)"
        );
        // The limits themselves are accepted: 1 h and 10,000 d.
        for max in ["1h", "10000d"] {
            assert!(parse_estimate_model(&format!("tsafrir:max={max}")).is_ok());
        }
        assert_eq!(
            parse_estimate_model("tsafrir:max=1y").unwrap_err(),
            "duration '1y': expected seconds or a number followed by s, m, h or d"
        );
        // A repeated setting is refused; hints may repeat.
        assert_eq!(
            parse_estimate_model("tsafrir:max=18h,max=2h").unwrap_err(),
            "tsafrir setting 'max' is given twice (only hint may repeat)"
        );
        assert_eq!(
            parse_estimate_model("tsafrir:truncate,bins=4,truncate").unwrap_err(),
            "tsafrir setting 'truncate' is given twice (only hint may repeat)"
        );
        assert!(parse_estimate_model("tsafrir:hint=1h@0.1,hint=2h@0.1").is_ok());
    }

    #[test]
    fn per_job_models_fill_known_runtimes_only() {
        let mut records: Vec<Record> = (1..=4)
            .map(|i| {
                let mut r = Record::unknown(i);
                r.run_time = (i != 2).then_some(i * 100);
                r
            })
            .collect();
        let model = EstimateModelChoice::PerJob(EstimateParams::EXACT.rounded());
        let report = fill_estimates(&mut records, &model, 1).unwrap();
        assert_eq!((report.assigned, report.unknown_runtime), (3, 1));
        // 100, 300 and 400 s round up to 5 minutes; job 2 keeps no estimate.
        let got: Vec<Option<u64>> = records.iter().map(|r| r.requested_time).collect();
        assert_eq!(got, [Some(300), None, Some(300), Some(900)]);
    }

    #[test]
    fn estimates_above_the_largest_time_are_set_to_it_and_counted() {
        // Runtime 2^53 s: f:2 draws 2^53 x U(1, 2), above 2^53 unless the
        // draw is exactly 1; rounded up to a whole hour, 2^53 = 9007199254740992
        // s becomes 2501999792984 h = 9007199254742400 s, 1,408 s above.
        // Runtime 100 s stays 300 s (5 minutes) either way.
        for model in [
            EstimateParams::f_model(2.0),
            EstimateParams::EXACT.rounded(),
        ] {
            let mut records = vec![Record::unknown(1), Record::unknown(2)];
            records[0].run_time = Some(MAX_TIME);
            records[1].run_time = Some(100);
            let model = EstimateModelChoice::PerJob(model);
            let report = fill_estimates(&mut records, &model, 1).unwrap();
            assert_eq!((report.assigned, report.clamped), (2, 1), "{model:?}");
            assert_eq!(records[0].requested_time, Some(MAX_TIME));
            assert!(records[1].requested_time >= Some(100));
            assert!(
                estimates_note(&model, &report, 1)
                    .ends_with("seed 1, 1 above the largest time allowed set to it (2^53 s)")
            );
        }
    }
}

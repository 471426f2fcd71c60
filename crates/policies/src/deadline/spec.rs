//! `qops`, `msb` and `mrt` from policy specs: an option for every constant
//! the paper leaves open and for every place where its figures and prose
//! disagree.

use schedsim_sim_core::Policy;

use super::plan::{
    Acceptance, Heuristic, MAX_BACKTRACKS, MAX_K, MrtConfig, MsbConfig, MsbCost, MsbOrder, NewJob,
    OnFailure, QopsConfig,
};
use super::policy::{Admission, DeadlineAdmission};
use crate::error::SpecError;
use crate::spec::{Options, PolicySpec};

const HEURISTIC: (&str, &str) = (
    "heuristic",
    "order of the temporary list: edf (earliest deadline first, default) or llf (least laxity first)",
);

/// The options of `qops`.
pub(crate) const QOPS_OPTIONS: &[(&str, &str)] = &[
    (
        "k",
        "the K-factor: reorderings allowed per insertion option (default 5, at most 10000; the paper leaves it open)",
    ),
    HEURISTIC,
    (
        "new-job",
        "first (reserved before the list, the prose; default) or sorted (into the list, Fig. 3)",
    ),
    (
        "on-fail",
        "next (try the next insertion option, the prose; default) or reject (at the first failed option, Fig. 3's break)",
    ),
    (
        "accept",
        "at-most-k (violations <= K, the prose; default) or fewer-than-k (< K, Fig. 3 step B)",
    ),
];

/// The options of `msb`.
pub(crate) const MSB_OPTIONS: &[(&str, &str)] = &[
    (
        "order",
        "re-placement order behind the insertion point: scheduled (Fig. 1, default) or heuristic (the prose)",
    ),
    HEURISTIC,
    (
        "cost",
        "price of a feasible schedule: wait (total wait of the planned jobs, default) or last-end (the last planned end)",
    ),
];

/// The options of `mrt`.
pub(crate) const MRT_OPTIONS: &[(&str, &str)] = &[
    (
        "backtracks",
        "Bmax: backtracks before the new job is rejected (default 100, at most 1000000; the paper leaves it open)",
    ),
    HEURISTIC,
];

/// A search bound from 0 to `max` (the searches' cost grows with it, so
/// the range stops where one admission would take seconds).
fn count(options: &Options<'_>, key: &str, target: &mut u32, max: u32) -> Result<(), SpecError> {
    if let Some(value) = options.whole(key, (0, max.into()), "a whole number (0 or more)")? {
        *target = value;
    }
    Ok(())
}

fn heuristic(options: &Options<'_>, target: &mut Heuristic) -> Result<(), SpecError> {
    options.choice(
        "heuristic",
        target,
        &[("edf", Heuristic::Edf), ("llf", Heuristic::Llf)],
    )
}

/// Builds `qops`, `msb` or `mrt`; `None` for other names.
pub(crate) fn build(
    spec: &PolicySpec,
    options: &Options<'_>,
) -> Result<Option<Box<dyn Policy + Send>>, SpecError> {
    let admission = match spec.name.as_str() {
        "qops" => {
            let mut config = QopsConfig::default();
            count(options, "k", &mut config.k, MAX_K)?;
            heuristic(options, &mut config.heuristic)?;
            options.choice(
                "new-job",
                &mut config.new_job,
                &[("first", NewJob::First), ("sorted", NewJob::Sorted)],
            )?;
            options.choice(
                "on-fail",
                &mut config.on_failure,
                &[
                    ("next", OnFailure::NextOption),
                    ("reject", OnFailure::Reject),
                ],
            )?;
            options.choice(
                "accept",
                &mut config.acceptance,
                &[
                    ("at-most-k", Acceptance::AtMostK),
                    ("fewer-than-k", Acceptance::FewerThanK),
                ],
            )?;
            Admission::Qops(config)
        }
        "msb" => {
            let mut config = MsbConfig::default();
            options.choice(
                "order",
                &mut config.order,
                &[
                    ("scheduled", MsbOrder::Scheduled),
                    ("heuristic", MsbOrder::Heuristic),
                ],
            )?;
            heuristic(options, &mut config.heuristic)?;
            options.choice(
                "cost",
                &mut config.cost,
                &[("wait", MsbCost::TotalWait), ("last-end", MsbCost::LastEnd)],
            )?;
            Admission::Msb(config)
        }
        "mrt" => {
            let mut config = MrtConfig::default();
            count(
                options,
                "backtracks",
                &mut config.max_backtracks,
                MAX_BACKTRACKS,
            )?;
            heuristic(options, &mut config.heuristic)?;
            Admission::Mrt(config)
        }
        _ => return Ok(None),
    };
    Ok(Some(Box::new(DeadlineAdmission::new(
        spec.to_string(),
        admission,
    ))))
}

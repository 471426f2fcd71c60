//! `scojo-pect` and `scojo-pect-opt` from policy specs: an option for every
//! constant.

use schedsim_sim_core::Policy;

use super::config::{
    GroupParams, OptimiserConfig, Rounding, ScojoConfig, SearchOrder, Selection, SliceEnd, Tail,
    WorkCriterion,
};
use super::policy::ScojoPect;
use crate::error::SpecError;
use crate::spec::{Options, PolicySpec};
use schedsim_sim_core::MAX_TIME;

macro_rules! base_options {
    () => {
        [
            (
                "short-below",
                "jobs with a runtime (estimate) below this many seconds are short (default 600; Table 4's medium row suggests 60)",
            ),
            (
                "medium-below",
                "below this many seconds medium, otherwise long (default 10800)",
            ),
            (
                "cycle",
                "seconds of one cycle of long, short and medium slices (default 3600; not stated in the thesis)",
            ),
            (
                "min-slice",
                "every slice lasts at least this many seconds, the cycle growing to fit (default 0: the shares as given; ours, so that with smart=off and switch overheads the 0.5% short slice can progress)",
            ),
            ("long-share", "share of the cycle for the long slice (default 0.73)"),
            (
                "medium-share",
                "share for the medium slice (default 0.265); the short slice has the rest",
            ),
            (
                "slice-end",
                "at a slice's end suspend the jobs of its class (class, default) or all running jobs but the next slice's (all)",
            ),
            (
                "smart",
                "smart backfilling of other classes' suspended and waiting jobs: on (default) or off",
            ),
        ]
    };
}

/// The options of `scojo-pect`.
pub(crate) const SCOJO_OPTIONS: &[(&str, &str)] = &base_options!();

const OPTIMISER_OPTIONS: [(&str, &str); 32] = [
    (
        "long-min-jobs",
        "a long group needs this many waiting long jobs (default 5)",
    ),
    (
        "medium-min-jobs",
        "a medium group needs this many (default 10)",
    ),
    (
        "long-max-jobs",
        "at most this many jobs in a long group (default 30)",
    ),
    (
        "medium-max-jobs",
        "at most this many in a medium group (default 20)",
    ),
    (
        "long-size-factor",
        "a long group's total size must exceed this many machines (default 2)",
    ),
    (
        "medium-size-factor",
        "the same for medium groups (default 1.5)",
    ),
    (
        "long-lambda",
        "lambda of the long work criterion (default 1)",
    ),
    (
        "medium-lambda",
        "lambda of the medium work criterion (default 2)",
    ),
    (
        "long-mean-runtime",
        "R of the long work criterion, seconds (default 15000)",
    ),
    (
        "medium-mean-runtime",
        "R of the medium work criterion (default 800)",
    ),
    (
        "work-criterion",
        "work (default: sum(size x runtime) / machine > lambda R, section 7.2) or mean-runtime (mean runtime < lambda R, section 6.1)",
    ),
    (
        "long-wide-size",
        "a long job is long-wide from this fraction of the machine (default 0.25)",
    ),
    ("medium-wide-size", "the same for medium jobs (default 0.1)"),
    (
        "long-wide-runtime",
        "... and this runtime, seconds (default 15000)",
    ),
    (
        "medium-wide-runtime",
        "the same for medium jobs (default 800)",
    ),
    (
        "min-wide",
        "level 1 runs with at least this many long-wide jobs (default 3; section 7.3's 'greater than 3' is 4)",
    ),
    (
        "max-wide",
        "level 1 permutes at most this many (default 6, at most 8)",
    ),
    ("level1", "the level-1 search: on (default) or off"),
    ("level2", "the level-2 search: on (default) or off"),
    (
        "budget",
        "schedules evaluated per group at most, both levels (default 10000; budget x nodes at most 10000000)",
    ),
    (
        "nodes",
        "search-tree nodes (placements) allowed per schedule of the budget (default 50; ours, so that every search ends)",
    ),
    (
        "split",
        "a group of the maximum size is split into sub-groups of at most this many jobs (default 10)",
    ),
    ("search", "level 2's order: lds (default), dds or dfs"),
    (
        "bnb",
        "branch and bound on total bounded slowdown: on (default) or off",
    ),
    (
        "bound",
        "BOUND of the bounded slowdown, seconds (default 600)",
    ),
    (
        "bsld",
        "the bounded slowdown rounded up (ceil, default, as printed) or not (real)",
    ),
    (
        "shift",
        "force-shift a job into a hole at least runtime / shift long (default 1.5; 0 = off)",
    ),
    (
        "select",
        "best-of-3 rule: tolerant (default), literal (as printed) or min-bsld",
    ),
    ("alpha", "makespan factor of the selection (default 1.1)"),
    ("beta", "utilization factor (default 0.95)"),
    ("gamma", "response factor (default 1.1)"),
    (
        "tail",
        "plan jobs ending after the group finish time: release (default) or keep",
    ),
];

const FINISH_OPTIONS: [(&str, &str); 4] = [
    (
        "delta",
        "delta of the group finish time (default 0.1; not given)",
    ),
    (
        "min-util",
        "minUtil of the group finish time (default 0.75; not given)",
    ),
    (
        "dynamic",
        "backfilling upon dynamic submission: on (default) or off",
    ),
    (
        "dynamic-fit",
        "on: backfill an arrival upon submission only if it ends before the slice does, so it is never suspended (a reading of section 6.6.2's garbled sentence); off (default): it runs to the slice's end and is then suspended",
    ),
];

const fn all_options() -> [(&'static str, &'static str); 44] {
    let base = base_options!();
    let mut all = [("", ""); 44];
    let mut i = 0;
    while i < base.len() {
        all[i] = base[i];
        i += 1;
    }
    let mut j = 0;
    while j < OPTIMISER_OPTIONS.len() {
        all[i + j] = OPTIMISER_OPTIONS[j];
        j += 1;
    }
    let mut k = 0;
    while k < FINISH_OPTIONS.len() {
        all[i + j + k] = FINISH_OPTIONS[k];
        k += 1;
    }
    all
}

const ALL_OPTIONS: [(&str, &str); 44] = all_options();

/// The options of `scojo-pect-opt`.
pub(crate) const OPT_OPTIONS: &[(&str, &str)] = &ALL_OPTIONS;

type Built = Box<dyn Policy + Send>;

/// Builds `scojo-pect` or `scojo-pect-opt`; `None` for any other name.
pub(crate) fn build(spec: &PolicySpec, options: &Options<'_>) -> Result<Option<Built>, SpecError> {
    let optimise = match spec.name.as_str() {
        "scojo-pect" => false,
        "scojo-pect-opt" => true,
        _ => return Ok(None),
    };
    let config = config(options, optimise)?;
    Ok(Some(Box::new(ScojoPect::new(config, spec.to_string()))))
}

/// A whole-number option in `range`.
fn number<T: TryFrom<i128>>(
    options: &Options<'_>,
    key: &str,
    target: &mut T,
    range: (i128, i128),
    expected: &str,
) -> Result<(), SpecError> {
    if let Some(value) = options.whole(key, range, expected)? {
        *target = value;
    }
    Ok(())
}

/// A real-number option in `range` (`f64::MAX`: no upper bound).
fn fraction(
    options: &Options<'_>,
    key: &str,
    target: &mut f64,
    range: (f64, f64),
) -> Result<(), SpecError> {
    let expected = if range.1 == f64::MAX {
        "a number, 0 or more"
    } else {
        "a number from 0 to 1"
    };
    if let Some(value) = options.real(key, range, expected)? {
        *target = value;
    }
    Ok(())
}

fn switch(options: &Options<'_>, key: &str, target: &mut bool) -> Result<(), SpecError> {
    if let Some(value) = options.get(key) {
        *target = match value {
            "on" => true,
            "off" => false,
            _ => return Err(options.bad_value(key, value, "on or off")),
        };
    }
    Ok(())
}

const SECONDS: &str = "a whole number of seconds";
const JOBS: &str = "a number of jobs";

/// Seconds are added to simulated times: they stop at 2^53, as workload
/// times do.
const fn seconds(min: i128) -> (i128, i128) {
    (min, MAX_TIME as i128)
}
/// Counts of jobs: at most 2^32 - 1, more than any workload holds.
const fn jobs(min: i128) -> (i128, i128) {
    (min, u32::MAX as i128)
}
/// Reals from 0, finite.
const NON_NEGATIVE: (f64, f64) = (0.0, f64::MAX);
/// Shares and fractions.
const UNIT: (f64, f64) = (0.0, 1.0);

/// Reads the options over the thesis's defaults and checks the result.
pub(crate) fn config(options: &Options<'_>, optimise: bool) -> Result<ScojoConfig, SpecError> {
    let mut config = ScojoConfig::default();
    number(
        options,
        "short-below",
        &mut config.short_below,
        seconds(1),
        SECONDS,
    )?;
    number(
        options,
        "medium-below",
        &mut config.medium_below,
        seconds(2),
        SECONDS,
    )?;
    number(options, "cycle", &mut config.cycle, seconds(3), SECONDS)?;
    number(
        options,
        "min-slice",
        &mut config.min_slice,
        seconds(0),
        SECONDS,
    )?;
    fraction(options, "long-share", &mut config.long_share, UNIT)?;
    fraction(options, "medium-share", &mut config.medium_share, UNIT)?;
    options.choice(
        "slice-end",
        &mut config.slice_end,
        &[("class", SliceEnd::Class), ("all", SliceEnd::All)],
    )?;
    switch(options, "smart", &mut config.smart_backfill)?;
    if optimise {
        let mut o = OptimiserConfig::default();
        group_options(options, "long", &mut o.long)?;
        group_options(options, "medium", &mut o.medium)?;
        options.choice(
            "work-criterion",
            &mut o.work_criterion,
            &[
                ("work", WorkCriterion::Work),
                ("mean-runtime", WorkCriterion::MeanRuntime),
            ],
        )?;
        let s = &mut o.search;
        number(options, "min-wide", &mut s.min_wide, jobs(1), JOBS)?;
        number(options, "max-wide", &mut s.max_wide, (1, 8), JOBS)?;
        switch(options, "level1", &mut s.level1)?;
        switch(options, "level2", &mut s.level2)?;
        let many = (1, super::search::MAX_SEARCH_NODES.into());
        number(
            options,
            "budget",
            &mut s.budget,
            many,
            "a number of schedules",
        )?;
        number(
            options,
            "nodes",
            &mut s.nodes_per_schedule,
            many,
            "a number of nodes",
        )?;
        number(options, "split", &mut s.split, jobs(2), JOBS)?;
        options.choice(
            "search",
            &mut s.order,
            &[
                ("lds", SearchOrder::Lds),
                ("dds", SearchOrder::Dds),
                ("dfs", SearchOrder::Dfs),
            ],
        )?;
        switch(options, "bnb", &mut s.branch_and_bound)?;
        number(options, "bound", &mut s.bound, seconds(1), SECONDS)?;
        options.choice(
            "bsld",
            &mut s.rounding,
            &[("ceil", Rounding::Ceil), ("real", Rounding::Real)],
        )?;
        fraction(options, "shift", &mut s.shift, NON_NEGATIVE)?;
        options.choice(
            "select",
            &mut s.selection,
            &[
                ("tolerant", Selection::Tolerant),
                ("literal", Selection::Literal),
                ("min-bsld", Selection::MinBsld),
            ],
        )?;
        fraction(options, "alpha", &mut s.alpha, NON_NEGATIVE)?;
        fraction(options, "beta", &mut s.beta, NON_NEGATIVE)?;
        fraction(options, "gamma", &mut s.gamma, NON_NEGATIVE)?;
        fraction(options, "delta", &mut o.delta, UNIT)?;
        fraction(options, "min-util", &mut o.min_util, UNIT)?;
        options.choice(
            "tail",
            &mut o.tail,
            &[("release", Tail::Release), ("keep", Tail::Keep)],
        )?;
        switch(options, "dynamic", &mut o.dynamic_backfill)?;
        switch(options, "dynamic-fit", &mut o.dynamic_fit)?;
        config.optimiser = Some(o);
    }
    if let Err((key, expected)) = config.validate() {
        // A pair checked together is reported by the option the spec set
        // (long-min-jobs=40 against the default long-max-jobs).
        let sibling = match key {
            "long-max-jobs" => Some("long-min-jobs"),
            "medium-max-jobs" => Some("medium-min-jobs"),
            "delta" => Some("min-util"),
            "split" => Some("bound"),
            "budget" => Some("nodes"),
            "max-wide" => Some("min-wide"),
            "long-share" => Some("medium-share"),
            _ => None,
        };
        let key = match sibling {
            Some(other) if options.get(key).is_none() && options.get(other).is_some() => other,
            _ => key,
        };
        let value = options.get(key).unwrap_or("(its default)");
        return Err(options.bad_value(key, value, &expected));
    }
    Ok(config)
}

fn group_options(
    options: &Options<'_>,
    class: &str,
    params: &mut GroupParams,
) -> Result<(), SpecError> {
    let key = |name: &str| format!("{class}-{name}");
    number(
        options,
        &key("min-jobs"),
        &mut params.min_jobs,
        jobs(1),
        JOBS,
    )?;
    number(
        options,
        &key("max-jobs"),
        &mut params.max_jobs,
        jobs(1),
        JOBS,
    )?;
    fraction(
        options,
        &key("size-factor"),
        &mut params.size_factor,
        NON_NEGATIVE,
    )?;
    fraction(options, &key("lambda"), &mut params.lambda, NON_NEGATIVE)?;
    number(
        options,
        &key("mean-runtime"),
        &mut params.mean_runtime,
        seconds(0),
        SECONDS,
    )?;
    fraction(
        options,
        &key("wide-size"),
        &mut params.wide_size,
        NON_NEGATIVE,
    )?;
    number(
        options,
        &key("wide-runtime"),
        &mut params.wide_runtime,
        seconds(0),
        SECONDS,
    )?;
    Ok(())
}

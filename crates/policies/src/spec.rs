use std::fmt;
use std::str::FromStr;

use schedsim_sim_core::Policy;

use crate::backfill::{Backfill, Depth};
use crate::error::SpecError;
use crate::greedy_policy::Greedy;
use crate::los::{HeadRule, Los, LosConfig, LosMerit, LosVariant, TracebackOrder, Window};
use crate::number::{self, Refused};
use crate::order::QueueOrder;
use crate::slurm::{
    BackfillConf, MultifactorConfig, PriorityConf, SharesFile, SlurmBackfill, SlurmConf,
};

/// A policy named on the command line: `NAME[:key=value,...]`, e.g. `easy`,
/// `easy:order=sjf`, `backfill:depth=4,order=saf`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PolicySpec {
    /// The policy's name.
    pub name: String,
    /// Its options, in the order given.
    pub options: Vec<(String, String)>,
}

impl FromStr for PolicySpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let name = name.trim();
        if name.is_empty() {
            return Err(SpecError::Empty);
        }
        let mut options: Vec<(String, String)> = Vec::new();
        // `easy:` and `easy:order=sjf,` are refused as a repeat is: an
        // empty option is a slip (a value lost in a script), not nothing.
        let given = if text.contains(':') {
            rest.split(',').map(str::trim).collect()
        } else {
            Vec::new()
        };
        for option in given {
            if option.is_empty() {
                return Err(SpecError::EmptyOption {
                    spec: text.to_owned(),
                });
            }
            let Some((key, value)) = option.split_once('=') else {
                return Err(SpecError::MalformedOption {
                    spec: text.to_owned(),
                    option: option.to_owned(),
                });
            };
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || value.is_empty() {
                return Err(SpecError::MalformedOption {
                    spec: text.to_owned(),
                    option: option.to_owned(),
                });
            }
            if options.iter().any(|(k, _)| k == key) {
                return Err(SpecError::DuplicateOption {
                    spec: text.to_owned(),
                    option: key.to_owned(),
                });
            }
            options.push((key.to_owned(), value.to_owned()));
        }
        Ok(Self {
            name: name.to_owned(),
            options,
        })
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (index, (key, value)) in self.options.iter().enumerate() {
            let separator = if index == 0 { ':' } else { ',' };
            write!(f, "{separator}{key}={value}")?;
        }
        Ok(())
    }
}

impl PolicySpec {
    /// A name safe for a directory: the spec with `:`, `,` and path
    /// separators (of option values that are files, e.g.
    /// `greedy:params=runs/best.json`) turned into `_`, e.g.
    /// `easy_order=sjf`.
    pub fn dir_name(&self) -> String {
        self.to_string().replace([':', ',', '/', '\\'], "_")
    }
}

/// One policy the registry can build, for listings and `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyInfo {
    /// The name used in specs.
    pub name: &'static str,
    /// One line about it.
    pub summary: &'static str,
    /// Its options: (key, meaning and values).
    pub options: &'static [(&'static str, &'static str)],
}

const ORDER_OPTION: (&str, &str) = (
    "order",
    "queue order: fcfs (default), sjf (shortest estimate; the thesis' SPT), ssf (smallest size; the thesis' SJF), ljf (largest), saf (smallest size x estimate), multifactor (Slurm's priority, with conf=, shares=; not for conservative)",
);

const SLURM_CONF_OPTION: (&str, &str) = (
    "conf",
    "a slurm.conf: PriorityWeight*, PriorityMaxAge, PriorityDecayHalfLife, PriorityCalcPeriod, PriorityFavorSmall, PriorityFlags, SchedulerParameters bf_* (Slurm's defaults otherwise)",
);
const SHARES_OPTION: (&str, &str) = (
    "shares",
    "the shares file: account/user fair-share shares, partition and QOS priorities (default: 1 share per user under root)",
);
const CPUS_PER_NODE_OPTION: (&str, &str) = (
    "cpus-per-node",
    "processors per node, for the node half of the job size factor (default 1)",
);

/// The options of FCFS, EASY and depth-k: the order and, for
/// `order=multifactor`, its configuration.
const BACKFILL_OPTIONS: &[(&str, &str)] = &[
    ORDER_OPTION,
    SLURM_CONF_OPTION,
    SHARES_OPTION,
    CPUS_PER_NODE_OPTION,
];

pub(crate) const LOS_OPTIONS: &[(&str, &str)] = &[
    (
        "merit",
        "tie-break among equal-utilization sets: none (default), maxjobs, max-slowdown, \
         min-slowdown, max-response, min-response",
    ),
    (
        "traceback",
        "among tied sets: bypassed-first (default, nearer the head) or selected-first",
    ),
    (
        "lookahead",
        "how many waiting jobs the DP examines (default 50)",
    ),
];

/// EASY-D's and LOS-D's mechanism for dedicated jobs.
pub(crate) const DEDICATED_OPTION: (&str, &str) = (
    "dedicated",
    "dedicated jobs: profile (default: every waiting one reserved), head (the paper's \
     Algorithms 2-3: a due one moved to the batch head, one at a time, only the earliest \
     requested start frozen), head-literal (as head, plus lines 39-41: one more moved, in \
     front, when no processor is free) or head-all (every due one moved at once)",
);

/// `los-d` and `los-de`: the shared LOS options and `dedicated`.
const LOS_D_OPTIONS: &[(&str, &str)] = &[
    LOS_OPTIONS[0],
    LOS_OPTIONS[1],
    LOS_OPTIONS[2],
    DEDICATED_OPTION,
];

/// `los` and `los-basic`: the shared LOS options plus the thesis' readings.
const LOS_THESIS_OPTIONS: &[(&str, &str)] = &[
    (
        "merit",
        "tie-break among equal-utilization sets: none (default), maxjobs, max-slowdown, \
         min-slowdown, max-response, min-response",
    ),
    (
        "traceback",
        "among tied sets: bypassed-first (default, nearer the head) or selected-first",
    ),
    (
        "lookahead",
        "how many waiting jobs the DP examines (default 50)",
    ),
    (
        "head",
        "a head that fits: thesis (default: start it, then pack the rest with no \
         reservation) or all-fitting (start heads while they fit, reserve for the next)",
    ),
    (
        "window",
        "the lookahead window: fit (default, the first C jobs that fit the free processors) \
         or pickable (the first C that could start: end by the shadow or fit the extra)",
    ),
];

/// Every policy [`build_policy`] knows.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "fcfs",
        summary: "first come first served, no backfilling (backfill depth 0)",
        options: BACKFILL_OPTIONS,
    },
    PolicyInfo {
        name: "easy",
        summary: "EASY backfilling: one reservation, for the first waiting job (depth 1)",
        options: BACKFILL_OPTIONS,
    },
    PolicyInfo {
        name: "conservative",
        summary: "conservative backfilling: every waiting job holds a reservation (depth all)",
        options: &[ORDER_OPTION],
    },
    PolicyInfo {
        name: "backfill",
        summary: "backfilling with a reservation depth, as Maui's RESERVATIONDEPTH",
        options: &[
            (
                "depth",
                "reservations: 0 (no backfilling), 1 (EASY), k, or all (conservative); required",
            ),
            ORDER_OPTION,
            SLURM_CONF_OPTION,
            SHARES_OPTION,
            CPUS_PER_NODE_OPTION,
        ],
    },
    PolicyInfo {
        name: "slurm-backfill",
        summary: "Slurm's main scheduler and backfill plugin (bf_interval, bf_max_job_test, bf_window, bf_resolution) over multifactor priorities",
        options: &[SLURM_CONF_OPTION, SHARES_OPTION, CPUS_PER_NODE_OPTION],
    },
    PolicyInfo {
        name: "los",
        summary: "LOS: lookahead optimizing scheduler, Reservation_DP behind a reserved head (Shmueli & Feitelson)",
        options: LOS_THESIS_OPTIONS,
    },
    PolicyInfo {
        name: "los-basic",
        summary: "LOS with Basic_DP: only jobs that end by the head's shadow time are packed",
        options: LOS_THESIS_OPTIONS,
    },
    PolicyInfo {
        name: "greedy",
        summary: "Greedy with trained sorting criteria (Franke, Lepping, Schwiegelshohn): re-sort by the week situation's criterion, start from the top while jobs fit, no backfilling",
        options: &[(
            "params",
            "the parameter file (JSON: a criterion f1-f4 with a, b, w, k per situation), e.g. from `schedsim train`; required",
        )],
    },
    // The twelve algorithms of Kumar et al.'s Table III (with easy and los
    // above); built by `crate::spec_kumar`.
    PolicyInfo {
        name: "easy-e",
        summary: "EASY-E: EASY with the ECC processor (elastic commands change estimates and ends)",
        options: &[],
    },
    PolicyInfo {
        name: "easy-d",
        summary: "EASY-D: EASY backfilling around dedicated jobs (reserved in a profile, or moved to the batch head when due)",
        options: &[DEDICATED_OPTION],
    },
    PolicyInfo {
        name: "easy-de",
        summary: "EASY-DE: EASY-D with the ECC processor",
        options: &[DEDICATED_OPTION],
    },
    PolicyInfo {
        name: "los-e",
        summary: "LOS-E: LOS with the ECC processor",
        options: LOS_OPTIONS,
    },
    PolicyInfo {
        name: "los-d",
        summary: "LOS-D: LOS packing batch jobs around dedicated jobs (reserved in a profile, or moved to the batch head when due)",
        options: LOS_D_OPTIONS,
    },
    PolicyInfo {
        name: "los-de",
        summary: "LOS-DE: LOS-D with the ECC processor",
        options: LOS_D_OPTIONS,
    },
    PolicyInfo {
        name: "delayed-los",
        summary: "Delayed-LOS: LOS that may skip a fitting head up to cs times to pack better (Kumar et al.)",
        options: crate::spec_kumar::DELAYED_LOS_OPTIONS,
    },
    PolicyInfo {
        name: "delayed-los-e",
        summary: "Delayed-LOS-E: Delayed-LOS with the ECC processor",
        options: crate::spec_kumar::DELAYED_LOS_OPTIONS,
    },
    PolicyInfo {
        name: "hybrid-los",
        summary: "Hybrid-LOS: Delayed-LOS with dedicated jobs started at their requested time (Kumar et al.)",
        options: crate::spec_kumar::DELAYED_LOS_OPTIONS,
    },
    PolicyInfo {
        name: "hybrid-los-e",
        summary: "Hybrid-LOS-E: Hybrid-LOS with the ECC processor",
        options: crate::spec_kumar::DELAYED_LOS_OPTIONS,
    },
    // Deadline admission control (Islam et al., QoPS); built by
    // `crate::deadline`.
    PolicyInfo {
        name: "qops",
        summary: "QoPS deadline admission: a job is admitted only if a plan meets every admitted deadline (log N insertion options, K reorderings)",
        options: crate::deadline::QOPS_OPTIONS,
    },
    PolicyInfo {
        name: "msb",
        summary: "MSB (modified slack based) deadline admission: every insertion point, the cheapest feasible plan",
        options: crate::deadline::MSB_OPTIONS,
    },
    PolicyInfo {
        name: "mrt",
        summary: "MRT (modified real time) deadline admission: a depth-first strongly feasible plan, at most Bmax backtracks",
        options: crate::deadline::MRT_OPTIONS,
    },
    PolicyInfo {
        name: "scojo-pect",
        summary: "SCOJO-PECT: coarse-grain time sharing of runtime classes by slices, suspending jobs to disk (Esbaugh & Sodan)",
        options: crate::scojo::SCOJO_OPTIONS,
    },
    PolicyInfo {
        name: "scojo-pect-opt",
        summary: "SCOJO-PECT with the dynamic group optimiser: two-level discrepancy search with branch and bound",
        options: crate::scojo::OPT_OPTIONS,
    },
];

/// The runtime classes a policy spec works with, (short below, medium
/// below) in seconds: SCOJO-PECT's `short-below` and `medium-below`;
/// `None` for other policies or a spec that does not build.
pub fn runtime_class_bounds(
    spec: &PolicySpec,
) -> Option<(schedsim_sim_core::Time, schedsim_sim_core::Time)> {
    let optimise = match spec.name.as_str() {
        "scojo-pect" => false,
        "scojo-pect-opt" => true,
        _ => return None,
    };
    let info = POLICIES.iter().find(|info| info.name == spec.name)?;
    let options = Options::new(spec, info).ok()?;
    let config = crate::scojo::config(&options, optimise).ok()?;
    Some((config.short_below, config.medium_below))
}

/// Builds the policy a spec names.
///
/// # Errors
/// An unknown policy or option, a missing required option, or a value that
/// does not parse.
pub fn build_policy(spec: &PolicySpec) -> Result<Box<dyn Policy + Send>, SpecError> {
    let Some(info) = POLICIES.iter().find(|info| info.name == spec.name) else {
        return Err(SpecError::UnknownPolicy {
            name: spec.name.clone(),
            known: POLICIES
                .iter()
                .map(|info| info.name)
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let options = Options::new(spec, info)?;
    if spec.name == "greedy" {
        let path = options
            .get("params")
            .ok_or_else(|| SpecError::MissingOption {
                policy: spec.name.clone(),
                option: "params".to_owned(),
            })?;
        return Ok(Box::new(Greedy::from_file(std::path::Path::new(path))?));
    }
    if let Some(policy) = crate::spec_kumar::build(spec, &options)? {
        return Ok(policy);
    }
    if let Some(policy) = crate::scojo::build(spec, &options)? {
        return Ok(policy);
    }
    if let Some(policy) = crate::deadline::build(spec, &options)? {
        return Ok(policy);
    }
    if let Some(variant) = match spec.name.as_str() {
        "los" => Some(LosVariant::Reservation),
        "los-basic" => Some(LosVariant::Basic),
        _ => None,
    } {
        return Ok(Box::new(Los::new(los_config(variant, &options)?)));
    }
    if spec.name == "slurm-backfill" {
        let (priority, backfill) = slurm_config(&options)?;
        return Ok(Box::new(
            SlurmBackfill::new(priority, backfill).named(spec.to_string()),
        ));
    }
    let order = match options.get("order") {
        None => QueueOrder::Fcfs,
        Some(value) => QueueOrder::from_name(value).ok_or_else(|| {
            options.bad_value("order", value, "fcfs, sjf, ssf, ljf, saf or multifactor")
        })?,
    };
    if order != QueueOrder::Multifactor {
        for key in ["conf", "shares", "cpus-per-node"] {
            if let Some(value) = options.get(key) {
                return Err(options.bad_value(key, value, "only with order=multifactor"));
            }
        }
    }
    let depth = match spec.name.as_str() {
        "fcfs" => Depth::Jobs(0),
        "easy" => Depth::Jobs(1),
        "conservative" => Depth::All,
        _ => match options.get("depth") {
            None => {
                return Err(SpecError::MissingOption {
                    policy: spec.name.clone(),
                    option: "depth".to_owned(),
                });
            }
            Some("all") => Depth::All,
            Some(value) => Depth::Jobs(options.parse_whole(
                "depth",
                value,
                (0, u32::MAX.into()),
                "a number or all",
                ", or all",
            )?),
        },
    };
    if order == QueueOrder::Multifactor {
        if depth == Depth::All {
            return Err(options.bad_value(
                "order",
                "multifactor",
                "a static order: conservative backfilling keeps reservations made under \
                 older priorities, so changing priorities are out of its scope",
            ));
        }
        let (priority, _) = slurm_config(&options)?;
        let mut policy = Backfill::new(order, depth).with_multifactor(priority);
        if ["conf", "shares", "cpus-per-node"]
            .iter()
            .any(|key| options.get(key).is_some())
        {
            policy = policy.named(spec.to_string());
        }
        return Ok(Box::new(policy));
    }
    Ok(Box::new(Backfill::new(order, depth)))
}

/// The multifactor and backfill settings of `conf=`, `shares=` and
/// `cpus-per-node=` (Slurm's defaults for what is not given). Warnings
/// about ignored slurm.conf keys are the caller's to print (the command
/// line reads the file itself for them).
fn slurm_config(options: &Options<'_>) -> Result<(MultifactorConfig, BackfillConf), SpecError> {
    let conf = match options.get("conf") {
        Some(path) => SlurmConf::from_file(std::path::Path::new(path))?,
        None => SlurmConf::default(),
    };
    let shares = match options.get("shares") {
        Some(path) => SharesFile::from_file(std::path::Path::new(path))?,
        None => SharesFile::default(),
    };
    let mut priority = conf.priority.clone();
    if conf.basic_priority {
        // priority/basic: FIFO; every weight is ignored.
        priority = PriorityConf::default();
    }
    let mut config = MultifactorConfig::new(priority, shares);
    if let Some(value) = options.get("cpus-per-node") {
        let cpus = options.parse_whole(
            "cpus-per-node",
            value,
            (1, u32::MAX.into()),
            "a positive number",
            "",
        )?;
        config = config.with_cpus_per_node(cpus);
    }
    let mut backfill = conf.backfill.clone();
    if conf.builtin_scheduler {
        // sched/builtin: the main scheduler only.
        backfill.max_job_test = 0;
    }
    Ok((config, backfill))
}

pub(crate) fn los_config(
    variant: LosVariant,
    options: &Options<'_>,
) -> Result<LosConfig, SpecError> {
    let mut config = LosConfig {
        variant,
        ..LosConfig::default()
    };
    apply_los_options(
        options,
        &mut config.merit,
        &mut config.traceback,
        &mut config.lookahead,
    )?;
    if let Some(value) = options.get("head") {
        config.head = HeadRule::from_name(value)
            .ok_or_else(|| options.bad_value("head", value, "thesis or all-fitting"))?;
    }
    if let Some(value) = options.get("window") {
        config.window = Window::from_name(value)
            .ok_or_else(|| options.bad_value("window", value, "fit or pickable"))?;
    }
    Ok(config)
}

/// Reads the LOS options (`merit`, `traceback`, `lookahead`) that LOS and
/// the policies built on it share, overwriting the defaults given.
pub(crate) fn apply_los_options(
    options: &Options<'_>,
    merit: &mut LosMerit,
    traceback: &mut TracebackOrder,
    lookahead: &mut usize,
) -> Result<(), SpecError> {
    if let Some(value) = options.get("merit") {
        *merit = LosMerit::from_name(value).ok_or_else(|| {
            options.bad_value(
                "merit",
                value,
                "none, maxjobs, max-slowdown, min-slowdown, max-response or min-response",
            )
        })?;
    }
    if let Some(value) = options.get("traceback") {
        *traceback = TracebackOrder::from_name(value).ok_or_else(|| {
            options.bad_value("traceback", value, "bypassed-first or selected-first")
        })?;
    }
    if let Some(count) = options.whole(
        "lookahead",
        (1, u32::MAX.into()),
        "a positive number of jobs",
    )? {
        *lookahead = count;
    }
    Ok(())
}

/// A spec's options, checked against what the policy accepts.
pub(crate) struct Options<'a> {
    spec: &'a PolicySpec,
}

impl<'a> Options<'a> {
    fn new(spec: &'a PolicySpec, info: &PolicyInfo) -> Result<Self, SpecError> {
        for (key, _) in &spec.options {
            if !info.options.iter().any(|(known, _)| known == key) {
                return Err(SpecError::UnknownOption {
                    policy: spec.name.clone(),
                    option: key.clone(),
                    known: if info.options.is_empty() {
                        "it takes none".to_owned()
                    } else {
                        let names: Vec<&str> =
                            info.options.iter().map(|(known, _)| *known).collect();
                        format!("known: {}", names.join(", "))
                    },
                });
            }
        }
        Ok(Self { spec })
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a str> {
        self.spec
            .options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A whole-number option in `min..=max`, if given: a number outside
    /// gets the range, other text `expected`.
    pub(crate) fn whole<T: TryFrom<i128>>(
        &self,
        key: &str,
        range: (i128, i128),
        expected: &str,
    ) -> Result<Option<T>, SpecError> {
        self.get(key)
            .map(|value| self.parse_whole(key, value, range, expected, ""))
            .transpose()
    }

    /// `value` of option `key` as a whole number in `min..=max`; `also`
    /// completes the range of an option that takes words too (`, or all`).
    pub(crate) fn parse_whole<T: TryFrom<i128>>(
        &self,
        key: &str,
        value: &str,
        (min, max): (i128, i128),
        expected: &str,
        also: &str,
    ) -> Result<T, SpecError> {
        number::whole(value, min, max).map_err(|refused| match refused {
            Refused::NotANumber => self.bad_value(key, value, expected),
            Refused::OutOfRange => self.out_of_range(
                key,
                value,
                &format!("{}{also}", number::whole_range(min, max)),
            ),
        })
    }

    /// A real-number option in `min..=max` (`f64::MAX`: no upper bound but
    /// finite), if given.
    pub(crate) fn real(
        &self,
        key: &str,
        (min, max): (f64, f64),
        expected: &str,
    ) -> Result<Option<f64>, SpecError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        number::real(value, min, max)
            .map(Some)
            .map_err(|refused| match refused {
                Refused::NotANumber => self.bad_value(key, value, expected),
                Refused::OutOfRange => self.out_of_range(key, value, &number::real_range(min, max)),
            })
    }

    /// Sets `target` to the value of option `key`, if given, one of the
    /// named `choices` (any other word gets their names).
    pub(crate) fn choice<T: Copy>(
        &self,
        key: &str,
        target: &mut T,
        choices: &[(&str, T)],
    ) -> Result<(), SpecError> {
        if let Some(value) = self.get(key) {
            *target = choices
                .iter()
                .find(|(name, _)| *name == value)
                .map(|&(_, v)| v)
                .ok_or_else(|| {
                    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                    self.bad_value(key, value, &names.join(" or "))
                })?;
        }
        Ok(())
    }

    pub(crate) fn out_of_range(&self, option: &str, value: &str, range: &str) -> SpecError {
        SpecError::OutOfRange {
            policy: self.spec.name.clone(),
            option: option.to_owned(),
            value: value.to_owned(),
            range: range.to_owned(),
        }
    }

    pub(crate) fn bad_value(&self, option: &str, value: &str, expected: &str) -> SpecError {
        SpecError::BadValue {
            policy: self.spec.name.clone(),
            option: option.to_owned(),
            value: value.to_owned(),
            expected: expected.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(text: &str) -> Result<String, String> {
        let spec: PolicySpec = text.parse().map_err(|e: SpecError| e.to_string())?;
        build_policy(&spec)
            .map(|policy| policy.name().to_owned())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn names_and_options() {
        assert_eq!(build("fcfs").unwrap(), "fcfs");
        assert_eq!(build("easy").unwrap(), "easy");
        assert_eq!(build(" easy : order = sjf ").unwrap(), "easy:order=sjf");
        assert_eq!(build("conservative").unwrap(), "conservative");
        assert_eq!(build("backfill:depth=1").unwrap(), "easy");
        assert_eq!(build("backfill:depth=all").unwrap(), "conservative");
        assert_eq!(
            build("backfill:depth=4,order=saf").unwrap(),
            "backfill:depth=4,order=saf"
        );
        assert_eq!(
            "backfill:depth=4,order=saf"
                .parse::<PolicySpec>()
                .unwrap()
                .dir_name(),
            "backfill_depth=4_order=saf"
        );
        assert_eq!(
            "greedy:params=runs/kth/best.json"
                .parse::<PolicySpec>()
                .unwrap()
                .dir_name(),
            "greedy_params=runs_kth_best.json"
        );
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert_eq!(
            build("eazy").unwrap_err(),
            "unknown policy `eazy` (known: fcfs, easy, conservative, backfill, slurm-backfill, los, los-basic, \
             greedy, easy-e, easy-d, easy-de, los-e, los-d, los-de, delayed-los, delayed-los-e, \
             hybrid-los, hybrid-los-e, qops, msb, mrt, scojo-pect, scojo-pect-opt)"
        );
        assert_eq!(
            build("easy:depth=2").unwrap_err(),
            "policy `easy` has no option `depth` (known: order, conf, shares, cpus-per-node)"
        );
        assert_eq!(
            build("easy:order=random").unwrap_err(),
            "policy `easy`: option `order` = `random` is not valid (expected fcfs, sjf, ssf, ljf, saf or multifactor)"
        );
        assert_eq!(
            build("backfill").unwrap_err(),
            "policy `backfill` needs option `depth`"
        );
        assert_eq!(
            build("easy:order").unwrap_err(),
            "policy spec `easy:order`: option `order` is not key=value"
        );
        assert_eq!(
            build("easy:order=sjf,order=ljf").unwrap_err(),
            "policy spec `easy:order=sjf,order=ljf` repeats option `order`"
        );
        assert_eq!(build(":x=1").unwrap_err(), "empty policy name");
        assert_eq!(
            build("los:lookahead=0").unwrap_err(),
            "policy `los`: option `lookahead` = `0` is out of range (1 to 4294967295)"
        );
        assert_eq!(
            build("los:lookahead=many").unwrap_err(),
            "policy `los`: option `lookahead` = `many` is not valid (expected a positive number of jobs)"
        );
        assert_eq!(
            build("los:merit=min").unwrap_err(),
            "policy `los`: option `merit` = `min` is not valid (expected none, maxjobs, max-slowdown, \
             min-slowdown, max-response or min-response)"
        );
        // Seconds that are added to simulated times stop at 2^53, as
        // workload times do.
        assert_eq!(
            build("scojo-pect:cycle=9223372036854775807").unwrap_err(),
            "policy `scojo-pect`: option `cycle` = `9223372036854775807` is out of range (3 to 9007199254740992 (2^53))"
        );
        assert!(build("scojo-pect:cycle=9007199254740992").is_ok());
    }

    /// The deadline searches' bounds stop where one admission would take
    /// seconds: `qops:k=4294967295` and `mrt:backtracks=4294967295` did
    /// not end within 20 s on the 1000-job fixture with exact estimates.
    #[test]
    fn deadline_search_bounds_are_capped() {
        assert_eq!(
            build("qops:k=4294967295").unwrap_err(),
            "policy `qops`: option `k` = `4294967295` is out of range (0 to 10000)"
        );
        assert_eq!(
            build("qops:k=10001").unwrap_err(),
            "policy `qops`: option `k` = `10001` is out of range (0 to 10000)"
        );
        assert!(build("qops:k=10000").is_ok());
        assert_eq!(
            build("mrt:backtracks=1000001").unwrap_err(),
            "policy `mrt`: option `backtracks` = `1000001` is out of range (0 to 1000000)"
        );
        assert!(build("mrt:backtracks=1000000").is_ok());
    }

    /// SCOJO-PECT-opt's search stops at `budget x nodes` placements a
    /// group; `budget=4294967295` or `nodes=4294967295` did not end within
    /// 20 s on the 1000-job fixture (one group).
    #[test]
    fn scojo_search_bounds_are_capped() {
        let product = "(expected budget x nodes at most 10000000, the placements one group's search may make)";
        assert_eq!(
            build("scojo-pect-opt:budget=4294967295").unwrap_err(),
            "policy `scojo-pect-opt`: option `budget` = `4294967295` is out of range (1 to 10000000)"
        );
        assert_eq!(
            build("scojo-pect-opt:budget=200001").unwrap_err(),
            format!("policy `scojo-pect-opt`: option `budget` = `200001` is not valid {product}")
        );
        // Only nodes given: the message names it.
        assert_eq!(
            build("scojo-pect-opt:nodes=1001").unwrap_err(),
            format!("policy `scojo-pect-opt`: option `nodes` = `1001` is not valid {product}")
        );
        assert!(build("scojo-pect-opt:nodes=1000").is_ok());
    }

    /// Every numeric option: a number out of range gets the value, the
    /// option and the range; text that is no number what is expected.
    #[test]
    fn numbers_out_of_range_get_the_range() {
        let cases = [
            // Depth is a u32: 2^32 = 4294967296 is one past it.
            (
                "backfill:depth=4294967296",
                "policy `backfill`: option `depth` = `4294967296` is out of range (0 to 4294967295, or all)",
            ),
            (
                "backfill:depth=-1",
                "policy `backfill`: option `depth` = `-1` is out of range (0 to 4294967295, or all)",
            ),
            (
                "backfill:depth=deep",
                "policy `backfill`: option `depth` = `deep` is not valid (expected a number or all)",
            ),
            (
                "easy:order=multifactor,cpus-per-node=0",
                "policy `easy`: option `cpus-per-node` = `0` is out of range (1 to 4294967295)",
            ),
            (
                "los-basic:lookahead=99999999999999999999999999999999999999999",
                "policy `los-basic`: option `lookahead` = `99999999999999999999999999999999999999999` is out of range (1 to 4294967295)",
            ),
            (
                "qops:k=-5",
                "policy `qops`: option `k` = `-5` is out of range (0 to 10000)",
            ),
            (
                "mrt:backtracks=1e3",
                "policy `mrt`: option `backtracks` = `1e3` is not valid (expected a whole number (0 or more))",
            ),
            (
                "scojo-pect:short-below=0",
                "policy `scojo-pect`: option `short-below` = `0` is out of range (1 to 9007199254740992 (2^53))",
            ),
            (
                "scojo-pect:long-share=1.5",
                "policy `scojo-pect`: option `long-share` = `1.5` is out of range (0 to 1)",
            ),
            (
                "scojo-pect:long-share=most",
                "policy `scojo-pect`: option `long-share` = `most` is not valid (expected a number from 0 to 1)",
            ),
            (
                "scojo-pect-opt:alpha=1e999",
                "policy `scojo-pect-opt`: option `alpha` = `1e999` is out of range (0 or more (finite))",
            ),
            (
                "scojo-pect-opt:budget=0",
                "policy `scojo-pect-opt`: option `budget` = `0` is out of range (1 to 10000000)",
            ),
            (
                "scojo-pect-opt:max-wide=9",
                "policy `scojo-pect-opt`: option `max-wide` = `9` is out of range (1 to 8)",
            ),
            // Negative seconds were accepted before.
            (
                "scojo-pect-opt:long-mean-runtime=-5",
                "policy `scojo-pect-opt`: option `long-mean-runtime` = `-5` is out of range (0 to 9007199254740992 (2^53))",
            ),
            (
                "scojo-pect-opt:split=1",
                "policy `scojo-pect-opt`: option `split` = `1` is out of range (2 to 4294967295)",
            ),
        ];
        for (spec, message) in cases {
            assert_eq!(build(spec).unwrap_err(), message, "{spec}");
        }
        // The bounds themselves are accepted.
        for spec in [
            "backfill:depth=4294967295",
            "backfill:depth=0",
            "scojo-pect-opt:max-wide=8,budget=200000",
            "scojo-pect-opt:budget=10000000,nodes=1",
            "scojo-pect:long-share=1,medium-share=0",
            "qops:k=10000",
        ] {
            assert!(build(spec).is_ok(), "{spec}: {:?}", build(spec));
        }
    }

    /// An empty option is refused as a repeated one is.
    #[test]
    fn empty_options_are_refused() {
        for spec in [
            "easy:",
            "easy:,",
            "easy:order=sjf,",
            "easy:,order=sjf",
            "easy: , ",
        ] {
            assert_eq!(
                build(spec).unwrap_err(),
                format!(
                    "policy spec `{}` has an empty option (nothing between `:` or `,` and the next `,` or the end)",
                    spec.trim()
                ),
                "{spec}"
            );
        }
        assert_eq!(build("easy").unwrap(), "easy");
    }
}

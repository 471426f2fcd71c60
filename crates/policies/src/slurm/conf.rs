//! The slurm.conf keys the Slurm policies read.

use std::path::Path;

use schedsim_sim_core::{MAX_TIME, Time};

use crate::number::{non_negative_u32, out_of_range, whole, whole_range};

/// Why a slurm.conf (or a shares file) could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SlurmConfError {
    /// The file cannot be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error's text.
        reason: String,
    },
    /// A line's value is not valid for its key.
    #[error("{path}:{line}: {key}={value}: {reason}")]
    BadValue {
        /// The file.
        path: String,
        /// Line number, from 1.
        line: usize,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What was expected.
        reason: String,
    },
    /// A line that is not `Key=Value` (slurm.conf) or not a known entry
    /// (shares file).
    #[error("{path}:{line}: `{text}`: {reason}")]
    BadLine {
        /// The file.
        path: String,
        /// Line number, from 1.
        line: usize,
        /// The line.
        text: String,
        /// What is wrong.
        reason: String,
    },
}

/// Slurm's priority flags that change what the simulation computes
/// (`PriorityFlags`); the others are refused or ignored with a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PriorityFlags {
    /// `NO_FAIR_TREE`: the classic fair-share algorithm (the only one
    /// implemented; without the flag Slurm uses Fair Tree).
    pub no_fair_tree: bool,
    /// `SMALL_RELATIVE_TO_TIME`: the job size factor divides the size by
    /// the time limit.
    pub small_relative_to_time: bool,
    /// `NO_NORMAL_PART`: the partition factor is the partition's
    /// PriorityJobFactor itself, not divided by the highest.
    pub no_normal_part: bool,
    /// `NO_NORMAL_QOS`: the QOS factor is the QOS priority itself.
    pub no_normal_qos: bool,
}

/// The priority/multifactor settings of slurm.conf, with Slurm's defaults
/// (slurm.conf(5), Slurm 22.05).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PriorityConf {
    /// `PriorityWeightAge` (default 0).
    pub weight_age: u32,
    /// `PriorityWeightFairshare` (default 0).
    pub weight_fairshare: u32,
    /// `PriorityWeightJobSize` (default 0).
    pub weight_job_size: u32,
    /// `PriorityWeightPartition` (default 0).
    pub weight_partition: u32,
    /// `PriorityWeightQOS` (default 0).
    pub weight_qos: u32,
    /// `PriorityMaxAge`, seconds (default 7 days).
    pub max_age: Time,
    /// `PriorityDecayHalfLife`, seconds (default 7 days; 0: no decay).
    pub decay_half_life: Time,
    /// `PriorityCalcPeriod`, seconds (default 5 minutes).
    pub calc_period: Time,
    /// `PriorityFavorSmall` (default NO).
    pub favor_small: bool,
    /// `FairShareDampeningFactor` (default 1).
    pub dampening_factor: u32,
    /// `PriorityFlags`.
    pub flags: PriorityFlags,
}

impl Default for PriorityConf {
    fn default() -> Self {
        Self {
            weight_age: 0,
            weight_fairshare: 0,
            weight_job_size: 0,
            weight_partition: 0,
            weight_qos: 0,
            max_age: 7 * 86_400,
            decay_half_life: 7 * 86_400,
            calc_period: 300,
            favor_small: false,
            dampening_factor: 1,
            flags: PriorityFlags::default(),
        }
    }
}

impl PriorityConf {
    /// Whether priorities change with time while jobs wait (age or
    /// fair-share count), so they must be recomputed every calc period.
    pub fn time_dependent(&self) -> bool {
        self.weight_age > 0 || self.weight_fairshare > 0
    }
}

/// The backfill plugin's settings (`SchedulerParameters=bf_*`), with
/// Slurm's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackfillConf {
    /// `bf_interval`, seconds between backfill cycles (default 30).
    pub interval: Time,
    /// `bf_max_job_test`, jobs examined per cycle (default 500).
    pub max_job_test: u32,
    /// `bf_window`, how far ahead the plan reaches, seconds (default 1440
    /// minutes).
    pub window: Time,
    /// `bf_resolution`, seconds (default 60).
    pub resolution: Time,
    /// `bf_max_job_start`, jobs started per cycle (default 0: no limit).
    pub max_job_start: u32,
    /// `sched_interval`, seconds between periodic runs of the main
    /// scheduler (default 60).
    pub sched_interval: Time,
}

impl Default for BackfillConf {
    fn default() -> Self {
        Self {
            interval: 30,
            max_job_test: 500,
            window: 1440 * 60,
            resolution: 60,
            max_job_start: 0,
            sched_interval: 60,
        }
    }
}

/// What the simulation reads from a slurm.conf: the priority and backfill
/// settings, and the warnings about every key it does not use.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct SlurmConf {
    /// priority/multifactor.
    pub priority: PriorityConf,
    /// sched/backfill.
    pub backfill: BackfillConf,
    /// `SchedulerType` is sched/backfill (the default) rather than
    /// sched/builtin.
    pub builtin_scheduler: bool,
    /// `PriorityType=priority/basic`: FIFO, every weight ignored.
    pub basic_priority: bool,
    /// One line per key read but not modelled, with its line number.
    pub warnings: Vec<String>,
}

/// Keys about the cluster's plumbing: no effect on a scheduling
/// simulation, so they are skipped without a warning.
const PLUMBING: &[&str] = &[
    "clustername",
    "slurmctldhost",
    "controlmachine",
    "slurmuser",
    "slurmduser",
    "slurmctldport",
    "slurmdport",
    "authtype",
    "authinfo",
    "credtype",
    "statesavelocation",
    "slurmdspooldir",
    "slurmctldpidfile",
    "slurmdpidfile",
    "slurmctldlogfile",
    "slurmdlogfile",
    "slurmctlddebug",
    "slurmddebug",
    "proctracktype",
    "taskplugin",
    "jobacctgathertype",
    "accountingstoragetype",
    "accountingstoragehost",
    "accountingstorageport",
    "accountingstoragepass",
    "jobcomptype",
    "mpidefault",
    "switchtype",
    "returntoservice",
    "maxarraysize",
    "slurmdparameters",
    "include",
];

impl SlurmConf {
    /// Reads a slurm.conf.
    ///
    /// # Errors
    /// The file cannot be read, or a key this simulation uses has a value
    /// it cannot parse (naming file, line, key and value).
    pub fn from_file(path: &Path) -> Result<Self, SlurmConfError> {
        let (text, name) = read_file(path)?;
        Self::parse(&text, &name)
    }

    /// Reads slurm.conf text; `path` names it in errors and warnings.
    ///
    /// ```
    /// use schedsim_policies::SlurmConf;
    /// let conf = SlurmConf::parse(
    ///     "PriorityType=priority/multifactor\nPriorityWeightAge=1000 # comment\n\
    ///      PriorityMaxAge=1-0\nSchedulerParameters=bf_interval=10,bf_window=60\n\
    ///      NodeName=n[1-4] CPUs=8\n",
    ///     "slurm.conf",
    /// )?;
    /// assert_eq!(conf.priority.weight_age, 1000);
    /// assert_eq!(conf.priority.max_age, 86_400);
    /// assert_eq!(conf.backfill.interval, 10);
    /// assert_eq!(conf.backfill.window, 3600);
    /// assert_eq!(conf.warnings.len(), 1); // NodeName is not modelled
    /// # Ok::<(), schedsim_policies::SlurmConfError>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_file`](Self::from_file).
    pub fn parse(text: &str, path: &str) -> Result<Self, SlurmConfError> {
        let mut conf = Self::default();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let Some((key, value)) = content.split_once('=') else {
                return Err(SlurmConfError::BadLine {
                    path: path.to_owned(),
                    line,
                    text: content.to_owned(),
                    reason: "not Key=Value".to_owned(),
                });
            };
            let (key, value) = (key.trim(), value.trim());
            let bad = |reason: &str| SlurmConfError::BadValue {
                path: path.to_owned(),
                line,
                key: key.to_owned(),
                value: value.to_owned(),
                reason: reason.to_owned(),
            };
            let weight = || non_negative_u32(value).map_err(|reason| bad(&reason));
            let duration = || {
                let time = parse_time_string(value).ok_or_else(|| bad("expected a time string: minutes, hh:mm:ss, days-hh, days-hh:mm or days-hh:mm:ss"))?;
                // Simulated times stop at 2^53 s; so do these, added to them.
                if time > MAX_TIME {
                    return Err(bad(&out_of_range(0, MAX_TIME.into(), " seconds")));
                }
                Ok(time)
            };
            let lower = key.to_ascii_lowercase();
            let priority = &mut conf.priority;
            match lower.as_str() {
                "priorityweightage" => priority.weight_age = weight()?,
                "priorityweightfairshare" => priority.weight_fairshare = weight()?,
                "priorityweightjobsize" => priority.weight_job_size = weight()?,
                "priorityweightpartition" => priority.weight_partition = weight()?,
                "priorityweightqos" => priority.weight_qos = weight()?,
                "prioritymaxage" => priority.max_age = duration()?,
                "prioritydecayhalflife" => priority.decay_half_life = duration()?,
                "prioritycalcperiod" => {
                    priority.calc_period = duration()?;
                    if priority.calc_period == 0 {
                        return Err(bad("must be at least 1 minute"));
                    }
                }
                "priorityfavorsmall" => {
                    priority.favor_small = match value.to_ascii_uppercase().as_str() {
                        "YES" => true,
                        "NO" => false,
                        _ => return Err(bad("expected YES or NO")),
                    }
                }
                "fairsharedampeningfactor" => {
                    priority.dampening_factor = weight()?;
                    if priority.dampening_factor == 0 {
                        return Err(bad("must be at least 1"));
                    }
                }
                "priorityflags" => {
                    for flag in value.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                        match flag.to_ascii_uppercase().as_str() {
                            "NO_FAIR_TREE" => priority.flags.no_fair_tree = true,
                            "SMALL_RELATIVE_TO_TIME" => {
                                priority.flags.small_relative_to_time = true;
                            }
                            "NO_NORMAL_PART" => priority.flags.no_normal_part = true,
                            "NO_NORMAL_QOS" => priority.flags.no_normal_qos = true,
                            "NO_NORMAL_ALL" => {
                                priority.flags.no_normal_part = true;
                                priority.flags.no_normal_qos = true;
                            }
                            "DEPTH_OBLIVIOUS" | "INCR_ONLY" => {
                                return Err(bad(&format!("flag {flag} is not modelled")));
                            }
                            other => conf.warnings.push(format!(
                                "{path}:{line}: PriorityFlags {other} ignored (no effect in the simulation)"
                            )),
                        }
                    }
                }
                "prioritytype" => match value {
                    "priority/multifactor" => {}
                    "priority/basic" => conf.basic_priority = true,
                    _ => return Err(bad("expected priority/multifactor or priority/basic")),
                },
                "schedulertype" => match value {
                    "sched/backfill" => {}
                    "sched/builtin" => conf.builtin_scheduler = true,
                    _ => return Err(bad("expected sched/backfill or sched/builtin")),
                },
                "schedulerparameters" => {
                    conf.read_scheduler_parameters(value, path, line, key)?;
                }
                _ if PLUMBING.contains(&lower.as_str()) => {}
                _ => conf.warnings.push(format!(
                    "{path}:{line}: {key} ignored (not modelled by the simulation)"
                )),
            }
        }
        Ok(conf)
    }

    fn read_scheduler_parameters(
        &mut self,
        value: &str,
        path: &str,
        line: usize,
        key: &str,
    ) -> Result<(), SlurmConfError> {
        for item in value.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (name, setting) = item.split_once('=').unwrap_or((item, ""));
            let bad = |reason: &str| SlurmConfError::BadValue {
                path: path.to_owned(),
                line,
                key: format!("{key} {name}"),
                value: setting.to_owned(),
                reason: reason.to_owned(),
            };
            let number = |min: i64, max: i64| -> Result<i64, SlurmConfError> {
                whole(setting, min.into(), max.into()).map_err(|_| {
                    bad(&format!(
                        "expected an integer from {}",
                        whole_range(min.into(), max.into())
                    ))
                })
            };
            let backfill = &mut self.backfill;
            match name {
                "bf_interval" => backfill.interval = number(1, 10_800)?,
                "bf_max_job_test" => backfill.max_job_test = number(1, 1_000_000)? as u32,
                "bf_window" => backfill.window = number(1, 43_200)? * 60,
                "bf_resolution" => backfill.resolution = number(1, 3600)?,
                "bf_max_job_start" => backfill.max_job_start = number(0, 10_000)? as u32,
                "sched_interval" => backfill.sched_interval = number(1, 86_400)?,
                // Timing of the real daemon: the simulated cycle takes no time.
                "bf_continue" | "bf_yield_interval" | "bf_yield_sleep" | "bf_max_time"
                | "max_rpc_cnt" | "sched_min_interval" | "defer" | "default_queue_depth" => {
                    self.warnings.push(format!(
                        "{path}:{line}: SchedulerParameters {name} ignored (a simulated scheduling cycle takes no time)"
                    ));
                }
                _ => self.warnings.push(format!(
                    "{path}:{line}: SchedulerParameters {name} ignored (not modelled by the simulation)"
                )),
            }
        }
        Ok(())
    }

    /// The loud warning Slurm users need when fair-share counts: Slurm's
    /// default is Fair Tree, the simulation computes classic fair-share.
    pub fn fair_tree_warning(&self) -> Option<String> {
        (self.priority.weight_fairshare > 0 && !self.priority.flags.no_fair_tree).then(|| {
            "WARNING: PriorityWeightFairshare is set but PriorityFlags lacks NO_FAIR_TREE: \
             Slurm would use the Fair Tree algorithm, this simulation computes CLASSIC \
             fair-share (2^(-usage/shares)); results will differ from your cluster"
                .to_owned()
        })
    }
}

/// The text of a slurm.conf or shares file, and the name its errors and
/// warnings give it.
pub(super) fn read_file(path: &Path) -> Result<(String, String), SlurmConfError> {
    let name = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => Ok((text, name)),
        Err(e) => Err(SlurmConfError::Read {
            path: name,
            reason: e.to_string(),
        }),
    }
}

/// Slurm's time strings: `min`, `min:sec`, `hr:min:sec`, `days-hr`,
/// `days-hr:min`, `days-hr:min:sec`; seconds. `INFINITE`/`UNLIMITED` are
/// not accepted here (no key read by the simulation allows them).
pub(crate) fn parse_time_string(value: &str) -> Option<Time> {
    let number = |s: &str| s.trim().parse::<i64>().ok().filter(|n| *n >= 0);
    // Saturating, so that a time beyond i64 (`99999999999999999:00:00`)
    // stays beyond every limit rather than overflowing: the parts are not
    // negative, so the saturated sum exceeds a limit iff the true one does.
    let hms = |h: i64, m: i64, s: i64| {
        Some(
            h.saturating_mul(3600)
                .saturating_add(m.saturating_mul(60))
                .saturating_add(s),
        )
    };
    let (days, rest) = match value.split_once('-') {
        Some((days, rest)) => (number(days)?, Some(rest)),
        None => (0, None),
    };
    let seconds = match rest {
        Some(rest) => {
            let parts: Vec<&str> = rest.split(':').collect();
            match parts.as_slice() {
                [h] => hms(number(h)?, 0, 0)?,
                [h, m] => hms(number(h)?, number(m)?, 0)?,
                [h, m, s] => hms(number(h)?, number(m)?, number(s)?)?,
                _ => return None,
            }
        }
        None => {
            let parts: Vec<&str> = value.split(':').collect();
            match parts.as_slice() {
                [m] => hms(0, number(m)?, 0)?,
                [m, s] => hms(0, number(m)?, number(s)?)?,
                [h, m, s] => hms(number(h)?, number(m)?, number(s)?)?,
                _ => return None,
            }
        }
    };
    Some(days.saturating_mul(86_400).saturating_add(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_strings() {
        assert_eq!(parse_time_string("5"), Some(300));
        assert_eq!(parse_time_string("7-0"), Some(7 * 86_400));
        assert_eq!(parse_time_string("1-02:03"), Some(86_400 + 2 * 3600 + 180));
        assert_eq!(parse_time_string("01:00:30"), Some(3630));
        assert_eq!(parse_time_string("2:30"), Some(150));
        assert_eq!(parse_time_string("x"), None);
        // i64::MAX / 3600 + 1 = 2562047788015216 hours overflow i64
        // seconds: i64::MAX (beyond the 2^53 s limit), where `h * 3600`
        // overflowed (a panic in debug).
        assert_eq!(parse_time_string("2562047788015216:00:00"), Some(i64::MAX));
        // i64::MAX / 60 + 1 minutes.
        assert_eq!(parse_time_string("153722867280912931"), Some(i64::MAX));
        assert_eq!(parse_time_string("1-2562047788015216"), Some(i64::MAX));
        assert_eq!(parse_time_string("-3"), None);
    }

    #[test]
    fn errors_name_file_line_key_and_value() {
        let error = SlurmConf::parse("# c\nPriorityWeightAge=lots\n", "a.conf").unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.conf:2: PriorityWeightAge=lots: expected a non-negative integer"
        );
        // A weight is a u32: 2^32 = 4294967296 is one past it.
        let error = SlurmConf::parse("PriorityWeightAge=4294967296\n", "a.conf").unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.conf:1: PriorityWeightAge=4294967296: out of range: 0 to 4294967295"
        );
        // 2^53 s = 104249991374 days 7:36:32; one second more is refused.
        let error =
            SlurmConf::parse("PriorityMaxAge=104249991374-07:36:33\n", "a.conf").unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.conf:1: PriorityMaxAge=104249991374-07:36:33: out of range: 0 to 9007199254740992 (2^53) seconds"
        );
        let conf = SlurmConf::parse("PriorityMaxAge=104249991374-07:36:32\n", "a.conf").unwrap();
        assert_eq!(conf.priority.max_age, 1 << 53);
        let error = SlurmConf::parse("SchedulerParameters=bf_window=0\n", "a.conf").unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.conf:1: SchedulerParameters bf_window=0: expected an integer from 1 to 43200"
        );
        let error = SlurmConf::parse("garbage\n", "a.conf").unwrap_err();
        assert_eq!(error.to_string(), "a.conf:1: `garbage`: not Key=Value");
    }

    #[test]
    fn keys_read_and_warnings() {
        let conf = SlurmConf::parse(
            "PriorityFlags=NO_FAIR_TREE,ACCRUE_ALWAYS\nPriorityFavorSmall=YES\n\
             PriorityDecayHalfLife=0\nPriorityCalcPeriod=1\nClusterName=x\n\
             SchedulerParameters=bf_resolution=1,bf_max_job_test=20,bf_continue\n",
            "s.conf",
        )
        .unwrap();
        assert!(conf.priority.flags.no_fair_tree && conf.priority.favor_small);
        assert_eq!(conf.priority.decay_half_life, 0);
        assert_eq!(conf.priority.calc_period, 60);
        assert_eq!(conf.backfill.resolution, 1);
        assert_eq!(conf.backfill.max_job_test, 20);
        assert_eq!(
            conf.warnings,
            [
                "s.conf:1: PriorityFlags ACCRUE_ALWAYS ignored (no effect in the simulation)",
                "s.conf:6: SchedulerParameters bf_continue ignored (a simulated scheduling cycle takes no time)"
            ]
        );
        assert!(conf.fair_tree_warning().is_none());
        let tree = SlurmConf::parse("PriorityWeightFairshare=10\n", "s").unwrap();
        assert!(tree.fair_tree_warning().unwrap().contains("CLASSIC"));
    }
}

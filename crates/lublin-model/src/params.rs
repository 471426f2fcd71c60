//! The Lublin-Feitelson model's parameters, their published defaults, the
//! machine-size adaptation and validation.

use serde::{Deserialize, Serialize};

use crate::cycle::DailyCycle;
use crate::dist::gamma_cdf;
use crate::error::ParamsError;
use crate::estimate::EstimateParams;

/// The machine size the published parameters were fitted for (2^7 nodes).
pub const DEFAULT_MACHINE_SIZE: u32 = 128;

/// Job size (number of nodes) parameters of one job class.
///
/// With probability `serial_prob` a job is serial (1 node). Otherwise
/// `x = two-stage-uniform(ulow, umed, uhi, uprob)` is the log2 of the size;
/// if the uniform draw that decided "not serial" is at most
/// `serial_prob + pow2_prob`, `x` is rounded to the nearest integer (a
/// power-of-two job). The size is `round(2^x)`, capped at the machine size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeParams {
    /// Probability of a serial (1-node) job.
    pub serial_prob: f64,
    /// Probability of a power-of-two parallel job.
    pub pow2_prob: f64,
    /// log2 of the smallest parallel size.
    pub ulow: f64,
    /// log2 where the two uniform stages meet.
    pub umed: f64,
    /// log2 of the largest size.
    pub uhi: f64,
    /// Probability of the first stage, uniform(ulow, umed).
    pub uprob: f64,
}

/// Runtime parameters of one job class: the log of the runtime (seconds) is
/// hyper-gamma(a1, b1, a2, b2, p) with `p = pa * size + pb` clamped to
/// `[0, 1]`, size in nodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeParams {
    /// Shape of the first gamma component.
    pub a1: f64,
    /// Scale of the first gamma component.
    pub b1: f64,
    /// Shape of the second gamma component.
    pub a2: f64,
    /// Scale of the second gamma component.
    pub b2: f64,
    /// Slope of `p` in the size (negative: bigger jobs run longer).
    pub pa: f64,
    /// Intercept of `p`.
    pub pb: f64,
}

/// Arrival parameters of one job stream.
///
/// The log of a rush-hour inter-arrival time is gamma(`aarr * arar`, `barr`);
/// the daily cycle's bucket weights come from the gamma(`anum`, `bnum`) cdf.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivalParams {
    /// Shape of the rush-hour log inter-arrival gamma (before `arar`).
    pub aarr: f64,
    /// Scale of the log inter-arrival gamma; larger means sparser arrivals.
    pub barr: f64,
    /// Shape of the daily-cycle gamma.
    pub anum: f64,
    /// Scale of the daily-cycle gamma.
    pub bnum: f64,
    /// Arrive rush-to-all ratio: multiplies `aarr`.
    pub arar: f64,
}

/// All parameters of one job class (typeless, batch or interactive).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassParams {
    /// Job sizes.
    pub size: SizeParams,
    /// Job runtimes.
    pub runtime: RuntimeParams,
    /// The arrival process.
    pub arrival: ArrivalParams,
}

impl ClassParams {
    /// The published typeless ("whole sample") parameters for 128 nodes.
    pub const TYPELESS: Self = Self {
        size: SizeParams {
            serial_prob: 0.244,
            pow2_prob: 0.576,
            ulow: 0.8,
            umed: 4.5,
            uhi: 7.0,
            uprob: 0.86,
        },
        runtime: RuntimeParams {
            a1: 4.2,
            b1: 0.94,
            a2: 312.0,
            b2: 0.03,
            pa: -0.0054,
            pb: 0.78,
        },
        arrival: ArrivalParams {
            aarr: 10.2303,
            barr: 0.4871,
            anum: 8.1737,
            bnum: 3.9631,
            arar: 1.0225,
        },
    };

    /// The published batch parameters for 128 nodes.
    pub const BATCH: Self = Self {
        size: SizeParams {
            serial_prob: 0.2927,
            pow2_prob: 0.6686,
            ulow: 1.2,
            umed: 5.0,
            uhi: 7.0,
            uprob: 0.875,
        },
        runtime: RuntimeParams {
            a1: 6.57,
            b1: 0.823,
            a2: 639.1,
            b2: 0.0156,
            pa: -0.003,
            pb: 0.6986,
        },
        arrival: ArrivalParams {
            aarr: 6.0415,
            barr: 0.8531,
            anum: 6.1271,
            bnum: 5.2740,
            arar: 1.0519,
        },
    };

    /// The published interactive parameters for 128 nodes.
    pub const INTERACTIVE: Self = Self {
        size: SizeParams {
            serial_prob: 0.1541,
            pow2_prob: 0.625,
            ulow: 1.0,
            umed: 3.0,
            uhi: 5.5,
            uprob: 0.705,
        },
        runtime: RuntimeParams {
            a1: 3.8351,
            b1: 0.6605,
            a2: 7.073,
            b2: 0.6856,
            pa: -0.0118,
            pb: 0.9156,
        },
        arrival: ArrivalParams {
            aarr: 6.5510,
            barr: 0.6621,
            anum: 8.9186,
            bnum: 3.6680,
            arar: 0.9797,
        },
    };

    /// These parameters with `uhi` and `umed` shifted by `shift` (log2 units)
    /// and then kept in order: `uhi` in `[0, max_log2]`, `ulow <= uhi`,
    /// `umed` in `[ulow, uhi]` (the clamps only act on machines below 8 nodes).
    fn shifted(mut self, shift: f64, max_log2: f64) -> Self {
        let s = &mut self.size;
        s.uhi = (s.uhi + shift).clamp(0.0, max_log2);
        s.ulow = s.ulow.min(s.uhi);
        s.umed = (s.umed + shift).clamp(s.ulow, s.uhi);
        self
    }
}

/// All parameters of the Lublin-Feitelson generator.
///
/// [`Default`] is the reference generator's default: 128 nodes, batch and
/// interactive job types, the published parameters, no target load, no
/// estimate. [`LublinParams::for_machine`] adapts the sizes to another machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct LublinParams {
    /// Number of nodes of the machine: written as MaxNodes/MaxProcs, used for
    /// the offered load, and an upper bound on job sizes (the reference does
    /// not cap; the cap only matters when a class's `uhi` exceeds log2 of it).
    pub machine_size: u32,
    /// `true`: two streams, batch and interactive (field 15 = 1 or 0); `false`:
    /// one typeless stream (field 15 = 0, as the reference writes).
    pub job_types: bool,
    /// The typeless class, used when `job_types` is `false`.
    pub typeless: ClassParams,
    /// The batch class, used when `job_types` is `true`.
    pub batch: ClassParams,
    /// The interactive class, used when `job_types` is `true`.
    pub interactive: ClassParams,
    /// Redraw a log runtime while it exceeds this (reference: 12, about 45 h).
    pub max_log_runtime: f64,
    /// Redraw a log inter-arrival draw while it exceeds this (reference: 13,
    /// about 5 days).
    pub max_log_interarrival: f64,
    /// Offered load to reach by scaling the inter-arrival times (see the crate
    /// docs); `None` keeps the arrival process as parameterised.
    pub target_load: Option<f64>,
    /// How the requested time (field 9) is made; `None` leaves it unknown
    /// (`-1`), as the reference generator does.
    pub estimate: Option<EstimateParams>,
}

impl Default for LublinParams {
    fn default() -> Self {
        Self {
            machine_size: DEFAULT_MACHINE_SIZE,
            job_types: true,
            typeless: ClassParams::TYPELESS,
            batch: ClassParams::BATCH,
            interactive: ClassParams::INTERACTIVE,
            max_log_runtime: 12.0,
            max_log_interarrival: 13.0,
            target_load: None,
            estimate: None,
        }
    }
}

impl LublinParams {
    /// The published parameters adapted to a machine of `nodes` nodes.
    ///
    /// Every class's `uhi` and `umed` move by `log2(nodes) - 7`, `ulow` stays.
    /// For the typeless class this is the doc's rule `uhi = log2(nodes)`,
    /// `umed = uhi - 2.5`; batch keeps its published `umed = uhi - 2`, and
    /// interactive keeps its ratio to the machine (`uhi = log2(nodes) - 1.5`,
    /// `umed = uhi - 2.5`: 8.5 and 6 on 1024 nodes). These are exactly the
    /// settings of the reference traces `lublin99_ref_*`. On machines below 8
    /// nodes the values are clamped to stay ordered (`ulow <= umed <= uhi`).
    pub fn for_machine(nodes: u32) -> Self {
        // 31 is the validated ceiling of uhi (sizes stay inside u32).
        let max_log2 = f64::from(nodes.max(1)).log2().min(31.0);
        let shift = max_log2 - f64::from(DEFAULT_MACHINE_SIZE).log2();
        Self {
            machine_size: nodes,
            typeless: ClassParams::TYPELESS.shifted(shift, max_log2),
            batch: ClassParams::BATCH.shifted(shift, max_log2),
            interactive: ClassParams::INTERACTIVE.shifted(shift, max_log2),
            ..Self::default()
        }
    }

    /// Sets the target offered load (see [`LublinParams::target_load`]).
    #[must_use]
    pub fn load(mut self, target: f64) -> Self {
        self.target_load = Some(target);
        self
    }

    /// Switches batch/interactive job types on or off.
    #[must_use]
    pub fn job_types(mut self, on: bool) -> Self {
        self.job_types = on;
        self
    }

    /// Sets the estimate model for the requested time.
    #[must_use]
    pub fn estimate(mut self, estimate: EstimateParams) -> Self {
        self.estimate = Some(estimate);
        self
    }

    /// The classes in use, with their names for error messages.
    pub(crate) fn active_classes(&self) -> Vec<(&'static str, &ClassParams)> {
        if self.job_types {
            vec![("batch", &self.batch), ("interactive", &self.interactive)]
        } else {
            vec![("typeless", &self.typeless)]
        }
    }

    /// Checks every parameter in use; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if self.machine_size == 0 {
            return Err(ParamsError::new("machine_size", 0.0, "at least 1"));
        }
        check_log_runtime_cap(self.max_log_runtime)?;
        check_positive("max_log_interarrival", self.max_log_interarrival)?;
        if let Some(load) = self.target_load {
            check_target_load("target_load", load)?;
        }
        if let Some(estimate) = &self.estimate {
            estimate.validate("estimate")?;
        }
        for (name, class) in self.active_classes() {
            validate_size(name, &class.size)?;
            validate_runtime(name, &class.runtime, self.max_log_runtime)?;
            validate_arrival(name, &class.arrival, self.max_log_interarrival)?;
        }
        Ok(())
    }
}

/// Smallest accepted probability that one gamma draw passes its cap. Below
/// it the redraw loop would spin (the reference loops forever); 1% means at
/// most 100 expected draws per value.
const MIN_ACCEPTANCE: f64 = 0.01;

pub(crate) fn check_finite(name: &str, value: f64) -> Result<(), ParamsError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ParamsError::new(name, value, "a finite number"))
    }
}

pub(crate) fn check_positive(name: &str, value: f64) -> Result<(), ParamsError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ParamsError::new(name, value, "a finite number above 0"))
    }
}

pub(crate) fn check_probability(name: &str, value: f64) -> Result<(), ParamsError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(ParamsError::new(name, value, "a probability in [0, 1]"))
    }
}

/// Runtimes are whole seconds in a `u32`: `exp(h)` must stay below 2^32
/// (ln 2^32 = 22.18; the reference's 12 is about 45 h).
pub(crate) fn check_log_runtime_cap(value: f64) -> Result<(), ParamsError> {
    if value > 0.0 && value <= 22.0 {
        Ok(())
    } else {
        Err(ParamsError::new("max_log_runtime", value, "in (0, 22]"))
    }
}

pub(crate) fn check_target_load(name: &str, value: f64) -> Result<(), ParamsError> {
    // The search scales inter-arrival times by 1e-6..1e6; loads outside this
    // range are not meaningful for a machine and would hit those bounds.
    if value.is_finite() && (1e-4..=1e3).contains(&value) {
        Ok(())
    } else {
        Err(ParamsError::new(name, value, "a load in [1e-4, 1000]"))
    }
}

fn validate_size(class: &str, s: &SizeParams) -> Result<(), ParamsError> {
    check_probability(&format!("{class}.size.serial_prob"), s.serial_prob)?;
    check_probability(&format!("{class}.size.pow2_prob"), s.pow2_prob)?;
    check_probability(&format!("{class}.size.uprob"), s.uprob)?;
    // 2^31 nodes is beyond any machine and keeps round(2^x) inside u32.
    if !(0.0..=31.0).contains(&s.uhi) {
        return Err(ParamsError::new(
            &format!("{class}.size.uhi"),
            s.uhi,
            "in [0, 31]",
        ));
    }
    if !(0.0..=s.uhi).contains(&s.umed) {
        return Err(ParamsError::new(
            &format!("{class}.size.umed"),
            s.umed,
            "in [0, uhi]",
        ));
    }
    if !(0.0..=s.umed).contains(&s.ulow) {
        return Err(ParamsError::new(
            &format!("{class}.size.ulow"),
            s.ulow,
            "in [0, umed]",
        ));
    }
    Ok(())
}

pub(crate) fn validate_runtime(
    class: &str,
    r: &RuntimeParams,
    cap: f64,
) -> Result<(), ParamsError> {
    for (field, shape, scale) in [("a1", r.a1, r.b1), ("a2", r.a2, r.b2)] {
        check_positive(&format!("{class}.runtime.{field}"), shape)?;
        let scale_name = if field == "a1" { "b1" } else { "b2" };
        check_positive(&format!("{class}.runtime.{scale_name}"), scale)?;
        if gamma_cdf(cap, shape, scale) < MIN_ACCEPTANCE {
            return Err(ParamsError::new(
                &format!("{class}.runtime.{field}"),
                shape,
                "a gamma component with at least 1% of its mass below max_log_runtime",
            ));
        }
    }
    check_finite(&format!("{class}.runtime.pa"), r.pa)?;
    check_finite(&format!("{class}.runtime.pb"), r.pb)
}

pub(crate) fn validate_arrival(
    class: &str,
    a: &ArrivalParams,
    cap: f64,
) -> Result<(), ParamsError> {
    check_positive(&format!("{class}.arrival.aarr"), a.aarr)?;
    check_positive(&format!("{class}.arrival.barr"), a.barr)?;
    check_positive(&format!("{class}.arrival.anum"), a.anum)?;
    check_positive(&format!("{class}.arrival.bnum"), a.bnum)?;
    check_positive(&format!("{class}.arrival.arar"), a.arar)?;
    if gamma_cdf(cap, a.aarr * a.arar, a.barr) < MIN_ACCEPTANCE {
        return Err(ParamsError::new(
            &format!("{class}.arrival.barr"),
            a.barr,
            "an inter-arrival gamma with at least 1% of its mass below max_log_interarrival",
        ));
    }
    // Every half hour must receive some arrivals, or the in-bucket remainder
    // divides by zero.
    let cycle = DailyCycle::new(a.anum, a.bnum);
    if !cycle.all_positive() {
        return Err(ParamsError::new(
            &format!("{class}.arrival.anum"),
            a.anum,
            "a daily cycle (anum, bnum) that gives every half hour a positive weight",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_published_values() {
        let p = LublinParams::default();
        assert_eq!(p.machine_size, 128);
        assert!(p.job_types);
        assert_eq!(p.typeless.size.serial_prob, 0.244);
        assert_eq!(p.batch.runtime.a2, 639.1);
        assert_eq!(p.interactive.arrival.arar, 0.9797);
        assert_eq!(p.max_log_runtime, 12.0);
        assert_eq!(p.max_log_interarrival, 13.0);
        p.validate().unwrap();
    }

    #[test]
    fn machine_adaptation_matches_the_reference_traces_settings() {
        // traces README: 1024 nodes -> typeless UHI 10 UMED 7.5, batch 10 / 8,
        // interactive 8.5 / 6; 256 typeless -> UHI 8, UMED 5.5.
        let p = LublinParams::for_machine(1024);
        assert_eq!((p.typeless.size.uhi, p.typeless.size.umed), (10.0, 7.5));
        assert_eq!((p.batch.size.uhi, p.batch.size.umed), (10.0, 8.0));
        assert_eq!(
            (p.interactive.size.uhi, p.interactive.size.umed),
            (8.5, 6.0)
        );
        assert_eq!(p.typeless.size.ulow, 0.8);
        let p = LublinParams::for_machine(256);
        assert_eq!((p.typeless.size.uhi, p.typeless.size.umed), (8.0, 5.5));
        assert_eq!(LublinParams::for_machine(128), LublinParams::default());
    }

    #[test]
    fn tiny_machines_stay_valid() {
        for nodes in [1, 2, 3, 5, 8, 100, 320, 1 << 20, u32::MAX] {
            let p = LublinParams::for_machine(nodes);
            p.validate().unwrap();
            p.clone().job_types(false).validate().unwrap();
        }
        // 2 nodes: uhi = 1; batch ulow 1.2 is pulled down to 1, umed = 1.
        let p = LublinParams::for_machine(2);
        assert_eq!(
            (p.batch.size.ulow, p.batch.size.umed, p.batch.size.uhi),
            (1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn validation_names_the_bad_parameter() {
        let mut p = LublinParams::default();
        p.batch.size.serial_prob = 1.5;
        let err = p.validate().unwrap_err().to_string();
        assert!(err.contains("batch.size.serial_prob"), "{err}");
        assert!(err.contains("1.5"), "{err}");

        let mut p = LublinParams::default();
        p.interactive.runtime.b2 = -1.0;
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .contains("interactive.runtime.b2")
        );

        // A runtime gamma whose mass lies almost all above the cap of 12.
        let mut p = LublinParams::default().job_types(false);
        p.typeless.runtime.a2 = 1000.0; // mean 30 with b2 = 0.03, sd ~0.95
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .contains("typeless.runtime.a2")
        );

        // Unused classes are not checked: typeless mode ignores batch.
        let mut p = LublinParams::default().job_types(false);
        p.batch.size.uprob = f64::NAN;
        p.validate().unwrap();

        let p = LublinParams {
            max_log_runtime: 23.0, // e^23 s does not fit the u32 runtimes
            ..LublinParams::default()
        };
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .contains("max_log_runtime")
        );
        assert!(LublinParams::default().load(0.0).validate().is_err());
        assert!(LublinParams::default().load(f64::NAN).validate().is_err());
        let p = LublinParams {
            machine_size: 0,
            ..LublinParams::default()
        };
        assert!(p.validate().is_err());
    }

    #[test]
    fn params_round_trip_through_json_and_accept_partial_input() {
        let p = LublinParams::for_machine(512).load(0.7);
        let json = serde_json::to_string(&p).unwrap();
        let back: LublinParams = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        let partial: LublinParams =
            serde_json::from_str(r#"{"machine_size": 64, "job_types": false}"#).unwrap();
        assert_eq!(partial.machine_size, 64);
        assert!(!partial.job_types);
        assert_eq!(partial.typeless, ClassParams::TYPELESS);
        assert!(serde_json::from_str::<LublinParams>(r#"{"machine_sise": 64}"#).is_err());
    }
}

//! Building the policies of Kumar et al.'s Table III from specs.

use schedsim_sim_core::Policy;

use crate::backfill::Backfill;
use crate::dedicated::{DedicatedMode, EasyD, LosD};
use crate::delayed_los::{DelayedLos, DelayedLosConfig, HybridLos};
use crate::elastic::Elastic;
use crate::error::SpecError;
use crate::los::{Los, LosConfig, LosVariant};
use crate::spec::{Options, PolicySpec, apply_los_options, los_config};

/// The options of Delayed-LOS and Hybrid-LOS.
pub(crate) const DELAYED_LOS_OPTIONS: &[(&str, &str)] = &[
    (
        "cs",
        "maximum skip count C_s: cycles the queue head may be skipped while it fits (default 7)",
    ),
    (
        "lookahead",
        "how many waiting jobs the DP examines (default 50)",
    ),
    (
        "merit",
        "tie-break among equal-utilization sets: none (default), maxjobs, max-slowdown",
    ),
    (
        "traceback",
        "among tied sets: bypassed-first (default, nearer the head) or selected-first",
    ),
];

type Built = Box<dyn Policy + Send>;

/// Builds the policy if `spec` names one of Kumar et al.'s (other than
/// plain `easy` and `los`); `None` for any other name.
pub(crate) fn build(spec: &PolicySpec, options: &Options<'_>) -> Result<Option<Built>, SpecError> {
    let los = || los_config(LosVariant::Reservation, options);
    let dedicated = || dedicated_mode(options);
    let built: Built = match spec.name.as_str() {
        "easy-e" => Box::new(Elastic::new(Backfill::easy(), "easy-e")),
        "easy-d" => Box::new(EasyD::new(false).with_dedicated(dedicated()?)),
        "easy-de" => Box::new(EasyD::new(true).with_dedicated(dedicated()?)),
        "los-e" => {
            let config = los()?;
            let name = renamed(&config, "los-e");
            Box::new(Elastic::new(Los::new(config), name))
        }
        "los-d" => Box::new(LosD::new(los()?, false).with_dedicated(dedicated()?)),
        "los-de" => Box::new(LosD::new(los()?, true).with_dedicated(dedicated()?)),
        "delayed-los" => Box::new(DelayedLos::new(delayed_config(options, false)?)),
        "delayed-los-e" => Box::new(DelayedLos::new(delayed_config(options, true)?)),
        "hybrid-los" => Box::new(HybridLos::new(delayed_config(options, false)?)),
        "hybrid-los-e" => Box::new(HybridLos::new(delayed_config(options, true)?)),
        _ => return Ok(None),
    };
    Ok(Some(built))
}

/// LOS's canonical name with `los` replaced by `base`, e.g.
/// `los-e:lookahead=25`.
fn renamed(config: &LosConfig, base: &str) -> String {
    let name = config.to_string();
    match name.split_once(':') {
        Some((_, options)) => format!("{base}:{options}"),
        None => base.to_owned(),
    }
}

/// EASY-D's and LOS-D's `dedicated` option.
fn dedicated_mode(options: &Options<'_>) -> Result<DedicatedMode, SpecError> {
    match options.get("dedicated") {
        None => Ok(DedicatedMode::default()),
        Some(value) => DedicatedMode::from_name(value).ok_or_else(|| {
            options.bad_value(
                "dedicated",
                value,
                "profile, head, head-literal or head-all",
            )
        }),
    }
}

fn delayed_config(options: &Options<'_>, elastic: bool) -> Result<DelayedLosConfig, SpecError> {
    let mut config = DelayedLosConfig {
        elastic,
        ..DelayedLosConfig::default()
    };
    if let Some(cycles) = options.whole(
        "cs",
        (0, u32::MAX.into()),
        "a whole number of cycles, 0 or more",
    )? {
        config.skip_threshold = cycles;
    }
    apply_los_options(
        options,
        &mut config.merit,
        &mut config.traceback,
        &mut config.lookahead,
    )?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use crate::spec::{PolicySpec, build_policy};

    fn build(text: &str) -> Result<(String, bool, bool), String> {
        let spec: PolicySpec = text.parse().map_err(|e: crate::SpecError| e.to_string())?;
        let policy = build_policy(&spec).map_err(|e| e.to_string())?;
        let capabilities = policy.capabilities();
        Ok((
            policy.name().to_owned(),
            capabilities.dedicated_jobs,
            capabilities.elastic_commands,
        ))
    }

    #[test]
    fn all_twelve_names_of_table_iii() {
        // (spec, heterogeneous = dedicated jobs handled, ECC processor), as
        // Table III lists them.
        let table = [
            ("easy", false, false),
            ("easy-d", true, false),
            ("easy-e", false, true),
            ("easy-de", true, true),
            ("los", false, false),
            ("los-d", true, false),
            ("los-e", false, true),
            ("los-de", true, true),
            ("delayed-los", false, false),
            ("hybrid-los", true, false),
            ("delayed-los-e", false, true),
            ("hybrid-los-e", true, true),
        ];
        for (name, dedicated, elastic) in table {
            assert_eq!(build(name).unwrap(), (name.to_owned(), dedicated, elastic));
        }
    }

    #[test]
    fn options_and_canonical_names() {
        assert_eq!(build("delayed-los:cs=7").unwrap().0, "delayed-los");
        assert_eq!(
            build("hybrid-los:cs=8,lookahead=25").unwrap().0,
            "hybrid-los:cs=8,lookahead=25"
        );
        assert_eq!(
            build("hybrid-los-e:lookahead=50,cs=0,merit=maxjobs")
                .unwrap()
                .0,
            "hybrid-los-e:cs=0,merit=maxjobs"
        );
        assert_eq!(
            build("los-de:merit=max-slowdown").unwrap().0,
            "los-de:merit=max-slowdown"
        );
        assert_eq!(build("los-e:lookahead=20").unwrap().0, "los-e:lookahead=20");
        // A number out of range gets the range (cs is a u32: 0 to 2^32 - 1
        // = 4294967295), other text what is expected.
        assert_eq!(
            build("delayed-los:cs=-1").unwrap_err(),
            "policy `delayed-los`: option `cs` = `-1` is out of range (0 to 4294967295)"
        );
        assert_eq!(
            build("delayed-los:cs=99999999999999").unwrap_err(),
            "policy `delayed-los`: option `cs` = `99999999999999` is out of range (0 to 4294967295)"
        );
        assert_eq!(
            build("delayed-los:cs=4294967295").unwrap().0,
            "delayed-los:cs=4294967295"
        );
        assert_eq!(
            build("delayed-los:cs=seven").unwrap_err(),
            "policy `delayed-los`: option `cs` = `seven` is not valid (expected a whole number of cycles, 0 or more)"
        );
        assert_eq!(
            build("easy-d:order=sjf").unwrap_err(),
            "policy `easy-d` has no option `order` (known: dedicated)"
        );
        assert_eq!(build("easy-d:dedicated=profile").unwrap().0, "easy-d");
        assert_eq!(
            build("easy-de:dedicated=head").unwrap(),
            ("easy-de:dedicated=head".to_owned(), true, true)
        );
        assert_eq!(
            build("los-d:dedicated=head-all,lookahead=25").unwrap().0,
            "los-d:lookahead=25,dedicated=head-all"
        );
        assert_eq!(
            build("los-de:dedicated=head").unwrap().0,
            "los-de:dedicated=head"
        );
        assert_eq!(
            build("los-d:dedicated=all").unwrap_err(),
            "policy `los-d`: option `dedicated` = `all` is not valid (expected profile, head, head-literal or head-all)"
        );
        assert_eq!(
            build("hybrid-los:lookahead=0").unwrap_err(),
            "policy `hybrid-los`: option `lookahead` = `0` is out of range (1 to 4294967295)"
        );
    }
}

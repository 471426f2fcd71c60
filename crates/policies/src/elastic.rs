//! The -E variants of policies that know nothing of elasticity.

use schedsim_sim_core::{Capabilities, Decisions, Policy, View};

/// A policy run with the ECC processor on (Kumar et al., section III-C):
/// EASY-E is `Elastic::new(Backfill::easy(), "easy-e")`, LOS-E is LOS so
/// wrapped.
///
/// The policy itself is unchanged: the simulator applies the elastic
/// control commands (ET/RT) to the estimates the policy reads and to the
/// running jobs' ends, first-come first-served at their times (see
/// [`Capabilities::elastic_commands`]). Without the wrapper the commands are
/// ignored and counted.
#[derive(Debug, Clone)]
pub struct Elastic<P> {
    inner: P,
    name: String,
}

impl<P: Policy> Elastic<P> {
    /// `inner` with the ECC processor, reported as `name`.
    pub fn new(inner: P, name: impl Into<String>) -> Self {
        Self {
            inner,
            name: name.into(),
        }
    }

    /// The wrapped policy.
    pub fn inner(&self) -> &P {
        &self.inner
    }
}

impl<P: Policy> Policy for Elastic<P> {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities().with_elastic_commands()
    }

    fn schedule(&mut self, view: &View<'_>, decisions: &mut Decisions) {
        self.inner.schedule(view, decisions);
    }
}

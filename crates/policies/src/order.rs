use serde::{Deserialize, Serialize};

use schedsim_sim_core::{JobId, View};

/// The priority order in which a policy considers waiting jobs. Ties are
/// always broken by arrival order, so every order is total and
/// deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueOrder {
    /// First come, first served: arrival order (`fcfs`).
    #[default]
    Fcfs,
    /// Shortest estimated runtime first (`sjf`, also known as SPT).
    ShortestFirst,
    /// Largest size (processors) first (`ljf`).
    LargestFirst,
    /// Smallest size x estimated runtime first (`saf`, smallest cumulative
    /// demand first).
    SmallestAreaFirst,
}

impl QueueOrder {
    /// All orders, for listings.
    pub const ALL: [Self; 4] = [
        Self::Fcfs,
        Self::ShortestFirst,
        Self::LargestFirst,
        Self::SmallestAreaFirst,
    ];

    /// The short name used in policy specs.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::ShortestFirst => "sjf",
            Self::LargestFirst => "ljf",
            Self::SmallestAreaFirst => "saf",
        }
    }

    /// Parses a short name (see [`name`](Self::name)).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|order| order.name() == name)
    }

    /// Fills `out` with the waiting jobs of `view` in this order.
    pub(crate) fn arrange(self, view: &View<'_>, out: &mut Vec<JobId>) {
        out.clear();
        out.extend_from_slice(view.queue());
        // Job ids grow with arrival order, so (key, id) is a total order that
        // breaks ties by arrival; an unstable sort on it needs no buffer.
        match self {
            Self::Fcfs => {}
            Self::ShortestFirst => out.sort_unstable_by_key(|&id| (view.estimate(id), id)),
            Self::LargestFirst => {
                out.sort_unstable_by_key(|&id| (std::cmp::Reverse(view.job(id).size), id));
            }
            Self::SmallestAreaFirst => out.sort_unstable_by_key(|&id| {
                let area = i128::from(view.job(id).size) * i128::from(view.estimate(id));
                (area, id)
            }),
        }
    }
}

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
    /// Shortest estimated runtime first (`sjf`; the LOS thesis' chapter 2
    /// calls it SPT, Shortest Processing Time first).
    ShortestFirst,
    /// Smallest size (processors) first (`ssf`; the thesis' chapter 2 calls
    /// it SJF, Smallest Job First: "sorts the waiting jobs by increasing
    /// size and executes the smallest jobs first").
    SmallestFirst,
    /// Largest size (processors) first (`ljf`).
    LargestFirst,
    /// Smallest size x estimated runtime first (`saf`, smallest cumulative
    /// demand first).
    SmallestAreaFirst,
    /// Slurm's multifactor priority (`multifactor`), highest first,
    /// recomputed every PriorityCalcPeriod: the policy holds the priority
    /// engine ([`Multifactor`](crate::Multifactor)), see
    /// [`Backfill::with_multifactor`](crate::Backfill::with_multifactor).
    Multifactor,
}

impl QueueOrder {
    /// The static orders (all but [`Multifactor`](Self::Multifactor), whose
    /// priorities live in the policy), for listings.
    pub const ALL: [Self; 5] = [
        Self::Fcfs,
        Self::ShortestFirst,
        Self::SmallestFirst,
        Self::LargestFirst,
        Self::SmallestAreaFirst,
    ];

    /// The short name used in policy specs.
    pub fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::ShortestFirst => "sjf",
            Self::SmallestFirst => "ssf",
            Self::LargestFirst => "ljf",
            Self::SmallestAreaFirst => "saf",
            Self::Multifactor => "multifactor",
        }
    }

    /// Parses a short name (see [`name`](Self::name)).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain([Self::Multifactor])
            .find(|order| order.name() == name)
    }

    /// Fills `out` with the waiting jobs of `view` in this order.
    pub(crate) fn arrange(self, view: &View<'_>, out: &mut Vec<JobId>) {
        out.clear();
        out.extend_from_slice(view.queue());
        // Job ids grow with arrival order, so (key, id) is a total order that
        // breaks ties by arrival; an unstable sort on it needs no buffer.
        match self {
            // Multifactor priorities are arranged by the policy's engine.
            Self::Fcfs | Self::Multifactor => {}
            Self::ShortestFirst => out.sort_unstable_by_key(|&id| (view.estimate(id), id)),
            Self::SmallestFirst => out.sort_unstable_by_key(|&id| (view.job(id).size, id)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim_sim_core::{Job, ViewStorage};

    #[test]
    fn orders_break_ties_by_arrival() {
        // (size, estimate): A (4, 10), B (2, 50), C (2, 5), D (8, 1).
        let jobs = [
            Job::new(1, 0, 4, 10, 10),
            Job::new(2, 1, 2, 50, 50),
            Job::new(3, 2, 2, 5, 5),
            Job::new(4, 3, 8, 1, 1),
        ];
        let queue: Vec<JobId> = (0..4).map(JobId).collect();
        let mut storage = ViewStorage::default();
        let view = View::new(10, 16, &jobs, &queue, &[], &mut storage);
        let order = |order: QueueOrder| {
            let mut out = Vec::new();
            order.arrange(&view, &mut out);
            out.iter()
                .map(|id| jobs[id.index()].number)
                .collect::<Vec<_>>()
        };
        assert_eq!(order(QueueOrder::Fcfs), [1, 2, 3, 4]);
        // Estimates 10, 50, 5, 1.
        assert_eq!(order(QueueOrder::ShortestFirst), [4, 3, 1, 2]);
        // Sizes 4, 2, 2, 8: B and C tie at 2, B arrived first.
        assert_eq!(order(QueueOrder::SmallestFirst), [2, 3, 1, 4]);
        assert_eq!(order(QueueOrder::LargestFirst), [4, 1, 2, 3]);
        // Areas 40, 100, 10, 8.
        assert_eq!(order(QueueOrder::SmallestAreaFirst), [4, 3, 1, 2]);
    }
}

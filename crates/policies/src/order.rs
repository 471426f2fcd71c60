use serde::{Deserialize, Serialize};

use schedsim_sim_core::{JobId, JobState, View};

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

    /// Fills `out` with the waiting jobs of `view` in this order by a full
    /// sort (the reference [`SortedQueue`] is tested against).
    #[cfg(test)]
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

impl QueueOrder {
    /// The sort key of a waiting job (ties broken by id by the callers);
    /// `None` for orders without a static key (fcfs, multifactor).
    pub(crate) fn key(self, view: &View<'_>, id: JobId) -> Option<i128> {
        let job = view.job(id);
        match self {
            Self::Fcfs | Self::Multifactor => None,
            Self::ShortestFirst => Some(i128::from(view.estimate(id))),
            Self::SmallestFirst => Some(i128::from(job.size)),
            Self::LargestFirst => Some(-i128::from(job.size)),
            Self::SmallestAreaFirst => Some(i128::from(job.size) * i128::from(view.estimate(id))),
        }
    }
}

/// The waiting jobs in a static order ([`QueueOrder::ShortestFirst`] and
/// the other size or estimate keys), kept sorted across calls, with the
/// result of [`QueueOrder::arrange`]. Each call drops the jobs that left
/// the queue, inserts the new arrivals, and sorts again only if an
/// estimate changed (an elastic command; [`View::estimate_changes`]).
///
/// Finding who left costs one look at every waiting job (its state,
/// scattered through the job table), unless the caller names them: when
/// the jobs it started in its last call account for every departure, they
/// are found by binary search. A few arrivals are inserted by binary
/// search too, so a call with a long queue costs O((starts + arrivals) x
/// log n) comparisons plus moving the ids after each insertion point
/// (4 bytes a job), instead of visiting every job.
#[derive(Debug, Clone, Default)]
pub(crate) struct SortedQueue {
    /// The waiting jobs, sorted by (key, id).
    ids: Vec<JobId>,
    scratch: Vec<JobId>,
    new: Vec<(i128, JobId)>,
    /// The last job id merged in (arrivals come in id order).
    seen: Option<JobId>,
    /// [`View::estimate_changes`] when the order was last made.
    estimate_changes: Option<u64>,
}

/// Arrivals beyond this many in one call are merged in one pass rather
/// than inserted one by one.
const INSERT_ONE_BY_ONE: usize = 8;

impl SortedQueue {
    /// The queue of `view` in `order` (a static order: not fcfs or
    /// multifactor). `started` are the jobs the caller started since the
    /// last call (a hint: any other departure is found by a full pass).
    pub(crate) fn arrange(
        &mut self,
        order: QueueOrder,
        view: &View<'_>,
        started: &[JobId],
    ) -> &[JobId] {
        let key = |id: JobId| (order.key(view, id).unwrap_or(0), id);
        let queue = view.queue();
        if self.estimate_changes != Some(view.estimate_changes()) {
            // Keys may have changed (or this is the first call).
            self.ids.clear();
            self.ids.extend_from_slice(queue);
            self.ids.sort_unstable_by_key(|&id| key(id));
        } else {
            let first_new = self
                .seen
                .map_or(0, |seen| queue.partition_point(|&id| id <= seen));
            let arrivals = &queue[first_new..];
            let departures_are_starts = self.ids.len() + arrivals.len()
                == queue.len() + started.len()
                && started
                    .iter()
                    .all(|&id| view.state(id) != JobState::Waiting);
            let mut found = departures_are_starts;
            if departures_are_starts {
                for &id in started {
                    match self.ids.binary_search_by_key(&key(id), |&other| key(other)) {
                        Ok(position) => {
                            self.ids.remove(position);
                        }
                        Err(_) => found = false,
                    }
                }
            }
            if !found {
                self.ids.retain(|&id| view.state(id) == JobState::Waiting);
            }
            if arrivals.len() <= INSERT_ONE_BY_ONE {
                for &id in arrivals {
                    let k = key(id);
                    let position = self.ids.partition_point(|&other| key(other) < k);
                    self.ids.insert(position, id);
                }
            } else {
                self.new.clear();
                self.new.extend(arrivals.iter().map(|&id| (key(id).0, id)));
                self.new.sort_unstable();
                self.scratch.clear();
                self.scratch.reserve(self.ids.len() + self.new.len());
                let mut new = self.new.iter().peekable();
                for &id in &self.ids {
                    let k = key(id);
                    while let Some(&&(nk, nid)) = new.peek() {
                        if (nk, nid) < k {
                            self.scratch.push(nid);
                            new.next();
                        } else {
                            break;
                        }
                    }
                    self.scratch.push(id);
                }
                self.scratch.extend(new.map(|&(_, id)| id));
                std::mem::swap(&mut self.ids, &mut self.scratch);
            }
        }
        if let Some(&last) = queue.last() {
            self.seen = Some(self.seen.map_or(last, |seen| seen.max(last)));
        }
        self.estimate_changes = Some(view.estimate_changes());
        debug_assert!(
            self.ids.len() == queue.len()
                && self
                    .ids
                    .iter()
                    .all(|&id| view.state(id) == JobState::Waiting)
                && self.ids.windows(2).all(|pair| key(pair[0]) < key(pair[1])),
            "the sorted queue lost track of the waiting jobs"
        );
        &self.ids
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(100))]
        /// Over a run of calls whose queues lose jobs and gain later
        /// arrivals, the incrementally kept order equals a full sort, whether
        /// the caller names the departed jobs, names none, or names a job
        /// that is still waiting.
        #[test]
        fn the_kept_order_equals_a_full_sort(
            jobs in proptest::collection::vec((1u32..8, 1i64..50), 1..40),
            steps in proptest::collection::vec((0usize..40, 0u8..4), 1..12),
        ) {
            let jobs: Vec<Job> = jobs
                .iter()
                .enumerate()
                .map(|(i, &(size, estimate))| Job::new(i as u64 + 1, i as i64, size, estimate, estimate))
                .collect();
            for order in [
                QueueOrder::ShortestFirst,
                QueueOrder::SmallestFirst,
                QueueOrder::LargestFirst,
                QueueOrder::SmallestAreaFirst,
            ] {
                let mut kept = SortedQueue::default();
                let mut arrived = 0usize;
                let mut waiting: Vec<JobId> = Vec::new();
                for &(arrive, leave) in &steps {
                    // Some jobs start (every `leave + 2`-th waiting one), then
                    // up to `arrive` more arrive.
                    let mut index = 0;
                    let mut departed = Vec::new();
                    waiting.retain(|&id| {
                        index += 1;
                        let stays = index % (usize::from(leave) + 2) != 0;
                        if !stays {
                            departed.push(id);
                        }
                        stays
                    });
                    // The caller's hint: right (the fast path), missing
                    // (a count mismatch), or naming a job still waiting.
                    let mut hint = match leave {
                        0 | 1 => departed.clone(),
                        2 => Vec::new(),
                        _ => departed.iter().copied().chain(waiting.first().copied()).collect(),
                    };
                    hint.reverse();
                    let upto = (arrived + arrive % 6).min(jobs.len());
                    waiting.extend((arrived..upto).map(|i| JobId(i as u32)));
                    arrived = upto;
                    let mut storage = ViewStorage::default();
                    let view = View::new(16, 0, &jobs, &waiting, &[], &mut storage);
                    let mut expected = Vec::new();
                    order.arrange(&view, &mut expected);
                    proptest::prop_assert_eq!(kept.arrange(order, &view, &hint), &expected[..]);
                }
            }
        }
    }
}

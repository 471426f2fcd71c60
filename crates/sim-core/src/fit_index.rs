use crate::Time;

/// Sizes and estimates of the waiting jobs, indexed by job id, so that a
/// backfilling scan can jump to the next job that could start instead of
/// visiting every waiting job: "the first waiting job at or after id `from`
/// that needs at most `free` processors and either has an estimate of at
/// most `max_estimate` or needs at most `small` processors".
///
/// A segment tree over a power-of-two number of leaves; each node holds the
/// minimum size and the minimum estimate of its subtree, which prunes every
/// subtree that cannot hold a match. Leaf `i` holds job `i` while it waits
/// and `(u32::MAX, Time::MAX)` otherwise.
#[derive(Debug, Clone, Default)]
pub(crate) struct FitIndex {
    leaves: usize,
    min_size: Vec<u32>,
    min_estimate: Vec<Time>,
}

/// What [`FitIndex::first_match`] looks for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FitQuery {
    pub(crate) free: u32,
    pub(crate) max_estimate: Time,
    pub(crate) small: u32,
}

impl FitQuery {
    /// Whether a subtree whose minima are `size` and `estimate` may hold a
    /// match (exact for a leaf).
    fn may_match(self, size: u32, estimate: Time) -> bool {
        size <= self.free && (estimate <= self.max_estimate || size <= self.small)
    }
}

impl FitIndex {
    pub(crate) fn new(jobs: usize) -> Self {
        let leaves = jobs.max(1).next_power_of_two();
        Self {
            leaves,
            min_size: vec![u32::MAX; 2 * leaves],
            min_estimate: vec![Time::MAX; 2 * leaves],
        }
    }

    /// An index of `jobs` jobs of which those in `waiting` (index, size,
    /// estimate) wait: the same tree as [`new`](Self::new) and an
    /// [`insert`](Self::insert) of each, built bottom-up in linear time.
    pub(crate) fn build(
        jobs: usize,
        waiting: impl IntoIterator<Item = (usize, u32, Time)>,
    ) -> Self {
        let mut index = Self::new(jobs);
        for (job, size, estimate) in waiting {
            index.min_size[index.leaves + job] = size;
            index.min_estimate[index.leaves + job] = estimate;
        }
        for node in (1..index.leaves).rev() {
            index.min_size[node] = index.min_size[2 * node].min(index.min_size[2 * node + 1]);
            index.min_estimate[node] =
                index.min_estimate[2 * node].min(index.min_estimate[2 * node + 1]);
        }
        index
    }

    /// Marks job `index` as waiting with this size and estimate.
    pub(crate) fn insert(&mut self, index: usize, size: u32, estimate: Time) {
        self.set(index, size, estimate);
    }

    /// Marks job `index` as no longer waiting.
    pub(crate) fn remove(&mut self, index: usize) {
        self.set(index, u32::MAX, Time::MAX);
    }

    fn set(&mut self, index: usize, size: u32, estimate: Time) {
        let mut node = index + self.leaves;
        self.min_size[node] = size;
        self.min_estimate[node] = estimate;
        while node > 1 {
            node /= 2;
            let size = self.min_size[2 * node].min(self.min_size[2 * node + 1]);
            let estimate = self.min_estimate[2 * node].min(self.min_estimate[2 * node + 1]);
            if (self.min_size[node], self.min_estimate[node]) == (size, estimate) {
                // Unchanged here, so above too.
                break;
            }
            self.min_size[node] = size;
            self.min_estimate[node] = estimate;
        }
    }

    /// The smallest index `>= from` that matches `query`.
    ///
    /// Bottom-up: from leaf `from`, climb while the subtrees to the right
    /// cannot hold a match, then search the first one that may. A scan that
    /// asks for the next match after the previous one (LOS collecting its
    /// candidates, a backfilling pass) so costs about the logarithm of the
    /// distance to the match, not of the queue's length.
    pub(crate) fn first_match(&self, from: usize, query: FitQuery) -> Option<usize> {
        if from >= self.leaves {
            return None;
        }
        let (mut node, mut lo, mut width) = (from + self.leaves, from, 1);
        if query.may_match(self.min_size[node], self.min_estimate[node]) {
            return Some(from);
        }
        while node > 1 {
            if node % 2 == 0 {
                // A left child: its right sibling covers the indices just after.
                let sibling_lo = lo + width;
                if let Some(found) =
                    self.search(node + 1, sibling_lo, sibling_lo + width, sibling_lo, query)
                {
                    return Some(found);
                }
            } else {
                lo -= width;
            }
            node /= 2;
            width *= 2;
        }
        None
    }

    /// Depth-first search of node `node`, which covers `lo..hi`.
    fn search(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        query: FitQuery,
    ) -> Option<usize> {
        if hi <= from || !query.may_match(self.min_size[node], self.min_estimate[node]) {
            return None;
        }
        if node >= self.leaves {
            return Some(lo);
        }
        let mid = lo + (hi - lo) / 2;
        self.search(2 * node, lo, mid, from, query)
            .or_else(|| self.search(2 * node + 1, mid, hi, from, query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_match_at_or_after_from() {
        // (size, estimate); None = not waiting.
        let jobs = [
            Some((5, 100)),
            Some((9, 10)),
            Some((2, 50)),
            Some((7, 5)),
            None,
            Some((3, 500)),
            Some((8, 1)),
        ];
        let mut index = FitIndex::new(jobs.len());
        for (i, job) in jobs.iter().enumerate() {
            if let Some((size, estimate)) = *job {
                index.insert(i, size, estimate);
            }
        }
        // Brute force over starts and queries.
        for from in 0..9 {
            for free in [0, 2, 3, 5, 7, 8, 9, 20] {
                for max_estimate in [0, 1, 5, 50, 100, 1000] {
                    for small in [0, 2, 3, 5] {
                        let query = FitQuery {
                            free,
                            max_estimate,
                            small,
                        };
                        let expected = (from..jobs.len()).find(|&i| {
                            jobs[i].is_some_and(|(s, e)| {
                                s <= free && (e <= max_estimate || s <= small)
                            })
                        });
                        assert_eq!(
                            index.first_match(from, query),
                            expected,
                            "from {from} {query:?}"
                        );
                    }
                }
            }
        }
        index.remove(2);
        let any = |free| FitQuery {
            free,
            max_estimate: Time::MAX,
            small: 0,
        };
        assert_eq!(index.first_match(0, any(2)), None);
        assert_eq!(index.first_match(0, any(3)), Some(5));
    }

    #[test]
    fn build_equals_inserts() {
        for n in [0, 1, 2, 5, 8, 100, 1000] {
            let waiting: Vec<(usize, u32, Time)> = (0..n)
                .filter(|i| i % 3 != 1)
                .map(|i| (i, (i * 7 % 13) as u32 + 1, (i * 31 % 97) as Time))
                .rev()
                .collect();
            let mut inserted = FitIndex::new(n);
            for &(i, size, estimate) in &waiting {
                inserted.insert(i, size, estimate);
            }
            let built = FitIndex::build(n, waiting);
            assert_eq!(built.leaves, inserted.leaves);
            assert_eq!(built.min_size, inserted.min_size, "{n} jobs");
            assert_eq!(built.min_estimate, inserted.min_estimate, "{n} jobs");
        }
    }

    /// Inserts and removes in any order (updates stop where a minimum is
    /// unchanged) leave the tree that building it from the jobs left gives.
    #[test]
    fn updates_equal_a_build_of_what_is_left() {
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d_u64);
        let n = 300;
        let mut index = FitIndex::new(n);
        let mut waiting: Vec<Option<(u32, Time)>> = vec![None; n];
        for step in 0..6000 {
            let job = next(n as u64) as usize;
            if next(2) == 0 {
                let entry = (1 + next(5) as u32, next(50) as Time);
                index.insert(job, entry.0, entry.1);
                waiting[job] = Some(entry);
            } else {
                index.remove(job);
                waiting[job] = None;
            }
            if step % 97 == 0 {
                let left = waiting
                    .iter()
                    .enumerate()
                    .filter_map(|(i, entry)| entry.map(|(size, estimate)| (i, size, estimate)));
                let built = FitIndex::build(n, left);
                assert_eq!(index.min_size, built.min_size, "after {step} updates");
                assert_eq!(
                    index.min_estimate, built.min_estimate,
                    "after {step} updates"
                );
            }
        }
    }

    #[test]
    fn bottom_up_search_agrees_with_a_scan_on_larger_queues() {
        // xorshift: 1,000 random jobs, some not waiting, random queries.
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15_u64);
        let n = 1000;
        let jobs: Vec<Option<(u32, Time)>> = (0..n)
            .map(|_| (next(4) != 0).then(|| (1 + next(64) as u32, next(1000) as Time)))
            .collect();
        let mut index = FitIndex::new(n);
        for (i, job) in jobs.iter().enumerate() {
            if let Some((size, estimate)) = *job {
                index.insert(i, size, estimate);
            }
        }
        for _ in 0..5000 {
            let from = next(n as u64 + 2) as usize;
            let query = FitQuery {
                free: next(70) as u32,
                max_estimate: if next(3) == 0 {
                    Time::MAX
                } else {
                    next(1000) as Time
                },
                small: next(8) as u32,
            };
            let expected = (from..n).find(|&i| {
                jobs[i].is_some_and(|(s, e)| {
                    s <= query.free && (e <= query.max_estimate || s <= query.small)
                })
            });
            assert_eq!(
                index.first_match(from, query),
                expected,
                "from {from} {query:?}"
            );
        }
    }
}

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
///
/// The two minima alone can come from different jobs: a queue that mixes
/// narrow long jobs with wide short ones passes both tests in every
/// subtree without holding a job that fits, and the search then visits the
/// whole queue (EASY went quadratic on such a workload: 4.9 s for 142k
/// jobs). So each node covering at least 32 leaves ([`CLASS_SHIFT`]) keeps
/// the minimum estimate per size class (sizes in `(2^(k-1), 2^k]` form class
/// `k`): a subtree may then hold a match only if a class that can fit in
/// `free` has an estimate within `max_estimate`. Only the class holding
/// `free` itself can still mislead (then the search goes on as before),
/// and below the class nodes a subtree of 32 leaves at most.
#[derive(Debug, Clone, Default)]
pub(crate) struct FitIndex {
    leaves: usize,
    min_size: Vec<u32>,
    min_estimate: Vec<Time>,
    /// Size classes per node: enough for the machine's largest job.
    classes: usize,
    /// Nodes `1..class_nodes` (those covering at least 32 leaves) keep per-class minima.
    class_nodes: usize,
    /// `class_estimate[node * classes + k]`: the minimum estimate of the
    /// class-`k` jobs below `node`.
    class_estimate: Vec<Time>,
}

/// `log2` of the leaves below the smallest nodes with per-class minima:
/// lower nodes cost less to search through than to keep minima for (a
/// class minimum costs 8 bytes per class per node).
const CLASS_SHIFT: u32 = 5;

/// The size class of `size`: `ceil(log2(size))`, 0 for sizes 0 and 1.
fn size_class(size: u32) -> usize {
    (u32::BITS - size.saturating_sub(1).leading_zeros()) as usize
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
    /// An empty index of `jobs` jobs on a machine of `procs` processors.
    pub(crate) fn new(jobs: usize, procs: u32) -> Self {
        let leaves = jobs.max(1).next_power_of_two();
        let classes = size_class(procs) + 1;
        let class_nodes = (2 * leaves) >> CLASS_SHIFT;
        Self {
            leaves,
            min_size: vec![u32::MAX; 2 * leaves],
            min_estimate: vec![Time::MAX; 2 * leaves],
            classes,
            class_nodes,
            class_estimate: vec![Time::MAX; class_nodes * classes],
        }
    }

    /// An index of `jobs` jobs on `procs` processors of which those in
    /// `waiting` (index, size, estimate) wait: the same tree as
    /// [`new`](Self::new) and an [`insert`](Self::insert) of each, built
    /// bottom-up in linear time.
    pub(crate) fn build(
        jobs: usize,
        procs: u32,
        waiting: impl IntoIterator<Item = (usize, u32, Time)>,
    ) -> Self {
        let mut index = Self::new(jobs, procs);
        for (job, size, estimate) in waiting {
            index.min_size[index.leaves + job] = size;
            index.min_estimate[index.leaves + job] = estimate;
        }
        for node in (1..index.leaves).rev() {
            index.min_size[node] = index.min_size[2 * node].min(index.min_size[2 * node + 1]);
            index.min_estimate[node] =
                index.min_estimate[2 * node].min(index.min_estimate[2 * node + 1]);
        }
        let classes = index.classes;
        // The smallest class nodes from their leaves, the others from their
        // children.
        for leaf in index.leaves..2 * index.leaves {
            let node = leaf >> CLASS_SHIFT;
            if node == 0 {
                break;
            }
            let class = index.class_of(index.min_size[leaf]);
            let entry = &mut index.class_estimate[node * classes + class];
            *entry = (*entry).min(index.min_estimate[leaf]);
        }
        for node in (1..index.class_nodes / 2).rev() {
            for class in 0..classes {
                index.class_estimate[node * classes + class] = index.class_estimate
                    [2 * node * classes + class]
                    .min(index.class_estimate[(2 * node + 1) * classes + class]);
            }
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

    /// The class a size is kept in: sizes beyond the machine (which never
    /// wait) share the top class.
    fn class_of(&self, size: u32) -> usize {
        size_class(size).min(self.classes - 1)
    }

    /// The sizes class `class` holds, `low..=high`: as [`class_of`](Self::class_of) gives.
    fn class_sizes(&self, class: usize) -> (u32, u32) {
        let low = match class {
            0 => 0,
            _ => (1u32 << (class - 1)) + 1,
        };
        let high = if class + 1 == self.classes {
            u32::MAX
        } else {
            1 << class
        };
        (low, high)
    }

    fn set(&mut self, index: usize, size: u32, estimate: Time) {
        let mut node = index + self.leaves;
        let (old_size, old_estimate) = (self.min_size[node], self.min_estimate[node]);
        self.min_size[node] = size;
        self.min_estimate[node] = estimate;
        // Only a finite estimate counts in a class minimum.
        if old_estimate != Time::MAX {
            self.class_raised(index, self.class_of(old_size), old_estimate);
        }
        if estimate != Time::MAX {
            self.class_lowered(index, self.class_of(size), estimate);
        }
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

    /// A class-`class` job with this estimate now waits at job `index`'s
    /// leaf: the class minima above it fall to it where higher.
    fn class_lowered(&mut self, index: usize, class: usize, estimate: Time) {
        let mut node = (index + self.leaves) >> CLASS_SHIFT;
        while node > 0 {
            let entry = &mut self.class_estimate[node * self.classes + class];
            if *entry <= estimate {
                // Lower here already, so above too.
                break;
            }
            *entry = estimate;
            node /= 2;
        }
    }

    /// The class-`class` job with this estimate no longer waits at job
    /// `index`'s leaf: the class minima above it that it held are
    /// recomputed, the smallest class node from its leaves.
    fn class_raised(&mut self, index: usize, class: usize, estimate: Time) {
        let mut node = (index + self.leaves) >> CLASS_SHIFT;
        if node == 0 || self.class_estimate[node * self.classes + class] < estimate {
            // No class nodes, or another job holds the minimum.
            return;
        }
        let leaves = node << CLASS_SHIFT..(node + 1) << CLASS_SHIFT;
        let (low, high) = self.class_sizes(class);
        // Branch-free, so that the compiler vectorises it: this runs each
        // time a job that held its class minimum starts.
        let mut lowest = Time::MAX;
        for (&size, &estimate) in self.min_size[leaves.clone()]
            .iter()
            .zip(&self.min_estimate[leaves])
        {
            let in_class = size.wrapping_sub(low) <= high - low;
            lowest = lowest.min(if in_class { estimate } else { Time::MAX });
        }
        loop {
            let entry = &mut self.class_estimate[node * self.classes + class];
            if *entry == lowest {
                // Unchanged here, so above too.
                break;
            }
            *entry = lowest;
            if node == 1 {
                break;
            }
            let sibling = self.class_estimate[(node ^ 1) * self.classes + class];
            lowest = lowest.min(sibling);
            node /= 2;
        }
    }

    /// Whether node `node`, which passed [`FitQuery::may_match`] and keeps
    /// class minima, may hold a match by its classes: a job small enough
    /// for `small` (its minimum size says), or a class that can fit in
    /// `free` with an estimate within `max_estimate`.
    fn classes_may_match(&self, node: usize, query: FitQuery) -> bool {
        if query.max_estimate == Time::MAX || self.min_size[node] <= query.small {
            return true;
        }
        let first = node * self.classes;
        let last = first + self.class_of(query.free);
        self.class_estimate[first..=last]
            .iter()
            .any(|&estimate| estimate <= query.max_estimate)
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
        #[cfg(test)]
        tests::VISITS.with(|visits| visits.set(visits.get() + 1));
        if hi <= from || !query.may_match(self.min_size[node], self.min_estimate[node]) {
            return None;
        }
        if node >= self.leaves {
            return Some(lo);
        }
        if node < self.class_nodes && !self.classes_may_match(node, query) {
            return None;
        }
        let mid = lo + (hi - lo) / 2;
        self.search(2 * node, lo, mid, from, query)
            .or_else(|| self.search(2 * node + 1, mid, hi, from, query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// The first job at or after `from` that matches `query`, by a scan.
    fn scan(jobs: &[Option<(u32, Time)>], from: usize, query: FitQuery) -> Option<usize> {
        (from..jobs.len()).find(|&i| {
            jobs[i].is_some_and(|(s, e)| {
                s <= query.free && (e <= query.max_estimate || s <= query.small)
            })
        })
    }

    thread_local! {
        /// Nodes [`FitIndex::search`] visited on this thread.
        pub(super) static VISITS: Cell<usize> = const { Cell::new(0) };
    }

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
        let mut index = FitIndex::new(jobs.len(), 16);
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
            let mut inserted = FitIndex::new(n, 64);
            for &(i, size, estimate) in &waiting {
                inserted.insert(i, size, estimate);
            }
            let built = FitIndex::build(n, 64, waiting);
            assert_eq!(built.leaves, inserted.leaves);
            assert_eq!(built.min_size, inserted.min_size, "{n} jobs");
            assert_eq!(built.min_estimate, inserted.min_estimate, "{n} jobs");
            assert_eq!(built.class_estimate, inserted.class_estimate, "{n} jobs");
        }
    }

    /// Inserts and removes in any order (updates stop where a minimum is
    /// unchanged) leave the tree that building it from the jobs left gives.
    #[test]
    fn updates_equal_a_build_of_what_is_left() {
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d_u64);
        let n = 300;
        let mut index = FitIndex::new(n, 64);
        let mut waiting: Vec<Option<(u32, Time)>> = vec![None; n];
        for step in 0..6000 {
            let job = next(n as u64) as usize;
            if next(2) == 0 {
                let entry = (1 + next(64) as u32, next(50) as Time);
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
                let built = FitIndex::build(n, 64, left);
                assert_eq!(index.min_size, built.min_size, "after {step} updates");
                assert_eq!(
                    index.min_estimate, built.min_estimate,
                    "after {step} updates"
                );
                assert_eq!(
                    index.class_estimate, built.class_estimate,
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
        let mut index = FitIndex::new(n, 64);
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
            let expected = scan(&jobs, from, query);
            assert_eq!(
                index.first_match(from, query),
                expected,
                "from {from} {query:?}"
            );
        }
    }

    /// Narrow long jobs mixed with wide short ones: every subtree has a
    /// small minimum size and a small minimum estimate, from different
    /// jobs. Without the class minima a query that nothing matches visits
    /// more nodes than there are jobs; with them, a few per level.
    #[test]
    fn anti_correlated_shapes_are_pruned_by_class() {
        // The five shapes of the workload that made EASY quadratic, on 64
        // processors: (4, 100), (32, 300), (64, 60), (16, 400), (8, 100).
        let shapes = [(4, 100), (32, 300), (64, 60), (16, 400), (8, 100)];
        let n = 4096;
        let index = FitIndex::build(
            n,
            64,
            (0..n).map(|i| {
                let (size, estimate) = shapes[i % shapes.len()];
                (i, size, estimate)
            }),
        );
        // 28 free processors until the shadow time 70 s away: (4, 100)
        // and (8, 100) fit but end too late, (64, 60) would end in time but
        // is too wide; the node minima (size 4, estimate 60) cannot tell.
        let query = FitQuery {
            free: 28,
            max_estimate: 70,
            small: 0,
        };
        let visits = |index: &FitIndex| {
            VISITS.with(|visits| visits.set(0));
            assert_eq!(index.first_match(0, query), None);
            VISITS.with(Cell::get)
        };
        // Climbing from leaf 0, each of the 12 levels searches its right
        // sibling. The siblings of 1, 2, 4, 8 and 16 leaves have no class
        // minima and may be searched whole (1 + 3 + 7 + 15 + 31 = 57
        // nodes); the 7 of 32 to 2,048 leaves are pruned at once (7).
        let visited = visits(&index);
        assert!(visited <= 57 + 7, "visited {visited} nodes");
        // The same tree without its class minima visits more nodes than
        // there are jobs (4,494).
        let plain = FitIndex {
            class_nodes: 0,
            ..index.clone()
        };
        let visited = visits(&plain);
        assert!(visited > n, "visited {visited} nodes");
        // A query that does match still finds the first one: (8, 100) at 4.
        let query = FitQuery {
            free: 28,
            max_estimate: 100,
            small: 0,
        };
        assert_eq!(index.first_match(0, query), Some(0));
        assert_eq!(index.first_match(1, query), Some(4));
    }

    /// The class minima against a scan, on sizes across every class of a
    /// 1,024-processor machine (several per class, so that the class
    /// holding `free` mixes fitting and unfitting jobs) and estimates
    /// anti-correlated with sizes.
    #[test]
    fn class_pruning_agrees_with_a_scan() {
        let mut next = crate::xorshift(0x853c_49e6_748f_ea9b_u64);
        let n = 3000;
        let procs = 1024;
        let mut jobs: Vec<Option<(u32, Time)>> = (0..n)
            .map(|_| {
                let size = 1 + next(procs as u64) as u32;
                let estimate = 2000 - 2 * Time::from(size) + next(100) as Time;
                (next(5) != 0).then_some((size, estimate))
            })
            .collect();
        let mut index = FitIndex::build(
            n,
            procs,
            jobs.iter()
                .enumerate()
                .filter_map(|(i, job)| job.map(|(size, estimate)| (i, size, estimate))),
        );
        for round in 0..4000 {
            if round % 4 == 0 {
                // Change a job, to check queries against updated minima.
                let job = next(n as u64) as usize;
                jobs[job] =
                    (next(3) != 0).then(|| (1 + next(procs as u64) as u32, next(2100) as Time));
                match jobs[job] {
                    Some((size, estimate)) => index.insert(job, size, estimate),
                    None => index.remove(job),
                }
            }
            let from = next(n as u64 + 2) as usize;
            let query = FitQuery {
                free: next(procs as u64 + 10) as u32,
                max_estimate: if next(4) == 0 {
                    Time::MAX
                } else {
                    next(2100) as Time
                },
                small: if next(2) == 0 { 0 } else { next(64) as u32 },
            };
            let expected = scan(&jobs, from, query);
            assert_eq!(
                index.first_match(from, query),
                expected,
                "round {round}, from {from} {query:?}"
            );
        }
    }

    #[test]
    fn size_classes_are_powers_of_two() {
        // Class k holds sizes (2^(k-1), 2^k].
        let classes: Vec<usize> = [0, 1, 2, 3, 4, 5, 8, 9, 1024, 1025]
            .into_iter()
            .map(size_class)
            .collect();
        assert_eq!(classes, [0, 0, 1, 2, 2, 3, 3, 4, 10, 11]);
        assert_eq!(size_class(u32::MAX), 32);
        assert_eq!(FitIndex::new(10, 1 << 24).classes, 25);
        // class_sizes is class_of's inverse, the top class taking every
        // size beyond.
        let index = FitIndex::new(10, 1000);
        assert_eq!(index.classes, 11);
        for size in (0..3000).chain([u32::MAX - 1, u32::MAX]) {
            let (low, high) = index.class_sizes(index.class_of(size));
            assert!((low..=high).contains(&size), "{size} in {low}..={high}");
        }
        assert_eq!(index.class_sizes(0), (0, 1));
        assert_eq!(index.class_sizes(3), (5, 8));
        assert_eq!(index.class_sizes(10), (513, u32::MAX));
    }
}

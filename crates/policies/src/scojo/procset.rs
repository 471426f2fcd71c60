//! Sets of processors as sorted spans of allocation blocks: which are
//! free, which a suspended job needs back, which a start may use.
//!
//! Spans rather than one bit per block: a call of the policy builds and
//! combines a few of these sets, and on a machine of 2^24 processors
//! bitsets cost 2 MB each to clear and scan, where the spans are as many
//! as the jobs' allocations.

use schedsim_sim_core::ProcRange;

/// Blocks `from..to`.
type Span = (u32, u32);

/// A set of allocation blocks (processors in groups of the machine's
/// granularity): disjoint, non-adjacent spans in increasing order, so
/// that equal sets are equal values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProcSet {
    spans: Vec<Span>,
}

/// The spans of the blocks where `keep(in a, in b)` holds, into `out`:
/// one sweep over both sets' boundaries. `keep(false, false)` must be
/// false.
fn combine(a: &[Span], b: &[Span], keep: impl Fn(bool, bool) -> bool, out: &mut Vec<Span>) {
    out.clear();
    let mut bounds_a = a.iter().flat_map(|&(from, to)| [from, to]).peekable();
    let mut bounds_b = b.iter().flat_map(|&(from, to)| [from, to]).peekable();
    let (mut in_a, mut in_b) = (false, false);
    let mut open = None;
    loop {
        let at = match (bounds_a.peek(), bounds_b.peek()) {
            (None, None) => break,
            (Some(&x), None) | (None, Some(&x)) => x,
            (Some(&x), Some(&y)) => x.min(y),
        };
        if bounds_a.next_if_eq(&at).is_some() {
            in_a = !in_a;
        }
        if bounds_b.next_if_eq(&at).is_some() {
            in_b = !in_b;
        }
        match (open, keep(in_a, in_b)) {
            (None, true) => open = Some(at),
            (Some(from), false) => {
                out.push((from, at));
                open = None;
            }
            _ => {}
        }
    }
}

impl ProcSet {
    /// The empty set.
    pub(crate) fn empty() -> Self {
        Self::default()
    }

    /// Empties the set.
    pub(crate) fn clear(&mut self) {
        self.spans.clear();
    }

    /// Whether any block of processor ranges is in the set.
    pub(crate) fn intersects_ranges(&self, ranges: &[ProcRange], granularity: u32) -> bool {
        ranges.iter().any(|range| {
            let (from, to) = (range.first / granularity, (range.last + 1) / granularity);
            // The first span ending after `from` is the only one that may
            // start before `to`.
            let index = self.spans.partition_point(|&(_, end)| end <= from);
            self.spans
                .get(index)
                .is_some_and(|&(start, _)| start < to && from < to)
        })
    }

    /// Adds the blocks of processor ranges (whole blocks of `granularity`).
    pub(crate) fn add_ranges(&mut self, ranges: &[ProcRange], granularity: u32) {
        let mut added: Vec<Span> = ranges
            .iter()
            .map(|range| (range.first / granularity, (range.last + 1) / granularity))
            .filter(|&(from, to)| from < to)
            .collect();
        added.sort_unstable();
        // Merge overlapping and adjacent ones, then join the set.
        let mut merged: Vec<Span> = Vec::with_capacity(added.len());
        for (from, to) in added {
            match merged.last_mut() {
                Some(last) if from <= last.1 => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        self.union_spans(&merged);
    }

    fn union_spans(&mut self, other: &[Span]) {
        if other.is_empty() {
            return;
        }
        let mut out = Vec::with_capacity(self.spans.len() + other.len());
        combine(&self.spans, other, |a, b| a || b, &mut out);
        self.spans = out;
    }

    /// Adds every block of `other`.
    pub(crate) fn union_with(&mut self, other: &Self) {
        self.union_spans(&other.spans);
    }

    /// Removes every block of `other`.
    pub(crate) fn remove(&mut self, other: &Self) {
        if other.spans.is_empty() || self.spans.is_empty() {
            return;
        }
        let mut out = Vec::with_capacity(self.spans.len() + other.spans.len());
        combine(&self.spans, &other.spans, |a, b| a && !b, &mut out);
        self.spans = out;
    }

    /// Blocks in the set.
    pub(crate) fn count(&self) -> u32 {
        self.spans.iter().map(|&(from, to)| to - from).sum()
    }

    /// Whether the two sets share a block.
    pub(crate) fn intersects(&self, other: &Self) -> bool {
        let mut common = Vec::new();
        combine(&self.spans, &other.spans, |a, b| a && b, &mut common);
        !common.is_empty()
    }

    /// Whether every block of `self` is in `other`.
    pub(crate) fn is_subset(&self, other: &Self) -> bool {
        let mut outside = Vec::new();
        combine(&self.spans, &other.spans, |a, b| a && !b, &mut outside);
        outside.is_empty()
    }

    /// `self` without the blocks of every set of `excluded`.
    fn without(&self, excluded: &[&Self]) -> Self {
        let mut left = self.clone();
        for set in excluded {
            left.remove(set);
        }
        left
    }

    /// Blocks of `self` in none of `excluded`.
    pub(crate) fn count_without(&self, excluded: &[&Self]) -> u32 {
        self.without(excluded).count()
    }

    /// Fills `out` with the `n` lowest blocks of `self` that are in none of
    /// `excluded`, taking first those also outside `avoided` (blocks a later
    /// resumption may need); false (and `out` unspecified) if there are
    /// fewer than `n`.
    pub(crate) fn take_lowest(
        &self,
        n: u32,
        excluded: &[&Self],
        avoided: &Self,
        out: &mut Self,
    ) -> bool {
        out.spans.clear();
        let available = self.without(excluded);
        let preferred = available.without(&[avoided]);
        let mut needed = n;
        needed -= out.take_from(&preferred, needed);
        if needed > 0 {
            let rest = available.without(&[out]);
            let mut more = Self::empty();
            needed -= more.take_from(&rest, needed);
            out.union_with(&more);
        }
        needed == 0
    }

    /// Adds to the (empty) set the lowest blocks of `from`, at most `n`;
    /// returns how many.
    fn take_from(&mut self, from: &Self, n: u32) -> u32 {
        let mut taken = 0;
        for &(start, end) in &from.spans {
            if taken == n {
                break;
            }
            let take = (end - start).min(n - taken);
            self.spans.push((start, start + take));
            taken += take;
        }
        taken
    }

    /// The set as processor ranges, lowest first, adjacent blocks merged.
    pub(crate) fn ranges(&self, granularity: u32, out: &mut Vec<ProcRange>) {
        out.clear();
        out.extend(
            self.spans
                .iter()
                .map(|&(from, to)| block_range(from, to - 1, granularity)),
        );
    }
}

fn block_range(first: u32, last: u32, granularity: u32) -> ProcRange {
    ProcRange {
        first: first * granularity,
        last: (last + 1) * granularity - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ranges: &[(u32, u32)]) -> ProcSet {
        let mut s = ProcSet::empty();
        let ranges: Vec<ProcRange> = ranges
            .iter()
            .map(|&(first, last)| ProcRange { first, last })
            .collect();
        s.add_ranges(&ranges, 1);
        s
    }

    #[test]
    fn ranges_round_trip_and_merge() {
        // Overlapping and adjacent ranges given in any order merge.
        let s = set(&[(60, 70), (3, 5), (129, 129), (66, 71), (6, 6)]);
        assert_eq!(s.count(), 4 + 12 + 1);
        let mut out = Vec::new();
        s.ranges(1, &mut out);
        let text: Vec<String> = out.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["3-6", "60-71", "129"]);
        // Granularity 4: blocks 1-2 are processors 4-11.
        let mut g = ProcSet::empty();
        g.add_ranges(&[ProcRange { first: 4, last: 11 }], 4);
        g.ranges(4, &mut out);
        assert_eq!(out, [ProcRange { first: 4, last: 11 }]);
    }

    #[test]
    fn lowest_blocks_skip_exclusions_and_prefer_unavoided_ones() {
        // Free 0-9; 2-3 excluded; 4-5 avoided if possible.
        let free = set(&[(0, 9)]);
        let excluded = set(&[(2, 3)]);
        let avoided = set(&[(4, 5)]);
        let mut out = ProcSet::empty();
        assert_eq!(free.count_without(&[&excluded]), 8);
        // 5 blocks: 0, 1, 6, 7, 8 (4-5 avoided while others remain).
        assert!(free.take_lowest(5, &[&excluded], &avoided, &mut out));
        assert_eq!(out, set(&[(0, 1), (6, 8)]));
        // 8 blocks need the avoided ones too.
        assert!(free.take_lowest(8, &[&excluded], &avoided, &mut out));
        assert_eq!(out, set(&[(0, 1), (4, 9)]));
        assert!(!free.take_lowest(9, &[&excluded], &avoided, &mut out));
        assert!(excluded.intersects(&free) && !excluded.intersects(&avoided));
    }

    /// Every operation against one bool per block, on random sets of 100
    /// blocks (the spans replaced bitsets; this is the bitsets' meaning).
    #[test]
    fn spans_agree_with_one_flag_per_block() {
        const BLOCKS: u32 = 100;
        let mut next = {
            let mut state = 0x2545_f491_4f6c_dd1d_u64;
            move |bound: u32| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % u64::from(bound)) as u32
            }
        };
        let random = |next: &mut dyn FnMut(u32) -> u32| {
            let mut flags = vec![false; BLOCKS as usize];
            let mut ranges = Vec::new();
            for _ in 0..next(6) {
                let first = next(BLOCKS);
                let last = (first + next(30)).min(BLOCKS - 1);
                ranges.push(ProcRange { first, last });
                flags[first as usize..=last as usize].fill(true);
            }
            let mut spans = ProcSet::empty();
            spans.add_ranges(&ranges, 1);
            (spans, flags)
        };
        let blocks_of =
            |flags: &[bool]| -> Vec<u32> { (0..BLOCKS).filter(|&b| flags[b as usize]).collect() };
        let listed = |s: &ProcSet| -> Vec<u32> {
            let mut out = Vec::new();
            s.ranges(1, &mut out);
            out.iter().flat_map(|r| r.first..=r.last).collect()
        };
        // Spans non-empty, in order, apart: one value per set.
        let canonical = |s: &ProcSet| {
            s.spans.iter().all(|&(from, to)| from < to)
                && s.spans.windows(2).all(|w| w[0].1 < w[1].0)
        };
        for round in 0..2000 {
            let (a, fa) = random(&mut next);
            let (b, fb) = random(&mut next);
            let (c, fc) = random(&mut next);
            assert_eq!(listed(&a), blocks_of(&fa), "round {round}");
            let both = |f: fn(bool, bool) -> bool| -> Vec<bool> {
                fa.iter().zip(&fb).map(|(&x, &y)| f(x, y)).collect()
            };
            let mut union = a.clone();
            union.union_with(&b);
            assert_eq!(listed(&union), blocks_of(&both(|x, y| x || y)));
            let mut difference = a.clone();
            difference.remove(&b);
            assert!(canonical(&a) && canonical(&union) && canonical(&difference));
            assert_eq!(listed(&difference), blocks_of(&both(|x, y| x && !y)));
            assert_eq!(a.intersects(&b), both(|x, y| x && y).contains(&true));
            assert_eq!(a.is_subset(&b), !both(|x, y| x && !y).contains(&true));
            assert_eq!(a.count() as usize, blocks_of(&fa).len());
            let ranges: Vec<ProcRange> = {
                let mut out = Vec::new();
                b.ranges(1, &mut out);
                out
            };
            assert_eq!(
                a.intersects_ranges(&ranges, 1),
                both(|x, y| x && y).contains(&true)
            );
            // take_lowest: the lowest blocks of a outside b, those outside c
            // first.
            let available: Vec<u32> = (0..BLOCKS)
                .filter(|&k| fa[k as usize] && !fb[k as usize])
                .collect();
            assert_eq!(a.count_without(&[&b]) as usize, available.len());
            let n = next(40);
            let mut expected: Vec<u32> = available
                .iter()
                .copied()
                .filter(|&k| !fc[k as usize])
                .chain(available.iter().copied().filter(|&k| fc[k as usize]))
                .take(n as usize)
                .collect();
            expected.sort_unstable();
            let mut out = ProcSet::empty();
            let enough = a.take_lowest(n, &[&b], &c, &mut out);
            assert_eq!(enough, available.len() >= n as usize, "round {round}");
            if enough {
                assert_eq!(listed(&out), expected, "round {round}");
                assert!(canonical(&out), "round {round}: {out:?}");
            }
        }
    }
}

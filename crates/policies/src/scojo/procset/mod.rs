//! Sets of processors by allocation block: which are free, which a
//! suspended job needs back, which a start may use.
//!
//! Two representations behind one type, chosen by the machine's size: one
//! bit per block up to [`SPANS_ABOVE`] blocks (a few words on the machines
//! of real traces), sorted spans above it (a call costs what the
//! allocations do, not the 2 MB a bitset of 2^24 processors takes to clear
//! and scan). Bitsets alone made 500 jobs on 2^24 processors take 3.64 s;
//! spans alone doubled the time on 128 nodes (docs/RESULTS.md).

mod bits;
mod spans;

use schedsim_sim_core::ProcRange;

use bits::BitSet;
use spans::SpanSet;

/// Machines of more blocks than this keep their sets as spans: a bitset
/// of 65,536 blocks is 1,024 words, still a short pass.
pub(crate) const SPANS_ABOVE: u32 = 1 << 16;

/// A set of allocation blocks (processors in groups of the machine's
/// granularity). Every set of one machine has the same representation;
/// operations on two sets of different ones (which the policy never
/// builds) go through spans and give the same blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProcSet {
    Bits(BitSet),
    Spans(SpanSet),
}

impl Default for ProcSet {
    fn default() -> Self {
        Self::Bits(BitSet::default())
    }
}

impl ProcSet {
    /// The empty set over `blocks` blocks.
    pub(crate) fn empty(blocks: u32) -> Self {
        if blocks > SPANS_ABOVE {
            Self::Spans(SpanSet::default())
        } else {
            Self::Bits(BitSet::empty(blocks))
        }
    }

    /// Empties the set, keeping its size.
    pub(crate) fn clear(&mut self) {
        match self {
            Self::Bits(set) => set.clear(),
            Self::Spans(set) => set.clear(),
        }
    }

    /// Empties the set and sizes it for `blocks` blocks.
    pub(crate) fn reset(&mut self, blocks: u32) {
        match self {
            Self::Bits(set) if blocks <= SPANS_ABOVE => set.reset(blocks),
            Self::Spans(set) if blocks > SPANS_ABOVE => set.clear(),
            _ => *self = Self::empty(blocks),
        }
    }

    /// The set as spans (a copy for a bitset): the common ground of two
    /// sets of different representations.
    fn to_spans(&self) -> SpanSet {
        match self {
            Self::Bits(set) => set.to_spans(),
            Self::Spans(set) => set.clone(),
        }
    }

    /// Replaces the set's blocks with those of `spans`, keeping its
    /// representation.
    fn assign(&mut self, spans: &SpanSet) {
        match self {
            Self::Bits(set) => set.assign_spans(spans),
            Self::Spans(set) => set.clone_from(spans),
        }
    }

    /// Whether any block of processor ranges is in the set.
    pub(crate) fn intersects_ranges(&self, ranges: &[ProcRange], granularity: u32) -> bool {
        match self {
            Self::Bits(set) => set.intersects_ranges(ranges, granularity),
            Self::Spans(set) => set.intersects_ranges(ranges, granularity),
        }
    }

    /// Adds the blocks of processor ranges (whole blocks of `granularity`).
    pub(crate) fn add_ranges(&mut self, ranges: &[ProcRange], granularity: u32) {
        match self {
            Self::Bits(set) => set.add_ranges(ranges, granularity),
            Self::Spans(set) => set.add_ranges(ranges, granularity),
        }
    }

    /// Adds every block of `other`.
    pub(crate) fn union_with(&mut self, other: &Self) {
        match (&mut *self, other) {
            (Self::Bits(set), Self::Bits(other)) => set.union_with(other),
            (Self::Spans(set), Self::Spans(other)) => set.union_with(other),
            _ => {
                let mut spans = self.to_spans();
                spans.union_with(&other.to_spans());
                self.assign(&spans);
            }
        }
    }

    /// Removes every block of `other`.
    pub(crate) fn remove(&mut self, other: &Self) {
        match (&mut *self, other) {
            (Self::Bits(set), Self::Bits(other)) => set.remove(other),
            (Self::Spans(set), Self::Spans(other)) => set.remove(other),
            _ => {
                let mut spans = self.to_spans();
                spans.remove(&other.to_spans());
                self.assign(&spans);
            }
        }
    }

    /// Blocks in the set.
    pub(crate) fn count(&self) -> u32 {
        match self {
            Self::Bits(set) => set.count(),
            Self::Spans(set) => set.count(),
        }
    }

    /// Whether the two sets share a block.
    pub(crate) fn intersects(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Bits(set), Self::Bits(other)) => set.intersects(other),
            (Self::Spans(set), Self::Spans(other)) => set.intersects(other),
            _ => self.to_spans().intersects(&other.to_spans()),
        }
    }

    /// Whether every block of `self` is in `other`.
    pub(crate) fn is_subset(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Bits(set), Self::Bits(other)) => set.is_subset(other),
            (Self::Spans(set), Self::Spans(other)) => set.is_subset(other),
            _ => self.to_spans().is_subset(&other.to_spans()),
        }
    }

    /// Blocks of `self` in neither of `excluded`.
    pub(crate) fn count_without(&self, excluded: [&Self; 2]) -> u32 {
        match (self, excluded) {
            (Self::Bits(set), [Self::Bits(a), Self::Bits(b)]) => set.count_without([a, b]),
            (Self::Spans(set), [Self::Spans(a), Self::Spans(b)]) => set.count_without([a, b]),
            _ => self
                .to_spans()
                .count_without([&excluded[0].to_spans(), &excluded[1].to_spans()]),
        }
    }

    /// Fills `out` with the `n` lowest blocks of `self` that are in neither
    /// of `excluded`, taking first those also outside `avoided` (blocks a
    /// later resumption may need); false (and `out` unspecified) if there
    /// are fewer than `n`.
    pub(crate) fn take_lowest(
        &self,
        n: u32,
        excluded: [&Self; 2],
        avoided: &Self,
        out: &mut Self,
    ) -> bool {
        match (self, excluded, avoided, &mut *out) {
            (
                Self::Bits(set),
                [Self::Bits(a), Self::Bits(b)],
                Self::Bits(avoided),
                Self::Bits(out),
            ) => set.take_lowest(n, [a, b], avoided, out),
            (
                Self::Spans(set),
                [Self::Spans(a), Self::Spans(b)],
                Self::Spans(avoided),
                Self::Spans(out),
            ) => set.take_lowest(n, [a, b], avoided, out),
            _ => {
                let mut spans = SpanSet::default();
                let enough = self.to_spans().take_lowest(
                    n,
                    [&excluded[0].to_spans(), &excluded[1].to_spans()],
                    &avoided.to_spans(),
                    &mut spans,
                );
                out.assign(&spans);
                enough
            }
        }
    }

    /// The set as processor ranges, lowest first, adjacent blocks merged.
    pub(crate) fn ranges(&self, granularity: u32, out: &mut Vec<ProcRange>) {
        match self {
            Self::Bits(set) => set.ranges(granularity, out),
            Self::Spans(set) => set.ranges(granularity, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCKS: u32 = 100;

    /// A set of `BLOCKS` blocks holding `ranges`, as bits or as spans.
    fn set(spans: bool, ranges: &[(u32, u32)]) -> ProcSet {
        let mut s = if spans {
            ProcSet::Spans(SpanSet::default())
        } else {
            ProcSet::empty(BLOCKS)
        };
        let ranges: Vec<ProcRange> = ranges
            .iter()
            .map(|&(first, last)| ProcRange { first, last })
            .collect();
        s.add_ranges(&ranges, 1);
        s
    }

    fn listed(s: &ProcSet) -> Vec<String> {
        let mut out = Vec::new();
        s.ranges(1, &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_machine_size_chooses_the_representation() {
        assert!(matches!(ProcSet::empty(SPANS_ABOVE), ProcSet::Bits(_)));
        assert!(matches!(ProcSet::empty(SPANS_ABOVE + 1), ProcSet::Spans(_)));
        let mut s = ProcSet::empty(128);
        s.reset(1 << 24);
        assert!(matches!(s, ProcSet::Spans(_)));
        s.reset(128);
        assert!(matches!(s, ProcSet::Bits(_)));
        // 2^24 processors: the last block is an ordinary member.
        let mut huge = ProcSet::empty(1 << 24);
        let top = ProcRange {
            first: (1 << 24) - 8,
            last: (1 << 24) - 1,
        };
        huge.add_ranges(&[top], 1);
        assert_eq!(huge.count(), 8);
        assert_eq!(listed(&huge), ["16777208-16777215"]);
    }

    #[test]
    fn ranges_round_trip_and_merge() {
        for spans in [false, true] {
            // Overlapping and adjacent ranges given in any order merge,
            // across a word's boundary.
            let s = set(spans, &[(60, 70), (3, 5), (99, 99), (66, 71), (6, 6)]);
            assert_eq!(s.count(), 4 + 12 + 1);
            assert_eq!(listed(&s), ["3-6", "60-71", "99"]);
            // Granularity 4: blocks 1-2 are processors 4-11.
            let mut g = if spans {
                ProcSet::Spans(SpanSet::default())
            } else {
                ProcSet::empty(8)
            };
            g.add_ranges(&[ProcRange { first: 4, last: 11 }], 4);
            let mut out = Vec::new();
            g.ranges(4, &mut out);
            assert_eq!(out, [ProcRange { first: 4, last: 11 }]);
        }
    }

    #[test]
    fn lowest_blocks_skip_exclusions_and_prefer_unavoided_ones() {
        for spans in [false, true] {
            // Free 0-9; 2-3 excluded; 4-5 avoided if possible.
            let free = set(spans, &[(0, 9)]);
            let excluded = set(spans, &[(2, 3)]);
            let none = set(spans, &[]);
            let avoided = set(spans, &[(4, 5)]);
            let mut out = set(spans, &[]);
            assert_eq!(free.count_without([&excluded, &none]), 8);
            // 5 blocks: 0, 1, 6, 7, 8 (4-5 avoided while others remain).
            assert!(free.take_lowest(5, [&excluded, &none], &avoided, &mut out));
            assert_eq!(out, set(spans, &[(0, 1), (6, 8)]));
            // 8 blocks need the avoided ones too.
            assert!(free.take_lowest(8, [&none, &excluded], &avoided, &mut out));
            assert_eq!(out, set(spans, &[(0, 1), (4, 9)]));
            assert!(!free.take_lowest(9, [&excluded, &none], &avoided, &mut out));
            assert!(excluded.intersects(&free) && !excluded.intersects(&avoided));
        }
    }

    /// Every operation against one bool per block, on random sets of 100
    /// blocks, each set a bitset or spans at random: both representations
    /// and every mix of them mean the same blocks.
    #[test]
    fn every_representation_agrees_with_one_flag_per_block() {
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
                ranges.push((first, last));
                flags[first as usize..=last as usize].fill(true);
            }
            (set(next(2) == 1, &ranges), flags)
        };
        let blocks_of =
            |flags: &[bool]| -> Vec<u32> { (0..BLOCKS).filter(|&b| flags[b as usize]).collect() };
        let members = |s: &ProcSet| -> Vec<u32> {
            let mut out = Vec::new();
            s.ranges(1, &mut out);
            out.iter().flat_map(|r| r.first..=r.last).collect()
        };
        // Spans non-empty, in order, apart: one value per set.
        let canonical = |s: &ProcSet| match s {
            ProcSet::Bits(_) => true,
            ProcSet::Spans(set) => {
                set.spans().iter().all(|&(from, to)| from < to)
                    && set.spans().windows(2).all(|w| w[0].1 < w[1].0)
            }
        };
        for round in 0..3000 {
            let (a, fa) = random(&mut next);
            let (b, fb) = random(&mut next);
            let (c, fc) = random(&mut next);
            let (d, fd) = random(&mut next);
            assert_eq!(members(&a), blocks_of(&fa), "round {round}");
            let both = |f: fn(bool, bool) -> bool| -> Vec<bool> {
                fa.iter().zip(&fb).map(|(&x, &y)| f(x, y)).collect()
            };
            let mut union = a.clone();
            union.union_with(&b);
            assert_eq!(members(&union), blocks_of(&both(|x, y| x || y)));
            let mut difference = a.clone();
            difference.remove(&b);
            assert!(canonical(&a) && canonical(&union) && canonical(&difference));
            assert_eq!(members(&difference), blocks_of(&both(|x, y| x && !y)));
            assert_eq!(a.intersects(&b), both(|x, y| x && y).contains(&true));
            assert_eq!(a.is_subset(&b), !both(|x, y| x && !y).contains(&true));
            assert_eq!(a.count() as usize, blocks_of(&fa).len());
            let mut ranges = Vec::new();
            b.ranges(1, &mut ranges);
            assert_eq!(
                a.intersects_ranges(&ranges, 1),
                both(|x, y| x && y).contains(&true)
            );
            // take_lowest: the lowest blocks of a outside b and d, those
            // outside c first.
            let available: Vec<u32> = (0..BLOCKS)
                .filter(|&k| fa[k as usize] && !fb[k as usize] && !fd[k as usize])
                .collect();
            assert_eq!(a.count_without([&b, &d]) as usize, available.len());
            let n = next(40);
            let mut expected: Vec<u32> = available
                .iter()
                .copied()
                .filter(|&k| !fc[k as usize])
                .chain(available.iter().copied().filter(|&k| fc[k as usize]))
                .take(n as usize)
                .collect();
            expected.sort_unstable();
            let mut out = set(next(2) == 1, &[(0, 3)]);
            let enough = a.take_lowest(n, [&b, &d], &c, &mut out);
            assert_eq!(enough, available.len() >= n as usize, "round {round}");
            if enough {
                assert_eq!(members(&out), expected, "round {round}");
                assert!(canonical(&out), "round {round}: {out:?}");
            }
        }
    }
}

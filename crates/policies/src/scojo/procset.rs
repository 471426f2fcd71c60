//! Sets of processors as bitsets over allocation blocks: which are free,
//! which a suspended job needs back, which a start may use.

use schedsim_sim_core::ProcRange;

/// A set of allocation blocks (processors in groups of the machine's
/// granularity), one bit per block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProcSet {
    words: Vec<u64>,
}

impl ProcSet {
    /// The empty set over `blocks` blocks.
    pub(crate) fn empty(blocks: u32) -> Self {
        Self {
            words: vec![0; (blocks as usize).div_ceil(64)],
        }
    }

    /// Empties the set, keeping its size.
    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Empties the set and sizes it for `blocks` blocks.
    pub(crate) fn reset(&mut self, blocks: u32) {
        self.words.clear();
        self.words.resize((blocks as usize).div_ceil(64), 0);
    }

    /// Whether any block of processor ranges is in the set.
    pub(crate) fn intersects_ranges(&self, ranges: &[ProcRange], granularity: u32) -> bool {
        ranges.iter().any(|range| {
            (range.first / granularity..(range.last + 1) / granularity).any(|block| {
                self.words
                    .get((block / 64) as usize)
                    .is_some_and(|w| w & (1 << (block % 64)) != 0)
            })
        })
    }

    /// Adds the blocks of processor ranges (whole blocks of `granularity`).
    pub(crate) fn add_ranges(&mut self, ranges: &[ProcRange], granularity: u32) {
        for range in ranges {
            let (from, to) = (range.first / granularity, (range.last + 1) / granularity);
            self.set_span(from, to);
        }
    }

    fn set_span(&mut self, from: u32, to: u32) {
        let mut block = from;
        while block < to {
            let word = (block / 64) as usize;
            let bit = block % 64;
            let take = (64 - bit).min(to - block);
            let mask = if take == 64 {
                u64::MAX
            } else {
                ((1u64 << take) - 1) << bit
            };
            self.words[word] |= mask;
            block += take;
        }
    }

    /// Adds every block of `other`.
    pub(crate) fn union_with(&mut self, other: &Self) {
        for (word, extra) in self.words.iter_mut().zip(&other.words) {
            *word |= extra;
        }
    }

    /// Removes every block of `other`.
    pub(crate) fn remove(&mut self, other: &Self) {
        for (word, gone) in self.words.iter_mut().zip(&other.words) {
            *word &= !gone;
        }
    }

    /// Blocks in the set.
    pub(crate) fn count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the two sets share a block.
    pub(crate) fn intersects(&self, other: &Self) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// Whether every block of `self` is in `other`.
    pub(crate) fn is_subset(&self, other: &Self) -> bool {
        self.words
            .iter()
            .zip(&other.words)
            .all(|(a, b)| a & !b == 0)
    }

    /// Blocks of `self` in none of `excluded`.
    pub(crate) fn count_without(&self, excluded: &[&Self]) -> u32 {
        self.words
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let left = excluded.iter().fold(w, |acc, set| acc & !set.words[i]);
                left.count_ones()
            })
            .sum()
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
        out.words.clear();
        out.words.resize(self.words.len(), 0);
        let mut needed = n;
        for pass in 0..2 {
            for (i, &w) in self.words.iter().enumerate() {
                if needed == 0 {
                    return true;
                }
                let mut left =
                    excluded.iter().fold(w, |acc, set| acc & !set.words[i]) & !out.words[i];
                left = if pass == 0 {
                    left & !avoided.words[i]
                } else {
                    left
                };
                while left != 0 && needed > 0 {
                    let bit = left & left.wrapping_neg();
                    out.words[i] |= bit;
                    left &= !bit;
                    needed -= 1;
                }
            }
        }
        needed == 0
    }

    /// The set as processor ranges, lowest first, adjacent blocks merged.
    pub(crate) fn ranges(&self, granularity: u32, out: &mut Vec<ProcRange>) {
        out.clear();
        let mut run: Option<(u32, u32)> = None;
        for (i, &w) in self.words.iter().enumerate() {
            let mut bits = w;
            while bits != 0 {
                let block = i as u32 * 64 + bits.trailing_zeros();
                bits &= bits - 1;
                run = match run {
                    Some((first, last)) if last + 1 == block => Some((first, block)),
                    Some((first, last)) => {
                        out.push(block_range(first, last, granularity));
                        Some((block, block))
                    }
                    None => Some((block, block)),
                };
            }
        }
        if let Some((first, last)) = run {
            out.push(block_range(first, last, granularity));
        }
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

    fn set(blocks: u32, ranges: &[(u32, u32)]) -> ProcSet {
        let mut s = ProcSet::empty(blocks);
        let ranges: Vec<ProcRange> = ranges
            .iter()
            .map(|&(first, last)| ProcRange { first, last })
            .collect();
        s.add_ranges(&ranges, 1);
        s
    }

    #[test]
    fn ranges_round_trip_across_words() {
        // 130 blocks: a range across the first word boundary and one at the end.
        let s = set(130, &[(3, 5), (60, 70), (129, 129)]);
        assert_eq!(s.count(), 3 + 11 + 1);
        let mut out = Vec::new();
        s.ranges(1, &mut out);
        let text: Vec<String> = out.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["3-5", "60-70", "129"]);
        // Granularity 4: blocks 1-2 are processors 4-11.
        let mut g = ProcSet::empty(8);
        g.add_ranges(&[ProcRange { first: 4, last: 11 }], 4);
        g.ranges(4, &mut out);
        assert_eq!(out, [ProcRange { first: 4, last: 11 }]);
    }

    #[test]
    fn lowest_blocks_skip_exclusions_and_prefer_unavoided_ones() {
        // Free 0-9; 2-3 excluded; 4-5 avoided if possible.
        let free = set(10, &[(0, 9)]);
        let excluded = set(10, &[(2, 3)]);
        let avoided = set(10, &[(4, 5)]);
        let mut out = ProcSet::empty(10);
        assert_eq!(free.count_without(&[&excluded]), 8);
        // 5 blocks: 0, 1, 6, 7, 8 (4-5 avoided while others remain).
        assert!(free.take_lowest(5, &[&excluded], &avoided, &mut out));
        assert_eq!(out, set(10, &[(0, 1), (6, 8)]));
        // 8 blocks need the avoided ones too.
        assert!(free.take_lowest(8, &[&excluded], &avoided, &mut out));
        assert_eq!(out, set(10, &[(0, 1), (4, 9)]));
        assert!(!free.take_lowest(9, &[&excluded], &avoided, &mut out));
        assert!(out.is_subset(&free) || out.count() < 9);
        assert!(excluded.intersects(&free) && !excluded.intersects(&avoided));
    }
}

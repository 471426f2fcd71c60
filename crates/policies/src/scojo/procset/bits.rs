//! Block sets as one bit per block: a few words on the machines of real
//! traces, where every operation is a pass over them.

use schedsim_sim_core::ProcRange;

use super::spans::{Span, SpanSet};

/// A set of allocation blocks over a fixed number of blocks, one bit per
/// block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// The empty set over `blocks` blocks.
    pub(super) fn empty(blocks: u32) -> Self {
        Self {
            words: vec![0; (blocks as usize).div_ceil(64)],
        }
    }

    /// Empties the set, keeping its size.
    pub(super) fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Empties the set and sizes it for `blocks` blocks.
    pub(super) fn reset(&mut self, blocks: u32) {
        self.words.clear();
        self.words.resize((blocks as usize).div_ceil(64), 0);
    }

    /// Whether any block of processor ranges is in the set.
    pub(super) fn intersects_ranges(&self, ranges: &[ProcRange], granularity: u32) -> bool {
        ranges.iter().any(|range| {
            (range.first / granularity..(range.last + 1) / granularity).any(|block| {
                self.words
                    .get((block / 64) as usize)
                    .is_some_and(|w| w & (1 << (block % 64)) != 0)
            })
        })
    }

    /// Adds the blocks of processor ranges (whole blocks of `granularity`).
    pub(super) fn add_ranges(&mut self, ranges: &[ProcRange], granularity: u32) {
        for range in ranges {
            let (from, to) = (range.first / granularity, (range.last + 1) / granularity);
            self.set_span(from, to);
        }
    }

    /// Adds blocks `from..to` (those past the set's size are left out).
    fn set_span(&mut self, from: u32, to: u32) {
        let to = to.min(self.capacity());
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

    /// How many blocks the set can hold.
    fn capacity(&self) -> u32 {
        u32::try_from(self.words.len() * 64).unwrap_or(u32::MAX)
    }

    /// The same blocks as spans.
    pub(super) fn to_spans(&self) -> SpanSet {
        let mut spans: Vec<Span> = Vec::new();
        for (i, &w) in self.words.iter().enumerate() {
            let mut bits = w;
            while bits != 0 {
                let block = i as u32 * 64 + bits.trailing_zeros();
                bits &= bits - 1;
                match spans.last_mut() {
                    Some(last) if last.1 == block => last.1 = block + 1,
                    _ => spans.push((block, block + 1)),
                }
            }
        }
        SpanSet::from_canonical(spans)
    }

    /// Replaces the set's blocks with those of `spans`, keeping its size.
    pub(super) fn assign_spans(&mut self, spans: &SpanSet) {
        self.clear();
        for &(from, to) in spans.spans() {
            self.set_span(from, to);
        }
    }

    /// Adds every block of `other`.
    pub(super) fn union_with(&mut self, other: &Self) {
        for (word, extra) in self.words.iter_mut().zip(&other.words) {
            *word |= extra;
        }
    }

    /// Removes every block of `other`.
    pub(super) fn remove(&mut self, other: &Self) {
        for (word, gone) in self.words.iter_mut().zip(&other.words) {
            *word &= !gone;
        }
    }

    /// Blocks in the set.
    pub(super) fn count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the two sets share a block.
    pub(super) fn intersects(&self, other: &Self) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// Whether every block of `self` is in `other`.
    pub(super) fn is_subset(&self, other: &Self) -> bool {
        self.words
            .iter()
            .zip(&other.words)
            .all(|(a, b)| a & !b == 0)
    }

    /// Blocks of `self` in none of `excluded`.
    pub(super) fn count_without(&self, excluded: [&Self; 2]) -> u32 {
        self.words
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let left = excluded
                    .iter()
                    .fold(w, |acc, set| acc & !set.words.get(i).copied().unwrap_or(0));
                left.count_ones()
            })
            .sum()
    }

    /// Fills `out` with the `n` lowest blocks of `self` that are in none of
    /// `excluded`, taking first those also outside `avoided` (blocks a later
    /// resumption may need); false (and `out` unspecified) if there are
    /// fewer than `n`.
    pub(super) fn take_lowest(
        &self,
        n: u32,
        excluded: [&Self; 2],
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
                let mut left = excluded
                    .iter()
                    .fold(w, |acc, set| acc & !set.words.get(i).copied().unwrap_or(0))
                    & !out.words[i];
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
    pub(super) fn ranges(&self, granularity: u32, out: &mut Vec<ProcRange>) {
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

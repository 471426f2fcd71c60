//! Tables and sets keyed by job size whose memory follows the sizes used,
//! not the machine: direct indexing below [`DENSE_SIZES`] processors (every
//! archive trace), ordered maps above it (a machine of millions of
//! processors has few distinct job sizes, and a table with a slot for each
//! size up to the largest would take gigabytes).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Index, IndexMut};

/// Sizes below this are kept in vectors indexed by size.
pub(crate) const DENSE_SIZES: u32 = 1 << 16;

/// A `T` per job size, created on first use.
#[derive(Debug, Clone)]
pub(crate) struct BySize<T> {
    dense: Vec<T>,
    sparse: BTreeMap<u32, T>,
}

impl<T> Default for BySize<T> {
    fn default() -> Self {
        Self {
            dense: Vec::new(),
            sparse: BTreeMap::new(),
        }
    }
}

impl<T: Default> BySize<T> {
    /// The entry of `size`, if it was ever made.
    pub(crate) fn get(&self, size: u32) -> Option<&T> {
        if size < DENSE_SIZES {
            self.dense.get(size as usize)
        } else {
            self.sparse.get(&size)
        }
    }

    /// The entry of `size`, if it was ever made.
    pub(crate) fn get_mut(&mut self, size: u32) -> Option<&mut T> {
        if size < DENSE_SIZES {
            self.dense.get_mut(size as usize)
        } else {
            self.sparse.get_mut(&size)
        }
    }

    /// The entry of `size`, made (default) if needed.
    pub(crate) fn entry(&mut self, size: u32) -> &mut T {
        if size < DENSE_SIZES {
            let index = size as usize;
            if self.dense.len() <= index {
                self.dense.resize_with(index + 1, T::default);
            }
            &mut self.dense[index]
        } else {
            self.sparse.entry(size).or_default()
        }
    }
}

/// The entry of a size known to have one (a waiting size).
impl<T: Default> Index<u32> for BySize<T> {
    type Output = T;

    fn index(&self, size: u32) -> &T {
        self.get(size)
            .unwrap_or_else(|| panic!("conservative: no entry for size {size}"))
    }
}

impl<T: Default> IndexMut<u32> for BySize<T> {
    fn index_mut(&mut self, size: u32) -> &mut T {
        self.get_mut(size)
            .unwrap_or_else(|| panic!("conservative: no entry for size {size}"))
    }
}

/// A set of job sizes, found in increasing order.
#[derive(Debug, Clone, Default)]
pub(crate) struct SizeSet {
    /// Bit `size % 64` of word `size / 64`, for sizes below [`DENSE_SIZES`].
    words: Vec<u64>,
    sparse: BTreeSet<u32>,
}

impl SizeSet {
    pub(crate) fn insert(&mut self, size: u32) {
        if size < DENSE_SIZES {
            let word = size as usize / 64;
            if self.words.len() <= word {
                self.words.resize(word + 1, 0);
            }
            self.words[word] |= 1 << (size % 64);
        } else {
            self.sparse.insert(size);
        }
    }

    pub(crate) fn remove(&mut self, size: u32) {
        if size < DENSE_SIZES {
            if let Some(word) = self.words.get_mut(size as usize / 64) {
                *word &= !(1 << (size % 64));
            }
        } else {
            self.sparse.remove(&size);
        }
    }

    /// The least size in the set in `from..=to`.
    pub(crate) fn first_in(&self, from: u32, to: u32) -> Option<u32> {
        if from > to {
            return None;
        }
        if from < DENSE_SIZES
            && let Some(size) = first_bit_in(&self.words, from, to.min(DENSE_SIZES - 1))
        {
            return Some(size);
        }
        if to < DENSE_SIZES || self.sparse.is_empty() {
            return None;
        }
        self.sparse
            .range(from.max(DENSE_SIZES)..=to)
            .next()
            .copied()
    }

    /// Empties the set, calling `visit` with each size it held, in
    /// increasing order.
    pub(crate) fn drain(&mut self, mut visit: impl FnMut(u32)) {
        for (index, word) in self.words.iter_mut().enumerate() {
            while *word != 0 {
                visit((index * 64) as u32 + word.trailing_zeros());
                *word &= *word - 1;
            }
        }
        for size in std::mem::take(&mut self.sparse) {
            visit(size);
        }
    }
}

/// The first bit set among `words` in `from..=to`.
fn first_bit_in(words: &[u64], from: u32, to: u32) -> Option<u32> {
    let (from, to) = (from as usize, to as usize);
    let mut word = from / 64;
    let mut bits = words.get(word)? & (u64::MAX << (from % 64));
    loop {
        if bits != 0 {
            let size = word * 64 + bits.trailing_zeros() as usize;
            return (size <= to).then_some(size as u32);
        }
        word += 1;
        if word * 64 > to {
            return None;
        }
        bits = *words.get(word)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The set finds what a sorted list of the sizes finds, on both
        /// sides of the dense limit.
        #[test]
        fn the_set_finds_the_least_size_in_a_range(
            ops in prop::collection::vec((any::<bool>(), 0u32..8, 0u32..200), 0..60),
            queries in prop::collection::vec((0u32..8, 0u32..200, 0u32..8, 0u32..200), 1..20),
        ) {
            // Sizes near 0, near the dense limit and far above it.
            let size = |band: u32, offset: u32| match band % 4 {
                0 => offset,
                1 => DENSE_SIZES - 100 + offset,
                2 => 1_000_000 + offset,
                _ => u32::MAX - 199 + offset,
            };
            let mut set = SizeSet::default();
            let mut model = BTreeSet::new();
            for &(add, band, offset) in &ops {
                let s = size(band, offset);
                if add {
                    set.insert(s);
                    model.insert(s);
                } else {
                    set.remove(s);
                    model.remove(&s);
                }
            }
            for &(b1, o1, b2, o2) in &queries {
                let (from, to) = (size(b1, o1), size(b2, o2));
                let expected = if from <= to { model.range(from..=to).next().copied() } else { None };
                prop_assert_eq!(set.first_in(from, to), expected);
            }
            let mut drained = Vec::new();
            set.drain(|s| drained.push(s));
            prop_assert_eq!(drained, model.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(set.first_in(0, u32::MAX), None);
        }
    }

    #[test]
    fn a_table_makes_entries_on_both_sides_of_the_dense_limit() {
        let mut table = BySize::<u32>::default();
        *table.entry(3) += 1;
        *table.entry(DENSE_SIZES) += 2;
        *table.entry(16_000_000) += 3;
        assert_eq!((table[3], table[DENSE_SIZES], table[16_000_000]), (1, 2, 3));
        assert_eq!(
            (table.get(2), table.get(4), table.get(DENSE_SIZES + 1)),
            (Some(&0), None, None)
        );
        // Only sizes up to the largest below the limit take a slot each.
        assert_eq!(table.dense.len(), 4);
    }
}

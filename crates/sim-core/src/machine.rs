use std::fmt;

use serde::{Deserialize, Serialize};

/// An inclusive range of processor ids, `first..=last`, as Batsim writes
/// them (`"0-3"`, or `"5"` for a single processor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProcRange {
    /// First processor id.
    pub first: u32,
    /// Last processor id (inclusive).
    pub last: u32,
}

impl ProcRange {
    /// Number of processors in the range: 0 for an inverted range (`last`
    /// below `first`), which the simulator never makes but which the public
    /// fields allow; `u32::MAX` for the whole `0..=u32::MAX`, whose
    /// 2^32 processors a `u32` cannot count (and no machine has: see
    /// [`MAX_PROCS`](crate::MAX_PROCS)).
    pub fn len(self) -> u32 {
        // One compare and a saturating add: free next to the loops that
        // call this, and neither overflows in debug nor wraps in release.
        self.last
            .checked_sub(self.first)
            .map_or(0, |span| span.saturating_add(1))
    }

    /// Whether the range holds no processor: only an inverted range
    /// (`last` below `first`); the simulator's ranges never are.
    pub fn is_empty(self) -> bool {
        self.last < self.first
    }
}

impl fmt::Display for ProcRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}

/// The processors of a machine and which are busy.
///
/// Processors are handed out in blocks of `granularity` (e.g. 32 on a
/// BlueGene/P). A job gets the lowest-numbered free blocks, contiguous or
/// not: the simulated machine has no topology, and lowest-first keeps the
/// assignment deterministic and Gantt charts compact.
#[derive(Debug, Clone, Default)]
pub(crate) struct Machine {
    procs: u32,
    granularity: u32,
    free: u32,
    /// One bit per block; set = busy.
    busy: Vec<u64>,
}

impl Machine {
    /// A machine of `procs` processors allocated in blocks of `granularity`.
    /// The caller guarantees `granularity > 0` and that it divides `procs`
    /// (the job model checks it).
    pub(crate) fn new(procs: u32, granularity: u32) -> Self {
        let blocks = (procs / granularity) as usize;
        Self {
            procs,
            granularity,
            free: procs,
            busy: vec![0; blocks.div_ceil(64)],
        }
    }

    /// Total processors.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// Free processors.
    pub fn free(&self) -> u32 {
        self.free
    }

    /// Marks the lowest free processors busy for a job of `size` processors
    /// (a multiple of the granularity, at most [`free`](Self::free)) and
    /// appends the ranges it got to `out`.
    pub(crate) fn allocate(&mut self, size: u32, out: &mut Vec<ProcRange>) {
        debug_assert!(size <= self.free && size.is_multiple_of(self.granularity));
        self.free -= size;
        let mut needed = size / self.granularity;
        let mut block = 0;
        while needed > 0 {
            let Some(first_free) = self.next_with(block, false, u32::MAX) else {
                break;
            };
            // Only the blocks still needed: a long free run is not walked
            // to its end (a huge idle machine would be scanned per start).
            let want = first_free.saturating_add(needed);
            let run_end = self
                .next_with(first_free, true, want)
                .unwrap_or(want.min(self.procs / self.granularity));
            let take = needed.min(run_end - first_free);
            self.set_range(first_free, first_free + take, true);
            out.push(ProcRange {
                first: first_free * self.granularity,
                last: (first_free + take) * self.granularity - 1,
            });
            needed -= take;
            block = first_free + take;
        }
    }

    /// The granularity: processors are handed out in blocks of this many.
    pub fn granularity(&self) -> u32 {
        self.granularity
    }

    /// Checks that `ranges` name whole blocks inside the machine, do not
    /// overlap, and add up to `size` processors.
    pub(crate) fn check_ranges(&self, ranges: &[ProcRange], size: u32) -> Result<(), &'static str> {
        let mut total: u64 = 0;
        for (i, range) in ranges.iter().enumerate() {
            if range.first > range.last || range.last >= self.procs {
                return Err("a range is empty or outside the machine");
            }
            if range.first % self.granularity != 0 || (range.last + 1) % self.granularity != 0 {
                return Err("a range does not cover whole allocation blocks");
            }
            if ranges[..i]
                .iter()
                .any(|other| other.first <= range.last && range.first <= other.last)
            {
                return Err("ranges overlap");
            }
            total += u64::from(range.len());
        }
        if total != u64::from(size) {
            return Err("the ranges do not hold exactly the job's size");
        }
        Ok(())
    }

    /// Whether every processor of `ranges` is free (ranges checked by
    /// [`check_ranges`](Self::check_ranges)).
    pub(crate) fn is_free(&self, ranges: &[ProcRange]) -> bool {
        ranges.iter().all(|range| {
            let (from, to) = (
                range.first / self.granularity,
                (range.last + 1) / self.granularity,
            );
            self.next_with(from, true, to).is_none()
        })
    }

    /// Marks exactly these processors busy (checked and free) and appends
    /// the ranges, merged where adjacent, to `out`.
    pub(crate) fn allocate_exact(&mut self, ranges: &[ProcRange], out: &mut Vec<ProcRange>) {
        let from = out.len();
        for range in ranges {
            self.set_range(
                range.first / self.granularity,
                (range.last + 1) / self.granularity,
                true,
            );
            self.free -= range.len();
            out.push(*range);
        }
        out[from..].sort_unstable();
        let mut write = from;
        for read in from + 1..out.len() {
            if out[read].first == out[write].last + 1 {
                out[write].last = out[read].last;
            } else {
                write += 1;
                out[write] = out[read];
            }
        }
        if out.len() > from {
            out.truncate(write + 1);
        }
    }

    /// Marks these processors busy again (a resumed job's; checked free).
    pub(crate) fn occupy(&mut self, ranges: &[ProcRange]) {
        for range in ranges {
            self.set_range(
                range.first / self.granularity,
                (range.last + 1) / self.granularity,
                true,
            );
            self.free -= range.len();
        }
    }

    /// The free processors as ranges, lowest first.
    pub(crate) fn free_ranges(&self) -> impl Iterator<Item = ProcRange> + '_ {
        let blocks = self.procs / self.granularity.max(1);
        let mut block = 0;
        std::iter::from_fn(move || {
            let first = self.next_with(block, false, u32::MAX)?;
            let end = self.next_with(first, true, u32::MAX).unwrap_or(blocks);
            block = end;
            Some(ProcRange {
                first: first * self.granularity,
                last: end * self.granularity - 1,
            })
        })
    }

    /// Frees the processors of the given ranges.
    pub(crate) fn release(&mut self, ranges: &[ProcRange]) {
        for range in ranges {
            self.set_range(
                range.first / self.granularity,
                (range.last + 1) / self.granularity,
                false,
            );
            self.free += range.len();
        }
    }

    /// The first block in `from..below` whose busy bit equals `busy`
    /// (`below` is capped at the machine's blocks; words past it are not
    /// read).
    fn next_with(&self, from: u32, busy: bool, below: u32) -> Option<u32> {
        if self.procs == 0 {
            return None;
        }
        let blocks = (self.procs / self.granularity).min(below);
        if from >= blocks {
            return None;
        }
        let mut word_index = (from / 64) as usize;
        let flip = if busy { 0 } else { u64::MAX };
        // Bits below `from` in the first word are masked out.
        let mut word = (self.busy[word_index] ^ flip) & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                let block = word_index as u32 * 64 + word.trailing_zeros();
                return (block < blocks).then_some(block);
            }
            word_index += 1;
            if word_index == self.busy.len() || word_index as u32 * 64 >= blocks {
                return None;
            }
            word = self.busy[word_index] ^ flip;
        }
    }

    /// Sets blocks `from..to` busy or free.
    fn set_range(&mut self, from: u32, to: u32, busy: bool) {
        let mut block = from;
        while block < to {
            let word_index = (block / 64) as usize;
            let offset = block % 64;
            let count = (64 - offset).min(to - block);
            let mask = if count == 64 {
                u64::MAX
            } else {
                ((1u64 << count) - 1) << offset
            };
            if busy {
                self.busy[word_index] |= mask;
            } else {
                self.busy[word_index] &= !mask;
            }
            block += count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(machine: &mut Machine, size: u32) -> Vec<String> {
        let mut out = Vec::new();
        machine.allocate(size, &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn range_length_is_safe_for_any_fields() {
        // 3-7 holds 3, 4, 5, 6, 7: 7 - 3 + 1 = 5.
        let range = ProcRange { first: 3, last: 7 };
        assert_eq!((range.len(), range.is_empty()), (5, false));
        assert_eq!(ProcRange { first: 4, last: 4 }.len(), 1);
        // Inverted: 1 - 3 + 1 overflowed in debug and wrapped to
        // 4294967295 in release; it holds no processor.
        let inverted = ProcRange { first: 3, last: 1 };
        assert_eq!((inverted.len(), inverted.is_empty()), (0, true));
        // 0..=u32::MAX is 2^32 processors, one more than a u32 holds:
        // saturated rather than wrapped to 0.
        let whole = ProcRange {
            first: 0,
            last: u32::MAX,
        };
        assert_eq!((whole.len(), whole.is_empty()), (u32::MAX, false));
    }

    #[test]
    fn lowest_free_processors_first() {
        let mut machine = Machine::new(12, 1);
        assert_eq!(ranges(&mut machine, 4), ["0-3"]);
        assert_eq!(ranges(&mut machine, 4), ["4-7"]);
        machine.release(&[ProcRange { first: 0, last: 3 }]);
        // 0-3 are free again, then 8-11: a split allocation.
        assert_eq!(ranges(&mut machine, 6), ["0-3", "8-9"]);
        assert_eq!(machine.free(), 2);
        assert_eq!(ranges(&mut machine, 1), ["10"]);
    }

    #[test]
    fn granularity_hands_out_whole_blocks() {
        let mut machine = Machine::new(128, 32);
        assert_eq!(ranges(&mut machine, 64), ["0-63"]);
        assert_eq!(ranges(&mut machine, 32), ["64-95"]);
        machine.release(&[ProcRange { first: 0, last: 63 }]);
        assert_eq!(ranges(&mut machine, 96), ["0-63", "96-127"]);
        assert_eq!(machine.free(), 0);
    }

    #[test]
    fn exact_allocation_and_free_ranges() {
        let mut machine = Machine::new(16, 2);
        let mut out = Vec::new();
        let range = |first, last| ProcRange { first, last };
        assert_eq!(
            machine.check_ranges(&[range(0, 2)], 3),
            Err("a range does not cover whole allocation blocks")
        );
        assert_eq!(
            machine.check_ranges(&[range(0, 3), range(2, 5)], 8),
            Err("ranges overlap")
        );
        assert_eq!(
            machine.check_ranges(&[range(14, 17)], 4),
            Err("a range is empty or outside the machine")
        );
        assert_eq!(
            machine.check_ranges(&[range(0, 3)], 6),
            Err("the ranges do not hold exactly the job's size")
        );
        // 8-9 and 4-7 are adjacent: merged into one range.
        let wanted = [range(8, 9), range(4, 7), range(12, 13)];
        assert_eq!(machine.check_ranges(&wanted, 8), Ok(()));
        assert!(machine.is_free(&wanted));
        machine.allocate_exact(&wanted, &mut out);
        assert_eq!(out, [range(4, 9), range(12, 13)]);
        assert_eq!(machine.free(), 8);
        assert!(!machine.is_free(&[range(2, 5)]));
        assert!(machine.is_free(&[range(0, 3), range(10, 11)]));
        let free: Vec<String> = machine.free_ranges().map(|r| r.to_string()).collect();
        assert_eq!(free, ["0-3", "10-11", "14-15"]);
        // Lowest-first allocation skips the exact ones.
        assert_eq!(ranges(&mut machine, 6), ["0-3", "10-11"]);
    }

    #[test]
    fn word_boundaries() {
        let mut machine = Machine::new(200, 1);
        assert_eq!(ranges(&mut machine, 63), ["0-62"]);
        assert_eq!(ranges(&mut machine, 130), ["63-192"]);
        machine.release(&[ProcRange {
            first: 60,
            last: 130,
        }]);
        assert_eq!(ranges(&mut machine, 75), ["60-130", "193-196"]);
        assert_eq!(machine.free(), 3);
    }
}

//! Block sets as sorted spans: on a huge machine (2^24 processors) a
//! bitset costs 2 MB to clear and scan, where the spans are as many as
//! the jobs' allocations.

use schedsim_sim_core::ProcRange;

/// Blocks `from..to`.
pub(super) type Span = (u32, u32);

/// A set of allocation blocks (processors in groups of the machine's
/// granularity): disjoint, non-adjacent spans in increasing order, so
/// that equal sets are equal values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SpanSet {
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

impl SpanSet {
    /// The set of `spans`, which must be canonical (non-empty, in order,
    /// apart).
    pub(super) fn from_canonical(spans: Vec<Span>) -> Self {
        debug_assert!(
            spans.iter().all(|&(from, to)| from < to) && spans.windows(2).all(|w| w[0].1 < w[1].0)
        );
        Self { spans }
    }

    /// The set's spans, lowest first.
    pub(super) fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// Empties the set.
    pub(super) fn clear(&mut self) {
        self.spans.clear();
    }

    /// Whether any block of processor ranges is in the set.
    pub(super) fn intersects_ranges(&self, ranges: &[ProcRange], granularity: u32) -> bool {
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
    pub(super) fn add_ranges(&mut self, ranges: &[ProcRange], granularity: u32) {
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
    pub(super) fn union_with(&mut self, other: &Self) {
        self.union_spans(&other.spans);
    }

    /// Removes every block of `other`.
    pub(super) fn remove(&mut self, other: &Self) {
        if other.spans.is_empty() || self.spans.is_empty() {
            return;
        }
        let mut out = Vec::with_capacity(self.spans.len() + other.spans.len());
        combine(&self.spans, &other.spans, |a, b| a && !b, &mut out);
        self.spans = out;
    }

    /// Blocks in the set.
    pub(super) fn count(&self) -> u32 {
        self.spans.iter().map(|&(from, to)| to - from).sum()
    }

    /// Whether the two sets share a block: one walk over both, stopping at
    /// the first overlap (the policy asks per suspended job and call).
    pub(super) fn intersects(&self, other: &Self) -> bool {
        let (mut a, mut b) = (self.spans.iter().peekable(), other.spans.iter().peekable());
        while let (Some(&&(a_from, a_to)), Some(&&(b_from, b_to))) = (a.peek(), b.peek()) {
            if a_from < b_to && b_from < a_to {
                return true;
            }
            // The span that ends first meets nothing further in the other.
            if a_to <= b_to {
                a.next();
            } else {
                b.next();
            }
        }
        false
    }

    /// Whether every block of `self` is in `other`: each span of `self`
    /// lies within one span of `other`, since `other`'s spans are apart.
    pub(super) fn is_subset(&self, other: &Self) -> bool {
        let mut outer = other.spans.iter().peekable();
        self.spans.iter().all(|&(from, to)| {
            while outer.next_if(|&&(_, end)| end <= from).is_some() {}
            outer
                .peek()
                .is_some_and(|&&(start, end)| start <= from && to <= end)
        })
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
    pub(super) fn count_without(&self, excluded: [&Self; 2]) -> u32 {
        self.without(&excluded).count()
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
        out.spans.clear();
        let available = self.without(&excluded);
        let preferred = available.without(&[avoided]);
        let mut needed = n;
        needed -= out.take_from(&preferred, needed);
        if needed > 0 {
            let rest = available.without(&[out]);
            let mut more = Self::default();
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
    pub(super) fn ranges(&self, granularity: u32, out: &mut Vec<ProcRange>) {
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

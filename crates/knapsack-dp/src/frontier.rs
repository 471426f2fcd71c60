//! Reservation_DP in one dimension: the same optimum and the same tie-breaking as the
//! thesis' three-dimensional table, in `O(C x (n + 1))` instead of `O(C x (n + 1) x (extra + 1))`.
//!
//! Why one dimension suffices: a set's value is (util, sutil, merit) compared as "util max,
//! then sutil min, then merit max". Take two sets of the first `i` items with the same util.
//! If one has the smaller sutil, every completion by later items keeps the same util and a
//! smaller sutil, and fits `extra` whenever the other's completion does; so the other can never
//! be part of the optimum. With equal sutil the larger merit wins the same way, and with equal
//! merit the traceback order decides between the two (the sets differ below item `i`, so the
//! later items cannot change that comparison). Hence one state per util value `u` suffices:
//! the best (smallest sutil, then largest merit, then preferred by the traceback order) set of
//! the items so far whose sizes add up to exactly `u` and whose shadow sizes fit `extra`.
//!
//! Adding item `i` offers, for every `u`, the state at `u - size` plus item `i` against the
//! state at `u` without it. On a full tie the two sets differ first (from the top) at item `i`
//! itself, which one contains and the other does not: bypassed-first keeps the set without it,
//! selected-first takes the one with it. That is exactly the rule of the thesis' Algorithms 4
//! and 5 (see the crate docs), so a per-item bit "item `i` is in the state at `u`" is all the
//! traceback needs. The answer is the state at the largest `u <= n` that has one.

use std::collections::TryReserveError;

use crate::options::Traceback;

/// Marks a util value that no set reaches within `extra`.
const UNREACHED: u32 = u32::MAX;

/// One candidate, sizes already reduced.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Item {
    pub size: usize,
    pub shadow_size: u32,
    pub merit: f64,
}

/// Buffers reused from call to call.
#[derive(Debug, Default)]
pub(crate) struct Frontier {
    /// Smallest sutil of a set with util exactly `u`, or [`UNREACHED`].
    sutil: Vec<u32>,
    /// Its merit (only when merits are compared).
    merit: Vec<f64>,
    /// Bit `u` of item `i`'s row: item `i` is in the state at `u` after item `i`.
    taken: Vec<u64>,
}

impl Frontier {
    /// Bytes held for reuse.
    pub(crate) fn retained_bytes(&self) -> usize {
        self.sutil.capacity() * 4 + self.merit.capacity() * 8 + self.taken.capacity() * 8
    }

    /// Bytes a solve of `items` candidates with capacity `capacity` needs.
    pub(crate) fn bytes_needed(items: usize, capacity: usize, with_merit: bool) -> u128 {
        let width = capacity as u128 + 1;
        width * (4 + if with_merit { 8 } else { 0 }) + items as u128 * width.div_ceil(64) * 8
    }

    /// Solves for `capacity` now and `extra` at the shadow time; pushes the indices (into
    /// `items`) of the selected set, increasing, into `picked`.
    ///
    /// # Errors
    /// The buffers cannot grow to the problem's size.
    pub(crate) fn solve(
        &mut self,
        items: &[Item],
        (capacity, extra): (usize, u32),
        with_merit: bool,
        traceback: Traceback,
        picked: &mut Vec<usize>,
    ) -> Result<(), TryReserveError> {
        let width = capacity + 1;
        let words = width.div_ceil(64);
        resize(&mut self.sutil, width, UNREACHED)?;
        self.sutil[0] = 0;
        if with_merit {
            resize(&mut self.merit, width, 0.0)?;
        }
        resize(&mut self.taken, items.len() * words, 0)?;
        let select_ties = traceback == Traceback::SelectedFirst;
        // The largest util reached so far bounds the scan: no state above it exists yet.
        let mut reached = 0usize;
        for (i, item) in items.iter().enumerate() {
            let row = &mut self.taken[i * words..][..words];
            row.fill(0);
            let size = item.size;
            if size > capacity || item.shadow_size > extra {
                continue;
            }
            let top = (reached + size).min(capacity);
            let limit = extra - item.shadow_size;
            let mut highest = reached;
            // Descending, so that the state at `u - size` read is still the one without
            // item `i` (each item is taken at most once).
            for u in (size..=top).rev() {
                let from = self.sutil[u - size];
                if from > limit {
                    // Unreached, or over `extra` once the item's shadow size is added.
                    continue;
                }
                let candidate = from + item.shadow_size;
                let old = self.sutil[u];
                let better = if candidate != old {
                    candidate < old
                } else if with_merit {
                    let merit = self.merit[u - size] + item.merit;
                    merit > self.merit[u] || (merit == self.merit[u] && select_ties)
                } else {
                    select_ties
                };
                if better {
                    self.sutil[u] = candidate;
                    if with_merit {
                        self.merit[u] = self.merit[u - size] + item.merit;
                    }
                    row[u / 64] |= 1 << (u % 64);
                    highest = highest.max(u);
                }
            }
            reached = highest;
        }
        picked.clear();
        let mut u = (0..=capacity)
            .rev()
            .find(|&u| self.sutil[u] != UNREACHED)
            .unwrap_or(0);
        for i in (0..items.len()).rev() {
            if u == 0 {
                break;
            }
            if (self.taken[i * words + u / 64] >> (u % 64)) & 1 == 1 {
                picked.push(i);
                u -= items[i].size;
            }
        }
        picked.reverse();
        Ok(())
    }
}

/// Clears `buffer` and fills it with `len` copies of `value`, reporting allocation failure.
fn resize<T: Clone>(buffer: &mut Vec<T>, len: usize, value: T) -> Result<(), TryReserveError> {
    buffer.clear();
    buffer.try_reserve(len)?;
    buffer.resize(len, value);
    Ok(())
}

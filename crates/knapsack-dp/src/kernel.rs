//! The fill loops of Reservation_DP (Algorithms 3, 6 and 7) over two value layers.
//!
//! A layer holds the values of all cells `(j, k)` for one item count `i`, row-major by `k`
//! (rows of `width = n + 1` cells, contiguous over `j`). Cell `(i, j, k)` reads cells
//! `(i - 1, j, k)` and `(i - 1, j - size, k - ssize)`. An item with `ssize > 0` updates the
//! layer in place, visiting the rows from the last to the first so that row `k - ssize` is read
//! before it is overwritten; an item with `ssize = 0` reads its own row shifted, so it writes
//! the other layer and the two swap. Only the markers of every cell are kept, as bit planes:
//! the one the traceback reads, or both for the inspection tables.
//!
//! A cell's value is an integer key `(util * (E + 1) + (E - sutil)) * R + (merit - merit_lo)`,
//! so "util max, then sutil min, then merit max" is one integer maximum and selecting an item
//! adds a per-item constant. When the merits are not small integers they live in a parallel
//! `f64` layer and the key drops its merit part. Keys are stored biased into signed integers
//! (`key - 2^31` in an `i32`), because SSE2 compares signed lanes natively.

use std::fmt::Debug;

/// Marker byte of one cell while a row is built: bit 0 selected, bit 1 bypassed.
const SELECTED: u8 = 1;
const BYPASSED: u8 = 2;

/// A key representation the kernels run on: `i32` when the keys fit 32 bits, else `i64`.
pub(crate) trait Key: Copy + Ord + Default + Debug {
    /// Encodes a key the caller has proven to fit the unsigned width.
    fn encode(key: u128) -> Self;
    /// Decodes a key.
    fn decode(self) -> u128;
    /// Encodes a difference between keys.
    fn encode_delta(delta: u128) -> Self;
    /// `self + delta`; never leaves the key range when the sum is a key.
    fn plus(self, delta: Self) -> Self;
}

impl Key for i32 {
    fn encode(key: u128) -> Self {
        debug_assert!(key <= u128::from(u32::MAX));
        ((key as u32) ^ (1 << 31)) as i32
    }
    fn decode(self) -> u128 {
        u128::from((self as u32) ^ (1 << 31))
    }
    fn encode_delta(delta: u128) -> Self {
        debug_assert!(delta <= u128::from(u32::MAX));
        delta as u32 as i32
    }
    #[inline]
    fn plus(self, delta: Self) -> Self {
        // Wrapping: the biased sum wraps exactly when the unbiased one crosses 2^31.
        self.wrapping_add(delta)
    }
}

impl Key for i64 {
    fn encode(key: u128) -> Self {
        debug_assert!(key <= u128::from(u64::MAX));
        ((key as u64) ^ (1 << 63)) as i64
    }
    fn decode(self) -> u128 {
        u128::from((self as u64) ^ (1 << 63))
    }
    fn encode_delta(delta: u128) -> Self {
        debug_assert!(delta <= u128::from(u64::MAX));
        delta as u64 as i64
    }
    #[inline]
    fn plus(self, delta: Self) -> Self {
        self.wrapping_add(delta)
    }
}

/// Dimensions of one layer and of its marker rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Cells per row: `n + 1`.
    pub width: usize,
    /// Rows per layer: `extra + 1`.
    pub rows: usize,
    /// `u64` words per marker row: `ceil(width / 64)`.
    pub words: usize,
}

impl Shape {
    pub(crate) fn new(capacity: usize, extra: usize) -> Self {
        let width = capacity + 1;
        Shape {
            width,
            rows: extra + 1,
            words: width.div_ceil(64),
        }
    }

    /// Cells in one layer.
    pub(crate) fn layer_cells(self) -> usize {
        self.width * self.rows
    }

    /// Marker words per item.
    pub(crate) fn item_words(self) -> usize {
        self.rows * self.words
    }

    /// Index of the marker word of cell `(i, j, k)` (0-based item `i`) and the bit in it.
    pub(crate) fn marker_bit(self, item: usize, j: usize, k: usize) -> (usize, u32) {
        let word = (item * self.rows + k) * self.words + j / 64;
        (word, (j % 64) as u32)
    }
}

/// The per-call buffers a kernel writes to.
pub(crate) struct Work<'a, K> {
    /// Two value layers of `shape.layer_cells()` keys each; the first holds the `i = 0`
    /// values on entry.
    pub layers: &'a mut [K],
    /// Scratch marker row of `words * 64` bytes.
    pub masks: &'a mut [u8],
    /// Selected markers, `items * shape.item_words()` words, or empty when not wanted.
    pub selected: &'a mut [u64],
    /// Bypassed markers, same length, or empty when not wanted (the traceback reads only
    /// one of the two planes; the inspection tables keep both).
    pub bypassed: &'a mut [u64],
}

/// One item as the kernel sees it (sizes already reduced).
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelItem<K> {
    pub size: usize,
    pub shadow_size: usize,
    /// What selecting the item adds to a key.
    pub delta: K,
    /// The item's merit (used by the `f64`-merit kernel only).
    pub merit: f64,
}

/// The markers of one item, row by row.
struct ItemMarkers<'a> {
    selected: &'a mut [u64],
    bypassed: &'a mut [u64],
    words: usize,
}

impl ItemMarkers<'_> {
    /// Row `k` where the item fits no cell: bypassed only.
    fn bypass_row(&mut self, k: usize) {
        if !self.selected.is_empty() {
            self.selected[k * self.words..][..self.words].fill(0);
        }
        if !self.bypassed.is_empty() {
            self.bypassed[k * self.words..][..self.words].fill(!0);
        }
    }

    /// Row `k` from its marker bytes.
    fn pack_row(&mut self, k: usize, masks: &[u8]) {
        if !self.selected.is_empty() {
            pack_plane(masks, 0, &mut self.selected[k * self.words..][..self.words]);
        }
        if !self.bypassed.is_empty() {
            pack_plane(masks, 1, &mut self.bypassed[k * self.words..][..self.words]);
        }
    }
}

fn item_markers<'a>(
    shape: Shape,
    i: usize,
    selected: &'a mut [u64],
    bypassed: &'a mut [u64],
) -> ItemMarkers<'a> {
    let item_words = shape.item_words();
    let plane = |markers: &'a mut [u64]| {
        if markers.is_empty() {
            markers
        } else {
            &mut markers[i * item_words..][..item_words]
        }
    };
    ItemMarkers {
        selected: plane(selected),
        bypassed: plane(bypassed),
        words: shape.words,
    }
}

/// Algorithm 3 (and 6, 7 with an integer merit packed in the key): fills the markers of every
/// item. `after_item` sees each finished layer (the inspection tables record them; the solver
/// passes a no-op).
pub(crate) fn fill_packed<K: Key>(
    shape: Shape,
    items: &[KernelItem<K>],
    work: Work<'_, K>,
    mut after_item: impl FnMut(&[K]),
) {
    let Work {
        layers,
        masks,
        selected,
        bypassed,
    } = work;
    let width = shape.width;
    let (mut current, mut other) = layers.split_at_mut(shape.layer_cells());
    for (i, item) in items.iter().enumerate() {
        let mut markers = item_markers(shape, i, selected, bypassed);
        let size = item.size;
        if size >= width {
            (0..shape.rows).for_each(|k| markers.bypass_row(k));
        } else if item.shadow_size == 0 {
            // Row k reads itself shifted: write the other layer.
            for k in 0..shape.rows {
                let from = &current[k * width..][..width];
                let to = &mut other[k * width..][..width];
                to[..size].copy_from_slice(&from[..size]);
                masks[..size].fill(BYPASSED);
                relax_into(
                    &mut to[size..],
                    &from[size..],
                    &from[..width - size],
                    item.delta,
                    &mut masks[size..width],
                );
                markers.pack_row(k, masks);
            }
            std::mem::swap(&mut current, &mut other);
        } else {
            // Row k reads row k - ssize: in place, last row first.
            for k in (0..shape.rows).rev() {
                if k < item.shadow_size {
                    markers.bypass_row(k);
                    continue;
                }
                let (below, from_row) = current.split_at_mut(k * width);
                masks[..size].fill(BYPASSED);
                relax_in_place(
                    &mut from_row[size..width],
                    &below[(k - item.shadow_size) * width..][..width - size],
                    item.delta,
                    &mut masks[size..width],
                );
                markers.pack_row(k, masks);
            }
        }
        after_item(current);
    }
}

/// Algorithms 3, 6 and 7 with an `f64` merit beside each key: the merit is compared only when
/// the keys (util, sutil) tie, and equal merits keep both markers. `merit_layers` holds two
/// layers of merits like [`Work::layers`], the first with the `i = 0` merits (0).
pub(crate) fn fill_with_merit<K: Key>(
    shape: Shape,
    items: &[KernelItem<K>],
    work: Work<'_, K>,
    merit_layers: &mut [f64],
    mut after_item: impl FnMut(&[K], &[f64]),
) {
    let Work {
        layers,
        masks,
        selected,
        bypassed,
    } = work;
    let width = shape.width;
    let (mut current, mut other) = layers.split_at_mut(shape.layer_cells());
    let (mut merit_current, mut merit_other) = merit_layers.split_at_mut(shape.layer_cells());
    for (i, item) in items.iter().enumerate() {
        let mut markers = item_markers(shape, i, selected, bypassed);
        let size = item.size;
        let candidate = Candidate {
            delta: item.delta,
            merit: item.merit,
        };
        if size >= width {
            (0..shape.rows).for_each(|k| markers.bypass_row(k));
        } else if item.shadow_size == 0 {
            for k in 0..shape.rows {
                let from = &current[k * width..][..width];
                let to = &mut other[k * width..][..width];
                let merit_from = &merit_current[k * width..][..width];
                let merit_to = &mut merit_other[k * width..][..width];
                to[..size].copy_from_slice(&from[..size]);
                merit_to[..size].copy_from_slice(&merit_from[..size]);
                masks[..size].fill(BYPASSED);
                relax_into_with_merit(
                    (&mut to[size..], &mut merit_to[size..]),
                    (&from[size..], &merit_from[size..]),
                    (&from[..width - size], &merit_from[..width - size]),
                    candidate,
                    &mut masks[size..width],
                );
                markers.pack_row(k, masks);
            }
            std::mem::swap(&mut current, &mut other);
            std::mem::swap(&mut merit_current, &mut merit_other);
        } else {
            for k in (0..shape.rows).rev() {
                if k < item.shadow_size {
                    markers.bypass_row(k);
                    continue;
                }
                let (below, from_row) = current.split_at_mut(k * width);
                let (merit_below, merit_from_row) = merit_current.split_at_mut(k * width);
                let source = (k - item.shadow_size) * width;
                let to = (&mut from_row[size..width], &mut merit_from_row[size..width]);
                // In place: the kept values are the destination's own.
                relax_in_place_with_merit(
                    to,
                    (
                        &below[source..][..width - size],
                        &merit_below[source..][..width - size],
                    ),
                    candidate,
                    &mut masks[size..width],
                );
                masks[..size].fill(BYPASSED);
                markers.pack_row(k, masks);
            }
        }
        after_item(current, merit_current);
    }
}

/// The inner loop of Algorithm 3 over one row: `out[j] = max(kept[j], source[j] + delta)`,
/// with selected = (candidate >= kept) and bypassed = (candidate <= kept). Branch-free so that
/// it vectorises. Out of line on purpose: inlined into the row loop it stayed scalar (measured
/// 1.4x slower); a call per row costs nothing.
#[inline(never)]
fn relax_into<K: Key>(out: &mut [K], kept: &[K], source: &[K], delta: K, masks: &mut [u8]) {
    // Equal lengths up front let the compiler drop the bounds checks and vectorise.
    let len = out.len();
    let (kept, source, masks) = (&kept[..len], &source[..len], &mut masks[..len]);
    for j in 0..len {
        let old = kept[j];
        let candidate = source[j].plus(delta);
        out[j] = old.max(candidate);
        masks[j] =
            (u8::from(candidate >= old) * SELECTED) | (u8::from(candidate <= old) * BYPASSED);
    }
}

/// [`relax_into`] with `out` = `kept`. Out of line like it.
#[inline(never)]
fn relax_in_place<K: Key>(kept: &mut [K], source: &[K], delta: K, masks: &mut [u8]) {
    for ((kept, &source), mask) in kept.iter_mut().zip(source).zip(masks.iter_mut()) {
        let old = *kept;
        let candidate = source.plus(delta);
        *kept = old.max(candidate);
        *mask = (u8::from(candidate >= old) * SELECTED) | (u8::from(candidate <= old) * BYPASSED);
    }
}

#[derive(Clone, Copy)]
struct Candidate<K> {
    delta: K,
    merit: f64,
}

/// Algorithm 7's decision for one cell: keys first, the merit only on equal keys. Returns the
/// new (key, merit) and the marker byte. (Branch-free forms vectorise here but measured slower
/// with SSE2: the key comparison is decisive in most cells and predicts well.)
#[inline(always)]
fn decide<K: Key>(old: (K, f64), source: (K, f64), item: Candidate<K>) -> ((K, f64), u8) {
    let (candidate, candidate_merit) = (source.0.plus(item.delta), source.1 + item.merit);
    let tie = candidate == old.0;
    let select = candidate > old.0 || (tie && candidate_merit >= old.1);
    let bypass = candidate < old.0 || (tie && candidate_merit <= old.1);
    let new = if select {
        (candidate, candidate_merit)
    } else {
        old
    };
    let mask = (u8::from(select) * SELECTED) | (u8::from(bypass) * BYPASSED);
    (new, mask)
}

type Row<'a, K> = (&'a [K], &'a [f64]);
type RowMut<'a, K> = (&'a mut [K], &'a mut [f64]);

/// [`relax_into`] with merits: `out[j]` = the better of `kept[j]` and `source[j]` + the item.
#[inline(never)]
fn relax_into_with_merit<K: Key>(
    (out, out_merit): RowMut<'_, K>,
    (kept, kept_merit): Row<'_, K>,
    (source, source_merit): Row<'_, K>,
    item: Candidate<K>,
    masks: &mut [u8],
) {
    let len = out.len();
    let (out_merit, masks) = (&mut out_merit[..len], &mut masks[..len]);
    let (kept, kept_merit) = (&kept[..len], &kept_merit[..len]);
    let (source, source_merit) = (&source[..len], &source_merit[..len]);
    for j in 0..len {
        let ((key, merit), marker) =
            decide((kept[j], kept_merit[j]), (source[j], source_merit[j]), item);
        out[j] = key;
        out_merit[j] = merit;
        masks[j] = marker;
    }
}

/// [`relax_into_with_merit`] with `out` = `kept`.
#[inline(never)]
fn relax_in_place_with_merit<K: Key>(
    (kept, kept_merit): RowMut<'_, K>,
    (source, source_merit): Row<'_, K>,
    item: Candidate<K>,
    masks: &mut [u8],
) {
    let len = kept.len();
    let (kept_merit, masks) = (&mut kept_merit[..len], &mut masks[..len]);
    let (source, source_merit) = (&source[..len], &source_merit[..len]);
    for j in 0..len {
        let ((key, merit), marker) =
            decide((kept[j], kept_merit[j]), (source[j], source_merit[j]), item);
        kept[j] = key;
        kept_merit[j] = merit;
        masks[j] = marker;
    }
}

/// Packs bit `bit` of a row of marker bytes into a bit row (bit `j % 64` of word `j / 64`).
/// Bytes past the row's width are packed too; nothing reads their bits.
#[inline]
fn pack_plane(masks: &[u8], bit: u32, plane: &mut [u64]) {
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    // Multiplying 8 bytes of 0/1 by this gathers byte t's bit into bit 56 + t (no carries:
    // every partial product lands on its own bit).
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let (chunks, _) = masks.as_chunks::<64>();
    for (chunk, word) in chunks.iter().zip(plane) {
        let (eights, _) = chunk.as_chunks::<8>();
        let mut packed = 0;
        for (q, eight) in eights.iter().enumerate() {
            let bytes = (u64::from_le_bytes(*eight) >> bit) & LOW_BITS;
            packed |= (bytes.wrapping_mul(GATHER) >> 56) << (8 * q);
        }
        *word = packed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_plane_puts_byte_t_in_bit_t() {
        // Byte j carries selected iff j % 3 == 0 and bypassed iff j % 5 == 0.
        let masks: Vec<u8> = (0..128)
            .map(|j| u8::from(j % 3 == 0) | (u8::from(j % 5 == 0) << 1))
            .collect();
        let mut sel = [0; 2];
        let mut byp = [0; 2];
        pack_plane(&masks, 0, &mut sel);
        pack_plane(&masks, 1, &mut byp);
        for j in 0..128 {
            assert_eq!(
                (sel[j / 64] >> (j % 64)) & 1 == 1,
                j % 3 == 0,
                "selected bit {j}"
            );
            assert_eq!(
                (byp[j / 64] >> (j % 64)) & 1 == 1,
                j % 5 == 0,
                "bypassed bit {j}"
            );
        }
    }
}

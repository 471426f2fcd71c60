//! The fill loops of Reservation_DP (Algorithms 3, 6 and 7) on one in-place value layer.
//!
//! A layer holds the values of all cells `(j, k)` for one item count `i`, row-major by `k`
//! (rows of `width = n + 1` cells, contiguous over `j`). Item `i` updates the layer of `i - 1`
//! in place: row `k` reads row `k - ssize` shifted by `size`, so visiting the rows from the last
//! to the first reads every source row before it is overwritten (for `ssize = 0` the source is
//! the row itself, copied to a scratch row first). One layer therefore replaces the thesis'
//! `i - 1` / `i` pair. The markers of every cell are kept, as two bit planes.
//!
//! A cell's value is an integer key `(util * (E + 1) + (E - sutil)) * R + (merit - merit_lo)`,
//! so "util max, then sutil min, then merit max" is one integer maximum and adding an item
//! adds a per-item constant. When the merits are not small integers they live in a parallel
//! `f64` layer and the key drops its merit part.

use std::ops::Add;

/// Marker byte of one cell while a row is built: bit 0 selected, bit 1 bypassed.
const SELECTED: u8 = 1;
const BYPASSED: u8 = 2;

/// An unsigned key type the kernels run on (`u32` when the keys fit, else `u64`).
pub(crate) trait Key: Copy + Ord + Add<Output = Self> + Default + std::fmt::Debug {
    /// Converts a value the caller has proven to fit.
    fn from_u128(value: u128) -> Self;
    /// Widens the key.
    fn to_u128(self) -> u128;
}

impl Key for u32 {
    fn from_u128(value: u128) -> Self {
        debug_assert!(value <= u128::from(u32::MAX));
        value as u32
    }
    fn to_u128(self) -> u128 {
        u128::from(self)
    }
}

impl Key for u64 {
    fn from_u128(value: u128) -> Self {
        debug_assert!(value <= u128::from(u64::MAX));
        value as u64
    }
    fn to_u128(self) -> u128 {
        u128::from(self)
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
    /// The value layer, `shape.layer_cells()` keys, holding the `i = 0` values on entry.
    pub layer: &'a mut [K],
    /// Scratch row of at least `width` keys.
    pub tmp: &'a mut [K],
    /// Scratch marker row of `words * 64` bytes.
    pub masks: &'a mut [u8],
    /// Selected markers, `items * shape.item_words()` words.
    pub selected: &'a mut [u64],
    /// Bypassed markers, same length.
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

/// Algorithm 3 (and 6, 7 with an integer merit packed in the key): fills the markers of every
/// item and leaves the last item's values in `work.layer`. `after_item` sees each finished
/// layer (the inspection tables record them; the solver passes a no-op).
pub(crate) fn fill_packed<K: Key>(
    shape: Shape,
    items: &[KernelItem<K>],
    work: Work<'_, K>,
    mut after_item: impl FnMut(usize, &[K]),
) {
    let Work {
        layer,
        tmp,
        masks,
        selected,
        bypassed,
    } = work;
    let width = shape.width;
    let item_words = shape.item_words();
    for (i, item) in items.iter().enumerate() {
        let sel_item = &mut selected[i * item_words..][..item_words];
        let byp_item = &mut bypassed[i * item_words..][..item_words];
        for k in (0..shape.rows).rev() {
            let sel_row = &mut sel_item[k * shape.words..][..shape.words];
            let byp_row = &mut byp_item[k * shape.words..][..shape.words];
            if k < item.shadow_size || item.size >= width {
                // The item fits in no cell of this row: values unchanged, bypassed only.
                sel_row.fill(0);
                byp_row.fill(!0);
                continue;
            }
            let fits = width - item.size;
            let row_start = k * width;
            masks[..item.size].fill(BYPASSED);
            if item.shadow_size == 0 {
                tmp[..fits].copy_from_slice(&layer[row_start..][..fits]);
                relax_row(
                    &mut layer[row_start + item.size..][..fits],
                    &tmp[..fits],
                    item.delta,
                    &mut masks[item.size..width],
                );
            } else {
                let (below, from_row) = layer.split_at_mut(row_start);
                let source = &below[(k - item.shadow_size) * width..][..fits];
                relax_row(
                    &mut from_row[item.size..width],
                    source,
                    item.delta,
                    &mut masks[item.size..width],
                );
            }
            pack_markers(&masks[..shape.words * 64], sel_row, byp_row);
        }
        after_item(i, layer);
    }
}

/// Algorithms 3, 6 and 7 with an `f64` merit beside each key: the merit is compared only when
/// the keys (util, sutil) tie, and equal merits keep both markers.
pub(crate) fn fill_with_merit<K: Key>(
    shape: Shape,
    items: &[KernelItem<K>],
    work: Work<'_, K>,
    merit_layer: &mut [f64],
    merit_tmp: &mut [f64],
    mut after_item: impl FnMut(usize, &[K], &[f64]),
) {
    let Work {
        layer,
        tmp,
        masks,
        selected,
        bypassed,
    } = work;
    let width = shape.width;
    let item_words = shape.item_words();
    for (i, item) in items.iter().enumerate() {
        let sel_item = &mut selected[i * item_words..][..item_words];
        let byp_item = &mut bypassed[i * item_words..][..item_words];
        for k in (0..shape.rows).rev() {
            let sel_row = &mut sel_item[k * shape.words..][..shape.words];
            let byp_row = &mut byp_item[k * shape.words..][..shape.words];
            if k < item.shadow_size || item.size >= width {
                sel_row.fill(0);
                byp_row.fill(!0);
                continue;
            }
            let fits = width - item.size;
            let row_start = k * width;
            masks[..item.size].fill(BYPASSED);
            let candidate = Candidate {
                delta: item.delta,
                merit: item.merit,
            };
            if item.shadow_size == 0 {
                tmp[..fits].copy_from_slice(&layer[row_start..][..fits]);
                merit_tmp[..fits].copy_from_slice(&merit_layer[row_start..][..fits]);
                relax_row_with_merit(
                    (
                        &mut layer[row_start + item.size..][..fits],
                        &mut merit_layer[row_start + item.size..][..fits],
                    ),
                    (&tmp[..fits], &merit_tmp[..fits]),
                    candidate,
                    &mut masks[item.size..width],
                );
            } else {
                let (below, from_row) = layer.split_at_mut(row_start);
                let (merit_below, merit_from_row) = merit_layer.split_at_mut(row_start);
                let source_start = (k - item.shadow_size) * width;
                relax_row_with_merit(
                    (
                        &mut from_row[item.size..width],
                        &mut merit_from_row[item.size..width],
                    ),
                    (
                        &below[source_start..][..fits],
                        &merit_below[source_start..][..fits],
                    ),
                    candidate,
                    &mut masks[item.size..width],
                );
            }
            pack_markers(&masks[..shape.words * 64], sel_row, byp_row);
        }
        after_item(i, layer, merit_layer);
    }
}

/// The inner loop of Algorithm 3 over one row: `dst[j] = max(dst[j], src[j] + delta)`, with
/// selected = (candidate >= kept) and bypassed = (candidate <= kept). Branch-free so that it
/// vectorises.
#[inline]
fn relax_row<K: Key>(dst: &mut [K], src: &[K], delta: K, masks: &mut [u8]) {
    for ((kept, &source), mask) in dst.iter_mut().zip(src).zip(masks.iter_mut()) {
        let old = *kept;
        let candidate = source + delta;
        *kept = old.max(candidate);
        *mask = (u8::from(candidate >= old) * SELECTED) | (u8::from(candidate <= old) * BYPASSED);
    }
}

#[derive(Clone, Copy)]
struct Candidate<K> {
    delta: K,
    merit: f64,
}

/// Algorithm 7's inner loop over one row: keys first, the merit only on equal keys.
#[inline]
fn relax_row_with_merit<K: Key>(
    (dst, dst_merit): (&mut [K], &mut [f64]),
    (src, src_merit): (&[K], &[f64]),
    item: Candidate<K>,
    masks: &mut [u8],
) {
    let cells = dst
        .iter_mut()
        .zip(dst_merit.iter_mut())
        .zip(src.iter().zip(src_merit))
        .zip(masks.iter_mut());
    for (((kept, kept_merit), (&source, &source_merit)), mask) in cells {
        let (old, old_merit) = (*kept, *kept_merit);
        let (candidate, candidate_merit) = (source + item.delta, source_merit + item.merit);
        let tie = candidate == old;
        let select = candidate > old || (tie && candidate_merit >= old_merit);
        let bypass = candidate < old || (tie && candidate_merit <= old_merit);
        *kept = if select { candidate } else { old };
        *kept_merit = if select { candidate_merit } else { old_merit };
        *mask = (u8::from(select) * SELECTED) | (u8::from(bypass) * BYPASSED);
    }
}

/// Packs a row of marker bytes into the selected and bypassed bit rows (bit `j % 64` of word
/// `j / 64`). Bytes past the row's width are packed too; nothing reads their bits.
#[inline]
fn pack_markers(masks: &[u8], selected: &mut [u64], bypassed: &mut [u64]) {
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    // Multiplying 8 bytes of 0/1 by this gathers byte t's bit into bit 56 + t (no carries:
    // every partial product lands on its own bit).
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let (chunks, _) = masks.as_chunks::<64>();
    for ((chunk, sel), byp) in chunks.iter().zip(selected).zip(bypassed) {
        let (eights, _) = chunk.as_chunks::<8>();
        let mut sel_word = 0;
        let mut byp_word = 0;
        for (q, eight) in eights.iter().enumerate() {
            let bytes = u64::from_le_bytes(*eight);
            sel_word |= ((bytes & LOW_BITS).wrapping_mul(GATHER) >> 56) << (8 * q);
            byp_word |= (((bytes >> 1) & LOW_BITS).wrapping_mul(GATHER) >> 56) << (8 * q);
        }
        *sel = sel_word;
        *byp = byp_word;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_markers_puts_byte_t_in_bit_t() {
        // Byte j carries selected iff j % 3 == 0 and bypassed iff j % 5 == 0.
        let masks: Vec<u8> = (0..128)
            .map(|j| u8::from(j % 3 == 0) | (u8::from(j % 5 == 0) << 1))
            .collect();
        let mut sel = [0; 2];
        let mut byp = [0; 2];
        pack_markers(&masks, &mut sel, &mut byp);
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

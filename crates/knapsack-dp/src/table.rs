use crate::kernel::Shape;

/// Values of one cell as recorded for inspection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct CellValue {
    pub util: u32,
    pub sutil: u32,
    pub merit: f64,
}

/// One cell `m'_{i,j,k}` of the DP table (or `m_{i,j}` of Basic_DP, with `k = 0`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Cell {
    /// Maximal utilization with capacity `j`, shadow capacity `k` and items `1..=i`.
    pub util: u32,
    /// Minimal shadow utilization among the sets reaching `util`.
    pub sutil: u32,
    /// Best merit among the sets reaching (`util`, `sutil`).
    pub merit: f64,
    /// The *selected* marker: an optimal set for this cell contains item `i`.
    pub selected: bool,
    /// The *bypassed* marker: an optimal set for this cell leaves item `i` out.
    pub bypassed: bool,
}

/// The full DP table of one call, for inspection (see [`Solver::reservation_table`]).
///
/// Rows are numbered as in the thesis: row 0 is the padding row, row `i` (1-based) is the
/// `i`-th candidate, which is caller item `items()[i - 1]`. Without a lookahead every item is a
/// candidate, so row `i` is item `i - 1`.
///
/// [`Solver::reservation_table`]: crate::Solver::reservation_table
#[derive(Clone, Debug)]
pub struct Table {
    items: Vec<usize>,
    shape: Shape,
    values: Vec<CellValue>,
    selected: Vec<u64>,
    bypassed: Vec<u64>,
}

impl Table {
    pub(crate) fn new(
        items: Vec<usize>,
        shape: Shape,
        values: Vec<CellValue>,
        selected: Vec<u64>,
        bypassed: Vec<u64>,
    ) -> Self {
        Table {
            items,
            shape,
            values,
            selected,
            bypassed,
        }
    }

    /// The caller index of each row `1..=items().len()`.
    pub fn items(&self) -> &[usize] {
        &self.items
    }

    /// The capacity `n` (largest `j`).
    pub fn capacity(&self) -> u32 {
        (self.shape.width - 1) as u32
    }

    /// The shadow free capacity `extra` (largest `k`); 0 for Basic_DP.
    pub fn extra(&self) -> u32 {
        (self.shape.rows - 1) as u32
    }

    /// Cell `(i, j, k)`, or `None` outside `0..=items().len()`, `0..=capacity()`,
    /// `0..=extra()`. Row `i = 0` and column `j = 0` are the thesis' zero padding: zero values
    /// and no markers.
    pub fn cell(&self, i: usize, j: u32, k: u32) -> Option<Cell> {
        let (j, k) = (j as usize, k as usize);
        if i > self.items.len() || j >= self.shape.width || k >= self.shape.rows {
            return None;
        }
        if i == 0 || j == 0 {
            return Some(Cell::default());
        }
        let value = self.values[(i - 1) * self.shape.layer_cells() + k * self.shape.width + j];
        let (word, bit) = self.shape.marker_bit(i - 1, j, k);
        Some(Cell {
            util: value.util,
            sutil: value.sutil,
            merit: value.merit,
            selected: (self.selected[word] >> bit) & 1 == 1,
            bypassed: (self.bypassed[word] >> bit) & 1 == 1,
        })
    }
}

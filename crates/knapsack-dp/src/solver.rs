use crate::error::Error;
use crate::frontier::{self, Frontier};
use crate::kernel::{self, KernelItem, Key, Shape, Work};
use crate::options::{Merit, Options, Traceback};
use crate::table::{CellValue, Table};

/// The set a DP call selected, with its totals.
///
/// Borrows the [`Solver`]'s buffer: copy [`selected`](Self::selected) out (e.g. `to_vec()`) to
/// keep it across calls.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Solution<'a> {
    /// Indices of the selected items in the caller's slices, increasing.
    pub selected: &'a [usize],
    /// Total size of the selected items (processors used now): the maximum achievable.
    pub util: u32,
    /// Total shadow size of the selected items (processors still used at the shadow time): the
    /// minimum among maximum-util sets. Always 0 for [`Solver::basic_dp`].
    pub sutil: u32,
    /// Total merit of the selected items, summed in increasing item order (0 for
    /// [`Merit::None`], the item count for [`Merit::MaxJobs`]).
    pub merit: f64,
    /// DP states visited: candidates x (n' + 1) after the reductions (the one-dimensional
    /// solve, see the crate docs); 0 when no table was needed.
    pub cells: u64,
}

/// Runs Basic_DP and Reservation_DP, reusing its buffers from call to call.
///
/// Create one solver and keep it: once the first calls have grown its buffers to the largest
/// problem seen, a call allocates nothing.
#[derive(Debug, Default)]
pub struct Solver {
    candidates: Candidates,
    basic_shadow_sizes: Vec<u32>,
    narrow: Buffers<i32>,
    wide: Buffers<i64>,
    shared: Shared,
    picked: Vec<usize>,
    totals: Totals,
    /// The one-dimensional solve (see `frontier.rs`).
    frontier: Frontier,
    frontier_items: Vec<frontier::Item>,
    /// Tests force the 64-bit keys to check them on small instances.
    #[cfg(test)]
    force_wide_keys: bool,
}

/// Items that reach the DP, in the caller's order, with reduced sizes.
#[derive(Debug, Default)]
struct Candidates {
    index: Vec<usize>,
    size: Vec<u32>,
    shadow_size: Vec<u32>,
    merit: Vec<f64>,
}

/// Buffers that depend on the key type.
#[derive(Debug, Default)]
struct Buffers<K> {
    items: Vec<KernelItem<K>>,
    /// Two value layers.
    layers: Vec<K>,
}

/// Buffers shared by both key types.
#[derive(Debug, Default)]
struct Shared {
    /// Two merit layers.
    merit_layers: Vec<f64>,
    masks: Vec<u8>,
    selected: Vec<u64>,
    bypassed: Vec<u64>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    util: u32,
    sutil: u32,
    merit: f64,
    cells: u64,
}

/// One call's input (validated before use).
#[derive(Clone, Copy)]
struct Input<'a> {
    sizes: &'a [u32],
    shadow_sizes: &'a [u32],
    capacity: u32,
    extra: u32,
}

/// How the merit enters the keys.
#[derive(Clone, Copy, Debug)]
enum MeritPlan {
    /// Integer merits packed in the key: `key = base * range + (merit - low)`.
    Packed { range: u128, low: i128 },
    /// Merits in a parallel `f64` layer, `key = base`.
    Float,
}

/// The (possibly reduced) problem one call solves: the candidates are in `Solver::candidates`.
#[derive(Clone, Copy, Debug)]
struct Plan {
    capacity: usize,
    extra: usize,
    merit: MeritPlan,
    wide_keys: bool,
}

/// 2^53: integers of smaller magnitude, and their sums below it, are exact in `f64`.
const EXACT_F64_INTEGERS: f64 = 9_007_199_254_740_992.0;
const EXACT_F64_INTEGERS_I128: i128 = 1 << 53;

impl Solver {
    /// A solver with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of buffer memory the solver holds for reuse (the capacity of its buffers). It
    /// grows to fit the largest problem solved so far and never shrinks; a call on a problem
    /// no larger than an earlier one allocates nothing.
    pub fn retained_bytes(&self) -> usize {
        fn bytes<T>(buffer: &Vec<T>) -> usize {
            buffer.capacity() * size_of::<T>()
        }
        let candidates = &self.candidates;
        bytes(&candidates.index)
            + bytes(&candidates.size)
            + bytes(&candidates.shadow_size)
            + bytes(&candidates.merit)
            + bytes(&self.basic_shadow_sizes)
            + bytes(&self.narrow.items)
            + bytes(&self.narrow.layers)
            + bytes(&self.wide.items)
            + bytes(&self.wide.layers)
            + bytes(&self.shared.merit_layers)
            + bytes(&self.shared.masks)
            + bytes(&self.shared.selected)
            + bytes(&self.shared.bypassed)
            + bytes(&self.picked)
            + bytes(&self.frontier_items)
            + self.frontier.retained_bytes()
    }

    #[cfg(test)]
    fn force_wide(&self) -> bool {
        self.force_wide_keys
    }

    #[cfg(not(test))]
    fn force_wide(&self) -> bool {
        false
    }

    /// Reservation_DP (Algorithm 3, with the merits of Algorithms 6/7 and the traceback of
    /// Algorithm 4 or 5): selects items that together fit `capacity` now and `extra` at the
    /// shadow time, maximising util, then minimising sutil, then maximising the merit.
    ///
    /// `shadow_sizes[i]` is 0 when item `i` ends before the shadow time and `sizes[i]` when it
    /// still runs then (thesis section 3.3.1).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`], [`Error::ZeroSize`], [`Error::InvalidShadowSize`],
    /// [`Error::NonFiniteMerit`] and [`Error::MeritOverflow`] for inconsistent input;
    /// [`Error::TableTooLarge`] and [`Error::Allocation`] when the table does not fit in memory.
    pub fn reservation_dp(
        &mut self,
        sizes: &[u32],
        shadow_sizes: &[u32],
        capacity: u32,
        extra: u32,
        options: &Options<'_>,
    ) -> Result<Solution<'_>, Error> {
        let input = Input {
            sizes,
            shadow_sizes,
            capacity,
            extra,
        };
        validate(input, options)?;
        self.solve(input, options)?;
        Ok(self.solution())
    }

    /// Basic_DP (Algorithm 1, traceback Algorithm 2 or 5): selects items that together fit
    /// `capacity`, maximising util (then the merit), among the items with `eligible[i]` true,
    /// i.e. those that end before the shadow time (`t + time <= shadow`). `None` makes every
    /// item eligible (no reservation, as Delayed-LOS calls it).
    ///
    /// Ineligible items stay in the queue as in Algorithm 1: always bypassed, but they count
    /// towards the lookahead. This is Reservation_DP with `extra = 0` and shadow size 0 for the
    /// eligible items and the size for the others, so `sutil` is always 0.
    ///
    /// # Errors
    ///
    /// As [`reservation_dp`](Self::reservation_dp); [`Error::LengthMismatch`] also names
    /// `"eligible"`.
    pub fn basic_dp(
        &mut self,
        sizes: &[u32],
        eligible: Option<&[bool]>,
        capacity: u32,
        options: &Options<'_>,
    ) -> Result<Solution<'_>, Error> {
        let mut shadow_sizes = std::mem::take(&mut self.basic_shadow_sizes);
        let result = basic_shadow_sizes(sizes, eligible, &mut shadow_sizes).and_then(|()| {
            let input = Input {
                sizes,
                shadow_sizes: &shadow_sizes,
                capacity,
                extra: 0,
            };
            validate(input, options)?;
            self.solve(input, options)
        });
        self.basic_shadow_sizes = shadow_sizes;
        result?;
        Ok(self.solution())
    }

    /// Inspection: runs Reservation_DP like [`reservation_dp`](Self::reservation_dp) but
    /// without the internal reductions (the lookahead still applies) and keeps every cell of
    /// `M'`, to be read with [`Table::cell`], e.g. to compare with the thesis' tables. Meant
    /// for small instances: it allocates the whole table.
    ///
    /// # Errors
    ///
    /// As [`reservation_dp`](Self::reservation_dp).
    pub fn reservation_table(
        &mut self,
        sizes: &[u32],
        shadow_sizes: &[u32],
        capacity: u32,
        extra: u32,
        options: &Options<'_>,
    ) -> Result<Table, Error> {
        let input = Input {
            sizes,
            shadow_sizes,
            capacity,
            extra,
        };
        validate(input, options)?;
        self.table(input, options)
    }

    /// Inspection: the table `M` of Basic_DP (Algorithm 1; read it with `k = 0`), as
    /// [`reservation_table`](Self::reservation_table) does for Reservation_DP.
    ///
    /// # Errors
    ///
    /// As [`basic_dp`](Self::basic_dp).
    pub fn basic_table(
        &mut self,
        sizes: &[u32],
        eligible: Option<&[bool]>,
        capacity: u32,
        options: &Options<'_>,
    ) -> Result<Table, Error> {
        let mut shadow_sizes = std::mem::take(&mut self.basic_shadow_sizes);
        let result = basic_shadow_sizes(sizes, eligible, &mut shadow_sizes).and_then(|()| {
            let input = Input {
                sizes,
                shadow_sizes: &shadow_sizes,
                capacity,
                extra: 0,
            };
            validate(input, options)?;
            self.table(input, options)
        });
        self.basic_shadow_sizes = shadow_sizes;
        result
    }

    /// Solves a validated input, leaving the selected caller indices in `self.picked` and the
    /// totals in `self.totals`. One-dimensional (see `frontier.rs`): the same set as the
    /// thesis' table, which [`Solver::reservation_table`] still fills.
    fn solve(&mut self, input: Input<'_>, options: &Options<'_>) -> Result<(), Error> {
        self.picked.clear();
        self.totals = Totals::default();
        let plan = self.plan(input, options, options.reductions);
        if self.candidates.index.is_empty() || plan.capacity == 0 {
            return Ok(());
        }
        let count = self.candidates.index.len();
        let with_merit = !matches!(options.merit, Merit::None);
        let bytes = Frontier::bytes_needed(count, plan.capacity, with_merit);
        if bytes > u128::from(options.memory_limit) {
            return Err(Error::TableTooLarge {
                bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
                limit: options.memory_limit,
            });
        }
        let candidates = &self.candidates;
        self.frontier_items.clear();
        self.frontier_items
            .extend((0..count).map(|i| frontier::Item {
                size: candidates.size[i] as usize,
                shadow_size: candidates.shadow_size[i],
                merit: candidates.merit[i],
            }));
        let extra = u32::try_from(plan.extra).unwrap_or(u32::MAX);
        let mut positions = std::mem::take(&mut self.picked);
        let solved = self.frontier.solve(
            &self.frontier_items,
            (plan.capacity, extra),
            with_merit,
            options.traceback,
            &mut positions,
        );
        // Positions among the candidates become the caller's indices.
        for position in &mut positions {
            *position = self.candidates.index[*position];
        }
        self.picked = positions;
        solved.map_err(|source| Error::Allocation {
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            source,
        })?;
        self.totals = totals(input, options, &self.picked);
        self.totals.cells = (count * (plan.capacity + 1)) as u64;
        Ok(())
    }

    /// The thesis' three-dimensional fill and traceback, with the same reductions as
    /// [`solve`](Self::solve): the reference the one-dimensional solve is tested against.
    #[cfg(test)]
    fn solve_dense(&mut self, input: Input<'_>, options: &Options<'_>) -> Result<(), Error> {
        self.picked.clear();
        self.totals = Totals::default();
        let plan = self.plan(input, options, options.reductions);
        if self.candidates.index.is_empty() || plan.capacity == 0 {
            return Ok(());
        }
        self.check_memory(plan, options, false)?;
        self.run(plan, options.traceback, None)?;
        self.totals = totals(input, options, &self.picked);
        Ok(())
    }

    fn table(&mut self, input: Input<'_>, options: &Options<'_>) -> Result<Table, Error> {
        self.picked.clear();
        let plan = self.plan(input, options, false);
        let table_cells = self.check_memory(plan, options, true)?;
        let mut values = Vec::new();
        reserve(&mut values, table_cells)?;
        self.run(plan, options.traceback, Some(&mut values))?;
        let shape = Shape::new(plan.capacity, plan.extra);
        let marker_words = self.candidates.index.len() * shape.item_words();
        Ok(Table::new(
            self.candidates.index.clone(),
            shape,
            values,
            self.shared.selected[..marker_words].to_vec(),
            self.shared.bypassed[..marker_words].to_vec(),
        ))
    }

    fn solution(&self) -> Solution<'_> {
        Solution {
            selected: &self.picked,
            util: self.totals.util,
            sutil: self.totals.sutil,
            merit: self.totals.merit,
            cells: self.totals.cells,
        }
    }

    /// Preprocessing: picks the candidates (lookahead, then the reductions when `reduce`) into
    /// `self.candidates` and decides the key layout.
    fn plan(&mut self, input: Input<'_>, options: &Options<'_>, reduce: bool) -> Plan {
        let candidates = &mut self.candidates;
        candidates.index.clear();
        candidates.size.clear();
        candidates.shadow_size.clear();
        candidates.merit.clear();
        let mut counted = 0;
        for (index, (&size, &shadow_size)) in input.sizes.iter().zip(input.shadow_sizes).enumerate()
        {
            if let Some(lookahead) = options.lookahead {
                // Section 3.5.1 and Table 3.8: too-large items go first, then the first C of
                // the remaining items are kept.
                if size > input.capacity {
                    continue;
                }
                if counted == lookahead {
                    break;
                }
                counted += 1;
            }
            if reduce && (size > input.capacity || shadow_size > input.extra) {
                // Never fits in any cell: always bypassed, so dropping it changes nothing.
                continue;
            }
            candidates.index.push(index);
            candidates.size.push(size);
            candidates.shadow_size.push(shadow_size);
            candidates.merit.push(merit_of(options.merit, index));
        }

        let (mut capacity, mut extra) = (input.capacity, input.extra);
        if reduce {
            // Every set's size is a multiple of the gcd and at most the total size, so
            // dividing by the gcd (rounding capacities down) and bounding by the totals keeps
            // exactly the same feasible sets.
            let divisor = candidates
                .size
                .iter()
                .fold(0, |g, &size| gcd(g, size))
                .max(1);
            let total: u64 = candidates.size.iter().map(|&s| u64::from(s)).sum();
            let shadow_total: u64 = candidates.shadow_size.iter().map(|&s| u64::from(s)).sum();
            capacity = bounded(capacity, total) / divisor;
            extra = bounded(extra, shadow_total) / divisor;
            for size in &mut candidates.size {
                *size /= divisor;
            }
            for shadow_size in &mut candidates.shadow_size {
                *shadow_size /= divisor;
            }
        }

        let merit = merit_plan(options.merit, &candidates.merit);
        let layer_cells = (u128::from(capacity) + 1) * (u128::from(extra) + 1);
        let (merit, max_key) = match merit {
            MeritPlan::Packed { range, .. } if layer_cells * range - 1 <= u128::from(u64::MAX) => {
                (merit, layer_cells * range - 1)
            }
            _ => (MeritPlan::Float, layer_cells - 1),
        };
        Plan {
            capacity: capacity as usize,
            extra: extra as usize,
            merit,
            wide_keys: max_key > u128::from(u32::MAX) || self.force_wide(),
        }
    }

    /// Checks the memory a call needs against the limit; returns the number of table cells
    /// (items x layer) when `with_table`, else 0.
    fn check_memory(
        &self,
        plan: Plan,
        options: &Options<'_>,
        with_table: bool,
    ) -> Result<usize, Error> {
        let items = self.candidates.index.len() as u128;
        let width = plan.capacity as u128 + 1;
        let rows = plan.extra as u128 + 1;
        let words = width.div_ceil(64);
        let key_bytes = if plan.wide_keys { 8 } else { 4 };
        let merit_bytes = if matches!(plan.merit, MeritPlan::Float) {
            8
        } else {
            0
        };
        let value_bytes = key_bytes + merit_bytes;
        let table_cells = if with_table { items * width * rows } else { 0 };
        // Both marker planes for a table, one for a solve.
        let planes = if with_table { 2 } else { 1 };
        let bytes = planes * 8 * items * rows * words
            + 2 * width * rows * value_bytes
            + 64 * words
            + 32 * items
            + table_cells * size_of::<CellValue>() as u128;
        let too_large = || Error::TableTooLarge {
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
            limit: options.memory_limit,
        };
        if bytes > u128::from(options.memory_limit) {
            return Err(too_large());
        }
        // The limit may exceed a 32-bit address space.
        usize::try_from(bytes).map_err(|_| too_large())?;
        usize::try_from(table_cells).map_err(|_| too_large())
    }

    /// Fills the table for the planned candidates and traces the selected set back into
    /// `self.picked`. `record` receives every layer's cells (inspection tables).
    fn run(
        &mut self,
        plan: Plan,
        traceback: Traceback,
        record: Option<&mut Vec<CellValue>>,
    ) -> Result<(), Error> {
        // The traceback reads one marker plane; the inspection tables show both.
        let planes = Planes {
            selected: record.is_some() || traceback == Traceback::SelectedFirst,
            bypassed: record.is_some() || traceback == Traceback::BypassedFirst,
        };
        if plan.wide_keys {
            fill(
                &self.candidates,
                &mut self.wide,
                &mut self.shared,
                (plan, planes),
                record,
            )?;
        } else {
            fill(
                &self.candidates,
                &mut self.narrow,
                &mut self.shared,
                (plan, planes),
                record,
            )?;
        }
        trace_back(
            &self.candidates,
            &self.shared,
            plan,
            traceback,
            &mut self.picked,
        );
        Ok(())
    }
}

/// Which marker planes a fill keeps.
#[derive(Clone, Copy, Debug)]
struct Planes {
    selected: bool,
    bypassed: bool,
}

/// Algorithm 3 (6, 7) for one key type.
fn fill<K: Key>(
    candidates: &Candidates,
    buffers: &mut Buffers<K>,
    shared: &mut Shared,
    (plan, planes): (Plan, Planes),
    record: Option<&mut Vec<CellValue>>,
) -> Result<(), Error> {
    let shape = Shape::new(plan.capacity, plan.extra);
    let count = candidates.index.len();
    let layer_cells = shape.layer_cells();
    let marker_words = count * shape.item_words();
    let selected_words = if planes.selected { marker_words } else { 0 };
    let bypassed_words = if planes.bypassed { marker_words } else { 0 };
    grow(&mut buffers.layers, 2 * layer_cells, K::default())?;
    grow(&mut shared.masks, shape.words * 64, 0)?;
    grow(&mut shared.selected, selected_words, 0)?;
    grow(&mut shared.bypassed, bypassed_words, 0)?;

    let extra = plan.extra as u128;
    let (range, low) = match plan.merit {
        MeritPlan::Packed { range, low } => (range, low),
        MeritPlan::Float => (1, 0),
    };
    buffers.items.clear();
    reserve(&mut buffers.items, count)?;
    for i in 0..count {
        let size = candidates.size[i] as usize;
        let shadow_size = candidates.shadow_size[i] as usize;
        let merit = candidates.merit[i];
        let delta = if size > plan.capacity || shadow_size > plan.extra {
            // Fits no cell (only without the reductions), so the delta is never used.
            K::default()
        } else {
            // key(util + size, sutil + ssize, merit + m) - key(util, sutil, merit); positive
            // because size * (E + 1) > E >= ssize and range + m >= 1.
            let base_delta = (size as u128 * (extra + 1) - shadow_size as u128) * range;
            let merit_delta = match plan.merit {
                MeritPlan::Packed { .. } => merit as i128,
                MeritPlan::Float => 0,
            };
            K::encode_delta((base_delta as i128 + merit_delta) as u128)
        };
        buffers.items.push(KernelItem {
            size,
            shadow_size,
            delta,
            merit,
        });
    }

    // The empty set: util 0, sutil 0, merit 0.
    let empty = K::encode((extra as i128 * range as i128 - low) as u128);
    buffers.layers[..layer_cells].fill(empty);
    let work = Work {
        layers: &mut buffers.layers[..2 * layer_cells],
        masks: &mut shared.masks[..shape.words * 64],
        selected: &mut shared.selected[..selected_words],
        bypassed: &mut shared.bypassed[..bypassed_words],
    };
    let decode = |key: K| {
        let key = key.decode();
        let (base, merit_part) = (key / range, key % range);
        CellValue {
            util: (base / (extra + 1)) as u32,
            sutil: (extra - base % (extra + 1)) as u32,
            merit: (merit_part as i128 + low) as f64,
        }
    };
    match plan.merit {
        MeritPlan::Packed { .. } => match record {
            None => kernel::fill_packed(shape, &buffers.items, work, |_| {}),
            Some(values) => kernel::fill_packed(shape, &buffers.items, work, |layer| {
                values.extend(layer.iter().map(|&key| decode(key)));
            }),
        },
        MeritPlan::Float => {
            grow(&mut shared.merit_layers, 2 * layer_cells, 0.0)?;
            shared.merit_layers[..layer_cells].fill(0.0);
            let merit_layers = &mut shared.merit_layers[..2 * layer_cells];
            match record {
                None => {
                    kernel::fill_with_merit(shape, &buffers.items, work, merit_layers, |_, _| {});
                }
                Some(values) => kernel::fill_with_merit(
                    shape,
                    &buffers.items,
                    work,
                    merit_layers,
                    |layer, merits| {
                        values.extend(layer.iter().zip(merits).map(|(&key, &merit)| CellValue {
                            merit,
                            ..decode(key)
                        }));
                    },
                ),
            }
        }
    }
    Ok(())
}

/// Algorithm 4 (bypassed-first) or 5 (selected-first), from cell `(|WQ|, n, extra)`.
fn trace_back(
    candidates: &Candidates,
    shared: &Shared,
    plan: Plan,
    traceback: Traceback,
    picked: &mut Vec<usize>,
) {
    let shape = Shape::new(plan.capacity, plan.extra);
    let (mut j, mut k) = (plan.capacity, plan.extra);
    picked.clear();
    for i in (0..candidates.index.len()).rev() {
        if j == 0 {
            break;
        }
        let (word, bit) = shape.marker_bit(i, j, k);
        let take = match traceback {
            Traceback::BypassedFirst => (shared.bypassed[word] >> bit) & 1 == 0,
            Traceback::SelectedFirst => (shared.selected[word] >> bit) & 1 == 1,
        };
        if take {
            // A cell is selected only when the item fits it, so these never underflow.
            j -= candidates.size[i] as usize;
            k -= candidates.shadow_size[i] as usize;
            picked.push(candidates.index[i]);
        }
    }
    picked.reverse();
}

/// The totals of the selected set, from the caller's (unreduced) values.
fn totals(input: Input<'_>, options: &Options<'_>, picked: &[usize]) -> Totals {
    let mut util = 0u64;
    let mut sutil = 0u64;
    let mut merit = 0.0;
    for &index in picked {
        util += u64::from(input.sizes[index]);
        sutil += u64::from(input.shadow_sizes[index]);
        merit += merit_of(options.merit, index);
    }
    // The set fits `capacity` and `extra`, both u32.
    Totals {
        util: u32::try_from(util).unwrap_or(u32::MAX),
        sutil: u32::try_from(sutil).unwrap_or(u32::MAX),
        merit,
        cells: 0,
    }
}

fn merit_of(merit: Merit<'_>, index: usize) -> f64 {
    match merit {
        Merit::None => 0.0,
        Merit::MaxJobs => 1.0,
        Merit::PerItem(values) => values[index],
    }
}

/// Packs the merits in the key when they are integers whose sums stay exact in `f64` (then the
/// integer and the `f64` comparisons agree); otherwise keeps an `f64` layer.
fn merit_plan(merit: Merit<'_>, merits: &[f64]) -> MeritPlan {
    let mut low: i128 = 0;
    let mut high: i128 = 0;
    if !matches!(merit, Merit::None) {
        for &value in merits {
            if value.fract() != 0.0 || value.abs() >= EXACT_F64_INTEGERS {
                return MeritPlan::Float;
            }
            let value = value as i128;
            if value < 0 {
                low += value;
            } else {
                high += value;
            }
        }
    }
    if high - low >= EXACT_F64_INTEGERS_I128 {
        return MeritPlan::Float;
    }
    MeritPlan::Packed {
        range: (high - low + 1) as u128,
        low,
    }
}

fn validate(input: Input<'_>, options: &Options<'_>) -> Result<(), Error> {
    let items = input.sizes.len();
    if input.shadow_sizes.len() != items {
        return Err(Error::LengthMismatch {
            name: "shadow_sizes",
            expected: items,
            found: input.shadow_sizes.len(),
        });
    }
    for (index, (&size, &shadow_size)) in input.sizes.iter().zip(input.shadow_sizes).enumerate() {
        if size == 0 {
            return Err(Error::ZeroSize { index });
        }
        if shadow_size != 0 && shadow_size != size {
            return Err(Error::InvalidShadowSize {
                index,
                size,
                shadow_size,
            });
        }
    }
    if let Merit::PerItem(merits) = options.merit {
        if merits.len() != items {
            return Err(Error::LengthMismatch {
                name: "merits",
                expected: items,
                found: merits.len(),
            });
        }
        let mut absolute_sum = 0.0_f64;
        for (index, &value) in merits.iter().enumerate() {
            if !value.is_finite() {
                return Err(Error::NonFiniteMerit { index, value });
            }
            absolute_sum += value.abs();
        }
        if !absolute_sum.is_finite() {
            return Err(Error::MeritOverflow);
        }
    }
    Ok(())
}

/// Basic_DP as Reservation_DP with `extra = 0`: eligible items get shadow size 0, the others
/// their size (so they never fit).
fn basic_shadow_sizes(
    sizes: &[u32],
    eligible: Option<&[bool]>,
    out: &mut Vec<u32>,
) -> Result<(), Error> {
    out.clear();
    match eligible {
        None => out.resize(sizes.len(), 0),
        Some(eligible) => {
            if eligible.len() != sizes.len() {
                return Err(Error::LengthMismatch {
                    name: "eligible",
                    expected: sizes.len(),
                    found: eligible.len(),
                });
            }
            out.extend(
                sizes
                    .iter()
                    .zip(eligible)
                    .map(|(&size, &ok)| if ok { 0 } else { size }),
            );
        }
    }
    Ok(())
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `min(capacity, total)`, as u32.
fn bounded(capacity: u32, total: u64) -> u32 {
    u32::try_from(total).map_or(capacity, |total| capacity.min(total))
}

/// Grows `buffer` to at least `len` elements, reporting allocation failure.
fn grow<T: Clone>(buffer: &mut Vec<T>, len: usize, fill: T) -> Result<(), Error> {
    if buffer.len() < len {
        reserve(buffer, len - buffer.len())?;
        buffer.resize(len, fill);
    }
    Ok(())
}

/// Reserves room for `additional` more elements, reporting allocation failure.
fn reserve<T>(buffer: &mut Vec<T>, additional: usize) -> Result<(), Error> {
    buffer
        .try_reserve_exact(additional)
        .map_err(|source| Error::Allocation {
            bytes: (buffer.len().saturating_add(additional)).saturating_mul(size_of::<T>()) as u64,
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random small instances: (sizes, shadow sizes, quarters, integers, arbitrary
    /// fractions, capacity, extra).
    type Instance = (Vec<u32>, Vec<u32>, Vec<f64>, Vec<f64>, Vec<f64>, u32, u32);

    fn instances(count: usize) -> Vec<Instance> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        (0..count)
            .map(|_| {
                let len = next(14) as usize;
                let sizes: Vec<u32> = (0..len).map(|_| 1 + next(9) as u32).collect();
                let shadow_sizes = sizes
                    .iter()
                    .map(|&size| if next(2) == 0 { 0 } else { size })
                    .collect();
                // Quarters: not integers, so the f64 layer runs; integers: packed keys;
                // arbitrary fractions: sums that round.
                let quarters: Vec<f64> = (0..len).map(|_| (next(17) as f64 - 8.0) / 4.0).collect();
                let integers = quarters.iter().map(|q| (q * 4.0).round()).collect();
                let fractions = (0..len).map(|_| 1.0 + next(1000) as f64 / 7.0).collect();
                (
                    sizes,
                    shadow_sizes,
                    quarters,
                    integers,
                    fractions,
                    next(25) as u32,
                    next(25) as u32,
                )
            })
            .collect()
    }

    fn answer(solver: &Solver) -> (Vec<usize>, u32, u32, f64) {
        let t = solver.totals;
        (solver.picked.clone(), t.util, t.sutil, t.merit)
    }

    /// The 64-bit key kernels (used when the keys overflow 32 bits, i.e. for huge capacities or
    /// merit ranges) agree with the 32-bit ones on small instances, for the packed and the f64
    /// merit layouts; and the one-dimensional solve returns exactly the dense table's set.
    #[test]
    fn dense_kernels_and_the_one_dimensional_solve_agree() {
        let mut narrow = Solver::new();
        let mut wide = Solver::new();
        wide.force_wide_keys = true;
        let mut frontier = Solver::new();
        for (sizes, shadow_sizes, quarters, integers, fractions, capacity, extra) in instances(400)
        {
            let input = Input {
                sizes: &sizes,
                shadow_sizes: &shadow_sizes,
                capacity,
                extra,
            };
            for merit in [
                Merit::None,
                Merit::MaxJobs,
                Merit::PerItem(&quarters),
                Merit::PerItem(&integers),
                Merit::PerItem(&fractions),
            ] {
                for traceback in [Traceback::BypassedFirst, Traceback::SelectedFirst] {
                    for reductions in [true, false] {
                        let options = Options::new()
                            .with_merit(merit)
                            .with_traceback(traceback)
                            .with_reductions(reductions);
                        narrow.solve_dense(input, &options).unwrap();
                        wide.solve_dense(input, &options).unwrap();
                        frontier.solve(input, &options).unwrap();
                        assert_eq!(answer(&narrow), answer(&wide));
                        assert_eq!(
                            answer(&frontier),
                            answer(&narrow),
                            "{sizes:?} {shadow_sizes:?} {merit:?} {capacity} {extra}"
                        );
                    }
                }
            }
        }
        assert!(wide.wide.layers.capacity() > 0 && wide.narrow.layers.capacity() == 0);
    }

    #[test]
    fn merit_plan_packs_only_exact_integers() {
        // Integers -2 and 3: low = -2, high = 3, range 3 - (-2) + 1 = 6.
        assert!(matches!(
            merit_plan(Merit::PerItem(&[]), &[-2.0, 3.0]),
            MeritPlan::Packed { range: 6, low: -2 }
        ));
        assert!(matches!(
            merit_plan(Merit::PerItem(&[]), &[0.5]),
            MeritPlan::Float
        ));
        // 2^52 + 2^52 = 2^53: sums would no longer be exact integers in f64.
        assert!(matches!(
            merit_plan(Merit::PerItem(&[]), &[4_503_599_627_370_496.0; 2]),
            MeritPlan::Float
        ));
        assert!(matches!(
            merit_plan(Merit::None, &[0.0; 3]),
            MeritPlan::Packed { range: 1, low: 0 }
        ));
    }

    #[test]
    fn gcd_and_bounds() {
        assert_eq!(gcd(0, 12), 12);
        assert_eq!(gcd(96, 64), 32);
        assert_eq!(gcd(7, 5), 1);
        assert_eq!(bounded(200, 192), 192);
        assert_eq!(bounded(100, u64::MAX), 100);
    }
}

use std::collections::TryReserveError;

/// Why a DP call rejected its input or could not run.
///
/// Every variant names the offending item (its index in the caller's slices) or quantity, so a
/// caller can report exactly what was wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A per-item slice (shadow sizes, eligibility flags or merits) has a different length from
    /// `sizes`.
    #[error("{name} has {found} entries but there are {expected} items")]
    LengthMismatch {
        /// Which slice: `"shadow_sizes"`, `"eligible"` or `"merits"`.
        name: &'static str,
        /// The number of items (`sizes.len()`).
        expected: usize,
        /// The length of the offending slice.
        found: usize,
    },
    /// An item has size 0; every item needs at least one unit of capacity.
    #[error("item {index} has size 0, sizes must be at least 1")]
    ZeroSize {
        /// Index of the item in the caller's slices.
        index: usize,
    },
    /// A shadow size is neither 0 (the item ends before the shadow time) nor the item's size (it
    /// still runs then), the only two values the thesis allows (section 3.3.1).
    #[error("item {index} has shadow size {shadow_size}, it must be 0 or the size {size}")]
    InvalidShadowSize {
        /// Index of the item in the caller's slices.
        index: usize,
        /// The item's size.
        size: u32,
        /// The rejected shadow size.
        shadow_size: u32,
    },
    /// A merit is NaN or infinite.
    #[error("item {index} has merit {value}, merits must be finite")]
    NonFiniteMerit {
        /// Index of the item in the caller's slices.
        index: usize,
        /// The rejected merit.
        value: f64,
    },
    /// The sum of the absolute merits is not finite, so merit sums could overflow to infinity
    /// and compare wrongly.
    #[error("the absolute merits sum to a non-finite value, merit sums must stay finite")]
    MeritOverflow,
    /// The DP table would need more memory than [`Options::memory_limit`](crate::Options)
    /// allows (or more than the address space holds).
    #[error("the dp table needs {bytes} bytes, above the memory limit of {limit} bytes")]
    TableTooLarge {
        /// Bytes the call would need (saturated at `u64::MAX`).
        bytes: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The allocator refused the table's memory.
    #[error("could not allocate {bytes} bytes for the dp table")]
    Allocation {
        /// Bytes requested for the buffer that failed.
        bytes: u64,
        /// The allocator's error.
        #[source]
        source: TryReserveError,
    },
}

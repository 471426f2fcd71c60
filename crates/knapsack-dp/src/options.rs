/// Which optimal set the traceback returns when several sets reach the same optimum.
///
/// Both orders return a set that is optimal for (util max, sutil min, merit max); they differ
/// only among such tied sets. See the crate documentation for the exact rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Traceback {
    /// Algorithm 4 (and 2): where both markers are set, follow *bypassed*. Among the optimal
    /// sets, returns the one that, scanning items from the last to the first, leaves out the
    /// first item on which the sets differ (items nearer the queue head are preferred).
    #[default]
    BypassedFirst,
    /// Algorithm 5: where *selected* is set, follow it. Among the optimal sets, returns the one
    /// that, scanning items from the last to the first, contains the first item on which the
    /// sets differ (items nearer the queue tail are preferred).
    SelectedFirst,
}

/// The tie-breaking merit among sets with equal util and sutil (thesis section 3.4).
///
/// A larger total merit wins. To minimise a quantity (e.g. min-slowdown), pass its negation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum Merit<'a> {
    /// No merit (Algorithm 3): equal (util, sutil) keeps both markers.
    #[default]
    None,
    /// Maxjobs (Algorithm 6): merit 1 per item, so the set with the most items wins.
    MaxJobs,
    /// One merit per item, indexed like `sizes` (Algorithm 7 with the slowdowns from
    /// [`waiting_slowdown`](crate::waiting_slowdown), user priorities, ...). Must be finite.
    PerItem(&'a [f64]),
}

/// The default [`Options::memory_limit`]: 4 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// How a DP call selects, breaks ties and preprocesses.
///
/// Build it with [`Options::new`] (or `default()`) and the `with_*` methods:
///
/// ```
/// use knapsack_dp::{Merit, Options, Traceback};
/// let options = Options::new()
///     .with_merit(Merit::MaxJobs)
///     .with_traceback(Traceback::SelectedFirst)
///     .with_lookahead(50);
/// assert_eq!(options.lookahead, Some(50));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Options<'a> {
    /// Tie-breaking merit; default [`Merit::None`].
    pub merit: Merit<'a>,
    /// Traceback order; default [`Traceback::BypassedFirst`].
    pub traceback: Traceback,
    /// Limited lookahead C (thesis section 3.5.1): when set, only the first C items whose size
    /// fits the capacity `n` are candidates; items larger than `n` are dropped first and do not
    /// count towards C. Default `None` (every item is a candidate).
    pub lookahead: Option<usize>,
    /// Apply the result-preserving reductions (drop items that can never fit, divide by the
    /// gcd of the sizes, bound the capacities by the total sizes). Default `true`; turning them
    /// off never changes a result, only the work done.
    pub reductions: bool,
    /// Upper bound, in bytes, on the memory one call may use for its tables; larger problems
    /// fail with [`Error::TableTooLarge`](crate::Error::TableTooLarge) instead of exhausting
    /// memory. Default [`DEFAULT_MEMORY_LIMIT`].
    pub memory_limit: u64,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Options<'a> {
    /// The defaults: no merit, bypassed-first, no lookahead limit, reductions on.
    pub const fn new() -> Self {
        Options {
            merit: Merit::None,
            traceback: Traceback::BypassedFirst,
            lookahead: None,
            reductions: true,
            memory_limit: DEFAULT_MEMORY_LIMIT,
        }
    }

    /// Sets the tie-breaking merit.
    #[must_use]
    pub const fn with_merit(mut self, merit: Merit<'a>) -> Self {
        self.merit = merit;
        self
    }

    /// Sets the traceback order.
    #[must_use]
    pub const fn with_traceback(mut self, traceback: Traceback) -> Self {
        self.traceback = traceback;
        self
    }

    /// Limits the lookahead to the first `c` items that fit the capacity.
    #[must_use]
    pub const fn with_lookahead(mut self, c: usize) -> Self {
        self.lookahead = Some(c);
        self
    }

    /// Turns the result-preserving reductions on or off.
    #[must_use]
    pub const fn with_reductions(mut self, reductions: bool) -> Self {
        self.reductions = reductions;
        self
    }

    /// Sets the memory limit in bytes.
    #[must_use]
    pub const fn with_memory_limit(mut self, bytes: u64) -> Self {
        self.memory_limit = bytes;
        self
    }
}

/// The expected slowdown of a waiting job if it started at `now`, as Algorithm 7 defines it:
/// `(now - arrival + estimate) / estimate`, with the user's runtime estimate standing in for the
/// unknown runtime.
///
/// Returns `None` when `estimate` is not positive or `arrival` is after `now` (no meaningful
/// slowdown). Pass the values as [`Merit::PerItem`] for the Max-Slowdown approach.
///
/// ```
/// // Waited 30 s, estimated 10 s: (30 + 10) / 10 = 4.
/// assert_eq!(knapsack_dp::waiting_slowdown(130, 100, 10), Some(4.0));
/// assert_eq!(knapsack_dp::waiting_slowdown(130, 100, 0), None);
/// ```
pub fn waiting_slowdown(now: i64, arrival: i64, estimate: i64) -> Option<f64> {
    if estimate <= 0 || arrival > now {
        return None;
    }
    let wait = now.checked_sub(arrival)?;
    let response = wait.checked_add(estimate)?;
    // Integer-to-float conversion is exact for all realistic times (< 2^53 s).
    #[allow(clippy::cast_precision_loss)]
    Some(response as f64 / estimate as f64)
}

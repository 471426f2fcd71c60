//! The LOS (Lookahead Optimizing Scheduler) dynamic-programming kernel: Basic_DP and
//! Reservation_DP, exact to the pseudo-code of Shmueli's thesis (chapter 3) and fast.
//!
//! LOS picks, among the waiting jobs, the set that together uses the most processors now
//! without delaying the reservation of the first waiting job. This crate solves that selection
//! problem — a two-constraint 0/1 knapsack with the thesis' tie-breaking — for any caller:
//! the LOS family, Delayed-LOS and Hybrid-LOS (which call it with a "freeze end capacity"), or
//! anything else that needs it. It has no scheduling model of its own: items are plain slices.
//!
//! # Example
//!
//! The thesis' running example (section 3.3, Figure 3.4): 5 free processors now, 3 free at
//! the shadow time, jobs of sizes 7, 2, 1, 2, 3 of which all but the second still run at the
//! shadow time.
//!
//! ```
//! use knapsack_dp::{Options, Solver, Traceback};
//!
//! let sizes = [7, 2, 1, 2, 3];
//! let shadow_sizes = [7, 0, 1, 2, 3]; // 0: ends before the shadow time, else the size
//! let mut solver = Solver::new(); // keep it: it reuses its buffers
//!
//! // Algorithm 4 (bypassed-first): S' = {wj2, wj3, wj4}, i.e. indices 1, 2, 3.
//! let s = solver.reservation_dp(&sizes, &shadow_sizes, 5, 3, &Options::new())?;
//! assert_eq!(s.selected, [1, 2, 3]);
//! assert_eq!((s.util, s.sutil), (5, 3)); // 5 processors now, 3 at the shadow time
//!
//! // Algorithm 5 (selected-first): S' = {wj2, wj5}.
//! let options = Options::new().with_traceback(Traceback::SelectedFirst);
//! let s = solver.reservation_dp(&sizes, &shadow_sizes, 5, 3, &options)?;
//! assert_eq!(s.selected, [1, 4]);
//!
//! // Algorithm 1/2 (Basic_DP): only the jobs that end before the shadow time are eligible.
//! let eligible = [false, true, false, false, false];
//! let s = solver.basic_dp(&sizes, Some(&eligible), 5, &Options::new())?;
//! assert_eq!((s.selected, s.util), (&[1][..], 2));
//! # Ok::<(), knapsack_dp::Error>(())
//! ```
//!
//! # The algorithms
//!
//! | Thesis | Here |
//! |---|---|
//! | Algorithm 1 (Basic_DP, matrix `M`) | [`Solver::basic_dp`] |
//! | Algorithm 2 (constructing `S`) | the traceback of `basic_dp`, [`Traceback::BypassedFirst`] |
//! | Algorithm 3 (Reservation_DP, matrix `M'`) | [`Solver::reservation_dp`] |
//! | Algorithm 4 (constructing `S'`) | [`Traceback::BypassedFirst`] (default) |
//! | Algorithm 5 (Selected-First) | [`Traceback::SelectedFirst`] |
//! | Algorithm 6 (Maxjobs) | [`Merit::MaxJobs`] |
//! | Algorithm 7 (Max-Slowdown) | [`Merit::PerItem`] with [`waiting_slowdown`] values |
//! | Section 3.5.1 (preprocessing) | [`Options::lookahead`] and [`Options::reductions`] |
//!
//! **Input.** Item `i` has a `size >= 1` (processors now) and, for Reservation_DP, a shadow
//! size: 0 if it ends before the shadow time, `size` if it still runs then (section 3.3.1; the
//! caller decides, e.g. `t + time <= shadow` in the thesis, `t + dur < fret` in Delayed-LOS).
//! Capacities are `n` (free processors now) and `extra` (free at the shadow time; the "freeze
//! end capacity" of Delayed/Hybrid-LOS, which may exceed `n`). Basic_DP takes an eligibility
//! flag per item instead (`None`: all eligible, as Delayed-LOS calls it); it is Reservation_DP
//! with `extra = 0`, shadow size 0 for eligible items and `size` for the others, which
//! reproduces Algorithm 1 cell for cell (ineligible items are bypassed but stay in the queue).
//!
//! **Output.** A [`Solution`]: the selected item indices (into the caller's slices,
//! increasing), `util` (their total size), `sutil` (their total shadow size) and `merit`
//! (their total merit).
//!
//! # Exact semantics of the optimum and of the ties
//!
//! A set `S` is *feasible* when its total size is at most `n` and its total shadow size at most
//! `extra`. Its value is the triple (util, sutil, merit) = (total size, total shadow size, total
//! merit), compared lexicographically: larger util wins; on equal util, smaller sutil wins
//! (it leaves more processors to the reserved job, Algorithm 3); on equal util and sutil,
//! larger merit wins (Algorithms 6 and 7; without a merit every merit is 0). The merit is
//! compared *only* when util and sutil tie, and equal merits keep both markers. The returned
//! set is always optimal; when several feasible sets share the optimal value the traceback
//! order chooses among them, exactly as follows. Write the candidates in queue order; for two
//! distinct optimal sets look at the *last* candidate (highest index) that belongs to one set
//! but not the other:
//!
//! * [`Traceback::BypassedFirst`] (Algorithms 2 and 4: when both markers are set, follow
//!   *bypassed*) returns the optimal set that does **not** contain that candidate, for every
//!   other optimal set. Equivalently: scanning from the last candidate back to the first, it
//!   leaves each candidate out whenever an optimal set consistent with the earlier choices
//!   does; it minimises `sum(2^i for i in S)`. Jobs nearer the head of the queue are
//!   preferred.
//! * [`Traceback::SelectedFirst`] (Algorithm 5: follow *selected* when it is set) returns the
//!   optimal set that **does** contain it: it takes each candidate, from the last back, whenever
//!   an optimal set allows; it maximises `sum(2^i for i in S)`.
//!
//! Both statements are tested against brute-force enumeration. The cell markers follow the
//! same rule: in cell `(i, j, k)`, *selected* is set when some optimal set of items `1..=i`
//! within capacities `(j, k)` contains item `i`, *bypassed* when some optimal set leaves it
//! out (see [`Table`]).
//!
//! Merit sums are `f64` sums in increasing item order. When they are exact — integers (as
//! Maxjobs), or multiples of a power of two, with sums below 2^53 — the statements above hold
//! exactly. With arbitrary fractions (e.g. slowdowns) two sums that are equal in exact
//! arithmetic can differ in their last bit, and the rounded sums decide.
//!
//! # Preprocessing and reductions
//!
//! * **Lookahead** ([`Options::lookahead`], section 3.5.1): with `Some(C)`, items larger than
//!   `n` are dropped first and then the first `C` remaining items (in queue order) are the
//!   candidates, so `C` counts the items that fit (Table 3.8: with `n = 5`, the too-large wj1
//!   goes, and `C = 3` keeps wj2, wj3, wj4). For Basic_DP the ineligible items count towards
//!   `C` like the others, as they are part of the queue in Algorithm 1.
//! * **Reductions** ([`Options::reductions`], on by default; they never change the selected
//!   set, util, sutil or merit, which a property test checks against unreduced solves):
//!   candidates that fit no cell (`size > n` or shadow size `> extra`) are dropped; `n` and
//!   `extra` are bounded by the candidates' total size and total shadow size; sizes and
//!   capacities are divided by the gcd of the candidate sizes (rounding the capacities down),
//!   so machines that allocate 32-node blocks get a table 32 times smaller per dimension.
//!
//! # Complexity and memory
//!
//! The thesis fills a three-dimensional table, one cell per item and pair of capacities
//! `(j, k)`. Because the objective *minimises* sutil after maximising util, one dimension
//! suffices: of two sets of the first `i` items with the same util, the one with the smaller
//! sutil (then the larger merit, then the one the traceback order prefers) beats the other
//! under every completion by later items, and fits `extra` whenever the other does. So the
//! solver keeps one state per util value, `u`, the best set of the items so far whose sizes
//! add up to exactly `u` within `extra`, and a bit per item and `u` for the traceback. On a
//! full tie the two sets differ first (from the top) at the item being added, so the rule of
//! Algorithms 4 and 5 decides there, with no state of its own. The result is the same set as
//! the thesis' table, tie for tie (tested against brute force and against the table-filling
//! kernel, which [`Solver::reservation_table`] still runs).
//!
//! Time `O(C x (n' + 1))` for `C` candidates and the reduced capacity `n'` (the table would be
//! `O(C x (n' + 1) x (extra' + 1))`; [`Solution::cells`] reports the states visited). Memory:
//! 4 bytes per util value (12 with a merit) and one bit per item and util value. For 50 items
//! on a machine of 8,192 processors that is 33 kB of states and 51 kB of bits, where the table
//! would have needed 50 x 8,193 x 8,193 cells. The [`Solver`] keeps its buffers: once they fit
//! the largest problem, calls allocate nothing. [`Options::memory_limit`] refuses problems
//! above a bound (default 4 GiB) with [`Error::TableTooLarge`] instead of exhausting memory.
//!
//! The inspection tables ([`Solver::reservation_table`]) fill the thesis' table itself: a cell
//! is one integer key `(util * (E + 1) + (E - sutil)) * R + merit`, so "util max, then sutil
//! min, then merit max" is a single integer maximum and selecting an item adds a constant;
//! rows are contiguous over `j`, the inner loops are branch-free and vectorise, markers are
//! packed into bits. Non-integer merits use a parallel `f64` layer compared only on equal
//! keys. The benchmark (`cargo bench -p knapsack-dp`) reports the throughput.
//!
//! # Inspection
//!
//! [`Solver::reservation_table`] and [`Solver::basic_table`] keep every cell (util, sutil,
//! merit and both markers) of the unreduced table, for teaching, debugging and the tests that
//! reproduce the thesis' Tables 3.2 and 3.4-3.7.
#![warn(missing_docs)]

mod error;
mod frontier;
mod kernel;
mod options;
mod solver;
mod table;

pub use error::Error;
pub use options::{DEFAULT_MEMORY_LIMIT, Merit, Options, Traceback, waiting_slowdown};
pub use solver::{Solution, Solver};
pub use table::{Cell, Table};

/// Compiles and runs the README's example as a doctest, so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

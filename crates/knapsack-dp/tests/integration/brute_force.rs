//! Property tests: every solve equals a brute-force enumeration of all candidate subsets, and
//! the tie-breaking picks exactly the set the crate documentation defines:
//!
//! - feasible: total size <= n and total shadow size <= extra;
//! - optimal for the lexicographic objective (util max, sutil min, merit max);
//! - among the optimal sets, bypassed-first returns the one with the smallest membership mask
//!   and selected-first the one with the largest, where bit b of the mask is the b-th
//!   candidate in queue order, so masks compare from the last item backwards.
//!
//! Merits are integers or multiples of 1/4 small enough that every f64 sum is exact, so equal
//! sums really tie in both the brute force and the DP (with arbitrary floats, two sums that are
//! equal in exact arithmetic can differ in the last bit depending on the order of the
//! additions).

use std::cell::RefCell;
use std::cmp::Ordering;

use knapsack_dp::{Merit, Options, Solver, Traceback};
use proptest::prelude::*;

thread_local! {
    /// One solver reused across all cases: results must not depend on earlier calls.
    static SOLVER: RefCell<Solver> = RefCell::new(Solver::new());
}

#[derive(Clone, Copy, Debug)]
enum MeritKind {
    None,
    MaxJobs,
    /// Small integers: packed into 32-bit keys.
    SmallIntegers,
    /// Multiples of 1/4: not integers, so the f64 merit layer runs.
    Quarters,
    /// Integers up to 2e6: packed into 64-bit keys.
    LargeIntegers,
}

#[derive(Clone, Debug)]
struct Instance {
    sizes: Vec<u32>,
    shadow_sizes: Vec<u32>,
    merits: Vec<f64>,
    merit_kind: MeritKind,
    capacity: u32,
    extra: u32,
    lookahead: Option<usize>,
    traceback: Traceback,
    reductions: bool,
}

impl Instance {
    fn options(&self) -> Options<'_> {
        let merit = match self.merit_kind {
            MeritKind::None => Merit::None,
            MeritKind::MaxJobs => Merit::MaxJobs,
            _ => Merit::PerItem(&self.merits),
        };
        let options = Options::new()
            .with_merit(merit)
            .with_traceback(self.traceback)
            .with_reductions(self.reductions);
        match self.lookahead {
            Some(c) => options.with_lookahead(c),
            None => options,
        }
    }

    fn merit(&self, index: usize) -> f64 {
        match self.merit_kind {
            MeritKind::None => 0.0,
            MeritKind::MaxJobs => 1.0,
            _ => self.merits[index],
        }
    }
}

fn merit_kind() -> impl Strategy<Value = MeritKind> {
    prop_oneof![
        Just(MeritKind::None),
        Just(MeritKind::MaxJobs),
        Just(MeritKind::SmallIntegers),
        Just(MeritKind::Quarters),
        Just(MeritKind::LargeIntegers),
    ]
}

fn merit_values(kind: MeritKind, len: usize) -> BoxedStrategy<Vec<f64>> {
    match kind {
        MeritKind::SmallIntegers => {
            proptest::collection::vec((-3i32..=3).prop_map(f64::from), len).boxed()
        }
        MeritKind::Quarters => {
            proptest::collection::vec((-12i32..=12).prop_map(|q| f64::from(q) / 4.0), len).boxed()
        }
        MeritKind::LargeIntegers => {
            proptest::collection::vec((-2_000_000i32..=2_000_000).prop_map(f64::from), len).boxed()
        }
        MeritKind::None | MeritKind::MaxJobs => Just(vec![0.0; len]).boxed(),
    }
}

/// Up to `max_items` items of size 1..=`max_size`, capacities 0..=`max_capacity`.
fn instance(max_items: usize, max_size: u32, max_capacity: u32) -> impl Strategy<Value = Instance> {
    (0..=max_items, merit_kind())
        .prop_flat_map(move |(len, kind)| {
            (
                proptest::collection::vec((1..=max_size, any::<bool>()), len),
                merit_values(kind, len),
                Just(kind),
                0..=max_capacity,
                0..=max_capacity,
                proptest::option::of(0..=len + 1),
                prop_oneof![
                    Just(Traceback::BypassedFirst),
                    Just(Traceback::SelectedFirst)
                ],
                any::<bool>(),
            )
        })
        .prop_map(
            |(items, merits, merit_kind, capacity, extra, lookahead, traceback, reductions)| {
                Instance {
                    sizes: items.iter().map(|&(size, _)| size).collect(),
                    shadow_sizes: items
                        .iter()
                        .map(|&(size, runs_past)| if runs_past { size } else { 0 })
                        .collect(),
                    merits,
                    merit_kind,
                    capacity,
                    extra,
                    lookahead,
                    traceback,
                    reductions,
                }
            },
        )
}

/// The documented candidate rule: with a lookahead C, items larger than n are dropped and the
/// first C of the others are kept; without one, every item.
fn candidates(sizes: &[u32], capacity: u32, lookahead: Option<usize>) -> Vec<usize> {
    match lookahead {
        None => (0..sizes.len()).collect(),
        Some(c) => (0..sizes.len())
            .filter(|&i| sizes[i] <= capacity)
            .take(c)
            .collect(),
    }
}

#[derive(Debug, PartialEq)]
struct Expected {
    selected: Vec<usize>,
    util: u32,
    sutil: u32,
    merit: f64,
}

/// (util, sutil, merit) better-than order: util up, sutil down, merit up.
fn compare(a: (u32, u32, f64), b: (u32, u32, f64)) -> Ordering {
    a.0.cmp(&b.0)
        .then(b.1.cmp(&a.1))
        .then(a.2.partial_cmp(&b.2).expect("finite merits"))
}

/// Enumerates every subset of `items` that fits; returns the optimal one the traceback order
/// defines.
fn brute_force(
    items: &[usize],
    size: impl Fn(usize) -> u32,
    shadow_size: impl Fn(usize) -> u32,
    merit: impl Fn(usize) -> f64,
    capacity: u32,
    extra: u32,
    traceback: Traceback,
) -> Expected {
    let mut best: Option<((u32, u32, f64), u32)> = None;
    for mask in 0u32..(1 << items.len()) {
        let (mut util, mut sutil, mut total_merit) = (0, 0, 0.0);
        for (bit, &item) in items.iter().enumerate() {
            if mask >> bit & 1 == 1 {
                util += size(item);
                sutil += shadow_size(item);
                total_merit += merit(item);
            }
        }
        if util > capacity || sutil > extra {
            continue;
        }
        let value = (util, sutil, total_merit);
        let better = match best {
            None => true,
            Some((best_value, best_mask)) => match compare(value, best_value) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => match traceback {
                    Traceback::BypassedFirst => mask < best_mask,
                    Traceback::SelectedFirst => mask > best_mask,
                },
            },
        };
        if better {
            best = Some((value, mask));
        }
    }
    let ((util, sutil, merit), mask) = best.expect("the empty set always fits");
    Expected {
        selected: (0..items.len())
            .filter(|bit| mask >> bit & 1 == 1)
            .map(|bit| items[bit])
            .collect(),
        util,
        sutil,
        merit,
    }
}

fn expected_reservation(inst: &Instance) -> Expected {
    brute_force(
        &candidates(&inst.sizes, inst.capacity, inst.lookahead),
        |i| inst.sizes[i],
        |i| inst.shadow_sizes[i],
        |i| inst.merit(i),
        inst.capacity,
        inst.extra,
        inst.traceback,
    )
}

fn solve_reservation(inst: &Instance) -> Expected {
    SOLVER.with_borrow_mut(|solver| {
        let solution = solver
            .reservation_dp(
                &inst.sizes,
                &inst.shadow_sizes,
                inst.capacity,
                inst.extra,
                &inst.options(),
            )
            .expect("valid instance");
        Expected {
            selected: solution.selected.to_vec(),
            util: solution.util,
            sutil: solution.sutil,
            merit: solution.merit,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Reservation_DP equals the brute force: same set, util, sutil and merit.
    #[test]
    fn reservation_dp_matches_brute_force(inst in instance(14, 10, 20)) {
        let got = solve_reservation(&inst);
        let want = expected_reservation(&inst);
        prop_assert!(got.util <= inst.capacity && got.sutil <= inst.extra);
        prop_assert_eq!(got, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Basic_DP equals the brute force over the eligible candidates with capacity n.
    #[test]
    fn basic_dp_matches_brute_force(
        inst in instance(14, 10, 20),
        eligible_seed in proptest::collection::vec(any::<bool>(), 14),
        all_eligible in any::<bool>(),
    ) {
        let eligible: Vec<bool> = (0..inst.sizes.len())
            .map(|i| all_eligible || eligible_seed[i])
            .collect();
        let got = SOLVER.with_borrow_mut(|solver| {
            let flags = if all_eligible { None } else { Some(eligible.as_slice()) };
            let solution = solver
                .basic_dp(&inst.sizes, flags, inst.capacity, &inst.options())
                .expect("valid instance");
            Expected {
                selected: solution.selected.to_vec(),
                util: solution.util,
                sutil: solution.sutil,
                merit: solution.merit,
            }
        });
        // Ineligible items count towards the lookahead but can never be selected.
        let items: Vec<usize> = candidates(&inst.sizes, inst.capacity, inst.lookahead)
            .into_iter()
            .filter(|&i| eligible[i])
            .collect();
        let want = brute_force(
            &items,
            |i| inst.sizes[i],
            |_| 0,
            |i| inst.merit(i),
            inst.capacity,
            0,
            inst.traceback,
        );
        prop_assert_eq!(got, want);
    }
}

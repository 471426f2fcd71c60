//! The internal reductions (dropping items that never fit, dividing by the gcd of the sizes,
//! bounding the capacities by the total sizes) never change a result: the reduced and the
//! unreduced solves return the same set, util, sutil and merit, for both traceback orders and
//! all merits.

use knapsack_dp::{Merit, Options, Solver, Traceback};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Scaled {
    sizes: Vec<u32>,
    shadow_sizes: Vec<u32>,
    merits: Vec<f64>,
    capacity: u32,
    extra: u32,
}

/// Sizes 1..=6 times a common factor (so the gcd is usually that factor, 32 as on machines
/// allocating 32-node blocks), capacities anywhere in 0..=12 times the factor plus a remainder
/// (so the division rounds down).
fn scaled() -> impl Strategy<Value = Scaled> {
    (
        0usize..=10,
        prop_oneof![Just(1u32), Just(2), Just(3), Just(4), Just(32)],
    )
        .prop_flat_map(|(len, factor)| {
            (
                proptest::collection::vec((1u32..=6, any::<bool>()), len),
                proptest::collection::vec((-8i32..=8).prop_map(|m| f64::from(m) / 2.0), len),
                0..=12 * factor + factor - 1,
                0..=12 * factor + factor - 1,
                Just(factor),
            )
        })
        .prop_map(|(items, merits, capacity, extra, factor)| Scaled {
            sizes: items.iter().map(|&(size, _)| size * factor).collect(),
            shadow_sizes: items
                .iter()
                .map(|&(size, runs_past)| if runs_past { size * factor } else { 0 })
                .collect(),
            merits,
            capacity,
            extra,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn reductions_never_change_the_result(
        inst in scaled(),
        merit_choice in 0..3,
        selected_first in any::<bool>(),
        lookahead in proptest::option::of(0usize..=11),
    ) {
        let merit = match merit_choice {
            0 => Merit::None,
            1 => Merit::MaxJobs,
            // Halves: exact in f64, and not integers, so this exercises the f64 merit layer.
            _ => Merit::PerItem(&inst.merits),
        };
        let traceback = if selected_first {
            Traceback::SelectedFirst
        } else {
            Traceback::BypassedFirst
        };
        let mut options = Options::new().with_merit(merit).with_traceback(traceback);
        if let Some(c) = lookahead {
            options = options.with_lookahead(c);
        }
        let mut solver = Solver::new();
        let reduced = solver
            .reservation_dp(&inst.sizes, &inst.shadow_sizes, inst.capacity, inst.extra, &options)
            .expect("valid instance");
        let reduced = (reduced.selected.to_vec(), reduced.util, reduced.sutil, reduced.merit, reduced.cells);
        let full = solver
            .reservation_dp(
                &inst.sizes,
                &inst.shadow_sizes,
                inst.capacity,
                inst.extra,
                &options.with_reductions(false),
            )
            .expect("valid instance");
        prop_assert_eq!(&reduced.0[..], full.selected);
        prop_assert_eq!((reduced.1, reduced.2, reduced.3), (full.util, full.sutil, full.merit));
        prop_assert!(reduced.4 <= full.cells);
    }
}

/// 32-node granularity: sizes 64, 32, 96 (gcd 32), n = 200 -> min(200, 192) / 32 = 6,
/// extra = 100 -> min(100, 32 + 96 = 128) / 32 = 3: 3 x (6 + 1) = 21 states of the
/// one-dimensional solve instead of 3 x 201 = 603. Best: all three fit now (192 <= 200) but their shadow sizes
/// 32 + 96 = 128 > 100; {64, 96} uses 160 now and 96 at the shadow time, {64, 32} 96 and 32,
/// {32, 96} 128 and 128 (too much): the maximum util is 160 with sutil 96.
#[test]
fn gcd_shrinks_the_table_32_times_per_dimension() {
    let mut solver = Solver::new();
    let sizes = [64, 32, 96];
    let shadow_sizes = [0, 32, 96];
    let solution = solver
        .reservation_dp(&sizes, &shadow_sizes, 200, 100, &Options::new())
        .unwrap();
    assert_eq!(solution.selected, [0, 2]);
    assert_eq!((solution.util, solution.sutil), (160, 96));
    assert_eq!(solution.cells, 21);
    let full = solver
        .reservation_dp(
            &sizes,
            &shadow_sizes,
            200,
            100,
            &Options::new().with_reductions(false),
        )
        .unwrap();
    assert_eq!(full.cells, 603);
    assert_eq!(full.selected, [0, 2]);
}

//! Every cell of the inspection table against brute force: `m'_{i,j,k}` holds the best
//! (util max, sutil min, merit max) over the subsets of the first `i` candidates that fit
//! capacity `j` and shadow capacity `k`; *selected* is set exactly when some optimal subset
//! contains item `i`, *bypassed* exactly when some optimal subset leaves it out (Algorithms
//! 3, 6 and 7: equal (util, sutil) and equal merit keep both markers).

use std::cmp::Ordering;

use knapsack_dp::{Merit, Options, Solver};
use proptest::prelude::*;

type Value = (u32, u32, f64);

fn compare(a: Value, b: Value) -> Ordering {
    a.0.cmp(&b.0)
        .then(b.1.cmp(&a.1))
        .then(a.2.partial_cmp(&b.2).expect("finite merits"))
}

/// Best value over the subsets of `items` fitting (j, k), and whether an optimal subset
/// contains / leaves out the last item.
fn brute_cell(items: &[(u32, u32, f64)], j: u32, k: u32) -> (Value, bool, bool) {
    let mut best: Option<Value> = None;
    let (mut with_last, mut without_last) = (false, false);
    let last = items.len() - 1;
    for mask in 0u32..(1 << items.len()) {
        let mut value = (0, 0, 0.0);
        for (bit, &(size, shadow_size, merit)) in items.iter().enumerate() {
            if mask >> bit & 1 == 1 {
                value = (value.0 + size, value.1 + shadow_size, value.2 + merit);
            }
        }
        if value.0 > j || value.1 > k {
            continue;
        }
        let contains_last = mask >> last & 1 == 1;
        match best.map(|b| compare(value, b)) {
            Some(Ordering::Less) => {}
            Some(Ordering::Equal) => {
                with_last |= contains_last;
                without_last |= !contains_last;
            }
            None | Some(Ordering::Greater) => {
                best = Some(value);
                with_last = contains_last;
                without_last = !contains_last;
            }
        }
    }
    (best.expect("the empty set fits"), with_last, without_last)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn every_cell_matches_brute_force(
        items in proptest::collection::vec(
            (1u32..=5, any::<bool>(), (-6i32..=6).prop_map(|q| f64::from(q) / 2.0)),
            1..=7,
        ),
        capacity in 0u32..=8,
        extra in 0u32..=8,
        merit_choice in 0..4,
    ) {
        let sizes: Vec<u32> = items.iter().map(|item| item.0).collect();
        let shadow_sizes: Vec<u32> =
            items.iter().map(|item| if item.1 { item.0 } else { 0 }).collect();
        let halves: Vec<f64> = items.iter().map(|item| item.2).collect();
        let integers: Vec<f64> = halves.iter().map(|m| (m * 2.0).round()).collect();
        let (merit, merits): (Merit<'_>, Vec<f64>) = match merit_choice {
            0 => (Merit::None, vec![0.0; items.len()]),
            1 => (Merit::MaxJobs, vec![1.0; items.len()]),
            2 => (Merit::PerItem(&integers), integers.clone()),
            _ => (Merit::PerItem(&halves), halves.clone()),
        };
        let table = Solver::new()
            .reservation_table(
                &sizes,
                &shadow_sizes,
                capacity,
                extra,
                &Options::new().with_merit(merit),
            )
            .expect("valid instance");
        let described: Vec<(u32, u32, f64)> = (0..items.len())
            .map(|i| (sizes[i], shadow_sizes[i], merits[i]))
            .collect();
        for i in 1..=items.len() {
            for j in 1..=capacity {
                for k in 0..=extra {
                    let cell = table.cell(i, j, k).expect("inside");
                    let (value, with_last, without_last) = brute_cell(&described[..i], j, k);
                    prop_assert_eq!((cell.util, cell.sutil, cell.merit), value, "i={} j={} k={}", i, j, k);
                    prop_assert_eq!(cell.selected, with_last, "selected i={} j={} k={}", i, j, k);
                    prop_assert_eq!(cell.bypassed, without_last, "bypassed i={} j={} k={}", i, j, k);
                }
            }
        }
    }
}

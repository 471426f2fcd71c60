//! Inconsistent input is rejected with a typed error naming the item, never a panic.

use knapsack_dp::{Error, Merit, Options, Solver};

#[test]
fn shadow_sizes_of_the_wrong_length() {
    let err = Solver::new()
        .reservation_dp(&[1, 2], &[0], 3, 1, &Options::new())
        .unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            name: "shadow_sizes",
            expected: 2,
            found: 1
        }
    );
    assert_eq!(
        err.to_string(),
        "shadow_sizes has 1 entries but there are 2 items"
    );
}

#[test]
fn shadow_size_must_be_zero_or_the_size() {
    let err = Solver::new()
        .reservation_dp(&[4, 2], &[4, 1], 5, 5, &Options::new())
        .unwrap_err();
    assert_eq!(
        err,
        Error::InvalidShadowSize {
            index: 1,
            size: 2,
            shadow_size: 1
        }
    );
    assert_eq!(
        err.to_string(),
        "item 1 has shadow size 1, it must be 0 or the size 2"
    );
}

#[test]
fn zero_sizes_are_rejected() {
    let err = Solver::new()
        .basic_dp(&[3, 0], None, 5, &Options::new())
        .unwrap_err();
    assert_eq!(err, Error::ZeroSize { index: 1 });
}

#[test]
fn eligibility_flags_of_the_wrong_length() {
    let err = Solver::new()
        .basic_dp(&[3, 1], Some(&[true]), 5, &Options::new())
        .unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            name: "eligible",
            expected: 2,
            found: 1
        }
    );
}

#[test]
fn merits_of_the_wrong_length() {
    let merits = [1.0];
    let options = Options::new().with_merit(Merit::PerItem(&merits));
    let err = Solver::new()
        .reservation_dp(&[1, 2], &[0, 0], 3, 0, &options)
        .unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            name: "merits",
            expected: 2,
            found: 1
        }
    );
}

#[test]
fn nan_and_infinite_merits_are_rejected() {
    let mut solver = Solver::new();
    for (value, shown) in [(f64::NAN, "NaN"), (f64::INFINITY, "inf")] {
        let merits = [1.0, value];
        let options = Options::new().with_merit(Merit::PerItem(&merits));
        let err = solver
            .reservation_dp(&[1, 2], &[0, 0], 3, 0, &options)
            .unwrap_err();
        assert!(
            matches!(err, Error::NonFiniteMerit { index: 1, .. }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("item 1 has merit {shown}, merits must be finite")
        );
    }
}

#[test]
fn merit_sums_that_overflow_are_rejected() {
    // Each is finite, but f64::MAX + f64::MAX is infinite.
    let merits = [f64::MAX, f64::MAX];
    let options = Options::new().with_merit(Merit::PerItem(&merits));
    let err = Solver::new()
        .reservation_dp(&[1, 1], &[0, 0], 2, 0, &options)
        .unwrap_err();
    assert_eq!(err, Error::MeritOverflow);
}

/// n = extra = u32::MAX with sizes that defeat the reductions (gcd 1, totals above the
/// capacities) would need 2 x (2^32)^2 cells: refused before any allocation.
#[test]
fn huge_capacities_fail_cleanly() {
    let sizes = [u32::MAX - 1, u32::MAX - 2, 3];
    let shadow_sizes = sizes;
    let err = Solver::new()
        .reservation_dp(&sizes, &shadow_sizes, u32::MAX, u32::MAX, &Options::new())
        .unwrap_err();
    assert!(
        matches!(err, Error::TableTooLarge { limit, .. } if limit == knapsack_dp::DEFAULT_MEMORY_LIMIT),
        "{err:?}"
    );
}

/// Sizes 1..=10 (gcd 1, total 55, which bounds n = 1000 to 55): the layer alone holds 56 keys
/// of 4 bytes, above a 16-byte limit.
#[test]
fn the_memory_limit_is_enforced() {
    let sizes: Vec<u32> = (1..=10).collect();
    let shadow_sizes = vec![0; 10];
    let mut solver = Solver::new();
    let err = solver
        .reservation_dp(
            &sizes,
            &shadow_sizes,
            1000,
            0,
            &Options::new().with_memory_limit(16),
        )
        .unwrap_err();
    assert!(
        matches!(err, Error::TableTooLarge { limit: 16, .. }),
        "{err:?}"
    );
    // The same call within the default limit works: all ten fit (55 <= 1000).
    let solution = solver
        .reservation_dp(&sizes, &shadow_sizes, 1000, 0, &Options::new())
        .unwrap();
    assert_eq!(solution.util, 55);
    assert_eq!(solution.selected.len(), 10);
}

#[test]
fn empty_and_degenerate_inputs() {
    let mut solver = Solver::new();
    let none = solver
        .reservation_dp(&[], &[], 10, 10, &Options::new())
        .unwrap();
    assert!(none.selected.is_empty());
    assert_eq!(
        (none.util, none.sutil, none.merit, none.cells),
        (0, 0, 0.0, 0)
    );
    // Capacity 0: nothing fits, with or without the reductions.
    for reductions in [true, false] {
        let options = Options::new().with_reductions(reductions);
        let solution = solver
            .reservation_dp(&[1, 2], &[0, 2], 0, 5, &options)
            .unwrap();
        assert!(solution.selected.is_empty());
    }
    // Lookahead 0: no candidate.
    let solution = solver
        .basic_dp(&[1, 2], None, 5, &Options::new().with_lookahead(0))
        .unwrap();
    assert!(solution.selected.is_empty());
}

/// Without the reductions, items that fit no cell stay in the table (always bypassed), however
/// large: a size of u32::MAX beside n = 5 must not overflow any key.
#[test]
fn huge_items_without_reductions() {
    let sizes = [u32::MAX, 2, u32::MAX - 1];
    let shadow_sizes = [u32::MAX, 2, 0];
    let options = Options::new()
        .with_reductions(false)
        .with_merit(Merit::MaxJobs);
    let mut solver = Solver::new();
    let solution = solver
        .reservation_dp(&sizes, &shadow_sizes, 5, 5, &options)
        .unwrap();
    // Only the item of size 2 fits (2 <= 5 now, 2 <= 5 at the shadow time).
    assert_eq!(solution.selected, [1]);
    assert_eq!((solution.util, solution.sutil, solution.merit), (2, 2, 1.0));
    // 3 items x (5 + 1) util values: nothing was dropped.
    assert_eq!(solution.cells, 18);
}

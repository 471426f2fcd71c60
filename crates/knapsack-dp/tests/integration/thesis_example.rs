//! The worked example of the LOS thesis, sections 3.1-3.5 (Figures 3.1-3.6, Tables 3.1-3.8).
//!
//! Machine N = 10 at t = 25, one running job rj1 (size 5, rem 3), so n = 5 free processors.
//! Waiting queue (size, time): wj1 (7, 4), wj2 (2, 2), wj3 (1, 6), wj4 (2, 4), wj5 (3, 5).
//! wj1 does not fit; it can start when rj1 ends: shadow = 25 + 3 = 28, and it leaves
//! extra = 5 + 5 - 7 = 3 processors free then. Only wj2 ends by the shadow time
//! (25 + 2 = 27 <= 28; wj3: 31, wj4: 29, wj5: 30 > 28), so the shadow sizes are 7, 0, 1, 2, 3.
//!
//! Cells are written `util_sutil` followed by `S` for the selected and `B` for the bypassed
//! marker, like the thesis' `util_{sutil}` with its two arrows.

use knapsack_dp::{Cell, Merit, Options, Solver, Table, Traceback};

const SIZES: [u32; 5] = [7, 2, 1, 2, 3];
const TIMES: [u32; 5] = [4, 2, 6, 4, 5];
const NOW: u32 = 25;
const SHADOW: u32 = 28;
const FREE: u32 = 5;
const EXTRA: u32 = 3;

/// ssize = 0 if t + time <= shadow else size (section 3.3.1): 7, 0, 1, 2, 3.
fn shadow_sizes() -> Vec<u32> {
    SIZES
        .iter()
        .zip(TIMES)
        .map(|(&size, time)| if NOW + time <= SHADOW { 0 } else { size })
        .collect()
}

/// Algorithm 1's eligibility, t + time <= shadow: only wj2.
fn eligible() -> Vec<bool> {
    TIMES.iter().map(|&time| NOW + time <= SHADOW).collect()
}

fn render(cell: Cell) -> String {
    format!(
        "{}_{}{}{}",
        cell.util,
        cell.sutil,
        if cell.selected { "S" } else { "" },
        if cell.bypassed { "B" } else { "" }
    )
}

/// Compares rows i = 1..=5, columns j = 1..=5 of plane `k` with `expected` (one line per
/// row), and checks the zero padding of row 0 and column 0.
fn assert_plane(table: &Table, k: u32, expected: &str) {
    let rows: Vec<Vec<&str>> = expected
        .lines()
        .map(str::split_whitespace)
        .map(Iterator::collect)
        .filter(|row: &Vec<&str>| !row.is_empty())
        .collect();
    assert_eq!(rows.len(), 5);
    for (i, row) in rows.iter().enumerate() {
        let i = i + 1;
        assert_eq!(row.len(), 5);
        for (j, want) in row.iter().enumerate() {
            let j = j as u32 + 1;
            let cell = table.cell(i, j, k).expect("inside the table");
            assert_eq!(render(cell), *want, "cell i={i} j={j} k={k}");
        }
        assert_eq!(
            render(table.cell(i, 0, k).unwrap()),
            "0_0",
            "padding column"
        );
    }
    for j in 0..=5 {
        assert_eq!(render(table.cell(0, j, k).unwrap()), "0_0", "padding row");
    }
}

#[test]
fn shadow_sizes_match_figure_3_4() {
    assert_eq!(shadow_sizes(), [7, 0, 1, 2, 3]);
    assert_eq!(eligible(), [false, true, false, false, false]);
}

/// Table 3.2, the final M of Algorithm 1 (k = 0 of the basic table).
///
/// Row 1 (wj1, size 7): larger than every j, bypassed: 0 B.
/// Row 2 (wj2, size 2, eligible): j = 1 too small: 0 B; j >= 2: m_{1,j-2} + 2 = 2 > m_{1,j} = 0,
///   selected only: 2 S.
/// Rows 3-5 (wj3, wj4, wj5): not eligible (they end after 28), always bypassed, copying row 2.
#[test]
fn table_3_2_basic_dp_matrix() {
    let mut solver = Solver::new();
    let table = solver
        .basic_table(&SIZES, Some(&eligible()), FREE, &Options::new())
        .unwrap();
    assert_eq!(table.items(), [0, 1, 2, 3, 4]);
    assert_eq!((table.capacity(), table.extra()), (5, 0));
    assert_plane(
        &table,
        0,
        "0_0B 0_0B 0_0B 0_0B 0_0B
         0_0B 2_0S 2_0S 2_0S 2_0S
         0_0B 2_0B 2_0B 2_0B 2_0B
         0_0B 2_0B 2_0B 2_0B 2_0B
         0_0B 2_0B 2_0B 2_0B 2_0B",
    );
    assert!(table.cell(6, 1, 0).is_none());
    assert!(table.cell(1, 6, 0).is_none());
    assert!(table.cell(1, 1, 1).is_none());
}

/// Algorithm 2 on Table 3.2: from m_{5,5}: bypass wj5, wj4, wj3 (B only), select wj2
/// (j = 5 - 2 = 3), bypass wj1: S = {wj2}, util 2 (Figure 3.3).
#[test]
fn basic_dp_selects_wj2() {
    let mut solver = Solver::new();
    for traceback in [Traceback::BypassedFirst, Traceback::SelectedFirst] {
        let options = Options::new().with_traceback(traceback);
        let solution = solver
            .basic_dp(&SIZES, Some(&eligible()), FREE, &options)
            .unwrap();
        assert_eq!(solution.selected, [1]);
        assert_eq!((solution.util, solution.sutil), (2, 0));
    }
}

fn reservation_table() -> Table {
    Solver::new()
        .reservation_table(&SIZES, &shadow_sizes(), FREE, EXTRA, &Options::new())
        .unwrap()
}

/// Table 3.4, the k = 0 plane: only wj2 (ssize 0) fits, so it equals Table 3.2 with sutil 0.
#[test]
fn table_3_4_plane_k0() {
    assert_plane(
        &reservation_table(),
        0,
        "0_0B 0_0B 0_0B 0_0B 0_0B
         0_0B 2_0S 2_0S 2_0S 2_0S
         0_0B 2_0B 2_0B 2_0B 2_0B
         0_0B 2_0B 2_0B 2_0B 2_0B
         0_0B 2_0B 2_0B 2_0B 2_0B",
    );
}

/// Table 3.5, the k = 1 plane: wj3 (1_1) now fits.
/// Row 3: j = 1: m'_{2,0,0} + 1_1 = 1_1 beats m'_{2,1,1} = 0_0: S. j = 2: 1_1 (from m'_{2,1,0})
///   vs 2_0: util 1 < 2: B. j = 3..5: m'_{2,j-1,0} + 1_1 = 2_0 + 1_1 = 3_1 beats 2_0: S.
/// Rows 4, 5 (ssize 2, 3 > k = 1): bypassed, copying row 3.
#[test]
fn table_3_5_plane_k1() {
    assert_plane(
        &reservation_table(),
        1,
        "0_0B 0_0B 0_0B 0_0B 0_0B
         0_0B 2_0S 2_0S 2_0S 2_0S
         1_1S 2_0B 3_1S 3_1S 3_1S
         1_1B 2_0B 3_1B 3_1B 3_1B
         1_1B 2_0B 3_1B 3_1B 3_1B",
    );
}

/// Table 3.6, the k = 2 plane: wj4 (2_2) now fits.
/// Row 4: j = 1 too small: B. j = 2: m'_{3,0,0} + 2_2 = 2_2 vs m'_{3,2,2} = 2_0: same util,
///   more shadow processors: bypassed only (the cell m'_{4,2,2} the text discusses: wj2 is
///   kept because it leaves the extra processors free). j = 3: m'_{3,1,0} + 2_2 = 2_2 vs 3_1:
///   B. j = 4, 5: m'_{3,j-2,0} + 2_2 = 2_0 + 2_2 = 4_2 beats 3_1: S.
/// Row 5 (ssize 3 > 2): bypassed.
#[test]
fn table_3_6_plane_k2() {
    let table = reservation_table();
    assert_plane(
        &table,
        2,
        "0_0B 0_0B 0_0B 0_0B 0_0B
         0_0B 2_0S 2_0S 2_0S 2_0S
         1_1S 2_0B 3_1S 3_1S 3_1S
         1_1B 2_0B 3_1B 4_2S 4_2S
         1_1B 2_0B 3_1B 4_2B 4_2B",
    );
    let m_4_2_2 = table.cell(4, 2, 2).unwrap();
    assert_eq!((m_4_2_2.util, m_4_2_2.sutil), (2, 0));
    assert!(m_4_2_2.bypassed && !m_4_2_2.selected);
}

/// Table 3.7, the k = 3 plane: wj5 (3_3) now fits.
/// Row 4: j = 5: m'_{3,3,1} + 2_2 = 3_1 + 2_2 = 5_3 beats m'_{3,5,3} = 3_1: S.
/// Row 5: j = 1, 2: too small: B. j = 3: m'_{4,0,0} + 3_3 = 3_3 vs 3_1: B. j = 4:
///   m'_{4,1,0} + 3_3 = 3_3 vs 4_2: B. j = 5: m'_{4,2,0} + 3_3 = 2_0 + 3_3 = 5_3, equal to
///   m'_{4,5,3} = 5_3: both markers, util 5 and sutil 3 as the text says.
#[test]
fn table_3_7_plane_k3() {
    let table = reservation_table();
    assert_plane(
        &table,
        3,
        "0_0B 0_0B 0_0B 0_0B 0_0B
         0_0B 2_0S 2_0S 2_0S 2_0S
         1_1S 2_0B 3_1S 3_1S 3_1S
         1_1B 2_0B 3_1B 4_2S 5_3S
         1_1B 2_0B 3_1B 4_2B 5_3SB",
    );
    assert!(table.cell(5, 5, 4).is_none());
}

/// Section 3.3.4: bypassed-first (Algorithm 4) from m'_{5,5,3} (both markers) bypasses wj5;
/// m'_{4,5,3} S takes wj4 (j = 3, k = 1); m'_{3,3,1} S takes wj3 (j = 2, k = 0); m'_{2,2,0} S
/// takes wj2 (j = 0, stop): S' = {wj2, wj3, wj4} (Figure 3.5).
/// Selected-first (Algorithm 5) takes wj5 (j = 2, k = 0); m'_{4,2,0} and m'_{3,2,0} are B;
/// m'_{2,2,0} S takes wj2: S' = {wj2, wj5} (Figure 3.6). Both use 5 processors now and 3 at
/// the shadow time (wj3 + wj4 = 1 + 2, or wj5 = 3).
#[test]
fn bypassed_first_and_selected_first_schedules() {
    let mut solver = Solver::new();
    let shadow_sizes = shadow_sizes();
    for (traceback, expected) in [
        (Traceback::BypassedFirst, vec![1, 2, 3]),
        (Traceback::SelectedFirst, vec![1, 4]),
    ] {
        for reductions in [true, false] {
            let options = Options::new()
                .with_traceback(traceback)
                .with_reductions(reductions);
            let solution = solver
                .reservation_dp(&SIZES, &shadow_sizes, FREE, EXTRA, &options)
                .unwrap();
            assert_eq!(solution.selected, expected, "{traceback:?}");
            assert_eq!((solution.util, solution.sutil), (5, 3));
            assert_eq!(solution.merit, 0.0);
        }
    }
}

/// With the reductions, wj1 (7 > 5) is dropped: 4 candidates; n = min(5, 2+1+2+3 = 8) = 5,
/// extra = min(3, 0+1+2+3 = 6) = 3, gcd(2, 1, 2, 3) = 1: 4 x (5 + 1) = 24 states of the
/// one-dimensional solve (the thesis' table: 4 x 6 x 4 = 96 cells); without them 5 x 6 = 30.
#[test]
fn cells_count_the_reduced_table() {
    let mut solver = Solver::new();
    let shadow_sizes = shadow_sizes();
    let reduced = solver
        .reservation_dp(&SIZES, &shadow_sizes, FREE, EXTRA, &Options::new())
        .unwrap()
        .cells;
    assert_eq!(reduced, 24);
    let full = solver
        .reservation_dp(
            &SIZES,
            &shadow_sizes,
            FREE,
            EXTRA,
            &Options::new().with_reductions(false),
        )
        .unwrap()
        .cells;
    assert_eq!(full, 30);
}

/// Table 3.8 and section 3.5.1: wj1 (7 > 5) is dropped first, then lookahead C = 3 keeps
/// wj2, wj3, wj4 (wj5 excluded). Their sizes 2 + 1 + 2 = 5 <= 5 and shadow sizes
/// 0 + 1 + 2 = 3 <= 3 all fit: S' = {wj2, wj3, wj4}, the schedule of Figure 3.5, whatever the
/// traceback order.
#[test]
fn lookahead_3_keeps_wj2_wj3_wj4() {
    let mut solver = Solver::new();
    let shadow_sizes = shadow_sizes();
    for traceback in [Traceback::BypassedFirst, Traceback::SelectedFirst] {
        let options = Options::new().with_traceback(traceback).with_lookahead(3);
        let solution = solver
            .reservation_dp(&SIZES, &shadow_sizes, FREE, EXTRA, &options)
            .unwrap();
        assert_eq!(solution.selected, [1, 2, 3]);
        assert_eq!((solution.util, solution.sutil), (5, 3));
    }
    let table = solver
        .reservation_table(
            &SIZES,
            &shadow_sizes,
            FREE,
            EXTRA,
            &Options::new().with_lookahead(3),
        )
        .unwrap();
    assert_eq!(table.items(), [1, 2, 3]);
    // m'_{3,5,3} over WQ' = (2_0, 1_1, 2_2): all three, 5_3, wj4 selected only (without it
    // the best is 3_1).
    assert_eq!(render(table.cell(3, 5, 3).unwrap()), "5_3S");
}

/// Algorithm 6 (maxjobs) at m'_{5,5,3}: util and sutil tie (5_3 both ways); selecting wj5
/// gives num_jobs 1 + m'_{4,2,0}.num_jobs = 1 + 1 = 2 ({wj2, wj5}), bypassing keeps
/// m'_{4,5,3}.num_jobs = 3 ({wj2, wj3, wj4}): 2 < 3, so only bypassed stays set and even
/// selected-first returns {wj2, wj3, wj4}.
#[test]
fn maxjobs_prefers_three_jobs() {
    let mut solver = Solver::new();
    let shadow_sizes = shadow_sizes();
    let options = Options::new().with_merit(Merit::MaxJobs);
    let table = solver
        .reservation_table(&SIZES, &shadow_sizes, FREE, EXTRA, &options)
        .unwrap();
    let last = table.cell(5, 5, 3).unwrap();
    assert_eq!((last.util, last.sutil, last.merit), (5, 3, 3.0));
    assert!(last.bypassed && !last.selected);
    for traceback in [Traceback::BypassedFirst, Traceback::SelectedFirst] {
        let solution = solver
            .reservation_dp(
                &SIZES,
                &shadow_sizes,
                FREE,
                EXTRA,
                &options.with_traceback(traceback),
            )
            .unwrap();
        assert_eq!(solution.selected, [1, 2, 3]);
        assert_eq!(solution.merit, 3.0);
    }
}

/// Algorithm 7 (max-slowdown) with arrivals chosen for the example (the thesis gives none):
/// wj2, wj3, wj4 arrived at 20, wj5 at 0. Slowdown (t - arrival + time) / time at t = 25:
/// wj2 (5 + 2) / 2 = 3.5, wj3 (5 + 6) / 6 = 11/6, wj4 (5 + 4) / 4 = 2.25, wj5 (25 + 5) / 5 = 6.
/// At m'_{5,5,3}: {wj2, wj5} totals 3.5 + 6 = 9.5 > {wj2, wj3, wj4} 3.5 + 11/6 + 2.25 = 7.58,
/// so only selected stays set and even bypassed-first returns {wj2, wj5}.
#[test]
fn max_slowdown_prefers_the_longer_waiting_job() {
    let arrivals = [0, 20, 20, 20, 0];
    let slowdowns: Vec<f64> = arrivals
        .iter()
        .zip(TIMES)
        .map(|(&arrival, time)| {
            knapsack_dp::waiting_slowdown(i64::from(NOW), arrival, i64::from(time)).unwrap()
        })
        .collect();
    assert_eq!(slowdowns[1], 3.5);
    assert_eq!(slowdowns[4], 6.0);
    let mut solver = Solver::new();
    let options = Options::new().with_merit(Merit::PerItem(&slowdowns));
    let table = solver
        .reservation_table(&SIZES, &shadow_sizes(), FREE, EXTRA, &options)
        .unwrap();
    let last = table.cell(5, 5, 3).unwrap();
    assert_eq!((last.util, last.sutil, last.merit), (5, 3, 9.5));
    assert!(last.selected && !last.bypassed);
    let solution = solver
        .reservation_dp(&SIZES, &shadow_sizes(), FREE, EXTRA, &options)
        .unwrap();
    assert_eq!(solution.selected, [1, 4]);
    assert_eq!(solution.merit, 9.5);
}

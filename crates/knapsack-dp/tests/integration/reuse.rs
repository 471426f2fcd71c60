//! One solver serves many calls: results do not depend on earlier calls, and once its buffers
//! fit the largest problem, further calls allocate nothing.

use knapsack_dp::{Merit, Options, Solver, Traceback};

struct Case {
    sizes: Vec<u32>,
    shadow_sizes: Vec<u32>,
    merits: Vec<f64>,
    capacity: u32,
    extra: u32,
}

/// Deterministic mixed instances: 0-30 items, capacities up to 80, some merits fractional.
fn cases() -> Vec<Case> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    };
    (0..30)
        .map(|_| {
            let len = next(31) as usize;
            let sizes: Vec<u32> = (0..len).map(|_| 1 + next(24) as u32).collect();
            let shadow_sizes = sizes
                .iter()
                .map(|&size| if next(2) == 0 { 0 } else { size })
                .collect();
            let merits = (0..len).map(|_| next(1000) as f64 / 8.0).collect();
            Case {
                sizes,
                shadow_sizes,
                merits,
                capacity: next(81) as u32,
                extra: next(81) as u32,
            }
        })
        .collect()
}

fn solve_all(solver: &mut Solver, cases: &[Case]) -> Vec<(Vec<usize>, u32, u32, f64)> {
    let mut results = Vec::new();
    for case in cases {
        for merit in [Merit::None, Merit::MaxJobs, Merit::PerItem(&case.merits)] {
            for traceback in [Traceback::BypassedFirst, Traceback::SelectedFirst] {
                let options = Options::new().with_merit(merit).with_traceback(traceback);
                let solution = solver
                    .reservation_dp(
                        &case.sizes,
                        &case.shadow_sizes,
                        case.capacity,
                        case.extra,
                        &options,
                    )
                    .unwrap();
                results.push((
                    solution.selected.to_vec(),
                    solution.util,
                    solution.sutil,
                    solution.merit,
                ));
                let basic = solver
                    .basic_dp(&case.sizes, None, case.capacity, &options)
                    .unwrap();
                results.push((
                    basic.selected.to_vec(),
                    basic.util,
                    basic.sutil,
                    basic.merit,
                ));
            }
        }
    }
    results
}

#[test]
fn a_reused_solver_gives_the_results_of_fresh_ones() {
    let cases = cases();
    let mut reused = Solver::new();
    let first = solve_all(&mut reused, &cases);
    let fresh: Vec<_> = cases
        .iter()
        .flat_map(|case| solve_all(&mut Solver::new(), std::slice::from_ref(case)))
        .collect();
    assert_eq!(first, fresh);
}

#[test]
fn steady_state_calls_allocate_nothing() {
    let cases = cases();
    let mut solver = Solver::new();
    assert_eq!(solver.retained_bytes(), 0);
    let first = solve_all(&mut solver, &cases);
    let retained = solver.retained_bytes();
    assert!(retained > 0);
    // A second pass over the same problems finds every buffer large enough: the capacities,
    // hence the allocations, do not change.
    let second = solve_all(&mut solver, &cases);
    assert_eq!(solver.retained_bytes(), retained);
    assert_eq!(first, second);
}

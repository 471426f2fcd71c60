//! Throughput of Reservation_DP in cells of the thesis' table per second, where
//! cells = items x (n + 1) x (extra + 1): the work the three-dimensional table would do. The
//! solver needs only items x (n + 1) states (the one-dimensional solve, see the crate docs), so
//! the figure grows with `extra`; it stays comparable with the table's own throughput.
//!
//! Instances: 50 items with random sizes and shadow sizes, n = extra = 128, 1024 and 8192
//! (RICC's machine). They are built so that no reduction applies (gcd 1, total size and total
//! shadow size above the capacities): the figure is the raw solve's. Criterion reports the
//! throughput as `elem/s`, i.e. table cells/s.
//!
//! Run: `cargo bench -p knapsack-dp --bench kernel`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use knapsack_dp::{Merit, Options, Solver, Traceback};

/// SplitMix64: a tiny deterministic generator, enough for benchmark inputs.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: u32) -> u32 {
        (self.next() % u64::from(bound)) as u32
    }
}

struct Instance {
    sizes: Vec<u32>,
    shadow_sizes: Vec<u32>,
    slowdowns: Vec<f64>,
}

/// 50 items of size 1..=capacity/4 (so about 6 of them fill the capacity), half of them still
/// running at the shadow time; capacity = extra.
fn instance(capacity: u32, seed: u64) -> Instance {
    let mut rng = SplitMix(seed);
    let sizes: Vec<u32> = (0..50).map(|_| 1 + rng.below(capacity / 4)).collect();
    let shadow_sizes: Vec<u32> = sizes
        .iter()
        .map(|&size| if rng.below(2) == 0 { 0 } else { size })
        .collect();
    // Slowdowns (t - arrival + estimate) / estimate of arbitrary waiting jobs: not integers,
    // so the f64-merit kernel runs.
    let slowdowns = (0..50)
        .map(|_| {
            let estimate = 1 + rng.below(10_000);
            let wait = rng.below(100_000);
            f64::from(wait + estimate) / f64::from(estimate)
        })
        .collect();
    Instance {
        sizes,
        shadow_sizes,
        slowdowns,
    }
}

fn bench_kernel(c: &mut Criterion) {
    let mut solver = Solver::new();
    for capacity in [128, 1024, 8192] {
        let inst = instance(capacity, u64::from(capacity));
        let states = 50 * (u64::from(capacity) + 1);
        let cells = states * (u64::from(capacity) + 1);
        let mut group = c.benchmark_group(format!("reservation_dp/n=extra={capacity}"));
        group.throughput(Throughput::Elements(cells));
        let merits: [(&str, Merit<'_>); 3] = [
            ("no-merit", Merit::None),
            ("maxjobs", Merit::MaxJobs),
            ("max-slowdown", Merit::PerItem(&inst.slowdowns)),
        ];
        for (name, merit) in merits {
            let options = Options::new()
                .with_merit(merit)
                .with_traceback(Traceback::BypassedFirst);
            let solution = solver
                .reservation_dp(
                    &inst.sizes,
                    &inst.shadow_sizes,
                    capacity,
                    capacity,
                    &options,
                )
                .expect("valid instance");
            // The instance must not be reducible, else the figure is not the raw kernel's.
            assert_eq!(solution.cells, states, "a reduction applied to {name}");
            group.bench_function(name, |b| {
                b.iter(|| {
                    let solution = solver
                        .reservation_dp(
                            black_box(&inst.sizes),
                            black_box(&inst.shadow_sizes),
                            capacity,
                            capacity,
                            &options,
                        )
                        .expect("valid instance");
                    black_box(solution.util)
                });
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_kernel);
criterion_main!(benches);

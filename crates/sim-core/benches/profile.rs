//! The availability profile's throughput: earliest fit + reserve + rollback
//! on a profile of 1,000 steps (issue 10's target: at least 1 M per second).
//!
//! The profile: 1,024 processors, 24 free now and one more back every 10 s
//! (1,001 steps). Each operation asks for a random size (1..512) and
//! duration (1..2,000 s) from a random time in the profile's first half,
//! reserves at the anchor found, and rolls back: the profile never drifts,
//! so every iteration sees the same 1,000 steps. Criterion reports
//! `elem/s`, i.e. operations (fit + reserve + rollback) per second.
//!
//! Run: `cargo bench -p schedsim-sim-core --bench profile`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use schedsim_sim_core::AvailabilityProfile;

/// SplitMix64, enough for benchmark inputs.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % bound
    }
}

fn bench_profile(c: &mut Criterion) {
    let mut profile = AvailabilityProfile::new(1024, 0, 24, (1..=1000).map(|i| (10 * i, 1)));
    assert_eq!(profile.len(), 1001);
    let mut rng = SplitMix(7);
    let queries: Vec<(i64, u32, i64)> = (0..4096)
        .map(|_| {
            (
                rng.below(5000) as i64,
                1 + rng.below(512) as u32,
                1 + rng.below(2000) as i64,
            )
        })
        .collect();
    let mut group = c.benchmark_group("availability_profile/1000_steps");
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_function("earliest_fit+reserve+rollback", |b| {
        b.iter(|| {
            for &(from, size, duration) in &queries {
                let checkpoint = profile.checkpoint();
                if let Some(anchor) = profile.earliest_fit(black_box(from), size, duration) {
                    profile
                        .reserve(anchor, duration, size)
                        .expect("fits at its anchor");
                }
                profile.rollback(checkpoint);
            }
            profile.commit();
        });
    });
    group.finish();
    assert_eq!(profile.len(), 1001, "every change was rolled back");
}

criterion_group!(benches, bench_profile);
criterion_main!(benches);

//! The availability profile against a naive model: free processors per
//! second over a short horizon, under random reservations, releases,
//! checkpoints and rollbacks.

use proptest::prelude::*;
use schedsim_sim_core::{AvailabilityProfile, Time};

const CAPACITY: u32 = 8;
const HORIZON: usize = 80;

/// Free processors at each second 0..HORIZON (the last value after: the
/// profile's last step lasts forever).
#[derive(Clone, Debug, PartialEq)]
struct Naive(Vec<u32>);

impl Naive {
    fn free(&self, t: Time) -> u32 {
        self.0
            .get(t as usize)
            .copied()
            .unwrap_or(self.0[HORIZON - 1])
    }

    fn earliest_fit(&self, from: Time, size: u32, duration: Time) -> Option<Time> {
        if size > CAPACITY {
            return None;
        }
        // Anchors are `from` or a second where the free count rises or
        // changes; a brute force over every second up to the horizon finds
        // the earliest, and the profile only anchors at from or at a step.
        (from..=HORIZON as Time)
            .find(|&start| (start..start + duration.max(1)).all(|t| self.free(t) >= size))
    }
}

#[derive(Clone, Debug)]
enum Op {
    Reserve(Time, Time, u32),
    Release(Time, Time, u32),
    Checkpoint,
    Rollback,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..50i64, 0..15i64, 0..=CAPACITY).prop_map(|(s, d, n)| Op::Reserve(s, d, n)),
        2 => (0..50i64, 0..15i64, 0..=CAPACITY).prop_map(|(s, d, n)| Op::Release(s, d, n)),
        1 => Just(Op::Checkpoint),
        1 => Just(Op::Rollback),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_profile_matches_a_per_second_model(
        free_now in 0..=CAPACITY,
        returns in proptest::collection::vec((1..40i64, 1..=CAPACITY), 0..5),
        ops in proptest::collection::vec(op(), 0..30),
        queries in proptest::collection::vec((0..55i64, 0..=CAPACITY + 1, 0..20i64), 1..10),
    ) {
        let mut profile = AvailabilityProfile::new(CAPACITY, 0, free_now, returns.iter().copied());
        let mut naive = Naive(
            (0..HORIZON as Time)
                .map(|t| {
                    let back: u32 = returns.iter().filter(|&&(at, _)| at <= t).map(|&(_, n)| n).sum();
                    (free_now + back).min(CAPACITY)
                })
                .collect(),
        );
        let mut stack: Vec<(schedsim_sim_core::Checkpoint, Naive)> = Vec::new();
        for op in ops {
            match op {
                Op::Reserve(start, duration, size) => {
                    let ok = (start..start + duration).all(|t| naive.free(t) >= size);
                    prop_assert_eq!(profile.reserve(start, duration, size).is_ok(), ok);
                    if ok {
                        for t in start..start + duration {
                            naive.0[t as usize] -= size;
                        }
                    }
                }
                Op::Release(start, duration, size) => {
                    let ok = (start..start + duration).all(|t| naive.free(t) + size <= CAPACITY);
                    prop_assert_eq!(profile.release(start, duration, size).is_ok(), ok);
                    if ok {
                        for t in start..start + duration {
                            naive.0[t as usize] += size;
                        }
                    }
                }
                Op::Checkpoint => stack.push((profile.checkpoint(), naive.clone())),
                Op::Rollback => {
                    if let Some((checkpoint, saved)) = stack.pop() {
                        profile.rollback(checkpoint);
                        naive = saved;
                    }
                }
            }
            // Same free counts everywhere, and no two equal neighbours.
            for t in 0..HORIZON as Time {
                prop_assert_eq!(profile.free_at(t), naive.free(t), "at {}", t);
            }
            let steps: Vec<(Time, u32)> = profile.steps().collect();
            prop_assert!(steps.windows(2).all(|w| w[0].1 != w[1].1 && w[0].0 < w[1].0), "{:?}", steps);
        }
        for (from, size, duration) in queries {
            prop_assert_eq!(
                profile.earliest_fit(from, size, duration),
                naive.earliest_fit(from, size, duration),
                "from {} size {} duration {}", from, size, duration
            );
            let end = from + duration;
            let min = (from..end).map(|t| naive.free(t)).min().unwrap_or(CAPACITY);
            prop_assert_eq!(profile.min_free(from, end), min);
        }
    }
}

//! Random streams: one PCG-64 generator per aspect, derived from the master seed.
//!
//! Arrivals use one sequential stream per job class (the gamma draws of the
//! class's inter-arrival process, in order). Everything drawn *for a job* (its
//! size, runtime, estimate, CWF kind and commands) comes from a generator keyed
//! by (master seed, aspect, class, index of the job within its class), so the
//! k-th batch job is the same job whatever the arrival parameters, the target
//! load or the other aspects' parameters are. Changing a size parameter, for
//! example, changes only the jobs whose size changes (and, through the
//! size-runtime correlation, their runtimes); nothing is reshuffled.

use rand_pcg::Pcg64;
use rand_pcg::rand_core::Rng;

/// What a random stream is used for. The discriminant is part of the key that
/// derives the stream, so these values must never be renumbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Aspect {
    /// The sequential gamma draws of one class's arrival process.
    Arrivals = 1,
    /// Job size (serial / power-of-two decision and the two-stage uniform).
    Size = 2,
    /// Job runtime (the hyper-gamma and its redraws).
    Runtime = 3,
    /// The user estimate (requested time).
    Estimate = 4,
    /// CWF: dedicated or batch, and the requested start delay.
    Kind = 5,
    /// CWF: whether an ET command is injected, its amount and its time.
    Extend = 6,
    /// CWF: whether an RT command is injected, its amount and its time.
    Reduce = 7,
    /// The Tsafrir-Etsion-Feitelson estimate model (whole workload: index 0
    /// draws the histogram, index 1 the assignment).
    EstimateModel = 8,
}

/// The class a stream belongs to. Also part of the key; never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamClass {
    /// The Lublin model without job types.
    Typeless = 1,
    /// Lublin batch jobs.
    Batch = 2,
    /// Lublin interactive jobs.
    Interactive = 3,
    /// The CWF generator's jobs.
    Cwf = 4,
}

/// SplitMix64's finaliser: a bijective 64-bit mixer with full avalanche.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator for `(seed, aspect, class, index)`.
///
/// The key is hashed into both the 128-bit state and the 128-bit stream
/// (increment) of PCG-64, so that distinct keys give unrelated sequences
/// (PCG streams that differ only in the increment are known to correlate).
#[inline]
pub(crate) fn stream(seed: u64, aspect: Aspect, class: StreamClass, index: u64) -> Pcg64 {
    let tag = ((aspect as u64) << 8) | class as u64;
    let h = mix64(mix64(mix64(seed ^ 0x5ced_5eed_0000_0001) ^ tag) ^ index);
    let state = (u128::from(mix64(h ^ 0x0123_4567_89ab_cdef)) << 64) | u128::from(mix64(h ^ 1));
    let inc = (u128::from(mix64(h ^ 2)) << 64) | u128::from(mix64(h ^ 3));
    Pcg64::new(state, inc)
}

/// A uniform draw in `[0, 1)` with 53 random bits (like C's `drand48`, which
/// the reference generator uses, the interval is closed at 0).
#[inline]
pub(crate) fn unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform draw in the open interval `(0, 1)`, safe to take the log of.
#[inline]
pub(crate) fn open_unit<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map(|_| stream(7, Aspect::Size, StreamClass::Batch, 3))
            .map(|mut r| r.next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let keys = [
            stream(7, Aspect::Size, StreamClass::Batch, 3),
            stream(8, Aspect::Size, StreamClass::Batch, 3),
            stream(7, Aspect::Runtime, StreamClass::Batch, 3),
            stream(7, Aspect::Size, StreamClass::Interactive, 3),
            stream(7, Aspect::Size, StreamClass::Batch, 4),
        ];
        let mut firsts: Vec<u64> = keys.into_iter().map(|mut r| r.next_u64()).collect();
        firsts.sort_unstable();
        firsts.dedup();
        assert_eq!(firsts.len(), 5, "each key must give its own sequence");
    }

    #[test]
    fn unit_draws_stay_in_their_intervals() {
        let mut rng = stream(1, Aspect::Size, StreamClass::Typeless, 0);
        for _ in 0..10_000 {
            let u = unit(&mut rng);
            assert!((0.0..1.0).contains(&u));
            let v = open_unit(&mut rng);
            assert!(v > 0.0 && v < 1.0);
        }
    }
}

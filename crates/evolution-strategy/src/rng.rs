//! Random streams: one PCG-64 generator per generation, derived from the
//! seed, so a run can resume at any generation without saving generator
//! state, and the draws never depend on how evaluations were scheduled.

use rand_pcg::Pcg64;
use rand_pcg::rand_core::Rng;

/// SplitMix64's finaliser: a bijective 64-bit mixer with full avalanche.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator of generation `generation` of a run seeded with `seed`.
///
/// The key is hashed into both the 128-bit state and the increment, because
/// PCG streams that differ only in the increment are known to correlate.
pub(crate) fn generation_stream(seed: u64, generation: u32) -> Pcg64 {
    let h = mix64(mix64(seed ^ 0x0e5e_5eed_0000_0001) ^ u64::from(generation));
    let state = (u128::from(mix64(h ^ 0x0123_4567_89ab_cdef)) << 64) | u128::from(mix64(h ^ 1));
    let increment = (u128::from(mix64(h ^ 2)) << 64) | u128::from(mix64(h ^ 3));
    Pcg64::new(state, increment)
}

/// A uniform draw in `[0, 1)` with 53 random bits.
pub(crate) fn unit(rng: &mut Pcg64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform draw in the open interval `(0, 1)`, safe to take the log of.
fn open_unit(rng: &mut Pcg64) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// A standard normal draw (Box-Muller, one value per pair of uniforms: the
/// simplest scheme whose draw count per value is fixed, which keeps the
/// streams easy to reason about).
pub(crate) fn normal(rng: &mut Pcg64) -> f64 {
    let radius = (-2.0 * open_unit(rng).ln()).sqrt();
    radius * (std::f64::consts::TAU * unit(rng)).cos()
}

/// A uniform index in `0..n` (`n >= 1`) by Lemire's multiply-shift; the bias,
/// at most n / 2^64, is far below anything an evolution strategy can notice.
pub(crate) fn index(rng: &mut Pcg64, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_seed_and_generation() {
        let first = |seed, generation| generation_stream(seed, generation).next_u64();
        assert_ne!(first(1, 0), first(1, 1));
        assert_ne!(first(1, 0), first(2, 0));
        assert_eq!(first(7, 3), first(7, 3));
    }

    #[test]
    fn normal_draws_have_unit_moments() {
        // 200,000 draws: the standard error of the mean is 1/sqrt(2e5) = 0.0022
        // and of the variance about sqrt(2/2e5) = 0.0032; 0.02 is over 6 of them.
        let mut rng = generation_stream(42, 0);
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        let variance = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!((variance - 1.0).abs() < 0.02, "variance {variance}");
    }

    #[test]
    fn indices_cover_the_range() {
        let mut rng = generation_stream(5, 0);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[index(&mut rng, 7)] += 1;
        }
        // Each of 7 values expects 1000 hits (sd about 30).
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
    }
}

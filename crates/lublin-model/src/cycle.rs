//! The arrival process: the 48-bucket daily cycle, the point-balance clock,
//! and the walk that interleaves several job streams.

use rand_pcg::Pcg64;

use crate::dist::{Gamma, gamma_p_q};

/// Half-hour buckets in a day.
pub(crate) const BUCKETS: usize = 48;
/// Seconds in one bucket.
pub(crate) const BUCKET_SECONDS: f64 = 1800.0;
/// The fitted day runs from bucket index 11 to 58 and is wrapped onto 0..48.
const CYCLIC_DAY_START: usize = 11;

/// Bucket weights ("points" a bucket costs), normalised to mean 1.
#[derive(Debug, Clone)]
pub(crate) struct DailyCycle {
    weights: [f64; BUCKETS],
    day_total: f64,
}

impl DailyCycle {
    /// For `i` in `11..=58` the weight of bucket `(i - 1) mod 48` is
    /// `cdf(i + 0.5) - cdf(i - 0.5)` of gamma(anum, bnum); then all weights
    /// are divided by their mean.
    pub(crate) fn new(anum: f64, bnum: f64) -> Self {
        let mut weights = [0.0; BUCKETS];
        for i in CYCLIC_DAY_START..CYCLIC_DAY_START + BUCKETS {
            let x = i as f64;
            let (p_lo, q_lo) = gamma_p_q(x - 0.5, anum, bnum);
            let (p_hi, q_hi) = gamma_p_q(x + 0.5, anum, bnum);
            // In the upper tail both cdf values are close to 1: difference
            // the upper tails instead, which keeps tiny night-time weights
            // (the CWF generator's cycle reaches 1e-12) accurate.
            weights[(i - 1) % BUCKETS] = if q_lo < 0.5 { q_lo - q_hi } else { p_hi - p_lo };
        }
        Self::from_weights(weights)
    }

    /// Normalises raw weights to mean 1 (all-zero weights stay zero and are
    /// rejected by [`DailyCycle::all_positive`]).
    pub(crate) fn from_weights(mut weights: [f64; BUCKETS]) -> Self {
        let mean = weights.iter().sum::<f64>() / BUCKETS as f64;
        if mean > 0.0 {
            for w in &mut weights {
                *w /= mean;
            }
        }
        Self {
            weights,
            day_total: weights.iter().sum(),
        }
    }

    pub(crate) fn all_positive(&self) -> bool {
        self.weights.iter().all(|&w| w > 0.0 && w.is_finite())
    }

    #[cfg(test)]
    pub(crate) fn weights(&self) -> &[f64; BUCKETS] {
        &self.weights
    }
}

/// One stream's position in the daily cycle: the point balance, the
/// in-bucket remainder and the clock, starting at midnight (bucket 0).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ArrivalClock {
    bucket: usize,
    points: f64,
    remainder: f64,
    time: u64,
}

impl ArrivalClock {
    /// Adds `points` (an inter-arrival draw in seconds divided by 1800) and
    /// returns the new arrival time.
    ///
    /// While the balance exceeds the current bucket's weight, that weight is
    /// paid and the clock moves to the next bucket (+1800 s); then the new
    /// remainder is balance / weight, and 1800 * (new - old remainder) s are
    /// added. As in the reference generator, the clock is an integer and each
    /// addition is truncated (the reference adds a double to an unsigned long).
    #[inline]
    pub(crate) fn advance(&mut self, cycle: &DailyCycle, points: f64) -> u64 {
        self.points += points;
        let mut elapsed = 0.0;
        // Skip whole days at once when the balance covers more than two (a
        // scaled-up draw in the load search can be worth years); the loop
        // below then pays at most two days bucket by bucket.
        if self.points > 2.0 * cycle.day_total {
            let days = (self.points / cycle.day_total).floor() - 1.0;
            self.points -= days * cycle.day_total;
            elapsed += days * BUCKET_SECONDS * BUCKETS as f64;
        }
        while self.points > cycle.weights[self.bucket] {
            self.points -= cycle.weights[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            elapsed += BUCKET_SECONDS;
        }
        let remainder = self.points / cycle.weights[self.bucket];
        elapsed += BUCKET_SECONDS * (remainder - self.remainder);
        self.remainder = remainder;
        // `as` saturates: a negative sum (impossible: see the tests) would give 0.
        self.time = (self.time as f64 + elapsed) as u64;
        self.time
    }
}

/// One job stream's arrival draws: `exp(g) / 1800` points with
/// `g ~ gamma(aarr * arar, barr)` redrawn while `g > cap`. With `caching` on
/// the draws are kept, so the load search can replay them with another scale
/// (common random numbers); later draws are taken fresh from the generator.
#[derive(Debug, Clone)]
pub(crate) struct ArrivalStream {
    cycle: DailyCycle,
    gamma: Gamma,
    cap: f64,
    rng: Pcg64,
    draws: Vec<f64>,
    /// Draws taken from `rng` so far (equal to `draws.len()` while caching).
    produced: usize,
    caching: bool,
}

impl ArrivalStream {
    pub(crate) fn new(
        cycle: DailyCycle,
        gamma: Gamma,
        cap: f64,
        rng: Pcg64,
        caching: bool,
    ) -> Self {
        Self {
            cycle,
            gamma,
            cap,
            rng,
            draws: Vec::new(),
            produced: 0,
            caching,
        }
    }

    /// Stops keeping new draws (the ones kept are still replayed).
    pub(crate) fn stop_caching(&mut self) {
        self.caching = false;
    }

    /// The unscaled points of the `k`-th inter-arrival draw. Draws beyond the
    /// kept ones must be asked for in order, as a walk does.
    #[inline]
    fn draw(&mut self, k: usize) -> f64 {
        if let Some(&points) = self.draws.get(k) {
            return points;
        }
        debug_assert_eq!(k, self.produced, "uncached draws are taken in order");
        let g = loop {
            let g = self.gamma.sample(&mut self.rng);
            if g <= self.cap {
                break g;
            }
        };
        let points = g.exp() / BUCKET_SECONDS;
        self.produced += 1;
        if self.caching {
            self.draws.push(points);
        }
        points
    }
}

/// The state of a walk over one or two streams for `n` jobs with every draw
/// multiplied by `scale`: the next job comes from the stream whose next
/// arrival is earliest, ties to the later stream (the reference picks batch
/// only when strictly earlier than interactive, and interactive is listed
/// last). Each stream's clock starts at midnight, and, as in the reference,
/// each stream's first job arrives after one draw.
#[derive(Debug, Clone)]
pub(crate) struct Walk {
    clocks: [ArrivalClock; 2],
    next: [u64; 2],
    counts: [usize; 2],
    remaining: usize,
    scale: f64,
    started: bool,
}

impl Walk {
    pub(crate) fn new(scale: f64, n: usize) -> Self {
        Self {
            clocks: [ArrivalClock::default(); 2],
            next: [0; 2],
            counts: [0; 2],
            remaining: n,
            scale,
            started: false,
        }
    }

    /// Jobs still to come.
    pub(crate) fn remaining(&self) -> usize {
        self.remaining
    }

    /// The next job: (stream, index within the stream, submit time).
    #[inline]
    pub(crate) fn step(&mut self, streams: &mut [ArrivalStream]) -> Option<(usize, usize, u64)> {
        if self.remaining == 0 {
            return None;
        }
        let m = streams.len();
        debug_assert!((1..=2).contains(&m));
        if !self.started {
            self.started = true;
            for (s, stream) in streams.iter_mut().enumerate() {
                let points = stream.draw(0) * self.scale;
                self.next[s] = self.clocks[s].advance(&stream.cycle, points);
            }
        }
        let s = if m == 2 && self.next[0] < self.next[1] {
            0
        } else {
            m - 1
        };
        let job = (s, self.counts[s], self.next[s]);
        self.counts[s] += 1;
        self.remaining -= 1;
        // The draw after the last job is not needed by anything.
        if self.remaining > 0 {
            let stream = &mut streams[s];
            let points = stream.draw(self.counts[s]) * self.scale;
            self.next[s] = self.clocks[s].advance(&stream.cycle, points);
        }
        Some(job)
    }
}

/// Walks `n` jobs, calling `emit(stream, index within stream, submit time)`
/// in submit order.
pub(crate) fn walk(
    streams: &mut [ArrivalStream],
    scale: f64,
    n: usize,
    mut emit: impl FnMut(usize, usize, u64),
) {
    let mut state = Walk::new(scale, n);
    while let Some((s, k, time)) = state.step(streams) {
        emit(s, k, time);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::gamma_cdf;
    use crate::params::ClassParams;

    #[test]
    fn clock_follows_the_hand_worked_example() {
        // Buckets 0, 1, 2 cost 2, 0.5 and 0.5 points, the other 45 cost 1:
        // the sum is 48, so the mean is already 1 and every number below is
        // an exact binary fraction.
        let mut raw = [1.0; BUCKETS];
        raw[0] = 2.0;
        raw[1] = 0.5;
        raw[2] = 0.5;
        let cycle = DailyCycle::from_weights(raw);
        let mut c = ArrivalClock::default();
        // 1 point in bucket 0 (weight 2): remainder 0.5, 1800 * 0.5 = 900 s.
        assert_eq!(c.advance(&cycle, 1.0), 900);
        // 1.5 more: balance 2.5 pays bucket 0 (2) and moves on (+1800); the
        // 0.5 left is not more than bucket 1's weight: remainder 0.5 / 0.5 =
        // 1, elapsed 1800 + 1800 (1 - 0.5) = 2700, time 3600.
        assert_eq!(c.advance(&cycle, 1.5), 3600);
        // 0.25 more: balance 0.75 pays bucket 1 (+1800), 0.25 left in bucket
        // 2 (weight 0.5): remainder 0.5, elapsed 1800 + 1800 (0.5 - 1) = 900.
        assert_eq!(c.advance(&cycle, 0.25), 4500);
        // 0.3 s worth of points at weight 0.5 is 0.6 s of clock: the integer
        // clock truncates it away, like the reference (twice in a row).
        assert_eq!(c.advance(&cycle, 0.3 / BUCKET_SECONDS), 4500);
        assert_eq!(c.advance(&cycle, 0.3 / BUCKET_SECONDS), 4500);
    }

    #[test]
    fn clock_skips_whole_days_exactly() {
        // Flat weights: time = 1800 s per point. 1000 days and a quarter
        // bucket: 1000 * 48 + 0.25 points -> 86_400_000 + 450 s.
        let cycle = DailyCycle::from_weights([1.0; BUCKETS]);
        let mut c = ArrivalClock::default();
        assert_eq!(c.advance(&cycle, 1000.0 * 48.0 + 0.25), 86_400_450);
        // One more quarter bucket: 450 s later.
        assert_eq!(c.advance(&cycle, 0.25), 86_400_900);
    }

    #[test]
    fn bucket_weights_follow_the_gamma_cdf() {
        // Shape 1 (exponential, scale 10): cdf(x) = 1 - e^(-x/10), so bucket
        // (i-1) mod 48 gets e^(-(i-0.5)/10) - e^(-(i+0.5)/10); the sum over
        // i = 11..=58 telescopes to e^(-1.05) - e^(-5.85), and the mean-1
        // normalisation multiplies by 48 / that sum.
        let cycle = DailyCycle::new(1.0, 10.0);
        let total = (-1.05f64).exp() - (-5.85f64).exp();
        for i in 11..=58usize {
            let x = i as f64;
            let expected = 48.0 * ((-(x - 0.5) / 10.0).exp() - (-(x + 0.5) / 10.0).exp()) / total;
            let got = cycle.weights()[(i - 1) % 48];
            assert!(
                (got - expected).abs() < 1e-12,
                "bucket {}: {got} vs {expected}",
                (i - 1) % 48
            );
        }
        // i = 11 lands in bucket 10 (05:00), i = 49 wraps to bucket 0.
        assert!(cycle.weights()[10] > cycle.weights()[11]);
        assert!(cycle.weights()[47] > cycle.weights()[0]);
    }

    #[test]
    fn long_run_inter_arrival_mean_matches_the_truncated_gamma() {
        // Typeless: g ~ gamma(a, b), a = 10.2303 * 1.0225, b = 0.4871,
        // redrawn above 13. E[e^g | g <= 13] = (1 - b)^-a * P(a, 13 / s) /
        // P(a, 13 / b) with s = b / (1 - b) (tilting the gamma by e^g keeps
        // the shape and changes the scale to s). Since the daily weights
        // average 1, a whole number of days costs as many points as seconds
        // / 1800, so the long-run mean inter-arrival time is that mean (about
        // 880 s), less the reference's truncation (0.5 s on average) and the
        // partial days at both ends (at most 2 days / n).
        let c = ClassParams::TYPELESS.arrival;
        let (a, b) = (c.aarr * c.arar, c.barr);
        let s = b / (1.0 - b);
        let analytic = (1.0 - b).powf(-a) * gamma_cdf(13.0, a, s) / gamma_cdf(13.0, a, b);
        let n = 200_000;
        let rng = crate::rng::stream(
            3,
            crate::rng::Aspect::Arrivals,
            crate::rng::StreamClass::Typeless,
            0,
        );
        let mut streams = [ArrivalStream::new(
            DailyCycle::new(c.anum, c.bnum),
            Gamma::new(a, b),
            13.0,
            rng,
            true,
        )];
        let (mut first, mut last) = (0, 0);
        walk(&mut streams, 1.0, n, |_, k, t| {
            if k == 0 {
                first = t;
            }
            last = t;
        });
        let seconds: Vec<f64> = streams[0]
            .draws
            .iter()
            .map(|p| p * BUCKET_SECONDS)
            .collect();
        // The draws themselves: within 5 standard errors of the analytic mean.
        let (mean, _, se, _) = crate::dist::tests::moments(&seconds);
        assert!(
            (mean - analytic).abs() < 5.0 * se,
            "{mean} vs {analytic} (se {se})"
        );
        // The clock: the span over n - 1 gaps equals the draws' mean up to the
        // truncation and the end effects: within 0.5 + 2 * 86400 / n + 0.5 s.
        let per_gap = (last - first) as f64 / (n - 1) as f64;
        let drawn = seconds[1..n].iter().sum::<f64>() / (n - 1) as f64;
        assert!(
            (per_gap - drawn).abs() < 1.0 + 2.0 * 86_400.0 / n as f64,
            "{per_gap} vs {drawn}"
        );
        assert!((800.0..960.0).contains(&analytic), "{analytic}");
    }

    #[test]
    fn default_cycles_have_mean_one_and_a_daytime_peak() {
        for class in [
            ClassParams::TYPELESS,
            ClassParams::BATCH,
            ClassParams::INTERACTIVE,
        ] {
            let cycle = DailyCycle::new(class.arrival.anum, class.arrival.bnum);
            assert!(cycle.all_positive());
            let mean = cycle.weights().iter().sum::<f64>() / 48.0;
            assert!((mean - 1.0).abs() < 1e-12);
            // The gamma's mode (anum - 1) * bnum is 28.4 (typeless), 27.1
            // (batch), 29.0 (interactive): bucket index i - 1 = 27..28, i.e.
            // 13:30-14:30.
            let peak = (0..48)
                .max_by(|&a, &b| cycle.weights()[a].total_cmp(&cycle.weights()[b]))
                .unwrap();
            assert!((26..=28).contains(&peak), "peak bucket {peak}");
        }
    }
}

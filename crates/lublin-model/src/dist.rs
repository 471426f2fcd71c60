//! The distributions of the model, sampled from a caller-supplied generator.
//!
//! The reference generator draws gamma variates by Jain's method (a sum of
//! `floor(shape)` exponentials plus a Beta-based part), which costs one log per
//! unit of shape: 639 logs for the batch runtime component. We use Marsaglia
//! and Tsang's exact rejection method instead (same distribution, about one
//! normal and one uniform per draw), which is what keeps 1M jobs under a second.

use rand_pcg::rand_core::Rng;

use crate::rng::{open_unit, unit};

/// A standard normal draw by Marsaglia's polar method (the second value of the
/// pair is dropped: each job has its own generator, so there is nothing to
/// cache it for).
#[inline]
pub(crate) fn standard_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    loop {
        let u = 2.0 * unit(rng) - 1.0;
        let v = 2.0 * unit(rng) - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            return u * (-2.0 * s.ln() / s).sqrt();
        }
    }
}

/// An exponential draw with the given mean.
#[inline]
pub(crate) fn exponential<R: Rng + ?Sized>(rng: &mut R, mean: f64) -> f64 {
    -mean * open_unit(rng).ln()
}

/// gamma(shape, scale): mean `shape * scale`, variance `shape * scale^2`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gamma {
    shape: f64,
    scale: f64,
    /// Marsaglia-Tsang's `d = a - 1/3` for `a = max(shape, shape + 1 if < 1)`.
    d: f64,
    /// Marsaglia-Tsang's `c = 1 / sqrt(9 d)`.
    c: f64,
}

impl Gamma {
    /// The caller guarantees `shape > 0` and `scale > 0`, both finite.
    pub(crate) fn new(shape: f64, scale: f64) -> Self {
        // Below shape 1 the method samples gamma(shape + 1) and multiplies by
        // U^(1/shape) (Marsaglia and Tsang 2000, section 6).
        let a = if shape < 1.0 { shape + 1.0 } else { shape };
        let d = a - 1.0 / 3.0;
        Self {
            shape,
            scale,
            d,
            c: 1.0 / (9.0 * d).sqrt(),
        }
    }

    #[inline]
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let standard = loop {
            let x = standard_normal(rng);
            let v = 1.0 + self.c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = open_unit(rng);
            let x2 = x * x;
            // The squeeze accepts about 98% of draws without a log.
            if u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + self.d * (1.0 - v + v.ln()) {
                break self.d * v;
            }
        };
        let standard = if self.shape < 1.0 {
            standard * open_unit(rng).powf(1.0 / self.shape)
        } else {
            standard
        };
        standard * self.scale
    }
}

/// hyper-gamma(a1, b1, a2, b2, p): gamma(a1, b1) with probability `p`,
/// otherwise gamma(a2, b2). As in the reference, the component is chosen by
/// `u <= p` with `u` uniform in `[0, 1)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HyperGamma {
    pub(crate) first: Gamma,
    pub(crate) second: Gamma,
}

impl HyperGamma {
    #[inline]
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R, p: f64) -> f64 {
        if unit(rng) <= p {
            self.first.sample(rng)
        } else {
            self.second.sample(rng)
        }
    }
}

/// two-stage-uniform(low, med, hi, prob): uniform(low, med) with probability
/// `prob`, otherwise uniform(med, hi); the stage is chosen by `u <= prob`.
#[inline]
pub(crate) fn two_stage_uniform<R: Rng + ?Sized>(
    rng: &mut R,
    low: f64,
    med: f64,
    hi: f64,
    prob: f64,
) -> f64 {
    let (a, b) = if unit(rng) <= prob {
        (low, med)
    } else {
        (med, hi)
    };
    a + unit(rng) * (b - a)
}

/// ln Γ(x) for `x > 0` (statrs' Lanczos approximation; relative error
/// about 1e-15, far below what the bucket weights need).
pub(crate) fn ln_gamma(x: f64) -> f64 {
    statrs::function::gamma::ln_gamma(x)
}

/// The cdf of gamma(shape, scale) at `x`: the regularised lower incomplete
/// gamma function P(shape, x / scale).
pub(crate) fn gamma_cdf(x: f64, shape: f64, scale: f64) -> f64 {
    gamma_p_q(x, shape, scale).0
}

/// `(P, Q)`: the regularised lower and upper incomplete gamma functions at
/// `x / scale`, `P + Q = 1`. Computed by the series below `shape + 1` (which
/// gives P accurately) and the continued fraction (modified Lentz) above
/// (which gives Q accurately), as in Numerical Recipes, which the reference
/// generator also follows. Returning both lets a caller difference the tail
/// that is not close to 1, avoiding cancellation.
pub(crate) fn gamma_p_q(x: f64, shape: f64, scale: f64) -> (f64, f64) {
    const EPS: f64 = 1e-15;
    const MAX_ITER: usize = 10_000;
    const TINY: f64 = 1e-300;
    let x = x / scale;
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    let log_prefactor = -x + shape * x.ln() - ln_gamma(shape);
    if x < shape + 1.0 {
        let mut term = 1.0 / shape;
        let mut sum = term;
        let mut ap = shape;
        for _ in 0..MAX_ITER {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * EPS {
                break;
            }
        }
        let p = (sum * log_prefactor.exp()).clamp(0.0, 1.0);
        (p, 1.0 - p)
    } else {
        let mut b = x + 1.0 - shape;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..MAX_ITER {
            let an = -(i as f64) * (i as f64 - shape);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < EPS {
                break;
            }
        }
        let q = (log_prefactor.exp() * h).clamp(0.0, 1.0);
        (1.0 - q, q)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rng::{Aspect, StreamClass, stream};

    /// Sample mean, sample variance, and the standard errors of both. The
    /// standard error of the variance is estimated from the sample's own
    /// fourth central moment: SE(s^2) ~ sqrt((m4 - s^4) / n), which holds for
    /// any distribution with a finite fourth moment.
    pub(crate) fn moments(xs: &[f64]) -> (f64, f64, f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let m4 = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n;
        (mean, var, (var / n).sqrt(), ((m4 - var * var) / n).sqrt())
    }

    /// Both moments within 5 standard errors of the analytic values. With a
    /// fixed seed the test is deterministic; 5 SE (a 6e-7 two-sided chance
    /// for a correct sampler on a fresh seed) leaves room for refactorings that
    /// change the draws, while a wrong parameterisation (a scale taken as a
    /// rate, a shape off by one) moves the mean by hundreds of SE at n = 200k.
    pub(crate) fn assert_moments(name: &str, xs: &[f64], mean: f64, var: f64) {
        let (m, v, se_m, se_v) = moments(xs);
        assert!(
            (m - mean).abs() <= 5.0 * se_m,
            "{name}: mean {m} vs analytic {mean} (se {se_m})"
        );
        assert!(
            (v - var).abs() <= 5.0 * se_v,
            "{name}: variance {v} vs analytic {var} (se {se_v})"
        );
    }

    const N: usize = 200_000;

    fn rng(index: u64) -> rand_pcg::Pcg64 {
        stream(42, Aspect::Runtime, StreamClass::Typeless, index)
    }

    #[test]
    fn ln_gamma_matches_known_values() {
        // Γ(1) = 1; Γ(1/2) = √π, ln √π = 0.572364942924700; Γ(10) = 9! = 362880,
        // ln 362880 = 12.801827480081469; Γ(0.1) = 9.513507698668732.
        assert!(ln_gamma(1.0).abs() < 1e-14);
        assert!((ln_gamma(0.5) - 0.572_364_942_924_700_1).abs() < 1e-13);
        assert!((ln_gamma(10.0) - 12.801_827_480_081_469).abs() < 1e-12);
        assert!((ln_gamma(0.1) - 9.513_507_698_668_732_f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn gamma_cdf_matches_closed_forms() {
        // Shape 1 is the exponential: 1 - e^-x; at x = 0.7: 1 - e^-0.7 = 0.5034146962085905.
        assert!((gamma_cdf(0.7, 1.0, 1.0) - 0.503_414_696_208_590_5).abs() < 1e-13);
        // Integer shape n: 1 - e^-x sum_{k<n} x^k/k!. Shape 3 at 2 (series
        // branch, 2 < 4): 1 - e^-2 (1 + 2 + 2) = 0.3233235838169366.
        assert!((gamma_cdf(2.0, 3.0, 1.0) - 0.323_323_583_816_936_6).abs() < 1e-13);
        // Shape 2 at 5 (continued-fraction branch, 5 >= 3): 1 - 6 e^-5 = 0.9595723180054873.
        assert!((gamma_cdf(5.0, 2.0, 1.0) - 0.959_572_318_005_487_3).abs() < 1e-13);
        // Scale: gamma(2, 2) at 4 is P(2, 2) = 1 - 3 e^-2 = 0.5939941502901619.
        assert!((gamma_cdf(4.0, 2.0, 2.0) - 0.593_994_150_290_161_9).abs() < 1e-13);
        // Shape 1/2: P(1/2, x) = erf(sqrt x); erf(1) = 0.8427007929497149.
        assert!((gamma_cdf(1.0, 0.5, 1.0) - 0.842_700_792_949_714_9).abs() < 1e-13);
        assert_eq!(gamma_cdf(0.0, 3.0, 1.0), 0.0);
        // Far upper tail: Q(2, 50) = 51 e^-50 = 9.8445e-21, kept to full
        // relative precision although P rounds to 1.
        let (p, q) = gamma_p_q(50.0, 2.0, 1.0);
        assert_eq!(p, 1.0);
        assert!((q / (51.0 * (-50.0f64).exp()) - 1.0).abs() < 1e-12);
        assert_eq!(gamma_cdf(-1.0, 3.0, 1.0), 0.0);
    }

    #[test]
    fn standard_normal_has_mean_zero_and_variance_one() {
        let mut r = rng(0);
        let xs: Vec<f64> = (0..N).map(|_| standard_normal(&mut r)).collect();
        assert_moments("normal", &xs, 0.0, 1.0);
    }

    #[test]
    fn gamma_matches_mean_and_variance() {
        // Shapes cover both branches (0.5 < 1) and every default: runtime
        // components (4.2, 0.94), (312, 0.03), (639.1, 0.0156) and the
        // typeless arrival gamma (10.2303 * 1.0225, 0.4871).
        for (i, &(a, b)) in [
            (0.5, 2.0),
            (4.2, 0.94),
            (312.0, 0.03),
            (639.1, 0.0156),
            (10.2303 * 1.0225, 0.4871),
        ]
        .iter()
        .enumerate()
        {
            let g = Gamma::new(a, b);
            let mut r = rng(1 + i as u64);
            let xs: Vec<f64> = (0..N).map(|_| g.sample(&mut r)).collect();
            assert!(xs.iter().all(|&x| x > 0.0));
            // Mean a b, variance a b^2.
            assert_moments(&format!("gamma({a}, {b})"), &xs, a * b, a * b * b);
        }
    }

    #[test]
    fn hyper_gamma_matches_mixture_moments() {
        // Typeless runtime model at p = 0.78 - 0.0054 * 8 = 0.7368 (an 8-node job).
        let (a1, b1, a2, b2, p) = (4.2, 0.94, 312.0, 0.03, 0.7368);
        let hg = HyperGamma {
            first: Gamma::new(a1, b1),
            second: Gamma::new(a2, b2),
        };
        let mut r = rng(10);
        let xs: Vec<f64> = (0..N).map(|_| hg.sample(&mut r, p)).collect();
        // Mixture: mean = p m1 + (1-p) m2 = 0.7368*3.948 + 0.2632*9.36 = 5.3723;
        // E[x^2] = p (v1 + m1^2) + (1-p)(v2 + m2^2) with v = a b^2; variance = E[x^2] - mean^2.
        let (m1, m2) = (a1 * b1, a2 * b2);
        let mean = p * m1 + (1.0 - p) * m2;
        let second = p * (a1 * b1 * b1 + m1 * m1) + (1.0 - p) * (a2 * b2 * b2 + m2 * m2);
        assert!((mean - 5.372_3).abs() < 1e-3);
        assert_moments("hyper-gamma", &xs, mean, second - mean * mean);
    }

    #[test]
    fn two_stage_uniform_matches_mean_and_variance() {
        // Typeless sizes on 128 nodes: low 0.8, med 4.5, hi 7, prob 0.86.
        let (lo, med, hi, prob) = (0.8, 4.5, 7.0, 0.86);
        let mut r = rng(20);
        let xs: Vec<f64> = (0..N)
            .map(|_| two_stage_uniform(&mut r, lo, med, hi, prob))
            .collect();
        assert!(xs.iter().all(|&x| (lo..=hi).contains(&x)));
        // Mean = prob (lo+med)/2 + (1-prob)(med+hi)/2 = 0.86*2.65 + 0.14*5.75 = 3.084.
        // E[x^2] of uniform(a, b) is (a^2 + a b + b^2) / 3.
        let mean = prob * (lo + med) / 2.0 + (1.0 - prob) * (med + hi) / 2.0;
        assert!((mean - 3.084).abs() < 1e-12);
        let second = prob * (lo * lo + lo * med + med * med) / 3.0
            + (1.0 - prob) * (med * med + med * hi + hi * hi) / 3.0;
        assert_moments("two-stage uniform", &xs, mean, second - mean * mean);
    }

    #[test]
    fn exponential_matches_mean_and_variance() {
        let mut r = rng(30);
        let xs: Vec<f64> = (0..N).map(|_| exponential(&mut r, 3600.0)).collect();
        // Mean m, variance m^2.
        assert_moments("exponential", &xs, 3600.0, 3600.0 * 3600.0);
    }
}

//! The two-sample Kolmogorov-Smirnov test, to compare a generated
//! distribution with a trace's.

/// The result of a two-sample Kolmogorov-Smirnov test.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Ks {
    /// sup |F_a(x) - F_b(x)| over all x.
    pub d: f64,
    /// Asymptotic p-value: Q_KS(sqrt(n m / (n + m)) d).
    pub p: f64,
}

/// The two-sample KS statistic and its asymptotic p-value. Ties (within and
/// across the samples) are handled by stepping both empirical cdfs past each
/// distinct value before comparing them. With discrete data (sizes, integer
/// seconds) the asymptotic p-value is conservative: it overstates p.
///
/// Either sample empty gives `d = 0`, `p = 1` (nothing to compare).
pub fn ks_two_sample(a: &[f64], b: &[f64]) -> Ks {
    if a.is_empty() || b.is_empty() {
        return Ks { d: 0.0, p: 1.0 };
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (n, m) = (a.len(), b.len());
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < n && j < m {
        let x = a[i].min(b[j]);
        while i < n && a[i] <= x {
            i += 1;
        }
        while j < m && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / n as f64 - j as f64 / m as f64).abs());
    }
    let en = (n as f64 * m as f64 / (n + m) as f64).sqrt();
    Ks {
        d,
        p: kolmogorov_q(en * d),
    }
}

/// The Kolmogorov distribution's survival function
/// Q(λ) = 2 Σ_{k>=1} (-1)^(k-1) e^(-2 k² λ²). Below λ = 1.18 that series
/// converges slowly, so the equivalent form
/// 1 - (√(2π) / λ) Σ_{k>=1} e^(-(2k-1)² π² / (8 λ²)) is used there.
pub fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda <= 0.0 {
        return 1.0;
    }
    let sum: f64 = if lambda < 1.18 {
        let pi2 = std::f64::consts::PI.powi(2);
        let s: f64 = (1..=20)
            .map(|k| {
                let o = (2 * k - 1) as f64;
                (-o * o * pi2 / (8.0 * lambda * lambda)).exp()
            })
            .sum();
        1.0 - (2.0 * std::f64::consts::PI).sqrt() / lambda * s
    } else {
        2.0 * (1..=100)
            .map(|k| {
                let k = k as f64;
                let sign = if k as u64 % 2 == 1 { 1.0 } else { -1.0 };
                sign * (-2.0 * k * k * lambda * lambda).exp()
            })
            .sum::<f64>()
    };
    sum.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ks_hand_example() {
        // a = {1, 2, 3, 4}, b = {2.5, 3.5, 5, 6}. ECDFs: after 2: 2/4 vs 0;
        // after 3: 3/4 vs 1/4; after 4: 4/4 vs 2/4; D = 0.5.
        // n m / (n + m) = 16 / 8 = 2, λ = √2 · 0.5 = 0.70711.
        // Q(λ) = 2 (e^-1 - e^-4 + e^-9 - e^-16 ...) = 2 (0.367879 - 0.018316
        // + 0.000123 - 0.0000001) = 0.699372.
        let ks = ks_two_sample(&[1.0, 2.0, 3.0, 4.0], &[2.5, 3.5, 5.0, 6.0]);
        assert_eq!(ks.d, 0.5);
        assert!((ks.p - 0.699_372).abs() < 1e-5, "p {}", ks.p);
    }

    #[test]
    fn ks_handles_ties() {
        // a = {1, 1, 2}, b = {1, 2, 2}: at 1, 2/3 vs 1/3; at 2, 1 vs 1: D = 1/3.
        let ks = ks_two_sample(&[1.0, 1.0, 2.0], &[1.0, 2.0, 2.0]);
        assert!((ks.d - 1.0 / 3.0).abs() < 1e-15);
        // Identical samples: D = 0, p = 1.
        let ks = ks_two_sample(&[3.0, 1.0, 2.0], &[1.0, 2.0, 3.0]);
        assert_eq!((ks.d, ks.p), (0.0, 1.0));
        // Disjoint samples: D = 1.
        assert_eq!(ks_two_sample(&[1.0, 2.0], &[3.0, 4.0]).d, 1.0);
    }

    #[test]
    fn kolmogorov_q_matches_tables() {
        // Critical values: Q(1.3581) = 0.05, Q(1.6276) = 0.01, Q(1.2239) = 0.10.
        assert!((kolmogorov_q(1.3581) - 0.05).abs() < 1e-4);
        assert!((kolmogorov_q(1.6276) - 0.01).abs() < 1e-4);
        assert!((kolmogorov_q(1.2239) - 0.10).abs() < 1e-4);
        // Both forms agree where they switch.
        let below = kolmogorov_q(1.18 - 1e-12);
        let above = kolmogorov_q(1.18);
        assert!((below - above).abs() < 1e-9);
        assert_eq!(kolmogorov_q(0.0), 1.0);
        assert!(kolmogorov_q(10.0) < 1e-80);
    }
}

//! Least-significant-digit radix sorts for the metrics' long lists (a
//! list per metric and the queue-length times, hundreds of thousands of
//! values a run).
//!
//! A comparison sort spends about log2(n) comparisons a value; these take
//! one counting pass and at most eight scatter passes, and skip the passes
//! of bytes that every value shares (the high bytes of times and of
//! non-negative floats). The order is the one `sort_unstable` gives:
//! values that compare equal have the same bits, so the result is the
//! same slice, bit for bit.

/// Below this many values a comparison sort is faster than the counting
/// and scatter passes.
const SMALL: usize = 256;

/// Sorts `values` ascending, as `values.sort_unstable()` does.
pub(crate) fn sort_i64(values: &mut [i64]) {
    if values.len() < SMALL {
        values.sort_unstable();
        return;
    }
    // Flipping the sign bit maps i64's order onto u64's.
    sort_by_key(values, |value| (value as u64) ^ (1 << 63));
}

/// Sorts `values` ascending in IEEE 754 total order, as
/// `values.sort_unstable_by(f64::total_cmp)` does.
pub(crate) fn sort_f64(values: &mut [f64]) {
    if values.len() < SMALL {
        values.sort_unstable_by(f64::total_cmp);
        return;
    }
    sort_by_key(values, total_order_key);
}

/// An unsigned key whose order is `f64::total_cmp`'s: negative values have
/// every bit flipped (larger magnitudes sort first), non-negative ones only
/// the sign bit (they sort after every negative value).
fn total_order_key(value: f64) -> u64 {
    let bits = value.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits ^ (1 << 63)
    }
}

/// Sorts `items` by `key` (stable, which does not matter here: items with
/// equal keys are equal).
fn sort_by_key<T: Copy + Default>(items: &mut [T], key: impl Fn(T) -> u64) {
    let len = items.len();
    // One counting pass for all eight bytes.
    let mut counts = vec![[0usize; 256]; 8];
    for &item in items.iter() {
        let key = key(item);
        for (byte, count) in counts.iter_mut().enumerate() {
            count[((key >> (8 * byte)) & 0xff) as usize] += 1;
        }
    }
    let mut scratch = vec![T::default(); len];
    let (mut from, mut to): (&mut [T], &mut [T]) = (items, &mut scratch);
    let mut in_scratch = false;
    for (byte, count) in counts.iter().enumerate() {
        // A byte every key shares leaves the order as it is.
        if count.contains(&len) {
            continue;
        }
        let mut next = [0usize; 256];
        let mut sum = 0;
        for (slot, &n) in next.iter_mut().zip(count) {
            *slot = sum;
            sum += n;
        }
        for &item in from.iter() {
            let digit = ((key(item) >> (8 * byte)) & 0xff) as usize;
            to[next[digit]] = item;
            next[digit] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        // `from` is the scratch buffer, `to` the caller's slice.
        to.copy_from_slice(from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn total_order_keys_order_as_total_cmp() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        for pair in values.windows(2) {
            assert_eq!(pair[0].total_cmp(&pair[1]), std::cmp::Ordering::Less);
            assert!(
                total_order_key(pair[0]) < total_order_key(pair[1]),
                "{pair:?}"
            );
        }
        // -NaN sorts before everything.
        assert!(total_order_key(-f64::NAN) < total_order_key(f64::NEG_INFINITY));
    }

    #[test]
    fn long_lists_sort_as_the_standard_sort() {
        // Beyond SMALL, with shared high bytes (times a few days apart) and
        // bytes that differ, negative values, zeros of both signs and
        // duplicates.
        let times: Vec<i64> = (0..5_000i64)
            .map(|i| 1_700_000_000 + (i * 7_919) % 400_000 - 1_000 * (i % 3))
            .collect();
        let mut sorted = times.clone();
        sort_i64(&mut sorted);
        let mut expected = times.clone();
        expected.sort_unstable();
        assert_eq!(sorted, expected);

        let floats: Vec<f64> = times
            .iter()
            .map(|&t| match t % 5 {
                0 => -((t % 1000) as f64) / 7.0,
                1 => 0.0,
                2 => -0.0,
                _ => (t % 977) as f64 * 1.5,
            })
            .collect();
        let mut sorted = floats.clone();
        sort_f64(&mut sorted);
        let mut expected = floats;
        expected.sort_unstable_by(f64::total_cmp);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&sorted), bits(&expected));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn sorts_i64_as_sort_unstable(mut values in prop::collection::vec(any::<i64>(), 0..2_000)) {
            let mut expected = values.clone();
            expected.sort_unstable();
            sort_i64(&mut values);
            prop_assert_eq!(values, expected);
        }

        #[test]
        fn sorts_f64_as_total_cmp(raw in prop::collection::vec(any::<u64>(), 0..2_000)) {
            // Any bit pattern: NaNs of both signs, infinities, subnormals.
            let mut values: Vec<f64> = raw.iter().map(|&bits| f64::from_bits(bits)).collect();
            let mut expected = values.clone();
            expected.sort_unstable_by(f64::total_cmp);
            sort_f64(&mut values);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&values), bits(&expected));
        }
    }
}

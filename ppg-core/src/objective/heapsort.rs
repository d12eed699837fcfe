//! A heapsort for the objectives that sort on the device: a few hundred bytes of code.

/// Sorts finite values descending by heapsort: a few hundred bytes of code, where core's
/// `sort_unstable_by` brings sorting networks of about 11 KB into a Cortex-M4 image (the
/// C firmware image measured 175,012 B with it).
pub(super) fn sort_descending(v: &mut [f64]) {
    sort_descending_by(v, |&x| x);
}

/// Sorts `v` by `key` descending (finite keys), by the same heapsort; equal keys in no
/// particular order.
pub(super) fn sort_descending_by<T>(v: &mut [T], key: impl Fn(&T) -> f64) {
    // A min-heap: moving its least element to the end, again and again, leaves the slice
    // descending.
    let sift = |v: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && key(&v[child + 1]) < key(&v[child]) {
            child += 1;
        }
        if key(&v[child]) >= key(&v[root]) {
            return;
        }
        v.swap(root, child);
        root = child;
    };
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift(v, root, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heapsort_sorts_descending() {
        let mut rng = crate::Rng::new(5);
        for n in 0..40 {
            let mut v: [f64; 40] = core::array::from_fn(|_| (rng.unit_f64() * 5.0).floor());
            let v = &mut v[..n];
            let mut want = [0.0; 40];
            want[..n].copy_from_slice(v);
            want[..n].sort_unstable_by(|a, b| b.total_cmp(a));
            sort_descending(v);
            assert_eq!(v, &want[..n]);
        }
    }
}

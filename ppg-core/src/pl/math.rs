//! Plackett-Luce arithmetic on one session block: validation, Gumbel-max sampling,
//! log-probability and its gradient (the score).
//!
//! Everything works with running log-sums (`lse_k = log sum_{j >= k} exp(theta_{pi_j})`)
//! rather than plain sums after one max-shift: a suffix of items whose logits lie far below
//! the maximum would underflow a shifted sum to 0 and turn its log into `-inf`, whereas a
//! running log-sum stays finite for any finite logits.

use crate::{Error, Rng};

/// `log(exp(a) + exp(b))` without overflow; `b` may be `-inf` (an empty sum).
#[inline(always)]
fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + libm::log1p(libm::exp(lo - hi))
}

/// Checks that `ranking` is `sessions` blocks, each a permutation of `0..n`.
pub(crate) fn check_ranking(ranking: &[u16], n: usize, sessions: usize) -> Result<(), Error> {
    let total = n * sessions;
    if ranking.len() != total {
        return Err(Error::LengthMismatch {
            expected: total,
            found: ranking.len(),
        });
    }
    if let Some(&item) = ranking.iter().find(|&&item| usize::from(item) >= n) {
        return Err(Error::ItemOutOfRange {
            item: usize::from(item),
            items: n,
        });
    }
    // A block of length n with every id below n is a permutation exactly when no id repeats.
    if ranking.chunks_exact(n).all(distinct) {
        Ok(())
    } else {
        Err(Error::NotPermutation)
    }
}

/// Ids covered by one pass of [`distinct`]: 64 words of 64 bits, 512 bytes of stack.
const WINDOW_WORDS: usize = 64;
const WINDOW: usize = WINDOW_WORDS * 64;

/// Whether no id repeats in `block`, without memory from the caller: `log_prob` takes
/// `&self`, so it cannot borrow a scratch region. A 512-byte bit set on the stack covers
/// 4096 ids per pass, so lists up to 4096 items take one pass and the largest (65 535) 16,
/// while a small embedded stack is never asked for the 8 KiB a full set would take.
fn distinct(block: &[u16]) -> bool {
    let mut start = 0;
    while start < block.len() {
        let mut bits = [0u64; WINDOW_WORDS];
        for &item in block {
            let Some(offset) = usize::from(item).checked_sub(start) else {
                continue;
            };
            if offset >= WINDOW {
                continue;
            }
            let (word, bit) = (offset / 64, offset % 64);
            if bits[word] >> bit & 1 == 1 {
                return false;
            }
            bits[word] |= 1 << bit;
        }
        start += WINDOW;
    }
    true
}

/// Draws one block by Gumbel-max: item `i` gets the key `theta_i + g_i` with
/// `g_i = -ln(-ln u_i)`, and the block lists the items by key, largest first. Sorting
/// perturbed logits is an exact Plackett-Luce draw (Gumbel 1954; Maddison et al. 2014).
///
/// One uniform is drawn per item, in item order, so a seed fixes the result. Ties (which
/// have probability zero, but floating point can make them) go to the lower id, so the
/// comparison is a total order and the unstable sort's output is unique.
pub(crate) fn gumbel_block(theta: &[f32], keys: &mut [f64], out: &mut [u16], rng: &mut Rng) {
    for (key, &t) in keys.iter_mut().zip(theta) {
        // `u` in (0, 1) keeps both logs finite; should `u` round to exactly 1 the key is
        // `+inf`, which still sorts (first) and never becomes NaN.
        let u = rng.open_unit_f64();
        *key = f64::from(t) - libm::log(-libm::log(u));
    }
    for (slot, id) in out.iter_mut().zip(0u16..) {
        *slot = id;
    }
    out.sort_unstable_by(|&a, &b| {
        keys[usize::from(b)]
            .total_cmp(&keys[usize::from(a)])
            .then(a.cmp(&b))
    });
}

/// `log P(block) = sum_k [theta_{pi_k} - lse_k]` for one validated block.
pub(crate) fn block_log_prob(theta: &[f32], block: &[u16]) -> f64 {
    let mut lse = f64::NEG_INFINITY;
    let mut sum = 0.0;
    // From the back, so that each suffix log-sum extends the previous one.
    for &item in block.iter().rev() {
        let t = f64::from(theta[usize::from(item)]);
        lse = log_add_exp(t, lse);
        sum += t - lse;
    }
    sum
}

/// Calls `each(item, d log P(block) / d theta_item)` for every item of one validated block.
///
/// The derivative is `1 - sum_{k <= p} exp(theta_i - lse_k)` for the item at position `p`.
/// Written as `exp(theta_i - lse_p) * R_p` with `R_p = sum_{k <= p} exp(lse_p - lse_k)`,
/// every exponent is `<= 0` (suffix sums shrink with `k`), `R_p <= p + 1`, and
/// `R_p = R_{p-1} exp(lse_p - lse_{p-1}) + 1` gives the whole block in `O(n)`.
pub(crate) fn block_score(
    theta: &[f32],
    block: &[u16],
    lse: &mut [f64],
    mut each: impl FnMut(usize, f64),
) {
    let mut acc = f64::NEG_INFINITY;
    for (slot, &item) in lse.iter_mut().zip(block).rev() {
        acc = log_add_exp(f64::from(theta[usize::from(item)]), acc);
        *slot = acc;
    }
    let mut r = 0.0;
    let mut previous = 0.0;
    for (p, (&item, &l)) in block.iter().zip(lse.iter()).enumerate() {
        r = if p == 0 {
            1.0
        } else {
            r * libm::exp(l - previous) + 1.0
        };
        previous = l;
        let i = usize::from(item);
        each(i, 1.0 - libm::exp(f64::from(theta[i]) - l) * r);
    }
}

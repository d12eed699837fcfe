//! The starting ranking of a query: its rows by score, descending, ties the later row
//! first (the protocol's), or the rows' own order for a query that comes ranked.

use crate::Error;

/// Writes into `order` the protocol's starting ranking of `score`: descending; ties: the
/// later row first (a stable ascending sort, reversed). `order[k]` is the row at position
/// `k`.
///
/// # Errors
/// [`Error::LengthMismatch`] unless `order` is as long as `score`, [`Error::Capacity`]
/// beyond [`crate::MAX_ITEMS`] rows.
pub fn ranking_by(score: &[f64], order: &mut [u16]) -> Result<(), Error> {
    let n = score.len();
    if order.len() != n {
        return Err(Error::LengthMismatch {
            expected: n,
            found: order.len(),
        });
    }
    if n > crate::MAX_ITEMS {
        return Err(Error::Capacity {
            requested: n,
            capacity: crate::MAX_ITEMS,
        });
    }
    if n <= SMALL_LIST {
        small_ranking_by(score, order);
        return Ok(());
    }
    for (i, slot) in order.iter_mut().enumerate() {
        *slot = i as u16;
    }
    // Score descending, then row descending: a total order, so the unstable sort (the only
    // one without an allocator) gives what the stable ascending sort, reversed, gives.
    order.sort_unstable_by(|&a, &b| {
        score[usize::from(b)]
            .total_cmp(&score[usize::from(a)])
            .then(b.cmp(&a))
    });
    Ok(())
}

/// Lists up to this length are ranked by [`small_ranking_by`].
const SMALL_LIST: usize = 32;

/// [`ranking_by`] of a list of at most [`SMALL_LIST`] rows (`order` as long as `score`):
/// an insertion sort of the scores' `total_cmp` keys as integers, on the stack. The order
/// is the same total one, so the ranking is the same; on a list of 20 it takes half the
/// instructions of the general sort, whose every comparison looks both scores up and
/// converts them (docs/performance.md, "round 5").
fn small_ranking_by(score: &[f64], order: &mut [u16]) {
    let mut keys = [0u64; SMALL_LIST];
    for (i, &s) in score.iter().enumerate() {
        // `f64::total_cmp`'s key, with the sign bit flipped to compare unsigned.
        let bits = s.to_bits() as i64;
        let total = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
        let key = (total as u64) ^ (1 << 63);
        // Row i goes after every row before it of a larger key, or of an equal one (ties:
        // the later row first).
        let mut j = i;
        while j > 0 && keys[j - 1] <= key {
            keys[j] = keys[j - 1];
            order[j] = order[j - 1];
            j -= 1;
        }
        keys[j] = key;
        // i < n <= SMALL_LIST.
        order[j] = i as u16;
    }
}

/// The starting ranking into `order`: by `score` ([`ranking_by`]), or without one the rows'
/// own order (a query already in its starting ranking, [`super::Ranked`]).
pub(super) fn starting_order(score: Option<&[f64]>, order: &mut [u16]) -> Result<(), Error> {
    match score {
        Some(score) => ranking_by(score, order),
        None if order.len() > crate::MAX_ITEMS => Err(Error::Capacity {
            requested: order.len(),
            capacity: crate::MAX_ITEMS,
        }),
        None => {
            for (k, slot) in order.iter_mut().enumerate() {
                // k < MAX_ITEMS = u16::MAX.
                *slot = k as u16;
            }
            Ok(())
        }
    }
}

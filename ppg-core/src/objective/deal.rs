//! `S` rankings from a count matrix of more than two groups: the witnesses of
//! [`DtrGroups`](super::DtrGroups)' and [`Eel`](super::Eel)'s optimum over more groups.
//!
//! # Why a matching per session
//!
//! Two groups deal their positions round-robin ([`bound::witness`](super::bound::witness)):
//! group 1 takes what group 0 leaves. With three groups a round-robin deal of each row
//! can give one session position `r` twice. But any non-negative integer matrix whose
//! columns sum to `S'` and whose row `G` sums to `S' n_G` is `S'` sessions' worth of
//! rankings (split row `G` among its `n_G` items, `S'` placements each: an `S'`-regular
//! bipartite multigraph, `S'` perfect matchings by König's theorem), and taking away one
//! session that gives each position one row and row `G` exactly `n_G` positions, within
//! the matrix, leaves such a matrix for `S' - 1`. So each session is a matching of
//! positions to rows (row `G` matched `n_G` times), found by augmenting paths; the rows
//! are at most [`ROWS`], so a path visits at most that many rows. Within a session the
//! row's items take its positions in the caller's key order, highest first.

use super::peel::{Matrix, LIST, ROWS};

/// Writes `sessions` rankings (blocks of `n` item ids) into `out` whose row of item `i`
/// (`row[i]`) holds position `r` in `matrix[row][r]` sessions; within a row, items by
/// `key`, highest first, ties by id. False (`out` unspecified) when the shapes disagree or
/// the matrix is not a count matrix of the rows over `sessions`.
pub(crate) fn deal(
    matrix: &Matrix,
    rows: usize,
    row: &[u8],
    key: &[f64],
    sessions: usize,
    out: &mut [u16],
) -> bool {
    let n = row.len();
    if n > LIST || rows > ROWS || key.len() != n || Some(out.len()) != n.checked_mul(sessions) {
        return false;
    }
    let mut need = [0usize; ROWS];
    for &g in row {
        match need.get_mut(usize::from(g)) {
            Some(slot) if usize::from(g) < rows => *slot += 1,
            _ => return false,
        }
    }
    let mut left = [[0u32; LIST]; ROWS];
    for g in 0..rows {
        left[g][..n].copy_from_slice(&matrix[g][..n]);
        let placed: u64 = left[g][..n].iter().map(|&c| u64::from(c)).sum();
        if placed != (need[g] * sessions) as u64 {
            return false;
        }
    }
    let column = |r: usize| -> u64 { left[..rows].iter().map(|row| u64::from(row[r])).sum() };
    if (0..n).any(|r| column(r) != sessions as u64) {
        return false;
    }
    // Each row's items, by key then id.
    let mut order = [0u16; LIST];
    for (i, slot) in order.iter_mut().enumerate().take(n) {
        *slot = i as u16;
    }
    order[..n].sort_unstable_by(|&a, &b| {
        let (a, b) = (usize::from(a), usize::from(b));
        row[a]
            .cmp(&row[b])
            .then(key[b].total_cmp(&key[a]))
            .then(a.cmp(&b))
    });
    let mut first = [0usize; ROWS];
    for g in 1..rows {
        first[g] = first[g - 1] + need[g - 1];
    }
    for block in out.chunks_exact_mut(n) {
        let mut owner = [u8::MAX; LIST];
        let mut load = [0usize; ROWS];
        for r in 0..n {
            if !augment(&left, rows, &need, r, &mut owner, &mut load) {
                return false;
            }
        }
        let mut next = first;
        for (r, slot) in block.iter_mut().enumerate() {
            let g = usize::from(owner[r]);
            left[g][r] -= 1;
            *slot = order[next[g]];
            next[g] += 1;
        }
    }
    true
}

/// Matches position `r` to a row with a placement left there: directly where such a row
/// has room in this session, else along a path of rows, each giving one of its positions
/// to the next (breadth first over the rows). False when there is no such path, which a
/// count matrix never leaves.
fn augment(
    left: &[[u32; LIST]; ROWS],
    rows: usize,
    need: &[usize; ROWS],
    r: usize,
    owner: &mut [u8; LIST],
    load: &mut [usize; ROWS],
) -> bool {
    // `via[g]`: how row g was reached: the position it would take (from its owner, or `r`).
    let mut via = [usize::MAX; ROWS];
    let mut queue = [0usize; ROWS];
    let (mut head, mut tail) = (0, 0);
    for g in 0..rows {
        if left[g][r] > 0 {
            via[g] = r;
            queue[tail] = g;
            tail += 1;
        }
    }
    while head < tail {
        let g = queue[head];
        head += 1;
        if load[g] < need[g] {
            // Shift along the path back to `r`.
            let mut at = g;
            load[g] += 1;
            loop {
                let p = via[at];
                let before = owner[p];
                owner[p] = at as u8;
                if p == r {
                    return true;
                }
                at = usize::from(before);
            }
        }
        // Row g is full: one of its positions may move to another row.
        for (q, &o) in owner.iter().enumerate().take(r) {
            if usize::from(o) != g {
                continue;
            }
            for h in 0..rows {
                if via[h] == usize::MAX && left[h][q] > 0 {
                    via[h] = q;
                    queue[tail] = h;
                    tail += 1;
                }
            }
        }
    }
    false
}

//! Issue 36 point 1 at several sessions (and at one under the intra-group constraint):
//! among the rankings as fair as the found ones, a more relevant set of rankings.
//!
//! The two-group DTR and EEL see a multi-session ranking only through group 0's exposure
//! summed over the sessions, so the fair set is a window `[lo, hi]` of that sum
//! ([`relevance::window`](super::relevance)). The most relevant tuple of per-session
//! patterns maximises the sum of their DCGs with the sum of their exposures in the window:
//! a knapsack over the sessions. Its Lagrangian relaxation ([`Lists::hull`]) names the two
//! patterns of the convex hull either side of the breakpoint; every mix of `m` sessions of
//! one and `S - m` of the other whose sum lands in the window is fair, and the best such
//! mix is within one session's share of the hull bound. Where the order within groups is
//! free, one session is then finished by the walk over the patterns that fit what the
//! others leave of the window ([`Lists::single`]), which fills that last share exactly.
//! Last, trades between pairs of sessions raise the DCG at the same total
//! ([`polish`](super::polish)).
//! The answer is a candidate: the caller scores it with its own cost and takes it only
//! when it costs at most the level and is more relevant than what it has.

use super::polish::{deal, polish};
use super::relevance::{window, NDCG_CUTOFF, WALK_BUDGET};
use super::{Cost, CostSpec, Tables};
use crate::objective::relevance::Lists;
use crate::objective::Ndcg;

/// What [`most_relevant_many`] is given: the query in starting order, the cost and level.
pub(crate) struct Ask<'q> {
    pub spec: &'q CostSpec,
    pub cost: &'q Cost<'q>,
    pub tables: &'q Tables<'q>,
    pub utility: &'q [f64],
    pub group: &'q [u8],
    pub level: f64,
    pub sessions: usize,
    /// Each group's items keep their starting order.
    pub intra: bool,
}

/// The `f64` values of [`most_relevant_many`]'s `work` for `n` items.
pub(crate) const fn work_len(n: usize) -> usize {
    // gains, prefix, the DP's two rows, the sorted ids; then bytes: the DP's choices,
    // three patterns and the walk's two.
    let bytes = n * (n + 1) + 5 * n;
    4 * n + 3 + n.div_ceil(4) + bytes.div_ceil(8)
}

/// Writes into `candidate` (`n * sessions` ids, starting order) a multi-session ranking
/// of the window's best mix (module docs) and says whether its NDCG@10 of the utility
/// (the only relevance the recipe knows) is above that of `best`. `work`: [`work_len`].
pub(crate) fn most_relevant_many(
    ask: &Ask<'_>,
    best: &[u16],
    work: &mut [f64],
    candidate: &mut [u16],
) -> bool {
    let (n, sessions) = (ask.utility.len(), ask.sessions);
    let total = n * sessions;
    if work.len() < work_len(n)
        || candidate.len() < total
        || best.len() < total
        || ask.group.iter().any(|&g| g > 1)
    {
        return false;
    }
    let Some((lo, hi)) = window(
        ask.spec,
        Some(ask.cost),
        ask.utility,
        ask.group,
        ask.tables,
        sessions,
        ask.level,
    ) else {
        return false;
    };
    let Ok(ndcg) = Ndcg::new(ask.utility, NDCG_CUTOFF, ask.tables.discount) else {
        return false;
    };
    // Nothing is more relevant than the ideal ranking.
    let old = ndcg.value(&best[..total], sessions);
    if old >= 1.0 - 1e-12 {
        return false;
    }
    let (gains, rest) = work.split_at_mut(n);
    let (prefix, rest) = rest.split_at_mut(n + 1);
    let (row, rest) = rest.split_at_mut(2 * (n + 1));
    let (sorted, rest) = rest.split_at_mut(n.div_ceil(4));
    let sorted = &mut bytemuck::must_cast_slice_mut::<f64, u16>(sorted)[..n];
    let bytes = bytemuck::must_cast_slice_mut::<f64, u8>(rest);
    let (choice, bytes) = bytes.split_at_mut(n * (n + 1));
    let (near, bytes) = bytes.split_at_mut(n);
    let (far, bytes) = bytes.split_at_mut(n);
    let last = &mut bytes[..3 * n];
    // Each group's items in the order they take its positions: by utility, descending
    // (ties: starting order), or the starting order where it is kept.
    let mut at = 0;
    for g in 0..2u8 {
        let from = at;
        for (p, &x) in ask.group.iter().enumerate() {
            if x == g {
                sorted[at] = p as u16;
                at += 1;
            }
        }
        if !ask.intra {
            sorted[from..at].sort_unstable_by(|&a, &b| {
                ask.utility[usize::from(b)]
                    .total_cmp(&ask.utility[usize::from(a)])
                    .then(a.cmp(&b))
            });
        }
    }
    for (gain, &item) in gains.iter_mut().zip(sorted.iter()) {
        *gain = ndcg.gain(ask.utility[usize::from(item)]);
    }
    let k0 = ask.group.iter().filter(|&&g| g == 0).count();
    let (gain0, gain1) = gains.split_at(k0);
    let lists = Lists {
        gain: [gain0, gain1],
        discount: &ask.tables.discount[..NDCG_CUTOFF.min(n).min(ask.tables.discount.len())],
        exposure: &ask.tables.exposure[..n],
    };
    let Some(hull) = lists.hull(sessions, (lo, hi), row, choice, near, far) else {
        return false;
    };
    let fits = |x: f64| (lo..=hi).contains(&x);
    // The pure mixes: `m` sessions of `near`, the rest of `far`.
    let mix = |m: usize, of: usize| m as f64 * hull.near.e0 + (of - m) as f64 * hull.far.e0;
    let value = |m: usize, of: usize| m as f64 * hull.near.dcg + (of - m) as f64 * hull.far.dcg;
    let mut plan: Option<(usize, f64)> = None;
    for m in 0..=sessions {
        if fits(mix(m, sessions)) && plan.is_none_or(|(_, v)| value(m, sessions) > v) {
            plan = Some((m, value(m, sessions)));
        }
    }
    // With the order free, one session finished by the walk in what the others leave,
    // where that lies between the two patterns' exposures.
    let mut walked: Option<(usize, f64)> = None;
    let (last, path) = last.split_at_mut(n);
    let (low, high) = if hull.near.e0 < hull.far.e0 {
        (hull.near.e0, hull.far.e0)
    } else {
        (hull.far.e0, hull.near.e0)
    };
    if !ask.intra {
        for m in 0..sessions {
            let rest = mix(m, sessions - 1);
            // Only where the last share lies between the two patterns.
            if hi - rest < low || lo - rest > high {
                continue;
            }
            let floor = walked.or(plan).map_or(f64::NEG_INFINITY, |w| w.1) - value(m, sessions - 1);
            let Some((found, _)) = lists.single(
                lo - rest,
                hi - rest,
                floor,
                WALK_BUDGET,
                prefix,
                Some(&mut path[..2 * n]),
            ) else {
                break;
            };
            if found > floor {
                last.copy_from_slice(&path[..n]);
                walked = Some((m, found + value(m, sessions - 1)));
            }
        }
    }
    // Deal the sessions: `m` of `near`, the rest of `far`, the last walked where that won.
    let (m, end) = match (plan, walked) {
        (_, Some((m, _))) => (m, sessions - 1),
        (Some((m, _)), None) => (m, sessions),
        (None, None) => (0, 0),
    };
    let mixed = end > 0 && {
        for s in 0..sessions {
            let pattern: &[u8] = if s < m {
                near
            } else if s < end {
                far
            } else {
                last
            };
            deal(pattern, sorted, k0, &mut candidate[s * n..(s + 1) * n]);
        }
        ndcg.value(&candidate[..total], sessions) > old
    };
    if !mixed {
        candidate[..total].copy_from_slice(&best[..total]);
    }
    polish(&lists, ask.group, sorted, candidate, sessions, near, far);
    ndcg.value(&candidate[..total], sessions) > old + 1e-12
}

//! Issue 36 at two sessions or more, with the order within groups free: the most relevant
//! count vector of the fair window, searched on the count-vector tree of the fairness
//! bound (`objective/bound.rs`), and an upper bound on the NDCG of every fair ranking.
//!
//! # Why a count vector has one best relevance
//!
//! The two-group DTR and EEL see `S` rankings only through the count vector `c` (`c_r`
//! sessions in which group 0 holds position `r`; `bound.rs`). Among the rankings with a
//! given `c`, the most relevant is the round-robin deal of `bound::witness`, each group's
//! items by gain: list group 0's positions `c_r` times each in order and give copy `t` to
//! session `t mod S` as its item `t div S`, and group 1 the same with `S - c_r`. Proof: a
//! group's DCG is `sum_i g_i D(i)`, `D(i)` the discounts summed over the sessions of the
//! positions of their items `i`; by Abel summation with `g` non-increasing it is largest
//! when every partial sum `D(0) + ... + D(i)` is, and that sum is at most the discounts of
//! the `S (i + 1)` earliest copies of the group's positions, which the round-robin deal
//! reaches for every `i` at once, for both groups (group 0's counts before any position
//! then differ by at most one between sessions, so group 1's do too, and no session takes
//! its item `i + 1` before another takes its item `i`). So the DCG of `c` is
//! `sum_{r < K} d_r (W_0(P_r + c_r) - W_0(P_r) + W_1(Q_r + S - c_r) - W_1(Q_r))`, with
//! `P_r`, `Q_r` the copies of each group before `r` and `W_g(t)` the gains of group `g`'s
//! first `t` copies (item `u div S` for copy `u`): it depends on the positions one at a
//! time, as the fairness total `x = sum_r c_r e_r` does.
//!
//! # The walk
//!
//! Depth first over positions from the top, as `bound.rs` walks: a branch is cut when the
//! totals its completions reach miss the window `[lo, hi]`, or when its DCG so far plus
//! the best DCG the positions left can add from its state `(r, P_r)` (a dynamic programme
//! over the cut-off's positions, ignoring the window, on the stack) is no more than the
//! best complete vector found. Children are tried best bound first within the cut-off,
//! and nearest the window's centre below it (where only the total matters). It is exact
//! when it walks every branch within its budget; otherwise the best vector found is a
//! fair one and the largest bound of the branches left open bounds what it missed.
//!
//! Under the intra-group constraint the gains are not non-increasing and the deal's
//! argument fails: the caller does not ask then. Limits (a property of the query alone,
//! so every door gets the same answer): [`MAX_ITEMS`] items, [`MAX_SESSIONS`] sessions and
//! [`TABLE`] states of the programme.
//!
//! A little over 400 lines: the walk, its programme and the argument that justifies them
//! are one algorithm; the table of the last positions' sums is `tail_sums.rs`.

use super::tail_sums::Sums;

/// Nodes of the count-vector walk (the recipe's rankings, `lex::most_relevant_tree`, and the certificate's) over
/// `sessions` sessions: a node weighs its `sessions + 1` children, so the walk's work per
/// query stays about flat in the session count (a node at 32 sessions costs ~15 times one at
/// 4). The work is a trade between relevance and issue 37's CPU: on 250 queries of
/// continuous scores, a flat 20,000 nodes made DTR at 4 sessions 6.5 times slower (NDCG@10
/// +0.0021) and EEL at 32 sessions 39 times (NDCG@10 +0); this budget keeps DTR at 4
/// sessions 2.5 times and EEL at 32 6 times main's before the walk (docs/performance.md).
pub(crate) fn budget(sessions: usize) -> u64 {
    const WORK: u64 = 20_000;
    WORK / (sessions as u64 + 1)
}

/// The longest list the walk takes (its counts and sums live on the stack).
pub(crate) const MAX_ITEMS: usize = 128;
/// The most sessions the walk takes (the children of a node live on the stack).
pub(crate) const MAX_SESSIONS: usize = 64;
/// The programme's states at most (16 KB on the stack): at the cut-off 10 and 32
/// sessions, 1,771.
const TABLE: usize = 2048;

/// What the walk searches: one query's two groups in the order their items take the
/// group's positions (gains non-increasing), the discounts of the cut-off's positions,
/// the exposures of all positions (non-increasing), the sessions and the fair window.
pub(crate) struct Ask<'a> {
    pub gain: [&'a [f64]; 2],
    pub discount: &'a [f64],
    pub exposure: &'a [f64],
    pub sessions: usize,
    pub window: (f64, f64),
    pub budget: u64,
    /// The DCG of a fair ranking the caller has (`-inf`: none): the walk looks only for
    /// more, which cuts most of the tree where that ranking is near the best.
    pub floor: f64,
}

/// The walk's answer, in DCG summed over the sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Found {
    /// The DCG of the best count vector found above the floor (`-inf` when none was).
    pub best: f64,
    /// No count vector in the window has more DCG (nor more than the floor).
    pub upper: f64,
    /// The walk ended: `best` is the most relevant in the window.
    pub exact: bool,
}

/// The most relevant count vector of `ask`'s window (module docs), written into `counts`
/// (`n` long) when given and one was found. `None` beyond the walk's limits or for input
/// it cannot search (an empty group, exposures not non-increasing).
pub(crate) fn most_relevant_counts(ask: &Ask<'_>, counts: Option<&mut [u32]>) -> Option<Found> {
    let (k0, k1) = (ask.gain[0].len(), ask.gain[1].len());
    let (n, s) = (k0 + k1, ask.sessions);
    let cut = ask.discount.len().min(n);
    if n > MAX_ITEMS || s == 0 || s > MAX_SESSIONS || k0 == 0 || k1 == 0 || ask.exposure.len() < n {
        return None;
    }
    let exposure = &ask.exposure[..n];
    if exposure.windows(2).any(|w| w[1] > w[0]) || exposure.iter().any(|e| !e.is_finite()) {
        return None;
    }
    let mut offset = [0usize; MAX_ITEMS + 2];
    for r in 0..=cut {
        offset[r + 1] = offset[r] + (s * r).min(s * k0) + 1;
    }
    if offset[cut + 1] > TABLE {
        return None;
    }
    let mut walk = Walk {
        exposure,
        discount: &ask.discount[..cut],
        gain: ask.gain,
        sessions: s,
        k0,
        window: ask.window,
        prefix: [0.0; MAX_ITEMS + 1],
        gains: [[0.0; MAX_ITEMS + 1]; 2],
        offset,
        table: [f64::NEG_INFINITY; TABLE],
        counts: [0; MAX_ITEMS],
        best_counts: [0; MAX_ITEMS],
        best: ask.floor,
        open: f64::NEG_INFINITY,
        found: false,
        nodes: 0,
        budget: ask.budget,
        stopped: false,
        sums: Sums::build(exposure, cut, s),
        best_tail: None,
    };
    walk.prepare();
    walk.visit(0, 0, 0.0, 0.0);
    if let (Some(sums), Some((m, y))) = (&walk.sums, walk.best_tail) {
        let from = sums.from;
        sums.counts_of(exposure, m, y, &mut walk.best_counts[from..n]);
    }
    if let Some(out) = counts {
        if walk.found && out.len() >= n {
            for (slot, &c) in out.iter_mut().zip(&walk.best_counts[..n]) {
                *slot = u32::from(c);
            }
        }
    }
    Some(Found {
        best: if walk.found {
            walk.best
        } else {
            f64::NEG_INFINITY
        },
        upper: if walk.stopped {
            walk.best.max(walk.open)
        } else {
            walk.best
        },
        exact: !walk.stopped,
    })
}

struct Walk<'a> {
    exposure: &'a [f64],
    discount: &'a [f64],
    gain: [&'a [f64]; 2],
    sessions: usize,
    k0: usize,
    window: (f64, f64),
    /// `prefix[r]`: the exposure of positions `0..r`.
    prefix: [f64; MAX_ITEMS + 1],
    /// `gains[g][i]`: group `g`'s first `i` gains summed.
    gains: [[f64; MAX_ITEMS + 1]; 2],
    /// Row `r` of the programme starts at `offset[r]`, one state per `P_r`.
    offset: [usize; MAX_ITEMS + 2],
    /// The best DCG positions `r..cut` add from `P_r` copies of group 0 (`-inf`: none).
    table: [f64; TABLE],
    counts: [u8; MAX_ITEMS],
    best_counts: [u8; MAX_ITEMS],
    /// The floor, then the best count vector's DCG.
    best: f64,
    /// A count vector above the floor was found.
    found: bool,
    /// The largest bound of a branch the budget left open.
    open: f64,
    nodes: u64,
    budget: u64,
    stopped: bool,
    /// The last positions' sums, when they fit ([`Sums`]).
    sums: Option<Sums>,
    /// The placements and sum the table gave the best vector's last positions.
    best_tail: Option<(usize, f64)>,
}

impl Walk<'_> {
    fn items(&self) -> usize {
        self.exposure.len()
    }

    /// The gains of group `g`'s first `t` copies (copy `u` is item `u div S`).
    fn copies(&self, g: usize, t: usize) -> f64 {
        let s = self.sessions;
        let (i, f) = (t / s, t % s);
        let whole = s as f64 * self.gains[g][i];
        if f > 0 {
            whole + f as f64 * self.gain[g][i]
        } else {
            whole
        }
    }

    /// The DCG position `r` adds when group 0 holds it in `c` sessions after `p` copies.
    fn here(&self, r: usize, p: usize, c: usize) -> f64 {
        let s = self.sessions;
        let q = s * r - p;
        let zero = self.copies(0, p + c) - self.copies(0, p);
        let one = self.copies(1, q + s - c) - self.copies(1, q);
        self.discount[r] * (zero + one)
    }

    /// Whether `c` copies of group 0 at `r` after `p` keep both groups within their items
    /// and leave the rest placeable.
    fn fits(&self, r: usize, p: usize, c: usize) -> bool {
        let (s, n, k0) = (self.sessions, self.items(), self.k0);
        let k1 = n - k0;
        let (p2, q2) = (p + c, s * (r + 1) - p - c);
        c <= s && p2 <= s * k0 && q2 <= s * k1
    }

    /// The programme's value at `(r, p)`: `-inf` where no completion exists.
    fn bound_at(&self, r: usize, p: usize) -> f64 {
        if r >= self.discount.len() {
            return 0.0;
        }
        let at = self.offset[r] + p;
        if at >= self.offset[r + 1] {
            f64::NEG_INFINITY
        } else {
            self.table[at]
        }
    }

    fn prepare(&mut self) {
        let n = self.items();
        for r in 0..n {
            self.prefix[r + 1] = self.prefix[r] + self.exposure[r];
        }
        for g in 0..2 {
            for (i, &x) in self.gain[g].iter().enumerate() {
                self.gains[g][i + 1] = self.gains[g][i] + x;
            }
        }
        let (s, cut, k0) = (self.sessions, self.discount.len(), self.k0);
        // Row `cut`: the rest below the cut-off adds no DCG, when it can be placed.
        for p in 0..self.offset[cut + 1] - self.offset[cut] {
            let left = s * k0 - p;
            let others = s * cut - p;
            if left <= s * (n - cut) && others <= s * (n - k0) {
                self.table[self.offset[cut] + p] = 0.0;
            }
        }
        for r in (0..cut).rev() {
            for p in 0..self.offset[r + 1] - self.offset[r] {
                let mut best = f64::NEG_INFINITY;
                if s * r >= p && s * r - p <= s * (n - k0) {
                    for c in 0..=s {
                        if !self.fits(r, p, c) {
                            continue;
                        }
                        let next = self.bound_at(r + 1, p + c);
                        if next > f64::NEG_INFINITY {
                            best = best.max(self.here(r, p, c) + next);
                        }
                    }
                }
                self.table[self.offset[r] + p] = best;
            }
        }
    }

    /// The least and largest exposure `m` placements add on positions `r..n`, each taken
    /// at most `S` times.
    fn range(&self, r: usize, m: usize) -> (f64, f64) {
        let (s, p, e, n) = (self.sessions, &self.prefix, self.exposure, self.items());
        let (full, part) = (m / s, (m % s) as f64);
        let sf = s as f64;
        let top = sf * (p[r + full] - p[r]) + if part > 0.0 { part * e[r + full] } else { 0.0 };
        let bottom = sf * (p[n] - p[n - full])
            + if part > 0.0 {
                part * e[n - full - 1]
            } else {
                0.0
            };
        (bottom, top)
    }

    /// Position `r`, `p` copies of group 0 placed so far, total `x`, DCG `dcg`.
    fn visit(&mut self, r: usize, p: usize, x: f64, dcg: f64) {
        if self.stopped {
            return;
        }
        let bound = dcg + self.bound_at(r, p);
        if bound <= self.best + 1e-12 * self.best.abs() {
            return;
        }
        let (s, n) = (self.sessions, self.items());
        let m = s * self.k0 - p;
        let (lo, hi) = self.range(r, m);
        if x + lo > self.window.1 || x + hi < self.window.0 {
            return;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.stopped = true;
            self.open = self.open.max(bound);
            return;
        }
        if r == n {
            self.best = dcg;
            self.found = true;
            self.best_tail = None;
            self.best_counts[..n].copy_from_slice(&self.counts[..n]);
            return;
        }
        if let Some(y) = self
            .sums
            .as_ref()
            .filter(|t| t.from == r)
            .and_then(|t| t.within(m, self.window.0 - x, self.window.1 - x))
        {
            self.best = dcg;
            self.found = true;
            self.best_tail = Some((m, y));
            self.best_counts[..r].copy_from_slice(&self.counts[..r]);
            return;
        }
        if self.sums.as_ref().is_some_and(|t| t.from == r) {
            return;
        }
        let first = m.saturating_sub(s * (n - r - 1));
        let last = s.min(m);
        if r < self.discount.len() {
            self.children_by_bound(r, p, x, dcg, first, last);
        } else {
            self.children_by_centre(r, p, x, dcg, first, last);
        }
    }

    /// Within the cut-off: the children, highest bound first.
    fn children_by_bound(
        &mut self,
        r: usize,
        p: usize,
        x: f64,
        dcg: f64,
        first: usize,
        last: usize,
    ) {
        // The children whose totals can still meet the window (most cannot, deep in the
        // tree), with their bounds; then taken highest bound first.
        let m = self.sessions * self.k0 - p;
        let mut kids = [(0u8, f64::NEG_INFINITY, 0.0); MAX_SESSIONS + 1];
        let mut len = 0;
        for c in first..=last {
            if !self.fits(r, p, c) {
                continue;
            }
            let (lo, hi) = self.range(r + 1, m - c);
            let here = x + c as f64 * self.exposure[r];
            if here + lo > self.window.1 || here + hi < self.window.0 {
                continue;
            }
            let adds = self.here(r, p, c);
            let b = dcg + adds + self.bound_at(r + 1, p + c);
            if b > self.best + 1e-12 * self.best.abs() {
                kids[len] = (c as u8, b, adds);
                len += 1;
            }
        }
        let kids = &mut kids[..len];
        kids.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for &(c, b, adds) in kids.iter() {
            if b <= self.best + 1e-12 * self.best.abs() {
                break;
            }
            if self.stopped {
                // The branches left open: the largest is this one.
                self.open = self.open.max(b);
                break;
            }
            let c = usize::from(c);
            self.counts[r] = c as u8;
            let next = x + c as f64 * self.exposure[r];
            self.visit(r + 1, p + c, next, dcg + adds);
        }
    }

    /// Below the cut-off only the total matters: the children nearest the window's
    /// centre first, outwards (their totals move right as `c` grows).
    fn children_by_centre(
        &mut self,
        r: usize,
        p: usize,
        x: f64,
        dcg: f64,
        first: usize,
        last: usize,
    ) {
        let centre = 0.5 * (self.window.0 + self.window.1);
        let s = self.sessions;
        let m = s * self.k0 - p;
        let mid = |w: &Self, c: usize| {
            let (lo, hi) = w.range(r + 1, m - c);
            x + c as f64 * w.exposure[r] + 0.5 * (lo + hi)
        };
        let mut up = first;
        while up < last && mid(self, up) < centre {
            up += 1;
        }
        let (mut down, mut upper) = (up.checked_sub(1).filter(|&d| d >= first), Some(up));
        while let Some(c) = match (upper, down) {
            (Some(u), Some(d)) => {
                if (mid(self, u) - centre).abs() <= (centre - mid(self, d)).abs() {
                    upper = (u < last).then_some(u + 1);
                    Some(u)
                } else {
                    down = d.checked_sub(1).filter(|&e| e >= first);
                    Some(d)
                }
            }
            (Some(u), None) => {
                upper = (u < last).then_some(u + 1);
                Some(u)
            }
            (None, Some(d)) => {
                down = d.checked_sub(1).filter(|&e| e >= first);
                Some(d)
            }
            (None, None) => None,
        } {
            if self.stopped {
                self.open = self.open.max(dcg);
                break;
            }
            if dcg <= self.best + 1e-12 * self.best.abs() {
                break;
            }
            self.counts[r] = c as u8;
            self.visit(r + 1, p + c, x + c as f64 * self.exposure[r], dcg);
        }
    }
}

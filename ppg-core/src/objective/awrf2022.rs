//! AWRF as TREC Fair Ranking 2022 scored it (task 1; `fair-trec/trec2022-fair-public`,
//! `wptrec/metrics/awrf.py` and `wptrec/dimension.py`): several attributes at once, items
//! aligned softly with their levels, unknown values as a level of their own. The TREC 2021
//! metric (one hard group per item) is [`super::Awrf`]; the two are kept apart by name.
//!
//! - Each item has, per attribute, a distribution over the attribute's levels
//!   ([`Attributes`], after the [`Unknown`] policy); its joint alignment is the outer
//!   product of those vectors.
//! - The ranking's alignment is the attention-weighted sum of its items' joint alignments
//!   (attention `1 / log2(max(r, 2))`, [`super::Awrf::discount`]), normalised; an item of
//!   no mass (no alignment) is dropped with its attention, as `qr_awrf` drops unknown pages.
//! - AWRF `= 1 - JS(ranking, target)`, scipy's `jensenshannon` squared (natural log; both
//!   sides normalised first); the score is AWRF x NDCG (binary relevance, the same
//!   attention, the ideal over `min(n, relevant)` positions).
//!
//! The joint space is never laid out (TREC 2022's eight attributes make 11,176,704 cells).
//! Each item is a rank-1 tensor, so the ranking's alignment is zero outside the union of
//! its items' supports: the cells where every attribute's level is one the item's row
//! holds. The Jensen-Shannon sum `0.5 sum_c [p ln(2p/(p+q)) + q ln(2q/(p+q))]` has, on a
//! cell with `p = 0`, the term `0.5 q ln 2`; so the divergence is the sum over the
//! reachable cells plus `0.5 ln 2` times the target's mass off them, which is the target's
//! whole mass (known in closed form) minus its mass on them. Only the reachable cells are
//! enumerated: `sum_i prod_k |row_ik|` contributions (one per item for hard attributes),
//! at most [`MAX_CONTRIBUTIONS`]; the target is evaluated once per reachable cell when the
//! metric is built. A cost then touches the cells by kind ([`Awrf2022`]): most are off
//! the target or reached by one item, and cost no logarithm once an (item, position)
//! has been seen, so that an evaluation is `O(n)` plus the cells several items share.
//!
//! Checked against a plain implementation that lays the joint space out
//! (`ppg-core/tests/awrf2022.rs`, to 1e-12). The file is about 590 lines: the metric, the
//! enumeration and sorting of its cells and the checks of its inputs are read together.

use super::awrf2022_target::{trec_at, trec_mass};
pub use super::awrf2022_target::{unknown_row, Attributes, Target2022, Unknown};
use super::exposure::{check_finite, check_items, checked_prefix, shape_ok};
use super::{AwrfCost, AwrfReport, Objective};
use crate::Error;
use core::f64::consts::LN_2;

/// The most contributions (item, reachable cell) a query may have: each is a few bytes of
/// the caller's scratch, and a list that reaches more cells asks for soft rows over too
/// many attributes at once (or [`Unknown::Uniform`] over large ones).
pub const MAX_CONTRIBUTIONS: usize = 1 << 22;

/// The most attributes a list may have.
pub const MAX_ATTRIBUTES: usize = 64;

/// The most items whose per-(item, position) terms [`Awrf2022`] keeps
/// ([`Work2022::memo`]): `n * n` values, 8 MiB at this size.
pub const MAX_MEMO_ITEMS: usize = 1024;

/// The scratch [`Awrf2022::new`] borrows, sized by [`Awrf2022::contributions`] (`c`) for
/// `n` items and `K` attributes.
#[derive(Debug)]
pub struct Work2022<'w> {
    /// `c * K`: each contribution's cell, a level per attribute.
    pub key: &'w mut [u16],
    /// `c`: the contributions in the order of their cells (then each one's cell id, then
    /// each kept one's shared cell).
    pub cell: &'w mut [u32],
    /// `c`: each contribution's value (the product of the item's weights).
    pub value: &'w mut [f64],
    /// `2 n + 2`: where each item's contributions start (then its private ones), then
    /// where its shared ones do.
    pub item: &'w mut [u32],
    /// `6 c + 3 n`: the cells' target and reach while the metric is built (then the
    /// shared cells' mass); each private contribution's value, its log and its cell's
    /// target; the shared cells' target; per item its mass off the target and its whole
    /// mass; per position the log of its attention.
    pub cells: &'w mut [f64],
    /// `n * n` (up to [`MAX_MEMO_ITEMS`] items) or empty: each item's divergence terms
    /// at each position, kept once computed (where every item has the same mass).
    pub memo: &'w mut [f64],
}

impl Work2022<'_> {
    /// The lengths of [`Work2022`]'s `key`, `cell`, `value`, `item`, `cells` and `memo`
    /// for `c` contributions, `n` items and `k` attributes.
    pub fn lengths(c: usize, n: usize, k: usize) -> [usize; 6] {
        let memo = if n <= MAX_MEMO_ITEMS { n * n } else { 0 };
        [c * k, c, c, 2 * n + 2, 6 * c + 3 * n, memo]
    }
}

/// TREC 2022's AWRF (x NDCG) of a list whose items carry soft attribute rows.
///
/// A ranking's divergence is summed by kind of cell (see `Awrf2022::build`): cells the
/// target gives nothing add `p ln 2`, linear in the ranking's mass, so each item adds its
/// mass there times its attention; a cell one item alone reaches adds a term of that
/// item's position alone, kept per (item, position) once computed when the ranking's
/// whole mass does not depend on the order; only the cells several items reach are
/// summed afresh. A ranking's cost is the same whichever rankings came before it.
#[derive(Debug)]
pub struct Awrf2022<'a> {
    utility: &'a [f64],
    discount: &'a [f64],
    work: Work2022<'a>,
    cells: usize,
    /// The contributions (item, reachable cell).
    contributions: usize,
    /// The cells several items reach where the target has mass.
    shared: usize,
    /// The ranking's whole mass where every item's is the same (within rounding):
    /// the memo is then used.
    mass: Option<f64>,
    /// The target's normalised mass off the reachable cells.
    rest: f64,
    /// The normalised target's `sum q ln q` over the reachable cells.
    qlogq: f64,
    ideal: f64,
    cost: AwrfCost,
}

impl<'a> Awrf2022<'a> {
    /// The contributions a list of `items` items with `attrs` makes: the scratch
    /// [`Work2022`] needs.
    ///
    /// # Errors
    /// [`Error::Capacity`] beyond [`MAX_CONTRIBUTIONS`]; `attrs`' refusals
    /// ([`Attributes::check`]).
    pub fn contributions(attrs: &Attributes, items: usize) -> Result<usize, Error> {
        attrs.check(items)?;
        if attrs.attributes() > MAX_ATTRIBUTES {
            return Err(Error::Capacity {
                requested: attrs.attributes(),
                capacity: MAX_ATTRIBUTES,
            });
        }
        let mut total = 0usize;
        for i in 0..items {
            let mut cells = 1usize;
            for k in 0..attrs.attributes() {
                cells = cells.saturating_mul(attrs.row(i, k).0.len());
            }
            total = total.saturating_add(cells);
        }
        if total > MAX_CONTRIBUTIONS {
            return Err(Error::Capacity {
                requested: total,
                capacity: MAX_CONTRIBUTIONS,
            });
        }
        Ok(total)
    }

    /// The metric over the list whose item `i` has `utility[i]` (relevant when > 0) and
    /// rows `attrs`, against `target`, with `discount[r]` the attention of position `r`.
    ///
    /// # Errors
    /// As [`Awrf2022::contributions`]; [`Error::LengthMismatch`] for `work` (shorter than
    /// [`Work2022::lengths`]; `memo` may be empty), `utility`, `discount` or a target
    /// range of the wrong length; [`Error::InvalidConfig`] for no relevant item, no item
    /// with alignment, a target of no mass or a negative value; [`Error::NotFinite`] for
    /// NaN.
    pub fn new(
        utility: &'a [f64],
        attrs: &Attributes,
        target: Target2022,
        discount: &'a [f64],
        work: Work2022<'a>,
        cost: AwrfCost,
    ) -> Result<Self, Error> {
        let n = utility.len();
        check_items(n)?;
        check_finite(utility)?;
        let discount = checked_prefix(discount, n)?;
        let c = Self::contributions(attrs, n)?;
        let k = attrs.attributes();
        let (start, values) = target.parts();
        check_target(attrs, &target, start, values)?;
        let need = Work2022::lengths(c, n, k);
        let found = [
            work.key.len(),
            work.cell.len(),
            work.value.len(),
            work.item.len(),
            work.cells.len(),
        ];
        if let Some((&found, &expected)) = found.iter().zip(&need).find(|(f, e)| f < e) {
            return Err(Error::LengthMismatch { expected, found });
        }
        let relevant = utility.iter().filter(|&&y| y > 0.0).count();
        if relevant == 0 {
            return Err(Error::InvalidConfig(
                "AWRF 2022 needs an item with utility > 0",
            ));
        }
        let mut me = Awrf2022 {
            utility,
            discount,
            work,
            cells: 0,
            contributions: c,
            shared: 0,
            mass: None,
            rest: 0.0,
            qlogq: 0.0,
            ideal: discount[..relevant].iter().sum(),
            cost,
        };
        me.enumerate(attrs, c);
        if me.work.value[..c].iter().all(|&v| v <= 0.0) {
            return Err(Error::InvalidConfig(
                "AWRF 2022 needs an item with alignment",
            ));
        }
        me.fill_target(attrs, &target)?;
        me.build(c, need[5]);
        Ok(me)
    }

    /// Lays out each item's contributions (its cells, by an odometer over its rows), sorts
    /// them by cell and numbers the cells.
    fn enumerate(&mut self, attrs: &Attributes, c: usize) {
        let k = attrs.attributes();
        let w = &mut self.work;
        let mut at = 0;
        let mut digit = [0usize; MAX_ATTRIBUTES];
        for i in 0..self.utility.len() {
            w.item[i] = at as u32;
            let rows = (0..k).map(|a| attrs.row(i, a).0.len());
            if rows.clone().any(|len| len == 0) {
                continue;
            }
            digit[..k].fill(0);
            loop {
                let mut v = 1.0;
                for a in 0..k {
                    let (level, weight) = attrs.row(i, a);
                    w.key[at * k + a] = level[digit[a]];
                    v *= weight[digit[a]];
                }
                w.value[at] = v;
                at += 1;
                // Next cell of the item's support.
                let mut a = 0;
                while a < k {
                    digit[a] += 1;
                    if digit[a] < attrs.row(i, a).0.len() {
                        break;
                    }
                    digit[a] = 0;
                    a += 1;
                }
                if a == k {
                    break;
                }
            }
        }
        w.item[self.utility.len()] = at as u32;
        debug_assert_eq!(at, c);
        // Order the contributions by cell, then give each its cell's id (in place of its
        // place in the order).
        let key = &*w.key;
        let order = &mut w.cell[..c];
        for (slot, id) in order.iter_mut().zip(0u32..) {
            *slot = id;
        }
        order.sort_unstable_by(|&x, &y| {
            let (x, y) = (x as usize * k, y as usize * k);
            key[x..x + k].cmp(&key[y..y + k])
        });
        // The ids go to `cells` (as f64, exact below 2^53) while `order` is read.
        let ids = &mut w.cells[..c];
        let mut cell = 0usize;
        for (r, &contribution) in order.iter().enumerate() {
            let here = contribution as usize * k;
            if r > 0 {
                let before = order[r - 1] as usize * k;
                if key[here..here + k] != key[before..before + k] {
                    cell += 1;
                }
            }
            ids[contribution as usize] = cell as f64;
        }
        self.cells = if c == 0 { 0 } else { cell + 1 };
        for (slot, &id) in w.cell[..c].iter_mut().zip(ids.iter()) {
            *slot = id as u32;
        }
    }

    /// The normalised target on each reachable cell, its mass off them and `sum q ln q`.
    fn fill_target(&mut self, attrs: &Attributes, target: &Target2022) -> Result<(), Error> {
        let k = attrs.attributes();
        let (start, values) = target.parts();
        let utility = self.utility;
        let relevant = (0..utility.len()).filter(move |&i| utility[i] > 0.0);
        let total = match target {
            Target2022::Marginals { .. } => 1.0,
            Target2022::Trec { .. } => trec_mass(attrs, relevant.clone()),
        };
        if total.partial_cmp(&0.0) != Some(core::cmp::Ordering::Greater) {
            return Err(Error::InvalidConfig(
                "AWRF 2022's target has no mass (no relevant item with alignment)",
            ));
        }
        let (q, _) = self.work.cells.split_at_mut(self.cells);
        // A cell is evaluated at its first contribution (-1 marks one not yet seen).
        q.fill(-1.0);
        let c = self.work.item[utility.len()] as usize;
        for contribution in 0..c {
            let cell = self.work.cell[contribution] as usize;
            if q[cell] >= 0.0 {
                continue;
            }
            let key = &self.work.key[contribution * k..(contribution + 1) * k];
            q[cell] = match *target {
                Target2022::Marginals { .. } => marginal_at(attrs, start, values, key),
                Target2022::Trec { .. } => trec_at(attrs, relevant.clone(), start, values, key),
            } / total;
        }
        let mut on = 0.0;
        let mut qlogq = 0.0;
        for &v in q.iter() {
            on += v;
            qlogq += xlogx(v);
        }
        self.rest = (1.0 - on).max(0.0);
        self.qlogq = qlogq;
        Ok(())
    }

    /// Sorts the contributions by kind of cell, once the target is known (`cells` holds
    /// it per cell). Off the target (`q = 0`) a cell's term is `p ln 2`: each item keeps
    /// only its value there (`z`). A cell one item alone reaches keeps its contribution's
    /// value, log and target, per item (`item[i]..item[i + 1]` of those). A cell several
    /// reach keeps a shared slot (its target; its mass is summed per ranking); each
    /// item's contributions to those are `item[n + 1 + i]..item[n + 2 + i]` of `cell`
    /// (the slot) and `value`. Then the logs of the attentions, and the memo where every
    /// item has the same mass.
    fn build(&mut self, c: usize, memo: usize) {
        let (n, cells) = (self.utility.len(), self.cells);
        let w = &mut self.work;
        let (q, f) = w.cells.split_at_mut(c);
        let (reach, f) = f.split_at_mut(c);
        let (pv, f) = f.split_at_mut(c);
        let (lnv, f) = f.split_at_mut(c);
        let (qc, f) = f.split_at_mut(c);
        let (shq, f) = f.split_at_mut(c);
        let (z, f) = f.split_at_mut(n);
        let (m, lnd) = f.split_at_mut(n);
        reach[..cells].fill(0.0);
        for &x in &w.cell[..c] {
            reach[x as usize] += 1.0;
        }
        let mut shared = 0;
        for x in 0..cells {
            reach[x] = if q[x] > 0.0 && reach[x] >= 2.0 {
                shq[shared] = q[x];
                shared += 1;
                (shared - 1) as f64
            } else {
                -1.0
            };
        }
        // Kept in place: each kind is written at or before where it is read.
        let (mut private, mut kept) = (0, 0);
        for i in 0..n {
            let (a, b) = (w.item[i] as usize, w.item[i + 1] as usize);
            w.item[i] = private as u32;
            w.item[n + 1 + i] = kept as u32;
            let (mut off, mut all) = (0.0, 0.0);
            for j in a..b {
                let (x, v) = (w.cell[j] as usize, w.value[j]);
                all += v;
                if q[x] == 0.0 {
                    off += v;
                } else if reach[x] < 0.0 {
                    pv[private] = v;
                    lnv[private] = libm::log(v);
                    qc[private] = q[x];
                    private += 1;
                } else {
                    w.cell[kept] = reach[x] as u32;
                    w.value[kept] = v;
                    kept += 1;
                }
            }
            z[i] = off;
            m[i] = all;
        }
        w.item[n] = private as u32;
        w.item[2 * n + 1] = kept as u32;
        for (slot, &d) in lnd.iter_mut().zip(self.discount) {
            *slot = libm::log(d);
        }
        self.shared = shared;
        // Masses equal to rounding (rows normalised in floating point) are taken as one,
        // so that the ranking's mass, and with it every per-position term, does not
        // depend on the order (the difference is below 1e-14 of the divergence).
        let (lo, hi) = m.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
        self.mass = if lo > 0.0 && hi - lo <= 1e-14 * hi {
            Some(m[0] * self.discount.iter().sum::<f64>())
        } else {
            None
        };
        let len = if self.mass.is_some() && w.memo.len() >= memo {
            memo
        } else {
            0
        };
        let taken = core::mem::take(&mut w.memo);
        w.memo = &mut taken[..len];
        w.memo.fill(f64::NAN);
    }

    /// AWRF, NDCG and their product of `ranking`, averaged over sessions; `None` when
    /// `ranking` is not `sessions >= 1` blocks of `n` ids below `n`.
    pub fn report(&mut self, ranking: &[u16], sessions: usize) -> Option<AwrfReport> {
        let n = self.utility.len();
        if !shape_ok(ranking, sessions, n) {
            return None;
        }
        let mut sum = AwrfReport {
            awrf: 0.0,
            ndcg: 0.0,
            product: 0.0,
        };
        let c = self.contributions;
        let (shp, f) = self.work.cells.split_at_mut(c);
        let (_, f) = f.split_at_mut(c);
        let (pv, f) = f.split_at(c);
        let (lnv, f) = f.split_at(c);
        let (qc, f) = f.split_at(c);
        let (shq, f) = f.split_at(c);
        let (z, f) = f.split_at(n);
        let (m, lnd) = f.split_at(n);
        let (item, cell, value) = (&*self.work.item, &*self.work.cell, &*self.work.value);
        let memo = &mut *self.work.memo;
        let (shp, shq) = (&mut shp[..self.shared], &shq[..self.shared]);
        for block in ranking.chunks_exact(n) {
            let (mut dcg, mut off, mut all) = (0.0, 0.0, 0.0);
            for (r, &id) in block.iter().enumerate() {
                let i = usize::from(id);
                let d = self.discount[r];
                if *self.utility.get(i)? > 0.0 {
                    dcg += d;
                }
                off += d * z[i];
                all += d * m[i];
            }
            let mass = self.mass.unwrap_or(all);
            let ln_mass = libm::log(mass);
            // 0.5 [sum p ln p + sum q ln q - sum (p+q) ln((p+q)/2)]: `q ln q` and the
            // target off the reachable cells (0.5 ln 2 each) known; `p ln 2` off the
            // target; the private cells per (item, position); the shared ones summed.
            let mut js = self.qlogq + (self.rest + off / mass) * LN_2;
            shp.fill(0.0);
            for (r, &id) in block.iter().enumerate() {
                let i = usize::from(id);
                let (a, b) = (item[i] as usize, item[i + 1] as usize);
                let term = |d: f64, lnd: f64| {
                    let mut t = 0.0;
                    for ((&v, &lv), &qv) in pv[a..b].iter().zip(&lnv[a..b]).zip(&qc[a..b]) {
                        let p = d * v / mass;
                        if p > 0.0 {
                            t += p * (lnd + lv - ln_mass);
                        }
                        t -= 2.0 * xlogx(0.5 * (p + qv));
                    }
                    t
                };
                js += match memo.get_mut(i * n + r) {
                    Some(kept) if !kept.is_nan() => *kept,
                    Some(kept) => {
                        *kept = term(self.discount[r], lnd[r]);
                        *kept
                    }
                    None => term(self.discount[r], lnd[r]),
                };
                let (a, b) = (item[n + 1 + i] as usize, item[n + 2 + i] as usize);
                for (&x, &v) in cell[a..b].iter().zip(&value[a..b]) {
                    shp[x as usize] += self.discount[r] * v;
                }
            }
            for (&p, &qv) in shp.iter().zip(shq) {
                let p = p / mass;
                js += xlogx(p) - 2.0 * xlogx(0.5 * (p + qv));
            }
            let awrf = 1.0 - 0.5 * js;
            let ndcg = dcg / self.ideal;
            sum.awrf += awrf;
            sum.ndcg += ndcg;
            sum.product += awrf * ndcg;
        }
        let s = sessions as f64;
        Some(AwrfReport {
            awrf: sum.awrf / s,
            ndcg: sum.ndcg / s,
            product: sum.product / s,
        })
    }

    /// The reachable cells.
    pub fn cells(&self) -> usize {
        self.cells
    }
}

impl Objective for Awrf2022<'_> {
    /// `1 - AWRF` or `1 - AWRF x NDCG`; NaN for a malformed ranking.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        let cost = self.cost;
        match (self.report(ranking, sessions), cost) {
            (Some(r), AwrfCost::Fairness) => 1.0 - r.awrf,
            (Some(r), AwrfCost::Product) => 1.0 - r.product,
            (None, _) => f64::NAN,
        }
    }
}

/// `x ln x`, 0 at 0.
fn xlogx(x: f64) -> f64 {
    if x > 0.0 {
        x * libm::log(x)
    } else {
        0.0
    }
}

/// The product of the normalised marginals at `cell`.
fn marginal_at(attrs: &Attributes, start: &[u32], value: &[f64], cell: &[u16]) -> f64 {
    let mut q = 1.0;
    for a in 0..attrs.attributes() {
        let range = &value[start[a] as usize..start[a + 1] as usize];
        let total: f64 = range.iter().sum();
        q *= range[usize::from(cell[a])] / total;
    }
    q
}

/// Checks the target's ranges: `K + 1` offsets; marginals over every level with mass;
/// a background over the known levels (or none), with mass.
fn check_target(
    attrs: &Attributes,
    target: &Target2022,
    start: &[u32],
    values: &[f64],
) -> Result<(), Error> {
    let k = attrs.attributes();
    if start.len() != k + 1 || start[k] as usize != values.len() {
        return Err(Error::LengthMismatch {
            expected: k + 1,
            found: start.len(),
        });
    }
    check_finite(values)?;
    if values.iter().any(|&v| v < 0.0) {
        return Err(Error::InvalidConfig(
            "AWRF 2022's target values must be >= 0",
        ));
    }
    for a in 0..k {
        let (from, to) = (start[a] as usize, start[a + 1] as usize);
        if from > to {
            return Err(Error::InvalidConfig("target offsets must not decrease"));
        }
        let len = to - from;
        let levels = usize::from(attrs.levels[a]);
        let known = levels - usize::from(attrs.unknown[a]);
        let ok = match target {
            Target2022::Marginals { .. } => len == levels,
            Target2022::Trec { .. } => len == 0 || len == known,
        };
        if !ok {
            return Err(Error::LengthMismatch {
                expected: if let Target2022::Marginals { .. } = target {
                    levels
                } else {
                    known
                },
                found: len,
            });
        }
        let mass: f64 = values[from..to].iter().sum();
        if len > 0 && mass.partial_cmp(&0.0) != Some(core::cmp::Ordering::Greater) {
            return Err(Error::InvalidConfig("an attribute's target has no mass"));
        }
        if let Target2022::Trec { .. } = target {
            if len > 0 && (mass - 1.0).abs() > 1e-12 {
                return Err(Error::InvalidConfig(
                    "a background must sum to 1 (normalise it first)",
                ));
            }
        }
    }
    Ok(())
}

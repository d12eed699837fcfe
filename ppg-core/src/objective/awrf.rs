//! Attention-weighted rank fairness (AWRF) and its product with NDCG, as TREC Fair Ranking
//! 2021 and 2022 scored a ranking.
//!
//! Sapiezynski et al. (WWW 2019 companion) compare the attention each group receives down
//! a ranking with a target distribution. TREC Fair Ranking 2021 (task 1; its
//! `metrics.py`) and 2022 computed it as follows, and this module does the same:
//!
//! - Attention of 1-based rank `r`: `1 / log2(max(r, 2))` (ranks 1 and 2 both get 1);
//!   [`Awrf::discount`] fills the table.
//! - The ranking's group distribution: `sum_r attention(r) [group of item r = g]`, divided
//!   by the total attention.
//! - AWRF `= 1 - JS(distribution, target)`, the Jensen-Shannon divergence with natural
//!   logarithms (`scipy.spatial.distance.jensenshannon` squared), so `1 - ln 2 <= AWRF <= 1`.
//! - NDCG: binary relevance (utility > 0), the same attention as discount, the ideal over
//!   `min(n, relevant)` positions; 0 for a list without a relevant item.
//! - The track's score is AWRF x NDCG.
//!
//! Several (possibly intersecting) group attributes: TREC 2022 scored the intersection,
//! the product of the attributes' categories; give each item the id of its cell of that
//! product (at most [`MAX_GROUPS`] cells) and a target over the cells.
//!
//! Over several sessions, each number is the mean of its per-session values.
//!
//! Depth: TREC 2021 scored ranks 1-20 only (`Task1Evaluation.py` keeps `rank <= 20` of
//! each run before `metrics.py` scores it); [`Awrf::with_depth`] does the same: the group
//! distribution and the DCG read the first `depth` positions, while NDCG's ideal stays the
//! list's (`qr_ndcg`'s ideal runs over every relevant page, up to 1,000, not the depth).
//!
//! The file is about 530 lines, 190 of them the hand-computed tests; the metric, its
//! target and its depth are one definition. Its lower bound is `awrf_bound.rs`.

use super::awrf_bound::{self, jensen_shannon};
use super::bound::LowerBound;
use super::exposure::{check_finite, check_items, check_len, checked_prefix, shape_ok};
use super::{Objective, MAX_GROUPS};
use crate::Error;

/// Where AWRF's target distribution over groups `0..len` comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AwrfTarget<'t> {
    /// Given outright (normalised to sum 1 here).
    Given(&'t [f64]),
    /// TREC 2021's: the mean of the relevant items' distribution over the groups and the
    /// `population` distribution (normalised to sum 1 here; the track used the world's
    /// population by region).
    Trec {
        /// The background distribution over the groups.
        population: &'t [f64],
    },
}

/// Which number the cost is (lower is better).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AwrfCost {
    /// `1 - AWRF`: the Jensen-Shannon divergence.
    Fairness,
    /// `1 - AWRF x NDCG`: the track's score.
    Product,
}

/// AWRF, NDCG and their product, each averaged over the sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AwrfReport {
    /// AWRF; higher is better, 1 is the target.
    pub awrf: f64,
    /// NDCG with the AWRF attention and binary relevance.
    pub ndcg: f64,
    /// AWRF x NDCG per session.
    pub product: f64,
}

/// AWRF of a grouped list.
///
/// ```
/// use ppg_core::objective::{Awrf, AwrfCost, AwrfTarget};
/// let mut discount = [0.0; 4];
/// Awrf::discount(&mut discount);
/// let target = [0.5, 0.5];
/// let awrf = Awrf::new(
///     &[1.0, 1.0, 0.0, 0.0], &[0, 0, 1, 1], AwrfTarget::Given(&target), &discount,
///     AwrfCost::Product,
/// )?;
/// let report = awrf.report(&[0, 2, 1, 3], 1).unwrap();
/// assert!(report.awrf > awrf.report(&[0, 1, 2, 3], 1).unwrap().awrf);
/// # Ok::<(), ppg_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Awrf<'a> {
    utility: &'a [f64],
    group: &'a [u8],
    discount: &'a [f64],
    target: [f64; MAX_GROUPS],
    /// The target's length: the groups the divergence runs over.
    groups: usize,
    attention: f64,
    ideal: f64,
    cost: AwrfCost,
    /// Positions scored, at most `n` ([`Awrf::with_depth`]).
    depth: usize,
}

impl<'a> Awrf<'a> {
    /// Fills `out[i]` with the attention of 0-based position `i`: `1 / log2(max(i + 1, 2))`.
    pub fn discount(out: &mut [f64]) {
        for (i, slot) in out.iter_mut().enumerate() {
            // Positions are below 2^16: exact as an f64.
            *slot = 1.0 / libm::log2((i as f64 + 1.0).max(2.0));
        }
    }

    /// AWRF over the list whose item `i` has `utility[i]` (relevant when > 0, for NDCG and
    /// the TREC target) and group `group[i]`, with `discount[k]` the attention of position
    /// `k` (only the first `n` are read; [`Awrf::discount`] gives TREC's).
    ///
    /// # Errors
    /// - [`Error::Empty`] for an empty list or an empty target/population (no groups).
    /// - [`Error::Capacity`] for too many items or a target over more than
    ///   [`MAX_GROUPS`] groups.
    /// - [`Error::LengthMismatch`] when `group` is not `n` long or `discount` is shorter.
    /// - [`Error::ItemOutOfRange`] for a group id not below the target's length (`item`
    ///   is the id, `items` the length).
    /// - [`Error::NotFinite`] for a NaN or infinite utility, discount or target value.
    /// - [`Error::InvalidConfig`] for a negative target value or discount, a target of no
    ///   mass, all-zero attention, or the TREC target without a relevant item.
    pub fn new(
        utility: &'a [f64],
        group: &'a [u8],
        target: AwrfTarget<'_>,
        discount: &'a [f64],
        cost: AwrfCost,
    ) -> Result<Self, Error> {
        let n = utility.len();
        check_items(n)?;
        check_len(n, group.len())?;
        check_finite(utility)?;
        let discount = checked_prefix(discount, n)?;
        let given = match target {
            AwrfTarget::Given(t) | AwrfTarget::Trec { population: t } => t,
        };
        let groups = given.len();
        if groups == 0 {
            return Err(Error::Empty);
        }
        if groups > MAX_GROUPS {
            return Err(Error::Capacity {
                requested: groups,
                capacity: MAX_GROUPS,
            });
        }
        if let Some(&g) = group.iter().find(|&&g| usize::from(g) >= groups) {
            return Err(Error::ItemOutOfRange {
                item: usize::from(g),
                items: groups,
            });
        }
        let mut dist = [0.0; MAX_GROUPS];
        normalise(given, &mut dist[..groups])?;
        if let AwrfTarget::Trec { .. } = target {
            let mut relevant = [0.0; MAX_GROUPS];
            for (&y, &g) in utility.iter().zip(group) {
                if y > 0.0 {
                    relevant[usize::from(g)] += 1.0;
                }
            }
            let count: f64 = relevant.iter().sum();
            if count == 0.0 {
                return Err(Error::InvalidConfig(
                    "AWRF's TREC target needs an item with utility > 0",
                ));
            }
            for (d, r) in dist.iter_mut().zip(relevant) {
                *d = (r / count + *d) * 0.5;
            }
        }
        let attention: f64 = discount.iter().sum();
        if attention <= 0.0 {
            return Err(Error::InvalidConfig(
                "AWRF needs some attention (a positive discount)",
            ));
        }
        let relevant = utility.iter().filter(|&&y| y > 0.0).count();
        Ok(Awrf {
            utility,
            group,
            discount,
            target: dist,
            groups,
            attention,
            ideal: discount[..relevant].iter().sum(),
            cost,
            depth: n,
        })
    }

    /// The same metric scoring only the first `depth` positions of each session (TREC
    /// 2021: 20; a depth of `n` or more scores the whole list, the default): the group
    /// distribution and the DCG over them, NDCG's ideal over the whole list's relevant
    /// items as the track's `qr_ndcg` computed it.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for a depth of 0, or one whose positions have no attention.
    pub fn with_depth(mut self, depth: usize) -> Result<Self, Error> {
        if depth == 0 {
            return Err(Error::InvalidConfig("AWRF's depth must be at least 1"));
        }
        let depth = depth.min(self.utility.len());
        let attention: f64 = self.discount[..depth].iter().sum();
        if attention <= 0.0 {
            return Err(Error::InvalidConfig(
                "AWRF needs some attention (a positive discount)",
            ));
        }
        self.depth = depth;
        self.attention = attention;
        Ok(self)
    }

    /// The positions scored ([`Awrf::with_depth`]).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The target distribution over the groups.
    pub fn target(&self) -> &[f64] {
        &self.target[..self.groups]
    }

    /// AWRF, NDCG and their product of `ranking`, averaged over sessions; `None` when
    /// `ranking` is not `sessions >= 1` blocks of `n` ids below `n`.
    pub fn report(&self, ranking: &[u16], sessions: usize) -> Option<AwrfReport> {
        let n = self.utility.len();
        if !shape_ok(ranking, sessions, n) {
            return None;
        }
        let mut sum = AwrfReport {
            awrf: 0.0,
            ndcg: 0.0,
            product: 0.0,
        };
        for block in ranking.chunks_exact(n) {
            let mut dist = [0.0; MAX_GROUPS];
            let mut dcg = 0.0;
            for (r, &item) in block.iter().enumerate() {
                let i = usize::from(item);
                let g = usize::from(*self.group.get(i)?);
                // Past the depth an id is checked, not scored.
                if r < self.depth {
                    let d = self.discount[r];
                    dist[g] += d;
                    if *self.utility.get(i)? > 0.0 {
                        dcg += d;
                    }
                }
            }
            for d in &mut dist {
                *d /= self.attention;
            }
            let awrf = 1.0 - jensen_shannon(&dist[..self.groups], self.target());
            let ndcg = if self.ideal > 0.0 {
                dcg / self.ideal
            } else {
                0.0
            };
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
}

impl Objective for Awrf<'_> {
    /// `1 - AWRF` or `1 - AWRF x NDCG`; NaN for a malformed ranking.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        match (self.report(ranking, sessions), self.cost) {
            (Some(r), AwrfCost::Fairness) => 1.0 - r.awrf,
            (Some(r), AwrfCost::Product) => 1.0 - r.product,
            (None, _) => f64::NAN,
        }
    }

    /// A lower bound over every ranking (`objective/awrf_bound.rs`): the Jensen-Shannon
    /// divergence no group distribution within reach of the list's group sizes can go
    /// below, and for the product the best NDCG the depth allows. Never exact (it bounds a
    /// relaxation); `None` where the attention is not non-increasing (a caller's own
    /// table).
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        let _ = (sessions, work);
        let mut size = [0usize; MAX_GROUPS];
        for &g in self.group {
            size[usize::from(g)] += 1;
        }
        let attention = &self.discount[..self.depth];
        let divergence = awrf_bound::divergence(attention, &size[..self.groups], self.target())?;
        let value = match self.cost {
            AwrfCost::Fairness => divergence,
            AwrfCost::Product => {
                let relevant = self.utility.iter().filter(|&&y| y > 0.0).count();
                let best_dcg: f64 = attention[..relevant.min(self.depth)].iter().sum();
                let ndcg = if self.ideal > 0.0 {
                    (best_dcg / self.ideal).min(1.0)
                } else {
                    0.0
                };
                1.0 - (1.0 - divergence) * ndcg
            }
        };
        Some(LowerBound {
            value,
            exact: false,
        })
    }
}

/// `out = values / sum(values)`, refusing NaN, negatives and zero mass.
fn normalise(values: &[f64], out: &mut [f64]) -> Result<(), Error> {
    check_finite(values)?;
    if values.iter().any(|&v| v < 0.0) {
        return Err(Error::InvalidConfig(
            "AWRF target values must be non-negative",
        ));
    }
    let total: f64 = values.iter().sum();
    if total <= 0.0 {
        return Err(Error::InvalidConfig("AWRF target has no mass"));
    }
    for (o, &v) in out.iter_mut().zip(values) {
        *o = v / total;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: usize) -> [f64; 8] {
        let mut t = [0.0; 8];
        Awrf::discount(&mut t[..n]);
        t
    }

    #[test]
    fn discount_is_trecs() {
        let t = table(4);
        assert_eq!(&t[..4], &[1.0, 1.0, 1.0 / libm::log2(3.0), 0.5]);
    }

    /// Two items, one per group, target (0.5, 0.5): attention (1, 1) gives the target
    /// exactly, AWRF 1; NDCG with one relevant item at the top 1, second 1 too (rank 2
    /// has the same attention as rank 1).
    #[test]
    fn hand_computed_two_items() {
        let t = table(2);
        let a = Awrf::new(
            &[1.0, 0.0],
            &[0, 1],
            AwrfTarget::Given(&[1.0, 1.0]),
            &t,
            AwrfCost::Product,
        )
        .unwrap();
        let r = a.report(&[1, 0], 1).unwrap();
        assert_eq!((r.awrf, r.ndcg, r.product), (1.0, 1.0, 1.0));
    }

    /// Three items: groups (0, 0, 1), target (0.5, 0.5), ranking 0, 1, 2: attention
    /// (1, 1, 1/log2 3) so the distribution is (2, c) / (2 + c) with c = 1/log2 3.
    #[test]
    fn hand_computed_divergence() {
        let t = table(3);
        let a = Awrf::new(
            &[1.0, 0.0, 1.0],
            &[0, 0, 1],
            AwrfTarget::Given(&[0.5, 0.5]),
            &t,
            AwrfCost::Fairness,
        )
        .unwrap();
        let c = 1.0 / libm::log2(3.0);
        let (p0, p1) = (2.0 / (2.0 + c), c / (2.0 + c));
        let (m0, m1) = ((p0 + 0.5) / 2.0, (p1 + 0.5) / 2.0);
        let js = 0.5
            * (p0 * libm::log(p0 / m0)
                + p1 * libm::log(p1 / m1)
                + 0.5 * libm::log(0.5 / m0)
                + 0.5 * libm::log(0.5 / m1));
        let r = a.report(&[0, 1, 2], 1).unwrap();
        assert!((r.awrf - (1.0 - js)).abs() < 1e-15);
        // Relevant items 0 and 2 at ranks 1 and 3: (1 + c) / (1 + 1).
        assert!((r.ndcg - (1.0 + c) / 2.0).abs() < 1e-15);
        let mut a = a;
        assert!((a.cost(&[0, 1, 2], 1) - js).abs() < 1e-15);
    }

    /// Depth 2 of four items (groups 0, 0, 1, 1; items 0 and 2 relevant), the input
    /// order: the top two are group 0's (distribution (1, 0) against (0.5, 0.5)), the
    /// DCG is item 0's 1, the ideal the list's two relevant items, 1 + 1 (the track's
    /// `qr_ndcg` takes its ideal past the depth).
    #[test]
    fn depth_scores_the_top_positions() {
        let t = table(4);
        let new = || {
            Awrf::new(
                &[1.0, 0.0, 1.0, 0.0],
                &[0, 0, 1, 1],
                AwrfTarget::Given(&[1.0, 1.0]),
                &t[..4],
                AwrfCost::Product,
            )
            .unwrap()
        };
        let deep = new().with_depth(2).unwrap();
        assert_eq!(deep.depth(), 2);
        let js = 0.5 * (libm::log(1.0 / 0.75) + 0.5 * libm::log(0.5 / 0.75) + 0.5 * libm::log(2.0));
        let r = deep.report(&[0, 1, 2, 3], 1).unwrap();
        assert!((r.awrf - (1.0 - js)).abs() < 1e-15, "{r:?}");
        assert!((r.ndcg - 0.5).abs() < 1e-15);
        // Past the depth nothing is scored, but an id is still checked.
        assert_eq!(deep.report(&[0, 1, 3, 2], 1), Some(r));
        assert_eq!(deep.report(&[0, 1, 3, 9], 1), None);
        // A depth of the list's length or more is the whole list.
        let whole = new();
        for depth in [4, 5, 1000] {
            let r = new().with_depth(depth).unwrap().report(&[2, 1, 0, 3], 1);
            assert_eq!(r, whole.report(&[2, 1, 0, 3], 1));
        }
        assert!(matches!(new().with_depth(0), Err(Error::InvalidConfig(_))));
    }

    #[test]
    fn trec_target_averages_relevant_and_population() {
        let t = table(4);
        // Relevant: items 0, 1 (group 0) and 2 (group 1): (2/3, 1/3); population (1, 3)
        // normalises to (1/4, 3/4); the mean is (11/24, 13/24).
        let a = Awrf::new(
            &[1.0, 2.0, 1.0, 0.0],
            &[0, 0, 1, 1],
            AwrfTarget::Trec {
                population: &[1.0, 3.0],
            },
            &t,
            AwrfCost::Product,
        )
        .unwrap();
        let want = [11.0 / 24.0, 13.0 / 24.0];
        assert!(a
            .target()
            .iter()
            .zip(want)
            .all(|(x, y)| (x - y).abs() < 1e-15));
    }

    #[test]
    fn sessions_average() {
        let t = table(3);
        let a = Awrf::new(
            &[1.0, 0.0, 1.0],
            &[0, 0, 1],
            AwrfTarget::Given(&[0.5, 0.5]),
            &t,
            AwrfCost::Product,
        )
        .unwrap();
        let (x, y) = (
            a.report(&[0, 1, 2], 1).unwrap(),
            a.report(&[2, 1, 0], 1).unwrap(),
        );
        let both = a.report(&[0, 1, 2, 2, 1, 0], 2).unwrap();
        assert!((both.awrf - (x.awrf + y.awrf) / 2.0).abs() < 1e-15);
        assert!((both.product - (x.product + y.product) / 2.0).abs() < 1e-15);
        assert!(a.report(&[0, 1], 1).is_none());
        assert!(a.report(&[0, 1, 5], 1).is_none());
    }

    #[test]
    fn errors() {
        let t = table(3);
        let (u, g) = ([1.0, 0.0, 1.0], [0u8, 0, 1]);
        let new = |u: &[f64], g: &[u8], target| {
            Awrf::new(u, g, target, &t, AwrfCost::Fairness).map(|_| ())
        };
        assert_eq!(new(&u, &g, AwrfTarget::Given(&[])), Err(Error::Empty));
        assert_eq!(
            new(&u, &g, AwrfTarget::Given(&[1.0])),
            Err(Error::ItemOutOfRange { item: 1, items: 1 })
        );
        assert_eq!(
            new(&u, &g, AwrfTarget::Given(&[1.0, f64::NAN])),
            Err(Error::NotFinite { index: 1 })
        );
        assert!(matches!(
            new(&u, &g, AwrfTarget::Given(&[0.0, 0.0])),
            Err(Error::InvalidConfig(_))
        ));
        assert!(matches!(
            new(&u, &g, AwrfTarget::Given(&[1.0, -1.0])),
            Err(Error::InvalidConfig(_))
        ));
        assert!(matches!(
            new(
                &[0.0; 3],
                &g,
                AwrfTarget::Trec {
                    population: &[1.0, 1.0]
                }
            ),
            Err(Error::InvalidConfig(_))
        ));
        assert_eq!(
            new(&[1.0, f64::NAN, 0.0], &g, AwrfTarget::Given(&[1.0, 1.0])),
            Err(Error::NotFinite { index: 1 })
        );
        assert_eq!(new(&[], &[], AwrfTarget::Given(&[1.0])), Err(Error::Empty));
        assert!(matches!(
            new(&u, &g, AwrfTarget::Given(&[1.0; MAX_GROUPS + 1])),
            Err(Error::Capacity { .. })
        ));
    }
}

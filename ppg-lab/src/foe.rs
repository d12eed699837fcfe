//! FOE: Fairness of Exposure (Singh & Joachims, KDD 2018) with the disparate-treatment
//! constraint, in the hard and soft variants the PPG paper compares with (FOE^H, FOE^S,
//! following Sarvi et al. 2021).
//!
//! The file stays whole (over 400 lines): a quarter of it is the derivation below, and the
//! code after it (the public types and [`solve`]) reads against that text line by line; the
//! LP (`lp`, column generation) and the decomposition (`birkhoff`) already live in `foe/`.
//!
//! # What is solved
//!
//! One query: items `i` with utility `u_i >= 0` and group `g_i` in {0, 1}; a position exposure
//! `v_j` (non-increasing, `>= 0`; the protocol's `1 / log2(j + 3)`). The unknown is the
//! marginal rank matrix `P` (`P_ij` = probability that item `i` is at position `j`):
//!
//! ```text
//! maximise    sum_ij u_i v_j P_ij                               (expected DCG-like utility)
//! subject to  sum_j P_ij = 1 (rows),  sum_i P_ij = 1 (columns)  (FOE^H: hard)
//!             sum_j P_ij <= 1,        sum_i P_ij <= 1           (FOE^S: soft)
//!             0 <= P_ij <= 1
//!             sum_{i in G0} e_i / U0  =  sum_{i in G1} e_i / U1,   e_i = sum_j P_ij v_j
//! ```
//!
//! with `U_g` the **sum** of the utilities of group `g`. Singh & Joachims write the
//! disparate-treatment (DT) constraint with group *means* of exposure and of utility; the two
//! `1/|G|` cancel, so means and sums give the same constraint. The protocol's DTR metric uses
//! the same sums (`Exp(G) / U(G)`), so the LP's merit normalisation and the metric agree,
//! except for the min-max rescaling below when the caller applies it.
//!
//! # Where the formulation comes from
//!
//! The paper ran the code of github.com/MilkaLichtblau/BA_Laura (`runFOEIR.py`, cvxopt) in the
//! version extended by Sarvi et al. (the outlier study the paper follows). In that code:
//!
//! - utilities are min-max normalised per query, `(u - min) / (max - min)`, before the LP;
//!   [`min_max_normalise`] does the same (with `max == min` giving all zeros, where the
//!   reference divides by zero and its LP fails);
//! - `v = 1 / log2(1 + r + 1)` for `r = 1..k`, the protocol's exposure vector;
//! - the DT row is `f_i v_j` with `f_i = 1 / (|G| mean_G u)` = `1 / U_G` for the protected
//!   group and `-1 / U_G` for the other: sums, as above;
//! - **hard vs soft**: one version passes the row and column sums to cvxopt as equalities
//!   (`A x = b`), the original BA_Laura version puts them into the inequality block `G x <= h`
//!   as `<= 1`. The second is the "soft doubly stochastic" FOE^S: `P` may be
//!   sub-stochastic, so the LP can meet DT by leaving some exposure unassigned instead of
//!   moving items;
//! - the DT row itself is one-sided (`f . x <= 0`: protected exposure per merit *at most*
//!   the other group's), so its effect depends on which group the data flags protected, which
//!   the paper's `L`/`H` split does not say. This module uses the equality of Singh &
//!   Joachims' definition, symmetric in the two groups;
//! - when cvxopt fails (an infeasible hard LP, a zero-merit group), the reference outputs its
//!   input list unchanged; BvN is `birkhoff` by J. Finkelstein with ad hoc completion of
//!   imperfect matchings, and the sessions are drawn with min-max-rescaled BvN weights. Those
//!   quirks are not reproduced: [`birkhoff`] is the textbook decomposition and
//!   [`sample_rankings`] draws with the BvN weights themselves.
//!
//! # How it is solved (why it is fast)
//!
//! The full LP has `n^2` variables (73,441 for the 271-item TREC 2020 list; microlp needs
//! about 30 s for it in release mode, 0.5 s at `n = 100`). Both the objective and the DT row
//! depend on `P` only through the item exposures `e = P v`, and a linear function
//! `sum_i s_i e_i` is maximised over the Birkhoff polytope by the permutation that sorts `s`
//! descending (rearrangement inequality; `v` is non-increasing), over the sub-stochastic
//! polytope by placing only the items with `s_i > 0`, in that order. So the LP is solved by
//! Dantzig-Wolfe column generation over the polytope's vertices:
//!
//! - the restricted master has one variable per generated ranking and two rows (weights sum
//!   to 1, DT); its dual, `min mu` s.t. `mu + D_k lambda >= U_k` for every generated ranking
//!   `k` (`U_k` its utility, `D_k` its DT gap), is solved with microlp;
//! - the pricing step sorts the items by `u_i - lambda f_i` at the master's `lambda`; when
//!   that adds nothing, once more at the exact `lambda` of the restricted optimum (microlp's
//!   answers are exact to its 1e-7 tolerance, coarser than the steps between neighbouring
//!   rankings of a long list);
//! - when no ranking improves on the restricted optimum, that is the LP optimum (LP duality).
//!   It is a vertex with at most two rankings, recovered exactly by trying every generated
//!   ranking with `D = 0` and every pair with opposite signs, mixed so that `D = 0`.
//!
//! The tests compare the optimum with the full `n^2` LP solved by microlp. Under 2 ms for
//! the 271-item list, decomposition included; feasibility is decided up front: FOE^H is
//! feasible iff the two extreme rankings (one group entirely above the other) have DT gaps of
//! opposite signs.
//!
//! # Ties and the returned `P`
//!
//! Items with the same utility and group are interchangeable for the LP. A vertex solution
//! orders them arbitrarily (here: by index), an interior-point solver such as the reference's
//! cvxopt returns the centre of the optimal face, where they are treated alike. [`solve`]
//! averages the rows of each such class, which keeps every constraint and the objective and
//! makes the outcome independent of the input order of tied items (with coarse utilities
//! such as 5 LTR grades, the order among tied items decides the true-label NDCG and DTR).
//! [`Solution::decomposition`] decomposes that `P` from its structure into at most `2 n`
//! rankings; [`birkhoff`], the generic algorithm, needs thousands on large tie classes.
//!
//! # Soft: from a sub-stochastic `P` to rankings
//!
//! FOE^S's LP leaves the exposure of some items unassigned. Each of its (at most two)
//! partial rankings is completed by appending the unplaced items below the placed ones, by
//! utility (descending; ties: the later item first, as the protocol's starting ranking); the
//! completed, doubly stochastic matrix is [`Solution::marginals`], the LP's own one
//! [`Solution::lp_marginals`]. DT holds for the latter, not for the former.
//!
//! # Fallbacks
//!
//! - A group with zero merit (`U_g = 0`, including an empty group, and after min-max
//!   normalisation a group holding only the query's lowest utility): DT is undefined; `P` is
//!   the utility ranking (descending, ties: later item first), [`Outcome::ZeroMerit`].
//! - FOE^H whose DT constraint no doubly stochastic `P` meets (one group holds most of the
//!   merit in few items): the same ranking, [`Outcome::Infeasible`]. This is the common
//!   case on TREC: with min-max normalised labels, 239 of the 375 DTR queries of 2019 and 77
//!   of the 108 of 2020 (with LTR grades 193 and 24). FOE^S is always feasible (`P = 0`
//!   meets DT).
//!
//! # Example
//!
//! ```
//! use ppg_lab::foe::{sample_rankings, solve, FoeVariant};
//!
//! let utility = [1.0, 0.9, 0.8, 0.2];
//! let group = [0, 0, 0, 1];
//! let exposure: Vec<f64> = (0..4).map(|j| 1.0 / ((j + 3) as f64).log2()).collect();
//! let solution = solve(&utility, &group, &exposure, FoeVariant::Hard).unwrap();
//! let mixture = solution.decomposition(); // or birkhoff(&solution.marginals)
//! let mut rng = ppg_core::Rng::new(7);
//! let rankings = sample_rankings(&mixture, 4, &mut rng).unwrap(); // 4 sessions x 4 items
//! assert_eq!(rankings.len(), 16);
//! ```

mod birkhoff;
mod lp;
#[cfg(test)]
mod tests;

use core::fmt;

pub use birkhoff::{birkhoff, sample_rankings};

/// Largest list [`solve`] accepts: `P` is a dense `n x n` matrix (128 MiB at this size).
pub const MAX_FOE_ITEMS: usize = 4096;

/// Which doubly stochastic constraints the LP uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FoeVariant {
    /// FOE^H: rows and columns of `P` sum to exactly 1.
    Hard,
    /// FOE^S: rows and columns of `P` sum to at most 1.
    Soft,
}

/// How [`solve`] arrived at its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The LP optimum.
    Optimal,
    /// A group has zero merit, DT is undefined: the utility ranking.
    ZeroMerit,
    /// FOE^H only: no doubly stochastic `P` meets DT: the utility ranking.
    Infeasible,
}

/// A marginal rank matrix: `get(i, j)` is the probability that item `i` is at position `j`.
#[derive(Debug, Clone, PartialEq)]
pub struct Marginals {
    n: usize,
    p: Vec<f64>,
}

/// The answer of [`solve`].
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Doubly stochastic `P` to decompose and sample ([`birkhoff`]). For FOE^S, the LP's
    /// matrix completed as the module documentation describes.
    pub marginals: Marginals,
    /// The LP's own `P`: equal to `marginals` for FOE^H, sub-stochastic for FOE^S.
    pub lp_marginals: Marginals,
    /// How it was obtained.
    pub outcome: Outcome,
    /// The LP's vertex rankings (at most two) with their weights, completed for FOE^S.
    mixture: Vec<(f64, Vec<u16>)>,
    /// Items sharing utility and group, classes of two or more.
    classes: Vec<Vec<usize>>,
}

impl Solution {
    /// A Birkhoff-von Neumann decomposition of [`Solution::marginals`] read off the solution's
    /// structure: each vertex ranking of the LP, with every tie class rotated through its
    /// positions (class `c` of size `m` shifted by `floor(t m)`, `t` in `[0, 1)`, one ranking
    /// per interval between the breakpoints `a / m`). At most `2 n` rankings, where
    /// [`birkhoff`] on the averaged rows of a large tie class finds tens of thousands (38,313
    /// in 1.6 s for the 271-item TREC 2020 list under FOE^S); both reproduce `marginals`.
    pub fn decomposition(&self) -> Vec<(f64, Vec<u16>)> {
        let n = self.marginals.n();
        let mut breaks = vec![0.0, 1.0];
        let mut class_of = vec![usize::MAX; n];
        for (k, class) in self.classes.iter().enumerate() {
            let m = class.len();
            breaks.extend((1..m).map(|a| a as f64 / m as f64));
            for &i in class {
                class_of[i] = k;
            }
        }
        breaks.sort_by(f64::total_cmp);
        breaks.dedup();
        let mut out = Vec::new();
        for (theta, ranking) in &self.mixture {
            // Positions of each class in this ranking, top first.
            let mut slots = vec![Vec::new(); self.classes.len()];
            for (j, &item) in ranking.iter().enumerate() {
                if let Some(s) = slots.get_mut(class_of[usize::from(item)]) {
                    s.push(j);
                }
            }
            for w in breaks.windows(2) {
                let mid = 0.5 * (w[0] + w[1]);
                let mut r = ranking.clone();
                for (class, slots) in self.classes.iter().zip(&slots) {
                    let m = class.len();
                    let shift = ((mid * m as f64) as usize).min(m - 1);
                    for (q, &j) in slots.iter().enumerate() {
                        r[j] = class[(q + shift) % m] as u16;
                    }
                }
                out.push((theta * (w[1] - w[0]), r));
            }
        }
        out
    }
}

/// What [`solve`], [`sample_rankings`] and [`Marginals::from_ranking`] refuse.
#[derive(Debug, Clone, PartialEq)]
pub enum FoeError {
    /// `utility`, `group` differ in length, or `exposure` is shorter than them.
    LengthMismatch {
        /// Items in `utility`.
        utility: usize,
        /// Entries in `group`.
        group: usize,
        /// Entries in `exposure` (at least the number of items is needed).
        exposure: usize,
    },
    /// More items than [`MAX_FOE_ITEMS`].
    TooManyItems(usize),
    /// A utility is negative or not finite.
    InvalidUtility(usize),
    /// A group id other than 0 or 1.
    InvalidGroup(usize),
    /// An exposure is negative, not finite, or larger than the one before it.
    InvalidExposure(usize),
    /// Not a permutation of `0..n`.
    NotAPermutation,
    /// Nothing to sample from: no ranking with positive weight, or rankings of unequal length.
    EmptyDecomposition,
    /// The LP solver failed; its message.
    Solver(String),
    /// Column generation did not settle within its iteration cap.
    NoConvergence,
}

impl fmt::Display for FoeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FoeError::LengthMismatch {
                utility,
                group,
                exposure,
            } => write!(
                f,
                "{utility} utilities, {group} group ids and {exposure} exposures: \
                 need equal counts and at least as many exposures"
            ),
            FoeError::TooManyItems(n) => {
                write!(f, "{n} items: FOE takes at most {MAX_FOE_ITEMS}")
            }
            FoeError::InvalidUtility(i) => {
                write!(f, "utility of item {i} is negative or not finite")
            }
            FoeError::InvalidGroup(i) => write!(f, "group of item {i} is neither 0 nor 1"),
            FoeError::InvalidExposure(j) => write!(
                f,
                "exposure of position {j} is negative, not finite, or above the previous one"
            ),
            FoeError::NotAPermutation => write!(f, "not a permutation of 0..n"),
            FoeError::EmptyDecomposition => {
                write!(f, "no ranking with positive weight to sample from")
            }
            FoeError::Solver(msg) => write!(f, "LP solver failed: {msg}"),
            FoeError::NoConvergence => write!(f, "FOE column generation did not converge"),
        }
    }
}

impl std::error::Error for FoeError {}

impl Marginals {
    /// The all-zero `n x n` matrix.
    fn zeros(n: usize) -> Self {
        Marginals {
            n,
            p: vec![0.0; n * n],
        }
    }

    /// The permutation matrix of `ranking` (`ranking[j]` = the item at position `j`).
    ///
    /// # Errors
    ///
    /// [`FoeError::NotAPermutation`] unless `ranking` holds each of `0..len` once.
    pub fn from_ranking(ranking: &[u16]) -> Result<Self, FoeError> {
        let n = ranking.len();
        let mut m = Marginals::zeros(n);
        for (j, &item) in ranking.iter().enumerate() {
            let i = usize::from(item);
            if i >= n || m.p[i * n..(i + 1) * n].iter().any(|&x| x != 0.0) {
                return Err(FoeError::NotAPermutation);
            }
            m.p[i * n + j] = 1.0;
        }
        Ok(m)
    }

    /// Number of items (and positions).
    pub fn n(&self) -> usize {
        self.n
    }

    /// `P[item][position]`, or `None` out of range.
    pub fn get(&self, item: usize, position: usize) -> Option<f64> {
        if item < self.n && position < self.n {
            Some(self.p[item * self.n + position])
        } else {
            None
        }
    }

    /// Row `item`: its probabilities over the positions, or `None` out of range.
    pub fn row(&self, item: usize) -> Option<&[f64]> {
        self.p.get(item * self.n..(item + 1) * self.n)
    }

    /// The matrix row-major: entry `item * n + position`.
    pub fn as_slice(&self) -> &[f64] {
        &self.p
    }

    /// Expected exposure of each item, `e_i = sum_j P_ij exposure[j]` (positions beyond
    /// `exposure.len()` count 0).
    pub fn item_exposure(&self, exposure: &[f64]) -> Vec<f64> {
        (0..self.n)
            .map(|i| {
                self.p[i * self.n..(i + 1) * self.n]
                    .iter()
                    .zip(exposure)
                    .map(|(p, v)| p * v)
                    .sum()
            })
            .collect()
    }

    /// Largest distance of a row or column sum from 1: 0 for a doubly stochastic matrix.
    pub fn stochastic_error(&self) -> f64 {
        let n = self.n;
        let mut worst = 0.0f64;
        let mut cols = vec![0.0; n];
        for i in 0..n {
            let row = &self.p[i * n..(i + 1) * n];
            worst = worst.max((row.iter().sum::<f64>() - 1.0).abs());
            for (c, x) in cols.iter_mut().zip(row) {
                *c += x;
            }
        }
        cols.iter().fold(worst, |w, c| w.max((c - 1.0).abs()))
    }
}

/// Min-max normalisation onto `[0, 1]`, as the reference applies to utilities before its LP.
/// All zeros when every utility is the same (there, the reference divides by zero).
pub fn min_max_normalise(utility: &[f64]) -> Vec<f64> {
    let lo = utility.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = utility.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = hi - lo;
    utility
        .iter()
        .map(|&u| if span > 0.0 { (u - lo) / span } else { 0.0 })
        .collect()
}

/// The utility ranking: items by utility, descending; ties: the later item first (the
/// protocol's starting ranking, a stable ascending sort reversed). `ranking[j]` is the item
/// at position `j`. Items beyond `u16` range are left out.
pub fn utility_ranking(utility: &[f64]) -> Vec<u16> {
    let n = utility.len().min(usize::from(u16::MAX) + 1);
    let mut order: Vec<u16> = (0..n).map(|i| i as u16).collect();
    order.sort_by(|&a, &b| {
        utility[usize::from(b)]
            .total_cmp(&utility[usize::from(a)])
            .then(b.cmp(&a))
    });
    order
}

/// The DT gap of `marginals`: `Exp(G0) / U0 - Exp(G1) / U1` with `Exp(G)` the summed item
/// exposure of group `G` and `U` its summed utility; `None` when a group has zero merit or
/// the lengths differ. 0 means DT holds.
pub fn dt_gap(
    marginals: &Marginals,
    utility: &[f64],
    group: &[u8],
    exposure: &[f64],
) -> Option<f64> {
    let n = marginals.n();
    if utility.len() != n || group.len() != n {
        return None;
    }
    let e = marginals.item_exposure(exposure);
    let (mut exp, mut merit) = ([0.0; 2], [0.0; 2]);
    for i in 0..n {
        let g = usize::from(group[i] != 0);
        exp[g] += e[i];
        merit[g] += utility[i];
    }
    if merit[0] > 0.0 && merit[1] > 0.0 {
        Some(exp[0] / merit[0] - exp[1] / merit[1])
    } else {
        None
    }
}

/// Solve FOE for one query.
///
/// `utility[i] >= 0` and `group[i]` in {0, 1} per item; `exposure[j]` per position,
/// non-increasing and `>= 0`, at least `utility.len()` of them (extra ones are ignored). The
/// utilities are used as given: apply [`min_max_normalise`] first to match the reference.
///
/// # Errors
///
/// [`FoeError::LengthMismatch`], [`FoeError::TooManyItems`], [`FoeError::InvalidUtility`],
/// [`FoeError::InvalidGroup`], [`FoeError::InvalidExposure`] for invalid input;
/// [`FoeError::Solver`] or [`FoeError::NoConvergence`] if the LP machinery fails (not expected
/// within [`MAX_FOE_ITEMS`]). A zero-merit group or an infeasible FOE^H is not an error: see
/// [`Outcome`].
pub fn solve(
    utility: &[f64],
    group: &[u8],
    exposure: &[f64],
    variant: FoeVariant,
) -> Result<Solution, FoeError> {
    let n = utility.len();
    if group.len() != n || exposure.len() < n {
        return Err(FoeError::LengthMismatch {
            utility: n,
            group: group.len(),
            exposure: exposure.len(),
        });
    }
    if n > MAX_FOE_ITEMS {
        return Err(FoeError::TooManyItems(n));
    }
    if let Some(i) = utility.iter().position(|u| !u.is_finite() || *u < 0.0) {
        return Err(FoeError::InvalidUtility(i));
    }
    if let Some(i) = group.iter().position(|&g| g > 1) {
        return Err(FoeError::InvalidGroup(i));
    }
    let v = &exposure[..n];
    for j in 0..n {
        if !v[j].is_finite() || v[j] < 0.0 || (j > 0 && v[j] > v[j - 1]) {
            return Err(FoeError::InvalidExposure(j));
        }
    }

    let fallback = |outcome| -> Result<Solution, FoeError> {
        let ranking = utility_ranking(utility);
        let m = Marginals::from_ranking(&ranking)?;
        Ok(Solution {
            lp_marginals: m.clone(),
            marginals: m,
            outcome,
            mixture: vec![(1.0, ranking)],
            classes: Vec::new(),
        })
    };

    let mut merit = [0.0f64; 2];
    for (u, g) in utility.iter().zip(group) {
        merit[usize::from(*g)] += u;
    }
    if merit[0] <= 0.0 || merit[1] <= 0.0 {
        return fallback(Outcome::ZeroMerit);
    }

    let problem = lp::Problem::new(utility, group, v, merit, variant);
    let mixture = match problem.solve()? {
        Some(mixture) => mixture,
        None => return fallback(Outcome::Infeasible),
    };

    let mut lp_marginals = Marginals::zeros(n);
    let mut marginals = Marginals::zeros(n);
    for (weight, column) in &mixture {
        for (j, &item) in column.ranking.iter().enumerate() {
            let cell = usize::from(item) * n + j;
            marginals.p[cell] += weight;
            if j < column.placed {
                lp_marginals.p[cell] += weight;
            }
        }
    }
    let classes = tie_classes(utility, group);
    symmetrise(&mut marginals, &classes);
    symmetrise(&mut lp_marginals, &classes);
    Ok(Solution {
        marginals,
        lp_marginals,
        outcome: Outcome::Optimal,
        mixture: mixture
            .into_iter()
            .map(|(w, column)| (w, column.ranking))
            .collect(),
        classes,
    })
}

/// Items grouped by equal (utility, group), only the classes with more than one item.
fn tie_classes(utility: &[f64], group: &[u8]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..utility.len()).collect();
    order.sort_by(|&a, &b| {
        group[a]
            .cmp(&group[b])
            .then(utility[a].total_cmp(&utility[b]))
    });
    let mut classes = Vec::new();
    let mut start = 0;
    for k in 1..=order.len() {
        let boundary = k == order.len()
            || group[order[k]] != group[order[start]]
            || utility[order[k]] != utility[order[start]];
        if boundary {
            if k - start > 1 {
                classes.push(order[start..k].to_vec());
            }
            start = k;
        }
    }
    classes
}

/// Replace each row of a tie class by the class mean: constraints, objective and DT keep
/// their values because the members share utility and group.
fn symmetrise(m: &mut Marginals, classes: &[Vec<usize>]) {
    let n = m.n;
    let mut mean = vec![0.0; n];
    for class in classes {
        mean.iter_mut().for_each(|x| *x = 0.0);
        for &i in class {
            for (acc, x) in mean.iter_mut().zip(&m.p[i * n..(i + 1) * n]) {
                *acc += x;
            }
        }
        let k = class.len() as f64;
        mean.iter_mut().for_each(|x| *x /= k);
        for &i in class {
            m.p[i * n..(i + 1) * n].copy_from_slice(&mean);
        }
    }
}

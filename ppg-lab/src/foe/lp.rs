//! The FOE LP by column generation over rankings (see the module documentation of `foe` for
//! the derivation), with microlp solving the restricted master's dual.

use microlp::{ComparisonOp, OptimizationDirection, Problem as LpProblem};

use super::{FoeError, FoeVariant};

/// A vertex of the LP's polytope: a ranking whose first `placed` positions hold the LP's
/// assignment (all of them for the hard variant); the rest is the soft variant's completion.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Column {
    /// `ranking[j]` is the item at position `j`.
    pub ranking: Vec<u16>,
    /// Positions `0..placed` carry LP mass.
    pub placed: usize,
    /// `sum_{j < placed} u[ranking[j]] v[j]`.
    pub utility: f64,
    /// DT gap `sum_{j < placed} f[ranking[j]] v[j]`, `f = 1/U0` in group 0, `-1/U1` in 1.
    pub dt: f64,
}

/// Which ranking the pricing step builds.
#[derive(Debug, Clone, Copy)]
enum Price {
    /// Items by `u_i - lambda f_i`, descending.
    Lambda(f64),
    /// The limit of `Lambda` as lambda runs to minus (group 0) or plus (group 1) infinity:
    /// that group first (the soft variant places only that group).
    GroupFirst(u8),
}

pub(super) struct Problem<'a> {
    u: &'a [f64],
    group: &'a [u8],
    v: &'a [f64],
    f: Vec<f64>,
    variant: FoeVariant,
    /// Bound on `|dt|` of any column: `sum v * max(1/U0, 1/U1)`.
    dt_scale: f64,
}

/// Weighted columns mixing to the LP optimum (weights sum to 1).
pub(super) type Mixture = Vec<(f64, Column)>;

impl<'a> Problem<'a> {
    /// `merit[g]` = summed utility of group `g`, both positive.
    pub fn new(
        u: &'a [f64],
        group: &'a [u8],
        v: &'a [f64],
        merit: [f64; 2],
        variant: FoeVariant,
    ) -> Self {
        let f = group
            .iter()
            .map(|&g| {
                if g == 0 {
                    1.0 / merit[0]
                } else {
                    -1.0 / merit[1]
                }
            })
            .collect();
        let dt_scale = v.iter().sum::<f64>() * (1.0 / merit[0]).max(1.0 / merit[1]);
        Problem {
            u,
            group,
            v,
            f,
            variant,
            dt_scale,
        }
    }

    /// The LP optimum as a mixture of at most two columns; `None` if infeasible (hard only).
    pub fn solve(&self) -> Result<Option<Mixture>, FoeError> {
        let n = self.u.len();
        let eps_dt = 1e-12 * self.dt_scale;
        let mut columns = vec![self.price(Price::Lambda(0.0))];
        for c in [
            self.price(Price::GroupFirst(0)),
            self.price(Price::GroupFirst(1)),
        ] {
            if !columns.contains(&c) {
                columns.push(c);
            }
        }
        match self.variant {
            FoeVariant::Hard => {
                // GroupFirst(0) has the largest dt a permutation can reach, GroupFirst(1)
                // the smallest (rearrangement inequality): DT is reachable iff they straddle 0.
                let dt_max = columns.iter().map(|c| c.dt).fold(f64::MIN, f64::max);
                let dt_min = columns.iter().map(|c| c.dt).fold(f64::MAX, f64::min);
                if dt_max < -eps_dt || dt_min > eps_dt {
                    return Ok(None);
                }
            }
            FoeVariant::Soft => columns.push(self.complete(Vec::new(), 0)),
        }

        let u_scale = columns.iter().map(|c| c.utility).fold(0.0, f64::max);
        if u_scale > 0.0 && self.dt_scale > 0.0 {
            self.generate(&mut columns, u_scale, n)?;
        }
        Ok(recover(columns, eps_dt))
    }

    /// Kelley's cutting planes on the dual `min_lambda max_k U_k - lambda D_k`: each round
    /// solves the restricted dual with microlp and prices the ranking that is best at its
    /// lambda, until that ranking improves on nothing.
    ///
    /// microlp's answers are exact to its feasibility tolerance (1e-7), coarser than the
    /// differences between neighbouring rankings of a long list. When its lambda prices no
    /// new ranking, the round is repeated at the exact lambda of the restricted optimum (the
    /// crossing of the two cuts [`best_vertex`] picks); only when that adds nothing either
    /// is the optimum final.
    fn generate(&self, columns: &mut Vec<Column>, u_scale: f64, n: usize) -> Result<(), FoeError> {
        // Rankings are finitely many and each round adds a new one, so this cap is a guard
        // against numerical trouble, not a limit on honest progress (1-D Kelley settles
        // within tens of rounds on the TREC lists).
        let max_rounds = 64 + 4 * n;
        let eps_dt = 1e-12 * self.dt_scale;
        for _ in 0..max_rounds {
            let (mu, lambda) = self.master(columns, u_scale)?;
            let c = self.price(Price::Lambda(lambda));
            if c.utility - lambda * c.dt > mu + 1e-10 * u_scale && !columns.contains(&c) {
                columns.push(c);
                continue;
            }
            // Polish: the exact dual of the restricted master.
            let Some(vertex) = best_vertex(columns, eps_dt) else {
                return Ok(());
            };
            let Some(lambda) = vertex.lambda(columns) else {
                return Ok(()); // one ranking with D = 0: any lambda of the cut is dual optimal
            };
            let c = self.price(Price::Lambda(lambda));
            if c.utility - lambda * c.dt > vertex.utility + 1e-12 * u_scale && !columns.contains(&c)
            {
                columns.push(c);
                continue;
            }
            return Ok(());
        }
        Err(FoeError::NoConvergence)
    }

    /// Solve `min mu` s.t. `mu + D_k lambda >= U_k` in units where `U` and `D` are `O(1)`;
    /// returns `(mu, lambda)` in the problem's units.
    fn master(&self, columns: &[Column], u_scale: f64) -> Result<(f64, f64), FoeError> {
        let mut lp = LpProblem::new(OptimizationDirection::Minimize);
        let mu = lp.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
        let lambda = lp.add_var(0.0, (f64::NEG_INFINITY, f64::INFINITY));
        for c in columns {
            let d = c.dt / self.dt_scale;
            // A slope below 1e-9 next to mu's 1 is out of the solver's recommended range; a
            // flat cut only moves where the next ranking is priced, never the final mixture,
            // which `recover` computes from the exact gaps.
            if d.abs() < 1e-9 {
                lp.add_constraint([(mu, 1.0)], ComparisonOp::Ge, c.utility / u_scale);
            } else {
                lp.add_constraint(
                    [(mu, 1.0), (lambda, d)],
                    ComparisonOp::Ge,
                    c.utility / u_scale,
                );
            }
        }
        let solution = lp
            .solve()
            .map_err(|e| FoeError::Solver(e.to_string()))?
            .into_solution()
            .map_err(|_| FoeError::Solver("master LP interrupted".into()))?;
        Ok((
            solution.var_value(mu) * u_scale,
            solution.var_value(lambda) * u_scale / self.dt_scale,
        ))
    }

    /// The best vertex for the given prices.
    fn price(&self, price: Price) -> Column {
        let n = self.u.len();
        let mut order: Vec<u16> = (0..n).map(|i| i as u16).collect();
        let by_utility = |a: &u16, b: &u16| {
            let (a, b) = (usize::from(*a), usize::from(*b));
            self.u[b].total_cmp(&self.u[a]).then(b.cmp(&a))
        };
        let placed = match price {
            Price::Lambda(lambda) => {
                let score: Vec<f64> = (0..n).map(|i| self.u[i] - lambda * self.f[i]).collect();
                order.sort_by(|&a, &b| {
                    let (a, b) = (usize::from(a), usize::from(b));
                    score[b].total_cmp(&score[a]).then(b.cmp(&a))
                });
                match self.variant {
                    FoeVariant::Hard => n,
                    FoeVariant::Soft => score.iter().filter(|&&s| s > 0.0).count(),
                }
            }
            Price::GroupFirst(first) => {
                order.sort_by(|a, b| {
                    let (ga, gb) = (self.group[usize::from(*a)], self.group[usize::from(*b)]);
                    (ga != first).cmp(&(gb != first)).then(by_utility(a, b))
                });
                match self.variant {
                    FoeVariant::Hard => n,
                    FoeVariant::Soft => self.group.iter().filter(|&&g| g == first).count(),
                }
            }
        };
        order[placed..].sort_by(by_utility);
        self.complete(order, placed)
    }

    /// A column from its ranking; an empty `order` means nothing placed, the rest by utility.
    fn complete(&self, mut order: Vec<u16>, placed: usize) -> Column {
        if order.is_empty() {
            order = super::utility_ranking(self.u);
        }
        let (mut utility, mut dt) = (0.0, 0.0);
        for (j, &item) in order[..placed].iter().enumerate() {
            utility += self.u[usize::from(item)] * self.v[j];
            dt += self.f[usize::from(item)] * self.v[j];
        }
        Column {
            ranking: order,
            placed,
            utility,
            dt,
        }
    }
}

/// A vertex of the restricted master `{theta >= 0, sum theta = 1, sum theta D = 0}`: column
/// `a` with weight `theta`, column `b` with `1 - theta` (`a == b`: one column with `D = 0`).
struct Vertex {
    a: usize,
    b: usize,
    theta: f64,
    utility: f64,
}

impl Vertex {
    /// The dual lambda where the cuts of `a` and `b` cross; `None` for a single column.
    fn lambda(&self, columns: &[Column]) -> Option<f64> {
        let (a, b) = (&columns[self.a], &columns[self.b]);
        (self.a != self.b).then(|| (a.utility - b.utility) / (a.dt - b.dt))
    }
}

/// The restricted master's optimum. A vertex has at most two nonzero weights, so try every
/// column with `D = 0` and every pair with opposite signs mixed to `D = 0`; keep the best
/// utility (the first on ties, singles before pairs).
fn best_vertex(columns: &[Column], eps_dt: f64) -> Option<Vertex> {
    let mut best: Option<Vertex> = None;
    let mut consider = |v: Vertex| {
        if best
            .as_ref()
            .is_none_or(|b| v.utility > b.utility + 1e-12 * (1.0 + b.utility.abs()))
        {
            best = Some(v);
        }
    };
    for (a, c) in columns.iter().enumerate() {
        if c.dt.abs() <= eps_dt {
            consider(Vertex {
                a,
                b: a,
                theta: 1.0,
                utility: c.utility,
            });
        }
    }
    for (a, ca) in columns.iter().enumerate().filter(|(_, c)| c.dt < -eps_dt) {
        for (b, cb) in columns.iter().enumerate().filter(|(_, c)| c.dt > eps_dt) {
            let theta = cb.dt / (cb.dt - ca.dt);
            consider(Vertex {
                a,
                b,
                theta,
                utility: theta * ca.utility + (1.0 - theta) * cb.utility,
            });
        }
    }
    best
}

/// The mixture of the restricted master's optimum.
fn recover(mut columns: Vec<Column>, eps_dt: f64) -> Option<Mixture> {
    let v = best_vertex(&columns, eps_dt)?;
    if v.a == v.b {
        return Some(vec![(1.0, columns.swap_remove(v.a))]);
    }
    let (ca, cb) = (columns[v.a].clone(), columns[v.b].clone());
    Some(vec![(v.theta, ca), (1.0 - v.theta, cb)])
}

/// The full `n^2`-variable LP, solved by microlp: the reference the tests compare with.
/// Returns the optimum and `P` row-major.
#[cfg(test)]
pub(super) fn full_lp(
    u: &[f64],
    group: &[u8],
    v: &[f64],
    variant: FoeVariant,
) -> Result<(f64, Vec<f64>), microlp::Error> {
    let n = u.len();
    let mut merit = [0.0; 2];
    for (x, g) in u.iter().zip(group) {
        merit[usize::from(*g)] += x;
    }
    let mut lp = LpProblem::new(OptimizationDirection::Maximize);
    let x: Vec<_> = (0..n * n)
        .map(|k| lp.add_var(u[k / n] * v[k % n], (0.0, 1.0)))
        .collect();
    let sums = match variant {
        FoeVariant::Hard => ComparisonOp::Eq,
        FoeVariant::Soft => ComparisonOp::Le,
    };
    for i in 0..n {
        let row: Vec<_> = (0..n).map(|j| (x[i * n + j], 1.0)).collect();
        lp.add_constraint(&row[..], sums, 1.0);
        let col: Vec<_> = (0..n).map(|k| (x[k * n + i], 1.0)).collect();
        lp.add_constraint(&col[..], sums, 1.0);
    }
    let dt: Vec<_> = (0..n * n)
        .map(|k| {
            let f = if group[k / n] == 0 {
                1.0 / merit[0]
            } else {
                -1.0 / merit[1]
            };
            (x[k], f * v[k % n])
        })
        .collect();
    lp.add_constraint(&dt[..], ComparisonOp::Eq, 0.0);
    let solution = lp
        .solve()?
        .into_solution()
        .map_err(|_| microlp::Error::InternalError("interrupted".into()))?;
    let p = x.iter().map(|&var| solution.var_value(var)).collect();
    Ok((solution.objective(), p))
}

//! Birkhoff-von Neumann decomposition of a doubly stochastic matrix into weighted rankings,
//! and sampling of sessions from the mixture.

use ppg_core::Rng;

use super::{FoeError, Marginals};

/// Entries at or below this count as zero: round-off left by the subtractions.
const ZERO: f64 = 1e-12;
/// The decomposition stops once the weights found sum to within this of 1.
const DONE: f64 = 1e-9;

/// Decompose `marginals` into weighted rankings: `P = sum_k w_k Perm(r_k)` with
/// `r_k[j]` the item at position `j` (the layout of [`sample_rankings`]' output).
///
/// The textbook algorithm: find a perfect matching on the support of the remainder
/// (Hopcroft-Karp, keeping the matched pairs that are still in the support), subtract it
/// weighted by its smallest entry, repeat until the weights sum to 1 within 1e-9. Each step
/// zeroes at least one entry, so there are at most as many rankings as nonzero entries.
///
/// For a doubly stochastic input the weights sum to 1 (within 1e-9) and the rankings
/// reconstruct `P` to round-off. For any other input it stops when the support has no
/// perfect matching left and returns what it found (weights summing to less than 1).
/// An empty matrix gives one empty ranking of weight 1.
pub fn birkhoff(marginals: &Marginals) -> Vec<(f64, Vec<u16>)> {
    let n = marginals.n();
    if n == 0 {
        return vec![(1.0, Vec::new())];
    }
    let mut rest = marginals.as_slice().to_vec();
    let mut adj: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| rest[i * n + j] > ZERO)
                .map(|j| j as u32)
                .collect()
        })
        .collect();
    let mut matching = Matching::new(n);
    let mut out = Vec::new();
    let mut total = 0.0;
    while total < 1.0 - DONE && matching.complete(&adj) {
        let weight = (0..n)
            .map(|i| rest[i * n + matching.col_of[i]])
            .fold(f64::INFINITY, f64::min);
        let mut ranking = vec![0u16; n];
        for i in 0..n {
            let j = matching.col_of[i];
            ranking[j] = i as u16;
            let cell = &mut rest[i * n + j];
            *cell -= weight;
            if *cell <= ZERO {
                *cell = 0.0;
                if let Some(k) = adj[i].iter().position(|&c| c as usize == j) {
                    adj[i].swap_remove(k);
                }
                matching.col_of[i] = FREE;
                matching.row_of[j] = FREE;
            }
        }
        out.push((weight, ranking));
        total += weight;
    }
    out
}

/// Draw `sessions` rankings independently from the mixture `decomposition` (weights need
/// not be normalised). The output holds `sessions` blocks of `n` item ids; position `k` of
/// block `s` is the item at rank `k` in session `s`, the layout the PPG engine uses.
///
/// # Errors
///
/// [`FoeError::EmptyDecomposition`] when there is nothing to draw from: no entries, a
/// negative or non-finite weight, no positive weight, or rankings of unequal length.
pub fn sample_rankings(
    decomposition: &[(f64, Vec<u16>)],
    sessions: usize,
    rng: &mut Rng,
) -> Result<Vec<u16>, FoeError> {
    let n = decomposition
        .first()
        .map(|(_, r)| r.len())
        .ok_or(FoeError::EmptyDecomposition)?;
    let mut cumulative = Vec::with_capacity(decomposition.len());
    let mut total = 0.0;
    let mut last_positive = None;
    for (k, (w, r)) in decomposition.iter().enumerate() {
        if r.len() != n || !w.is_finite() || *w < 0.0 {
            return Err(FoeError::EmptyDecomposition);
        }
        if *w > 0.0 {
            last_positive = Some(k);
        }
        total += w;
        cumulative.push(total);
    }
    let last_positive = last_positive.ok_or(FoeError::EmptyDecomposition)?;
    let mut out = Vec::with_capacity(sessions * n);
    for _ in 0..sessions {
        let x = rng.unit_f64() * total;
        // The first ranking whose cumulative weight exceeds x; zero weights are never hit.
        let k = cumulative.partition_point(|&c| c <= x).min(last_positive);
        out.extend_from_slice(&decomposition[k].1);
    }
    Ok(out)
}

const FREE: usize = usize::MAX;
const FAR: u32 = u32::MAX;

/// A bipartite matching rows (items) to columns (positions), grown by Hopcroft-Karp.
struct Matching {
    col_of: Vec<usize>,
    row_of: Vec<usize>,
    dist: Vec<u32>,
    next: Vec<usize>,
    queue: Vec<usize>,
    /// BFS level at which a free column was first reached.
    found: u32,
}

impl Matching {
    fn new(n: usize) -> Self {
        Matching {
            col_of: vec![FREE; n],
            row_of: vec![FREE; n],
            dist: vec![FAR; n],
            next: vec![0; n],
            queue: Vec::with_capacity(n),
            found: FAR,
        }
    }

    /// Extend to a perfect matching on `adj` if there is one; true if perfect.
    fn complete(&mut self, adj: &[Vec<u32>]) -> bool {
        while self.col_of.contains(&FREE) && self.layer(adj) {
            self.next.iter_mut().for_each(|k| *k = 0);
            for u in 0..adj.len() {
                if self.col_of[u] == FREE {
                    self.augment(adj, u);
                }
            }
        }
        !self.col_of.contains(&FREE)
    }

    /// BFS layers from the free rows; true if some free column is reachable.
    fn layer(&mut self, adj: &[Vec<u32>]) -> bool {
        self.queue.clear();
        for (u, d) in self.dist.iter_mut().enumerate() {
            if self.col_of[u] == FREE {
                *d = 0;
                self.queue.push(u);
            } else {
                *d = FAR;
            }
        }
        self.found = FAR;
        let mut head = 0;
        while head < self.queue.len() {
            let u = self.queue[head];
            head += 1;
            if self.dist[u] >= self.found {
                continue;
            }
            for &v in &adj[u] {
                let w = self.row_of[v as usize];
                if w == FREE {
                    self.found = self.found.min(self.dist[u].saturating_add(1));
                } else if self.dist[w] == FAR {
                    self.dist[w] = self.dist[u].saturating_add(1);
                    self.queue.push(w);
                }
            }
        }
        self.found != FAR
    }

    /// Depth-first search for an augmenting path along the layers, from row `u`.
    fn augment(&mut self, adj: &[Vec<u32>], u: usize) -> bool {
        while self.next[u] < adj[u].len() {
            let v = adj[u][self.next[u]] as usize;
            self.next[u] += 1;
            let w = self.row_of[v];
            let ok = if w == FREE {
                self.dist[u].saturating_add(1) == self.found
            } else {
                self.dist[w] == self.dist[u].saturating_add(1) && self.augment(adj, w)
            };
            if ok {
                self.col_of[u] = v;
                self.row_of[v] = u;
                return true;
            }
        }
        self.dist[u] = FAR;
        false
    }
}

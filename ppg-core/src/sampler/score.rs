//! The exact score: the gradient of the sampler's own log-probability of a ranking.
//!
//! A decision with weight `w` and correction product `pi` passes with
//! `p = w / D`, `D = w + (1 - w) pi`. Its log-probability has the derivative
//! `1/w - (1 - pi)/D` (pass) or `-1/(1 - w) - (1 - pi)/D` (stop) in `w`, and
//! `c / (1 - w_x)` in every weight `w_x` that `pi` multiplies, with `c = (1 - w) pi / D`
//! (pass) or `c - 1` (stop). Those `w_x` are a row range and a column range of the merge, so
//! the `c` terms are range-added into difference arrays and resolved once per merge: the
//! exact score costs `O(n^2)` per sample like the sampler itself.
//!
//! Uses the walk of `merge`, `log_prob` and the weights of `pairs`.

use super::log_prob::LogProb;
use super::merge::{Decision, Walk};
use crate::pairs::Weights;

/// Replays a ranking and adds `scale` times its exact score into `grad`.
pub(crate) struct ScoreWalk<'a> {
    pub pos: &'a [u16],
    pub w: Weights<'a>,
    pub grad: &'a mut [f32],
    pub scale: f64,
    pub corrected: bool,
    /// `top capacity x (bottom capacity + 1)`: range adds along a moving item's row.
    pub diff_row: &'a mut [f64],
    /// `bottom capacity x (top capacity + 1)`: range adds down a column.
    pub diff_col: &'a mut [f64],
    pub row_stride: usize,
    pub col_stride: usize,
    pub log_prob: LogProb,
    /// False once a decision took an outcome of probability zero.
    pub possible: bool,
}

impl Walk for ScoreWalk<'_> {
    fn decide(&mut self, d: &Decision) -> bool {
        let pass = self.pos[d.x as usize] > self.pos[d.y as usize];
        let prob = if pass { d.p } else { 1.0 - d.p };
        self.log_prob.times(prob);
        if prob <= 0.0 {
            self.possible = false;
            return pass;
        }
        if d.w <= 0.0 || prob >= 1.0 {
            // A certain outcome carries no gradient.
            return pass;
        }
        let denom = d.w + (1.0 - d.w) * d.pi;
        let shared = (1.0 - d.pi) / denom;
        let direct = if pass {
            1.0 / d.w - shared
        } else {
            -1.0 / (1.0 - d.w) - shared
        };
        self.grad[d.pair] += (self.scale * direct) as f32;
        if self.corrected {
            let mut c = (1.0 - d.w) * d.pi / denom;
            if !pass {
                c -= 1.0;
            }
            let row = &mut self.diff_row[d.t * self.row_stride..];
            row[d.i + 1] += c;
            row[d.bound] -= c;
            let col = &mut self.diff_col[d.i * self.col_stride..];
            col[0] += c;
            col[d.t] -= c;
        }
        pass
    }

    fn merged(&mut self, top: &[u16], bottom: &[u16]) {
        if !self.corrected {
            return;
        }
        let (nt, nb) = (top.len(), bottom.len());
        // Columns to running sums down the top half, then rows along the bottom half.
        for j in 0..nb {
            let col = &mut self.diff_col[j * self.col_stride..j * self.col_stride + nt + 1];
            for r in 1..=nt {
                col[r] += col[r - 1];
            }
        }
        for (t, &x) in top.iter().enumerate() {
            let mut along = 0.0;
            let row = &mut self.diff_row[t * self.row_stride..t * self.row_stride + nb + 1];
            for (j, &y) in bottom.iter().enumerate() {
                along += row[j];
                let total = along + self.diff_col[j * self.col_stride + t];
                if total != 0.0 {
                    let pair = self.w.pair(x as usize, y as usize);
                    let keep = 1.0 - self.w.w[pair] as f64;
                    if keep > 0.0 {
                        self.grad[pair] += (self.scale * total / keep) as f32;
                    }
                }
            }
            row.fill(0.0);
        }
        for j in 0..nb {
            self.diff_col[j * self.col_stride..j * self.col_stride + nt + 1].fill(0.0);
        }
    }
}

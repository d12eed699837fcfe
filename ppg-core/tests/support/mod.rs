//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ppg_core::{Dims, Ppg};

/// Every permutation of `0..n`, in lexicographic order.
pub fn permutations(n: usize) -> Vec<Vec<u16>> {
    let mut out = Vec::new();
    let mut p: Vec<u16> = (0..n as u16).collect();
    loop {
        out.push(p.clone());
        let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
            break;
        };
        let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).unwrap();
        p.swap(i - 1, j);
        p[i..].reverse();
    }
    out
}

/// A heap buffer big enough for an engine of shape `dims`.
pub fn memory(dims: Dims) -> Vec<u8> {
    vec![0u8; Ppg::bytes(dims)]
}

/// A small deterministic generator for test inputs (not the engine's).
pub struct TestRng(pub u64);

impl TestRng {
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl TestRng {
    /// A standard normal draw (Box-Muller, the cosine half).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit(); // in (0, 1]: the logarithm is finite
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// A graded query of `n` items shaped like MSLR-WEB (issue 36): labels 0-4 at 26/38/23/6/8 %,
/// two groups with 45 % of the items in group 1, and a continuous model score
/// `label + N(0, 1)`, so that the input (by score) is the model's order, not the labels'.
/// Drawn again until both groups are present, each with some utility (DTR's valid query).
/// Returns (score, label, group).
pub fn graded_query(rng: &mut TestRng, n: usize) -> (Vec<f64>, Vec<f64>, Vec<u8>) {
    const SHARES: [f64; 5] = [0.26, 0.38, 0.23, 0.06, 0.08];
    loop {
        let label: Vec<f64> = (0..n)
            .map(|_| {
                let mut u = rng.unit();
                let mut grade = 0;
                while grade < 4 && u >= SHARES[grade] {
                    u -= SHARES[grade];
                    grade += 1;
                }
                grade as f64
            })
            .collect();
        let group: Vec<u8> = (0..n).map(|_| u8::from(rng.unit() < 0.45)).collect();
        let score: Vec<f64> = label.iter().map(|&y| y + rng.normal()).collect();
        let utility_of = |g: u8| -> f64 {
            label
                .iter()
                .zip(&group)
                .filter(|&(_, &h)| h == g)
                .map(|(y, _)| y)
                .sum()
        };
        if utility_of(0) > 0.0 && utility_of(1) > 0.0 {
            return (score, label, group);
        }
    }
}

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

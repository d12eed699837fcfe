//! Seeds by query id: the rule for jobs that cannot know a query's position in the input.
//!
//! `ppg rerank` seeds query `k` (0-based, input order) with `query_seed(seed, k)`. A
//! distributed job (Spark) sees a query without its position, so it seeds the query from
//! the text of its id instead: the UTF-8 bytes, in 8-byte little-endian words (the last
//! zero-padded), after their count, through the same mixer as every other derived seed.

use ppg_core::seed;

/// The seed of the query whose id reads `qid`, under the user's `seed`.
pub fn of(seed: u64, qid: &str) -> u64 {
    let bytes = qid.as_bytes();
    let mut parts = Vec::with_capacity(1 + bytes.len().div_ceil(8));
    parts.push(bytes.len() as u64);
    parts.extend(bytes.chunks(8).map(|c| {
        let mut word = [0u8; 8];
        word[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(word)
    }));
    seed::derive(seed, &parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_on_every_byte_and_the_length() {
        assert_ne!(of(0, "q1"), of(0, "q2"));
        assert_ne!(of(0, "q"), of(0, "q\0"));
        assert_ne!(of(0, "abcdefgh1"), of(0, "abcdefgh2"));
        assert_ne!(of(0, "q1"), of(1, "q1"));
        // Pinned: a Spark job re-run next year must seed its queries as today.
        assert_eq!(of(0, "q1"), seed::derive(0, &[2, 0x3171]));
    }
}

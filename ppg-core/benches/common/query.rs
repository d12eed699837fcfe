//! The query the speed figures are measured on, shared by the criterion benchmark and the
//! examples that profile and time it: `items` items graded 4 down to 0 in equal bands, every
//! third item in group 1, exposure `1 / log2(rank + 1)` from rank 1.

use ppg_core::objective::{exposure, Eel, RankStart};

pub struct Query {
    pub utility: Vec<f64>,
    pub groups: Vec<u8>,
    pub exposure: Vec<f64>,
}

impl Query {
    pub fn new(items: usize) -> Self {
        let mut table = vec![0f64; items];
        exposure::fill(RankStart::One, &mut table);
        Query {
            utility: (0..items)
                .map(|i| ((items - i) * 5 / items) as f64)
                .collect(),
            groups: (0..items).map(|i| (i % 3 == 1) as u8).collect(),
            exposure: table,
        }
    }

    /// EEL with 5 grade levels, as the reference recipe runs it.
    pub fn eel(&self) -> Eel<'_> {
        Eel::new(&self.utility, &self.groups, 5, &self.exposure).unwrap()
    }
}

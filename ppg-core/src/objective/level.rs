//! Whether expected exposure compares items or groups: a module of its own because both the
//! metric (`expected_exposure.rs`) and its bound (`ee_bound.rs`), which the metric uses,
//! read it.

/// Whether exposure is compared item by item or summed over groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Individual items (the evaluator without `-g`).
    Item,
    /// Groups of items (`-g`, TREC 2020's setting).
    Group,
}

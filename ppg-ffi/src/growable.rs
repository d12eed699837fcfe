//! Growable structs: the caller-allocated structs that later versions may extend
//! (`ppg_train_config`, `ppg_objective_config`, `ppg_train_report`).
//!
//! Each begins with `uint32_t struct_size`, the caller's `sizeof`. A layout is the struct
//! as one header version declares it; this library knows the layouts of its own line
//! (the first 0.2 layout up to its own), listed by the end of each layout's last field.
//! A caller's `struct_size` must be the `sizeof` of one of them: the library then reads
//! or writes that layout's fields only (its tail padding is never touched, so a field
//! appended into an older layout's padding is not read from garbage), and the fields the
//! caller's layout lacks take their defaults. Any other size is
//! `PPG_STATUS_VERSION_MISMATCH`: a header newer than the library, or a struct that its
//! `_default`/`_init` function never filled.
//!
//! Fields are only ever appended. Appending one adds its new end to [`Growable::LAYOUTS`]
//! (a test checks that every layout's `sizeof` differs from the one before, which a field
//! that fits in the previous tail padding alone would break: add two fields at once then,
//! or a wider one).
//!
//! The unsafe copies live in `boundary.rs` (`read_growable`, `GrowableOut`, `init_growable`).

use crate::status::{ppg_status, Status};
use crate::types::{ppg_objective_config, ppg_train_config, ppg_train_report, ByteBool};
use core::mem::{align_of, offset_of, size_of};

/// A caller-allocated struct that begins with `uint32_t struct_size`.
pub(crate) trait Growable: Copy {
    /// Where each layout this library knows ends (the end of its last field), oldest
    /// first; the last is this library's own.
    const LAYOUTS: &'static [usize];

    /// The defaults of every field, `struct_size` set to this library's `sizeof`: what a
    /// field past the caller's layout reads as.
    fn defaults() -> Self;

    /// What the struct's `_init` function writes; [`Growable::defaults`] unless a struct
    /// says otherwise (`ppg_train_config`: the recommended recipe, while a field an older
    /// layout lacks stays off).
    fn initial() -> Self {
        Self::defaults()
    }

    /// The caller's `sizeof` of the layout that ends at `end`.
    fn size_of_layout(end: usize) -> usize {
        end.next_multiple_of(align_of::<Self>())
    }

    /// The bytes to read or write for a caller's `struct_size`: the end of the layout
    /// whose `sizeof` it is, or `PPG_STATUS_VERSION_MISMATCH`.
    fn known_end(struct_size: usize) -> Status<usize> {
        Self::LAYOUTS
            .iter()
            .copied()
            .find(|&end| Self::size_of_layout(end) == struct_size)
            .ok_or(ppg_status::VersionMismatch)
    }
}

impl Growable for ppg_train_config {
    // 0.2.0: the first layout has the fields of 0.1.0's first release (80 bytes there),
    // the second adds `grow` (which 0.1.0 appended in place, growing the struct unnoticed:
    // the reason for `struct_size`).
    // The third (issue 29) adds the recommended recipe's `intra`, `hold`, `certify` and
    // `certify_tolerance`; read from an older layout they are off, as that caller's
    // library had them.
    const LAYOUTS: &'static [usize] = &[
        offset_of!(ppg_train_config, pl_learning_rate) + size_of::<f64>(),
        offset_of!(ppg_train_config, grow) + size_of::<ByteBool>(),
        offset_of!(ppg_train_config, certify_tolerance) + size_of::<f64>(),
    ];

    fn defaults() -> Self {
        ppg_train_config::reference()
    }

    fn initial() -> Self {
        ppg_train_config::recommended()
    }
}

impl Growable for ppg_objective_config {
    // 0.2.0: the first layout has 0.1.0's fields, the second adds the browsing model and
    // the level of `PPG_METRIC_EXPECTED_EXPOSURE`, the third its number (`ee_measure`
    // and `ee_raw`: two fields, as `ee_measure` alone would fit in the second's tail
    // padding and keep its sizeof).
    const LAYOUTS: &'static [usize] = &[
        offset_of!(ppg_objective_config, rank_start) + size_of::<u32>(),
        offset_of!(ppg_objective_config, ee_level) + size_of::<u32>(),
        offset_of!(ppg_objective_config, ee_raw) + size_of::<ByteBool>(),
        // The fourth (issue 38, point 8): AWRF's population.
        offset_of!(ppg_objective_config, awrf_groups) + size_of::<usize>(),
        // The fifth (issue 42, point 5): AWRF's depth.
        offset_of!(ppg_objective_config, awrf_depth) + size_of::<usize>(),
    ];

    fn defaults() -> Self {
        ppg_objective_config::reference()
    }
}

impl Growable for ppg_train_report {
    // The second (issue 29) adds the certificate, the third `passed_through`, the fourth
    // (issue 36 point 2) the relevance certificate.
    const LAYOUTS: &'static [usize] = &[
        offset_of!(ppg_train_report, best_epoch) + size_of::<i64>(),
        offset_of!(ppg_train_report, gap) + size_of::<f64>(),
        offset_of!(ppg_train_report, passed_through) + size_of::<bool>(),
        offset_of!(ppg_train_report, ndcg_exact) + size_of::<bool>(),
    ];

    /// A report of no run: nothing run, nothing scored.
    fn defaults() -> Self {
        ppg_train_report {
            // The structs are a few dozen bytes.
            struct_size: size_of::<Self>() as u32,
            epochs: 0,
            samples: 0,
            best_cost: f64::INFINITY,
            best_epoch: -1,
            certified: false,
            bound_exact: false,
            bound: f64::NAN,
            gap: f64::NAN,
            passed_through: false,
            ndcg: f64::NAN,
            ndcg_bound: f64::NAN,
            ndcg_gap: f64::NAN,
            ndcg_exact: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout's `sizeof` is larger than the one before (so a caller's `struct_size`
    /// names one layout) and the last is this library's struct.
    fn layouts_are_distinct_and_end_at_the_struct<T: Growable>() {
        let sizes = T::LAYOUTS.iter().map(|&end| T::size_of_layout(end));
        let mut previous = 0;
        for size in sizes {
            assert!(
                size > previous,
                "two layouts of one sizeof: {:?}",
                T::LAYOUTS
            );
            assert_eq!(T::known_end(size).map(T::size_of_layout), Ok(size));
            previous = size;
        }
        assert_eq!(previous, size_of::<T>());
        assert_eq!(
            T::known_end(previous + align_of::<T>()),
            Err(ppg_status::VersionMismatch)
        );
        assert_eq!(T::known_end(0), Err(ppg_status::VersionMismatch));
    }

    #[test]
    fn every_growable_struct_lists_its_layouts() {
        layouts_are_distinct_and_end_at_the_struct::<ppg_train_config>();
        layouts_are_distinct_and_end_at_the_struct::<ppg_objective_config>();
        layouts_are_distinct_and_end_at_the_struct::<ppg_train_report>();
        let own = |size: usize| u32::try_from(size).unwrap();
        let config = ppg_train_config::defaults().struct_size;
        assert_eq!(config, own(size_of::<ppg_train_config>()));
        let objective = ppg_objective_config::defaults().struct_size;
        assert_eq!(objective, own(size_of::<ppg_objective_config>()));
        let report = ppg_train_report::defaults().struct_size;
        assert_eq!(report, own(size_of::<ppg_train_report>()));
    }
}

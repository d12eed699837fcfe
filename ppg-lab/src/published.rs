//! The paper's published numbers (4 sessions), as `paper/protocol.md` lists them.

use crate::args::DataUtility;
use ppg_host::cost::Metric;

/// A published row: DTR, EEL, NDCG@10 of the DTR run, NDCG@10 of the EEL run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub dtr: Option<f64>,
    pub eel: Option<f64>,
    pub ndcg_dtr: Option<f64>,
    pub ndcg_eel: Option<f64>,
}

impl Row {
    /// (fairness, NDCG@10) for `metric`.
    pub fn get(&self, metric: Metric) -> (Option<f64>, Option<f64>) {
        match metric {
            Metric::Dtr => (self.dtr, self.ndcg_dtr),
            Metric::Eel => (self.eel, self.ndcg_eel),
            // The paper published neither.
            Metric::Ee | Metric::Awrf | Metric::Awrf2022 => (None, None),
        }
    }
}

const fn row(dtr: f64, eel: f64, ndcg_dtr: f64, ndcg_eel: f64) -> Row {
    Row {
        dtr: Some(dtr),
        eel: Some(eel),
        ndcg_dtr: Some(ndcg_dtr),
        ndcg_eel: Some(ndcg_eel),
    }
}

const fn foe(dtr: f64, ndcg_dtr: f64) -> Row {
    Row {
        dtr: Some(dtr),
        eel: None,
        ndcg_dtr: Some(ndcg_dtr),
        ndcg_eel: None,
    }
}

/// The published row of `method` (our method name) on `dataset` ("trec2019" or
/// "trec2020") for `utility`. The LTR and Ideal rankings do not depend on the utility:
/// each is published in one table only and that row is returned for both.
pub fn published(dataset: &str, utility: DataUtility, method: &str) -> Option<Row> {
    use DataUtility::{Label, Ltr};
    Some(match (dataset, utility, method) {
        ("trec2019", Ltr, "foe-soft") => foe(1.898, 0.805),
        ("trec2019", Ltr, "foe-hard") => foe(1.944, 0.803),
        ("trec2019", Ltr, "pl") => row(1.939, 0.052, 0.817, 0.793),
        ("trec2019", Ltr, "ppg") => row(1.925, 0.047, 0.806, 0.780),
        ("trec2019", Ltr, "ppg-intra") => row(1.938, 0.047, 0.812, 0.790),
        ("trec2019", _, "ltr") => row(1.901, 0.053, 0.816, 0.798),
        ("trec2019", Ltr, "rand") => row(1.848, 0.030, 0.792, 0.754),
        ("trec2020", Ltr, "foe-soft") => foe(2.966, 0.376),
        ("trec2020", Ltr, "foe-hard") => foe(3.047, 0.371),
        ("trec2020", Ltr, "pl") => row(2.981, 0.180, 0.369, 0.388),
        ("trec2020", Ltr, "ppg") => row(2.969, 0.158, 0.361, 0.378),
        ("trec2020", Ltr, "ppg-intra") => row(2.979, 0.158, 0.370, 0.379),
        ("trec2020", _, "ltr") => row(3.004, 0.173, 0.373, 0.386),
        ("trec2020", Ltr, "rand") => row(2.948, 0.118, 0.334, 0.352),
        ("trec2019", Label, "foe-soft") => foe(1.898, 0.799),
        ("trec2019", Label, "foe-hard") => foe(1.885, 0.799),
        ("trec2019", Label, "pl") => row(1.632, 0.008, 0.892, 0.881),
        ("trec2019", Label, "ppg") => row(1.320, 0.000, 0.881, 0.900),
        ("trec2019", Label, "ppg-intra") => row(1.309, 0.000, 0.978, 0.989),
        ("trec2019", _, "ideal") => row(1.668, 0.014, 1.000, 1.000),
        ("trec2019", Label, "rand") => row(1.870, 0.031, 0.794, 0.754),
        ("trec2020", Label, "foe-soft") => foe(2.974, 0.368),
        ("trec2020", Label, "foe-hard") => foe(3.044, 0.357),
        ("trec2020", Label, "pl") => row(2.722, 0.036, 0.545, 0.577),
        ("trec2020", Label, "ppg") => row(2.141, 0.000, 0.574, 0.819),
        ("trec2020", Label, "ppg-intra") => row(1.825, 0.000, 0.894, 0.984),
        ("trec2020", _, "ideal") => row(2.538, 0.023, 1.000, 1.000),
        ("trec2020", Label, "rand") => row(2.957, 0.107, 0.337, 0.349),
        _ => return None,
    })
}

/// The deterministic rows protocol.md recomputes with its rules (4 sessions): what an
/// implementation of the metrics must give to the third decimal.
pub fn deterministic(dataset: &str, method: &str) -> Option<Row> {
    Some(match (dataset, method) {
        ("trec2019", "ideal") => row(1.668, 0.014, 1.000, 1.000),
        ("trec2019", "ltr") => row(1.901, 0.053, 0.817, 0.798),
        ("trec2020", "ideal") => row(2.499, 0.027, 1.000, 1.000),
        ("trec2020", "ltr") => row(2.986, 0.180, 0.385, 0.396),
        _ => return None,
    })
}

/// The protocol's re-run of the reference implementation (PPG + intra, 4 sessions, one
/// run): fairness, NDCG@10 and the seconds it took for all queries.
pub fn reference_run(
    dataset: &str,
    utility: DataUtility,
    metric: Metric,
) -> Option<(f64, f64, f64)> {
    use DataUtility::{Label, Ltr};
    use Metric::{Dtr, Eel};
    Some(match (dataset, utility, metric) {
        ("trec2019", Label, Dtr) => (1.309, 0.976, 134.0),
        ("trec2019", Label, Eel) => (0.000, 0.988, 155.0),
        ("trec2019", Ltr, Dtr) => (1.940, 0.808, 114.0),
        ("trec2019", Ltr, Eel) => (0.047, 0.788, 134.0),
        ("trec2020", Label, Dtr) => (1.923, 0.896, 367.0),
        ("trec2020", Label, Eel) => (0.000, 0.975, 317.0),
        ("trec2020", Ltr, Dtr) => (2.976, 0.389, 377.0),
        ("trec2020", Ltr, Eel) => (0.158, 0.390, 308.0),
        _ => return None,
    })
}

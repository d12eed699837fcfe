//! TREC 2022's AWRF from the host's side: the per-item attribute table (side data, not a
//! column of the rerank input), the per-attribute [`Unknown`] policy and the target, read
//! once per request ([`AttributeSpec`]); each query's rows laid out in the arrays the
//! core's [`Awrf2022`] borrows ([`QueryAttributes`]). A request carries its spec in
//! [`crate::rerank_query::RerankSpec::attributes`]; one query is re-ranked under it by
//! [`crate::rerank_attributes`].
//!
//! The table is long: `item attribute level weight` per line, whitespace-separated,
//! `#` comments and blank lines skipped. A level named [`UNKNOWN`] is unknown mass; an
//! item listed under some attribute but not another is unknown in that one; an item not
//! listed at all has no alignment and is dropped with its attention, as TREC 2022's
//! `qr_awrf` dropped pages it had no alignment for.
//!
//! The file is about 420 lines: the files' readers, the spec they make and the query's
//! rows built from it are one format, read together; its tests are
//! `ppg-host/tests/attributes.rs`.

use std::collections::HashMap;
use std::io::BufRead;

pub use ppg_core::objective::awrf2022::Unknown;
use ppg_core::objective::awrf2022::{unknown_row, Attributes, Awrf2022, Target2022, Work2022};
use ppg_core::objective::AwrfCost;

/// TREC 2022's name of the unknown level.
pub const UNKNOWN: &str = "@UNKNOWN";

/// The raw level of unknown mass (replaced by the attribute's known-level count).
const RAW_UNKNOWN: u16 = u16::MAX;

/// An error of a file, at a 1-based line (0: the file as a whole).
pub type LineError = (usize, String);

/// The attribute table of every item of a request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AttributeTable {
    /// Attribute names, in order of first appearance.
    pub names: Vec<String>,
    /// Each attribute's known level names, in order of first appearance.
    pub levels: Vec<Vec<String>>,
    /// Each item's entries: (attribute, raw level, weight).
    items: HashMap<String, Vec<(u16, u16, f64)>>,
}

impl AttributeTable {
    /// Reads the long table.
    ///
    /// # Errors
    /// The line and why: not four fields, a weight not finite and >= 0, an item's level
    /// given twice, more than 65,534 levels or attributes; an I/O error at line 0.
    pub fn read(input: impl BufRead) -> Result<Self, LineError> {
        let mut t = AttributeTable::default();
        let mut seen = std::collections::HashSet::new();
        for (index, line) in input.lines().enumerate() {
            let at = index + 1;
            let line = line.map_err(|e| (at, e.to_string()))?;
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [item, name, level, weight] = fields[..] else {
                return Err((
                    at,
                    format!(
                        "expected `item attribute level weight`, found {} fields",
                        fields.len()
                    ),
                ));
            };
            let weight: f64 = weight
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| (at, format!("weight {weight:?} is not a finite number >= 0")))?;
            let a = index_of(&mut t.names, name).ok_or((at, "too many attributes".to_owned()))?;
            if usize::from(a) == t.levels.len() {
                t.levels.push(Vec::new());
            }
            let l = if level == UNKNOWN {
                RAW_UNKNOWN
            } else {
                index_of(&mut t.levels[usize::from(a)], level)
                    .ok_or((at, format!("attribute {name:?} has too many levels")))?
            };
            if !seen.insert((item.to_owned(), a, l)) {
                return Err((
                    at,
                    format!("item {item:?} has level {level:?} of {name:?} twice"),
                ));
            }
            t.items
                .entry(item.to_owned())
                .or_default()
                .push((a, l, weight));
        }
        if t.names.is_empty() {
            return Err((0, "the table has no entry".to_owned()));
        }
        Ok(t)
    }

    /// Reads a table of `attribute level weight` lines into a dense vector per attribute
    /// over its known levels (`with_unknown`: and [`UNKNOWN`] last), adding levels this
    /// table has not seen; an attribute not listed gets an empty vector.
    ///
    /// # Errors
    /// The line and why: not three fields, an attribute the table does not have, a bad
    /// weight, a level given twice, [`UNKNOWN`] where it has no place.
    pub fn read_per_attribute(
        &mut self,
        input: impl BufRead,
        with_unknown: bool,
    ) -> Result<Vec<Vec<f64>>, LineError> {
        let mut raw: Vec<Vec<(u16, f64)>> = vec![Vec::new(); self.names.len()];
        for (index, line) in input.lines().enumerate() {
            let at = index + 1;
            let line = line.map_err(|e| (at, e.to_string()))?;
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [name, level, weight] = fields[..] else {
                return Err((
                    at,
                    format!(
                        "expected `attribute level weight`, found {} fields",
                        fields.len()
                    ),
                ));
            };
            let a = self.names.iter().position(|n| n == name).ok_or_else(|| {
                (
                    at,
                    format!("attribute {name:?} is not in the attribute table"),
                )
            })?;
            let weight: f64 = weight
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| (at, format!("weight {weight:?} is not a finite number >= 0")))?;
            let l = if level == UNKNOWN {
                if !with_unknown {
                    return Err((
                        at,
                        format!(
                            "{UNKNOWN} has no background (a background is over the known levels)"
                        ),
                    ));
                }
                RAW_UNKNOWN
            } else {
                index_of(&mut self.levels[a], level)
                    .ok_or((at, format!("attribute {name:?} has too many levels")))?
            };
            if raw[a].iter().any(|&(x, _)| x == l) {
                return Err((at, format!("level {level:?} of {name:?} is given twice")));
            }
            raw[a].push((l, weight));
        }
        Ok(raw
            .into_iter()
            .zip(&self.levels)
            .map(|(entries, levels)| {
                if entries.is_empty() {
                    return Vec::new();
                }
                let mut dense = vec![0.0; levels.len() + usize::from(with_unknown)];
                for (l, w) in entries {
                    let at = if l == RAW_UNKNOWN {
                        levels.len()
                    } else {
                        usize::from(l)
                    };
                    dense[at] = w;
                }
                dense
            })
            .collect())
    }
}

/// Where a name is in `names`, added at the end if absent (`None` past 65,534 names).
fn index_of(names: &mut Vec<String>, name: &str) -> Option<u16> {
    let at = match names.iter().position(|n| n == name) {
        Some(at) => at,
        None => {
            names.push(name.to_owned());
            names.len() - 1
        }
    };
    u16::try_from(at).ok().filter(|&a| a < RAW_UNKNOWN)
}

/// The target of a request.
#[derive(Debug, Clone, PartialEq)]
pub enum TargetSpec {
    /// The organisers': from the query's relevant items, with a background per attribute
    /// (over its known levels; empty: none).
    Trec(Vec<Vec<f64>>),
    /// Given marginals per attribute, over every level ([`UNKNOWN`] last where the policy
    /// is [`Unknown::Level`]); the joint target is their product.
    Marginals(Vec<Vec<f64>>),
}

/// What a request scores TREC 2022's AWRF with: the table, a policy per attribute, the
/// target.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeSpec {
    /// The items' attributes.
    pub table: AttributeTable,
    /// The unknown policy of each attribute of the table.
    pub policy: Vec<Unknown>,
    /// The target.
    pub target: TargetSpec,
}

impl AttributeSpec {
    /// The spec, with a background normalised to sum 1 and marginals checked against the
    /// policies' levels.
    ///
    /// # Errors
    /// Why, naming the attribute: a background or marginal of no mass, marginals of
    /// another length than the attribute's levels, a policy count other than the table's.
    pub fn new(
        table: AttributeTable,
        policy: Vec<Unknown>,
        target: TargetSpec,
    ) -> Result<Self, String> {
        if policy.len() != table.names.len() {
            return Err(format!(
                "{} policies for {} attributes",
                policy.len(),
                table.names.len()
            ));
        }
        let mut target = target;
        let marginals = matches!(target, TargetSpec::Marginals(_));
        let (TargetSpec::Trec(values) | TargetSpec::Marginals(values)) = &mut target;
        values.resize(table.names.len(), Vec::new());
        for (a, v) in values.iter_mut().enumerate() {
            let name = &table.names[a];
            if v.is_empty() {
                if marginals {
                    return Err(format!("attribute {name:?} has no target"));
                }
                continue;
            }
            let known = table.levels[a].len();
            // Marginals are read with the unknown level last; a background without it.
            let unknown = if marginals {
                v.last().copied().unwrap_or(0.0)
            } else {
                0.0
            };
            let keep = known + usize::from(marginals && policy[a] == Unknown::Level);
            if marginals && policy[a] != Unknown::Level && unknown > 0.0 {
                return Err(format!(
                    "the target of attribute {name:?} has {UNKNOWN} mass, but its policy keeps no unknown level"
                ));
            }
            if marginals {
                v.truncate(v.len() - 1);
                v.resize(known, 0.0);
                if keep > known {
                    v.push(unknown);
                }
            } else {
                v.resize(known, 0.0);
            }
            let sum: f64 = v.iter().sum();
            if sum.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return Err(format!("the target of attribute {name:?} has no mass"));
            }
            v.iter_mut().for_each(|x| *x /= sum);
        }
        Ok(AttributeSpec {
            table,
            policy,
            target,
        })
    }
}

/// Which input of a request's attribute spec an error is in ([`read_spec`]), for each
/// front end to name as it names that input (a flag and its file, an argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecInput {
    /// The items' table (`--attributes`).
    Table,
    /// The backgrounds (`--attribute-background`).
    Background,
    /// The given marginals (`--attribute-target`).
    Target,
    /// An unknown policy (`--attribute-unknown`).
    Unknown,
    /// The target as a whole, once read.
    Spec,
}

/// The unknown policy named `name`: "level", "drop" or "uniform".
pub fn policy(name: &str) -> Option<Unknown> {
    match name {
        "level" => Some(Unknown::Level),
        "drop" => Some(Unknown::Drop),
        "uniform" => Some(Unknown::Uniform),
        _ => None,
    }
}

/// A request's attribute spec from its inputs, as every front end reads them: the long
/// table, at most one of a background and a given target (`attribute level weight`
/// lines; neither: TREC's target without backgrounds), and `(attribute, policy)` pairs
/// (the others [`Unknown::Level`]).
///
/// # Errors
/// The input at fault and its line (0: the input as a whole) with why.
pub fn read_spec(
    table: impl BufRead,
    background: Option<impl BufRead>,
    target: Option<impl BufRead>,
    unknown: &[(String, String)],
) -> Result<AttributeSpec, (SpecInput, LineError)> {
    let mut table = AttributeTable::read(table).map_err(|e| (SpecInput::Table, e))?;
    let target = match (background, target) {
        (Some(_), Some(_)) => {
            return Err((
                SpecInput::Target,
                (0, "give a background or a target, not both".into()),
            ))
        }
        (_, Some(t)) => TargetSpec::Marginals(
            table
                .read_per_attribute(t, true)
                .map_err(|e| (SpecInput::Target, e))?,
        ),
        (Some(b), None) => TargetSpec::Trec(
            table
                .read_per_attribute(b, false)
                .map_err(|e| (SpecInput::Background, e))?,
        ),
        (None, None) => TargetSpec::Trec(Vec::new()),
    };
    let mut policies = vec![Unknown::Level; table.names.len()];
    for (name, p) in unknown {
        let bad = |why: &str| (SpecInput::Unknown, (0, format!("{name:?}: {why}")));
        let a = table
            .names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| bad("no such attribute in the table"))?;
        policies[a] = policy(p).ok_or_else(|| bad("the policy is level, drop or uniform"))?;
    }
    AttributeSpec::new(table, policies, target).map_err(|m| (SpecInput::Spec, (0, m)))
}

/// One query's rows (in the order of the items given), and the target's ranges, owned.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryAttributes {
    levels: Vec<u16>,
    unknown: Vec<bool>,
    start: Vec<u32>,
    level: Vec<u16>,
    weight: Vec<f64>,
    tstart: Vec<u32>,
    tvalue: Vec<f64>,
    marginal: bool,
}

impl QueryAttributes {
    /// The rows of `items` under `spec`'s policies.
    ///
    /// # Errors
    /// The core's refusal of a row (a row of no mass).
    pub fn build(spec: &AttributeSpec, items: &[&str]) -> Result<Self, String> {
        let t = &spec.table;
        let k = t.names.len();
        let known: Vec<u16> = t.levels.iter().map(|l| l.len() as u16).collect();
        let mut q = QueryAttributes {
            levels: known
                .iter()
                .zip(&spec.policy)
                .map(|(&l, &p)| l + u16::from(p == Unknown::Level))
                .collect(),
            unknown: spec.policy.iter().map(|&p| p == Unknown::Level).collect(),
            start: vec![0],
            level: Vec::new(),
            weight: Vec::new(),
            tstart: vec![0],
            tvalue: Vec::new(),
            marginal: matches!(spec.target, TargetSpec::Marginals(_)),
        };
        let (mut out_l, mut out_w) = (Vec::new(), Vec::new());
        for &item in items {
            let entries = t.items.get(item);
            #[allow(clippy::needless_range_loop)]
            for a in 0..k {
                if let Some(entries) = entries {
                    let mine = entries.iter().filter(|e| usize::from(e.0) == a);
                    let lv: Vec<u16> = mine
                        .clone()
                        .map(|e| if e.1 == RAW_UNKNOWN { known[a] } else { e.1 })
                        .collect();
                    let wt: Vec<f64> = mine.map(|e| e.2).collect();
                    out_l.resize(usize::from(known[a]) + 1, 0);
                    out_w.resize(usize::from(known[a]) + 1, 0.0);
                    let n = unknown_row(spec.policy[a], known[a], &lv, &wt, &mut out_l, &mut out_w)
                        .map_err(|e| format!("item {item:?}, attribute {:?}: {e}", t.names[a]))?;
                    q.level.extend_from_slice(&out_l[..n]);
                    q.weight.extend_from_slice(&out_w[..n]);
                }
                q.start.push(q.level.len() as u32);
            }
        }
        let (TargetSpec::Trec(values) | TargetSpec::Marginals(values)) = &spec.target;
        for v in values {
            q.tvalue.extend_from_slice(v);
            q.tstart.push(q.tvalue.len() as u32);
        }
        Ok(q)
    }

    /// The rows as the core borrows them.
    pub fn attributes(&self) -> Attributes<'_> {
        Attributes {
            levels: &self.levels,
            unknown: &self.unknown,
            start: &self.start,
            level: &self.level,
            weight: &self.weight,
        }
    }

    /// The target as the core borrows it.
    pub fn target(&self) -> Target2022<'_> {
        if self.marginal {
            Target2022::Marginals {
                start: &self.tstart,
                value: &self.tvalue,
            }
        } else {
            Target2022::Trec {
                start: &self.tstart,
                background: &self.tvalue,
            }
        }
    }
}

/// The scratch of one query's metric, owned.
#[derive(Debug, Default)]
pub struct Scratch {
    key: Vec<u16>,
    cell: Vec<u32>,
    value: Vec<f64>,
    item: Vec<u32>,
    cells: Vec<f64>,
    memo: Vec<f64>,
}

/// The metric of `q`'s list with `utility`, `discount` the attention table, in `scratch`.
///
/// # Errors
/// The core's refusals ([`Awrf2022::new`]).
pub fn metric<'a>(
    q: &QueryAttributes,
    utility: &'a [f64],
    discount: &'a [f64],
    scratch: &'a mut Scratch,
) -> Result<Awrf2022<'a>, ppg_core::Error> {
    let n = utility.len();
    let c = Awrf2022::contributions(&q.attributes(), n)?;
    let k = q.levels.len();
    let [key, cell, value, item, cells, memo] = Work2022::lengths(c, n, k);
    scratch.key.resize(key, 0);
    scratch.cell.resize(cell, 0);
    scratch.value.resize(value, 0.0);
    scratch.item.resize(item, 0);
    scratch.cells.resize(cells, 0.0);
    scratch.memo.resize(memo, 0.0);
    let work = Work2022 {
        key: &mut scratch.key,
        cell: &mut scratch.cell,
        value: &mut scratch.value,
        item: &mut scratch.item,
        cells: &mut scratch.cells,
        memo: &mut scratch.memo,
    };
    Awrf2022::new(
        utility,
        &q.attributes(),
        q.target(),
        discount,
        work,
        AwrfCost::Product,
    )
}

/// TREC 2022's AWRF, NDCG and their product of `ranking` (`sessions` blocks of the ids
/// `0..n`) over the list of `items` (named in `spec`'s table) with `utility`, at TREC's
/// attention `1 / log2(max(r, 2))`: what `ppg.metrics.awrf2022` returns.
///
/// # Errors
/// Why: the rows' or the core's refusal, a malformed ranking.
pub fn score(
    spec: &AttributeSpec,
    items: &[&str],
    utility: &[f64],
    ranking: &[u16],
    sessions: usize,
) -> Result<ppg_core::objective::AwrfReport, String> {
    if items.len() != utility.len() {
        return Err(format!(
            "{} items for {} utilities",
            items.len(),
            utility.len()
        ));
    }
    let q = QueryAttributes::build(spec, items)?;
    let mut discount = vec![0.0; utility.len()];
    ppg_core::objective::Awrf::discount(&mut discount);
    let mut scratch = Scratch::default();
    let mut m = metric(&q, utility, &discount, &mut scratch).map_err(|e| e.to_string())?;
    m.report(ranking, sessions).ok_or_else(|| {
        format!(
            "expected {sessions} rankings of the ids 0..{}",
            utility.len()
        )
    })
}

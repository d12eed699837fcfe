//! TREC 2022's AWRF from the host's side: the per-item attribute table (side data, not a
//! column of the rerank input), the per-attribute [`Unknown`] policy and the target, read
//! once per request ([`AttributeSpec`]); each query's rows laid out in the arrays the
//! core's `Awrf2022` borrows (`crate::rerank_attributes::QueryAttributes`). A request
//! carries its spec in [`crate::rerank_query::RerankSpec::attributes`]; one query is laid
//! out, scored and re-ranked under it by [`crate::rerank_attributes`].
//!
//! The table is long: `item attribute level weight` per line, whitespace-separated,
//! `#` comments and blank lines skipped. A level named [`UNKNOWN`] is unknown mass; an
//! item listed under some attribute but not another is unknown in that one; an item not
//! listed at all has no alignment and is dropped with its attention, as TREC 2022's
//! `qr_awrf` dropped pages it had no alignment for.
//!
//! The file is about 360 lines: the files' readers and the spec they make are one format,
//! read together; its tests are `ppg-host/tests/attributes.rs`.

use std::collections::HashMap;
use std::io::BufRead;

pub use ppg_core::objective::awrf2022::Unknown;

/// TREC 2022's name of the unknown level.
pub const UNKNOWN: &str = "@UNKNOWN";

/// The raw level of unknown mass (replaced by the attribute's known-level count).
pub(crate) const RAW_UNKNOWN: u16 = u16::MAX;

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
    pub(crate) items: HashMap<String, Vec<(u16, u16, f64)>>,
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

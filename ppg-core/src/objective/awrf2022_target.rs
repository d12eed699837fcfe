//! The data of TREC 2022's AWRF ([`super::awrf2022`]): the items' per-attribute rows, the
//! policy for an unknown attribute value, and the target's value at one cell of the joint
//! space.
//!
//! The target is evaluated cell by cell, never laid out: [`target_at`] gives its mass at
//! one combination of levels from the relevant items' rows alone, so the metric asks it
//! only at the cells the list can reach (see the metric's docs for why that is exact).

use crate::Error;

/// What an item's unknown value of an attribute becomes (chosen per attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// An explicit level of its own, the attribute's last (TREC 2022's `@UNKNOWN`).
    Level,
    /// Dropped: the unknown mass leaves the distribution (TREC 2021 left pages of unknown
    /// geography out); an item unknown in the attribute drops out with its attention.
    Drop,
    /// Spread evenly over the attribute's known levels (as `wptrec/dimension.py` fills a
    /// missing page of an attribute that has no unknown level).
    Uniform,
}

/// Each item's rows, one per attribute, after the [`Unknown`] policy ([`unknown_row`]):
/// compressed sparse rows, item-major. Item `i`'s row of attribute `k` is entries
/// `start[i * K + k]..start[i * K + k + 1]` of `level` and `weight` (`K` = the number
/// of attributes); an empty row gives the item no mass (it is dropped).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attributes<'a> {
    /// Levels of each attribute (the unknown level included where there is one).
    pub levels: &'a [u16],
    /// Whether each attribute's last level is its unknown ([`Unknown::Level`]).
    pub unknown: &'a [bool],
    /// Row starts: `items * K + 1` offsets, non-decreasing, the last `level.len()`.
    pub start: &'a [u32],
    /// Level of each entry, below its attribute's `levels`; distinct within a row.
    pub level: &'a [u16],
    /// Weight of each entry, finite and >= 0.
    pub weight: &'a [f64],
}

impl Attributes<'_> {
    /// The number of attributes.
    pub fn attributes(&self) -> usize {
        self.levels.len()
    }

    /// Item `i`'s row of attribute `k`: its levels and weights.
    pub fn row(&self, i: usize, k: usize) -> (&[u16], &[f64]) {
        let at = i * self.levels.len() + k;
        let (a, b) = (self.start[at] as usize, self.start[at + 1] as usize);
        (&self.level[a..b], &self.weight[a..b])
    }

    /// Item `i`'s weight of level `l` in attribute `k` (0 where its row has none).
    pub fn value(&self, i: usize, k: usize, l: u16) -> f64 {
        let (level, weight) = self.row(i, k);
        level
            .iter()
            .position(|&x| x == l)
            .map_or(0.0, |at| weight[at])
    }

    /// Item `i`'s mass in attribute `k`: its row's sum, and the part on its unknown level.
    fn mass(&self, i: usize, k: usize) -> (f64, f64) {
        let (_, weight) = self.row(i, k);
        let unknown = if self.unknown[k] {
            self.value(i, k, self.levels[k] - 1)
        } else {
            0.0
        };
        (weight.iter().sum(), unknown)
    }

    /// Checks the shapes and values for `items` items.
    ///
    /// # Errors
    /// [`Error::Empty`] for no attribute or an attribute of no level,
    /// [`Error::LengthMismatch`] for arrays of other lengths, [`Error::InvalidConfig`]
    /// for decreasing offsets, a level out of range or repeated in a row, a negative
    /// weight; [`Error::NotFinite`] for a NaN or infinite weight.
    pub fn check(&self, items: usize) -> Result<(), Error> {
        let k = self.levels.len();
        if k == 0 || self.levels.contains(&0) {
            return Err(Error::Empty);
        }
        let expect = |expected: usize, found: usize| {
            if expected == found {
                Ok(())
            } else {
                Err(Error::LengthMismatch { expected, found })
            }
        };
        expect(k, self.unknown.len())?;
        expect(items * k + 1, self.start.len())?;
        expect(self.level.len(), self.weight.len())?;
        expect(self.level.len(), self.start[items * k] as usize)?;
        super::exposure::check_finite(self.weight)?;
        if self.weight.iter().any(|&w| w < 0.0) {
            return Err(Error::InvalidConfig("attribute weights must be >= 0"));
        }
        if self.start[0] != 0 || self.start.windows(2).any(|w| w[0] > w[1]) {
            return Err(Error::InvalidConfig(
                "attribute row offsets must not decrease",
            ));
        }
        for i in 0..items {
            for a in 0..k {
                let (level, _) = self.row(i, a);
                for (at, &l) in level.iter().enumerate() {
                    if l >= self.levels[a] || level[..at].contains(&l) {
                        return Err(Error::InvalidConfig(
                            "an attribute level is out of range or repeated in its row",
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Writes an item's row of an attribute with `known` known levels under `policy`, from
/// its raw entries (`level` below `known`, or `known` itself for unknown mass, each level
/// once; no entry at all: the item's value is unknown). The row is normalised over all
/// its mass, the unknown part included, then the unknown mass becomes level `known`
/// ([`Unknown::Level`]), is dropped, or is spread evenly over the `known` levels. Returns
/// the entries written.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out_level` or `out_weight` is too short (`known + 1`
/// always suffices), [`Error::InvalidConfig`] for a level above `known`, a negative or
/// non-finite weight, or entries of no mass.
pub fn unknown_row(
    policy: Unknown,
    known: u16,
    level: &[u16],
    weight: &[f64],
    out_level: &mut [u16],
    out_weight: &mut [f64],
) -> Result<usize, Error> {
    if level.iter().any(|&l| l > known) || weight.iter().any(|&w| !(w >= 0.0 && w.is_finite())) {
        return Err(Error::InvalidConfig(
            "an attribute entry has a level out of range or a bad weight",
        ));
    }
    let total: f64 = weight.iter().sum();
    if !level.is_empty() && total <= 0.0 {
        return Err(Error::InvalidConfig("an item's attribute row has no mass"));
    }
    let unknown = if level.is_empty() {
        1.0
    } else {
        level
            .iter()
            .zip(weight)
            .filter(|(&l, _)| l == known)
            .map(|(_, &w)| w / total)
            .sum()
    };
    let known_entries = level.iter().zip(weight).filter(|(&l, _)| l < known);
    let needed = match policy {
        Unknown::Level => level.iter().filter(|&&l| l < known).count() + usize::from(unknown > 0.0),
        Unknown::Drop => level.iter().filter(|&&l| l < known).count(),
        Unknown::Uniform if unknown > 0.0 => usize::from(known),
        Unknown::Uniform => level.len(),
    };
    if out_level.len() < needed || out_weight.len() < needed {
        return Err(Error::LengthMismatch {
            expected: needed,
            found: out_level.len().min(out_weight.len()),
        });
    }
    if policy == Unknown::Uniform && unknown > 0.0 {
        let share = unknown / f64::from(known);
        for l in 0..known {
            out_level[usize::from(l)] = l;
            out_weight[usize::from(l)] = share;
        }
        for (&l, &w) in known_entries {
            out_weight[usize::from(l)] += w / total;
        }
        return Ok(needed);
    }
    let mut at = 0;
    for (&l, &w) in known_entries {
        out_level[at] = l;
        out_weight[at] = w / total;
        at += 1;
    }
    if policy == Unknown::Level && unknown > 0.0 {
        out_level[at] = known;
        out_weight[at] = unknown;
        at += 1;
    }
    Ok(at)
}

/// Where the target comes from. `start` has `K + 1` offsets into the values, one range
/// per attribute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target2022<'t> {
    /// Given per attribute, dense over its levels (normalised here); the joint target is
    /// their product.
    Marginals {
        /// Offsets of each attribute's range.
        start: &'t [u32],
        /// The marginals.
        value: &'t [f64],
    },
    /// The organisers' (`Task1Alignment.py`): the relevant items' mean joint alignment,
    /// averaged 50/50 with a background for each attribute given one (dense over its known
    /// levels, normalised here; an empty range: none), within each pattern of known and
    /// unknown values of those attributes (`avg_with_bg`).
    Trec {
        /// Offsets of each attribute's range.
        start: &'t [u32],
        /// The backgrounds.
        background: &'t [f64],
    },
}

impl Target2022<'_> {
    /// The offsets and values.
    pub(super) fn parts(&self) -> (&[u32], &[f64]) {
        match *self {
            Target2022::Marginals { start, value } => (start, value),
            Target2022::Trec { start, background } => (start, background),
        }
    }
}

/// The unnormalised mass of the organisers' target at `cell` (one level per attribute),
/// from the relevant items `relevant` of `attrs`, with `background` as [`Target2022::Trec`]
/// gives it (each range summing to 1 or empty). The whole target's mass is
/// [`trec_mass`]. Follows `avg_with_bg` of `Task1Alignment.py`: with `A` the attributes
/// with a background and `S` those of them whose value at `cell` is known, the mean
/// alignment `tm` becomes `0.5 tm + 0.5 c_S bg_S(cell) tm(cell) / tail(cell)`, where `c_S`
/// is `tm`'s mass on every cell of the same known pattern, `bg_S` the product of the known
/// attributes' backgrounds, `tail` `tm` summed over the other attributes (where that is 0,
/// `tm / tail` becomes the other attributes' marginal of `tm`, normalised); left as it is
/// where `S` is empty.
pub(super) fn trec_at(
    attrs: &Attributes,
    relevant: impl Iterator<Item = usize> + Clone,
    start: &[u32],
    background: &[f64],
    cell: &[u16],
) -> f64 {
    let k = attrs.attributes();
    let has_bg = |a: usize| start[a + 1] > start[a];
    let known = |a: usize| !(attrs.unknown[a] && cell[a] == attrs.levels[a] - 1);
    let (mut tm, mut tail, mut pattern, mut marg, mut total) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let mut any_known = false;
    for a in 0..k {
        any_known |= has_bg(a) && known(a);
    }
    for j in relevant {
        let (mut x, mut t, mut c, mut m, mut all) = (1.0, 1.0, 1.0, 1.0, 1.0);
        for (a, &l) in cell.iter().enumerate().take(k) {
            let v = attrs.value(j, a, l);
            let (mass, unknown) = attrs.mass(j, a);
            x *= v;
            all *= mass;
            if has_bg(a) {
                t *= v;
                c *= if known(a) { mass - unknown } else { unknown };
                m *= mass;
            } else {
                t *= mass;
                c *= mass;
                m *= v;
            }
        }
        tm += x;
        tail += t;
        pattern += c;
        marg += m;
        total += all;
    }
    if !any_known {
        return tm;
    }
    let mut bg = 1.0;
    for a in (0..k).filter(|&a| has_bg(a) && known(a)) {
        bg *= background[start[a] as usize + usize::from(cell[a])];
    }
    let scale = if tail > 0.0 { tm / tail } else { marg / total };
    0.5 * tm + 0.5 * pattern * bg * scale
}

/// The whole mass of the organisers' target: `avg_with_bg` keeps each pattern's mass, so
/// it is the relevant items' summed joint mass, `sum_j prod_k mass_jk`.
pub(super) fn trec_mass(attrs: &Attributes, relevant: impl Iterator<Item = usize>) -> f64 {
    relevant
        .map(|j| {
            (0..attrs.attributes())
                .map(|a| attrs.mass(j, a).0)
                .product::<f64>()
        })
        .sum()
}

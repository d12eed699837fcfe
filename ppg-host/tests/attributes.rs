//! `ppg_host::attributes`: the long table, the per-attribute files, the policies and each
//! query's rows as the core borrows them.

use std::io::Cursor;

use ppg_host::attributes::{AttributeSpec, AttributeTable, TargetSpec, Unknown};
use ppg_host::rerank_attributes::QueryAttributes;

const TABLE: &str = "\
# item attribute level weight
a geo EU 3
a geo AS 1
a sex f 1
b geo @UNKNOWN 1
b sex m 2
c sex f 1
";

fn table() -> AttributeTable {
    AttributeTable::read(Cursor::new(TABLE)).unwrap()
}

type Row = (Vec<u16>, Vec<f64>);

fn rows(policy: Vec<Unknown>, items: &[&str]) -> Vec<Vec<Row>> {
    let spec = AttributeSpec::new(table(), policy, TargetSpec::Trec(vec![])).unwrap();
    let q = QueryAttributes::build(&spec, items).unwrap();
    let a = q.attributes();
    (0..items.len())
        .map(|i| {
            (0..2)
                .map(|k| {
                    let (l, w) = a.row(i, k);
                    (l.to_vec(), w.to_vec())
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_table_numbers_attributes_and_levels_in_order_of_appearance() {
    let t = table();
    assert_eq!(t.names, ["geo", "sex"]);
    assert_eq!(t.levels, [vec!["EU", "AS"], vec!["f", "m"]]);
}

#[test]
fn each_policy_lays_out_the_rows_it_promises() {
    // level: geo's unknown is level 2 (after EU, AS); c has no geo line: all unknown;
    // d is not in the table: no rows at all (dropped).
    let r = rows(vec![Unknown::Level, Unknown::Level], &["a", "b", "c", "d"]);
    assert_eq!(r[0][0], (vec![0, 1], vec![0.75, 0.25]));
    assert_eq!(r[1][0], (vec![2], vec![1.0]));
    assert_eq!(r[1][1], (vec![1], vec![1.0]));
    assert_eq!(r[2][0], (vec![2], vec![1.0]));
    assert_eq!(r[3], vec![(vec![], vec![]), (vec![], vec![])]);
    // drop: the unknown mass is gone; uniform: spread over EU and AS.
    let r = rows(vec![Unknown::Drop, Unknown::Level], &["b"]);
    assert_eq!(r[0][0], (vec![], vec![]));
    let r = rows(vec![Unknown::Uniform, Unknown::Level], &["b"]);
    assert_eq!(r[0][0], (vec![0, 1], vec![0.5, 0.5]));
}

#[test]
fn backgrounds_and_marginals_are_read_per_attribute_and_checked() {
    let mut t = table();
    let bg = t
        .read_per_attribute(Cursor::new("geo EU 1\ngeo AF 3\n"), false)
        .unwrap();
    // AF is a level no item has: it joins the attribute, and the target keeps its mass.
    assert_eq!(t.levels[0], ["EU", "AS", "AF"]);
    let spec =
        AttributeSpec::new(t.clone(), vec![Unknown::Level; 2], TargetSpec::Trec(bg)).unwrap();
    assert_eq!(
        spec.target,
        TargetSpec::Trec(vec![vec![0.25, 0.0, 0.75], vec![]])
    );
    let err = t
        .read_per_attribute(Cursor::new("geo @UNKNOWN 1\n"), false)
        .unwrap_err();
    assert_eq!(err.0, 1);
    let err = t
        .read_per_attribute(Cursor::new("\nage old 1\n"), false)
        .unwrap_err();
    assert_eq!(err.0, 2);
    assert!(err.1.contains("\"age\""));
    // Marginals: every attribute, the unknown level kept under `level` only.
    let m = t
        .read_per_attribute(Cursor::new("geo EU 1\ngeo @UNKNOWN 1\nsex f 1\n"), true)
        .unwrap();
    let spec = AttributeSpec::new(
        t.clone(),
        vec![Unknown::Level, Unknown::Drop],
        TargetSpec::Marginals(m.clone()),
    )
    .unwrap();
    assert_eq!(
        spec.target,
        TargetSpec::Marginals(vec![vec![0.5, 0.0, 0.0, 0.5], vec![1.0, 0.0]])
    );
    assert!(AttributeSpec::new(
        t.clone(),
        vec![Unknown::Drop, Unknown::Drop],
        TargetSpec::Marginals(m)
    )
    .is_err());
    let m = t
        .read_per_attribute(Cursor::new("geo EU 1\n"), true)
        .unwrap();
    let err = AttributeSpec::new(t, vec![Unknown::Level; 2], TargetSpec::Marginals(m)).unwrap_err();
    assert!(err.contains("\"sex\""), "{err}");
}

#[test]
fn the_table_refuses_bad_lines_at_their_line() {
    for (text, line) in [
        ("a geo EU\n", 1),
        ("a geo EU 1\n\na geo EU 2\n", 3),
        ("a geo EU nan\n", 1),
        ("# nothing\n", 0),
    ] {
        assert_eq!(
            AttributeTable::read(Cursor::new(text)).unwrap_err().0,
            line,
            "{text:?}"
        );
    }
}

//! Every crate of the workspace declares a `rust-version` no lower than the highest one its
//! dependencies declare, as `Cargo.lock` resolves them: the minimum Rust version the README
//! states is then true without a second toolchain, read from each dependency's own
//! `rust-version` (`cargo metadata`). A dependency that declares none is taken at its word
//! of nothing; the test names the dependency that raises a crate's minimum.

use std::collections::{HashMap, HashSet};
use std::process::Command;

use serde_json::Value;

/// "1.85" or "1.88.0" as comparable numbers (a missing patch is 0).
fn version(text: &str) -> [u64; 3] {
    let mut v = [0; 3];
    for (slot, part) in v.iter_mut().zip(text.split('.')) {
        *slot = part.parse().expect("a number");
    }
    v
}

#[test]
fn each_crate_declares_at_least_its_dependencies_rust_version() {
    let out = Command::new(env!("CARGO"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["metadata", "--format-version", "1", "--locked"])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    let packages: HashMap<&str, &Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: HashMap<&str, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let mut checked = 0;
    for member in meta["workspace_members"].as_array().unwrap() {
        let member = member.as_str().unwrap();
        // What a user's build compiles: normal and build dependencies, transitively.
        let (mut seen, mut stack) = (HashSet::new(), vec![member]);
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            for dep in nodes[id]["deps"].as_array().unwrap() {
                let used = dep["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null() || k["kind"].as_str() == Some("build"));
                if used {
                    stack.push(dep["pkg"].as_str().unwrap());
                }
            }
        }
        let name = packages[member]["name"].as_str().unwrap();
        let declared = packages[member]["rust_version"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} declares no rust-version"));
        let highest = seen
            .iter()
            .filter(|&&id| id != member)
            .filter_map(|id| {
                let p = packages[id];
                Some((
                    version(p["rust_version"].as_str()?),
                    p["name"].as_str().unwrap(),
                ))
            })
            .max();
        if let Some((needed, by)) = highest {
            assert!(
                version(declared) >= needed,
                "{name} declares rust-version {declared}, but its dependency {by} needs {needed:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} workspace crates checked");
}

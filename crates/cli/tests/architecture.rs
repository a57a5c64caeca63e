//! docs/ARCHITECTURE.md's crate table is the crate graph: each workspace
//! crate has a row, in its folder, and the row's "depends on" column is
//! exactly its normal dependencies on other workspace crates, as
//! `cargo metadata` reads them from the manifests.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// crate name -> (folder, workspace crates it depends on).
type Graph = BTreeMap<String, (String, BTreeSet<String>)>;

fn from_cargo(root: &Path) -> Graph {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    packages
        .iter()
        .map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str().unwrap());
            let folder = manifest
                .parent()
                .unwrap()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap())
                .filter(|name| names.contains(name))
                .map(str::to_owned)
                .collect();
            (p["name"].as_str().unwrap().to_owned(), (folder, deps))
        })
        .collect()
}

/// The rows of the table under "## Crate graph": `| `crate` | folder |
/// short names, comma-separated | job |`.
fn from_document(text: &str) -> Graph {
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Crate graph"))
        .expect("docs/ARCHITECTURE.md has a \"## Crate graph\" section");
    section
        .lines()
        .filter(|line| line.starts_with("| `agentctx"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells[1].trim_matches('`').to_owned();
            let deps = cells[3]
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| format!("agentctx-{d}"))
                .collect();
            (name, (cells[2].to_owned(), deps))
        })
        .collect()
}

#[test]
fn the_crate_table_is_the_crate_graph() {
    let root = workspace();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let documented = from_document(&text);
    let actual = from_cargo(&root);
    let names = |g: &Graph| g.keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(
        names(&documented),
        names(&actual),
        "the crates of docs/ARCHITECTURE.md's table and of the workspace"
    );
    for (name, (folder, deps)) in &actual {
        let (doc_folder, doc_deps) = &documented[name];
        assert_eq!(doc_folder, folder, "{name}'s folder");
        assert_eq!(
            doc_deps,
            deps,
            "{name} depends on (docs/ARCHITECTURE.md, then Cargo.toml); missing from the document: {:?}, not in Cargo.toml: {:?}",
            deps.difference(doc_deps).collect::<Vec<_>>(),
            doc_deps.difference(deps).collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_document_reader_sees_a_changed_row() {
    let text = "# A\n\n## Crate graph\n\n| crate | folder | depends on | job |\n|---|---|---|---|\n| `agentctx-x` | crates/x | types, fs | x |\n| `agentctx-types` | crates/shared-types | | t |\n\n## Next\n| `agentctx-y` | crates/y | | y |\n";
    let graph = from_document(text);
    assert_eq!(graph.len(), 2);
    assert_eq!(
        graph["agentctx-x"].1,
        BTreeSet::from(["agentctx-types".to_owned(), "agentctx-fs".to_owned()])
    );
    assert!(graph["agentctx-types"].1.is_empty());
}

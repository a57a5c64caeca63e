//! How much a file or directory is worth to an agent (seed 003 §8.2): the
//! one ranking every cut uses (entry limit, depth, token budget, compact).
//!
//! High: the files that explain a project (README, CONTRIBUTING, AGENTS.md),
//! its manifests and CI configuration, and the directories that hold its
//! code: packages (a directory with its own `__init__.py`, `Cargo.toml`,
//! `package.json`, `go.mod`, `pom.xml`, ...) and source and test roots.
//! Low: documentation, assets, fixtures, vendored and generated trees,
//! tool directories, and names that carry no meaning (hashes, dates).
//! Everything else is Normal. Below a Low directory everything is Low.

use crate::tree::{Node, ROOT, Tree};

/// A node's worth; the order is the ranking (High first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Shown first.
    High,
    /// Shown after High at the same depth.
    Normal,
    /// Shown when there is room left, after deeper Normal entries.
    Low,
}

/// Files that explain the project (case-insensitive prefixes).
const GUIDE_PREFIXES: [&str; 4] = ["readme", "contributing", "agents.md", "claude.md"];

/// Manifests and build files (exact names).
const MANIFESTS: [&str; 28] = [
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "Gemfile",
    "composer.json",
    "Makefile",
    "CMakeLists.txt",
    "Dockerfile",
    "docker-compose.yml",
    "tsconfig.json",
    "deno.json",
    "mix.exs",
    "Package.swift",
    "pnpm-workspace.yaml",
    "lerna.json",
    "flake.nix",
    "justfile",
    "meson.build",
    "build.zig",
];

/// CI configuration files (exact names).
const CI_FILES: [&str; 6] = [
    ".gitlab-ci.yml",
    ".travis.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    "bitbucket-pipelines.yml",
    "appveyor.yml",
];

/// A directory with one of these files is a package of its own.
const PACKAGE_MARKERS: [&str; 10] = [
    "__init__.py",
    "Cargo.toml",
    "package.json",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "pyproject.toml",
    "setup.py",
    "mix.exs",
];

/// Directories that hold code.
const SOURCE_DIRS: [&str; 12] = [
    "src", "lib", "app", "crates", "packages", "cmd", "pkg", "internal", "include", "source",
    "modules", ".github",
];

/// Directories that hold tests: High at the root (the project's test
/// suite), Normal inside a package (the package's own code comes first).
const TEST_DIRS: [&str; 4] = ["tests", "test", "spec", "__tests__"];

/// Directories of little use in a first look (case-insensitive).
const LOW_DIRS: [&str; 33] = [
    "docs",
    "doc",
    "documentation",
    "assets",
    "static",
    "public",
    "images",
    "img",
    "media",
    "fixtures",
    "testdata",
    "test-data",
    "test_data",
    "__snapshots__",
    "snapshots",
    "vendor",
    "vendored",
    "third_party",
    "third-party",
    "generated",
    "locale",
    "locales",
    "i18n",
    "translations",
    "artwork",
    "logos",
    // Code that shows the project rather than being it: a JS monorepo's
    // hundred playground packages must not take the budget its own
    // packages' sources need.
    "examples",
    "example",
    "samples",
    "sample",
    "playground",
    "demo",
    "demos",
];

/// A folder that holds tests (`tests`, `__tests__`, ...).
pub fn is_test_dir(name: &str) -> bool {
    TEST_DIRS.iter().any(|w| w.eq_ignore_ascii_case(name))
}

/// Every node's class, by id, down to `max_depth` (the root's children
/// are depth 1); deeper nodes are left Normal: no ranking looks at them,
/// and most of a large tree is deeper than a listing goes.
pub fn classify(tree: &Tree, max_depth: usize) -> Vec<Class> {
    let mut classes = vec![Class::Normal; tree.nodes.len()];
    let mut depth = vec![0usize; tree.nodes.len()];
    // Parents have smaller ids than their children: one pass top-down.
    for id in 1..tree.nodes.len() {
        let node = &tree.nodes[id];
        depth[id] = depth[node.parent] + 1;
        if depth[id] > max_depth {
            continue;
        }
        let inherited = if node.parent == ROOT {
            Class::Normal
        } else {
            classes[node.parent]
        };
        classes[id] = if inherited == Class::Low {
            Class::Low
        } else {
            own_class(tree, node, node.parent == ROOT)
        };
    }
    classes
}

fn own_class(tree: &Tree, node: &Node, at_root: bool) -> Class {
    let name = node.name;
    // The lists are lowercase: compared ignoring ASCII case, no name is
    // copied to lowercase it.
    let listed = |list: &[&str]| list.iter().any(|w| w.eq_ignore_ascii_case(name));
    let starts = |prefix: &str| {
        name.as_bytes()
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
    };
    if node.is_dir {
        // A name of little use wins over a package marker: a JS
        // monorepo's `docs/` and `playground/` are workspace packages too.
        if listed(&LOW_DIRS) {
            return Class::Low;
        }
        if is_package(tree, node) || listed(&SOURCE_DIRS) || (at_root && listed(&TEST_DIRS)) {
            return Class::High;
        }
        // `.github` is High above; other tool folders (`.circleci`,
        // `.husky`, `.devcontainer`) are Low, as are meaningless names.
        if name.starts_with('.') || is_dated(name) || is_hash_like(name) {
            return Class::Low;
        }
        return Class::Normal;
    }
    if starts("license") || starts("licence") {
        // Read once, at the root; every package's copy is noise.
        return if at_root { Class::High } else { Class::Low };
    }
    if GUIDE_PREFIXES.iter().any(|p| starts(p))
        || MANIFESTS.contains(&name)
        || CI_FILES.contains(&name)
        || (name.ends_with(".csproj") || name.ends_with(".sln"))
    {
        // A guide deep in a tree is worth what its neighbours are; at the
        // root and in packages it is the first thing to read.
        return Class::High;
    }
    let parent = &tree.nodes[node.parent];
    if parent.name == "workflows" && (name.ends_with(".yml") || name.ends_with(".yaml")) {
        return Class::High;
    }
    if (at_root && name.starts_with('.')) || is_hash_like(stem(name)) || is_dated(name) {
        return Class::Low;
    }
    Class::Normal
}

/// A directory with a package marker among its files.
fn is_package(tree: &Tree, node: &Node) -> bool {
    node.children.iter().any(|&c| {
        let child = &tree.nodes[c];
        !child.is_dir && PACKAGE_MARKERS.contains(&child.name)
    })
}

/// The name up to its first dot (`main.4f3a9b1c.js` → `main`, but
/// `4f3a9b1c5d.html` → `4f3a9b1c5d`).
fn stem(name: &str) -> &str {
    name.split('.').find(|s| !s.is_empty()).unwrap_or(name)
}

/// A name that is (or has a dot-separated part that is) a hash: at least 8
/// characters of hex, or at least 16 of base32/base64 letters and digits,
/// with both digits and letters.
pub fn is_hash_like(name: &str) -> bool {
    name.split(['.', '-', '_']).any(|part| {
        let digits = part.bytes().filter(u8::is_ascii_digit).count();
        let letters = part.bytes().filter(u8::is_ascii_alphabetic).count();
        if digits == 0 || letters == 0 || digits + letters != part.len() {
            return false;
        }
        let hex = part.bytes().all(|b| b.is_ascii_hexdigit());
        (hex && part.len() >= 8) || (part.len() >= 16 && digits >= 3)
    })
}

/// A name that starts with a date (`2024-01-05...`, `20240105...`).
pub fn is_dated(name: &str) -> bool {
    let b = name.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    let year_ok = |s: &[u8]| matches!(s, [b'1', b'9', ..] | [b'2', b'0', ..]);
    if digits(0..4) && year_ok(b) {
        if b.get(4) == Some(&b'-') && digits(5..7) && b.get(7) == Some(&b'-') && digits(8..10) {
            return true;
        }
        // `20240105`, followed by a non-digit or more digits (a time).
        let within = |r: std::ops::Range<usize>, low: &[u8], high: &[u8]| {
            b.get(r).is_some_and(|s| s >= low && s <= high)
        };
        if digits(4..8) && within(4..6, b"01", b"12") && within(6..8, b"01", b"31") {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_recognised_and_words_are_not() {
        for name in [
            "4f3a9b1c.html",
            "main.4f3a9b1c.js",
            "a1b2c3d4e5f6",
            "chunk-9e8d7c6b.css",
        ] {
            assert!(is_hash_like(name), "{name}");
        }
        for name in [
            "README.md",
            "v1.2.3",
            "utf8",
            "x86_64",
            "deadbeef",
            "sha256sum",
            "test_0001.py",
            "ComponentV2Props.tsx",
        ] {
            assert!(!is_hash_like(name), "{name}");
        }
    }

    #[test]
    fn dates_are_recognised() {
        for name in [
            "2024-01-05-release",
            "20240105_bench",
            "2023-11-30",
            "19991231",
        ] {
            assert!(is_dated(name), "{name}");
        }
        for name in [
            "2to3",
            "1024x768.png",
            "0001_initial.py",
            "2024",
            "30000101",
        ] {
            assert!(!is_dated(name), "{name}");
        }
    }
}

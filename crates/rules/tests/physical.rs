//! Property: for any spelling of a path (`..`, `.`, `//`, symlinks, case
//! variants), the decision equals the decision on the path the kernel
//! opens (`std::fs::canonicalize` is the oracle): no spelling walks around
//! an exclude.
//!
//! Spellings are walks through a real tree, so that every case has an
//! oracle: each step names an entry of the folder the kernel is in at that
//! point (through links, as `open` follows them), or `..`, `.`, or an empty
//! component (`//`). A random join of names would mostly name nothing (about
//! nine cases in ten did), and a case that names nothing checks nothing.
//! The test counts what its cases reached and fails when a kind of spelling
//! stops being generated.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]
#![cfg(unix)]

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use agentctx_rules::Rules;
use agentctx_types::ProjectAgentRulesConfig;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};

struct Tree {
    _dir: tempfile::TempDir,
    /// The folder that holds the project: `..` goes no higher.
    base: PathBuf,
    root: PathBuf,
    /// The file system folds case (`A` opens `a`).
    folds_case: bool,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("repo");
    for d in ["a/b", "secrets/sub", "links", "Docs"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    for f in [
        "a/b/file",
        "a/file",
        "secrets/key",
        "secrets/sub/inner",
        "Docs/readme",
    ] {
        std::fs::write(root.join(f), "x").unwrap();
    }
    std::os::unix::fs::symlink("../secrets/sub", root.join("links/tosub")).unwrap();
    std::os::unix::fs::symlink("../a", root.join("links/toa")).unwrap();
    std::os::unix::fs::symlink("../secrets/key", root.join("a/keylink")).unwrap();
    std::os::unix::fs::symlink("secrets", root.join("tosecrets")).unwrap();
    std::os::unix::fs::symlink("..", root.join("Docs/toroot")).unwrap();
    std::fs::write(
        root.join(".coding-agent-rules.yaml"),
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    )
    .unwrap();
    let folds_case = root.join("A/FILE").exists();
    Tree {
        _dir: dir,
        base,
        root,
        folds_case,
    }
}

/// One step of a walk: which of the folder's choices it takes, and how it
/// spells a name (as it is, in capitals, or capitalized).
type Step = (Index, u8);

/// A path reached by a walk.
struct Walk {
    /// As the tool names it, relative to the root.
    spelled: String,
    /// The same steps with every name as it is on disk.
    exact: String,
    /// A symlink was followed on the way.
    crossed_link: bool,
    /// The walk went above the root.
    left_root: bool,
    /// Some name is spelled in another case than on disk.
    varied: bool,
}

fn walk(t: &Tree, steps: &[Step]) -> Walk {
    let mut spelled: Vec<String> = Vec::new();
    let mut exact: Vec<String> = Vec::new();
    let mut crossed_link = false;
    let mut left_root = false;
    for (pick, case) in steps {
        let here = std::fs::canonicalize(t.root.join(exact.join("/"))).unwrap();
        if !here.is_dir() {
            break;
        }
        let mut names: Vec<String> = std::fs::read_dir(&here)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names.push(".".into());
        // An empty first name would make the path absolute: another path.
        if !exact.is_empty() {
            names.push(String::new());
        }
        if here != t.base {
            names.push("..".into());
        }
        let name = pick.get(&names).clone();
        let entry = here.join(&name);
        if std::fs::symlink_metadata(&entry).is_ok_and(|m| m.file_type().is_symlink()) {
            crossed_link = true;
        }
        // Where case does not fold, a name outside the project in other
        // case (`../REPO`) is another folder, not the project.
        let may_vary = t.folds_case || here.starts_with(&t.root);
        let as_spelled = match case % 3 {
            _ if !may_vary || matches!(name.as_str(), "." | ".." | "") => name.clone(),
            1 => name.to_uppercase(),
            2 => {
                let mut chars = name.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_uppercase().chain(chars).collect()
                })
            }
            _ => name.clone(),
        };
        spelled.push(as_spelled);
        exact.push(name);
        let now = std::fs::canonicalize(t.root.join(exact.join("/"))).unwrap();
        left_root |= !now.starts_with(&t.root);
    }
    // A link followed after a name in other case would be another path on
    // a file system that does not fold case: such walks keep exact names.
    if crossed_link && !t.folds_case {
        spelled.clone_from(&exact);
    }
    let spelled = spelled.join("/");
    let exact = exact.join("/");
    Walk {
        varied: spelled != exact,
        spelled,
        exact,
        crossed_link,
        left_root,
    }
}

#[derive(Debug, Default)]
struct Counts {
    cases: usize,
    /// Cases whose spelled path had an oracle.
    checked: usize,
    excluded: usize,
    crossed_link: usize,
    left_root: usize,
    varied: usize,
}

#[test]
fn the_decision_is_the_decision_on_the_physical_path() {
    let t = tree();
    let rules = Rules::load(&t.root, &ProjectAgentRulesConfig::default()).unwrap();
    let counts = RefCell::new(Counts::default());
    let steps = prop::collection::vec((any::<Index>(), any::<u8>()), 1..8);
    let mut runner = TestRunner::new(Config {
        cases: 2_000,
        failure_persistence: None,
        ..Config::default()
    });
    let outcome = runner.run(&steps, |steps| {
        let w = walk(&t, &steps);
        // The kernel's answer for the spelling; on a file system that does
        // not fold case, a name in other case opens nothing, and the
        // oracle is where a folding one would go (excludes ignore case).
        let opened = if w.varied && !t.folds_case {
            &w.exact
        } else {
            &w.spelled
        };
        let mut counts = counts.borrow_mut();
        counts.cases += 1;
        let Ok(real) = std::fs::canonicalize(t.root.join(opened)) else {
            return Ok(());
        };
        counts.checked += 1;
        let as_spelled = rules.check_file(Path::new(&w.spelled));
        let as_opened = rules.check_file(&real);
        counts.excluded += usize::from(!as_opened.allowed);
        counts.crossed_link += usize::from(w.crossed_link);
        counts.left_root += usize::from(w.left_root);
        counts.varied += usize::from(w.varied);
        prop_assert_eq!(
            as_spelled.allowed,
            as_opened.allowed,
            "{} (opens {}): {} / {}",
            w.spelled,
            real.display(),
            as_spelled.message,
            as_opened.message
        );
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure:?}");
    }
    let counts = counts.into_inner();
    eprintln!("{counts:?} (the file system folds case: {})", t.folds_case);
    // Every spelling names something, and each kind is generated often.
    let share = |n: usize| n * 100 / counts.cases;
    assert_eq!(counts.checked, counts.cases, "{counts:?}");
    for (kind, n, at_least) in [
        ("an excluded file or folder", counts.excluded, 25),
        ("through a link", counts.crossed_link, 20),
        ("above the root", counts.left_root, 8),
        ("in other case", counts.varied, 25),
    ] {
        assert!(
            share(n) >= at_least,
            "{kind}: {}% of the cases, fewer than {at_least}%: {counts:?}",
            share(n)
        );
    }
}

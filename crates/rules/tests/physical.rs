//! Property: for any spelling of a path (`..`, `.`, `//`, symlinks, case
//! variants), the decision equals the decision on the path the kernel
//! opens (`std::fs::canonicalize` is the oracle): no spelling walks around
//! an exclude.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]
#![cfg(unix)]

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;
use agentctx_types::ProjectAgentRulesConfig;
use proptest::prelude::*;

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
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
    std::fs::write(
        root.join(".coding-agent-rules.yaml"),
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    )
    .unwrap();
    Tree { _dir: dir, root }
}

fn component() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a", "b", "file", "secrets", "SECRETS", "Secrets", "sub", "inner", "key", "links", "tosub",
        "toa", "keylink", "..", ".", "", "Docs", "readme",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]
    #[test]
    fn the_decision_is_the_decision_on_the_physical_path(parts in prop::collection::vec(component(), 1..7)) {
        let t = tree();
        let rules = Rules::load(&t.root, &ProjectAgentRulesConfig::default()).unwrap();
        let spelled = parts.join("/");
        let absolute = t.root.join(&spelled);
        // Only paths the kernel can open have an oracle.
        let Ok(real) = std::fs::canonicalize(&absolute) else {
            return Ok(());
        };
        let as_spelled = rules.check_file(Path::new(&spelled));
        let as_opened = rules.check_file(&real);
        prop_assert_eq!(
            as_spelled.allowed,
            as_opened.allowed,
            "{} (opens {}): {} / {}",
            spelled,
            real.display(),
            as_spelled.message,
            as_opened.message
        );
    }
}

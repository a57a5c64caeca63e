//! Project identity against real repositories made with the `git` program:
//! worktrees and clones share it, a remote added later keeps it, a
//! monorepo package is found, a folder outside git is its own identity, and
//! the user's rules merge and split.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "support/git.rs"]
mod support_git;
use support_git::git;

use std::path::{Path, PathBuf};

use agentctx_agentmem::{IdentityOptions, identify, recall_keys};
use agentctx_types::IdentityRule;

/// A repository with three commits and a package, in `dir/name`.
fn repo(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("packages/web/src")).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    for i in 0..3 {
        std::fs::write(root.join("README.md"), format!("v{i}\n")).unwrap();
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-q", "-m", &format!("c{i}")]);
    }
    std::fs::write(root.join("packages/web/package.json"), "{}\n").unwrap();
    root
}

fn options() -> IdentityOptions {
    IdentityOptions::default()
}

#[test]
fn worktrees_and_clones_share_the_identity_and_a_later_remote_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let main = repo(dir.path(), "main");
    let alone = identify(&main, &options());
    assert!(alone.remote.is_empty());
    assert_eq!(alone.root_commit.len(), 40, "{alone:?}");
    assert_eq!(alone.top, std::fs::canonicalize(&main).unwrap());

    git(&main, &["worktree", "add", "-q", "../wt", "-b", "feature"]);
    let worktree = identify(&dir.path().join("wt"), &options());
    assert_eq!(worktree.root_commit, alone.root_commit);
    assert_ne!(worktree.top, alone.top);

    // A remote added later: the root commit still matches earlier captures.
    git(
        &main,
        &["remote", "add", "origin", "git@github.com:Acme/API.git"],
    );
    let pushed = identify(&main, &options());
    assert_eq!(
        pushed.remote, "github.com/acme/api",
        "GitHub names have no case"
    );
    assert_eq!(pushed.root_commit, alone.root_commit);

    // A clone of the local clone: its origin is a path; the remote of
    // where it came from is taken, and the root commit is the same.
    git(
        dir.path(),
        &["clone", "-q", main.to_str().unwrap(), "clone"],
    );
    let clone = identify(&dir.path().join("clone"), &options());
    assert_eq!(clone.remote, "github.com/acme/api");
    assert_eq!(clone.root_commit, alone.root_commit);

    // A shallow clone has no first commit: its remote carries it.
    let url = format!("file://{}", main.display());
    git(
        dir.path(),
        &["clone", "-q", "--depth", "1", &url, "shallow"],
    );
    let shallow = identify(&dir.path().join("shallow"), &options());
    assert!(shallow.root_commit.is_empty(), "{shallow:?}");
    assert_eq!(shallow.remote, "github.com/acme/api");
}

#[test]
fn the_root_commit_is_cached_per_repository() {
    let dir = tempfile::tempdir().unwrap();
    let main = repo(dir.path(), "main");
    let cache = dir.path().join("cache");
    let cached = IdentityOptions {
        cache: Some(cache.clone()),
        ..options()
    };
    let first = identify(&main, &cached);
    let files: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(files.len(), 1);
    assert_eq!(identify(&main, &cached), first);
    // A cached id that is not a root of this repository is not believed.
    let file = files[0].as_ref().unwrap().path();
    std::fs::write(&file, "0000000000000000000000000000000000000000\n").unwrap();
    assert_eq!(identify(&main, &cached).root_commit, first.root_commit);
}

#[test]
fn a_package_is_the_nearest_folder_with_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let main = repo(dir.path(), "main");
    assert_eq!(identify(&main, &options()).package, "");
    assert_eq!(
        identify(&main.join("packages/web/src"), &options()).package,
        "packages/web"
    );
    assert_eq!(identify(&main.join("packages"), &options()).package, "");
}

#[test]
fn outside_git_the_folder_is_the_identity() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain/sub");
    std::fs::create_dir_all(&plain).unwrap();
    let identity = identify(&plain, &options());
    assert!(identity.remote.is_empty() && identity.root_commit.is_empty());
    assert_eq!(identity.top, std::fs::canonicalize(&plain).unwrap());
}

#[test]
fn rules_merge_two_repositories_and_split_a_folder_off() {
    let dir = tempfile::tempdir().unwrap();
    let a = repo(dir.path(), "a");
    let b = repo(dir.path(), "b");
    git(
        &a,
        &["remote", "add", "origin", "https://github.com/acme/api"],
    );
    git(
        &b,
        &["remote", "add", "origin", "https://github.com/acme/api-v2"],
    );
    let rules = vec![IdentityRule {
        matches: "github.com/acme/api-v2".into(),
        id: "github.com/acme/api".into(),
    }];
    let merged = IdentityOptions {
        rules: rules.clone(),
        ..options()
    };
    let in_b = identify(&b, &merged);
    assert_eq!(in_b.name, "github.com/acme/api");
    assert!(in_b.remote.is_empty() && in_b.root_commit.is_empty());
    let in_a = identify(&a, &merged);
    let (keys_a, _) = recall_keys(&in_a, &rules, &[]);
    let (keys_b, _) = recall_keys(&in_b, &rules, &[]);
    // Each sees the other's captures, old (remote key) and new (name).
    for keys in [&keys_a, &keys_b] {
        assert!(keys.contains(&"github.com/acme/api".to_owned()), "{keys:?}");
        assert!(
            keys.contains(&"github.com/acme/api-v2".to_owned()),
            "{keys:?}"
        );
    }

    let folder = std::fs::canonicalize(&a).unwrap().join("packages/web");
    let split = IdentityOptions {
        rules: vec![IdentityRule {
            matches: folder.display().to_string(),
            id: "web-alone".into(),
        }],
        ..options()
    };
    let web = identify(&folder, &split);
    assert_eq!(web.name, "web-alone");
    assert!(web.remote.is_empty());
    assert_eq!(identify(&a, &split).remote, "github.com/acme/api");
}
